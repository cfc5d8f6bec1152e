//! Predicting a restack: what replaying a branch's own commits onto a new base would do,
//! commit by commit as a rebase would, computed with `merge-tree --merge-base` and
//! `commit-tree` in a scratch object directory. Nothing is written to the repository.

use std::path::Path;

use crate::error::{Error, Result};
use crate::history::CommitInfo;
use crate::merge::{Merge, scratch_dir};
use crate::repo::Repository;
use crate::restack::RestackEngine;
use crate::runner::Version;

/// The most commits one prediction (or restack) replays.
pub const REPLAY_LIMIT: usize = 500;

/// A commit of a replay that does not apply cleanly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitConflict {
    pub commit: String,
    pub summary: String,
    /// The conflicted paths.
    pub files: Vec<String>,
}

/// What replaying `old_base..head` onto a new base would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayPrediction {
    /// The commits that would be replayed (merge commits, which a rebase drops, excluded).
    pub commits: usize,
    /// Every commit applies.
    pub clean: bool,
    /// The first commit that does not apply (a real rebase stops there), with its files;
    /// empty when clean.
    pub conflicts: Vec<CommitConflict>,
    /// The files that conflict when the whole range is applied as one change
    /// (`merge-tree --merge-base=<old_base> <new_base> <head>`): what is left to resolve if
    /// the branch were squashed first.
    pub final_conflicts: Vec<String>,
    /// The commits (old ids) whose change the new base already has: they become empty when
    /// replayed (cherry-picked to trunk, or part of a squash there), and a restack drops
    /// them. Only known when the replay is clean.
    pub emptied: Vec<String>,
}

/// The identity of scratch commits (never written to the repository; fixed so a prediction
/// needs no user configuration).
const SCRATCH_IDENTITY: &[(&str, &str)] = &[
    ("GIT_AUTHOR_NAME", "resolve-pr"),
    ("GIT_AUTHOR_EMAIL", "resolve-pr@localhost"),
    ("GIT_AUTHOR_DATE", "1700000000 +0000"),
    ("GIT_COMMITTER_NAME", "resolve-pr"),
    ("GIT_COMMITTER_EMAIL", "resolve-pr@localhost"),
    ("GIT_COMMITTER_DATE", "1700000000 +0000"),
];

impl Repository {
    /// `merge-tree --write-tree --merge-base=<base> <ours> <theirs>` (git 2.40 or later, else
    /// [`Error::GitTooOld`]), into a scratch object directory as [`Repository::merge_tree`].
    pub fn merge_tree_with_base(&self, base: &str, ours: &str, theirs: &str) -> Result<Merge> {
        self.git()
            .require(Version::MERGE_BASE, "merge-tree --merge-base")?;
        let base = self.resolve_commit(base)?;
        let ours = self.resolve_commit(ours)?;
        let theirs = self.resolve_commit(theirs)?;
        let scratch = scratch_dir()?;
        let outcome = self.merge_in(scratch.path(), Some(&base), &ours, &theirs)?;
        Ok(Merge::new(outcome, self, scratch))
    }

    /// What replaying `old_base..head` onto `new_base` would do, commit by commit: each
    /// commit merged with `merge-tree --merge-base=<commit^> <current> <commit>`, a clean
    /// result committed with `commit-tree` into the scratch store to be the next `current`.
    /// Merge commits in the range are skipped, as rebase does. More than [`REPLAY_LIMIT`]
    /// commits is a usage error. Writes nothing to the repository. With the `Replay`
    /// restack engine a clean range is confirmed by one `git replay` into the scratch store
    /// instead (the same merges, several times faster); a conflict is still located commit
    /// by commit.
    pub fn predict_replay(
        &self,
        new_base: &str,
        old_base: &str,
        head: &str,
    ) -> Result<ReplayPrediction> {
        self.git()
            .require(Version::MERGE_BASE, "merge-tree --merge-base")?;
        let new_base = self.resolve_commit(new_base)?;
        let old_base = self.resolve_commit(old_base)?;
        let head = self.resolve_commit(head)?;
        let (commits, has_merges) = self.replayable_commits(&old_base, &head)?;
        let scratch = scratch_dir()?;
        // `git replay` into the scratch store answers a clean replay in one process; a
        // conflict (or a range `git replay` cannot take) is found commit by commit.
        let fast = !commits.is_empty()
            && !has_merges
            && self.restack_engine() == RestackEngine::Replay
            && self.git().version() >= Version::REPLAY;
        let replayed_cleanly = if fast {
            self.git_replay(Some(scratch.path()), &new_base, &old_base, &head)?
        } else {
            None
        };
        let replayed = match replayed_cleanly {
            Some(new_head) => Ok(new_head),
            None => self.replay_in(scratch.path(), &new_base, &commits)?,
        };
        let (conflict, emptied) = match replayed {
            Ok(new_head) => (
                None,
                self.emptied(Some(scratch.path()), &new_base, &new_head, &commits)?,
            ),
            Err(conflict) => (Some(conflict), Vec::new()),
        };
        let whole = self.merge_in(scratch.path(), Some(&old_base), &new_base, &head)?;
        Ok(ReplayPrediction {
            commits: commits.len(),
            clean: conflict.is_none(),
            conflicts: conflict.into_iter().collect(),
            final_conflicts: whole.conflicts.into_iter().map(|f| f.path).collect(),
            emptied,
        })
    }

