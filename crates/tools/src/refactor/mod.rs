//! What the refactoring tools share: the plan-or-apply flow over the `edit` layer, the
//! seed's plan and apply responses, and their text.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{Applied, Checkout, Plan, PlanMeta, Recovered, Verification, Warning};
use resolve_pr_source::{FileChange, LineIndex, WorkspaceChange, apply_edits};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Context;

pub(crate) mod actions;

/// The diff's share of a plan's text; the whole diff is in the structured content.
const DIFF_BUDGET_BYTES: usize = 24 * 1024;

/// Refactoring tools write only when asked, into the local checkout.
pub(crate) const WRITES_LOCAL: crate::registry::Annotations = crate::registry::Annotations {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: false,
};

/// How a call plans or applies (the fields every refactoring tool takes).
pub(crate) struct Mode<'a> {
    pub dry_run: bool,
    pub plan_id: Option<&'a str>,
    pub force: bool,
}

// The output's types carry no doc comments, and its nested objects are published as plain
// objects: their fields would be repeated in the schema of every refactoring tool (seed 002
// and the toolset's instructions say what they hold, once).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WarningView {
    pub code: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanMetadata {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    // low, medium or high.
    pub estimated_impact: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanSummary {
    pub affected_files: usize,
    pub created_files: usize,
    pub deleted_files: usize,
    pub renamed_files: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanFileView {
    pub path: String,
    // modified, created, deleted or renamed.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub added_lines: usize,
    pub removed_lines: usize,
}

// Seed 002's PlanBase, with the plan's id and its diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanView {
    pub plan_id: String,
    pub plan_type: String,
    pub plan_version: String,
    // An LSP WorkspaceEdit (documentChanges with resource operations).
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub edits: Value,
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub summary: PlanSummary,
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub files: Vec<PlanFileView>,
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub metadata: PlanMetadata,
    pub file_checksums: BTreeMap<String, String>,
    // The whole unified diff.
    pub diff: String,
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub verification: Option<VerificationView>,
}

// How the change was checked before anything is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerificationView {
    // The checker ran and found no new errors.
    pub verified: bool,
    pub how: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_errors: Vec<String>,
    pub baseline_errors: usize,
}

// Seed 002's Apply Response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AppliedView {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<String>,
    pub applied_files: Vec<String>,
    pub created_files: Vec<String>,
    pub deleted_files: Vec<String>,
    pub rollback_available: bool,
    pub snapshot_id: String,
    /// How the plan was checked before it was applied, when it was and found no new error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified_by: Option<String>,
}

// A refactoring tool's answer: the plan (dry run), or what was applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RefactorOutput {
    pub dry_run: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub applied: Option<AppliedView>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub warnings: Vec<WarningView>,
    // The tool to call to apply the plan or undo the apply, with its arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub next: Option<Next>,
}

// The call that comes next: its tool and arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Next {
    pub tool: String,
    pub arguments: serde_json::Map<String, Value>,
}

fn next(tool: &str, arguments: Value) -> Option<Next> {
    Some(Next {
        tool: tool.to_owned(),
        arguments: arguments.as_object().cloned().unwrap_or_default(),
    })
}

