//! Whether a pull request can merge now, from what the forge reports ([`MergeFacts`]) and,
//! when the forge has not decided whether it conflicts, a local merge.
//!
//! Every requirement is `Holds::Yes` only when something read says so, `No` with the
//! [`Blocker`] that says why, or `Unknown` with the [`Unknown`] that says what could not be
//! read. `ready` is true only when the pull request is open, nothing blocks it and nothing is
//! unknown. The rules, each deterministic:
//!
//! - **State**: a closed or merged pull request, or a draft, is blocked.
//! - **Conflicts**: the forge's `mergeable`. GitHub's `false` is a conflict; Forgejo/Gitea's
//!   `false` is not conclusive (also said while checking), so there, and when GitHub has not
//!   computed it, the local merge answers, else it is unknown.
//! - **State**: a closed or merged pull request stops here: nothing else is checked.
//! - **Checks**: a required check that failed, is pending or has not reported blocks. A
//!   failing check the rules do not require is a warning (the forge merges past it, GitHub
//!   says UNSTABLE), also when the branch requires none. A check whose required-ness could
//!   not be read and that is not passing is unknown.
//! - **Approvals**: GitHub's `reviewDecision` when it gives one (it applies every rule,
//!   code owners included); otherwise the count of approving latest reviews against the
//!   rules' `required_approvals`. A review requesting changes blocks on GitHub when the
//!   decision says so, on Forgejo/Gitea when the rule `block_on_rejected_reviews` is set;
//!   where no rule makes it block (no review rule on GitHub, an unprotected branch) the
//!   forge merges, so it is a warning.
//!   Pending review requests block when the rules say official requests must be answered
//!   (Forgejo/Gitea); every pending request counts, since the API does not mark which are.
//! - **Up to date**: behind the base blocks when the rules require the head up to date (or
//!   GitHub says `BEHIND`), whatever else blocks too; when whether they do could not be read
//!   (classic protection's strict flag, for a token without admin rights) and GitHub's
//!   verdict does not settle it, it is unknown; otherwise a warning.
//! - **Conversations**: unresolved threads block when the rules require resolution.
//! - **Rules that could not be read** (a 403/404 on protection) are unknown, never taken as
//!   "no rule". On GitHub, a merge state of `CLEAN`, `HAS_HOOKS` or `UNSTABLE` is GitHub's own
//!   verdict that every rule holds, so unread rules do not stand in the way then; `BLOCKED`
//!   with no blocker found is itself a blocker naming the unread sources.

use resolve_pr_forge::{
    BranchRules, CheckContext, CheckOutcome, MergeFacts, MergeState, PrState, ReviewDecision,
    ReviewVerdict,
};

/// Whether a requirement holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    Yes,
    No,
    Unknown,
}

impl Holds {
    fn and(self, other: Holds) -> Holds {
        match (self, other) {
            (Holds::No, _) | (_, Holds::No) => Holds::No,
            (Holds::Unknown, _) | (_, Holds::Unknown) => Holds::Unknown,
            _ => Holds::Yes,
        }
    }
}

/// What the pull request's merge needs, requirement by requirement.
#[derive(Debug, Clone, PartialEq)]
pub struct Readiness {
    pub ready: bool,
    /// Every check of the head passed (required or not), none pending.
    pub ci_passing: Holds,
    /// Every check the rules require passed.
    pub required_checks_passed: Holds,
    pub approvals_met: Holds,
    pub no_requested_changes: Holds,
    pub no_conflicts: Holds,
    /// The head contains the base's tip.
    pub up_to_date: Holds,
    /// Every rule of the base branch holds.
    pub branch_protection_satisfied: Holds,
    pub blockers: Vec<Blocker>,
    pub unknowns: Vec<Unknown>,
    pub warnings: Vec<Warning>,
    pub protection: Protection,
    /// Where the conflict verdict came from.
    pub conflicts_from: ConflictSource,
}

