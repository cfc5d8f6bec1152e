//! `reorder`: sorts a file's imports: ruff's isort rules in Python, the language server's organize-imports elsewhere. Plans by default.

use std::path::Path;
use std::time::Duration;

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_lsp::Language;
use resolve_pr_source::WorkspaceChange;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{Position, Range, file_in, language_of};
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReorderKind {
    Imports,
    Parameters,
    Members,
    Statements,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[serde(default)]
    pub kind: Option<ReorderKind>,
    #[schemars(example = &"src/app.py")]
    #[serde(default)]
    pub file_path: Option<String>,
    /// members: at the type's name.
    #[serde(default)]
    pub position: Option<Position>,
    /// Plan only; write nothing.
    #[serde(default = "crate::refactor::yes")]
    pub dry_run: bool,
    /// With dry_run: false, the plan to apply exactly.
    #[serde(default)]
    pub plan_id: Option<String>,
    /// Apply without verification.
    #[serde(default)]
    pub force: bool,
}

pub struct Reorder;

impl Tool for Reorder {
    const NAME: &'static str = "reorder";
    const TITLE: &'static str = "Reorder imports or members";
    const DESCRIPTION: &'static str = "Sorts a file's imports (ruff in Python, rustfmt in Rust, organize-imports elsewhere), or a Rust type's members alphabetically.";
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
        let make = imports(ctx, &root, &input);
        plan_or_apply(ctx, Self::NAME, &root, "ReorderPlan", mode, make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

async fn imports(ctx: &Context, root: &Path, input: &Input) -> Result<(WorkspaceChange, PlanMeta)> {
    let Some(file) = input.file_path.as_deref() else {
        return Err(Error::user("reorder needs file_path")
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", "file_path"));
    };
    let Some(kind) = input.kind else {
        return Err(crate::delete::needs_kind("reorder", "imports or members"));
    };
    match kind {
        ReorderKind::Imports => {}
        // rust-analyzer sorts a type's fields, variants or methods alphabetically (the
        // only member order a server here performs).
        ReorderKind::Members => {
            let Some(position) = input.position else {
                return Err(Error::user(
                    "reorder members needs position: at the struct's, enum's, impl's or trait's name",
                )
                .with_code(ErrorCode::InvalidArgument)
                .with_detail("field", "position"));
            };
            let path = file_in(root, file, "file_path")?;
            // rust-analyzer offers the sort for a selection of the name, not a cursor.
            let range = std::fs::read_to_string(&path)
                .ok()
                .and_then(|text| name_at(&text, position))
                .ok_or_else(|| {
                    Error::user(format!(
                        "no name at line {} character {} of {file} (zero-based)",
                        position.line, position.character
                    ))
                    .with_code(ErrorCode::SymbolNotFound)
                    .with_detail("field", "position")
                })?;
            return crate::refactor::actions::by_action(
                ctx,
                root,
                "ReorderPlan",
                "reorder.members",
                file,
                Some(range),
                None,
            )
            .await;
        }
        ReorderKind::Parameters | ReorderKind::Statements => {
            return Err(Error::user(format!(
                "reorder {} is not offered: no language server here reorders parameters or statements",
                if kind == ReorderKind::Parameters { "parameters" } else { "statements" }
            ))
            .with_code(ErrorCode::NotSupported)
            .with_suggestion("reorder kind imports (any language) or members (Rust) is offered."));
        }
    }
    let path = file_in(root, file, "file_path")?;
    let language = language_of(&path, "file_path")?;
    let rel = path.strip_prefix(root).unwrap_or(&path).to_owned();
    let fixes = match language {
        Language::Python => {
            resolve_pr_code::imports::ruff_fixes(root, &[rel], "I001", Duration::from_secs(60))
                .await
                .map_err(|why| {
                    Error::unknown(format!("imports could not be sorted: {why}"))
                        .with_code(ErrorCode::ServerFailed)
                })?
        }
        // rust-analyzer has no action that only sorts imports: rustfmt formats each run of
        // `use` declarations alone, so the order is cargo fmt's and nothing else changes.
        Language::Rust => {
            resolve_pr_code::imports::rust_sorted_imports(root, &rel, Duration::from_secs(60))
                .await
                .map_err(|why| {
                    Error::unknown(format!("imports could not be sorted: {why}"))
                        .with_code(ErrorCode::ServerFailed)
                })?
        }
        _ => {
            let kinds = ["source.sortImports", "source.organizeImports"];
            let Some((change, by, language)) =
                crate::refactor::actions::source_action(ctx, root, &path, &kinds).await?
            else {
                return Err(Error::user(format!(
                    "the {} server offers no organize-imports action for {file}",
                    language.as_str()
                ))
                .with_code(ErrorCode::NotSupported));
            };
            return Ok((
                change,
                PlanMeta {
                    plan_type: "ReorderPlan".into(),
                    kind: "reorder.imports".into(),
                    language: Some(language.as_str().to_owned()),
                    warnings: vec![Warning {
                        code: "PERFORMED_BY".into(),
                        message: by,
                    }],
                },
            ));
        }
    };
    Ok((
        fixes.change,
        PlanMeta {
            plan_type: "ReorderPlan".into(),
            kind: "reorder.imports".into(),
            language: Some(language.as_str().to_owned()),
            warnings: vec![Warning {
                code: "FOUND_BY".into(),
                message: format!("sorted by {}", fixes.by),
            }],
        },
    ))
}

/// The range of the identifier a position touches (a UTF-16 position, as LSP's).
pub(crate) fn name_at(text: &str, at: Position) -> Option<Range> {
    let lines = resolve_pr_source::LineIndex::new(text);
    let line = lines.line(at.line)?;
    let offset = lines
        .offset_utf16(resolve_pr_source::LineCol {
            line: at.line,
            col: at.character,
        })
        .ok()?;
    let start_of_line = offset - line_offset(&lines, at.line)?;
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let start = line[..start_of_line]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c))
        .last()
        .map_or(start_of_line, |(i, _)| i);
    let end = line[start_of_line..]
        .find(|c: char| !is_word(c))
        .map_or(line.len(), |i| start_of_line + i);
    if start == end {
        return None;
    }
    let column = |byte: usize| resolve_pr_source::utf16_len(&line[..byte]);
    Some(Range {
        start: Position {
            line: at.line,
            character: column(start),
        },
        end: Position {
            line: at.line,
            character: column(end),
        },
    })
}

/// The byte offset where a line starts.
fn line_offset(lines: &resolve_pr_source::LineIndex<'_>, line: u32) -> Option<usize> {
    lines
        .offset_utf8(resolve_pr_source::LineCol { line, col: 0 })
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_a_position_touches_is_selected() {
        let text = "fn a() {}\npub struct Pälette { x: u8 }\n";
        let at = |line, character| name_at(text, Position { line, character });
        let want = |s, e| Range {
            start: Position {
                line: 1,
                character: s,
            },
            end: Position {
                line: 1,
                character: e,
            },
        };
        assert_eq!(at(1, 11), Some(want(11, 18)));
        assert_eq!(at(1, 14), Some(want(11, 18)));
        assert_eq!(at(1, 18), Some(want(11, 18)));
        assert_eq!(at(1, 19), None);
        assert_eq!(at(5, 0), None);
    }
}
