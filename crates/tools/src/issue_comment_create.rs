//! `issue_comment_create` (seed 001's `IssueCommenter`): posts a comment on an issue. Nothing
//! is written unless the arguments are valid and the number is an issue, not a pull request
//! (`pr_comment_create` comments on those).

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
    #[schemars(range(min = 1), example = 7)]
    pub issue_number: i64,
    /// Markdown, not empty.
    pub comment: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#7".
    pub issue: String,
    /// As the forge stored it.
    pub comment: PullRequestComment,
}

pub struct IssueCommentCreate;

impl Tool for IssueCommentCreate {
    const NAME: &'static str = "issue_comment_create";
    const TITLE: &'static str = "Comment on an issue";
    const DESCRIPTION: &'static str = "Post a comment on an issue (GitHub, GitHub Enterprise, \
Forgejo or Gitea). For a pull request use pr_comment_create. Nothing is written unless every \
argument is valid.";
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
            number: input.issue_number,
            number_field: "issue_number",
        };
        let (issue, comment) = comments::create(ctx, On::Issue, at, &input.comment).await?;
        Ok(Output { issue, comment })
    }

    fn render(out: &Output) -> String {
        comments::render_created(On::Issue, &out.issue, &out.comment)
    }
}
