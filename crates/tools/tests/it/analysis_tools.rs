//! analyze_pr_impact and get_review_suggestions end to end against the simulated forges: the
//! same repository on GitHub and Forgejo (impact_*.yaml), a 40-file PR for the diff budget
//! (review_big_github.yaml), what each call costs in requests, and bad input.
#![allow(clippy::print_stdout)] // each test prints what the call cost

use crate::common;

use resolve_pr_core::Category;
use resolve_pr_forge_sim::{Sim, SimHandle};
use resolve_pr_tools::{Context, call};
use serde_json::{Value, json};

use common::Flavor;

async fn start(flavor: Flavor, scenario: &str) -> (SimHandle, Context) {
    let sim = Sim::start(common::scenario(scenario))
        .await
        .expect("simulator starts");
    let token = match flavor {
        Flavor::GitHub => "ghp_write",
        Flavor::Forgejo => "fj_write",
    };
    let ctx = common::context(flavor, &sim, token, [5; 32]);
    (sim, ctx)
}

fn pr(flavor: Flavor, sim: &SimHandle, n: u64) -> String {
    match flavor {
        Flavor::GitHub => format!("octo/app#{n}"),
        Flavor::Forgejo => format!("{}/octo/app/pulls/{n}", sim.base_url()),
    }
}

fn impact_scenario(flavor: Flavor) -> &'static str {
    match flavor {
        Flavor::GitHub => "impact_github",
        Flavor::Forgejo => "impact_forgejo",
    }
}

