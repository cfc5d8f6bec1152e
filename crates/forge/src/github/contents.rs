//! A GitHub pull request's files and commits (REST, every page), file contents at a revision,
//! recent history of paths, recently closed pull requests and the code owners file
//! (GraphQL, paths and revisions always as variables).

use resolve_pr_core::{PrRef, RepoRef};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::{GitHub, MAX_PER_PAGE, queries};
use crate::contents_input::{check_path, check_rev};
use crate::http::{Request, parse_json};
use crate::model::Actor;
use crate::repository::*;
use crate::time::Timestamp;
use crate::wording::{not_found_hint, subject};
use crate::{Error, Result};

/// GitHub lists at most 3,000 files of a pull request: 30 pages of 100.
const MAX_FILE_PAGES: u32 = 30;
/// GitHub lists at most 250 commits of a pull request: 3 pages of 100.
const MAX_COMMIT_PAGES: u32 = 3;
/// `history(first:)` and `pullRequests(first:)` bounds this client keeps to.
const MAX_HISTORY: usize = 100;
const MAX_CLOSED_PULLS: usize = 50;

impl GitHub {
    /// Every page (100 each, at most `max_pages`) of a pull request's list.
    async fn pull_pages<T: DeserializeOwned>(
        &self,
        pr: &PrRef,
        list: &str,
        max_pages: u32,
    ) -> Result<Vec<T>> {
        let auth = self.auth().await?;
        let what = format!("{list} of {}", subject(pr));
        let hint = not_found_hint(pr);
        let mut out = Vec::new();
        for page in 1..=max_pages {
            let url = format!(
                "{}/pulls/{}/{list}?per_page={MAX_PER_PAGE}&page={page}",
                self.repo_url(pr),
                pr.number
            );
            let request = Request::get(url, Some(auth), &what).not_found_hint(&hint);
            let response = self.http.send(&request).await?;
            let items: Vec<T> = response.json()?;
            let count = items.len();
            let more = response.may_have_next(count, MAX_PER_PAGE as usize);
            out.extend(items);
            if count == 0 || !more {
                break;
            }
        }
        Ok(out)
    }

    /// A GraphQL query about `repo`, its data as `T`.
    async fn repo_query<T: DeserializeOwned>(
        &self,
        document: &str,
        repo: &RepoRef,
        mut variables: Map<String, Value>,
    ) -> Result<T> {
        variables.insert("owner".into(), Value::from(repo.owner.as_str()));
        variables.insert("name".into(), Value::from(repo.repo.as_str()));
        let data = self.graphql(document, Value::Object(variables)).await?;
        parse_json(data.to_string().as_bytes(), "GitHub (GraphQL)")
    }
}

fn missing_revision(repo: &RepoRef, rev: &str) -> Error {
    Error::not_found(
        None,
        format!("the revision {rev} does not exist in {}", repo.full_name()),
    )
    .with_detail("rev", rev)
    .with_suggestion("Pass a commit id of the repository, such as the pull request's head.")
}

#[derive(Deserialize)]
struct GhFile {
    filename: String,
    status: String,
    #[serde(default)]
    previous_filename: Option<String>,
    #[serde(default)]
    additions: u64,
    #[serde(default)]
    deletions: u64,
    #[serde(default)]
    patch: Option<String>,
}

impl GhFile {
    fn into_domain(self) -> ChangedFile {
        // `copied` is a new file made from another: added, with where it came from.
        let status = match self.status.as_str() {
            "added" | "copied" => FileStatus::Added,
            "removed" => FileStatus::Deleted,
            "renamed" => FileStatus::Renamed,
            _ => FileStatus::Modified,
        };
        ChangedFile {
            path: self.filename,
            status,
            previous_path: self.previous_filename,
            additions: self.additions,
            deletions: self.deletions,
            patch: self.patch,
        }
    }
}

pub(crate) async fn pull_files(
    forge: &GitHub,
    pr: &PrRef,
    _patches: bool,
) -> Result<Vec<ChangedFile>> {
    let files: Vec<GhFile> = forge.pull_pages(pr, "files", MAX_FILE_PAGES).await?;
    Ok(files.into_iter().map(GhFile::into_domain).collect())
}

#[derive(Deserialize)]
struct GhCommit {
    sha: String,
    commit: GhGitCommit,
    /// A user, `null`, or `{}` when the email belongs to no account.
    #[serde(default)]
    author: Option<Value>,
}

#[derive(Deserialize)]
struct GhGitCommit {
    message: String,
    #[serde(default)]
    author: Option<GhGitUser>,
}

#[derive(Deserialize)]
struct GhGitUser {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, with = "crate::time::rfc3339_opt")]
    date: Option<Timestamp>,
}

