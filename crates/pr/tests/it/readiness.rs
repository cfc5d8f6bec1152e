//! `readiness::assess` on the cases the forges present: each requirement decided only by what
//! was read, unknowns never taken as "holds".

use resolve_pr_forge::{
    Actor, BranchRules, CheckContext, CheckOutcome, LatestReview, MergeFacts, MergeState, PrState,
    PullRequest, ReviewDecision, ReviewVerdict, UnreadRules,
};
use resolve_pr_pr::readiness::{Blocker, Holds, Unknown, Warning, assess, glob_match};

fn pull() -> PullRequest {
    PullRequest {
        number: 1,
        title: "t".into(),
        body: String::new(),
        labels: Vec::new(),
        state: PrState::Open,
        draft: false,
        author: Actor {
            login: "alice".into(),
            is_bot: false,
        },
        html_url: "https://github.com/o/r/pull/1".into(),
        head_ref: "feature".into(),
        head_sha: "a".repeat(40),
        base_ref: "main".into(),
        base_sha: "b".repeat(40),
        merged_at: None,
        merge_commit_sha: None,
        mergeable: Some(true),
        mergeable_state: None,
        base_repo: "o/r".into(),
        head_repo: Some("o/r".into()),
        base_clone_url: None,
        head_clone_url: None,
    }
}

fn check(name: &str, outcome: CheckOutcome, required: Option<bool>) -> CheckContext {
    CheckContext {
        name: name.into(),
        outcome,
        required,
        url: None,
    }
}

fn review(login: &str, verdict: ReviewVerdict) -> LatestReview {
    LatestReview {
        author: Actor {
            login: login.into(),
            is_bot: false,
        },
        verdict,
        commit_id: None,
    }
}

/// GitHub, all green: approved by the one required reviewer, the required check passed.
fn github_clean() -> MergeFacts {
    MergeFacts {
        pull: pull(),
        merge_state: Some(MergeState::Clean),
        review_decision: Some(ReviewDecision::Approved),
        reviews: vec![review("bob", ReviewVerdict::Approved)],
        review_requests: vec![],
        checks: vec![
            check("build", CheckOutcome::Passed, Some(true)),
            check("lint", CheckOutcome::Passed, Some(false)),
        ],
        rules: BranchRules {
            protected: true,
            required_approvals: 1,
            required_checks: vec!["build".into()],
            sources: vec!["branch protection".into()],
            ..Default::default()
        },
        behind_by: Some(0),
        unresolved_threads: Some(0),
        in_merge_queue: false,
        auto_merge: None,
        viewer_can_bypass: false,
        requests: 3,
    }
}

#[test]
fn all_green_and_approved_is_ready() {
    let r = assess(&github_clean(), None);
    assert!(r.ready, "{r:?}");
    assert_eq!(r.approvals_met, Holds::Yes);
    assert_eq!(r.required_checks_passed, Holds::Yes);
    assert_eq!(r.branch_protection_satisfied, Holds::Yes);
    assert_eq!(r.protection.current_approvals, 1);
    assert!(r.blockers.is_empty() && r.unknowns.is_empty());
}

#[test]
fn a_required_failure_on_a_later_page_blocks() {
    let mut f = github_clean();
    for i in 0..116 {
        f.checks.push(check(
            &format!("shard {i}"),
            CheckOutcome::Passed,
            Some(false),
        ));
    }
    f.checks
        .push(check("e2e", CheckOutcome::Failed, Some(true)));
    f.merge_state = Some(MergeState::Blocked);
    let r = assess(&f, None);
    assert!(!r.ready);
    assert_eq!(
        r.blockers,
        vec![Blocker::RequiredChecksFailing {
            names: vec!["e2e".into()]
        }]
    );
    assert_eq!(r.ci_passing, Holds::No);
    assert_eq!(r.branch_protection_satisfied, Holds::No);
}

#[test]
fn an_optional_failure_warns_whether_the_branch_requires_checks_or_none() {
    let mut f = github_clean();
    f.checks
        .push(check("coverage", CheckOutcome::Failed, Some(false)));
    f.merge_state = Some(MergeState::Unstable);
    let r = assess(&f, None);
    assert!(r.ready, "{r:?}");
    assert_eq!(r.ci_passing, Holds::No);
    assert!(
        matches!(&r.warnings[0], Warning::OptionalChecksFailing { names } if names == &["coverage"])
    );

    // No rule requires any check: the forge merges past the failure, so it warns.
    let mut f = github_clean();
    f.merge_state = None;
    f.review_decision = None;
    f.rules = BranchRules::default();
    f.checks = vec![check("tests", CheckOutcome::Failed, Some(false))];
    let r = assess(&f, None);
    assert!(r.ready, "{r:?}");
    assert!(r.blockers.is_empty());
    assert!(r.warnings.contains(&Warning::OptionalChecksFailing {
        names: vec!["tests".into()]
    }));
}

