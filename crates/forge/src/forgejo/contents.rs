//! A Forgejo/Gitea pull request's files and commits (every page), file contents at a
//! revision (`raw/{path}?ref=`, read no further than the size asked), the recent history of
//! paths (`commits?path=`), recently closed pull requests and the code owners file. Paths
//! and revisions go into URLs percent-encoded, one path segment at a time.

use futures_util::{StreamExt, TryStreamExt, stream};
use resolve_pr_core::{PrRef, RepoRef};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::{FjUser, Forgejo, actor};
use crate::contents_input::{check_path, check_rev};
use crate::error::Transport;
use crate::http::{Located, Request};
use crate::repository::*;
use crate::time::Timestamp;
use crate::wording::{not_found_hint, subject};
use crate::{Error, Result};

/// Forgejo/Gitea's largest page (`MAX_RESPONSE_ITEMS`, 50 by default).
const PER_PAGE: usize = 50;
/// Requests this client keeps in flight for one call.
const CONCURRENCY: usize = 4;
/// No pull request has this many pages of files or commits.
const MAX_PAGES: usize = 1000;
/// `recent_closed_pulls` reads each pull request's files with one request or more, so it
/// reads at most this many pull requests.
pub(crate) const MAX_CLOSED_PULLS: usize = 20;
/// Paths a closed pull request reports, as on GitHub.
const MAX_CLOSED_PATHS: usize = 100;

impl Forgejo {
    fn contents_api(&self, repo: &RepoRef) -> String {
        format!("{}/repos/{}/{}", self.api(), repo.owner, repo.repo)
    }

    /// Every page of a list at `url` (which already has its query), `PER_PAGE` each, until
    /// the total (`x-total-count`) is reached or a page comes back short.
    async fn every_page<T: DeserializeOwned>(
        &self,
        url: &str,
        what: &str,
        hint: &str,
        max_items: usize,
    ) -> Result<Vec<T>> {
        let auth = self.auth()?;
        let mut all = Vec::new();
        for page in 1..=MAX_PAGES {
            let url = format!("{url}&limit={PER_PAGE}&page={page}");
            let request = Request::get(url, Some(auth), what).not_found_hint(hint);
            let response = self.http.send(&request).await?;
            // Go writes an empty list as `null`.
            let items: Option<Vec<T>> = response.json()?;
            let items = items.unwrap_or_default();
            let total = response
                .headers
                .get("x-total-count")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<usize>().ok());
            let got = items.len();
            all.extend(items);
            let more = match total {
                Some(total) => got > 0 && all.len() < total,
                None => got >= PER_PAGE,
            };
            if !more || all.len() >= max_items {
                all.truncate(max_items);
                return Ok(all);
            }
        }
        Err(crate::github::too_many_pages(what))
    }

    /// `{repo api}/{segments…}` with each path segment percent-encoded, then `query`.
    fn path_url(
        &self,
        repo: &RepoRef,
        route: &str,
        path: &str,
        query: &[(&str, &str)],
    ) -> Result<String> {
        let mut url = url::Url::parse(&format!("{}/{route}", self.contents_api(repo)))
            .map_err(|e| Error::usage(format!("cannot build a URL for {path:?}: {e}")))?;
        url.path_segments_mut()
            .map_err(|()| Error::usage(format!("cannot build a URL for {path:?}")))?
            .extend(path.split('/'));
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        Ok(url.to_string())
    }
}

fn query(pairs: &[(&str, &str)]) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.extend_pairs(pairs);
    query.finish()
}

#[derive(Deserialize)]
struct FjFile {
    filename: String,
    status: String,
    #[serde(default)]
    previous_filename: Option<String>,
    #[serde(default)]
    additions: u64,
    #[serde(default)]
    deletions: u64,
}

