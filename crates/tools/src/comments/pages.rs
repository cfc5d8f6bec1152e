//! One page of ours (20) of a conversation's comments, oldest first, over the forge's pages,
//! for `pr_comment_list` and `issue_comment_list`: where the page starts, how far it reads,
//! and the cursor position after it.

use std::future::Future;

use resolve_pr_core::{PageSize, Result};
use resolve_pr_forge::IssueComment;
use serde::{Deserialize, Serialize};

/// Where the next page starts: after the last comment shown, which was on forge page
/// `forge_page` (at [`FORGE_PAGE_SIZE`] a page). Resuming after a comment rather than at an
/// offset means a comment deleted between calls shifts nothing and a comment added is not
/// shown twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Position {
    after_id: u64,
    forge_page: u32,
}

/// The largest page both forges serve; one forge page usually covers several of ours.
pub(crate) const FORGE_PAGE_SIZE: u32 = 100;

/// The comments of the page that starts at `position` (the first page without one) and the
/// position after it when more follow. `fetch(n)` reads forge page `n` (at
/// [`FORGE_PAGE_SIZE`]) and says whether the forge may have more.
pub(crate) async fn comment_page<F, Fut>(
    fetch: F,
    position: Option<Position>,
) -> Result<(Vec<IssueComment>, Option<Position>)>
where
    F: Fn(u32) -> Fut,
    Fut: Future<Output = Result<(Vec<IssueComment>, bool)>>,
{
    // Find where to start: right after the last comment shown. If it was deleted, resume
    // at the first comment after it; if deletions moved it to an earlier forge page, step
    // back until it (or a later comment) is in sight.
    let mut page_no = position.map_or(1, |p| p.forge_page.max(1));
    let (mut items, mut more) = fetch(page_no).await?;
    let mut start = 0;
    if let Some(p) = position {
        loop {
            if let Some(i) = items.iter().position(|c| c.id == p.after_id) {
                start = i + 1;
                break;
            }
            let before_all = items.first().is_none_or(|c| c.id > p.after_id);
            if page_no > 1 && before_all {
                page_no -= 1;
                (items, more) = fetch(page_no).await?;
                continue;
            }
            start = items
                .iter()
                .position(|c| c.id > p.after_id)
                .unwrap_or(items.len());
            break;
        }
    }

    // Take up to a page of ours, moving on to the next forge page when this one runs out.
    let want = PageSize::Comments.get();
    let mut shown: Vec<(u32, IssueComment)> = Vec::with_capacity(want);
    let mut remaining = items.split_off(start.min(items.len()));
    let more_after = loop {
        let rest = remaining.split_off((want - shown.len()).min(remaining.len()));
        shown.extend(remaining.into_iter().map(|c| (page_no, c)));
        remaining = rest;
        if shown.len() == want {
            break !remaining.is_empty() || more;
        }
        if !more {
            break false;
        }
        page_no += 1;
        (remaining, more) = fetch(page_no).await?;
        if remaining.is_empty() {
            break false;
        }
    };
    let next = match shown.last() {
        Some((forge_page, last)) if more_after => Some(Position {
            after_id: last.id,
            forge_page: *forge_page,
        }),
        _ => None,
    };
    Ok((shown.into_iter().map(|(_, c)| c).collect(), next))
}
