//! How `check_merge_readiness` words each blocker, unknown requirement and warning `pr`
//! found: what it means, what to do, and the command that does it.

use resolve_pr_core::PrRef;
use resolve_pr_forge::{Forge, MergeFacts};
use resolve_pr_pr::readiness::{Blocker, Unknown, Warning};

use super::{BlockingIssue, Category, Note, UnknownRequirement, names, render};

pub(super) fn blocking_issue(
    forge: &dyn Forge,
    pr: &PrRef,
    facts: &MergeFacts,
    b: &Blocker,
) -> BlockingIssue {
    let issue = |category, description: String, action: &str| BlockingIssue {
        category,
        description,
        action_required: action.to_owned(),
        command: None,
        next_tool: None,
    };
    match b {
        Blocker::NotOpen { state } => issue(
            Category::State,
            format!(
                "the pull request is {}",
                match state {
                    resolve_pr_forge::PrState::Merged => "already merged",
                    _ => "closed",
                }
            ),
            "Nothing to merge; reopen it on the forge if it should merge.",
        ),
        Blocker::Draft => {
            let mut i = issue(
                Category::Draft,
                "the pull request is a draft".to_owned(),
                "Mark it ready for review.",
            );
            match forge.commands().mark_ready(pr) {
                Some(cmd) => i.command = render(cmd),
                None => {
                    i.action_required = "Mark it ready for review: remove the \"WIP:\" prefix from \
                                         its title."
                        .to_owned()
                }
            }
            i
        }
        Blocker::Conflicts => BlockingIssue {
            next_tool: Some("detect_merge_conflicts".to_owned()),
            ..issue(
                Category::Conflicts,
                format!("the head conflicts with {}", facts.pull.base_ref),
                "Resolve the conflicts: detect_merge_conflicts lists them with the steps.",
            )
        },
        Blocker::RequiredChecksFailing { names: n } => BlockingIssue {
            next_tool: Some("get_failing_tests".to_owned()),
            ..issue(
                Category::Ci,
                format!("required checks failed: {}", names(n)),
                "Fix what failed: get_failing_tests says which tests and where.",
            )
        },
        Blocker::RequiredChecksPending { names: n } => BlockingIssue {
            next_tool: Some("get_failing_tests".to_owned()),
            ..issue(
                Category::Ci,
                format!("required checks still running: {}", names(n)),
                "Wait for them: get_failing_tests with wait: true returns when they finish.",
            )
        },
        Blocker::RequiredChecksMissing { names: n } => issue(
            Category::Ci,
            format!(
                "required checks have not reported on the head commit: {}",
                names(n)
            ),
            "Make the workflow that reports them run on this commit (push, or re-run it); a \
             check renamed in CI must be renamed in the branch's rules too.",
        ),
        Blocker::ApprovalsMissing { required, current } => {
            let mut i = issue(
                Category::Approvals,
                format!("{current} of {required} required approvals"),
                "Get more approving reviews: analyze_pr_impact suggests reviewers.",
            );
            if facts.review_requests.is_empty() {
                i.next_tool = Some("analyze_pr_impact".to_owned());
            } else {
                i.action_required = format!(
                    "Wait for the requested reviews ({}), or ask others.",
                    facts.review_requests.join(", ")
                );
            }
            i
        }
        Blocker::CodeOwnerReview => BlockingIssue {
            next_tool: Some("analyze_pr_impact".to_owned()),
            ..issue(
                Category::Approvals,
                "a code owner's approval is required and missing".to_owned(),
                "Ask a code owner of the changed files to review: analyze_pr_impact lists them.",
            )
        },
        Blocker::ReviewRequired => BlockingIssue {
            next_tool: Some("analyze_pr_impact".to_owned()),
            ..issue(
                Category::Approvals,
                if facts.rules.unknown.is_empty() {
                    "GitHub requires an approving review that has not been given".to_owned()
                } else {
                    format!(
                        "GitHub requires an approving review (reviewDecision REVIEW_REQUIRED); \
                         how many approvals, and whose, could not be read: {} unreadable to \
                         this token",
                        facts
                            .rules
                            .unknown
                            .iter()
                            .map(|u| u.source.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
                "Ask for a review: analyze_pr_impact suggests reviewers.",
            )
        },
        Blocker::ChangesRequested { by } => BlockingIssue {
            next_tool: Some("find_unresolved_comments".to_owned()),
            ..issue(
                Category::Reviews,
                if by.is_empty() {
                    "changes were requested".to_owned()
                } else {
                    format!("changes requested by {}", by.join(", "))
                },
                "Address the review, then ask them to review again: find_unresolved_comments \
                 lists what is open.",
            )
        },
        Blocker::ReviewRequestsPending { reviewers } => issue(
            Category::Approvals,
            format!(
                "requested reviews not given yet, and the branch's rule makes them block: {}",
                reviewers.join(", ")
            ),
            "Wait for their reviews, or ask a maintainer to remove the request.",
        ),
        Blocker::UnresolvedThreads { count } => BlockingIssue {
            next_tool: Some("find_unresolved_comments".to_owned()),
            ..issue(
                Category::Threads,
                format!(
                    "{count} review thread{} unresolved, and the branch requires conversations \
                     resolved",
                    if *count == 1 { "" } else { "s" }
                ),
                "Answer and resolve them: find_unresolved_comments lists them with the commands.",
            )
        },
        Blocker::Behind { by } => BlockingIssue {
            command: render(forge.commands().update_branch(pr)),
            ..issue(
                Category::UpToDate,
                match by {
                    Some(n) => format!(
                        "{n} commit{} of {} missing from the head, and the branch must be up to \
                         date",
                        if *n == 1 { "" } else { "s" },
                        facts.pull.base_ref
                    ),
                    None => format!("the head is behind {}", facts.pull.base_ref),
                },
                "Update the branch (the command merges the base into it on the forge), or rebase \
                 it locally and push.",
            )
        },
        Blocker::BlockedByForge { unread } => issue(
            Category::Protection,
            if unread.is_empty() {
                "the forge reports the merge blocked by a rule not identified here".to_owned()
            } else {
                format!(
                    "the forge reports the merge blocked, and these rules could not be read: {}",
                    unread.join(", ")
                )
            },
            "Look at the merge box on the PR's page, or ask a maintainer with admin rights which \
             rule blocks it.",
        ),
    }
}

pub(super) fn unknown_requirement(u: &Unknown) -> UnknownRequirement {
    let item = |req: &str, reason: String, action: &str, tool: Option<&str>| UnknownRequirement {
        requirement: req.to_owned(),
        reason,
        action_required: action.to_owned(),
        next_tool: tool.map(str::to_owned),
    };
    match u {
        Unknown::Rules { source, reason } => item(
            "branch_protection",
            format!("{source} could not be read: {reason}"),
            "Use a token that may read the repository's rules, or check them on the forge.",
            None,
        ),
        Unknown::Mergeable => item(
            "no_conflicts",
            "the forge has not computed whether the PR conflicts, and no local checkout of it \
             was at hand"
                .to_owned(),
            "Call detect_merge_conflicts, which merges the PR locally.",
            Some("detect_merge_conflicts"),
        ),
        Unknown::CheckRequirement { names: n } => item(
            "required_checks_passed",
            format!(
                "whether these checks are required could not be read: {}",
                names(n)
            ),
            "Treat them as required, or check the branch's rules on the forge.",
            Some("get_failing_tests"),
        ),
        Unknown::Behind => item(
            "up_to_date",
            "the branch must be up to date, and how far behind the head is could not be read"
                .to_owned(),
            "Call again; or compare the head with the base in a checkout.",
            None,
        ),
        Unknown::UpToDateRule { by } => item(
            "up_to_date",
            format!(
                "{by} commit{} behind the base, and whether the branch's protection requires \
                 it up to date could not be read (its strict flag is shown to admins only)",
                if *by == 1 { "" } else { "s" }
            ),
            "Update the branch to be sure, or read the rule with an admin token.",
            None,
        ),
        Unknown::Threads => item(
            "conversation_resolution",
            "the branch requires conversations resolved, and the threads could not be read"
                .to_owned(),
            "find_unresolved_comments lists them.",
            Some("find_unresolved_comments"),
        ),
    }
}

pub(super) fn warning(w: &Warning) -> Note {
    let note = |category, description: String| Note {
        category,
        description,
    };
    match w {
        Warning::OptionalChecksFailing { names: n } => note(
            Category::Ci,
            format!("checks the rules do not require failed: {}", names(n)),
        ),
        Warning::OptionalChecksPending { names: n } => note(
            Category::Ci,
            format!("checks the rules do not require are running: {}", names(n)),
        ),
        Warning::Behind { by } => note(
            Category::UpToDate,
            format!("{by} commits behind the base (the rules do not require it up to date)"),
        ),
        Warning::ChangesRequested { by } => note(
            Category::Reviews,
            format!(
                "changes requested by {} (no rule of the branch makes them block the merge)",
                by.join(", ")
            ),
        ),
        Warning::MergeQueue { queued } => note(
            Category::Protection,
            if *queued {
                "the pull request is in the merge queue".to_owned()
            } else {
                "the branch merges through a merge queue: add it to the queue rather than \
                 merging directly"
                    .to_owned()
            },
        ),
        Warning::AutoMerge { method } => note(
            Category::State,
            format!("auto-merge is on ({method}): it merges once the requirements hold"),
        ),
        Warning::CanBypass => note(
            Category::Protection,
            "your token may merge past the branch's rules (admin); ready_to_merge does not \
             count on that"
                .to_owned(),
        ),
        Warning::UnreadRulesCoveredByForge { sources } => note(
            Category::Protection,
            format!(
                "could not read {}, but GitHub's own merge state says the rules hold",
                sources.join(", ")
            ),
        ),
    }
}
