//! `move`: moves top-level declarations to a new file with the imports fixed, as typescript-language-server does it (TypeScript/JavaScript); other languages' servers offer no such move. Plans by default.

use std::path::Path;

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_lsp::{Language, Pos, Span};
use resolve_pr_source::WorkspaceChange;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{Range, file_in, language_of, lsp_error, relative_error, server_for_file};
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoveKind {
    #[default]
    Symbol,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[serde(default)]
    pub kind: MoveKind,
    /// The file the declaration is in.
    #[serde(default)]
    pub file_path: Option<String>,
    /// The whole declaration (or its name).
    #[serde(default)]
    pub range: Option<Range>,
    /// Only a new file the server names is offered; then rename kind file to place it.
    #[serde(default)]
    pub destination: Option<String>,
    /// Default true: plan only, write nothing.
    #[serde(default = "crate::refactor::yes")]
    pub dry_run: bool,
    /// With dry_run: false, the plan to apply exactly.
    #[serde(default)]
    pub plan_id: Option<String>,
    /// Apply even if verification finds new errors.
    #[serde(default)]
    pub force: bool,
}

pub struct Move;

impl Tool for Move {
    const NAME: &'static str = "move";
    const TITLE: &'static str = "Move a declaration to another file";
    const DESCRIPTION: &'static str = "Moves top-level declarations to a new file with imports fixed, as typescript-language-server does (TypeScript/JavaScript only). Plans by default.";
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
        let make = plan(ctx, &root, &input);
        plan_or_apply(ctx, Self::NAME, &root, "MovePlan", mode, make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

async fn plan(ctx: &Context, root: &Path, input: &Input) -> Result<(WorkspaceChange, PlanMeta)> {
    let (Some(file), Some(range)) = (input.file_path.as_deref(), input.range) else {
        return Err(Error::user("move needs file_path and the declaration's range")
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", if input.file_path.is_none() { "file_path" } else { "range" }));
    };
    let path = file_in(root, file, "file_path")?;
    let language = language_of(&path, "file_path")?;
    if language != Language::TypeScript {
        return Err(Error::user(format!(
            "move is offered for TypeScript and JavaScript only: no {} server here moves a declaration between files (rust-analyzer's Extract Module and pyrefly's move were seen to break the build)",
            language.as_str()
        ))
        .with_code(ErrorCode::NotSupported)
        .with_suggestion("Move the code by hand, or with extract and find_replace, then check it with get_diagnostics."));
    }
    let server = server_for_file(ctx, root, &path, "file_path").await?;
    let span = Span {
        start: Pos { line: range.start.line, character: range.start.character },
        end: Pos { line: range.end.line, character: range.end.character },
    };
    let actions = server
        .code_actions(&path, span, &["refactor.move"])
        .await
        .map_err(|e| relative_error(lsp_error(e), root))?;
    if let Some(dest) = input.destination.as_deref() {
        return Err(Error::user(format!(
            "typescript-language-server moves declarations only to a new file it names, not to {dest}"
        ))
        .with_code(ErrorCode::NotSupported)
        .with_detail("field", "destination")
        .with_suggestion("Call move without destination, then rename with kind file to give the new file its path (imports follow)."));
    }
    let wanted = "move to a new file";
    let Some(action) = actions
        .iter()
        .find(|a| a.disabled.is_none() && a.title.to_lowercase().starts_with(wanted))
    else {
        let offered: Vec<String> = actions.iter().map(|a| a.title.clone()).collect();
        return Err(Error::user(format!(
            "{} offers no \"{wanted}\" for that range{}",
            server.installed.spec.name,
            if offered.is_empty() { String::new() } else { format!("; it offers: {}", offered.join("; ")) }
        ))
        .with_code(ErrorCode::NotSupported)
        .with_detail("offered", offered)
        .with_suggestion("Give the range of whole top-level declarations."));
    };
    let change = server
        .action_change(action)
        .await
        .map_err(|e| relative_error(lsp_error(e), root))?;
    let change = crate::refactor::rebase(change, &server.root, root)?;
    Ok((
        change,
        PlanMeta {
            plan_type: "MovePlan".into(),
            kind: "move.symbol".into(),
            language: Some(language.as_str().to_owned()),
            warnings: vec![Warning {
                code: "PERFORMED_BY".into(),
                message: format!("{}: \"{}\"", server.installed.spec.name, action.title),
            }],
        },
    ))
}
