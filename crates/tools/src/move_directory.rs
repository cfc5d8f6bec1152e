//! `move_directory` (seed 002's internal API): a directory moved, into another parent or
//! not, as a plan; imports are not rewritten (`rename` kind directory rewrites them).

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::internal::{FILE_PLAN, Kind, needed, plan_input, renamed};
use crate::refactor::{RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

plan_input! {
    pub struct Input {
        /// The directory, from the checkout.
        #[serde(default)]
        pub from: Option<String>,
        /// Its new path, from the checkout (parents created).
        #[serde(default)]
        pub to: Option<String>,
    }
}

pub struct MoveDirectory;

impl Tool for MoveDirectory {
    const NAME: &'static str = "move_directory";
    const TITLE: &'static str = "Move a directory";
    const DESCRIPTION: &'static str = "Moves a directory and everything in it to a new path inside the checkout, imports not rewritten: a plan, applied by plan_id, undone by rollback.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let make = async {
            let from = needed(Self::NAME, input.from.as_deref(), "from")?;
            let to = needed(Self::NAME, input.to.as_deref(), "to")?;
            renamed(&root, from, to, false, Kind::Directory, "directory.move")
        };
        plan_or_apply(ctx, Self::NAME, &root, FILE_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
