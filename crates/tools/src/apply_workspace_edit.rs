//! `apply_workspace_edit` (seed 002's internal API): an LSP `WorkspaceEdit` (text edits,
//! create, rename, delete; positions in UTF-16) planned, verified and applied as a plan.

use resolve_pr_core::Result;
use resolve_pr_edit::PlanMeta;
use serde_json::Value;

use crate::Context;
use crate::internal::{EDIT_PLAN, language_of, needed, plan_input, workspace_edit_change};
use crate::refactor::{RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

plan_input! {
    pub struct Input {
        /// An LSP WorkspaceEdit: changes, or documentChanges with create/rename/delete.
        #[serde(default)]
        #[schemars(with = "Option<serde_json::Map<String, Value>>")]
        pub edit: Option<Value>,
    }
}

pub struct ApplyWorkspaceEdit;

impl Tool for ApplyWorkspaceEdit {
    const NAME: &'static str = "apply_workspace_edit";
    const TITLE: &'static str = "Apply an LSP WorkspaceEdit";
    const DESCRIPTION: &'static str = "Applies an LSP WorkspaceEdit (changes or documentChanges, UTF-16 positions) inside the checkout as a verified plan, applied by plan_id, undone by rollback.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let make = async {
            let Some(edit) = input.edit.as_ref() else {
                return Err(needed(Self::NAME, None, "edit").unwrap_err());
            };
            let change = workspace_edit_change(&root, edit, "edit")?;
            let meta = PlanMeta {
                plan_type: EDIT_PLAN.into(),
                kind: "workspace_edit".into(),
                language: language_of(&change),
                warnings: Vec::new(),
            };
            Ok((change, meta))
        };
        plan_or_apply(ctx, Self::NAME, &root, EDIT_PLAN, input.mode(), make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