/// Paths relative to the server's root, made relative to the checkout's.
pub(crate) fn rebase(
    change: WorkspaceChange,
    server_root: &Path,
    root: &Path,
) -> Result<WorkspaceChange> {
    let to_root = |p: &PathBuf| -> Result<PathBuf> {
        let full = server_root.join(p);
        full.strip_prefix(root).map(Path::to_owned).map_err(|_| {
            Error::user(format!(
                "the language server's edit touches {}, outside the checkout",
                full.display()
            ))
            .with_code(ErrorCode::InvalidPath)
        })
    };
    let changes = change
        .changes
        .into_iter()
        .map(|c| {
            Ok(match c {
                FileChange::Edit { path, edits } => FileChange::Edit {
                    path: to_root(&path)?,
                    edits,
                },
                FileChange::Create {
                    path,
                    contents,
                    overwrite,
                    ignore_if_exists,
                } => FileChange::Create {
                    path: to_root(&path)?,
                    contents,
                    overwrite,
                    ignore_if_exists,
                },
                FileChange::Rename {
                    from,
                    to,
                    overwrite,
                    ignore_if_exists,
                } => FileChange::Rename {
                    from: to_root(&from)?,
                    to: to_root(&to)?,
                    overwrite,
                    ignore_if_exists,
                },
                FileChange::Delete {
                    path,
                    recursive,
                    ignore_if_not_exists,
                } => FileChange::Delete {
                    path: to_root(&path)?,
                    recursive,
                    ignore_if_not_exists,
                },
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(WorkspaceChange { changes })
}

/// `dry_run`'s default (and `case_sensitive`'s): true.
pub(crate) fn yes() -> bool {
    true
}

pub(crate) fn edit_error(e: resolve_pr_edit::Error) -> Error {
    e.to_core()
}

/// The checkout's edit state, with any apply a crash left unfinished rolled back.
pub(crate) fn open_checkout(ctx: &Context, root: &Path) -> Result<(Checkout, Vec<Recovered>)> {
    let Some(state) = &ctx.local.state_dir else {
        return Err(Error::logical(
            "there is nowhere to keep plans and undo snapshots: neither XDG_STATE_HOME nor HOME is set",
        )
        .with_suggestion("Set XDG_STATE_HOME (an absolute path) for the server."));
    };
    Checkout::open(root, state).map_err(edit_error)
}

fn recovered_warnings(recovered: &[Recovered]) -> Vec<WarningView> {
    recovered
        .iter()
        .map(|r| WarningView {
            code: "RECOVERED".to_owned(),
            message: format!(
                "an earlier apply ({}) was interrupted and rolled back: {} file(s) restored{}",
                r.snapshot_id,
                r.restored.len(),
                if r.conflicts.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; changed since by something else, left as they are: {}",
                        r.conflicts.join(", ")
                    )
                }
            ),
        })
        .collect()
}

fn view_warnings(warnings: &[Warning]) -> Vec<WarningView> {
    warnings
        .iter()
        .map(|w| WarningView {
            code: w.code.clone(),
            message: w.message.clone(),
        })
        .collect()
}

/// An LSP WorkspaceEdit of `change` over the files as they are (positions in UTF-16).
fn lsp_workspace_edit(root: &Path, change: &WorkspaceChange) -> Value {
    let mut texts: BTreeMap<PathBuf, String> = BTreeMap::new();
    let uri = |p: &Path| {
        url::Url::from_file_path(root.join(p))
            .map(|u| u.to_string())
            .unwrap_or_default()
    };
    let text_of = |texts: &mut BTreeMap<PathBuf, String>, p: &Path| -> String {
        texts
            .entry(p.to_owned())
            .or_insert_with(|| std::fs::read_to_string(root.join(p)).unwrap_or_default())
            .clone()
    };
    let mut out = Vec::new();
    for step in &change.changes {
        match step {
            FileChange::Edit { path, edits } => {
                let text = text_of(&mut texts, path);
                let index = LineIndex::new(&text);
                let lsp: Vec<Value> = edits
                    .iter()
                    .filter_map(|e| {
                        let s = index.position_utf16(e.range.start).ok()?;
                        let t = index.position_utf16(e.range.end).ok()?;
                        Some(json!({"range": {"start": {"line": s.line, "character": s.col}, "end": {"line": t.line, "character": t.col}}, "newText": e.new_text}))
                    })
                    .collect();
                out.push(
                    json!({"textDocument": {"uri": uri(path), "version": null}, "edits": lsp}),
                );
                let edited = apply_edits(&text, edits).unwrap_or(text);
                texts.insert(path.clone(), edited);
            }
            FileChange::Create {
                path,
                contents,
                overwrite,
                ignore_if_exists,
            } => {
                out.push(json!({"kind": "create", "uri": uri(path), "options": {"overwrite": overwrite, "ignoreIfExists": ignore_if_exists}}));
                if !contents.is_empty() {
                    out.push(json!({"textDocument": {"uri": uri(path), "version": null}, "edits": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "newText": contents}]}));
                }
                texts.insert(path.clone(), contents.clone());
            }
            FileChange::Rename {
                from,
                to,
                overwrite,
                ignore_if_exists,
            } => {
                out.push(json!({"kind": "rename", "oldUri": uri(from), "newUri": uri(to), "options": {"overwrite": overwrite, "ignoreIfExists": ignore_if_exists}}));
                let moved: Vec<(PathBuf, String)> = texts
                    .iter()
                    .filter(|(p, _)| p.starts_with(from))
                    .map(|(p, t)| (to.join(p.strip_prefix(from).unwrap_or(p)), t.clone()))
                    .collect();
                texts.retain(|p, _| !p.starts_with(from));
                texts.extend(moved);
            }
            FileChange::Delete {
                path,
                recursive,
                ignore_if_not_exists,
            } => {
                out.push(json!({"kind": "delete", "uri": uri(path), "options": {"recursive": recursive, "ignoreIfNotExists": ignore_if_not_exists}}));
                texts.retain(|p, _| !p.starts_with(path));
            }
        }
    }
    json!({"documentChanges": out})
}

