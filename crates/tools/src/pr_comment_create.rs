//! `pr_comment_create` (seed 001): posts a conversation comment on a pull request. On GitHub
//! and Forgejo/Gitea alike this is an issue comment on the PR. Nothing is written unless the
//! arguments are valid and the number is a pull request.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::registry::{Annotations, Tool};
use crate::shared::{PullRequestComment, first_line, pr_from_args};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The repository: "owner/repo" (default forge), "host/owner/repo" or
    /// "https://host/owner/repo".
    pub repository: String,
    /// The pull request number (greater than 0).
    #[schemars(range(min = 1))]
    pub pull_request_number: i64,
    /// The comment, in Markdown. Must not be empty or only whitespace.
    pub comment: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// The pull request, normalized ("owner/repo#123").
    pub pr: String,
    /// The comment as the forge stored it.
    pub comment: PullRequestComment,
}

pub struct PrCommentCreate;

impl Tool for PrCommentCreate {
    const NAME: &'static str = "pr_comment_create";
    const TITLE: &'static str = "Comment on a pull request";
    const DESCRIPTION: &'static str = "Create a comment on a pull request's conversation (GitHub, \
GitHub Enterprise, Forgejo or Gitea). Arguments: repository ('owner/repo', or 'host/owner/repo' / \
'https://host/owner/repo' for a forge other than the default), pull_request_number (> 0), comment \
(Markdown, not empty). Returns the created comment (id, body, user, created_at, updated_at, \
html_url). Invalid arguments are rejected before anything is written; a number that is an issue, \
not a pull request, is a 'not found' error. Not for replying inside a review thread.";
    const TOOLSET: &'static str = "comments";
    const ANNOTATIONS: Annotations = Annotations {
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let mut problems = Vec::new();
        if input.comment.trim().is_empty() {
            problems.push("comment must not be empty or only whitespace".to_owned());
        }
        let pr = pr_from_args(&input.repository, input.pull_request_number, problems)?;
        let forge = ctx.forges.for_repo(&pr.repo)?;
        // The forge checks that the number is a pull request before it writes.
        let comment = forge.create_pr_comment(&pr, &input.comment).await?;
        Ok(Output {
            pr: pr.to_string(),
            comment: comment.into(),
        })
    }

    fn render(out: &Output) -> String {
        format!(
            "Pull request comment created successfully on {}. ID: {}, Created: {}\n{}\nComment body: {}",
            out.pr,
            out.comment.id,
            out.comment.created_at,
            out.comment.html_url,
            first_line(&out.comment.body, 200)
        )
    }
}
