//! The Forgejo/Gitea flavour over real HTTP: every served route under `/api/v1` with its
//! success and error statuses, comment state, Forgejo's unpaginated comment list, and
//! error bodies shaped like Forgejo's. Each test ends with no contract violations.

use crate::common;

use resolve_pr_forge_sim::{ForgeFlavor, Scenario, Sim, SimHandle, validate_rest};
use serde_json::{Value, json};

const WRITE: &str = "fj_demo_write";
const READ: &str = "fj_demo_read";

async fn demo() -> SimHandle {
    Sim::start(Scenario::builtin("demo-forgejo").unwrap())
        .await
        .unwrap()
}

async fn get(sim: &SimHandle, path: &str, token: Option<&str>) -> reqwest::Response {
    let mut req = common::client().get(format!("{}/api/v1{path}", sim.base_url()));
    if let Some(t) = token {
        req = req.header("authorization", format!("token {t}"));
    }
    req.send().await.unwrap()
}

async fn post_comment(sim: &SimHandle, number: u64, token: &str, body: Value) -> reqwest::Response {
    common::client()
        .post(format!(
            "{}/api/v1/repos/acme/widgets/issues/{number}/comments",
            sim.base_url()
        ))
        .header("authorization", format!("token {token}"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

fn assert_clean(sim: &SimHandle) {
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}

#[tokio::test]
async fn serves_version_user_repository_and_pull() {
    let sim = demo().await;
    let version: Value = get(&sim, "/version", None).await.json().await.unwrap();
    assert_eq!(version, json!({"version": "11.0.1+gitea-1.22.0"}));

    let me: Value = get(&sim, "/user", Some(WRITE)).await.json().await.unwrap();
    assert_eq!(
        (me["login"].as_str(), me["id"].as_u64()),
        (Some("alice"), Some(1001))
    );

    let repo: Value = get(&sim, "/repos/acme/widgets", Some(READ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(repo["full_name"], "acme/widgets");
    assert_eq!(repo["permissions"]["push"], false);

    let pull: Value = get(&sim, "/repos/acme/widgets/pulls/7", Some(READ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(pull["number"], 7);
    assert_eq!(pull["head"]["ref"], "feature/retry-budget");
    assert_eq!(
        pull["head"]["sha"],
        "9f1c2e7a4b5d6c8e0f1a2b3c4d5e6f708192a3b4"
    );
    assert_eq!(pull["base"]["ref"], "main");
    assert_eq!(pull["merged_at"], Value::Null);
    assert_eq!(
        pull["html_url"],
        format!("{}/acme/widgets/pulls/7", sim.base_url())
    );

    let merged: Value = get(&sim, "/repos/acme/widgets/pulls/5", Some(READ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (merged["state"].as_str(), merged["merged"].as_bool()),
        (Some("closed"), Some(true))
    );
    // Bots are plain users in Forgejo's API.
    assert_eq!(merged["user"]["login"], "renovate-bot");
    assert!(merged["user"].get("type").is_none());
    assert_clean(&sim);
}

#[tokio::test]
async fn errors_are_shaped_like_forgejo() {
    let sim = demo().await;
    let base = sim.base_url();
    let missing = get(&sim, "/repos/acme/widgets/pulls/3", Some(READ)).await;
    assert_eq!(
        missing.status(),
        404,
        "an issue number is not a pull request"
    );
    let body: Value = missing.json().await.unwrap();
    assert_eq!(
        body,
        json!({"errors": null, "message": "The target couldn't be found.", "url": format!("{base}/api/swagger")})
    );
    assert_eq!(
        get(&sim, "/repos/acme/nope", Some(READ)).await.status(),
        404
    );

    let unauth = get(&sim, "/repos/acme/widgets", None).await;
    assert_eq!(unauth.status(), 401);
    let body: Value = unauth.json().await.unwrap();
    assert_eq!(
        body,
        json!({"message": "token is required", "url": format!("{base}/api/swagger")})
    );
    assert_eq!(get(&sim, "/user", Some("fj_wrong")).await.status(), 401);

    let denied = post_comment(&sim, 7, READ, json!({"body": "hi"})).await;
    assert_eq!(denied.status(), 403);

    let empty = post_comment(&sim, 7, WRITE, json!({"body": ""})).await;
    assert_eq!(empty.status(), 422);

    // Forgejo answers an unknown index on the comment endpoints with a bare 500.
    let unknown = get(&sim, "/repos/acme/widgets/issues/99/comments", Some(READ)).await;
    assert_eq!(unknown.status(), 500);
    assert_eq!(
        post_comment(&sim, 99, WRITE, json!({"body": "x"}))
            .await
            .status(),
        500
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn a_posted_comment_persists() {
    let sim = demo().await;
    let created = post_comment(&sim, 7, WRITE, json!({"body": "LGTM now"})).await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.unwrap();
    let base = sim.base_url();
    assert_eq!(created["body"], "LGTM now");
    assert_eq!(created["user"]["login"], "alice");
    assert_eq!(
        created["pull_request_url"],
        format!("{base}/acme/widgets/pulls/7")
    );
    assert_eq!(created["issue_url"], "");
    assert_eq!(created["created_at"], "2024-05-02T09:00:00Z");

    let list = get(&sim, "/repos/acme/widgets/issues/7/comments", Some(READ)).await;
    assert_eq!(list.headers()["x-total-count"], "4");
    let list: Vec<Value> = list.json().await.unwrap();
    assert_eq!(list.last().unwrap()["id"], created["id"]);
    assert!(list[2]["id"].as_u64() < created["id"].as_u64());

    let issue: Vec<Value> = get(&sim, "/repos/acme/widgets/issues/3/comments", Some(READ))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        issue[0]["issue_url"],
        format!("{base}/acme/widgets/issues/3")
    );
    assert_eq!(issue[0]["pull_request_url"], "");
    assert_clean(&sim);
}

#[tokio::test]
async fn the_comment_list_is_not_paginated() {
    let sim = Sim::start(Scenario::builtin("comments_over_100_forgejo").unwrap())
        .await
        .unwrap();
    let resp = get(
        &sim,
        "/repos/acme/busy/issues/1/comments?page=2&limit=10",
        Some("fj_write"),
    )
    .await;
    assert_eq!(resp.headers()["x-total-count"], "130");
    assert!(resp.headers().get("link").is_none());
    let all: Vec<Value> = resp.json().await.unwrap();
    assert_eq!(all.len(), 130);
    assert_eq!(all[129]["body"], "Comment 130 of 130");
    assert_clean(&sim);
}

#[tokio::test]
async fn gitea_reports_its_own_version() {
    let mut scenario = Scenario::builtin("demo-forgejo").unwrap();
    scenario.forge = ForgeFlavor::Gitea;
    scenario.version = Some("1.24.0".into());
    let sim = Sim::start(scenario).await.unwrap();
    let version: Value = get(&sim, "/version", None).await.json().await.unwrap();
    assert_eq!(version["version"], "1.24.0");
    assert_clean(&sim);
}

#[tokio::test]
async fn a_body_missing_a_field_or_with_an_invented_one_fails_the_contract() {
    let sim = demo().await;
    let path = "/api/v1/repos/acme/widgets/issues/7/comments";
    let mut list: Value = get(&sim, "/repos/acme/widgets/issues/7/comments", Some(READ))
        .await
        .json()
        .await
        .unwrap();
    validate_rest(ForgeFlavor::Forgejo, "GET", path, 200, &list).unwrap();
    list[0]["reactions"] = json!([]);
    assert!(validate_rest(ForgeFlavor::Forgejo, "GET", path, 200, &list).is_err());
    list[0].as_object_mut().unwrap().remove("reactions");
    list[0]["id"] = json!("2001");
    assert!(validate_rest(ForgeFlavor::Forgejo, "GET", path, 200, &list).is_err());
    assert!(validate_rest(ForgeFlavor::Forgejo, "GET", path, 418, &list).is_err());
}
