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

use resolve_pr_core::{Error, PrRef, Result, ShellCommand};
use resolve_pr_forge::{PrState, PullFilter, PullListState, PullRequest, format_time};
use resolve_pr_git::{CommitInfo as GitCommit, PushUpdate, RestackBranch, RestackResult};
use resolve_pr_pr::stack::{
    self, BaseState, Boundary, LevelPlan, MergeHow, PlanInput, StackPlan, Walked,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::shared::short;
use crate::detect_merge_conflicts::check_branch_name;
use crate::local::{self, blocking};
use crate::registry::{Annotations, Tool};

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

impl Command {
    /// A step that can be automated and repeated, numbered when it is added to a plan.
    fn new(kind: CommandType, command: String, description: String) -> Command {
        Command {
            step: 0,
            kind,
            command,
            description,
            estimated_duration: None,
            can_automate: true,
            is_idempotent: true,
            skip_if: None,
            retry_on_failure: None,
            max_retries: None,
            depends_on: Vec::new(),
            expect_output: None,
            on_failure: None,
        }
    }
}

/// Steps in order, each numbered as it is added.
#[derive(Default)]
struct Steps(Vec<Command>);

impl Steps {
    /// Adds `c` after the steps it depends on; returns its number.
    fn add(&mut self, mut c: Command, depends_on: Option<u32>) -> u32 {
        c.step = self.0.len() as u32 + 1;
        c.depends_on = depends_on.into_iter().collect();
        self.0.push(c);
        self.0.len() as u32
    }

    /// Switches to a level's branch and checks that it holds the PR's head: a stale or
    /// missing local branch would otherwise be rebased and pushed over the PR's commits.
    /// Returns the check's number.
    /// A level from a fork has no branch on `remote`: its head (`refs/pull/N/head`) is
    /// fetched into the local branch `pr-N` first (never over a branch with other commits).
    fn switch_and_check(
        &mut self,
        number: u64,
        branch: &str,
        head: &str,
        after: u32,
        fork_from: Option<&str>,
    ) -> u32 {
        let after = match fork_from {
            Some(remote) => self.add(
                Command::new(
                    CommandType::Git,
                    render_cmd(ShellCommand::new("git").args([
                        "fetch",
                        "--end-of-options",
                        remote,
                        &format!("refs/pull/{number}/head:refs/heads/{branch}"),
                    ])),
                    format!(
                        "#{number} is from a fork: fetch its head from {remote}'s \
                         refs/pull/{number}/head into {branch}."
                    ),
                ),
                Some(after),
            ),
            None => after,
        };
        let switch = self.add(
            Command::new(
                CommandType::Git,
                render_cmd(ShellCommand::new("git").args(["switch", "--end-of-options", branch])),
                format!("Switch to #{number}'s branch."),
            ),
            Some(after),
        );
        self.add(contains_head(branch, head), Some(switch))
    }
}

/// What to do when a rebase the plan predicted to conflict stops.
const REBASE_ON_FAILURE: &str = "Resolve the conflicted files (predicted_conflicts), `git add` \
    them and `git rebase --continue`; `git rebase --abort` puts the branch back.";

/// A PR of the stack whose head branch lives in another repository (a fork): never in the
/// push to this repository's remote.
#[derive(Debug, Clone)]
struct ForkLevel {
    number: u64,
    /// The fork's `owner/name`; `None` when it was deleted.
    repo: Option<String>,
    /// Its clone URL, when it is one git may follow (https, http, ssh).
    url: Option<String>,
    author: String,
}

fn fork_levels<'a>(prs: impl Iterator<Item = &'a PullRequest>) -> Vec<ForkLevel> {
    prs.filter(|p| p.is_from_fork())
        .map(|p| ForkLevel {
            number: p.number,
            repo: p.head_repo.clone(),
            url: p.head_clone_url.clone().filter(|u| {
                ["https://", "http://", "ssh://"]
                    .iter()
                    .any(|scheme| u.starts_with(scheme))
            }),
            author: p.author.login.clone(),
        })
        .collect()
}

fn fork_of(forks: &[ForkLevel], number: u64) -> Option<&ForkLevel> {
    forks.iter().find(|f| f.number == number)
}

/// The local branch a level is restacked in: its own name, or `pr-N` for a fork's (whose
/// name may be any of this repository's branches).
fn local_branch(l: &LevelPlan, forks: &[ForkLevel]) -> String {
    match fork_of(forks, l.number) {
        Some(_) => format!("pr-{}", l.number),
        None => l.branch.clone(),
    }
}

/// The commits a restack of `l` leaves: its own replayed ones but those whose change the new
/// base already has (dropped).
fn kept(l: &LevelPlan) -> usize {
    l.own_replayed.saturating_sub(l.onto.emptied.len())
}

/// Every commit of `l` is in the new base already: the restacked branch is empty.
fn nothing_left(l: &LevelPlan) -> bool {
    l.onto.clean && !l.onto.emptied.is_empty() && kept(l) == 0
}

/// The push of a fork's level to the fork (`source`: the restacked commit's ref), with a
/// lease on its old head; what its author does instead when the fork refuses it. `None`
/// when the fork is gone.
fn fork_push(l: &LevelPlan, fork: &ForkLevel, source: &str, parent: (&str, &str)) -> Option<Command> {
    let url = fork.url.as_deref()?;
    let mut c = Command::new(
        CommandType::Git,
        render_cmd(
            ShellCommand::new("git")
                .arg("push")
                .arg(format!("--force-with-lease=refs/heads/{}:{}", l.branch, l.head))
                .args(["--end-of-options", url])
                .arg(format!("{source}:refs/heads/{}", l.branch)),
        ),
        format!(
            "#{} is from a fork ({}): push its restacked branch there (works when its author \
             lets maintainers edit the PR).",
            l.number,
            fork.repo.as_deref().unwrap_or("deleted")
        ),
    );
    c.can_automate = false;
    let (parent_branch, parent_old) = parent;
    c.on_failure = Some(format!(
        "The fork refuses your push: ask @{} to run `{}` (upstream: their remote for this \
         repository) and push.",
        fork.author,
        render_cmd(ShellCommand::new("git").args([
            "rebase",
            "--onto",
            &format!("upstream/{parent_branch}"),
            parent_old,
            "--end-of-options",
            &l.branch,
        ]))
    ));
    Some(c)
}

