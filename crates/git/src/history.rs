//! Reading history: commits, merge bases, ancestry, diff sizes, the current branch and refs.
//! Nothing here writes to the repository. Output is read in git's NUL-separated forms
//! (`-z`, `%x00` in formats), so messages and paths may hold any other byte.

use crate::error::{Error, Result};
use crate::repo::Repository;

/// A commit, as `git log` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub oid: String,
    /// The first line of the message.
    pub summary: String,
    /// The whole message.
    pub message: String,
    pub author_name: String,
    pub author_email: String,
    /// Strict ISO 8601 (`%aI`): `2026-01-01T00:00:00+00:00`.
    pub author_date: String,
    pub parents: Vec<String>,
    /// Paths changed against the first parent (both sides of a rename; every path of a root
    /// commit), in git's order.
    pub files: Vec<String>,
}

/// The size of a diff: the paths it touches (a rename is one path, its new name) and the
/// lines added and removed (a binary file counts 0 and 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffStat {
    pub files: Vec<String>,
    pub additions: u64,
    pub deletions: u64,
}

/// `git log` options that make its output independent of the user's configuration.
const LOG_PLAIN: &[&str] = &[
    "--encoding=UTF-8",
    "--no-show-signature",
    "--no-color",
    "--no-mailmap",
    "--no-ext-diff",
    "--no-textconv",
    "--no-renames",
    "--root",
];

