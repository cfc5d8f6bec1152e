//! `Repository::merge_facts` on GitHub against the simulator: each `readiness_*` scenario read
//! through the real client, with the facts it must report and the round trips it may take
//! (the simulator's request log), plus faults: rules that answer 500, a compare that fails,
//! rules that cannot be read, mergeability GitHub is still computing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use resolve_pr_core::{Category, PrRef, RepoRef};
use resolve_pr_forge::{
    CheckOutcome, ClientOptions, Forge, MergeFacts, MergeState, ReviewDecision, ReviewVerdict,
};
use resolve_pr_forge_sim::{Fault, FaultKind, RecordedRequest, Scenario, Sim, SimHandle};
use resolve_pr_testkit::forge::{fast_options, fast_retry, forges_for};

const TOKEN: &str = "ghp_write";
const HEAD: &str = "1111111111111111111111111111111111111111";
/// The pause before asking again for a mergeability GitHub is still computing.
const WAIT: Duration = Duration::from_millis(50);

struct Fixture {
    sim: SimHandle,
    forge: Arc<dyn Forge>,
    base: String,
}

impl Fixture {
    async fn start(name: &str) -> Fixture {
        Fixture::start_with(name, |_| {}).await
    }

    async fn start_with(name: &str, change: impl FnOnce(&mut Scenario)) -> Fixture {
        let mut scenario = Scenario::builtin(name).expect("a built-in scenario");
        change(&mut scenario);
        let sim = Sim::start(scenario).await.expect("the simulator starts");
        let base = sim.base_url().trim_end_matches('/').to_owned();
        let forges = forges_for(
            &base,
            "github",
            TOKEN,
            ClientOptions {
                retry: fast_retry(2),
                mergeable_wait: WAIT,
                ..fast_options()
            },
        );
        let repo = RepoRef::parse(&format!("{base}/octo/app")).expect("repo");
        let forge = forges.for_repo(&repo).expect("a configured host");
        Fixture { sim, forge, base }
    }

    fn pr(&self, number: u64) -> PrRef {
        PrRef {
            repo: RepoRef::parse(&format!("{}/octo/app", self.base)).expect("repo"),
            number,
        }
    }

    async fn facts(&self) -> MergeFacts {
        self.forge
            .repository()
            .merge_facts(&self.pr(1))
            .await
            .expect("merge facts")
    }

    /// Every API request the simulator saw (git and control requests are not API ones).
    fn api_requests(&self) -> Vec<RecordedRequest> {
        self.sim.requests()
    }

    fn requests_to(&self, part: &str) -> Vec<RecordedRequest> {
        self.api_requests()
            .into_iter()
            .filter(|r| r.path.contains(part))
            .collect()
    }

    /// The facts' own count matches the simulator's log, and stays within the budget.
    fn assert_requests(&self, facts: &MergeFacts, want: u32) {
        let log = self.api_requests();
        assert_eq!(facts.requests, want, "{log:#?}");
        assert_eq!(log.len(), want as usize, "{log:#?}");
        assert_eq!(self.sim.contract_violations(), Vec::<String>::new());
        for r in log.iter().filter(|r| r.path == "/graphql") {
            assert_eq!(r.graphql_points, Some(1), "every query costs 1 point");
        }
    }
}

fn check<'a>(facts: &'a MergeFacts, name: &str) -> &'a resolve_pr_forge::CheckContext {
    facts
        .checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name:?} in {:#?}", facts.checks))
}

fn status(code: u16, path: &str, times: u32) -> Fault {
    Fault {
        method: Some("GET".into()),
        path: path.into(),
        times,
        kind: FaultKind::Status {
            code,
            headers: Vec::new(),
            body: r#"{"message":"Server Error"}"#.into(),
        },
    }
}

