//! The retry loop's bounds hold whatever the forge asks for: an absurd `retry-after` after
//! some sleeping is reported as a rate limit, never an arithmetic overflow.

use std::sync::Arc;
use std::time::Duration;

use resolve_pr_core::{Category, PrRef};
use resolve_pr_forge::config::{GitHubEndpoint, Secret};
use resolve_pr_forge::{ClientOptions, GitHub, PullRequests, RetryPolicy};
use resolve_pr_forge_sim::{Fault, FaultKind, Scenario, Sim};

#[tokio::test]
async fn huge_retry_after_after_sleeping_is_a_rate_limit_error() {
    let sim = Sim::start(Scenario::builtin("demo-github").expect("builtin"))
        .await
        .expect("sim");
    let base = sim.base_url();
    let endpoint = GitHubEndpoint {
        web_host: base.trim_start_matches("http://").to_owned(),
        api_url: base.clone(),
        graphql_url: format!("{base}/graphql"),
        token: Some(Secret::new("ghp_demo_write")),
        token_vars: &[],
    };
    let options = ClientOptions {
        retry: RetryPolicy {
            max_retries: 5,
            max_total_wait: Duration::from_secs(10),
            // Over a second of sleeping in all: `Duration` only overflows once whole seconds
            // are added to u64::MAX seconds.
            min_backoff: Duration::from_millis(700),
            max_backoff: Duration::from_millis(800),
        },
        env: Arc::new(|_| None),
        gh_cli: false,
        ..ClientOptions::default()
    };
    let gh = GitHub::with_options(endpoint, options).expect("client");
    let path = "/repos/acme/widgets/pulls/7".to_owned();
    let status = |code: u16, headers: Vec<(String, String)>| Fault {
        method: Some("GET".into()),
        path: path.clone(),
        times: 1,
        kind: FaultKind::Status {
            code,
            headers,
            body: "{\"message\":\"x\"}".into(),
        },
    };
    // Some backoff first (so time has been slept), then a wait that no clock can add.
    sim.inject(status(502, vec![]));
    sim.inject(status(502, vec![]));
    sim.inject(status(
        429,
        vec![("retry-after".into(), u64::MAX.to_string())],
    ));
    let pr = PrRef::parse("acme/widgets#7").expect("valid");
    let err = gh.pull_request(&pr).await.expect_err("rate limited");
    assert!(
        matches!(
            err,
            resolve_pr_forge::Error::RateLimited {
                status: Some(429),
                ..
            }
        ),
        "{err:?}"
    );
    let err = resolve_pr_core::Error::from(err);
    assert_eq!(err.category, Category::RateLimit, "{err:?}");
    assert!(err.retry_after.is_some(), "{err:?}");
}
