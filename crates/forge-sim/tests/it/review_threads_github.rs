//! GitHub review threads over real HTTP: GraphQL `reviewThreads` paging, thread and comment
//! fields, `node(id:)`, the resolve/unresolve/reply mutations and their errors, the REST
//! review and review-comment endpoints, and a 200 that carries GraphQL errors. Every test
//! ends by asserting nothing was served outside GitHub's description.

use crate::common;

use resolve_pr_forge_sim::{Fault, FaultKind, Scenario, Sim, SimHandle};
use serde_json::{Value, json};

async fn start(name: &str) -> SimHandle {
    Sim::start(Scenario::builtin(name).unwrap()).await.unwrap()
}

async fn graphql(sim: &SimHandle, token: &str, query: &str, variables: Value) -> Value {
    common::client()
        .post(format!("{}/graphql", sim.base_url()))
        .bearer_auth(token)
        .json(&json!({"query": query, "variables": variables}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn rest(sim: &SimHandle, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let client = common::client();
    let url = format!("{}{path}", sim.base_url());
    let mut req = match method {
        "POST" => client.post(url),
        _ => client.get(url),
    }
    .bearer_auth("ghp_write");
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

fn assert_clean(sim: &SimHandle) {
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}

const THREADS: &str = r#"
query($after: String, $n: Int!) {
  repository(owner: "acme", name: "busy") {
    pullRequest(number: $n) {
      reviewThreads(first: 100, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved path comments(first: 1) { totalCount } }
      }
    }
  }
}"#;

#[tokio::test]
async fn pages_151_threads_and_a_131_comment_thread_by_cursor() {
    let sim = start("threads_over_100").await;
    let mut after = Value::Null;
    let mut seen = Vec::new();
    loop {
        let resp = graphql(&sim, "ghp_write", THREADS, json!({"after": after, "n": 1})).await;
        assert_eq!(resp.get("errors"), None, "{resp}");
        let conn = &resp["data"]["repository"]["pullRequest"]["reviewThreads"];
        assert_eq!(conn["totalCount"], 151);
        seen.extend(conn["nodes"].as_array().unwrap().iter().cloned());
        if conn["pageInfo"]["hasNextPage"] == false {
            break;
        }
        after = conn["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen.len(), 151);
    assert_eq!(seen[0]["id"], "PRRT_long_thread");
    assert_eq!(seen[0]["comments"]["totalCount"], 131);
    let unresolved = seen.iter().filter(|t| t["isResolved"] == false).count();
    assert_eq!(
        unresolved,
        1 + 75,
        "the long thread and every even generated one"
    );

    let comments = r#"query($id: ID!, $after: String) { node(id: $id) { ... on PullRequestReviewThread {
        comments(first: 100, after: $after) { totalCount pageInfo { hasNextPage endCursor }
          nodes { databaseId body replyTo { databaseId } } } } } }"#;
    let mut after = Value::Null;
    let mut bodies = Vec::new();
    loop {
        let resp = graphql(
            &sim,
            "ghp_write",
            comments,
            json!({"id": "PRRT_long_thread", "after": after}),
        )
        .await;
        let conn = &resp["data"]["node"]["comments"];
        for c in conn["nodes"].as_array().unwrap() {
            bodies.push(c["body"].as_str().unwrap().to_owned());
            if bodies.len() > 1 {
                assert_eq!(c["replyTo"]["databaseId"], 7001);
            }
        }
        if conn["pageInfo"]["hasNextPage"] == false {
            break;
        }
        after = conn["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(bodies.len(), 131);
    assert_eq!(bodies[130], "Reply 130 of 130");

    let too_many = graphql(&sim, "ghp_write",
        r#"{ repository(owner: "acme", name: "busy") { pullRequest(number: 1) { reviewThreads(first: 101) { totalCount } } } }"#,
        json!({})).await;
    assert_eq!(
        too_many["errors"][0]["type"], "EXCESSIVE_PAGINATION",
        "{too_many}"
    );
    assert_eq!(
        too_many["data"],
        Value::Null,
        "GitHub refuses the whole query"
    );
    assert_clean(&sim);
}

const THREAD_FIELDS: &str = r#"
fragment T on PullRequestReviewThread {
  id isResolved isOutdated isCollapsed path line startLine originalLine diffSide startDiffSide
  subjectType viewerCanResolve viewerCanUnresolve viewerCanReply
  resolvedBy { login __typename }
  pullRequest { number repository { name owner { login } nameWithOwner } }
  comments(first: 10) { totalCount pageInfo { hasNextPage endCursor } nodes {
    id databaseId body createdAt updatedAt url diffHunk authorAssociation
    author { login __typename } commit { oid } originalCommit { oid } replyTo { databaseId id }
    path line startLine outdated reactionGroups { content reactors { totalCount } }
    pullRequestReview { databaseId } } }
}"#;

async fn thread(sim: &SimHandle, token: &str, id: &str) -> Value {
    let q = format!("query($id: ID!) {{ node(id: $id) {{ __typename ...T }} }} {THREAD_FIELDS}");
    let resp = graphql(sim, token, &q, json!({"id": id})).await;
    assert_eq!(resp.get("errors"), None, "{resp}");
    resp["data"]["node"].clone()
}

#[tokio::test]
async fn serves_every_kind_of_thread_like_github() {
    let sim = start("threads_mixed").await;
    let bot = thread(&sim, "ghp_write", "PRRT_mixed_bot_open").await;
    assert_eq!(bot["__typename"], "PullRequestReviewThread");
    assert_eq!(
        (
            bot["line"].clone(),
            bot["diffSide"].clone(),
            bot["subjectType"].clone()
        ),
        (json!(42), json!("RIGHT"), json!("LINE"))
    );
    assert_eq!(bot["viewerCanResolve"], true);
    assert_eq!(
        bot["pullRequest"]["repository"]["nameWithOwner"],
        "acme/widgets"
    );
    let first = &bot["comments"]["nodes"][0];
    assert_eq!(
        first["author"],
        json!({"login": "coderabbitai", "__typename": "Bot"})
    );
    assert_eq!(first["pullRequestReview"]["databaseId"], 501);
    assert_eq!(first["replyTo"], Value::Null);
    let groups = first["reactionGroups"].as_array().unwrap();
    assert_eq!(groups.len(), 8);
    assert_eq!(
        groups[0],
        json!({"content": "THUMBS_UP", "reactors": {"totalCount": 2}})
    );
    assert_eq!(
        groups[7],
        json!({"content": "EYES", "reactors": {"totalCount": 1}})
    );
    assert_eq!(bot["comments"]["nodes"][1]["replyTo"]["databaseId"], 9001);

    let multi = thread(&sim, "ghp_write", "PRRT_mixed_multiline").await;
    assert_eq!(
        (
            multi["startLine"].clone(),
            multi["line"].clone(),
            multi["startDiffSide"].clone()
        ),
        (json!(10), json!(14), json!("RIGHT"))
    );
    let outdated = thread(&sim, "ghp_write", "PRRT_mixed_outdated").await;
    assert_eq!(
        (
            outdated["isOutdated"].clone(),
            outdated["line"].clone(),
            outdated["originalLine"].clone()
        ),
        (json!(true), Value::Null, json!(3))
    );
    let file = thread(&sim, "ghp_write", "PRRT_mixed_file_level").await;
    assert_eq!(
        (file["subjectType"].clone(), file["line"].clone()),
        (json!("FILE"), Value::Null)
    );
    let ghost = thread(&sim, "ghp_write", "PRRT_mixed_ghost").await;
    assert_eq!(ghost["comments"]["nodes"][0]["author"], Value::Null);
    let resolved = thread(&sim, "ghp_read", "PRRT_mixed_resolved").await;
    assert_eq!(
        resolved["resolvedBy"],
        json!({"login": "alice", "__typename": "User"})
    );
    assert_eq!(
        (
            resolved["isCollapsed"].clone(),
            resolved["viewerCanUnresolve"].clone(),
            resolved["viewerCanReply"].clone()
        ),
        (json!(true), json!(false), json!(false))
    );
    let left = thread(&sim, "ghp_write", "PRRT_mixed_left_resolved").await;
    assert_eq!(left["diffSide"], "LEFT");

    let missing = graphql(
        &sim,
        "ghp_write",
        r#"{ node(id: "PRRT_nope") { id } }"#,
        json!({}),
    )
    .await;
    assert_eq!(missing["data"], json!({"node": null}));
    assert_eq!(missing["errors"][0]["type"], "NOT_FOUND");
    let many = graphql(&sim, "ghp_write", r#"{ nodes(ids: ["PRRT_other_pull", "nope"]) { ... on PullRequestReviewThread { pullRequest { number } } } }"#, json!({})).await;
    assert_eq!(
        many["data"]["nodes"],
        json!([{"pullRequest": {"number": 13}}, null])
    );
    assert_clean(&sim);
}

const RESOLVE: &str = r#"mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id isResolved resolvedBy { login } } } }"#;
const UNRESOLVE: &str = r#"mutation($id: ID!) { unresolveReviewThread(input: {threadId: $id}) { thread { isResolved viewerCanResolve } } }"#;
const REPLY: &str = r#"mutation($id: ID!, $body: String!) { addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $id, body: $body}) { comment { databaseId body replyTo { databaseId } author { login } } } }"#;

#[tokio::test]
async fn mutations_change_what_graphql_and_rest_show_next() {
    let sim = start("threads_mixed").await;
    let id = json!({"id": "PRRT_mixed_bot_open"});
    let resp = graphql(&sim, "ghp_write", RESOLVE, id.clone()).await;
    assert_eq!(
        resp["data"]["resolveReviewThread"]["thread"],
        json!({"id": "PRRT_mixed_bot_open", "isResolved": true, "resolvedBy": {"login": "alice"}})
    );
    // Resolving again succeeds, like GitHub.
    let again = graphql(&sim, "ghp_write", RESOLVE, id.clone()).await;
    assert_eq!(again.get("errors"), None);
    assert_eq!(
        thread(&sim, "ghp_write", "PRRT_mixed_bot_open").await["isResolved"],
        true
    );
    let un = graphql(&sim, "ghp_write", UNRESOLVE, id.clone()).await;
    assert_eq!(
        un["data"]["unresolveReviewThread"]["thread"],
        json!({"isResolved": false, "viewerCanResolve": true})
    );

    let reply = graphql(
        &sim,
        "ghp_write",
        REPLY,
        json!({"id": "PRRT_mixed_bot_open", "body": "Fixed in 1234567."}),
    )
    .await;
    let comment = &reply["data"]["addPullRequestReviewThreadReply"]["comment"];
    assert_eq!(comment["replyTo"]["databaseId"], 9001);
    assert_eq!(comment["author"]["login"], "alice");
    let new_id = comment["databaseId"].as_u64().unwrap();
    let t = thread(&sim, "ghp_write", "PRRT_mixed_bot_open").await;
    assert_eq!(t["comments"]["totalCount"], 3);
    assert_eq!(t["comments"]["nodes"][2]["body"], "Fixed in 1234567.");
    let (status, rest_comment) = rest(
        &sim,
        "GET",
        &format!("/repos/acme/widgets/pulls/comments/{new_id}"),
        None,
    )
    .await;
    assert_eq!(
        (status, rest_comment["in_reply_to_id"].clone()),
        (200, json!(9001))
    );

    let empty = graphql(
        &sim,
        "ghp_write",
        REPLY,
        json!({"id": "PRRT_mixed_bot_open", "body": ""}),
    )
    .await;
    assert_eq!(
        empty["data"]["addPullRequestReviewThreadReply"],
        Value::Null
    );
    assert!(
        empty["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("blank")
    );
    let read = graphql(&sim, "ghp_read", RESOLVE, id.clone()).await;
    assert_eq!(read["data"]["resolveReviewThread"], Value::Null);
    assert_eq!(read["errors"][0]["type"], "FORBIDDEN");
    let read_reply = graphql(
        &sim,
        "ghp_read",
        REPLY,
        json!({"id": "PRRT_mixed_bot_open", "body": "x"}),
    )
    .await;
    assert_eq!(read_reply["errors"][0]["type"], "FORBIDDEN");
    let unknown = graphql(&sim, "ghp_write", RESOLVE, json!({"id": "PRRT_unknown"})).await;
    assert_eq!(unknown["errors"][0]["type"], "NOT_FOUND");
    assert_clean(&sim);
}

#[tokio::test]
async fn rest_lists_reviews_and_review_comments_and_replies() {
    let sim = start("threads_mixed").await;
    let (status, reviews) = rest(&sim, "GET", "/repos/acme/widgets/pulls/12/reviews", None).await;
    assert_eq!(status, 200);
    let states: Vec<(&str, &str)> = reviews
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["state"].as_str().unwrap(), r["body"].as_str().unwrap()))
        .collect();
    assert!(states[0].1.contains("**Actionable comments posted: 3**"));
    assert!(
        states[0]
            .1
            .contains("<!-- This is an auto-generated comment by CodeRabbit -->")
    );
    assert_eq!(
        states[1],
        (
            "CHANGES_REQUESTED",
            "Please handle the error paths before merging."
        )
    );
    assert_eq!(states[2], ("APPROVED", ""));

    let (_, comments) = rest(
        &sim,
        "GET",
        "/repos/acme/widgets/pulls/12/comments?per_page=100",
        None,
    )
    .await;
    let by_id = |id: u64| {
        comments
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(by_id(9002)["in_reply_to_id"], 9001);
    assert_eq!(by_id(9001)["reactions"]["+1"], 2);
    assert_eq!(by_id(9001)["reactions"]["total_count"], 3);
    assert_eq!(by_id(9001)["pull_request_review_id"], 501);
    assert_eq!(by_id(9003)["start_line"], 10);
    assert_eq!(by_id(9006).get("line"), None, "outdated: no line");
    assert_eq!(by_id(9007)["subject_type"], "file");
    assert_eq!(by_id(9008)["user"]["login"], "ghost");

    let (status, page) = rest(
        &sim,
        "GET",
        "/repos/acme/widgets/pulls/12/comments?per_page=3",
        None,
    )
    .await;
    assert_eq!((status, page.as_array().unwrap().len()), (200, 3));
    let (status, reply) = rest(
        &sim,
        "POST",
        "/repos/acme/widgets/pulls/12/comments/9003/replies",
        Some(json!({"body": "Now returns the error."})),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(reply["in_reply_to_id"], 9003);
    let t = thread(&sim, "ghp_write", "PRRT_mixed_multiline").await;
    assert_eq!(t["comments"]["nodes"][1]["body"], "Now returns the error.");

    // The comment belongs to another pull request; unknown ids and numbers.
    for (method, path) in [
        ("POST", "/repos/acme/widgets/pulls/12/comments/9101/replies"),
        ("GET", "/repos/acme/widgets/pulls/comments/424242"),
        ("GET", "/repos/acme/widgets/pulls/99/reviews"),
        ("GET", "/repos/acme/widgets/pulls/99/comments"),
    ] {
        let (status, _) = rest(&sim, method, path, Some(json!({"body": "x"}))).await;
        assert_eq!(status, 404, "{path}");
    }
    let denied = common::client()
        .post(format!(
            "{}/repos/acme/widgets/pulls/12/comments/9003/replies",
            sim.base_url()
        ))
        .bearer_auth("ghp_read")
        .json(&json!({"body": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), 403);
    assert_clean(&sim);
}

#[tokio::test]
async fn the_review_list_pages_with_link_headers() {
    let sim = start("threads_over_100").await;
    let resp = common::client()
        .get(format!(
            "{}/repos/acme/busy/pulls/1/reviews?per_page=100",
            sim.base_url()
        ))
        .bearer_auth("ghp_write")
        .send()
        .await
        .unwrap();
    assert!(
        resp.headers()["link"]
            .to_str()
            .unwrap()
            .contains("rel=\"next\"")
    );
    let page: Value = resp.json().await.unwrap();
    assert_eq!(page.as_array().unwrap().len(), 100);
    assert_clean(&sim);
}

#[tokio::test]
async fn a_pull_without_comments_has_empty_lists() {
    let sim = start("no_comments").await;
    for path in [
        "/repos/acme/quiet/pulls/1/reviews",
        "/repos/acme/quiet/pulls/1/comments",
        "/repos/acme/quiet/issues/1/comments",
    ] {
        assert_eq!(
            rest(&sim, "GET", path, None).await,
            (200, json!([])),
            "{path}"
        );
    }
    let resp = graphql(&sim, "ghp_write", r#"{ repository(owner: "acme", name: "quiet") { pullRequest(number: 1) { reviewThreads(first: 50) { totalCount pageInfo { hasNextPage endCursor } nodes { id } } } } }"#, json!({})).await;
    assert_eq!(
        resp["data"]["repository"]["pullRequest"]["reviewThreads"],
        json!({"totalCount": 0, "pageInfo": {"hasNextPage": false, "endCursor": null}, "nodes": []})
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn a_fault_makes_a_200_carry_graphql_errors() {
    let sim = start("threads_mixed").await;
    sim.inject(Fault {
        method: Some("POST".into()),
        path: "/graphql".into(),
        times: 1,
        kind: FaultKind::GraphqlError {
            message: "Something went wrong while executing your query.".into(),
            error_type: None,
            keep_data: false,
        },
    });
    let resp = common::client()
        .post(format!("{}/graphql", sim.base_url()))
        .bearer_auth("ghp_write")
        .json(&json!({"query": "{ viewer { login } }"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body,
        json!({"data": null, "errors": [{"message": "Something went wrong while executing your query."}]})
    );
    sim.inject(Fault {
        method: None,
        path: "/graphql".into(),
        times: 1,
        kind: FaultKind::GraphqlError {
            message: "timeout".into(),
            error_type: Some("INTERNAL".into()),
            keep_data: true,
        },
    });
    let partial = graphql(&sim, "ghp_write", "{ viewer { login } }", json!({})).await;
    assert_eq!(partial["data"]["viewer"]["login"], "alice");
    assert_eq!(partial["errors"][0]["type"], "INTERNAL");
    let normal = graphql(&sim, "ghp_write", "{ viewer { login } }", json!({})).await;
    assert_eq!(normal.get("errors"), None);
    assert_clean(&sim);
}

/// A pull request's reviews (filtered by `states:`) and conversation comments page in GraphQL
/// like the other connections, with the ids and URLs REST gives them; minimized items say so
/// and why; a new comment moves the pull request's `updatedAt`, resolving a thread does not.
#[tokio::test]
async fn reviews_and_conversation_comments_in_graphql() {
    let mut scenario = Scenario::builtin("threads_mixed").unwrap();
    let pull = &mut scenario.repos[0].pulls[0];
    assert_eq!(pull.number, 12);
    pull.comments[0].minimized = Some("off-topic".into());
    let query = r#"query($after: String) { repository(owner: "acme", name: "widgets") {
        pullRequest(number: 12) { updatedAt
          reviews(first: 1, after: $after, states: [CHANGES_REQUESTED]) {
            totalCount pageInfo { hasNextPage } nodes { fullDatabaseId state url isMinimized } }
          comments(first: 100) { totalCount nodes { fullDatabaseId body url isMinimized
            minimizedReason author { login } } } } } }"#;
    let sim = Sim::start(scenario).await.unwrap();
    let resp = graphql(&sim, "ghp_write", query, json!({"after": null})).await;
    assert_eq!(resp.get("errors"), None, "{resp}");
    let pull = &resp["data"]["repository"]["pullRequest"];
    let reviews = &pull["reviews"];
    assert_eq!(reviews["totalCount"], 1);
    assert_eq!(reviews["nodes"][0]["state"], "CHANGES_REQUESTED");
    let (_, rest_reviews) = rest(&sim, "GET", "/repos/acme/widgets/pulls/12/reviews", None).await;
    let same = rest_reviews
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["state"] == "CHANGES_REQUESTED")
        .unwrap()
        .clone();
    assert_eq!(
        reviews["nodes"][0]["fullDatabaseId"],
        same["id"].to_string()
    );
    assert_eq!(reviews["nodes"][0]["url"], same["html_url"]);
    let comments = pull["comments"]["nodes"].as_array().unwrap();
    let (_, rest_comments) =
        rest(&sim, "GET", "/repos/acme/widgets/issues/12/comments", None).await;
    assert_eq!(comments.len(), rest_comments.as_array().unwrap().len());
    assert_eq!(comments[0]["url"], rest_comments[0]["html_url"]);
    assert_eq!(
        (
            comments[0]["isMinimized"].clone(),
            comments[0]["minimizedReason"].clone()
        ),
        (json!(true), json!("off-topic"))
    );
    assert_eq!(comments[1]["isMinimized"], false);
    let updated = pull["updatedAt"].clone();

    let resolve = r#"mutation { resolveReviewThread(input: {threadId: "PRRT_mixed_multiline"}) {
        thread { isResolved } } }"#;
    graphql(&sim, "ghp_write", resolve, json!({})).await;
    let resp = graphql(&sim, "ghp_write", query, json!({"after": null})).await;
    let pull = &resp["data"]["repository"]["pullRequest"];
    assert_eq!(
        pull["updatedAt"], updated,
        "resolving does not touch updatedAt"
    );
    rest(
        &sim,
        "POST",
        "/repos/acme/widgets/issues/12/comments",
        Some(json!({"body": "later"})),
    )
    .await;
    let resp = graphql(&sim, "ghp_write", query, json!({"after": null})).await;
    let pull = &resp["data"]["repository"]["pullRequest"];
    assert_eq!(pull["updatedAt"], "2024-07-01T12:00:00Z", "a comment does");
    assert_ne!(pull["updatedAt"], updated);
    assert_clean(&sim);
}
