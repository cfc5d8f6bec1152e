//! Local repository work for resolve-pr, over the user's own `git` (2.38 or later).
//!
//! Invariants:
//! - Every git invocation is an argument vector (`std::process::Command`, never a shell),
//!   with `--end-of-options` or `--` before anything git could read as an option, in an
//!   environment without the variables that would redirect it ([`CLEARED_VARIABLES`]),
//!   with `GIT_TERMINAL_PROMPT=0` and `LC_ALL=C`.
//! - Nothing is written to the user's repository: no object, ref, index or worktree change.

mod error;
mod fetch;
mod history;
mod hunks;
mod landed;
mod merge;
mod remote;
mod replay;
mod repo;
mod restack;
mod runner;

pub use error::{Error, Result};
pub use fetch::{REF_NAMESPACE, open_cache};
pub use history::{CommitInfo, DiffStat};
pub use hunks::{Hunk, Hunks, Limits};
pub use landed::Landed;
pub use merge::{ConflictKind, ConflictedFile, Merge, MergeOutcome, Message, Stage};
pub use remote::RemoteUrl;
pub use replay::{CommitConflict, REPLAY_LIMIT, ReplayPrediction};
pub use repo::{Remote, Repository, pick_remote};
pub use restack::{PushUpdate, RestackBranch, RestackEngine, RestackResult};
pub use runner::{CLEARED_VARIABLES, Git, Version};
