//! Both forge clients against the simulator: the same situations on GitHub and on
//! Forgejo/Gitea, including the faults a real forge throws (rate limits, 5xx, dropped
//! connections, garbage), with the request log proving how many requests each call made.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use resolve_pr_core::{Category, Error, PrRef, RepoRef};
use resolve_pr_forge::config::{ForgejoEndpoint, GitHubEndpoint, Secret};
use resolve_pr_forge::{
    ClientOptions, Config, Forge, ForgeKind, Forgejo, Forges, GitHub, IssueComment, PageRequest,
    PrState,
};
use resolve_pr_forge_sim::{Fault, FaultKind, RecordedRequest, Scenario, Sim, SimHandle};
use resolve_pr_testkit::forge::fast_options;

const WRITER: &str = "tok_writer_5f1d9a7c3e";
const READER: &str = "tok_reader_8b2e4c6d0f";
const CONVERSATION: &str = include_str!("../scenarios/pr_conversation.yaml");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    GitHub,
    Forgejo,
    Gitea,
}

fn scenario(flavor: Flavor) -> Scenario {
    // Forgejo/Gitea logins cannot contain brackets; GitHub App bots' logins do.
    let gitea_family = CONVERSATION.replace("ci-bot[bot]", "ci-bot");
    let text = match flavor {
        Flavor::GitHub => CONVERSATION.to_owned(),
        Flavor::Forgejo => gitea_family.replacen(
            "forge: github",
            "forge: forgejo\nversion: \"11.0.1+gitea-1.22.0\"",
            1,
        ),
        Flavor::Gitea => {
            gitea_family.replacen("forge: github", "forge: gitea\nversion: \"1.22.3\"", 1)
        }
    };
    Scenario::from_yaml(&text).expect("the test scenario is valid")
}

/// A running simulator and a client for it.
struct Fixture {
    sim: SimHandle,
    flavor: Flavor,
    forge: Arc<dyn Forge>,
}

impl Fixture {
    async fn start(flavor: Flavor) -> Fixture {
        Fixture::with(flavor, Some(WRITER), fast_options()).await
    }

    async fn with(flavor: Flavor, token: Option<&str>, options: ClientOptions) -> Fixture {
        let sim = Sim::start(scenario(flavor))
            .await
            .expect("the simulator starts");
        let forge = client(&sim, flavor, token, options);
        Fixture { sim, flavor, forge }
    }

    fn pr(&self, number: u64) -> PrRef {
        PrRef::parse(&format!("acme/widgets#{number}")).expect("valid reference")
    }

    /// The request path of an API path on this forge.
    fn path(&self, api_path: &str) -> String {
        match self.flavor {
            Flavor::GitHub => api_path.to_owned(),
            Flavor::Forgejo | Flavor::Gitea => format!("/api/v1{api_path}"),
        }
    }

    fn fault(&self, method: &str, api_path: &str, times: u32, kind: FaultKind) {
        self.sim.inject(Fault {
            method: Some(method.to_owned()),
            path: self.path(api_path),
            times,
            kind,
        });
    }

    /// Requests other than flavour detection, which rides along with the first call.
    fn api_requests(&self) -> Vec<RecordedRequest> {
        self.sim
            .requests()
            .into_iter()
            .filter(|r| !r.path.ends_with("/version"))
            .collect()
    }

    fn assert_no_contract_violations(&self) {
        assert_eq!(self.sim.contract_violations(), Vec::<String>::new());
    }
}

fn client(
    sim: &SimHandle,
    flavor: Flavor,
    token: Option<&str>,
    options: ClientOptions,
) -> Arc<dyn Forge> {
    let base = sim.base_url().trim_end_matches('/').to_owned();
    let host = base.trim_start_matches("http://").to_owned();
    match flavor {
        Flavor::GitHub => {
            let endpoint = GitHubEndpoint {
                web_host: host,
                api_url: base.clone(),
                graphql_url: format!("{base}/graphql"),
                token: token.map(Secret::new),
                token_vars: &["GITHUB_TOKEN", "GH_TOKEN"],
            };
            Arc::new(GitHub::with_options(endpoint, options).expect("client"))
        }
        Flavor::Forgejo | Flavor::Gitea => {
            let endpoint = ForgejoEndpoint {
                host,
                configured_kind: ForgeKind::Forgejo,
                api_url: format!("{base}/api/v1"),
                web_url: base,
                token: token.map(Secret::new),
                token_env: None,
            };
            Arc::new(Forgejo::with_options(endpoint, options).expect("client"))
        }
    }
}