#[tokio::test]
async fn clean_pull_request_in_three_requests() {
    let fx = Fixture::start("readiness_clean").await;
    let facts = fx.facts().await;
    let pull = &facts.pull;
    assert_eq!((pull.number, pull.draft), (1, false));
    assert_eq!(pull.head_sha, HEAD);
    assert_eq!(pull.base_ref, "main");
    assert_eq!(pull.author.login, "bob");
    assert_eq!(pull.base_repo, "octo/app");
    assert_eq!(pull.mergeable, Some(true));
    assert_eq!(pull.mergeable_state.as_deref(), Some("clean"));
    assert_eq!(facts.merge_state, Some(MergeState::Clean));
    assert_eq!(facts.review_decision, Some(ReviewDecision::Approved));
    assert_eq!(facts.reviews.len(), 1);
    assert_eq!(facts.reviews[0].author.login, "dave");
    assert_eq!(facts.reviews[0].verdict, ReviewVerdict::Approved);
    assert_eq!(facts.reviews[0].commit_id.as_deref(), Some(HEAD));
    assert!(facts.review_requests.is_empty());
    assert_eq!(facts.checks.len(), 3);
    for (name, required) in [("build", true), ("test", true), ("lint", false)] {
        let c = check(&facts, name);
        assert_eq!(c.outcome, CheckOutcome::Passed, "{name}");
        assert_eq!(c.required, Some(required), "{name}");
        assert_eq!(
            c.url.as_deref(),
            Some(format!("{}/octo/app/runs/{name}", fx.base).as_str())
        );
    }
    let rules = &facts.rules;
    assert!(rules.protected);
    assert_eq!(rules.required_approvals, 1);
    assert_eq!(rules.required_checks, ["build", "test"]);
    assert!(rules.block_on_rejected_reviews);
    assert!(!rules.up_to_date && !rules.code_owner_review && !rules.merge_queue);
    assert_eq!(
        rules.sources,
        ["ruleset 7 (Repository octo/app)", "branch protection"]
    );
    assert!(rules.unknown.is_empty(), "{:?}", rules.unknown);
    assert_eq!(facts.behind_by, Some(0));
    assert_eq!(facts.unresolved_threads, Some(0));
    assert!(!facts.in_merge_queue && !facts.viewer_can_bypass);
    assert_eq!(facts.auto_merge, None);
    fx.assert_requests(&facts, 3);
    // The base branch's name is percent-encoded into both REST routes.
    assert_eq!(fx.requests_to("/rules/branches/main").len(), 1);
    assert_eq!(fx.requests_to(&format!("/compare/main...{HEAD}")).len(), 1);
}

/// GitHub computes mergeability on demand: UNKNOWN at first. The client waits its pause and
/// asks once more (4 requests); still UNKNOWN, it says so instead of guessing.
#[tokio::test]
async fn mergeability_still_computing_is_asked_once_more_then_left_unknown() {
    let fx = Fixture::start("readiness_lazy").await;
    let started = Instant::now();
    let facts = fx.facts().await;
    assert!(started.elapsed() >= WAIT, "it paused before asking again");
    assert_eq!(facts.pull.mergeable, None);
    assert_eq!(facts.merge_state, Some(MergeState::Unknown));
    assert_eq!(facts.pull.mergeable_state.as_deref(), Some("unknown"));
    // Everything else is read as usual.
    assert_eq!(facts.review_decision, Some(ReviewDecision::Approved));
    assert_eq!(facts.rules.required_checks, ["build", "test"]);
    fx.assert_requests(&facts, 4);
    let asked = fx.requests_to("/graphql");
    assert_eq!(asked.len(), 2);

    // A third read finds it computed.
    fx.sim.clear_requests();
    let again = fx.facts().await;
    assert_eq!(again.pull.mergeable, Some(true));
    assert_eq!(again.merge_state, Some(MergeState::Clean));
    fx.assert_requests(&again, 3);
}

#[tokio::test]
async fn mergeability_computed_by_the_second_ask_is_used() {
    let fx = Fixture::start_with("readiness_lazy", |s| {
        s.repos[0].pulls[0].readiness.mergeable_after_reads = 1;
    })
    .await;
    let facts = fx.facts().await;
    assert_eq!(facts.pull.mergeable, Some(true));
    assert_eq!(facts.merge_state, Some(MergeState::Clean));
    assert_eq!(facts.pull.mergeable_state.as_deref(), Some("clean"));
    fx.assert_requests(&facts, 4);
}

/// A REST read of the pull request counts as one of GitHub's reads too.
#[tokio::test]
async fn a_rest_read_before_counts_towards_the_computation() {
    let fx = Fixture::start("readiness_lazy").await;
    let pull = fx
        .forge
        .pull_requests()
        .pull_request(&fx.pr(1))
        .await
        .expect("the pull request");
    assert_eq!(pull.mergeable, None);
    assert_eq!(pull.mergeable_state.as_deref(), Some("unknown"));
    fx.sim.clear_requests();
    let facts = fx.facts().await;
    assert_eq!(facts.pull.mergeable, Some(true));
    assert_eq!(facts.merge_state, Some(MergeState::Clean));
    fx.assert_requests(&facts, 4);
}

