//! Merge readiness on the simulated GitHub over real HTTP: the derived `reviewDecision` and
//! `mergeStateStatus` for each situation the derivation names, the ruleset rules and
//! `compare` shapes (validated against GitHub's description), lazy mergeability through REST
//! and GraphQL, and classic protection through `refUpdateRule`.

use crate::common;

use resolve_pr_forge_sim::{Scenario, Sim, SimHandle};
use serde_json::{Value, json};

const TOKEN: &str = "ghp_write";
const HEAD: &str = "1111111111111111111111111111111111111111";

const FACTS: &str = "query($n: Int!) { repository(owner: \"octo\", name: \"app\") { \
    pullRequest(number: $n) { mergeable mergeStateStatus reviewDecision \
    baseRef { refUpdateRule { requiredApprovingReviewCount requiredStatusCheckContexts \
    requiresLinearHistory } } } } }";

async fn start(name: &str, change: impl FnOnce(&mut Scenario)) -> SimHandle {
    let mut scenario = Scenario::builtin(name).expect("a built-in scenario");
    change(&mut scenario);
    Sim::start(scenario).await.expect("the simulator starts")
}

async fn get(sim: &SimHandle, path: &str) -> (u16, Value) {
    get_as(sim, TOKEN, path).await
}

async fn get_as(sim: &SimHandle, token: &str, path: &str) -> (u16, Value) {
    let response = common::client()
        .get(format!("{}{path}", sim.base_url()))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn graphql(sim: &SimHandle, query: &str) -> Value {
    as_token(sim, TOKEN, query).await
}

/// `(mergeStateStatus, reviewDecision)` through GraphQL, and the same state through REST.
async fn states(sim: &SimHandle) -> (String, Value) {
    let answer = graphql(sim, FACTS).await;
    let pull = &answer["data"]["repository"]["pullRequest"];
    let state = pull["mergeStateStatus"].as_str().unwrap().to_owned();
    let (_, rest) = get(sim, "/repos/octo/app/pulls/1").await;
    assert_eq!(rest["mergeable_state"], state.to_ascii_lowercase());
    (state, pull["reviewDecision"].clone())
}

fn assert_clean(sim: &SimHandle) {
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}

/// A change to a scenario.
type Change = Box<dyn FnOnce(&mut Scenario)>;

#[tokio::test]
async fn merge_state_follows_githubs_order() {
    let cases: Vec<(&str, Change, &str, Value)> = vec![
        ("clean", Box::new(|_| {}), "CLEAN", json!("APPROVED")),
        (
            "conflicts",
            Box::new(|s| s.repos[0].pulls[0].mergeable = Some(false)),
            "DIRTY",
            json!("APPROVED"),
        ),
        (
            "not computed",
            Box::new(|s| s.repos[0].pulls[0].mergeable = None),
            "UNKNOWN",
            json!("APPROVED"),
        ),
        (
            "draft",
            Box::new(|s| s.repos[0].pulls[0].draft = true),
            "BLOCKED",
            json!("APPROVED"),
        ),
        (
            "a required check failed",
            Box::new(|s| s.repos[0].pulls[0].check_runs[1].conclusion = Some("failure".into())),
            "BLOCKED",
            json!("APPROVED"),
        ),
        (
            "a required check is missing",
            Box::new(|s| {
                s.repos[0].pulls[0].check_runs.remove(0);
            }),
            "BLOCKED",
            json!("APPROVED"),
        ),
        (
            "another check failed",
            Box::new(|s| s.repos[0].pulls[0].check_runs[2].conclusion = Some("failure".into())),
            "UNSTABLE",
            json!("APPROVED"),
        ),
        (
            "changes requested",
            Box::new(|s| s.repos[0].pulls[0].reviews[0].state = "CHANGES_REQUESTED".into()),
            "BLOCKED",
            json!("CHANGES_REQUESTED"),
        ),
        (
            "no review",
            Box::new(|s| s.repos[0].pulls[0].reviews.clear()),
            "BLOCKED",
            json!("REVIEW_REQUIRED"),
        ),
        (
            "no rule requires reviews",
            Box::new(|s| {
                s.repos[0].pulls[0].reviews.clear();
                for b in &mut s.repos[0].branch_protections {
                    b.rules.required_approvals = 0;
                }
            }),
            "CLEAN",
            Value::Null,
        ),
        (
            "a stale approval under dismissal",
            Box::new(|s| {
                s.repos[0].branch_protections[0].rules.dismiss_stale_reviews = true;
                s.repos[0].pulls[0].reviews[0].commit_id = Some("0".repeat(40));
            }),
            "BLOCKED",
            json!("REVIEW_REQUIRED"),
        ),
        (
            "stated",
            Box::new(|s| {
                s.repos[0].pulls[0].mergeable_state = Some("has_hooks".into());
                s.repos[0].pulls[0].readiness.review_decision = Some("CHANGES_REQUESTED".into());
            }),
            "HAS_HOOKS",
            json!("CHANGES_REQUESTED"),
        ),
    ];
    for (what, change, state, decision) in cases {
        let sim = start("readiness_clean", change).await;
        assert_eq!(states(&sim).await, (state.to_owned(), decision), "{what}");
        assert_clean(&sim);
    }
}

#[tokio::test]
async fn behind_and_unresolved_threads_block_only_under_their_rules() {
    let sim = start("readiness_behind", |_| {}).await;
    assert_eq!(states(&sim).await.0, "BEHIND");
    let sim = start("readiness_behind", |s| {
        s.repos[0].branch_protections[0].rules.strict = false;
    })
    .await;
    assert_eq!(states(&sim).await.0, "CLEAN");
    let sim = start("readiness_threads", |_| {}).await;
    assert_eq!(states(&sim).await.0, "BLOCKED");
    let sim = start("readiness_threads", |s| {
        s.repos[0].branch_protections[0]
            .rules
            .conversation_resolution = false;
    })
    .await;
    assert_eq!(states(&sim).await.0, "CLEAN");
    assert_clean(&sim);
}

#[tokio::test]
async fn ruleset_rules_are_shaped_like_githubs() {
    let sim = start("readiness_clean", |s| {
        let rules = &mut s.repos[0].branch_protections[0].rules;
        rules.code_owner_review = true;
        rules.strict = true;
        rules.merge_queue = true;
        rules.linear_history = true;
        rules.signed_commits = true;
    })
    .await;
    let (status, rules) = get(&sim, "/repos/octo/app/rules/branches/main").await;
    assert_eq!(status, 200);
    let kinds: Vec<&str> = rules
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "pull_request",
            "required_status_checks",
            "merge_queue",
            "required_linear_history",
            "required_signatures"
        ]
    );
    assert_eq!(rules[0]["parameters"]["required_approving_review_count"], 1);
    assert_eq!(rules[0]["parameters"]["require_code_owner_review"], true);
    assert_eq!(
        rules[1]["parameters"]["strict_required_status_checks_policy"],
        true
    );
    assert_eq!(rules[1]["ruleset_id"], 7);
    assert_eq!(rules[1]["ruleset_source"], "octo/app");
    // Classic protection is not a ruleset.
    let (_, other) = get(&sim, "/repos/octo/app/rules/branches/release").await;
    assert_eq!(other, json!([]));
    assert_clean(&sim);
}

