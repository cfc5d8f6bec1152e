//! What a forge says about a repository for a pull request's own sake: what its merge needs
//! (the base branch's rules, reviews, checks, how far behind it is), the files and commits
//! it changes, file contents at a revision, who changed files recently, recently closed pull
//! requests and the code owners file. Domain types name concepts, never one vendor's JSON.

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};

use crate::Result;
use crate::model::{Actor, PullRequest};
use crate::time::Timestamp;

/// Repository reads a pull request's merge, impact and review need.
#[async_trait]
pub trait Repository: Send + Sync {
    /// Everything that decides whether the pull request can merge now, as the forge reports
    /// it (see [`MergeFacts`]). GitHub: one GraphQL query (all pages of the head's checks),
    /// the branch's rules (`rules/branches/{base}`) and the compare with its base; while
    /// GitHub is still computing `mergeable` it asks once more after a short pause. What
    /// cannot be read (a 403/404 on protection) is listed in `rules.unknown`, never taken as
    /// "no rule". Forgejo/Gitea: the pull request, the base branch (`branches/{base}`, whose
    /// protection fields need only read access), the reviews, the head's statuses and the
    /// compare in reverse for behind-by.
    async fn merge_facts(&self, pr: &PrRef) -> Result<MergeFacts>;

    /// The files the pull request changes, in the forge's order, all pages (GitHub lists at
    /// most 3,000). With `patches`, `patch` is each file's hunks where the forge has them
    /// (GitHub leaves them out of large and binary files; Forgejo/Gitea's listing has none,
    /// so the whole diff is read for them: one more request); without, `patch` may still be
    /// there where it costs nothing (GitHub).
    async fn pull_files(&self, pr: &PrRef, patches: bool) -> Result<Vec<ChangedFile>>;

    /// The pull request's commits, oldest first (GitHub lists at most 250; Forgejo/Gitea list
    /// newest first, and the client reverses them).
    async fn pull_commits(&self, pr: &PrRef) -> Result<Vec<CommitInfo>>;

    /// The text of each path at `rev` (a commit id), in the order asked: `None` for a path
    /// that does not exist there (or names a directory), a binary file, or one larger than
    /// `max_bytes`. A revision that does not exist is `Error::NotFound`; a path that is not a
    /// relative file path (`..`, a leading `/`) or a revision with `:` or whitespace is
    /// `Error::Usage`, before anything is sent.
    async fn file_texts(
        &self,
        repo: &RepoRef,
        rev: &str,
        paths: &[String],
        max_bytes: u64,
    ) -> Result<Vec<Option<String>>>;

    /// For each path, in the order asked, the most recent commits on `rev` that changed it,
    /// newest first, at most `per_path` each.
    async fn recent_commits(
        &self,
        repo: &RepoRef,
        rev: &str,
        paths: &[String],
        per_path: usize,
    ) -> Result<Vec<Vec<CommitInfo>>>;

    /// The repository's most recently closed pull requests (merged or not), most recently
    /// updated first, at most `limit`, each with the paths it changed (at most 100 each).
    /// GitHub answers up to 50 in one query; Forgejo/Gitea read each one's files with a
    /// request of its own, so `limit` is bounded to 20 there.
    async fn recent_closed_pulls(&self, repo: &RepoRef, limit: usize) -> Result<Vec<ClosedPull>>;

    /// The code owners file that applies on `rev`, from the forge's own locations in its
    /// own order (GitHub: `.github/`, root, `docs/`; Gitea/Forgejo: root, `docs/`,
    /// `.gitea/`), and the syntax its patterns are in. `None` when there is none.
    async fn code_owners(&self, repo: &RepoRef, rev: &str) -> Result<Option<CodeOwnersFile>>;

    /// The commit `branch` of `repo` is at now, as the forge sees it (a pull request's
    /// `base.sha` is not: GitHub leaves it at the base's tip of the PR's last push); `None`
    /// when the repository has no such branch. One request (GitHub `git/ref/heads/{b}`,
    /// Forgejo/Gitea `branches/{b}`).
    async fn branch_tip(&self, repo: &RepoRef, branch: &str) -> Result<Option<String>>;
}

/// A branch name as one URL path: each segment percent-encoded but for RFC 3986's
/// unreserved characters, the `/` between segments kept.
pub(crate) fn branch_path(branch: &str) -> String {
    let mut out = String::with_capacity(branch.len());
    for b in branch.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What decides whether a pull request can merge, as read from the forge.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeFacts {
    /// The pull request (draft, state, head and base, `mergeable`).
    pub pull: PullRequest,
    /// GitHub's `mergeStateStatus`; `None` on Forgejo/Gitea, which have none.
    pub merge_state: Option<MergeState>,
    /// GitHub's `reviewDecision`: `None` when no review is required (or on Forgejo/Gitea).
    pub review_decision: Option<ReviewDecision>,
    /// The latest review of each reviewer that counts towards the rules (GitHub:
    /// `latestOpinionatedReviews`; Forgejo/Gitea: official reviews, stale and dismissed
    /// ones left out), oldest first.
    pub reviews: Vec<LatestReview>,
    /// Reviews requested and not given yet: logins, and teams as `org/team`.
    pub review_requests: Vec<String>,
    /// Every check and status of the head commit (all pages), newest attempt only.
    pub checks: Vec<CheckContext>,
    /// The base branch's rules, and what of them could not be read.
    pub rules: BranchRules,
    /// How many commits of the base branch the head lacks; `None` when it could not be
    /// read.
    pub behind_by: Option<u64>,
    /// Review threads not resolved yet (GitHub); `None` where the forge has no resolution
    /// rule to check it against, or it could not be read.
    pub unresolved_threads: Option<u64>,
    /// The pull request is in a merge queue.
    pub in_merge_queue: bool,
    /// Auto-merge is enabled, with this merge method (`merge`, `squash`, `rebase`).
    pub auto_merge: Option<String>,
    /// The caller may merge regardless of the rules (GitHub `viewerCanMergeAsAdmin`).
    pub viewer_can_bypass: bool,
    /// How many requests reading these facts took (tests and closing notes count them).
    pub requests: u32,
}

/// GitHub's `mergeStateStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeState {
    Behind,
    Blocked,
    Clean,
    Dirty,
    Draft,
    HasHooks,
    Unknown,
    Unstable,
}

