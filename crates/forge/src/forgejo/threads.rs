//! Review conversations on Forgejo/Gitea, which have no thread resource: review comments are
//! listed per review and grouped here the way their web UI groups them, and the optional
//! reply and resolve endpoints are looked up in the instance's published API description,
//! never assumed from a version number, and never probed by writing.
//!
//! A conversation is the comments of one review on one path and one signed line (negative
//! for the old side), oldest first: a reply is stored in the review of the comment it answers,
//! on the same path and line (Gitea's `CodeConversationsAtLineAndTreePath`). Its id is
//! `comment-<id of its first comment>`; resolution is kept on that first comment
//! (`resolver`).

use std::collections::BTreeMap;

use futures_util::{StreamExt, TryStreamExt, stream};
use resolve_pr_core::PrRef;
use serde::Deserialize;
use serde_json::json;

use super::{FjUser, Forgejo, actor, missing_route, not_found_hint, subject};
use crate::config::ForgeKind;
use crate::http::Request;
use crate::time::Timestamp;
use crate::{Error, Result};
use crate::{Review, ReviewComment, ReviewState, ReviewThread, ThreadCapabilities};

/// Per-review comment requests in flight at once.
const REVIEW_CONCURRENCY: usize = 4;

/// Largest page the reviews list serves by default (`[api] MAX_RESPONSE_ITEMS`).
const REVIEWS_PER_PAGE: usize = 50;

/// Prefix of the thread ids this client makes up.
const THREAD_ID_PREFIX: &str = "comment-";

/// Most review pages walked before giving up on a server that never says "last page".
const MAX_REVIEW_PAGES: usize = 1000;

/// Keys of the optional endpoints in the client's capability cache.
const RESOLVE: &str = "POST /repos/{owner}/{repo}/pulls/comments/{id}/resolve";
const REPLY: &str = "POST /repos/{owner}/{repo}/pulls/{index}/comments/{id}/replies";
/// Key of the API description in the capability cache: whether the instance publishes it.
const DESCRIPTION: &str = "GET /swagger.v1.json";

/// Where Gitea and Forgejo publish their Swagger 2.0 description, relative to the web root
/// (`routers/web/web.go`, served while `[api] ENABLE_SWAGGER` is on, the default).
const DESCRIPTION_PATH: &str = "/swagger.v1.json";

/// The optional routes as path segments relative to `/api/v1`; `None` is a path parameter,
/// whatever its name.
const RESOLVE_ROUTE: &[Option<&str>] = &[
    Some("repos"),
    None,
    None,
    Some("pulls"),
    Some("comments"),
    None,
    Some("resolve"),
];
const REPLY_ROUTE: &[Option<&str>] = &[
    Some("repos"),
    None,
    None,
    Some("pulls"),
    None,
    Some("comments"),
    None,
    Some("replies"),
];

/// Whether the description's `paths` has a POST operation on `route`. Paths are relative
/// to `basePath`; an `/api/v1` prefix (a description without `basePath`) is tolerated.
fn describes(paths: &serde_json::Map<String, serde_json::Value>, route: &[Option<&str>]) -> bool {
    describes_operation(paths, route, "post")
}

/// Whether the description's `paths` has a `method` operation on `route` (see `describes`).
pub(super) fn describes_operation(
    paths: &serde_json::Map<String, serde_json::Value>,
    route: &[Option<&str>],
    method: &str,
) -> bool {
    paths.iter().any(|(path, item)| {
        let path = path.strip_prefix("/api/v1").unwrap_or(path);
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        segments.len() == route.len()
            && segments
                .iter()
                .zip(route)
                .all(|(segment, want)| match want {
                    Some(literal) => segment == literal,
                    None => segment.starts_with('{') && segment.ends_with('}') && segment.len() > 2,
                })
            && item.get(method).is_some()
    })
}

/// What reading the API description found.
enum Description {
    /// Whether it describes (reply, resolve).
    Published(bool, bool),
    /// Not served (404, disabled, refused) or not a Swagger document: remembered.
    Unpublished(String),
    /// Could not be read this time (network, 5xx): not remembered.
    Unreadable(String),
}

