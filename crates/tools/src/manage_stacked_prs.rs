//! `manage_stacked_prs` (seed 000 tool 3; seed 003's `StackValidation`, `StackInfo`,
//! `ChangeSummary`, `CommitInfo`, `Command`, `AutomationStatus`, `StackSummary`): whether two
//! PRs form a stack, the whole stack around them, whether and how the base PR landed (merge,
//! squash, rebase), and the restack plan: strategy, the exact old parent tip for `--onto`,
//! conflicts predicted commit by commit, and typed commands. With `execute: true` it performs
//! the restack itself (new commits, refs under `refs/resolve-pr/` only), pushes with a lease
//! and retargets only when asked, and `rollback: true` puts the remote branches back.
//!
//! The answers are `resolve_pr_pr::stack` (the walk on the forge, the plan in the local
//! repository); this module words them and builds the commands.

use resolve_pr_core::{Error, PrRef, Result};
use resolve_pr_forge::{PullRequest, format_time};
use resolve_pr_git::CommitInfo as GitCommit;
use resolve_pr_pr::stack::{
    self, Action, Checkout, MergeHow, Pair, PlanInput, Report, Walked, Work,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::checkout::{self, blocking};
use crate::detect_merge_conflicts::check_branch_name;
use crate::registry::{Annotations, Tool};
use crate::shared::short;

/// Commits listed per branch at most.
const COMMIT_LIMIT: usize = 20;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The earlier PR. Default: the PR whose head branch is dependent_pr's base (open or
    /// merged).
    #[serde(default)]
    #[schemars(example = &"owner/repo#123")]
    pub base_pr: Option<String>,
    /// The later PR. Default: the open PR of the checkout's current branch.
    #[serde(default)]
    #[schemars(example = &"owner/repo#124")]
    pub dependent_pr: Option<String>,
    /// Where the dependent goes once the base merged. Default: the base PR's base branch.
    #[serde(default)]
    pub onto_base: Option<String>,
    /// true: rebase --onto; false: plain rebase. Default: decided from how the base merged.
    #[serde(default)]
    pub use_onto: Option<bool>,
    /// The commit the dependent's own commits start after, when the plan calls it a guess.
    #[serde(default)]
    pub old_base: Option<String>,
    /// A clone of the repository. Default: the server's working directory if it is one,
    /// else a managed clone.
    #[serde(default)]
    pub directory: Option<String>,
    /// Perform the restack (new commits under refs/resolve-pr/restack/, backups under
    /// refs/resolve-pr/backup/; your branches, index and worktree are not touched).
    #[serde(default)]
    pub execute: bool,
    /// Seed name of execute.
    #[serde(default)]
    pub auto_fix: Option<bool>,
    /// With execute: push the restacked branches with --force-with-lease on their old heads.
    #[serde(default)]
    pub push: bool,
    /// With execute: retarget the dependent PR to onto_base once its base PR merged.
    #[serde(default)]
    pub retarget: bool,
    /// Push the backed-up heads of the last execute back (with a lease on the restacked ones).
    #[serde(default)]
    pub rollback: bool,
    /// Fix-and-wait rounds the plan allows after the push.
    #[serde(default)]
    #[schemars(range(min = 1, max = 10))]
    pub max_iterations: Option<u32>,
}

// Seed 003's `StackInfo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackInfo {
    /// The base PR's head branch.
    pub base_branch: String,
    /// The dependent PR's base branch.
    pub dependent_base: String,
    pub matches: bool,
    /// The whole stack, trunk at the top.
    pub visualization: String,
    pub base_pr_head: String,
    pub dependent_pr_head: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub common_ancestor: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Below,
    Base,
    Dependent,
    Above,
}

/// One PR of the stack, bottom first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackLevel {
    pub pr: String,
    pub branch: String,
    pub base_branch: String,
    /// open, closed or merged.
    pub state: String,
    pub head_sha: String,
    pub role: Role,
}

// Seed 003's `CommitInfo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommitInfo {
    pub sha: String,
    pub short_sha: String,
    pub message: String,
    pub author: String,
    pub author_email: String,
    pub date: String,
    pub files_changed: Vec<String>,
}

