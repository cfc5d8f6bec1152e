//! What the code-intelligence tools share: the contract's types (zero-based `Position`,
//! `Range` with an exclusive end, `Location` with a workspace-relative POSIX `file_path`),
//! the target an agent names (a position, a symbol, or a failure's `file:line`), finding the
//! checkout and the server for a file, locations with a line of context, pages of results,
//! and the language-server errors as agents see them (with the contract's upper snake case
//! `code`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use resolve_pr_core::{Error, Result};
use resolve_pr_lsp::{Language, Loc, Server, Target};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;

/// Locations a page shows.
pub(crate) const PAGE: usize = 50;
/// Characters of a context line shown.
const CONTEXT_CHARS: usize = 160;
/// Files bigger than this give no context line (a generated or minified file).
const CONTEXT_FILE_BYTES: u64 = 4 << 20;

// The contract's shared types carry no doc comments: schemars would repeat them in every
// schema that holds them (the server's instructions say what they mean, once).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    // Relative to the workspace, with `/`; absolute when outside it (a library's source).
    pub file_path: String,
    pub range: Range,
    // The text of the range's first line, trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// "text": a syntax scan's match the server missed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

// A reference and the function, method or type it sits in (read with tree-sitter; only
// find_references says it, so the other tools' schemas do not grow).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reference {
    #[serde(flatten)]
    pub location: Location,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
}

/// An item of a list of locations, as the text shows it.
pub(crate) trait Shown {
    fn location(&self) -> &Location;
    fn container(&self) -> Option<&str> {
        None
    }
}

impl Shown for Location {
    fn location(&self) -> &Location {
        self
    }
}

impl Shown for Reference {
    fn location(&self) -> &Location {
        &self.location
    }
    fn container(&self) -> Option<&str> {
        self.container.as_deref()
    }
}

// A symbol where it is declared (no doc comment: it would repeat in every schema that holds one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SymbolInfo {
    pub name: String,
    // LSP's symbol kind in lower case: function, method, class, struct, interface, ...
    pub symbol_kind: String,
    pub language: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub location: Location,
}

pub(crate) fn position(p: resolve_pr_lsp::Pos) -> Position {
    Position {
        line: p.line,
        character: p.character,
    }
}

pub(crate) fn range(s: resolve_pr_lsp::Span) -> Range {
    Range {
        start: position(s.start),
        end: position(s.end),
    }
}

/// The target fields every position tool takes, as one value.
pub(crate) struct TargetArgs<'a> {
    pub directory: Option<&'a str>,
    pub file_path: Option<&'a str>,
    pub position: Option<Position>,
    pub symbol: Option<&'a str>,
    pub symbol_kind: Option<&'a str>,
    pub language: Option<&'a str>,
    pub from_failure: Option<&'a str>,
}

/// Declares a position tool's input: the target fields, then the tool's own.
macro_rules! target_input {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The checkout. Default: the server's working directory.
            #[serde(default)]
            pub directory: Option<String>,
            #[serde(default)]
            #[schemars(example = &"src/lib.rs")]
            pub file_path: Option<String>,
            #[serde(default)]
            pub position: Option<$crate::code::Position>,
            /// Instead of file_path and position: a name, maybe qualified ("Circle::area").
            #[serde(default)]
            pub symbol: Option<String>,
            /// With symbol: function, method, class, struct, ...
            #[serde(default)]
            pub symbol_kind: Option<String>,
            /// With symbol: rust, typescript, python, c or go. Default: all in the checkout.
            #[serde(default)]
            pub language: Option<String>,
            /// Instead: "file:line" of a failure (line from 1); targets the function holding it.
            #[serde(default)]
            #[schemars(example = &"src/lib.rs:42")]
            pub from_failure: Option<String>,
            $($(#[$fmeta])* pub $field: $ty,)*
        }

        impl $name {
            pub(crate) fn target(&self) -> $crate::code::TargetArgs<'_> {
                $crate::code::TargetArgs {
                    directory: self.directory.as_deref(),
                    file_path: self.file_path.as_deref(),
                    position: self.position,
                    symbol: self.symbol.as_deref(),
                    symbol_kind: self.symbol_kind.as_deref(),
                    language: self.language.as_deref(),
                    from_failure: self.from_failure.as_deref(),
                }
            }
        }
    };
}
pub(crate) use target_input;

