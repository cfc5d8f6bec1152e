//! Pull requests as stacks see them, on GitHub, Forgejo and Gitea against the simulator: the
//! merge facts and repositories of a pull request (a fork's, a merged one's), listing with
//! branch filters over several pages, and retargeting, with the request log proving what
//! each call costs and that a write is never repeated.

use std::sync::Arc;

use resolve_pr_core::{Category, Error, PrRef, RepoRef};
use resolve_pr_forge::config::{ForgejoEndpoint, GitHubEndpoint, Secret};
use resolve_pr_forge::{
    Forge, ForgeKind, Forgejo, GitHub, PrState, PullFilter, PullListState, PullRequest, parse_time,
};
use resolve_pr_forge_sim::{Fault, FaultKind, RecordedRequest, Scenario, Sim, SimHandle};
use resolve_pr_testkit::forge::fast_options;

const WRITER: &str = "tok_writer_5f1d9a7c3e";
const READER: &str = "tok_reader_8b2e4c6d0f";
/// Open pull requests into `develop`, enough for two GitHub pages and three Forgejo pages.
const FILLERS: u64 = 120;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    GitHub,
    Forgejo,
    /// Forgejo 16, whose pull request list filters by base and head itself.
    Forgejo16,
    Gitea,
}

fn sha(c: char) -> String {
    std::iter::repeat_n(c, 40).collect()
}

/// A stack main <- feature/a (#1) <- feature/b (#2) <- feature/c (#3), a merged pull
/// request (#4), a fork's pull request from its own `feature/a` (#5), a closed one (#6), one
/// from a branch named `-x` (#7), one from a fork the scenario does not describe (#8: a
/// deleted head repository on Forgejo/Gitea, a fork on GitHub), an issue (#9), and `FILLERS` pull requests into `develop`
/// (#100…), each created a minute after the one before.
fn scenario_yaml(flavor: Flavor) -> String {
    let header = match flavor {
        Flavor::GitHub => "forge: github\n",
        Flavor::Forgejo => "forge: forgejo\nversion: \"11.0.1+gitea-1.22.0\"\n",
        Flavor::Forgejo16 => "forge: forgejo\nversion: \"16.0.0+gitea-1.22.0\"\n",
        Flavor::Gitea => "forge: gitea\nversion: \"1.24.0\"\n",
    };
    let mut y = format!(
        "{header}\
tokens:
  - {{token: {WRITER}, login: alice, permission: write}}
  - {{token: {READER}, login: carol, permission: read}}
repos:
  - owner: forker
    name: widgets
  - owner: acme
    name: widgets
    issues:
      - {{number: 9, title: Not a pull request}}
    pulls:
"
    );
    let pull = |n: u64, head: &str, head_sha: &str, base: &str, base_sha: &str, extra: &str| {
        format!(
            "      - {{number: {n}, title: \"PR {n}\", author: bob, created_at: \"2024-01-01T00:{n:02}:00Z\", \
             head: {{ref: \"{head}\", sha: \"{head_sha}\"{fork}}}, base: {{ref: \"{base}\", sha: \"{base_sha}\"}}{extra}}}\n",
            fork = match n {
                5 => ", repo: forker/widgets",
                // A fork the forge no longer has.
                8 => ", repo: gone/widgets",
                _ => "",
            },
        )
    };
    y += &pull(
        1,
        "feature/a",
        &sha('a'),
        "main",
        &sha('0'),
        ", mergeable: true, body: \"Fixes #12\", labels: [bug, \"area: auth\"]",
    );
    y += &pull(
        2,
        "feature/b",
        &sha('b'),
        "feature/a",
        &sha('a'),
        &format!(
            ", comments: [{{author: alice, body: hi, created_at: \"2024-01-01T00:03:00Z\"}}], \
             force_pushes: [{{before: \"{}\", after: \"{}\", created_at: \"2024-01-01T00:05:00Z\"}}, \
             {{before: \"{}\", after: \"{}\", created_at: \"2024-01-01T00:06:00Z\"}}]",
            sha('4'),
            sha('5'),
            sha('5'),
            sha('b')
        ),
    );
    y += &pull(3, "feature/c", &sha('c'), "feature/b", &sha('b'), "");
    y += &pull(
        4,
        "feature/old",
        &sha('d'),
        "main",
        &sha('0'),
        &format!(
            ", state: merged, merged_at: \"2024-01-02T10:00:00Z\", merged_by: alice, merge_commit_sha: \"{}\"",
            sha('e')
        ),
    );
    y += &pull(5, "feature/a", &sha('f'), "main", &sha('0'), "");
    y += &pull(
        6,
        "feature/closed",
        &sha('1'),
        "main",
        &sha('0'),
        ", state: closed",
    );
    y += &pull(7, "-x", &sha('7'), "main", &sha('0'), "");
    y += &pull(8, "patch-1", &sha('8'), "main", &sha('0'), "");
    for i in 0..FILLERS {
        let n = 100 + i;
        y += &format!(
            "      - {{number: {n}, title: \"Filler {i}\", author: bob, created_at: \"2024-02-01T{:02}:{:02}:00Z\", \
             head: {{ref: \"filler/{i}\", sha: \"{}\"}}, base: {{ref: develop, sha: \"{}\"}}}}\n",
            i / 60,
            i % 60,
            sha('2'),
            sha('3')
        );
    }
    y
}

