//! `delete_file` (seed 002's internal API): a file removed, as a plan (nothing checks who
//! imports it: `delete` kind file does).

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_source::{FileChange, WorkspaceChange};
use serde_json::Value;

use crate::Context;
use crate::internal::{FILE_PLAN, Kind, inside, kind_at, meta, needed, plan_input};
use crate::refactor::{RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

plan_input! {
    pub struct Input {
        #[serde(default)]
        #[schemars(example = &"src/old.rs")]
        pub file_path: Option<String>,
    }
}

pub struct DeleteFile;

impl Tool for DeleteFile {
    const NAME: &'static str = "delete_file";
    const TITLE: &'static str = "Delete a file";
    const DESCRIPTION: &'static str = "Deletes a file inside the checkout, not checking who imports it (delete kind file does): a plan, applied by plan_id, undone by rollback.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let make = async {
            let given = needed(Self::NAME, input.file_path.as_deref(), "file_path")?;
            let rel = inside(&root, given, "file_path")?;
            if kind_at(&root, &rel) != Kind::File {
                return Err(Error::user(format!("{given} is not a file"))
                    .with_code(ErrorCode::InvalidPath)
                    .with_detail("field", "file_path"));
            }
            let step = FileChange::Delete {
                path: rel,
                recursive: false,
                ignore_if_not_exists: false,
            };
            Ok((
                WorkspaceChange {
                    changes: vec![step],
                },
                meta("file.delete", Vec::new()),
            ))
        };
        plan_or_apply(ctx, Self::NAME, &root, FILE_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
