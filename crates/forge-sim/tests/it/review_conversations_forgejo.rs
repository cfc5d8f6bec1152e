//! Forgejo/Gitea review conversations over real HTTP: reviews, a review's comments (with
//! `resolver`), how conversations group (path + line + review), and Gitea's resolve,
//! unresolve and reply endpoints — present on Gitea 1.27, 404 on a Forgejo without them.

use crate::common;

use resolve_pr_forge_sim::{Scenario, Sim, SimHandle};
use serde_json::{Value, json};

async fn start(name: &str) -> SimHandle {
    Sim::start(Scenario::builtin(name).unwrap()).await.unwrap()
}

async fn call(
    sim: &SimHandle,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let client = common::client();
    let url = format!("{}/api/v1{path}", sim.base_url());
    let mut req = if method == "POST" {
        client.post(url)
    } else {
        client.get(url)
    };
    req = req.header("authorization", format!("token {token}"));
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn assert_clean(sim: &SimHandle) {
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}

/// The review's comments, as (id, path, position, resolver login).
async fn review_comments(sim: &SimHandle, review: u64) -> Vec<(u64, String, u64, Option<String>)> {
    let (status, list) = call(
        sim,
        "fj_write",
        "GET",
        &format!("/repos/acme/widgets/pulls/12/reviews/{review}/comments"),
        None,
    )
    .await;
    assert_eq!(status, 200);
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_u64().unwrap(),
                c["path"].as_str().unwrap().to_owned(),
                c["position"].as_u64().unwrap(),
                c["resolver"]["login"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[tokio::test]
async fn reviews_and_their_comments_group_into_conversations() {
    let sim = start("threads_mixed_forgejo").await;
    let (status, reviews) = call(
        &sim,
        "fj_write",
        "GET",
        "/repos/acme/widgets/pulls/12/reviews",
        None,
    )
    .await;
    assert_eq!(status, 200);
    let states: Vec<&str> = reviews
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert_eq!(&states[..3], ["COMMENT", "REQUEST_CHANGES", "APPROVED"]);
    assert!(
        reviews[0]["body"]
            .as_str()
            .unwrap()
            .contains("<!-- This is an auto-generated comment by CodeRabbit -->")
    );
    let (status, one) = call(
        &sim,
        "fj_write",
        "GET",
        "/repos/acme/widgets/pulls/12/reviews/502",
        None,
    )
    .await;
    // 9003, 9004 and its reply 9005, 9006, 9010.
    assert_eq!((status, one["comments_count"].clone()), (200, json!(5)));

    // Review 501: the bot's conversation on src/fetch.rs:42 with bob's reply filed under the
    // same review, and a resolved one on the old side (original_position).
    let bot = review_comments(&sim, 501).await;
    assert_eq!(bot[0], (9001, "src/fetch.rs".into(), 42, None));
    assert_eq!(bot[1], (9002, "src/fetch.rs".into(), 42, None));
    assert_eq!(
        (bot[2].0, bot[2].2, bot[2].3.clone()),
        (9009, 0, Some("bob".into()))
    );
    // Review 502 has 9010 on the same path and line: a separate conversation.
    let alice = review_comments(&sim, 502).await;
    assert!(alice.iter().any(|c| c.0 == 9010 && c.2 == 42));
    assert_eq!(
        alice.iter().find(|c| c.0 == 9004).unwrap().3.as_deref(),
        Some("alice")
    );

    for path in [
        "/repos/acme/widgets/pulls/99/reviews",
        "/repos/acme/widgets/pulls/12/reviews/424242",
        "/repos/acme/widgets/pulls/13/reviews/501/comments",
    ] {
        assert_eq!(
            call(&sim, "fj_write", "GET", path, None).await.0,
            404,
            "{path}"
        );
    }
    assert_clean(&sim);
}

#[tokio::test]
async fn a_forgejo_without_the_endpoints_answers_404() {
    let sim = start("threads_mixed_forgejo").await;
    for path in [
        "/repos/acme/widgets/pulls/comments/9001/resolve",
        "/repos/acme/widgets/pulls/comments/9001/unresolve",
        "/repos/acme/widgets/pulls/12/comments/9001/replies",
    ] {
        let (status, body) = call(&sim, "fj_write", "POST", path, Some(json!({"body": "x"}))).await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(body["message"], "The target couldn't be found.");
    }
    assert_clean(&sim);
}

#[tokio::test]
async fn gitea_resolves_unresolves_and_replies() {
    let sim = start("threads_mixed_gitea").await;
    let (status, _) = call(
        &sim,
        "fj_write",
        "POST",
        "/repos/acme/widgets/pulls/comments/9001/resolve",
        None,
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(
        review_comments(&sim, 501).await[0].3.as_deref(),
        Some("alice")
    );
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "POST",
            "/repos/acme/widgets/pulls/comments/9001/resolve",
            None
        )
        .await
        .0,
        204,
        "idempotent"
    );
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "POST",
            "/repos/acme/widgets/pulls/comments/9001/unresolve",
            None
        )
        .await
        .0,
        204
    );
    assert_eq!(review_comments(&sim, 501).await[0].3, None);

    let (status, reply) = call(
        &sim,
        "fj_write",
        "POST",
        "/repos/acme/widgets/pulls/12/comments/9001/replies",
        Some(json!({"body": "Done."})),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(
        (
            reply["pull_request_review_id"].clone(),
            reply["path"].clone(),
            reply["position"].clone()
        ),
        (json!(501), json!("src/fetch.rs"), json!(42))
    );
    assert_eq!(
        reply.get("extra_lines_count"),
        None,
        "Gitea's struct has no such field"
    );
    resolve_pr_forge_sim::validate_rest(
        resolve_pr_forge_sim::ForgeFlavor::Gitea,
        "GET",
        "/api/v1/repos/acme/widgets/pulls/12/reviews/501/comments",
        200,
        &json!([reply]),
    )
    .unwrap();
    let after = review_comments(&sim, 501).await;
    assert_eq!(
        after.last().unwrap().0,
        reply["id"].as_u64().unwrap(),
        "the reply joins the conversation"
    );

    assert_eq!(
        call(
            &sim,
            "fj_read",
            "POST",
            "/repos/acme/widgets/pulls/comments/9001/resolve",
            None
        )
        .await
        .0,
        403
    );
    assert_eq!(
        call(
            &sim,
            "fj_read",
            "POST",
            "/repos/acme/widgets/pulls/12/comments/9001/replies",
            Some(json!({"body": "x"}))
        )
        .await
        .0,
        403
    );
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "POST",
            "/repos/acme/widgets/pulls/12/comments/9001/replies",
            Some(json!({"body": ""}))
        )
        .await
        .0,
        422
    );
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "POST",
            "/repos/acme/widgets/pulls/comments/424242/resolve",
            None
        )
        .await
        .0,
        404
    );
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "POST",
            "/repos/acme/widgets/pulls/12/comments/9101/replies",
            Some(json!({"body": "x"}))
        )
        .await
        .0,
        404,
        "comment of another pull"
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn capabilities_follow_the_version_unless_the_scenario_says() {
    let mut scenario = Scenario::builtin("threads_mixed_gitea").unwrap();
    scenario.version = Some("1.26.1".into());
    let sim = Sim::start(scenario.clone()).await.unwrap();
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "POST",
            "/repos/acme/widgets/pulls/comments/9001/resolve",
            None
        )
        .await
        .0,
        204
    );
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "POST",
            "/repos/acme/widgets/pulls/12/comments/9001/replies",
            Some(json!({"body": "x"}))
        )
        .await
        .0,
        404
    );
    scenario.capabilities.resolve_review_comments = Some(false);
    let sim = Sim::start(scenario).await.unwrap();
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "POST",
            "/repos/acme/widgets/pulls/comments/9001/resolve",
            None
        )
        .await
        .0,
        404
    );
}

#[tokio::test]
async fn many_conversations_and_an_empty_pull() {
    let sim = start("threads_over_100_forgejo").await;
    let (_, first) = call(
        &sim,
        "fj_write",
        "GET",
        "/repos/acme/busy/pulls/1/reviews?limit=50",
        None,
    )
    .await;
    assert_eq!(first.as_array().unwrap().len(), 50);
    let long = first[0]["id"].as_u64().unwrap();
    let (_, comments) = call(
        &sim,
        "fj_write",
        "GET",
        &format!("/repos/acme/busy/pulls/1/reviews/{long}/comments"),
        None,
    )
    .await;
    assert_eq!(
        comments.as_array().unwrap().len(),
        131,
        "replies share the conversation's review"
    );
    assert_clean(&sim);
    let sim = start("no_comments_forgejo").await;
    assert_eq!(
        call(
            &sim,
            "fj_write",
            "GET",
            "/repos/acme/quiet/pulls/1/reviews",
            None
        )
        .await,
        (200, json!([]))
    );
    assert_clean(&sim);
}
