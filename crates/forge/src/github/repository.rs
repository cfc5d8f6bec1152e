//! `Repository` for GitHub: merge facts in `readiness`, the pull request's files, commits,
//! file contents, history, closed pull requests and code owners in `contents`.

use async_trait::async_trait;
use resolve_pr_core::{PrRef, RepoRef};

use super::{GitHub, contents, readiness};
use crate::Result;
use crate::repository::*;

#[async_trait]
impl Repository for GitHub {
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

    async fn branch_tip(&self, repo: &RepoRef, branch: &str) -> Result<Option<String>> {
        crate::pulls::check_branch_name("branch", branch)?;
        let auth = self.auth().await?;
        let subject = format!("the branch {branch:?} of {}", repo.full_name());
        let url = format!(
            "{}/git/ref/heads/{}",
            self.repo_api(repo),
            branch_path(branch)
        );
        let request = crate::http::Request::get(url, Some(auth), &subject);
        match self.http.send(&request).await {
            Ok(response) => {
                let reference: GhRef = response.json()?;
                Ok(Some(reference.object.sha))
            }
            Err(crate::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// `GET git/ref/heads/{branch}`: the fields read.
#[derive(serde::Deserialize)]
struct GhRef {
    object: GhRefObject,
}

#[derive(serde::Deserialize)]
struct GhRefObject {
    sha: String,
}