fn plan_view(plan: &Plan) -> PlanView {
    PlanView {
        plan_id: plan.id.clone(),
        plan_type: plan.plan_type.clone(),
        plan_version: plan.plan_version.clone(),
        edits: lsp_workspace_edit(&plan.root, &plan.change),
        summary: PlanSummary {
            affected_files: plan.summary.affected_files,
            created_files: plan.summary.created_files,
            deleted_files: plan.summary.deleted_files,
            renamed_files: plan.summary.renamed_files,
        },
        files: plan
            .files
            .iter()
            .map(|f| PlanFileView {
                path: f.path.clone(),
                status: serde_json::to_value(f.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                from: f.from.clone(),
                added_lines: f.added_lines,
                removed_lines: f.removed_lines,
            })
            .collect(),
        metadata: PlanMetadata {
            kind: plan.kind.clone(),
            language: plan.language.clone(),
            estimated_impact: plan.estimated_impact().to_owned(),
            created_at: plan.created_at.clone(),
        },
        file_checksums: plan.file_checksums.clone(),
        diff: plan.diff.clone(),
        verification: plan.verification.as_ref().map(|v| VerificationView {
            verified: v.verified,
            how: v.how.clone(),
            new_errors: v.new_errors.clone(),
            baseline_errors: v.baseline_errors,
        }),
    }
}

fn applied_view(applied: Applied) -> AppliedView {
    AppliedView {
        success: applied.success,
        plan_id: applied.plan_id,
        applied_files: applied.applied_files,
        created_files: applied.created_files,
        deleted_files: applied.deleted_files,
        rollback_available: applied.rollback_available,
        snapshot_id: applied.snapshot_id,
        verified_by: None,
    }
}

/// Runs blocking file work off the async threads. The work finishes even if the call is
/// cancelled: an apply is never left half done by a dropped future.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(work).await.map_err(|e| {
        Error::unknown(format!("the file work stopped: {e}")).with_code(ErrorCode::InternalError)
    })
}

/// Every running language server of the checkout hears of the files written, so its next
/// answer reads the new text.
async fn tell_servers(ctx: &Context, root: &Path, applied: &Applied) {
    let paths: Vec<PathBuf> = applied
        .applied_files
        .iter()
        .chain(&applied.created_files)
        .chain(&applied.deleted_files)
        .map(|p| root.join(p))
        .collect();
    for running in ctx.lsp.running().await {
        if !(running.root.starts_with(root) || root.starts_with(&running.root)) {
            continue;
        }
        if let Ok(server) = ctx.lsp.server(running.language, &running.root).await {
            server.written(&paths).await;
        }
    }
}

/// Runs the language's checker over the plan's outcome (on a scratch copy) and the
/// checkout, within the call's time.
async fn verify(ctx: &Context, checkout: &Checkout, plan: &Plan) -> Result<Verification> {
    let (c, p) = (checkout.clone(), plan.clone());
    let outcome = blocking(move || c.outcome(&p)).await?.map_err(edit_error)?;
    let trusted = ctx.lsp.trust_of(checkout.root()) == resolve_pr_lsp::Trust::Trusted;
    let until = resolve_pr_lsp::deadline::wait_until_leaving(
        std::time::Duration::from_secs(900),
        std::time::Duration::from_secs(3),
    );
    let left = until.saturating_duration_since(std::time::Instant::now());
    Ok(resolve_pr_code::verify::verify(
        checkout.root(),
        &checkout.scratch_dir(),
        &outcome,
        plan.language.as_deref(),
        trusted,
        left,
    )
    .await)
}