/// A level with nothing left: a note to close its PR (pushing the empty branch would empty
/// it, or close it, without a word).
fn close_note(l: &LevelPlan, trunk: &str) -> Command {
    let mut c = Command::new(
        CommandType::Fix,
        format!("# close #{}: nothing of it is left to merge", l.number),
        format!(
            "All {} commit(s) of #{} are in {trunk} already (cherry-picked, or squashed with \
             its base): close it instead of pushing an empty branch.",
            l.onto.emptied.len(),
            l.number
        ),
    );
    c.can_automate = false;
    c
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
    let mut problems = Vec::new();
    if let Some(b) = &input.onto_base
        && check_branch_name("onto_base", b).is_err()
    {
        problems.push(format!("onto_base: {b:?} is not a valid branch name"));
    }
    if (input.push || input.retarget) && !execute {
        problems.push("push and retarget need execute: true".to_owned());
    }
    if input.rollback && execute {
        problems.push("rollback and execute cannot be asked together".to_owned());
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
            return Err(Error::user(format!("Invalid request: {}", problems.join("; ")))
                .with_detail("problems", problems)
                .with_suggestion(
                    "base_pr and dependent_pr are 'owner/repo#123' (or a PR URL); push and \
                     retarget go with execute: true.",
                ));
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
            let (d, note) = local::pr_of_current_branch(ctx, input.directory.as_deref()).await?;
            notes.push(note);
            d
        }
    };
    let forge = ctx.forge(&dependent_ref.repo)?;
    let dependent = forge.pull_requests().pull_request(&dependent_ref).await?;
    let (base_ref, base) = match base_ref {
        Some(b) => {
            if !same_repo(&b, &dependent_ref) {
                return Err(Error::user(format!(
                    "base_pr {b} and dependent_pr {dependent_ref} are in different repositories: a \
                     stack lives in one repository"
                ))
                .with_suggestion("Give two pull requests of the same repository."));
            }
            let base = forge.pull_requests().pull_request(&b).await?;
            (b, base)
        }
        None => {
            let filter = PullFilter {
                state: PullListState::All,
                head: Some(dependent.base_ref.clone()),
                base: None,
                limit: 10,
                ..PullFilter::default()
            };
            let found = forge
                .pull_requests()
                .list_pull_requests(&dependent_ref.repo, &filter)
                .await?
                .into_iter()
                .filter(|p| !p.is_from_fork() && p.head_ref == dependent.base_ref && p.number != dependent.number)
                .max_by_key(|p| p.number);
            let Some(base) = found else {
                // Retargeted by hand after its base merged: the merged PR whose head commit is
                // one of the dependent's own is the one it was stacked on.
                let stacked_on = merged_base_of(&*forge, &dependent_ref, &dependent).await;
                let suggestion = match stacked_on {
                    Some(n) => format!(
                        "#{} carries #{n}'s head commit: #{n} merged into {:?}, and #{} was \
                         probably retargeted by hand since. Call again with base_pr: #{n} to \
                         restack it.",
                        dependent.number, dependent.base_ref, dependent.number
                    ),
                    None => "Give base_pr if the PR was stacked on one that merged and was \
                             retargeted."
                        .to_owned(),
                };
                return Err(Error::logical(format!(
                    "PR #{}'s base is {:?}, which is no pull request's head branch: it is not \
                     stacked on another PR",
                    dependent.number, dependent.base_ref
                ))
                .with_suggestion(suggestion));
            };
            notes.push(format!(
                "No base_pr was given: chose #{}, whose head branch {:?} is #{}'s base.",
                base.number, base.head_ref, dependent.number
            ));
            let b = PrRef {
                repo: dependent_ref.repo.clone(),
                number: base.number,
            };
            (b, base)
        }
    };
    if base.number == dependent.number {
        return Err(Error::user("base_pr and dependent_pr are the same pull request")
            .with_suggestion("Give the earlier PR as base_pr and the later one as dependent_pr."));
    }
    if dependent.state != PrState::Open {
        return Err(Error::logical(format!(
            "PR #{} is {}: only an open PR can be restacked",
            dependent.number,
            state_str(dependent.state)
        )));
    }
    if base.state == PrState::Closed {
        return Err(Error::logical(format!(
            "base PR #{} was closed without merging: its commits will not reach {}",
            base.number, base.base_ref
        ))
        .with_suggestion(
            "Rebase the dependent onto the base PR's target yourself, or reopen the base PR.",
        ));
    }
    let walked = stack::walk(forge.as_ref(), &dependent_ref.repo, &base, &dependent).await?;
    let (base_history, unread) = stack::base_history(forge.as_ref(), &base_ref).await;
    notes.extend(unread);
    let trunk_branch = input.onto_base.clone().unwrap_or_else(|| base.base_ref.clone());
    // A fork's branch lives in the fork: it is restacked with the others but never pushed
    // through this repository's remote (that would create a branch here, not move the PR).
    let forks = fork_levels(std::iter::once(&dependent).chain(walked.above.iter()));
    // Everything local happens off the runtime, in one go.
    let git = local::git(ctx)?;
    let settings = ctx.local.clone();
    let directory = input.directory.clone();
    let repo_ref = dependent_ref.repo.clone();
    let plan_input = PlanInput {
        trunk: String::new(),
        trunk_branch: trunk_branch.clone(),
        base: base.clone(),
        dependent: dependent.clone(),
        above: walked.above.clone(),
        commit_limit: COMMIT_LIMIT,
        base_history,
        old_base: input.old_base.clone(),
    };
    let rollback = input.rollback;
    let use_onto = input.use_onto;
    let forks_here = forks.clone();
    let what = if execute || rollback {
        "restacking the branches"
    } else {
        "fetching the stack's commits and predicting the rebase"
    };
    let local_work = blocking(ctx, what, move || {
        let local = local::locate(&git, &settings, directory.as_deref(), &plan_input.dependent, &repo_ref)?;
        let mut prs: Vec<&PullRequest> = vec![&plan_input.base, &plan_input.dependent];
        prs.extend(plan_input.above.iter());
        // The branches that move (and an open base's, which they move onto), as the remote
        // has them now, beside the heads the forge reported.
        let checked: Vec<&PullRequest> = std::iter::once(&plan_input.dependent)
            .chain(plan_input.above.iter())
            .chain((plan_input.base.state == PrState::Open).then_some(&plan_input.base))
            .filter(|p| !p.is_from_fork())
            .collect();
        let head_branches: Vec<&str> = checked.iter().map(|p| p.head_ref.as_str()).collect();
        let kept = earlier_base_tips(&local, &plan_input.base)?;
        let (mut trunk, tips) =
            local::fetch_with_heads(&local, &prs, &[&plan_input.trunk_branch], &head_branches)?;
        let trunk = trunk.remove(0);
        let remote_name = local.remote.clone();
        let tips: Vec<(u64, BranchTip)> = checked
            .iter()
            .zip(tips)
            .map(|(pr, tip)| Ok((pr.number, branch_tip(&local.repo, pr, tip, &remote_name)?)))
            .collect::<Result<_>>()?;
        let mut stack_notes = Vec::new();
        let mut moved = Vec::new();
        let mut plan_input = plan_input;
        for (number, tip) in tips {
            match tip {
                BranchTip::AsReported => {}
                BranchTip::Ahead { tip, note } => {
                    stack_notes.push(note);
                    for pr in std::iter::once(&mut plan_input.dependent)
                        .chain(plan_input.above.iter_mut())
                        .chain(std::iter::once(&mut plan_input.base))
                    {
                        if pr.number == number {
                            pr.head_sha = tip.clone();
                        }
                    }
                }
                BranchTip::Moved(why) => moved.push(why),
            }
        }
        let mut input = PlanInput { trunk, ..plan_input };
        add_base_tips(&local, &mut input, kept)?;
        let mut plan = match stack::plan(&local.repo, &input)? {
            Ok(plan) => plan,
            Err(not) => {
                return Err(Error::logical(format!(
                    "PR #{}'s base is {:?}, not PR #{}'s head {:?}, and it does not carry #{}'s \
                     commits: they are not stacked",
                    input.dependent.number,
                    not.dependent_base,
                    input.base.number,
                    not.base_head_branch,
                    input.base.number
                ))
                .with_detail("dependent_base", not.dependent_base)
                .with_detail("base_head_branch", not.base_head_branch)
                .with_suggestion("Check which PR the dependent was built on."));
            }
        };
        if push && plan.levels[0].guess {
            return Err(guessed_boundary(&input, &plan.levels[0].old_base));
        }
        let edited_squash = trust_forge_merge(&local.repo, &mut plan, &input.trunk)?;
        let strategy = choose(&plan, use_onto, edited_squash);
        let mut steps = Vec::new();
        let mut outcome = None;
        let started = now();
        if rollback {
            outcome = Some(do_rollback(&local, &plan, &forks_here, &mut steps));
        } else if execute && !moved.is_empty() {
            // Restacked from the forge's old view, a rewritten branch would get the commits
            // it no longer has (or trunk's) replayed back onto it and pushed.
            let detail = format!(
                "nothing was changed: {}. Call again once the forge shows the new head(s).",
                moved.join("; ")
            );
            steps.push(StepReport {
                step: "restack".to_owned(),
                status: "failed".to_owned(),
                detail: detail.clone(),
            });
            outcome = Some(Err(detail));
        } else if execute {
            outcome = Some(do_execute(&local, &plan, strategy.0, push, &forks_here, &mut steps));
        }
        if !execute {
            stack_notes.extend(moved.iter().map(|m| format!("The plan is the forge's view, but {m}.")));
        }
        let remote = if local.place.is_checkout() {
            local.remote.clone()
        } else {
            "origin".to_owned()
        };
        Ok(LocalWork {
            plan,
            strategy,
            steps,
            outcome,
            started,
            remote,
            place: local.place.describe(),
            note: local.note,
            stack_notes,
            trunk: input.trunk,
            forks: forks_here,
            edited_squash,
        })
    })
    .await?;
    let mut work = local_work;
    if let Some(n) = work.note.take() {
        notes.push(n);
    }
    notes.append(&mut work.stack_notes);

    // Retarget after a successful push, before anything deletes the parent branch.
    let merged = base.state == PrState::Merged;
    if execute && input.retarget && matches!(work.outcome, Some(Ok(()))) {
        if merged && dependent.base_ref == base.head_ref {
            match forge.pull_requests().set_base(&dependent_ref, &trunk_branch).await {
                Ok(_) => work.steps.push(StepReport {
                    step: "retarget".to_owned(),
                    status: "done".to_owned(),
                    detail: format!("#{} now targets {trunk_branch}", dependent.number),
                }),
                Err(e) => {
                    let e = Error::from(e);
                    work.steps.push(StepReport {
                        step: "retarget".to_owned(),
                        status: "failed".to_owned(),
                        detail: e.error.clone(),
                    });
                    work.outcome = Some(Err(e.error));
                }
            }
        } else {
            work.steps.push(StepReport {
                step: "retarget".to_owned(),
                status: "skipped".to_owned(),
                detail: if merged {
                    format!("#{} does not target {:?}", dependent.number, base.head_ref)
                } else {
                    format!("#{} is not merged: #{} stays on its branch", base.number, dependent.number)
                },
            });
        }
    }

    let commands = commands(
        forge.as_ref(),
        &dependent_ref,
        &base,
        &dependent,
        &work,
        input.max_iterations.unwrap_or(3),
        &trunk_branch,
    );
    Ok(output(
        &base_ref, &dependent_ref, &base, &dependent, &walked, work, commands, execute || rollback, notes,
        &trunk_branch,
    ))
}