#[tokio::test]
async fn compare_counts_and_unknown_ranges() {
    let sim = start("readiness_behind", |_| {}).await;
    let (status, compare) = get(&sim, &format!("/repos/octo/app/compare/main...{HEAD}")).await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            &compare["status"],
            &compare["ahead_by"],
            &compare["behind_by"]
        ),
        (&json!("diverged"), &json!(2), &json!(3))
    );
    assert_eq!(
        compare["merge_base_commit"]["sha"],
        "2222222222222222222222222222222222222222"
    );
    let (status, _) = get(&sim, "/repos/octo/app/compare/main...feature").await;
    assert_eq!(status, 404);
    let sim2 = start("readiness_clean", |_| {}).await;
    let (_, compare) = get(&sim2, &format!("/repos/octo/app/compare/main...{HEAD}")).await;
    assert_eq!(compare["status"], "ahead");
    assert_clean(&sim);
    assert_clean(&sim2);
}

/// Reads through either API count; one GraphQL request counts once however many of the
/// fields it reads.
#[tokio::test]
async fn mergeability_is_computed_after_the_stated_reads() {
    let sim = start("readiness_lazy", |s| {
        s.repos[0].pulls[0].readiness.mergeable_after_reads = 3;
    })
    .await;
    let (_, rest) = get(&sim, "/repos/octo/app/pulls/1").await;
    assert_eq!(
        (&rest["mergeable"], &rest["mergeable_state"]),
        (&Value::Null, &json!("unknown"))
    );
    let answer = graphql(&sim, FACTS).await;
    let pull = &answer["data"]["repository"]["pullRequest"];
    assert_eq!(
        (&pull["mergeable"], &pull["mergeStateStatus"]),
        (&json!("UNKNOWN"), &json!("UNKNOWN"))
    );
    let (_, rest) = get(&sim, "/repos/octo/app/pulls/1").await;
    assert_eq!(rest["mergeable"], Value::Null);
    let (_, rest) = get(&sim, "/repos/octo/app/pulls/1").await;
    assert_eq!(
        (&rest["mergeable"], &rest["mergeable_state"]),
        (&json!(true), &json!("clean"))
    );
    assert_clean(&sim);
}

