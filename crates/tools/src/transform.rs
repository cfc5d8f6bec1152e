//! `transform`: Rewrites code at the range as the language server offers: to_arrow_function, to_async, loop_to_iterator, callback_to_promise, add_null_check, remove_dead_branch. Plans by default.

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
pub enum TransformKind {
    ToArrowFunction,
    ToAsync,
    LoopToIterator,
    CallbackToPromise,
    AddNullCheck,
    RemoveDeadBranch,
}

impl TransformKind {
    fn as_str(self) -> &'static str {
        match self {
            TransformKind::ToArrowFunction => "to_arrow_function",
            TransformKind::ToAsync => "to_async",
            TransformKind::LoopToIterator => "loop_to_iterator",
            TransformKind::CallbackToPromise => "callback_to_promise",
            TransformKind::AddNullCheck => "add_null_check",
            TransformKind::RemoveDeadBranch => "remove_dead_branch",
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
    pub kind: TransformKind,
    #[serde(default)]
    #[schemars(example = &"src/lib.rs")]
    pub file_path: Option<String>,
    /// The code to act on.
    #[serde(default)]
    pub range: Option<Range>,
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

fn default_kind() -> TransformKind {
    TransformKind::ToArrowFunction
}

pub struct Transform;

impl Tool for Transform {
    const NAME: &'static str = "transform";
    const TITLE: &'static str = "Transform code";
    const DESCRIPTION: &'static str = "Rewrites code at the range as the language server offers: to_arrow_function, to_async, loop_to_iterator, callback_to_promise, add_null_check, remove_dead_branch.";
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
            "TransformPlan",
            format!("transform.{}", input.kind.as_str()),
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
