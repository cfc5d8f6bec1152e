//! `write_file` (seed 002's internal API): a file's whole content replaced, or the file
//! created, as a plan.

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_source::{FileChange, TextEdit, TextRange, WorkspaceChange};
use serde_json::Value;

use crate::Context;
use crate::internal::{FILE_PLAN, Kind, inside, kind_at, meta, needed, plan_input};
use crate::refactor::{RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

plan_input! {
    pub struct Input {
        #[serde(default)]
        #[schemars(example = &"src/lib.rs")]
        pub file_path: Option<String>,
        /// The file's whole new text.
        #[serde(default)]
        pub content: Option<String>,
    }
}

pub struct WriteFile;

impl Tool for WriteFile {
    const NAME: &'static str = "write_file";
    const TITLE: &'static str = "Write a file";
    const DESCRIPTION: &'static str = "Replaces a file's content, or creates it, inside the checkout: a plan, applied by plan_id, undone by rollback.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let make = async {
            let given = needed(Self::NAME, input.file_path.as_deref(), "file_path")?;
            let content = needed(Self::NAME, input.content.as_deref(), "content")?;
            let rel = inside(&root, given, "file_path")?;
            let step = match kind_at(&root, &rel) {
                Kind::Directory => {
                    return Err(Error::user(format!("{given} is a directory"))
                        .with_code(ErrorCode::InvalidPath)
                        .with_detail("field", "file_path"));
                }
                Kind::File => match std::fs::read_to_string(root.join(&rel)) {
                    Ok(old) => FileChange::Edit {
                        path: rel,
                        edits: vec![TextEdit::replace(TextRange::new(0, old.len()), content)],
                    },
                    // Not text: replaced whole.
                    Err(_) => create(rel, content, true),
                },
                Kind::Missing => create(rel, content, false),
            };
            Ok((
                WorkspaceChange {
                    changes: vec![step],
                },
                meta("file.write", Vec::new()),
            ))
        };
        plan_or_apply(ctx, Self::NAME, &root, FILE_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

pub(crate) fn create(path: std::path::PathBuf, contents: &str, overwrite: bool) -> FileChange {
    FileChange::Create {
        path,
        contents: contents.to_owned(),
        overwrite,
        ignore_if_exists: false,
    }
}