/// The whole flow of a refactoring tool. `make` computes the change (asked only when
/// there is no plan to apply); `plan_type` is the tool's (`RenamePlan`, …).
pub(crate) async fn plan_or_apply<F>(
    ctx: &Context,
    tool: &str,
    root: &Path,
    plan_type: &str,
    mode: Mode<'_>,
    make: F,
) -> Result<RefactorOutput>
where
    F: std::future::Future<Output = Result<(WorkspaceChange, PlanMeta)>>,
{
    if !mode.dry_run && ctx.read_only {
        return Err(Error::logical(format!(
            "the server runs with --read-only: {tool} only plans here"
        ))
        .with_suggestion("Call again with dry_run: true and apply the diff yourself."));
    }
    if mode.dry_run && mode.plan_id.is_some() {
        return Err(Error::user(
            "plan_id is what dry_run: false applies; a dry run makes a new plan",
        )
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", "plan_id")
        .with_suggestion("Pass dry_run: false with plan_id to apply that plan."));
    }
    let (checkout, recovered) = open_checkout(ctx, root)?;
    let mut warnings = recovered_warnings(&recovered);
    let mut plan = match mode.plan_id {
        Some(id) => {
            let plan = checkout.load_plan(id).map_err(edit_error)?;
            if plan.plan_type != plan_type {
                return Err(resolve_pr_edit::Error::InvalidPlanType {
                    id: id.to_owned(),
                    found: plan.plan_type.clone(),
                    expected: plan_type.to_owned(),
                }
                .to_core());
            }
            plan
        }
        None => {
            let (change, meta) = make.await?;
            if change.is_empty() {
                return Err(Error::user(format!("{tool} found nothing to change"))
                    .with_code(ErrorCode::NotSupported));
            }
            let c = checkout.clone();
            let plan = blocking(move || c.plan(change, meta))
                .await?
                .map_err(edit_error)?;
            // Edits that leave every file as it was (a server's organize-imports on imports
            // already in order) are no change either.
            let s = &plan.summary;
            if s.affected_files + s.created_files + s.deleted_files + s.renamed_files == 0 {
                return Err(Error::user(format!("{tool} found nothing to change"))
                    .with_code(ErrorCode::NotSupported));
            }
            plan
        }
    };
    warnings.extend(view_warnings(&plan.warnings));
    let unchecked = plan.verification.as_ref().is_none_or(|v| v.timed_out);
    if unchecked && !mode.force {
        plan.verification = Some(verify(ctx, &checkout, &plan).await?);
        let (c, p) = (checkout.clone(), plan.clone());
        blocking(move || c.save_plan(&p))
            .await?
            .map_err(edit_error)?;
    }
    if mode.dry_run {
        let next = next(
            tool,
            json!({"dry_run": false, "plan_id": plan.id, "directory": root}),
        );
        return Ok(RefactorOutput {
            dry_run: true,
            plan: Some(plan_view(&plan)),
            applied: None,
            warnings,
            next,
        });
    }
    if mode.force {
        warnings.push(WarningView {
            code: "VALIDATION_SKIPPED".to_owned(),
            message: "force: true: the plan was applied whatever its verification said".to_owned(),
        });
    } else if let Some(v) = &plan.verification {
        if !v.new_errors.is_empty() {
            return Err(Error::user(format!(
                "{tool} was not applied: {} says the change adds {} error(s): {}",
                v.how,
                v.new_errors.len(),
                v.new_errors
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; ")
            ))
            .with_code(ErrorCode::ApplyFailed)
            .with_detail("new_errors", v.new_errors.clone())
            .with_suggestion(
                "Change the plan's arguments, or pass force: true to apply it anyway.",
            ));
        }
        if v.timed_out {
            return Err(Error::timeout(format!(
                "{tool} was not applied: {}",
                v.how
            ))
            .with_code(ErrorCode::Timeout)
            .with_retry_after(10)
            .with_suggestion(format!(
                "Call again with dry_run: false and plan_id: \"{}\": the check goes on from where it stopped. force: true applies without it.",
                plan.id
            )));
        }
        if !v.verified {
            warnings.push(WarningView {
                code: "NOT_VERIFIED".to_owned(),
                message: v.how.clone(),
            });
        }
    }
    let c = checkout.clone();
    let p = plan.clone();
    let applied = blocking(move || c.apply(&p, &|_| {}))
        .await?
        .map_err(edit_error)?;
    tell_servers(ctx, checkout.root(), &applied).await;
    let next = next(
        "rollback",
        json!({"snapshot_id": applied.snapshot_id, "directory": root}),
    );
    let mut view = applied_view(applied);
    view.verified_by = plan
        .verification
        .as_ref()
        .filter(|v| v.verified && !mode.force)
        .map(|v| v.how.clone());
    Ok(RefactorOutput {
        dry_run: false,
        plan: None,
        applied: Some(view),
        warnings,
        next,
    })
}

/// Undoes an apply.
pub(crate) async fn roll_back(
    ctx: &Context,
    root: &Path,
    snapshot_id: &str,
    force: bool,
) -> Result<RefactorOutput> {
    if ctx.read_only {
        return Err(Error::logical(
            "the server runs with --read-only: rollback writes files",
        ));
    }
    let (checkout, recovered) = open_checkout(ctx, root)?;
    let id = snapshot_id.to_owned();
    let c = checkout.clone();
    let applied = blocking(move || c.undo(&id, force, &|_| {}))
        .await?
        .map_err(edit_error)?;
    tell_servers(ctx, checkout.root(), &applied).await;
    let next = next(
        "rollback",
        json!({"snapshot_id": applied.snapshot_id, "directory": root}),
    );
    Ok(RefactorOutput {
        dry_run: false,
        plan: None,
        applied: Some(applied_view(applied)),
        warnings: recovered_warnings(&recovered),
        next,
    })
}

