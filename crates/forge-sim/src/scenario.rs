//! The scenario format: a YAML description of one forge's users, tokens, repositories, pull
//! requests and everything hanging off them. Entities the server does not serve yet (reviews,
//! threads, checks, job logs) are parsed and kept so later work extends without a new format.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::SimError;

/// Which forge the simulator speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ForgeFlavor {
    Github,
    Forgejo,
    Gitea,
}

impl ForgeFlavor {
    /// Forgejo and Gitea share one API description and one set of handlers.
    pub fn is_gitea_family(self) -> bool {
        matches!(self, ForgeFlavor::Forgejo | ForgeFlavor::Gitea)
    }
}

/// A whole simulated forge. See `scenarios/*.yaml` for examples.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub forge: ForgeFlavor,
    /// Server version: Forgejo e.g. "11.0.1+gitea-1.22.0", Gitea e.g. "1.24.0".
    #[serde(default)]
    pub version: Option<String>,
    /// The instant the simulated forge thinks it is (RFC 3339), used for comments created
    /// through the API so tests are deterministic. Unset: the real clock.
    #[serde(default)]
    pub now: Option<String>,
    /// Whether requests without a token may read public repositories (both forges allow it
    /// in reality). Off by default so a client that forgets its token fails loudly.
    #[serde(default)]
    pub anonymous_read: bool,
    #[serde(default)]
    pub rate_limit: RateLimitSpec,
    /// Optional Forgejo/Gitea API features; unset ones follow `version` (see [`Capabilities`]).
    #[serde(default)]
    pub capabilities: Capabilities,
    #[serde(default)]
    pub tokens: Vec<TokenSpec>,
    #[serde(default)]
    pub users: Vec<UserSpec>,
    #[serde(default)]
    pub repos: Vec<RepoSpec>,
    /// A directory of bare repositories, `<owner>/<name>.git`, served over git's smart HTTP
    /// at `{base}/{owner}/{name}.git` (clone, fetch, push). Relative to the scenario file
    /// when loaded with [`Scenario::from_file`]. Unset: those URLs answer 404.
    #[serde(default)]
    pub git_root: Option<PathBuf>,
}

/// Forgejo/Gitea endpoints that only some releases have. Unset: decided from the flavour and
/// `version` like the real releases: Gitea 1.26.0 added resolve/unresolve of a review comment
/// (go-gitea/gitea#36441), Gitea 1.27.0 replying to one (go-gitea/gitea#36683); Forgejo has
/// neither. Without a capability its routes answer 404, as an older instance does.
///
/// `swagger` is whether the instance publishes its API description at `/swagger.v1.json`
/// (`[api] ENABLE_SWAGGER`, on by default); `false` makes that route 404, as when an admin
/// turned it off. `paging: false` makes the reviews list ignore `page` and answer the first
/// page every time (without a total header), as a broken proxy or fork might.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    #[serde(default)]
    pub resolve_review_comments: Option<bool>,
    #[serde(default)]
    pub reply_to_review_comments: Option<bool>,
    #[serde(default)]
    pub swagger: Option<bool>,
    #[serde(default)]
    pub paging: Option<bool>,
    /// Whether the Actions API (runs, jobs with steps, job logs) is served and described.
    /// Default: Forgejo yes (its published description has it), Gitea no (the simulator
    /// does not model Gitea's differently shaped Actions API).
    #[serde(default)]
    pub actions_api: Option<bool>,
    /// Whether `GET /repos/{o}/{r}/pulls` filters by `base` and `head` (branch names). Default:
    /// Forgejo 16 and later (the releases whose description has them); Gitea and older Forgejo
    /// ignore both parameters and list every pull request.
    #[serde(default)]
    pub pull_list_filters: Option<bool>,
}

/// GitHub's primary rate limit as the simulator starts with it, per user and resource.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimitSpec {
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Remaining at start; defaults to `limit`.
    #[serde(default)]
    pub remaining: Option<u32>,
    /// Seconds after the simulator starts when the window resets.
    #[serde(default = "default_reset_after")]
    pub reset_after_seconds: i64,
}

fn default_limit() -> u32 {
    5000
}
fn default_reset_after() -> i64 {
    3600
}

