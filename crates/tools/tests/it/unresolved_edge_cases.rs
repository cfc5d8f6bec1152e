//! Edge cases of `find_unresolved_comments` that need scenarios of their own: cursors that
//! must survive a push, and whose feedback counts as feedback.

use crate::common;

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

/// A pull request on GitHub with `threads`, `comments` and `reviews` (YAML list items, each
/// line indented for its list).
fn pull_with(threads: &str, comments: &str, reviews: &str) -> String {
    format!(
        r#"forge: github
now: "2024-07-01T12:00:00Z"
tokens:
  - {{token: ghp_write, login: alice, permission: write}}
repos:
  - owner: acme
    name: widgets
    pulls:
      - number: 12
        title: "t"
        author: bob
        head: {{ref: f, sha: 1111111111111111111111111111111111111111}}
        base: {{ref: main, sha: 2222222222222222222222222222222222222222}}
        created_at: "2024-07-01T08:00:00Z"
        review_threads: [{threads}]
        comments: [{comments}]
        reviews: [{reviews}]
"#
    )
}

/// Minimized (hidden) items are not feedback: left out of the list and of every count by
/// default; listed, flagged with GitHub's reason and still not counted on request.
#[tokio::test]
async fn minimized_items_are_flagged_and_never_counted() {
    let yaml = pull_with(
        r#"
          {id: PRRT_open, path: src/a.rs, line: 3, comments: [
            {id: 9001, author: alice, created_at: "2024-07-01T08:10:00Z", body: "Check the bound."},
            {id: 9002, author: carol, created_at: "2024-07-01T08:11:00Z", body: "+1 me too", minimized: off-topic}]},
          {id: PRRT_hidden, path: src/b.rs, line: 5, comments: [
            {id: 9003, author: carol, created_at: "2024-07-01T08:12:00Z", body: "Old remark.", minimized: outdated}]}"#,
        r#"
          {id: 8001, author: alice, body: "Please rebase.", created_at: "2024-07-01T09:00:00Z"},
          {id: 8002, author: "spammer", body: "Buy now", created_at: "2024-07-01T09:01:00Z", minimized: spam}"#,
        r#"
          {id: 501, author: alice, state: CHANGES_REQUESTED, body: "Handle errors.", submitted_at: "2024-07-01T08:30:00Z"},
          {id: 502, author: carol, state: COMMENTED, body: "Resolved in chat.", submitted_at: "2024-07-01T08:40:00Z", minimized: resolved}"#,
    );
    let (sim, ctx) = context(&yaml).await;
    let pr = json!({"pr": "acme/widgets#12"});
    let out = call(&ctx, "find_unresolved_comments", pr.clone())
        .await
        .expect("found");
    let o = &out.structured;
    assert_eq!(ids(o), [9001, 501, 8001], "{o}");
    assert_eq!(
        (
            o["total_unresolved"].clone(),
            o["unresolved_threads"].clone()
        ),
        (json!(3), json!(1))
    );
    assert_eq!(o["summary"]["minimized"], 4);
    assert_eq!(o["summary"]["total_comments"], 3);
    assert_eq!(o["summary"]["by_author"], json!({"alice": 3}));
    assert!(
        out.text.contains("4 minimized item(s) not counted"),
        "{}",
        out.text
    );

    let mut args = pr.clone();
    args["include_minimized"] = json!(true);
    let out = call(&ctx, "find_unresolved_comments", args)
        .await
        .expect("found");
    let o = &out.structured;
    assert_eq!(ids(o), [9001, 9002, 9003, 501, 502, 8001, 8002], "{o}");
    assert_eq!(
        (
            o["total_unresolved"].clone(),
            o["unresolved_threads"].clone(),
            o["summary"]["minimized"].clone()
        ),
        (json!(3), json!(1), json!(4)),
        "listing them does not make them feedback"
    );
    let flags: Vec<(Value, Value)> = o["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["is_minimized"].clone(), c["minimized_reason"].clone()))
        .collect();
    let none = (Value::Null, Value::Null);
    let hidden = |why: &str| (json!(true), json!(why));
    assert_eq!(
        flags,
        [
            none.clone(),
            hidden("off-topic"),
            hidden("outdated"),
            none.clone(),
            hidden("resolved"),
            none,
            hidden("spam")
        ]
    );
    // The thread whose only comment is hidden still has its commands where it starts.
    assert!(o["comments"][2]["action_commands"].is_object());
    assert!(
        out.text
            .contains("### review_comment 9002 by carol on src/a.rs:3, reply in the same thread [minimized: off-topic; not counted]"),
        "{}",
        out.text
    );
    assert!(
        sim.contract_violations().is_empty(),
        "{:?}",
        sim.contract_violations()
    );
}

/// An outdated thread's line is gone from the head; its line in the original diff is shown
/// and marked as such (GitHub's originalLine / originalStartLine).
#[tokio::test]
async fn an_outdated_thread_keeps_its_original_lines() {
    let yaml = pull_with(
        r#"
          {id: PRRT_gone, path: src/a.rs, start_line: 10, line: 14, outdated: true, comments: [
            {id: 9001, author: alice, created_at: "2024-07-01T08:10:00Z", body: "Split this block."}]}"#,
        "",
        "",
    );
    let (_sim, ctx) = context(&yaml).await;
    let out = call(
        &ctx,
        "find_unresolved_comments",
        json!({"pr": "acme/widgets#12"}),
    )
    .await
    .expect("found");
    let item = &out.structured["comments"][0];
    assert_eq!(
        (
            item["start_line"].clone(),
            item["line_number"].clone(),
            item["line_is_original"].clone(),
            item["is_outdated"].clone()
        ),
        (json!(10), json!(14), json!(true), json!(true)),
        "{item}"
    );
    assert!(
        out.text.contains(
            "on src/a.rs:10-14 (outdated: line in the original diff), thread_id PRRT_gone"
        ),
        "{}",
        out.text
    );
}

/// The text content alone is enough to act: who wrote each item, where, its whole body (not
/// just a CodeRabbit-style first line), and the id to answer with. HTML comments, invisible
/// on the forge, are left out; what the forge shows stays, `<details>` included.
#[tokio::test]
async fn the_text_alone_says_who_asked_what_where_and_how_to_answer() {
    let rabbit = "_⚠️ Potential issue_\n\n**Unbounded read of the request body.**\n\n\
`read_to_end` trusts the client; cap it with `take(MAX_BODY)`.\n\n<details>\n\
<summary>🤖 Prompt for AI Agents</summary>\n\n```\nIn src/server.rs around line 42, bound the \
body read with take(MAX_BODY).\n```\n\n</details>\n\n<!-- fingerprinting:phantom:poseidon:hawk \
-->\n\n<!-- This is an auto-generated comment by CodeRabbit -->";
    let long = "x".repeat(5000);
    let threads = format!(
        r#"
          {{id: PRRT_rabbit, path: src/server.rs, line: 42, comments: [
            {{id: 9001, author: "coderabbitai[bot]", created_at: "2024-07-01T08:10:00Z", body: {body}}},
            {{id: 9002, author: alice, created_at: "2024-07-01T08:20:00Z", body: "Agreed."}}]}}"#,
        body = serde_json::to_string(rabbit).unwrap()
    );
    let comments = format!(
        r#"
          {{id: 8001, author: carol, body: "Why not stream it?", created_at: "2024-07-01T09:00:00Z"}},
          {{id: 8002, author: carol, body: "{long}", created_at: "2024-07-01T09:10:00Z"}}"#
    );
    let yaml = pull_with(&threads, &comments, "");
    let (_sim, ctx) = context(&yaml).await;
    let out = call(
        &ctx,
        "find_unresolved_comments",
        json!({"pr": "acme/widgets#12"}),
    )
    .await
    .expect("found");
    let text = &out.text;
    let want = "### review_comment 9001 by coderabbitai[bot] on src/server.rs:42, thread_id \
PRRT_rabbit\n_⚠️ Potential issue_\n\n**Unbounded read of the request body.**\n\n\
`read_to_end` trusts the client; cap it with `take(MAX_BODY)`.\n\n<details>\n\
<summary>🤖 Prompt for AI Agents</summary>\n\n```\nIn src/server.rs around line 42, bound the \
body read with take(MAX_BODY).\n```\n\n</details>\n\n\
### review_comment 9002 by alice on src/server.rs:42, reply in the same thread\nAgreed.\n\n\
### issue_comment 8001 by carol\nWhy not stream it?\n\n### issue_comment 8002 by carol\n";
    assert!(text.contains(want), "{text}");
    assert!(text.contains("reply_to_review_thread") && text.contains("pr_comment_create"));
    assert!(!text.contains("fingerprinting") && !text.contains("auto-generated"));
    // A long body is cut to the same budget as the structured one, with where the rest is.
    assert!(
        text.contains("…[cut: showing 4000 of 5000 bytes; full text: http"),
        "{text}"
    );
    // Compact: beyond the bodies, a few hundred bytes of guidance and a line per item.
    let items = out.structured["comments"].as_array().unwrap();
    let bodies: usize = items
        .iter()
        .map(|c| c["body"].as_str().unwrap().len())
        .sum();
    assert!(
        text.len() <= bodies + 450 + 90 * items.len(),
        "{} bytes of text for {bodies} bytes of bodies",
        text.len()
    );
}
