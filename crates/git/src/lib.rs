//! Local repository work for resolve-pr, over the user's own `git` (2.38 or later).
//!
//! Invariants:
//! - Every git invocation is an argument vector (`std::process::Command`, never a shell),
//!   with `--end-of-options` or `--` before anything git could read as an option, in an
//!   environment without the variables that would redirect it ([`CLEARED_VARIABLES`]),
//!   with `GIT_TERMINAL_PROMPT=0` and `LC_ALL=C`.
//! - Nothing is written to the user's repository: no object, ref, index or worktree change.

mod error;
mod hunks;
mod merge;
mod remote;
mod repo;
mod runner;

pub use error::{Error, Result};
pub use hunks::{Hunk, Hunks, Limits};
pub use merge::{ConflictKind, ConflictedFile, Merge, MergeOutcome, Message, Stage};
pub use remote::RemoteUrl;
pub use repo::{Remote, Repository, pick_remote};
pub use runner::{CLEARED_VARIABLES, Git, Version};
