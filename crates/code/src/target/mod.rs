//! Which file, which symbol, which server: the target an agent names (a position, a symbol
//! by name, or a failure's `file:line`) resolved to a file and a position, the language
//! servers and projects a question asks, the texts an answer reads (context lines, whole
//! files for a syntax question) and the paths it names, and the language-server errors as
//! agents see them.
//!
//! Positions are LSP's (zero-based lines, UTF-16 columns) as `resolve_pr_lsp` gives them;
//! errors are `resolve_pr_core::Error`, naming the argument (`field`) they are about.
//! Everything is taken explicitly (the server pool, the canonical checkout root): nothing
//! here knows a tool's context, its contract types or its rendering.

mod aim;
mod errors;
mod macro_scan;
mod paths;
mod servers;
mod texts;

pub use aim::{Aimed, TargetSpec, TestTarget, aim, in_import, symbol_at, target};
pub use errors::{lsp_error, relative_error};
pub use macro_scan::{identifier_at, macro_references};
pub use paths::{display_path, file_in, path_in};
pub use servers::{
    MAX_PROJECTS, NameScope, guessed_flags, guessed_flags_in, language_named, language_of,
    languages, name_text, project_roots, projects_for_name, projects_not_asked,
    refactoring_server_for_file, server_for_file, server_holding,
};
pub use texts::{CACHED_FILES, Texts, containers_in};
