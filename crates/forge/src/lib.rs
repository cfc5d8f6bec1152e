//! The forge layer: capability traits that name concepts (pull requests and comments, review
//! threads, checks, Actions) under a small `Forge` that says which a forge has, domain types
//! that fit GitHub and Forgejo/Gitea alike, one client per forge family, and the shell
//! commands (`commands`) agents run against each. HTTP, authentication, caching, retries and
//! rate limits live here and only here; no other crate talks to a forge.
//!
//! Failures are this crate's own [`Error`], whose variants say what happened; it knows the
//! agents' error model only in the one conversion to `resolve_pr_core::Error` (`error.rs`),
//! which `?` applies where a tool returns.
//!
//! Not here: turning data into tool output (that is `resolve-pr-tools`), parsing logs (`ci`).

pub mod ci;
pub mod commands;
pub mod config;
mod contents_input;
mod credential;
mod download;
mod error;
pub mod forgejo;
pub mod github;
mod glob;
mod http;
pub mod issues;
pub mod model;
mod pulls;
pub mod repository;
mod router;
pub mod time;
mod wording;

pub use ci::*;
pub use commands::CommandRecipes;
pub use config::{
    AREA_NAMES, AreaRule, Config, ForgeKind, HostConfig, RISK_NAMES, Secret, ShortReferences,
    area_glob_list, area_globs,
};
pub use credential::{Credential, CredentialKey, Fingerprint};
pub use error::{Cause, Error, Report, Result, Transport};
pub use forgejo::Forgejo;
pub use github::GitHub;
pub use glob::context_glob;
pub use http::{ClientOptions, EnvLookup, RetryPolicy};
pub use issues::{
    ConversationComment, Issue, IssueFilter, IssueListState, IssueState, Issues, not_an_issue,
};
pub use model::*;
pub use repository::*;
pub use router::{ClientKey, Forges, TOKEN_CLIENTS};
pub use time::{Timestamp, format_time, parse_time};

use std::sync::Arc;

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};

/// A forge as the router hands it out: what family it is, and what it can do. Each
/// capability is a trait of its own, implemented by the clients that have it; one a forge
/// lacks is `None`, and a caller that needs it reports [`require`]'s error.
pub trait Forge: Send + Sync {
    /// Which forge family this is (GitHub, Forgejo, Gitea).
    fn kind(&self) -> ForgeKind;

    /// Pull requests and their conversation comments.
    fn pull_requests(&self) -> &dyn PullRequests;

    /// Review threads and reviews.
    fn threads(&self) -> &dyn ReviewThreads;

    /// The checks of a pull request's head commit.
    fn checks(&self) -> &dyn Checks;

    /// Repository reads for a pull request's merge, impact and review.
    fn repository(&self) -> &dyn Repository;

    /// Actions jobs, runs, job logs and artifacts.
    fn actions(&self) -> Option<&dyn Actions>;

    /// Annotations of check runs (GitHub's checks API).
    fn annotations(&self) -> Option<&dyn CheckAnnotations>;

    /// How long a workflow's past runs took.
    fn workflow_history(&self) -> Option<&dyn WorkflowHistory>;

    /// The shell commands agents run against this forge (see `commands`).
    fn commands(&self) -> &dyn CommandRecipes;

    /// Issues, and conversation comments by id (see `issues`).
    fn issues(&self) -> &dyn Issues;
}

/// A capability the caller needs, or the `logical` error that says this forge cannot do
/// `what` (e.g. `require(forge.kind(), forge.actions(), "downloading job logs")`).
pub fn require<'a, C: ?Sized>(
    kind: ForgeKind,
    capability: Option<&'a C>,
    what: &str,
) -> Result<&'a C> {
    capability.ok_or_else(|| unsupported(kind, what))
}

/// Pull requests and their conversation.
#[async_trait]
pub trait PullRequests: Send + Sync {
    /// The pull request itself. A number that is an issue, not a PR, is "not found".
    async fn pull_request(&self, pr: &PrRef) -> Result<PullRequest>;

    /// One page of the PR's conversation comments (issue comments on GitHub and
    /// Forgejo/Gitea), oldest first. A number that is an issue, not a PR, is "not found".
    async fn list_pr_comments(&self, pr: &PrRef, page: PageRequest) -> Result<Page<IssueComment>>;

    /// Posts a conversation comment on the PR and returns it as the forge stored it. Checks
    /// first that the number is a pull request, so a wrong number writes nothing.
    async fn create_pr_comment(&self, pr: &PrRef, body: &str) -> Result<IssueComment>;

    /// The repository's pull requests that pass `filter`, newest first, at most
    /// `filter.limit` (0 gives none without asking). Forges that cannot filter by branch on
    /// their side read pages until enough match (see each client).
    async fn list_pull_requests(
        &self,
        repo: &RepoRef,
        filter: &PullFilter,
    ) -> Result<Vec<PullRequest>>;