fn page(page: u32, per_page: u32) -> PageRequest {
    PageRequest { page, per_page }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn status(code: u16, headers: &[(&str, String)], body: &str) -> FaultKind {
    FaultKind::Status {
        code,
        headers: headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
        body: body.to_owned(),
    }
}

fn assert_category(
    result: Result<impl std::fmt::Debug, resolve_pr_forge::Error>,
    category: Category,
) -> Error {
    match result {
        Ok(value) => panic!("expected a {category:?} error, got {value:?}"),
        Err(e) => {
            // What the agent sees: the forge error through its one conversion.
            let e = Error::from(e);
            assert_eq!(e.category, category, "{e:#?}");
            e
        }
    }
}

/// Generates one `#[tokio::test]` per flavour for each behaviour.
macro_rules! on_every_forge {
    ($($name:ident),* $(,)?) => {
        mod github {
            $(#[tokio::test] async fn $name() { super::$name(super::Flavor::GitHub).await })*
        }
        mod forgejo {
            $(#[tokio::test] async fn $name() { super::$name(super::Flavor::Forgejo).await })*
        }
    };
}

on_every_forge!(
    gets_a_pull_request,
    lists_comments_page_by_page,
    created_comment_shows_up_in_the_next_list,
    issue_number_is_not_a_pull_request,
    unknown_repository_is_a_user_error,
    rejected_token_is_an_authentication_error,
    forbidden_without_rate_limit_is_an_authentication_error,
    read_only_token_cannot_comment,
    missing_token_says_how_to_set_one,
    waits_for_a_rate_limit_reset_that_is_soon,
    rate_limit_beyond_the_bound_reports_retry_after,
    secondary_rate_limit_with_retry_after_is_waited_out,
    bad_gateway_once_is_retried,
    failed_post_is_not_repeated,
    reset_connection_is_retried,
    persistent_reset_is_a_network_error,
    garbage_is_an_api_error,
    garbage_once_is_retried,
    garbage_after_a_post_is_not_repeated,
    truncated_body_is_retried,
    repeated_get_is_conditional,
    slow_forge_is_a_timeout,
    token_never_appears_in_errors,
    independent_calls_run_concurrently,
);

async fn gets_a_pull_request(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let pr = fx
        .forge
        .pull_requests()
        .pull_request(&fx.pr(7))
        .await
        .expect("pull request");
    assert_eq!(pr.number, 7);
    assert_eq!(pr.title, "Add sprockets");
    assert_eq!(pr.state, PrState::Open);
    assert!(!pr.draft);
    assert_eq!(pr.author.login, "bob");
    assert!(!pr.author.is_bot);
    assert_eq!(
        (
            pr.head_ref.as_str(),
            pr.head_sha.as_str(),
            pr.base_ref.as_str()
        ),
        (
            "feature/sprockets",
            "1111111111111111111111111111111111111111",
            "main"
        )
    );
    assert!(
        pr.html_url.ends_with("/acme/widgets/pull/7")
            || pr.html_url.ends_with("/acme/widgets/pulls/7"),
        "{}",
        pr.html_url
    );
    let requests = fx.api_requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].path, fx.path("/repos/acme/widgets/pulls/7"));
    assert!(requests[0].authenticated);
    if flavor != Flavor::GitHub {
        // Reads do not wait for flavour detection (only thread writes and capability reports,
        // whose messages name the version, ask for /version).
        assert_eq!(fx.forge.kind(), ForgeKind::Forgejo);
        assert_eq!(fx.sim.requests().len(), 1, "{:?}", fx.sim.requests());
    }
    fx.assert_no_contract_violations();
}

async fn lists_comments_page_by_page(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let pr = fx.pr(7);
    let first = fx
        .forge
        .pull_requests()
        .list_pr_comments(&pr, page(1, 2))
        .await
        .expect("page 1");
    let second = fx
        .forge
        .pull_requests()
        .list_pr_comments(&pr, page(2, 2))
        .await
        .expect("page 2");
    let third = fx
        .forge
        .pull_requests()
        .list_pr_comments(&pr, page(3, 2))
        .await
        .expect("page 3");
    let bodies = |items: &[IssueComment]| items.iter().map(|c| c.body.clone()).collect::<Vec<_>>();
    assert_eq!(
        bodies(&first.items),
        ["Looks good, one question.", "Build passed."]
    );
    assert_eq!(bodies(&second.items), ["Comment 1", "Comment 2"]);
    assert_eq!(bodies(&third.items), ["Comment 3"]);
    assert_eq!(
        (first.has_next, second.has_next, third.has_next),
        (true, true, false)
    );
    let bot = &first.items[1].author;
    // Only GitHub's API says an account is a bot; on Forgejo/Gitea it is an ordinary user.
    if flavor == Flavor::GitHub {
        assert_eq!((bot.login.as_str(), bot.is_bot), ("ci-bot[bot]", true));
    } else {
        assert_eq!((bot.login.as_str(), bot.is_bot), ("ci-bot", false));
    }
    assert_eq!(first.items[0].author.login, "alice");
    // On both forges the pull request is fetched alongside each page (concurrently), so an
    // issue number is "not found"; Forgejo's list is not paginated by the forge.
    assert_eq!(fx.api_requests().len(), 3 * 2);
    fx.assert_no_contract_violations();
}

async fn created_comment_shows_up_in_the_next_list(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let pr = fx.pr(7);
    let before = fx
        .forge
        .pull_requests()
        .list_pr_comments(&pr, page(1, 100))
        .await
        .expect("list");
    assert_eq!(before.items.len(), 5);
    fx.sim.clear_requests();
    let created = fx
        .forge
        .pull_requests()
        .create_pr_comment(&pr, "Fixed in 3f2a; `a;rm -rf ~` stays text.")
        .await
        .expect("create");
    assert_eq!(created.body, "Fixed in 3f2a; `a;rm -rf ~` stays text.");
    assert_eq!(created.author.login, "alice");
    let methods: Vec<_> = fx.api_requests().iter().map(|r| r.method.clone()).collect();
    assert_eq!(methods, ["GET", "POST"], "PR check, then the write");
    fx.sim.clear_requests();
    let after = fx
        .forge
        .pull_requests()
        .list_pr_comments(&pr, page(1, 100))
        .await
        .expect("list");
    assert_eq!(after.items.len(), 6);
    assert_eq!(after.items.last(), Some(&created));
    fx.assert_no_contract_violations();
}

async fn issue_number_is_not_a_pull_request(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&fx.pr(8)).await,
        Category::User,
    );
    assert!(
        e.error.contains("pull request acme/widgets#8 not found"),
        "{}",
        e.error
    );
    assert!(
        e.suggestion.as_deref().unwrap_or("").contains("issue"),
        "{e:?}"
    );
    assert_eq!(
        e.details.as_ref().map(|d| d["status"].clone()),
        Some(404.into())
    );
    // Listing an issue's comments is "not found" too, on every forge.
    assert_category(
        fx.forge
            .pull_requests()
            .list_pr_comments(&fx.pr(8), page(1, 10))
            .await,
        Category::User,
    );
    // Commenting must not land on the issue either.
    assert_category(
        fx.forge
            .pull_requests()
            .create_pr_comment(&fx.pr(8), "hello")
            .await,
        Category::User,
    );
    assert!(fx.api_requests().iter().all(|r| r.method == "GET"));
    fx.assert_no_contract_violations();
}