impl Default for RateLimitSpec {
    fn default() -> Self {
        RateLimitSpec {
            limit: default_limit(),
            remaining: None,
            reset_after_seconds: default_reset_after(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenSpec {
    pub token: String,
    pub login: String,
    pub permission: Permission,
    /// `false`: an admin's fine-grained token or app without the Administration permission,
    /// which may not read classic protection whole (REST 404, GraphQL `branchProtectionRule`
    /// FORBIDDEN) though its user is an admin.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub administration: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Permission {
    Read,
    Write,
    /// Write, and admin rights: reads classic branch protection whole (GraphQL
    /// `branchProtectionRule`), and is not bound by it unless it is enforced on admins.
    Admin,
}

impl Permission {
    /// May push (write or admin).
    pub fn can_push(self) -> bool {
        matches!(self, Permission::Write | Permission::Admin)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserSpec {
    pub login: String,
    pub id: u64,
    /// `Bot` shows as `"type": "Bot"` on GitHub REST and as the `Bot` GraphQL type (whose
    /// login drops the `[bot]` suffix). Forgejo/Gitea's API has no such flag: a bot is an
    /// ordinary user there, so it only changes GitHub output.
    #[serde(rename = "type", default)]
    pub kind: UserKind,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum UserKind {
    #[default]
    User,
    Bot,
    Organization,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoSpec {
    pub owner: String,
    pub name: String,
    #[serde(default)]
    pub id: Option<u64>,
    #[serde(default)]
    pub private: bool,
    /// For a private repository: the logins whose tokens see it (a caller without access
    /// gets 404, as on the real forges). Unset: every token sees it.
    #[serde(default)]
    pub visible_to: Option<Vec<String>>,
    #[serde(default = "default_branch")]
    pub default_branch: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub pulls: Vec<PullSpec>,
    /// Finished workflow runs on the default branch (pushes), for a workflow's history.
    #[serde(default)]
    pub past_runs: Vec<WorkflowRunSpec>,
    #[serde(default)]
    pub issues: Vec<IssueSpec>,
    #[serde(default)]
    pub branch_protections: Vec<BranchProtectionSpec>,
    /// Reading branch protection answers 403 (a token without admin rights).
    #[serde(default)]
    pub branch_protection_forbidden: bool,
    /// Files per commit and the history of paths (see `contents.rs`).
    #[serde(default)]
    pub contents: Option<crate::contents::ContentsSpec>,
}

fn default_branch() -> String {
    "main".to_owned()
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PullState {
    #[default]
    Open,
    Closed,
    Merged,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PullSpec {
    pub number: u64,
    pub title: String,
    #[serde(default)]
    pub body: String,
    /// Label names.
    #[serde(default)]
    pub labels: Vec<String>,
    #[serde(default)]
    pub state: PullState,
    #[serde(default)]
    pub draft: bool,
    pub author: String,
    pub head: BranchSpec,
    pub base: BranchSpec,
    pub created_at: String,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub closed_at: Option<String>,
    #[serde(default)]
    pub merged_at: Option<String>,
    #[serde(default)]
    pub merged_by: Option<String>,
    #[serde(default)]
    pub merge_commit_sha: Option<String>,
    /// `None`: not computed yet (GitHub's `null` / `UNKNOWN`).
    #[serde(default)]
    pub mergeable: Option<bool>,
    /// GitHub's `mergeable_state` (`clean`, `dirty`, `unstable`, `blocked`, `behind`,
    /// `unknown`, `has_hooks`, `draft`); default: `draft` for a draft, else from `mergeable`
    /// (`clean`, `dirty`, `unknown`). GraphQL's `mergeStateStatus` is the same in upper case.
    #[serde(default)]
    pub mergeable_state: Option<String>,
    #[serde(default)]
    pub comments: Vec<CommentSpec>,
    /// Appends `count` generated comments after `comments`.
    #[serde(default)]
    pub generate_comments: Option<GenerateComments>,
    #[serde(default)]
    pub reviews: Vec<ReviewSpec>,
    #[serde(default)]
    pub review_threads: Vec<ReviewThreadSpec>,
    /// Appends `count` generated threads after `review_threads`.
    #[serde(default)]
    pub generate_threads: Option<GenerateThreads>,
    #[serde(default)]
    pub check_runs: Vec<CheckRunSpec>,
    #[serde(default)]
    pub statuses: Vec<StatusSpec>,
    #[serde(default)]
    pub workflow_jobs: Vec<WorkflowJobSpec>,
    #[serde(default)]
    pub workflow_runs: Vec<WorkflowRunSpec>,
    #[serde(default)]
    pub artifacts: Vec<ArtifactSpec>,
    /// The paths a pull request without trees in `contents` changed (listed as modified,
    /// without counts or patch), e.g. for closed pull requests.
    #[serde(default)]
    pub changed_paths: Vec<String>,
    /// What its merge needs beyond reviews, threads and checks (see `readiness`).
    #[serde(default)]
    pub readiness: crate::readiness::ReadinessSpec,
    /// Force-pushes of its head branch, oldest first: GitHub's `HeadRefForcePushedEvent`s and
    /// Forgejo/Gitea's `pull_push` timeline comments.
    #[serde(default)]
    pub force_pushes: Vec<ForcePushSpec>,
}

/// A force-push of a pull request's head branch from `before` to `after`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForcePushSpec {
    pub before: String,
    pub after: String,
    /// Who pushed; default: the pull request's author.
    #[serde(default)]
    pub actor: Option<String>,
    /// When; default: the pull request's creation time.
    #[serde(default)]
    pub created_at: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchSpec {
    #[serde(rename = "ref")]
    pub ref_name: String,
    pub sha: String,
    /// `owner/name` of the repository the branch lives in when it is a fork; default: the
    /// pull request's repository.
    #[serde(default)]
    pub repo: Option<String>,
}

/// An issue (conversation) comment.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommentSpec {
    #[serde(default)]
    pub id: Option<u64>,
    pub author: String,
    pub body: String,
    pub created_at: String,
    #[serde(default)]
    pub updated_at: Option<String>,
    /// GitHub only: the comment is minimized (hidden), for this reason as GitHub's GraphQL
    /// `minimizedReason` reports it (`abuse`, `off-topic`, `outdated`, `resolved`,
    /// `duplicate`, `spam`). Forgejo/Gitea have no such thing and ignore it.
    #[serde(default)]
    pub minimized: Option<String>,
}

/// A compact way to write many comments: `{count: 130, author: bob}`. Bodies come from
/// `body` with `{n}` replaced by the 1-based number; times step by `interval_seconds` from
/// `start_at` (default: the pull request's `created_at`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateComments {
    pub count: u32,
    pub author: String,
    #[serde(default = "default_generated_body")]
    pub body: String,
    #[serde(default)]
    pub start_at: Option<String>,
    #[serde(default = "default_interval")]
    pub interval_seconds: i64,
}

fn default_generated_body() -> String {
    "Comment {n}".to_owned()
}
fn default_interval() -> i64 {
    60
}

/// Many review threads at once: thread `n` (1-based) is on `path` (`{n}` replaced) at line
/// `n`, with one comment by `author`; it is unresolved when `n` is a multiple of
/// `unresolved_every` and resolved by `resolved_by` (default: the pull request's author)
/// otherwise. Threads belong to review `review_id` when given, else each to its own review.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateThreads {
    pub count: u32,
    pub author: String,
    #[serde(default = "default_generated_path")]
    pub path: String,
    #[serde(default = "default_generated_thread_body")]
    pub body: String,
    #[serde(default = "default_unresolved_every")]
    pub unresolved_every: u32,
    #[serde(default)]
    pub resolved_by: Option<String>,
    #[serde(default)]
    pub review_id: Option<u64>,
    #[serde(default)]
    pub start_at: Option<String>,
    #[serde(default = "default_interval")]
    pub interval_seconds: i64,
}

fn default_generated_path() -> String {
    "src/generated_{n}.rs".to_owned()
}
fn default_generated_thread_body() -> String {
    "Finding {n}".to_owned()
}
fn default_unresolved_every() -> u32 {
    1
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewSpec {
    #[serde(default)]
    pub id: Option<u64>,
    pub author: String,
    /// APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or PENDING.
    pub state: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub submitted_at: Option<String>,
    #[serde(default)]
    pub commit_id: Option<String>,
    /// GitHub only: minimized (hidden) for this reason; see `CommentSpec::minimized`.
    #[serde(default)]
    pub minimized: Option<String>,
    /// Forgejo/Gitea `official` (the reviewer's verdict counts towards the branch's rules);
    /// default: true for approvals and change requests.
    #[serde(default)]
    pub official: Option<bool>,
}

/// A review thread (GitHub) or code conversation (Forgejo/Gitea): comments on one place of the
/// diff, the first one starting it, the rest replies.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewThreadSpec {
    /// GitHub's GraphQL node id (`PRRT_…`); default: derived from a database id.
    #[serde(default)]
    pub id: Option<String>,
    pub path: String,
    /// The (last) line commented on; `None` for a file-level comment.
    #[serde(default)]
    pub line: Option<u64>,
    /// First line of a multi-line comment (GitHub only; Gitea comments one line).
    #[serde(default)]
    pub start_line: Option<u64>,
    /// `RIGHT` (the new file, default) or `LEFT` (the old file).
    #[serde(default)]
    pub side: Option<String>,
    /// `line` (default) or `file`.
    #[serde(default)]
    pub subject_type: Option<String>,
    #[serde(default)]
    pub resolved: bool,
    #[serde(default)]
    pub resolved_by: Option<String>,
    /// The commented line is gone from the current diff: GitHub shows `line: null` and keeps
    /// `original_line`.
    #[serde(default)]
    pub outdated: bool,
    /// The review the first comment belongs to (an id from `reviews`); default: a COMMENTED
    /// review of its own, as GitHub creates for a single comment.
    #[serde(default)]
    pub review_id: Option<u64>,
    /// Default: the head commit.
    #[serde(default)]
    pub commit_id: Option<String>,
    /// Default: `commit_id`, or the base commit for an outdated thread.
    #[serde(default)]
    pub original_commit_id: Option<String>,
    #[serde(default)]
    pub comments: Vec<ThreadCommentSpec>,
    /// Appends `count` generated replies after `comments`.
    #[serde(default)]
    pub generate_replies: Option<GenerateComments>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadCommentSpec {
    #[serde(default)]
    pub id: Option<u64>,
    /// `None` (YAML `~`): the account was deleted; GitHub shows its "ghost", Gitea its
    /// "Ghost" user.
    pub author: Option<String>,
    pub body: String,
    pub created_at: String,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub diff_hunk: Option<String>,
    /// Counts by GitHub REST reaction name: `+1`, `-1`, laugh, hooray, confused, heart,
    /// rocket, eyes.
    #[serde(default)]
    pub reactions: std::collections::BTreeMap<String, u32>,
    /// GitHub only: minimized (hidden) for this reason; see `CommentSpec::minimized`.
    #[serde(default)]
    pub minimized: Option<String>,
}

/// A GitHub check run on the pull request's head commit (or on `head_sha`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRunSpec {
    /// Default: `job_id` when the run is an Actions job (GitHub uses one id for both),
    /// otherwise generated.
    #[serde(default)]
    pub id: Option<u64>,
    pub name: String,
    /// queued, in_progress or completed. With `complete_after`, the state shown before then
    /// (`completed` counts as `in_progress` there).
    #[serde(default = "default_completed")]
    pub status: String,
    /// success, failure, neutral, cancelled, skipped, timed_out, action_required.
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub head_sha: Option<String>,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub completed_at: Option<String>,
    /// Default for an Actions job: `{base}/{owner}/{repo}/actions/runs/{run}/job/{job}`.
    /// `{base}` is replaced by the simulator's URL.
    #[serde(default)]
    pub details_url: Option<String>,
    /// App slug; default `github-actions` when `job_id` is set.
    #[serde(default)]
    pub app: Option<String>,
    /// The workflow job (by id) this check run is.
    #[serde(default)]
    pub job_id: Option<u64>,
    /// Check-run output.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub annotations: Vec<AnnotationSpec>,
    /// Reports `status` on the first N check-run listings of its commit, then `completed`
    /// with `conclusion`.
    #[serde(default)]
    pub complete_after: Option<u32>,
}

fn default_completed() -> String {
    "completed".to_owned()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnotationSpec {
    pub path: String,
    pub start_line: u64,
    #[serde(default)]
    pub end_line: Option<u64>,
    /// notice, warning or failure.
    #[serde(default = "default_annotation_level")]
    pub level: String,
    #[serde(default)]
    pub title: Option<String>,
    pub message: String,
    #[serde(default)]
    pub raw_details: Option<String>,
}

fn default_annotation_level() -> String {
    "failure".to_owned()
}

/// A commit status (the older, context-based CI signal; everything on Forgejo/Gitea).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatusSpec {
    pub context: String,
    /// error, failure, pending or success (Forgejo/Gitea also warning, skipped).
    pub state: String,
    #[serde(default)]
    pub description: Option<String>,
    /// `{base}` is replaced by the simulator's URL.
    #[serde(default)]
    pub target_url: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
}

/// An Actions job: its steps and log. On Forgejo/Gitea its place in its run (0-based, in
/// scenario order) is the job index of the web URL.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowJobSpec {
    #[serde(default)]
    pub id: Option<u64>,
    #[serde(default)]
    pub run_id: Option<u64>,
    /// Which attempt of its run this job belongs to (default 1). A re-run gives every job
    /// it reruns a new id and the next attempt; only the latest attempt has a check run.
    #[serde(default)]
    pub run_attempt: Option<u64>,
    pub name: String,
    #[serde(default)]
    pub workflow_name: Option<String>,
    #[serde(default = "default_completed")]
    pub status: String,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(default)]
    pub completed_at: Option<String>,
    #[serde(default)]
    pub steps: Vec<StepSpec>,
    /// The log text.
    #[serde(default)]
    pub log: String,
    /// A file holding the log, relative to the scenario file (read by `Scenario::from_file`).
    #[serde(default)]
    pub log_file: Option<String>,
    /// A log made up while it is served (`bytes` long, ending with `tail`), so a huge log
    /// costs no memory.
    #[serde(default)]
    pub log_generate: Option<LogGenerate>,
    /// The log expired: the API answers 410 Gone.
    #[serde(default)]
    pub log_expired: bool,
    /// How the blob storage misbehaves for this log: `error` (500 every time), `reset`
    /// (drops the connection), `gone` (404), `ignore_range` (answers 200 with the whole log
    /// to a `Range` request).
    #[serde(default)]
    pub log_storage: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    pub name: String,
    #[serde(default = "default_completed")]
    pub status: String,
    #[serde(default)]
    pub conclusion: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogGenerate {
    pub bytes: u64,
    #[serde(default)]
    pub tail: String,
}

/// A workflow run (GitHub) or Actions run (Forgejo/Gitea, where `number` is its index in
/// the repository, the `{run}` of web URLs).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowRunSpec {
    pub id: u64,
    #[serde(default)]
    pub number: Option<u64>,
    pub name: String,
    #[serde(default = "default_completed")]
    pub status: String,
    #[serde(default)]
    pub conclusion: Option<String>,
    #[serde(default)]
    pub started_at: Option<String>,
    /// When a completed run finished (its `updated_at`); the start time otherwise.
    #[serde(default)]
    pub completed_at: Option<String>,
    /// The workflow it is a run of (default 1).
    #[serde(default)]
    pub workflow_id: Option<u64>,
    /// The commit it ran on (default: its pull request's head, or a made-up commit for a
    /// past run on the default branch).
    #[serde(default)]
    pub head_sha: Option<String>,
    /// Its latest attempt (default: the highest `run_attempt` of its jobs, else 1).
    #[serde(default)]
    pub run_attempt: Option<u64>,
}

/// A run artifact: a zip the simulator builds from `files` (name -> content).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtifactSpec {
    pub id: u64,
    pub run_id: u64,
    pub name: String,
    #[serde(default)]
    pub files: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    pub expired: bool,
}

/// Required checks of a branch: a ruleset rule (GitHub, default) or classic branch
/// protection (GitHub `classic: true`; Forgejo/Gitea always).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchProtectionSpec {
    pub branch: String,
    #[serde(default)]
    pub required_checks: Vec<String>,
    #[serde(default)]
    pub classic: bool,
    /// Forgejo/Gitea protection fields (`branches/{b}`, `branch_protections/{name}`).
    #[serde(default)]
    pub required_approvals: u32,
    #[serde(default)]
    pub block_on_rejected_reviews: bool,
    #[serde(default)]
    pub block_on_official_review_requests: bool,
    #[serde(default)]
    pub block_on_outdated_branch: bool,
    #[serde(default)]
    pub dismiss_stale_approvals: bool,
    #[serde(default)]
    pub ignore_stale_approvals: bool,
    #[serde(default)]
    pub require_signed_commits: bool,
    #[serde(default)]
    pub apply_to_admins: bool,
    /// Only these users' reviews are official (`enable_approvals_whitelist` when not empty).
    #[serde(default)]
    pub approvals_whitelist_username: Vec<String>,
    /// GitHub: the merge rules beside the checks (see `readiness`).
    #[serde(default)]
    pub rules: crate::readiness::MergeRulesSpec,
}

/// A plain issue: listed by the issue tools, and lets a test prove that an issue number is
/// not a pull request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueSpec {
    pub number: u64,
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub author: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub state: IssueState,
    #[serde(default)]
    pub labels: Vec<String>,
    #[serde(default)]
    pub comments: Vec<CommentSpec>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IssueState {
    #[default]
    Open,
    Closed,
}

/// GitHub REST's `mergeable_state` values (GraphQL's `MergeStateStatus`, lower case).
const MERGEABLE_STATES: [&str; 8] = [
    "behind",
    "blocked",
    "clean",
    "dirty",
    "draft",
    "has_hooks",
    "unknown",
    "unstable",
];

/// GitHub's REST reaction names, in the order GitHub lists them.
pub(crate) const REACTIONS: [&str; 8] = [
    "+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes",
];

/// Scenarios compiled into the crate, by name (the file name without `.yaml`): the demo's,
/// always built in, and the tests' ones.
const DEMO_BUILTIN: &[(&str, &str)] = &[
    ("demo-github", include_str!("../scenarios/demo-github.yaml")),
    // What a PR affects and how to review it: the demo's impact stage.
    (
        "impact_github",
        include_str!("../scenarios/impact_github.yaml"),
    ),
    (
        "demo-forgejo",
        include_str!("../scenarios/demo-forgejo.yaml"),
    ),
];

/// The scenarios only tests use (feature `test-scenarios`).
#[cfg(feature = "test-scenarios")]
const TEST_BUILTIN: &[(&str, &str)] = &[
    (
        "comments_over_100",
        include_str!("../scenarios/comments_over_100.yaml"),
    ),
    (
        "comments_over_100_forgejo",
        include_str!("../scenarios/comments_over_100_forgejo.yaml"),
    ),
    (
        "threads_over_100",
        include_str!("../scenarios/threads_over_100.yaml"),
    ),
    (
        "threads_over_100_forgejo",
        include_str!("../scenarios/threads_over_100_forgejo.yaml"),
    ),
    (
        "threads_mixed",
        include_str!("../scenarios/threads_mixed.yaml"),
    ),
    (
        "threads_mixed_forgejo",
        include_str!("../scenarios/threads_mixed_forgejo.yaml"),
    ),
    (
        "threads_mixed_gitea",
        include_str!("../scenarios/threads_mixed_gitea.yaml"),
    ),
    ("no_comments", include_str!("../scenarios/no_comments.yaml")),
    (
        "private_repo_two_users",
        include_str!("../scenarios/private_repo_two_users.yaml"),
    ),
    ("ci_failing", include_str!("../scenarios/ci_failing.yaml")),
    ("ci_running", include_str!("../scenarios/ci_running.yaml")),
    ("ci_passed", include_str!("../scenarios/ci_passed.yaml")),
    ("ci_none", include_str!("../scenarios/ci_none.yaml")),
    (
        "impact_forgejo",
        include_str!("../scenarios/impact_forgejo.yaml"),
    ),
    (
        "review_big_github",
        include_str!("../scenarios/review_big_github.yaml"),
    ),
    (
        "ci_log_expired",
        include_str!("../scenarios/ci_log_expired.yaml"),
    ),
    (
        "ci_log_storage_fails",
        include_str!("../scenarios/ci_log_storage_fails.yaml"),
    ),
    ("ci_huge_log", include_str!("../scenarios/ci_huge_log.yaml")),
    (
        "ci_check_without_output",
        include_str!("../scenarios/ci_check_without_output.yaml"),
    ),
    (
        "ci_failing_forgejo",
        include_str!("../scenarios/ci_failing_forgejo.yaml"),
    ),
    (
        "ci_failing_gitea",
        include_str!("../scenarios/ci_failing_gitea.yaml"),
    ),
    (
        "no_comments_forgejo",
        include_str!("../scenarios/no_comments_forgejo.yaml"),
    ),
    (
        "readiness_clean",
        include_str!("../scenarios/readiness_clean.yaml"),
    ),
    (
        "readiness_lazy",
        include_str!("../scenarios/readiness_lazy.yaml"),
    ),
    (
        "readiness_many_checks",
        include_str!("../scenarios/readiness_many_checks.yaml"),
    ),
    (
        "readiness_code_owners",
        include_str!("../scenarios/readiness_code_owners.yaml"),
    ),
    (
        "readiness_draft",
        include_str!("../scenarios/readiness_draft.yaml"),
    ),
    (
        "readiness_behind",
        include_str!("../scenarios/readiness_behind.yaml"),
    ),
    (
        "readiness_threads",
        include_str!("../scenarios/readiness_threads.yaml"),
    ),
    (
        "readiness_forbidden",
        include_str!("../scenarios/readiness_forbidden.yaml"),
    ),
];

impl Scenario {
    pub fn from_yaml(text: &str) -> Result<Scenario, SimError> {
        let scenario: Scenario =
            serde_norway::from_str(text).map_err(|e| SimError::Scenario(e.to_string()))?;
        scenario.check()?;
        Ok(scenario)
    }

    pub fn from_file(path: &Path) -> Result<Scenario, SimError> {
        let text = std::fs::read_to_string(path).map_err(|source| SimError::ReadScenario {
            path: path.to_owned(),
            source,
        })?;
        let mut scenario = Scenario::from_yaml(&text)
            .map_err(|e| SimError::Scenario(format!("{}: {e}", path.display())))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        if let Some(root) = scenario.git_root.take() {
            scenario.git_root = Some(dir.join(root));
        }
        for repo in &mut scenario.repos {
            for pull in &mut repo.pulls {
                for job in &mut pull.workflow_jobs {
                    if let Some(file) = job.log_file.take() {
                        let log_path = dir.join(&file);
                        job.log = std::fs::read_to_string(&log_path).map_err(|source| {
                            SimError::ReadScenario {
                                path: log_path.clone(),
                                source,
                            }
                        })?;
                    }
                }
            }
        }
        Ok(scenario)
    }

    /// This scenario serving the bare repositories under `dir` over git's smart HTTP (see
    /// [`Scenario::git_root`]); for tests that make repositories in a temporary directory.
    pub fn with_git_root(mut self, dir: impl Into<PathBuf>) -> Scenario {
        self.git_root = Some(dir.into());
        self
    }

    /// An embedded scenario by file name without `.yaml` (see [`Scenario::builtin_names`]).
    pub fn builtin(name: &str) -> Option<Scenario> {
        let (_, text) = builtins().find(|(n, _)| *n == name)?;
        Scenario::from_yaml(text).ok()
    }

    /// Names accepted by [`Scenario::builtin`].
    pub fn builtin_names() -> Vec<&'static str> {
        builtins().map(|(n, _)| *n).collect()
    }

    /// Catches mistakes a YAML schema cannot: clashing numbers, unknown tokens' users,
    /// unparseable times.
    fn check(&self) -> Result<(), SimError> {
        let fail = |msg: String| Err(SimError::Scenario(msg));
        let mut times: Vec<(&str, &str)> = Vec::new();
        if let Some(now) = &self.now {
            times.push(("now", now));
        }
        let mut repo_names = HashSet::new();
        for repo in &self.repos {
            let full = format!("{}/{}", repo.owner, repo.name);
            if !repo_names.insert(full.to_lowercase()) {
                return fail(format!("repository {full} appears twice"));
            }
            if repo.visible_to.is_some() && !repo.private {
                return fail(format!(
                    "{full}: visible_to needs private: true (a public repository is visible to all)"
                ));
            }
            let mut numbers = HashSet::new();
            for n in repo
                .pulls
                .iter()
                .map(|p| p.number)
                .chain(repo.issues.iter().map(|i| i.number))
            {
                if n == 0 || !numbers.insert(n) {
                    return fail(format!("{full}: number {n} is zero or used twice"));
                }
            }
            for pull in &repo.pulls {
                times.push(("created_at", &pull.created_at));
                if let Some(state) = &pull.mergeable_state
                    && !MERGEABLE_STATES.contains(&state.as_str())
                {
                    return fail(format!(
                        "{full}#{}: mergeable_state {state:?} is not one of {MERGEABLE_STATES:?}",
                        pull.number
                    ));
                }
                if let Some(merged_at) = &pull.merged_at {
                    times.push(("merged_at", merged_at));
                }
                for run in &pull.check_runs {
                    if let (Some(id), Some(job)) = (run.id, run.job_id)
                        && id != job
                    {
                        return fail(format!(
                            "check run {:?}: id {id} differs from job_id {job} (an Actions \
                             job's check run has the job's id)",
                            run.name
                        ));
                    }
                    if let Some(job) = run.job_id
                        && !pull.workflow_jobs.iter().any(|j| j.id == Some(job))
                    {
                        return fail(format!("check run {:?}: no workflow job {job}", run.name));
                    }
                }
                for t in &pull.review_threads {
                    if t.comments.is_empty() {
                        return fail(format!(
                            "{full}#{}: review thread on {} has no comments",
                            pull.number, t.path
                        ));
                    }
                    for c in &t.comments {
                        times.push(("thread comment created_at", &c.created_at));
                        for name in c.reactions.keys() {
                            if !REACTIONS.contains(&name.as_str()) {
                                return fail(format!("unknown reaction {name:?}"));
                            }
                        }
                    }
                    let side = t.side.as_deref().unwrap_or("RIGHT");
                    if side != "RIGHT" && side != "LEFT" {
                        return fail(format!("side {side:?} is not LEFT or RIGHT"));
                    }
                    let subject = t.subject_type.as_deref().unwrap_or("line");
                    if subject != "line" && subject != "file" {
                        return fail(format!("subject_type {subject:?} is not line or file"));
                    }
                    if let Some(r) = t.review_id
                        && !pull.reviews.iter().any(|rv| rv.id == Some(r))
                    {
                        return fail(format!("review_id {r} is not among the pull's reviews"));
                    }
                }
                for c in &pull.comments {
                    times.push(("comment created_at", &c.created_at));
                }
                if let Some(start) = pull
                    .generate_comments
                    .as_ref()
                    .and_then(|g| g.start_at.as_ref())
                {
                    times.push(("generate_comments.start_at", start));
                }
            }
            for issue in &repo.issues {
                for c in &issue.comments {
                    times.push(("comment created_at", &c.created_at));
                }
            }
            for c in repo.contents.iter().flat_map(|c| c.commits.iter()) {
                times.push(("commit authored_at", &c.authored_at));
            }
        }
        for (what, t) in times {
            if crate::time::parse_rfc3339(t).is_none() {
                return fail(format!("{what} {t:?} is not an RFC 3339 time"));
            }
        }
        let mut tokens = HashSet::new();
        for t in &self.tokens {
            if !tokens.insert(&t.token) {
                return fail(format!("token {:?} appears twice", t.token));
            }
        }
        let mut ids = HashSet::new();
        let mut logins = HashSet::new();
        for u in &self.users {
            if !ids.insert(u.id) || !logins.insert(u.login.to_lowercase()) {
                return fail(format!("user {} (id {}) appears twice", u.login, u.id));
            }
        }
        Ok(())
    }
}

#[cfg(not(feature = "test-scenarios"))]
const TEST_BUILTIN: &[(&str, &str)] = &[];

/// Every built-in scenario: (name, YAML).
fn builtins() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    DEMO_BUILTIN.iter().chain(TEST_BUILTIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_scenario_loads() {
        for name in Scenario::builtin_names() {
            let (_, text) = builtins().find(|(n, _)| *n == name).unwrap();
            Scenario::from_yaml(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn rejects_an_unknown_mergeable_state_and_a_bad_merge_time() {
        let pull = |extra: &str| {
            format!(
                "forge: github\nrepos:\n  - owner: o\n    name: r\n    pulls:\n      - {{number: 1, \
                 title: t, author: a, head: {{ref: h, sha: \"1\"}}, base: {{ref: main, sha: \"2\"}}, \
                 created_at: \"2024-01-01T00:00:00Z\"{extra}}}\n"
            )
        };
        Scenario::from_yaml(&pull(", mergeable_state: blocked")).unwrap();
        let err = Scenario::from_yaml(&pull(", mergeable_state: green")).unwrap_err();
        assert!(err.to_string().contains("green"), "{err}");
        let err = Scenario::from_yaml(&pull(", state: merged, merged_at: yesterday")).unwrap_err();
        assert!(err.to_string().contains("yesterday"), "{err}");
    }

    #[test]
    fn rejects_a_misspelled_field() {
        let err = Scenario::from_yaml("forge: github\nrepoz: []\n").unwrap_err();
        assert!(err.to_string().contains("repoz"), "{err}");
    }

    #[test]
    fn rejects_an_issue_number_used_by_a_pull() {
        let text = r#"
forge: github
repos:
  - owner: o
    name: r
    pulls:
      - {number: 1, title: t, author: a, head: {ref: h, sha: "1"}, base: {ref: main, sha: "2"}, created_at: "2024-01-01T00:00:00Z"}
    issues:
      - {number: 1, title: clash}
"#;
        assert!(Scenario::from_yaml(text).is_err());
    }

    #[test]
    fn git_root_is_relative_to_the_scenario_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.yaml");
        std::fs::write(&file, "forge: github\ngit_root: repos\n").unwrap();
        let scenario = Scenario::from_file(&file).unwrap();
        assert_eq!(scenario.git_root, Some(dir.path().join("repos")));
        let absolute = Scenario::from_yaml("forge: forgejo\ngit_root: /srv/git\n").unwrap();
        assert_eq!(absolute.git_root, Some(PathBuf::from("/srv/git")));
        let set = Scenario::from_yaml("forge: github\n")
            .unwrap()
            .with_git_root("/tmp/x");
        assert_eq!(set.git_root, Some(PathBuf::from("/tmp/x")));
    }
}
