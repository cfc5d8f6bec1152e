//! The only code that writes into a user's checkout.
//!
//! - [`Checkout::plan`] turns a [`WorkspaceChange`] into a [`Plan`]: simulated in memory
//!   over the files as they are, every file it reads checksummed (`sha256:<hex>`), a
//!   unified diff, and an id derived from its content. Plans are kept in a store that
//!   survives restarts, so a plan previewed in one call is applied in another.
//! - [`Checkout::apply`] applies exactly a stored plan: under a per-checkout lock, the
//!   checksums are checked first (`CHECKSUM_MISMATCH` / `STALE_PLAN` naming the file); a
//!   journal with every touched file's contents before and after is written and synced
//!   before the first write; each file is written to a temporary file beside it, synced
//!   and renamed over it. A write that fails rolls every file back.
//! - The journal of an applied plan is its undo snapshot: [`Checkout::undo`] restores
//!   contents, creates, deletes, renames and modes, refused when the files changed since
//!   (unless forced), and is itself journaled.
//! - [`Checkout::open`] recovers: a journal left by an apply that never finished (a crash,
//!   kill -9) is rolled back, so each touched file is exactly as before, never a mix.
//!
//! This crate never writes outside the checkout's canonical root, nor through a symbolic
//! link. It does **not** know about language servers, verification tools or tool
//! contracts: the `code` layer verifies an outcome before asking for an apply.

mod checkout;
mod error;
mod fsx;
mod journal;
mod plan;

pub use checkout::{Applied, Checkout, Recovered, Step};
pub use error::Error;
pub use plan::{FileStatus, Plan, PlanFile, PlanMeta, Summary, Verification, Warning};
pub use resolve_pr_source::{Outcome, WorkspaceChange};

pub type Result<T, E = Error> = std::result::Result<T, E>;