#[test]
fn lazy_mergeability_is_unknown_unless_merged_locally() {
    let mut f = github_clean();
    f.pull.mergeable = None;
    f.merge_state = Some(MergeState::Unknown);
    let r = assess(&f, None);
    assert!(!r.ready);
    assert_eq!(r.no_conflicts, Holds::Unknown);
    assert_eq!(r.unknowns, vec![Unknown::Mergeable]);
    let r = assess(&f, Some(false));
    assert_eq!(r.no_conflicts, Holds::Yes);
    assert!(r.ready, "{r:?}");
    let r = assess(&f, Some(true));
    assert_eq!(r.blockers, vec![Blocker::Conflicts]);
}

#[test]
fn forgejo_false_mergeable_is_not_a_conflict_by_itself() {
    let mut f = github_clean();
    f.merge_state = None;
    f.review_decision = None;
    f.pull.mergeable = Some(false);
    let r = assess(&f, None);
    assert_eq!(r.no_conflicts, Holds::Unknown);
    let r = assess(&f, Some(true));
    assert_eq!(r.no_conflicts, Holds::No);
}

#[test]
fn code_owner_review_missing_despite_enough_approvals() {
    let mut f = github_clean();
    f.rules.code_owner_review = true;
    f.review_decision = Some(ReviewDecision::ReviewRequired);
    f.merge_state = Some(MergeState::Blocked);
    let r = assess(&f, None);
    assert_eq!(r.blockers, vec![Blocker::CodeOwnerReview]);
    assert_eq!(r.approvals_met, Holds::No);
}

#[test]
fn draft_blocks() {
    let mut f = github_clean();
    f.pull.draft = true;
    f.merge_state = Some(MergeState::Blocked);
    let r = assess(&f, None);
    assert_eq!(r.blockers, vec![Blocker::Draft]);
}

#[test]
fn behind_blocks_only_under_an_up_to_date_rule() {
    let mut f = github_clean();
    f.behind_by = Some(3);
    let r = assess(&f, None);
    assert!(r.ready);
    assert_eq!(r.up_to_date, Holds::No);
    assert!(r.warnings.contains(&Warning::Behind { by: 3 }));
    f.rules.up_to_date = true;
    f.merge_state = Some(MergeState::Behind);
    let r = assess(&f, None);
    assert_eq!(r.blockers, vec![Blocker::Behind { by: Some(3) }]);
}

#[test]
fn behind_a_strict_base_blocks_beside_a_missing_approval_and_unread_strictness_is_unknown() {
    // A ruleset requires it up to date (read), an approval is missing: GitHub says BLOCKED,
    // and updating the branch is still needed.
    let mut f = github_clean();
    f.behind_by = Some(3);
    f.rules.up_to_date = true;
    f.rules.required_approvals = 2;
    f.review_decision = Some(ReviewDecision::ReviewRequired);
    f.merge_state = Some(MergeState::Blocked);
    let r = assess(&f, None);
    assert_eq!(
        r.blockers,
        vec![
            Blocker::ApprovalsMissing {
                required: 2,
                current: 1
            },
            Blocker::Behind { by: Some(3) }
        ]
    );
    // Classic protection read as a non-admin: its strict flag is not shown. Behind under
    // BLOCKED is then unknown, never "not required".
    f.rules.up_to_date = false;
    f.rules.up_to_date_unread = true;
    let r = assess(&f, None);
    assert_eq!(r.unknowns, vec![Unknown::UpToDateRule { by: 3 }]);
    assert!(!r.warnings.contains(&Warning::Behind { by: 3 }), "{r:?}");
    // GitHub's CLEAN says no rule requires it: a warning.
    let mut f = github_clean();
    f.behind_by = Some(3);
    f.rules.up_to_date_unread = true;
    let r = assess(&f, None);
    assert!(r.ready && r.warnings.contains(&Warning::Behind { by: 3 }));
}

#[test]
fn unresolved_threads_block_under_conversation_resolution() {
    let mut f = github_clean();
    f.unresolved_threads = Some(2);
    assert!(assess(&f, None).ready, "no rule, no block");
    f.rules.conversation_resolution = true;
    f.merge_state = Some(MergeState::Blocked);
    let r = assess(&f, None);
    assert_eq!(r.blockers, vec![Blocker::UnresolvedThreads { count: 2 }]);
}

