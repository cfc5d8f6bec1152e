//! Repository contents: the files of each commit, the commits that changed each path, a pull
//! request's changed files (unified diffs computed from its base and head trees, so a
//! scenario states contents once) and its commits. Served on GitHub REST
//! (`pulls/{n}/files`, `pulls/{n}/commits`), GitHub GraphQL (see `graphql_contents.rs`) and
//! Forgejo/Gitea REST (`pulls/{n}/files`, `pulls/{n}/commits`, `raw/{path}`, `commits`).

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::scenario::{PullSpec, RepoSpec};
use crate::server::{Reply, Request};
use crate::state::{User, World, normalize_time};

/// A repository's files and history (scenario `contents:` of a repository).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentsSpec {
    /// The files of each commit, by commit id. A pull request's changed files are the
    /// difference between the trees of its `base.sha` and `head.sha`.
    #[serde(default)]
    pub trees: BTreeMap<String, TreeSpec>,
    /// Commits with the paths they changed. A commit with `pull` is one of that pull
    /// request's commits (listed in order, oldest first); the others are the history of the
    /// default branch. History of a path at a revision: the latter, plus the pull request's
    /// own when the revision is an open pull request's head, newest first by `authored_at`.
    #[serde(default)]
    pub commits: Vec<CommitSpec>,
}

/// The files of one commit: those of `based_on` (another tree) with `files` added or
/// replaced and `removed` taken away. `renamed` maps a new path to the old one, so the
/// pull request listing reports a rename.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeSpec {
    #[serde(default)]
    pub based_on: Option<String>,
    #[serde(default)]
    pub files: BTreeMap<String, FileSpec>,
    #[serde(default)]
    pub removed: Vec<String>,
    #[serde(default)]
    pub renamed: BTreeMap<String, String>,
}

/// A file's content: text, `{lines: N, line: "text {n}"}` (N generated lines, `{n}` the
/// 1-based number), or `{binary: N}` (N bytes that are not text).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FileSpec {
    Text(String),
    Lines { lines: u64, line: String },
    Binary { binary: u64 },
}

impl FileSpec {
    fn blob(&self) -> Blob {
        match self {
            FileSpec::Text(t) => Blob {
                bytes: t.clone().into_bytes(),
                binary: false,
            },
            FileSpec::Lines { lines, line } => {
                let mut text = String::new();
                for n in 1..=*lines {
                    text.push_str(&line.replace("{n}", &n.to_string()));
                    text.push('\n');
                }
                Blob {
                    bytes: text.into_bytes(),
                    binary: false,
                }
            }
            FileSpec::Binary { binary } => Blob {
                // A PNG signature then zeros: not text by any test a forge uses.
                bytes: b"\x89PNG\r\n\x1a\n"
                    .iter()
                    .copied()
                    .chain(std::iter::repeat(0u8))
                    .take(*binary as usize)
                    .collect(),
                binary: true,
            },
        }
    }
}

/// A commit and the paths it changed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommitSpec {
    pub sha: String,
    pub message: String,
    /// The forge account the commit is linked to; `None`: an email no account has.
    #[serde(default)]
    pub author: Option<String>,
    /// The name in the commit; default: the account's name, else its login.
    #[serde(default)]
    pub author_name: Option<String>,
    pub authored_at: String,
    #[serde(default)]
    pub paths: Vec<String>,
    /// The pull request whose commit this is.
    #[serde(default)]
    pub pull: Option<u64>,
}

/// A file as stored.
#[derive(Debug, Clone)]
pub(crate) struct Blob {
    pub bytes: Vec<u8>,
    pub binary: bool,
}

impl Blob {
    pub fn text(&self) -> Option<&str> {
        if self.binary {
            return None;
        }
        std::str::from_utf8(&self.bytes).ok()
    }

    /// A made-up but stable object id.
    pub fn oid(&self) -> String {
        fake_sha(&self.bytes)
    }
}

