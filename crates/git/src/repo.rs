//! The repository enclosing a directory, and its remotes.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::remote::{RemoteUrl, redacted};
use crate::restack::RestackEngine;
use crate::runner::{Git, Version};

/// A repository on disk, found from a directory inside it.
#[derive(Debug, Clone)]
pub struct Repository {
    git: Git,
    /// The top of the worktree; `None` for a bare repository.
    workdir: Option<PathBuf>,
    /// This worktree's git directory (absolute).
    git_dir: PathBuf,
    /// The object store, shared by every worktree (absolute).
    objects_dir: PathBuf,
    shallow: bool,
    /// How [`Repository::restack`] replays commits; `None`: chosen by git's version.
    engine: Option<RestackEngine>,
    /// Full object ids already seen to name commits here (objects never change), shared by
    /// the clones of this value: a call resolves each commit once, not at every step.
    known_commits: std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
}

/// A configured remote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    pub name: String,
    /// The fetch URL after git's `url.*.insteadOf` rewriting, with any password or token in
    /// it replaced by `***`.
    pub url: String,
    /// The forge repository it points to, when it points to one.
    pub parsed: Option<RemoteUrl>,
}

impl Repository {
    /// The repository enclosing `dir`, as git finds it (walking up to the first one).
    pub fn discover(git: &Git, dir: &Path) -> Result<Repository> {
        if !dir.is_dir() {
            return Err(Error::NotARepository {
                dir: dir.to_path_buf(),
            });
        }
        // One process when `dir` is in a worktree; a bare repository (or a git directory)
        // has no top level, which takes a second.
        let with_top = [
            "rev-parse",
            "--path-format=absolute",
            "--is-bare-repository",
            "--is-shallow-repository",
            "--git-dir",
            "--git-path",
            "objects",
            "--show-toplevel",
        ];
        let args = &with_top[..7];
        let not_a_repository = |stderr: &str| stderr.contains("not a git repository");
        let output = match git.run(dir, with_top, &[], &[0, 128]) {
            Ok(output) if output.status.success() => output,
            Ok(output) => {
                let stderr = String::from_utf8_lossy(&output.stderr);
                if not_a_repository(&stderr) {
                    return Err(Error::NotARepository {
                        dir: dir.to_path_buf(),
                    });
                }
                match git.run(dir, args, &[], &[0]) {
                    Ok(output) => output,
                    Err(Error::Failed {
                        status: Some(128),
                        stderr,
                        ..
                    }) if not_a_repository(&stderr) => {
                        return Err(Error::NotARepository {
                            dir: dir.to_path_buf(),
                        });
                    }
                    Err(error) => return Err(error),
                }
            }
            Err(error) => return Err(error),
        };
        let unexpected = |what: &str| Error::UnexpectedOutput {
            command: args.join(" "),
            what: what.to_string(),
        };
        let text =
            String::from_utf8(output.stdout).map_err(|_| unexpected("paths that are not UTF-8"))?;
        let lines: Vec<&str> = text.lines().collect();
        let (bare, shallow, git_dir, objects, top) = match lines[..] {
            [bare, shallow, git_dir, objects] => (bare, shallow, git_dir, objects, None),
            [bare, shallow, git_dir, objects, top] => (bare, shallow, git_dir, objects, Some(top)),
            _ => return Err(unexpected("not four lines (a path with a newline in it?)")),
        };
        let workdir = match (bare, top) {
            ("true", _) => None,
            (_, Some(top)) => Some(PathBuf::from(top)),
            (_, None) => {
                let output = git.run(dir, ["rev-parse", "--show-toplevel"], &[], &[0])?;
                let top = String::from_utf8(output.stdout)
                    .map_err(|_| unexpected("a worktree path that is not UTF-8"))?;
                Some(PathBuf::from(top.strip_suffix('\n').unwrap_or(&top)))
            }
        };
        let objects_dir = PathBuf::from(objects);
        // A partial clone's reads may fetch what it lacks from its promisor remote: then
        // every command is watched as a network one.
        let git = if has_promisor_pack(&objects_dir) {
            git.fetching_lazily()
        } else {
            git.clone()
        };
        Ok(Repository {
            git,
            workdir,
            git_dir: PathBuf::from(git_dir),
            objects_dir,
            shallow: shallow == "true",
            engine: None,
            known_commits: Default::default(),
        })
    }

    pub fn git(&self) -> &Git {
        &self.git
    }

    pub fn workdir(&self) -> Option<&Path> {
        self.workdir.as_deref()
    }

    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    pub fn objects_dir(&self) -> &Path {
        &self.objects_dir
    }

    /// A shallow clone may lack the merge base; a caller deepens it before merging.
    pub fn is_shallow(&self) -> bool {
        self.shallow
    }

    /// This repository, restacking with `engine` instead of the one git's version picks.
    pub fn with_restack_engine(mut self, engine: RestackEngine) -> Repository {
        self.engine = Some(engine);
        self
    }

    /// How [`Repository::restack`] replays commits: the engine set with
    /// [`Repository::with_restack_engine`], else `git replay` with git 2.44 or later and
    /// `git rebase` in a temporary worktree before.
    pub fn restack_engine(&self) -> RestackEngine {
        self.engine
            .unwrap_or(if self.git.version() >= Version::REPLAY {
                RestackEngine::Replay
            } else {
                RestackEngine::Rebase
            })
    }