#[tokio::test]
async fn classic_protection_through_ref_update_rule() {
    let sim = start("readiness_clean", |s| {
        s.repos[0].branch_protections[1].rules.linear_history = true;
    })
    .await;
    let answer = graphql(&sim, FACTS).await;
    assert_eq!(answer.get("errors"), None);
    let rule = &answer["data"]["repository"]["pullRequest"]["baseRef"]["refUpdateRule"];
    assert_eq!(rule["requiredApprovingReviewCount"], 1);
    assert_eq!(
        rule["requiredStatusCheckContexts"],
        json!(["build", "test"])
    );
    assert_eq!(rule["requiresLinearHistory"], true);

    let sim = start("readiness_forbidden", |_| {}).await;
    let answer = graphql(&sim, FACTS).await;
    let pull = &answer["data"]["repository"]["pullRequest"];
    assert_eq!(pull["baseRef"]["refUpdateRule"], Value::Null);
    assert_eq!(pull["mergeStateStatus"], "BLOCKED", "the rest is answered");
    assert_eq!(
        answer["errors"],
        json!([{"type": "FORBIDDEN",
                "path": ["repository", "pullRequest", "baseRef", "refUpdateRule"],
                "message": "Resource not accessible by personal access token"}])
    );
    let (status, _) = get(&sim, "/repos/octo/app/rules/branches/main").await;
    assert_eq!(status, 403);
    assert_clean(&sim);
}

