//! The target an agent names: the workspace and the files in it, their languages, and the
//! projects and servers a question about a file or a name asks.

use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_lsp::{Language, Projects, Server, Target};

use super::{TargetArgs, display_path, lsp_error, relative_error};
use crate::Context;
/// A file inside the workspace: relative to it, or absolute within it.
pub(crate) fn file_in(workspace: &Path, file_path: &str, field: &str) -> Result<PathBuf> {
    let canonical = path_in(workspace, file_path, field)?;
    if !canonical.is_file() {
        return Err(Error::user(format!("{file_path} is not a file"))
            .with_code(ErrorCode::InvalidPath)
            .with_detail("field", field));
    }
    Ok(canonical)
}

/// A file or directory inside the workspace, canonical.
pub(crate) fn path_in(workspace: &Path, file_path: &str, field: &str) -> Result<PathBuf> {
    let joined = workspace.join(file_path);
    let canonical = joined.canonicalize().map_err(|e| {
        Error::user(format!(
            "{file_path} cannot be read in {}: {e}",
            workspace.display()
        ))
        .with_code(ErrorCode::InvalidPath)
        .with_detail("field", field)
        .with_suggestion("Give the path relative to the workspace (directory).")
    })?;
    if !canonical.starts_with(workspace) {
        return Err(Error::user(format!(
            "{file_path} is outside the workspace {}",
            workspace.display()
        ))
        .with_code(ErrorCode::InvalidPath)
        .with_detail("field", field));
    }
    Ok(canonical)
}

pub(crate) fn language_of(path: &Path, field: &str) -> Result<Language> {
    Language::of_path(path).ok_or_else(|| {
        Error::user(format!(
            "{} is not a source file of a language the code tools read",
            path.display()
        ))
        .with_code(ErrorCode::UnsupportedLanguage)
        .with_detail("field", field)
        .with_suggestion("The code tools read Rust, TypeScript/JavaScript, Python, C/C++ and Go.")
    })
}

pub(crate) fn language_named(name: &str) -> Result<Language> {
    Language::from_name(name).ok_or_else(|| {
        Error::user(format!("{name} is not a language the code tools read"))
            .with_code(ErrorCode::UnsupportedLanguage)
            .with_detail("field", "language")
            .with_suggestion("One of: rust, typescript, python, c, go.")
    })
}

/// The target as the language-server layer takes it, with the file that picks the server
/// (none for a symbol by name).
pub(crate) fn target(workspace: &Path, args: &TargetArgs<'_>) -> Result<(Target, Option<PathBuf>)> {
    let given = [
        args.position.is_some() || args.file_path.is_some(),
        args.symbol.is_some(),
        args.from_failure.is_some(),
    ];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(Error::user("give one target: file_path with position, or symbol, or from_failure")
            .with_code(ErrorCode::InvalidTarget)
            .with_suggestion("For example {\"file_path\": \"src/lib.rs\", \"position\": {\"line\": 4, \"character\": 8}} or {\"symbol\": \"Circle::area\"}."));
    }
    if let Some(name) = args.symbol {
        if name.trim().is_empty() {
            return Err(Error::user("symbol is empty")
                .with_code(ErrorCode::InvalidTarget)
                .with_detail("field", "symbol"));
        }
        return Ok((
            Target::Symbol {
                name: name.trim().to_owned(),
                kind: args.symbol_kind.map(|k| k.to_ascii_lowercase()),
            },
            None,
        ));
    }
    if let Some(failure) = args.from_failure {
        // "file:line", or "file:line:column" as compilers print it.
        let number = |s: &str| s.trim().parse::<u32>().ok();
        let parsed = failure.rsplit_once(':').and_then(|(head, last)| {
            let last = number(last)?;
            match head
                .rsplit_once(':')
                .and_then(|(file, line)| Some((file, number(line)?)))
            {
                Some(with_column) => Some(with_column),
                None => Some((head, last)),
            }
        });
        let Some((file, line)) = parsed.filter(|(_, l)| *l >= 1) else {
            return Err(Error::user(format!(
                "from_failure {failure:?} is not \"file:line\" with a line from 1"
            ))
            .with_code(ErrorCode::InvalidTarget)
            .with_detail("field", "from_failure"));
        };
        let path = file_in(workspace, file, "from_failure")?;
        return Ok((
            Target::Failure {
                path: path.clone(),
                line: line - 1,
            },
            Some(path),
        ));
    }
    let (Some(file), Some(pos)) = (args.file_path, args.position) else {
        return Err(Error::user("file_path and position go together")
            .with_code(ErrorCode::InvalidTarget)
            .with_detail(
                "field",
                if args.file_path.is_none() {
                    "file_path"
                } else {
                    "position"
                },
            ));
    };
    let path = file_in(workspace, file, "file_path")?;
    Ok((
        Target::Position {
            path: path.clone(),
            pos: resolve_pr_lsp::Pos {
                line: pos.line,
                character: pos.character,
            },
        },
        Some(path),
    ))
}

