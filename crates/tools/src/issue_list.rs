//! `issue_list` (seed 001's `IssueLister`): a repository's issues, never its pull requests,
//! newest first, 20 a page with opaque cursors. Filters go to the forge and are checked again
//! on every item, so both forges answer alike.

use resolve_pr_core::{RepoRef, Result};
use resolve_pr_forge::{Forge, Issue, IssueFilter, IssueListState, PageRequest, format_time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::checkout::repo_target;
use crate::registry::{Annotations, Tool};
use crate::shared::first_line;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StateFilter {
    #[default]
    Open,
    Closed,
    All,
}

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
    /// Default open.
    #[serde(default)]
    pub state: StateFilter,
    /// Only issues that have every one of these labels.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Only issues opened by this login.
    #[serde(default)]
    pub author: Option<String>,
    /// `nextCursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IssueSummary {
    pub number: u64,
    pub title: String,
    /// open or closed.
    pub state: String,
    /// Login of who opened it.
    pub author: String,
    pub labels: Vec<String>,
    /// Conversation comments.
    pub comments: u64,
    pub created_at: String,
    pub updated_at: String,
    pub html_url: String,
}

impl From<Issue> for IssueSummary {
    fn from(i: Issue) -> Self {
        IssueSummary {
            number: i.number,
            title: i.title,
            state: i.state.as_str().to_owned(),
            author: i.author.login,
            labels: i.labels,
            comments: i.comments,
            created_at: format_time(&i.created_at),
            updated_at: format_time(&i.updated_at),
            html_url: i.html_url,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo".
    pub repository: String,
    pub issues: Vec<IssueSummary>,
    /// Set when the call stopped at its bound of forge pages (GitHub lists pull requests
    /// among issues) before the page was full: older issues were not looked at yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_stopped: Option<String>,
    /// Absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Where the next page starts: after the issue numbered `after` (issues are numbered in the
/// order they were opened, so newest first is descending numbers), looked for on forge page
/// `forge_page`. Issues opened between calls push older ones to later forge pages and are
/// never shown in the middle of a walk; closed or deleted ones pull them earlier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Position {
    after: u64,
    forge_page: u32,
}

/// Forge pages read for one call at most: a repository whose listing is mostly pull requests
/// (GitHub lists them among issues) must not turn one call into hundreds of requests. When
/// reached, the page is cut short and the cursor goes on from there.
const MAX_FORGE_PAGES_PER_CALL: u32 = 10;

/// The most both forges serve in a page; GitHub takes 100, Forgejo/Gitea cap it at 50.
const FORGE_PAGE_SIZE: u32 = 100;

pub struct IssueList;

impl Tool for IssueList {
    const NAME: &'static str = "issue_list";
    const TITLE: &'static str = "List a repository's issues";
    const DESCRIPTION: &'static str = "List a repository's issues (never its pull requests) on \
GitHub, GitHub Enterprise, Forgejo or Gitea, newest first, 20 a page; filter by state, labels \
(all must match) and author.";
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
        let mut problems = Vec::new();
        for (i, label) in input.labels.iter().enumerate() {
            if label.trim().is_empty() {
                problems.push(format!("labels[{i}] must not be empty"));
            }
        }
        if let Some(author) = &input.author
            && (author.trim().is_empty() || author.chars().any(char::is_whitespace))
        {
            problems.push(format!(
                "author must be a login, without spaces (got {author:?})"
            ));
        }
        let repo = repo_target(
            ctx,
            input.repository.as_deref(),
            input.directory.as_deref(),
            problems,
        )
        .await?;
        let position = match &input.cursor {
            Some(c) => Some(ctx.cursors.decode::<Position>(Self::NAME, raw, c)?),
            None => None,
        };
        let filter = IssueFilter {
            state: match input.state {
                StateFilter::Open => IssueListState::Open,
                StateFilter::Closed => IssueListState::Closed,
                StateFilter::All => IssueListState::All,
            },
            labels: input.labels.iter().map(|l| l.trim().to_owned()).collect(),
            author: input.author.as_deref().map(str::trim).map(str::to_owned),
        };
        let forge = ctx.forge(&repo)?;
        let (shown, next) = collect_page(forge.as_ref(), &repo, &filter, position).await?;
        let next_cursor = next.map(|p| ctx.cursors.encode(Self::NAME, raw, &p));
        // A short page with a cursor only happens when the bound stopped the search.
        let search_stopped = (shown.len() < resolve_pr_core::PageSize::Comments.get()
            && next_cursor.is_some())
        .then(|| {
            format!(
                "stopped after {MAX_FORGE_PAGES_PER_CALL} pages of the forge's listing, most of \
                 them pull requests; older issues were not looked at yet: call again with \
                 nextCursor to go on"
            )
        });
        Ok(Output {
            repository: repo.full_name(),
            issues: shown.into_iter().map(IssueSummary::from).collect(),
            search_stopped,
            next_cursor,
        })
    }

    fn render(out: &Output) -> String {
        let mut text = format!(
            "{} issue(s) of {} in this page",
            out.issues.len(),
            out.repository
        );
        if let Some(stopped) = &out.search_stopped {
            text.push_str(&format!(" ({stopped})"));
        }
        text.push(':');
        for i in &out.issues {
            let labels = if i.labels.is_empty() {
                String::new()
            } else {
                format!(" [{}]", i.labels.join(", "))
            };
            text.push_str(&format!(
                "\n- #{} ({}) {}{} by {}, {} comment(s)",
                i.number,
                i.state,
                first_line(&i.title, 100),
                labels,
                i.author,
                i.comments
            ));
        }
        text
    }
}

/// Up to a page of ours from where `position` says, and where the page after it starts.
async fn collect_page(
    forge: &dyn Forge,
    repo: &RepoRef,
    filter: &IssueFilter,
    position: Option<Position>,
) -> Result<(Vec<Issue>, Option<Position>)> {
    let fetch = |page: u32| async move {
        let got = forge
            .issues()
            .list_issues(
                repo,
                filter,
                PageRequest {
                    page,
                    per_page: FORGE_PAGE_SIZE,
                },
            )
            .await?;
        Ok::<_, resolve_pr_core::Error>((got.items, got.has_next))
    };
    let want = resolve_pr_core::PageSize::Comments.get();
    let mut page_no = position.map_or(1, |p| p.forge_page.max(1));
    let mut reads = 1;
    let (mut items, mut more) = fetch(page_no).await?;

    // Find where to start: right after the last issue shown. It is usually on the page the
    // cursor names; issues opened since push it later, closed or deleted ones earlier.
    let mut start = 0;
    if let Some(p) = position {
        let mut moved_on = false;
        loop {
            if let Some(i) = items.iter().position(|x| x.number == p.after) {
                start = i + 1;
                break;
            }
            // `u64::MAX`: a walk cut short before it showed anything, which stepping back
            // cannot help.
            let all_older =
                p.after != u64::MAX && items.first().is_some_and(|x| x.number < p.after);
            let all_newer = items.last().is_none_or(|x| x.number > p.after);
            if all_older && page_no > 1 && !moved_on && reads < MAX_FORGE_PAGES_PER_CALL {
                page_no -= 1;
            } else if all_newer && more && reads < MAX_FORGE_PAGES_PER_CALL {
                page_no += 1;
                moved_on = true;
            } else {
                start = items
                    .iter()
                    .position(|x| x.number < p.after)
                    .unwrap_or(items.len());
                break;
            }
            reads += 1;
            (items, more) = fetch(page_no).await?;
        }
    }

    let mut shown: Vec<Issue> = Vec::with_capacity(want);
    let mut remaining = items.split_off(start.min(items.len()));
    let more_after = loop {
        let rest = remaining.split_off((want - shown.len()).min(remaining.len()));
        shown.extend(remaining);
        remaining = rest;
        if shown.len() == want {
            break !remaining.is_empty() || more;
        }
        if !more {
            break false;
        }
        if reads >= MAX_FORGE_PAGES_PER_CALL {
            // Cut short; the next call goes on with the next forge page.
            break true;
        }
        page_no += 1;
        reads += 1;
        (remaining, more) = fetch(page_no).await?;
    };
    let next = if more_after {
        let after = shown
            .last()
            .map(|i| i.number)
            .or(position.map(|p| p.after))
            // Nothing shown yet in the whole walk: every issue number is below this.
            .unwrap_or(u64::MAX);
        // The last one shown was on the current forge page, unless this page of ours ended
        // exactly where a forge page did and nothing of the next one was read.
        Some(Position {
            after,
            forge_page: page_no,
        })
    } else {
        None
    };
    Ok((shown, next))
}