struct Fixture {
    sim: SimHandle,
    flavor: Flavor,
    forge: Arc<dyn Forge>,
}

impl Fixture {
    async fn start(flavor: Flavor) -> Fixture {
        Fixture::with_token(flavor, WRITER).await
    }

    async fn with_token(flavor: Flavor, token: &str) -> Fixture {
        let scenario = Scenario::from_yaml(&scenario_yaml(flavor)).expect("valid scenario");
        let sim = Sim::start(scenario).await.expect("the simulator starts");
        let base = sim.base_url().trim_end_matches('/').to_owned();
        let host = base.trim_start_matches("http://").to_owned();
        let forge: Arc<dyn Forge> = match flavor {
            Flavor::GitHub => Arc::new(
                GitHub::with_options(
                    GitHubEndpoint {
                        web_host: host,
                        api_url: base.clone(),
                        graphql_url: format!("{base}/graphql"),
                        token: Some(Secret::new(token)),
                        token_vars: &[],
                    },
                    fast_options(),
                )
                .expect("client"),
            ),
            _ => Arc::new(
                Forgejo::with_options(
                    ForgejoEndpoint {
                        host,
                        configured_kind: ForgeKind::Forgejo,
                        api_url: format!("{base}/api/v1"),
                        web_url: base,
                        token: Some(Secret::new(token)),
                        token_env: None,
                    },
                    fast_options(),
                )
                .expect("client"),
            ),
        };
        Fixture { sim, flavor, forge }
    }

    fn pr(&self, number: u64) -> PrRef {
        PrRef::parse(&format!("acme/widgets#{number}")).expect("reference")
    }

    fn repo(&self) -> RepoRef {
        RepoRef::parse("acme/widgets").expect("repository")
    }

    fn path(&self, api_path: &str) -> String {
        match self.flavor {
            Flavor::GitHub => api_path.to_owned(),
            _ => format!("/api/v1{api_path}"),
        }
    }

    fn base_url(&self) -> String {
        self.sim.base_url().trim_end_matches('/').to_owned()
    }

    fn requests(&self) -> Vec<RecordedRequest> {
        self.sim.requests()
    }

    fn writes(&self) -> usize {
        self.requests().iter().filter(|r| r.method != "GET").count()
    }

    async fn list(
        &self,
        state: PullListState,
        head: Option<&str>,
        base: Option<&str>,
        limit: usize,
    ) -> Vec<PullRequest> {
        let filter = PullFilter {
            state,
            head: head.map(str::to_owned),
            base: base.map(str::to_owned),
            limit,
            ..PullFilter::default()
        };
        self.forge
            .pull_requests()
            .list_pull_requests(&self.repo(), &filter)
            .await
            .expect("listing")
    }

    fn assert_no_contract_violations(&self) {
        assert_eq!(self.sim.contract_violations(), Vec::<String>::new());
    }
}

fn numbers(pulls: &[PullRequest]) -> Vec<u64> {
    pulls.iter().map(|p| p.number).collect()
}

fn category_of(result: resolve_pr_forge::Result<PullRequest>) -> Category {
    match result {
        Ok(p) => panic!("expected an error, got #{} on {}", p.number, p.base_ref),
        Err(e) => Error::from(e).category,
    }
}