    /// The pull request with its times and the reviews requested of it (one request).
    /// A number that is an issue, not a PR, is "not found".
    async fn pull_request_details(&self, pr: &PrRef) -> Result<PullRequestDetails>;

    /// One page of the repository's pull requests, newest first, with the filters this forge
    /// applies itself sent along; `filter.limit` is not used. The page may hold pull requests
    /// `filter` does not keep (a forge ignores the filters it lacks), so callers pass each
    /// through [`PullFilter::keeps`]; `has_next` speaks of the forge's listing, kept or not.
    /// `page.per_page` is capped at what the forge serves (GitHub 100, Forgejo/Gitea 50).
    async fn pull_request_page(
        &self,
        repo: &RepoRef,
        filter: &PullFilter,
        page: PageRequest,
    ) -> Result<Page<PullRequestDetails>>;

    /// Retargets the pull request onto the branch `base` of its repository and returns it
    /// as the forge stored it. Checks first that the number is an open pull request, so a
    /// wrong number or a closed or merged one writes nothing; the change is never retried
    /// once it may have reached the forge. A branch that does not exist is a `user` error.
    async fn set_base(&self, pr: &PrRef, base: &str) -> Result<PullRequest>;

    /// The pushes to the PR's head branch its timeline records, oldest first: where the
    /// branch was before it was force-pushed. One request for a timeline of up to 100
    /// force-pushes (GitHub) or 50 events (Forgejo/Gitea), one more per further page there.
    async fn head_pushes(&self, pr: &PrRef) -> Result<HeadPushes>;
}

/// Review threads, reviews, and writing in threads.
#[async_trait]
pub trait ReviewThreads: Send + Sync {
    /// Every review thread of the PR with all its comments, oldest first. Forges page these
    /// (GitHub: 100 threads and 100 comments a page); implementations walk every page, so
    /// PRs with more than 100 threads, and threads with more than 100 comments, come out
    /// whole.
    async fn review_threads(&self, pr: &PrRef) -> Result<Vec<ReviewThread>>;

    /// Every submitted review of the PR, oldest first.
    async fn reviews(&self, pr: &PrRef) -> Result<Vec<Review>>;

    /// One thread by id. A thread that exists but belongs to another PR is a `user` error.
    async fn review_thread(&self, pr: &PrRef, thread_id: &str) -> Result<ReviewThread>;

    /// Posts a reply at the end of the thread.
    async fn reply_to_review_thread(
        &self,
        pr: &PrRef,
        thread_id: &str,
        body: &str,
    ) -> Result<ReviewComment>;

    /// Resolves (`true`) or unresolves the thread and returns it afterwards. Idempotent.
    async fn set_review_thread_resolved(
        &self,
        pr: &PrRef,
        thread_id: &str,
        resolved: bool,
    ) -> Result<ReviewThread>;

    /// Threads and reviews together. Forgejo/Gitea derive both from one listing of the
    /// reviews, so they override this; elsewhere it is both calls, concurrently.
    async fn review_activity(&self, pr: &PrRef) -> Result<(Vec<ReviewThread>, Vec<Review>)> {
        tokio::try_join!(self.review_threads(pr), self.reviews(pr))
    }

    /// The pull request's review feedback: the PR, its threads and reviews, and its
    /// conversation comments. GitHub answers it from a per-process snapshot that one small
    /// query revalidates (see `github::feedback`), so paging through a long list does not
    /// read the pull request again; elsewhere it is read afresh each time
    /// (`read_review_feedback`).
    async fn review_feedback(&self, pr: &PrRef) -> Result<Arc<ReviewFeedback>>;

    /// Whether this instance can reply in and resolve threads (probed once, then cached).
    /// `threads` are the PR's threads as the caller already has them: a forge that must try
    /// an endpoint on a real comment takes one from there instead of listing them again.
    async fn thread_capabilities(
        &self,
        pr: &PrRef,
        threads: &[ReviewThread],
    ) -> Result<ThreadCapabilities>;
}

/// The checks of a pull request's head commit. Which checks are required (rulesets, branch
/// protection) is read here too, since nothing else reads a repository's rules yet.
#[async_trait]
pub trait Checks: Send + Sync {
    /// Every check of the PR's head commit: check runs and commit statuses, all pages,
    /// newest attempt of each check only. GETs are revalidated with ETags, so polling an
    /// unchanged commit costs no rate limit (`unchanged` says so).
    async fn ci_snapshot(&self, pr: &PrRef) -> Result<CiSnapshot>;
}