async fn as_token(sim: &SimHandle, token: &str, query: &str) -> Value {
    common::client()
        .post(format!("{}/graphql", sim.base_url()))
        .bearer_auth(token)
        .json(&json!({"query": query, "variables": {"n": 1}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn scenario_file(name: &str, change: impl FnOnce(&mut Scenario)) -> SimHandle {
    let path = format!("{}/scenarios/{name}.yaml", env!("CARGO_MANIFEST_DIR"));
    let mut scenario = Scenario::from_file(std::path::Path::new(&path)).expect(&path);
    change(&mut scenario);
    Sim::start(scenario).await.expect("the simulator starts")
}

const VIEWER: &str = "query($n: Int!) { repository(owner: \"octo\", name: \"app\") { \
    viewerPermission pullRequest(number: $n) { mergeStateStatus viewerCanMergeAsAdmin \
    baseRef { refUpdateRule { requiredApprovingReviewCount requiresConversationResolution } \
    branchProtectionRule { isAdminEnforced requiresStrictStatusChecks \
    requiredApprovingReviewCount } } } } }";

/// Who may read which rule (GitHub's schema: `refUpdateRule` is the rule "enforced on the
/// viewer", `branchProtectionRule` admins'; REST classic protection needs admin rights, and
/// `rules/branches` only read access).
#[tokio::test]
async fn classic_protection_by_viewer_and_rulesets_for_everyone() {
    let sim = scenario_file("readiness_admin_unbound", |_| {}).await;
    // A writer: the rule as it binds them, not the whole rule.
    let answer = as_token(&sim, "ghp_write", VIEWER).await;
    let repo = &answer["data"]["repository"];
    assert_eq!(repo["viewerPermission"], "WRITE");
    let base = &repo["pullRequest"]["baseRef"];
    assert_eq!(base["refUpdateRule"]["requiredApprovingReviewCount"], 2);
    assert_eq!(base["branchProtectionRule"], Value::Null);
    assert_eq!(answer["errors"][0]["type"], "FORBIDDEN");
    assert_eq!(
        answer["errors"][0]["path"],
        json!([
            "repository",
            "pullRequest",
            "baseRef",
            "branchProtectionRule"
        ])
    );
    assert_eq!(repo["pullRequest"]["viewerCanMergeAsAdmin"], false);
    // Behind and short of approvals: BLOCKED, not BEHIND.
    assert_eq!(repo["pullRequest"]["mergeStateStatus"], "BLOCKED");
    // An admin the rule does not bind: nothing enforced on them, the whole rule readable.
    let answer = as_token(&sim, "ghp_admin", VIEWER).await;
    assert_eq!(answer.get("errors"), None, "{answer:#}");
    let repo = &answer["data"]["repository"];
    assert_eq!(repo["viewerPermission"], "ADMIN");
    let base = &repo["pullRequest"]["baseRef"];
    assert_eq!(base["refUpdateRule"]["requiredApprovingReviewCount"], 0);
    assert_eq!(
        base["refUpdateRule"]["requiresConversationResolution"],
        false
    );
    assert_eq!(
        base["branchProtectionRule"]["requiredApprovingReviewCount"],
        2
    );
    assert_eq!(
        base["branchProtectionRule"]["requiresStrictStatusChecks"],
        true
    );
    assert_eq!(base["branchProtectionRule"]["isAdminEnforced"], false);
    assert_eq!(repo["pullRequest"]["viewerCanMergeAsAdmin"], true);
    // Enforced on admins: the admin is bound like everyone.
    let sim = scenario_file("readiness_admin_unbound", |s| {
        s.repos[0].branch_protections[0].rules.enforce_admins = true;
    })
    .await;
    let answer = as_token(&sim, "ghp_admin", VIEWER).await;
    let pull = &answer["data"]["repository"]["pullRequest"];
    assert_eq!(
        pull["baseRef"]["refUpdateRule"]["requiredApprovingReviewCount"],
        2
    );
    assert_eq!(pull["viewerCanMergeAsAdmin"], false);

    // A reader (a fork's contributor): no classic rule shown, REST protection 404, and the
    // rulesets still listed.
    let sim = scenario_file("readiness_read_only", |_| {}).await;
    let answer = as_token(&sim, "ghp_read", VIEWER).await;
    let repo = &answer["data"]["repository"];
    assert_eq!(repo["viewerPermission"], "READ");
    assert_eq!(repo["pullRequest"]["baseRef"]["refUpdateRule"], Value::Null);
    let read = |path: &'static str| get_as(&sim, "ghp_read", path);
    let (status, _) = read("/repos/octo/app/branches/main/protection/required_status_checks").await;
    assert_eq!(status, 404);
    let (status, rules) = read("/repos/octo/app/rules/branches/main").await;
    assert_eq!(status, 200);
    assert_eq!(
        rules[0]["parameters"]["required_status_checks"],
        json!([{"context": "lint"}])
    );
    let (status, _) = get(
        &sim,
        "/repos/octo/app/branches/main/protection/required_status_checks",
    )
    .await;
    assert_eq!(
        status, 404,
        "REST classic protection is for admins (Administration read); a writer sees the rule \
         through GraphQL's refUpdateRule"
    );
    assert_clean(&sim);
}

/// A ruleset's bypass actors still see its rules (they bind everyone else) and may merge
/// past them; others may not.
#[tokio::test]
async fn ruleset_bypass_actors_see_the_rules_and_may_bypass() {
    let sim = scenario_file("readiness_read_only", |s| {
        s.repos[0].branch_protections[1].rules.bypass_actors = vec!["alice".into()];
    })
    .await;
    let answer = as_token(&sim, "ghp_write", VIEWER).await;
    assert_eq!(
        answer["data"]["repository"]["pullRequest"]["viewerCanMergeAsAdmin"],
        true
    );
    let (status, rules) = get(&sim, "/repos/octo/app/rules/branches/main").await;
    assert_eq!(status, 200);
    assert_eq!(rules.as_array().map(Vec::len), Some(1), "{rules:#}");
    let answer = as_token(&sim, "ghp_read", VIEWER).await;
    assert_eq!(
        answer["data"]["repository"]["pullRequest"]["viewerCanMergeAsAdmin"],
        false
    );
    assert_clean(&sim);
}