impl FjFile {
    fn into_domain(self) -> ChangedFile {
        // Gitea's names (ToChangedFile): added, deleted, renamed, copied, changed, unchanged.
        let status = match self.status.as_str() {
            "added" | "copied" => FileStatus::Added,
            "deleted" | "removed" => FileStatus::Deleted,
            "renamed" => FileStatus::Renamed,
            _ => FileStatus::Modified,
        };
        ChangedFile {
            path: self.filename,
            status,
            previous_path: self.previous_filename.filter(|p| !p.is_empty()),
            additions: self.additions,
            deletions: self.deletions,
            // The listing has no diff text.
            patch: None,
        }
    }
}

/// Every page of `pulls/{n}/files`, 50 a page. Forgejo/Gitea give no patch there.
/// The files listing has no diff text: the whole diff (`pulls/{n}.diff`, one request, read
/// up to [`DIFF_BYTES`]) gives each file its hunks. A diff that cannot be read or is larger
/// leaves the patches out rather than failing the listing.
pub(crate) async fn pull_files(
    forge: &Forgejo,
    pr: &PrRef,
    patches: bool,
) -> Result<Vec<ChangedFile>> {
    let url = format!(
        "{}/pulls/{}/files?",
        forge.contents_api(&pr.repo),
        pr.number
    );
    let what = format!("files of {}", subject(pr));
    let hint = not_found_hint(pr);
    let (files, diff) = tokio::join!(
        forge.every_page::<FjFile>(&url, &what, &hint, usize::MAX),
        async {
            if patches {
                pull_diff(forge, pr).await
            } else {
                Ok(None)
            }
        },
    );
    let mut files: Vec<ChangedFile> = files?.into_iter().map(FjFile::into_domain).collect();
    if let Ok(Some(diff)) = diff {
        let patches = split_git_diff(&diff);
        for f in &mut files {
            f.patch = patches
                .iter()
                .find(|(path, _)| *path == f.path)
                .and_then(|(_, patch)| patch.clone());
        }
    }
    Ok(files)
}

/// The most of a pull request's whole diff read for its patches.
const DIFF_BYTES: u64 = 16 * 1024 * 1024;

/// `pulls/{n}.diff`, or `None` when it is larger than [`DIFF_BYTES`].
async fn pull_diff(forge: &Forgejo, pr: &PrRef) -> Result<Option<String>> {
    let auth = forge.auth()?;
    let url = format!("{}/pulls/{}.diff", forge.contents_api(&pr.repo), pr.number);
    let what = format!("the diff of {}", subject(pr));
    let request = Request::get(url, Some(auth), &what);
    let mut response = match forge.http.locate(&request).await? {
        Located::Direct(response) => response,
        Located::Redirect(_) => return Ok(None),
    };
    if response.content_length().is_some_and(|n| n > DIFF_BYTES) {
        return Ok(None);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        let e = e.without_url();
        Error::transport(
            Transport::Broken,
            format!(
                "{} broke off while sending {what}: {}",
                forge.http.forge(),
                crate::http::error_chain(&e)
            ),
        )
        .caused_by(&e)
    })? {
        if (body.len() + chunk.len()) as u64 > DIFF_BYTES {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(String::from_utf8_lossy(&body).into_owned()))
}

