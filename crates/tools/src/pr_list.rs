//! `pr_list`: a repository's pull requests, newest first, 20 a page with opaque cursors.
//! Filters the forge cannot apply (author and draft on GitHub, branches before Forgejo 16,
//! closed apart from merged everywhere) are applied here while paging, with a bound on the
//! forge pages one call reads; the output says when the bound stopped the search.

use resolve_pr_core::{PageSize, Result};
use resolve_pr_forge::{
    ForgeKind, PageRequest, PrState, PullFilter, PullListState, PullRequestDetails, format_time,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::checkout::repo_target;
use crate::registry::{Annotations, Tool};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StateFilter {
    #[default]
    Open,
    Closed,
    Merged,
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
    /// Target branch.
    #[serde(default)]
    pub base: Option<String>,
    /// Source branch in this repository; forks' pull requests (listed with head
    /// "owner:branch") never match it.
    #[serde(default)]
    pub head: Option<String>,
    /// Login.
    #[serde(default)]
    pub author: Option<String>,
    #[serde(default)]
    pub draft: Option<bool>,
    /// `nextCursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// One pull request, compact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullSummary {
    pub number: u64,
    pub title: String,
    pub state: PrState,
    pub draft: bool,
    pub author: String,
    /// "owner:branch" when the branch is in a fork.
    pub head: String,
    pub base: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    pub updated_at: String,
    pub html_url: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// "owner/repo".
    pub repository: String,
    pub pull_requests: Vec<PullSummary>,
    /// Older pull requests were not looked at yet (not "none match"): go on with nextCursor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_stopped: Option<String>,
    /// Absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Where the next page starts: after the pull request last looked at (shown, or passed over
/// by a filter), by the listing's order (opened, newest first; then number). Resuming after a
/// pull request rather than at an offset means one opened between calls (it sorts before
/// the cursor) is neither shown twice nor pushes an older one out of sight. `forge_page` is
/// where it was, a hint the walk corrects when pull requests opened or left the state since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Position {
    created_at: String,
    number: u64,
    forge_page: u32,
}

/// Forge pages one call reads at most: 500 pull requests on both forges.
const GITHUB_PAGE: u32 = 100;
const GITHUB_PAGES: u32 = 5;
const FORGEJO_PAGE: u32 = 50;
const FORGEJO_PAGES: u32 = 10;

pub struct PrList;

impl Tool for PrList {
    const NAME: &'static str = "pr_list";
    const TITLE: &'static str = "List a repository's pull requests";
    const DESCRIPTION: &'static str = "List a repository's pull requests on GitHub, GitHub \
Enterprise, Forgejo or Gitea, newest first, 20 a page. A call reads at most 500 pull requests; \
filters the forge lacks are applied to those. pr_get gives one in full.";
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
        // git forbids ':' in branch names: "owner:branch" names a fork's branch, which this
        // filter cannot match; saying so beats an empty list.
        if let Some(head) = input.head.as_deref().filter(|h| h.contains(':')) {
            problems.push(format!(
                "head is a branch of this repository, so it cannot contain ':' (got {head:?}); \
                 a fork's pull requests are listed without head, their head shown as \
                 \"owner:branch\""
            ));
        }
        for (field, value) in [
            ("base", &input.base),
            ("head", &input.head),
            ("author", &input.author),
        ] {
            if let Some(v) = value
                && (v.is_empty()
                    || v.len() > 255
                    || v.chars().any(|c| c.is_whitespace() || c.is_control()))
            {
                problems.push(format!(
                    "{field} must be a {} without spaces or control characters (got {v:?})",
                    if field == "author" {
                        "login"
                    } else {
                        "branch name"
                    }
                ));
            }
        }
        let position = match &input.cursor {
            Some(c) => match ctx.cursors.decode::<Position>(Self::NAME, raw, c) {
                Ok(p) => Some(p),
                Err(e) if problems.is_empty() => return Err(e),
                Err(_) => {
                    problems.push("cursor is not a nextCursor of this call".to_owned());
                    None
                }
            },
            None => None,
        };
        let repo = repo_target(
            ctx,
            input.repository.as_deref(),
            input.directory.as_deref(),
            problems,
        )
        .await?;
        let after = match &position {
            Some(p) => Some((
                resolve_pr_forge::parse_time(&p.created_at).ok_or_else(|| {
                    crate::shared::invalid(vec![
                        "cursor is not a nextCursor of this call".to_owned(),
                    ])
                })?,
                p.number,
            )),
            None => None,
        };
        let filter = PullFilter {
            state: match input.state {
                StateFilter::Open => PullListState::Open,
                StateFilter::Closed => PullListState::Closed,
                StateFilter::Merged => PullListState::Merged,
                StateFilter::All => PullListState::All,
            },
            head: input.head.clone(),
            base: input.base.clone(),
            author: input.author.clone(),
            draft: input.draft,
            limit: 0,
        };
        let forge = ctx.forge(&repo)?;
        let (per_page, max_pages) = match forge.kind() {
            ForgeKind::GitHub => (GITHUB_PAGE, GITHUB_PAGES),
            _ => (FORGEJO_PAGE, FORGEJO_PAGES),
        };
        let fetch = |page: u32| {
            let forge = forge.clone();
            let repo = repo.clone();
            let filter = filter.clone();
            async move {
                forge
                    .pull_requests()
                    .pull_request_page(&repo, &filter, PageRequest { page, per_page })
                    .await
            }
        };
        // A pull request is past the cursor when it sorts after it: opened earlier, or at the
        // same time with a lower number.
        let past = |p: &PullRequestDetails| {
            after.is_none_or(|(at, number)| (p.created_at, p.pull.number) < (at, number))
        };

        let want = PageSize::Comments.get();
        let mut page_no = position.as_ref().map_or(1, |p| p.forge_page.max(1));
        let mut reads = 0u32;
        let mut shown: Vec<PullRequestDetails> = Vec::with_capacity(want);
        let mut last_seen: Option<(PullRequestDetails, u32)> = None;
        // Until a page is walked, the cursor's page may still need finding.
        let mut settled = after.is_none();
        let mut bounded = false;
        // Whether anything may follow what was looked at.
        let more = 'pages: loop {
            let page = fetch(page_no).await?;
            reads += 1;
            // Pull requests that left the state move the cursor's one to an earlier page: step
            // back while this page starts past it (or is empty).
            if !settled && page_no > 1 && page.items.first().is_none_or(past) && reads < max_pages {
                page_no -= 1;
                continue;
            }
            settled = true;
            let count = page.items.len();
            for p in page.items {
                if !past(&p) {
                    continue;
                }
                if shown.len() == want {
                    break 'pages true;
                }
                if filter.keeps(&repo, &p.pull) {
                    shown.push(p.clone());
                }
                last_seen = Some((p, page_no));
            }
            if !page.has_next || count == 0 {
                break false;
            }
            if shown.len() == want {
                break true;
            }
            if reads >= max_pages {
                bounded = true;
                break true;
            }
            page_no += 1;
        };
        let next_cursor = match &last_seen {
            Some((last, forge_page)) if more => Some(ctx.cursors.encode(
                Self::NAME,
                raw,
                &Position {
                    created_at: format_time(&last.created_at),
                    number: last.pull.number,
                    forge_page: *forge_page,
                },
            )),
            _ => None,
        };
        let search_stopped = (bounded && next_cursor.is_some()).then(|| {
            let through = last_seen
                .as_ref()
                .map(|(p, _)| {
                    format!(
                        " (back to #{}, opened {})",
                        p.pull.number,
                        format_time(&p.created_at)
                    )
                })
                .unwrap_or_default();
            format!(
                "read {reads} page(s) of up to {per_page} pull requests{through} and found {} \
                 match(es); older pull requests were not looked at yet: call again with \
                 nextCursor to go on",
                shown.len()
            )
        });
        Ok(Output {
            repository: repo.full_name(),
            pull_requests: shown.into_iter().map(summary).collect(),
            search_stopped,
            next_cursor,
        })
    }

    fn render(out: &Output) -> String {
        let mut text = format!(
            "{} pull request(s) of {} in this page",
            out.pull_requests.len(),
            out.repository
        );
        text.push(':');
        for p in &out.pull_requests {
            let draft = if p.draft { " draft" } else { "" };
            text.push_str(&format!(
                "\n- #{} [{}{draft}] {} ({} -> {}, by {}, updated {})",
                p.number,
                state_word(p.state),
                p.title,
                p.head,
                p.base,
                p.author,
                p.updated_at
            ));
        }
        if let Some(stopped) = &out.search_stopped {
            text.push_str(&format!("\nSearch stopped: {stopped}."));
        }
        text
    }
}

/// The state as the schema spells it.
pub(crate) fn state_word(state: PrState) -> &'static str {
    match state {
        PrState::Open => "open",
        PrState::Closed => "closed",
        PrState::Merged => "merged",
    }
}

fn summary(p: PullRequestDetails) -> PullSummary {
    // A fork's branch named like one of the repository's is another branch: say whose.
    let head = match (&p.pull.head_repo, p.pull.is_from_fork()) {
        (Some(repo), true) => {
            let owner = repo.split('/').next().unwrap_or(repo);
            format!("{owner}:{}", p.pull.head_ref)
        }
        _ => p.pull.head_ref.clone(),
    };
    PullSummary {
        number: p.pull.number,
        title: p.pull.title,
        state: p.pull.state,
        draft: p.pull.draft,
        author: p.pull.author.login,
        head,
        base: p.pull.base_ref,
        labels: p.pull.labels,
        updated_at: format_time(&p.updated_at),
        html_url: p.pull.html_url,
    }
}
