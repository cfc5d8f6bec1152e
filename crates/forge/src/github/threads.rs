//! Review threads on GitHub: GraphQL only (REST has neither thread ids nor resolution state).
//! Threads come 100 a page, each with its first 100 comments; longer threads are completed
//! with per-thread follow-ups that run concurrently, a few at a time.

use futures_util::{StreamExt, TryStreamExt, stream};
use resolve_pr_core::PrRef;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::{GitHub, queries, subject};
use crate::time::Timestamp;
use crate::{Actor, Minimized, Reactions, ReviewComment, ReviewThread};
use crate::{Error, Result};

/// How many per-thread comment follow-ups run at once: enough to hide latency, few enough
/// not to trip GitHub's secondary rate limit on concurrent requests.
const FOLLOW_UP_CONCURRENCY: usize = 4;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PageInfo {
    has_next_page: bool,
    end_cursor: Option<String>,
}

impl PageInfo {
    /// The cursor of the next page, if any. A cursor that does not move, or more pages than
    /// any pull request has, means the server is looping: an error, not an endless walk.
    pub(super) fn next(
        self,
        previous: Option<&str>,
        pages: u32,
        what: &str,
    ) -> Result<Option<String>> {
        let next = match (self.has_next_page, self.end_cursor) {
            (true, Some(cursor)) => cursor,
            _ => return Ok(None),
        };
        if previous == Some(next.as_str()) || pages >= super::MAX_PAGES {
            return Err(Error::invalid_body(format!(
                "GitHub kept returning the same or ever more pages of {what} ({pages} pages)"
            ))
            .with_suggestion("Retry later; if it persists, the API is misbehaving."));
        }
        Ok(Some(next))
    }
}

/// A connection page. GraphQL lists may hold nulls (a node the token cannot see).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Connection<T> {
    pub(super) page_info: PageInfo,
    /// When the document asks for it.
    #[serde(default)]
    pub(super) total_count: u64,
    #[serde(default = "Vec::new")]
    pub(super) nodes: Vec<Option<T>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct GqlActor {
    login: String,
    #[serde(rename = "__typename", default)]
    typename: String,
}