#[derive(Debug, Deserialize)]
pub(super) struct FjReview {
    id: u64,
    user: Option<FjUser>,
    #[serde(default)]
    state: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    commit_id: String,
    #[serde(default)]
    dismissed: bool,
    #[serde(default)]
    comments_count: Option<u64>,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    submitted_at: Option<Timestamp>,
    #[serde(default)]
    html_url: String,
}

impl FjReview {
    /// `None` for review requests (`REQUEST_REVIEW`, not a review) and unknown states.
    fn into_domain(self) -> Option<Review> {
        let state = match (self.dismissed, self.state.as_str()) {
            (_, "REQUEST_REVIEW") => return None,
            (true, _) => ReviewState::Dismissed,
            (false, "APPROVED") => ReviewState::Approved,
            (false, "REQUEST_CHANGES") => ReviewState::ChangesRequested,
            (false, "COMMENT") => ReviewState::Commented,
            (false, "PENDING") => ReviewState::Pending,
            (false, other) => {
                tracing::debug!(
                    state = other,
                    id = self.id,
                    "skipping a review in an unknown state"
                );
                return None;
            }
        };
        Some(Review {
            id: self.id,
            author: actor(self.user),
            author_association: None,
            submitted_at: self.submitted_at.filter(|_| state != ReviewState::Pending),
            state,
            body: self.body,
            html_url: self.html_url,
            commit_id: Some(self.commit_id).filter(|c| !c.is_empty()),
            // Forgejo and Gitea cannot minimize (hide) comments.
            minimized: None,
        })
    }

    /// Whether the review can hold code comments worth a request.
    fn may_have_comments(&self) -> bool {
        self.state != "REQUEST_REVIEW" && self.comments_count != Some(0)
    }
}

#[derive(Debug, Deserialize)]
pub(super) struct FjReviewComment {
    id: u64,
    #[serde(default)]
    body: String,
    user: Option<FjUser>,
    #[serde(default)]
    resolver: Option<FjUser>,
    #[serde(default)]
    pull_request_review_id: u64,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    created_at: Timestamp,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    updated_at: Timestamp,
    #[serde(default)]
    path: String,
    #[serde(default)]
    commit_id: String,
    #[serde(default)]
    diff_hunk: String,
    /// The line on the new side, or 0.
    #[serde(default)]
    position: u64,
    /// The line on the old side, or 0 (Gitea's name; not GitHub's meaning).
    #[serde(default)]
    original_position: u64,
    /// Forgejo only: lines after `position` the comment also covers.
    #[serde(default)]
    extra_lines_count: Option<u64>,
    #[serde(default)]
    html_url: String,
}

impl FjReviewComment {
    /// Gitea's signed line: negative for the old side.
    fn signed_line(&self) -> i64 {
        if self.position > 0 {
            self.position as i64
        } else {
            -(self.original_position as i64)
        }
    }

    fn into_domain(self, in_reply_to: Option<u64>) -> ReviewComment {
        ReviewComment {
            id: self.id,
            node_id: None,
            author: actor(self.user),
            author_association: None,
            body: self.body,
            created_at: self.created_at,
            updated_at: self.updated_at,
            html_url: self.html_url,
            diff_hunk: Some(self.diff_hunk).filter(|h| !h.is_empty()),
            commit_id: Some(self.commit_id).filter(|c| !c.is_empty()),
            in_reply_to_id: in_reply_to,
            reactions: None,
            minimized: None,
        }
    }
}

