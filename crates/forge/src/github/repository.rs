//! `Repository` for GitHub. PLACEHOLDER: every method is unimplemented until the
//! readiness/impact work lands; nothing calls it yet.

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};

use super::GitHub;
use crate::repository::*;
use crate::{Error, Result};

fn pending(what: &str) -> Error {
    Error::unsupported(what, "github", format!("{what} is not implemented yet"))
}

#[async_trait]
impl Repository for GitHub {
    async fn merge_facts(&self, _pr: &PrRef) -> Result<MergeFacts> {
        Err(pending("merge_facts"))
    }
    async fn pull_files(&self, _pr: &PrRef) -> Result<Vec<ChangedFile>> {
        Err(pending("pull_files"))
    }
    async fn pull_commits(&self, _pr: &PrRef) -> Result<Vec<CommitInfo>> {
        Err(pending("pull_commits"))
    }
    async fn file_texts(
        &self,
        _repo: &RepoRef,
        _rev: &str,
        _paths: &[String],
        _max_bytes: u64,
    ) -> Result<Vec<Option<String>>> {
        Err(pending("file_texts"))
    }
    async fn recent_commits(
        &self,
        _repo: &RepoRef,
        _rev: &str,
        _paths: &[String],
        _per_path: usize,
    ) -> Result<Vec<Vec<CommitInfo>>> {
        Err(pending("recent_commits"))
    }
    async fn recent_closed_pulls(&self, _repo: &RepoRef, _limit: usize) -> Result<Vec<ClosedPull>> {
        Err(pending("recent_closed_pulls"))
    }
    async fn code_owners(&self, _repo: &RepoRef, _rev: &str) -> Result<Option<CodeOwnersFile>> {
        Err(pending("code_owners"))
    }
}
