//! A pull request's review feedback on GitHub (`review_feedback`), read for few points
//! and kept per process. One GraphQL request reads the pull request with the first page of
//! its threads, reviews and conversation comments; later pages, long threads and the
//! reactions of unresolved threads follow only when there are any.
//!
//! Each answer is kept as a snapshot together with its *version*: the head commit,
//! `updatedAt`, every thread's resolution, and the count, edit times and minimized state of
//! the first 100 items of every list. A later call for the same pull request asks GitHub only
//! for the version (1 point per 100 threads) and reuses the snapshot while it matches, so
//! paging through a long list does not read it all again. The version reads resolution
//! itself because GitHub documents no `updatedAt` change when a thread is resolved. What it
//! does not cover (reactions, edits past an item's first 100 siblings) is bounded by the
//! snapshot's age. A restart loses only snapshots.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{StreamExt, TryStreamExt, stream};
use resolve_pr_core::PrRef;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::threads::{
    Connection, GqlActor, GqlCommit, GqlReactionGroup, GqlThread, actor, big_int, decode,
    minimized, reactions,
};
use super::{GitHub, queries};
use crate::time::Timestamp;
use crate::{Error, Result};
use crate::{
    IssueComment, PrState, PullRequest, Reactions, Review, ReviewFeedback, ReviewState,
    ReviewThread,
};

/// Pull requests a process keeps snapshots of; the least recently used goes first.
const MAX_SNAPSHOTS: usize = 16;
/// A snapshot older than this is read again even if its version matches: it bounds how stale
/// what the version does not cover (reactions, edits deep in a long list) can get.
const MAX_AGE: Duration = Duration::from_secs(10 * 60);
/// GitHub's `nodes(ids:)` takes at most 100 ids.
const REACTIONS_PER_REQUEST: usize = 100;
/// Reaction requests in flight at once (GitHub's secondary limit frowns on more).
const CONCURRENCY: usize = 4;

/// Snapshots of review feedback by pull request, for one GitHub endpoint.
#[derive(Default)]
pub(super) struct FeedbackCache {
    snapshots: Mutex<Snapshots>,
}

#[derive(Default)]
struct Snapshots {
    by_pull: HashMap<String, Snapshot>,
    /// Counts uses, so the least recently used snapshot is the one with the smallest.
    uses: u64,
}

struct Snapshot {
    version: Version,
    feedback: Arc<ReviewFeedback>,
    taken: Instant,
    last_used: u64,
}

impl FeedbackCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Snapshots> {
        // A poisoned lock only means a panic elsewhere; the map is still a valid cache.
        self.snapshots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A snapshot young enough to be revalidated.
    fn get(&self, key: &str) -> Option<(Version, Arc<ReviewFeedback>)> {
        self.lock()
            .by_pull
            .get(key)
            .filter(|s| s.taken.elapsed() < MAX_AGE)
            .map(|s| (s.version.clone(), s.feedback.clone()))
    }

    fn touch(&self, key: &str) {
        let mut snapshots = self.lock();
        snapshots.uses += 1;
        let now = snapshots.uses;
        if let Some(s) = snapshots.by_pull.get_mut(key) {
            s.last_used = now;
        }
    }

    fn keep(&self, key: String, version: Version, feedback: Arc<ReviewFeedback>) {
        let mut snapshots = self.lock();
        if !snapshots.by_pull.contains_key(&key) && snapshots.by_pull.len() >= MAX_SNAPSHOTS {
            let oldest = snapshots
                .by_pull
                .iter()
                .min_by_key(|(_, s)| s.last_used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                snapshots.by_pull.remove(&oldest);
            }
        }
        snapshots.uses += 1;
        let last_used = snapshots.uses;
        snapshots.by_pull.insert(
            key,
            Snapshot {
                version,
                feedback,
                taken: Instant::now(),
                last_used,
            },
        );
    }
}

/// What says whether a snapshot is still current (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Version {
    head_sha: String,
    updated_at: String,
    reviews: Tally,
    comments: Tally,
    threads: Vec<ThreadTally>,
}

