//! The target fields of a tool's arguments handed to the code layer
//! (`resolve_pr_code::target`), with the server pool of the tools' context.

use std::path::{Path, PathBuf};

use resolve_pr_code::target::{self as code, NameScope};
use resolve_pr_core::Result;
use resolve_pr_lsp::{Language, Server};

use super::TargetArgs;
use crate::Context;

impl TargetArgs<'_> {
    /// The target as the code layer takes it (without the checkout, which
    /// `checkout::workspace` finds).
    pub(crate) fn spec(&self) -> code::TargetSpec<'_> {
        code::TargetSpec {
            file_path: self.file_path,
            position: self.position.map(|p| resolve_pr_lsp::Pos {
                line: p.line,
                character: p.character,
            }),
            symbol: self.symbol,
            symbol_kind: self.symbol_kind,
            language: self.language,
            from_failure: self.from_failure,
        }
    }
}

/// The server for a file ([`code::server_for_file`]).
pub(crate) async fn server_for_file(
    ctx: &Context,
    workspace: &Path,
    path: &Path,
    field: &str,
) -> Result<Server> {
    code::server_for_file(&ctx.lsp, workspace, path, field).await
}

/// The server that performs refactorings on a file's language
/// ([`code::refactoring_server_for_file`]).
pub(crate) async fn refactoring_server_for_file(
    ctx: &Context,
    workspace: &Path,
    path: &Path,
    field: &str,
) -> Result<Server> {
    code::refactoring_server_for_file(&ctx.lsp, workspace, path, field).await
}

/// The projects of one language a question about a name asks
/// ([`code::projects_for_name`]).
pub(crate) async fn projects_for_name(
    ctx: &Context,
    language: Language,
    workspace: &Path,
    name: &str,
    ignore_case: bool,
) -> NameScope {
    code::projects_for_name(&ctx.lsp, language, workspace, name, ignore_case).await
}

/// The server of a project with the files holding a name opened in it
/// ([`code::server_holding`]).
pub(crate) async fn server_holding(
    ctx: &Context,
    language: Language,
    root: &Path,
    files: &[PathBuf],
) -> std::result::Result<Server, resolve_pr_lsp::Error> {
    code::server_holding(&ctx.lsp, language, root, files).await
}
