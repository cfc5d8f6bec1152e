//! `rename_file` (seed 002's internal API): a file moved or renamed, as a plan; imports are
//! not rewritten (`rename` kind file rewrites them).

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::internal::{FILE_PLAN, Kind, needed, plan_input, renamed};
use crate::refactor::{RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

plan_input! {
    pub struct Input {
        /// The file, from the checkout.
        #[serde(default)]
        pub from: Option<String>,
        /// Its new path, from the checkout.
        #[serde(default)]
        pub to: Option<String>,
        /// Replace a file at to. Default: false.
        #[serde(default)]
        pub overwrite: bool,
    }
}

pub struct RenameFile;

impl Tool for RenameFile {
    const NAME: &'static str = "rename_file";
    const TITLE: &'static str = "Rename or move a file";
    const DESCRIPTION: &'static str = "Renames or moves a file inside the checkout, imports not rewritten (rename kind file does): a plan, applied by plan_id, undone by rollback.";
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
            renamed(&root, from, to, input.overwrite, Kind::File, "file.rename")
        };
        plan_or_apply(ctx, Self::NAME, &root, FILE_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
