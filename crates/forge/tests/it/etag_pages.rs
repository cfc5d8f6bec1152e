//! A 304 revalidates a page's body, not its Link header: a full page that gained a successor
//! must not keep saying "last page" from the cache.

use std::sync::Arc;
use std::time::Duration;

use resolve_pr_core::PrRef;
use resolve_pr_forge::config::{GitHubEndpoint, Secret};
use resolve_pr_forge::{ClientOptions, GitHub, PageRequest, PullRequests, RetryPolicy};
use resolve_pr_forge_sim::{Scenario, Sim, SimHandle};

const SCENARIO: &str = r#"forge: github
now: "2024-06-01T12:00:00Z"
tokens:
  - {token: t_write, login: alice, permission: write}
repos:
  - owner: acme
    name: busy
    pulls:
      - number: 1
        title: full
        author: alice
        head: {ref: f, sha: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}
        base: {ref: main, sha: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb}
        created_at: "2024-06-01T00:00:00Z"
        generate_comments: {count: 100, author: bob, body: "Comment {n}"}
"#;

fn client(sim: &SimHandle) -> GitHub {
    let base = sim.base_url();
    let endpoint = GitHubEndpoint {
        web_host: base.trim_start_matches("http://").to_owned(),
        api_url: base.clone(),
        graphql_url: format!("{base}/graphql"),
        token: Some(Secret::new("t_write")),
        token_vars: &[],
    };
    let options = ClientOptions {
        retry: RetryPolicy {
            max_retries: 1,
            max_total_wait: Duration::from_secs(1),
            min_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(10),
        },
        env: Arc::new(|_| None),
        gh_cli: false,
        ..ClientOptions::default()
    };
    GitHub::with_options(endpoint, options).expect("client")
}

#[tokio::test]
async fn a_full_cached_page_may_have_a_successor() {
    let sim = Sim::start(Scenario::from_yaml(SCENARIO).expect("scenario"))
        .await
        .expect("sim");
    let pr = PrRef::parse("acme/busy#1").expect("valid");
    let page = |n| PageRequest {
        page: n,
        per_page: 100,
    };
    let lister = client(&sim);
    let first = lister.list_pr_comments(&pr, page(1)).await.expect("first");
    assert_eq!(
        (first.items.len(), first.has_next),
        (100, false),
        "exactly one page, fresh from the forge"
    );

    // Someone else comments; page 1's body is unchanged, so it revalidates as 304.
    client(&sim)
        .create_pr_comment(&pr, "one more")
        .await
        .expect("created");
    sim.clear_requests();
    let again = lister.list_pr_comments(&pr, page(1)).await.expect("again");
    assert!(
        sim.requests().iter().any(|r| r.status == 304),
        "page 1 was served from the cache: {:?}",
        sim.requests()
    );
    assert!(
        again.has_next,
        "a full page from the cache may have a successor"
    );
    let second = lister.list_pr_comments(&pr, page(2)).await.expect("second");
    assert_eq!(
        second
            .items
            .iter()
            .map(|c| c.body.as_str())
            .collect::<Vec<_>>(),
        ["one more"]
    );
}
