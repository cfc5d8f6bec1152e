//! `check_merge_readiness` (seed 000 tool 5; seed 003's `MergeReadinessCheck`): whether a
//! pull request can merge now, requirement by requirement, from what the forge reports
//! (`Repository::merge_facts`: the base branch's rules, reviews, every check, behind-by) as
//! `resolve_pr_pr::readiness` decides it. When the forge has not decided whether the PR
//! conflicts and a checkout of it is at hand, a local merge answers. "Ready" only when every
//! requirement is known to hold; what could not be read is listed, never assumed.

use resolve_pr_core::{PrRef, Result, ShellCommand};
use resolve_pr_forge::{Forge, MergeFacts, PullRequest};
use resolve_pr_git::Limits;
use resolve_pr_pr::conflicts;
use resolve_pr_pr::readiness::{self, ConflictSource, Holds, Readiness};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::checkout::{self as local, blocking};
use crate::registry::{Annotations, Tool};

mod wording;
use wording::{blocking_issue, unknown_requirement, warning};

/// Names of checks listed per list at most; the rest are counted.
const MAX_NAMES: usize = 20;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Default: the open PR of the checkout's current branch.
    #[serde(default)]
    #[schemars(example = &"owner/repo#123")]
    pub pr: Option<String>,
    /// A clone of the PR's repository, to merge locally if the forge has not computed
    /// mergeability. Default: the working directory.
    #[serde(default)]
    pub directory: Option<String>,
}

