//! The review tools end to end against the simulated forges: find_unresolved_comments over
//! big and mixed pull requests (pages, filters, sorts, summary, stable keyset cursors), the
//! write tools (reply, resolve, unresolve), and the emitted shell commands actually run: `gh`
//! through a stand-in that forwards to the simulator, `curl` for real.

use crate::common;

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use resolve_pr_core::{Category, Error};
use resolve_pr_forge_sim::{Sim, SimHandle};
use resolve_pr_tools::{Context, ToolOutput, call};
use serde_json::{Value, json};

use common::Flavor;

struct Fixture {
    sim: SimHandle,
    ctx: Context,
    flavor: Flavor,
    token: String,
}

impl Fixture {
    async fn start(flavor: Flavor, scenario: &str, token: &str) -> Fixture {
        let sim = Sim::start(common::scenario(scenario))
            .await
            .expect("simulator starts");
        let ctx = common::context(flavor, &sim, token, [42; 32]);
        Fixture {
            sim,
            ctx,
            flavor,
            token: token.to_owned(),
        }
    }

    /// The `pr` argument that routes to this simulator.
    fn pr(&self, owner_repo: &str, number: u64) -> String {
        match self.flavor {
            Flavor::GitHub => format!("{owner_repo}#{number}"),
            Flavor::Forgejo => format!("{}/{owner_repo}/pulls/{number}", self.sim.base_url()),
        }
    }

    async fn call(&self, tool: &str, args: Value) -> Result<ToolOutput, Error> {
        call(&self.ctx, tool, args).await
    }

    async fn find(&self, args: Value) -> ToolOutput {
        self.call("find_unresolved_comments", args)
            .await
            .unwrap_or_else(|e| panic!("find_unresolved_comments: {e:?}"))
    }

    /// Every page, following nextCursor; also the requests and bytes the walk cost.
    async fn walk(&self, args: Value) -> Walk {
        self.sim.clear_requests();
        let mut walk = Walk::default();
        let mut cursor: Option<String> = None;
        loop {
            let mut a = args.clone();
            if let Some(c) = &cursor {
                a["cursor"] = json!(c);
            }
            let out = self.find(a).await;
            walk.bytes += serde_json::to_string(&out.structured).unwrap().len();
            let page = out.structured["comments"].as_array().unwrap().clone();
            assert!(page.len() <= 20, "a page holds at most 20 items");
            walk.pages.push(out.structured.clone());
            walk.items.extend(page);
            match out.structured.get("nextCursor").and_then(Value::as_str) {
                Some(c) => cursor = Some(c.to_owned()),
                None => break,
            }
            assert!(walk.pages.len() < 100, "pagination does not end");
        }
        walk.requests = self.sim.requests().len();
        walk
    }

    fn writes(&self) -> usize {
        self.sim
            .requests()
            .iter()
            .filter(|r| r.method != "GET" && !r.path.ends_with("/graphql"))
            .count()
    }

    fn no_violations(&self) {
        assert!(
            self.sim.contract_violations().is_empty(),
            "{:?}",
            self.sim.contract_violations()
        );
    }
}

#[derive(Default)]
struct Walk {
    pages: Vec<Value>,
    items: Vec<Value>,
    requests: usize,
    bytes: usize,
}

/// An item's identity: its type and id.
fn ident(item: &Value) -> (String, u64) {
    (
        item["type"].as_str().unwrap().to_owned(),
        item["id"].as_u64().unwrap(),
    )
}

fn idents(items: &[Value]) -> Vec<(String, u64)> {
    items.iter().map(ident).collect()
}

fn rc(id: u64) -> (String, u64) {
    ("review_comment".to_owned(), id)
}
fn rv(id: u64) -> (String, u64) {
    ("review".to_owned(), id)
}
fn ic(id: u64) -> (String, u64) {
    ("issue_comment".to_owned(), id)
}

/// threads_mixed on GitHub, threads_mixed_gitea (a Gitea that can reply and resolve) else.
async fn mixed(flavor: Flavor) -> Fixture {
    match flavor {
        Flavor::GitHub => Fixture::start(flavor, "threads_mixed", "ghp_write").await,
        Flavor::Forgejo => Fixture::start(flavor, "threads_mixed_gitea", "fj_write").await,
    }
}