/// Groups review comments into conversations, oldest conversation first.
fn conversations(comments: Vec<FjReviewComment>, capabilities: (bool, bool)) -> Vec<ReviewThread> {
    let mut groups: BTreeMap<(u64, String, i64), Vec<FjReviewComment>> = BTreeMap::new();
    for c in comments {
        groups
            .entry((c.pull_request_review_id, c.path.clone(), c.signed_line()))
            .or_default()
            .push(c);
    }
    let mut threads: Vec<(u64, ReviewThread)> = groups
        .into_values()
        .filter_map(|mut group| {
            // Ids grow with creation; Gitea orders by creation time, then id.
            group.sort_by_key(|c| c.id);
            let first = group.first()?;
            let first_id = first.id;
            let line = first.signed_line();
            let extra = first.extra_lines_count.unwrap_or(0);
            let (line, start_line) = match line.unsigned_abs() {
                0 => (None, None),
                n if extra > 0 => (Some(n + extra), Some(n)),
                n => (Some(n), None),
            };
            let diff_side = match first.signed_line() {
                0 => None,
                l if l > 0 => Some("RIGHT".to_owned()),
                _ => Some("LEFT".to_owned()),
            };
            let resolver = first.resolver.as_ref().map(|u| actor(Some(u.clone())));
            let path = Some(first.path.clone()).filter(|p| !p.is_empty());
            let comments = group
                .into_iter()
                .map(|c| {
                    let reply_to = (c.id != first_id).then_some(first_id);
                    c.into_domain(reply_to)
                })
                .collect();
            Some((
                first_id,
                ReviewThread {
                    id: format!("{THREAD_ID_PREFIX}{first_id}"),
                    is_resolved: resolver.is_some(),
                    // The API does not expose Gitea's `invalidated` flag.
                    is_outdated: false,
                    path,
                    subject_type: Some(if line.is_some() { "LINE" } else { "FILE" }.to_owned()),
                    // Gitea keeps the line a comment was written on; it never moves.
                    original_line: line,
                    original_start_line: start_line,
                    line,
                    start_line,
                    diff_side,
                    viewer_can_resolve: capabilities.1,
                    viewer_can_reply: capabilities.0,
                    resolved_by: resolver,
                    comments,
                },
            ))
        })
        .collect();
    threads.sort_by_key(|(first, _)| *first);
    threads.into_iter().map(|(_, t)| t).collect()
}

/// The first comment's id of a thread id this client made, or `None`.
fn first_comment_id(thread_id: &str) -> Option<u64> {
    thread_id.strip_prefix(THREAD_ID_PREFIX)?.parse().ok()
}

