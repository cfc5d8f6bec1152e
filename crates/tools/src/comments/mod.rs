//! What the conversation-comment tools share, over the two kinds of conversation ([`On`]):
//! listing a page (`pr_comment_list`, `issue_comment_list`), creating
//! (`pr_comment_create`, `issue_comment_create`) and editing (`pr_comment_edit`,
//! `issue_comment_edit`), and their texts. Each tool keeps its own contract (argument names,
//! schemas, wording of its description); what it does is here once.

mod edit;
mod pages;

use resolve_pr_core::{PrRef, Result};
use resolve_pr_forge::{IssueComment, Page, PageRequest};
use serde_json::Value;

pub(crate) use edit::{EditRequest, edit};

use crate::Context;
use crate::checkout::pr_target;
use crate::shared::{PullRequestComment, first_line};
use pages::{FORGE_PAGE_SIZE, Position, comment_page};

/// Which kind of conversation a tool works in. Both are an issue's comments on the forge; a
/// pull request's number is refused by the issue tools and an issue's by the PR tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum On {
    Issue,
    PullRequest,
}

impl On {
    pub(crate) fn noun(self) -> &'static str {
        match self {
            On::Issue => "issue",
            On::PullRequest => "pull request",
        }
    }

    /// How the tools name the conversation: "owner/repo#7" (an issue's link form for issues).
    pub(crate) fn shown(self, target: &PrRef) -> String {
        match self {
            On::Issue => crate::shared::issue_ref(target),
            On::PullRequest => target.to_string(),
        }
    }
}

/// Where the comments are: the arguments every comment tool takes.
pub(crate) struct Where<'a> {
    pub repository: Option<&'a str>,
    pub directory: Option<&'a str>,
    pub number: i64,
    /// The argument's name in this tool's schema, for error messages.
    pub number_field: &'a str,
}

/// One page of a conversation's comments.
pub(crate) struct Listed {
    pub shown: String,
    pub comments: Vec<PullRequestComment>,
    pub next_cursor: Option<String>,
}

/// A page (20) of the conversation's comments, oldest first, resuming at `cursor`; the
/// cursor of the next page is bound to `tool` and its arguments `raw`.
pub(crate) async fn list(
    ctx: &Context,
    on: On,
    tool: &'static str,
    raw: &Value,
    at: Where<'_>,
    cursor: Option<&str>,
) -> Result<Listed> {
    let target = pr_target(
        ctx,
        at.repository,
        at.directory,
        at.number,
        at.number_field,
        Vec::new(),
    )
    .await?;
    let position = match cursor {
        Some(c) => Some(ctx.cursors.decode::<Position>(tool, raw, c)?),
        None => None,
    };
    let forge = ctx.forge(&target.repo)?;
    let fetch = |page: u32| {
        let forge = forge.clone();
        let target = target.clone();
        async move {
            let request = PageRequest {
                page,
                per_page: FORGE_PAGE_SIZE,
            };
            // Each forge call refuses the other kind's number ("not found").
            let got: Page<IssueComment> = match on {
                On::PullRequest => {
                    forge
                        .pull_requests()
                        .list_pr_comments(&target, request)
                        .await?
                }
                On::Issue => forge.issues().list_issue_comments(&target, request).await?,
            };
            // A full page may have a successor even when the forge's Link header (served
            // from the ETag cache, which only compares bodies) says otherwise.
            let more = got.has_next || got.items.len() == FORGE_PAGE_SIZE as usize;
            Ok::<_, resolve_pr_core::Error>((got.items, more))
        }
    };
    let (shown, next) = comment_page(fetch, position).await?;
    Ok(Listed {
        shown: on.shown(&target),
        comments: shown.into_iter().map(Into::into).collect(),
        next_cursor: next.map(|p| ctx.cursors.encode(tool, raw, &p)),
    })
}

/// The list tools' text: how many comments, then one line each.
pub(crate) fn render_page(shown: &str, comments: &[PullRequestComment]) -> String {
    let mut text = format!("{} comment(s) on {shown} in this page:", comments.len());
    for c in comments {
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

/// Posts `body` on the conversation once every argument is valid; the forge checks the
/// number is of this kind before it writes.
pub(crate) async fn create(
    ctx: &Context,
    on: On,
    at: Where<'_>,
    body: &str,
) -> Result<(String, PullRequestComment)> {
    let mut problems = Vec::new();
    if body.trim().is_empty() {
        problems.push("comment must not be empty or only whitespace".to_owned());
    }
    let target = pr_target(
        ctx,
        at.repository,
        at.directory,
        at.number,
        at.number_field,
        problems,
    )
    .await?;
    let forge = ctx.forge(&target.repo)?;
    let comment = match on {
        On::PullRequest => {
            forge
                .pull_requests()
                .create_pr_comment(&target, body)
                .await?
        }
        On::Issue => forge.issues().create_issue_comment(&target, body).await?,
    };
    Ok((on.shown(&target), comment.into()))
}

/// The create tools' text: where, the new comment's id, time and link, its first line.
pub(crate) fn render_created(on: On, shown: &str, comment: &PullRequestComment) -> String {
    let what = match on {
        On::PullRequest => "Pull request comment created successfully",
        On::Issue => "Issue comment created",
    };
    format!(
        "{what} on {shown}. ID: {}, Created: {}\n{}\nComment body: {}",
        comment.id,
        comment.created_at,
        comment.html_url,
        first_line(&comment.body, 200)
    )
}

/// The edit tools' text: what happened to which comment, and its body's first line.
pub(crate) fn render_edit(target: &str, comment: &PullRequestComment, unchanged: bool) -> String {
    let what = if unchanged {
        "unchanged (the body already was this)"
    } else {
        "edited"
    };
    format!(
        "Comment {} on {target} {what}. Updated: {}\n{}\nComment body: {}",
        comment.id,
        comment.updated_at,
        comment.html_url,
        first_line(&comment.body, 200)
    )
}
