//! The forge layer: a `Forge` trait that names concepts (pull request, comment, review
//! thread, check), domain types that fit GitHub and Forgejo/Gitea alike, and one client per
//! forge family. HTTP, authentication, caching, retries and rate limits live here and only
//! here; no other crate talks to a forge.
//!
//! Failures are this crate's own [`Error`], whose variants say what happened; it knows the
//! agents' error model only in the one conversion to `resolve_pr_core::Error` (`error.rs`),
//! which `?` applies where a tool returns.
//!
//! Not here: turning data into tool output (that is `resolve-pr-tools`), parsing logs (`ci`).

pub mod ci;
pub mod config;
mod download;
mod error;
pub mod forgejo;
pub mod github;
mod http;
pub mod model;
mod router;
mod wording;

pub use ci::*;
pub use config::{Config, ForgeKind, HostConfig, ShortReferences};
pub use error::{Error, Report, Result, Transport};
pub use forgejo::Forgejo;
pub use github::GitHub;
pub use http::{ClientOptions, EnvLookup, RetryPolicy};
pub use model::*;
pub use router::Forges;

use std::sync::Arc;

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};

/// Everything the tools ask of a forge. Implementations translate between the forge's API
/// and the domain types; they never leak the forge's JSON.
#[async_trait]
pub trait Forge: Send + Sync {
    /// Which forge family this is (GitHub, Forgejo, Gitea).
    fn kind(&self) -> ForgeKind;

    /// The pull request itself. A number that is an issue, not a PR, is "not found".
    async fn pull_request(&self, pr: &PrRef) -> Result<PullRequest>;

    /// One page of the PR's conversation comments (issue comments on GitHub and
    /// Forgejo/Gitea), oldest first. A number that is an issue, not a PR, is "not found".
    async fn list_pr_comments(&self, pr: &PrRef, page: PageRequest) -> Result<Page<IssueComment>>;

    /// Posts a conversation comment on the PR and returns it as the forge stored it. Checks
    /// first that the number is a pull request, so a wrong number writes nothing.
    async fn create_pr_comment(&self, pr: &PrRef, body: &str) -> Result<IssueComment>;

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
    /// read the pull request again; elsewhere it is read afresh each time.
    async fn review_feedback(&self, pr: &PrRef) -> Result<Arc<ReviewFeedback>> {
        let (pull, activity, issue_comments) = tokio::join!(
            self.pull_request(pr),
            self.review_activity(pr),
            all_pr_comments(self, pr),
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

    /// Whether this instance can reply in and resolve threads (probed once, then cached).
    /// `threads` are the PR's threads as the caller already has them: a forge that must try
    /// an endpoint on a real comment takes one from there instead of listing them again.
    async fn thread_capabilities(
        &self,
        pr: &PrRef,
        threads: &[ReviewThread],
    ) -> Result<ThreadCapabilities>;

    /// Every check of the PR's head commit: check runs and commit statuses, all pages,
    /// newest attempt of each check only. GETs are revalidated with ETags, so polling an
    /// unchanged commit costs no rate limit (`unchanged` says so).
    async fn ci_snapshot(&self, pr: &PrRef) -> Result<CiSnapshot> {
        let _ = pr;
        Err(unsupported(self.kind(), "reading checks"))
    }

    /// An Actions job with its steps.
    async fn actions_job(&self, repo: &RepoRef, job: &ActionsJobRef) -> Result<Job> {
        let _ = (repo, job);
        Err(unsupported(self.kind(), "reading Actions jobs"))
    }

    /// The workflow run a job belongs to.
    async fn workflow_run(&self, repo: &RepoRef, run_id: u64) -> Result<WorkflowRun> {
        let _ = (repo, run_id);
        Err(unsupported(self.kind(), "reading workflow runs"))
    }

    /// How long the workflow's most recent successful runs took, in seconds, newest first
    /// (at most `max`): what a running workflow can be expected to take.
    async fn workflow_durations(
        &self,
        repo: &RepoRef,
        workflow_id: u64,
        max: usize,
    ) -> Result<Vec<u64>> {
        let _ = (repo, workflow_id, max);
        Err(unsupported(self.kind(), "reading a workflow's past runs"))
    }

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
    ) -> Result<LogStream> {
        let _ = (repo, job, max_bytes);
        Err(unsupported(self.kind(), "downloading job logs"))
    }

    /// Annotations of a check run, all pages.
    async fn check_annotations(
        &self,
        repo: &RepoRef,
        check_run_id: u64,
    ) -> Result<Vec<Annotation>> {
        let _ = (repo, check_run_id);
        Err(unsupported(self.kind(), "reading check annotations"))
    }

    /// Artifacts of a workflow run, all pages.
    async fn run_artifacts(&self, repo: &RepoRef, run_id: u64) -> Result<Vec<Artifact>> {
        let _ = (repo, run_id);
        Err(unsupported(self.kind(), "listing artifacts"))
    }

    /// The files of an artifact (a zip on every forge), unpacked in memory: only entries
    /// whose name ends with `suffix` (e.g. `.xml`), at most `max_bytes` in all.
    async fn artifact_files(
        &self,
        repo: &RepoRef,
        artifact: &Artifact,
        suffix: &str,
        max_bytes: u64,
    ) -> Result<Vec<(String, Vec<u8>)>> {
        let _ = (repo, artifact, suffix, max_bytes);
        Err(unsupported(self.kind(), "downloading artifacts"))
    }
}

/// Every conversation comment of the PR, page after page (100 a page, both forges' maximum).
async fn all_pr_comments<F: Forge + ?Sized>(forge: &F, pr: &PrRef) -> Result<Vec<IssueComment>> {
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