/// The branch's rules and how the pull request stands against them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Protection {
    pub protected: bool,
    pub required_approvals: u32,
    /// Approving latest reviews that count.
    pub current_approvals: u32,
    pub approving_users: Vec<String>,
    pub requesting_changes: Vec<String>,
    pub pending_reviewers: Vec<String>,
    /// Required checks: names the rules list and head checks the forge marks required.
    pub required_checks: Vec<String>,
    pub passing_checks: Vec<String>,
    /// Completed neither passed nor failed (neutral, skipped): they pass a rule.
    pub skipped_checks: Vec<String>,
    pub failing_checks: Vec<String>,
    pub pending_checks: Vec<String>,
    /// Required checks that have not reported on the head.
    pub missing_checks: Vec<String>,
    pub code_owner_review: bool,
    pub conversation_resolution: bool,
    pub up_to_date_required: bool,
    pub linear_history: bool,
    pub signed_commits: bool,
    pub merge_queue: bool,
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictSource {
    Forge,
    Local,
    None,
}

/// Why the pull request cannot merge now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocker {
    /// Closed or merged already.
    NotOpen {
        state: PrState,
    },
    Draft,
    Conflicts,
    /// Required checks that failed.
    RequiredChecksFailing {
        names: Vec<String>,
    },
    /// Required checks still running or queued.
    RequiredChecksPending {
        names: Vec<String>,
    },
    /// Required checks the head has not reported at all.
    RequiredChecksMissing {
        names: Vec<String>,
    },
    ApprovalsMissing {
        required: u32,
        current: u32,
    },
    /// Approvals are there, but GitHub still requires a review: a code owner's, when the
    /// rules ask for one.
    CodeOwnerReview,
    /// GitHub requires a review (reviewDecision `REVIEW_REQUIRED`) and the count does not say
    /// why.
    ReviewRequired,
    ChangesRequested {
        by: Vec<String>,
    },
    /// Requested reviews not given yet, under a rule that makes pending official requests
    /// block (Forgejo/Gitea `block_on_official_review_requests`).
    ReviewRequestsPending {
        reviewers: Vec<String>,
    },
    UnresolvedThreads {
        count: u64,
    },
    Behind {
        by: Option<u64>,
    },
    /// GitHub reports the merge blocked and nothing read explains it.
    BlockedByForge {
        unread: Vec<String>,
    },
}

/// A requirement that could not be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unknown {
    /// A source of rules could not be read.
    Rules { source: String, reason: String },
    /// Whether the head conflicts with the base (the forge has not computed it, no local
    /// checkout to merge in).
    Mergeable,
    /// Checks not passing whose required-ness could not be read.
    CheckRequirement { names: Vec<String> },
    /// How far behind the base the head is, under a rule that requires it up to date.
    Behind,
    /// Unresolved threads under a rule that requires resolution.
    Threads,
    /// Behind the base, and whether a rule requires the head up to date could not be read
    /// (classic protection's strict flag is shown to admins only).
    UpToDateRule { by: u64 },
}

/// Something worth knowing that does not block the merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// Checks the rules do not require that failed.
    OptionalChecksFailing {
        names: Vec<String>,
    },
    /// Checks the rules do not require still running.
    OptionalChecksPending {
        names: Vec<String>,
    },
    /// Behind the base without a rule requiring it up to date.
    Behind {
        by: u64,
    },
    /// Changes requested under a rule that does not block on them.
    ChangesRequested {
        by: Vec<String>,
    },
    /// The branch merges through a merge queue.
    MergeQueue {
        queued: bool,
    },
    AutoMerge {
        method: String,
    },
    /// The caller may merge past the rules (GitHub admins).
    CanBypass,
    /// Rules that could not be read, which GitHub's own verdict covers.
    UnreadRulesCoveredByForge {
        sources: Vec<String>,
    },
}