// Seed 003's `ChangeSummary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChangeSummary {
    /// Commits in the base PR's head that the dependent lacks (0 once merged).
    pub new_commits_in_base: u64,
    /// The dependent's own commits.
    pub new_commits_in_dependent: u64,
    /// The base's new commits if any, else the dependent's own (at most 20).
    pub commits: Vec<CommitInfo>,
    pub files_changed_in_base: Vec<String>,
    pub files_changed_in_dependent: Vec<String>,
    pub overlapping_files: Vec<String>,
    /// Files the predicted rebase conflicts in.
    pub potential_conflicts: Vec<String>,
    pub base_additions: u64,
    pub base_deletions: u64,
    pub dependent_additions: u64,
    pub dependent_deletions: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    Regular,
    Onto,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RebaseStrategy {
    pub recommended: Strategy,
    pub reason: String,
    pub regular_command: String,
    pub onto_command: String,
    /// Both are sound; the choice is about history.
    pub ai_should_decide: bool,
    pub considerations: Vec<String>,
}

/// A commit the rebase would stop at, with the files in conflict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PredictedConflict {
    pub pr: String,
    pub branch: String,
    pub commit: String,
    pub summary: String,
    pub files: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommandType {
    Git,
    CiWait,
    Test,
    Fix,
    Verification,
    GithubApi,
}

// Seed 003's `Command`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Command {
    pub step: u32,
    #[serde(rename = "type")]
    pub kind: CommandType,
    /// POSIX shell quoting; a ci_wait step is a tool call, a fix step starts with #.
    pub command: String,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_duration: Option<String>,
    pub can_automate: bool,
    pub is_idempotent: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_if: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_on_failure: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub depends_on: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect_output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutomationState {
    NotStarted,
    InProgress,
    Completed,
    Failed,
}

// Seed 003's `AutomationStatus`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AutomationStatus {
    pub enabled: bool,
    pub status: AutomationState,
    pub steps_completed: u32,
    pub steps_total: u32,
    pub steps_failed: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<u32>,
    pub can_retry: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// What each step did.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub steps: Vec<StepReport>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepReport {
    pub step: String,
    /// done, failed or skipped.
    pub status: String,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    Low,
    Medium,
    High,
}

// Seed 003's `StackSummary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StackSummary {
    pub action_required: bool,
    pub reason: String,
    pub risk_level: Risk,
    pub risk_factors: Vec<String>,
    pub estimated_total_time: String,
    pub estimated_manual_steps: u32,
    pub estimated_automated_steps: u32,
    pub recommendations: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    pub base_pr: String,
    pub dependent_pr: String,
    pub is_stacked: bool,
    /// What is off about the stack (seed 003's StackValidation: valid when empty).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub issues: Vec<String>,
    pub stack_info: StackInfo,
    /// Every PR of the stack, bottom first.
    pub stack: Vec<StackLevel>,
    pub changes_detected: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_summary: Option<ChangeSummary>,
    pub upstream_merge_detected: bool,
    /// merge, squash, rebase, content (trunk has the changes, no commit matches) or unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge_method: Option<String>,
    pub squash_merge: bool,
    /// The forge's merge commit of the base PR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge_commit: Option<String>,
    /// The old parent tip: the dependent's own commits start after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_upstream_commit: Option<String>,
    pub rebase_strategy: RebaseStrategy,
    /// Where the recommended rebase first stops, per branch (empty: it runs through). Stops
    /// after that one are not predicted; potential_conflicts lists every file at risk.
    pub predicted_conflicts: Vec<PredictedConflict>,
    pub commands: Vec<Command>,
    pub automation: AutomationStatus,
    pub summary: StackSummary,
    /// A checkout and its remote, or a managed clone.
    pub computed_in: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

pub struct ManageStackedPrs;

impl Tool for ManageStackedPrs {
    const NAME: &'static str = "manage_stacked_prs";
    const TITLE: &'static str = "Restack stacked pull requests";
    const DESCRIPTION: &'static str = "For a PR built on another PR's branch: the whole stack, \
whether the base PR merged and how (merge, squash, rebase: detected from history, not guessed), \
the exact old parent commit for `git rebase --onto`, conflicts predicted per commit before \
anything moves, and the commands in order (fetch, rebase, push --force-with-lease, retarget \
before the parent branch is deleted, wait for CI). Plans by default; execute: true restacks \
into refs/resolve-pr/ (push and retarget only when asked; rollback undoes a push).";
    const TOOLSET: crate::Toolset = crate::Toolset::Git;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    };
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        run(ctx, input).await
    }

    /// An execution that failed (stopped before moving, or rolled back) is a failed call,
    /// whatever the output says of it.
    fn failed(out: &Output) -> bool {
        out.automation.status == AutomationState::Failed
    }

    fn render(out: &Output) -> String {
        render(out)
    }
}