#[tokio::test]
async fn checks_past_the_first_page_are_read_within_four_requests() {
    let fx = Fixture::start("readiness_many_checks").await;
    let facts = fx.facts().await;
    assert_eq!(facts.checks.len(), 117);
    assert!(
        facts.checks[..100]
            .iter()
            .all(|c| c.outcome == CheckOutcome::Passed)
    );
    let failed: Vec<(&str, Option<bool>)> = facts
        .checks
        .iter()
        .filter(|c| c.outcome == CheckOutcome::Failed)
        .map(|c| (c.name.as_str(), c.required))
        .collect();
    assert_eq!(
        failed,
        [("check-105", Some(true)), ("check-112", Some(false))]
    );
    assert_eq!(check(&facts, "check-001").required, Some(true));
    assert_eq!(facts.rules.required_checks, ["check-001", "check-105"]);
    assert_eq!(facts.merge_state, Some(MergeState::Blocked));
    assert_eq!(facts.review_decision, Some(ReviewDecision::Approved));
    fx.assert_requests(&facts, 4);
    assert_eq!(fx.requests_to("/graphql").len(), 2);
}

#[tokio::test]
async fn a_missing_code_owner_review_is_review_required() {
    let fx = Fixture::start("readiness_code_owners").await;
    let facts = fx.facts().await;
    assert!(facts.rules.code_owner_review);
    assert_eq!(facts.rules.required_approvals, 1);
    assert_eq!(facts.review_decision, Some(ReviewDecision::ReviewRequired));
    assert_eq!(facts.merge_state, Some(MergeState::Blocked));
    assert_eq!(facts.review_requests, ["erin", "octo/core"]);
    assert_eq!(facts.reviews.len(), 1);
    fx.assert_requests(&facts, 3);
}

/// An approval by a code owner satisfies the same rule (the simulator derives the decision).
#[tokio::test]
async fn a_code_owners_approval_is_approved() {
    let fx = Fixture::start_with("readiness_code_owners", |s| {
        s.repos[0].pulls[0].reviews[0].author = "erin".into();
        s.repos[0].pulls[0].readiness.review_requests.clear();
    })
    .await;
    let facts = fx.facts().await;
    assert_eq!(facts.review_decision, Some(ReviewDecision::Approved));
    assert_eq!(facts.merge_state, Some(MergeState::Clean));
}

#[tokio::test]
async fn a_draft_is_blocked() {
    let fx = Fixture::start("readiness_draft").await;
    let facts = fx.facts().await;
    assert!(facts.pull.draft);
    assert_eq!(facts.merge_state, Some(MergeState::Blocked));
    assert_eq!(facts.review_decision, Some(ReviewDecision::Approved));
    fx.assert_requests(&facts, 3);
}

#[tokio::test]
async fn strict_checks_and_a_head_behind_its_base() {
    let fx = Fixture::start("readiness_behind").await;
    let facts = fx.facts().await;
    assert!(facts.rules.up_to_date);
    assert_eq!(facts.behind_by, Some(3));
    assert_eq!(facts.merge_state, Some(MergeState::Behind));
    assert_eq!(facts.auto_merge.as_deref(), Some("squash"));
    fx.assert_requests(&facts, 3);
}

#[tokio::test]
async fn unresolved_threads_under_a_resolution_rule() {
    let fx = Fixture::start("readiness_threads").await;
    let facts = fx.facts().await;
    assert!(facts.rules.conversation_resolution);
    assert_eq!(facts.unresolved_threads, Some(2));
    assert_eq!(facts.merge_state, Some(MergeState::Blocked));
    assert_eq!(facts.review_decision, Some(ReviewDecision::Approved));
    fx.assert_requests(&facts, 3);
}

/// 150 threads: the second page of their resolution is one more request.
#[tokio::test]
async fn threads_past_the_first_page_are_counted() {
    let fx = Fixture::start_with("readiness_threads", |s| {
        let yaml = "{count: 150, author: dave, unresolved_every: 10}";
        s.repos[0].pulls[0].generate_threads =
            Some(generated_threads(yaml).expect("generated threads"));
    })
    .await;
    let facts = fx.facts().await;
    assert_eq!(facts.unresolved_threads, Some(2 + 15));
    fx.assert_requests(&facts, 4);
}