/// `local_conflicts`: the local merge's verdict when one was made (`Some(true)`: conflicts).
pub fn assess(facts: &MergeFacts, local_conflicts: Option<bool>) -> Readiness {
    let rules = &facts.rules;
    let pull = &facts.pull;
    let mut blockers = Vec::new();
    let mut unknowns = Vec::new();
    let mut warnings = Vec::new();
    let forge_vouches = matches!(
        facts.merge_state,
        Some(MergeState::Clean | MergeState::HasHooks | MergeState::Unstable)
    );

    if pull.state != PrState::Open {
        // A closed or merged pull request has nothing left to check.
        return Readiness {
            ready: false,
            ci_passing: Holds::Unknown,
            required_checks_passed: Holds::Unknown,
            approvals_met: Holds::Unknown,
            no_requested_changes: Holds::Unknown,
            no_conflicts: Holds::Unknown,
            up_to_date: Holds::Unknown,
            branch_protection_satisfied: Holds::Unknown,
            blockers: vec![Blocker::NotOpen { state: pull.state }],
            unknowns: Vec::new(),
            warnings: Vec::new(),
            protection: Protection::default(),
            conflicts_from: ConflictSource::None,
        };
    }
    if pull.draft || facts.merge_state == Some(MergeState::Draft) {
        blockers.push(Blocker::Draft);
    }

    // Conflicts.
    let github = facts.merge_state.is_some();
    let (no_conflicts, conflicts_from) = match (pull.mergeable, local_conflicts) {
        (Some(true), _) => (Holds::Yes, ConflictSource::Forge),
        (Some(false), _) if github => (Holds::No, ConflictSource::Forge),
        (_, Some(conflicts)) => (
            if conflicts { Holds::No } else { Holds::Yes },
            ConflictSource::Local,
        ),
        _ if facts.merge_state == Some(MergeState::Dirty) => (Holds::No, ConflictSource::Forge),
        _ => (Holds::Unknown, ConflictSource::None),
    };
    match no_conflicts {
        Holds::No => blockers.push(Blocker::Conflicts),
        Holds::Unknown => unknowns.push(Unknown::Mergeable),
        Holds::Yes => {}
    }

    // Checks.
    let checks = sort_checks(&facts.checks, rules);
    let ci_passing = if checks.failing.is_empty() && checks.pending.is_empty() {
        Holds::Yes
    } else {
        Holds::No
    };
    let mut required_checks_passed = Holds::Yes;
    if !checks.required_failing.is_empty() {
        blockers.push(Blocker::RequiredChecksFailing {
            names: checks.required_failing.clone(),
        });
        required_checks_passed = Holds::No;
    }
    if !checks.required_pending.is_empty() {
        blockers.push(Blocker::RequiredChecksPending {
            names: checks.required_pending.clone(),
        });
        required_checks_passed = Holds::No;
    }
    if !checks.missing.is_empty() {
        blockers.push(Blocker::RequiredChecksMissing {
            names: checks.missing.clone(),
        });
        required_checks_passed = Holds::No;
    }
    // A failing check no rule requires does not stop the forge's merge: unwise, not blocked.
    if !checks.optional_failing.is_empty() {
        warnings.push(Warning::OptionalChecksFailing {
            names: checks.optional_failing.clone(),
        });
    }
    if !checks.optional_pending.is_empty() {
        warnings.push(Warning::OptionalChecksPending {
            names: checks.optional_pending.clone(),
        });
    }
    if !checks.unknown_requirement.is_empty() {
        if forge_vouches {
            // GitHub says the merge is allowed: none of them is required.
        } else {
            unknowns.push(Unknown::CheckRequirement {
                names: checks.unknown_requirement.clone(),
            });
            required_checks_passed = required_checks_passed.and(Holds::Unknown);
        }
    }

    // Reviews.
    let approving: Vec<String> = facts
        .reviews
        .iter()
        .filter(|r| r.verdict == ReviewVerdict::Approved)
        .map(|r| r.author.login.clone())
        .collect();
    let requesting: Vec<String> = facts
        .reviews
        .iter()
        .filter(|r| r.verdict == ReviewVerdict::ChangesRequested)
        .map(|r| r.author.login.clone())
        .collect();
    let current = u32::try_from(approving.len()).unwrap_or(u32::MAX);
    let rules_unread = !rules.unknown.is_empty();
    let (approvals_met, no_requested_changes) = match facts.review_decision {
        Some(ReviewDecision::Approved) => (Holds::Yes, Holds::Yes),
        Some(ReviewDecision::ChangesRequested) => {
            blockers.push(Blocker::ChangesRequested {
                by: requesting.clone(),
            });
            (
                if current >= rules.required_approvals.max(1) {
                    Holds::Yes
                } else {
                    Holds::No
                },
                Holds::No,
            )
        }
        Some(ReviewDecision::ReviewRequired) => {
            if current < rules.required_approvals {
                blockers.push(Blocker::ApprovalsMissing {
                    required: rules.required_approvals,
                    current,
                });
            } else if rules.code_owner_review {
                blockers.push(Blocker::CodeOwnerReview);
            } else {
                blockers.push(Blocker::ReviewRequired);
            }
            (Holds::No, Holds::Yes)
        }
        None => {
            let changes = if requesting.is_empty() {
                Holds::Yes
            } else if rules.block_on_rejected_reviews {
                blockers.push(Blocker::ChangesRequested {
                    by: requesting.clone(),
                });
                Holds::No
            } else {
                // No rule makes a request for changes block (GitHub gives no decision when
                // no review is required; an unprotected branch has no rule): the forge
                // merges, so it is a warning.
                warnings.push(Warning::ChangesRequested {
                    by: requesting.clone(),
                });
                Holds::No
            };
            // The count required is read with the branch (on every forge, by readers); what
            // an unread source adds is listed as unknown rules already.
            let met = if current >= rules.required_approvals {
                Holds::Yes
            } else {
                blockers.push(Blocker::ApprovalsMissing {
                    required: rules.required_approvals,
                    current,
                });
                Holds::No
            };
            (met, changes)
        }
    };

    if rules.official_review_requests && !facts.review_requests.is_empty() {
        blockers.push(Blocker::ReviewRequestsPending {
            reviewers: facts.review_requests.clone(),
        });
    }

    // Up to date.
    let behind_blocks = rules.up_to_date || facts.merge_state == Some(MergeState::Behind);
    let up_to_date = match facts.behind_by {
        Some(0) => Holds::Yes,
        Some(by) => {
            if behind_blocks {
                blockers.push(Blocker::Behind { by: Some(by) });
            } else if rules.up_to_date_unread && !forge_vouches {
                // A rule may require it up to date and the token cannot see whether it does;
                // GitHub's merge state names another blocker, so it does not say either.
                unknowns.push(Unknown::UpToDateRule { by });
            } else {
                warnings.push(Warning::Behind { by });
            }
            Holds::No
        }
        None => {
            if facts.merge_state == Some(MergeState::Behind) {
                blockers.push(Blocker::Behind { by: None });
                Holds::No
            } else {
                if rules.up_to_date && !forge_vouches {
                    unknowns.push(Unknown::Behind);
                }
                Holds::Unknown
            }
        }
    };

    // Conversations.
    if rules.conversation_resolution {
        match facts.unresolved_threads {
            Some(0) => {}
            Some(count) => blockers.push(Blocker::UnresolvedThreads { count }),
            None if forge_vouches => {}
            None => unknowns.push(Unknown::Threads),
        }
    }

    // Rules that could not be read.
    if rules_unread {
        if forge_vouches {
            warnings.push(Warning::UnreadRulesCoveredByForge {
                sources: rules.unknown.iter().map(|u| u.source.clone()).collect(),
            });
        } else {
            for u in &rules.unknown {
                unknowns.push(Unknown::Rules {
                    source: u.source.clone(),
                    reason: u.reason.clone(),
                });
            }
        }
    }
    let protection_blocker = |b: &Blocker| {
        matches!(
            b,
            Blocker::RequiredChecksFailing { .. }
                | Blocker::RequiredChecksPending { .. }
                | Blocker::RequiredChecksMissing { .. }
                | Blocker::ApprovalsMissing { .. }
                | Blocker::CodeOwnerReview
                | Blocker::ReviewRequired
                | Blocker::ChangesRequested { .. }
                | Blocker::ReviewRequestsPending { .. }
                | Blocker::UnresolvedThreads { .. }
                | Blocker::Behind { .. }
        )
    };
    if facts.merge_state == Some(MergeState::Blocked)
        && !blockers
            .iter()
            .any(|b| protection_blocker(b) || *b == Blocker::Draft)
    {
        blockers.push(Blocker::BlockedByForge {
            unread: rules.unknown.iter().map(|u| u.source.clone()).collect(),
        });
    }

    if rules.merge_queue || facts.in_merge_queue {
        warnings.push(Warning::MergeQueue {
            queued: facts.in_merge_queue,
        });
    }
    if let Some(method) = &facts.auto_merge {
        warnings.push(Warning::AutoMerge {
            method: method.clone(),
        });
    }
    if facts.viewer_can_bypass {
        warnings.push(Warning::CanBypass);
    }

    let mut branch_protection_satisfied = if blockers.iter().any(|b| {
        protection_blocker(b) && (rules.protected || !matches!(b, Blocker::ChangesRequested { .. }))
    }) || blockers
        .iter()
        .any(|b| matches!(b, Blocker::BlockedByForge { .. }))
    {
        Holds::No
    } else {
        Holds::Yes
    };
    if branch_protection_satisfied == Holds::Yes
        && unknowns.iter().any(|u| !matches!(u, Unknown::Mergeable))
    {
        branch_protection_satisfied = Holds::Unknown;
    }

    let ready = pull.state == PrState::Open && blockers.is_empty() && unknowns.is_empty();
    Readiness {
        ready,
        ci_passing,
        required_checks_passed,
        approvals_met,
        no_requested_changes,
        no_conflicts,
        up_to_date,
        branch_protection_satisfied,
        blockers,
        unknowns,
        warnings,
        protection: Protection {
            protected: rules.protected,
            required_approvals: rules.required_approvals,
            current_approvals: current,
            approving_users: approving,
            requesting_changes: requesting,
            pending_reviewers: facts.review_requests.clone(),
            required_checks: checks.required,
            passing_checks: checks.passing,
            skipped_checks: checks.skipped,
            failing_checks: checks.failing,
            pending_checks: checks.pending,
            missing_checks: checks.missing,
            code_owner_review: rules.code_owner_review,
            conversation_resolution: rules.conversation_resolution,
            up_to_date_required: rules.up_to_date,
            linear_history: rules.linear_history,
            signed_commits: rules.signed_commits,
            merge_queue: rules.merge_queue,
            sources: rules.sources.clone(),
        },
        conflicts_from,
    }
}