async fn unknown_repository_is_a_user_error(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let pr = PrRef::parse("acme/nope#1").expect("valid");
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&pr).await,
        Category::User,
    );
    assert!(e.error.contains("acme/nope#1"), "{}", e.error);
    assert_category(
        fx.forge
            .pull_requests()
            .list_pr_comments(&pr, page(1, 10))
            .await,
        Category::User,
    );
    // A number that does not exist at all in a repository that does.
    let e = assert_category(
        fx.forge
            .pull_requests()
            .list_pr_comments(&fx.pr(99), page(1, 10))
            .await,
        Category::User,
    );
    assert!(e.error.contains("acme/widgets#99"), "{}", e.error);
    fx.assert_no_contract_violations();
}

async fn rejected_token_is_an_authentication_error(flavor: Flavor) {
    let fx = Fixture::with(flavor, Some("tok_revoked_000000"), fast_options()).await;
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&fx.pr(7)).await,
        Category::Authentication,
    );
    assert!(e.error.contains("rejected the token"), "{}", e.error);
    assert_eq!(fx.api_requests().len(), 1, "a 401 is not retried");
    fx.assert_no_contract_violations();
}

async fn forbidden_without_rate_limit_is_an_authentication_error(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        1,
        status(
            403,
            &[("x-ratelimit-remaining", "4000".into()), ("content-type", "application/json".into())],
            r#"{"message":"Resource not accessible by personal access token","documentation_url":"https://docs.github.com/rest/pulls/pulls#get-a-pull-request"}"#,
        ),
    );
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&fx.pr(7)).await,
        Category::Authentication,
    );
    assert!(
        e.error
            .contains("has no access to pull request acme/widgets#7"),
        "{}",
        e.error
    );
    assert_eq!(
        e.documentation_url.as_deref(),
        Some("https://docs.github.com/rest/pulls/pulls#get-a-pull-request")
    );
    assert_eq!(fx.api_requests().len(), 1);
}

async fn read_only_token_cannot_comment(flavor: Flavor) {
    let fx = Fixture::with(flavor, Some(READER), fast_options()).await;
    let e = fx
        .forge
        .pull_requests()
        .create_pr_comment(&fx.pr(7), "hi")
        .await
        .expect_err("a read-only token cannot write");
    let e = Error::from(e);
    // GitHub hides what a token cannot write as 403 or 404; both must say what to do.
    assert!(
        matches!(e.category, Category::Authentication | Category::User),
        "{e:?}"
    );
    assert!(e.suggestion.is_some());
    fx.assert_no_contract_violations();
}

