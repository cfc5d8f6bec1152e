//! `extract`: Extracts the selected code into a function, variable or constant, as the language server does it (rust-analyzer, typescript-language-server, pylsp-rope, gopls, clangd).

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{Position, Range};
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, actions, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExtractKind {
    Function,
    Variable,
    Constant,
    TypeAlias,
    Interface,
}

impl ExtractKind {
    fn as_str(self) -> &'static str {
        match self {
            ExtractKind::Function => "function",
            ExtractKind::Variable => "variable",
            ExtractKind::Constant => "constant",
            ExtractKind::TypeAlias => "type_alias",
            ExtractKind::Interface => "interface",
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[serde(default = "default_kind")]
    pub kind: ExtractKind,
    #[serde(default)]
    #[schemars(example = &"src/lib.rs")]
    pub file_path: Option<String>,
    /// The code to act on.
    #[serde(default)]
    pub range: Option<Range>,
    /// The new declaration's name. Default: the server's.
    #[serde(default)]
    pub name: Option<String>,
    /// Instead of range: a position.
    #[serde(default)]
    pub position: Option<Position>,
    /// Plan only; write nothing.
    #[serde(default = "crate::refactor::yes")]
    pub dry_run: bool,
    /// With dry_run: false, the plan to apply exactly.
    #[serde(default)]
    pub plan_id: Option<String>,
    /// Apply even if verification finds new errors.
    #[serde(default)]
    pub force: bool,
}

fn default_kind() -> ExtractKind {
    ExtractKind::Function
}

pub struct Extract;

impl Tool for Extract {
    const NAME: &'static str = "extract";
    const TITLE: &'static str = "Extract a function, variable or constant";
    const DESCRIPTION: &'static str = "Extracts the selected code into a function, variable or constant, as the language server does it (rust-analyzer, typescript-language-server, pylsp-rope, gopls, clangd).";
    const TOOLSET: crate::Toolset = crate::Toolset::Refactor;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let mode = Mode {
            dry_run: input.dry_run,
            plan_id: input.plan_id.as_deref(),
            force: input.force,
        };
        actions::run_action_tool(
            ctx,
            Self::NAME,
            "ExtractPlan",
            format!("extract.{}", input.kind.as_str()),
            input.directory.as_deref(),
            input.file_path.as_deref(),
            input.range,
            input.position,
            input.name.as_deref(),
            mode,
        )
        .await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
