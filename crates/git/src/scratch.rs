//! Scratch directories (object stores of merges and predictions, the side repositories a
//! restack replays in) that no kill can leave behind for good: each holds an owner file its
//! process keeps locked (`flock`) while it lives, and the first scratch a process makes
//! sweeps away every earlier one whose owner is gone, even by `kill -9` (the kernel drops
//! a dead process's locks). A directory is never swept while its owner lives.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, SystemTime};

use rustix::fs::{FlockOperation, flock};

use crate::error::{Error, Result};

/// Every scratch directory's name starts with this.
pub(crate) const PREFIX: &str = "resolve-pr-";

/// The owner file in each scratch directory, locked by its process while it lives.
const OWNER: &str = ".resolve-pr-owner";

/// What earlier versions left without an owner file: the restack's registered worktrees
/// (`resolve-pr-restack-*`), and scratch directories made before owner files existed.
/// Swept once older than this, so a directory being made right now (its owner file not yet
/// in place) is never taken for one.
const UNOWNED_AGE: Duration = Duration::from_secs(15 * 60);

/// A scratch directory under the system's temporary directory, removed on drop.
#[derive(Debug)]
pub(crate) struct Scratch {
    // Field order: the directory goes before its lock is released.
    dir: tempfile::TempDir,
    _owner: File,
}

impl Scratch {
    /// A new scratch directory named `resolve-pr-<kind>-…`, its owner file locked.
    pub(crate) fn new(kind: &str) -> Result<Scratch> {
        static SWEEP: Once = Once::new();
        SWEEP.call_once(|| {
            sweep_stale(&std::env::temp_dir());
        });
        let io = |what: &str| {
            let what = what.to_string();
            move |source| Error::Io { what, source }
        };
        let dir = tempfile::Builder::new()
            .prefix(&format!("{PREFIX}{kind}-"))
            .tempdir()
            .map_err(io("creating a scratch directory"))?;
        // Locked before it gets the name a sweep looks for: a sweep never sees it unlocked.
        let pending = dir.path().join(".resolve-pr-owner.new");
        let owner = File::create(&pending).map_err(io("creating a scratch owner file"))?;
        flock(&owner, FlockOperation::NonBlockingLockExclusive).map_err(|e| Error::Io {
            what: "locking a scratch owner file".to_string(),
            source: e.into(),
        })?;
        std::fs::rename(&pending, dir.path().join(OWNER))
            .map_err(io("naming a scratch owner file"))?;
        Ok(Scratch { dir, _owner: owner })
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Removes the scratch directories in `parent` whose owner is gone: an owner file nobody
/// holds locked, or (from earlier versions) no owner file and older than a quarter hour.
/// Returns how many were removed. Never fails: what cannot be read or removed stays.
pub fn sweep_stale(parent: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.starts_with(PREFIX) {
            continue;
        }
        // Not a symbolic link to elsewhere, and ours to remove.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if !kind.is_dir() {
            continue;
        }
        let path = entry.path();
        match File::open(path.join(OWNER)) {
            Ok(owner) => {
                // Held while the removal runs, so two sweeps never race on one directory.
                if flock(&owner, FlockOperation::NonBlockingLockExclusive).is_ok()
                    && std::fs::remove_dir_all(&path).is_ok()
                {
                    removed += 1;
                }
            }
            Err(_) if older_than(&path, UNOWNED_AGE) => {
                if std::fs::remove_dir_all(&path).is_ok() {
                    removed += 1;
                }
            }
            Err(_) => {}
        }
    }
    removed
}

fn older_than(path: &Path, age: Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
        .is_some_and(|elapsed| elapsed > age)
}

/// The worktrees an earlier version registered in `common_dir` for a restack
/// (`<tmp>/resolve-pr-restack-*/wt`) and that a kill left registered: their records in
/// `<common dir>/worktrees/` are removed (with the directory, when it is still there), so
/// `git worktree list` shows only the user's own. Records of other worktrees are untouched.
pub(crate) fn forget_stale_restack_worktrees(common_dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(common_dir.join("worktrees")) else {
        return 0;
    };
    let mut forgotten = 0;
    for entry in entries.flatten() {
        let admin = entry.path();
        let Ok(gitdir) = std::fs::read_to_string(admin.join("gitdir")) else {
            continue;
        };
        // `<tmp>/resolve-pr-restack-XXXX/wt/.git`
        let worktree_git = PathBuf::from(gitdir.trim_end_matches(['\n', '\r']));
        let Some(scratch) = worktree_git.parent().and_then(Path::parent) else {
            continue;
        };
        let ours = worktree_git.file_name().is_some_and(|n| n == ".git")
            && worktree_git
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "wt")
            && scratch
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("resolve-pr-restack-"));
        if !ours {
            continue;
        }
        let _ = std::fs::remove_dir_all(scratch);
        if std::fs::remove_dir_all(&admin).is_ok() {
            forgotten += 1;
        }
    }
    forgotten
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_takes_dead_owners_directories_only() {
        let parent = tempfile::tempdir().unwrap();
        // A dead owner's: the owner file is there, nobody holds its lock.
        let dead = parent.path().join("resolve-pr-merge-dead");
        std::fs::create_dir_all(dead.join("objects")).unwrap();
        std::fs::write(dead.join(OWNER), "").unwrap();
        // Being made right now (no owner file yet), and someone else's.
        let fresh = parent.path().join("resolve-pr-replay-fresh");
        std::fs::create_dir(&fresh).unwrap();
        let other = parent.path().join("other-tool-dir");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join(OWNER), "").unwrap();
        // A live owner's: its lock is held.
        let live = parent.path().join("resolve-pr-rebase-live");
        std::fs::create_dir(&live).unwrap();
        let held = File::create(live.join(OWNER)).unwrap();
        flock(&held, FlockOperation::NonBlockingLockExclusive).unwrap();

        assert_eq!(sweep_stale(parent.path()), 1);
        assert!(!dead.exists());
        assert!(fresh.exists() && other.exists() && live.exists());
        drop(held);
        assert_eq!(sweep_stale(parent.path()), 1);
        assert!(!live.exists());
    }

    #[test]
    fn a_scratch_of_this_process_survives_a_sweep_and_goes_when_dropped() {
        let scratch = Scratch::new("merge").unwrap();
        let path = scratch.path().to_path_buf();
        assert!(path.join(OWNER).exists());
        sweep_stale(&std::env::temp_dir());
        assert!(path.exists(), "a live scratch was swept");
        drop(scratch);
        assert!(!path.exists());
    }

    #[test]
    fn only_restack_worktrees_are_forgotten() {
        let common = tempfile::tempdir().unwrap();
        let worktrees = common.path().join("worktrees");
        let ours = worktrees.join("wt");
        let users = worktrees.join("feature");
        std::fs::create_dir_all(&ours).unwrap();
        std::fs::create_dir_all(&users).unwrap();
        std::fs::write(
            ours.join("gitdir"),
            "/tmp/resolve-pr-restack-AbC123/wt/.git\n",
        )
        .unwrap();
        std::fs::write(users.join("gitdir"), "/home/ada/src/feature/.git\n").unwrap();
        assert_eq!(forget_stale_restack_worktrees(common.path()), 1);
        assert!(!ours.exists());
        assert!(users.exists());
    }
}
