//! check_merge_readiness end to end against the simulated forges: the verdict on each case
//! the forges present (all green, lazy mergeability, failures only on a later page of 100+
//! checks, a missing code owner's review, a draft, behind the base, unresolved threads under
//! required resolution, rules the token cannot read), on GitHub, Forgejo and Gitea, and
//! what each call costs in requests.
#![allow(clippy::print_stdout)] // each test prints what the call cost

use crate::common;

use resolve_pr_forge_sim::{Sim, SimHandle};
use resolve_pr_tools::call;
use serde_json::{Value, json};

use common::Flavor;

struct Case {
    scenario: &'static str,
    flavor: Flavor,
    ready: bool,
    /// Categories of the blocking issues, in order.
    blockers: &'static [&'static str],
    /// Requirements listed as unknown.
    unknown: &'static [&'static str],
    /// Requests the call may cost at most.
    max_requests: usize,
}

async fn run(case: &Case, token: Option<&str>) -> (Value, SimHandle) {
    let sim = Sim::start(common::scenario(case.scenario))
        .await
        .expect("simulator starts");
    let token = token.unwrap_or(match case.flavor {
        Flavor::GitHub => "ghp_write",
        Flavor::Forgejo => "fj_write",
    });
    let mut ctx = common::context(case.flavor, &sim, token, [9; 32]);
    // No checkout: the verdict is the forge's alone.
    ctx.local.cwd = None;
    let pr = match case.flavor {
        Flavor::GitHub => "octo/app#1".to_owned(),
        Flavor::Forgejo => format!("{}/octo/app/pulls/1", sim.base_url()),
    };
    sim.clear_requests();
    let out = call(&ctx, "check_merge_readiness", json!({ "pr": pr }))
        .await
        .unwrap_or_else(|e| panic!("{}: {e:?}", case.scenario))
        .structured;
    (out, sim)
}

