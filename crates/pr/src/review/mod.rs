//! Pure analyses for reviewing a pull request: what kind of file each changed path is, the
//! lines of a diff worth a reviewer's attention, which diff hunks fit a line budget, the
//! issues and pull requests a description refers to, and the public API a file's change
//! removed or changed.
//!
//! No I/O: every function reads only its arguments, and every heuristic is deterministic
//! and documented where it is defined, so a tool can say why it answered what it did.

mod breaking;
mod category;
mod excerpts;
mod focus;
pub(crate) mod patch;
mod references;

pub use breaking::breaking_changes;
pub use category::{FileCategory, file_category};
pub use excerpts::{Excerpt, ExcerptPlan, Omission, OmissionReason, plan_excerpts};
pub use focus::{EXCERPT_CHARS, FocusKind, FocusPoint, focus_points};
pub use references::{IssueRef, References, references};