async fn missing_token_says_how_to_set_one(flavor: Flavor) {
    let fx = Fixture::with(flavor, None, fast_options()).await;
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&fx.pr(7)).await,
        Category::Authentication,
    );
    let advice = format!("{} {}", e.error, e.suggestion.clone().unwrap_or_default());
    let expected: &[&str] = match flavor {
        Flavor::GitHub => &["GITHUB_TOKEN", "GH_TOKEN", "gh auth login"],
        _ => &["FORGEJO_HOST", "FORGEJO_TOKEN", "token_env"],
    };
    for word in expected {
        assert!(advice.contains(word), "{word} missing from {advice}");
    }
    assert!(fx.api_requests().is_empty(), "no request without a token");
}

async fn waits_for_a_rate_limit_reset_that_is_soon(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let reset = now_secs() + 1;
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        1,
        status(
            403,
            &[
                ("x-ratelimit-limit", "5000".into()),
                ("x-ratelimit-remaining", "0".into()),
                ("x-ratelimit-reset", reset.to_string()),
            ],
            r#"{"message":"API rate limit exceeded for user ID 1."}"#,
        ),
    );
    let started = Instant::now();
    let pr = fx
        .forge
        .pull_requests()
        .pull_request(&fx.pr(7))
        .await
        .expect("succeeds after the reset");
    assert_eq!(pr.number, 7);
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "waited {:?}",
        started.elapsed()
    );
    let statuses: Vec<u16> = fx.api_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [403, 200]);
}

async fn rate_limit_beyond_the_bound_reports_retry_after(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let reset = now_secs() + 3000;
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        5,
        status(
            429,
            &[
                ("x-ratelimit-remaining", "0".into()),
                ("x-ratelimit-reset", reset.to_string()),
            ],
            r#"{"message":"API rate limit exceeded"}"#,
        ),
    );
    let started = Instant::now();
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&fx.pr(7)).await,
        Category::RateLimit,
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "must not sleep past the bound"
    );
    let retry_after = e.retry_after.expect("retry_after");
    assert!((2990..=3002).contains(&retry_after), "{retry_after}");
    assert_eq!(fx.api_requests().len(), 1);
}

async fn secondary_rate_limit_with_retry_after_is_waited_out(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "GET",
        "/repos/acme/widgets/issues/7/comments",
        1,
        status(
            403,
            &[("retry-after", "1".into())],
            r#"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}"#,
        ),
    );
    let listed = fx
        .forge
        .pull_requests()
        .list_pr_comments(&fx.pr(7), page(1, 10))
        .await
        .expect("list");
    assert_eq!(listed.items.len(), 5);
    // The same limit without a retry-after means "wait a minute", beyond the test's bound.
    fx.fault(
        "GET",
        "/repos/acme/widgets/issues/7/comments",
        1,
        status(
            403,
            &[],
            r#"{"message":"You have exceeded a secondary rate limit."}"#,
        ),
    );
    let e = assert_category(
        fx.forge
            .pull_requests()
            .list_pr_comments(&fx.pr(7), page(1, 10))
            .await,
        Category::RateLimit,
    );
    assert_eq!(e.retry_after, Some(60));
}

async fn bad_gateway_once_is_retried(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        1,
        status(502, &[], "<html>Bad Gateway</html>"),
    );
    let pr = fx
        .forge
        .pull_requests()
        .pull_request(&fx.pr(7))
        .await
        .expect("retried");
    assert_eq!(pr.number, 7);
    let statuses: Vec<u16> = fx.api_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [502, 200]);
    fx.assert_no_contract_violations();
}

async fn failed_post_is_not_repeated(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "POST",
        "/repos/acme/widgets/issues/7/comments",
        1,
        status(502, &[], "bad gateway"),
    );
    let e = assert_category(
        fx.forge
            .pull_requests()
            .create_pr_comment(&fx.pr(7), "once only")
            .await,
        Category::Api,
    );
    assert!(
        e.suggestion.unwrap_or_default().contains("check"),
        "tells the agent to look first"
    );
    let posts = fx
        .api_requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count();
    assert_eq!(posts, 1, "a write that may have happened is never repeated");
}

async fn reset_connection_is_retried(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        1,
        FaultKind::ResetConnection,
    );
    assert_eq!(
        fx.forge
            .pull_requests()
            .pull_request(&fx.pr(7))
            .await
            .expect("retried")
            .number,
        7
    );
    fx.assert_no_contract_violations();
}