/// Each file of a `git diff` text with its hunks (from the first `@@`, no final newline), by
/// its new path (the old one for a deleted file); `None` for a file without hunks (binary, a
/// pure rename, a mode change).
fn split_git_diff(diff: &str) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let mut header_path: Option<String> = None;
    let mut plus: Option<String> = None;
    let mut minus: Option<String> = None;
    let mut hunks: Option<String> = None;
    let mut flush = |header: &mut Option<String>,
                     plus: &mut Option<String>,
                     minus: &mut Option<String>,
                     hunks: &mut Option<String>| {
        let path = plus.take().or(minus.take()).or(header.take());
        if let Some(path) = path {
            let patch = hunks.take().map(|mut h| {
                if h.ends_with('\n') {
                    h.pop();
                }
                h
            });
            out.push((path, patch));
        }
        *header = None;
        *minus = None;
        *hunks = None;
    };
    for line in diff.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            flush(&mut header_path, &mut plus, &mut minus, &mut hunks);
            // `a/OLD b/NEW`: the new path, when it has no space to make this ambiguous.
            header_path = rest
                .trim_end_matches('\n')
                .rsplit_once(" b/")
                .map(|(_, new)| unquote(new));
            continue;
        }
        if let Some(h) = &mut hunks {
            h.push_str(line);
            continue;
        }
        let text = line.trim_end_matches('\n');
        // git ends a `---`/`+++` path that holds a space with a tab.
        let text = text.strip_suffix('\t').unwrap_or(text);
        if let Some(p) = text.strip_prefix("+++ ") {
            if p != "/dev/null" {
                plus = Some(unquote(p).trim_start_matches("b/").to_owned());
            }
        } else if let Some(p) = text.strip_prefix("--- ") {
            if p != "/dev/null" {
                minus = Some(unquote(p).trim_start_matches("a/").to_owned());
            }
        } else if let Some(p) = text.strip_prefix("rename to ") {
            plus = Some(unquote(p));
        } else if text.starts_with("@@") {
            hunks = Some(line.to_owned());
        }
    }
    flush(&mut header_path, &mut plus, &mut minus, &mut hunks);
    out
}

/// A path as git writes it: as is, or in double quotes with C escapes when it holds
/// special characters.
fn unquote(path: &str) -> String {
    let Some(inner) = path.strip_prefix('"').and_then(|p| p.strip_suffix('"')) else {
        return path.to_owned();
    };
    let mut bytes = Vec::new();
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = chars.peek() {
                        value = value * 8 + u32::from(n - b'0');
                        chars.next();
                    }
                }
                bytes.push(value as u8);
            }
            Some(other) => bytes.push(other),
            None => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[derive(Deserialize)]
struct FjCommit {
    sha: String,
    #[serde(default)]
    commit: Option<FjRepoCommit>,
    #[serde(default)]
    author: Option<FjUser>,
}

#[derive(Deserialize)]
struct FjRepoCommit {
    #[serde(default)]
    message: String,
    #[serde(default)]
    author: Option<FjCommitUser>,
}

#[derive(Deserialize)]
struct FjCommitUser {
    #[serde(default)]
    name: String,
    #[serde(default, with = "crate::time::rfc3339_opt")]
    date: Option<Timestamp>,
}

impl FjCommit {
    fn into_domain(self) -> CommitInfo {
        let (message, name, date) = match self.commit {
            Some(c) => {
                let (name, date) = c.author.map(|a| (a.name, a.date)).unwrap_or_default();
                (c.message, name, date)
            }
            None => Default::default(),
        };
        CommitInfo {
            sha: self.sha,
            message,
            // No account: the commit's email belongs to nobody on the instance.
            author: self.author.map(|u| actor(Some(u))),
            author_name: name,
            authored_at: date,
        }
    }
}

/// Every page of `pulls/{n}/commits` (without verification or file lists). Gitea lists them
/// as `git log` does, newest first; they are returned oldest first.
pub(crate) async fn pull_commits(forge: &Forgejo, pr: &PrRef) -> Result<Vec<CommitInfo>> {
    let url = format!(
        "{}/pulls/{}/commits?verification=false&files=false",
        forge.contents_api(&pr.repo),
        pr.number
    );
    let what = format!("commits of {}", subject(pr));
    let commits: Vec<FjCommit> = forge
        .every_page(&url, &what, &not_found_hint(pr), usize::MAX)
        .await?;
    Ok(commits
        .into_iter()
        .rev()
        .map(FjCommit::into_domain)
        .collect())
}

