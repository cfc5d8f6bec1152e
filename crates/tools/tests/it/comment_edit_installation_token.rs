//! GitHub installation tokens (a GitHub App's, Actions' `GITHUB_TOKEN`) may not read `GET
//! /user` ("Resource not accessible by integration"); the comment edits still learn who the
//! token is, from GraphQL's `viewer`, and edit its own comments.

use crate::common;

use resolve_pr_forge_sim::{Fault, FaultKind, Sim};
use resolve_pr_tools::call;
use serde_json::json;

use common::Flavor;

#[tokio::test]
async fn an_installation_token_edits_its_own_comment() {
    let sim = Sim::start(common::scenario("issues_github"))
        .await
        .expect("simulator starts");
    sim.inject(Fault {
        method: Some("GET".to_owned()),
        path: "/user".to_owned(),
        times: u32::MAX,
        kind: FaultKind::Status {
            code: 403,
            headers: Vec::new(),
            body: r#"{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest/users/users#get-the-authenticated-user","status":"403"}"#.to_owned(),
        },
    });
    let ctx = common::context(Flavor::GitHub, &sim, "ghp_alice", [5; 32]);
    let out = call(
        &ctx,
        "issue_comment_edit",
        json!({"repository": "acme/tracker", "issue_number": 3, "comment_id": 301,
               "body": "It is the cache (fixed)."}),
    )
    .await
    .expect("edited with the account GraphQL named");
    assert_eq!(out.structured["unchanged"], false);
    let paths: Vec<String> = sim.requests().iter().map(|r| r.path.clone()).collect();
    assert!(paths.iter().any(|p| p == "/graphql"), "{paths:?}");

    // Someone else's comment is still refused.
    let e = call(
        &ctx,
        "issue_comment_edit",
        json!({"repository": "acme/tracker", "issue_number": 3, "comment_id": 302, "body": "x"}),
    )
    .await
    .unwrap_err();
    assert!(e.error.contains("written by bob"), "{}", e.error);
}