async fn persistent_reset_is_a_network_error(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        100,
        FaultKind::ResetConnection,
    );
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&fx.pr(7)).await,
        Category::Network,
    );
    assert!(e.suggestion.is_some());
    let attempts = fx
        .api_requests()
        .iter()
        .filter(|r| r.path.ends_with("/pulls/7"))
        .count();
    assert!(
        attempts <= 4,
        "first try + at most 3 retries, got {attempts}"
    );
}

async fn garbage_is_an_api_error(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        100,
        FaultKind::Garbage,
    );
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&fx.pr(7)).await,
        Category::Api,
    );
    assert!(e.error.contains("not valid JSON"), "{}", e.error);
    // Retried like a 5xx, within the same bound: the first try and 3 retries.
    let attempts = fx
        .api_requests()
        .iter()
        .filter(|r| r.path.ends_with("/pulls/7"))
        .count();
    assert_eq!(attempts, 4);
}

/// A 200 that is not JSON (a proxy's page, a cut body) is a transient fault: the next try
/// gets the answer, and the garbage is not cached for revalidation to serve again.
async fn garbage_once_is_retried(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault("GET", "/repos/acme/widgets/pulls/7", 1, FaultKind::Garbage);
    let pr = fx
        .forge
        .pull_requests()
        .pull_request(&fx.pr(7))
        .await
        .expect("retried");
    assert_eq!(pr.number, 7);
    assert_eq!(fx.api_requests().len(), 2);
    let again = fx
        .forge
        .pull_requests()
        .pull_request(&fx.pr(7))
        .await
        .expect("cached");
    assert_eq!(again, pr);
    fx.assert_no_contract_violations();
}

/// A write that came back as garbage may have happened: it is not sent again.
async fn garbage_after_a_post_is_not_repeated(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "POST",
        "/repos/acme/widgets/issues/7/comments",
        1,
        FaultKind::Garbage,
    );
    assert_category(
        fx.forge
            .pull_requests()
            .create_pr_comment(&fx.pr(7), "once only")
            .await,
        Category::Api,
    );
    let posts = fx
        .api_requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count();
    assert_eq!(posts, 1);
}

async fn truncated_body_is_retried(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    fx.fault(
        "GET",
        "/repos/acme/widgets/issues/7/comments",
        1,
        FaultKind::TruncatedBody,
    );
    let listed = fx
        .forge
        .pull_requests()
        .list_pr_comments(&fx.pr(7), page(1, 10))
        .await
        .expect("retried");
    assert_eq!(listed.items.len(), 5);
    // Persistently truncated: the agent gets a categorized error, not a hang or a panic.
    fx.fault(
        "GET",
        "/repos/acme/widgets/issues/7/comments",
        100,
        FaultKind::TruncatedBody,
    );
    let e = fx
        .forge
        .pull_requests()
        .list_pr_comments(&fx.pr(7), page(2, 10))
        .await
        .expect_err("truncated");
    let e = Error::from(e);
    assert!(
        matches!(e.category, Category::Network | Category::Api),
        "{e:?}"
    );
}

async fn repeated_get_is_conditional(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let pr = fx.pr(7);
    let first = fx
        .forge
        .pull_requests()
        .pull_request(&pr)
        .await
        .expect("first");
    let listed = fx
        .forge
        .pull_requests()
        .list_pr_comments(&pr, page(1, 2))
        .await
        .expect("first list");
    fx.sim.clear_requests();
    let second = fx
        .forge
        .pull_requests()
        .pull_request(&pr)
        .await
        .expect("second");
    let relisted = fx
        .forge
        .pull_requests()
        .list_pr_comments(&pr, page(1, 2))
        .await
        .expect("second list");
    assert_eq!(first, second);
    assert_eq!(
        listed, relisted,
        "a 304 serves the cached body and its Link header"
    );
    let log = fx.api_requests();
    assert_eq!(log.len(), 3, "{log:?}");
    for request in &log {
        if flavor == Flavor::GitHub {
            assert!(
                request.conditional,
                "{request:?} should carry If-None-Match"
            );
            assert_eq!(request.status, 304, "{request:?}");
        } else {
            // Forgejo/Gitea send no ETag on these endpoints: nothing to revalidate with.
            assert!(!request.conditional, "{request:?}");
        }
    }
    fx.assert_no_contract_violations();
}

async fn slow_forge_is_a_timeout(flavor: Flavor) {
    let options = ClientOptions {
        request_timeout: Duration::from_millis(300),
        ..fast_options()
    };
    let fx = Fixture::with(flavor, Some(WRITER), options).await;
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        100,
        FaultKind::Latency { ms: 2000 },
    );
    let e = assert_category(
        fx.forge.pull_requests().pull_request(&fx.pr(7)).await,
        Category::Timeout,
    );
    assert!(e.error.contains("in time"), "{}", e.error);
}

