//! `rename_directory` (seed 002's internal API): a directory renamed in its parent, as a
//! plan; imports are not rewritten (`rename` kind directory rewrites them).

use resolve_pr_core::{ErrorCode, Result};
use serde_json::Value;

use crate::Context;
use crate::internal::{FILE_PLAN, Kind, inside, invalid_path, needed, plan_input, renamed};
use crate::refactor::{RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

plan_input! {
    pub struct Input {
        /// The directory, from the checkout.
        #[serde(default)]
        pub from: Option<String>,
        /// Its new path, in the same parent.
        #[serde(default)]
        pub to: Option<String>,
    }
}

pub struct RenameDirectory;

impl Tool for RenameDirectory {
    const NAME: &'static str = "rename_directory";
    const TITLE: &'static str = "Rename a directory";
    const DESCRIPTION: &'static str = "Renames a directory in its parent (move_directory moves it elsewhere), imports not rewritten: a plan, applied by plan_id, undone by rollback.";
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
            let (a, b) = (inside(&root, from, "from")?, inside(&root, to, "to")?);
            if a.parent() != b.parent() {
                let mut e = invalid_path(
                    to,
                    "is in another parent directory: rename_directory renames in place",
                    "to",
                )
                .with_suggestion("Use move_directory to move it into another directory.");
                e.code = Some(ErrorCode::InvalidArgument);
                return Err(e);
            }
            renamed(&root, from, to, false, Kind::Directory, "directory.rename")
        };
        plan_or_apply(ctx, Self::NAME, &root, FILE_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