/// A thread id of threads_mixed, by the id of its first comment.
fn thread_of(flavor: Flavor, first_comment: u64) -> String {
    match (flavor, first_comment) {
        (Flavor::GitHub, 9001) => "PRRT_mixed_bot_open".into(),
        (Flavor::GitHub, 9003) => "PRRT_mixed_multiline".into(),
        (Flavor::GitHub, 9004) => "PRRT_mixed_resolved".into(),
        (Flavor::GitHub, 9101) => "PRRT_other_pull".into(),
        (Flavor::GitHub, other) => panic!("no thread starts with {other}"),
        (Flavor::Forgejo, id) => format!("comment-{id}"),
    }
}

async fn mixed_items_are_exactly_the_feedback(flavor: Flavor) {
    let fx = mixed(flavor).await;
    let out = fx.find(json!({"pr": fx.pr("acme/widgets", 12)})).await;
    let o = &out.structured;
    let items = o["comments"].as_array().unwrap().clone();
    // Resolved threads (9004/9005, 9009), the APPROVED review without body (503) and the PR
    // author's own conversation comment (8003) are not listed.
    let want = match flavor {
        Flavor::GitHub => vec![
            rc(9008),
            ic(8001),
            rc(9001),
            rc(9002),
            rv(501),
            rc(9007),
            rc(9003),
            rc(9006),
            rv(502),
            ic(8002),
        ],
        Flavor::Forgejo => vec![
            rc(9008),
            ic(8001),
            rc(9001),
            rc(9002),
            rv(501),
            rc(9003),
            rc(9006),
            rc(9010),
            rv(502),
            ic(8002),
        ],
    };
    assert_eq!(idents(&items), want);
    assert_eq!(o["total_unresolved"], 10);
    assert_eq!(o["unresolved_threads"], 5);
    assert!(o.get("nextCursor").is_none());
    let bot = flavor == Flavor::GitHub;
    let rabbit = if bot {
        "coderabbitai[bot]"
    } else {
        "coderabbitai"
    };
    let ghost = if bot { "ghost" } else { "Ghost" };
    let by_author = match flavor {
        Flavor::GitHub => json!({rabbit: 4, "alice": 4, "bob": 1, ghost: 1}),
        Flavor::Forgejo => json!({rabbit: 3, "alice": 5, "bob": 1, ghost: 1}),
    };
    assert_eq!(
        o["summary"],
        json!({
            "total_comments": 10,
            "by_author": by_author,
            "by_type": {"review_comment": 6, "review": 2, "issue_comment": 2},
            "bot_comments": if bot { 4 } else { 0 },
            "human_comments": if bot { 6 } else { 10 },
            "with_reactions": if bot { 1 } else { 0 },
            "minimized": 0,
        })
    );

    // A reply: in its thread, no commands or hunk of its own (the first comment has them).
    let reply = &items[3];
    assert_eq!(reply["body"], "Bounded it with a budget.");
    assert_eq!(reply["in_reply_to_id"], 9001);
    assert_eq!(reply["thread_id"], json!(thread_of(flavor, 9001)));
    assert_eq!(reply["author"], "bob");
    assert!(reply.get("action_commands").is_none() && reply.get("diff_hunk").is_none());
    // The bot's review summary comes verbatim, markers intact.
    assert_eq!(
        items[4]["body"],
        "**Actionable comments posted: 3**\n\n<details>\n<summary>🧹 Nitpick comments (1)</summary><blockquote>\n\n`src/fetch.rs` (1): consider a named constant.\n\n</blockquote></details>\n\n<!-- This is an auto-generated comment by CodeRabbit -->"
    );
    assert_eq!(items[4]["review_state"], "COMMENTED");
    assert_eq!(items[8]["review_state"], "CHANGES_REQUESTED");
    assert!(items[4]["action_commands"].get("resolve_command").is_none());
    // The first comment of a thread carries the commands.
    let first = &items[2];
    let commands = &first["action_commands"];
    assert_eq!(commands["reply_target"], "thread");
    assert!(commands["resolve_command"].is_string(), "{commands}");
    assert!(
        commands["resolve_condition"]
            .as_str()
            .unwrap()
            .starts_with("Run only after the fix for this thread is verified"),
    );
    if flavor == Flavor::GitHub {
        assert_eq!(
            first["reactions"],
            json!({"total_count": 3, "+1": 2, "-1": 0, "laugh": 0, "hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 1})
        );
        assert_eq!(first["is_bot"], true);
        let ghost_item = &items[0];
        assert_eq!(ghost_item["author"], "ghost");
        assert_eq!(ghost_item["is_bot"], false);
        let file_level = &items[5];
        assert_eq!(file_level["file_path"], "docs/guide.md");
        assert!(file_level.get("line_number").is_none(), "{file_level}");
        let multi = &items[6];
        assert_eq!(
            (
                multi["start_line"].clone(),
                multi["line_number"].clone(),
                multi["side"].clone()
            ),
            (json!(10), json!(14), json!("RIGHT"))
        );
        let outdated = &items[7];
        assert_eq!(outdated["is_outdated"], true);
        assert_eq!(outdated["thread_id"], "PRRT_mixed_outdated");
        // Its line is gone from the head; the line in the original diff says where it was.
        assert_eq!(
            (
                outdated["line_number"].clone(),
                outdated["line_is_original"].clone()
            ),
            (json!(3), json!(true))
        );
        assert!(multi.get("line_is_original").is_none(), "{multi}");
    }
    assert!(
        out.text.starts_with("10 unresolved item(s) on "),
        "{}",
        out.text
    );
    fx.no_violations();
}

async fn filters_and_sorts(flavor: Flavor) {
    let fx = mixed(flavor).await;
    let pr = fx.pr("acme/widgets", 12);
    let items = |out: ToolOutput| idents(out.structured["comments"].as_array().unwrap());
    // Case-insensitive, and "name" also matches GitHub's "name[bot]".
    let out = fx
        .find(json!({"pr": pr, "exclude_authors": ["ALICE", "CodeRabbitAI"]}))
        .await;
    assert_eq!(items(out.clone()), vec![rc(9008), rc(9002)]);
    assert_eq!(out.structured["summary"]["total_comments"], 2);
    // The reply keeps its thread's commands when the thread's first comment is filtered out.
    assert!(out.structured["comments"][1]["action_commands"].is_object());

    let out = fx.find(json!({"pr": pr, "include_bots": false})).await;
    match flavor {
        // GitHub reports coderabbitai[bot] as a Bot account.
        Flavor::GitHub => assert_eq!(
            items(out),
            vec![rc(9008), rc(9002), rc(9003), rc(9006), rv(502), ic(8002)]
        ),
        // Gitea's API has no account type: only its Actions user is a bot.
        Flavor::Forgejo => assert_eq!(items(out).len(), 10),
    }

    if flavor == Flavor::Forgejo {
        let out = fx.find(json!({"pr": pr, "sort": "by_file"})).await;
        assert_eq!(
            items(out),
            vec![
                rc(9006),
                rc(9003),
                rc(9001),
                rc(9002),
                rc(9010),
                rc(9008),
                ic(8001),
                rv(501),
                rv(502),
                ic(8002)
            ]
        );
        let out = fx.find(json!({"pr": pr, "sort": "by_author"})).await;
        assert_eq!(
            items(out),
            vec![
                rc(9003),
                rc(9006),
                rc(9010),
                rv(502),
                ic(8002),
                ic(8001),
                rc(9001),
                rc(9002),
                rv(501),
                rc(9008)
            ]
        );
    } else {
        let out = fx.find(json!({"pr": pr, "sort": "by_file"})).await;
        assert_eq!(
            items(out),
            vec![
                rc(9006),
                rc(9007),
                rc(9003),
                rc(9001),
                rc(9002),
                rc(9008),
                ic(8001),
                rv(501),
                rv(502),
                ic(8002)
            ]
        );
    }
}

#[allow(clippy::print_stdout, reason = "reports the cost it measures")]
async fn over_100_threads_come_out_whole(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("threads_over_100", "ghp_write"),
        Flavor::Forgejo => ("threads_over_100_forgejo", "fj_write"),
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let pr = fx.pr("acme/busy", 1);
    fx.sim.clear_requests();
    let first = fx.find(json!({"pr": pr})).await;
    let first_requests = fx.sim.requests().len();
    let first_bytes = serde_json::to_string(&first.structured).unwrap().len();
    let walk = fx.walk(json!({"pr": pr})).await;
    println!(
        "[{flavor:?}] {scenario}: first page {first_requests} requests, {first_bytes} bytes; \
         full walk {} pages, {} requests, {} bytes",
        walk.pages.len(),
        walk.requests,
        walk.bytes
    );
    // The long thread (1 + 130 replies) and the 75 unresolved generated threads (even n).
    assert_eq!(walk.items.len(), 131 + 75);
    assert_eq!(walk.pages.len(), 11);
    for page in &walk.pages {
        assert_eq!(page["total_unresolved"], 206);
        assert_eq!(page["unresolved_threads"], 76);
        assert_eq!(page["summary"]["total_comments"], 206);
    }
    let ids: Vec<u64> = walk
        .items
        .iter()
        .map(|i| i["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 206, "no repeats");
    // The long thread comes first, whole and in order, its commands on each page's first.
    let long: Vec<&Value> = walk.items[..131].iter().collect();
    assert_eq!(long[0]["body"], "Let's discuss this at length.");
    for (n, item) in long[1..].iter().enumerate() {
        assert_eq!(item["body"], format!("Reply {} of 130", n + 1));
        assert_eq!(item["thread_id"], long[0]["thread_id"]);
    }
    let findings: Vec<String> = walk.items[131..]
        .iter()
        .map(|i| i["body"].as_str().unwrap().to_owned())
        .collect();
    let want: Vec<String> = (1..=150)
        .filter(|n| n % 2 == 0)
        .map(|n| format!("Finding {n} of 150"))
        .collect();
    assert_eq!(findings, want);
    for page in &walk.pages {
        let items = page["comments"].as_array().unwrap();
        assert!(
            items[0]["action_commands"].is_object(),
            "each page carries its threads' commands"
        );
    }
    fx.no_violations();
}

async fn empty_pull_request_is_an_empty_list(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("no_comments", "ghp_write"),
        Flavor::Forgejo => ("no_comments_forgejo", "fj_write"),
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let out = fx.find(json!({"pr": fx.pr("acme/quiet", 1)})).await;
    let o = out.structured;
    assert_eq!(o["comments"], json!([]));
    assert_eq!(o["total_unresolved"], 0);
    assert_eq!(
        o["summary"],
        json!({"total_comments": 0, "by_author": {}, "by_type": {"review_comment": 0, "review": 0, "issue_comment": 0},
               "bot_comments": 0, "human_comments": 0, "with_reactions": 0, "minimized": 0})
    );
    let e = fx
        .call(
            "find_unresolved_comments",
            json!({"pr": fx.pr("acme/quiet", 99)}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    assert!(e.error.contains("not found"), "{}", e.error);
}

async fn resolving_removes_the_thread_and_is_idempotent(flavor: Flavor) {
    let fx = mixed(flavor).await;
    let pr = fx.pr("acme/widgets", 12);
    let thread = thread_of(flavor, 9003);
    let out = fx
        .call(
            "resolve_review_thread",
            json!({"pr": pr, "thread_id": thread}),
        )
        .await
        .expect("resolved");
    let o = &out.structured;
    assert_eq!(
        (
            o["was_resolved"].clone(),
            o["is_resolved"].clone(),
            o["changed"].clone()
        ),
        (json!(false), json!(true), json!(true))
    );
    assert_eq!(o["thread_id"], json!(thread));
    let listed = fx.find(json!({"pr": pr})).await;
    let ids = idents(listed.structured["comments"].as_array().unwrap());
    assert!(!ids.contains(&rc(9003)));
    assert_eq!(listed.structured["total_unresolved"], 9);

    // Again, by a comment id this time: nothing changes, and no write is made.
    let writes = fx.writes();
    let again = fx
        .call(
            "resolve_review_thread",
            json!({"pr": pr, "comment_id": 9003}),
        )
        .await
        .expect("idempotent");
    assert_eq!(again.structured["changed"], false);
    assert_eq!(again.structured["is_resolved"], true);
    assert!(
        again.structured["note"]
            .as_str()
            .unwrap()
            .contains("already resolved")
    );
    assert_eq!(fx.writes(), writes);

    let back = fx
        .call(
            "unresolve_review_thread",
            json!({"pr": pr, "thread_id": thread}),
        )
        .await
        .expect("unresolved");
    assert_eq!(back.structured["is_resolved"], false);
    let listed = fx.find(json!({"pr": pr})).await;
    assert!(idents(listed.structured["comments"].as_array().unwrap()).contains(&rc(9003)));

    // A resolved thread can be unresolved by comment id too.
    let out = fx
        .call(
            "unresolve_review_thread",
            json!({"pr": pr, "thread_id": thread_of(flavor, 9004)}),
        )
        .await
        .expect("unresolved");
    assert_eq!(out.structured["changed"], true);

    // A thread of PR #13 is refused on #12, and nothing is written.
    let writes = fx.writes();
    let e = fx
        .call(
            "resolve_review_thread",
            json!({"pr": pr, "thread_id": thread_of(flavor, 9101)}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    let e = fx
        .call(
            "reply_to_review_thread",
            json!({"pr": pr, "thread_id": thread_of(flavor, 9101), "body": "hi"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    let e = fx
        .call(
            "resolve_review_thread",
            json!({"pr": pr, "comment_id": 9101}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    assert_eq!(fx.writes(), writes);
    fx.no_violations();
}

async fn reply_lands_in_the_thread(flavor: Flavor) {
    let fx = mixed(flavor).await;
    let pr = fx.pr("acme/widgets", 12);
    let body = "Fixed in `1a2b3c`; it's $(not run).";
    let out = fx
        .call(
            "reply_to_review_thread",
            json!({"pr": pr, "comment_id": 9003, "body": body}),
        )
        .await
        .expect("replied");
    let c = &out.structured["comment"];
    assert_eq!(c["body"], body);
    assert_eq!(c["author"], "alice");
    assert_eq!(c["type"], "review_comment");
    assert_eq!(out.structured["thread_id"], json!(thread_of(flavor, 9003)));
    let listed = fx.find(json!({"pr": pr})).await;
    let items = listed.structured["comments"].as_array().unwrap().clone();
    let at = items.iter().position(|i| i["id"] == 9003).unwrap();
    assert_eq!(
        items[at + 1]["id"],
        c["id"],
        "the reply follows its thread's first comment"
    );
    assert_eq!(items[at + 1]["in_reply_to_id"], 9003);
}

async fn bad_input_is_refused_before_any_request(flavor: Flavor) {
    let fx = mixed(flavor).await;
    let pr = fx.pr("acme/widgets", 12);
    for (tool, args, problems) in [
        (
            "reply_to_review_thread",
            json!({"pr": "nope", "body": " "}),
            3,
        ),
        (
            "reply_to_review_thread",
            json!({"pr": pr, "thread_id": "x", "comment_id": 1, "body": "hi"}),
            1,
        ),
        (
            "resolve_review_thread",
            json!({"pr": pr, "thread_id": " "}),
            1,
        ),
        (
            "unresolve_review_thread",
            json!({"pr": pr, "comment_id": -3}),
            1,
        ),
        (
            "find_unresolved_comments",
            json!({"pr": "acme/widgets", "exclude_authors": [""]}),
            2,
        ),
    ] {
        let e = fx.call(tool, args.clone()).await.unwrap_err();
        assert_eq!(e.category, Category::User, "{args}: {e:?}");
        let n = e.details.as_ref().unwrap()["problems"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(n, problems, "{args}: {e:?}");
    }
    for (tool, args) in [
        (
            "find_unresolved_comments",
            json!({"pr": pr, "sort": "by_size"}),
        ),
        (
            "find_unresolved_comments",
            json!({"pr": pr, "cursor": "forged"}),
        ),
        (
            "resolve_review_thread",
            json!({"pr": pr, "thread_id": "x", "resolved": true}),
        ),
    ] {
        let e = fx.call(tool, args.clone()).await.unwrap_err();
        assert_eq!(e.category, Category::User, "{args}: {e:?}");
    }
    assert!(fx.sim.requests().is_empty(), "{:?}", fx.sim.requests());
}

/// Runs a command line in bash with `dir` first on PATH and `vars` set. Async, so the
/// simulator (on this test's runtime) keeps answering while the command talks to it.
async fn run_shell(line: &str, dir: &Path, vars: &[(&str, String)]) -> String {
    use std::process::Stdio;
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = tokio::process::Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-c", line])
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_secs(30), cmd.output())
        .await
        .expect("the command finishes")
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{line}\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A stand-in for `gh api`: forwards `graphql -f query=… -f k=v` to the simulator's GraphQL
/// endpoint and `--method M PATH --input -` to its REST API, as gh does.
const FAKE_GH: &str = r#"#!/usr/bin/env python3
import json, os, sys, urllib.request
args = sys.argv[1:]
assert args.pop(0) == "api", sys.argv
method, fields, path, stdin_body = "GET", {}, None, False
while args:
    a = args.pop(0)
    if a == "--hostname":
        assert args.pop(0) == os.environ["FAKE_GH_HOST"]
    elif a == "--method":
        method = args.pop(0)
    elif a == "-f":
        k, v = args.pop(0).split("=", 1)
        fields[k] = v
    elif a == "--input":
        assert args.pop(0) == "-"
        stdin_body = True
    else:
        assert path is None, sys.argv
        path = a
if path == "graphql":
    url, method = os.environ["FAKE_GH_GRAPHQL"], "POST"
    body = {"query": fields.pop("query"), "variables": fields}
else:
    url = os.environ["FAKE_GH_API"] + "/" + path
    body = json.load(sys.stdin) if stdin_body else None
req = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None,
    headers={"Authorization": "token " + os.environ["GH_TOKEN"], "Content-Type": "application/json"})
with urllib.request.urlopen(req) as r:
    out = r.read().decode()
    if path == "graphql" and json.loads(out).get("errors"):
        sys.exit("graphql errors: " + out)
    sys.stdout.write(out)
"#;

async fn emitted_commands_work_when_run(flavor: Flavor) {
    let fx = mixed(flavor).await;
    let pr = fx.pr("acme/widgets", 12);
    let dir = std::env::temp_dir().join(format!(
        "resolve-pr-fake-gh-{}-{flavor:?}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let gh = dir.join("gh");
    resolve_pr_testkit::write_script(&gh, FAKE_GH);
    let base = fx.sim.base_url();
    let vars = vec![
        ("GH_TOKEN", fx.token.clone()),
        ("FORGEJO_TOKEN", fx.token.clone()),
        ("FAKE_GH_API", base.clone()),
        (
            "FAKE_GH_GRAPHQL",
            resolve_pr_forge::config::derive_graphql_url(&base),
        ),
        (
            "FAKE_GH_HOST",
            base.trim_start_matches("http://").to_owned(),
        ),
    ];
    let listed = fx.find(json!({"pr": pr})).await;
    let items = listed.structured["comments"].as_array().unwrap().clone();
    let first = items.iter().find(|i| i["id"] == 9003).unwrap();
    let commands = &first["action_commands"];

    // Every command parses back to an argument vector naming this PR and thread.
    let reply = commands["reply_command"].as_str().unwrap();
    let argv = shlex::split(reply).unwrap();
    assert!(
        argv.iter()
            .any(|a| a.ends_with("/pulls/12/comments/9003/replies")),
        "{argv:?}"
    );
    let resolve = commands["resolve_command"].as_str().unwrap();
    let argv = shlex::split(resolve).unwrap();
    match flavor {
        Flavor::GitHub => assert_eq!(argv.last().unwrap(), "id=PRRT_mixed_multiline"),
        Flavor::Forgejo => assert!(
            argv.last()
                .unwrap()
                .ends_with("/pulls/comments/9003/resolve")
        ),
    }

    // Reply, with hostile text, through a quoted here-document.
    let text = "Done: it's `fixed` $(echo not run) \"quoted\"\nsecond line";
    let payload = serde_json::to_string(&json!({"body": text})).unwrap();
    run_shell(&format!("{reply} <<'EOF'\n{payload}\nEOF"), &dir, &vars).await;
    // Resolve.
    run_shell(resolve, &dir, &vars).await;

    let after = fx.find(json!({"pr": pr})).await;
    let ids = idents(after.structured["comments"].as_array().unwrap());
    assert!(
        !ids.contains(&rc(9003)),
        "the resolve command resolved the thread"
    );
    let thread = fx
        .call(
            "unresolve_review_thread",
            json!({"pr": pr, "comment_id": 9003}),
        )
        .await
        .expect("unresolved");
    assert_eq!(thread.structured["was_resolved"], true);
    let again = fx.find(json!({"pr": pr})).await;
    let items = again.structured["comments"].as_array().unwrap().clone();
    let at = items.iter().position(|i| i["id"] == 9003).unwrap();
    assert_eq!(items[at + 1]["body"], text, "the reply arrived verbatim");

    // Conversation items reply in the conversation.
    let review = items.iter().find(|i| i["id"] == 502).unwrap();
    let line = review["action_commands"]["reply_command"].as_str().unwrap();
    run_shell(
        &format!("{line} <<'EOF'\n{{\"body\": \"On it.\"}}\nEOF"),
        &dir,
        &vars,
    )
    .await;
    let _ = std::fs::remove_dir_all(&dir);
    fx.no_violations();
}

on_both_forges!(
    mixed_items_are_exactly_the_feedback,
    filters_and_sorts,
    over_100_threads_come_out_whole,
    empty_pull_request_is_an_empty_list,
    resolving_removes_the_thread_and_is_idempotent,
    reply_lands_in_the_thread,
    bad_input_is_refused_before_any_request,
    emitted_commands_work_when_run,
);

#[tokio::test]
async fn forgejo_without_the_endpoints_says_so() {
    let fx = Fixture::start(Flavor::Forgejo, "threads_mixed_forgejo", "fj_write").await;
    let pr = fx.pr("acme/widgets", 12);
    let out = fx.find(json!({"pr": pr})).await;
    assert!(
        out.structured["limitations"]
            .as_str()
            .unwrap()
            .contains("Gitea 1.26.0")
    );
    let first = &out.structured["comments"][0];
    assert!(first["action_commands"].get("resolve_command").is_none());
    assert_eq!(first["action_commands"]["reply_target"], "conversation");
    for (tool, args) in [
        (
            "resolve_review_thread",
            json!({"pr": pr, "comment_id": 9003}),
        ),
        (
            "reply_to_review_thread",
            json!({"pr": pr, "comment_id": 9003, "body": "hi"}),
        ),
    ] {
        let e = fx.call(tool, args).await.unwrap_err();
        assert_eq!(e.category, Category::Logical, "{tool}: {e:?}");
    }
}

/// Pages are keyset-based: resolving a thread and adding a reply between page 1 and the
/// rest neither skips nor repeats any item that existed at the first call.
#[tokio::test]
async fn pages_stay_put_while_threads_change() {
    let fx = Fixture::start(Flavor::GitHub, "threads_over_100", "ghp_write").await;
    let pr = fx.pr("acme/busy", 1);
    let all = fx.walk(json!({"pr": pr})).await.items;
    let first = fx.find(json!({"pr": pr})).await;
    let page1 = first.structured["comments"].as_array().unwrap().clone();
    let cursor = first.structured["nextCursor"].as_str().unwrap().to_owned();
    // Resolve a thread from a later page, and reply in another later one.
    let gone = all[150]["thread_id"].as_str().unwrap().to_owned();
    let replied = all[160]["thread_id"].as_str().unwrap().to_owned();
    fx.call(
        "resolve_review_thread",
        json!({"pr": pr, "thread_id": gone}),
    )
    .await
    .expect("resolved");
    let reply = fx
        .call(
            "reply_to_review_thread",
            json!({"pr": pr, "thread_id": replied, "body": "late"}),
        )
        .await
        .expect("replied");
    let mut rest = fx.walk(json!({"pr": pr, "cursor": cursor})).await.items;
    let mut seen = page1.clone();
    seen.append(&mut rest);
    let seen_ids = idents(&seen);
    assert_eq!(
        seen_ids.iter().collect::<HashSet<_>>().len(),
        seen_ids.len(),
        "no repeats"
    );
    let want: Vec<(String, u64)> = all
        .iter()
        .filter(|i| i["thread_id"] != json!(gone))
        .map(ident)
        .collect();
    let new_id = reply.structured["comment"]["id"].as_u64().unwrap();
    let without_new: Vec<(String, u64)> =
        seen_ids.iter().filter(|i| i.1 != new_id).cloned().collect();
    assert_eq!(without_new, want, "every earlier item once, in order");
    assert!(
        seen_ids.contains(&rc(new_id)),
        "a reply on a later page shows up"
    );
}

/// Sums the GraphQL points of a request log (GitHub's published rule, as the simulator
/// prices each query).
fn points(requests: &[resolve_pr_forge_sim::RecordedRequest]) -> u32 {
    requests.iter().filter_map(|r| r.graphql_points).sum()
}

/// The cost of reading feedback, asserted rather than printed. On the 150-thread PR (151
/// threads, one of 131 comments, 281 reviews) a whole walk used to cost 99 requests and
/// 2,233 GraphQL points, every page reading everything again, reactions under 100 threads x
/// 100 comments at 101 points a page of threads; then a cold read of 7 requests, one per
/// list page, long thread and 100 reactions. Now: one cold read of 3 requests of 1 point,
/// each a round trip: the first page of everything; the second page of threads and of
/// reviews, the long thread's last 31 comments and the reactions of the first page's open
/// threads together; the third page of reviews and the remaining reactions together. Then
/// each page revalidates the process's snapshot with 2 requests of 1 point (151 threads = 2
/// pages).
#[tokio::test]
async fn a_walk_through_one_process_costs_few_requests_and_points() {
    let fx = Fixture::start(Flavor::GitHub, "threads_over_100", "ghp_write").await;
    let pr = fx.pr("acme/busy", 1);
    fx.sim.clear_requests();
    let first = fx.find(json!({"pr": pr})).await;
    let cold = fx.sim.requests();
    assert_eq!((cold.len(), points(&cold)), (3, 3), "{cold:#?}");

    fx.sim.clear_requests();
    let mut cursor = first.structured["nextCursor"].as_str().map(str::to_owned);
    let mut pages = 1;
    while let Some(c) = cursor {
        let before = fx.sim.requests().len();
        let out = fx.find(json!({"pr": pr, "cursor": c})).await;
        let page = &fx.sim.requests()[before..];
        assert_eq!(
            (page.len(), points(page)),
            (2, 2),
            "page {}: {page:#?}",
            pages + 1
        );
        cursor = out.structured["nextCursor"].as_str().map(str::to_owned);
        pages += 1;
    }
    assert_eq!(pages, 11);
    let rest = fx.sim.requests();
    let (requests, spent) = (cold.len() + rest.len(), points(&cold) + points(&rest));
    assert_eq!((requests, spent), (23, 23));
    // The floor of issue 8: at most 40 requests, at most a tenth of the points of before.
    assert!(
        requests <= 40 && spent * 10 <= 2233,
        "{requests} requests, {spent} points"
    );
    fx.no_violations();
}

/// A small pull request's first page, in a fresh process: one request for everything and
/// one for the reactions of the comments it lists.
#[tokio::test]
async fn a_cold_first_page_takes_two_requests() {
    let fx = mixed(Flavor::GitHub).await;
    let out = fx.find(json!({"pr": fx.pr("acme/widgets", 12)})).await;
    assert_eq!(out.structured["total_unresolved"], 10);
    let log = fx.sim.requests();
    assert_eq!((log.len(), points(&log)), (2, 2), "{log:#?}");
    fx.no_violations();
}

/// The snapshot a process keeps is revalidated before every reuse: a thread resolved by
/// someone else (another process) between two pages is gone from the next page, although
/// resolving does not change the pull request's `updatedAt`; a reply posted elsewhere shows.
#[tokio::test]
async fn changes_made_elsewhere_between_pages_show_on_the_next_page() {
    let fx = Fixture::start(Flavor::GitHub, "threads_over_100", "ghp_write").await;
    let pr = fx.pr("acme/busy", 1);
    let all = fx.walk(json!({"pr": pr})).await.items;
    // Threads on the last page (the newest two).
    let gone = all[all.len() - 1]["thread_id"].as_str().unwrap().to_owned();
    let replied = all[all.len() - 2]["thread_id"].as_str().unwrap().to_owned();
    let other = common::context(Flavor::GitHub, &fx.sim, "ghp_write", [42; 32]);
    let next_page = |from: &ToolOutput| from.structured["nextCursor"].as_str().unwrap().to_owned();

    let page1 = fx.find(json!({"pr": pr})).await;
    call(
        &other,
        "resolve_review_thread",
        json!({"pr": pr, "thread_id": gone}),
    )
    .await
    .expect("resolved elsewhere");
    let rest = fx
        .walk(json!({"pr": pr, "cursor": next_page(&page1)}))
        .await;
    assert!(
        rest.items.iter().all(|i| i["thread_id"] != json!(gone)),
        "the thread resolved elsewhere is gone"
    );
    assert_eq!(rest.pages[0]["total_unresolved"], 205);

    let page1 = fx.find(json!({"pr": pr})).await;
    let reply = call(
        &other,
        "reply_to_review_thread",
        json!({"pr": pr, "thread_id": replied, "body": "answered elsewhere"}),
    )
    .await
    .expect("replied elsewhere");
    let new_id = reply.structured["comment"]["id"].clone();
    let rest = fx
        .walk(json!({"pr": pr, "cursor": next_page(&page1)}))
        .await;
    assert!(
        rest.items.iter().any(|i| i["id"] == new_id),
        "the reply posted elsewhere shows"
    );
    assert_eq!(rest.pages[0]["total_unresolved"], 206);
    fx.no_violations();
}
