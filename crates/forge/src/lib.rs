//! The forge layer: a `Forge` trait that names concepts (pull request, comment, review
//! thread, check), domain types that fit GitHub and Forgejo/Gitea alike, and one client per
//! forge family. HTTP, authentication, caching, retries and rate limits live here and only
//! here; no other crate talks to a forge.
//!
//! Not here: turning data into tool output (that is `resolve-pr-tools`), parsing logs (`ci`).

// `resolve_pr_core::Error` is the agents' JSON contract and is returned everywhere; its size
// (128+ bytes) only matters on the rare error path, and boxing it is core's decision.

pub mod config;
pub mod forgejo;
pub mod github;
mod http;
pub mod model;
mod router;
mod wording;

pub use config::{Config, ForgeKind, HostConfig};
pub use forgejo::Forgejo;
pub use github::GitHub;
pub use http::{ClientOptions, EnvLookup, RetryPolicy};
pub use model::*;
pub use router::Forges;

use async_trait::async_trait;
use resolve_pr_core::{PrRef, Result};

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

    /// Whether this instance can reply in and resolve threads (probed once, then cached).
    /// `threads` are the PR's threads as the caller already has them: a forge that must try
    /// an endpoint on a real comment takes one from there instead of listing them again.
    async fn thread_capabilities(
        &self,
        pr: &PrRef,
        threads: &[ReviewThread],
    ) -> Result<ThreadCapabilities>;
}
