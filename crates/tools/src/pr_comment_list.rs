//! `pr_comment_list`: the pull request's conversation comments, oldest first, 20 a page with
//! opaque cursors. The listing `pr_comment_create` relies on: a created comment shows up here.

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
    /// `nextCursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    pub comments: Vec<PullRequestComment>,
    /// Absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

pub struct PrCommentList;

impl Tool for PrCommentList {
    const NAME: &'static str = "pr_comment_list";
    const TITLE: &'static str = "List a pull request's comments";
    const DESCRIPTION: &'static str = "List the conversation comments of a pull request on \
GitHub, GitHub Enterprise, Forgejo or Gitea, oldest first, 20 a page. Comments on code lines \
are in review threads: find_unresolved_comments lists those.";
    const TOOLSET: crate::Toolset = crate::Toolset::Comments;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        let at = Where {
            repository: input.repository.as_deref(),
            directory: input.directory.as_deref(),
            number: input.pull_request_number,
            number_field: "pull_request_number",
        };
        let listed = comments::list(
            ctx,
            On::PullRequest,
            Self::NAME,
            raw,
            at,
            input.cursor.as_deref(),
        )
        .await?;
        Ok(Output {
            pr: listed.shown,
            comments: listed.comments,
            next_cursor: listed.next_cursor,
        })
    }

    fn render(out: &Output) -> String {
        comments::render_page(&out.pr, &out.comments)
    }
}