macro_rules! on_every_forge {
    ($($name:ident),* $(,)?) => {
        mod github {
            $(#[tokio::test] async fn $name() { super::$name(super::Flavor::GitHub).await })*
        }
        mod forgejo {
            $(#[tokio::test] async fn $name() { super::$name(super::Flavor::Forgejo).await })*
        }
        mod forgejo16 {
            $(#[tokio::test] async fn $name() { super::$name(super::Flavor::Forgejo16).await })*
        }
        mod gitea {
            $(#[tokio::test] async fn $name() { super::$name(super::Flavor::Gitea).await })*
        }
    };
}

on_every_forge!(
    a_fork_and_a_merged_pull_request_say_so,
    listing_walks_pages_up_to_the_limit,
    listing_filters_by_head_and_base,
    set_base_changes_what_the_next_read_returns,
    set_base_refuses_before_writing,
    a_failed_retarget_is_not_repeated,
    force_pushes_are_read_from_the_timeline_in_one_request,
);

/// The head branch's force-pushes, oldest first, from the pull request's timeline (GitHub's
/// `HeadRefForcePushedEvent`s, Forgejo/Gitea's `pull_push` comments among the others), in
/// one request; a pull request without any has none.
async fn force_pushes_are_read_from_the_timeline_in_one_request(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let prs = fx.forge.pull_requests();
    let read = prs.head_pushes(&fx.pr(2)).await.expect("reads");
    assert!(read.complete);
    let pairs: Vec<(Option<String>, Option<String>, bool)> = read
        .pushes
        .into_iter()
        .map(|p| (p.before, p.after, p.forced))
        .collect();
    assert_eq!(
        pairs,
        [
            (Some(sha('4')), Some(sha('5')), true),
            (Some(sha('5')), Some(sha('b')), true),
        ]
    );
    assert_eq!(fx.requests().len(), 1, "{:?}", fx.requests());
    let none = prs.head_pushes(&fx.pr(3)).await.expect("reads");
    assert_eq!(none.pushes, []);
    assert!(none.complete);
    fx.assert_no_contract_violations();
}

async fn a_fork_and_a_merged_pull_request_say_so(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let prs = fx.forge.pull_requests();
    let base = fx.base_url();

    let own = prs.pull_request(&fx.pr(1)).await.expect("#1");
    assert_eq!(own.state, PrState::Open);
    assert_eq!(own.base_sha, sha('0'));
    assert_eq!(own.body, "Fixes #12");
    assert_eq!(own.labels, ["bug", "area: auth"]);
    assert_eq!(
        (own.base_repo.as_str(), own.head_repo.as_deref()),
        ("acme/widgets", Some("acme/widgets"))
    );
    assert!(!own.is_from_fork());
    let clone = format!("{base}/acme/widgets.git");
    assert_eq!(own.base_clone_url.as_deref(), Some(clone.as_str()));
    assert_eq!(own.head_clone_url.as_deref(), Some(clone.as_str()));
    assert_eq!(
        (own.merged_at, own.merge_commit_sha.as_deref()),
        (None, None)
    );
    assert_eq!(own.mergeable, Some(true));
    let expected_state = (flavor == Flavor::GitHub).then_some("clean");
    assert_eq!(own.mergeable_state.as_deref(), expected_state);

    let fork = prs.pull_request(&fx.pr(5)).await.expect("#5");
    assert!(fork.is_from_fork());
    assert_eq!(fork.head_repo.as_deref(), Some("forker/widgets"));
    let fork_clone = format!("{base}/forker/widgets.git");
    assert_eq!(fork.head_clone_url.as_deref(), Some(fork_clone.as_str()));
    assert_eq!(fork.base_clone_url.as_deref(), Some(clone.as_str()));
    // Not computed yet: GitHub says null; Forgejo/Gitea say false, which is not conclusive.
    let expected = if flavor == Flavor::GitHub {
        None
    } else {
        Some(false)
    };
    assert_eq!(fork.mergeable, expected);

    let merged = prs.pull_request(&fx.pr(4)).await.expect("#4");
    assert_eq!(merged.state, PrState::Merged);
    assert_eq!(merged.merged_at, parse_time("2024-01-02T10:00:00Z"));
    assert_eq!(merged.merge_commit_sha, Some(sha('e')));

    let gone = prs.pull_request(&fx.pr(8)).await.expect("#8");
    assert!(gone.is_from_fork());
    if flavor == Flavor::GitHub {
        assert_eq!(gone.head_repo.as_deref(), Some("gone/widgets"));
    } else {
        // Forgejo/Gitea: the head repository is gone (null).
        assert_eq!((gone.head_repo, gone.head_clone_url), (None, None));
    }

    // One request each; nothing else (no flavour detection, no repository reads).
    let paths: Vec<String> = fx.requests().into_iter().map(|r| r.path).collect();
    let expected: Vec<String> = [1, 5, 4, 8]
        .iter()
        .map(|n| fx.path(&format!("/repos/acme/widgets/pulls/{n}")))
        .collect();
    assert_eq!(paths, expected);

    if flavor == Flavor::GitHub {
        // The feedback snapshot (GraphQL) describes the pull request as REST does.
        for (n, rest) in [(5, &fork), (4, &merged), (1, &own)] {
            let feedback = fx
                .forge
                .threads()
                .review_feedback(&fx.pr(n))
                .await
                .expect("feedback");
            assert_eq!(&feedback.pull, rest, "#{n}");
        }
    }
    fx.assert_no_contract_violations();
}

async fn listing_walks_pages_up_to_the_limit(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let all = fx
        .list(PullListState::Open, None, Some("develop"), 1000)
        .await;
    assert_eq!(all.len(), FILLERS as usize);
    // Newest first.
    let expected: Vec<u64> = (100..100 + FILLERS).rev().collect();
    assert_eq!(numbers(&all), expected);
    assert!(
        all.iter()
            .all(|p| p.base_ref == "develop" && !p.is_from_fork())
    );
    // Listings carry no mergeability on GitHub; Forgejo/Gitea list the full object.
    if flavor == Flavor::GitHub {
        assert!(
            all.iter()
                .all(|p| p.mergeable.is_none() && p.mergeable_state.is_none())
        );
    }
    let open_total = FILLERS as usize + 6; // #1, #2, #3, #5, #7, #8
    let pages = |per_page: usize, items: usize| items.div_ceil(per_page);
    let expected_requests = match flavor {
        // GitHub filters by base itself: 120 in pages of 100.
        Flavor::GitHub => pages(100, FILLERS as usize),
        // Forgejo 16 filters too, in pages of 50.
        Flavor::Forgejo16 => pages(50, FILLERS as usize),
        // Older Forgejo and Gitea ignore `base`: every open pull request, 50 a page.
        Flavor::Forgejo | Flavor::Gitea => pages(50, open_total),
    };
    assert_eq!(
        fx.requests().len(),
        expected_requests,
        "{:?}",
        fx.requests()
    );
    let first = &fx.requests()[0];
    assert_eq!(first.path, fx.path("/repos/acme/widgets/pulls"));

    // A limit stops the walk: the 10 newest cost one request everywhere.
    let before = fx.requests().len();
    let ten = fx
        .list(PullListState::Open, None, Some("develop"), 10)
        .await;
    assert_eq!(numbers(&ten), (210..220).rev().collect::<Vec<u64>>());
    assert_eq!(fx.requests().len() - before, 1);
    // A limit of zero asks nothing.
    assert!(fx.list(PullListState::All, None, None, 0).await.is_empty());
    assert_eq!(fx.requests().len() - before, 1);
    fx.assert_no_contract_violations();
}

async fn listing_filters_by_head_and_base(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    // The base repository's feature/a, not the fork's branch of the same name (#5).
    assert_eq!(
        numbers(
            &fx.list(PullListState::All, Some("feature/a"), None, 50)
                .await
        ),
        [1]
    );
    assert_eq!(
        numbers(
            &fx.list(PullListState::Open, None, Some("feature/a"), 50)
                .await
        ),
        [2]
    );
    assert_eq!(
        numbers(&fx.list(PullListState::All, None, Some("main"), 50).await),
        [8, 7, 6, 5, 4, 1]
    );
    assert_eq!(
        numbers(&fx.list(PullListState::Open, None, Some("main"), 50).await),
        [8, 7, 5, 1]
    );
    assert_eq!(
        numbers(
            &fx.list(PullListState::All, Some("-x"), Some("main"), 50)
                .await
        ),
        [7]
    );
    assert!(
        fx.list(PullListState::All, Some("nope"), None, 50)
            .await
            .is_empty()
    );
    // Where the forge filters, each listing above is one request; elsewhere every pull
    // request in the state is read, 50 a page.
    let per_listing = match flavor {
        Flavor::GitHub | Flavor::Forgejo16 => [1, 1, 1, 1, 1, 1],
        Flavor::Forgejo | Flavor::Gitea => [3, 3, 3, 3, 3, 3],
    };
    assert_eq!(
        fx.requests().len(),
        per_listing.iter().sum::<usize>(),
        "{:?}",
        fx.requests()
    );
    // Branch names travel percent-encoded in the query.
    let queries: Vec<String> = fx.requests().into_iter().filter_map(|r| r.query).collect();
    assert!(
        queries.iter().any(|q| q.contains("feature%2Fa")),
        "{queries:?}"
    );
    if flavor == Flavor::GitHub {
        assert!(
            queries
                .iter()
                .any(|q| q.contains("head=acme%3Afeature%2Fa")),
            "{queries:?}"
        );
    }
    fx.assert_no_contract_violations();
}

async fn set_base_changes_what_the_next_read_returns(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let prs = fx.forge.pull_requests();
    // #1 is merged away: #2 goes onto main.
    let moved = prs.set_base(&fx.pr(2), "main").await.expect("retargeted");
    assert_eq!(
        (moved.base_ref.as_str(), moved.base_sha.as_str()),
        ("main", sha('0').as_str())
    );
    let methods: Vec<String> = fx.requests().into_iter().map(|r| r.method).collect();
    assert_eq!(
        methods,
        ["GET", "PATCH"],
        "a read proving the PR, then one write"
    );
    assert_eq!(
        fx.requests()[1].path,
        fx.path("/repos/acme/widgets/pulls/2")
    );

    let after = prs.pull_request(&fx.pr(2)).await.expect("#2");
    assert_eq!(after.base_ref, "main");
    assert_eq!(after.base_sha, sha('0'));
    assert!(numbers(&fx.list(PullListState::Open, None, Some("main"), 50).await).contains(&2));

    // A branch named like an option is a branch: #3 goes onto `-x` (#7's head).
    let odd = prs
        .set_base(&fx.pr(3), "-x")
        .await
        .expect("retargeted onto -x");
    assert_eq!(
        (odd.base_ref.as_str(), odd.base_sha.as_str()),
        ("-x", sha('7').as_str())
    );

    // Already there: read, no write.
    let writes = fx.writes();
    let same = prs.set_base(&fx.pr(3), "-x").await.expect("no-op");
    assert_eq!(same.base_ref, "-x");
    assert_eq!(fx.writes(), writes);
    fx.assert_no_contract_violations();
}

async fn set_base_refuses_before_writing(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let prs = fx.forge.pull_requests();
    // Not a branch name at all: nothing is sent.
    assert_eq!(
        category_of(prs.set_base(&fx.pr(2), "a;rm -rf ~").await),
        Category::User
    );
    assert_eq!(
        category_of(prs.set_base(&fx.pr(2), "").await),
        Category::User
    );
    assert!(fx.requests().is_empty());
    // A merged or closed pull request: read, refused, nothing written.
    assert_eq!(
        category_of(prs.set_base(&fx.pr(4), "develop").await),
        Category::Logical
    );
    assert_eq!(
        category_of(prs.set_base(&fx.pr(6), "develop").await),
        Category::Logical
    );
    // An issue number is not a pull request.
    assert_eq!(
        category_of(prs.set_base(&fx.pr(9), "main").await),
        Category::User
    );
    assert_eq!(fx.writes(), 0, "{:?}", fx.requests());
    assert_eq!(fx.requests().len(), 3);

    // A branch the repository does not have: the forge refuses the one write.
    let e = prs
        .set_base(&fx.pr(2), "no/such-branch")
        .await
        .expect_err("refused");
    let e = Error::from(e);
    assert_eq!(e.category, Category::User, "{e:#?}");
    assert_eq!(fx.writes(), 1);
    assert_eq!(
        prs.pull_request(&fx.pr(2)).await.expect("#2").base_ref,
        "feature/a"
    );

    // A token that may only read: the forge refuses.
    let reader = Fixture::with_token(flavor, READER).await;
    let e = reader
        .forge
        .pull_requests()
        .set_base(&reader.pr(2), "main")
        .await;
    assert_eq!(category_of(e), Category::Authentication);
    assert_eq!(reader.writes(), 1);
    fx.assert_no_contract_violations();
    reader.assert_no_contract_violations();
}

async fn a_failed_retarget_is_not_repeated(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.sim.inject(Fault {
        method: Some("PATCH".to_owned()),
        path: fx.path("/repos/acme/widgets/pulls/2"),
        times: 3,
        kind: FaultKind::Status {
            code: 502,
            headers: Vec::new(),
            body: "bad gateway".to_owned(),
        },
    });
    let e = fx.forge.pull_requests().set_base(&fx.pr(2), "main").await;
    assert_eq!(category_of(e), Category::Api);
    assert_eq!(
        fx.writes(),
        1,
        "a write that may have reached the forge is not sent again"
    );
}

/// Forgejo/Gitea's lookup of a pull request by base and head, served for clients that want
/// one pull request without a listing (and checked against the description).
#[tokio::test]
async fn forgejo_finds_a_pull_request_by_base_and_head() {
    let fx = Fixture::start(Flavor::Forgejo).await;
    let client = reqwest::Client::new();
    let get = |path: &str| {
        client
            .get(format!(
                "{}/api/v1/repos/acme/widgets/pulls/{path}",
                fx.base_url()
            ))
            .header("authorization", format!("token {WRITER}"))
            .send()
    };
    let number = |response: reqwest::Response| async move {
        let text = response.text().await.expect("body");
        let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        v["number"].clone()
    };
    assert_eq!(number(get("main/-x").await.expect("answer")).await, 7);
    assert_eq!(
        number(get("feature%2Fa/feature/b").await.expect("answer")).await,
        2
    );
    assert_eq!(
        number(get("main/forker:feature/a").await.expect("answer")).await,
        5
    );
    assert_eq!(get("main/feature-z").await.expect("answer").status(), 404);
    fx.assert_no_contract_violations();
}

/// The simulator's listing as a client other than ours sees it: GitHub's sort, direction and
/// `Link` pages, Forgejo's sort and `X-Total-Count`, each answer checked against the
/// description.
#[tokio::test]
async fn the_simulated_listings_sort_and_page_like_the_forges() {
    // After a forge client exists: it installs the TLS crypto provider reqwest needs.
    let gh = Fixture::start(Flavor::GitHub).await;
    let client = reqwest::Client::new();
    let numbers_of = |text: &str| -> Vec<u64> {
        let v: serde_json::Value = serde_json::from_str(text).expect("JSON");
        v.as_array()
            .expect("a list")
            .iter()
            .map(|p| p["number"].as_u64().expect("number"))
            .collect()
    };

    let url = format!(
        "{}/repos/acme/widgets/pulls?state=all&base=main&sort=created&direction=asc&per_page=2&page=2",
        gh.base_url()
    );
    let response = client
        .get(url)
        .header("authorization", format!("Bearer {WRITER}"))
        .send()
        .await
        .expect("answer");
    let link = response
        .headers()
        .get("link")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    // Oldest first: 1, 4 | 5, 6 | 7, 8.
    assert_eq!(numbers_of(&response.text().await.expect("body")), [5, 6]);
    for rel in ["prev", "next", "last", "first"] {
        assert!(link.contains(&format!("rel=\"{rel}\"")), "{link}");
    }
    assert!(
        link.contains("base=main") && link.contains("page=3"),
        "{link}"
    );
    // Without a direction, created sorts newest first; a head filter needs the owner.
    let url = format!(
        "{}/repos/acme/widgets/pulls?state=all&head=forker:feature/a",
        gh.base_url()
    );
    let text = client
        .get(url)
        .header("authorization", format!("Bearer {WRITER}"))
        .send()
        .await
        .expect("answer")
        .text()
        .await
        .expect("body");
    assert_eq!(numbers_of(&text), [5]);
    gh.assert_no_contract_violations();

    let fj = Fixture::start(Flavor::Forgejo).await;
    let url = format!(
        "{}/api/v1/repos/acme/widgets/pulls?state=closed&sort=oldest&limit=1&page=2",
        fj.base_url()
    );
    let response = client
        .get(url)
        .header("authorization", format!("token {WRITER}"))
        .send()
        .await
        .expect("answer");
    let total = response
        .headers()
        .get("x-total-count")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    // Closed and merged, oldest first: 4, 6.
    assert_eq!(total, "2");
    assert_eq!(numbers_of(&response.text().await.expect("body")), [6]);
    fj.assert_no_contract_violations();
}