async fn run(ctx: &Context, input: Input) -> Result<Output> {
    let execute = input.execute || input.auto_fix == Some(true);
    let push = input.push;
    let asked = Action::asked(execute, push, input.retarget, input.rollback);
    let mut problems = asked.clone().err().unwrap_or_default();
    if let Some(b) = &input.onto_base
        && check_branch_name("onto_base", b).is_err()
    {
        problems.insert(0, format!("onto_base: {b:?} is not a valid branch name"));
    }
    let base_ref = input
        .base_pr
        .as_deref()
        .map(|p| crate::shared::pr_from_ref(p, Vec::new()))
        .transpose();
    let dependent_ref = input
        .dependent_pr
        .as_deref()
        .map(|p| crate::shared::pr_from_ref(p, Vec::new()))
        .transpose();
    let (base_ref, dependent_ref) = match (base_ref, dependent_ref) {
        (Ok(b), Ok(d)) if problems.is_empty() => (b, d),
        (b, d) => {
            for (name, r) in [("base_pr", b.err()), ("dependent_pr", d.err())] {
                if let Some(e) = r {
                    problems.insert(0, format!("{name}: {}", e.error));
                }
            }
            return Err(
                Error::user(format!("Invalid request: {}", problems.join("; ")))
                    .with_detail("problems", problems)
                    .with_suggestion(
                        "base_pr and dependent_pr are 'owner/repo#123' (or a PR URL); push and \
                     retarget go with execute: true.",
                    ),
            );
        }
    };
    if (execute || input.rollback) && ctx.read_only {
        return Err(Error::logical(
            "the server runs with --read-only: manage_stacked_prs only plans here",
        )
        .with_suggestion("Call again without execute/rollback and run the commands it gives."));
    }
    if (push || input.rollback) && ctx.local.remote_callers {
        return Err(Error::logical(
            "a push from a shared (HTTP) server would use the server's git credentials, not \
             the caller's",
        )
        .with_suggestion(
            "Call again without push and rollback, and run the commands it gives in your own \
             checkout.",
        ));
    }

    // The dependent: given, or the current branch's PR.
    let mut notes = Vec::new();
    let dependent_ref = match dependent_ref {
        Some(d) => d,
        None => {
            let (d, note) = checkout::pr_of_current_branch(ctx, input.directory.as_deref()).await?;
            notes.push(note);
            d
        }
    };
    let forge = ctx.forge(&dependent_ref.repo)?;
    let pair = stack::pair(forge.as_ref(), base_ref, &dependent_ref).await?;
    notes.extend(pair.note.clone());
    let (walked, plan_input, unread) = stack::prepare(
        forge.as_ref(),
        &pair,
        input.onto_base.clone(),
        input.old_base.clone(),
        COMMIT_LIMIT,
    )
    .await?;
    notes.extend(unread);
    let trunk_branch = plan_input.trunk_branch.clone();
    // Everything local happens off the runtime, in one go.
    let git = checkout::git(ctx)?;
    let settings = ctx.local.clone();
    let directory = input.directory.clone();
    let repo_ref = dependent_ref.repo.clone();
    let action = asked.unwrap_or(Action::Plan);
    let use_onto = input.use_onto;
    let what = if action == Action::Plan {
        "fetching the stack's commits and predicting the rebase"
    } else {
        "restacking the branches"
    };
    let (mut work, place, note) = blocking(ctx, what, move || {
        let local = checkout::locate(
            &git,
            &settings,
            directory.as_deref(),
            &plan_input.dependent,
            &repo_ref,
        )?;
        let mut prs: Vec<&PullRequest> = vec![&plan_input.base, &plan_input.dependent];
        prs.extend(plan_input.above.iter());
        // The branches that move, as the remote has them now, beside the heads the forge
        // reported.
        let checked = stack::checked_prs(&plan_input);
        let head_branches: Vec<&str> = checked.iter().map(|p| p.head_ref.as_str()).collect();
        let checkout = Checkout {
            repo: &local.repo,
            remote: &local.remote,
            is_checkout: local.place.is_checkout(),
            fetched_branch: checkout::branch_ref,
            fetched_pull: checkout::pull_ref,
        };
        let kept = checkout.earlier_base_tips(&plan_input.base)?;
        let (mut trunk, tips) =
            checkout::fetch_with_heads(&local, &prs, &[&plan_input.trunk_branch], &head_branches)?;
        let input = PlanInput {
            trunk: trunk.remove(0),
            ..plan_input
        };
        let work = stack::restack(&checkout, input, tips, kept, action, use_onto)?;
        Ok((work, local.place.describe(), local.note))
    })
    .await?;
    notes.extend(note);
    notes.append(&mut work.notes);

    // Retarget after a successful push, before anything deletes the parent branch.
    if execute && input.retarget {
        stack::retarget(
            forge.as_ref(),
            &dependent_ref,
            &pair,
            &trunk_branch,
            &mut work,
        )
        .await;
    }
    let max_iterations = input.max_iterations.unwrap_or(3);
    let commands = stack::commands(
        forge.as_ref(),
        &dependent_ref,
        &pair,
        &work,
        max_iterations,
        &trunk_branch,
    );
    let report = stack::report(&pair, &walked, &work, &trunk_branch);
    let automation_enabled = action != Action::Plan;
    Ok(output(
        &dependent_ref,
        &pair,
        &walked,
        work,
        report,
        commands,
        automation_enabled,
        notes,
        place,
    ))
}

