//! A target made concrete: the server and the position a position, a symbol or a failure's
//! `file:line` points at.

use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_lsp::{Language, Loc, Pool, Server, Target};

use super::errors::name_found_nowhere;
use super::macro_scan::identifier_at;
use super::texts::grammar_of;
use super::{
    Texts, file_in, guessed_flags_in, languages, lsp_error, name_text, projects_for_name,
    relative_error, server_for_file, server_holding,
};

/// The target an agent names, as plain values: `file_path` with `position`, or `symbol`
/// (with `symbol_kind` and `language` to narrow it), or `from_failure` (`file:line`, lines
/// from 1). Exactly one of the three is to be given; errors name these fields.
#[derive(Debug, Clone, Copy, Default)]
pub struct TargetSpec<'a> {
    pub file_path: Option<&'a str>,
    /// Zero-based line and UTF-16 column.
    pub position: Option<resolve_pr_lsp::Pos>,
    pub symbol: Option<&'a str>,
    pub symbol_kind: Option<&'a str>,
    pub language: Option<&'a str>,
    pub from_failure: Option<&'a str>,
}

/// The target as the language-server layer takes it, with the file that picks the server
/// (none for a symbol by name).
pub fn target(workspace: &Path, args: &TargetSpec<'_>) -> Result<(Target, Option<PathBuf>)> {
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
            pos,
        },
        Some(path),
    ))
}

/// A target made concrete, with the server that answers about it.
pub struct Aimed {
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
pub struct TestTarget {
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
        Language::TypeScript => resolve_pr_syntax::dialect_of(&path.to_string_lossy())?,
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

/// Finds the server and the position for a target in `workspace` (canonical). A symbol by
/// name is looked for in each language the workspace holds, until one server knows it.
pub async fn aim(pool: &Pool, workspace: PathBuf, args: &TargetSpec<'_>) -> Result<Aimed> {
    let (target, file) = target(&workspace, args)?;
    if let Some(file) = file {
        let field = if args.from_failure.is_some() {
            "from_failure"
        } else {
            "file_path"
        };
        let server = server_for_file(pool, &workspace, &file, field).await?;
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
        let scope = projects_for_name(pool, language, &workspace, &name, false).await;
        notes.extend(scope.note);
        let roots: Vec<PathBuf> = scope.projects.iter().map(|(r, _)| r.clone()).collect();
        for (i, (root, files)) in scope.projects.into_iter().enumerate() {
            // The other projects whose sources hold the name, not asked once one answers.
            let also_in: Vec<PathBuf> = roots.iter().skip(i + 1).cloned().collect();
            let server = match server_holding(pool, language, &root, &files).await {
                Ok(s) => s,
                Err(e) => {
                    let missing = e.code() == ErrorCode::ServerNotInstalled;
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
                    if e.code == Some(ErrorCode::SymbolNotFound)
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
            .with_code(ErrorCode::SymbolNotFound)
            .with_suggestion("Check the spelling, or find it with search_symbols; or give file_path and position."),
        );
    }
    let mut err = name_found_nowhere(failures);
    if !notes.is_empty() && err.code == Some(ErrorCode::SymbolNotFound) {
        err.error = format!("{}; not asked: {}", err.error, notes.join("; "));
    }
    Err(err)
}

/// The symbol a position names, for an answer about a position: the declaration whose name
/// is there, else the declaration its definition is (from the files' outlines).
pub async fn symbol_at(
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
pub fn in_import(texts: &mut Texts, loc: &Loc) -> bool {
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
