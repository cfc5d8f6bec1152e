//! `Repository` for Forgejo: merge facts in `readiness`, the pull request's files, commits,
//! file contents, history, closed pull requests and code owners in `contents`.

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};

use super::{Forgejo, contents, readiness};
use crate::Result;
use crate::repository::*;

#[async_trait]
impl Repository for Forgejo {
    async fn merge_facts(&self, pr: &PrRef) -> Result<MergeFacts> {
        readiness::merge_facts(self, pr).await
    }

    async fn pull_files(&self, pr: &PrRef, patches: bool) -> Result<Vec<ChangedFile>> {
        contents::pull_files(self, pr, patches).await
    }

    async fn pull_commits(&self, pr: &PrRef) -> Result<Vec<CommitInfo>> {
        contents::pull_commits(self, pr).await
    }

    async fn file_texts(
        &self,
        repo: &RepoRef,
        rev: &str,
        paths: &[String],
        max_bytes: u64,
    ) -> Result<Vec<Option<String>>> {
        contents::file_texts(self, repo, rev, paths, max_bytes).await
    }

    async fn recent_commits(
        &self,
        repo: &RepoRef,
        rev: &str,
        paths: &[String],
        per_path: usize,
    ) -> Result<Vec<Vec<CommitInfo>>> {
        contents::recent_commits(self, repo, rev, paths, per_path).await
    }

    async fn recent_closed_pulls(&self, repo: &RepoRef, limit: usize) -> Result<Vec<ClosedPull>> {
        contents::recent_closed_pulls(self, repo, limit).await
    }

    async fn code_owners(&self, repo: &RepoRef, rev: &str) -> Result<Option<CodeOwnersFile>> {
        contents::code_owners(self, repo, rev).await
    }
}