fn commit_info(c: &GitCommit) -> CommitInfo {
    CommitInfo {
        sha: c.oid.clone(),
        short_sha: short(&c.oid).to_owned(),
        message: c.summary.clone(),
        author: c.author_name.clone(),
        author_email: c.author_email.clone(),
        date: c.author_date.clone(),
        files_changed: c.files.clone(),
    }
}

#[allow(clippy::too_many_arguments)]
fn output(
    dependent_ref: &PrRef,
    pair: &Pair,
    walked: &Walked,
    work: Work,
    report: Report,
    commands: Vec<stack::Command>,
    automation_enabled: bool,
    notes: Vec<String>,
    computed_in: String,
) -> Output {
    let (base, dependent) = (&pair.base, &pair.dependent);
    let plan = &work.plan;
    let stack = stack::levels(walked, base, dependent)
        .into_iter()
        .map(|(p, role)| StackLevel {
            pr: format!("#{}", p.number),
            branch: p.head_ref.clone(),
            base_branch: p.base_ref.clone(),
            state: stack::state_name(p.state).to_owned(),
            head_sha: p.head_sha.clone(),
            role: match role {
                stack::Role::Below => Role::Below,
                stack::Role::Base => Role::Base,
                stack::Role::Dependent => Role::Dependent,
                stack::Role::Above => Role::Above,
            },
        })
        .collect();
    let dep = &plan.levels[0];
    let changes_detected = !plan.up_to_date;
    let commits = if report.base_commits.is_empty() {
        dep.own_commits.iter().map(commit_info).collect()
    } else {
        report.base_commits.iter().map(commit_info).collect()
    };
    let change_summary = ChangeSummary {
        new_commits_in_base: report.new_in_base,
        new_commits_in_dependent: dep.own_commits_total as u64,
        commits,
        files_changed_in_base: plan.base_files.clone(),
        files_changed_in_dependent: dep.files.clone(),
        overlapping_files: plan.overlapping_files.clone(),
        potential_conflicts: report.potential.clone(),
        base_additions: plan.base_additions,
        base_deletions: plan.base_deletions,
        dependent_additions: dep.additions,
        dependent_deletions: dep.deletions,
    };
    let commands: Vec<Command> = commands.into_iter().map(command).collect();
    let automated = commands.iter().filter(|c| c.can_automate).count() as u32;
    let manual = commands.len() as u32 - automated;
    let steps = work.steps.iter().map(|s| StepReport {
        step: s.step.clone(),
        status: s.status.clone(),
        detail: s.detail.clone(),
    });
    let (status, error) = match &work.outcome {
        None => (AutomationState::NotStarted, None),
        Some(Ok(())) => (AutomationState::Completed, None),
        Some(Err(e)) => (AutomationState::Failed, Some(e.clone())),
    };
    let progress = work.progress();
    let automation = AutomationStatus {
        enabled: automation_enabled,
        status,
        steps_completed: progress.completed,
        steps_total: progress.total,
        steps_failed: progress.failed,
        failed_step: progress.failed_step,
        error,
        can_retry: matches!(work.outcome, Some(Err(_))) && report.predicted.is_empty(),
        started_at: work.outcome.as_ref().map(|_| format_time(&work.started)),
        completed_at: work.outcome.as_ref().map(|_| format_time(&stack::now())),
        steps: steps.collect(),
    };
    let choice = &work.choice;
    Output {
        base_pr: pair.base_ref.normalized(),
        dependent_pr: dependent_ref.normalized(),
        is_stacked: plan.stacked,
        issues: report.issues,
        stack_info: StackInfo {
            base_branch: base.head_ref.clone(),
            dependent_base: dependent.base_ref.clone(),
            matches: report.matches,
            visualization: report.visualization,
            base_pr_head: base.head_sha.clone(),
            dependent_pr_head: dependent.head_sha.clone(),
            common_ancestor: plan.common_ancestor.clone(),
        },
        stack,
        changes_detected,
        change_summary: changes_detected.then_some(change_summary),
        upstream_merge_detected: report.merged,
        merge_method: report
            .how
            .as_ref()
            .map(|h| stack::merge_method(h).to_owned()),
        squash_merge: matches!(report.how, Some(MergeHow::Squash { .. })),
        merge_commit: report.merge_commit,
        last_upstream_commit: Some(dep.old_base.clone()),
        rebase_strategy: RebaseStrategy {
            recommended: strategy(choice.strategy),
            reason: choice.reason.clone(),
            regular_command: report.regular_command,
            onto_command: report.onto_command,
            ai_should_decide: choice.ai_should_decide,
            considerations: choice.considerations.clone(),
        },
        predicted_conflicts: report
            .predicted
            .into_iter()
            .map(|p| PredictedConflict {
                pr: p.pr,
                branch: p.branch,
                commit: p.commit,
                summary: p.summary,
                files: p.files,
            })
            .collect(),
        commands,
        automation,
        summary: StackSummary {
            action_required: report.action_required,
            reason: report.reason,
            risk_level: match report.risk {
                stack::Risk::Low => Risk::Low,
                stack::Risk::Medium => Risk::Medium,
                stack::Risk::High => Risk::High,
            },
            risk_factors: report.risk_factors,
            estimated_total_time: report.estimated_total_time,
            estimated_manual_steps: manual,
            estimated_automated_steps: automated,
            recommendations: report.recommendations,
        },
        computed_in,
        note: (!notes.is_empty()).then(|| notes.join(" ")),
    }
}