/// What the blocking part found and did.
struct LocalWork {
    plan: StackPlan,
    strategy: (Strategy, String, bool, Vec<String>),
    steps: Vec<StepReport>,
    /// `None`: nothing was asked to run. `Err`: the error of the failed step.
    outcome: Option<std::result::Result<(), String>>,
    started: chrono::DateTime<chrono::Utc>,
    remote: String,
    place: String,
    note: Option<String>,
    /// What the remote's branches said beside the forge's heads (ahead, moved).
    stack_notes: Vec<String>,
    trunk: String,
    forks: Vec<ForkLevel>,
    /// The base PR was squash-merged with edits: the forge's merge commit, in trunk, matches
    /// neither its commits nor its changes.
    edited_squash: bool,
}

/// A stack branch on the remote, beside the head its pull request reports.
enum BranchTip {
    AsReported,
    /// Pushed to after the forge's answer (it contains the reported head): planned at `tip`.
    Ahead { tip: String, note: String },
    /// Rewritten (it no longer contains the reported head) or gone: never restacked.
    Moved(String),
}

/// How the branch of `pr` on the remote (`tip`, just fetched; `None`: gone) stands to the
/// head the forge reported for it.
fn branch_tip(
    repo: &resolve_pr_git::Repository,
    pr: &PullRequest,
    tip: Option<String>,
    remote: &str,
) -> Result<BranchTip> {
    Ok(match tip {
        Some(tip) if tip == pr.head_sha => BranchTip::AsReported,
        Some(tip) if repo.is_ancestor(&pr.head_sha, &tip)? => BranchTip::Ahead {
            note: format!(
                "{} (#{}) is at {} on {remote}, ahead of the head {} the forge reports (a push                  it has not shown yet): planned from {}.",
                pr.head_ref,
                pr.number,
                short(&tip),
                short(&pr.head_sha),
                short(&tip)
            ),
            tip,
        },
        Some(tip) => BranchTip::Moved(format!(
            "{} (#{}) moved: it is at {} on {remote}, which does not contain {}, the head the              forge reports (force-pushed since)",
            pr.head_ref,
            pr.number,
            short(&tip),
            short(&pr.head_sha)
        )),
        None => BranchTip::Moved(format!(
            "{} (#{}) no longer exists on {remote}",
            pr.head_ref, pr.number
        )),
    })
}

/// When trunk's history matched neither the base PR's commits nor its changes, but the forge
/// says it merged as a commit that trunk has with one parent: it was squash-merged, with
/// edits (a line changed while squashing). Returns whether that was read so.
fn trust_forge_merge(
    repo: &resolve_pr_git::Repository,
    plan: &mut StackPlan,
    trunk: &str,
) -> Result<bool> {
    let BaseState::Merged {
        how: how @ MergeHow::Unknown,
        commit: Some(commit),
    } = &mut plan.base_state
    else {
        return Ok(false);
    };
    if !repo.has_commit(commit)? || !repo.is_ancestor(commit, trunk)? {
        return Ok(false);
    }
    let Ok((listed, _)) = repo.commits_between(&format!("{commit}~"), commit, 50) else {
        return Ok(false);
    };
    let squash = listed
        .iter()
        .any(|c| c.oid == *commit && c.parents.len() == 1);
    if squash {
        *how = MergeHow::Squash {
            commit: commit.clone(),
        };
    }
    Ok(squash)
}

/// The base's head as earlier calls fetched it (before this call's fetch moves the refs).
fn earlier_base_tips(local: &local::Local, base: &PullRequest) -> Result<Vec<String>> {
    let mut tips = Vec::new();
    for r in [local::branch_ref(&base.head_ref), local::pull_ref(base.number)] {
        tips.extend(local.repo.read_ref(&r)?);
    }
    Ok(tips)
}

/// Adds to the plan's record of the base's branch what this repository knows of it: the
/// tips earlier calls fetched, and the reflog of the checkout's remote-tracking branch; and
/// checks a given `old_base` (a commit of the dependent's history).
fn add_base_tips(local: &local::Local, input: &mut PlanInput, kept: Vec<String>) -> Result<()> {
    let history = &mut input.base_history;
    history
        .tips
        .extend(kept.into_iter().map(|t| (t, stack::TipSource::EarlierCall)));
    let head = input.dependent.head_sha.clone();
    if local.place.is_checkout() && !input.base.is_from_fork() {
        let upstream = format!("refs/remotes/{}/{}", local.remote, input.base.head_ref);
        if let Ok(Some(point)) = local.repo.fork_point(&upstream, &head) {
            history.tips.push((point, stack::TipSource::Reflog));
        }
    }
    if let Some(given) = input.old_base.take() {
        let found = local.repo.resolve_commit(&given).ok();
        let Some(oid) = found.filter(|o| local.repo.is_ancestor(o, &head).unwrap_or(false)) else {
            return Err(Error::user(format!(
                "old_base {given:?} is not a commit of #{}'s history",
                input.dependent.number
            ))
            .with_suggestion(format!(
                "Give the commit #{}'s branch was at when #{} branched from it (a full or \
                 abbreviated id that #{}'s history holds).",
                input.base.number, input.dependent.number, input.dependent.number
            )));
        };
        input.old_base = Some(oid);
    }
    Ok(())
}

/// Why a guessed boundary is in `issues`, and how to give it.
fn guess_issue(base: &PullRequest, dependent: &PullRequest, start: &str) -> String {
    format!(
        "Where #{}'s own commits start is a guess: nothing records where #{}'s branch was when \
         #{} left it ({}'s timeline shows a force-push whose old head is not here, or could not \
         be read), so they are taken to start at their merge base {}, and a commit #{} dropped \
         may be counted as #{}'s own. Check `git log {}..{}`; give old_base (the commit #{} \
         left #{}'s branch at) to restack, and push only then.",
        dependent.number,
        base.number,
        dependent.number,
        base.number,
        short(start),
        base.number,
        dependent.number,
        short(start),
        short(&dependent.head_sha),
        dependent.number,
        base.number
    )
}

