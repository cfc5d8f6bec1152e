//! Where a pull request's head branch was before each force-push: GitHub records every one
//! as a `HeadRefForcePushedEvent` on the pull request's timeline (GraphQL only).

use resolve_pr_core::PrRef;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{GitHub, queries};
use crate::wording::subject;
use crate::{Error, HeadPush, HeadPushes, Result};

#[derive(Deserialize)]
struct Timeline {
    #[serde(rename = "totalCount")]
    total_count: usize,
    nodes: Vec<Option<Event>>,
}

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "beforeCommit")]
    before_commit: Option<Oid>,
    #[serde(rename = "afterCommit")]
    after_commit: Option<Oid>,
}

#[derive(Deserialize)]
struct Oid {
    oid: String,
}

impl GitHub {
    /// The first 100 force-pushes of the pull request's head branch (one request, 1 point).
    pub(super) async fn fetch_head_pushes(&self, pr: &PrRef) -> Result<HeadPushes> {
        let variables = json!({"owner": pr.repo.owner, "name": pr.repo.repo, "number": pr.number});
        let data = self.graphql(queries::HEAD_FORCE_PUSHES, variables).await?;
        let timeline = data
            .pointer("/repository/pullRequest/timelineItems")
            .cloned()
            .unwrap_or(Value::Null);
        if timeline.is_null() {
            return Err(Error::not_found(
                None,
                format!("{} is not a pull request", subject(pr)),
            ));
        }
        let timeline: Timeline = serde_json::from_value(timeline).map_err(|e| {
            Error::invalid_body(format!(
                "GitHub's timeline of {} is not as documented: {e}",
                subject(pr)
            ))
        })?;
        let pushes: Vec<HeadPush> = timeline
            .nodes
            .into_iter()
            .flatten()
            .map(|e| HeadPush {
                forced: true,
                before: e.before_commit.map(|c| c.oid),
                after: e.after_commit.map(|c| c.oid),
                commits: Vec::new(),
            })
            .collect();
        Ok(HeadPushes {
            complete: pushes.len() >= timeline.total_count,
            pushes,
        })
    }
}