#[derive(Debug, Deserialize)]
pub(super) struct GqlCommit {
    pub(super) oid: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlReactors {
    total_count: u64,
}

#[derive(Debug, Deserialize)]
pub(super) struct GqlReactionGroup {
    content: String,
    reactors: GqlReactors,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GqlComment {
    pub(super) id: String,
    #[serde(default, deserialize_with = "big_int")]
    full_database_id: Option<u64>,
    #[serde(default)]
    body: String,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    created_at: Timestamp,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    pub(super) updated_at: Timestamp,
    url: String,
    diff_hunk: Option<String>,
    author_association: Option<String>,
    author: Option<GqlActor>,
    commit: Option<GqlCommit>,
    #[serde(default)]
    reaction_groups: Option<Vec<GqlReactionGroup>>,
    #[serde(default)]
    pub(super) is_minimized: bool,
    #[serde(default)]
    minimized_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GqlThread {
    pub(super) id: String,
    pub(super) is_resolved: bool,
    is_outdated: bool,
    path: Option<String>,
    line: Option<u64>,
    start_line: Option<u64>,
    original_line: Option<u64>,
    #[serde(default)]
    original_start_line: Option<u64>,
    diff_side: Option<String>,
    subject_type: Option<String>,
    viewer_can_resolve: bool,
    #[serde(default)]
    viewer_can_unresolve: bool,
    viewer_can_reply: bool,
    /// Not asked for where only unresolved threads matter.
    #[serde(default)]
    resolved_by: Option<GqlActor>,
    pub(super) comments: Connection<GqlComment>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlThreadPull {
    number: u64,
    repository: GqlRepository,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlRepository {
    name_with_owner: String,
}

/// GitHub's `BigInt` scalar: a decimal string (a number is accepted too).
pub(super) fn big_int<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<u64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_u64()),
        Some(Value::String(s)) => s.trim().parse().map(Some).map_err(serde::de::Error::custom),
        Some(other) => Err(serde::de::Error::custom(format!(
            "expected a BigInt, got {other}"
        ))),
    }
}

/// GraphQL reports a bot by its type and without the `[bot]` suffix REST shows; the suffix
/// is added so one account has one name whichever API a tool read it from.
pub(super) fn actor(author: Option<GqlActor>) -> Actor {
    match author {
        Some(a) if a.typename == "Bot" => Actor {
            login: if a.login.ends_with("[bot]") {
                a.login
            } else {
                format!("{}[bot]", a.login)
            },
            is_bot: true,
        },
        Some(a) => Actor {
            login: a.login,
            is_bot: false,
        },
        None => Actor {
            login: "ghost".to_owned(),
            is_bot: false,
        },
    }
}

pub(super) fn reactions(groups: Option<Vec<GqlReactionGroup>>) -> Option<Reactions> {
    let groups = groups?;
    let mut r = Reactions::default();
    for g in groups {
        let n = g.reactors.total_count;
        let slot = match g.content.as_str() {
            "THUMBS_UP" => &mut r.plus_one,
            "THUMBS_DOWN" => &mut r.minus_one,
            "LAUGH" => &mut r.laugh,
            "HOORAY" => &mut r.hooray,
            "CONFUSED" => &mut r.confused,
            "HEART" => &mut r.heart,
            "ROCKET" => &mut r.rocket,
            "EYES" => &mut r.eyes,
            // A reaction GitHub adds later still counts towards the total.
            _ => {
                r.total_count += n;
                continue;
            }
        };
        *slot += n;
        r.total_count += n;
    }
    Some(r)
}

impl GqlComment {
    /// `root`: the id of the thread's first comment, which every later comment answers.
    pub(super) fn into_domain(self, root: Option<u64>) -> ReviewComment {
        let id = self.full_database_id.unwrap_or(0);
        ReviewComment {
            id,
            node_id: Some(self.id),
            author: actor(self.author),
            author_association: self.author_association,
            body: self.body,
            created_at: self.created_at,
            updated_at: self.updated_at,
            html_url: self.url,
            diff_hunk: self.diff_hunk.filter(|h| !h.is_empty()),
            commit_id: self.commit.map(|c| c.oid),
            in_reply_to_id: root.filter(|&r| r != id),
            reactions: reactions(self.reaction_groups),
            minimized: minimized(self.is_minimized, self.minimized_reason),
        }
    }
}

/// GitHub's minimized state. Its reasons come in lower case with dashes (`off-topic`), unlike
/// the mutation's enum (`OFF_TOPIC`); either spelling is read as the first.
pub(super) fn minimized(is_minimized: bool, reason: Option<String>) -> Option<Minimized> {
    is_minimized.then(|| Minimized {
        reason: reason
            .map(|r| r.trim().to_lowercase().replace('_', "-"))
            .filter(|r| !r.is_empty()),
    })
}

/// A thread whose comments may still need their later pages.
pub(super) struct Partial {
    pub(super) thread: ReviewThread,
    /// The cursor after the comments we have, when there are more.
    pub(super) more_after: Option<String>,
}

impl GqlThread {
    pub(super) fn into_partial(self) -> Partial {
        let more_after = if self.comments.page_info.has_next_page {
            // A page that says "more" without a cursor cannot be continued; asking again
            // from the start would loop, so it is treated as the end.
            self.comments.page_info.end_cursor.clone()
        } else {
            None
        };
        let nodes: Vec<GqlComment> = self.comments.nodes.into_iter().flatten().collect();
        let root = nodes.first().and_then(|c| c.full_database_id);
        let comments = nodes.into_iter().map(|c| c.into_domain(root)).collect();
        Partial {
            thread: ReviewThread {
                id: self.id,
                is_resolved: self.is_resolved,
                is_outdated: self.is_outdated,
                path: self.path,
                line: self.line,
                start_line: self.start_line,
                original_line: self.original_line,
                original_start_line: self.original_start_line,
                diff_side: self.diff_side,
                subject_type: self.subject_type,
                viewer_can_resolve: self.viewer_can_resolve || self.viewer_can_unresolve,
                viewer_can_reply: self.viewer_can_reply,
                resolved_by: self.resolved_by.map(|a| actor(Some(a))),
                comments,
            },
            more_after,
        }
    }
}

pub(super) fn decode<T: DeserializeOwned>(value: Value, what: &str) -> Result<T> {
    serde_json::from_value(value).map_err(|e| {
        Error::invalid_body(format!(
            "GitHub's GraphQL answer for {what} has an unexpected shape: {e}"
        ))
        .with_suggestion("Retry later; if it persists, the GitHub API may have changed.")
    })
}

pub(super) fn repo_name(pr: &PrRef) -> String {
    format!("{}/{}", pr.repo.owner, pr.repo.repo)
}

fn no_thread(pr: &PrRef, id: &str, forge: &str) -> Error {
    Error::not_found(None, format!("no review thread {id} on {forge}"))
        .with_detail("thread_id", id)
        .with_suggestion(format!(
            "Use a thread id as listed for {} (GitHub thread ids look like PRRT_…).",
            subject(pr)
        ))
}

impl GitHub {
    pub(super) async fn fetch_review_threads(&self, pr: &PrRef) -> Result<Vec<ReviewThread>> {
        let mut partials = Vec::new();
        let mut after: Option<String> = None;
        for pages in 1u32.. {
            let answer = self
                .graphql(
                    queries::REVIEW_THREADS,
                    json!({
                        "owner": pr.repo.owner,
                        "name": pr.repo.repo,
                        "number": pr.number,
                        "after": after,
                    }),
                )
                .await;
            let data = match answer {
                Ok(data) => data,
                // NOT_FOUND for the repository or the number (an issue, or nothing).
                Err(e @ Error::NotFound { .. }) => {
                    return Err(self
                        .pull_not_found(pr)
                        .with_detail("graphql", Value::Object(e.details())));
                }
                Err(e) => return Err(e),
            };
            let connection = data
                .pointer("/repository/pullRequest/reviewThreads")
                .filter(|v| !v.is_null())
                .cloned()
                .ok_or_else(|| self.pull_not_found(pr))?;
            let page: Connection<GqlThread> = decode(connection, "review threads")?;
            partials.extend(
                page.nodes
                    .into_iter()
                    .flatten()
                    .map(GqlThread::into_partial),
            );
            match page
                .page_info
                .next(after.as_deref(), pages, "review threads")?
            {
                Some(cursor) => after = Some(cursor),
                None => break,
            }
        }
        self.complete_threads(partials).await
    }

