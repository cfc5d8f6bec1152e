//! Domain types: what the tools need to know about pull requests and their conversation,
//! independent of which forge served them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// A page of a forge listing, 1-based as both forges number them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub per_page: u32,
}

/// One page of results, and whether the forge has more after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub has_next: bool,
}

/// Who wrote something. Deleted accounts come back as `ghost` (GitHub) or `Ghost`
/// (Forgejo/Gitea), never as a missing author.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Actor {
    pub login: String,
    /// The account type the forge reports is a bot (GitHub `type: Bot`; on Forgejo/Gitea,
    /// bot accounts as the instance reports them). Never guessed from the name.
    pub is_bot: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PrState {
    Open,
    Closed,
    Merged,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequest {
    pub number: u64,
    pub title: String,
    /// The description (Markdown); empty when there is none.
    pub body: String,
    /// Label names, in the forge's order.
    pub labels: Vec<String>,
    /// `Merged` for a merged pull request on every forge (GitHub REST says `closed` there).
    pub state: PrState,
    pub draft: bool,
    pub author: Actor,
    pub html_url: String,
    pub head_ref: String,
    pub head_sha: String,
    pub base_ref: String,
    /// The commit the base branch pointed at when the forge last looked (both forges update it
    /// as the base moves; a merged pull request keeps the one it was merged onto).
    pub base_sha: String,
    #[serde(with = "crate::time::rfc3339_opt")]
    #[schemars(with = "Option<String>")]
    pub merged_at: Option<Timestamp>,
    /// Set once merged: the merge commit (merge), the one squashed commit (squash), or the
    /// commit the base branch was moved to (rebase) on GitHub; Forgejo/Gitea's
    /// `merge_commit_sha`. `None` before the merge: GitHub's value there is its test merge
    /// (`refs/pull/N/merge`), which says nothing about what was merged and is not kept.
    pub merge_commit_sha: Option<String>,
    /// Whether the forge can merge it without conflicts. `None` when it has not computed that
    /// (GitHub's `null`: it computes on the first read of the pull request, in the background;
    /// a pull request read from a listing never has it). Forgejo/Gitea say `false` also while
    /// checking, after a failed check and for a draft, so only `true` is conclusive there.
    pub mergeable: Option<bool>,
    /// GitHub REST's `mergeable_state` as given (`clean`, `dirty`, `unstable`, `blocked`,
    /// `behind`, `unknown`, `has_hooks`, `draft`); `None` on Forgejo/Gitea, which have no such
    /// field, and on GitHub for a pull request read from a listing.
    pub mergeable_state: Option<String>,
    /// `owner/name` of the repository the pull request belongs to (its base).
    pub base_repo: String,
    /// `owner/name` of the repository the head branch lives in; `None` when that repository
    /// was deleted (a fork removed after the pull request was opened).
    pub head_repo: Option<String>,
    /// The base repository's clone URL (`https://host/owner/name.git`).
    pub base_clone_url: Option<String>,
    /// The head repository's clone URL; `None` when it was deleted.
    pub head_clone_url: Option<String>,
}

impl PullRequest {
    /// Whether the head branch lives in another repository than the base (a fork), or in
    /// one that no longer exists. Owner and name compare case-insensitively, as both forges
    /// treat them.
    pub fn is_from_fork(&self) -> bool {
        self.head_repo
            .as_deref()
            .is_none_or(|head| !head.eq_ignore_ascii_case(&self.base_repo))
    }
}

/// Which pull requests [`crate::PullRequests::list_pull_requests`] and
/// [`crate::PullRequests::pull_request_page`] return. `Default` is every open pull request,
/// none at most (set `limit`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullFilter {
    pub state: PullListState,
    /// Only pull requests whose head is this branch of the base repository (not a fork's
    /// branch of the same name).
    pub head: Option<String>,
    /// Only pull requests into this branch.
    pub base: Option<String>,
    /// Only pull requests opened by this login (compared case-insensitively, as both forges
    /// treat logins).
    pub author: Option<String>,
    /// Only drafts (`true`) or only pull requests ready for review (`false`).
    pub draft: Option<bool>,
    /// At most this many pull requests (the newest first).
    pub limit: usize,
}