/// The server for a file.
pub(crate) async fn server_for_file(
    ctx: &Context,
    workspace: &Path,
    path: &Path,
    field: &str,
) -> Result<Server> {
    let language = language_of(path, field).map_err(|e| relative_error(e, workspace))?;
    let root = language.project_root(path, workspace);
    ctx.lsp
        .server(language, &root)
        .await
        .map_err(|e| relative_error(lsp_error(e), workspace))
}

/// The server that performs refactorings on `path`'s language: a refactoring server where
/// one is installed and may run (pylsp with rope for Python), else the file's server.
pub(crate) async fn refactoring_server_for_file(
    ctx: &Context,
    workspace: &Path,
    path: &Path,
    field: &str,
) -> Result<Server> {
    let language = language_of(path, field).map_err(|e| relative_error(e, workspace))?;
    let root = language.project_root(path, workspace);
    ctx.lsp
        .refactoring_server(language, &root)
        .await
        .map_err(|e| relative_error(lsp_error(e), workspace))
}

/// The languages a by-name question looks in: the one named, else those the workspace
/// holds.
pub(crate) async fn languages(workspace: &Path, named: Option<&str>) -> Result<Vec<Language>> {
    if let Some(name) = named {
        return Ok(vec![language_named(name)?]);
    }
    // A bounded walk of the checkout: off the async runtime.
    let found = {
        let workspace = workspace.to_owned();
        tokio::task::spawn_blocking(move || Language::detect(&workspace))
            .await
            .unwrap_or_default()
    };
    if found.is_empty() {
        return Err(Error::user(
            "the checkout holds no source files of a language the code tools read (rust, \
             typescript, python, c, go)",
        )
        .with_code(ErrorCode::UnsupportedLanguage)
        .with_suggestion("Give directory (the checkout), or language."));
    }
    Ok(found)
}

/// Project roots of one language asked at most, for a question about a whole checkout.
pub(crate) const MAX_PROJECTS: usize = 4;

/// The project roots of `language` in the workspace that a question about the whole
/// checkout asks (the largest first, [`MAX_PROJECTS`] at most), and a warning naming those
/// left out.
pub(crate) fn project_roots(
    language: Language,
    workspace: &Path,
) -> (Vec<PathBuf>, Option<String>) {
    let mut roots = language.project_roots(workspace);
    let left_out = roots.split_off(roots.len().min(MAX_PROJECTS));
    let warning = projects_not_asked(language, workspace, &left_out);
    (roots, warning)
}

/// The warning for projects past [`MAX_PROJECTS`], naming them.
pub(crate) fn projects_not_asked(
    language: Language,
    workspace: &Path,
    left_out: &[PathBuf],
) -> Option<String> {
    if left_out.is_empty() {
        return None;
    }
    let names: Vec<String> = left_out
        .iter()
        .map(|r| display_path(workspace, r))
        .collect();
    Some(format!(
        "{language}: {} more projects were not asked ({}); give directory to ask one",
        names.len(),
        names.join(", ")
    ))
}

/// The projects of one language a question about a name asks.
pub(crate) struct NameScope {
    /// Each project's root, and files of it holding the name (opened before asking).
    pub projects: Vec<(PathBuf, Vec<PathBuf>)>,
    /// Projects that hold the name but were not asked, or a scan that stopped early.
    pub note: Option<String>,
}