/// The error for `push` on a guessed boundary: never push on a guess.
fn guessed_boundary(input: &PlanInput, start: &str) -> Error {
    Error::logical(format!(
        "not pushed: where #{}'s own commits start is a guess ({}, its merge base with #{}: \
         nothing records where #{}'s branch was when #{} left it), and a restack from a guess \
         can put back a commit #{} dropped",
        input.dependent.number,
        short(start),
        input.base.number,
        input.base.number,
        input.dependent.number,
        input.base.number
    ))
    .with_detail("old_base", start.to_owned())
    .with_suggestion(format!(
        "Call again with old_base: the commit #{}'s branch was at when #{} branched from it (see \
         `git reflog` of the branch, or `git log {}..{}`), or without push to plan first.",
        input.base.number,
        input.dependent.number,
        short(start),
        short(&input.dependent.head_sha)
    ))
}

/// The merged PR into `dependent`'s base whose head commit is one of `dependent`'s own
/// commits (the PR it was stacked on, before a retarget by hand); `None` when none is, or the
/// forge cannot say. Two requests, on the error path only.
async fn merged_base_of(
    forge: &dyn resolve_pr_forge::Forge,
    dependent_ref: &PrRef,
    dependent: &PullRequest,
) -> Option<u64> {
    let filter = PullFilter {
        state: PullListState::Merged,
        head: None,
        base: Some(dependent.base_ref.clone()),
        limit: 30,
        ..PullFilter::default()
    };
    let merged = forge
        .pull_requests()
        .list_pull_requests(&dependent_ref.repo, &filter)
        .await
        .ok()?;
    let own = forge.repository().pull_commits(dependent_ref).await.ok()?;
    merged
        .into_iter()
        .filter(|p| p.number != dependent.number && p.state == PrState::Merged)
        .find(|p| own.iter().any(|c| c.sha == p.head_sha))
        .map(|p| p.number)
}

fn same_repo(a: &PrRef, b: &PrRef) -> bool {
    a.repo.host() == b.repo.host()
        && a.repo.owner.eq_ignore_ascii_case(&b.repo.owner)
        && a.repo.repo.eq_ignore_ascii_case(&b.repo.repo)
}

fn state_str(s: PrState) -> &'static str {
    match s {
        PrState::Open => "open",
        PrState::Closed => "closed",
        PrState::Merged => "merged",
    }
}

fn merge_method(how: &MergeHow) -> &'static str {
    match how {
        MergeHow::MergeCommit => "merge",
        MergeHow::Squash { .. } => "squash",
        MergeHow::Rebase { .. } => "rebase",
        MergeHow::ContentInTrunk => "content",
        MergeHow::Unknown => "unknown",
    }
}

/// The strategy, why, whether the agent should choose, and what to weigh.
fn choose(
    plan: &StackPlan,
    use_onto: Option<bool>,
    edited_squash: bool,
) -> (Strategy, String, bool, Vec<String>) {
    let dep = &plan.levels[0];
    let own = kept(dep);
    let onto_clean = plan.levels.iter().all(|l| l.onto.clean);
    let regular_clean = plan.regular.clean;
    let mut considerations = Vec::new();
    let regular_extra = plan.regular_commits.saturating_sub(own);
    match &plan.base_state {
        BaseState::Merged { how, commit } => {
            let commit = commit.as_deref().map(short).unwrap_or("?");
            match how {
                MergeHow::MergeCommit => considerations.push(format!(
                    "The base PR was merged with a merge commit ({commit}): its commits are in \
                     trunk as they are, so a plain rebase skips them."
                )),
                MergeHow::Squash { commit: sq } if edited_squash => considerations.push(format!(
                    "The base PR was squash-merged as {} (the forge's merge commit); its changes \
                     differ slightly from the PR's (edited while squashing), so no commit or \
                     patch of it matches.",
                    short(sq)
                )),
                MergeHow::Squash { commit: sq } => considerations.push(format!(
                    "The base PR was squash-merged as {}: its commits are not in trunk's history.",
                    short(sq)
                )),
                MergeHow::Rebase { commits } => considerations.push(format!(
                    "The base PR was rebase-merged: {} commit(s) re-applied on trunk with new ids.",
                    commits.len()
                )),
                MergeHow::ContentInTrunk => considerations.push(
                    "Trunk has all of the base PR's changes but no commit of it matches: squashed \
                     with edits, or merged another way."
                        .to_owned(),
                ),
                MergeHow::Unknown => considerations.push(format!(
                    "The forge says the base PR merged ({commit}), but trunk's recent history \
                     shows neither its commits nor its changes."
                )),
            }
        }
        BaseState::Open {
            new_commits_total, ..
        } => {
            if *new_commits_total > 0 {
                considerations.push(format!(
                    "The base PR has {new_commits_total} commit(s) the dependent lacks."
                ));
            }
        }
    }
    considerations.push(format!(
        "--onto replays only the dependent's own {own} commit(s){}{}.",
        if dep.onto.emptied.is_empty() {
            String::new()
        } else {
            format!(" ({} more already in trunk are dropped)", dep.onto.emptied.len())
        },
        if onto_clean { " without conflicts" } else { " and stops at a conflict (predicted_conflicts)" }
    ));
    considerations.push(format!(
        "A plain rebase replays {} commit(s){}{}.",
        plan.regular_commits,
        if regular_extra > 0 {
            format!(", {regular_extra} of them not the dependent's own")
        } else {
            String::new()
        },
        if regular_clean { " without conflicts" } else { " and stops at a conflict" }
    ));
    if plan.levels.len() > 1 {
        considerations.push(format!(
            "{} more PR(s) sit on the dependent and move with it.",
            plan.levels.len() - 1
        ));
    }
    if let Some(force) = use_onto {
        let s = if force { Strategy::Onto } else { Strategy::Regular };
        return (s, "As asked (use_onto).".to_owned(), false, considerations);
    }
    let rewritten = matches!(&plan.base_state, BaseState::Merged { how, .. } if how.rewrote());
    if rewritten {
        let reason = format!(
            "The base PR's commits reached trunk as other commits ({}): --onto skips them and \
             replays only the dependent's {own} commit(s); a plain rebase would replay them again{}.",
            match &plan.base_state {
                BaseState::Merged { how, .. } => merge_method(how),
                _ => "",
            },
            if regular_clean { "" } else { " and conflict" }
        );
        return (Strategy::Onto, reason, false, considerations);
    }
    if dep.boundary == Boundary::Trunk && regular_extra > 0 {
        return (
            Strategy::Onto,
            format!(
                "The dependent holds trunk's commits newer than where it left its base (rebased \
                 onto trunk, or trunk merged in): a plain rebase would replay {regular_extra} of \
                 them as its own; --onto replays only its {own} commit(s)."
            ),
            false,
            considerations,
        );
    }
    if dep.boundary != Boundary::ParentHead && !regular_clean && onto_clean {
        return (
            Strategy::Onto,
            "A plain rebase is predicted to conflict and --onto is not: the base branch was \
             rewritten after the dependent left it, so a plain rebase would replay its old \
             commits."
                .to_owned(),
            false,
            considerations,
        );
    }
    (
        Strategy::Regular,
        "The base PR's commits are in the history the dependent moves onto, so a plain rebase \
         works; --onto gives the same result."
            .to_owned(),
        true,
        considerations,
    )
}