/// Null: could not be decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Checks {
    pub ci_passing: Option<bool>,
    pub approvals_met: Option<bool>,
    pub no_conflicts: Option<bool>,
    pub up_to_date: Option<bool>,
    pub branch_protection_satisfied: Option<bool>,
    pub required_checks_passed: Option<bool>,
    pub no_requested_changes: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    State,
    Draft,
    Conflicts,
    Ci,
    Approvals,
    Reviews,
    Threads,
    UpToDate,
    Protection,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BlockingIssue {
    pub category: Category,
    pub description: String,
    pub action_required: String,
    /// Shell command that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Tool to call next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_tool: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UnknownRequirement {
    pub requirement: String,
    pub reason: String,
    pub action_required: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_tool: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Note {
    pub category: Category,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BranchProtection {
    /// Absent when a source of rules could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_approvals: Option<u32>,
    pub current_approvals: u32,
    pub approving_users: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requesting_changes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending_reviewers: Vec<String>,
    /// Names (Forgejo/Gitea: globs).
    pub required_checks: Vec<String>,
    /// Required ones only, here and below.
    pub passing_checks: Vec<String>,
    pub failing_checks: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending_checks: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_checks: Vec<String>,
    /// Other rules in force.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CiSummary {
    pub total: u64,
    pub passed: u64,
    /// Neutral or skipped: not failures (counted as get_failing_tests counts them).
    pub skipped: u64,
    /// At most 20 names.
    pub failed: Vec<String>,
    pub failed_count: u64,
    pub pending: Vec<String>,
    pub pending_count: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    /// True only when every requirement is known to hold.
    pub ready_to_merge: bool,
    pub checks: Checks,
    pub blocking_issues: Vec<BlockingIssue>,
    /// Each keeps ready_to_merge false.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<UnknownRequirement>,
    /// Not blocking.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Note>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch_protection: Option<BranchProtection>,
    pub ci: CiSummary,
    pub base_branch: String,
    pub head_sha: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behind_by: Option<u64>,
    /// GitHub's mergeStateStatus, lower case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge_state: Option<String>,
    /// forge, or local (merged in your checkout).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflicts_checked_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

pub struct CheckMergeReadiness;

impl Tool for CheckMergeReadiness {
    const NAME: &'static str = "check_merge_readiness";
    const TITLE: &'static str = "Check merge readiness";
    const DESCRIPTION: &'static str = "Whether a PR can merge now, requirement by requirement: \
the base branch's rules (rulesets and branch protection: required checks over every page of \
checks, approvals, code-owner review, conversation resolution, up to date), reviews, conflicts, \
draft state, behind-by. Each blocking issue has the command or the tool that fixes it. \
ready_to_merge is true only when every requirement is known to hold; rules the token cannot read \
are listed in unknown, never assumed absent. Read-only.";
    const TOOLSET: crate::Toolset = crate::Toolset::Merge;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let (pr_ref, chosen) =
            local::resolve_pr(ctx, input.pr.as_deref(), input.directory.as_deref()).await?;
        let forge = ctx.forge(&pr_ref.repo)?;
        let facts = forge.repository().merge_facts(&pr_ref).await?;
        let mut notes: Vec<String> = chosen.into_iter().collect();
        let local_conflicts = if needs_local_merge(&facts) {
            match local_merge(ctx, &facts.pull, &pr_ref, input.directory.as_deref()).await {
                Ok(Some(conflicts)) => Some(conflicts),
                Ok(None) => None,
                Err(e) if input.directory.is_some() => return Err(e),
                Err(e) => {
                    notes.push(format!(
                        "The local merge that would have said whether it conflicts failed: {}",
                        e.error
                    ));
                    None
                }
            }
        } else {
            None
        };
        let verdict = readiness::assess(&facts, local_conflicts);
        let note = (!notes.is_empty()).then(|| notes.join(" "));
        Ok(build(forge.as_ref(), &pr_ref, &facts, &verdict, note))
    }

    fn render(out: &Output) -> String {
        let mut text = if out.ready_to_merge {
            format!("{} is ready to merge into {}.", out.pr, out.base_branch)
        } else {
            format!(
                "{} is not ready to merge into {}: {} blocking, {} unknown.",
                out.pr,
                out.base_branch,
                out.blocking_issues.len(),
                out.unknown.len()
            )
        };
        if let Some(n) = &out.note {
            text.push_str(&format!("\n{n}"));
        }
        for b in &out.blocking_issues {
            text.push_str(&format!(
                "\n- {}: {}. {}",
                category_str(b.category),
                b.description,
                b.action_required
            ));
            if let Some(c) = &b.command {
                text.push_str(&format!("\n  run: {c}"));
            } else if let Some(t) = &b.next_tool {
                text.push_str(&format!("\n  next: {t}"));
            }
        }
        for u in &out.unknown {
            text.push_str(&format!(
                "\n- unknown {}: {}. {}",
                u.requirement, u.reason, u.action_required
            ));
        }
        for w in &out.warnings {
            text.push_str(&format!(
                "\n- note ({}): {}",
                category_str(w.category),
                w.description
            ));
        }
        text
    }
}

/// Whether the forge left open whether the PR conflicts: GitHub has not computed it, or
/// Forgejo/Gitea said `false`, which they also say while checking.
fn needs_local_merge(facts: &MergeFacts) -> bool {
    if facts.pull.state != resolve_pr_forge::PrState::Open {
        return false;
    }
    let github = facts.merge_state.is_some();
    match facts.pull.mergeable {
        Some(true) => false,
        Some(false) => !github,
        None => facts.merge_state != Some(resolve_pr_forge::MergeState::Dirty),
    }
}

/// The PR's head merged into its base in the user's checkout, if there is one: `Some(true)`
/// when it conflicts.
async fn local_merge(
    ctx: &Context,
    pull: &PullRequest,
    pr_ref: &PrRef,
    directory: Option<&str>,
) -> Result<Option<bool>> {
    let git = match local::git(ctx) {
        Ok(g) => g,
        Err(_) if directory.is_none() => return Ok(None),
        Err(e) => return Err(e),
    };
    let settings = ctx.local.clone();
    let directory = directory.map(str::to_owned);
    let repo = pr_ref.repo.clone();
    let pull = pull.clone();
    blocking(ctx, "merging the PR locally", move || {
        let Some(local) = local::checkout(&git, &settings, directory.as_deref(), &pull, &repo)?
        else {
            return Ok(None);
        };
        // Into refs of this call only, deleted once read.
        let target = local::fetch_missing(&local, &[&pull], &[(&pull.base_ref, None)])?.remove(0);
        let report = conflicts::check(&local.repo, &target, &pull.head_sha, Limits::default())?;
        Ok(Some(!report.clean))
    })
    .await
}

fn holds(h: Holds) -> Option<bool> {
    match h {
        Holds::Yes => Some(true),
        Holds::No => Some(false),
        Holds::Unknown => None,
    }
}

fn build(
    forge: &dyn Forge,
    pr_ref: &PrRef,
    facts: &MergeFacts,
    verdict: &Readiness,
    note: Option<String>,
) -> Output {
    // A closed or merged PR is not checked further: nothing about it is left undecided.
    let open = facts.pull.state == resolve_pr_forge::PrState::Open;
    let holds = |h: Holds| if open { holds(h) } else { Some(false) };
    let checks = Checks {
        ci_passing: holds(verdict.ci_passing),
        approvals_met: holds(verdict.approvals_met),
        no_conflicts: holds(verdict.no_conflicts),
        up_to_date: holds(verdict.up_to_date),
        branch_protection_satisfied: holds(verdict.branch_protection_satisfied),
        required_checks_passed: holds(verdict.required_checks_passed),
        no_requested_changes: holds(verdict.no_requested_changes),
    };
    let blocking_issues = verdict
        .blockers
        .iter()
        .map(|b| blocking_issue(forge, pr_ref, facts, b))
        .collect();
    let unknown = verdict.unknowns.iter().map(unknown_requirement).collect();
    let warnings = verdict.warnings.iter().map(warning).collect();
    let p = &verdict.protection;
    let rules: Vec<String> = [
        (p.code_owner_review, "code_owner_review"),
        (p.conversation_resolution, "conversation_resolution"),
        (p.up_to_date_required, "up_to_date"),
        (p.linear_history, "linear_history"),
        (p.signed_commits, "signed_commits"),
        (p.merge_queue, "merge_queue"),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .map(|(_, n)| n.to_owned())
    .collect();
    let required = |names: &[String]| -> Vec<String> {
        names
            .iter()
            .filter(|n| p.required_checks.contains(n) || is_required(facts, n))
            .take(MAX_NAMES)
            .cloned()
            .collect()
    };
    let branch_protection = (p.protected
        || p.required_approvals > 0
        || !p.required_checks.is_empty()
        || !facts.rules.unknown.is_empty())
    .then(|| BranchProtection {
        // What the sources read require is a floor only while another is unread.
        required_approvals: facts
            .rules
            .unknown
            .is_empty()
            .then_some(p.required_approvals),
        current_approvals: p.current_approvals,
        approving_users: p.approving_users.clone(),
        requesting_changes: p.requesting_changes.clone(),
        pending_reviewers: p.pending_reviewers.clone(),
        required_checks: p
            .required_checks
            .iter()
            .take(MAX_NAMES * 2)
            .cloned()
            .collect(),
        passing_checks: required(
            &[p.passing_checks.as_slice(), p.skipped_checks.as_slice()].concat(),
        ),
        failing_checks: required(&p.failing_checks),
        pending_checks: required(&p.pending_checks),
        missing_checks: p.missing_checks.clone(),
        rules,
        sources: p.sources.clone(),
    });
    let ci = CiSummary {
        total: facts.checks.len() as u64,
        passed: p.passing_checks.len() as u64,
        skipped: p.skipped_checks.len() as u64,
        failed: p.failing_checks.iter().take(MAX_NAMES).cloned().collect(),
        failed_count: p.failing_checks.len() as u64,
        pending: p.pending_checks.iter().take(MAX_NAMES).cloned().collect(),
        pending_count: p.pending_checks.len() as u64,
    };
    Output {
        pr: pr_ref.to_string(),
        ready_to_merge: verdict.ready,
        checks,
        blocking_issues,
        unknown,
        warnings,
        branch_protection,
        ci,
        base_branch: facts.pull.base_ref.clone(),
        head_sha: facts.pull.head_sha.clone(),
        behind_by: facts.behind_by,
        merge_state: facts.merge_state.map(|s| merge_state_str(s).to_owned()),
        conflicts_checked_by: match verdict.conflicts_from {
            ConflictSource::Forge => Some("forge".to_owned()),
            ConflictSource::Local => Some("local".to_owned()),
            ConflictSource::None => None,
        },
        note,
    }
}

fn is_required(facts: &MergeFacts, name: &str) -> bool {
    facts
        .checks
        .iter()
        .any(|c| c.name == name && c.required == Some(true))
}

fn names(list: &[String]) -> String {
    let shown: Vec<&str> = list.iter().take(MAX_NAMES).map(String::as_str).collect();
    let more = list.len().saturating_sub(MAX_NAMES);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

fn render(cmd: ShellCommand) -> Option<String> {
    cmd.render().ok()
}

fn category_str(c: Category) -> &'static str {
    match c {
        Category::State => "state",
        Category::Draft => "draft",
        Category::Conflicts => "conflicts",
        Category::Ci => "ci",
        Category::Approvals => "approvals",
        Category::Reviews => "reviews",
        Category::Threads => "threads",
        Category::UpToDate => "up_to_date",
        Category::Protection => "protection",
    }
}

fn merge_state_str(s: resolve_pr_forge::MergeState) -> &'static str {
    use resolve_pr_forge::MergeState::*;
    match s {
        Behind => "behind",
        Blocked => "blocked",
        Clean => "clean",
        Dirty => "dirty",
        Draft => "draft",
        HasHooks => "has_hooks",
        Unknown => "unknown",
        Unstable => "unstable",
    }
}
