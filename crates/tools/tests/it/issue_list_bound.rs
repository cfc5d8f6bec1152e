//! GitHub lists pull requests among issues: in a repository of a thousand pull requests and
//! two issues, `issue_list` stops at its bound of forge pages and says so (`search_stopped`),
//! rather than answering an empty page with only a cursor; the next call finds the issues.

use crate::common;

use resolve_pr_forge_sim::{Scenario, Sim};
use resolve_pr_tools::call;
use serde_json::json;

use common::Flavor;

#[tokio::test]
async fn a_search_stopped_by_the_bound_says_so() {
    let mut yaml = String::from(
        "forge: github\nnow: \"2024-06-01T12:00:00Z\"\ntokens:\n  - {token: t, login: alice, permission: write}\n\
         repos:\n  - owner: acme\n    name: tracker\n    pulls:\n",
    );
    let sha = "a".repeat(40);
    for n in 3..=1052u64 {
        yaml.push_str(&format!(
            "      - {{number: {n}, title: p{n}, author: bob, created_at: \"2024-01-01T00:00:00Z\", \
             head: {{ref: b{n}, sha: {sha}}}, base: {{ref: main, sha: {sha}}}}}\n"
        ));
    }
    yaml.push_str(
        "    issues:\n      - {number: 1, title: first, author: alice, created_at: \"2023-01-01T00:00:00Z\"}\n\
         \x20     - {number: 2, title: second, author: alice, created_at: \"2023-01-02T00:00:00Z\"}\n",
    );
    let sim = Sim::start(Scenario::from_yaml(&yaml).expect("scenario"))
        .await
        .expect("simulator starts");
    let ctx = common::context(Flavor::GitHub, &sim, "t", [1; 32]);
    let first = call(&ctx, "issue_list", json!({"repository": "acme/tracker"}))
        .await
        .expect("first page");
    assert_eq!(first.structured["issues"], json!([]));
    let stopped = first.structured["search_stopped"]
        .as_str()
        .expect("search_stopped");
    assert!(stopped.contains("not looked at yet"), "{stopped}");
    assert!(first.text.contains("not looked at yet"), "{}", first.text);
    assert_eq!(sim.requests().len(), 10);
    let cursor = first.structured["nextCursor"].as_str().expect("cursor");

    let second = call(
        &ctx,
        "issue_list",
        json!({"repository": "acme/tracker", "cursor": cursor}),
    )
    .await
    .expect("second page");
    let numbers: Vec<u64> = second.structured["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| i["number"].as_u64().expect("number"))
        .collect();
    assert_eq!(numbers, [2, 1]);
    assert!(second.structured.get("search_stopped").is_none());
    assert!(second.structured.get("nextCursor").is_none());
}