impl Forgejo {
    /// Every review of the PR as the forge lists it, walking `page`/`limit` pages.
    pub(super) async fn fetch_reviews(&self, pr: &PrRef) -> Result<Vec<FjReview>> {
        let auth = self.auth()?;
        let subject = format!("reviews of {}", subject(pr));
        let hint = not_found_hint(pr);
        let mut all = Vec::new();
        let mut previous_first: Option<u64> = None;
        for page in 1..=MAX_REVIEW_PAGES + 1 {
            if page > MAX_REVIEW_PAGES {
                return Err(Error::invalid_body(format!(
                    "{} kept sending pages of {subject} past page {MAX_REVIEW_PAGES}",
                    self.http.forge()
                ))
                .with_detail("pages", MAX_REVIEW_PAGES)
                .with_suggestion(
                    "The forge (or a proxy before it) does not end the review list; retry \
                     later, and report it to the instance's admin if it persists.",
                ));
            }
            let url = format!(
                "{}/pulls/{}/reviews?page={page}&limit={REVIEWS_PER_PAGE}",
                self.repo_url(pr),
                pr.number
            );
            let response = self
                .http
                .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
                .await?;
            let items: Vec<FjReview> = response.json()?;
            // A server that ignores `page` answers the first page again: stop there rather
            // than collect it forever.
            let first = items.first().map(|r| r.id);
            if first.is_some() && first == previous_first {
                tracing::debug!(
                    page,
                    "the reviews list repeated a page; taking it as the end"
                );
                break;
            }
            previous_first = first;
            let total = response
                .headers
                .get("x-total-count")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<usize>().ok());
            let got = items.len();
            all.extend(items);
            // The total (when sent) counts reviews hidden from this token too, so an empty
            // page also ends the walk.
            let more = match total {
                Some(total) => got > 0 && all.len() < total,
                None => got >= REVIEWS_PER_PAGE,
            };
            if !more {
                break;
            }
        }
        Ok(all)
    }

    /// The code comments of one review.
    async fn fetch_review_comments(
        &self,
        pr: &PrRef,
        review_id: u64,
    ) -> Result<Vec<FjReviewComment>> {
        let auth = self.auth()?;
        let subject = format!("comments of review {review_id} on {}", subject(pr));
        let hint = not_found_hint(pr);
        let url = format!(
            "{}/pulls/{}/reviews/{review_id}/comments",
            self.repo_url(pr),
            pr.number
        );
        let response = self
            .http
            .send(&Request::get(url, Some(auth), &subject).not_found_hint(&hint))
            .await?;
        response.json()
    }

    /// All code comments of the PR: the reviews, then each review's comments, a few reviews
    /// at a time.
    async fn fetch_all_review_comments(&self, pr: &PrRef) -> Result<Vec<FjReviewComment>> {
        let reviews = self.fetch_reviews(pr).await?;
        self.fetch_comments_of(pr, &reviews).await
    }

    /// The comments of the given reviews, a request per review (the API has no listing of a
    /// pull request's review comments), a few at a time, in review order.
    async fn fetch_comments_of(
        &self,
        pr: &PrRef,
        reviews: &[FjReview],
    ) -> Result<Vec<FjReviewComment>> {
        let ids: Vec<u64> = reviews
            .iter()
            .filter(|r| r.may_have_comments())
            .map(|r| r.id)
            .collect();
        let per_review: Vec<Vec<FjReviewComment>> = stream::iter(ids)
            .map(|id| self.fetch_review_comments(pr, id))
            .buffered(REVIEW_CONCURRENCY)
            .try_collect()
            .await?;
        Ok(per_review.into_iter().flatten().collect())
    }

    fn known_capabilities(&self) -> (bool, bool) {
        (
            self.capability(REPLY).unwrap_or(false),
            self.capability(RESOLVE).unwrap_or(false),
        )
    }

    pub(super) async fn list_review_threads(&self, pr: &PrRef) -> Result<Vec<ReviewThread>> {
        let comments = self.fetch_all_review_comments(pr).await?;
        Ok(conversations(comments, self.known_capabilities()))
    }

    /// Threads and reviews from one listing of the reviews.
    pub(super) async fn list_review_activity(
        &self,
        pr: &PrRef,
    ) -> Result<(Vec<ReviewThread>, Vec<Review>)> {
        let reviews = self.fetch_reviews(pr).await?;
        let comments = self.fetch_comments_of(pr, &reviews).await?;
        let threads = conversations(comments, self.known_capabilities());
        let reviews = reviews
            .into_iter()
            .filter_map(FjReview::into_domain)
            .collect();
        Ok((threads, reviews))
    }

    pub(super) async fn list_reviews(&self, pr: &PrRef) -> Result<Vec<Review>> {
        Ok(self
            .fetch_reviews(pr)
            .await?
            .into_iter()
            .filter_map(FjReview::into_domain)
            .collect())
    }

    /// The thread and the id of the review holding it, from one listing of the reviews, or
    /// [`Error::NotFound`] for a thread the pull request does not have.
    async fn find_thread(&self, pr: &PrRef, thread_id: &str) -> Result<(ReviewThread, u64)> {
        let Some(first) = first_comment_id(thread_id) else {
            return Err(self.no_thread(pr, thread_id));
        };
        let comments = self.fetch_all_review_comments(pr).await?;
        let review = comments
            .iter()
            .find(|c| c.id == first)
            .map(|c| c.pull_request_review_id);
        let thread = self.thread_among(comments, first);
        match (thread, review) {
            (Some(thread), Some(review)) => Ok((thread, review)),
            _ => Err(self.no_thread(pr, thread_id)),
        }
    }

    /// The thread again after a write, from the comments of its review alone (a reply is
    /// filed under the review of the comment it answers, so the review holds it whole).
    async fn reread_thread(
        &self,
        pr: &PrRef,
        review_id: u64,
        thread_id: &str,
    ) -> Result<ReviewThread> {
        let first = first_comment_id(thread_id).ok_or_else(|| self.no_thread(pr, thread_id))?;
        let comments = self.fetch_review_comments(pr, review_id).await?;
        self.thread_among(comments, first)
            .ok_or_else(|| self.no_thread(pr, thread_id))
    }

    /// The conversation whose first comment is `first`, if the comments hold it.
    fn thread_among(&self, comments: Vec<FjReviewComment>, first: u64) -> Option<ReviewThread> {
        conversations(comments, self.known_capabilities())
            .into_iter()
            .find(|t| t.comments.first().map(|c| c.id) == Some(first))
    }

    fn no_thread(&self, pr: &PrRef, thread_id: &str) -> Error {
        Error::not_found(
            None,
            format!(
                "no review thread {thread_id} on {} ({})",
                subject(pr),
                self.http.forge()
            ),
        )
        .with_detail("thread_id", thread_id)
        .with_suggestion(format!(
            "Use a thread id as listed for {}: on Forgejo/Gitea they look like comment-123 \
             (the id of the conversation's first comment). A thread of another pull request \
             is not found here either.",
            subject(pr)
        ))
    }

    pub(super) async fn get_review_thread(
        &self,
        pr: &PrRef,
        thread_id: &str,
    ) -> Result<ReviewThread> {
        Ok(self.find_thread(pr, thread_id).await?.0)
    }

    pub(super) async fn post_review_reply(
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
        if self.capability(REPLY) == Some(false) {
            return Err(self.missing_reply().await);
        }
        let (thread, _) = self.find_thread(pr, thread_id).await?;
        let Some(first) = thread.comments.first().map(|c| c.id) else {
            return Err(self.no_thread(pr, thread_id));
        };
        let auth = self.auth()?;
        let subject = format!("a reply in review thread {thread_id} of {}", subject(pr));
        let url = format!(
            "{}/pulls/{}/comments/{first}/replies",
            self.repo_url(pr),
            pr.number
        );
        let payload = json!({ "body": body });
        match self
            .http
            .send(&Request::post(url, Some(auth), &payload, &subject))
            .await
        {
            Ok(response) => {
                self.remember(REPLY, true);
                let comment: FjReviewComment = response.json()?;
                Ok(comment.into_domain(Some(first)))
            }
            // The comment was just listed, so a 404/405 is the route, not the comment: the
            // instance has no such endpoint, and it wrote nothing.
            Err(e) if missing_route(&e) => {
                self.remember(REPLY, false);
                Err(self.missing_reply().await)
            }
            Err(e) => Err(e),
        }
    }

    pub(super) async fn set_resolution(
        &self,
        pr: &PrRef,
        thread_id: &str,
        resolved: bool,
    ) -> Result<ReviewThread> {
        if self.capability(RESOLVE) == Some(false) {
            return Err(self.missing_resolve().await);
        }
        let (thread, review) = self.find_thread(pr, thread_id).await?;
        if thread.is_resolved == resolved {
            return Ok(thread);
        }
        let Some(first) = thread.comments.first().map(|c| c.id) else {
            return Err(self.no_thread(pr, thread_id));
        };
        match self.post_resolution(pr, first, resolved).await {
            Ok(()) => self.reread_thread(pr, review, thread_id).await,
            Err(e) if missing_route(&e) => {
                self.remember(RESOLVE, false);
                Err(self.missing_resolve().await)
            }
            Err(e) => Err(e),
        }
    }

    async fn post_resolution(&self, pr: &PrRef, comment_id: u64, resolved: bool) -> Result<()> {
        let auth = self.auth()?;
        let action = if resolved { "resolve" } else { "unresolve" };
        let subject = format!("review comment {comment_id} of {} ({action})", subject(pr));
        let url = format!("{}/pulls/comments/{comment_id}/{action}", self.repo_url(pr));
        let payload = json!({});
        self.http
            .send(&Request::post(url, Some(auth), &payload, &subject))
            .await?;
        self.remember(RESOLVE, true);
        Ok(())
    }

    /// Whether this instance has the optional reply and resolve endpoints, from its
    /// published API description (`GET {web}/swagger.v1.json`), read once per client and
    /// never by writing. Where the description is not published the answer is unknown:
    /// both are reported unavailable and say why, and the writes still try (a 404/405 then
    /// marks the endpoint missing). What a write found out overrides the description.
    pub(super) async fn probe_thread_capabilities(&self) -> Result<ThreadCapabilities> {
        let unknown = |key| self.capability(key).is_none();
        let mut unread = None;
        if (unknown(REPLY) || unknown(RESOLVE)) && self.capability(DESCRIPTION) != Some(false) {
            match self.read_api_description().await {
                Description::Published(reply, resolve) => {
                    self.remember(DESCRIPTION, true);
                    self.remember_unless_known(REPLY, reply);
                    self.remember_unless_known(RESOLVE, resolve);
                }
                Description::Unpublished(why) => {
                    tracing::debug!(reason = %why, "no API description; capabilities unknown");
                    self.remember(DESCRIPTION, false);
                }
                Description::Unreadable(why) => unread = Some(why),
            }
        }
        let (reply, resolve) = (self.capability(REPLY), self.capability(RESOLVE));
        let (can_reply, can_resolve) = (reply.unwrap_or(false), resolve.unwrap_or(false));
        let missing = if reply.is_none() || resolve.is_none() {
            Some(self.unknown_text(reply, resolve, unread).await)
        } else if can_reply && can_resolve {
            None
        } else {
            Some(self.missing_text(can_reply, can_resolve).await)
        };
        Ok(ThreadCapabilities {
            can_reply,
            can_resolve,
            missing,
        })
    }

    pub(super) fn description_url(&self) -> String {
        format!(
            "{}{DESCRIPTION_PATH}",
            self.endpoint.web_url.trim_end_matches('/')
        )
    }

    /// Reads the API description; a GET, without the token (the web router serves it to
    /// anyone, and the token is for the API).
    async fn read_api_description(&self) -> Description {
        let subject = "the API description";
        let request = Request::get(self.description_url(), None, subject);
        let response = match self.http.send(&request).await {
            Ok(response) => response,
            Err(e) => {
                return match e.http_status() {
                    Some(s) if (400..500).contains(&s) && s != 408 && s != 429 => {
                        Description::Unpublished(format!("HTTP {s}"))
                    }
                    _ => Description::Unreadable(e.message().to_owned()),
                };
            }
        };
        let document: serde_json::Value = match response.json() {
            Ok(document) => document,
            Err(_) => return Description::Unpublished("not JSON".to_owned()),
        };
        match document.get("paths").and_then(|p| p.as_object()) {
            Some(paths) => Description::Published(
                describes(paths, REPLY_ROUTE),
                describes(paths, RESOLVE_ROUTE),
            ),
            None => Description::Unpublished("no paths in it".to_owned()),
        }
    }

    fn remember_unless_known(&self, key: &str, supported: bool) {
        if self.capability(key).is_none() {
            self.remember(key, supported);
        }
    }

    /// Why reply/resolve are reported unavailable when (one of) them is unknown.
    async fn unknown_text(
        &self,
        reply: Option<bool>,
        resolve: Option<bool>,
        unread: Option<String>,
    ) -> String {
        let label = self.forge_label().await;
        let url = self.description_url();
        let mut text = match unread {
            Some(why) => format!(
                "{label}: its API description ({url}) could not be read ({why}), so whether \
                 it can reply in and resolve review conversations could not be checked \
                 without writing."
            ),
            None => format!(
                "{label} does not publish its API description ({url}, e.g. with [api] \
                 ENABLE_SWAGGER = false), so whether it can reply in and resolve review conversations could not \
                 be checked without writing."
            ),
        };
        text.push_str(
            " reply_to_review_thread and resolve_review_thread still try, and say so if the \
             endpoint is missing (Gitea 1.26 added resolving, 1.27 replying; Forgejo has \
             neither).",
        );
        if reply == Some(false) || resolve == Some(false) {
            text.push(' ');
            text.push_str(
                &self
                    .missing_text(reply != Some(false), resolve != Some(false))
                    .await,
            );
        }
        text
    }

    fn remember(&self, key: &str, supported: bool) {
        self.capabilities
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key.to_owned(), supported);
    }

    async fn forge_label(&self) -> String {
        let kind = self.detect_kind().await;
        match self.version() {
            Some(v) => format!("{kind} {v} ({})", self.endpoint.host),
            None => format!("{kind} ({})", self.endpoint.host),
        }
    }

    async fn missing_text(&self, can_reply: bool, can_resolve: bool) -> String {
        let label = self.forge_label().await;
        let mut parts = Vec::new();
        if !can_resolve {
            parts.push(
                "resolving review conversations (POST /repos/{owner}/{repo}/pulls/comments/{id}/\
                 resolve and /unresolve, added in Gitea 1.26.0, go-gitea/gitea#36441)",
            );
        }
        if !can_reply {
            parts.push(
                "replying in review conversations (POST /repos/{owner}/{repo}/pulls/{index}/\
                 comments/{id}/replies, added in Gitea 1.27.0, go-gitea/gitea#36683)",
            );
        }
        format!(
            "{label} has no API for {}; Forgejo has neither endpoint.",
            parts.join(" or ")
        )
    }

    async fn missing_reply(&self) -> Error {
        let kind = self.detect_kind().await;
        Error::unsupported(
            "reply to a review thread",
            kind.to_string(),
            self.missing_text(false, true).await,
        )
        .with_detail("missing", "reply to a review thread")
        .with_suggestion(
            "Reply with a pull request conversation comment instead (pr_comment_create), \
             quoting or linking the review comment (its html_url); or upgrade to Gitea 1.27 \
             or later.",
        )
    }

    async fn missing_resolve(&self) -> Error {
        let kind = self.detect_kind().await;
        let suggestion = match kind {
            ForgeKind::Gitea => {
                "Resolve the conversation in the web UI (its html_url), or upgrade to Gitea \
                 1.26 or later; say in a pull request comment that it is addressed."
            }
            _ => {
                "Resolve the conversation in the web UI (its html_url); say in a pull request \
                 comment (pr_comment_create) that it is addressed."
            }
        };
        Error::unsupported(
            "resolve a review thread",
            kind.to_string(),
            self.missing_text(true, false).await,
        )
        .with_detail("missing", "resolve a review thread")
        .with_suggestion(suggestion)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(id: u64, review: u64, path: &str, pos: u64, orig: u64) -> FjReviewComment {
        serde_json::from_value(json!({
            "id": id, "body": format!("c{id}"), "user": {"id": 1, "login": "alice"},
            "resolver": null, "pull_request_review_id": review,
            "created_at": "2024-05-01T12:00:00Z", "updated_at": "2024-05-01T12:00:00Z",
            "path": path, "commit_id": "abc", "diff_hunk": "@@ -1 +1 @@",
            "position": pos, "original_position": orig, "html_url": "u"
        }))
        .unwrap()
    }

    #[test]
    fn description_routes_match_whatever_the_parameters_are_called() {
        let paths = |v: serde_json::Value| v.as_object().cloned().unwrap();
        let gitea = paths(json!({
            "/repos/{owner}/{repo}/pulls/comments/{id}/resolve": {"post": {}},
            "/repos/{owner}/{repo}/pulls/{index}/comments/{id}/replies": {"post": {}},
        }));
        assert!(describes(&gitea, RESOLVE_ROUTE) && describes(&gitea, REPLY_ROUTE));
        let renamed = paths(json!({
            "/api/v1/repos/{o}/{r}/pulls/comments/{comment_id}/resolve": {"post": {}},
            "/repos/{owner}/{repo}/pulls/{pr}/comments/{cid}/replies/": {"post": {}},
        }));
        assert!(describes(&renamed, RESOLVE_ROUTE) && describes(&renamed, REPLY_ROUTE));
        let near_misses = paths(json!({
            "/repos/{owner}/{repo}/pulls/comments/{id}/resolve": {"get": {}},
            "/repos/{owner}/{repo}/pulls/comments/1/resolve": {"post": {}},
            "/repos/{owner}/{repo}/pulls/{index}/comments/{id}": {"post": {}},
            "/repos/{owner}/{repo}/pulls/{index}/reviews/{id}/comments": {"get": {}},
        }));
        assert!(!describes(&near_misses, RESOLVE_ROUTE) && !describes(&near_misses, REPLY_ROUTE));
    }

    #[test]
    fn conversations_group_by_review_path_and_signed_line() {
        let threads = conversations(
            vec![
                comment(5, 1, "a.rs", 3, 0),
                comment(2, 1, "a.rs", 3, 0),
                comment(3, 1, "a.rs", 0, 3),
                comment(4, 2, "a.rs", 3, 0),
            ],
            (true, false),
        );
        let shape: Vec<(String, Vec<u64>, Option<String>)> = threads
            .iter()
            .map(|t| {
                (
                    t.id.clone(),
                    t.comments.iter().map(|c| c.id).collect(),
                    t.diff_side.clone(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                ("comment-2".into(), vec![2, 5], Some("RIGHT".into())),
                ("comment-3".into(), vec![3], Some("LEFT".into())),
                ("comment-4".into(), vec![4], Some("RIGHT".into())),
            ]
        );
        assert_eq!(threads[0].comments[1].in_reply_to_id, Some(2));
        assert_eq!(threads[0].comments[0].in_reply_to_id, None);
        assert!(threads[0].viewer_can_reply && !threads[0].viewer_can_resolve);
        assert_eq!(first_comment_id("comment-42"), Some(42));
        assert_eq!(first_comment_id("PRRT_x"), None);
    }
}