/// A `generate_threads` block, read through the scenario format.
fn generated_threads(yaml: &str) -> Option<resolve_pr_forge_sim::GenerateThreads> {
    let text = format!(
        "forge: github\nrepos:\n  - owner: o\n    name: r\n    pulls:\n      - number: 1\n        title: t\n        author: a\n        head: {{ref: h, sha: \"1\"}}\n        base: {{ref: main, sha: \"2\"}}\n        created_at: \"2024-01-01T00:00:00Z\"\n        generate_threads: {yaml}\n"
    );
    Scenario::from_yaml(&text).ok()?.repos[0].pulls[0]
        .generate_threads
        .clone()
}

/// Rules the token cannot read are unknown, never "unprotected"; the rest of the answer
/// (the pull request, `isRequired`, the review decision) is still used.
#[tokio::test]
async fn unreadable_rules_are_unknown_not_absent() {
    let fx = Fixture::start("readiness_forbidden").await;
    let facts = fx.facts().await;
    let rules = &facts.rules;
    assert!(!rules.protected);
    assert!(rules.required_checks.is_empty());
    let sources: Vec<&str> = rules.unknown.iter().map(|u| u.source.as_str()).collect();
    assert_eq!(sources, ["rulesets of branch main", "branch protection"]);
    assert!(rules.unknown[0].reason.starts_with("HTTP 403"), "{rules:?}");
    assert!(
        rules.unknown[1].reason.starts_with("GraphQL FORBIDDEN"),
        "{rules:?}"
    );
    assert_eq!(check(&facts, "build").required, Some(true));
    assert_eq!(check(&facts, "lint").required, Some(false));
    assert_eq!(facts.review_decision, Some(ReviewDecision::ReviewRequired));
    assert_eq!(facts.merge_state, Some(MergeState::Blocked));
    assert!(facts.reviews.is_empty());
    fx.assert_requests(&facts, 3);
    assert_eq!(fx.requests_to("/rules/branches/main")[0].status, 403);
}

/// A 500 on the rules is retried like any GET; one that persists makes the rules unknown,
/// not the call a failure.
#[tokio::test]
async fn rules_failing_with_500_are_retried_then_unknown() {
    let fx = Fixture::start("readiness_clean").await;
    fx.sim
        .inject(status(500, "/repos/octo/app/rules/branches/*", 1));
    let facts = fx.facts().await;
    assert!(facts.rules.unknown.is_empty(), "{:?}", facts.rules.unknown);
    assert_eq!(facts.rules.required_approvals, 1);
    assert_eq!(fx.requests_to("/rules/branches/").len(), 2, "retried once");

    fx.sim.clear_requests();
    fx.sim
        .inject(status(500, "/repos/octo/app/rules/branches/*", 10));
    let facts = fx.facts().await;
    assert_eq!(facts.rules.unknown.len(), 1);
    assert_eq!(facts.rules.unknown[0].source, "rulesets of branch main");
    assert!(facts.rules.unknown[0].reason.starts_with("HTTP 500"));
    // Classic protection (GraphQL) still counts.
    assert_eq!(facts.rules.sources, ["branch protection"]);
    assert_eq!(facts.rules.required_checks, ["build", "test"]);
    assert_eq!(fx.requests_to("/rules/branches/").len(), 3, "1 + 2 retries");
    assert_eq!(facts.merge_state, Some(MergeState::Clean));
}

#[tokio::test]
async fn a_failed_compare_is_an_unknown_distance() {
    let fx = Fixture::start("readiness_behind").await;
    fx.sim.inject(status(404, "/repos/octo/app/compare/*", 1));
    let facts = fx.facts().await;
    assert_eq!(facts.behind_by, None);
    assert_eq!(facts.merge_state, Some(MergeState::Behind));
}

/// Branch names go into URLs percent-encoded, whatever they hold; the simulator decodes
/// them and still finds the branch's rules and the comparison.
#[tokio::test]
async fn hostile_branch_names_are_harmless() {
    for name in ["-x", "a;rm -rf ~", "$(id)", "release/1.x #2"] {
        let fx = Fixture::start_with("readiness_behind", |s| {
            s.repos[0].branch_protections[0].branch = name.to_owned();
            s.repos[0].pulls[0].base.ref_name = name.to_owned();
        })
        .await;
        let facts = fx.facts().await;
        assert_eq!(facts.pull.base_ref, name);
        assert_eq!(facts.behind_by, Some(3), "{name}");
        assert!(facts.rules.up_to_date, "{name}");
        assert_eq!(facts.rules.required_checks, ["build"], "{name}");
        let paths: Vec<String> = fx.api_requests().into_iter().map(|r| r.path).collect();
        assert!(
            paths
                .iter()
                .all(|p| !p.contains(' ') && !p.contains(';') && !p.contains('$')),
            "{paths:?}"
        );
    }
}