pub(crate) fn fake_sha(bytes: &[u8]) -> String {
    let mut out = String::new();
    for salt in 0u8..3 {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        bytes.hash(&mut h);
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out.truncate(40);
    out
}

fn contents(spec: &RepoSpec) -> Option<&ContentsSpec> {
    spec.contents.as_ref()
}

/// The files of commit `sha`, `None` when the scenario gives it no tree.
pub(crate) fn tree(spec: &RepoSpec, sha: &str) -> Option<BTreeMap<String, Blob>> {
    let trees = &contents(spec)?.trees;
    let mut chain = Vec::new();
    let mut at = trees.get(sha)?;
    chain.push(at);
    while let Some(parent) = &at.based_on {
        // A cycle in `based_on` is a scenario mistake; stop rather than loop.
        if chain.len() > 64 {
            break;
        }
        match trees.get(parent) {
            Some(t) => {
                at = t;
                chain.push(t);
            }
            None => break,
        }
    }
    let mut files = BTreeMap::new();
    for t in chain.iter().rev() {
        for path in &t.removed {
            files.remove(path);
        }
        for old in t.renamed.values() {
            files.remove(old);
        }
        for (path, file) in &t.files {
            files.insert(path.clone(), file.blob());
        }
    }
    Some(files)
}

/// A commit id for `rev`: a commit with a tree or in the history, or a branch's commit.
pub(crate) fn resolve_rev(world: &World, r: usize, rev: &str) -> Option<String> {
    let spec = &world.repos[r].spec;
    if let Some(c) = contents(spec)
        && (c.trees.contains_key(rev) || c.commits.iter().any(|k| k.sha == rev))
    {
        return Some(rev.to_owned());
    }
    world.branch_sha(r, rev)
}

/// One file of a pull request's diff.
#[derive(Debug, Clone)]
pub(crate) struct FileChange {
    pub path: String,
    pub previous: Option<String>,
    /// GitHub's names: added, removed, modified, renamed.
    pub status: &'static str,
    pub additions: u64,
    pub deletions: u64,
    /// Hunks from the first `@@`; `None` for a binary file.
    pub patch: Option<String>,
    pub oid: String,
}

/// The files a pull request changes, by path: the diff of its base and head trees, or, for a
/// pull request without trees, its `changed_paths` (modified, no counts, no patch).
pub(crate) fn pull_changes(spec: &RepoSpec, p: &PullSpec) -> Vec<FileChange> {
    let (Some(old), Some(new)) = (tree(spec, &p.base.sha), tree(spec, &p.head.sha)) else {
        // In path order, as git lists a diff.
        let mut paths: Vec<&String> = p.changed_paths.iter().collect();
        paths.sort();
        return paths
            .into_iter()
            .map(|path| FileChange {
                path: path.clone(),
                previous: None,
                status: "modified",
                additions: 0,
                deletions: 0,
                patch: None,
                oid: fake_sha(path.as_bytes()),
            })
            .collect();
    };
    let renames: BTreeMap<String, String> = contents(spec)
        .and_then(|c| c.trees.get(&p.head.sha))
        .map(|t| t.renamed.clone())
        .unwrap_or_default();
    let renamed_from: Vec<&String> = renames.values().collect();
    let mut changes = Vec::new();
    for (path, blob) in &new {
        let previous = renames
            .get(path)
            .filter(|o| old.contains_key(*o) && !new.contains_key(*o));
        let before = match previous {
            Some(o) => old.get(o),
            None => old.get(path),
        };
        let status = match (before, previous) {
            (None, _) => "added",
            (Some(_), Some(_)) => "renamed",
            (Some(b), None) if b.bytes == blob.bytes => continue,
            (Some(_), None) => "modified",
        };
        changes.push(change(path, previous.cloned(), status, before, Some(blob)));
    }
    for (path, blob) in &old {
        if !new.contains_key(path) && !renamed_from.contains(&path) {
            changes.push(change(path, None, "removed", Some(blob), None));
        }
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    changes
}

fn change(
    path: &str,
    previous: Option<String>,
    status: &'static str,
    before: Option<&Blob>,
    after: Option<&Blob>,
) -> FileChange {
    fn text(b: Option<&Blob>) -> Option<&str> {
        match b {
            None => Some(""),
            Some(b) => b.text(),
        }
    }
    let oid = after.or(before).map(Blob::oid).unwrap_or_default();
    let (additions, deletions, patch) = match (text(before), text(after)) {
        (Some(old), Some(new)) => diff(old, new),
        _ => (0, 0, None),
    };
    FileChange {
        path: path.to_owned(),
        previous,
        status,
        additions,
        deletions,
        patch,
        oid,
    }
}

/// Lines added and removed, and the unified diff's hunks (3 lines of context), as git
/// writes them; `None` when nothing differs (a pure rename).
fn diff(old: &str, new: &str) -> (u64, u64, Option<String>) {
    let diff = similar::TextDiff::from_lines(old, new);
    let (mut additions, mut deletions) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => additions += 1,
            similar::ChangeTag::Delete => deletions += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let mut patch = diff.unified_diff().context_radius(3).to_string();
    if patch.ends_with('\n') {
        patch.pop();
    }
    (additions, deletions, (!patch.is_empty()).then_some(patch))
}

/// A pull request's commits, oldest first.
pub(crate) fn pull_commits(spec: &RepoSpec, number: u64) -> Vec<&CommitSpec> {
    contents(spec)
        .map(|c| {
            c.commits
                .iter()
                .filter(|k| k.pull == Some(number))
                .collect()
        })
        .unwrap_or_default()
}

/// The commits on `rev` that changed `path` (every commit when `path` is `None`), newest
/// first.
pub(crate) fn history<'s>(
    spec: &'s RepoSpec,
    rev: &str,
    path: Option<&str>,
) -> Vec<&'s CommitSpec> {
    let Some(c) = contents(spec) else {
        return Vec::new();
    };
    let own_pull = spec
        .pulls
        .iter()
        .find(|p| p.head.sha == rev && p.state == crate::scenario::PullState::Open)
        .map(|p| p.number);
    let mut found: Vec<&CommitSpec> = c
        .commits
        .iter()
        .filter(|k| k.pull.is_none() || k.pull == own_pull)
        .filter(|k| {
            path.is_none_or(|p| {
                k.paths
                    .iter()
                    .any(|q| q == p || q.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
            })
        })
        .collect();
    found.sort_by_key(|k| std::cmp::Reverse(normalize_time(&k.authored_at)));
    found
}

/// The commit's author name and account.
pub(crate) fn author_of(world: &World, k: &CommitSpec) -> (String, Option<User>) {
    let user = k.author.as_deref().map(|l| world.user_or_ghost(l));
    let name = k
        .author_name
        .clone()
        .or_else(|| user.as_ref().and_then(|u| u.name.clone()))
        .or_else(|| user.as_ref().map(|u| u.login.clone()))
        .unwrap_or_else(|| "Unknown".to_owned());
    (name, user)
}

fn email_of(name: &str, user: Option<&User>) -> String {
    match user {
        Some(u) => u
            .email
            .clone()
            .unwrap_or_else(|| format!("{}@users.noreply.example", u.login)),
        None => {
            let local: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
            format!("{}@example.invalid", local.trim_matches('-'))
        }
    }
}

/// `%XX` decoded (invalid escapes kept as written).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

// ---------------------------------------------------------------------------------------
// GitHub REST

/// GitHub lists at most this many files of a pull request, and this many commits.
const GITHUB_MAX_FILES: usize = 3000;
const GITHUB_MAX_COMMITS: usize = 250;

/// GitHub's contents routes under `/repos/{owner}/{repo}/…`; `None` when the path is not one
/// (`rest` are the segments after owner and repo).
pub(crate) fn github_route(
    base: &str,
    world: &World,
    req: &Request,
    r: usize,
    rest: &[&str],
) -> Option<Reply> {
    if req.method != "GET" {
        return None;
    }
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let pull = |n: &str| {
        let n = n.parse::<u64>().ok()?;
        spec.pulls.iter().find(|p| p.number == n)
    };
    match rest {
        ["pulls", n, "files"] => Some(match pull(n) {
            Some(p) => {
                let items: Vec<Value> = pull_changes(spec, p)
                    .into_iter()
                    .take(GITHUB_MAX_FILES)
                    .map(|c| github_file_json(base, &full, &p.head.sha, c))
                    .collect();
                crate::github::paged(base, world, req, r, &format!("pulls/{n}/files"), items)
            }
            None => crate::github::error(404, "Not Found"),
        }),
        ["pulls", n, "commits"] => Some(match pull(n) {
            Some(p) => {
                let items: Vec<Value> = pull_commits(spec, p.number)
                    .into_iter()
                    .take(GITHUB_MAX_COMMITS)
                    .map(|k| github_commit_json(base, world, &full, k))
                    .collect();
                crate::github::paged(base, world, req, r, &format!("pulls/{n}/commits"), items)
            }
            None => crate::github::error(404, "Not Found"),
        }),
        _ => None,
    }
}

fn github_file_json(base: &str, full: &str, head: &str, c: FileChange) -> Value {
    let encoded: String = c
        .path
        .split('/')
        .map(|s| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>())
        .collect::<Vec<_>>()
        .join("/");
    let mut v = json!({
        "sha": c.oid,
        "filename": c.path,
        "status": c.status,
        "additions": c.additions,
        "deletions": c.deletions,
        "changes": c.additions + c.deletions,
        "blob_url": format!("{base}/{full}/blob/{head}/{encoded}"),
        "raw_url": format!("{base}/{full}/raw/{head}/{encoded}"),
        "contents_url": format!("{base}/repos/{full}/contents/{encoded}?ref={head}"),
    });
    if let Some(patch) = c.patch {
        v["patch"] = Value::from(patch);
    }
    if let Some(previous) = c.previous {
        v["previous_filename"] = Value::from(previous);
    }
    v
}

fn github_commit_json(base: &str, world: &World, full: &str, k: &CommitSpec) -> Value {
    let (name, user) = author_of(world, k);
    let email = email_of(&name, user.as_ref());
    let date = normalize_time(&k.authored_at);
    let git_user = json!({"name": name, "email": email, "date": date});
    let account = user
        .as_ref()
        .map(|u| crate::github::user_json(base, u))
        .unwrap_or(Value::Null);
    let api = format!("{base}/repos/{full}");
    json!({
        "url": format!("{api}/commits/{}", k.sha),
        "sha": k.sha,
        "node_id": format!("C_{}", k.sha),
        "html_url": format!("{base}/{full}/commit/{}", k.sha),
        "comments_url": format!("{api}/commits/{}/comments", k.sha),
        "commit": {
            "url": format!("{api}/git/commits/{}", k.sha),
            "author": git_user,
            "committer": git_user,
            "message": k.message,
            "comment_count": 0,
            "tree": {"sha": fake_sha(k.sha.as_bytes()), "url": format!("{api}/git/trees/{}", fake_sha(k.sha.as_bytes()))},
        },
        "author": account,
        "committer": account,
        "parents": [],
    })
}

// ---------------------------------------------------------------------------------------
// Forgejo/Gitea REST

/// The contents routes served, as the instance's `/swagger.v1.json` lists them.
pub(crate) const FORGEJO_ROUTES: [(&str, &str); 4] = [
    (
        "/repos/{owner}/{repo}/pulls/{index}/files",
        "Get changed files for a pull request",
    ),
    (
        "/repos/{owner}/{repo}/pulls/{index}/commits",
        "Get commits for a pull request",
    ),
    (
        "/repos/{owner}/{repo}/raw/{filepath}",
        "Get a file from a repository",
    ),
    (
        "/repos/{owner}/{repo}/commits",
        "Get a list of all commits from a repository",
    ),
];

fn forgejo_not_found(base: &str) -> Reply {
    Reply::json(
        404,
        json!({"errors": null, "message": "The target couldn't be found.", "url": format!("{base}/api/swagger")}),
    )
}

/// Forgejo/Gitea's contents routes under `/repos/{owner}/{repo}/…` (`rest` after owner and
/// repo); `None` when the path is not one.
pub(crate) fn forgejo_route(
    base: &str,
    world: &World,
    req: &Request,
    r: usize,
    rest: &[&str],
) -> Option<Reply> {
    if req.method != "GET" {
        return None;
    }
    let spec = &world.repos[r].spec;
    let full = format!("{}/{}", spec.owner, spec.name);
    let pull = |n: &str| {
        let n = n.parse::<u64>().ok()?;
        spec.pulls.iter().find(|p| p.number == n)
    };
    match rest {
        ["pulls", n, "files"] => Some(match pull(n) {
            Some(p) => {
                let items: Vec<Value> = pull_changes(spec, p)
                    .into_iter()
                    .map(|c| forgejo_file_json(base, &full, &p.head.sha, c))
                    .collect();
                crate::forgejo::paged(items, req)
            }
            None => forgejo_not_found(base),
        }),
        // The whole diff as `git diff` prints it (Forgejo's files listing has no patches).
        ["pulls", file] if file.ends_with(".diff") => {
            Some(match pull(file.trim_end_matches(".diff")) {
                Some(p) => Reply {
                    status: 200,
                    headers: Vec::new(),
                    body: crate::server::ReplyBody::Raw {
                        content_type: "text/plain; charset=utf-8",
                        bytes: git_diff_text(&pull_changes(spec, p)).into_bytes().into(),
                    },
                    // Text, not JSON: nothing to check against a schema.
                    checked: false,
                },
                None => forgejo_not_found(base),
            })
        }
        ["pulls", n, "commits"] => Some(match pull(n) {
            Some(p) => {
                // Gitea lists them as `git log base..head` does: newest first.
                let items: Vec<Value> = pull_commits(spec, p.number)
                    .into_iter()
                    .rev()
                    .map(|k| forgejo_commit_json(base, world, &full, k))
                    .collect();
                crate::forgejo::paged(items, req)
            }
            None => forgejo_not_found(base),
        }),
        ["commits"] => {
            let rev = req
                .query_param("sha")
                .unwrap_or_else(|| spec.default_branch.clone());
            let Some(sha) = resolve_rev(world, r, &rev) else {
                return Some(forgejo_not_found(base));
            };
            let path = req.query_param("path").filter(|p| !p.is_empty());
            let items: Vec<Value> = history(spec, &sha, path.as_deref())
                .into_iter()
                .map(|k| forgejo_commit_json(base, world, &full, k))
                .collect();
            Some(crate::forgejo::paged(items, req))
        }
        ["raw", path @ ..] if !path.is_empty() => {
            let path = path
                .iter()
                .map(|s| percent_decode(s))
                .collect::<Vec<_>>()
                .join("/");
            let rev = req
                .query_param("ref")
                .unwrap_or_else(|| spec.default_branch.clone());
            let blob = resolve_rev(world, r, &rev)
                .and_then(|sha| tree(spec, &sha))
                .and_then(|mut t| t.remove(&path));
            Some(match blob {
                Some(b) => Reply {
                    status: 200,
                    headers: Vec::new(),
                    body: crate::server::ReplyBody::Raw {
                        content_type: if b.binary {
                            "application/octet-stream"
                        } else {
                            "text/plain; charset=utf-8"
                        },
                        bytes: b.bytes.into(),
                    },
                    // A file's bytes, not JSON: nothing to check against a schema.
                    checked: false,
                },
                None => forgejo_not_found(base),
            })
        }
        _ => None,
    }
}

fn forgejo_file_json(base: &str, full: &str, head: &str, c: FileChange) -> Value {
    // Gitea's names (services/convert ToChangedFile): a modified file is "changed".
    let status = match c.status {
        "removed" => "deleted",
        "modified" => "changed",
        other => other,
    };
    let mut v = json!({
        "filename": c.path,
        "status": status,
        "additions": c.additions,
        "deletions": c.deletions,
        "changes": c.additions + c.deletions,
        "html_url": format!("{base}/{full}/src/commit/{head}/{}", c.path),
        "contents_url": format!("{base}/api/v1/repos/{full}/contents/{}?ref={head}", c.path),
        "raw_url": format!("{base}/{full}/raw/commit/{head}/{}", c.path),
    });
    if let Some(previous) = c.previous {
        v["previous_filename"] = Value::from(previous);
    }
    v
}

fn forgejo_commit_json(base: &str, world: &World, full: &str, k: &CommitSpec) -> Value {
    let (name, user) = author_of(world, k);
    let email = email_of(&name, user.as_ref());
    let date = normalize_time(&k.authored_at);
    let git_user = json!({"name": name, "email": email, "date": date});
    let account = user
        .as_ref()
        .map(|u| crate::forgejo::user_json(base, u))
        .unwrap_or(Value::Null);
    let api = format!("{base}/api/v1/repos/{full}");
    json!({
        "url": format!("{api}/git/commits/{}", k.sha),
        "sha": k.sha,
        "html_url": format!("{base}/{full}/commit/{}", k.sha),
        "created": date,
        "commit": {
            "url": format!("{api}/git/commits/{}", k.sha),
            "author": git_user,
            "committer": git_user,
            "message": k.message,
            "tree": {"sha": fake_sha(k.sha.as_bytes()), "url": format!("{api}/git/trees/{}", fake_sha(k.sha.as_bytes())), "created": date},
        },
        "author": account,
        "committer": account,
        "parents": [],
    })
}

/// A pull request's changes as one `git diff` text: a `diff --git` header per file, the
/// mode lines of added and deleted files, rename lines, `---`/`+++`, then the hunks; a
/// binary file says so instead.
pub(crate) fn git_diff_text(changes: &[FileChange]) -> String {
    let mut out = String::new();
    for c in changes {
        let old = c.previous.as_deref().unwrap_or(&c.path);
        out.push_str(&format!("diff --git a/{old} b/{}\n", c.path));
        match c.status {
            "added" => out.push_str("new file mode 100644\n"),
            "removed" => out.push_str("deleted file mode 100644\n"),
            "renamed" => {
                out.push_str(&format!(
                    "similarity index 90%\nrename from {old}\nrename to {}\n",
                    c.path
                ));
            }
            _ => {}
        }
        match &c.patch {
            Some(patch) => {
                let minus = if c.status == "added" {
                    "/dev/null".to_owned()
                } else {
                    format!("a/{old}")
                };
                let plus = if c.status == "removed" {
                    "/dev/null".to_owned()
                } else {
                    format!("b/{}", c.path)
                };
                out.push_str(&format!("--- {minus}\n+++ {plus}\n{patch}\n"));
            }
            None if c.additions + c.deletions > 0 || c.status != "renamed" => {
                out.push_str(&format!("Binary files a/{old} and b/{} differ\n", c.path));
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_count_lines_and_keep_hunks_only() {
        let (add, del, patch) = diff("a\nb\nc\n", "a\nB\nc\nd\n");
        assert_eq!((add, del), (2, 1));
        let patch = patch.unwrap();
        assert!(patch.starts_with("@@ -1,3 +1,4 @@"), "{patch}");
        assert!(patch.contains("-b\n+B\n"), "{patch}");
        assert_eq!(diff("same\n", "same\n"), (0, 0, None));
    }

    #[test]
    fn generated_and_binary_files() {
        let lines = FileSpec::Lines {
            lines: 3,
            line: "x {n}".into(),
        }
        .blob();
        assert_eq!(lines.text(), Some("x 1\nx 2\nx 3\n"));
        let bin = FileSpec::Binary { binary: 20 }.blob();
        assert_eq!(bin.bytes.len(), 20);
        assert_eq!(bin.text(), None);
    }
}
