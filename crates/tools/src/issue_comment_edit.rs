//! `issue_comment_edit` (seed 001's `IssueCommentEditor`): changes the body of one of the
//! caller's own comments on an issue. Another author's comment, a comment on another issue or
//! a pull request's number writes nothing; an unchanged body writes nothing either.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::comments::{EditRequest, On, edit, render_edit};
use crate::registry::{Annotations, Tool};
use crate::shared::PullRequestComment;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Also "host/owner/repo" or "https://host/owner/repo" for a forge other than the default.
    /// Give this or directory.
    #[serde(default)]
    #[schemars(example = &"owner/repo")]
    pub repository: Option<String>,
    /// A local checkout whose remote names the repository (upstream, then origin).
    #[serde(default)]
    pub directory: Option<String>,
    #[schemars(range(min = 1), example = 7)]
    pub issue_number: i64,
    /// The comment's id (issue_comment_list).
    #[schemars(range(min = 1))]
    pub comment_id: i64,
    /// The new Markdown body, not empty.
    pub body: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#7".
    pub issue: String,
    /// As the forge has it now.
    pub comment: PullRequestComment,
    /// The body already was the one asked for: nothing was written.
    pub unchanged: bool,
}

pub struct IssueCommentEdit;

impl Tool for IssueCommentEdit {
    const NAME: &'static str = "issue_comment_edit";
    const TITLE: &'static str = "Edit your comment on an issue";
    const DESCRIPTION: &'static str = "Replace the body of one of your own comments on an issue \
(GitHub, GitHub Enterprise, Forgejo or Gitea). Another author's comment is refused; an \
unchanged body writes nothing. For a pull request use pr_comment_edit.";
    const TOOLSET: crate::Toolset = crate::Toolset::Comments;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: false,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let edited = edit(
            ctx,
            On::Issue,
            EditRequest {
                repository: input.repository.as_deref(),
                directory: input.directory.as_deref(),
                number: input.issue_number,
                number_field: "issue_number",
                comment_id: input.comment_id,
                body: &input.body,
            },
        )
        .await?;
        Ok(Output {
            issue: On::Issue.shown(&edited.target),
            comment: edited.comment.into(),
            unchanged: edited.unchanged,
        })
    }

    fn render(out: &Output) -> String {
        render_edit(&out.issue, &out.comment, out.unchanged)
    }
}