pub(crate) async fn pull_commits(forge: &GitHub, pr: &PrRef) -> Result<Vec<CommitInfo>> {
    let commits: Vec<GhCommit> = forge.pull_pages(pr, "commits", MAX_COMMIT_PAGES).await?;
    commits
        .into_iter()
        .map(|c| {
            let account = c.author.filter(|a| a.get("login").is_some());
            let author = match account {
                Some(a) => Some(super::actor(Some(serde_json::from_value(a).map_err(
                    |e| {
                        Error::invalid_body(format!(
                            "GitHub listed a commit author it cannot read: {e}"
                        ))
                    },
                )?))),
                None => None,
            };
            let git = c.commit.author;
            Ok(CommitInfo {
                sha: c.sha,
                message: c.commit.message,
                author,
                author_name: git
                    .as_ref()
                    .and_then(|g| g.name.clone())
                    .unwrap_or_default(),
                authored_at: git.and_then(|g| g.date),
            })
        })
        .collect()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlBlob {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    is_binary: Option<bool>,
    #[serde(default)]
    byte_size: Option<u64>,
    #[serde(default)]
    is_truncated: Option<bool>,
}

impl GqlBlob {
    /// The whole text, when it is text and within `max_bytes`.
    fn text_within(self, max_bytes: u64) -> Option<String> {
        let usable = self.is_binary == Some(false)
            && self.is_truncated == Some(false)
            && self.byte_size.is_some_and(|s| s <= max_bytes);
        self.text.filter(|_| usable)
    }
}

/// The revision's `revision` alias and the blobs by alias; a tree or a missing path is an
/// empty object or null.
fn blob_of(data: &mut Map<String, Value>, alias: &str) -> Result<Option<GqlBlob>> {
    match data.remove(alias) {
        Some(v) if v.as_object().is_some_and(|o| o.contains_key("isBinary")) => {
            serde_json::from_value(v).map(Some).map_err(|e| {
                Error::invalid_body(format!(
                    "GitHub (GraphQL) answered a file it cannot read: {e}"
                ))
            })
        }
        _ => Ok(None),
    }
}

#[derive(Deserialize)]
struct RepoData {
    repository: Option<Map<String, Value>>,
}

impl RepoData {
    /// The repository's fields, after checking the revision exists.
    fn with_revision(self, repo: &RepoRef, rev: &str) -> Result<Map<String, Value>> {
        let fields = self.repository.ok_or_else(|| {
            Error::not_found(
                None,
                format!("the repository {} was not found", repo.full_name()),
            )
        })?;
        match fields.get("revision") {
            Some(Value::Object(_)) => Ok(fields),
            _ => Err(missing_revision(repo, rev)),
        }
    }
}

pub(crate) async fn file_texts(
    forge: &GitHub,
    repo: &RepoRef,
    rev: &str,
    paths: &[String],
    max_bytes: u64,
) -> Result<Vec<Option<String>>> {
    check_rev(rev)?;
    for path in paths {
        check_path(path)?;
    }
    let mut out = Vec::with_capacity(paths.len());
    for chunk in paths.chunks(queries::FILE_TEXTS_PER_QUERY) {
        let document = queries::file_texts(chunk.len());
        let mut variables = Map::new();
        variables.insert("rev".into(), Value::from(rev));
        for (i, path) in chunk.iter().enumerate() {
            variables.insert(format!("e{i}"), Value::from(format!("{rev}:{path}")));
        }
        let data: RepoData = forge.repo_query(&document, repo, variables).await?;
        let mut fields = data.with_revision(repo, rev)?;
        for i in 0..chunk.len() {
            let blob = blob_of(&mut fields, &format!("f{i}"))?;
            out.push(blob.and_then(|b| b.text_within(max_bytes)));
        }
    }
    Ok(out)
}

#[derive(Deserialize)]
struct HistoryConnection {
    nodes: Vec<HistoryCommit>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryCommit {
    oid: String,
    message: String,
    #[serde(default, with = "crate::time::rfc3339_opt")]
    authored_date: Option<Timestamp>,
    #[serde(default)]
    author: Option<GitActor>,
}

#[derive(Deserialize)]
struct GitActor {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    user: Option<GqlUser>,
}

#[derive(Deserialize)]
struct GqlUser {
    login: String,
}

impl HistoryCommit {
    fn into_domain(self) -> CommitInfo {
        let (name, user) = match self.author {
            Some(a) => (a.name.unwrap_or_default(), a.user),
            None => (String::new(), None),
        };
        CommitInfo {
            sha: self.oid,
            message: self.message,
            // `user` is a `User`: a bot's commits have none, so no account here is a bot.
            author: user.map(|u| Actor {
                login: u.login,
                is_bot: false,
            }),
            author_name: name,
            authored_at: self.authored_date,
        }
    }
}

pub(crate) async fn recent_commits(
    forge: &GitHub,
    repo: &RepoRef,
    rev: &str,
    paths: &[String],
    per_path: usize,
) -> Result<Vec<Vec<CommitInfo>>> {
    check_rev(rev)?;
    for path in paths {
        check_path(path)?;
    }
    if per_path == 0 {
        return Ok(vec![Vec::new(); paths.len()]);
    }
    let n = per_path.min(MAX_HISTORY);
    let mut out = Vec::with_capacity(paths.len());
    for chunk in paths.chunks(queries::HISTORIES_PER_QUERY) {
        let document = queries::path_histories(chunk.len());
        let mut variables = Map::new();
        variables.insert("rev".into(), Value::from(rev));
        variables.insert("n".into(), json!(n));
        for (i, path) in chunk.iter().enumerate() {
            variables.insert(format!("p{i}"), Value::from(path.as_str()));
        }
        let data: RepoData = forge.repo_query(&document, repo, variables).await?;
        let fields = data.repository.ok_or_else(|| {
            Error::not_found(
                None,
                format!("the repository {} was not found", repo.full_name()),
            )
        })?;
        let mut commit = match fields.get("object") {
            Some(Value::Object(o)) if o.contains_key("h0") => o.clone(),
            _ => return Err(missing_revision(repo, rev)),
        };
        for i in 0..chunk.len() {
            let history: HistoryConnection = match commit.remove(&format!("h{i}")) {
                Some(v) => serde_json::from_value(v).map_err(|e| {
                    Error::invalid_body(format!(
                        "GitHub (GraphQL) answered a history it cannot read: {e}"
                    ))
                })?,
                None => HistoryConnection { nodes: Vec::new() },
            };
            out.push(
                history
                    .nodes
                    .into_iter()
                    .take(n)
                    .map(HistoryCommit::into_domain)
                    .collect(),
            );
        }
    }
    Ok(out)
}

#[derive(Deserialize)]
struct ClosedData {
    repository: Option<ClosedRepo>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClosedRepo {
    pull_requests: ClosedConnection,
}

#[derive(Deserialize)]
struct ClosedConnection {
    nodes: Vec<ClosedNode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClosedNode {
    number: u64,
    title: String,
    merged: bool,
    #[serde(default, with = "crate::time::rfc3339_opt")]
    closed_at: Option<Timestamp>,
    files: Option<PathConnection>,
}

#[derive(Deserialize)]
struct PathConnection {
    nodes: Vec<PathNode>,
}

#[derive(Deserialize)]
struct PathNode {
    path: String,
}

/// One GraphQL query: the `min(limit, 50)` most recently updated closed or merged pull
/// requests (updated, as GitHub orders them; a comment on an old one brings it forward).
pub(crate) async fn recent_closed_pulls(
    forge: &GitHub,
    repo: &RepoRef,
    limit: usize,
) -> Result<Vec<ClosedPull>> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let mut variables = Map::new();
    variables.insert("n".into(), json!(limit.min(MAX_CLOSED_PULLS)));
    let data: ClosedData = forge
        .repo_query(queries::RECENT_CLOSED_PULLS, repo, variables)
        .await?;
    let repository = data.repository.ok_or_else(|| {
        Error::not_found(
            None,
            format!("the repository {} was not found", repo.full_name()),
        )
    })?;
    Ok(repository
        .pull_requests
        .nodes
        .into_iter()
        .map(|p| ClosedPull {
            number: p.number,
            title: p.title,
            merged: p.merged,
            closed_at: p.closed_at,
            paths: p
                .files
                .map(|f| f.nodes.into_iter().map(|n| n.path).collect())
                .unwrap_or_default(),
        })
        .collect())
}

/// GitHub's code owners locations, in the order it looks.
const OWNERS_LOCATIONS: [(&str, &str); 3] = [
    ("github", ".github/CODEOWNERS"),
    ("root", "CODEOWNERS"),
    ("docs", "docs/CODEOWNERS"),
];

/// GitHub ignores a code owners file over 3 MB.
const OWNERS_MAX_BYTES: u64 = 3 * 1024 * 1024;

/// One GraphQL query for the three locations: the first that exists is the file GitHub uses
/// (a later one is not consulted even when the first cannot be read as text, as on GitHub,
/// which then has no owners).
pub(crate) async fn code_owners(
    forge: &GitHub,
    repo: &RepoRef,
    rev: &str,
) -> Result<Option<CodeOwnersFile>> {
    check_rev(rev)?;
    let mut variables = Map::new();
    variables.insert("rev".into(), Value::from(rev));
    for (alias, path) in OWNERS_LOCATIONS {
        variables.insert(alias.into(), Value::from(format!("{rev}:{path}")));
    }
    let data: RepoData = forge
        .repo_query(queries::CODE_OWNERS, repo, variables)
        .await?;
    let mut fields = data.with_revision(repo, rev)?;
    for (alias, path) in OWNERS_LOCATIONS {
        if let Some(blob) = blob_of(&mut fields, alias)? {
            return Ok(blob
                .text_within(OWNERS_MAX_BYTES)
                .map(|text| CodeOwnersFile {
                    path: path.to_owned(),
                    text,
                    syntax: OwnersSyntax::GitHub,
                }));
        }
    }
    Ok(None)
}
