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
use crate::code::{file_in, language_of};
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
    pub kind: ReorderKind,
    #[schemars(example = &"src/app.py")]
    #[serde(default)]
    pub file_path: Option<String>,
    /// Default true: plan only, write nothing.
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
    const TITLE: &'static str = "Reorder imports";
    const DESCRIPTION: &'static str = "Sorts a file's imports: ruff's isort rules in Python, rustfmt in Rust, the language server's organize-imports elsewhere. Plans by default.";
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
    if input.kind != ReorderKind::Imports {
        return Err(Error::user(format!(
            "reorder {:?} is not offered: no language server here reorders parameters, members or statements with an edit",
            input.kind
        ))
        .with_code(ErrorCode::NotSupported)
        .with_suggestion("reorder kind imports is offered."));
    }
    let Some(file) = input.file_path.as_deref() else {
        return Err(Error::user("reorder imports needs file_path")
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", "file_path"));
    };
    let path = file_in(root, file, "file_path")?;
    let language = language_of(&path, "file_path")?;
    let rel = path.strip_prefix(root).unwrap_or(&path).to_owned();
    let fixes = match language {
        Language::Python => {
            resolve_pr_code::imports::ruff_fixes(root, &[rel], "I001", Duration::from_secs(60))
                .await
                .map_err(|why| Error::unknown(format!("imports could not be sorted: {why}")).with_code(ErrorCode::ServerFailed))?
        }
        // rust-analyzer has no action that only sorts imports: rustfmt formats each run of
        // `use` declarations alone, so the order is cargo fmt's and nothing else changes.
        Language::Rust => resolve_pr_code::imports::rust_sorted_imports(root, &rel, Duration::from_secs(60))
            .await
            .map_err(|why| Error::unknown(format!("imports could not be sorted: {why}")).with_code(ErrorCode::ServerFailed))?,
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