async fn impact_of_a_pr_across_areas(flavor: Flavor) {
    let (sim, ctx) = start(flavor, impact_scenario(flavor)).await;
    sim.clear_requests();
    let out = call(
        &ctx,
        "analyze_pr_impact",
        json!({"pr": pr(flavor, &sim, 7)}),
    )
    .await
    .expect("answers")
    .structured;
    let requests = sim.requests().len();
    println!("{flavor:?} analyze_pr_impact: {requests} requests");
    assert_eq!(out["changes"]["files_changed"], 12, "{out:#}");
    assert_eq!(out["changes"]["commits"], 3);
    let area = |name: &str| -> Value {
        out["impact_areas"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["category"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} area: {out:#}"))
    };
    assert_eq!(area("database")["risk_level"], "high");
    assert!(
        area("database")["reasons"]
            .to_string()
            .contains("migration"),
        "{:#}",
        area("database")
    );
    assert!(
        area("infrastructure")["files"][0]
            .as_str()
            .unwrap()
            .contains("workflows/ci.yml")
    );
    assert_eq!(out["overall_risk"], "high");

    let majors: Vec<&str> = out["dependency_updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["is_breaking"] == true)
        .map(|d| d["package"].as_str().unwrap())
        .collect();
    assert!(
        majors.contains(&"tokio") && majors.contains(&"react"),
        "{majors:?}"
    );
    let serde = out["dependency_updates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["package"] == "serde")
        .expect("serde updated");
    assert_eq!(
        (
            &serde["from_version"],
            &serde["to_version"],
            &serde["is_breaking"]
        ),
        (&json!("1.0.190"), &json!("1.0.200"), &json!(false))
    );
    // Lockfiles stand for their manifests: each package once.
    let tokio_entries = out["dependency_updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["package"] == "tokio")
        .count();
    assert_eq!(tokio_entries, 1);

    // Code owners first, each with the line that makes them one; the author never.
    let reviewers = out["suggested_reviewers"].as_array().unwrap();
    let names: Vec<&str> = reviewers
        .iter()
        .map(|r| r["username"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"alice"), "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with('@')), "{names:?}");
    assert_eq!(reviewers[0]["is_code_owner"], true);
    assert!(
        names.contains(&"bob") && names.contains(&"erin"),
        "{names:?}"
    );
    let erin = reviewers.iter().find(|r| r["username"] == "erin").unwrap();
    assert_eq!(erin["is_code_owner"], false);
    assert!(
        erin["reason"].as_str().unwrap().contains("committed"),
        "{erin:#}"
    );
    let required: Vec<&str> = out["required_reviewers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    for owner in ["bob", "carol", "dave"] {
        assert!(required.contains(&owner), "{required:?}");
    }

    // The two closed PRs that share files, with their outcome; nothing linked only by the root.
    let similar: Vec<(u64, &str)> = out["similar_prs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["number"].as_u64().unwrap(),
                s["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(similar.len(), 2, "{similar:?}");
    assert!(similar.contains(&(3, "merged")) && similar.contains(&(4, "closed")));
    assert!(out.get("files").is_none(), "summary by default");
    assert!(out.get("notes").is_none(), "everything was read: {out:#}");

    let detailed = call(
        &ctx,
        "analyze_pr_impact",
        json!({"pr": pr(flavor, &sim, 7), "depth": "detailed"}),
    )
    .await
    .expect("answers")
    .structured;
    assert_eq!(detailed["files"].as_array().unwrap().len(), 12);
    assert!(
        sim.contract_violations().is_empty(),
        "{:?}",
        sim.contract_violations()
    );
    // PR, files, commits, then code owners, history, closed PRs and manifests at both ends.
    // Forgejo/Gitea: one request per file's history and per closed PR's files.
    let ceiling = match flavor {
        Flavor::GitHub => 8,
        Flavor::Forgejo => 28,
    };
    assert!(requests <= ceiling, "{requests} requests");
}

async fn review_of_a_pr_with_breaking_changes(flavor: Flavor) {
    let (sim, ctx) = start(flavor, impact_scenario(flavor)).await;
    sim.clear_requests();
    let out = call(
        &ctx,
        "get_review_suggestions",
        json!({"pr": pr(flavor, &sim, 7), "focus_areas": ["security", "perf"], "max_diff_lines": 60}),
    )
    .await
    .expect("answers")
    .structured;
    let requests = sim.requests().len();
    println!("{flavor:?} get_review_suggestions: {requests} requests");
    let file = |path: &str| -> Value {
        out["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path)
            .cloned()
            .unwrap_or_else(|| panic!("no {path}: {out:#}"))
    };
    let session = file("src/auth/session.rs");
    let changes: Vec<(String, String)> = session["api_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["change"].as_str().unwrap().to_owned(),
                c["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        changes.contains(&("removed".into(), "revoke".into())),
        "{changes:?}"
    );
    assert!(
        changes.contains(&("changed".into(), "create".into())),
        "{changes:?}"
    );
    let create = session["api_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "create")
        .unwrap();
    assert!(
        create["after"].as_str().unwrap().contains("ttl"),
        "{create:#}"
    );
    let removed_api = |path: &str| -> Vec<String> {
        file(path)["api_changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(removed_api("web/src/App.tsx"), ["LegacyBanner"]);
    assert_eq!(removed_api("lib/util.py"), ["legacy_hash"]);
    assert_eq!(out["context"]["breaking_changes_detected"], true);

    let kinds: Vec<&str> = session["focus_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"unsafe") && kinds.contains(&"todo_added"),
        "{kinds:?}"
    );
    let unsafe_point = session["focus_points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["type"] == "unsafe")
        .unwrap();
    assert!(
        unsafe_point["code"].as_str().unwrap().contains("unsafe"),
        "{unsafe_point:#}"
    );
    let removed_test = file("tests/auth_test.rs");
    assert_eq!(removed_test["focus_points"][0]["type"], "removed_test");
    assert_eq!(removed_test["focus_points"][0]["removed"], true);

    // The budget holds, source comes first, the lockfile is never shown.
    assert!(out["diff_lines_shown"].as_u64().unwrap() <= 60);
    assert_eq!(out["files"][0]["category"], "source");
    assert!(file("Cargo.lock").get("diff_excerpt").is_none());
    assert!(
        out["diff_omitted"].as_array().unwrap().iter().any(
            |o| o["path"] == "Cargo.lock" && o["why"].as_str().unwrap().starts_with("lockfile")
        ),
        "{:#}",
        out["diff_omitted"]
    );
    assert!(out["how_to_get_full_diff"].is_string());

    let context = &out["context"];
    let related: Vec<u64> = context["related_issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(
        related.contains(&12) && related.contains(&15),
        "{related:?}"
    );
    assert_eq!(context["cross_repo_references"], json!(["octo/other#3"]));

    let sections: Vec<&str> = out["review_checklist"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["category"].as_str().unwrap())
        .collect();
    for want in [
        "Security",
        "Performance",
        "Compatibility",
        "Testing",
        "Dependencies",
        "Database",
    ] {
        assert!(sections.contains(&want), "{want}: {sections:?}");
    }
    // No secret-like line in this PR: the security section asks only about the unsafe block.
    let security = out["review_checklist"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["category"] == "Security")
        .unwrap();
    assert_eq!(
        security["items"].as_array().unwrap().len(),
        1,
        "{security:#}"
    );
    assert!(
        security["items"][0]["applies_to"]
            .as_str()
            .unwrap()
            .starts_with("src/auth/session.rs:"),
        "{security:#}"
    );
    // Where tree-sitter compares exports, api_changes says what changed: no
    // public_signature focus points repeat it.
    assert!(!kinds.contains(&"public_signature"), "{kinds:?}");
    // The estimate is the response's own size.
    let bytes = serde_json::to_vec(&out).unwrap().len() as u64;
    let estimate = out["token_estimate"].as_u64().unwrap();
    assert!(
        estimate.abs_diff(bytes / 4) <= 4,
        "{estimate} vs {bytes} bytes"
    );
    assert!(
        sim.contract_violations().is_empty(),
        "{:?}",
        sim.contract_violations()
    );
    let ceiling = match flavor {
        // PR, files, commits, and one query for the head side of the source files.
        Flavor::GitHub => 4,
        Flavor::Forgejo => 10,
    };
    assert!(requests <= ceiling, "{requests} requests");
}

async fn bad_review_arguments_are_named_together(flavor: Flavor) {
    let (sim, ctx) = start(flavor, impact_scenario(flavor)).await;
    sim.clear_requests();
    let err = call(
        &ctx,
        "get_review_suggestions",
        json!({"pr": "nonsense", "focus_areas": ["speed"], "max_diff_lines": 100000}),
    )
    .await
    .expect_err("bad input");
    assert_eq!(err.category, Category::User);
    let text = format!("{err:?}");
    for want in ["max_diff_lines", "focus_areas", "speed", "pr"] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert!(sim.requests().is_empty(), "nothing is asked of the forge");
    let err = call(
        &ctx,
        "analyze_pr_impact",
        json!({"pr": pr(flavor, &sim, 7), "depth": "everything"}),
    )
    .await
    .expect_err("bad depth");
    assert_eq!(err.category, Category::User);
    let err = call(
        &ctx,
        "analyze_pr_impact",
        json!({"pr": pr(flavor, &sim, 404)}),
    )
    .await
    .expect_err("no such PR");
    assert_eq!(err.category, Category::User, "{err:?}");
}

on_both_forges!(
    impact_of_a_pr_across_areas,
    review_of_a_pr_with_breaking_changes,
    bad_review_arguments_are_named_together,
);

/// 40 files and 3,001 changed lines, two thirds of them a lockfile: the default budget of 500
/// lines holds, every source file is listed, and the response stays under its token figure.
#[tokio::test]
async fn a_big_pr_is_cut_to_the_budget() {
    let (_sim, ctx) = start(Flavor::GitHub, "review_big_github").await;
    let out = call(&ctx, "get_review_suggestions", json!({"pr": "octo/app#9"}))
        .await
        .expect("answers")
        .structured;
    assert_eq!(out["files"].as_array().unwrap().len(), 40);
    assert!(out["diff_lines_shown"].as_u64().unwrap() <= 500);
    assert!(out["diff_lines_total"].as_u64().unwrap() >= 3000);
    let lock = out["diff_omitted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["path"] == "package-lock.json")
        .expect("the lockfile is left out");
    assert!(
        lock["why"].as_str().unwrap().starts_with("lockfile"),
        "{lock:#}"
    );
    let tokens = out["token_estimate"].as_u64().unwrap();
    println!("review of 40 files, 500 lines of diff: {tokens} tokens");
    assert!(tokens <= 9_000, "{tokens} tokens");
    // Without the diff the same PR costs a fraction.
    let bare = call(
        &ctx,
        "get_review_suggestions",
        json!({"pr": "octo/app#9", "include_diff": false}),
    )
    .await
    .expect("answers")
    .structured;
    assert_eq!(bare["diff_lines_shown"], 0);
    assert!(bare["files"][0].get("diff_excerpt").is_none());
    assert!(bare["token_estimate"].as_u64().unwrap() * 2 < tokens);
    assert_eq!(bare["diff_lines_total"], out["diff_lines_total"]);
}

/// Most clients show the model only the text content: it carries the review itself.
#[tokio::test]
async fn the_text_of_a_review_carries_the_diff_and_what_to_look_at() {
    let (sim, ctx) = start(Flavor::GitHub, "impact_github").await;
    let text = call(
        &ctx,
        "get_review_suggestions",
        json!({"pr": pr(Flavor::GitHub, &sim, 7)}),
    )
    .await
    .expect("answers")
    .text;
    for want in [
        "## src/auth/session.rs (modified, +8 -8, source)",
        "API removed: revoke",
        "API changed: create",
        "(unsafe):",
        "```diff\n@@ ",
        "References: issues #12",
        "Fixes #12",
    ] {
        assert!(text.contains(want), "{want:?} missing from:\n{text}");
    }
}

/// The readiness text says what to do, not only what is wrong.
#[tokio::test]
async fn the_text_of_a_readiness_check_says_what_to_do() {
    let (sim, ctx) = start(Flavor::GitHub, "readiness_threads").await;
    let text = call(
        &ctx,
        "check_merge_readiness",
        json!({"pr": pr(Flavor::GitHub, &sim, 1)}),
    )
    .await
    .expect("answers")
    .text;
    assert!(text.contains("Answer and resolve them"), "{text}");
    assert!(text.contains("next: find_unresolved_comments"), "{text}");
}