#[tokio::test]
async fn review_requests_bots_and_merge_flags() {
    let fx = Fixture::start_with("readiness_clean", |s| {
        let readiness = &mut s.repos[0].pulls[0].readiness;
        readiness.review_requests = vec!["renovate[bot]".into(), "alice".into()];
        readiness.in_merge_queue = true;
        readiness.viewer_can_merge_as_admin = true;
        readiness.auto_merge = Some("MERGE".into());
    })
    .await;
    let facts = fx.facts().await;
    assert_eq!(facts.review_requests, ["renovate[bot]", "alice"]);
    assert!(facts.in_merge_queue && facts.viewer_can_bypass);
    assert_eq!(facts.auto_merge.as_deref(), Some("merge"));
}

/// Only writers' latest opinionated reviews count: a reader's change request is left out
/// (`writersOnly`), a later approval replaces a change request, and a dismissed review
/// withdraws its author's opinion.
#[tokio::test]
async fn latest_opinionated_reviews_of_writers() {
    let fx = Fixture::start_with("readiness_clean", |s| {
        let yaml = format!(
            "[{{author: carol, state: CHANGES_REQUESTED, commit_id: {HEAD}}},\
             {{author: alice, state: CHANGES_REQUESTED, commit_id: {HEAD}}},\
             {{author: alice, state: COMMENTED, commit_id: {HEAD}}},\
             {{author: erin, state: CHANGES_REQUESTED, commit_id: {HEAD}}},\
             {{author: erin, state: DISMISSED, commit_id: {HEAD}}},\
             {{author: alice, state: APPROVED, commit_id: {HEAD}}}]"
        );
        let extra: Vec<resolve_pr_forge_sim::ReviewSpec> =
            reviews_from_yaml(&yaml).expect("reviews");
        s.repos[0].pulls[0].reviews.extend(extra);
    })
    .await;
    let facts = fx.facts().await;
    let latest: Vec<(&str, ReviewVerdict)> = facts
        .reviews
        .iter()
        .map(|r| (r.author.login.as_str(), r.verdict))
        .collect();
    assert_eq!(
        latest,
        [
            ("dave", ReviewVerdict::Approved),
            ("alice", ReviewVerdict::Approved)
        ]
    );
    assert_eq!(facts.review_decision, Some(ReviewDecision::Approved));
}

fn reviews_from_yaml(yaml: &str) -> Option<Vec<resolve_pr_forge_sim::ReviewSpec>> {
    let text = format!(
        "forge: github\nrepos:\n  - owner: o\n    name: r\n    pulls:\n      - number: 1\n        title: t\n        author: a\n        head: {{ref: h, sha: \"1\"}}\n        base: {{ref: main, sha: \"2\"}}\n        created_at: \"2024-01-01T00:00:00Z\"\n        reviews: {yaml}\n"
    );
    Some(
        Scenario::from_yaml(&text).ok()?.repos[0].pulls[0]
            .reviews
            .clone(),
    )
}

#[tokio::test]
async fn an_unknown_pull_request_is_not_found() {
    let fx = Fixture::start("readiness_clean").await;
    let e = fx
        .forge
        .repository()
        .merge_facts(&fx.pr(99))
        .await
        .expect_err("no such pull request");
    assert!(
        matches!(e, resolve_pr_forge::Error::NotFound { .. }),
        "{e:?}"
    );
    let e = resolve_pr_core::Error::from(e);
    assert_eq!(e.category, Category::User);
    assert_eq!(fx.api_requests().len(), 1, "nothing more is asked");
}

/// A transient GraphQL failure is retried; one that persists fails the call (the pull
/// request itself is not optional).
#[tokio::test]
async fn graphql_timeouts_are_retried() {
    let fx = Fixture::start("readiness_clean").await;
    let timeout = |times| {
        Fault {
        method: Some("POST".into()),
        path: "/graphql".into(),
        times,
        kind: FaultKind::GraphqlError {
            error_type: None,
            message: "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug.".into(),
            keep_data: false,
        },
    }
    };
    fx.sim.inject(timeout(1));
    let facts = fx.facts().await;
    assert_eq!(facts.merge_state, Some(MergeState::Clean));
    assert_eq!(fx.requests_to("/graphql").len(), 2);

    fx.sim.inject(timeout(10));
    let e = fx
        .forge
        .repository()
        .merge_facts(&fx.pr(1))
        .await
        .expect_err("timed out every time");
    assert_eq!(resolve_pr_core::Error::from(e).category, Category::Api);
}