async fn token_never_appears_in_errors(flavor: Flavor) {
    // Every log line the clients write during these calls, at every level.
    let logs = LogBuffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(logs.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let fx = Fixture::start(flavor).await;
    let mut texts = Vec::new();
    let mut record = |e: resolve_pr_forge::Error| {
        let e = Error::from(e);
        texts.push(format!("{e:?}"));
        texts.push(e.to_string());
        texts.push(e.to_json().to_string());
    };
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        1,
        status(403, &[], r#"{"message":"no"}"#),
    );
    record(
        fx.forge
            .pull_requests()
            .pull_request(&fx.pr(7))
            .await
            .unwrap_err(),
    );
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        100,
        FaultKind::ResetConnection,
    );
    record(
        fx.forge
            .pull_requests()
            .pull_request(&fx.pr(7))
            .await
            .unwrap_err(),
    );
    fx.fault(
        "GET",
        "/repos/acme/widgets/pulls/7",
        100,
        FaultKind::Garbage,
    );
    record(
        fx.forge
            .pull_requests()
            .pull_request(&fx.pr(7))
            .await
            .unwrap_err(),
    );
    record(
        fx.forge
            .pull_requests()
            .pull_request(&fx.pr(8))
            .await
            .unwrap_err(),
    );
    let revoked = Fixture::with(flavor, Some("tok_revoked_111111"), fast_options()).await;
    let e = revoked
        .forge
        .pull_requests()
        .pull_request(&revoked.pr(7))
        .await
        .unwrap_err();
    let e = Error::from(e);
    assert!(!format!("{e:?} {}", e.to_json()).contains("tok_revoked_111111"));
    texts.push(logs.text());
    assert!(!logs.text().is_empty(), "the calls above log something");
    for text in texts {
        assert!(!text.contains(WRITER), "token leaked: {text}");
        assert!(!text.contains("tok_revoked_111111"), "token leaked: {text}");
    }
}

/// Collects log output in memory (tests run on one thread, so `set_default` sees them all).
#[derive(Clone, Default)]
struct LogBuffer(Arc<std::sync::Mutex<Vec<u8>>>);

impl LogBuffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }
}

