//! Local repository work for resolve-pr, over the user's own `git` (2.38 or later; 2.40 for
//! `merge-tree --merge-base`, 2.44 for `git replay`): finding the repository and its
//! remotes, merge-tree conflicts, reading history, fetching, telling whether a branch landed
//! (ancestry, squash or rebase by patch-id, content), predicting a restack commit by commit,
//! performing it, and pushing it with leases.
//!
//! Invariants:
//! - Every git invocation is an argument vector (`std::process::Command`, never a shell;
//!   pipes between two gits are made in Rust), with `--end-of-options` or `--` before
//!   anything git could read as an option, in an environment without the variables that
//!   would redirect it ([`CLEARED_VARIABLES`]), with `GIT_TERMINAL_PROMPT=0` and `LC_ALL=C`.
//!   Branch names are checked with `git check-ref-format --branch`.
//! - Read paths write nothing to the user's repository: merges, predictions and landed
//!   checks write into a scratch object directory that is removed afterwards.
//! - [`Repository::fetch`] writes refs only under [`REF_NAMESPACE`] (`refs/resolve-pr/`),
//!   and no `FETCH_HEAD`.
//! - [`Repository::restack`] writes objects (the replayed commits) and refs under
//!   `refs/resolve-pr/` only; never the user's branches, HEAD, index, worktree or list of
//!   worktrees.
//! - Scratch directories (merges' object stores, side repositories) are locked by their
//!   process while it lives; the first one a process makes removes those whose process is
//!   gone ([`sweep_stale`]), so a kill leaves nothing behind for long.
//! - Pushes use `--force-with-lease` with an explicit expected value and `--atomic`, never
//!   `--force`.
//! - Errors never show a password or token of a URL.
//! - A URL a forge reported (the managed clone's) is followed only over https, http or ssh,
//!   checked before git runs and by `GIT_ALLOW_PROTOCOL` in every command of a managed
//!   clone; `ext::` and `fd::` are refused everywhere. Commands that may talk to a remote
//!   (clone, fetch, push, ls-remote; every command of a partial clone) run in their own
//!   process group, killed past [`NetworkLimits::deadline`] or when the thread's
//!   [`Cancellation`] is set; silent HTTP transfers end after `http.lowSpeedTime`.

mod cancel;
mod error;
mod fetch;
mod fork_point;
mod history;
mod hunks;
mod landed;
mod merge;
mod remote;
mod replay;
mod repo;
mod restack;
mod runner;
mod scratch;
mod texts;
mod transport;

pub use cancel::{Cancellation, Entered};
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
pub use scratch::sweep_stale;
pub use texts::ConflictText;
pub use transport::{FORGE_PROTOCOLS, NetworkLimits, Transports, check_forge_url};