impl PullFilter {
    /// Whether `pull`, listed in `repo`, passes the filter. A page of
    /// [`crate::PullRequests::pull_request_page`] may hold pull requests that do not (a forge
    /// ignores the filters it lacks); this is the one place that decides.
    pub fn keeps(&self, repo: &resolve_pr_core::RepoRef, pull: &PullRequest) -> bool {
        crate::pulls::keeps(self, repo, pull)
    }
}

/// The states a listing includes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PullListState {
    #[default]
    Open,
    /// Closed without being merged.
    Closed,
    Merged,
    /// Open, closed and merged.
    All,
}

/// A pull request with what a listing or a read of it tells beyond [`PullRequest`]: when it
/// was opened and last changed, and whose reviews are requested and not given yet. Kept apart
/// from `PullRequest`, which the review-feedback GraphQL reading also builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequestDetails {
    pub pull: PullRequest,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Users (and bots) asked for a review who have not given it since.
    pub requested_reviewers: Vec<Actor>,
    /// Teams asked for a review, as `org/slug` (GitHub) or `org/name` (Forgejo/Gitea).
    pub requested_teams: Vec<String>,
}

/// A conversation comment on a PR (GitHub: issue comment; Forgejo/Gitea: issue comment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IssueComment {
    pub id: u64,
    pub author: Actor,
    /// GitHub's `author_association` (OWNER, MEMBER, ...); Forgejo/Gitea have none.
    pub author_association: Option<String>,
    pub body: String,
    /// When the forge says it was written (UTC; see [`crate::time`]).
    #[serde(with = "crate::time::rfc3339")]
    #[schemars(with = "String")]
    pub created_at: Timestamp,
    #[serde(with = "crate::time::rfc3339")]
    #[schemars(with = "String")]
    pub updated_at: Timestamp,
    pub html_url: String,
    /// Hidden on the forge ("minimized" on GitHub); see [`Minimized`].
    pub minimized: Option<Minimized>,
}

/// A comment a moderator or its author hid (GitHub: "minimized"; it stays readable behind a
/// click). Forgejo and Gitea have no such thing: their comments are never minimized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Minimized {
    /// GitHub's `minimizedReason`, lower case: `off-topic`, `spam`, `outdated`, `resolved`,
    /// `duplicate` or `abuse`; `None` when GitHub gave none.
    pub reason: Option<String>,
}

/// A submitted review (approve, request changes, comment) with its summary body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Review {
    pub id: u64,
    pub author: Actor,
    pub author_association: Option<String>,
    pub state: ReviewState,
    /// The review's summary text; empty when the reviewer wrote none.
    pub body: String,
    /// `None` for a pending (unsubmitted) review.
    #[serde(with = "crate::time::rfc3339_opt")]
    #[schemars(with = "Option<String>")]
    pub submitted_at: Option<Timestamp>,
    pub html_url: String,
    pub commit_id: Option<String>,
    /// Hidden on the forge; see [`Minimized`].
    pub minimized: Option<Minimized>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReviewState {
    Approved,
    ChangesRequested,
    Commented,
    Dismissed,
    Pending,
}

/// Reaction counts on a comment, as GitHub names them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reactions {
    pub total_count: u64,
    #[serde(rename = "+1")]
    pub plus_one: u64,
    #[serde(rename = "-1")]
    pub minus_one: u64,
    pub laugh: u64,
    pub hooray: u64,
    pub confused: u64,
    pub heart: u64,
    pub rocket: u64,
    pub eyes: u64,
}

