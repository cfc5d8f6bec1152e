//! `rollback`: undoes an apply of a refactoring tool by its snapshot_id: every file back as it was (contents, new and deleted files, renames, modes); refused if a file changed since, unless force.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::Context;
use crate::refactor::{RefactorOutput, WRITES_LOCAL, render, roll_back};
use crate::registry::Tool;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// From an apply's answer.
    #[schemars(example = &"snap-1a2b3c4d5e6f7081")]
    pub snapshot_id: String,
    /// Undo even over later changes (they are lost).
    #[serde(default)]
    pub force: bool,
}

pub struct Rollback;

impl Tool for Rollback {
    const NAME: &'static str = "rollback";
    const TITLE: &'static str = "Undo a refactoring";
    const DESCRIPTION: &'static str = "Undoes any tool's apply by its snapshot_id: contents, new and deleted files, renames and modes as they were. Refused if a file changed since, unless force. Itself undoable.";
    const TOOLSET: crate::Toolset = crate::Toolset::Refactor;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = false;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        roll_back(ctx, &root, &input.snapshot_id, input.force).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
