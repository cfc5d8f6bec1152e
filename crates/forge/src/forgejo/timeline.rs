//! Where a pull request's head branch was before each push: Forgejo and Gitea record every
//! push to an open pull request's head as a `pull_push` comment on its timeline, whose body
//! is JSON: `{"is_force_push": true, "commit_ids": [old head, new head]}` for a force-push,
//! the commits added otherwise.

use resolve_pr_core::PrRef;
use serde::Deserialize;

use super::Forgejo;
use crate::http::Request;
use crate::wording::{not_found_hint, subject};
use crate::{HeadPush, HeadPushes, Result};

/// Timeline events a page asks for: Forgejo/Gitea's default `MAX_RESPONSE_ITEMS`.
const EVENTS_PER_PAGE: usize = 50;

/// Timeline pages read at most; a longer timeline is reported incomplete.
const MAX_TIMELINE_PAGES: usize = 10;

#[derive(Deserialize)]
struct FjTimelineComment {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    body: String,
}

#[derive(Deserialize)]
struct PushContent {
    #[serde(default)]
    is_force_push: bool,
    #[serde(default)]
    commit_ids: Vec<String>,
}

impl Forgejo {
    /// `GET /repos/{o}/{r}/issues/{index}/timeline`, 50 events a page: one request for a
    /// pull request with up to 50 timeline events, at most 10.
    pub(super) async fn fetch_head_pushes(&self, pr: &PrRef) -> Result<HeadPushes> {
        let auth = self.auth()?;
        let subject = format!("the timeline of {}", subject(pr));
        let hint = not_found_hint(pr);
        let mut pushes = Vec::new();
        for page in 1..=MAX_TIMELINE_PAGES {
            let url = format!(
                "{}/issues/{}/timeline?limit={EVENTS_PER_PAGE}&page={page}",
                self.repo_url(pr),
                pr.number
            );
            let response = self
                .http
                .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
                .await?;
            // Go writes an empty list as `null`.
            let events: Option<Vec<FjTimelineComment>> = response.json()?;
            let events = events.unwrap_or_default();
            let count = events.len();
            pushes.extend(events.into_iter().filter_map(head_push));
            let total = response
                .headers
                .get("x-total-count")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok());
            let last = match total {
                Some(total) => page * EVENTS_PER_PAGE >= total,
                None => count < EVENTS_PER_PAGE,
            };
            if last || count == 0 {
                return Ok(HeadPushes {
                    pushes,
                    complete: true,
                });
            }
        }
        Ok(HeadPushes {
            pushes,
            complete: false,
        })
    }
}

/// The push a `pull_push` comment records; `None` for other events and for a body that is
/// not the JSON Forgejo/Gitea write (a push the timeline cannot say more of).
fn head_push(event: FjTimelineComment) -> Option<HeadPush> {
    if event.kind != "pull_push" {
        return None;
    }
    let content: PushContent = serde_json::from_str(&event.body).ok()?;
    Some(if content.is_force_push {
        let mut ids = content.commit_ids.into_iter();
        HeadPush {
            forced: true,
            before: ids.next(),
            after: ids.next(),
            commits: Vec::new(),
        }
    } else {
        HeadPush {
            forced: false,
            before: None,
            after: None,
            commits: content.commit_ids,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: &str, body: &str) -> FjTimelineComment {
        FjTimelineComment {
            kind: kind.to_owned(),
            body: body.to_owned(),
        }
    }

    #[test]
    fn pull_push_comments_are_read_as_pushes() {
        let forced = head_push(event(
            "pull_push",
            r#"{"is_force_push":true,"commit_ids":["aaa","bbb"]}"#,
        ))
        .unwrap();
        assert!(forced.forced);
        assert_eq!(forced.before.as_deref(), Some("aaa"));
        assert_eq!(forced.after.as_deref(), Some("bbb"));
        let added = head_push(event(
            "pull_push",
            r#"{"is_force_push":false,"commit_ids":["c1","c2"],"cached_commits":[]}"#,
        ))
        .unwrap();
        assert!(!added.forced);
        assert_eq!(added.commits, ["c1", "c2"]);
        assert!(head_push(event("comment", "{}")).is_none());
        assert!(head_push(event("pull_push", "not json")).is_none());
    }
}
