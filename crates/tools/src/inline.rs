//! `inline`: Inlines the variable, function or constant at the position into its uses, as the language server does it. Plans by default.

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
pub enum InlineKind {
    Variable,
    Function,
    Constant,
    TypeAlias,
}

impl InlineKind {
    fn as_str(self) -> &'static str {
        match self {
            InlineKind::Variable => "variable",
            InlineKind::Function => "function",
            InlineKind::Constant => "constant",
            InlineKind::TypeAlias => "type_alias",
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
    pub kind: InlineKind,
    #[serde(default)]
    #[schemars(example = &"src/lib.rs")]
    pub file_path: Option<String>,
    /// Instead of position: a range.
    #[serde(default)]
    pub range: Option<Range>,
    /// The name to inline.
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

fn default_kind() -> InlineKind {
    InlineKind::Variable
}

pub struct Inline;

impl Tool for Inline {
    const NAME: &'static str = "inline";
    const TITLE: &'static str = "Inline a variable or function";
    const DESCRIPTION: &'static str = "Inlines the variable, function or constant at the position into its uses, as the language server does it.";
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
            "InlinePlan",
            format!("inline.{}", input.kind.as_str()),
            input.directory.as_deref(),
            input.file_path.as_deref(),
            input.range,
            input.position,
            None,
            mode,
        )
        .await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