fn is_hex_oid(text: &str) -> bool {
    (text.len() == 40 || text.len() == 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Repository {
    /// Whether the object store holds the commit `oid` (a full or abbreviated hex id; any
    /// other string is `false`, never an error and never a revision to resolve). In a
    /// partial clone a missing commit is not fetched to answer (`GIT_NO_LAZY_FETCH`).
    pub fn has_commit(&self, oid: &str) -> Result<bool> {
        if oid.len() < 4 || oid.len() > 64 || !oid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(false);
        }
        let spec = format!("{oid}^{{commit}}");
        let no_lazy_fetch = [("GIT_NO_LAZY_FETCH", std::ffi::OsStr::new("1"))];
        if self.is_known_commit(oid) {
            return Ok(true);
        }
        let output = self.run(["cat-file", "-e", &spec], &no_lazy_fetch, &[0, 1, 128])?;
        if output.status.success() {
            self.remember_commit(oid);
        }
        Ok(output.status.success())
    }

    /// The best common ancestor of `a` and `b`; `None` when their histories are unrelated.
    /// In a shallow clone a missing base may be history cut off: [`Error::Shallow`].
    pub fn merge_base(&self, a: &str, b: &str) -> Result<Option<String>> {
        let a = self.resolve_commit(a)?;
        let b = self.resolve_commit(b)?;
        let output = self.run(["merge-base", "--end-of-options", &a, &b], &[], &[0, 1])?;
        let oid = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if output.status.success() && is_hex_oid(&oid) {
            return Ok(Some(oid));
        }
        if self.is_shallow() {
            return Err(Error::Shallow {
                what: format!("find the merge base of {a} and {b}"),
            });
        }
        Ok(None)
    }

    /// Every best common ancestor of the commits `a` and `b` (`git merge-base --all`),
    /// empty when their histories are unrelated; [`Error::BadRevision`] when one is not a
    /// commit of this repository (never fetched lazily: the caller fetches what is missing).
    /// One process, which also tells the caller both commits are here.
    pub fn merge_bases(&self, a: &str, b: &str) -> Result<Vec<String>> {
        for revision in [a, b] {
            if !is_hex_oid(revision) && !self.is_known_commit(revision) {
                // Not an object id: resolved (and checked) first.
                self.resolve_commit(revision)?;
            }
        }
        let (a, b) = (self.resolve_known(a)?, self.resolve_known(b)?);
        let no_lazy_fetch = [("GIT_NO_LAZY_FETCH", std::ffi::OsStr::new("1"))];
        let output = self.run(
            ["merge-base", "--all", "--end-of-options", &a, &b],
            &no_lazy_fetch,
            &[0, 1, 128],
        )?;
        if output.status.code() == Some(128) {
            let missing = [&a, &b]
                .into_iter()
                .find(|oid| !self.has_commit(oid).unwrap_or(false))
                .cloned();
            return Err(match missing {
                Some(revision) => Error::BadRevision { revision },
                None => Error::Failed {
                    command: format!("merge-base --all {a} {b}"),
                    status: Some(128),
                    stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
                },
            });
        }
        self.remember_commit(&a);
        self.remember_commit(&b);
        let bases: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|l| is_hex_oid(l))
            .map(str::to_string)
            .collect();
        if bases.is_empty() && self.is_shallow() {
            return Err(Error::Shallow {
                what: format!("find the merge base of {a} and {b}"),
            });
        }
        Ok(bases)
    }

    /// A revision that is a known commit or an object id as is; anything else resolved.
    fn resolve_known(&self, revision: &str) -> Result<String> {
        if self.is_known_commit(revision) || is_hex_oid(revision) {
            Ok(revision.to_ascii_lowercase())
        } else {
            self.resolve_commit(revision)
        }
    }

    /// Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor).
    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> Result<bool> {
        let ancestor = self.resolve_commit(ancestor)?;
        let descendant = self.resolve_commit(descendant)?;
        let output = self.run(
            [
                "merge-base",
                "--is-ancestor",
                "--end-of-options",
                &ancestor,
                &descendant,
            ],
            &[],
            &[0, 1],
        )?;
        Ok(output.status.success())
    }

    /// The commits of `from..to` (reachable from `to`, not from `from`), oldest first: the
    /// oldest `limit` of them, and how many there are in all.
    pub fn commits_between(
        &self,
        from: &str,
        to: &str,
        limit: usize,
    ) -> Result<(Vec<CommitInfo>, usize)> {
        let oids = self.range_oids(from, to)?;
        let total = oids.len();
        let chosen = &oids[..total.min(limit)];
        if chosen.is_empty() {
            return Ok((Vec::new(), total));
        }
        let input = chosen.join("\n") + "\n";
        let mut commits = self.describe_commits(input.as_bytes())?;
        let files = self.changed_files(input.as_bytes())?;
        for commit in &mut commits {
            commit.files = files
                .iter()
                .find(|(oid, _)| *oid == commit.oid)
                .map(|(_, files)| files.clone())
                .unwrap_or_default();
        }
        if commits.len() != chosen.len() {
            return Err(Error::UnexpectedOutput {
                command: "log --no-walk=unsorted --stdin".to_string(),
                what: format!("{} commits for {} asked", commits.len(), chosen.len()),
            });
        }
        Ok((commits, total))
    }

    /// The oids of `from..to`, oldest first (topological, as a rebase replays them).
    pub(crate) fn range_oids(&self, from: &str, to: &str) -> Result<Vec<String>> {
        let from = self.resolve_commit(from)?;
        let to = self.resolve_commit(to)?;
        let exclude = format!("^{from}");
        let output = self.run(
            [
                "rev-list",
                "--reverse",
                "--topo-order",
                "--end-of-options",
                &to,
                &exclude,
            ],
            &[],
            &[0],
        )?;
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_string)
            .collect())
    }

    /// Metadata of the commits whose oids are the lines of `input`, in that order.
    fn describe_commits(&self, input: &[u8]) -> Result<Vec<CommitInfo>> {
        const FIELDS: usize = 6;
        let mut args = vec!["log", "--no-walk=unsorted", "--stdin", "-z"];
        args.extend_from_slice(LOG_PLAIN);
        args.push("--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%B");
        let output = self
            .git()
            .run_with_input(self.dir(), &args, &[], Some(input), &[0])?;
        let unexpected = |what: String| Error::UnexpectedOutput {
            command: args.join(" "),
            what,
        };
        let text = String::from_utf8_lossy(&output.stdout);
        let text = text.strip_suffix('\0').unwrap_or(&text);
        if text.is_empty() {
            return Ok(Vec::new());
        }
        let fields: Vec<&str> = text.split('\0').collect();
        if !fields.len().is_multiple_of(FIELDS) {
            return Err(unexpected(format!(
                "{} fields, not a multiple of {FIELDS}",
                fields.len()
            )));
        }
        fields
            .chunks(FIELDS)
            .map(|record| {
                let [oid, parents, name, email, date, message] = record else {
                    unreachable!("chunks of FIELDS")
                };
                if !is_hex_oid(oid) {
                    return Err(unexpected(format!("{oid:?} is not a commit id")));
                }
                let message = message.strip_suffix('\n').unwrap_or(message);
                Ok(CommitInfo {
                    oid: oid.to_string(),
                    summary: message.lines().next().unwrap_or("").to_string(),
                    message: message.to_string(),
                    author_name: name.to_string(),
                    author_email: email.to_string(),
                    author_date: date.to_string(),
                    parents: parents.split_whitespace().map(str::to_string).collect(),
                    files: Vec::new(),
                })
            })
            .collect()
    }

    /// The paths each commit (the lines of `input`) changed against its first parent:
    /// `log --name-only -z` with records that start with an empty field (`%x00%H`) — a path
    /// is never empty — and the first path of each after a newline git puts there.
    fn changed_files(&self, input: &[u8]) -> Result<Vec<(String, Vec<String>)>> {
        let mut args = vec![
            "log",
            "--no-walk=unsorted",
            "--stdin",
            "-z",
            "--name-only",
            "--diff-merges=first-parent",
        ];
        args.extend_from_slice(LOG_PLAIN);
        args.push("--format=%x00%H");
        let output = self
            .git()
            .run_with_input(self.dir(), &args, &[], Some(input), &[0])?;
        let mut records: Vec<(String, Vec<String>)> = Vec::new();
        let mut fields = output.stdout.split(|&b| b == 0).peekable();
        while let Some(field) = fields.next() {
            if !field.is_empty() {
                return Err(Error::UnexpectedOutput {
                    command: args.join(" "),
                    what: "a record that does not start with an empty field".to_string(),
                });
            }
            let Some(oid) = fields.next() else { break };
            if oid.is_empty() {
                // The trailing field after the last record.
                break;
            }
            let oid = String::from_utf8_lossy(oid).into_owned();
            let mut files = Vec::new();
            while let Some(path) = fields.next_if(|f| !f.is_empty()) {
                let path = if files.is_empty() {
                    path.strip_prefix(b"\n").unwrap_or(path)
                } else {
                    path
                };
                files.push(String::from_utf8_lossy(path).into_owned());
            }
            records.push((oid, files));
        }
        Ok(records)
    }

    /// The size of the diff from `from` to `to` (`diff --numstat -z -M`).
    pub fn diff_stat(&self, from: &str, to: &str) -> Result<DiffStat> {
        let from = self.resolve_commit(from)?;
        let to = self.resolve_commit(to)?;
        let args = [
            "diff",
            "--numstat",
            "-z",
            "-M",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            "--end-of-options",
            &from,
            &to,
            "--",
        ];
        let output = self.run(args, &[], &[0])?;
        parse_numstat(&output.stdout).map_err(|what| Error::UnexpectedOutput {
            command: args.join(" "),
            what,
        })
    }

    /// The short name of the branch HEAD is on; `None` when HEAD is detached or the branch
    /// has no commit yet.
    pub fn current_branch(&self) -> Result<Option<String>> {
        let output = self.run(["symbolic-ref", "--quiet", "HEAD"], &[], &[0, 1])?;
        if !output.status.success() {
            return Ok(None);
        }
        let full = String::from_utf8_lossy(&output.stdout).trim().to_string();
        let Some(short) = full.strip_prefix("refs/heads/") else {
            return Ok(None);
        };
        if self.read_ref(&full)?.is_none() {
            return Ok(None);
        }
        Ok(Some(short.to_string()))
    }

    /// Deletes a ref this crate wrote (under `refs/resolve-pr/`), if it exists: a fetched
    /// branch that is gone from the remote must not be read at its old value.
    pub fn delete_ref(&self, name: &str) -> Result<()> {
        if !name.starts_with(crate::fetch::REF_NAMESPACE) {
            return Err(Error::usage(format!(
                "{name:?} is not a ref of refs/resolve-pr/: only those are deleted"
            )));
        }
        self.run(
            ["update-ref", "-d", "--no-deref", "--end-of-options", name],
            &[],
            &[0],
        )?;
        Ok(())
    }

    /// Every ref under `prefix` (of `refs/resolve-pr/`, ending in `/`) with the object it
    /// points to, in one `git for-each-ref`.
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, String)>> {
        if !prefix.starts_with(crate::fetch::REF_NAMESPACE) || !prefix.ends_with('/') {
            return Err(Error::usage(format!(
                "{prefix:?} is not a folder of refs/resolve-pr/"
            )));
        }
        let output = self.run(
            [
                "for-each-ref",
                "--format=%(objectname) %(refname)",
                "--end-of-options",
                prefix,
            ],
            &[],
            &[0],
        )?;
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(oid, name)| (name.to_string(), oid.to_string()))
            .collect())
    }

    /// Deletes the refs `names` (each under `refs/resolve-pr/`) in one `git update-ref
    /// --stdin`; a ref already gone is no error.
    pub fn delete_refs(&self, names: &[String]) -> Result<()> {
        if names.is_empty() {
            return Ok(());
        }
        let mut input = Vec::new();
        for name in names {
            if !name.starts_with(crate::fetch::REF_NAMESPACE) || name.contains('\0') {
                return Err(Error::usage(format!(
                    "{name:?} is not a ref of refs/resolve-pr/: only those are deleted"
                )));
            }
            input.extend_from_slice(b"delete ");
            input.extend_from_slice(name.as_bytes());
            input.push(0);
            input.push(0);
        }
        self.git().run_with_input(
            self.dir(),
            ["update-ref", "--no-deref", "--stdin", "-z"],
            &[],
            Some(&input),
            &[0],
        )?;
        Ok(())
    }

    /// The object a full ref name (`refs/heads/main`) points to; `None` when there is no such
    /// ref. Only names under `refs/` (or `HEAD`) are looked up, exactly (no DWIM).
    pub fn read_ref(&self, name: &str) -> Result<Option<String>> {
        if !(name == "HEAD" || name.starts_with("refs/")) {
            return Err(Error::usage(format!(
                "{name:?} is not a full ref name (refs/...)"
            )));
        }
        let output = self.run(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", name],
            &[],
            &[0, 1, 128],
        )?;
        let oid = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if !output.status.success() || !is_hex_oid(&oid) {
            return Ok(None);
        }
        // `rev-parse` would also take an abbreviated name; make sure this ref exists as named.
        let shown = self.run(
            ["show-ref", "--verify", "--quiet", "--end-of-options", name],
            &[],
            &[0, 1, 128],
        )?;
        if name != "HEAD" && !shown.status.success() {
            return Ok(None);
        }
        Ok(Some(oid))
    }
}

