//! `execute_batch` (seed 002's internal API): several planning tools' changes merged into
//! one plan, applied at once (one journal, one snapshot_id: all or nothing).
//!
//! Each operation is planned by its own tool (a dry run, as that tool would), its change
//! read back from the stored plan, and the changes merged in order. Edits of one file by
//! two operations are both against its text as it is: merged, refused where they overlap;
//! any other path two operations name (a file one renames and another edits) is refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_source::{FileChange, WorkspaceChange};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::Context;
use crate::internal::plan_input;
use crate::refactor::{RefactorOutput, WRITES_LOCAL, open_checkout, plan_or_apply, render};
use crate::registry::Tool;

const MAX_OPERATIONS: usize = 20;
const BATCH_PLAN: &str = "BatchPlan";

/// Tools that plan no change of their own, or are this one.
const NOT_BATCHED: [&str; 4] = ["execute_batch", "rollback", "read_file", "list_files"];

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// An internal or refactoring tool (write_file, rename, ...).
    pub tool: String,
    /// Its arguments (directory, dry_run and plan_id are the batch's).
    #[serde(default)]
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub arguments: Value,
}

plan_input! {
    pub struct Input {
        /// At most 20, planned in order.
        #[serde(default)]
        pub operations: Option<Vec<Operation>>,
    }
}

pub struct ExecuteBatch;