#[test]
fn unreadable_rules_are_unknown_never_unprotected() {
    let mut f = github_clean();
    f.rules = BranchRules {
        unknown: vec![UnreadRules {
            source: "rulesets".into(),
            reason: "403 Forbidden".into(),
        }],
        ..Default::default()
    };
    f.checks = vec![check("build", CheckOutcome::Passed, Some(true))];
    f.review_decision = Some(ReviewDecision::ReviewRequired);
    f.reviews.clear();
    f.merge_state = Some(MergeState::Blocked);
    let r = assess(&f, None);
    assert!(!r.ready);
    assert!(
        r.unknowns
            .iter()
            .any(|u| matches!(u, Unknown::Rules { .. })),
        "{r:?}"
    );
    assert_eq!(r.branch_protection_satisfied, Holds::No);

    // Forgejo: nothing vouches for the rules, so an unread protection keeps it unknown.
    let mut f = github_clean();
    f.merge_state = None;
    f.review_decision = None;
    f.rules.unknown.push(UnreadRules {
        source: "branch protection".into(),
        reason: "403".into(),
    });
    let r = assess(&f, None);
    assert!(!r.ready);
    assert_eq!(r.branch_protection_satisfied, Holds::Unknown);

    // GitHub's CLEAN covers what could not be read.
    let mut f = github_clean();
    f.rules.unknown.push(UnreadRules {
        source: "rulesets".into(),
        reason: "403".into(),
    });
    let r = assess(&f, None);
    assert!(r.ready, "{r:?}");
    assert!(matches!(
        r.warnings[0],
        Warning::UnreadRulesCoveredByForge { .. }
    ));
}

#[test]
fn forgejo_rejected_reviews_block_only_under_the_rule() {
    let mut f = github_clean();
    f.merge_state = None;
    f.review_decision = None;
    f.reviews
        .push(review("carol", ReviewVerdict::ChangesRequested));
    assert!(assess(&f, None).ready);
    f.rules.block_on_rejected_reviews = true;
    let r = assess(&f, None);
    assert_eq!(
        r.blockers,
        vec![Blocker::ChangesRequested {
            by: vec!["carol".into()]
        }]
    );
}

#[test]
fn pending_official_requests_block_only_under_their_rule() {
    let mut f = github_clean();
    f.merge_state = None;
    f.review_decision = None;
    f.review_requests = vec!["carol".into()];
    assert!(assess(&f, None).ready);
    f.rules.official_review_requests = true;
    let r = assess(&f, None);
    assert_eq!(
        r.blockers,
        vec![Blocker::ReviewRequestsPending {
            reviewers: vec!["carol".into()]
        }]
    );
}

#[test]
fn required_checks_not_reported_are_missing() {
    let mut f = github_clean();
    f.rules.required_checks.push("deploy-preview".into());
    let r = assess(&f, None);
    assert_eq!(
        r.blockers,
        vec![Blocker::RequiredChecksMissing {
            names: vec!["deploy-preview".into()]
        }]
    );
}

#[test]
fn globs_match_as_forgejo_matches_status_contexts() {
    assert!(glob_match("ci/*", "ci/build"));
    assert!(glob_match("test (?)", "test (3)"));
    assert!(glob_match("*", "anything"));
    assert!(!glob_match("ci/*", "lint"));
    assert!(glob_match("build", "build"));
    assert!(!glob_match("build", "build-2"));
}

#[test]
fn on_an_unprotected_branch_a_failure_warns_as_github_says_unstable() {
    let mut f = github_clean();
    f.rules = BranchRules::default();
    f.review_decision = None;
    f.merge_state = Some(MergeState::Unstable);
    f.checks = vec![check("lint", CheckOutcome::Failed, Some(false))];
    let r = assess(&f, None);
    assert!(r.ready, "GitHub merges an UNSTABLE PR: {r:?}");
    assert_eq!(r.ci_passing, Holds::No);
    assert_eq!(
        r.warnings,
        vec![Warning::OptionalChecksFailing {
            names: vec!["lint".into()]
        }]
    );
}

#[test]
fn changes_requested_warn_unless_a_rule_makes_them_block() {
    // GitHub, no review rule: no decision, a writer asked for changes, and GitHub merges.
    let mut f = github_clean();
    f.rules = BranchRules::default();
    f.review_decision = None;
    f.reviews = vec![review("alice", ReviewVerdict::ChangesRequested)];
    let r = assess(&f, None);
    assert_eq!(r.no_requested_changes, Holds::No);
    assert!(r.ready, "{r:?}");
    assert!(r.blockers.is_empty());
    assert_eq!(
        r.warnings,
        vec![Warning::ChangesRequested {
            by: vec!["alice".into()]
        }]
    );
    // Forgejo, unprotected branch: nothing makes it block either.
    f.merge_state = None;
    assert!(assess(&f, None).ready);
    // Forgejo with a readable rule that does not block on rejected reviews: a warning.
    let mut f = github_clean();
    f.merge_state = None;
    f.review_decision = None;
    f.reviews
        .push(review("carol", ReviewVerdict::ChangesRequested));
    let r = assess(&f, None);
    assert!(r.ready);
    assert_eq!(r.no_requested_changes, Holds::No);
    assert!(r.warnings.contains(&Warning::ChangesRequested {
        by: vec!["carol".into()]
    }));
}

#[test]
fn a_merged_pull_request_stops_at_its_state() {
    let mut f = github_clean();
    f.pull.state = PrState::Merged;
    f.pull.mergeable = None;
    let r = assess(&f, None);
    assert_eq!(
        r.blockers,
        vec![Blocker::NotOpen {
            state: PrState::Merged
        }]
    );
    assert!(r.unknowns.is_empty() && r.warnings.is_empty());
}
