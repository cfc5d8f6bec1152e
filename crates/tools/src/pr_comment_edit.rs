//! `pr_comment_edit`: changes the body of one of the caller's own conversation comments on a
//! pull request. Another author's comment, a comment on another pull request or an issue's
//! number writes nothing; an unchanged body writes nothing either.

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
    #[schemars(range(min = 1), example = 42)]
    pub pull_request_number: i64,
    /// The comment's id (pr_comment_list).
    #[schemars(range(min = 1))]
    pub comment_id: i64,
    /// The new Markdown body, not empty.
    pub body: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#42".
    pub pr: String,
    /// As the forge has it now.
    pub comment: PullRequestComment,
    /// The body already was the one asked for: nothing was written.
    pub unchanged: bool,
}

pub struct PrCommentEdit;

impl Tool for PrCommentEdit {
    const NAME: &'static str = "pr_comment_edit";
    const TITLE: &'static str = "Edit your comment on a pull request";
    const DESCRIPTION: &'static str = "Replace the body of one of your own conversation comments \
on a pull request (GitHub, GitHub Enterprise, Forgejo or Gitea). Another author's comment is \
refused; an unchanged body writes nothing. Review thread replies are not conversation comments.";
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
            On::PullRequest,
            EditRequest {
                repository: input.repository.as_deref(),
                directory: input.directory.as_deref(),
                number: input.pull_request_number,
                number_field: "pull_request_number",
                comment_id: input.comment_id,
                body: &input.body,
            },
        )
        .await?;
        Ok(Output {
            pr: On::PullRequest.shown(&edited.target),
            comment: edited.comment.into(),
            unchanged: edited.unchanged,
        })
    }

    fn render(out: &Output) -> String {
        render_edit(&out.pr, &out.comment, out.unchanged)
    }
}