/// The text of a refactoring answer: what changes (the diff, cut to a budget), or what
/// changed, and the one call that comes next.
pub(crate) fn render(tool: &str, output: &RefactorOutput) -> String {
    let mut out = String::new();
    // The checkout the next call names (a call without it reads the server's directory).
    let directory = output
        .next
        .as_ref()
        .and_then(|n| n.arguments.get("directory"))
        .and_then(Value::as_str)
        .map(|d| format!(", directory: {d:?}"))
        .unwrap_or_default();
    for w in &output.warnings {
        out.push_str(&format!("warning {}: {}\n", w.code, w.message));
    }
    if let Some(plan) = &output.plan {
        let (added, removed) = plan
            .files
            .iter()
            .fold((0, 0), |(a, r), f| (a + f.added_lines, r + f.removed_lines));
        out.push_str(&format!(
            "Plan {} ({}, {}{}): {} file(s) (+{added} −{removed}), impact {}. Nothing was written.\n",
            plan.plan_id,
            plan.plan_type,
            plan.metadata.kind,
            plan.metadata
                .language
                .as_deref()
                .map(|l| format!(", {l}"))
                .unwrap_or_default(),
            plan.summary.affected_files,
            plan.metadata.estimated_impact,
        ));
        if let Some(v) = &plan.verification {
            if v.verified {
                out.push_str(&format!("Verified: {} finds no new errors.\n", v.how));
            } else if v.new_errors.is_empty() {
                out.push_str(&format!("{}.\n", v.how));
            } else {
                out.push_str(&format!(
                    "Breaks the build: {} finds {} new error(s):\n",
                    v.how,
                    v.new_errors.len()
                ));
                for e in v.new_errors.iter().take(10) {
                    out.push_str(&format!("  {e}\n"));
                }
            }
        }
        let cut = resolve_pr_core::budget::cut(&plan.diff, DIFF_BUDGET_BYTES, "plan.diff");
        out.push_str(&cut.text);
        if !cut.text.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "Apply exactly this plan: {tool} with dry_run: false, plan_id: \"{}\"{directory}.",
            plan.plan_id
        ));
    }
    if let Some(applied) = &output.applied {
        let list = |label: &str, files: &[String]| {
            if files.is_empty() {
                String::new()
            } else {
                format!(" {label}: {}.", files.join(", "))
            }
        };
        out.push_str(&format!(
            "Applied{}{}.{}{}{}\nUndo: rollback with snapshot_id: \"{}\"{directory}.",
            applied
                .plan_id
                .as_deref()
                .map(|p| format!(" {p}"))
                .unwrap_or_default(),
            applied
                .verified_by
                .as_deref()
                .map(|v| format!(", verified first ({v})"))
                .unwrap_or_default(),
            list("Changed", &applied.applied_files),
            list("Created", &applied.created_files),
            list("Deleted", &applied.deleted_files),
            applied.snapshot_id
        ));
    }
    out
}

/// Rolls back every apply a crash left unfinished, in every checkout with state here: run
/// at start-up. What was done, a line each, for the log.
pub fn recover_interrupted_applies(settings: &crate::LocalSettings) -> Vec<String> {
    let Some(state) = &settings.state_dir else {
        return Vec::new();
    };
    Checkout::recover_all(state)
        .into_iter()
        .flat_map(|(root, result)| match result {
            Ok(recovered) => recovered
                .into_iter()
                .map(|r| {
                    format!(
                        "{}: an apply ({}) was interrupted; {} file(s) put back as they were{}",
                        root.display(),
                        r.snapshot_id,
                        r.restored.len(),
                        if r.conflicts.is_empty() {
                            String::new()
                        } else {
                            format!("; changed since, left alone: {}", r.conflicts.join(", "))
                        }
                    )
                })
                .collect::<Vec<_>>(),
            Err(e) => vec![format!(
                "{}: recovering an interrupted apply failed: {e}",
                root.display()
            )],
        })
        .collect()
}

/// Whether ruff (Python's unused imports and import order) is installed where the code tools
/// look for programs.
/// Whether rope (Python's `move`) can run here.
pub async fn rope_installed() -> bool {
    resolve_pr_code::python_move::rope_installed().await
}

pub fn ruff_installed() -> bool {
    resolve_pr_code::imports::ruff().is_some()
}
