//! `delete`: removes unused imports (by the compiler's or linter's own findings), a file (refused while other files import it, unless forced), or a symbol's declaration (refused while it is referenced). Plans by default.

use std::path::{Path, PathBuf};
use std::time::Duration;

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_lsp::Language;
use resolve_pr_source::{FileChange, TextEdit, TextRange, WorkspaceChange};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{
    aim, file_in, language_of, lsp_error, relative_error, server_for_file, target_input,
};
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeleteKind {
    UnusedImports,
    File,
    DeadCode,
    RedundantCode,
}

target_input! {
    pub struct Input {
        /// unused_imports (of file_path, or of the whole checkout for language), file, dead_code (the symbol at the target).
        #[serde(default)]
        pub kind: Option<DeleteKind>,
        /// Plan only; write nothing.
        #[serde(default = "crate::refactor::yes")]
        pub dry_run: bool,
        /// With dry_run: false, the plan to apply exactly.
        #[serde(default)]
        pub plan_id: Option<String>,
        /// Delete even what is still referenced, and apply without verification.
        #[serde(default)]
        pub force: bool,
    }
}

pub struct Delete;

impl Tool for Delete {
    const NAME: &'static str = "delete";
    const TITLE: &'static str = "Delete unused imports, a file or dead code";
    const DESCRIPTION: &'static str = "Deletes unused imports (rustc's and ruff's own findings and fixes), a file (refused while others import it), or a symbol's declaration (refused while referenced).";
    const TOOLSET: crate::Toolset = crate::Toolset::Refactor;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let mode = Mode {
            dry_run: input.dry_run,
            plan_id: input.plan_id.as_deref(),
            force: input.force,
        };
        let make = async {
            let Some(kind) = input.kind else {
                return Err(needs_kind(Self::NAME, "unused_imports, file or dead_code"));
            };
            match kind {
                DeleteKind::UnusedImports => unused_imports(ctx, &root, &input).await,
                DeleteKind::File => delete_file(ctx, &root, &input).await,
                DeleteKind::DeadCode => dead_code(ctx, &input).await,
                DeleteKind::RedundantCode => Err(Error::user(
                    "delete kind redundant_code is not offered: no language server or linter here finds redundant code with a fix",
                )
                .with_code(ErrorCode::NotSupported)
                .with_suggestion("Use unused_imports, file or dead_code.")),
            }
        };
        plan_or_apply(ctx, Self::NAME, &root, "DeletePlan", mode, make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

/// A plan asked for without `kind` (an apply by plan_id needs none).
pub(crate) fn needs_kind(tool: &str, kinds: &str) -> Error {
    Error::user(format!(
        "{tool} needs kind ({kinds}) to plan; only an apply by plan_id goes without"
    ))
    .with_code(ErrorCode::InvalidArgument)
    .with_detail("field", "kind")
}

/// How long a fixer (cargo check, ruff) may take within a call.
fn fixer_time() -> Duration {
    let until = resolve_pr_lsp::deadline::wait_until_leaving(
        Duration::from_secs(900),
        Duration::from_secs(5),
    );
    until.saturating_duration_since(std::time::Instant::now())
}

fn meta(kind: &str, language: Option<Language>, warnings: Vec<Warning>) -> PlanMeta {
    PlanMeta {
        plan_type: "DeletePlan".into(),
        kind: kind.into(),
        language: language.map(|l| l.as_str().to_owned()),
        warnings,
    }
}

async fn unused_imports(
    ctx: &Context,
    root: &Path,
    input: &Input,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let (language, files) = match input.file_path.as_deref() {
        Some(file) => {
            let path = file_in(root, file, "file_path")?;
            let language = language_of(&path, "file_path")?;
            (
                language,
                vec![path.strip_prefix(root).unwrap_or(&path).to_owned()],
            )
        }
        None => {
            let Some(name) = input.language.as_deref() else {
                return Err(Error::user(
                    "unused_imports needs file_path, or language for the whole checkout",
                )
                .with_code(ErrorCode::InvalidArgument)
                .with_detail("field", "file_path"));
            };
            let language = crate::code::language_named(name)?;
            let (files, _) = resolve_pr_lsp::servers::source_files(root, language, 20_000);
            let rel: Vec<PathBuf> = files
                .iter()
                .filter_map(|f| f.strip_prefix(root).ok().map(Path::to_owned))
                .collect();
            (language, rel)
        }
    };
    let fixes = match language {
        Language::Rust => {
            if ctx.lsp.trust_of(root) != resolve_pr_lsp::Trust::Trusted {
                return Err(Error::user(
                    "rustc finds unused imports by building, which runs this checkout's build scripts and macros, and the checkout is not trusted",
                )
                .with_code(ErrorCode::NotSupported)
                .with_suggestion("Trust the checkout (RESOLVE_PR_TRUST) to let cargo check run."));
            }
            let only = input.file_path.is_some().then_some(files.as_slice());
            resolve_pr_code::imports::rust_unused_imports(root, only, fixer_time()).await
        }
        Language::Python => resolve_pr_code::imports::ruff_fixes(root, &files, "F401", fixer_time()).await,
        _ => {
            // clangd's organize-imports changes nothing: its unused-include diagnostics carry
            // the fixes, asked for with those diagnostics in the request. TypeScript's
            // removeUnusedImports only removes; organizeImports (gopls) also sorts.
            let kinds = ["source.removeUnusedImports", "source.organizeImports"];
            let mut change = WorkspaceChange::default();
            let mut by = String::new();
            for file in &files {
                let found = if language == Language::C {
                    unused_includes(ctx, root, &root.join(file)).await?
                } else {
                    crate::refactor::actions::source_action(ctx, root, &root.join(file), &kinds)
                        .await?
                        .map(|(c, who, _)| (c, who))
                };
                if let Some((c, who)) = found {
                    change.changes.extend(c.changes);
                    by = who;
                }
            }
            Ok(resolve_pr_code::imports::Fixes {
                fixed: change.changes.len(),
                change,
                by,
            })
        }
    }
    .map_err(|why| Error::unknown(format!("unused imports could not be found: {why}")).with_code(ErrorCode::ServerFailed))?;
    let note = Warning {
        code: "FOUND_BY".into(),
        message: format!("{} import finding(s) fixed by {}", fixes.fixed, fixes.by),
    };
    Ok((
        fixes.change,
        meta("delete.unused_imports", Some(language), vec![note]),
    ))
}

/// clangd's fixes of a file's `unused-includes` diagnostics: its "remove all unused
/// includes" where offered, else each "remove #include directive". `None`: no unused include.
async fn unused_includes(
    ctx: &Context,
    root: &Path,
    file: &Path,
) -> Result<Option<(WorkspaceChange, String)>> {
    let server = crate::code::server_for_file(ctx, root, file, "file_path").await?;
    let fixes = server
        .quick_fixes(
            file,
            &["unused-includes"],
            std::time::Duration::from_secs(30),
        )
        .await
        .map_err(|e| crate::code::relative_error(crate::code::lsp_error(e), root))?;
    let title = |a: &&resolve_pr_lsp::refactor::Action| a.title.to_lowercase();
    let chosen: Vec<_> = match fixes.iter().find(|a| title(a).contains("all unused")) {
        Some(all) => vec![all],
        None => fixes
            .iter()
            .filter(|a| title(a).contains("remove"))
            .collect(),
    };
    let mut change = WorkspaceChange::default();
    for action in &chosen {
        let c = server
            .action_change(action)
            .await
            .map_err(|e| crate::code::relative_error(crate::code::lsp_error(e), root))?;
        change
            .changes
            .extend(crate::refactor::rebase(c, &server.root, root)?.changes);
    }
    Ok((!chosen.is_empty()).then(|| {
        let titles: Vec<&str> = chosen.iter().map(|a| a.title.as_str()).collect();
        (
            change,
            format!(
                "{}: \"{}\"",
                server.installed.spec.name,
                titles.join("\", \"")
            ),
        )
    }))
}

async fn delete_file(
    ctx: &Context,
    root: &Path,
    input: &Input,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let Some(file) = input.file_path.as_deref() else {
        return Err(Error::user("delete kind file needs file_path")
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", "file_path"));
    };
    let path = file_in(root, file, "file_path")?;
    let rel = path.strip_prefix(root).unwrap_or(&path).to_owned();
    let mut warnings = Vec::new();
    let mut language = None;
    if Language::of_path(&path).is_some() {
        let server = server_for_file(ctx, root, &path, "file_path").await?;
        language = Some(server.language);
        // What the server would rewrite if the file moved is what names it by path.
        let probe = path.with_extension(format!(
            "{}.resolve-pr-probe",
            path.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
        match server
            .will_rename_files(&[(path.clone(), probe)])
            .await
            .map_err(|e| relative_error(lsp_error(e), root))?
        {
            Some(edits) => {
                let mut users: Vec<String> = edits
                    .changes
                    .iter()
                    .flat_map(|c| c.paths())
                    .map(|p| server.root.join(p))
                    .filter(|p| p != &path)
                    .map(|p| p.strip_prefix(root).unwrap_or(&p).display().to_string())
                    .collect();
                users.sort();
                users.dedup();
                if !users.is_empty() && !input.force {
                    return Err(Error::user(format!(
                        "{file} is still imported by {}: deleting it would break them",
                        users.join(", ")
                    ))
                    .with_code(ErrorCode::InvalidTarget)
                    .with_detail("referenced_by", users)
                    .with_suggestion("Remove those imports first, or pass force: true."));
                }
            }
            None => warnings.push(Warning {
                code: "REFERENCES_NOT_CHECKED".into(),
                message: format!(
                    "{} cannot say which files import {file}; the plan's verification is the check",
                    server.installed.spec.name
                ),
            }),
        }
    }
    let change = WorkspaceChange {
        changes: vec![FileChange::Delete {
            path: rel,
            recursive: false,
            ignore_if_not_exists: false,
        }],
    };
    Ok((change, meta("delete.file", language, warnings)))
}

/// Whole lines from `start` to `end` (bytes), with the comments, attributes and
/// decorators right above.
fn declaration_lines(text: &str, start: usize, end: usize) -> TextRange {
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut from = line_start(start);
    loop {
        if from == 0 {
            break;
        }
        let prev = line_start(from - 1);
        let line = text[prev..from].trim();
        let attached = ["///", "//!", "//", "#[", "@", "/**", "*", "*/"]
            .iter()
            .any(|p| line.starts_with(p));
        if !attached || line.is_empty() {
            break;
        }
        from = prev;
    }
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    TextRange::new(from, to)
}

async fn dead_code(ctx: &Context, input: &Input) -> Result<(WorkspaceChange, PlanMeta)> {
    let aimed = aim(ctx, &input.target()).await?;
    let server = &aimed.server;
    let refs = server
        .references(&aimed.resolved.path, aimed.resolved.pos, false)
        .await
        .map_err(|e| relative_error(lsp_error(e), &aimed.workspace))?;
    let users: Vec<String> = refs
        .value
        .iter()
        .map(|l| {
            let p = l.path.strip_prefix(&aimed.workspace).unwrap_or(&l.path);
            format!("{}:{}", p.display(), l.range.start.line + 1)
        })
        .collect();
    if !users.is_empty() && !input.force {
        return Err(Error::user(format!(
            "the symbol is still referenced {} time(s): {}",
            users.len(),
            users
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_code(ErrorCode::InvalidTarget)
        .with_detail("referenced_at", users)
        .with_suggestion("It is not dead code; remove its uses first, or pass force: true."));
    }
    // The declaration's whole extent, from the server's document symbols.
    let symbols = server
        .document_symbols(&aimed.resolved.path)
        .await
        .map_err(|e| relative_error(lsp_error(e), &aimed.workspace))?;
    let pos = aimed.resolved.pos;
    let holder = symbols
        .iter()
        .filter(|s| s.location.path == aimed.resolved.path)
        .filter_map(|s| {
            let r = s.full_range.unwrap_or(s.location.range);
            (r.start <= pos
                && pos <= r.end
                && s.location.range.start <= pos
                && pos <= s.location.range.end)
                .then_some(r)
        })
        .min_by_key(|r| (r.end.line - r.start.line, r.end.character));
    let Some(range) = holder else {
        return Err(
            Error::user("no declaration at the target: name the symbol itself")
                .with_code(ErrorCode::SymbolNotFound),
        );
    };
    let text = std::fs::read_to_string(&aimed.resolved.path).map_err(|e| {
        Error::unknown(format!("reading the file: {e}")).with_code(ErrorCode::IoError)
    })?;
    let index = resolve_pr_source::LineIndex::new(&text);
    let at = |p: resolve_pr_lsp::Pos| {
        index.offset_utf16_clamped(resolve_pr_source::LineCol {
            line: p.line,
            col: p.character,
        })
    };
    let (Ok(start), Ok(end)) = (at(range.start), at(range.end)) else {
        return Err(Error::unknown("the server's range is not in the file")
            .with_code(ErrorCode::ServerError));
    };
    let rel = aimed
        .resolved
        .path
        .strip_prefix(&aimed.workspace)
        .unwrap_or(&aimed.resolved.path)
        .to_owned();
    let change = WorkspaceChange {
        changes: vec![FileChange::Edit {
            path: rel,
            edits: vec![TextEdit::delete(declaration_lines(&text, start, end))],
        }],
    };
    Ok((
        change,
        meta("delete.dead_code", Some(server.language), Vec::new()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaration_takes_its_doc_comment_and_attributes() {
        let text = "use a;\n\n/// Docs.\n#[inline]\npub fn f() {\n    1\n}\nfn g() {}\n";
        let start = text.find("pub fn").unwrap();
        let end = text.find("}\nfn g").unwrap() + 1;
        let r = declaration_lines(text, start, end);
        assert_eq!(
            &text[r.start..r.end],
            "/// Docs.\n#[inline]\npub fn f() {\n    1\n}\n"
        );
    }
}
