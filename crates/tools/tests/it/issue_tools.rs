//! The issue tools and the comment edit tools against the simulated forges: listing with each
//! filter and cursors across forge pages (pull requests never listed), an issue comment created
//! and listed, edits of one's own comment, and every refusal writing nothing: another author's
//! comment, a comment of another issue, a pull request's number for an issue and the other way
//! round, an unchanged body, bad input (before any request).

use crate::common;

use resolve_pr_core::{Category, Error};
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
    async fn start(flavor: Flavor) -> Fixture {
        let (scenario, token) = match flavor {
            Flavor::GitHub => ("issues_github", "ghp_alice"),
            Flavor::Forgejo => ("issues_forgejo", "fj_alice"),
        };
        Fixture::start_with(flavor, &common::scenario_text(scenario), token).await
    }

    async fn start_with(flavor: Flavor, yaml: &str, token: &str) -> Fixture {
        let sim = Sim::start(common::scenario(yaml))
            .await
            .expect("simulator starts");
        let ctx = common::context(flavor, &sim, token, [7; 32]);
        Fixture { sim, ctx, flavor }
    }

    fn repository(&self) -> String {
        match self.flavor {
            Flavor::GitHub => "acme/tracker".to_owned(),
            Flavor::Forgejo => format!("{}/acme/tracker", self.sim.base_url()),
        }
    }

    async fn call(&self, tool: &str, mut args: Value) -> Result<ToolOutput, Error> {
        if args.get("repository").is_none() {
            args["repository"] = json!(self.repository());
        }
        call(&self.ctx, tool, args).await
    }

    /// Requests made by `f`, counted on the simulator.
    fn requests(&self) -> Vec<String> {
        self.sim
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect()
    }

    fn writes(&self) -> usize {
        self.sim
            .requests()
            .iter()
            .filter(|r| r.method != "GET")
            .count()
    }

    fn assert_no_violations(&self) {
        let v = self.sim.contract_violations();
        assert!(v.is_empty(), "{v:?}");
    }
}

fn numbers(out: &ToolOutput) -> Vec<u64> {
    out.structured["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| i["number"].as_u64().expect("number"))
        .collect()
}

/// Every page of `issue_list` with `args`, and how many requests each page cost.
async fn walk(fx: &Fixture, args: Value) -> (Vec<u64>, Vec<usize>) {
    let mut seen = Vec::new();
    let mut costs = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..50 {
        let mut a = args.clone();
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        fx.sim.clear_requests();
        let out = fx.call("issue_list", a).await.expect("page");
        costs.push(fx.sim.requests().len());
        let page = numbers(&out);
        assert!(page.len() <= 20, "{page:?}");
        seen.extend(page);
        match out.structured.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => return (seen, costs),
        }
    }
    panic!("pagination does not end");
}

fn is_pull(n: u64) -> bool {
    n.is_multiple_of(5)
}

async fn lists_issues_with_each_filter(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    // Open issues: 24 issues, three closed; pull requests (every fifth number) never listed.
    let (open, costs) = walk(&fx, json!({})).await;
    let expected: Vec<u64> = (1..=30)
        .rev()
        .filter(|&n| !is_pull(n) && ![2, 9, 14].contains(&n))
        .collect();
    assert_eq!(open, expected);
    assert_eq!(costs, vec![1, 1], "one request a page on both forges");

    let first = fx.call("issue_list", json!({})).await.expect("first page");
    let issue = &first.structured["issues"][0];
    assert_eq!(issue["number"], 29);
    assert_eq!(issue["title"], "Issue 29");
    assert_eq!(issue["state"], "open");
    assert_eq!(issue["author"], "bob");
    assert_eq!(issue["comments"], 0);
    assert_eq!(issue["created_at"], "2024-05-29T09:00:00Z");
    assert!(
        issue["html_url"]
            .as_str()
            .expect("url")
            .ends_with("/acme/tracker/issues/29"),
        "{issue}"
    );
    assert!(
        first.text.contains("#29 (open) Issue 29 by bob"),
        "{}",
        first.text
    );

    let (closed, _) = walk(&fx, json!({"state": "closed"})).await;
    assert_eq!(closed, vec![14, 9, 2]);
    let (all, _) = walk(&fx, json!({"state": "all"})).await;
    assert_eq!(all.len(), 24);
    assert!(all.iter().all(|&n| !is_pull(n)));

    let (bugs, _) = walk(&fx, json!({"state": "all", "labels": ["bug"]})).await;
    assert_eq!(
        bugs,
        vec![27, 24, 21, 18, 12, 9, 6, 3],
        "pull requests labelled bug left out"
    );
    let (both, _) = walk(
        &fx,
        json!({"state": "all", "labels": ["bug", "good first issue"]}),
    )
    .await;
    assert_eq!(both, vec![24, 12], "every label must match");
    let (alice, _) = walk(&fx, json!({"author": "alice"})).await;
    assert_eq!(alice, vec![28, 26, 24, 22, 18, 16, 12, 8, 6, 4]);
    let with_comments = walk(&fx, json!({"author": "bob", "labels": ["bug"]}))
        .await
        .0;
    assert_eq!(with_comments, vec![27, 21, 3]);
    fx.assert_no_violations();
}

