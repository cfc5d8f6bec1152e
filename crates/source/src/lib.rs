//! Source text for the code layers (`lsp`, `syntax`, `code`, `edit`).
//!
//! - [`LineIndex`]: byte offsets ↔ lines and columns. UTF-16 columns (LSP's default
//!   encoding) are converted here and nowhere else.
//! - [`TextEdit`] over a [`TextRange`] of bytes; [`apply_edits`] checks that edits are in
//!   bounds, on character boundaries and non-overlapping before anything changes.
//! - [`WorkspaceChange`]: text edits plus create, rename and delete, in order, as an LSP
//!   `WorkspaceEdit` with resource operations says them; [`WorkspaceChange::simulate`]
//!   computes what each touched path holds afterwards, without touching a disk.
//! - [`Language`] (what one language server answers for) and [`Dialect`] (what a grammar
//!   parses): the one table of file extensions.
//! - [`checksum`]: `sha256:<hex>` of a file's bytes, as seed 002's plans name them.
//!
//! - [`Walk`]: the one walk of a checkout's files (ignore files honoured, in order, stopped
//!   at its limit).
//!
//! This crate does **not** know about language servers or tree-sitter, and reads no file
//! but in [`Walk`] (which lists files, never opens them): the rest is pure, and what it
//! reads comes through the [`Tree`] trait.

mod change;
mod checksum;
mod edit;
mod language;
mod lines;
mod walk;

pub use change::{After, ChangeError, FileChange, Outcome, Tree, WorkspaceChange};
pub use checksum::checksum;
pub use edit::{EditError, TextEdit, TextRange, apply_edits};
pub use language::{Dialect, Language, language_id};
pub use lines::{LineCol, LineIndex, PositionError, utf16_len};
pub use walk::{GlobError, Walk, Walked};
