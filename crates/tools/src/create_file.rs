//! `create_file` (seed 002's internal API): a new file, refused if one is there unless
//! overwrite, as a plan.

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_source::WorkspaceChange;
use serde_json::Value;

use crate::Context;
use crate::internal::{FILE_PLAN, Kind, inside, kind_at, meta, needed, plan_input};
use crate::refactor::{RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

plan_input! {
    pub struct Input {
        #[serde(default)]
        #[schemars(example = &"src/new.rs")]
        pub file_path: Option<String>,
        /// Default: empty.
        #[serde(default)]
        pub content: Option<String>,
        /// Replace a file already there. Default: false.
        #[serde(default)]
        pub overwrite: bool,
    }
}

pub struct CreateFile;

impl Tool for CreateFile {
    const NAME: &'static str = "create_file";
    const TITLE: &'static str = "Create a file";
    const DESCRIPTION: &'static str = "Creates a file inside the checkout (its directories too); refused if it exists unless overwrite. A plan, applied by plan_id, undone by rollback.";
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
            match kind_at(&root, &rel) {
                Kind::Directory => {
                    return Err(Error::user(format!("{given} is a directory"))
                        .with_code(ErrorCode::InvalidPath)
                        .with_detail("field", "file_path"));
                }
                Kind::File if !input.overwrite => {
                    return Err(Error::user(format!("{given} exists"))
                        .with_code(ErrorCode::InvalidPath)
                        .with_detail("field", "file_path")
                        .with_suggestion(
                            "Pass overwrite: true to replace it, or use write_file.",
                        ));
                }
                _ => {}
            }
            let step = crate::write_file::create(
                rel,
                input.content.as_deref().unwrap_or_default(),
                input.overwrite,
            );
            Ok((
                WorkspaceChange {
                    changes: vec![step],
                },
                meta("file.create", Vec::new()),
            ))
        };
        plan_or_apply(ctx, Self::NAME, &root, FILE_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