/// A comment inside a review thread (a comment on a line or file of the diff, or a reply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewComment {
    /// The forge's numeric id (GitHub `databaseId`), used by REST endpoints and URLs.
    pub id: u64,
    /// GitHub's GraphQL node id; `None` on Forgejo/Gitea.
    pub node_id: Option<String>,
    pub author: Actor,
    pub author_association: Option<String>,
    pub body: String,
    #[serde(with = "crate::time::rfc3339")]
    #[schemars(with = "String")]
    pub created_at: Timestamp,
    #[serde(with = "crate::time::rfc3339")]
    #[schemars(with = "String")]
    pub updated_at: Timestamp,
    pub html_url: String,
    pub diff_hunk: Option<String>,
    pub commit_id: Option<String>,
    /// The comment this one answers: the thread's first comment, for every later comment, on
    /// both forges; `None` for the first.
    pub in_reply_to_id: Option<u64>,
    pub reactions: Option<Reactions>,
    /// Hidden on the forge; see [`Minimized`].
    pub minimized: Option<Minimized>,
}

/// A conversation on the diff: a first comment and its replies, oldest first, with its
/// resolution state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewThread {
    /// Opaque, stable per forge: GitHub's node id (`PRRT_…`); on Forgejo/Gitea
    /// `comment-<id of the conversation's first comment>`.
    pub id: String,
    pub is_resolved: bool,
    /// The code the thread was written on has changed since. Always `false` on
    /// Forgejo/Gitea: their API does not expose the `invalidated` flag their UI uses.
    pub is_outdated: bool,
    pub path: Option<String>,
    pub line: Option<u64>,
    /// First line of a multi-line comment.
    pub start_line: Option<u64>,
    /// The line when the thread was written. Unlike `line` it does not move (or vanish) when
    /// later pushes change the file, so it orders threads stably.
    pub original_line: Option<u64>,
    /// First line of a multi-line comment when the thread was written (see `original_line`).
    pub original_start_line: Option<u64>,
    /// LEFT (the base) or RIGHT (the head).
    pub diff_side: Option<String>,
    /// LINE, or FILE for a comment on a whole file.
    pub subject_type: Option<String>,
    /// GitHub: this token may resolve or unresolve the thread. Forgejo/Gitea (no per-token
    /// answer): the instance has the endpoint, as probed so far (`false` until probed; see
    /// `ReviewThreads::thread_capabilities`).
    pub viewer_can_resolve: bool,
    /// Like `viewer_can_resolve`, for replying.
    pub viewer_can_reply: bool,
    pub resolved_by: Option<Actor>,
    pub comments: Vec<ReviewComment>,
}

/// What a forge instance lets a client do with review threads, probed rather than assumed
/// from version numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadCapabilities {
    pub can_reply: bool,
    pub can_resolve: bool,
    /// Why something is missing, and which forge version adds it.
    pub missing: Option<String>,
}

/// What a pull request's review feedback is made of, read together: the pull request, every
/// review thread (whole), the reviews that can carry feedback, and every conversation comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewFeedback {
    /// As of when the feedback was read: GitHub reuses its snapshot while the feedback's
    /// version holds (head commit, `updatedAt`, threads), so its `mergeable*` and `base_sha`
    /// may be older than what `PullRequests::pull_request` reads now.
    pub pull: PullRequest,
    /// GitHub reads reactions only for the comments of unresolved threads (the feedback that
    /// is still open); a resolved thread's comments have `reactions: None` there.
    pub threads: Vec<ReviewThread>,
    /// At least the CHANGES_REQUESTED and COMMENTED ones (a forge may leave the rest out).
    pub reviews: Vec<Review>,
    /// Oldest first.
    pub issue_comments: Vec<IssueComment>,
}

/// A push to a pull request's head branch, as the pull request's timeline records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadPush {
    /// The push replaced commits (a force-push): `before` was the head until then.
    pub forced: bool,
    /// The head before the push (forced pushes; GitHub says `null` for a commit it lost).
    pub before: Option<String>,
    /// The head after the push (forced pushes).
    pub after: Option<String>,
    /// The commits a push that was not forced added (Forgejo/Gitea record them).
    pub commits: Vec<String>,
}

/// The pushes to a pull request's head branch that its timeline records, oldest first.
/// GitHub records force-pushes only; Forgejo/Gitea every push after the pull request was
/// opened. Neither knows of pushes made before it was opened.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HeadPushes {
    pub pushes: Vec<HeadPush>,
    /// Every recorded push is here (false: the timeline was longer than was read).
    pub complete: bool,
}
