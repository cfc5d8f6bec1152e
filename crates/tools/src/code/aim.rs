//! A target made concrete: the server and the position a position, a symbol or a failure's
//! `file:line` points at, and the warnings about how it was resolved.

use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_lsp::{Language, Loc, Server, Target};

use super::errors::name_found_nowhere;
use super::macro_scan::identifier_at;
use super::texts::grammar_of;
use super::{
    TargetArgs, Texts, display_path, languages, lsp_error, name_text, projects_for_name,
    relative_error, server_for_file, server_holding, shown_at, target,
};
use crate::Context;
use crate::checkout::workspace;
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
pub(super) fn re_exported<'a>(workspace: &Path, places: impl Iterator<Item = &'a Loc>) -> String {
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
pub(super) fn in_import(texts: &mut Texts, loc: &Loc) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