/// 148 issues and 112 pull requests: GitHub pages issues and pull requests together (100 a
/// page), Forgejo/Gitea leave pull requests out (50 a page); every issue comes once, newest
/// first, whichever forge pages our pages cross.
async fn walks_across_forge_pages(flavor: Flavor) {
    let mut yaml = String::from(match flavor {
        Flavor::GitHub => "forge: github\n",
        Flavor::Forgejo => "forge: forgejo\nversion: \"11.0.1+gitea-1.22.0\"\n",
    });
    yaml.push_str(
        "now: \"2024-06-01T12:00:00Z\"\ntokens:\n  - {token: t, login: alice, permission: write}\n\
         repos:\n  - owner: acme\n    name: tracker\n    pulls:\n",
    );
    let is_pr = |n: u64| n % 7 < 3;
    let created = |n: u64| format!("2024-01-01T{:02}:{:02}:00Z", n / 60, n % 60);
    for n in (1..=260).filter(|&n| is_pr(n)) {
        yaml.push_str(&format!(
            "      - {{number: {n}, title: p{n}, author: bob, created_at: \"{}\", \
             head: {{ref: b{n}, sha: {a}}}, base: {{ref: main, sha: {a}}}}}\n",
            created(n),
            a = "a".repeat(40)
        ));
    }
    yaml.push_str("    issues:\n");
    for n in (1..=260).filter(|&n| !is_pr(n)) {
        yaml.push_str(&format!(
            "      - {{number: {n}, title: i{n}, author: alice, created_at: \"{}\"}}\n",
            created(n)
        ));
    }
    let fx = Fixture::start_with(flavor, &yaml, "t").await;
    let (seen, costs) = walk(&fx, json!({})).await;
    let expected: Vec<u64> = (1..=260).rev().filter(|&n| !is_pr(n)).collect();
    assert_eq!(seen.len(), expected.len());
    assert_eq!(seen, expected);
    assert!(costs.iter().all(|&c| c <= 3), "{costs:?}");
    fx.assert_no_violations();
}

async fn created_issue_comment_is_listed(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let body = "Reproduced with `--no-cache`; $(not a command).";
    let created = fx
        .call(
            "issue_comment_create",
            json!({"issue_number": 3, "comment": body}),
        )
        .await
        .expect("created");
    let comment = &created.structured["comment"];
    assert_eq!(comment["body"], body);
    assert_eq!(comment["user"], "alice");
    let issue = created.structured["issue"].as_str().expect("issue");
    assert!(
        issue == "acme/tracker#3" || issue.ends_with("/acme/tracker/issues/3"),
        "{issue}"
    );
    let listed = fx
        .call("issue_comment_list", json!({"issue_number": 3}))
        .await
        .expect("list");
    let ids: Vec<u64> = listed.structured["comments"]
        .as_array()
        .expect("comments")
        .iter()
        .map(|c| c["id"].as_u64().expect("id"))
        .collect();
    assert_eq!(ids[..2], [301, 302]);
    assert_eq!(ids.last().copied(), comment["id"].as_u64());
    assert_eq!(fx.writes(), 1);
    fx.assert_no_violations();
}

async fn edits_own_comment(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let out = fx
        .call(
            "issue_comment_edit",
            json!({"issue_number": 3, "comment_id": 301, "body": "It is the cache (fixed)."}),
        )
        .await
        .expect("edited");
    assert_eq!(out.structured["unchanged"], false);
    assert_eq!(
        out.structured["comment"]["body"],
        "It is the cache (fixed)."
    );
    assert_eq!(out.structured["comment"]["id"], 301);
    let requests = fx.requests();
    assert_eq!(
        requests.len(),
        4,
        "comment, issue, account, edit: {requests:?}"
    );
    assert_eq!(fx.writes(), 1);
    let listed = fx
        .call("issue_comment_list", json!({"issue_number": 3}))
        .await
        .expect("list");
    assert_eq!(
        listed.structured["comments"][0]["body"],
        "It is the cache (fixed)."
    );

    // On a pull request; the account is known by now: one request fewer.
    fx.sim.clear_requests();
    let out = fx
        .call(
            "pr_comment_edit",
            json!({"pull_request_number": 5, "comment_id": 501, "body": "Rebased on main again."}),
        )
        .await
        .expect("edited");
    let pr = out.structured["pr"].as_str().expect("pr");
    assert!(
        pr == "acme/tracker#5" || pr.ends_with("/acme/tracker/pulls/5"),
        "{pr}"
    );
    assert_eq!(out.structured["comment"]["body"], "Rebased on main again.");
    assert_eq!(fx.requests().len(), 3, "{:?}", fx.requests());
    assert_eq!(fx.writes(), 1);
    fx.assert_no_violations();
}

async fn unchanged_body_writes_nothing(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let out = fx
        .call(
            "issue_comment_edit",
            json!({"issue_number": 4, "comment_id": 401, "body": "Duplicate of #3?"}),
        )
        .await
        .expect("unchanged");
    assert_eq!(out.structured["unchanged"], true);
    assert!(out.text.contains("unchanged"), "{}", out.text);
    assert_eq!(fx.writes(), 0);
}

