//! What went wrong running git, in this crate's own terms: the variant says what happened
//! (no git, too old a git, not a repository, a revision that names no commit, git failing),
//! so callers decide by matching a variant, never by reading an error's text.

use std::path::PathBuf;

use crate::Version;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error of the git layer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No git program could be started: not on `PATH`, or the given path is not one.
    #[error("git was not found ({program}): {reason}; install git 2.38 or later")]
    GitMissing { program: PathBuf, reason: String },
    /// The git found is older than this crate needs.
    #[error(
        "git {found} is too old: git {required} or later is needed for `git merge-tree --write-tree`"
    )]
    GitTooOld { found: Version, required: Version },
    /// `git --version` printed something that is not a version.
    #[error("`git --version` printed no version this crate understands: {output:?}")]
    UnknownVersion { output: String },
    /// The directory is not inside a git repository (or does not exist).
    #[error("{} is not inside a git repository", dir.display())]
    NotARepository { dir: PathBuf },
    /// A revision that names no commit in the repository (unknown, or not fetched).
    #[error("{revision:?} does not name a commit in this repository")]
    BadRevision { revision: String },
    /// A path that the merge did not leave conflicted (asked for its hunks).
    #[error("{path:?} is not a conflicted file of this merge")]
    NotConflicted { path: String },
    /// git ran and failed: its exit status (`None` when a signal ended it) and its stderr.
    #[error("`git {command}` failed (exit status {}): {stderr}", status.map_or("none".to_string(), |s| s.to_string()))]
    Failed {
        command: String,
        status: Option<i32>,
        stderr: String,
    },
    /// git succeeded but printed something this crate cannot read.
    #[error("`git {command}` printed output this crate cannot read: {what}")]
    UnexpectedOutput { command: String, what: String },
    /// An operating-system error around git: starting it, making a scratch directory.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}