impl Tool for ExecuteBatch {
    const NAME: &'static str = "execute_batch";
    const TITLE: &'static str = "Execute operations as one plan";
    const DESCRIPTION: &'static str = "Plans up to 20 internal or refactoring tool calls and merges their changes into one plan, applied atomically (one snapshot_id); overlapping edits refused.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let make = async {
            let operations = input.operations.as_deref().unwrap_or_default();
            check(operations)?;
            let mut parts = Vec::new();
            let mut language = None;
            let mut warnings = Vec::new();
            for (i, op) in operations.iter().enumerate() {
                let mut args = op.arguments.as_object().cloned().unwrap_or_default();
                args.insert("directory".into(), Value::from(root.display().to_string()));
                args.insert("dry_run".into(), Value::Bool(true));
                args.remove("plan_id");
                let planned = Box::pin(crate::registry::call(ctx, &op.tool, Value::Object(args)))
                    .await
                    .map_err(|e| in_operation(e, i, &op.tool))?;
                let Some(id) = planned.structured["plan"]["plan_id"].as_str() else {
                    return Err(
                        Error::user(format!("operations[{i}] ({}) made no plan", op.tool))
                            .with_code(ErrorCode::InvalidArgument)
                            .with_detail("field", format!("operations[{i}].tool")),
                    );
                };
                let (checkout, _) = open_checkout(ctx, &root)?;
                let plan = checkout
                    .load_plan(id)
                    .map_err(|e| in_operation(e.to_core(), i, &op.tool))?;
                language = language.or(plan.language.clone());
                warnings.extend(plan.warnings.iter().map(|w| Warning {
                    code: w.code.clone(),
                    message: format!("operations[{i}] ({}): {}", op.tool, w.message),
                }));
                parts.push(plan.change);
            }
            let names: Vec<&str> = operations.iter().map(|o| o.tool.as_str()).collect();
            let change = merge(parts, &names)?;
            let meta = PlanMeta {
                plan_type: BATCH_PLAN.into(),
                kind: "batch".into(),
                language,
                warnings,
            };
            Ok((change, meta))
        };
        plan_or_apply(ctx, Self::NAME, &root, BATCH_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

fn check(operations: &[Operation]) -> Result<()> {
    let bad = |field: String, why: String| {
        Err(Error::user(why)
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", field))
    };
    if operations.is_empty() || operations.len() > MAX_OPERATIONS {
        return bad(
            "operations".into(),
            format!(
                "execute_batch takes 1 to {MAX_OPERATIONS} operations to plan, not {}",
                operations.len()
            ),
        );
    }
    for (i, op) in operations.iter().enumerate() {
        let batched = crate::registry::find(&op.tool).is_some_and(|t| {
            matches!(
                t.toolset,
                crate::Toolset::Internal | crate::Toolset::Refactor
            ) && !NOT_BATCHED.contains(&t.name)
        });
        if !batched {
            return bad(
                format!("operations[{i}].tool"),
                format!(
                    "{:?} is not a tool execute_batch runs: an internal or refactoring tool that plans (write_file, rename, ...)",
                    op.tool
                ),
            );
        }
        if !(op.arguments.is_object() || op.arguments.is_null()) {
            return bad(
                format!("operations[{i}].arguments"),
                "arguments must be an object".into(),
            );
        }
    }
    Ok(())
}

/// An operation's error, said to be its, fields named from the batch's arguments.
fn in_operation(mut e: Error, i: usize, tool: &str) -> Error {
    e.error = format!("operations[{i}] ({tool}): {}", e.error);
    let field = e
        .details
        .as_ref()
        .and_then(|d| d.get("field"))
        .and_then(Value::as_str)
        .map(|f| format!("operations[{i}].arguments.{f}"))
        .unwrap_or_else(|| format!("operations[{i}]"));
    e.with_detail("field", field).with_detail("operation", i)
}

fn conflict(field: String, why: String) -> Error {
    Error::user(why)
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", field)
        .with_suggestion(
            "Run those operations in separate batches, or give one of them both changes.",
        )
}

/// The operations' changes as one, in order (see the module's comment).
fn merge(parts: Vec<WorkspaceChange>, names: &[&str]) -> Result<WorkspaceChange> {
    let mut out: Vec<FileChange> = Vec::new();
    // Each path named so far: the operation naming it, and the step holding its edits
    // while it has had nothing but one text-edit step.
    let mut touched: BTreeMap<PathBuf, (usize, Option<usize>)> = BTreeMap::new();
    // The later operations whose edits of a path went into an earlier one's step: a second
    // step of theirs there would be against their own first.
    let mut merged: std::collections::BTreeSet<(PathBuf, usize)> = Default::default();
    let other = |touched: &BTreeMap<PathBuf, (usize, Option<usize>)>, path: &Path, i: usize| {
        touched
            .iter()
            .find(|(q, (j, _))| {
                *j != i && q.as_path() != path && (q.starts_with(path) || path.starts_with(q))
            })
            .map(|(q, (j, _))| (q.clone(), *j))
    };
    let clash = |i: usize, j: usize, path: &Path| {
        conflict(
            format!("operations[{i}]"),
            format!(
                "operations[{j}] ({}) and operations[{i}] ({}) both change {}: a batch does not chain changes of one path",
                names[j],
                names[i],
                path.display()
            ),
        )
    };
    for (i, change) in parts.into_iter().enumerate() {
        for step in change.changes {
            if let FileChange::Edit { path, edits } = step {
                if let Some((q, j)) = other(&touched, &path, i) {
                    return Err(clash(i, j, &q));
                }
                match touched.get(&path).copied() {
                    None => {
                        touched.insert(path.clone(), (i, Some(out.len())));
                        out.push(FileChange::Edit { path, edits });
                    }
                    Some((j, _)) if j == i => {
                        touched.insert(path.clone(), (i, None));
                        out.push(FileChange::Edit { path, edits });
                    }
                    Some((j, Some(_))) if merged.contains(&(path.clone(), i)) => {
                        return Err(clash(i, j, &path));
                    }
                    Some((j, Some(at))) => {
                        let Some(FileChange::Edit {
                            edits: existing, ..
                        }) = out.get_mut(at)
                        else {
                            return Err(clash(i, j, &path));
                        };
                        if let Some((a, b)) = edits.iter().find_map(|a| {
                            existing
                                .iter()
                                .find(|b| {
                                    a.range.start < b.range.end && b.range.start < a.range.end
                                })
                                .map(|b| (a, b))
                        }) {
                            return Err(conflict(
                                format!("operations[{i}]"),
                                format!(
                                    "operations[{j}] ({}) and operations[{i}] ({}) edit overlapping text of {} (bytes {}..{} and {}..{})",
                                    names[j],
                                    names[i],
                                    path.display(),
                                    b.range.start,
                                    b.range.end,
                                    a.range.start,
                                    a.range.end
                                ),
                            ));
                        }
                        existing.extend(edits);
                        merged.insert((path, i));
                    }
                    Some((j, None)) => return Err(clash(i, j, &path)),
                }
                continue;
            }
            for path in step.paths() {
                if let Some((j, _)) = touched.get(path).filter(|(j, _)| *j != i) {
                    return Err(clash(i, *j, path));
                }
                if let Some((q, j)) = other(&touched, path, i) {
                    return Err(clash(i, j, &q));
                }
            }
            for path in step.paths() {
                touched.insert(path.to_owned(), (i, None));
            }
            out.push(step);
        }
    }
    Ok(WorkspaceChange { changes: out })
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_source::{TextEdit, TextRange};

    fn edit(path: &str, start: usize, end: usize) -> FileChange {
        FileChange::Edit {
            path: path.into(),
            edits: vec![TextEdit::replace(TextRange::new(start, end), "x")],
        }
    }

    fn change(steps: Vec<FileChange>) -> WorkspaceChange {
        WorkspaceChange { changes: steps }
    }

    #[test]
    fn edits_of_one_file_merge_unless_they_overlap_or_chain() {
        let names = ["a", "b", "c"];
        let merged = merge(
            vec![change(vec![edit("f", 0, 2)]), change(vec![edit("f", 3, 4)])],
            &names,
        )
        .unwrap();
        assert_eq!(merged.changes.len(), 1);
        let overlap = merge(
            vec![change(vec![edit("f", 0, 2)]), change(vec![edit("f", 1, 4)])],
            &names,
        );
        assert!(overlap.unwrap_err().error.contains("overlapping"));
        // A second step of a merged operation would be against its own first.
        let chained = merge(
            vec![
                change(vec![edit("f", 0, 2)]),
                change(vec![edit("f", 3, 4), edit("f", 5, 6)]),
            ],
            &names,
        );
        assert!(chained.is_err());
        // A file under a directory another operation deletes.
        let deleted = merge(
            vec![
                change(vec![FileChange::Delete {
                    path: "d".into(),
                    recursive: true,
                    ignore_if_not_exists: false,
                }]),
                change(vec![edit("d/f", 0, 1)]),
            ],
            &names,
        );
        assert!(deleted.unwrap_err().error.contains("both change d"));
    }
}
