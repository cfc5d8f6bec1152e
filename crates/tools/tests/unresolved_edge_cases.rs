//! Edge cases of `find_unresolved_comments` that need scenarios of their own: cursors that
//! must survive a push, and whose feedback counts as feedback.

mod common;

use resolve_pr_forge_sim::{Sim, SimHandle};
use resolve_pr_tools::{Context, call};
use serde_json::{Value, json};

use common::Flavor;

/// 25 unresolved threads on one file, thread `outdated` (if any) made outdated by a push.
fn scenario(outdated: Option<u64>) -> String {
    let mut yaml = String::from(
        r#"forge: github
now: "2024-07-01T12:00:00Z"
tokens:
  - {token: ghp_write, login: alice, permission: write}
repos:
  - owner: acme
    name: widgets
    pulls:
      - number: 12
        title: "t"
        author: bob
        head: {ref: f, sha: 1111111111111111111111111111111111111111}
        base: {ref: main, sha: 2222222222222222222222222222222222222222}
        created_at: "2024-07-01T08:00:00Z"
        review_threads:
"#,
    );
    for n in 1..=25u64 {
        yaml.push_str(&format!(
            "          - id: PRRT_t{n}\n            path: src/a.rs\n            line: {line}\n{out}            comments:\n              - {{id: {id}, author: alice, created_at: \"2024-07-01T08:{n:02}:00Z\", body: \"c{n}\"}}\n",
            line = n * 10,
            id = 9000 + n,
            out = if outdated == Some(n) { "            outdated: true\n" } else { "" },
        ));
    }
    yaml
}

async fn context(yaml: &str) -> (SimHandle, Context) {
    let sim = Sim::start(common::scenario(yaml)).await.expect("sim");
    // The same key in every context: a cursor is honoured across the "push".
    let ctx = common::context(Flavor::GitHub, &sim, "ghp_write", [9; 32]);
    (sim, ctx)
}

fn ids(v: &Value) -> Vec<u64> {
    v["comments"]
        .as_array()
        .expect("comments")
        .iter()
        .filter_map(|c| c["id"].as_u64())
        .collect()
}

#[tokio::test]
async fn by_file_cursor_survives_a_thread_becoming_outdated() {
    let (_before_sim, before) = context(&scenario(None)).await;
    let args = json!({"pr": "acme/widgets#12", "sort": "by_file"});
    let first = call(&before, "find_unresolved_comments", args.clone())
        .await
        .expect("page 1")
        .structured;
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a second page")
        .to_owned();
    assert_eq!(ids(&first).len(), 20);

    let (_after_sim, after) = context(&scenario(Some(22))).await;
    let mut next = args.clone();
    next["cursor"] = json!(cursor);
    let second = call(&after, "find_unresolved_comments", next)
        .await
        .expect("page 2")
        .structured;

    let mut all = ids(&first);
    all.extend(ids(&second));
    let want: Vec<u64> = (9001..=9025).collect();
    assert_eq!(all, want, "every thread once, in line order");
}

/// Review summaries follow the same rule as conversation comments: the PR author's own are
/// not feedback to address; everyone else's are.
#[tokio::test]
async fn the_pr_authors_own_summaries_and_comments_are_not_feedback() {
    let yaml = r#"forge: github
now: "2024-07-01T12:00:00Z"
tokens:
  - {token: ghp_write, login: alice, permission: write}
repos:
  - owner: acme
    name: widgets
    pulls:
      - number: 12
        title: "t"
        author: bob
        head: {ref: f, sha: 1111111111111111111111111111111111111111}
        base: {ref: main, sha: 2222222222222222222222222222222222222222}
        created_at: "2024-07-01T08:00:00Z"
        comments:
          - {id: 8001, author: alice, body: "Why this approach?", created_at: "2024-07-01T09:00:00Z"}
          - {id: 8002, author: bob, body: "Because of X.", created_at: "2024-07-01T09:05:00Z"}
        reviews:
          - {id: 501, author: alice, state: CHANGES_REQUESTED, body: "Handle errors.", submitted_at: "2024-07-01T08:30:00Z", commit_id: 1111111111111111111111111111111111111111}
          - {id: 502, author: bob, state: COMMENTED, body: "Note to reviewers: see X.", submitted_at: "2024-07-01T08:40:00Z", commit_id: 1111111111111111111111111111111111111111}
"#;
    let (_sim, ctx) = context(yaml).await;
    let out = call(
        &ctx,
        "find_unresolved_comments",
        json!({"pr": "acme/widgets#12"}),
    )
    .await
    .expect("found")
    .structured;
    assert_eq!(ids(&out), [501, 8001], "{out}");
    assert_eq!(out["summary"]["by_author"], json!({"alice": 2}));
}