impl std::io::Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogBuffer {
    type Writer = LogBuffer;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

async fn independent_calls_run_concurrently(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let forge = fx.forge.clone();
    let pr = fx.pr(7);
    let (pull, comments) = tokio::try_join!(
        forge.pull_requests().pull_request(&pr),
        forge.pull_requests().list_pr_comments(&pr, page(1, 10))
    )
    .expect("both");
    assert_eq!((pull.number, comments.items.len()), (7, 5));
    let shared = Arc::clone(&fx.forge);
    let task = tokio::spawn(async move {
        let pr = PrRef::parse("acme/widgets#7").expect("valid");
        shared
            .pull_requests()
            .pull_request(&pr)
            .await
            .map(|p| p.number)
    });
    assert_eq!(task.await.expect("joined").expect("ok"), 7);
}

#[tokio::test]
async fn github_token_comes_from_the_environment_in_order() {
    let sim = Sim::start(scenario(Flavor::GitHub)).await.expect("sim");
    let base = sim.base_url().trim_end_matches('/').to_owned();
    let endpoint = GitHubEndpoint {
        web_host: base.trim_start_matches("http://").to_owned(),
        api_url: base.clone(),
        graphql_url: format!("{base}/graphql"),
        token: None,
        token_vars: &["GITHUB_TOKEN", "GH_TOKEN"],
    };
    // GITHUB_TOKEN wins over GH_TOKEN: the reader token would fail the write below.
    let options = ClientOptions {
        env: Arc::new(|name| match name {
            "GITHUB_TOKEN" => Some(format!(" {WRITER}\n")),
            "GH_TOKEN" => Some(READER.to_owned()),
            _ => None,
        }),
        ..fast_options()
    };
    let gh = GitHub::with_options(endpoint.clone(), options).expect("client");
    let pr = PrRef::parse("acme/widgets#7").expect("valid");
    gh.pull_requests()
        .create_pr_comment(&pr, "from GITHUB_TOKEN")
        .await
        .expect("writer token used");
    // Only GH_TOKEN set: it is used.
    let options = ClientOptions {
        env: Arc::new(|name| (name == "GH_TOKEN").then(|| READER.to_owned())),
        ..fast_options()
    };
    let gh = GitHub::with_options(endpoint, options).expect("client");
    assert_eq!(
        gh.pull_requests()
            .pull_request(&pr)
            .await
            .expect("reader can read")
            .number,
        7
    );
    assert!(sim.requests().iter().all(|r| r.authenticated));
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}

#[tokio::test]
async fn github_graphql_answers_and_errors() {
    let fx = Fixture::start(Flavor::GitHub).await;
    let base = fx.sim.base_url().trim_end_matches('/').to_owned();
    let endpoint = GitHubEndpoint {
        web_host: base.trim_start_matches("http://").to_owned(),
        api_url: base.clone(),
        graphql_url: format!("{base}/graphql"),
        token: Some(Secret::new(WRITER)),
        token_vars: &["GITHUB_TOKEN", "GH_TOKEN"],
    };
    let gh = GitHub::with_options(endpoint, fast_options()).expect("client");
    assert!(
        !format!("{gh:?}").contains(WRITER),
        "Debug must not show the token"
    );
    assert_eq!(gh.viewer_login().await.expect("viewer"), "alice");
    let e = gh
        .graphql(
            "query Missing($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { id } }",
            serde_json::json!({"owner": "acme", "name": "nope"}),
        )
        .await
        .expect_err("no such repository");
    assert!(
        matches!(e, resolve_pr_forge::Error::NotFound { status: None, .. }),
        "{e:?}"
    );
    let e = Error::from(e);
    assert_eq!(e.category, Category::User, "{e:?}");
    // A mutation that timed out may still have happened: it is not sent again, while the
    // same answer to a query is retried.
    let timeout = || Fault {
        method: Some("POST".into()),
        path: "/graphql".into(),
        times: 1,
        kind: FaultKind::GraphqlError {
            message: "Something went wrong while executing your query. This may be the result \
                      of a timeout, or it could be a GitHub bug."
                .into(),
            error_type: None,
            keep_data: false,
        },
    };
    fx.sim.inject(timeout());
    fx.sim.clear_requests();
    let e = gh
        .graphql(
            resolve_pr_forge::github::queries::RESOLVE_REVIEW_THREAD,
            serde_json::json!({"id": "PRRT_x"}),
        )
        .await
        .expect_err("timed out");
    let e = Error::from(e);
    assert_eq!(e.category, Category::Api, "{e:?}");
    assert_eq!(fx.api_requests().len(), 1);
    fx.sim.inject(timeout());
    fx.sim.clear_requests();
    assert_eq!(gh.viewer_login().await.expect("retried"), "alice");
    assert_eq!(fx.api_requests().len(), 2);
    assert_eq!(fx.sim.contract_violations(), Vec::<String>::new());
}

#[test]
fn every_graphql_document_matches_githubs_schema() {
    for (name, document) in resolve_pr_forge::github::queries::ALL {
        if let Err(problems) = resolve_pr_forge_sim::validate_graphql(document) {
            panic!("{name} does not validate: {problems:?}");
        }
    }
}

/// Every document costs 1 point by GitHub's published rule, but REVIEW_THREADS (every thread
/// with its comments' reactions, 100 x 100 reaction counts a page: 101 points), which only
/// looking a thread up by comment id still uses.
#[test]
fn feedback_documents_cost_one_point_each() {
    use resolve_pr_forge::github::queries;
    let vars = serde_json::json!({});
    for (name, document) in queries::ALL {
        let points = resolve_pr_forge_sim::graphql_points(document, &vars).expect(name);
        let want = if *name == "REVIEW_THREADS" { 101 } else { 1 };
        assert_eq!(points, want, "{name}");
    }
}

/// A round of the feedback read asks for any mix of lists, long threads and reactions in one
/// document; every mix validates, and even the largest costs 1 point.
#[test]
fn feedback_rounds_validate_and_cost_one_point() {
    use resolve_pr_forge::github::queries::{self, FeedbackRound};
    let vars = serde_json::json!({});
    for bits in 0u8..8 {
        for (threads, reactions) in [
            (0, 0),
            (1, 0),
            (0, 1),
            (
                queries::FEEDBACK_THREADS_PER_ROUND,
                queries::FEEDBACK_REACTIONS_PER_ROUND,
            ),
        ] {
            let round = FeedbackRound {
                threads: bits & 1 != 0,
                reviews: bits & 2 != 0,
                comments: bits & 4 != 0,
                thread_comments: threads,
                reactions,
            };
            if round.is_empty() {
                continue;
            }
            let document = queries::review_feedback_round(&round);
            if let Err(problems) = resolve_pr_forge_sim::validate_graphql(&document) {
                panic!("{round:?} does not validate: {problems:?}\n{document}");
            }
            let points = resolve_pr_forge_sim::graphql_points(&document, &vars).expect("priced");
            assert_eq!(points, 1, "{round:?}");
        }
    }
}

#[tokio::test]
async fn forgejo_flavour_is_detected_once() {
    for (flavor, expected) in [
        (Flavor::Forgejo, ForgeKind::Forgejo),
        (Flavor::Gitea, ForgeKind::Gitea),
    ] {
        let fx = Fixture::start(flavor).await;
        assert_eq!(
            fx.forge.kind(),
            ForgeKind::Forgejo,
            "configured kind until detected"
        );
        fx.forge
            .pull_requests()
            .pull_request(&fx.pr(7))
            .await
            .expect("pull");
        assert_eq!(fx.forge.kind(), ForgeKind::Forgejo, "reads do not detect");
        // Capability reports name the version, so they detect it, once.
        for _ in 0..2 {
            let _ = fx.forge.threads().thread_capabilities(&fx.pr(7), &[]).await;
        }
        assert_eq!(fx.forge.kind(), expected);
        let versions = fx
            .sim
            .requests()
            .iter()
            .filter(|r| r.path == "/api/v1/version")
            .count();
        assert_eq!(versions, 1);
        fx.assert_no_contract_violations();
    }
}

#[tokio::test]
async fn forgejo_probes_capabilities_once() {
    let sim = Sim::start(scenario(Flavor::Forgejo)).await.expect("sim");
    let base = sim.base_url().trim_end_matches('/').to_owned();
    let endpoint = ForgejoEndpoint {
        host: base.trim_start_matches("http://").to_owned(),
        configured_kind: ForgeKind::Forgejo,
        api_url: format!("{base}/api/v1"),
        web_url: base,
        token: Some(Secret::new(WRITER)),
        token_env: None,
    };
    let fj = Forgejo::with_options(endpoint, fast_options()).expect("client");
    assert!(
        !format!("{fj:?}").contains(WRITER),
        "Debug must not show the token"
    );
    assert!(fj.supports("/version").await.expect("probe"));
    assert!(!fj.supports("/no/such/endpoint").await.expect("probe"));
    assert!(!fj.supports("/no/such/endpoint").await.expect("cached"));
    assert_eq!(sim.requests().len(), 2, "each capability is probed once");
}

#[tokio::test]
async fn forges_route_by_host_from_config() {
    let github = Sim::start(scenario(Flavor::GitHub)).await.expect("sim");
    let forgejo = Sim::start(scenario(Flavor::Forgejo)).await.expect("sim");
    let gh_base = github.base_url().trim_end_matches('/').to_owned();
    let fj_base = forgejo.base_url().trim_end_matches('/').to_owned();
    let gh_host = gh_base.trim_start_matches("http://").to_owned();
    let file = format!(
        "[hosts.\"{gh_host}\"]\nkind = \"github\"\napi_url = \"{gh_base}\"\ntoken = \"{WRITER}\"\n"
    );
    let env = {
        let fj_base = fj_base.clone();
        move |name: &str| match name {
            "FORGEJO_HOST" => Some(fj_base.clone()),
            "FORGEJO_TOKEN" => Some(WRITER.to_owned()),
            _ => None,
        }
    };
    let config = Config::from_parts(Some(&file), None, &env).expect("config");
    let forges = Forges::with_options(config, fast_options());
    for (base, kind) in [
        (&gh_base, ForgeKind::GitHub),
        (&fj_base, ForgeKind::Forgejo),
    ] {
        let repo = RepoRef::parse(&format!("{base}/acme/widgets")).expect("repo");
        let forge = forges.for_repo(&repo).expect("configured host");
        let pr = PrRef { repo, number: 7 };
        assert_eq!(
            forge
                .pull_requests()
                .pull_request(&pr)
                .await
                .expect("pull")
                .title,
            "Add sprockets"
        );
        assert_eq!(forge.kind(), kind);
        assert!(
            Arc::ptr_eq(&forge, &forges.for_repo(&pr.repo).expect("again")),
            "one client per endpoint"
        );
    }
    let stranger = RepoRef::parse("https://git.example.org/acme/widgets").expect("repo");
    assert_eq!(
        forges
            .for_repo(&stranger)
            .err()
            .map(|e| Error::from(e).category),
        Some(Category::User)
    );
    assert_eq!(github.contract_violations(), Vec::<String>::new());
    assert_eq!(forgejo.contract_violations(), Vec::<String>::new());
}

/// A commit id goes into a query string: anything but hexadecimal is refused before any
/// request, so no text can add parameters (`&status=…`) to the workflow-runs query.
#[tokio::test]
async fn commit_runs_take_only_a_commit_id() {
    let fx = Fixture::start(Flavor::GitHub).await;
    let history = fx
        .forge
        .workflow_history()
        .expect("GitHub keeps run history");
    let repo = fx.pr(7).repo;
    for bad in ["", "main", "abc&status=success", "-x", "a1b2 c3"] {
        let err = history
            .commit_runs(&repo, 1, bad, 10)
            .await
            .expect_err("not a commit id");
        assert!(
            matches!(err, resolve_pr_forge::Error::Usage { .. }),
            "{bad:?}: {err:?}"
        );
    }
    assert!(fx.sim.requests().is_empty(), "{:#?}", fx.sim.requests());
    let runs = history
        .commit_runs(&repo, 1, "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", 10)
        .await
        .expect("a commit id is asked for");
    assert!(runs.len() <= 10);
    assert_eq!(fx.sim.requests().len(), 1);
}