async fn refuses_another_authors_comment(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    for (tool, args) in [
        (
            "issue_comment_edit",
            json!({"issue_number": 3, "comment_id": 302, "body": "mine now"}),
        ),
        (
            "pr_comment_edit",
            json!({"pull_request_number": 5, "comment_id": 502, "body": "mine"}),
        ),
    ] {
        let e = fx.call(tool, args).await.unwrap_err();
        assert_eq!(e.category, Category::User, "{e:?}");
        assert!(
            e.error.contains("written by bob, not by alice"),
            "{}",
            e.error
        );
    }
    assert_eq!(fx.writes(), 0);
}

async fn refuses_a_comment_of_another_conversation(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let e = fx
        .call(
            "issue_comment_edit",
            json!({"issue_number": 3, "comment_id": 401, "body": "x"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    assert!(e.error.contains("comment 401 is on #4"), "{}", e.error);
    // A pull request's comment id given with another pull request... and an issue's.
    let e = fx
        .call(
            "pr_comment_edit",
            json!({"pull_request_number": 10, "comment_id": 501, "body": "x"}),
        )
        .await
        .unwrap_err();
    assert!(e.error.contains("comment 501 is on #5"), "{}", e.error);
    // An id no conversation comment has.
    let e = fx
        .call(
            "issue_comment_edit",
            json!({"issue_number": 3, "comment_id": 999_999, "body": "x"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e.category, Category::User, "{e:?}");
    assert_eq!(fx.writes(), 0);
}

async fn pull_request_numbers_and_issue_numbers_do_not_mix(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    for (tool, args) in [
        (
            "issue_comment_create",
            json!({"issue_number": 5, "comment": "hi"}),
        ),
        ("issue_comment_list", json!({"issue_number": 5})),
        (
            "issue_comment_edit",
            json!({"issue_number": 5, "comment_id": 501, "body": "x"}),
        ),
    ] {
        let e = fx.call(tool, args).await.unwrap_err();
        assert_eq!(e.category, Category::User, "{tool}: {e:?}");
        assert!(
            e.error
                .contains("acme/tracker#5 is a pull request, not an issue"),
            "{}",
            e.error
        );
        assert!(
            e.suggestion
                .as_deref()
                .unwrap_or("")
                .contains("pr_comment_"),
            "{tool}: {e:?}"
        );
    }
    for (tool, args) in [
        (
            "pr_comment_create",
            json!({"pull_request_number": 3, "comment": "hi"}),
        ),
        ("pr_comment_list", json!({"pull_request_number": 3})),
        (
            "pr_comment_edit",
            json!({"pull_request_number": 3, "comment_id": 301, "body": "x"}),
        ),
    ] {
        let e = fx.call(tool, args).await.unwrap_err();
        assert_eq!(e.category, Category::User, "{tool}: {e:?}");
        assert!(e.error.contains("not found"), "{tool}: {}", e.error);
    }
    assert_eq!(fx.writes(), 0);
}

async fn bad_input_names_every_field_before_any_request(flavor: Flavor) {
    let fx = Fixture::start(flavor).await;
    let cases = [
        (
            "issue_list",
            json!({"repository": "not a repo", "labels": ["bug", " "], "author": "a b"}),
            vec![
                "repository must be in format",
                "labels[1] must not be empty",
                "author must be a login",
            ],
        ),
        (
            "issue_comment_edit",
            json!({"repository": "nope", "issue_number": 0, "comment_id": -1, "body": " "}),
            vec![
                "repository",
                "issue_number must be positive",
                "comment_id must be positive",
                "body must not be empty",
            ],
        ),
        (
            "pr_comment_edit",
            json!({"issue_number": 1, "pull_request_number": 1, "comment_id": 1, "body": "x"}),
            vec!["issue_number"],
        ),
        (
            "issue_comment_create",
            json!({"directory": "/", "repository": "acme/tracker", "issue_number": -2, "comment": ""}),
            vec![
                "not both",
                "issue_number must be positive",
                "comment must not be empty",
            ],
        ),
        ("issue_list", json!({"state": "merged"}), vec!["state"]),
    ];
    for (tool, args, wanted) in cases {
        let e = fx.call(tool, args.clone()).await.unwrap_err();
        assert_eq!(e.category, Category::User, "{tool} {args}: {e:?}");
        for w in wanted {
            assert!(e.error.contains(w), "{tool}: {w:?} not in {}", e.error);
        }
    }
    assert!(fx.sim.requests().is_empty(), "{:?}", fx.requests());
}

on_both_forges!(
    lists_issues_with_each_filter,
    walks_across_forge_pages,
    created_issue_comment_is_listed,
    edits_own_comment,
    unchanged_body_writes_nothing,
    refuses_another_authors_comment,
    refuses_a_comment_of_another_conversation,
    pull_request_numbers_and_issue_numbers_do_not_mix,
    bad_input_names_every_field_before_any_request,
);
