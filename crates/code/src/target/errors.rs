//! The language-server errors as agents see them, with the contract's upper snake case
//! `code`, and the one error for a name no language found.

use std::path::Path;

use resolve_pr_core::{Error, ErrorCode};
use serde_json::Value;
/// The language-server error as agents see it, with its stable code.
pub fn lsp_error(e: resolve_pr_lsp::Error) -> Error {
    use resolve_pr_lsp::Error as E;
    let code = e.code();
    let message = e.to_string();
    let error = match &e {
        E::NotInstalled { install, .. } => Error::logical(message)
            .with_detail("install", *install)
            .with_suggestion(format!(
                "Install it with: {install}; then call again (no restart needed)."
            )),
        E::UnsupportedLanguage(_) => Error::user(message).with_suggestion(
            "The code tools read Rust, TypeScript/JavaScript, Python, C/C++ and Go.",
        ),
        E::InvalidPath { path, .. } => {
            Error::user(message).with_detail("path", path.display().to_string())
        }
        E::TooLarge { path, bytes, .. } => Error::user(message)
            .with_detail("path", path.display().to_string())
            .with_detail("bytes", *bytes)
            .with_suggestion(
                "Ask about a smaller file (generated and minified files are too big to read); \
                 RESOLVE_PR_LSP_MAX_FILE_MIB raises the limit for the server's next start.",
            ),
        E::InvalidPosition(_) => Error::user(message)
            .with_detail("field", "position")
            .with_suggestion("Lines and characters count from 0."),
        E::SymbolNotFound(_) => Error::user(message).with_suggestion(
            "Check the spelling, or find it with search_symbols; or give file_path and position.",
        ),
        E::Unsupported { server, .. } => Error::logical(message).with_detail("server", *server),
        E::Declined { server, .. } => Error::user(message)
            .with_detail("server", *server)
            .with_suggestion("Select whole expressions or statements (range), or a name (position), as the server asks."),
        E::Indexing(_) => Error::timeout(message).with_suggestion(
            "Call again in a few seconds; health_check shows what the server is indexing.",
        ),
        E::Timeout(_) => Error::timeout(message)
            .with_suggestion("Call again: a server that ignored the cancellation was restarted."),
        E::ServerFailed { server, .. } | E::Protocol { server, .. } => Error::unknown(message)
            .with_detail("server", *server)
            .with_suggestion(
                "Call again: a server that died is started again; health_check shows its state.",
            ),
        E::Io(_) => Error::unknown(message),
    };
    error.with_code(code)
}

/// An error whose message names files inside the workspace relative to it, as every answer
/// and the agent's own arguments do.
pub fn relative_error(mut e: Error, workspace: &Path) -> Error {
    let prefix = format!("{}/", workspace.display());
    e.error = e.error.replace(&prefix, "");
    if let Some(details) = e.details.as_mut()
        && let Some(Value::String(path)) = details.get_mut("path")
        && let Some(rest) = path.strip_prefix(&prefix)
    {
        *path = rest.to_owned();
    }
    e
}

/// The one error for a name no language found: a server still indexing first (calling
/// again may find it), then a server missing for a language that was to be asked (its
/// sources hold the name, or macros may make it), saying what the others did not find: the
/// name is most likely there, and installing the server is what to do. Then "not found"
/// naming every server asked, then whatever else went wrong (a server that failed).
pub(super) fn name_found_nowhere(failures: Vec<Error>) -> Error {
    let has = |code: ErrorCode| move |e: &&Error| e.code == Some(code);
    if let Some(busy) = failures.iter().find(has(ErrorCode::ServerIndexing)) {
        return busy.clone();
    }
    let not_found: Vec<&Error> = failures
        .iter()
        .filter(has(ErrorCode::SymbolNotFound))
        .collect();
    let mut said: Vec<&str> = Vec::new();
    for e in &not_found {
        if !said.contains(&e.error.as_str()) {
            said.push(e.error.as_str());
        }
    }
    if let Some(missing) = failures.iter().find(has(ErrorCode::ServerNotInstalled))
        && !said.is_empty()
    {
        let mut e = missing.clone();
        e.error = format!("{}, so it was not asked; {}", e.error, said.join("; "));
        return e;
    }
    if let Some(first) = not_found.first() {
        if said.len() == 1 {
            return (*first).clone();
        }
        return Error::user(said.join("; "))
            .with_code(ErrorCode::SymbolNotFound)
            .with_suggestion("Check the spelling, or find it with search_symbols; or give file_path and position.");
    }
    failures.into_iter().next().unwrap_or_else(|| {
        Error::user("no language to look in").with_code(ErrorCode::SymbolNotFound)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_found_nowhere_says_indexing_then_not_found_then_the_rest() {
        use resolve_pr_lsp::Error as E;
        let missing = || {
            lsp_error(E::NotInstalled {
                language: "python",
                looked_for: "basedpyright-langserver".into(),
                install: "pipx install basedpyright",
            })
        };
        let not_found = |server: &str| lsp_error(E::SymbolNotFound(format!("no cut in {server}")));
        let busy = || lsp_error(E::Indexing("rust-analyzer is still indexing".into()));

        let e = name_found_nowhere(vec![missing(), not_found("clangd"), busy()]);
        assert_eq!(e.code, Some(ErrorCode::ServerIndexing), "{e:?}");

        let e = name_found_nowhere(vec![not_found("clangd"), not_found("gopls")]);
        assert_eq!(e.code, Some(ErrorCode::SymbolNotFound), "{e:?}");
        assert_eq!(e.error, "no cut in clangd; no cut in gopls");

        // A server missing for a language that was to be asked is what to fix, not the
        // other servers' "not found" (which blamed gopls in a Rust checkout).
        let e = name_found_nowhere(vec![not_found("gopls"), missing()]);
        assert_eq!(e.code, Some(ErrorCode::ServerNotInstalled), "{e:?}");
        assert_eq!(
            e.error,
            "no language server for python is installed (looked for basedpyright-langserver), \
             so it was not asked; no cut in gopls"
        );
        assert!(e.suggestion.unwrap().contains("pipx install basedpyright"));
        let e = name_found_nowhere(vec![not_found("clangd")]);
        assert_eq!(e.error, "no cut in clangd");

        let e = name_found_nowhere(vec![missing()]);
        assert_eq!(e.code, Some(ErrorCode::ServerNotInstalled), "{e:?}");
        assert!(e.suggestion.unwrap().contains("pipx install basedpyright"));

        let e = name_found_nowhere(Vec::new());
        assert_eq!(e.code, Some(ErrorCode::SymbolNotFound), "{e:?}");
    }
}
