//! `pr_list` and `pr_get` end to end against the simulated forges (`pulls_github.yaml`,
//! `pulls_forgejo.yaml`): every filter, cursors across pages and across a pull request opened
//! between them, the bound on pages a filtered search reads, every field of one pull request,
//! requests per call, and arguments refused before any request.

use crate::common;

use resolve_pr_core::{Category, Error};
use resolve_pr_forge_sim::{PullSpec, Sim, SimHandle};
use resolve_pr_tools::{Context, ToolOutput, call};
use serde_json::{Value, json};

use common::Flavor;

struct Fixture {
    sim: SimHandle,
    ctx: Context,
    flavor: Flavor,
}

impl Fixture {
    async fn start(flavor: Flavor) -> Fixture {
        let scenario = match flavor {
            Flavor::GitHub => "pulls_github",
            Flavor::Forgejo => "pulls_forgejo",
        };
        Fixture::on(flavor, common::scenario(scenario)).await
    }

    async fn on(flavor: Flavor, scenario: resolve_pr_forge_sim::Scenario) -> Fixture {
        let sim = Sim::start(scenario).await.expect("simulator starts");
        let token = match flavor {
            Flavor::GitHub => "ghp_write",
            Flavor::Forgejo => "fj_write",
        };
        let ctx = common::context(flavor, &sim, token, [7; 32]);
        Fixture { sim, ctx, flavor }
    }

    fn repository(&self) -> String {
        match self.flavor {
            Flavor::GitHub => "octo/app".to_owned(),
            Flavor::Forgejo => format!("{}/octo/app", self.sim.base_url()),
        }
    }

    async fn call(&self, tool: &str, mut args: Value) -> Result<ToolOutput, Error> {
        if args.get("repository").is_none() {
            args["repository"] = Value::from(self.repository());
        }
        call(&self.ctx, tool, args).await
    }

    /// Requests sent since the last call of this, all of them GETs.
    fn take_requests(&self) -> usize {
        let requests = self.sim.requests();
        assert!(requests.iter().all(|r| r.method == "GET"), "{requests:?}");
        self.sim.clear_requests();
        requests.len()
    }

    fn assert_no_violations(&self) {
        let violations = self.sim.contract_violations();
        assert!(violations.is_empty(), "{violations:#?}");
    }
}

fn numbers(out: &ToolOutput) -> Vec<u64> {
    out.structured["pull_requests"]
        .as_array()
        .expect("pull_requests")
        .iter()
        .map(|p| p["number"].as_u64().expect("number"))
        .collect()
}

fn cursor(out: &ToolOutput) -> Option<String> {
    out.structured["nextCursor"].as_str().map(str::to_owned)
}

/// Every page of a listing from the start, and the requests each call sent.
async fn walk(fx: &Fixture, args: Value) -> (Vec<u64>, Vec<usize>) {
    let mut seen = Vec::new();
    let mut requests = Vec::new();
    let mut next: Option<String> = None;
    fx.take_requests();
    for _ in 0..10 {
        let mut a = args.clone();
        if let Some(c) = &next {
            a["cursor"] = Value::from(c.clone());
        }
        let out = fx.call("pr_list", a).await.expect("pr_list");
        requests.push(fx.take_requests());
        seen.extend(numbers(&out));
        next = cursor(&out);
        if next.is_none() {
            return (seen, requests);
        }
    }
    panic!("more than 10 pages");
}

const CLOSED: [u64; 2] = [3, 8];
const MERGED: [u64; 3] = [5, 12, 19];
const DRAFTS: [u64; 4] = [4, 11, 17, 22];

fn newest_first(keep: impl Fn(u64) -> bool) -> Vec<u64> {
    (1..=30).rev().filter(|n| keep(*n)).collect()
}

fn is_open(n: u64) -> bool {
    !CLOSED.contains(&n) && !MERGED.contains(&n)
}