/// The language-server error as agents see it, with its stable code.
pub(crate) fn lsp_error(e: resolve_pr_lsp::Error) -> Error {
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
pub(crate) fn relative_error(mut e: Error, workspace: &Path) -> Error {
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

/// The workspace: `directory`, else the server's working directory; canonical.
pub(crate) fn workspace(ctx: &Context, directory: Option<&str>) -> Result<PathBuf> {
    if ctx.local.remote_callers {
        return Err(Error::user(
            "the code tools read a checkout on the server's machine, which callers of a shared \
             (HTTP) server cannot name",
        )
        .with_code("NOT_AVAILABLE_REMOTELY")
        .with_suggestion("Run resolve-pr over stdio on the machine that has the checkout."));
    }
    let dir = match directory {
        Some(d) => PathBuf::from(d),
        None => ctx.local.cwd.clone().ok_or_else(|| {
            Error::user("no directory was given and the server has no working directory")
                .with_code("INVALID_PATH")
                .with_detail("field", "directory")
        })?,
    };
    let canonical = dir.canonicalize().map_err(|e| {
        Error::user(format!("directory {} cannot be read: {e}", dir.display()))
            .with_code("INVALID_PATH")
            .with_detail("field", "directory")
    })?;
    if !canonical.is_dir() {
        return Err(Error::user(format!("{} is not a directory", dir.display()))
            .with_code("INVALID_PATH")
            .with_detail("field", "directory"));
    }
    Ok(canonical)
}

/// A file inside the workspace: relative to it, or absolute within it.
pub(crate) fn file_in(workspace: &Path, file_path: &str, field: &str) -> Result<PathBuf> {
    let joined = workspace.join(file_path);
    let canonical = joined.canonicalize().map_err(|e| {
        Error::user(format!(
            "{file_path} cannot be read in {}: {e}",
            workspace.display()
        ))
        .with_code("INVALID_PATH")
        .with_detail("field", field)
        .with_suggestion("Give the path relative to the workspace (directory).")
    })?;
    if !canonical.starts_with(workspace) {
        return Err(Error::user(format!(
            "{file_path} is outside the workspace {}",
            workspace.display()
        ))
        .with_code("INVALID_PATH")
        .with_detail("field", field));
    }
    if !canonical.is_file() {
        return Err(Error::user(format!("{file_path} is not a file"))
            .with_code("INVALID_PATH")
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
        .with_code("UNSUPPORTED_LANGUAGE")
        .with_detail("field", field)
        .with_suggestion("The code tools read Rust, TypeScript/JavaScript, Python, C/C++ and Go.")
    })
}

pub(crate) fn language_named(name: &str) -> Result<Language> {
    Language::from_name(name).ok_or_else(|| {
        Error::user(format!("{name} is not a language the code tools read"))
            .with_code("UNSUPPORTED_LANGUAGE")
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
            .with_code("INVALID_TARGET")
            .with_suggestion("For example {\"file_path\": \"src/lib.rs\", \"position\": {\"line\": 4, \"character\": 8}} or {\"symbol\": \"Circle::area\"}."));
    }
    if let Some(name) = args.symbol {
        if name.trim().is_empty() {
            return Err(Error::user("symbol is empty")
                .with_code("INVALID_TARGET")
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
            .with_code("INVALID_TARGET")
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
            .with_code("INVALID_TARGET")
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
        .with_code("UNSUPPORTED_LANGUAGE")
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

/// A target made concrete, with the server that answers about it.
pub(crate) struct Aimed {
    pub server: Server,
    pub resolved: resolve_pr_lsp::Resolved,
    pub workspace: PathBuf,
    /// Where a name asked for is re-exported (a Rust `pub use`), which is not where it is
    /// declared.
    pub re_exports: Vec<resolve_pr_lsp::Symbol>,
    /// A JavaScript/TypeScript failure's test (the callback passed to `it`/`test`), which
    /// `resolved.symbol` names; `resolved.pos` is then the call nearest the failure of a
    /// function defined in the checkout (the function under test), if there is one.
    pub test: Option<TestTarget>,
    /// Other projects whose sources hold the name asked by, not asked once this one
    /// answered (a monorepo's packages each defining it).
    pub also_in: Vec<PathBuf>,
}

/// The test a failure's line is in, found by syntax.
pub(crate) struct TestTarget {
    pub runner: String,
    /// The callback's lines, zero-based, both included.
    pub body_lines: (u32, u32),
    /// Where the callback starts (line, UTF-16 column).
    pub body_start: (u32, u32),
    /// The function under test the answer is about, `None` when no call in the test
    /// before the failure reaches the checkout's code.
    pub subject: Option<String>,
}

/// Framework calls a test is made of (never the function under test).
const TEST_FRAMEWORK: [&str; 6] = ["expect", "assert", "vi", "jest", "sinon", "chai"];

/// A failure's line inside a JavaScript/TypeScript test callback (`it("adds", () => {..})`),
/// which servers' outlines do not name: the test, and as the position to ask at, the call
/// nearest before the failure of a function the checkout defines (not a test framework's
/// nor a library's, which sit in `node_modules`).
async fn aim_at_test(
    server: &Server,
    workspace: &Path,
    path: &Path,
    line: u32,
) -> Option<(resolve_pr_lsp::Resolved, TestTarget)> {
    let language = match server.language {
        Language::TypeScript => resolve_pr_syntax::Language::for_path(&path.to_string_lossy())?,
        _ => return None,
    };
    let file = path.to_owned();
    let (test, calls) = tokio::task::spawn_blocking(move || {
        let text = std::fs::read_to_string(&file).ok()?;
        let test = resolve_pr_syntax::test_at(language, &text, line)?;
        let mut calls = resolve_pr_syntax::calls_in(language, &text, test.body_lines.0, line)
            .unwrap_or_default();
        calls.retain(|(_, o)| (o.line, o.character) >= test.body_start);
        Some((test, calls))
    })
    .await
    .ok()??;
    // Nearest the failure first; at most a few asked.
    let mut candidates: Vec<&(String, resolve_pr_syntax::Occurrence)> = calls
        .iter()
        .filter(|(name, _)| !TEST_FRAMEWORK.contains(&name.as_str()))
        .collect();
    candidates.sort_by_key(|(_, o)| std::cmp::Reverse((o.line, o.character)));
    let mut subject = None;
    for (name, at) in candidates.into_iter().take(8) {
        let pos = resolve_pr_lsp::Pos {
            line: at.line,
            character: at.character,
        };
        let Ok(found) = server.definition(path, pos).await else {
            continue;
        };
        let ours = found.value.iter().any(|l| {
            l.path.starts_with(workspace)
                && l.path != path
                && !l.path.components().any(|c| c.as_os_str() == "node_modules")
        });
        if ours {
            subject = Some((name.clone(), pos));
            break;
        }
    }
    let at = resolve_pr_lsp::Pos {
        line: test.at.line,
        character: test.at.character,
    };
    let symbol = resolve_pr_lsp::Symbol {
        name: test.title.clone(),
        kind: "function",
        container: None,
        detail: Some(test.runner.clone()),
        location: Loc {
            path: path.to_owned(),
            range: resolve_pr_lsp::Span {
                start: at,
                end: resolve_pr_lsp::Pos {
                    line: test.at.line,
                    character: test.at.end_character,
                },
            },
        },
        full_range: None,
    };
    let resolved = resolve_pr_lsp::Resolved {
        path: path.to_owned(),
        pos: subject.as_ref().map_or(at, |(_, p)| *p),
        symbol: Some(symbol),
        others: Vec::new(),
    };
    Some((
        resolved,
        TestTarget {
            runner: test.runner,
            body_lines: test.body_lines,
            body_start: test.body_start,
            subject: subject.map(|(n, _)| n),
        },
    ))
}

/// A name's matches without its re-exports: rust-analyzer lists a `pub use` among a name's
/// symbols, and ahead of the declaration when its file sorts first. The declaration is taken;
/// the re-exports are said apart. When every match is a re-export, nothing changes.
fn without_re_exports(
    mut resolved: resolve_pr_lsp::Resolved,
) -> (resolve_pr_lsp::Resolved, Vec<resolve_pr_lsp::Symbol>) {
    let Some(first) = resolved.symbol.take() else {
        return (resolved, Vec::new());
    };
    let mut texts = Texts::default();
    let all: Vec<resolve_pr_lsp::Symbol> = std::iter::once(first)
        .chain(std::mem::take(&mut resolved.others))
        .collect();
    let (re_exports, declared): (Vec<_>, Vec<_>) = all
        .into_iter()
        .partition(|s| in_import(&mut texts, &s.location));
    let mut declared = declared.into_iter();
    match declared.next() {
        Some(first) => {
            resolved.path = first.location.path.clone();
            resolved.pos = first.location.range.start;
            resolved.symbol = Some(first);
            resolved.others = declared.collect();
            (resolved, re_exports)
        }
        None => {
            let mut all = re_exports.into_iter();
            resolved.symbol = all.next();
            resolved.others = all.collect();
            (resolved, Vec::new())
        }
    }
}

/// Finds the server and the position for a target. A symbol by name is looked for in each
/// language the workspace holds, until one server knows it.
pub(crate) async fn aim(ctx: &Context, args: &TargetArgs<'_>) -> Result<Aimed> {
    let workspace = workspace(ctx, args.directory)?;
    let (target, file) = target(&workspace, args)?;
    if let Some(file) = file {
        let field = if args.from_failure.is_some() {
            "from_failure"
        } else {
            "file_path"
        };
        let server = server_for_file(ctx, &workspace, &file, field).await?;
        if let Target::Failure { path, line } = &target
            && let Some((resolved, test)) = aim_at_test(&server, &workspace, path, *line).await
        {
            return Ok(Aimed {
                server,
                resolved,
                workspace,
                test: Some(test),
                re_exports: Vec::new(),
                also_in: Vec::new(),
            });
        }
        let resolved = server
            .resolve(&target)
            .await
            .map_err(|e| relative_error(lsp_error(e), &workspace))?;
        return Ok(Aimed {
            server,
            resolved,
            workspace,
            test: None,
            re_exports: Vec::new(),
            also_in: Vec::new(),
        });
    }
    // Each language the checkout holds is asked until one knows the name. When none does,
    // the error says so for all of them: a server still indexing first (call again), then
    // "not found" (naming every server asked), then whatever else went wrong.
    let mut failures: Vec<Error> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let name = match &target {
        Target::Symbol { name, .. } => name_text(name).to_owned(),
        _ => String::new(),
    };
    let languages = languages(&workspace, args.language).await?;
    for &language in &languages {
        let scope = projects_for_name(ctx, language, &workspace, &name, false).await;
        notes.extend(scope.note);
        let roots: Vec<PathBuf> = scope.projects.iter().map(|(r, _)| r.clone()).collect();
        for (i, (root, files)) in scope.projects.into_iter().enumerate() {
            // The other projects whose sources hold the name, not asked once one answers.
            let also_in: Vec<PathBuf> = roots.iter().skip(i + 1).cloned().collect();
            let server = match server_holding(ctx, language, &root, &files).await {
                Ok(s) => s,
                Err(e) => {
                    let missing = e.code() == "SERVER_NOT_INSTALLED";
                    failures.push(lsp_error(e));
                    if missing {
                        break;
                    }
                    continue;
                }
            };
            match server.resolve(&target).await {
                Ok(resolved) => {
                    let (resolved, re_exports) = without_re_exports(resolved);
                    return Ok(Aimed {
                        server,
                        resolved,
                        workspace,
                        test: None,
                        re_exports,
                        also_in,
                    });
                }
                Err(e) => {
                    let mut e = lsp_error(e);
                    // clangd without a compile database indexes only the files it opened:
                    // its "not found" is not to be trusted, and says so.
                    if e.code.as_deref() == Some("SYMBOL_NOT_FOUND")
                        && guessed_flags_in(language, &root).is_some()
                    {
                        e.error.push_str(
                            " (clangd has no compile database, so it saw only the files it \
                             opened: this may be wrong)",
                        );
                        e = e.with_suggestion(
                            "Generate compile_commands.json (CMake \
                             -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, `bear -- make`, or meson's \
                             build directory), or give file_path and position.",
                        );
                    }
                    failures.push(e)
                }
            }
        }
    }
    if failures.is_empty() {
        let names: Vec<&str> = languages.iter().map(|l| l.as_str()).collect();
        failures.push(
            Error::user(format!(
                "no {} source file in the checkout contains `{name}`",
                names.join(" or ")
            ))
            .with_code("SYMBOL_NOT_FOUND")
            .with_suggestion("Check the spelling, or find it with search_symbols; or give file_path and position."),
        );
    }
    let mut err = name_found_nowhere(failures);
    if !notes.is_empty() && err.code.as_deref() == Some("SYMBOL_NOT_FOUND") {
        err.error = format!("{}; not asked: {}", err.error, notes.join("; "));
    }
    Err(err)
}

/// The one error for a name no language found: a server still indexing first (calling
/// again may find it), then a server missing for a language that was to be asked (its
/// sources hold the name, or macros may make it), saying what the others did not find: the
/// name is most likely there, and installing the server is what to do. Then "not found"
/// naming every server asked, then whatever else went wrong (a server that failed).
fn name_found_nowhere(failures: Vec<Error>) -> Error {
    let code = |e: &Error| e.code.as_deref().unwrap_or("").to_owned();
    if let Some(busy) = failures.iter().find(|e| code(e) == "SERVER_INDEXING") {
        return busy.clone();
    }
    let not_found: Vec<&Error> = failures
        .iter()
        .filter(|e| code(e) == "SYMBOL_NOT_FOUND")
        .collect();
    let mut said: Vec<&str> = Vec::new();
    for e in &not_found {
        if !said.contains(&e.error.as_str()) {
            said.push(e.error.as_str());
        }
    }
    if let Some(missing) = failures.iter().find(|e| code(e) == "SERVER_NOT_INSTALLED")
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
            .with_code("SYMBOL_NOT_FOUND")
            .with_suggestion("Check the spelling, or find it with search_symbols; or give file_path and position.");
    }
    failures
        .into_iter()
        .next()
        .unwrap_or_else(|| Error::user("no language to look in").with_code("SYMBOL_NOT_FOUND"))
}

/// The lines of context a page of locations shows, read from the files: never more than
/// [`CACHED_FILES`] files held at once (each at most `CONTEXT_FILE_BYTES`), so an answer never
/// holds a checkout in memory, however many locations it pages through; tools ask for the
/// lines of the page they show only.
#[derive(Default)]
pub(crate) struct Texts {
    /// Most recently used first.
    files: std::collections::VecDeque<(PathBuf, Option<Vec<String>>)>,
    /// Files read, for tests.
    read: usize,
}

/// How many files' lines a [`Texts`] keeps.
const CACHED_FILES: usize = 8;

impl Texts {
    fn line(&mut self, path: &Path, line: u32) -> Option<String> {
        let at = match self.files.iter().position(|(p, _)| p == path) {
            Some(at) => at,
            None => {
                self.read += 1;
                let small = std::fs::metadata(path)
                    .map(|m| m.len() <= CONTEXT_FILE_BYTES)
                    .unwrap_or(false);
                let lines = small.then(|| std::fs::read(path).ok()).flatten().map(|b| {
                    String::from_utf8_lossy(&b)
                        .split('\n')
                        .map(str::to_owned)
                        .collect()
                });
                self.files.push_front((path.to_owned(), lines));
                self.files.truncate(CACHED_FILES);
                0
            }
        };
        if at > 0
            && let Some(entry) = self.files.remove(at)
        {
            self.files.push_front(entry);
        }
        let text = self.files.front()?.1.as_ref()?.get(line as usize)?.trim();
        if text.is_empty() {
            return None;
        }
        let mut out: String = text.chars().take(CONTEXT_CHARS).collect();
        if text.chars().count() > CONTEXT_CHARS {
            out.push('…');
        }
        Some(out)
    }

    /// How many files it has read.
    #[cfg(test)]
    fn files_read(&self) -> usize {
        self.read
    }

    /// A location as the contract shows it.
    pub fn location(&mut self, workspace: &Path, loc: &Loc) -> Location {
        Location {
            file_path: display_path(workspace, &loc.path),
            range: range(loc.range),
            context: self.line(&loc.path, loc.range.start.line),
            source: None,
        }
    }

    /// The whole text of a file (as far as it is small enough to read), from the lines held.
    fn source(&mut self, path: &Path) -> Option<String> {
        self.line(path, 0);
        let (held, lines) = self.files.front()?;
        (held == path).then(|| lines.as_ref().map(|l| l.join("\n")))?
    }
}

/// The tree-sitter grammar of a file, when the syntax crate reads its language.
fn grammar_of(path: &Path) -> Option<resolve_pr_syntax::Language> {
    resolve_pr_syntax::Language::for_path(&path.to_string_lossy())
}

/// The declaration (function, method, type) holding each position of one file, read with
/// tree-sitter: one parse for the file, one lookup per position.
fn containers_in(
    texts: &mut Texts,
    path: &Path,
    positions: &[resolve_pr_lsp::Pos],
) -> Vec<Option<String>> {
    let found = grammar_of(path)
        .zip(texts.source(path))
        .map(|(language, source)| {
            resolve_pr_syntax::enclosing_declarations(
                language,
                &source,
                &positions
                    .iter()
                    .map(|p| (p.line, p.character))
                    .collect::<Vec<_>>(),
            )
            .unwrap_or_default()
        });
    match found {
        Some(found) if found.len() == positions.len() => {
            found.into_iter().map(|e| e.map(|e| e.name)).collect()
        }
        _ => vec![None; positions.len()],
    }
}

/// Relative to the workspace with `/`, or absolute when outside it.
pub(crate) fn display_path(workspace: &Path, path: &Path) -> String {
    match path.strip_prefix(workspace) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => outside_path(path),
    }
}

/// A path outside the checkout (a toolchain's or a dependency's source, where a definition
/// or a callee may be), shortened to what names it: the standard library or package
/// directory it is in and the path below, not the machine's home and install layout.
fn outside_path(path: &Path) -> String {
    let full = path.to_string_lossy();
    const PLACES: [(&str, &str); 6] = [
        ("/lib/rustlib/src/rust/library/", "<rust std>/"),
        ("/registry/src/", "<cargo registry>/"),
        ("/node_modules/", "<node_modules>/"),
        ("/site-packages/", "<site-packages>/"),
        ("/typeshed-fallback/", "<typeshed>/"),
        ("/pkg/mod/", "<go modules>/"),
    ];
    for (marker, name) in PLACES {
        if let Some(at) = full.rfind(marker) {
            let mut rest = &full[at + marker.len()..];
            // The registry's index directory (`index.crates.io-…/`) says nothing.
            if marker == "/registry/src/" {
                rest = rest.split_once('/').map_or(rest, |(_, r)| r);
            }
            return format!("{name}{rest}");
        }
    }
    full.into_owned()
}

/// The symbol as the contract shows it.
pub(crate) fn symbol_info(
    texts: &mut Texts,
    workspace: &Path,
    language: Language,
    s: &resolve_pr_lsp::Symbol,
) -> SymbolInfo {
    SymbolInfo {
        name: s.name.clone(),
        symbol_kind: s.kind.to_owned(),
        language: language.as_str().to_owned(),
        container: s.container.clone(),
        location: texts.location(workspace, &s.location),
    }
}

/// Where a page starts (from its cursor) and the cursor of the next one.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Offset {
    pub offset: usize,
}

/// Refuses a cursor this call cannot continue from, before any server is started or asked:
/// a bad cursor costs nothing.
pub(crate) fn check_cursor(
    ctx: &Context,
    tool: &str,
    raw: &Value,
    cursor: Option<&str>,
) -> Result<()> {
    if let Some(c) = cursor {
        ctx.cursors.decode::<Offset>(tool, raw, c)?;
    }
    Ok(())
}

/// The items of the page the cursor points at, and the next page's cursor.
pub(crate) fn page<T>(
    ctx: &Context,
    tool: &str,
    raw: &Value,
    cursor: Option<&str>,
    items: Vec<T>,
) -> Result<(Vec<T>, Option<String>)> {
    let start = match cursor {
        Some(c) => ctx.cursors.decode::<Offset>(tool, raw, c)?.offset,
        None => 0,
    };
    let total = items.len();
    let shown: Vec<T> = items.into_iter().skip(start).take(PAGE).collect();
    let next = (start + PAGE < total).then(|| {
        ctx.cursors.encode(
            tool,
            raw,
            &Offset {
                offset: start + PAGE,
            },
        )
    });
    Ok((shown, next))
}

/// What a code tool's text says once about its positions: `file:line:column` counts from 1,
/// as compilers and editors print it, while the structured output and the `position`
/// argument count from 0, as LSP and seed 002 do.
pub(crate) const ONE_BASED: &str = "(line:column from 1; a position argument counts from 0)";

/// `file:line:column`, counting from 1 (see [`ONE_BASED`]).
pub(crate) fn shown_at(file: &str, line: u32, character: u32) -> String {
    format!(
        "{file}:{}:{}",
        u64::from(line) + 1,
        u64::from(character) + 1
    )
}

/// One line per location, `file:line:column` from 1.
pub(crate) fn render_locations<L: Shown>(out: &mut String, locations: &[L]) {
    for shown in locations {
        let l = shown.location();
        out.push('\n');
        out.push_str(&shown_at(
            &l.file_path,
            l.range.start.line,
            l.range.start.character,
        ));
        if let Some(c) = shown.container() {
            out.push_str(&format!(" (in {c})"));
        }
        if l.source.as_deref() == Some("text") {
            out.push_str(" [text match]");
        }
        if let Some(c) = &l.context {
            out.push_str("  ");
            out.push_str(c);
        }
    }
}

/// What a location question asks the server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Goto {
    Definition,
    TypeDefinition,
    Implementations,
    References { include_declaration: bool },
}

/// The answer of find_definition, find_references, find_implementations and
/// find_type_definition.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LocationsOutput<L = Location> {
    /// The symbol asked about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SymbolInfo>,
    pub locations: Vec<L>,
    /// On every page.
    pub total: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// What the server was indexing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexing: Option<String>,
    pub server: String,
    /// Each starts with its code (AMBIGUOUS_TARGET).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Warnings about how a target was resolved.
pub(crate) fn target_warnings(texts: &mut Texts, aimed: &Aimed) -> Vec<String> {
    let mut warnings = Vec::new();
    if let (Some(test), Some(symbol)) = (&aimed.test, &aimed.resolved.symbol) {
        let about = match &test.subject {
            Some(name) => format!("the answer is about {name}, the call nearest before the failure of a function the checkout defines"),
            None => "no call in it before the failure reaches the checkout's code, so the answer is about the test's own call".to_owned(),
        };
        return vec![format!(
            "FROM_FAILURE: the line is in the test {}({:?}) at line {}; {about}. get_call_hierarchy gives the calls the test makes.",
            test.runner,
            symbol.name,
            u64::from(symbol.location.range.start.line) + 1
        )];
    }
    if !aimed.re_exports.is_empty() {
        warnings.push(re_exported(
            &aimed.workspace,
            aimed.re_exports.iter().map(|s| &s.location),
        ));
    }
    if !aimed.also_in.is_empty() {
        let names: Vec<String> = aimed
            .also_in
            .iter()
            .map(|r| display_path(&aimed.workspace, r))
            .map(|r| if r.is_empty() { ".".to_owned() } else { r })
            .collect();
        warnings.push(format!(
            "AMBIGUOUS_TARGET: the name is also in {} other {} ({}), not asked; the answer is \
             for the first. Give file_path and position, or directory, to ask another.",
            names.len(),
            if names.len() == 1 {
                "project"
            } else {
                "projects"
            },
            names.join(", ")
        ));
    }
    let others = &aimed.resolved.others;
    if others.is_empty() {
        return warnings;
    }
    let listed: Vec<String> = others
        .iter()
        .take(5)
        .map(|s| {
            let l = texts.location(&aimed.workspace, &s.location);
            shown_at(&l.file_path, l.range.start.line, l.range.start.character)
        })
        .collect();
    warnings.push(format!(
        "AMBIGUOUS_TARGET: {} more {} this name ({}{}); the answer is for the first. \
         Give a qualified name, symbol_kind, or file_path and position to choose.",
        others.len(),
        if others.len() == 1 {
            "symbol has"
        } else {
            "symbols have"
        },
        listed.join(", "),
        if others.len() > 5 { ", ..." } else { "" }
    ));
    warnings
}

/// The note for where a name is re-exported (made visible, not defined).
fn re_exported<'a>(workspace: &Path, places: impl Iterator<Item = &'a Loc>) -> String {
    let places: Vec<&Loc> = places.collect();
    let listed: Vec<String> = places
        .iter()
        .take(5)
        .map(|l| {
            shown_at(
                &display_path(workspace, &l.path),
                l.range.start.line,
                l.range.start.character,
            )
        })
        .collect();
    format!(
        "RE_EXPORTED: also made visible (not defined) at {}{}",
        listed.join(", "),
        if places.len() > 5 { ", ..." } else { "" }
    )
}

/// What clangd lacks without a compile database (`compile_commands.json` beside the file or
/// in an ancestor, or in a `build/` below one; or `compile_flags.txt`), where it looks for
/// one: it guesses the flags and indexes only the files it opened, so an answer may be
/// short. None for other servers.
pub(crate) fn guessed_flags(server: &Server, file: &Path) -> Option<String> {
    if server.language != Language::C || has_compile_database(file, &server.root) {
        return None;
    }
    Some(NO_COMPILE_DATABASE.to_owned())
}

/// [`guessed_flags`] for a project as a whole (a question asked of it, not of one file).
pub(crate) fn guessed_flags_in(language: Language, root: &Path) -> Option<String> {
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

/// The symbol a position names, for an answer about a position: the declaration whose name
/// is there, else the declaration its definition is (from the files' outlines).
pub(crate) async fn symbol_at(
    server: &Server,
    path: &Path,
    pos: resolve_pr_lsp::Pos,
    definitions: Option<&[Loc]>,
) -> Option<resolve_pr_lsp::Symbol> {
    let name = identifier_at(path, pos)?;
    let named = |s: &resolve_pr_lsp::Symbol, at: &Loc| {
        let bare = s.name.rsplit([':', '.']).next().unwrap_or(&s.name);
        s.location.path == at.path
            && s.location.range.start <= at.range.start
            && at.range.start <= s.location.range.end
            && (bare == name || s.name == name)
    };
    let here = Loc {
        path: path.to_owned(),
        range: resolve_pr_lsp::Span {
            start: pos,
            end: pos,
        },
    };
    if let Ok(symbols) = server.document_symbols(path).await
        && let Some(s) = symbols.into_iter().find(|s| named(s, &here))
    {
        return Some(s);
    }
    let asked;
    let definitions = match definitions {
        Some(d) => d,
        None => {
            asked = server.definition(path, pos).await.ok()?.value;
            &asked
        }
    };
    for def in definitions.iter().take(2) {
        if let Ok(symbols) = server.document_symbols(&def.path).await
            && let Some(s) = symbols.into_iter().find(|s| named(s, def))
        {
            return Some(s);
        }
    }
    None
}

/// Whether a location is inside an import (`use`, `import`, a re-export): such a location is
/// where a name is made visible, not where it is defined.
fn in_import(texts: &mut Texts, loc: &Loc) -> bool {
    let Some(language) = grammar_of(&loc.path) else {
        return false;
    };
    let Some(source) = texts.source(&loc.path) else {
        return false;
    };
    resolve_pr_syntax::in_import(
        language,
        &source,
        loc.range.start.line,
        loc.range.start.character,
    )
    .unwrap_or(false)
}

/// Asks one location question about a target and pages the answer.
pub(crate) async fn locate(
    ctx: &Context,
    tool: &str,
    args: &TargetArgs<'_>,
    cursor: Option<&str>,
    raw: &Value,
    goto: Goto,
) -> Result<LocationsOutput<Reference>> {
    check_cursor(ctx, tool, raw, cursor)?;
    let aimed = aim(ctx, args).await?;
    let (path, pos) = (&aimed.resolved.path, aimed.resolved.pos);
    let server = &aimed.server;
    let answer = match goto {
        Goto::Definition => server.definition(path, pos).await,
        Goto::TypeDefinition => server.type_definition(path, pos).await,
        Goto::Implementations => server.implementations(path, pos).await,
        Goto::References {
            include_declaration,
        } => server.references(path, pos, include_declaration).await,
    }
    .map_err(|e| relative_error(lsp_error(e), &aimed.workspace))?;
    let mut texts = Texts::default();
    let mut warnings = Vec::new();
    // A definition that is an import (Rust's `pub use`) re-exports the name: it is said
    // apart, not listed as a definition (unless nothing else was found).
    let mut value = answer.value.clone();
    if matches!(goto, Goto::Definition) {
        let (imports, defined): (Vec<Loc>, Vec<Loc>) = value
            .iter()
            .cloned()
            .partition(|l| in_import(&mut texts, l));
        if !imports.is_empty() && !defined.is_empty() {
            warnings.push(re_exported(&aimed.workspace, imports.iter()));
            value = defined;
        }
    }
    // Every location, with whether a syntax scan found it; sorted and paged before any file
    // is read for its context line.
    let mut found: Vec<(&resolve_pr_lsp::Loc, bool)> = value.iter().map(|l| (l, false)).collect();
    let missed = if matches!(goto, Goto::References { .. })
        && server.language == resolve_pr_lsp::Language::Rust
    {
        macro_references(&aimed, &answer.value).await
    } else {
        Vec::new()
    };
    found.extend(missed.iter().map(|l| (l, true)));
    let with_containers = matches!(goto, Goto::References { .. });
    let (locations, total, next_cursor) = page_locations(
        ctx,
        tool,
        raw,
        cursor,
        &aimed.workspace,
        found,
        with_containers,
    )
    .await?;
    let symbol = match &aimed.resolved.symbol {
        Some(s) => Some(s.clone()),
        None => {
            let definitions = matches!(goto, Goto::Definition).then_some(answer.value.as_slice());
            symbol_at(server, path, pos, definitions).await
        }
    };
    let target = symbol
        .as_ref()
        .map(|s| symbol_info(&mut texts, &aimed.workspace, server.language, s));
    warnings.extend(target_warnings(&mut texts, &aimed));
    let guessed = guessed_flags(server, path);
    let partial = answer.indexing.is_some() || guessed.is_some();
    warnings.extend(guessed);
    Ok(LocationsOutput {
        target,
        locations,
        total,
        next_cursor,
        partial,
        indexing: answer.indexing,
        server: server.installed.spec.name.to_owned(),
        warnings,
    })
}

impl LocationsOutput<Reference> {
    /// The answer without the containers of its locations (which only find_references
    /// gives).
    pub(crate) fn plain(self) -> LocationsOutput<Location> {
        LocationsOutput {
            target: self.target,
            locations: self.locations.into_iter().map(|r| r.location).collect(),
            total: self.total,
            next_cursor: self.next_cursor,
            partial: self.partial,
            indexing: self.indexing,
            server: self.server,
            warnings: self.warnings,
        }
    }
}

/// Sorts `found` (each with whether a syntax scan found it) by file and position, and shows
/// the page the cursor asks for, reading context lines for that page only (off the async
/// runtime). The page, the total and the next cursor.
pub(crate) async fn page_locations(
    ctx: &Context,
    tool: &str,
    raw: &Value,
    cursor: Option<&str>,
    workspace: &Path,
    found: Vec<(&resolve_pr_lsp::Loc, bool)>,
    with_containers: bool,
) -> Result<(Vec<Reference>, usize, Option<String>)> {
    let mut keyed: Vec<(String, resolve_pr_lsp::Pos, &resolve_pr_lsp::Loc, bool)> = found
        .into_iter()
        .map(|(l, text)| (display_path(workspace, &l.path), l.range.start, l, text))
        .collect();
    keyed.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let total = keyed.len();
    let (shown, next_cursor) = page(ctx, tool, raw, cursor, keyed)?;
    let shown: Vec<(String, resolve_pr_lsp::Pos, resolve_pr_lsp::Loc, bool)> = shown
        .into_iter()
        .map(|(p, at, l, text)| (p, at, l.clone(), text))
        .collect();
    let ws = workspace.to_owned();
    let locations = tokio::task::spawn_blocking(move || {
        let shown = shown
            .iter()
            .map(|(p, at, l, text)| (p.clone(), *at, l, *text))
            .collect();
        locations_of(&mut Texts::default(), &ws, shown, with_containers)
    })
    .await
    .map_err(|e| Error::unknown(format!("reading the context lines failed: {e}")))?;
    Ok((locations, total, next_cursor))
}

/// The page's locations, with their context lines.
fn locations_of(
    texts: &mut Texts,
    workspace: &Path,
    shown: Vec<(String, resolve_pr_lsp::Pos, &resolve_pr_lsp::Loc, bool)>,
    with_containers: bool,
) -> Vec<Reference> {
    let mut out: Vec<Reference> = Vec::with_capacity(shown.len());
    // Sorted by file: each file's locations are looked up in one parse.
    let mut at = 0;
    while at < shown.len() {
        let path = &shown[at].2.path;
        let end = at + shown[at..].iter().take_while(|s| &s.2.path == path).count();
        let positions: Vec<resolve_pr_lsp::Pos> =
            shown[at..end].iter().map(|s| s.2.range.start).collect();
        let containers = if with_containers {
            containers_in(texts, path, &positions)
        } else {
            vec![None; positions.len()]
        };
        for ((_, _, l, text), container) in shown[at..end].iter().zip(containers) {
            out.push(Reference {
                location: Location {
                    source: text.then(|| "text".to_owned()),
                    ..texts.location(workspace, l)
                },
                container,
            });
        }
        at = end;
    }
    out
}

/// The text of a location answer.
pub(crate) fn render_locations_output<L: Shown>(what: &str, out: &LocationsOutput<L>) -> String {
    let mut text = match &out.target {
        Some(t) => format!(
            "{} of {} {} ({}): {}",
            what,
            t.symbol_kind,
            t.name,
            shown_at(
                &t.location.file_path,
                t.location.range.start.line,
                t.location.range.start.character
            ),
            out.total
        ),
        None => format!("{what}: {}", out.total),
    };
    text.push(' ');
    text.push_str(ONE_BASED);
    if let Some(i) = &out.indexing {
        text.push_str(&format!(
            "; {} is still indexing ({i}), so this may be incomplete",
            out.server
        ));
    }
    render_locations(&mut text, &out.locations);
    for w in &out.warnings {
        text.push('\n');
        text.push_str(w);
    }
    text
}

/// The code tools read the local checkout and change nothing.
pub(crate) const READ_LOCAL: crate::registry::Annotations = crate::registry::Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// The largest file a syntax scan reads.
const SCAN_FILE_BYTES: u64 = 4 << 20;

/// Uses of the target's name inside macro arguments that the server did not return:
/// rust-analyzer misses calls written in some macros' arguments (`assert_eq!(f(..), ..)`,
/// `proptest! { .. }`). A syntax scan finds the name as an identifier token inside macro
/// token trees of the files where the symbol is already known to be used (those of the
/// server's answer and the one asked about: in Rust a file that calls an item imports or
/// names it, and that is a reference the server finds), so a different item of the same
/// name elsewhere is not taken for it. Each is a candidate, marked as found by text.
async fn macro_references(aimed: &Aimed, found: &[Loc]) -> Vec<Loc> {
    // The declaring module's name, as a path names it (`budget` for budget.rs).
    let module = aimed
        .resolved
        .symbol
        .as_ref()
        .map(|s| s.location.path.clone())
        .or_else(|| found.first().map(|l| l.path.clone()))
        .and_then(|p| {
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            if stem == "mod" || stem == "lib" || stem == "main" {
                p.parent()?
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            } else {
                Some(stem)
            }
        });
    let asked = (aimed.resolved.path.clone(), aimed.resolved.pos);
    let found = found.to_vec();
    // Every file is read here, off the async runtime, once, and none is held past its scan.
    tokio::task::spawn_blocking(move || {
        scan_macro_calls(&asked, module.as_deref(), &found, &mut |p| read_scanned(p))
    })
    .await
    .unwrap_or_default()
}

/// A file's text for a syntax scan: none for a file too big (generated) or unreadable.
fn read_scanned(path: &Path) -> Option<String> {
    if std::fs::metadata(path)
        .map(|m| m.len() > SCAN_FILE_BYTES)
        .unwrap_or(true)
    {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The scan of [`macro_references`]: the name at `asked`, looked for in the file asked about
/// (first, where the name is read) and those of the server's references, each file read once
/// by `read` and dropped after its scan.
fn scan_macro_calls(
    asked: &(PathBuf, resolve_pr_lsp::Pos),
    module: Option<&str>,
    found: &[Loc],
    read: &mut dyn FnMut(&Path) -> Option<String>,
) -> Vec<Loc> {
    let mut files: Vec<PathBuf> = found.iter().map(|l| l.path.clone()).collect();
    files.sort();
    files.dedup();
    files.retain(|f| *f != asked.0);
    files.insert(0, asked.0.clone());
    let found_at: std::collections::HashSet<(&Path, u32, u32)> = found
        .iter()
        .map(|l| {
            (
                l.path.as_path(),
                l.range.start.line,
                l.range.start.character,
            )
        })
        .collect();
    let mut name: Option<String> = None;
    // How the server's references use the name: the character after it (`(` for calls,
    // `,` or `;` in imports, `::` for a path). A macro token followed by something else
    // (`cut.len()` where a local variable shares a function's name) is not taken.
    let mut follows = std::collections::HashSet::new();
    let mut out = Vec::new();
    for file in files {
        let Some(text) = read(&file) else {
            if name.is_none() {
                return Vec::new();
            }
            continue;
        };
        if name.is_none() {
            name = identifier_in(&text, asked.1);
        }
        let Some(name) = name.as_deref() else {
            return Vec::new();
        };
        for l in found.iter().filter(|l| l.path == file) {
            if let Some(c) = char_after(&text, l.range.end) {
                follows.insert(c);
            }
        }
        let Ok(hits) = resolve_pr_syntax::identifier_occurrences(
            resolve_pr_syntax::Language::Rust,
            &text,
            name,
        ) else {
            continue;
        };
        for hit in hits.into_iter().filter(|h| h.in_macro) {
            if found_at.contains(&(file.as_path(), hit.line, hit.character)) {
                continue;
            }
            let end = resolve_pr_lsp::Pos {
                line: hit.line,
                character: hit.end_character,
            };
            // Calls only (what the server misses in macros).
            if char_after(&text, end) != Some('(') {
                continue;
            }
            // A path names another item (`thiserror::Error`, `forge::Error::new`) unless
            // its last segment is the declaring module.
            if let Some(segment) = path_segment_before(&text, hit.line, hit.character)
                && Some(segment.as_str()) != module
            {
                continue;
            }
            out.push(Loc {
                path: file.clone(),
                range: resolve_pr_lsp::Span {
                    start: resolve_pr_lsp::Pos {
                        line: hit.line,
                        character: hit.character,
                    },
                    end,
                },
            });
        }
    }
    // Only of a name the server's references also call.
    if !follows.is_empty() && !follows.contains(&'(') {
        return Vec::new();
    }
    out
}

/// The path segment right before an identifier (`budget` in `budget::cut`), if a `::` is
/// there.
fn path_segment_before(text: &str, line: u32, character: u32) -> Option<String> {
    let l = text.split('\n').nth(line as usize)?;
    let mut units = 0u32;
    let mut byte = l.len();
    for (i, c) in l.char_indices() {
        if units >= character {
            byte = i;
            break;
        }
        units += u32::try_from(c.len_utf16()).unwrap_or(1);
    }
    let before = l[..byte].trim_end().strip_suffix("::")?.trim_end();
    let start = word_start(before, |c| c.is_alphanumeric() || c == '_');
    Some(before[start..].to_owned())
}

/// The byte offset where the run of `is_word` characters that ends `text` starts: just past
/// the last other character, whatever its width in bytes.
fn word_start(text: &str, is_word: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .rev()
        .find(|&(_, c)| !is_word(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// The first character after a position that is not a space (on its line).
fn char_after(text: &str, pos: resolve_pr_lsp::Pos) -> Option<char> {
    let line = text.split('\n').nth(pos.line as usize)?;
    let mut units = 0u32;
    let mut rest = line;
    for (i, c) in line.char_indices() {
        if units >= pos.character {
            rest = &line[i..];
            break;
        }
        units += u32::try_from(c.len_utf16()).unwrap_or(1);
        rest = "";
    }
    rest.chars().find(|c| !c.is_whitespace())
}

/// The identifier at a position of a file (the name a reference search is about).
fn identifier_at(path: &Path, pos: resolve_pr_lsp::Pos) -> Option<String> {
    identifier_in(&std::fs::read_to_string(path).ok()?, pos)
}

/// The identifier at a position of a text.
fn identifier_in(text: &str, pos: resolve_pr_lsp::Pos) -> Option<String> {
    let line = text.split('\n').nth(pos.line as usize)?;
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    // The character column (UTF-16) as a char index.
    let mut units = 0u32;
    let mut at = None;
    for (i, c) in line.char_indices() {
        if units >= pos.character {
            at = Some(i);
            break;
        }
        units += u32::try_from(c.len_utf16()).unwrap_or(1);
    }
    let at = at.unwrap_or(line.len());
    let start = word_start(&line[..at], is_word);
    let end = line[at..]
        .find(|c: char| !is_word(c))
        .map(|i| at + i)
        .unwrap_or(line.len());
    let word = line.get(start..end)?;
    (!word.is_empty() && !word.starts_with(|c: char| c.is_ascii_digit())).then(|| word.to_owned())
}

pub(crate) use resolve_pr_lsp::servers::source_files;

/// How often a code call tells a client that asked for progress that it is alive: clients
/// that reset their timeout on progress (MCP Inspector's UI) give up 10 s after the last.
pub(crate) const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Runs a code tool's call within the pool's `call_wait`, telling a client that asked for
/// progress every `every` that it is alive and what it waits on (a server starting or
/// indexing, `cargo check`).
///
/// A cold rust-analyzer or `cargo check` can outlast a client's request timeout, and the
/// TypeScript SDK's is 60 s whatever progress says: every wait inside the call ends a margin
/// before the deadline (see `resolve_pr_lsp::deadline`), so the call answers with what the
/// servers have, said to be partial; a call still running at the deadline answers that the
/// servers are busy and when to ask again. A start it leaves goes on for the next call. The
/// progress ticks read the pool's state without waiting on any lock.
pub(crate) async fn bounded<T>(
    ctx: &Context,
    tool: &str,
    every: Duration,
    work: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    let wait = ctx.lsp.config().call_wait;
    let started = Instant::now();
    let deadline = started + wait;
    // Time to write the answer once the servers' waits ended.
    let margin = (wait / 8).min(Duration::from_secs(5));
    let work = resolve_pr_lsp::deadline::within(deadline - margin, work);
    tokio::pin!(work);
    let mut ticks = 0u32;
    loop {
        let next_tick = started + every * (ticks + 1);
        tokio::select! {
            done = &mut work => return done,
            () = tokio::time::sleep_until(next_tick.min(deadline).into()) => {
                if Instant::now() >= deadline {
                    return Err(still_busy(tool, wait, &ctx.lsp.busy()));
                }
                ticks += 1;
                if ctx.progress.is_some() {
                    let seconds = started.elapsed().as_secs();
                    let busy = busy_lines(&ctx.lsp.busy());
                    let message = if busy.is_empty() {
                        format!("{tool}: working ({seconds} s)")
                    } else {
                        format!("{tool}: waiting ({seconds} s); {}", busy.join("; "))
                    };
                    ctx.report_progress(f64::from(ticks), None, message).await;
                }
            }
        }
    }
}

/// How long to wait before asking again when a server is still starting or indexing at a
/// call's deadline: servers say no more than what they are doing, so this is a guess.
const ASK_AGAIN_SECONDS: u64 = 30;

/// The answer of a call that reached its deadline: what each busy server is doing, that it
/// goes on, and when to ask again.
fn still_busy(tool: &str, wait: Duration, busy: &[resolve_pr_lsp::Busy]) -> Error {
    let lines = busy_lines(busy);
    if lines.is_empty() {
        return Error::timeout(format!(
            "{tool} did not finish within {} s (RESOLVE_PR_CODE_CALL_WAIT)",
            wait.as_secs()
        ))
        .with_code("TIMEOUT")
        .with_retry_after(ASK_AGAIN_SECONDS)
        .with_suggestion(
            "Call again: work it started (a cargo check, a server loading its project) \
             keeps what it did; health_check shows the servers' state.",
        );
    }
    Error::timeout(format!(
        "{tool} did not finish within {} s: {}. It goes on in the background.",
        wait.as_secs(),
        lines.join("; ")
    ))
    .with_code("SERVER_INDEXING")
    .with_retry_after(ASK_AGAIN_SECONDS)
    .with_suggestion(format!(
        "Ask again in about {ASK_AGAIN_SECONDS} s; health_check shows what each server is \
         indexing."
    ))
}

/// One line per busy server: `rust-analyzer (crates/x) is starting (12 s)`, or what it
/// indexes. Roots are shown relative to the working directory when under it.
fn busy_lines(busy: &[resolve_pr_lsp::Busy]) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    busy.iter()
        .map(|b| {
            let root = match b.root.strip_prefix(&cwd) {
                Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
                Ok(rel) => rel.display().to_string(),
                Err(_) => b.root.display().to_string(),
            };
            match (&b.starting_for, &b.indexing) {
                (Some(since), _) => format!(
                    "{} for {root} is starting ({} s so far)",
                    b.server,
                    since.as_secs()
                ),
                (None, Some(what)) => format!("{} for {root} is indexing: {what}", b.server),
                (None, None) => format!("{} for {root} is busy", b.server),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 120 locations in 120 files, paged: only the page's 50 files are read for context,
    /// and at most `CACHED_FILES` are held at a time, whatever the number of locations.
    #[test]
    fn only_the_page_shown_is_read_for_context() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let locs: Vec<resolve_pr_lsp::Loc> = (0..120)
            .map(|i| {
                let path = ws.join(format!("f{i:03}.rs"));
                std::fs::write(&path, format!("// file {i}\nfn target_{i}() {{}}\n")).unwrap();
                let at = resolve_pr_lsp::Pos {
                    line: 1,
                    character: 3,
                };
                resolve_pr_lsp::Loc {
                    path,
                    range: resolve_pr_lsp::Span { start: at, end: at },
                }
            })
            .collect();
        let mut keyed: Vec<_> = locs
            .iter()
            .rev()
            .map(|l| (display_path(ws, &l.path), l.range.start, l, false))
            .collect();
        keyed.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        let shown: Vec<_> = keyed.into_iter().take(PAGE).collect();
        let mut texts = Texts::default();
        let page: Vec<Location> = locations_of(&mut texts, ws, shown, false)
            .into_iter()
            .map(|r| r.location)
            .collect();
        assert_eq!(page.len(), PAGE);
        assert_eq!(page[0].file_path, "f000.rs");
        assert_eq!(page[0].context.as_deref(), Some("fn target_0() {}"));
        assert_eq!(texts.files_read(), PAGE);
        assert!(texts.files.len() <= CACHED_FILES);
        // The same file again is not read again while it is held.
        let again = texts.line(&locs[49].path, 0);
        assert_eq!(again.as_deref(), Some("// file 49"));
        assert_eq!(texts.files_read(), PAGE);
    }

    /// The macro scan of find_references reads each file once, the one asked about first
    /// (where the name is read), and keeps only calls of the name.
    #[test]
    fn the_macro_scan_reads_each_file_once() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let p = |line, character| resolve_pr_lsp::Pos { line, character };
        let file = |name: &str, text: &str| {
            let path = ws.join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let lib = file("lib.rs", "pub fn cut(a: i32) -> i32 { a }\n");
        let a = file("a.rs", "fn f() { cut(1); assert!(cut(2) > 0); }\n");
        let b = file("b.rs", "fn g() { cut(3); dbg!(cut.len()); }\n");
        let at = |path: &PathBuf, line, character| Loc {
            path: path.clone(),
            range: resolve_pr_lsp::Span {
                start: p(line, character),
                end: p(line, character + 3),
            },
        };
        let found = vec![at(&a, 0, 9), at(&b, 0, 9), at(&a, 0, 9)];
        let mut reads: Vec<PathBuf> = Vec::new();
        let out = scan_macro_calls(&(lib.clone(), p(0, 7)), Some("lib"), &found, &mut |f| {
            reads.push(f.to_owned());
            read_scanned(f)
        });
        assert_eq!(reads, vec![lib, a.clone(), b]);
        assert_eq!(out, vec![at(&a, 0, 25)]);
    }

    struct Recorder(std::sync::Mutex<Vec<(f64, String)>>);

    impl crate::ProgressSink for Recorder {
        fn report(
            &self,
            progress: f64,
            _total: Option<f64>,
            message: String,
        ) -> crate::BoxFuture<'_, ()> {
            self.0.lock().unwrap().push((progress, message));
            Box::pin(async {})
        }
    }

    #[tokio::test]
    async fn a_long_code_call_reports_progress_only_to_a_client_that_asked() {
        use std::sync::Arc;
        let config = resolve_pr_forge::Config::from_parts(None, None, &|_| None).unwrap();
        let ctx = Context::new(
            Arc::new(resolve_pr_forge::Forges::new(config)),
            resolve_pr_core::CursorCodec::new([1; 32]),
        );
        let slow = || tokio::time::sleep(Duration::from_millis(300));
        // No sink: the call runs as it is.
        bounded(&ctx, "find_references", Duration::from_millis(40), async {
            slow().await;
            Ok(())
        })
        .await
        .unwrap();
        let recorder = Arc::new(Recorder(Default::default()));
        let asked = ctx.with_progress(recorder.clone());
        let answer = bounded(
            &asked,
            "find_references",
            Duration::from_millis(40),
            async {
                slow().await;
                Ok(7)
            },
        )
        .await
        .unwrap();
        assert_eq!(answer, 7);
        let reports = recorder.0.lock().unwrap().clone();
        assert!(reports.len() >= 3, "{reports:?}");
        assert!(
            reports.windows(2).all(|w| w[0].0 < w[1].0),
            "progress grows: {reports:?}"
        );
        assert!(
            reports[0].1.starts_with("find_references: working"),
            "{reports:?}"
        );
        // A quick call sends nothing.
        let before = recorder.0.lock().unwrap().len();
        bounded(&asked, "find_definition", Duration::from_secs(5), async {
            Ok(())
        })
        .await
        .unwrap();
        assert_eq!(recorder.0.lock().unwrap().len(), before);
    }

    /// A call that outlasts `call_wait` answers at it, saying it ran out of time, and the
    /// waits inside it see a deadline before the call's.
    #[tokio::test]
    async fn a_code_call_answers_at_its_deadline_and_its_waits_end_before() {
        use std::sync::Arc;
        let config = resolve_pr_forge::Config::from_parts(None, None, &|_| None).unwrap();
        let mut ctx = Context::new(
            Arc::new(resolve_pr_forge::Forges::new(config)),
            resolve_pr_core::CursorCodec::new([1; 32]),
        );
        ctx.lsp = resolve_pr_lsp::Pool::new(resolve_pr_lsp::PoolConfig {
            call_wait: Duration::from_millis(400),
            ..Default::default()
        });
        let started = Instant::now();
        let e = bounded(&ctx, "find_definition", Duration::from_secs(5), async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(())
        })
        .await
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(e.code.as_deref(), Some("TIMEOUT"), "{e:?}");
        assert!(e.error.contains("did not finish"), "{e:?}");
        assert!(e.retry_after.is_some(), "{e:?}");
        let inner = bounded(&ctx, "find_definition", Duration::from_secs(5), async {
            Ok(resolve_pr_lsp::deadline::wait_until(Duration::from_secs(
                40,
            )))
        })
        .await
        .unwrap();
        assert!(
            inner < started + Duration::from_secs(5),
            "the wait was not cut"
        );
    }

    #[test]
    fn busy_servers_are_named_with_what_they_do() {
        let cwd = std::env::current_dir().unwrap();
        let busy = [
            resolve_pr_lsp::Busy {
                language: Language::Rust,
                server: "rust-analyzer",
                root: cwd.clone(),
                starting_for: Some(Duration::from_secs(12)),
                indexing: None,
            },
            resolve_pr_lsp::Busy {
                language: Language::Python,
                server: "basedpyright",
                root: cwd.join("py"),
                starting_for: None,
                indexing: Some("Indexing 3/40".into()),
            },
        ];
        let e = still_busy("find_definition", Duration::from_secs(45), &busy);
        assert_eq!(e.code.as_deref(), Some("SERVER_INDEXING"));
        assert_eq!(
            e.error,
            "find_definition did not finish within 45 s: rust-analyzer for . is starting (12 s \
             so far); basedpyright for py is indexing: Indexing 3/40. It goes on in the background."
        );
    }

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
        assert_eq!(e.code.as_deref(), Some("SERVER_INDEXING"), "{e:?}");

        let e = name_found_nowhere(vec![not_found("clangd"), not_found("gopls")]);
        assert_eq!(e.code.as_deref(), Some("SYMBOL_NOT_FOUND"), "{e:?}");
        assert_eq!(e.error, "no cut in clangd; no cut in gopls");

        // A server missing for a language that was to be asked is what to fix, not the
        // other servers' "not found" (which blamed gopls in a Rust checkout).
        let e = name_found_nowhere(vec![not_found("gopls"), missing()]);
        assert_eq!(e.code.as_deref(), Some("SERVER_NOT_INSTALLED"), "{e:?}");
        assert_eq!(
            e.error,
            "no language server for python is installed (looked for basedpyright-langserver), \
             so it was not asked; no cut in gopls"
        );
        assert!(e.suggestion.unwrap().contains("pipx install basedpyright"));
        let e = name_found_nowhere(vec![not_found("clangd")]);
        assert_eq!(e.error, "no cut in clangd");

        let e = name_found_nowhere(vec![missing()]);
        assert_eq!(e.code.as_deref(), Some("SERVER_NOT_INSTALLED"), "{e:?}");
        assert!(e.suggestion.unwrap().contains("pipx install basedpyright"));

        let e = name_found_nowhere(Vec::new());
        assert_eq!(e.code.as_deref(), Some("SYMBOL_NOT_FOUND"), "{e:?}");
    }

    #[test]
    fn the_identifier_at_a_position_is_the_whole_word() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.rs");
        std::fs::write(&f, "let 😀 = add_numbers(1, 2);\n").unwrap();
        let at = |c| {
            identifier_at(
                &f,
                resolve_pr_lsp::Pos {
                    line: 0,
                    character: c,
                },
            )
        };
        assert_eq!(at(9).as_deref(), Some("add_numbers"));
        assert_eq!(at(15).as_deref(), Some("add_numbers"));
        assert_eq!(at(20).as_deref(), Some("add_numbers"));
        assert_eq!(at(22), None);
        std::fs::write(&f, "x(«add_numbers»)\n").unwrap();
        assert_eq!(at(5).as_deref(), Some("add_numbers"));
    }

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
        assert!(!has_compile_database(&file, &root));
        for at in [
            "lib/src/compile_flags.txt",
            "lib/build/compile_commands.json",
            "compile_commands.json",
            "lib/src/deep/build/compile_commands.json",
        ] {
            let marker = dir.path().join(at);
            std::fs::create_dir_all(marker.parent().unwrap()).unwrap();
            std::fs::write(&marker, "[]").unwrap();
            assert!(has_compile_database(&file, &root), "{at}");
            std::fs::remove_file(&marker).unwrap();
        }
        // A build/ elsewhere (not below an ancestor) is not looked in.
        let other = dir.path().join("lib/tools/build/compile_commands.json");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, "[]").unwrap();
        assert!(!has_compile_database(&file, &root));
    }

    #[test]
    fn the_path_segment_before_a_name() {
        assert_eq!(
            path_segment_before("x(budget::cut(a))", 0, 10).as_deref(),
            Some("budget")
        );
        assert_eq!(
            path_segment_before("thiserror::Error", 0, 11).as_deref(),
            Some("thiserror")
        );
        assert_eq!(path_segment_before("cut(a)", 0, 0), None);
        // A multi-byte character right before the path (columns in UTF-16 units).
        assert_eq!(
            path_segment_before("«budget::cut(a)»", 0, 9).as_deref(),
            Some("budget")
        );
        assert_eq!(
            path_segment_before("😀budget::cut", 0, 10).as_deref(),
            Some("budget")
        );
    }

    #[test]
    fn a_path_outside_the_checkout_is_named_by_where_it_lives() {
        let ws = Path::new("/work/checkout");
        let cases = [
            (
                "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/core/src/result.rs",
                "<rust std>/core/src/result.rs",
            ),
            (
                "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serde-1.0.0/src/lib.rs",
                "<cargo registry>/serde-1.0.0/src/lib.rs",
            ),
            (
                "/work/checkout/node_modules/vitest/dist/index.d.ts",
                "node_modules/vitest/dist/index.d.ts",
            ),
            (
                "/home/u/.nvm/lib/node_modules/typescript/lib/lib.es5.d.ts",
                "<node_modules>/typescript/lib/lib.es5.d.ts",
            ),
            ("/usr/include/stdio.h", "/usr/include/stdio.h"),
        ];
        for (path, shown) in cases {
            assert_eq!(display_path(ws, Path::new(path)), shown);
        }
    }

    #[test]
    fn the_character_after_a_position_skips_spaces() {
        let p = |line, character| resolve_pr_lsp::Pos { line, character };
        assert_eq!(char_after("cut (x)\nab", p(0, 3)), Some('('));
        assert_eq!(char_after("😀cut.len()", p(0, 5)), Some('.'));
        assert_eq!(char_after("cut", p(0, 3)), None);
        assert_eq!(char_after("a", p(3, 0)), None);
    }
}
