//! PLACEHOLDER: a Forgejo pull request's files and commits, file contents at a revision, recent
//! history, recently closed pull requests and the code owners file.

use resolve_pr_core::{PrRef, RepoRef};

use super::Forgejo;
use crate::repository::*;
use crate::{Error, Result};

fn pending(what: &str) -> Error {
    Error::unsupported(what, "forgejo", format!("{what} is not implemented yet"))
}

pub(crate) async fn pull_files(_forge: &Forgejo, _pr: &PrRef) -> Result<Vec<ChangedFile>> {
    Err(pending("pull_files"))
}

pub(crate) async fn pull_commits(_forge: &Forgejo, _pr: &PrRef) -> Result<Vec<CommitInfo>> {
    Err(pending("pull_commits"))
}

pub(crate) async fn file_texts(
    _forge: &Forgejo,
    _repo: &RepoRef,
    _rev: &str,
    _paths: &[String],
    _max_bytes: u64,
) -> Result<Vec<Option<String>>> {
    Err(pending("file_texts"))
}

pub(crate) async fn recent_commits(
    _forge: &Forgejo,
    _repo: &RepoRef,
    _rev: &str,
    _paths: &[String],
    _per_path: usize,
) -> Result<Vec<Vec<CommitInfo>>> {
    Err(pending("recent_commits"))
}

pub(crate) async fn recent_closed_pulls(
    _forge: &Forgejo,
    _repo: &RepoRef,
    _limit: usize,
) -> Result<Vec<ClosedPull>> {
    Err(pending("recent_closed_pulls"))
}

pub(crate) async fn code_owners(
    _forge: &Forgejo,
    _repo: &RepoRef,
    _rev: &str,
) -> Result<Option<CodeOwnersFile>> {
    Err(pending("code_owners"))
}