/// Performs the restack and, when asked, the push.
fn do_execute(
    local: &local::Local,
    plan: &StackPlan,
    strategy: Strategy,
    push: bool,
    forks: &[ForkLevel],
    steps: &mut Vec<StepReport>,
) -> std::result::Result<(), String> {
    if plan.up_to_date {
        steps.push(StepReport {
            step: "restack".to_owned(),
            status: "skipped".to_owned(),
            detail: "the dependent already sits on its new base".to_owned(),
        });
        return Ok(());
    }
    if let Some(l) = plan.levels.iter().find(|l| !l.onto.clean) {
        let at = l.onto.conflicts.first();
        let detail = match at {
            Some(c) => format!(
                "predicted conflict replaying {} ({}) in {}: nothing was changed",
                short(&c.commit),
                c.summary,
                c.files.join(", ")
            ),
            None => format!("predicted conflicts in {}: nothing was changed", l.branch),
        };
        steps.push(StepReport {
            step: "restack".to_owned(),
            status: "failed".to_owned(),
            detail: detail.clone(),
        });
        return Err(detail);
    }
    let branches: Vec<RestackBranch> = plan
        .levels
        .iter()
        .enumerate()
        .map(|(i, l)| RestackBranch {
            name: l.branch.clone(),
            head: l.head.clone(),
            old_base: if i == 0 && strategy == Strategy::Regular {
                local
                    .repo
                    .merge_base(&plan.new_base, &l.head)
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| l.old_base.clone())
            } else {
                l.old_base.clone()
            },
        })
        .collect();
    let results: Vec<RestackResult> = match local.repo.restack(&plan.new_base, &branches) {
        Ok(r) => r,
        Err(e) => {
            let detail = Error::from(e).error;
            steps.push(StepReport {
                step: "restack".to_owned(),
                status: "failed".to_owned(),
                detail: detail.clone(),
            });
            return Err(detail);
        }
    };
    for r in &results {
        steps.push(StepReport {
            step: format!("restack {}", r.name),
            status: "done".to_owned(),
            detail: format!(
                "{} → {} ({} commit(s){}); result in {}, old head kept in {}",
                short(&r.old_head),
                short(&r.new_head),
                r.commits,
                if r.dropped > 0 {
                    format!(", {} dropped: already in {}", r.dropped, plan.new_base_branch)
                } else {
                    String::new()
                },
                r.result_ref,
                r.backup_ref
            ),
        });
    }
    if !push {
        steps.push(StepReport {
            step: "push".to_owned(),
            status: "skipped".to_owned(),
            detail: "not asked (push: true pushes with a lease on the old heads)".to_owned(),
        });
        return Ok(());
    }
    // A fork's level goes to the fork, and a level with nothing left is not emptied on the
    // forge: both are left out of the one atomic push (which would otherwise fail, or empty
    // a PR, as a whole) and said so.
    let mut pushed = Vec::new();
    for (r, l) in results.iter().zip(&plan.levels) {
        let left_out = if let Some(f) = fork_of(forks, l.number) {
            Some(format!(
                "#{} is from a fork ({}): not pushed to {}; the commands push it to the fork",
                l.number,
                f.repo.as_deref().unwrap_or("deleted"),
                local.remote
            ))
        } else if r.commits == 0 && r.dropped > 0 {
            Some(format!(
                "#{} has nothing left (all {} commit(s) are in {}): not pushed; close it",
                l.number, r.dropped, plan.new_base_branch
            ))
        } else {
            None
        };
        match left_out {
            Some(detail) => steps.push(StepReport {
                step: format!("push {}", r.name),
                status: "skipped".to_owned(),
                detail,
            }),
            None => pushed.push(r),
        }
    }
    if pushed.is_empty() {
        return Ok(());
    }
    let updates: Vec<PushUpdate> = pushed
        .iter()
        .map(|r| PushUpdate {
            branch: r.name.clone(),
            expected_old: r.old_head.clone(),
            new: r.new_head.clone(),
        })
        .collect();
    match local.repo.push_with_lease(&local.remote, &updates) {
        Ok(()) => {
            steps.push(StepReport {
                step: "push".to_owned(),
                status: "done".to_owned(),
                detail: format!(
                    "pushed {} to {} with --force-with-lease",
                    pushed.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", "),
                    local.remote
                ),
            });
            Ok(())
        }
        Err(e) => {
            let detail = Error::from(e).error;
            steps.push(StepReport {
                step: "push".to_owned(),
                status: "failed".to_owned(),
                detail: detail.clone(),
            });
            Err(detail)
        }
    }
}

/// Pushes the backed-up heads of the last execute back.
fn do_rollback(
    local: &local::Local,
    plan: &StackPlan,
    forks: &[ForkLevel],
    steps: &mut Vec<StepReport>,
) -> std::result::Result<(), String> {
    let mut results = Vec::new();
    // A fork's level was never pushed to this remote.
    for l in plan.levels.iter().filter(|l| fork_of(forks, l.number).is_none()) {
        let backup_ref = format!("refs/resolve-pr/backup/{}", l.branch);
        let result_ref = format!("refs/resolve-pr/restack/{}", l.branch);
        let backup = local.repo.read_ref(&backup_ref).map_err(|e| Error::from(e).error)?;
        let result = local.repo.read_ref(&result_ref).map_err(|e| Error::from(e).error)?;
        // A level that was not pushed (nothing left in it) is at its old head still.
        let tip = local
            .repo
            .read_ref(&local::branch_ref(&l.branch))
            .map_err(|e| Error::from(e).error)?;
        if tip.is_some() && tip == backup {
            continue;
        }
        if let (Some(old_head), Some(new_head)) = (backup, result) {
            results.push(RestackResult {
                name: l.branch.clone(),
                old_head,
                new_head,
                commits: 0,
                dropped: 0,
                backup_ref,
                result_ref,
            });
        }
    }
    if results.is_empty() {
        let detail = "no restack of these branches was found to roll back (no \
                      refs/resolve-pr/backup/<branch> in this repository)"
            .to_owned();
        steps.push(StepReport {
            step: "rollback".to_owned(),
            status: "failed".to_owned(),
            detail: detail.clone(),
        });
        return Err(detail);
    }
    match local.repo.rollback(&local.remote, &results) {
        Ok(()) => {
            for r in &results {
                steps.push(StepReport {
                    step: format!("rollback {}", r.name),
                    status: "done".to_owned(),
                    detail: format!("{} is back at {}", r.name, short(&r.old_head)),
                });
            }
            Ok(())
        }
        Err(e) => {
            let detail = Error::from(e).error;
            steps.push(StepReport {
                step: "rollback".to_owned(),
                status: "failed".to_owned(),
                detail: detail.clone(),
            });
            Err(detail)
        }
    }
}

/// The current time (whole seconds).
fn now() -> chrono::DateTime<chrono::Utc> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
    chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default()
}


/// A step that fails (exit 1) unless the checked-out branch contains the PR's head: a local
/// branch that is stale or another commit stops the sequence before it is rebased and pushed.
fn contains_head(branch: &str, head: &str) -> Command {
    let mut c = Command::new(
        CommandType::Verification,
        render_cmd(ShellCommand::new("git").args(["merge-base", "--is-ancestor", head, "HEAD"])),
        format!(
            "Check the local {branch} contains the PR's head {} before moving it (exit status 0).",
            short(head)
        ),
    );
    c.on_failure = Some(format!(
        "Your local {branch} lacks the PR's head {}: `git merge --ff-only` it from the remote \
         (or start the branch again from it), then ask for a new plan.",
        short(head)
    ));
    c
}

fn render_cmd(c: ShellCommand) -> String {
    c.render().unwrap_or_default()
}

/// The onto and regular rebase commands for the dependent.
fn rebase_commands(remote: &str, new_base_branch: &str, old_base: &str, branch: &str) -> (String, String) {
    let target = format!("{remote}/{new_base_branch}");
    let onto = render_cmd(ShellCommand::new("git").args([
        "rebase",
        "--onto",
        &target,
        old_base,
        "--end-of-options",
        branch,
    ]));
    let regular = render_cmd(ShellCommand::new("git").args(["rebase", &target, "--end-of-options", branch]));
    (onto, regular)
}

