//! `issue_comment_list` (seed 001's `IssueCommentLister`): an issue's conversation comments,
//! oldest first, 20 a page with opaque cursors. A pull request's number is refused: its
//! conversation is `pr_comment_list`'s.

use resolve_pr_core::Result;
use resolve_pr_forge::PageRequest;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::comment_pages::{FORGE_PAGE_SIZE, Position, comment_page};
use crate::registry::{Annotations, Tool};
use crate::checkout::pr_target;
use crate::shared::{PullRequestComment, first_line, issue_ref};

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
    /// `nextCursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#7".
    pub issue: String,
    pub comments: Vec<PullRequestComment>,
    /// Absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

pub struct IssueCommentList;

impl Tool for IssueCommentList {
    const NAME: &'static str = "issue_comment_list";
    const TITLE: &'static str = "List an issue's comments";
    const DESCRIPTION: &'static str = "List the comments of an issue on GitHub, GitHub \
Enterprise, Forgejo or Gitea, oldest first, 20 a page. For a pull request use pr_comment_list.";
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
        let issue = pr_target(
            ctx,
            input.repository.as_deref(),
            input.directory.as_deref(),
            input.issue_number,
            "issue_number",
            Vec::new(),
        )
        .await?;
        let position = match &input.cursor {
            Some(c) => Some(ctx.cursors.decode::<Position>(Self::NAME, raw, c)?),
            None => None,
        };
        let forge = ctx.forge(&issue.repo)?;
        let fetch = |page: u32| {
            let forge = forge.clone();
            let issue = issue.clone();
            async move {
                let request = PageRequest {
                    page,
                    per_page: FORGE_PAGE_SIZE,
                };
                // The forge refuses a pull request's number.
                let got = forge
                    .issues()
                    .list_issue_comments(&issue, request)
                    .await?;
                // A full page may have a successor even when a cached Link says otherwise.
                let more = got.has_next || got.items.len() == FORGE_PAGE_SIZE as usize;
                Ok::<_, resolve_pr_core::Error>((got.items, more))
            }
        };
        let (shown, next) = comment_page(fetch, position).await?;
        Ok(Output {
            issue: issue_ref(&issue),
            comments: shown.into_iter().map(Into::into).collect(),
            next_cursor: next.map(|p| ctx.cursors.encode(Self::NAME, raw, &p)),
        })
    }

    fn render(out: &Output) -> String {
        let mut text = format!(
            "{} comment(s) on {} in this page",
            out.comments.len(),
            out.issue
        );
        text.push(':');
        for c in &out.comments {
            text.push_str(&format!(
                "\n- #{} {} at {}: {}",
                c.id,
                c.user,
                c.created_at,
                first_line(&c.body, 120)
            ));
        }
        text
    }
}
