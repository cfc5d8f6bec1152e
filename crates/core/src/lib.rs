//! The vocabulary every other resolve-pr crate shares: pull-request references, the error
//! model agents see, opaque pagination cursors, shell-safe commands, text budgets, and text
//! made safe to show on a terminal.
//!
//! This crate does no I/O: no network, no files, no environment, no clock. Everything here
//! is a pure function of its inputs, which is what makes it property-testable.

pub mod budget;
pub mod cursor;
pub mod error;
pub mod pr_ref;
pub mod shell;
pub mod terminal;

pub use cursor::{CursorCodec, PageSize};
pub use error::{Category, Error, ErrorCode, Result};
pub use pr_ref::{PrRef, RepoRef};
pub use shell::ShellCommand;