/// The projects of `language` whose sources hold `name` as text (a bounded scan,
/// [`Language::projects_holding`]), [`MAX_PROJECTS`] at most, those holding it in the most
/// files first. A language none of whose sources hold it is not asked (no server is started
/// for it), unless the scan stopped early: then its largest projects are asked as before.
/// When every project of the language already has its server running, they are asked
/// without a scan (it would start nothing, and costs up to 0.7 s on a large checkout).
pub(crate) async fn projects_for_name(
    ctx: &Context,
    language: Language,
    workspace: &Path,
    name: &str,
    ignore_case: bool,
) -> NameScope {
    let (roots, left_out) = {
        let workspace = workspace.to_owned();
        tokio::task::spawn_blocking(move || project_roots(language, &workspace))
            .await
            .unwrap_or((Vec::new(), Some(String::new())))
    };
    // tsserver's inferred project at a checkout's root knows only the files open in it: the
    // scan's files are opened whatever runs.
    let mut all_running =
        language != Language::TypeScript && left_out.is_none() && !roots.is_empty();
    for root in &roots {
        all_running &= ctx.lsp.is_running(language, root).await;
    }
    if all_running {
        return NameScope {
            projects: roots.into_iter().map(|r| (r, Vec::new())).collect(),
            note: None,
        };
    }
    let scan = {
        let (workspace, name) = (workspace.to_owned(), name.to_owned());
        tokio::task::spawn_blocking(move || {
            language.projects_holding(&workspace, &name, ignore_case)
        })
    };
    // A scan that failed (it cannot panic, but a task can be lost) asks as before.
    let (mut holding, complete) = scan.await.unwrap_or((Vec::new(), false));
    // A name no source holds as text may still be made by a macro (`PREFIX(fill_window)`
    // in C, a Rust `macro_rules!` or derive): for the languages with such macros the
    // projects are asked as before rather than answered "not found" unasked.
    let macros_make_names = matches!(language, Language::Rust | Language::C);
    if holding.is_empty() && (!complete || macros_make_names) {
        let (roots, note) = project_roots(language, workspace);
        return NameScope {
            projects: roots.into_iter().map(|r| (r, Vec::new())).collect(),
            note,
        };
    }
    let left_out: Vec<PathBuf> = holding
        .split_off(holding.len().min(MAX_PROJECTS))
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    let mut note = projects_not_asked(language, workspace, &left_out);
    if !complete {
        let stopped = format!(
            "{language}: the text scan for the name stopped at its limit ({} files); projects past it were not asked",
            resolve_pr_lsp::servers::SCAN_FILES
        );
        note = Some(match note {
            Some(n) => format!("{n}; {stopped}"),
            None => stopped,
        });
    }
    NameScope {
        projects: holding,
        note,
    }
}

/// The server of a project, with the files holding a name opened in it: tsserver loads the
/// project of each file opened (and an inferred project has only its open files), so it is
/// not asked about a project it has not loaded.
pub(crate) async fn server_holding(
    ctx: &Context,
    language: Language,
    root: &Path,
    files: &[PathBuf],
) -> std::result::Result<Server, resolve_pr_lsp::Error> {
    let server = ctx.lsp.server(language, root).await?;
    for file in files {
        // A file that cannot be opened (gone since the scan, too large) is left unopened:
        // the question is asked all the same.
        let _ = server.open(file).await;
    }
    Ok(server)
}

/// The name a by-name target's sources hold as text: its last segment (`Budget::cut`,
/// `Budget.cut` hold `cut`), without an argument list.
pub(crate) fn name_text(name: &str) -> &str {
    let name = name.split('(').next().unwrap_or(name);
    name.rsplit(['.', ':', '#']).next().unwrap_or(name).trim()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_qualified_name_is_scanned_for_by_its_last_segment() {
        assert_eq!(super::name_text("Budget::cut"), "cut");
        assert_eq!(super::name_text("Budget.cut"), "cut");
        assert_eq!(super::name_text("area(self)"), "area");
        assert_eq!(super::name_text("Registry"), "Registry");
    }
}