/// After a restack, a push or a rollback that ran: what brings the user's local branches to
/// the result (`reset --keep` refuses to drop uncommitted changes).
fn after_execute(work: &LocalWork, undo_retarget: Option<Command>) -> Vec<Command> {
    let remote = work.remote.as_str();
    let rolled_back = work
        .steps
        .iter()
        .any(|s| s.step.starts_with("rollback") && s.status == "done");
    let pushed = rolled_back || work.steps.iter().any(|s| s.step == "push" && s.status == "done");
    let mut steps = Steps::default();
    let mut last = None;
    if pushed {
        last = Some(steps.add(
            Command::new(
                CommandType::Git,
                render_cmd(ShellCommand::new("git").args(["fetch", "--end-of-options", remote])),
                format!("Fetch the branches as they are on {remote} now."),
            ),
            last,
        ));
    }
    let levels = &work.plan.levels;
    for (i, l) in levels.iter().enumerate() {
        let result = format!("refs/resolve-pr/restack/{}", l.branch);
        if let Some(fork) = fork_of(&work.forks, l.number) {
            let parent = match i.checked_sub(1).map(|p| &levels[p]) {
                Some(below) => (below.branch.as_str(), below.head.as_str()),
                None => (work.plan.new_base_branch.as_str(), l.old_base.as_str()),
            };
            if !rolled_back && let Some(c) = fork_push(l, fork, &result, parent) {
                last = Some(steps.add(c, last));
            }
            continue;
        }
        if !rolled_back && nothing_left(l) {
            last = Some(steps.add(close_note(l, &work.plan.new_base_branch), last));
            continue;
        }
        let target = if pushed {
            format!("{remote}/{}", l.branch)
        } else {
            result
        };
        let switch = steps.add(
            Command::new(
                CommandType::Git,
                render_cmd(ShellCommand::new("git").args(["switch", "--end-of-options", &l.branch])),
                format!("Switch to {}.", l.branch),
            ),
            last,
        );
        last = Some(steps.add(
            Command::new(
                CommandType::Git,
                render_cmd(ShellCommand::new("git").args(["reset", "--keep", &target])),
                format!(
                    "Move your local {} to {target} (a plain `git pull` would merge the old \
                     commits back in).",
                    l.branch
                ),
            ),
            Some(switch),
        ));
    }
    if let Some(undo) = undo_retarget {
        steps.add(undo, last);
    }
    steps.0
}

fn commands(
    forge: &dyn resolve_pr_forge::Forge,
    dependent_ref: &PrRef,
    base: &PullRequest,
    dependent: &PullRequest,
    work: &LocalWork,
    max_iterations: u32,
    trunk_branch: &str,
) -> Vec<Command> {
    let plan = &work.plan;
    if matches!(work.outcome, Some(Ok(()))) && work.steps.iter().any(|s| s.status == "done") {
        let rolled_back = work.steps.iter().any(|s| s.step.starts_with("rollback"));
        // Rollback moves branches, not the PR's target: a retarget (by this tool or by hand)
        // is undone by a command.
        let undo = (rolled_back
            && base.state == PrState::Merged
            && dependent.base_ref != base.head_ref
            && dependent.base_ref == trunk_branch)
            .then(|| {
                Command::new(
                    CommandType::GithubApi,
                    render_cmd(forge.commands().set_base(dependent_ref, &base.head_ref)),
                    format!(
                        "Retarget #{} back to {:?}: rollback does not undo the retarget (the \
                         branch must still exist).",
                        dependent.number, base.head_ref
                    ),
                )
            });
        return after_execute(work, undo);
    }
    if plan.up_to_date {
        return Vec::new();
    }
    let remote = work.remote.as_str();
    let mut steps = Steps::default();
    let fetch = steps.add(
        Command::new(
            CommandType::Git,
            render_cmd(ShellCommand::new("git").args(["fetch", "--end-of-options", remote])),
            format!(
                "Fetch {remote}'s branches ({} moved, the PR branches may have too).",
                plan.new_base_branch
            ),
        ),
        None,
    );
    let dep = &plan.levels[0];
    let forks = &work.forks;
    let fork_from = |l: &LevelPlan| fork_of(forks, l.number).map(|_| remote);
    let dep_local = local_branch(dep, forks);
    let verify =
        steps.switch_and_check(dependent.number, &dep_local, &dep.head, fetch, fork_from(dep));
    let (onto, regular) =
        rebase_commands(remote, &plan.new_base_branch, &dep.old_base, &dep_local);
    let strategy = work.strategy.0;
    let mut rebase = Command::new(
        CommandType::Git,
        if strategy == Strategy::Onto { onto } else { regular },
        match strategy {
            Strategy::Onto => format!(
                "Replay #{}'s own {} commit(s) after {} onto {remote}/{}{}.",
                dependent.number,
                kept(dep),
                short(&dep.old_base),
                plan.new_base_branch,
                if dep.onto.emptied.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} more are in {} already and dropped",
                        dep.onto.emptied.len(),
                        plan.new_base_branch
                    )
                }
            ),
            Strategy::Regular => format!(
                "Rebase #{} onto {remote}/{}.",
                dependent.number, plan.new_base_branch
            ),
        },
    );
    rebase.is_idempotent = false;
    rebase.retry_on_failure = Some(false);
    rebase.estimated_duration = Some("under a minute without conflicts".to_owned());
    if !dep.onto.clean {
        rebase.on_failure = Some(REBASE_ON_FAILURE.to_owned());
    }
    let mut last = steps.add(rebase, Some(verify));
    let mut prev_branch = dep_local.clone();
    let mut prev_old_head = dep.head.clone();
    for l in plan.levels.iter().skip(1) {
        let l_local = local_branch(l, forks);
        let check = steps.switch_and_check(l.number, &l_local, &l.head, last, fork_from(l));
        let mut c = Command::new(
            CommandType::Git,
            render_cmd(ShellCommand::new("git").args([
                "rebase",
                "--onto",
                &prev_branch,
                &prev_old_head,
                "--end-of-options",
                &l_local,
            ])),
            format!(
                "Move #{} ({} commit(s)) onto the restacked {prev_branch}: it started after {}.",
                l.number,
                kept(l),
                short(&prev_old_head)
            ),
        );
        c.is_idempotent = false;
        if !l.onto.clean && !l.conflict_in_lower {
            c.on_failure = Some(REBASE_ON_FAILURE.to_owned());
        }
        last = steps.add(c, Some(check));
        prev_branch = l_local;
        prev_old_head = l.head.clone();
    }
    // This repository's branches in one atomic push; a fork's each to its fork; a level with
    // nothing left is not pushed at all (its PR is closed instead).
    let own: Vec<&LevelPlan> = plan
        .levels
        .iter()
        .filter(|l| fork_of(forks, l.number).is_none() && !nothing_left(l))
        .collect();
    if !own.is_empty() {
        let mut push_cmd = ShellCommand::new("git").args(["push", "--atomic"]);
        for l in &own {
            push_cmd =
                push_cmd.arg(format!("--force-with-lease=refs/heads/{}:{}", l.branch, l.head));
        }
        push_cmd = push_cmd.args(["--end-of-options", remote]);
        for l in &own {
            push_cmd = push_cmd.arg(format!("refs/heads/{0}:refs/heads/{0}", l.branch));
        }
        last = steps.add(
            Command::new(
                CommandType::Git,
                render_cmd(push_cmd),
                "Push the restacked branches, only if nobody pushed to them since (a lease on \
                 each old head)."
                    .to_owned(),
            ),
            Some(last),
        );
    }
    for (i, l) in plan.levels.iter().enumerate() {
        if let Some(fork) = fork_of(forks, l.number) {
            let parent = match i.checked_sub(1).map(|p| &plan.levels[p]) {
                Some(below) => (below.branch.as_str(), below.head.as_str()),
                None => (plan.new_base_branch.as_str(), l.old_base.as_str()),
            };
            let source = format!("refs/heads/{}", local_branch(l, forks));
            if let Some(c) = fork_push(l, fork, &source, parent) {
                last = steps.add(c, Some(last));
            }
        } else if nothing_left(l) {
            last = steps.add(close_note(l, &plan.new_base_branch), Some(last));
        }
    }
    if base.state == PrState::Merged && dependent.base_ref == base.head_ref {
        last = steps.add(
            Command::new(
                CommandType::GithubApi,
                render_cmd(forge.commands().set_base(dependent_ref, trunk_branch)),
                format!(
                    "Retarget #{} to {trunk_branch} BEFORE deleting {:?}: deleting a PR's base \
                     branch closes the PR on GitHub instead of retargeting it.",
                    dependent.number, base.head_ref
                ),
            ),
            Some(last),
        );
    }
    let mut wait = Command::new(
        CommandType::CiWait,
        format!(
            "get_failing_tests(pr='{}', wait=true, bail_on_first=true)",
            dependent_ref.normalized()
        ),
        "Wait for CI on the pushed branch and read what failed.".to_owned(),
    );
    wait.estimated_duration = Some("5-15 minutes".to_owned());
    let wait = steps.add(wait, Some(last));
    let mut fix = Command::new(
        CommandType::Fix,
        "# fix what get_failing_tests reports, commit, push, and wait again".to_owned(),
        "Fix failures the rebase introduced.".to_owned(),
    );
    fix.skip_if = Some("get_failing_tests reports status passed".to_owned());
    fix.max_retries = Some(max_iterations);
    fix.retry_on_failure = Some(true);
    fix.can_automate = false;
    fix.is_idempotent = false;
    let fix = steps.add(fix, Some(wait));
    let mut check = Command::new(
        CommandType::Verification,
        render_cmd(ShellCommand::new("git").args([
            "log",
            "--oneline",
            &format!("{remote}/{}..{}", plan.new_base_branch, dep_local),
        ])),
        format!(
            "Only #{}'s own commits remain on top of {}.",
            dependent.number, plan.new_base_branch
        ),
    );
    check.expect_output = Some(format!("{} line(s)", kept(dep)));
    steps.add(check, Some(fix));
    steps.0
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