async fn lists_open_pull_requests_newest_first_20_a_page(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let (seen, requests) = walk(&fx, json!({})).await;
    assert_eq!(seen, newest_first(is_open));
    // 25 open: two pages of ours, each one forge page (GitHub 100 a page, Forgejo 50).
    assert_eq!(requests, vec![1, 1]);

    let first = fx.call("pr_list", json!({})).await.unwrap();
    let item = &first.structured["pull_requests"][0];
    assert_eq!(
        item,
        &json!({
            "number": 30,
            "title": "Change number 30",
            "state": "open",
            "draft": false,
            "author": "erin",
            "head": "feature/30",
            "base": "release/1.x",
            "updated_at": "2024-05-02T05:30:00Z",
            "html_url": item["html_url"].clone(),
        })
    );
    assert!(
        item["html_url"]
            .as_str()
            .unwrap()
            .ends_with("/octo/app/pull/30")
            || item["html_url"]
                .as_str()
                .unwrap()
                .ends_with("/octo/app/pulls/30"),
        "{item}"
    );
    assert_eq!(
        first.structured["pull_requests"][2]["labels"],
        json!(["enhancement"]),
        "#28"
    );
    assert!(first.structured.get("search_stopped").is_none());
    fx.assert_no_violations();
}

async fn filters_by_state(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    for (state, expected) in [
        ("closed", CLOSED.iter().rev().copied().collect::<Vec<_>>()),
        ("merged", MERGED.iter().rev().copied().collect()),
        ("all", newest_first(|_| true)),
    ] {
        let (seen, requests) = walk(&fx, json!({"state": state})).await;
        assert_eq!(seen, expected, "{state}");
        assert!(requests.iter().all(|r| *r == 1), "{state}: {requests:?}");
    }
    let out = fx
        .call("pr_list", json!({"state": "merged"}))
        .await
        .unwrap();
    assert!(
        out.structured["pull_requests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["state"] == "merged")
    );
    fx.assert_no_violations();
}

async fn filters_by_branch_author_and_draft(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let cases = [
        (
            json!({"base": "release/1.x"}),
            vec![30, 25, 20, 15, 10],
            "base",
        ),
        // #21 comes from erin's fork with the same branch name: not this repository's branch.
        (json!({"head": "shared"}), vec![24], "head"),
        (
            json!({"author": "ERIN"}),
            newest_first(|n| n % 2 == 0 && is_open(n)),
            "author, any case",
        ),
        (
            json!({"draft": true}),
            DRAFTS.iter().rev().copied().collect(),
            "drafts",
        ),
        (
            json!({"draft": false, "author": "alice", "base": "main"}),
            newest_first(|n| n % 2 == 1 && n % 5 != 0 && is_open(n) && !DRAFTS.contains(&n)),
            "combined",
        ),
        (
            json!({"state": "all", "author": "nobody"}),
            Vec::new(),
            "no match",
        ),
    ];
    for (args, expected, why) in cases {
        let (seen, requests) = walk(&fx, args.clone()).await;
        assert_eq!(seen, expected, "{why}: {args}");
        assert_eq!(requests, vec![1], "{why}: one forge page holds them all");
    }
    // What each forge was asked: GitHub filters branches itself, Forgejo 11 the author.
    fx.call("pr_list", json!({"author": "erin", "head": "shared"}))
        .await
        .unwrap();
    let query = fx.sim.requests()[0].query.clone().unwrap_or_default();
    match flavor {
        Flavor::GitHub => {
            assert!(query.contains("head=octo%3Ashared"), "{query}");
            assert!(!query.contains("erin"), "{query}");
        }
        Flavor::Forgejo => {
            assert!(query.contains("poster=erin"), "{query}");
            assert!(query.contains("limit=50"), "{query}");
        }
    }
    fx.assert_no_violations();
}

async fn a_pull_request_opened_between_pages_is_neither_repeated_nor_skipped(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let first = fx.call("pr_list", json!({})).await.unwrap();
    let page1 = numbers(&first);
    assert_eq!(page1.len(), 20);
    let opened: PullSpec = serde_json::from_value(json!({
        "number": 40,
        "title": "Opened while paging",
        "author": "bob",
        "head": {"ref": "late", "sha": "d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d040"},
        "base": {"ref": "main", "sha": "babababababababababababababababababab040"},
        "created_at": "2024-05-02T23:00:00Z",
    }))
    .unwrap();
    assert!(fx.sim.open_pull("octo", "app", opened));
    let second = fx
        .call("pr_list", json!({"cursor": cursor(&first).unwrap()}))
        .await
        .unwrap();
    let page2 = numbers(&second);
    assert!(cursor(&second).is_none());
    let mut all = page1.clone();
    all.extend(&page2);
    assert_eq!(all, newest_first(is_open), "every open one once, in order");
    // A new listing starts with it.
    let again = fx.call("pr_list", json!({})).await.unwrap();
    assert_eq!(numbers(&again)[0], 40);
    fx.assert_no_violations();
}

async fn a_filtered_search_stops_at_its_bound_and_says_so(flavor: Flavor) {
    // 520 pull requests; only the oldest is a draft, so finding it reads past 500.
    let yaml = many_pulls(flavor, 520, |n| n == 1);
    let fx = Fixture::on(flavor, common::scenario(&yaml)).await;
    fx.take_requests();
    let first = fx.call("pr_list", json!({"draft": true})).await.unwrap();
    let requests = fx.take_requests();
    assert_eq!(numbers(&first), Vec::<u64>::new());
    let stopped = first.structured["search_stopped"]
        .as_str()
        .expect("search_stopped");
    assert!(stopped.contains("not looked at yet"), "{stopped}");
    assert!(first.text.contains("Search stopped"), "{}", first.text);
    // 500 pull requests: GitHub 5 pages of 100, Forgejo 10 of 50.
    assert_eq!(
        requests,
        match flavor {
            Flavor::GitHub => 5,
            Flavor::Forgejo => 10,
        }
    );
    let second = fx
        .call(
            "pr_list",
            json!({"draft": true, "cursor": cursor(&first).expect("cursor")}),
        )
        .await
        .unwrap();
    assert_eq!(numbers(&second), vec![1]);
    assert!(cursor(&second).is_none());
    assert!(second.structured.get("search_stopped").is_none());
    // The page it stopped on again (pull requests may have moved since; its last one was
    // the cursor's), then the next.
    assert_eq!(fx.take_requests(), 2);
    fx.assert_no_violations();
}

/// A scenario of `count` open pull requests by alice, #1 oldest, a minute apart.
fn many_pulls(flavor: Flavor, count: u64, draft: impl Fn(u64) -> bool) -> String {
    let (forge, token) = match flavor {
        Flavor::GitHub => ("forge: github", "ghp_write"),
        Flavor::Forgejo => (
            "forge: forgejo\nversion: \"11.0.1+gitea-1.22.0\"",
            "fj_write",
        ),
    };
    let mut yaml = format!(
        "{forge}\ntokens:\n  - {{token: {token}, login: alice, permission: write}}\nrepos:\n  - owner: octo\n    name: app\n    pulls:\n"
    );
    for n in 1..=count {
        yaml.push_str(&format!(
            "      - {{number: {n}, title: \"PR {n}\", author: alice, draft: {}, head: {{ref: b{n}, sha: \"{:040}\"}}, base: {{ref: main, sha: \"{:040}\"}}, created_at: \"2024-01-0{}T{:02}:{:02}:00Z\"}}\n",
            draft(n),
            n,
            n + 1000,
            1 + n / 1440,
            (n % 1440) / 60,
            n % 60
        ));
    }
    yaml
}

async fn pull_requests_closed_between_pages_shift_nothing_out_of_sight(flavor: Flavor) {
    // 130 open: after 6 pages of ours the cursor (#11, the 120th) is on a later forge page
    // than the first; closing 30 already shown moves it to an earlier one.
    let fx = Fixture::on(
        flavor,
        common::scenario(&many_pulls(flavor, 130, |_| false)),
    )
    .await;
    let mut seen = Vec::new();
    let mut next: Option<String> = None;
    for _ in 0..6 {
        let mut args = json!({});
        if let Some(c) = &next {
            args["cursor"] = Value::from(c.clone());
        }
        let out = fx.call("pr_list", args).await.unwrap();
        seen.extend(numbers(&out));
        next = cursor(&out);
    }
    assert_eq!(seen, (11..=130).rev().collect::<Vec<u64>>());
    for n in 101..=130 {
        assert!(fx.sim.close_pull("octo", "app", n));
    }
    let out = fx
        .call("pr_list", json!({"cursor": next.expect("cursor")}))
        .await
        .unwrap();
    assert_eq!(numbers(&out), (1..=10).rev().collect::<Vec<u64>>());
    assert!(cursor(&out).is_none());
    fx.assert_no_violations();
}

async fn gets_one_pull_request_with_reviewers(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.take_requests();
    let out = fx
        .call("pr_get", json!({"pull_request_number": 30}))
        .await
        .unwrap();
    // The pull request and its reviews.
    assert_eq!(fx.take_requests(), 2);
    let s = &out.structured;
    let pr = s["pr"].as_str().unwrap();
    assert!(
        pr == "octo/app#30" || pr.ends_with("/octo/app/pulls/30"),
        "{pr}"
    );
    assert_eq!(s["title"], "Change number 30");
    assert_eq!(s["state"], "open");
    assert_eq!(s["draft"], false);
    assert_eq!(s["author"], "erin");
    assert_eq!(
        s["head"],
        json!({"branch": "feature/30", "sha": format!("{}30", "c0".repeat(19)), "repository": "octo/app", "fork": false})
    );
    assert_eq!(
        s["base"],
        json!({"branch": "release/1.x", "sha": format!("{}30", "ba".repeat(19)), "repository": "octo/app"})
    );
    assert_eq!(s["mergeable"], true);
    match flavor {
        Flavor::GitHub => assert_eq!(s["mergeable_state"], "clean"),
        Flavor::Forgejo => assert!(s.get("mergeable_state").is_none()),
    }
    assert_eq!(s["requested_reviewers"], json!(["dave"]));
    assert_eq!(s["requested_teams"], json!(["octo/reviewers"]));
    assert_eq!(
        s["reviews"],
        json!([
            {"reviewer": "carol", "state": "COMMENTED", "submitted_at": "2024-05-02T06:10:00Z"},
            {"reviewer": "bob", "state": "APPROVED", "submitted_at": "2024-05-02T06:20:00Z"},
        ])
    );
    assert_eq!(s["created_at"], "2024-05-02T05:00:00Z");
    assert_eq!(s["updated_at"], "2024-05-02T05:30:00Z");
    let body = s["body"].as_str().unwrap();
    assert!(body.len() < 4200, "{}", body.len());
    assert!(body.starts_with("Why this change."));
    let cut = s["body_cut"].as_str().expect("body_cut");
    assert!(cut.contains(s["html_url"].as_str().unwrap()), "{cut}");
    assert!(s.get("merged_at").is_none());
    assert!(
        out.text.contains("[open] Change number 30 by erin"),
        "{}",
        out.text
    );
    assert!(
        out.text
            .contains("Review requested from: dave, octo/reviewers"),
        "{}",
        out.text
    );
    assert!(out.text.contains("- bob APPROVED at"), "{}", out.text);
    fx.assert_no_violations();
}

async fn gets_forks_merged_and_uncomputed_mergeability(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let fork = fx
        .call("pr_get", json!({"pull_request_number": 21}))
        .await
        .unwrap();
    assert_eq!(
        fork.structured["head"],
        json!({"branch": "shared", "sha": format!("{}21", "c0".repeat(19)), "repository": "erin/app", "fork": true})
    );
    assert!(fork.structured.get("body_cut").is_none());
    assert!(fork.structured.get("requested_reviewers").is_none());

    let merged = fx
        .call("pr_get", json!({"pull_request_number": 12}))
        .await
        .unwrap();
    assert_eq!(merged.structured["state"], "merged");
    assert_eq!(merged.structured["merged_at"], "2024-05-01T11:30:00Z");
    assert!(
        merged.structured["mergeability"]
            .as_str()
            .unwrap()
            .starts_with("merged")
    );

    let pending = fx
        .call("pr_get", json!({"pull_request_number": 29}))
        .await
        .unwrap();
    let said = pending.structured["mergeability"].as_str().unwrap();
    match flavor {
        Flavor::GitHub => {
            assert!(pending.structured.get("mergeable").is_none());
            assert!(said.starts_with("not computed yet"), "{said}");
        }
        Flavor::Forgejo => {
            assert_eq!(pending.structured["mergeable"], false);
            assert!(said.contains("not conclusive"), "{said}");
        }
    }
    fx.assert_no_violations();
}

async fn an_issue_number_is_not_found(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    for number in [31, 999] {
        let e = fx
            .call("pr_get", json!({"pull_request_number": number}))
            .await
            .unwrap_err();
        assert_eq!(e.category, Category::User, "{number}: {e:?}");
        assert!(e.error.contains("not found"), "{number}: {}", e.error);
    }
}

async fn bad_arguments_name_every_field_and_send_nothing(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.take_requests();
    let e = fx
        .call(
            "pr_list",
            json!({"repository": "not a repo", "base": "a b", "head": "", "author": "x\ny"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User);
    for field in ["repository", "base", "head", "author"] {
        assert!(e.error.contains(field), "{field}: {}", e.error);
    }
    let e = fx
        .call(
            "pr_list",
            json!({"state": "opened", "draft": "yes", "cursor": 3}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User);
    for field in ["state", "draft", "cursor"] {
        assert!(e.error.contains(field), "{field}: {}", e.error);
    }
    let e = fx
        .call("pr_list", json!({"base": "b c", "cursor": "forged"}))
        .await
        .unwrap_err();
    assert!(
        e.error.contains("base") && e.error.contains("cursor"),
        "{}",
        e.error
    );
    let e = fx
        .call(
            "pr_get",
            json!({"repository": "nope", "pull_request_number": 0}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User);
    assert!(
        e.error.contains("repository") && e.error.contains("pull_request_number"),
        "{}",
        e.error
    );
    let e = fx
        .call("pr_get", json!({"pull_request_number": 3, "extra": 1}))
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User);
    assert_eq!(fx.take_requests(), 0);
}

async fn a_cursor_only_works_for_its_own_arguments(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let first = fx.call("pr_list", json!({})).await.unwrap();
    fx.take_requests();
    let e = fx
        .call(
            "pr_list",
            json!({"state": "all", "cursor": cursor(&first).unwrap()}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    assert_eq!(fx.take_requests(), 0);
}

on_both_forges!(
    lists_open_pull_requests_newest_first_20_a_page,
    filters_by_state,
    filters_by_branch_author_and_draft,
    a_pull_request_opened_between_pages_is_neither_repeated_nor_skipped,
    a_filtered_search_stops_at_its_bound_and_says_so,
    pull_requests_closed_between_pages_shift_nothing_out_of_sight,
    gets_one_pull_request_with_reviewers,
    gets_forks_merged_and_uncomputed_mergeability,
    an_issue_number_is_not_found,
    bad_arguments_name_every_field_and_send_nothing,
    a_cursor_only_works_for_its_own_arguments,
);