    /// Fetches the comments beyond each thread's first page, a few threads at a time,
    /// keeping the threads in their order.
    pub(super) async fn complete_threads(
        &self,
        partials: Vec<Partial>,
    ) -> Result<Vec<ReviewThread>> {
        stream::iter(partials)
            .map(|partial| self.complete_thread(partial))
            .buffered(FOLLOW_UP_CONCURRENCY)
            .try_collect()
            .await
    }

    async fn complete_thread(&self, partial: Partial) -> Result<ReviewThread> {
        let Partial {
            mut thread,
            mut more_after,
        } = partial;
        let mut pages = 0u32;
        while let Some(after) = more_after.take() {
            pages += 1;
            let data = self
                .graphql(
                    queries::REVIEW_THREAD_COMMENTS,
                    json!({ "id": thread.id, "after": after }),
                )
                .await?;
            let connection = data
                .pointer("/node/comments")
                .filter(|v| !v.is_null())
                .cloned()
                .ok_or_else(|| {
                    Error::invalid_body(format!(
                        "GitHub stopped returning review thread {} while its comments were \
                         being paged",
                        thread.id
                    ))
                    .with_suggestion("Retry; the thread may have been deleted meanwhile.")
                })?;
            let page: Connection<GqlComment> = decode(connection, "review thread comments")?;
            let root = thread.comments.first().map(|c| c.id);
            thread.comments.extend(
                page.nodes
                    .into_iter()
                    .flatten()
                    .map(|c| c.into_domain(root)),
            );
            more_after = page
                .page_info
                .next(Some(after.as_str()), pages, "thread comments")?;
        }
        Ok(thread)
    }

    pub(super) async fn fetch_review_thread(
        &self,
        pr: &PrRef,
        thread_id: &str,
    ) -> Result<ReviewThread> {
        let forge = self.http.forge().to_owned();
        if thread_id.trim().is_empty() {
            return Err(no_thread(pr, thread_id, &forge));
        }
        let data = match self
            .graphql(queries::REVIEW_THREAD, json!({ "id": thread_id }))
            .await
        {
            Ok(data) => data,
            // An id GitHub cannot resolve comes back as a NOT_FOUND error.
            Err(Error::NotFound { .. }) => {
                return Err(no_thread(pr, thread_id, &forge));
            }
            Err(e) => return Err(e),
        };
        let node = data
            .get("node")
            .filter(|v| !v.is_null())
            .cloned()
            .ok_or_else(|| no_thread(pr, thread_id, &forge))?;
        let typename = node
            .get("__typename")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if typename != "PullRequestReviewThread" {
            return Err(no_thread(pr, thread_id, &forge)
                .with_detail("node_type", typename.clone())
                .with_suggestion(format!(
                    "{thread_id} is a {typename}, not a review thread; use a thread id \
                     (PRRT_…) as listed for {}.",
                    subject(pr)
                )));
        }
        let pull: GqlThreadPull = decode(
            node.get("pullRequest").cloned().unwrap_or(Value::Null),
            "a review thread's pull request",
        )?;
        let thread: GqlThread = decode(node, "a review thread")?;
        let name = repo_name(pr);
        if pull.number != pr.number || !pull.repository.name_with_owner.eq_ignore_ascii_case(&name)
        {
            let owner = format!("{}#{}", pull.repository.name_with_owner, pull.number);
            return Err(Error::usage(format!(
                "review thread {thread_id} belongs to {owner}, not to {name}#{}",
                pr.number
            ))
            .with_detail("thread_id", thread_id)
            .with_detail("belongs_to", owner.clone())
            .with_suggestion(format!(
                "Pass the pull request the thread is on ({owner}), or a thread id listed for {}.",
                subject(pr)
            )));
        }
        self.complete_thread(thread.into_partial()).await
    }

