//! Which server: the language of a file, the languages a checkout holds, and the projects
//! and servers a question about a file or a name asks.

use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_lsp::{Language, Pool, Projects, Server};

use super::{display_path, lsp_error, relative_error};

pub fn language_of(path: &Path, field: &str) -> Result<Language> {
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

pub fn language_named(name: &str) -> Result<Language> {
    Language::from_name(name).ok_or_else(|| {
        Error::user(format!("{name} is not a language the code tools read"))
            .with_code(ErrorCode::UnsupportedLanguage)
            .with_detail("field", "language")
            .with_suggestion("One of: rust, typescript, python, c, go.")
    })
}

/// The server for a file.
pub async fn server_for_file(
    pool: &Pool,
    workspace: &Path,
    path: &Path,
    field: &str,
) -> Result<Server> {
    let language = language_of(path, field).map_err(|e| relative_error(e, workspace))?;
    let root = language.project_root(path, workspace);
    pool.server(language, &root)
        .await
        .map_err(|e| relative_error(lsp_error(e), workspace))
}

/// The server that performs refactorings on `path`'s language: a refactoring server where
/// one is installed and may run (pylsp with rope for Python), else the file's server.
pub async fn refactoring_server_for_file(
    pool: &Pool,
    workspace: &Path,
    path: &Path,
    field: &str,
) -> Result<Server> {
    let language = language_of(path, field).map_err(|e| relative_error(e, workspace))?;
    let root = language.project_root(path, workspace);
    pool.refactoring_server(language, &root)
        .await
        .map_err(|e| relative_error(lsp_error(e), workspace))
}

/// The languages a by-name question looks in: the one named, else those the workspace
/// holds.
pub async fn languages(workspace: &Path, named: Option<&str>) -> Result<Vec<Language>> {
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
pub const MAX_PROJECTS: usize = 4;

/// The project roots of `language` in the workspace that a question about the whole
/// checkout asks (the largest first, [`MAX_PROJECTS`] at most), and a warning naming those
/// left out.
pub fn project_roots(language: Language, workspace: &Path) -> (Vec<PathBuf>, Option<String>) {
    let mut roots = language.project_roots(workspace);
    let left_out = roots.split_off(roots.len().min(MAX_PROJECTS));
    let warning = projects_not_asked(language, workspace, &left_out);
    (roots, warning)
}

/// The warning for projects past [`MAX_PROJECTS`], naming them.
pub fn projects_not_asked(
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
pub struct NameScope {
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
pub async fn projects_for_name(
    pool: &Pool,
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
        all_running &= pool.is_running(language, root).await;
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
pub async fn server_holding(
    pool: &Pool,
    language: Language,
    root: &Path,
    files: &[PathBuf],
) -> std::result::Result<Server, resolve_pr_lsp::Error> {
    let server = pool.server(language, root).await?;
    for file in files {
        // A file that cannot be opened (gone since the scan, too large) is left unopened:
        // the question is asked all the same.
        let _ = server.open(file).await;
    }
    Ok(server)
}

/// The name a by-name target's sources hold as text: its last segment (`Budget::cut`,
/// `Budget.cut` hold `cut`), without an argument list.
pub fn name_text(name: &str) -> &str {
    let name = name.split('(').next().unwrap_or(name);
    name.rsplit(['.', ':', '#']).next().unwrap_or(name).trim()
}

/// What clangd lacks without a compile database (`compile_commands.json` beside the file or
/// in an ancestor, or in a `build/` below one; or `compile_flags.txt`), where it looks for
/// one: it guesses the flags and indexes only the files it opened, so an answer may be
/// short. None for other servers.
pub fn guessed_flags(server: &Server, file: &Path) -> Option<String> {
    if server.language != Language::C || has_compile_database(file, &server.root) {
        return None;
    }
    Some(NO_COMPILE_DATABASE.to_owned())
}

/// [`guessed_flags`] for a project as a whole (a question asked of it, not of one file).
pub fn guessed_flags_in(language: Language, root: &Path) -> Option<String> {
    if language != Language::C || has_compile_database(&root.join("."), root) {
        return None;
    }
    Some(NO_COMPILE_DATABASE.to_owned())
}

const NO_COMPILE_DATABASE: &str = "NO_COMPILE_DATABASE: clangd found no compile_commands.json, so it guesses compiler \
         flags and sees only files it opened; this may be incomplete. Generate one: CMake \
         -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, Bear `bear -- make`, or meson (in its build \
         directory).";

/// Whether clangd finds a compile database for a file: in its directory or an ancestor, or
/// in a `build/` below one of those (the server's root and its ancestors too).
fn has_compile_database(file: &Path, root: &Path) -> bool {
    let has = |dir: &Path| {
        [
            "compile_commands.json",
            "build/compile_commands.json",
            "compile_flags.txt",
        ]
        .iter()
        .any(|m| dir.join(m).is_file())
    };
    file.ancestors().skip(1).any(has) || root.ancestors().any(has)
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

    #[test]
    fn a_compile_database_is_found_where_clangd_looks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("lib");
        let file = root.join("src/deep/a.c");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "int x;\n").unwrap();
        assert!(!super::has_compile_database(&file, &root));
        for at in [
            "lib/src/compile_flags.txt",
            "lib/build/compile_commands.json",
            "compile_commands.json",
            "lib/src/deep/build/compile_commands.json",
        ] {
            let marker = dir.path().join(at);
            std::fs::create_dir_all(marker.parent().unwrap()).unwrap();
            std::fs::write(&marker, "[]").unwrap();
            assert!(super::has_compile_database(&file, &root), "{at}");
            std::fs::remove_file(&marker).unwrap();
        }
        // A build/ elsewhere (not below an ancestor) is not looked in.
        let other = dir.path().join("lib/tools/build/compile_commands.json");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, "[]").unwrap();
        assert!(!super::has_compile_database(&file, &root));
    }
}