/// A list's length and its first page's edit times and minimized states.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Tally {
    total: u64,
    stamps: Vec<Stamp>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stamp {
    updated_at: String,
    #[serde(default)]
    is_minimized: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ThreadTally {
    id: String,
    resolved: bool,
    comments: Tally,
}

impl ThreadTally {
    fn of(thread: &GqlThread) -> ThreadTally {
        ThreadTally {
            id: thread.id.clone(),
            resolved: thread.is_resolved,
            comments: Tally {
                total: thread.comments.total_count,
                stamps: thread
                    .comments
                    .nodes
                    .iter()
                    .flatten()
                    .map(|c| Stamp {
                        updated_at: crate::time::format_time(&c.updated_at),
                        is_minimized: c.is_minimized,
                    })
                    .collect(),
            },
        }
    }
}

/// A counted list as `REVIEW_FEEDBACK_VERSION` asks for it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Counted {
    total_count: u64,
    #[serde(default)]
    nodes: Vec<Option<Stamp>>,
}

impl Counted {
    fn tally(self) -> Tally {
        Tally {
            total: self.total_count,
            stamps: self.nodes.into_iter().flatten().collect(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VersionPull {
    head_ref_oid: String,
    updated_at: String,
    reviews: Option<Counted>,
    comments: Counted,
    review_threads: Connection<VersionThread>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct VersionThread {
    id: String,
    is_resolved: bool,
    comments: Counted,
}

#[derive(Debug, Deserialize)]
struct LabelNodes {
    nodes: Vec<Option<LabelName>>,
}

#[derive(Debug, Deserialize)]
struct LabelName {
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FeedbackPull {
    number: u64,
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    labels: Option<LabelNodes>,
    state: String,
    is_draft: bool,
    url: String,
    head_ref_name: String,
    head_ref_oid: String,
    base_ref_name: String,
    base_ref_oid: String,
    updated_at: String,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    merged_at: Option<Timestamp>,
    merge_commit: Option<GqlOid>,
    /// MERGEABLE, CONFLICTING or UNKNOWN.
    mergeable: String,
    /// REST's `mergeable_state` in upper case (CLEAN, DIRTY, …).
    merge_state_status: String,
    base_repository: Option<GqlRepository>,
    head_repository: Option<GqlRepository>,
    author: Option<GqlActor>,
    review_threads: Connection<GqlThread>,
    reviews: Option<Connection<GqlReview>>,
    comments: Connection<GqlIssueComment>,
}

#[derive(Debug, Deserialize)]
struct GqlOid {
    oid: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlRepository {
    name_with_owner: String,
    url: String,
}

impl GqlRepository {
    /// GraphQL has no `clone_url`; REST's is the web URL with `.git`.
    fn clone_url(&self) -> String {
        format!("{}.git", self.url.trim_end_matches('/'))
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlReview {
    #[serde(default, deserialize_with = "big_int")]
    full_database_id: Option<u64>,
    state: String,
    #[serde(default)]
    body: String,
    #[serde(default, deserialize_with = "crate::time::rfc3339_opt::deserialize")]
    submitted_at: Option<Timestamp>,
    updated_at: String,
    url: String,
    author_association: Option<String>,
    author: Option<GqlActor>,
    commit: Option<GqlCommit>,
    #[serde(default)]
    is_minimized: bool,
    #[serde(default)]
    minimized_reason: Option<String>,
}

impl GqlReview {
    fn stamp(&self) -> Stamp {
        Stamp {
            updated_at: self.updated_at.clone(),
            is_minimized: self.is_minimized,
        }
    }

    /// `None` for a state this client does not know, rather than a guessed one.
    fn into_domain(self) -> Option<Review> {
        let state = match self.state.as_str() {
            "APPROVED" => ReviewState::Approved,
            "CHANGES_REQUESTED" => ReviewState::ChangesRequested,
            "COMMENTED" => ReviewState::Commented,
            "DISMISSED" => ReviewState::Dismissed,
            "PENDING" => ReviewState::Pending,
            _ => return None,
        };
        Some(Review {
            id: self.full_database_id.unwrap_or(0),
            author: actor(self.author),
            author_association: self.author_association,
            state,
            body: self.body,
            submitted_at: self.submitted_at,
            html_url: self.url,
            commit_id: self.commit.map(|c| c.oid).filter(|c| !c.is_empty()),
            minimized: minimized(self.is_minimized, self.minimized_reason),
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GqlIssueComment {
    #[serde(default, deserialize_with = "big_int")]
    full_database_id: Option<u64>,
    #[serde(default)]
    body: String,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    created_at: Timestamp,
    #[serde(deserialize_with = "crate::time::rfc3339::deserialize")]
    updated_at: Timestamp,
    url: String,
    author_association: Option<String>,
    author: Option<GqlActor>,
    #[serde(default)]
    is_minimized: bool,
    #[serde(default)]
    minimized_reason: Option<String>,
}

impl GqlIssueComment {
    fn stamp(&self) -> Stamp {
        Stamp {
            updated_at: crate::time::format_time(&self.updated_at),
            is_minimized: self.is_minimized,
        }
    }

    fn into_domain(self) -> IssueComment {
        IssueComment {
            id: self.full_database_id.unwrap_or(0),
            author: actor(self.author),
            author_association: self.author_association,
            body: self.body,
            created_at: self.created_at,
            updated_at: self.updated_at,
            html_url: self.url,
            minimized: minimized(self.is_minimized, self.minimized_reason),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReactionNode {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    reaction_groups: Option<Vec<GqlReactionGroup>>,
}

fn tally_of<T>(connection: &Connection<T>, stamp: impl Fn(&T) -> Stamp) -> Tally {
    Tally {
        total: connection.total_count,
        stamps: connection.nodes.iter().flatten().map(stamp).collect(),
    }
}

impl GitHub {
    pub(super) async fn fetch_review_feedback(&self, pr: &PrRef) -> Result<Arc<ReviewFeedback>> {
        // Owner and repository names are case-insensitive on GitHub.
        let key = format!("{}#{}", super::threads::repo_name(pr), pr.number).to_lowercase();
        if let Some((version, feedback)) = self.feedback.get(&key)
            && self.read_feedback_version(pr).await? == version
        {
            self.feedback.touch(&key);
            return Ok(feedback);
        }
        let (feedback, version) = self.read_feedback(pr).await?;
        let feedback = Arc::new(feedback);
        self.feedback.keep(key, version, feedback.clone());
        Ok(feedback)
    }

    /// `after` only when there is one: the first-page documents declare no `$after`.
    fn pull_variables(pr: &PrRef, after: Option<&str>) -> Value {
        let mut variables = json!({
            "owner": pr.repo.owner,
            "name": pr.repo.repo,
            "number": pr.number,
        });
        if let Some(after) = after {
            variables["after"] = Value::from(after);
        }
        variables
    }

    /// The `pullRequest` object of a query's answer; a missing repository or number (or an
    /// issue's number) is "not found".
    async fn pull_data(&self, pr: &PrRef, document: &str, variables: Value) -> Result<Value> {
        let data = match self.graphql(document, variables).await {
            Ok(data) => data,
            Err(e @ Error::NotFound { .. }) => {
                return Err(self
                    .pull_not_found(pr)
                    .with_detail("graphql", Value::Object(e.details())));
            }
            Err(e) => return Err(e),
        };
        data.pointer("/repository/pullRequest")
            .filter(|v| !v.is_null())
            .cloned()
            .ok_or_else(|| self.pull_not_found(pr))
    }

    async fn read_feedback_version(&self, pr: &PrRef) -> Result<Version> {
        let mut version = Version::default();
        let mut after: Option<String> = None;
        for pages in 1u32.. {
            let variables = Self::pull_variables(pr, after.as_deref());
            let pull = self
                .pull_data(pr, queries::REVIEW_FEEDBACK_VERSION, variables)
                .await?;
            let pull: VersionPull = decode(pull, "the review feedback's version")?;
            if pages == 1 {
                version.head_sha = pull.head_ref_oid;
                version.updated_at = pull.updated_at;
                version.reviews = pull.reviews.map(Counted::tally).unwrap_or_default();
                version.comments = pull.comments.tally();
            }
            let threads = pull.review_threads;
            version
                .threads
                .extend(threads.nodes.into_iter().flatten().map(|t| ThreadTally {
                    id: t.id,
                    resolved: t.is_resolved,
                    comments: t.comments.tally(),
                }));
            match threads
                .page_info
                .next(after.as_deref(), pages, "review threads")?
            {
                Some(cursor) => after = Some(cursor),
                None => break,
            }
        }
        Ok(version)
    }

    /// Everything, with the version it was read at.
    async fn read_feedback(&self, pr: &PrRef) -> Result<(ReviewFeedback, Version)> {
        let pull = self
            .pull_data(pr, queries::REVIEW_FEEDBACK, Self::pull_variables(pr, None))
            .await?;
        let pull: FeedbackPull = decode(pull, "a pull request's review feedback")?;
        let FeedbackPull {
            number,
            title,
            body,
            labels,
            state,
            is_draft,
            url,
            head_ref_name,
            head_ref_oid,
            base_ref_name,
            base_ref_oid,
            updated_at,
            merged_at,
            merge_commit,
            mergeable,
            merge_state_status,
            base_repository,
            head_repository,
            author,
            review_threads,
            reviews,
            comments,
        } = pull;

        let mut version = Version {
            head_sha: head_ref_oid.clone(),
            updated_at,
            reviews: reviews
                .as_ref()
                .map(|r| tally_of(r, GqlReview::stamp))
                .unwrap_or_default(),
            comments: tally_of(&comments, GqlIssueComment::stamp),
            threads: Vec::new(),
        };
        let (first_reviews, reviews_after) = match reviews {
            Some(r) => (r.nodes, r.page_info.next(None, 1, "reviews")?),
            None => (Vec::new(), None),
        };
        // The three lists continue side by side; each one's pages follow its cursor.
        let (more_threads, more_reviews, more_comments) = tokio::try_join!(
            self.later_pages::<GqlThread>(
                pr,
                queries::REVIEW_FEEDBACK_THREADS,
                "reviewThreads",
                review_threads.page_info.next(None, 1, "review threads")?,
            ),
            self.later_pages::<GqlReview>(
                pr,
                queries::REVIEW_FEEDBACK_REVIEWS,
                "reviews",
                reviews_after,
            ),
            self.later_pages::<GqlIssueComment>(
                pr,
                queries::REVIEW_FEEDBACK_COMMENTS,
                "comments",
                comments.page_info.next(None, 1, "conversation comments")?,
            ),
        )?;

        let threads: Vec<GqlThread> = review_threads
            .nodes
            .into_iter()
            .flatten()
            .chain(more_threads)
            .collect();
        version.threads = threads.iter().map(ThreadTally::of).collect();
        let partials = threads.into_iter().map(GqlThread::into_partial).collect();
        let mut threads = self.complete_threads(partials).await?;
        self.add_reactions(&mut threads).await?;

        let reviews = first_reviews
            .into_iter()
            .flatten()
            .chain(more_reviews)
            .filter_map(GqlReview::into_domain)
            .collect();
        let issue_comments = comments
            .nodes
            .into_iter()
            .flatten()
            .chain(more_comments)
            .map(GqlIssueComment::into_domain)
            .collect();
        let state = match state.as_str() {
            "MERGED" => PrState::Merged,
            "OPEN" => PrState::Open,
            _ => PrState::Closed,
        };
        let pull = PullRequest {
            number,
            title,
            body: body.unwrap_or_default(),
            labels: labels
                .map(|l| l.nodes.into_iter().flatten().map(|n| n.name).collect())
                .unwrap_or_default(),
            state,
            draft: is_draft,
            author: actor(author),
            html_url: url,
            head_ref: head_ref_name,
            head_sha: head_ref_oid,
            base_ref: base_ref_name,
            base_sha: base_ref_oid,
            merged_at,
            merge_commit_sha: merge_commit
                .map(|c| c.oid)
                .filter(|_| state == PrState::Merged),
            mergeable: match mergeable.as_str() {
                "MERGEABLE" => Some(true),
                "CONFLICTING" => Some(false),
                _ => None,
            },
            mergeable_state: Some(merge_state_status.to_ascii_lowercase())
                .filter(|s| !s.is_empty()),
            base_repo: base_repository
                .as_ref()
                .map(|r| r.name_with_owner.clone())
                .unwrap_or_else(|| pr.repo.full_name()),
            base_clone_url: base_repository.as_ref().map(GqlRepository::clone_url),
            head_repo: head_repository.as_ref().map(|r| r.name_with_owner.clone()),
            head_clone_url: head_repository.as_ref().map(GqlRepository::clone_url),
        };
        let feedback = ReviewFeedback {
            pull,
            threads,
            reviews,
            issue_comments,
        };
        Ok((feedback, version))
    }

    /// Reactions of the comments of unresolved threads (the feedback still open), 100 comments
    /// a request: asked for by id they cost 1 point a request, where inside the thread pages
    /// they would cost 100.
    async fn add_reactions(&self, threads: &mut [ReviewThread]) -> Result<()> {
        let ids: Vec<String> = threads
            .iter()
            .filter(|t| !t.is_resolved)
            .flat_map(|t| t.comments.iter())
            .filter(|c| c.reactions.is_none())
            .filter_map(|c| c.node_id.clone())
            .collect();
        if ids.is_empty() {
            return Ok(());
        }
        let chunks: Vec<Vec<String>> = ids
            .chunks(REACTIONS_PER_REQUEST)
            .map(<[String]>::to_vec)
            .collect();
        let found: HashMap<String, Reactions> = stream::iter(chunks)
            .map(|chunk| self.read_reactions(chunk))
            .buffer_unordered(CONCURRENCY)
            .try_concat()
            .await?
            .into_iter()
            .collect();
        for comment in threads.iter_mut().flat_map(|t| t.comments.iter_mut()) {
            if let Some(r) = comment.node_id.as_ref().and_then(|id| found.get(id)) {
                comment.reactions = Some(r.clone());
            }
        }
        Ok(())
    }

    async fn read_reactions(&self, ids: Vec<String>) -> Result<Vec<(String, Reactions)>> {
        let data = self
            .graphql(queries::REVIEW_COMMENT_REACTIONS, json!({ "ids": ids }))
            .await
            .map_err(|e| match e {
                // A comment deleted since its thread was read.
                Error::NotFound { .. } => Error::invalid_body(format!(
                    "a review comment went away while its reactions were read: {}",
                    e.message()
                ))
                .with_suggestion("Call again: the pull request changed meanwhile."),
                _ => e,
            })?;
        let nodes: Vec<Option<ReactionNode>> = decode(
            data.get("nodes").cloned().unwrap_or(Value::Null),
            "review comment reactions",
        )?;
        Ok(nodes
            .into_iter()
            .flatten()
            .filter_map(|n| Some((n.id?, reactions(n.reaction_groups)?)))
            .collect())
    }

    /// The pages after the first of one list of the pull request (`field`), in order.
    async fn later_pages<T: DeserializeOwned>(
        &self,
        pr: &PrRef,
        document: &str,
        field: &str,
        mut after: Option<String>,
    ) -> Result<Vec<T>> {
        let mut items = Vec::new();
        let mut pages = 1u32;
        while let Some(cursor) = after.take() {
            pages += 1;
            let pull = self
                .pull_data(pr, document, Self::pull_variables(pr, Some(&cursor)))
                .await?;
            let page: Connection<T> = decode(
                pull.get(field).cloned().unwrap_or(Value::Null),
                &format!("the {field} of a pull request"),
            )?;
            items.extend(page.nodes.into_iter().flatten());
            after = page.page_info.next(Some(&cursor), pages, field)?;
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Actor;

    fn feedback(number: u64) -> Arc<ReviewFeedback> {
        Arc::new(ReviewFeedback {
            pull: PullRequest {
                number,
                title: String::new(),
                body: String::new(),
                labels: Vec::new(),
                state: PrState::Open,
                draft: false,
                author: Actor {
                    login: "a".into(),
                    is_bot: false,
                },
                html_url: String::new(),
                head_ref: String::new(),
                head_sha: String::new(),
                base_ref: String::new(),
                base_sha: String::new(),
                merged_at: None,
                merge_commit_sha: None,
                mergeable: None,
                mergeable_state: None,
                base_repo: "o/r".to_owned(),
                head_repo: Some("o/r".to_owned()),
                base_clone_url: None,
                head_clone_url: None,
            },
            threads: Vec::new(),
            reviews: Vec::new(),
            issue_comments: Vec::new(),
        })
    }

    #[test]
    fn snapshots_are_bounded_and_the_least_recently_used_goes_first() {
        let cache = FeedbackCache::default();
        for n in 0..MAX_SNAPSHOTS as u64 {
            cache.keep(format!("o/r#{n}"), Version::default(), feedback(n));
        }
        // Used again, so #1 is now the least recently used.
        cache.touch("o/r#0");
        cache.keep("o/r#new".into(), Version::default(), feedback(99));
        assert!(cache.get("o/r#0").is_some());
        assert!(cache.get("o/r#1").is_none(), "the least recently used went");
        assert!(cache.get("o/r#new").is_some());
        let kept = cache.lock().by_pull.len();
        assert_eq!(kept, MAX_SNAPSHOTS);
    }
}