/// Actions: jobs and their steps, workflow runs, job logs and run artifacts. An instance
/// that does not serve an endpoint answers with a `logical` error naming what is missing.
#[async_trait]
pub trait Actions: Send + Sync {
    /// An Actions job with its steps.
    async fn actions_job(&self, repo: &RepoRef, job: &ActionsJobRef) -> Result<Job>;

    /// The workflow run a job belongs to.
    async fn workflow_run(&self, repo: &RepoRef, run_id: u64) -> Result<WorkflowRun>;

    /// The job's log, streamed. When the log is larger than `max_bytes`, only its last
    /// `max_bytes` are streamed (a `Range` request where the storage allows it, otherwise
    /// the head is read and dropped). A log of unknown length (chunked, no Content-Length)
    /// is streamed whole, since its tail cannot be found without holding it. An expired log
    /// (404/410) is a `logical` error.
    async fn job_log(
        &self,
        repo: &RepoRef,
        job: &ActionsJobRef,
        max_bytes: u64,
    ) -> Result<LogStream>;

    /// Artifacts of a workflow run, all pages.
    async fn run_artifacts(&self, repo: &RepoRef, run_id: u64) -> Result<Vec<Artifact>>;

    /// The files of an artifact (a zip on every forge), unpacked in memory: only entries
    /// whose name ends with `suffix` (e.g. `.xml`), at most `max_bytes` in all.
    async fn artifact_files(
        &self,
        repo: &RepoRef,
        artifact: &Artifact,
        suffix: &str,
        max_bytes: u64,
    ) -> Result<Vec<(String, Vec<u8>)>>;
}

/// Annotations that check runs attach to lines of code.
#[async_trait]
pub trait CheckAnnotations: Send + Sync {
    /// Annotations of a check run, all pages.
    async fn check_annotations(&self, repo: &RepoRef, check_run_id: u64)
    -> Result<Vec<Annotation>>;
}

/// A workflow's past runs.
#[async_trait]
pub trait WorkflowHistory: Send + Sync {
    /// How long the workflow's most recent successful runs took, in seconds, newest first
    /// (at most `max`): what a running workflow can be expected to take.
    async fn workflow_durations(
        &self,
        repo: &RepoRef,
        workflow_id: u64,
        max: usize,
    ) -> Result<Vec<u64>>;

    /// The workflow's runs on one commit, newest first (at most `max`): re-runs of the
    /// same commit, and runs other events started on it.
    async fn commit_runs(
        &self,
        repo: &RepoRef,
        workflow_id: u64,
        head_sha: &str,
        max: usize,
    ) -> Result<Vec<WorkflowRun>>;

    /// Every job of every attempt of a run (a re-run's jobs have ids of their own), all
    /// pages, without their steps' detail beyond what the listing gives.
    async fn run_jobs_all_attempts(&self, repo: &RepoRef, run_id: u64) -> Result<Vec<Job>>;
}

/// Review feedback read afresh: the pull request, its threads and reviews, and every
/// conversation comment, concurrently. For forges that keep no snapshot of it.
pub(crate) async fn read_review_feedback<F>(forge: &F, pr: &PrRef) -> Result<Arc<ReviewFeedback>>
where
    F: PullRequests + ReviewThreads + ?Sized,
{
    let (pull, activity, issue_comments) = tokio::join!(
        forge.pull_request(pr),
        forge.review_activity(pr),
        all_pr_comments(forge, pr),
    );
    // The PR first, so a missing PR is "not found" whichever request noticed it first.
    let pull = pull?;
    let (threads, reviews) = activity?;
    Ok(Arc::new(ReviewFeedback {
        pull,
        threads,
        reviews,
        issue_comments: issue_comments?,
    }))
}

/// Every conversation comment of the PR, page after page (100 a page, both forges' maximum).
async fn all_pr_comments<F: PullRequests + ?Sized>(
    forge: &F,
    pr: &PrRef,
) -> Result<Vec<IssueComment>> {
    const PER_PAGE: u32 = 100;
    let mut all = Vec::new();
    for page in 1u32.. {
        // No pull request has a thousand pages of conversation; a forge that keeps saying
        // "more" past that is looping.
        if page > github::MAX_PAGES {
            return Err(Error::invalid_body(format!(
                "the forge kept returning pages of conversation comments past {} pages",
                github::MAX_PAGES
            )));
        }
        let got = forge
            .list_pr_comments(
                pr,
                PageRequest {
                    page,
                    per_page: PER_PAGE,
                },
            )
            .await?;
        let empty = got.items.is_empty();
        all.extend(got.items);
        if !got.has_next || empty {
            break;
        }
    }
    Ok(all)
}

/// The error for a capability this forge (or this instance) does not have.
pub fn unsupported(kind: ForgeKind, what: &str) -> Error {
    Error::unsupported(
        what,
        kind.as_str(),
        format!("{} does not support {what} through its API", kind.as_str()),
    )
}