fn categories(out: &Value) -> Vec<String> {
    out["blocking_issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["category"].as_str().unwrap().to_owned())
        .collect()
}

fn unknowns(out: &Value) -> Vec<String> {
    out.get("unknown")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|u| u["requirement"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

async fn check(case: Case) -> Value {
    check_as(case, None).await
}

/// `check` with another token than the flavor's writer.
async fn check_as(case: Case, token: Option<&str>) -> Value {
    let (out, sim) = run(&case, token).await;
    let requests = sim.requests();
    println!(
        "{} ({:?}): ready {}, blockers {:?}, unknown {:?}, {} requests",
        case.scenario,
        case.flavor,
        out["ready_to_merge"],
        categories(&out),
        unknowns(&out),
        requests.len()
    );
    assert_eq!(
        out["ready_to_merge"], case.ready,
        "{}: {out:#}",
        case.scenario
    );
    assert_eq!(
        categories(&out),
        case.blockers,
        "{}: {out:#}",
        case.scenario
    );
    assert_eq!(unknowns(&out), case.unknown, "{}: {out:#}", case.scenario);
    assert!(
        requests.len() <= case.max_requests,
        "{}: {} requests: {:?}",
        case.scenario,
        requests.len(),
        requests.iter().map(|r| &r.path).collect::<Vec<_>>()
    );
    assert!(
        sim.contract_violations().is_empty(),
        "{:?}",
        sim.contract_violations()
    );
    // Every blocking issue says what to do, with a command or the tool to call.
    for b in out["blocking_issues"].as_array().unwrap() {
        assert!(!b["action_required"].as_str().unwrap().is_empty());
    }
    out
}

#[tokio::test]
async fn github_all_green_and_approved_is_ready() {
    let out = check(Case {
        scenario: "readiness_clean",
        flavor: Flavor::GitHub,
        ready: true,
        blockers: &[],
        unknown: &[],
        max_requests: 3,
    })
    .await;
    let bp = &out["branch_protection"];
    assert_eq!(bp["required_approvals"], 1);
    assert_eq!(bp["current_approvals"], 1);
    assert_eq!(bp["approving_users"], json!(["dave"]));
    assert_eq!(out["checks"]["ci_passing"], true);
    assert_eq!(out["merge_state"], "clean");
    assert_eq!(out["behind_by"], 0);
}

#[tokio::test]
async fn github_lazy_mergeability_without_a_checkout_is_unknown() {
    let out = check(Case {
        scenario: "readiness_lazy",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &[],
        unknown: &["no_conflicts"],
        max_requests: 4,
    })
    .await;
    assert_eq!(out["unknown"][0]["next_tool"], "detect_merge_conflicts");
    // Not computed is not a conflict: null, not false.
    assert_eq!(out["checks"]["no_conflicts"], Value::Null, "{out:#}");
    assert_eq!(out["checks"]["ci_passing"], true);
}

#[tokio::test]
async fn github_a_required_failure_on_the_second_page_of_checks_blocks() {
    let out = check(Case {
        scenario: "readiness_many_checks",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &["ci"],
        unknown: &[],
        max_requests: 4,
    })
    .await;
    assert_eq!(out["ci"]["total"], 117);
    assert_eq!(
        out["branch_protection"]["failing_checks"],
        json!(["check-105"])
    );
    assert_eq!(out["blocking_issues"][0]["next_tool"], "get_failing_tests");
    // The optional check that timed out is a warning, not a blocker.
    let warnings = out["warnings"].to_string();
    assert!(warnings.contains("check-112"), "{warnings}");
}

#[tokio::test]
async fn github_a_missing_code_owner_review_blocks() {
    let out = check(Case {
        scenario: "readiness_code_owners",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &["approvals"],
        unknown: &[],
        max_requests: 3,
    })
    .await;
    let b = &out["blocking_issues"][0];
    assert!(
        b["description"].as_str().unwrap().contains("code owner"),
        "{b:#}"
    );
    assert_eq!(
        out["branch_protection"]["pending_reviewers"],
        json!(["erin", "octo/core"])
    );
}

#[tokio::test]
async fn github_a_draft_blocks_with_the_command_that_readies_it() {
    let out = check(Case {
        scenario: "readiness_draft",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &["draft"],
        unknown: &[],
        max_requests: 3,
    })
    .await;
    // The simulator is an Enterprise host to the client: `HOST/owner/repo`.
    let cmd = out["blocking_issues"][0]["command"].as_str().unwrap();
    assert!(
        cmd.starts_with("gh pr ready 1 --repo ") && cmd.ends_with("/octo/app"),
        "{cmd}"
    );
}

#[tokio::test]
async fn github_behind_a_strict_base_blocks_with_update_branch() {
    let out = check(Case {
        scenario: "readiness_behind",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &["up_to_date"],
        unknown: &[],
        max_requests: 3,
    })
    .await;
    assert_eq!(out["behind_by"], 3);
    let cmd = out["blocking_issues"][0]["command"].as_str().unwrap();
    assert!(
        cmd.starts_with("gh api --hostname ")
            && cmd.ends_with(" --method PUT repos/octo/app/pulls/1/update-branch"),
        "{cmd}"
    );
}

#[tokio::test]
async fn github_unresolved_threads_block_under_required_resolution() {
    let out = check(Case {
        scenario: "readiness_threads",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &["threads"],
        unknown: &[],
        max_requests: 3,
    })
    .await;
    assert!(
        out["blocking_issues"][0]["description"]
            .as_str()
            .unwrap()
            .starts_with("2 review threads"),
        "{out:#}"
    );
    assert_eq!(
        out["blocking_issues"][0]["next_tool"],
        "find_unresolved_comments"
    );
}

#[tokio::test]
async fn github_unreadable_rules_are_unknown_never_unprotected() {
    let out = check(Case {
        scenario: "readiness_forbidden",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &["approvals"],
        unknown: &["branch_protection", "branch_protection"],
        max_requests: 3,
    })
    .await;
    assert_eq!(out["checks"]["branch_protection_satisfied"], false);
    // No source of rules was read: the count required is not known, so it is not said.
    assert!(
        out["branch_protection"].get("required_approvals").is_none(),
        "{out:#}"
    );
}

#[tokio::test]
async fn github_a_read_only_token_says_classic_protection_is_unread() {
    // A fork's contributor: rulesets are read, classic protection is not shown to them.
    let out = check_as(
        Case {
            scenario: "readiness_read_only",
            flavor: Flavor::GitHub,
            ready: false,
            blockers: &["approvals"],
            unknown: &["branch_protection"],
            max_requests: 3,
        },
        Some("ghp_read"),
    )
    .await;
    let bp = &out["branch_protection"];
    assert!(bp.get("required_approvals").is_none(), "{out:#}");
    assert_eq!(bp["required_checks"], json!(["build", "lint"]), "{out:#}");
    let reason = out["unknown"][0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("branch protection could not be read")
            && reason.contains("read access")
            && reason.contains("Administration"),
        "{reason}"
    );
    let review = out["blocking_issues"][0]["description"].as_str().unwrap();
    assert!(review.contains("branch protection"), "{review}");
    // A writer is shown the rule.
    let out = check(Case {
        scenario: "readiness_read_only",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &["approvals"],
        unknown: &[],
        max_requests: 3,
    })
    .await;
    assert_eq!(out["branch_protection"]["required_approvals"], 1);
}

#[tokio::test]
async fn github_an_admin_not_bound_still_sees_the_rules_that_bind_everyone() {
    let out = check_as(
        Case {
            scenario: "readiness_admin_unbound",
            flavor: Flavor::GitHub,
            ready: false,
            blockers: &["approvals", "up_to_date", "threads"],
            unknown: &[],
            max_requests: 3,
        },
        Some("ghp_admin"),
    )
    .await;
    let bp = &out["branch_protection"];
    assert_eq!(bp["required_approvals"], 2, "{out:#}");
    assert_eq!(
        bp["rules"],
        json!(["conversation_resolution", "up_to_date"]),
        "{out:#}"
    );
    let notes = out["warnings"].to_string();
    assert!(notes.contains("merge past the branch's rules"), "{notes}");
    assert_eq!(out["merge_state"], "blocked");
}

/// An admin whose token lacks the Administration permission (a fine-grained token) is
/// shown neither the whole rule nor, through `refUpdateRule`, what does not bind it: classic
/// protection is unread, never "no rule".
#[tokio::test]
async fn github_an_admin_token_without_administration_leaves_classic_protection_unread() {
    let admin = "{token: ghp_admin, login: erin, permission: admin}";
    let yaml = common::scenario_text("readiness_admin_unbound");
    assert!(yaml.contains(admin));
    let yaml = yaml.replace(
        admin,
        "{token: ghp_admin, login: erin, permission: admin, administration: false}",
    );
    let out = check_as(
        Case {
            scenario: Box::leak(yaml.into_boxed_str()),
            flavor: Flavor::GitHub,
            ready: false,
            blockers: &["approvals"],
            unknown: &["up_to_date", "branch_protection"],
            max_requests: 3,
        },
        Some("ghp_admin"),
    )
    .await;
    let reason = out["unknown"][1]["reason"].as_str().unwrap();
    assert!(reason.contains("Administration"), "{reason}");
    assert!(
        out["branch_protection"].get("required_approvals").is_none(),
        "{out:#}"
    );
}

#[tokio::test]
async fn github_behind_beside_another_blocker_is_never_called_not_required() {
    // The writer sees the classic rule without its strict flag; GitHub says BLOCKED for the
    // missing approval. Being behind is then unknown, not "the rules do not require it".
    let out = check(Case {
        scenario: "readiness_admin_unbound",
        flavor: Flavor::GitHub,
        ready: false,
        blockers: &["approvals", "threads"],
        unknown: &["up_to_date"],
        max_requests: 3,
    })
    .await;
    assert!(
        !out["warnings"].to_string().contains("do not require"),
        "{out:#}"
    );
    assert_eq!(out["checks"]["up_to_date"], false);
}

#[tokio::test]
async fn forgejo_all_green_is_ready_and_stale_approvals_do_not_count() {
    let out = check(Case {
        scenario: "readiness_clean_forgejo",
        flavor: Flavor::Forgejo,
        ready: true,
        blockers: &[],
        unknown: &[],
        max_requests: 6,
    })
    .await;
    assert_eq!(out["branch_protection"]["approving_users"], json!(["bob"]));
    assert!(out.get("merge_state").is_none());
}

#[tokio::test]
async fn gitea_all_green_is_ready() {
    check(Case {
        scenario: "readiness_clean_gitea",
        flavor: Flavor::Forgejo,
        ready: true,
        blockers: &[],
        unknown: &[],
        max_requests: 6,
    })
    .await;
}

#[tokio::test]
async fn forgejo_still_checking_is_not_a_conflict() {
    check(Case {
        scenario: "readiness_lazy_forgejo",
        flavor: Flavor::Forgejo,
        ready: false,
        blockers: &[],
        unknown: &["no_conflicts"],
        max_requests: 6,
    })
    .await;
}

#[tokio::test]
async fn forgejo_a_required_failure_on_the_last_page_blocks() {
    let out = check(Case {
        scenario: "readiness_many_checks_forgejo",
        flavor: Flavor::Forgejo,
        ready: false,
        blockers: &["ci"],
        unknown: &[],
        max_requests: 8,
    })
    .await;
    assert_eq!(out["ci"]["total"], 117);
    assert_eq!(
        out["branch_protection"]["failing_checks"],
        json!(["deploy / gate"])
    );
}

#[tokio::test]
async fn forgejo_a_pending_official_review_blocks() {
    let out = check(Case {
        scenario: "readiness_code_owners_forgejo",
        flavor: Flavor::Forgejo,
        ready: false,
        // 0 of 1 official approvals, and the official request to carol still pending.
        blockers: &["approvals", "approvals"],
        unknown: &[],
        max_requests: 6,
    })
    .await;
    assert_eq!(out["branch_protection"]["current_approvals"], 0);
}

#[tokio::test]
async fn forgejo_a_draft_blocks() {
    let out = check(Case {
        scenario: "readiness_draft_forgejo",
        flavor: Flavor::Forgejo,
        ready: false,
        blockers: &["draft"],
        // Forgejo says "not mergeable" for every draft: whether it conflicts is not known.
        unknown: &["no_conflicts"],
        max_requests: 6,
    })
    .await;
    let b = &out["blocking_issues"][0];
    assert!(b.get("command").is_none());
    assert!(b["action_required"].as_str().unwrap().contains("WIP"));
}

#[tokio::test]
async fn forgejo_behind_an_outdated_branch_rule_blocks() {
    let out = check(Case {
        scenario: "readiness_behind_forgejo",
        flavor: Flavor::Forgejo,
        ready: false,
        blockers: &["up_to_date"],
        unknown: &[],
        max_requests: 6,
    })
    .await;
    assert_eq!(out["behind_by"], 3);
    let cmd = out["blocking_issues"][0]["command"].as_str().unwrap();
    assert!(cmd.contains("/repos/octo/app/pulls/1/update"), "{cmd}");
}

#[tokio::test]
async fn forgejo_unresolved_threads_do_not_block_without_a_rule() {
    check(Case {
        scenario: "readiness_threads_forgejo",
        flavor: Flavor::Forgejo,
        ready: true,
        blockers: &[],
        unknown: &[],
        max_requests: 6,
    })
    .await;
}

#[tokio::test]
async fn forgejo_unreadable_protection_is_unknown() {
    let out = check(Case {
        scenario: "readiness_forbidden_forgejo",
        flavor: Flavor::Forgejo,
        ready: false,
        blockers: &[],
        unknown: &["branch_protection"],
        max_requests: 5,
    })
    .await;
    assert_eq!(out["checks"]["approvals_met"], true);
    assert_eq!(out["checks"]["required_checks_passed"], true);
}

#[tokio::test]
async fn a_pr_that_is_not_there_is_a_user_error() {
    let sim = Sim::start(common::scenario("readiness_clean"))
        .await
        .expect("simulator starts");
    let ctx = common::context(Flavor::GitHub, &sim, "ghp_write", [9; 32]);
    let err = call(&ctx, "check_merge_readiness", json!({"pr": "octo/app#99"}))
        .await
        .expect_err("no such PR");
    assert_eq!(err.category, resolve_pr_core::Category::User, "{err:?}");
    let err = call(&ctx, "check_merge_readiness", json!({"pr": "not a pr"}))
        .await
        .expect_err("bad reference");
    assert_eq!(err.category, resolve_pr_core::Category::User, "{err:?}");
}

/// One rollup: get_failing_tests and check_merge_readiness in one server count the same
/// checks the same way (skipped apart from passed), and both see the required checks that
/// never ran, which a writer reads through GraphQL (REST's classic protection is for
/// admins): get_failing_tests does not call a green head `passed` while they are missing.
#[tokio::test]
async fn github_both_tools_count_one_rollup_and_see_required_checks_that_never_ran() {
    let mut yaml = common::scenario_text("readiness_clean");
    let runs = "        check_runs:\n";
    assert!(yaml.contains(runs));
    yaml = yaml.replace(
        runs,
        &format!(
            "{runs}          - {{name: \"docs\", conclusion: skipped, started_at: \"2024-06-01T09:10:00Z\", completed_at: \"2024-06-01T09:11:00Z\"}}\n          - {{name: \"bench\", conclusion: neutral, started_at: \"2024-06-01T09:10:00Z\", completed_at: \"2024-06-01T09:11:00Z\"}}\n"
        ),
    );
    let classic = "required_checks: [build, test]";
    assert!(yaml.contains(classic));
    yaml = yaml.replace(
        classic,
        "required_checks: [build, test, \"e2e (linux)\", \"e2e (mac)\", \"e2e (windows)\"]",
    );
    let sim = Sim::start(common::scenario(&yaml))
        .await
        .expect("simulator starts");
    let mut ctx = common::context(Flavor::GitHub, &sim, "ghp_write", [9; 32]);
    ctx.local.cwd = None;
    let pr = json!({ "pr": "octo/app#1" });
    let ready = call(&ctx, "check_merge_readiness", pr.clone())
        .await
        .unwrap()
        .structured;
    let tests = call(&ctx, "get_failing_tests", pr)
        .await
        .unwrap()
        .structured;

    let missing = ["e2e (linux)", "e2e (mac)", "e2e (windows)"];
    assert_eq!(ready["ready_to_merge"], false, "{ready:#}");
    assert_eq!(
        ready["branch_protection"]["missing_checks"],
        json!(missing),
        "{ready:#}"
    );
    let counts = &tests["checks"];
    assert_eq!(counts["missing_required"], 3, "{tests:#}");
    assert_ne!(tests["status"], "passed", "{tests:#}");
    // The same counts: 3 passed (build, test, lint) and 2 skipped (skipped, neutral).
    assert_eq!(ready["ci"]["passed"], 3, "{ready:#}");
    assert_eq!(ready["ci"]["skipped"], 2, "{ready:#}");
    for key in ["total", "passed", "skipped"] {
        assert_eq!(ready["ci"][key], counts[key], "{key}: {ready:#} {tests:#}");
    }
    assert_eq!(ready["ci"]["failed_count"], counts["failed"]);
}
