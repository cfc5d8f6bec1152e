//! The GitHub flavour over real HTTP: every served route with its success and error
//! statuses, state across calls, pagination, ETags, auth, GraphQL, and the request log.
//! Each test ends by asserting the simulator served nothing outside GitHub's description.

use crate::common;

use resolve_pr_forge_sim::{RecordedRequest, Scenario, Sim, SimHandle};
use serde_json::{Value, json};

const WRITE: &str = "ghp_demo_write";
const READ: &str = "ghp_demo_read";

async fn demo() -> SimHandle {
    Sim::start(Scenario::builtin("demo-github").unwrap())
        .await
        .unwrap()
}

fn client() -> reqwest::Client {
    common::client()
}

async fn get(sim: &SimHandle, path: &str, token: Option<&str>) -> reqwest::Response {
    let mut req = client().get(format!("{}{path}", sim.base_url()));
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    req.send().await.unwrap()
}

fn assert_clean(sim: &SimHandle) {
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}

#[tokio::test]
async fn serves_repository_pull_and_user_shaped_like_github() {
    let sim = demo().await;
    let repo: Value = get(&sim, "/repos/acme/widgets", Some(WRITE))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(repo["full_name"], "acme/widgets");
    assert_eq!(repo["owner"]["type"], "Organization");
    assert_eq!(repo["permissions"]["push"], true);

    let pull: Value = get(&sim, "/repos/acme/widgets/pulls/7", Some(WRITE))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(pull["number"], 7);
    assert_eq!(pull["state"], "open");
    assert_eq!(pull["head"]["ref"], "feature/retry-budget");
    assert_eq!(
        pull["head"]["sha"],
        "9f1c2e7a4b5d6c8e0f1a2b3c4d5e6f708192a3b4"
    );
    assert_eq!(pull["user"]["login"], "bob");
    assert_eq!(pull["comments"], 3);

    let merged: Value = get(&sim, "/repos/acme/widgets/pulls/5", Some(WRITE))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (merged["state"].as_str(), merged["merged"].as_bool()),
        (Some("closed"), Some(true))
    );
    assert_eq!(merged["user"]["type"], "Bot");
    let fork: Value = get(&sim, "/repos/acme/widgets/pulls/8", Some(WRITE))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(fork["head"]["repo"]["full_name"], "carol/widgets");
    assert_eq!(fork["draft"], true);

    let me: Value = get(&sim, "/user", Some(READ)).await.json().await.unwrap();
    assert_eq!(me["login"], "carol");

    let rate = get(&sim, "/rate_limit", Some(WRITE)).await;
    assert_eq!(rate.status(), 200);
    let rate: Value = rate.json().await.unwrap();
    assert_eq!(rate["resources"]["core"]["limit"], 5000);
    assert_clean(&sim);
}

#[tokio::test]
async fn an_issue_number_is_not_a_pull_request() {
    let sim = demo().await;
    let resp = get(&sim, "/repos/acme/widgets/pulls/3", Some(WRITE)).await;
    assert_eq!(resp.status(), 404);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body,
        json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"})
    );
    // …but its conversation exists.
    let comments = get(&sim, "/repos/acme/widgets/issues/3/comments", Some(WRITE)).await;
    assert_eq!(comments.status(), 200);
    for path in [
        "/repos/acme/nope",
        "/repos/acme/widgets/pulls/99",
        "/repos/acme/widgets/issues/99/comments",
    ] {
        assert_eq!(get(&sim, path, Some(WRITE)).await.status(), 404, "{path}");
    }
    assert_clean(&sim);
}