/// GitHub's `reviewDecision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewDecision {
    Approved,
    ChangesRequested,
    ReviewRequired,
}

/// A reviewer's latest review that counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestReview {
    pub author: Actor,
    pub verdict: ReviewVerdict,
    /// The commit it was given on, when the forge says.
    pub commit_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewVerdict {
    Approved,
    ChangesRequested,
    Commented,
}

/// One check run or commit status of the head commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckContext {
    /// The check run's name or the status's context, as rules name it.
    pub name: String,
    pub outcome: CheckOutcome,
    /// Whether the base branch's rules require it: GitHub's `isRequired`; on Forgejo/Gitea
    /// whether a required context pattern matches it. `None` when that could not be read.
    pub required: Option<bool>,
    /// Where to read it.
    pub url: Option<String>,
}

/// How a check stands. Skipped passes a rule, as the forges count it, but is counted apart
/// from passed, as the CI rollup (`get_failing_tests`) counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOutcome {
    Passed,
    /// Completed neither passed nor failed (GitHub: neutral or skipped; Forgejo/Gitea:
    /// skipped).
    Skipped,
    Failed,
    Pending,
}

/// The base branch's rules, merged from every source the forge has (GitHub: rulesets and
/// classic branch protection; Forgejo/Gitea: branch protection). A rule is `true`/non-zero
/// only when a source that was read says so; what could not be read is in `unknown`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BranchRules {
    /// Some source protects the branch.
    pub protected: bool,
    pub required_approvals: u32,
    /// Names (GitHub) or patterns (Forgejo/Gitea globs) of the checks that must pass.
    pub required_checks: Vec<String>,
    pub code_owner_review: bool,
    pub conversation_resolution: bool,
    pub linear_history: bool,
    pub signed_commits: bool,
    pub merge_queue: bool,
    /// The head must contain the base's tip (GitHub strict status checks, Forgejo/Gitea
    /// `block_on_outdated_branch`).
    pub up_to_date: bool,
    /// A source requires checks and whether it also requires the head up to date could not
    /// be read (GitHub classic protection read through GraphQL `refUpdateRule`, which does
    /// not show `strict`).
    pub up_to_date_unread: bool,
    /// Approvals given before the last push do not count (Forgejo/Gitea: dismissed on push,
    /// `dismiss_stale_approvals`, or ignored at merge, `ignore_stale_approvals`).
    pub dismiss_stale_approvals: bool,
    /// A review requesting changes blocks (Forgejo/Gitea `block_on_rejected_reviews`; on
    /// GitHub `reviewDecision` carries it).
    pub block_on_rejected_reviews: bool,
    /// A pending official review request blocks (Forgejo/Gitea
    /// `block_on_official_review_requests`: a request to someone whose review would be
    /// official, e.g. a code owner Forgejo asked, must be answered first). `review_requests`
    /// lists every pending request; on an instance without an approvals whitelist, requests to
    /// writers are the official ones.
    pub official_review_requests: bool,
    /// Where the rules came from: `ruleset 42 "main rules"`, `branch protection`.
    pub sources: Vec<String>,
    /// Sources that could not be read, and why (`classic branch protection: 403 …`).
    pub unknown: Vec<UnreadRules>,
}

/// A source of rules that could not be read (branch rules for a merge, required checks for
/// a CI snapshot).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct UnreadRules {
    pub source: String,
    pub reason: String,
}

/// A file a pull request changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: String,
    pub status: FileStatus,
    /// The path before a rename.
    pub previous_path: Option<String>,
    pub additions: u64,
    pub deletions: u64,
    /// The file's unified diff hunks (from the first `@@`), when the forge gives them.
    pub patch: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
}

/// A commit as the forge lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub sha: String,
    pub message: String,
    /// The forge account of the author, when the forge linked the commit to one.
    pub author: Option<Actor>,
    /// The name in the commit itself.
    pub author_name: String,
    pub authored_at: Option<Timestamp>,
}

/// A closed pull request and what it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosedPull {
    pub number: u64,
    pub title: String,
    pub merged: bool,
    pub closed_at: Option<Timestamp>,
    pub paths: Vec<String>,
}

/// A code owners file as found on a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeOwnersFile {
    pub path: String,
    pub text: String,
    pub syntax: OwnersSyntax,
}

/// How a code owners file's patterns are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnersSyntax {
    /// GitHub: gitignore-like globs, the last matching line wins.
    GitHub,
    /// Gitea/Forgejo: Go regular expressions, `!` negates.
    Gitea,
}