    /// What restacking a stack onto `new_base` would do, level by level as
    /// [`Repository::restack`] replays it: each level's own commits (`old_base..head`, its
    /// pair in `levels`, lowest first) onto the replayed level below it (the first onto
    /// `new_base`). A level whose parent was rewritten (it does not contain the head below
    /// it) is predicted as it will be replayed, not as one range from the bottom. Once a
    /// level stops at a conflict, every level above it reports that same conflict (a
    /// restack stops there too). `final_conflicts` of each level: its whole range applied
    /// onto the replayed level below as one change (onto `new_base` past a conflict). Writes
    /// nothing to the repository.
    pub fn predict_stack(
        &self,
        new_base: &str,
        levels: &[(String, String)],
    ) -> Result<Vec<ReplayPrediction>> {
        self.git()
            .require(Version::MERGE_BASE, "merge-tree --merge-base")?;
        let new_base = self.resolve_commit(new_base)?;
        let scratch = scratch_dir()?;
        let fast_engine = self.restack_engine() == RestackEngine::Replay
            && self.git().version() >= Version::REPLAY;
        let mut current = Some(new_base.clone());
        let mut stopped: Option<CommitConflict> = None;
        let mut predictions = Vec::with_capacity(levels.len());
        for (old_base, head) in levels {
            let old_base = self.resolve_commit(old_base)?;
            let head = self.resolve_commit(head)?;
            let (commits, has_merges) = self.replayable_commits(&old_base, &head)?;
            let onto = current.clone().unwrap_or_else(|| new_base.clone());
            let mut emptied = Vec::new();
            if let Some(at) = current.clone() {
                let at = &at;
                let replayed = if commits.is_empty() {
                    Some(at.clone())
                } else if fast_engine && !has_merges {
                    self.git_replay(Some(scratch.path()), at, &old_base, &head)?
                } else {
                    None
                };
                current = match replayed {
                    Some(new_head) => Some(new_head),
                    None => match self.replay_in(scratch.path(), at, &commits)? {
                        Ok(new_head) => Some(new_head),
                        Err(conflict) => {
                            stopped = Some(conflict);
                            None
                        }
                    },
                };
                if let Some(new_head) = &current {
                    emptied = self.emptied(Some(scratch.path()), at, new_head, &commits)?;
                }
            }
            let whole = self.merge_in(scratch.path(), Some(&old_base), &onto, &head)?;
            predictions.push(ReplayPrediction {
                commits: commits.len(),
                clean: stopped.is_none(),
                conflicts: stopped.iter().cloned().collect(),
                final_conflicts: whole.conflicts.into_iter().map(|f| f.path).collect(),
                emptied,
            });
        }
        Ok(predictions)
    }