#[tokio::test]
async fn authentication_and_permissions() {
    let sim = demo().await;
    let bad = get(&sim, "/repos/acme/widgets", Some("ghp_wrong")).await;
    assert_eq!(bad.status(), 401);
    let body: Value = bad.json().await.unwrap();
    assert_eq!(
        body,
        json!({"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"})
    );
    assert_eq!(get(&sim, "/repos/acme/widgets", None).await.status(), 401);
    assert_eq!(get(&sim, "/user", None).await.status(), 401);

    // `token T` works as well as `Bearer T`.
    let resp = client()
        .get(format!("{}/repos/acme/widgets", sim.base_url()))
        .header("authorization", format!("token {WRITE}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);

    let denied = client()
        .post(format!(
            "{}/repos/acme/widgets/issues/7/comments",
            sim.base_url()
        ))
        .bearer_auth(READ)
        .json(&json!({"body": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), 403);
    let body: Value = denied.json().await.unwrap();
    assert_eq!(
        body["message"],
        "Resource not accessible by personal access token"
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn anonymous_reads_when_the_scenario_allows_them() {
    let mut scenario = Scenario::builtin("demo-github").unwrap();
    scenario.anonymous_read = true;
    let sim = Sim::start(scenario).await.unwrap();
    let resp = get(&sim, "/repos/acme/widgets", None).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["x-ratelimit-limit"], "60");
    // Private repositories stay invisible, as on GitHub.
    assert_eq!(get(&sim, "/repos/acme/secrets", None).await.status(), 404);
    assert_eq!(
        get(&sim, "/repos/acme/secrets", Some(READ)).await.status(),
        200
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn a_posted_comment_persists_with_increasing_ids() {
    let sim = demo().await;
    let url = format!("{}/repos/acme/widgets/issues/7/comments", sim.base_url());
    let mut ids = Vec::new();
    for text in ["first reply", "second reply"] {
        let resp = client()
            .post(&url)
            .bearer_auth(WRITE)
            .json(&json!({"body": text}))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 201);
        assert!(
            resp.headers()["location"]
                .to_str()
                .unwrap()
                .contains("/issues/comments/")
        );
        let created: Value = resp.json().await.unwrap();
        assert_eq!(created["body"], text);
        assert_eq!(created["user"]["login"], "alice");
        assert_eq!(created["created_at"], "2024-05-02T09:00:00Z");
        ids.push(created["id"].as_u64().unwrap());
    }
    assert!(ids[0] < ids[1] && ids[0] > 2003, "{ids:?}");

    let list: Vec<Value> = get(&sim, "/repos/acme/widgets/issues/7/comments", Some(READ))
        .await
        .json()
        .await
        .unwrap();
    let bodies: Vec<&str> = list.iter().map(|c| c["body"].as_str().unwrap()).collect();
    assert_eq!(bodies.len(), 5);
    assert_eq!(&bodies[3..], ["first reply", "second reply"]);

    let empty = client()
        .post(&url)
        .bearer_auth(WRITE)
        .json(&json!({"body": ""}))
        .send()
        .await
        .unwrap();
    assert_eq!(empty.status(), 422);
    let body: Value = empty.json().await.unwrap();
    assert_eq!(body["message"], "Validation Failed");
    assert_eq!(
        body["errors"],
        json!([{"resource": "IssueComment", "code": "missing_field", "field": "body"}])
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn comments_paginate_with_github_link_headers() {
    let sim = Sim::start(Scenario::builtin("comments_over_100").unwrap())
        .await
        .unwrap();
    let first = get(
        &sim,
        "/repos/acme/busy/issues/1/comments",
        Some("ghp_write"),
    )
    .await;
    let link = first.headers()["link"].to_str().unwrap().to_owned();
    let page: Vec<Value> = first.json().await.unwrap();
    assert_eq!(page.len(), 30, "default per_page is 30");
    let base = sim.base_url();
    assert_eq!(
        link,
        format!(
            "<{base}/repositories/100001/issues/1/comments?page=2>; rel=\"next\", \
             <{base}/repositories/100001/issues/1/comments?page=5>; rel=\"last\""
        )
    );

    // Follow rel="next" verbatim with per_page=100 until it runs out.
    let mut url = format!("{base}/repos/acme/busy/issues/1/comments?per_page=100");
    let mut bodies = Vec::new();
    let mut pages = 0;
    loop {
        let resp = client()
            .get(&url)
            .bearer_auth("ghp_write")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        let next = resp.headers().get("link").and_then(|l| {
            l.to_str()
                .unwrap()
                .split(", ")
                .find(|p| p.ends_with("rel=\"next\""))
                .map(|p| {
                    p.trim_start_matches('<')
                        .split('>')
                        .next()
                        .unwrap()
                        .to_owned()
                })
        });
        let page: Vec<Value> = resp.json().await.unwrap();
        bodies.extend(
            page.into_iter()
                .map(|c| c["body"].as_str().unwrap().to_owned()),
        );
        pages += 1;
        match next {
            Some(n) => url = n,
            None => break,
        }
    }
    assert_eq!(pages, 2);
    assert_eq!(bodies.len(), 130);
    assert_eq!(bodies[0], "Comment 1 of 130");
    assert_eq!(bodies[129], "Comment 130 of 130");

    let last = get(
        &sim,
        "/repos/acme/busy/issues/1/comments?per_page=100&page=2",
        Some("ghp_write"),
    )
    .await;
    assert_eq!(
        last.headers()["link"].to_str().unwrap(),
        format!(
            "<{base}/repositories/100001/issues/1/comments?per_page=100&page=1>; rel=\"prev\", \
             <{base}/repositories/100001/issues/1/comments?per_page=100&page=1>; rel=\"first\""
        )
    );
    // per_page is capped at 100.
    let capped: Vec<Value> = get(
        &sim,
        "/repos/acme/busy/issues/1/comments?per_page=500",
        Some("ghp_write"),
    )
    .await
    .json()
    .await
    .unwrap();
    assert_eq!(capped.len(), 100);
    assert_clean(&sim);
}

#[tokio::test]
async fn etags_make_polling_free() {
    let sim = demo().await;
    let first = get(&sim, "/repos/acme/widgets/pulls/7", Some(WRITE)).await;
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    assert!(etag.starts_with("W/\""), "{etag}");
    let remaining: u32 = first.headers()["x-ratelimit-remaining"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    for name in [
        "x-ratelimit-limit",
        "x-ratelimit-reset",
        "x-ratelimit-used",
        "x-ratelimit-resource",
    ] {
        assert!(first.headers().contains_key(name), "{name}");
    }

    let again = client()
        .get(format!("{}/repos/acme/widgets/pulls/7", sim.base_url()))
        .bearer_auth(WRITE)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    assert_eq!(
        again.headers()["x-ratelimit-remaining"].to_str().unwrap(),
        remaining.to_string()
    );
    assert_eq!(again.headers()["etag"].to_str().unwrap(), etag);
    assert!(again.bytes().await.unwrap().is_empty());

    // A change to the resource changes the ETag: a new comment changes the PR's count.
    client()
        .post(format!(
            "{}/repos/acme/widgets/issues/7/comments",
            sim.base_url()
        ))
        .bearer_auth(WRITE)
        .json(&json!({"body": "bump"}))
        .send()
        .await
        .unwrap();
    let changed = client()
        .get(format!("{}/repos/acme/widgets/pulls/7", sim.base_url()))
        .bearer_auth(WRITE)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), 200);
    let after: u32 = changed.headers()["x-ratelimit-remaining"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        after,
        remaining - 2,
        "the POST and the changed GET both count"
    );

    let log = sim.requests();
    assert_eq!(log.iter().filter(|r| r.conditional).count(), 2);
    assert_eq!(log[1].status, 304);
    assert_clean(&sim);
}

#[tokio::test]
async fn an_exhausted_rate_limit_answers_403() {
    let mut scenario = Scenario::builtin("demo-github").unwrap();
    scenario.rate_limit.remaining = Some(1);
    let sim = Sim::start(scenario).await.unwrap();
    let ok = get(&sim, "/repos/acme/widgets", Some(WRITE)).await;
    assert_eq!(ok.headers()["x-ratelimit-remaining"], "0");
    let limited = get(&sim, "/repos/acme/widgets", Some(WRITE)).await;
    assert_eq!(limited.status(), 403);
    assert_eq!(limited.headers()["x-ratelimit-remaining"], "0");
    let body: Value = limited.json().await.unwrap();
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("API rate limit exceeded")
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn records_every_request() {
    let sim = demo().await;
    get(&sim, "/repos/acme/widgets/pulls/7", Some(WRITE)).await;
    get(
        &sim,
        "/repos/acme/widgets/issues/7/comments?per_page=2",
        None,
    )
    .await;
    get(&sim, "/_sim/requests", None).await; // control endpoints are not recorded
    assert_eq!(
        sim.requests(),
        vec![
            RecordedRequest {
                method: "GET".into(),
                path: "/repos/acme/widgets/pulls/7".into(),
                query: None,
                status: 200,
                conditional: false,
                authenticated: true,
                token: Some(WRITE.into()),
                graphql_points: None,
            },
            RecordedRequest {
                method: "GET".into(),
                path: "/repos/acme/widgets/issues/7/comments".into(),
                query: Some("per_page=2".into()),
                status: 401,
                conditional: false,
                authenticated: false,
                token: None,
                graphql_points: None,
            },
        ]
    );
    sim.clear_requests();
    assert!(sim.requests().is_empty());
    assert_clean(&sim);
}

async fn graphql(sim: &SimHandle, query: &str, variables: Value) -> Value {
    client()
        .post(format!("{}/graphql", sim.base_url()))
        .bearer_auth(WRITE)
        .json(&json!({"query": query, "variables": variables}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn graphql_resolves_viewer_rate_limit_and_pull_requests() {
    let sim = demo().await;
    let query = r#"
        query($owner: String!, $name: String!, $n: Int!) {
          viewer { login }
          rateLimit { remaining limit resetAt cost }
          repo: repository(owner: $owner, name: $name) {
            pr: pullRequest(number: $n) {
              __typename id number title state isDraft url
              headRefName headRefOid baseRefName
              author { login __typename ... on Bot { id } }
              ...More
            }
          }
        }
        fragment More on PullRequest { mergeable }
    "#;
    let resp = graphql(
        &sim,
        query,
        json!({"owner": "acme", "name": "widgets", "n": 5}),
    )
    .await;
    assert_eq!(resp.get("errors"), None, "{resp}");
    let data = &resp["data"];
    assert_eq!(data["viewer"]["login"], "alice");
    assert_eq!(data["rateLimit"]["limit"], 5000);
    assert_eq!(data["rateLimit"]["cost"], 1);
    let pr = &data["repo"]["pr"];
    assert_eq!(pr["__typename"], "PullRequest");
    assert_eq!(pr["state"], "MERGED");
    assert_eq!(pr["mergeable"], "MERGEABLE");
    assert_eq!(pr["author"]["__typename"], "Bot");
    assert_eq!(
        pr["author"]["login"], "dependabot",
        "GraphQL drops REST's [bot] suffix"
    );
    let rest: Value = get(&sim, "/repos/acme/widgets/pulls/5", Some(WRITE))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        pr["id"], rest["node_id"],
        "GraphQL and REST agree on node ids"
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn graphql_reports_missing_repositories_and_pull_requests_like_github() {
    let sim = demo().await;
    let resp = graphql(
        &sim,
        r#"{ repository(owner: "o", name: "r") { pullRequest(number: 1) { id } } }"#,
        json!({}),
    )
    .await;
    assert_eq!(
        resp,
        json!({
            "data": {"repository": null},
            "errors": [{"type": "NOT_FOUND", "path": ["repository"], "message": "Could not resolve to a Repository with the name 'o/r'."}]
        })
    );
    let resp = graphql(
        &sim,
        r#"{ repository(owner: "acme", name: "widgets") { pullRequest(number: 3) { id } } }"#,
        json!({}),
    )
    .await;
    assert_eq!(resp["data"], json!({"repository": {"pullRequest": null}}));
    assert_eq!(resp["errors"][0]["type"], "NOT_FOUND");
    assert_eq!(
        resp["errors"][0]["path"],
        json!(["repository", "pullRequest"])
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn an_invalid_graphql_document_is_rejected_and_recorded() {
    let sim = demo().await;
    let resp = graphql(&sim, "{ viewer { loginn } }", json!({})).await;
    assert!(resp.get("data").is_none());
    let messages: Vec<&str> = resp["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert!(messages.iter().any(|m| m.contains("loginn")), "{resp}");
    let violations = sim.contract_violations();
    assert_eq!(violations.len(), 1);
    assert!(violations[0].contains("loginn"));
}

#[tokio::test]
async fn a_valid_but_unserved_graphql_field_is_flagged() {
    let sim = demo().await;
    let resp = graphql(&sim, "{ viewer { login company } }", json!({})).await;
    assert!(
        resp["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("User.company"),
        "{resp}"
    );
    assert_eq!(sim.contract_violations().len(), 1);
}

#[tokio::test]
async fn graphql_needs_a_token() {
    let sim = demo().await;
    let resp = client()
        .post(format!("{}/graphql", sim.base_url()))
        .json(&json!({"query": "{ viewer { login } }"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    assert_clean(&sim);
}

/// GraphQL queries cost what GitHub's published rule says (connections times the pages of
/// their parents, / 100, at least 1): charged to the `graphql` rate limit, reported by
/// `rateLimit { cost }` and in the request log; a query the rest of the hour cannot pay for
/// is refused with 200 and a RATE_LIMITED error, as GitHub's GraphQL API answers.
#[tokio::test]
async fn graphql_queries_cost_their_published_points() {
    let mut scenario = Scenario::builtin("demo-github").unwrap();
    scenario.rate_limit.remaining = Some(120);
    let sim = Sim::start(scenario).await.unwrap();
    // 1 (threads) + 100 (comments of each thread) + 100 x 100 (reactors of each comment).
    let heavy = "query($o: String!, $n: String!) { rateLimit { cost remaining } \
                 repository(owner: $o, name: $n) { pullRequest(number: 7) { \
                 reviewThreads(first: 100) { nodes { comments(first: 100) { nodes { \
                 reactionGroups { reactors { totalCount } } } } } } } } }";
    let vars = json!({"o": "acme", "n": "widgets"});
    let resp = graphql(&sim, heavy, vars.clone()).await;
    assert_eq!(resp.get("errors"), None, "{resp}");
    assert_eq!(resp["data"]["rateLimit"]["cost"], 101);
    assert_eq!(resp["data"]["rateLimit"]["remaining"], 19);
    let cheap = "query { rateLimit { cost remaining } }";
    let resp = graphql(&sim, cheap, json!({})).await;
    assert_eq!(resp["data"]["rateLimit"]["cost"], 1);
    assert_eq!(resp["data"]["rateLimit"]["remaining"], 18);
    let points: Vec<Option<u32>> = sim.requests().iter().map(|r| r.graphql_points).collect();
    assert_eq!(points, vec![Some(101), Some(1)]);

    // 18 points left: the heavy query is refused and charges nothing.
    let resp = graphql(&sim, heavy, vars).await;
    assert_eq!(resp["errors"][0]["type"], "RATE_LIMITED", "{resp}");
    assert_eq!(resp.get("data"), None);
    assert_eq!(sim.requests().last().unwrap().graphql_points, Some(0));
    let rate: Value = get(&sim, "/rate_limit", Some(WRITE))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(rate["resources"]["graphql"]["remaining"], 18, "{rate}");
    assert_clean(&sim);
}