fn strategy(s: stack::Strategy) -> Strategy {
    match s {
        stack::Strategy::Regular => Strategy::Regular,
        stack::Strategy::Onto => Strategy::Onto,
    }
}

fn command(c: stack::Command) -> Command {
    Command {
        step: c.step,
        kind: match c.kind {
            stack::CommandType::Git => CommandType::Git,
            stack::CommandType::CiWait => CommandType::CiWait,
            stack::CommandType::Test => CommandType::Test,
            stack::CommandType::Fix => CommandType::Fix,
            stack::CommandType::Verification => CommandType::Verification,
            stack::CommandType::GithubApi => CommandType::GithubApi,
        },
        command: c.command,
        description: c.description,
        estimated_duration: c.estimated_duration,
        can_automate: c.can_automate,
        is_idempotent: c.is_idempotent,
        skip_if: c.skip_if,
        retry_on_failure: c.retry_on_failure,
        max_retries: c.max_retries,
        depends_on: c.depends_on,
        expect_output: c.expect_output,
        on_failure: c.on_failure,
    }
}

fn render(out: &Output) -> String {
    let mut text = format!(
        "{} on {}: {}",
        out.dependent_pr, out.base_pr, out.summary.reason
    );
    if let Some(n) = &out.note {
        text.push_str(&format!("\n{n}"));
    }
    text.push_str(&format!("\n{}", out.stack_info.visualization.trim_end()));
    for issue in &out.issues {
        text.push_str(&format!("\n! {issue}"));
    }
    if out.summary.action_required {
        text.push_str(&format!(
            "\nStrategy: {} — {}",
            match out.rebase_strategy.recommended {
                Strategy::Onto => "--onto",
                Strategy::Regular => "plain rebase",
            },
            out.rebase_strategy.reason
        ));
        for p in &out.predicted_conflicts {
            text.push_str(&format!(
                "\nPredicted conflict: {} at {} ({}) in {}",
                p.branch,
                short(&p.commit),
                p.summary,
                p.files.join(", ")
            ));
        }
    }
    for c in &out.commands {
        text.push_str(&format!("\n{}. {}", c.step, c.command));
        if let Some(f) = &c.on_failure {
            text.push_str(&format!("\n   if it fails: {f}"));
        }
    }
    for s in &out.automation.steps {
        text.push_str(&format!("\n[{}] {}: {}", s.status, s.step, s.detail));
    }
    text
}
