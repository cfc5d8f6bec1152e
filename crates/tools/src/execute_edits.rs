//! `execute_edits` (seed 002's legacy internal API): text edits by file and LSP position
//! (from 0, UTF-16), or a WorkspaceEdit, as one plan.

use std::collections::BTreeMap;
use std::path::PathBuf;

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::PlanMeta;
use resolve_pr_source::{
    FileChange, LineCol, LineIndex, TextEdit, TextRange, WorkspaceChange, apply_edits,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::Context;
use crate::code::Position;
use crate::internal::{
    EDIT_PLAN, Kind, inside, kind_at, language_of, plan_input, workspace_edit_change,
};
use crate::refactor::{RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditItem {
    pub file_path: String,
    pub start: Position,
    pub end: Position,
    pub new_text: String,
}

plan_input! {
    pub struct Input {
        /// Edits against the files as they are; positions from 0, UTF-16.
        #[serde(default)]
        pub edits: Option<Vec<EditItem>>,
        /// Instead: an LSP WorkspaceEdit.
        #[serde(default)]
        #[schemars(with = "Option<serde_json::Map<String, Value>>")]
        pub workspace_edit: Option<Value>,
    }
}

pub struct ExecuteEdits;

impl Tool for ExecuteEdits {
    const NAME: &'static str = "execute_edits";
    const TITLE: &'static str = "Execute text edits";
    const DESCRIPTION: &'static str = "Applies text edits (file_path, start, end, new_text; LSP positions) or a workspace_edit inside the checkout as one plan, applied by plan_id, undone by rollback.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let make = async {
            let change = match (&input.edits, &input.workspace_edit) {
                (Some(edits), None) => edits_change(&root, edits)?,
                (None, Some(edit)) => workspace_edit_change(&root, edit, "workspace_edit")?,
                _ => {
                    return Err(Error::user(
                        "execute_edits takes edits or workspace_edit (one of them) to plan",
                    )
                    .with_code(ErrorCode::InvalidArgument)
                    .with_detail("field", "edits"));
                }
            };
            let meta = PlanMeta {
                plan_type: EDIT_PLAN.into(),
                kind: "edits".into(),
                language: language_of(&change),
                warnings: Vec::new(),
            };
            Ok((change, meta))
        };
        plan_or_apply(ctx, Self::NAME, &root, EDIT_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

fn bad(field: String, why: impl std::fmt::Display) -> Error {
    Error::user(format!("{field}: {why}"))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", field)
}

/// The edits, a step per file in the order files first appear; each against the file as
/// it is.
fn edits_change(root: &std::path::Path, edits: &[EditItem]) -> Result<WorkspaceChange> {
    if edits.is_empty() {
        return Err(bad("edits".into(), "no edits"));
    }
    let mut order: Vec<PathBuf> = Vec::new();
    let mut texts: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut by_file: BTreeMap<PathBuf, Vec<(usize, TextEdit)>> = BTreeMap::new();
    for (k, e) in edits.iter().enumerate() {
        let field = format!("edits[{k}].file_path");
        let rel = inside(root, &e.file_path, &field)?;
        if !texts.contains_key(&rel) {
            if kind_at(root, &rel) != Kind::File {
                return Err(crate::internal::invalid_path(
                    &e.file_path,
                    "is not a file",
                    &field,
                ));
            }
            let text = std::fs::read_to_string(root.join(&rel))
                .map_err(|err| bad(field.clone(), format!("cannot be read as text: {err}")))?;
            texts.insert(rel.clone(), text);
            order.push(rel.clone());
        }
        let index = LineIndex::new(&texts[&rel]);
        let at = |p: Position, name: &str| {
            index
                .offset_utf16(LineCol {
                    line: p.line,
                    col: p.character,
                })
                .map_err(|err| bad(format!("edits[{k}].{name}"), err))
        };
        let (start, end) = (at(e.start, "start")?, at(e.end, "end")?);
        if end < start {
            return Err(bad(format!("edits[{k}].end"), "is before start"));
        }
        by_file.entry(rel).or_default().push((
            k,
            TextEdit::replace(TextRange::new(start, end), e.new_text.clone()),
        ));
    }
    let mut changes = Vec::new();
    for path in order {
        let edits = by_file.remove(&path).unwrap_or_default();
        for (i, (k, a)) in edits.iter().enumerate() {
            if let Some((j, _)) = edits[..i]
                .iter()
                .find(|(_, b)| a.range.start < b.range.end && b.range.start < a.range.end)
            {
                return Err(bad(format!("edits[{k}]"), format!("overlaps edits[{j}]")));
            }
        }
        let edits: Vec<TextEdit> = edits.into_iter().map(|(_, e)| e).collect();
        apply_edits(&texts[&path], &edits).map_err(|err| bad("edits".into(), err))?;
        changes.push(FileChange::Edit { path, edits });
    }
    Ok(WorkspaceChange { changes })
}