    pub(super) async fn post_review_thread_reply(
        &self,
        pr: &PrRef,
        thread_id: &str,
        body: &str,
    ) -> Result<ReviewComment> {
        if body.trim().is_empty() {
            return Err(Error::usage("the reply body is empty")
                .with_detail("field", "body")
                .with_suggestion("Pass the text of the reply."));
        }
        // The mutation takes any thread id; checking first keeps a reply off another PR.
        let thread = self.fetch_review_thread(pr, thread_id).await?;
        let root = thread.comments.first().map(|c| c.id);
        let data = self
            .graphql(
                queries::ADD_REVIEW_THREAD_REPLY,
                json!({ "id": thread_id, "body": body }),
            )
            .await?;
        let comment = data
            .pointer("/addPullRequestReviewThreadReply/comment")
            .filter(|v| !v.is_null())
            .cloned()
            .ok_or_else(|| {
                Error::invalid_body(format!(
                    "GitHub accepted the reply to {thread_id} but returned no comment"
                ))
                .with_suggestion(format!(
                    "Check the thread before replying again: the reply may have been posted \
                     ({}).",
                    subject(pr)
                ))
            })?;
        let comment: GqlComment = decode(comment, "the new reply")?;
        Ok(comment.into_domain(root))
    }

    pub(super) async fn change_review_thread_resolution(
        &self,
        pr: &PrRef,
        thread_id: &str,
        resolved: bool,
    ) -> Result<ReviewThread> {
        let before = self.fetch_review_thread(pr, thread_id).await?;
        if before.is_resolved == resolved {
            // Already there: nothing to write, and the answer is the same.
            return Ok(before);
        }
        let (document, field) = if resolved {
            (queries::RESOLVE_REVIEW_THREAD, "resolveReviewThread")
        } else {
            (queries::UNRESOLVE_REVIEW_THREAD, "unresolveReviewThread")
        };
        let data = self.graphql(document, json!({ "id": thread_id })).await?;
        let thread = data
            .get(field)
            .and_then(|v| v.get("thread"))
            .filter(|v| !v.is_null())
            .cloned()
            .ok_or_else(|| {
                Error::invalid_body(format!(
                    "GitHub accepted {field} for {thread_id} but returned no thread"
                ))
                .with_suggestion("List the threads again to see the thread's state.")
            })?;
        let thread: GqlThread = decode(thread, "the review thread")?;
        self.complete_thread(thread.into_partial()).await
    }

    pub(super) fn pull_not_found(&self, pr: &PrRef) -> Error {
        Error::not_found(
            None,
            format!("{} not found on {}", subject(pr), self.http.forge()),
        )
        .with_suggestion(super::not_found_hint(pr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bots_get_their_rest_login() {
        let bot = GqlActor {
            login: "coderabbitai".into(),
            typename: "Bot".into(),
        };
        assert_eq!(
            actor(Some(bot)),
            Actor {
                login: "coderabbitai[bot]".into(),
                is_bot: true
            }
        );
        let already = GqlActor {
            login: "x[bot]".into(),
            typename: "Bot".into(),
        };
        assert_eq!(actor(Some(already)).login, "x[bot]");
        let user = GqlActor {
            login: "octocat".into(),
            typename: "User".into(),
        };
        assert!(!actor(Some(user)).is_bot);
        assert_eq!(actor(None).login, "ghost");
    }

    #[test]
    fn reaction_groups_become_counts() {
        let groups: Vec<GqlReactionGroup> = serde_json::from_value(json!([
            {"content": "THUMBS_UP", "reactors": {"totalCount": 2}},
            {"content": "EYES", "reactors": {"totalCount": 1}},
            {"content": "HEART", "reactors": {"totalCount": 0}}
        ]))
        .unwrap();
        let r = reactions(Some(groups)).unwrap();
        assert_eq!((r.plus_one, r.eyes, r.total_count), (2, 1, 3));
        assert_eq!(reactions(None), None);
    }
}
