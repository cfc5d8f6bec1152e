//! `pr_comment_list`: the pull request's conversation comments, oldest first, 20 a page with
//! opaque cursors. The listing `pr_comment_create` relies on: a created comment shows up here.

use resolve_pr_core::{PageSize, Result};
use resolve_pr_forge::PageRequest;
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
    /// `nextCursor` from the previous page; omit for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// The pull request, normalized ("owner/repo#123").
    pub pr: String,
    /// Comments on this page, oldest first.
    pub comments: Vec<PullRequestComment>,
    /// Pass as `cursor` to get the next page; absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Where the next page starts: the forge's page number at our page size. Comments are listed
/// oldest first and new ones are appended, so page boundaries stay put while comments arrive.
/// A comment deleted between two calls shifts later pages by one; filtering by id instead
/// would silently drop comments on a forge whose ids are not in creation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Position {
    page: u32,
}

pub struct PrCommentList;

impl Tool for PrCommentList {
    const NAME: &'static str = "pr_comment_list";
    const TITLE: &'static str = "List a pull request's comments";
    const DESCRIPTION: &'static str = "List the conversation comments of a pull request (GitHub, \
GitHub Enterprise, Forgejo or Gitea), oldest first, 20 per page. Arguments: repository \
('owner/repo', 'host/owner/repo' or 'https://host/owner/repo'), pull_request_number (> 0), and \
cursor (the nextCursor of the previous page). Each comment has id, body, user, is_bot, \
created_at, updated_at, html_url. Review comments on code lines are not included.";
    const TOOLSET: &'static str = "comments";
    const ANNOTATIONS: Annotations = Annotations {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        let pr = pr_from_args(&input.repository, input.pull_request_number, Vec::new())?;
        let position = match &input.cursor {
            Some(c) => ctx.cursors.decode::<Position>(Self::NAME, raw, c)?,
            None => Position { page: 1 },
        };
        let forge = ctx.forges.for_repo(&pr.repo)?;
        let request = PageRequest {
            page: position.page,
            per_page: PageSize::Comments.get() as u32,
        };
        // The forge answers "not found" for a number that is an issue, not a PR.
        let page = forge.list_pr_comments(&pr, request).await?;
        let comments: Vec<PullRequestComment> = page.items.into_iter().map(Into::into).collect();
        let next_cursor = page.has_next.then(|| {
            let next = Position {
                page: position.page + 1,
            };
            ctx.cursors.encode(Self::NAME, raw, &next)
        });
        Ok(Output {
            pr: pr.to_string(),
            comments,
            next_cursor,
        })
    }

    fn render(out: &Output) -> String {
        let mut text = format!(
            "{} comment(s) on {} in this page",
            out.comments.len(),
            out.pr
        );
        if out.next_cursor.is_some() {
            text.push_str(" (more: call again with nextCursor)");
        }
        text.push(':');
        for c in &out.comments {
            // GitHub App logins already end in "[bot]".
            let bot = if c.is_bot && !c.user.ends_with("[bot]") {
                " [bot]"
            } else {
                ""
            };
            text.push_str(&format!(
                "\n- #{} {}{} at {}: {}",
                c.id,
                c.user,
                bot,
                c.created_at,
                first_line(&c.body, 120)
            ));
        }
        text
    }
}