/// `--numstat -z`: `<add>\t<del>\t<path>\0`, or for a rename `<add>\t<del>\t\0<old>\0<new>\0`;
/// `-` counts for binary files.
fn parse_numstat(stdout: &[u8]) -> std::result::Result<DiffStat, String> {
    let mut stat = DiffStat {
        files: Vec::new(),
        additions: 0,
        deletions: 0,
    };
    let mut fields = stdout.split(|&b| b == 0);
    while let Some(field) = fields.next() {
        if field.is_empty() {
            continue;
        }
        let text = String::from_utf8_lossy(field);
        let mut parts = text.splitn(3, '\t');
        let (Some(add), Some(del), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("numstat record {text:?} has no two tabs"));
        };
        let count = |n: &str| -> std::result::Result<u64, String> {
            if n == "-" {
                Ok(0)
            } else {
                n.parse().map_err(|_| format!("{n:?} is not a line count"))
            }
        };
        stat.additions += count(add)?;
        stat.deletions += count(del)?;
        let path = if path.is_empty() {
            let _old = fields.next().ok_or("rename without its old path")?;
            let new = fields
                .next()
                .filter(|p| !p.is_empty())
                .ok_or("rename without its new path")?;
            String::from_utf8_lossy(new).into_owned()
        } else {
            path.to_string()
        };
        stat.files.push(path);
    }
    Ok(stat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numstat_with_renames_binaries_and_odd_paths() {
        let raw = b"1\t2\ta\tb\0-\t-\timg.png\x000\t0\t\0old name\0new\nname\0";
        let stat = parse_numstat(raw).unwrap();
        assert_eq!(stat.files, ["a\tb", "img.png", "new\nname"]);
        assert_eq!((stat.additions, stat.deletions), (1, 2));
        assert_eq!(parse_numstat(b"").unwrap().files.len(), 0);
        assert!(parse_numstat(b"x\0").is_err());
        assert!(parse_numstat(b"1\tx\tp\0").is_err());
        assert!(parse_numstat(b"1\t1\t\0old\0").is_err());
    }
}