    /// Of `commits` (oldest first), replayed one for one as `onto..new_head`, the ones that
    /// became empty: their replayed tree is their new parent's, though they changed something
    /// where they were (a commit empty from the start is kept, as a rebase keeps it). Both
    /// `git replay` and a replay commit by commit keep such commits; a restack drops them.
    /// Objects are read from `scratch` when given (with the repository's as alternates).
    pub(crate) fn emptied(
        &self,
        scratch: Option<&Path>,
        onto: &str,
        new_head: &str,
        commits: &[CommitInfo],
    ) -> Result<Vec<String>> {
        if commits.is_empty() || !commits.iter().any(|c| !c.files.is_empty()) {
            return Ok(Vec::new());
        }
        let exclude = format!("^{onto}");
        let tree = format!("{onto}^{{tree}}");
        let args = [
            "rev-list",
            "--reverse",
            "--topo-order",
            "--no-commit-header",
            "--format=%T",
            new_head,
            &exclude,
            "--",
        ];
        let (listed, onto_tree) = match scratch {
            Some(scratch) => (
                self.run_in_scratch(scratch, &args, &[], None, &[0])?,
                self.run_in_scratch(scratch, &["rev-parse", "--verify", &tree], &[], None, &[0])?,
            ),
            None => (
                self.run(args, &[], &[0])?,
                self.run(["rev-parse", "--verify", &tree], &[], &[0])?,
            ),
        };
        let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
        let trees: Vec<&str> = listed.lines().map(str::trim).collect();
        if trees.len() != commits.len() {
            return Err(Error::UnexpectedOutput {
                command: "rev-list --format=%T".to_string(),
                what: format!(
                    "{} replayed commits for {} replayed",
                    trees.len(),
                    commits.len()
                ),
            });
        }
        let onto_tree = String::from_utf8_lossy(&onto_tree.stdout)
            .trim()
            .to_string();
        let mut parent = onto_tree.as_str();
        let mut emptied = Vec::new();
        for (commit, tree) in commits.iter().zip(trees) {
            if tree == parent && !commit.files.is_empty() {
                emptied.push(commit.oid.clone());
            }
            parent = tree;
        }
        Ok(emptied)
    }

    /// The non-merge commits of `old_base..head`, oldest first, at most [`REPLAY_LIMIT`]
    /// (more is a usage error), and whether the range holds merge commits.
    pub(crate) fn replayable_commits(
        &self,
        old_base: &str,
        head: &str,
    ) -> Result<(Vec<CommitInfo>, bool)> {
        let (commits, total) = self.commits_between(old_base, head, REPLAY_LIMIT)?;
        if total > REPLAY_LIMIT {
            return Err(Error::usage(format!(
                "{old_base}..{head} has {total} commits; at most {REPLAY_LIMIT} are replayed"
            )));
        }
        let replayable: Vec<CommitInfo> = commits
            .into_iter()
            .filter(|c| c.parents.len() <= 1)
            .collect();
        let has_merges = replayable.len() != total;
        Ok((replayable, has_merges))
    }

    /// Replays `commits` onto `onto` in `scratch`: the last replayed commit, or the first
    /// commit that does not apply.
    pub(crate) fn replay_in(
        &self,
        scratch: &Path,
        onto: &str,
        commits: &[CommitInfo],
    ) -> Result<std::result::Result<String, CommitConflict>> {
        let mut current = onto.to_string();
        for commit in commits {
            // A root commit has no parent: its changes apply against an empty base, which
            // `--merge-base` cannot name; such a range is replayed against its own tree.
            let Some(parent) = commit.parents.first() else {
                return Err(Error::usage(format!(
                    "commit {} is a root commit; it cannot be replayed onto a base",
                    commit.oid
                )));
            };
            let outcome = self.merge_in(scratch, Some(parent), &current, &commit.oid)?;
            if !outcome.clean {
                return Ok(Err(CommitConflict {
                    commit: commit.oid.clone(),
                    summary: commit.summary.clone(),
                    files: outcome.conflicts.into_iter().map(|f| f.path).collect(),
                }));
            }
            current = self.scratch_commit(scratch, &outcome.tree, &current, &commit.message)?;
        }
        Ok(Ok(current))
    }

    /// `commit-tree <tree> -p <parent>` with `message` on stdin, into `scratch`.
    fn scratch_commit(
        &self,
        scratch: &Path,
        tree: &str,
        parent: &str,
        message: &str,
    ) -> Result<String> {
        let output = self.run_in_scratch(
            scratch,
            &["commit-tree", "-p", parent, "--end-of-options", tree],
            SCRATCH_IDENTITY,
            Some(message.as_bytes()),
            &[0],
        )?;
        let oid = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if oid.is_empty() {
            return Err(Error::UnexpectedOutput {
                command: "commit-tree".to_string(),
                what: "no commit id".to_string(),
            });
        }
        Ok(oid)
    }
}