#[derive(Default)]
struct SortedChecks {
    required: Vec<String>,
    passing: Vec<String>,
    skipped: Vec<String>,
    failing: Vec<String>,
    pending: Vec<String>,
    missing: Vec<String>,
    required_failing: Vec<String>,
    required_pending: Vec<String>,
    optional_failing: Vec<String>,
    optional_pending: Vec<String>,
    unknown_requirement: Vec<String>,
}

/// Whether `name` is required: the forge's own flag, else a rule naming it (exactly, or by a
/// glob pattern on Forgejo/Gitea).
fn required(check: &CheckContext, rules: &BranchRules) -> Option<bool> {
    if check.required == Some(true) {
        return Some(true);
    }
    if rules
        .required_checks
        .iter()
        .any(|pattern| glob_match(pattern, &check.name))
    {
        return Some(true);
    }
    check.required
}

fn sort_checks(checks: &[CheckContext], rules: &BranchRules) -> SortedChecks {
    let mut out = SortedChecks::default();
    for c in checks {
        let req = required(c, rules);
        if req == Some(true) && !out.required.contains(&c.name) {
            out.required.push(c.name.clone());
        }
        match c.outcome {
            CheckOutcome::Passed => out.passing.push(c.name.clone()),
            // Skipped passes a rule; it is counted apart, as the CI rollup counts it.
            CheckOutcome::Skipped => out.skipped.push(c.name.clone()),
            CheckOutcome::Failed => {
                out.failing.push(c.name.clone());
                match req {
                    Some(true) => out.required_failing.push(c.name.clone()),
                    Some(false) => out.optional_failing.push(c.name.clone()),
                    None => out.unknown_requirement.push(c.name.clone()),
                }
            }
            CheckOutcome::Pending => {
                out.pending.push(c.name.clone());
                match req {
                    Some(true) => out.required_pending.push(c.name.clone()),
                    Some(false) => out.optional_pending.push(c.name.clone()),
                    None => out.unknown_requirement.push(c.name.clone()),
                }
            }
        }
    }
    // Required by name but not reported on the head at all.
    for pattern in &rules.required_checks {
        if !checks.iter().any(|c| glob_match(pattern, &c.name)) {
            out.missing.push(pattern.clone());
            if !out.required.contains(pattern) {
                out.required.push(pattern.clone());
            }
        }
    }
    // A check with the same name reported twice (a check run and a status) is one name.
    for list in [
        &mut out.passing,
        &mut out.skipped,
        &mut out.failing,
        &mut out.pending,
        &mut out.required_failing,
        &mut out.required_pending,
        &mut out.optional_failing,
        &mut out.optional_pending,
        &mut out.unknown_requirement,
    ] {
        let mut seen = std::collections::HashSet::new();
        list.retain(|n| seen.insert(n.clone()));
    }
    out
}

/// Whether a required check named by a rule matches a check: the same name (GitHub's rules
/// name checks), else the rule as a Forgejo/Gitea context glob
/// ([`resolve_pr_forge::context_glob`], the matcher the forge client uses too).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    pattern == name || resolve_pr_forge::context_glob(pattern, name)
}