    /// The directory git commands run in.
    pub(crate) fn dir(&self) -> &Path {
        self.workdir.as_deref().unwrap_or(&self.git_dir)
    }

    /// Runs git in this repository.
    pub(crate) fn run<I, S>(
        &self,
        args: I,
        env: &[(&str, &OsStr)],
        ok_statuses: &[i32],
    ) -> Result<std::process::Output>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.git.run(self.dir(), args, env, ok_statuses)
    }

    /// The remotes, by name, each with its fetch URL (one `git remote -v`: URLs as git
    /// rewrites them with `url.*.insteadOf`).
    pub fn remotes(&self) -> Result<Vec<Remote>> {
        let output = self.run(["remote", "-v"], &[], &[0])?;
        let listing = String::from_utf8_lossy(&output.stdout).into_owned();
        let mut remotes: Vec<Remote> = Vec::new();
        for line in listing.lines() {
            // `<name>\t<url> (fetch)`; a remote's name has no tab, its URL may have spaces.
            let Some((name, rest)) = line.split_once('\t') else {
                continue;
            };
            let Some(url) = rest.strip_suffix(" (fetch)") else {
                continue;
            };
            if name.is_empty() || remotes.iter().any(|r| r.name == name) {
                continue;
            }
            remotes.push(Remote {
                name: name.to_string(),
                parsed: RemoteUrl::parse(url),
                url: redacted(url),
            });
        }
        remotes.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(remotes)
    }

    /// The remote of the forge repository `owner/repo` on `host`, if one is configured.
    /// When several point there, `origin` wins, then the first by name.
    pub fn matching_remote(&self, host: &str, owner: &str, repo: &str) -> Result<Option<Remote>> {
        Ok(pick_remote(self.remotes()?, host, owner, repo))
    }

    /// The commit a revision names, as a full object id; [`Error::BadRevision`] when it names
    /// none. The revision is never read as an option (`-x` is a revision here).
    pub fn resolve_commit(&self, revision: &str) -> Result<String> {
        if self.is_known_commit(revision) {
            return Ok(revision.to_string());
        }
        let spec = format!("{revision}^{{commit}}");
        let output = self.run(
            [
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ],
            &[],
            &[0, 1, 128],
        )?;
        let oid = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if !output.status.success() || oid.is_empty() {
            return Err(Error::BadRevision {
                revision: revision.to_string(),
            });
        }
        self.remember_commit(&oid);
        Ok(oid)
    }

    /// Whether `oid` is a full object id seen to name a commit of this repository.
    pub(crate) fn is_known_commit(&self, oid: &str) -> bool {
        is_full_oid(oid)
            && self
                .known_commits
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(oid)
    }

    /// Remembers that the full object id `oid` names a commit here.
    pub(crate) fn remember_commit(&self, oid: &str) {
        if is_full_oid(oid) {
            self.known_commits
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(oid.to_ascii_lowercase());
        }
    }

    /// Which of `oids` (full object ids) name commits present in this repository, in one
    /// `git cat-file --batch-check`, never fetching lazily; a string that is no full id is
    /// absent.
    pub fn have_commits(&self, oids: &[&str]) -> Result<Vec<bool>> {
        let mut present: Vec<bool> = oids.iter().map(|o| self.is_known_commit(o)).collect();
        let asked: Vec<&str> = oids
            .iter()
            .zip(&present)
            .filter(|(o, known)| !**known && is_full_oid(o))
            .map(|(o, _)| *o)
            .collect();
        if asked.is_empty() {
            return Ok(present);
        }
        let input: String = asked.iter().map(|o| format!("{o}\n")).collect();
        let no_lazy_fetch = [("GIT_NO_LAZY_FETCH", OsStr::new("1"))];
        let output = self.git.run_with_input(
            self.dir(),
            ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
            &no_lazy_fetch,
            Some(input.as_bytes()),
            &[0],
        )?;
        let answers = String::from_utf8_lossy(&output.stdout).into_owned();
        for line in answers.lines() {
            if let Some(oid) = line.strip_suffix(" commit") {
                self.remember_commit(oid);
            }
        }
        for (slot, oid) in present.iter_mut().zip(oids) {
            *slot = *slot || self.is_known_commit(oid);
        }
        Ok(present)
    }
}

/// A full object id (SHA-1 or SHA-256), lower-case hex.
fn is_full_oid(oid: &str) -> bool {
    (oid.len() == 40 || oid.len() == 64)
        && oid
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether the object store holds a pack fetched from a promisor remote (`pack-*.promisor`):
/// the mark of a partial clone, read without running git.
fn has_promisor_pack(objects: &Path) -> bool {
    std::fs::read_dir(objects.join("pack")).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "promisor"))
    })
}

/// See [`Repository::matching_remote`].
pub fn pick_remote(remotes: Vec<Remote>, host: &str, owner: &str, repo: &str) -> Option<Remote> {
    let mut matching: Vec<Remote> = remotes
        .into_iter()
        .filter(|r| r.parsed.as_ref().is_some_and(|u| u.is(host, owner, repo)))
        .collect();
    matching.sort_by(|a, b| (a.name != "origin", &a.name).cmp(&(b.name != "origin", &b.name)));
    matching.into_iter().next()
}
