//! `pr_comment_list`: the pull request's conversation comments, oldest first, 20 a page with
//! opaque cursors. The listing `pr_comment_create` relies on: a created comment shows up here.

use resolve_pr_core::Result;
use resolve_pr_forge::PageRequest;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::comment_pages::{FORGE_PAGE_SIZE, Position, comment_page};
use crate::registry::{Annotations, Tool};
use crate::checkout::pr_target;
use crate::shared::{PullRequestComment, first_line};

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
        let pr = pr_target(
            ctx,
            input.repository.as_deref(),
            input.directory.as_deref(),
            input.pull_request_number,
            "pull_request_number",
            Vec::new(),
        )
        .await?;
        let position = match &input.cursor {
            Some(c) => Some(ctx.cursors.decode::<Position>(Self::NAME, raw, c)?),
            None => None,
        };
        let forge = ctx.forge(&pr.repo)?;
        let fetch = |page: u32| {
            let forge = forge.clone();
            let pr = pr.clone();
            async move {
                let request = PageRequest {
                    page,
                    per_page: FORGE_PAGE_SIZE,
                };
                // The forge answers "not found" for a number that is an issue, not a PR.
                let got = forge.pull_requests().list_pr_comments(&pr, request).await?;
                // A full page may have a successor even when the forge's Link header (served
                // from the ETag cache, which only compares bodies) says otherwise.
                let more = got.has_next || got.items.len() == FORGE_PAGE_SIZE as usize;
                Ok::<_, resolve_pr_core::Error>((got.items, more))
            }
        };
        let (shown, next) = comment_page(fetch, position).await?;
        let next_cursor = next.map(|p| ctx.cursors.encode(Self::NAME, raw, &p));
        let comments = shown.into_iter().map(Into::into).collect();
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