fn visualization(trunk: &str, levels: &[StackLevel], plan: &StackPlan, base_state: &str) -> String {
    let mut out = format!("{trunk}\n");
    for (i, l) in levels.iter().enumerate() {
        let indent = "   ".repeat(i);
        let mut label = format!("{indent}└─ {} {} [{}", l.pr, l.branch, l.state);
        if l.role == Role::Base && !base_state.is_empty() {
            label.push_str(&format!(": {base_state}"));
        }
        if let Some(p) = plan.levels.iter().find(|p| p.branch == l.branch && p.head == l.head_sha) {
            label.push_str(&format!(", {} own commit(s)", p.own_commits_total));
        }
        label.push(']');
        match l.role {
            Role::Base => label.push_str("  ← base_pr"),
            Role::Dependent => label.push_str("  ← dependent_pr"),
            _ => {}
        }
        out.push_str(&label);
        out.push('\n');
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn output(
    base_ref: &PrRef,
    dependent_ref: &PrRef,
    base: &PullRequest,
    dependent: &PullRequest,
    walked: &Walked,
    work: LocalWork,
    commands: Vec<Command>,
    automation_enabled: bool,
    notes: Vec<String>,
    trunk_branch: &str,
) -> Output {
    let plan = &work.plan;
    let pr_name = |n: u64| format!("#{n}");
    let level = |p: &PullRequest, role: Role| StackLevel {
        pr: pr_name(p.number),
        branch: p.head_ref.clone(),
        base_branch: p.base_ref.clone(),
        state: state_str(p.state).to_owned(),
        head_sha: p.head_sha.clone(),
        role,
    };
    let mut stack: Vec<StackLevel> = walked.below.iter().map(|p| level(p, Role::Below)).collect();
    stack.push(level(base, Role::Base));
    stack.push(level(dependent, Role::Dependent));
    stack.extend(walked.above.iter().map(|p| level(p, Role::Above)));
    let (merged, how, merge_commit) = match &plan.base_state {
        BaseState::Merged { how, commit } => (true, Some(how.clone()), commit.clone()),
        BaseState::Open { .. } => (false, None, None),
    };
    let base_label = match &how {
        Some(h) => format!(
            "{}{}{}",
            merge_method(h),
            merge_commit.as_deref().map(|c| format!(" → {}", short(c))).unwrap_or_default(),
            if work.edited_squash { ", edited" } else { "" }
        ),
        None => String::new(),
    };
    let trunk_name = stack
        .first()
        .map(|l| l.base_branch.clone())
        .unwrap_or_else(|| trunk_branch.to_owned());
    let vis = visualization(&trunk_name, &stack, plan, &base_label);
    let dep = &plan.levels[0];
    let matches = dependent.base_ref == base.head_ref;
    let mut issues = Vec::new();
    if !matches && plan.stacked {
        issues.push(format!(
            "#{}'s base is {:?}, not #{}'s head {:?}{}",
            dependent.number,
            dependent.base_ref,
            base.number,
            base.head_ref,
            if merged && plan.stacked {
                " (retargeted after the merge; it still carries the base's commits)"
            } else {
                ""
            }
        ));
    }
    if !plan.stacked {
        issues.push(format!(
            "#{} no longer carries #{}'s commits: it already sits on #{}'s merge commit",
            dependent.number, base.number, base.number
        ));
    } else if dep.boundary == Boundary::RecordedBase {
        issues.push(format!(
            "#{} does not contain #{}'s head {}: the base was rewritten; #{}'s own commits are \
             taken to start at {}, the base the forge last recorded for it",
            dependent.number,
            base.number,
            short(&base.head_sha),
            dependent.number,
            short(&dep.old_base)
        ));
    } else if let Boundary::PreviousTip(source) = dep.boundary {
        issues.push(format!(
            "#{}'s branch was force-pushed after #{} left it (its head is {} now): #{}'s own \
             commits start at {}, where {} shows #{}'s branch was",
            base.number,
            dependent.number,
            short(&base.head_sha),
            dependent.number,
            short(&dep.old_base),
            match source {
                stack::TipSource::Timeline => "the forge's timeline of the base PR",
                stack::TipSource::Reflog => "your remote-tracking branch's reflog",
                stack::TipSource::EarlierCall => "an earlier call's fetch",
            },
            base.number
        ));
    } else if dep.boundary == Boundary::Trunk {
        issues.push(format!(
            "#{} holds {}'s commits up to {}: its own commits are taken to start there, so              none of {}'s is replayed as its own",
            dependent.number,
            trunk_name,
            short(&dep.old_base),
            trunk_name
        ));
    } else if dep.boundary == Boundary::MergeBase {
        issues.push(format!(
            "#{} does not contain #{}'s head {}: its own commits are taken to start at their \
             merge base {}",
            dependent.number,
            base.number,
            short(&base.head_sha),
            short(&dep.old_base)
        ));
    }
    if dep.guess {
        issues.push(guess_issue(base, dependent, &dep.old_base));
    }
    if !walked.siblings.is_empty() {
        issues.push(format!(
            "The stack forks: {} also build on a branch of it and were not followed.",
            walked.siblings.iter().map(|n| format!("#{n}")).collect::<Vec<_>>().join(", ")
        ));
    }
    for f in &work.forks {
        issues.push(match &f.url {
            Some(_) => format!(
                "#{} is from a fork ({}): it is left out of the push to {}; the commands push \
                 it to the fork (when its author lets maintainers edit), or @{} restacks it.",
                f.number,
                f.repo.as_deref().unwrap_or("deleted"),
                work.remote,
                f.author
            ),
            None => format!(
                "#{} is from a fork that is gone: it is left out of the push; only @{} can \
                 move it.",
                f.number, f.author
            ),
        });
    }
    for l in plan.levels.iter().filter(|l| nothing_left(l)) {
        issues.push(format!(
            "#{} has nothing left: all {} of its commit(s) are in {} already (cherry-picked, \
             or squashed with its base); close it rather than push an empty branch.",
            l.number,
            l.onto.emptied.len(),
            plan.new_base_branch
        ));
    }
    if work.edited_squash
        && let Some(c) = &merge_commit
    {
        issues.push(format!(
            "#{} was squash-merged as {}, the forge says; its changes differ slightly from the \
             PR's (edited while squashing).",
            base.number,
            short(c)
        ));
    }
    let (new_in_base, base_commits) = match &plan.base_state {
        BaseState::Open {
            new_commits,
            new_commits_total,
        } => (*new_commits_total as u64, new_commits.clone()),
        BaseState::Merged { .. } => (0, Vec::new()),
    };
    let predicted: Vec<PredictedConflict> = plan
        .levels
        .iter()
        .filter(|l| !l.conflict_in_lower)
        .filter_map(|l| {
            let c = l.onto.conflicts.first()?;
            let pr = stack.iter().find(|s| s.branch == l.branch).map(|s| s.pr.clone()).unwrap_or_default();
            Some(PredictedConflict {
                pr,
                branch: l.branch.clone(),
                commit: c.commit.clone(),
                summary: c.summary.clone(),
                files: c.files.clone(),
            })
        })
        .collect();
    let (strategy, reason, ai_should_decide, considerations) = work.strategy.clone();
    let predicted = if strategy == Strategy::Regular {
        plan.regular
            .conflicts
            .first()
            .map(|c| PredictedConflict {
                pr: pr_name(dependent.number),
                branch: dep.branch.clone(),
                commit: c.commit.clone(),
                summary: c.summary.clone(),
                files: c.files.clone(),
            })
            .into_iter()
            .collect()
    } else {
        predicted
    };
    let mut potential: Vec<String> = predicted.iter().flat_map(|p| p.files.clone()).collect();
    potential.extend(dep.onto.final_conflicts.iter().cloned());
    potential.sort();
    potential.dedup();
    let changes_detected = !plan.up_to_date;
    let commits = if base_commits.is_empty() {
        dep.own_commits.iter().map(commit_info).collect()
    } else {
        base_commits.iter().map(commit_info).collect()
    };
    let change_summary = ChangeSummary {
        new_commits_in_base: new_in_base,
        new_commits_in_dependent: dep.own_commits_total as u64,
        commits,
        files_changed_in_base: plan.base_files.clone(),
        files_changed_in_dependent: dep.files.clone(),
        overlapping_files: plan.overlapping_files.clone(),
        potential_conflicts: potential.clone(),
        base_additions: plan.base_additions,
        base_deletions: plan.base_deletions,
        dependent_additions: dep.additions,
        dependent_deletions: dep.deletions,
    };
    let (onto_command, regular_command) = rebase_commands(
        &work.remote,
        &plan.new_base_branch,
        &dep.old_base,
        &local_branch(dep, &work.forks),
    );
    let mut risk_factors = Vec::new();
    if !predicted.is_empty() {
        risk_factors.push(format!(
            "The rebase is predicted to stop at a conflict in {}.",
            potential.join(", ")
        ));
    }
    if !plan.overlapping_files.is_empty() {
        risk_factors.push(format!(
            "{} file(s) changed by both PRs.",
            plan.overlapping_files.len()
        ));
    }
    if plan.levels.len() > 1 {
        risk_factors.push(format!("{} branches move.", plan.levels.len()));
    }
    if work.edited_squash
        || matches!(how, Some(MergeHow::Unknown) | Some(MergeHow::ContentInTrunk))
    {
        risk_factors.push("How the base PR reached trunk could not be matched commit for commit.".to_owned());
    }
    let risk_level = if !predicted.is_empty() {
        Risk::High
    } else if risk_factors.is_empty() {
        Risk::Low
    } else {
        Risk::Medium
    };
    let executed = matches!(work.outcome, Some(Ok(()))) && work.steps.iter().any(|s| s.status == "done");
    let pushed = work.steps.iter().any(|s| s.step == "push" && s.status == "done");
    let rolled_back = work.steps.iter().any(|s| s.step.starts_with("rollback") && s.status == "done");
    let left_out = work
        .steps
        .iter()
        .any(|s| s.step.starts_with("push ") && s.status == "skipped");
    let reason_summary = if executed && rolled_back {
        "Rolled back: the remote branches are at their old heads again; a retarget is not undone \
         (the commands say how). The commands move your local branches there."
            .to_owned()
    } else if executed && pushed {
        format!(
            "Restacked {} onto {}; {}.{} The commands bring your local branches to the result.",
            plan.levels.iter().map(|l| l.branch.as_str()).collect::<Vec<_>>().join(", "),
            plan.new_base_branch,
            work.steps
                .iter()
                .find(|s| s.step == "push")
                .map_or("", |s| s.detail.as_str()),
            if left_out { " The others were left out (issues)." } else { "" }
        )
    } else if executed && left_out {
        format!(
            "Restacked {} onto {} into refs/resolve-pr/restack/; nothing was pushed (issues).",
            plan.levels.iter().map(|l| l.branch.as_str()).collect::<Vec<_>>().join(", "),
            plan.new_base_branch
        )
    } else if executed {
        format!(
            "Restacked {} onto {} into refs/resolve-pr/restack/; nothing was pushed (push: true \
             pushes with a lease).",
            plan.levels.iter().map(|l| l.branch.as_str()).collect::<Vec<_>>().join(", "),
            plan.new_base_branch
        )
    } else if plan.up_to_date {
        format!(
            "#{} already sits on {}: nothing to restack.",
            dependent.number, plan.new_base_branch
        )
    } else if merged {
        format!(
            "#{} merged into {}; #{} still carries its commits and must move onto {}.",
            base.number, base.base_ref, dependent.number, plan.new_base_branch
        )
    } else {
        format!(
            "#{} has {} commit(s) #{} lacks.",
            base.number, new_in_base, dependent.number
        )
    };
    let mut recommendations = Vec::new();
    if changes_detected {
        recommendations.push(format!("Use the {} rebase: {reason}", match strategy {
            Strategy::Onto => "--onto",
            Strategy::Regular => "plain",
        }));
        if merged && matches {
            recommendations.push(format!(
                "Retarget #{} to {} before deleting {:?}.",
                dependent.number, trunk_branch, base.head_ref
            ));
        }
    }
    let automated = commands.iter().filter(|c| c.can_automate).count() as u32;
    let manual = commands.len() as u32 - automated;
    let total_time = if plan.up_to_date {
        "none".to_owned()
    } else if predicted.is_empty() {
        "10-20 minutes (mostly CI)".to_owned()
    } else {
        "30-60 minutes (conflicts to resolve, then CI)".to_owned()
    };
    let steps_total = work.steps.len() as u32;
    let steps_failed = work.steps.iter().filter(|s| s.status == "failed").count() as u32;
    let steps_completed = work.steps.iter().filter(|s| s.status == "done").count() as u32;
    let (status, error) = match &work.outcome {
        None => (AutomationState::NotStarted, None),
        Some(Ok(())) => (AutomationState::Completed, None),
        Some(Err(e)) => (AutomationState::Failed, Some(e.clone())),
    };
    let automation = AutomationStatus {
        enabled: automation_enabled,
        status,
        steps_completed,
        steps_total,
        steps_failed,
        failed_step: work
            .steps
            .iter()
            .position(|s| s.status == "failed")
            .map(|i| i as u32 + 1),
        error,
        can_retry: matches!(work.outcome, Some(Err(_))) && predicted.is_empty(),
        started_at: work.outcome.as_ref().map(|_| format_time(&work.started)),
        completed_at: work.outcome.as_ref().map(|_| format_time(&now())),
        steps: work.steps.clone(),
    };
    let note = (!notes.is_empty()).then(|| notes.join(" "));
    let _ = &work.trunk;
    Output {
        base_pr: base_ref.normalized(),
        dependent_pr: dependent_ref.normalized(),
        is_stacked: plan.stacked,
        issues,
        stack_info: StackInfo {
            base_branch: base.head_ref.clone(),
            dependent_base: dependent.base_ref.clone(),
            matches,
            visualization: vis,
            base_pr_head: base.head_sha.clone(),
            dependent_pr_head: dependent.head_sha.clone(),
            common_ancestor: plan.common_ancestor.clone(),
        },
        stack,
        changes_detected,
        change_summary: changes_detected.then_some(change_summary),
        upstream_merge_detected: merged,
        merge_method: how.as_ref().map(|h| merge_method(h).to_owned()),
        squash_merge: matches!(how, Some(MergeHow::Squash { .. })),
        merge_commit,
        last_upstream_commit: Some(dep.old_base.clone()),
        rebase_strategy: RebaseStrategy {
            recommended: strategy,
            reason: reason.clone(),
            regular_command,
            onto_command,
            ai_should_decide,
            considerations,
        },
        predicted_conflicts: predicted,
        commands,
        automation,
        summary: StackSummary {
            action_required: if executed {
                (!pushed && !rolled_back) || left_out
            } else {
                changes_detected
            },
            reason: reason_summary,
            risk_level,
            risk_factors,
            estimated_total_time: total_time,
            estimated_manual_steps: manual,
            estimated_automated_steps: automated,
            recommendations,
        },
        computed_in: work.place,
        note,
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