/// Git's test for a binary file: a NUL byte in the first 8,000 bytes. Text that is not UTF-8
/// cannot be returned as a `String` either.
fn text_of(bytes: Vec<u8>) -> Option<String> {
    if bytes.iter().take(8000).any(|&b| b == 0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// What `raw/{path}` gave.
enum Raw {
    Missing,
    /// There, but stored elsewhere (a redirect, such as LFS), binary, or over the size.
    Unusable,
    Text(String),
}

impl Raw {
    fn text(self) -> Option<String> {
        match self {
            Raw::Text(t) => Some(t),
            _ => None,
        }
    }
}

/// One file at `rev` through `raw/{path}?ref=`, its body read no further than `max_bytes`.
async fn raw_text(
    forge: &Forgejo,
    repo: &RepoRef,
    rev: &str,
    path: &str,
    max_bytes: u64,
) -> Result<Raw> {
    let auth = forge.auth()?;
    let url = forge.path_url(repo, "raw", path, &[("ref", rev)])?;
    let what = format!("{path} at {rev} in {}", repo.full_name());
    let request = Request::get(url, Some(auth), &what);
    let mut response = match forge.http.locate(&request).await {
        Ok(Located::Direct(response)) => response,
        Ok(Located::Redirect(_)) => return Ok(Raw::Unusable),
        Err(Error::NotFound { .. }) => return Ok(Raw::Missing),
        Err(e) => return Err(e),
    };
    if response.content_length().is_some_and(|n| n > max_bytes) {
        return Ok(Raw::Unusable);
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if (body.len() + chunk.len()) as u64 > max_bytes {
                    return Ok(Raw::Unusable);
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                let e = e.without_url();
                return Err(Error::transport(
                    Transport::Broken,
                    format!(
                        "{} broke off while sending {what}: {}",
                        forge.http.forge(),
                        crate::http::error_chain(&e)
                    ),
                )
                .caused_by(&e));
            }
        }
    }
    Ok(text_of(body).map_or(Raw::Unusable, Raw::Text))
}

/// Checks that `rev` exists (one commit listed from it); a 404 becomes a clear error.
async fn check_revision_exists(forge: &Forgejo, repo: &RepoRef, rev: &str) -> Result<()> {
    let auth = forge.auth()?;
    let url = format!(
        "{}/commits?{}",
        forge.contents_api(repo),
        query(&[
            ("sha", rev),
            ("limit", "1"),
            ("stat", "false"),
            ("verification", "false"),
            ("files", "false"),
        ])
    );
    let what = format!("the revision {rev} of {}", repo.full_name());
    match forge.http.send(&Request::get(url, Some(auth), &what)).await {
        Ok(_) => Ok(()),
        Err(Error::NotFound { .. }) => Err(Error::not_found(
            Some(404),
            format!(
                "the revision {rev} does not exist in {}, or the token cannot see the repository",
                repo.full_name()
            ),
        )
        .with_detail("rev", rev)
        .with_suggestion(
            "Pass a commit id of the repository, such as the pull request's head, and check \
             that the token can read the repository.",
        )),
        Err(e) => Err(e),
    }
}

/// `raw/{path}?ref={rev}` for each path, 4 at a time. Every path missing may mean the
/// revision or the repository is: then one more request tells them apart.
pub(crate) async fn file_texts(
    forge: &Forgejo,
    repo: &RepoRef,
    rev: &str,
    paths: &[String],
    max_bytes: u64,
) -> Result<Vec<Option<String>>> {
    check_rev(rev)?;
    for path in paths {
        check_path(path)?;
    }
    // Indices, not `&String` items: a closure over borrowed items is not general enough for
    // the `Send` future async_trait needs.
    let found: Vec<Raw> = stream::iter(0..paths.len())
        .map(|i| raw_text(forge, repo, rev, &paths[i], max_bytes))
        .buffered(CONCURRENCY)
        .try_collect()
        .await?;
    if !found.is_empty() && found.iter().all(|r| matches!(r, Raw::Missing)) {
        check_revision_exists(forge, repo, rev).await?;
    }
    Ok(found.into_iter().map(Raw::text).collect())
}

/// `commits?sha={rev}&path={path}&limit={n}` (no stats, verification or files) for each
/// path, 4 at a time; at most 50 commits a path (one page).
pub(crate) async fn recent_commits(
    forge: &Forgejo,
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
    let auth = forge.auth()?;
    let limit = per_path.min(PER_PAGE).to_string();
    let repo_api = forge.contents_api(repo);
    let hint = format!(
        "Check that the repository {} exists, that the token can see it, and that {rev} is one of its commits.",
        repo.full_name()
    );
    stream::iter(0..paths.len())
        .map(|i| {
            let path = &paths[i];
            let url = format!(
                "{repo_api}/commits?{}",
                query(&[
                    ("sha", rev),
                    ("path", path),
                    ("limit", &limit),
                    ("stat", "false"),
                    ("verification", "false"),
                    ("files", "false"),
                ])
            );
            let what = format!("the commits that changed {path} at {rev}");
            let hint = &hint;
            async move {
                let response = forge
                    .http
                    .send(&Request::get(url, Some(auth), &what).not_found_hint(hint))
                    .await?;
                let commits: Option<Vec<FjCommit>> = response.json()?;
                Ok(commits
                    .unwrap_or_default()
                    .into_iter()
                    .take(per_path)
                    .map(FjCommit::into_domain)
                    .collect())
            }
        })
        .buffered(CONCURRENCY)
        .try_collect()
        .await
}

#[derive(Deserialize)]
struct FjClosedPull {
    number: u64,
    #[serde(default)]
    title: String,
    #[serde(default)]
    merged: bool,
    #[serde(default, with = "crate::time::rfc3339_opt")]
    closed_at: Option<Timestamp>,
}

/// The closed pull requests most recently updated (one page of `min(limit, 20)`), then
/// each one's files (4 at a time, the first 100 paths). Bounded to 20 because every pull
/// request costs a request or more here, where GitHub answers the whole list in one query.
pub(crate) async fn recent_closed_pulls(
    forge: &Forgejo,
    repo: &RepoRef,
    limit: usize,
) -> Result<Vec<ClosedPull>> {
    let limit = limit.min(MAX_CLOSED_PULLS);
    if limit == 0 {
        return Ok(Vec::new());
    }
    let auth = forge.auth()?;
    let url = format!(
        "{}/pulls?{}",
        forge.contents_api(repo),
        query(&[
            ("state", "closed"),
            ("sort", "recentupdate"),
            ("limit", &limit.to_string()),
            ("page", "1"),
        ])
    );
    let what = format!("closed pull requests of {}", repo.full_name());
    let hint = format!(
        "Check that the repository {} exists and that the token can see it.",
        repo.full_name()
    );
    let response = forge
        .http
        .send(&Request::get(url, Some(auth), &what).not_found_hint(&hint))
        .await?;
    let pulls: Option<Vec<FjClosedPull>> = response.json()?;
    let mut pulls = pulls.unwrap_or_default();
    pulls.truncate(limit);
    stream::iter(pulls)
        .map(|p| {
            let url = format!("{}/pulls/{}/files?", forge.contents_api(repo), p.number);
            let pr = PrRef {
                repo: repo.clone(),
                number: p.number,
            };
            async move {
                let what = format!("files of {}", subject(&pr));
                let files: Vec<FjFile> = forge
                    .every_page(&url, &what, &not_found_hint(&pr), MAX_CLOSED_PATHS)
                    .await?;
                Ok(ClosedPull {
                    number: p.number,
                    title: p.title,
                    merged: p.merged,
                    closed_at: p.closed_at,
                    paths: files.into_iter().map(|f| f.filename).collect(),
                })
            }
        })
        .buffered(CONCURRENCY)
        .try_collect()
        .await
}

/// Where Gitea and Forgejo look for a code owners file, in their order (Gitea's
/// documentation: "./CODEOWNERS", "./docs/CODEOWNERS", "./.gitea/CODEOWNERS").
const OWNERS_LOCATIONS: [&str; 3] = ["CODEOWNERS", "docs/CODEOWNERS", ".gitea/CODEOWNERS"];

/// A code owners file larger than this is not read (this client's bound).
const OWNERS_MAX_BYTES: u64 = 1024 * 1024;

/// The three locations read one after another, stopping at the first that exists (as Gitea
/// does: a later one is not consulted when the first cannot be read as text).
pub(crate) async fn code_owners(
    forge: &Forgejo,
    repo: &RepoRef,
    rev: &str,
) -> Result<Option<CodeOwnersFile>> {
    check_rev(rev)?;
    for path in OWNERS_LOCATIONS {
        match raw_text(forge, repo, rev, path, OWNERS_MAX_BYTES).await? {
            Raw::Missing => continue,
            Raw::Unusable => return Ok(None),
            Raw::Text(text) => {
                return Ok(Some(CodeOwnersFile {
                    path: path.to_owned(),
                    text,
                    syntax: OwnersSyntax::Gitea,
                }));
            }
        }
    }
    check_revision_exists(forge, repo, rev).await?;
    Ok(None)
}

#[cfg(test)]
mod diff_tests {
    use super::*;
    use std::process::Command;

    /// A repository with an added, a modified, a deleted, a renamed and a binary file and a
    /// path git quotes, and `git diff` of its two commits as Forgejo serves it.
    fn real_diff() -> String {
        let dir = std::env::temp_dir().join(format!("fj-diff-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .args(args)
                .current_dir(&dir)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_AUTHOR_NAME", "A")
                .env("GIT_AUTHOR_EMAIL", "a@example.com")
                .env("GIT_COMMITTER_NAME", "A")
                .env("GIT_COMMITTER_EMAIL", "a@example.com")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        };
        git(&["init", "-q"]);
        std::fs::write(dir.join("keep.rs"), "fn a() {}\nfn b() {}\n").unwrap();
        std::fs::write(dir.join("gone.txt"), "bye\n").unwrap();
        std::fs::write(dir.join("old name.md"), "one\ntwo\nthree\nfour\nfive\n").unwrap();
        std::fs::write(dir.join("logo.bin"), [0u8, 1, 2, 3]).unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-qm", "base"]);
        std::fs::write(dir.join("keep.rs"), "fn a() {}\nfn b(x: u8) {}\n").unwrap();
        std::fs::remove_file(dir.join("gone.txt")).unwrap();
        std::fs::rename(dir.join("old name.md"), dir.join("new name.md")).unwrap();
        std::fs::write(dir.join("new name.md"), "one\ntwo\nthree\nfour\nfive!\n").unwrap();
        std::fs::write(dir.join("logo.bin"), [0u8, 9, 9, 9]).unwrap();
        std::fs::write(dir.join("tab\there.txt"), "new\n").unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-qm", "head"]);
        let diff = git(&["diff", "-M", "HEAD~1", "HEAD"]);
        let _ = std::fs::remove_dir_all(&dir);
        diff
    }

    #[test]
    fn every_file_of_a_real_diff_gets_its_own_hunks() {
        let files = split_git_diff(&real_diff());
        let find = |p: &str| {
            files
                .iter()
                .find(|(path, _)| path == p)
                .unwrap_or_else(|| panic!("{p}: {files:?}"))
                .1
                .clone()
        };
        let keep = find("keep.rs").unwrap();
        assert!(keep.starts_with("@@ -1,2 +1,2 @@"), "{keep}");
        assert!(keep.ends_with("+fn b(x: u8) {}"), "{keep}");
        assert_eq!(find("gone.txt").unwrap(), "@@ -1 +0,0 @@\n-bye");
        assert!(find("new name.md").unwrap().contains("+five!"));
        assert_eq!(find("logo.bin"), None, "binary: no hunks");
        assert_eq!(find("tab\there.txt").unwrap(), "@@ -0,0 +1 @@\n+new");
        assert_eq!(files.len(), 5, "{files:?}");
    }

    #[test]
    fn quoted_paths_are_unescaped() {
        assert_eq!(unquote("plain/path.rs"), "plain/path.rs");
        assert_eq!(unquote("\"b/tab\\there\""), "b/tab\there");
        assert_eq!(unquote("\"caf\\303\\251.txt\""), "café.txt");
        assert_eq!(unquote("\"q\\\"uote\""), "q\"uote");
    }
}
