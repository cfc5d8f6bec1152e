//! `pr_comment_create` (seed 001): posts a conversation comment on a pull request. On GitHub
//! and Forgejo/Gitea alike this is an issue comment on the PR. Nothing is written unless the
//! arguments are valid and the number is a pull request.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::comments::{self, On, Where};
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
    /// Markdown, not empty.
    pub comment: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    /// As the forge stored it.
    pub comment: PullRequestComment,
}

pub struct PrCommentCreate;

impl Tool for PrCommentCreate {
    const NAME: &'static str = "pr_comment_create";
    const TITLE: &'static str = "Comment on a pull request";
    const DESCRIPTION: &'static str = "Post a comment on a pull request's conversation (GitHub, \
GitHub Enterprise, Forgejo or Gitea). To answer a review thread, use reply_to_review_thread. \
Nothing is written unless every argument is valid; an issue's number is a 'not found' error.";
    const TOOLSET: crate::Toolset = crate::Toolset::Comments;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let at = Where {
            repository: input.repository.as_deref(),
            directory: input.directory.as_deref(),
            number: input.pull_request_number,
            number_field: "pull_request_number",
        };
        let (pr, comment) = comments::create(ctx, On::PullRequest, at, &input.comment).await?;
        Ok(Output { pr, comment })
    }

    fn render(out: &Output) -> String {
        comments::render_created(On::PullRequest, &out.pr, &out.comment)
    }
}
