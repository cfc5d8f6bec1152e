//! A private repository with `visible_to` is seen only by those users' tokens: REST and
//! GraphQL answer anyone else as GitHub does a repository one cannot read (404, NOT_FOUND).

use crate::common;

use resolve_pr_forge_sim::{Scenario, Sim};
use serde_json::{Value, json};

const ALICE: &str = "ghp_alice_token_0123456789";
const BOB: &str = "ghp_bob_token_9876543210";

#[tokio::test]
async fn only_listed_users_see_a_private_repository() {
    let sim = Sim::start(Scenario::builtin("private_repo_two_users").unwrap())
        .await
        .unwrap();
    let client = common::client();
    let get = |token: &'static str, path: &'static str| {
        let request = client
            .get(format!("{}{path}", sim.base_url()))
            .bearer_auth(token)
            .header("user-agent", "test");
        async move { request.send().await.unwrap().status().as_u16() }
    };
    assert_eq!(get(ALICE, "/repos/acme/secret").await, 200);
    assert_eq!(get(ALICE, "/repos/acme/secret/pulls/1").await, 200);
    assert_eq!(get(BOB, "/repos/acme/secret").await, 404);
    assert_eq!(get(BOB, "/repos/acme/secret/pulls/1").await, 404);
    assert_eq!(get(BOB, "/repos/acme/secret/issues/1/comments").await, 404);
    assert_eq!(get(BOB, "/repos/acme/widgets/pulls/1").await, 200);

    let query =
        json!({"query": "query { repository(owner: \"acme\", name: \"secret\") { name } }"});
    let graphql = |token: &'static str| {
        let request = client
            .post(format!("{}/graphql", sim.base_url()))
            .bearer_auth(token)
            .header("user-agent", "test")
            .json(&query);
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    assert_eq!(graphql(ALICE).await["data"]["repository"]["name"], "secret");
    let bob = graphql(BOB).await;
    assert_eq!(bob["data"]["repository"], Value::Null, "{bob}");
    assert_eq!(bob["errors"][0]["type"], "NOT_FOUND", "{bob}");
    assert!(
        sim.contract_violations().is_empty(),
        "{:?}",
        sim.contract_violations()
    );
}

#[test]
fn visible_to_needs_a_private_repository() {
    let yaml = include_str!("../../scenarios/private_repo_two_users.yaml")
        .replace("    private: true\n", "");
    let e = Scenario::from_yaml(&yaml).unwrap_err();
    assert!(
        e.to_string().contains("visible_to needs private: true"),
        "{e}"
    );
}
