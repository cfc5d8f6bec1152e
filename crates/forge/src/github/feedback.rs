//! A pull request's review feedback on GitHub (`review_feedback`), read for few points
//! and kept per process. One GraphQL request reads the pull request with the first page of
//! its threads, reviews and conversation comments; what else is needed (later pages, long
//! threads, the reactions of unresolved threads) follows in rounds of one request each, every
//! list, thread and reaction batch a round needs asked for together as aliases, so a small
//! pull request costs 2 requests and a large one a request per 100 items of its longest list.
//!
//! Each answer is kept as a snapshot together with its *version*: the head commit,
//! `updatedAt`, every thread's resolution, and the count, edit times and minimized state of
//! the first 100 items of every list. A later call for the same pull request asks GitHub only
//! for the version (1 point per 100 threads) and reuses the snapshot while it matches, so
//! paging through a long list does not read it all again. The version reads resolution
//! itself because GitHub documents no `updatedAt` change when a thread is resolved. What it
//! does not cover (reactions, edits past an item's first 100 siblings) is bounded by the
//! snapshot's age. A restart loses only snapshots.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use resolve_pr_core::PrRef;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::threads::{
    Connection, GqlActor, GqlComment, GqlCommit, GqlReactionGroup, GqlThread, Partial, actor,
    big_int, decode, minimized, reactions,
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
        let mut rest = Rest {
            threads_after: review_threads.page_info.next(None, 1, "review threads")?,
            reviews_after,
            comments_after: comments.page_info.next(None, 1, "conversation comments")?,
            threads: Vec::new(),
            reviews: first_reviews.into_iter().flatten().collect(),
            comments: comments.nodes.into_iter().flatten().collect(),
            found: HashMap::new(),
            asked: HashSet::new(),
            pages: [1; 3],
        };
        for thread in review_threads.nodes.into_iter().flatten() {
            version.threads.push(ThreadTally::of(&thread));
            rest.threads.push((thread.into_partial(), 1));
        }
        while let Some(round) = rest.next_round() {
            self.read_round(pr, &mut rest, &round, &mut version).await?;
        }

        let Rest {
            threads,
            reviews,
            comments,
            found,
            ..
        } = rest;
        let threads: Vec<ReviewThread> = threads
            .into_iter()
            .map(|(partial, _)| {
                let mut thread = partial.thread;
                for comment in &mut thread.comments {
                    if let Some(r) = comment.node_id.as_ref().and_then(|id| found.get(id)) {
                        comment.reactions = Some(r.clone());
                    }
                }
                thread
            })
            .collect();
        let reviews = reviews
            .into_iter()
            .filter_map(GqlReview::into_domain)
            .collect();
        let issue_comments = comments
            .into_iter()
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

    /// One round of [`queries::review_feedback_round`]: what `rest` still needs, in one
    /// request; its answers go into `rest` (and new threads into `version`).
    async fn read_round(
        &self,
        pr: &PrRef,
        rest: &mut Rest,
        round: &Round,
        version: &mut Version,
    ) -> Result<()> {
        let shape = &round.shape;
        let mut variables = serde_json::Map::new();
        if shape.threads || shape.reviews || shape.comments {
            variables.extend(
                Self::pull_variables(pr, None)
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            );
        }
        for (name, cursor) in [
            ("threads", &rest.threads_after),
            ("reviews", &rest.reviews_after),
            ("comments", &rest.comments_after),
        ] {
            if let Some(cursor) = cursor {
                variables.insert(name.to_owned(), Value::from(cursor.as_str()));
            }
        }
        for (i, &t) in round.long_threads.iter().enumerate() {
            let partial = &rest.threads[t].0;
            variables.insert(format!("t{i}"), Value::from(partial.thread.id.as_str()));
            variables.insert(
                format!("a{i}"),
                Value::from(partial.more_after.as_deref().unwrap_or("")),
            );
        }
        for (i, ids) in round.reactions.chunks(REACTIONS_PER_REQUEST).enumerate() {
            variables.insert(format!("r{i}"), json!(ids));
        }
        let document = queries::review_feedback_round(shape);
        let data = match self.graphql(&document, Value::Object(variables)).await {
            Ok(data) => data,
            // A thread or comment deleted since it was read.
            Err(e @ Error::NotFound { .. }) => {
                return Err(Error::invalid_body(format!(
                    "a review thread or comment went away while the feedback was read: {}",
                    e.message()
                ))
                .with_suggestion("Call again: the pull request changed meanwhile."));
            }
            Err(e) => return Err(e),
        };
        if shape.threads || shape.reviews || shape.comments {
            let pull = data
                .pointer("/repository/pullRequest")
                .filter(|v| !v.is_null())
                .cloned()
                .ok_or_else(|| self.pull_not_found(pr))?;
            if let Some(after) = rest.threads_after.take() {
                rest.pages[0] += 1;
                let page: Connection<GqlThread> = field(
                    &pull,
                    "reviewThreads",
                    "the review threads of a pull request",
                )?;
                rest.threads_after =
                    page.page_info
                        .next(Some(&after), rest.pages[0], "review threads")?;
                for thread in page.nodes.into_iter().flatten() {
                    version.threads.push(ThreadTally::of(&thread));
                    rest.threads.push((thread.into_partial(), 1));
                }
            }
            if let Some(after) = rest.reviews_after.take() {
                rest.pages[1] += 1;
                let page: Connection<GqlReview> =
                    field(&pull, "reviews", "the reviews of a pull request")?;
                rest.reviews_after = page
                    .page_info
                    .next(Some(&after), rest.pages[1], "reviews")?;
                rest.reviews.extend(page.nodes.into_iter().flatten());
            }
            if let Some(after) = rest.comments_after.take() {
                rest.pages[2] += 1;
                let page: Connection<GqlIssueComment> = field(
                    &pull,
                    "comments",
                    "the conversation comments of a pull request",
                )?;
                rest.comments_after =
                    page.page_info
                        .next(Some(&after), rest.pages[2], "conversation comments")?;
                rest.comments.extend(page.nodes.into_iter().flatten());
            }
        }
        for (i, &t) in round.long_threads.iter().enumerate() {
            let (partial, pages) = &mut rest.threads[t];
            let comments = data
                .get(format!("t{i}"))
                .and_then(|node| node.get("comments"))
                .filter(|v| !v.is_null())
                .cloned()
                .ok_or_else(|| {
                    Error::invalid_body(format!(
                        "GitHub stopped returning review thread {} while its comments were \
                         being paged",
                        partial.thread.id
                    ))
                    .with_suggestion("Retry; the thread may have been deleted meanwhile.")
                })?;
            let page: Connection<GqlComment> = decode(comments, "review thread comments")?;
            *pages += 1;
            let root = partial.thread.comments.first().map(|c| c.id);
            partial.thread.comments.extend(
                page.nodes
                    .into_iter()
                    .flatten()
                    .map(|c| c.into_domain(root)),
            );
            let after = partial.more_after.take();
            partial.more_after =
                page.page_info
                    .next(after.as_deref(), *pages, "thread comments")?;
        }
        for i in 0..shape.reactions {
            let nodes: Vec<Option<ReactionNode>> = decode(
                data.get(format!("r{i}")).cloned().unwrap_or(Value::Null),
                "review comment reactions",
            )?;
            rest.found.extend(
                nodes
                    .into_iter()
                    .flatten()
                    .filter_map(|n| Some((n.id?, reactions(n.reaction_groups)?))),
            );
        }
        rest.asked.extend(round.reactions.iter().cloned());
        Ok(())
    }
}

/// What the feedback read still has to ask for after its first request, and what it has.
struct Rest {
    threads_after: Option<String>,
    reviews_after: Option<String>,
    comments_after: Option<String>,
    /// Each thread with the pages of its comments read.
    threads: Vec<(Partial, u32)>,
    reviews: Vec<GqlReview>,
    comments: Vec<GqlIssueComment>,
    /// Reactions by comment node id.
    found: HashMap<String, Reactions>,
    /// Comment node ids whose reactions were asked for.
    asked: HashSet<String>,
    /// Pages read of threads, reviews and comments.
    pages: [u32; 3],
}

/// One round: its document's shape, which threads' comments continue (indices into
/// [`Rest::threads`]) and whose reactions are asked for.
struct Round {
    shape: queries::FeedbackRound,
    long_threads: Vec<usize>,
    reactions: Vec<String>,
}

impl Rest {
    /// What the next round asks for: every list's next page, the next page of long
    /// threads' comments, and the reactions of the unresolved threads' comments read so far
    /// (the feedback still open); `None` when everything is read.
    fn next_round(&self) -> Option<Round> {
        let long_threads: Vec<usize> = self
            .threads
            .iter()
            .enumerate()
            .filter(|(_, (p, _))| p.more_after.is_some())
            .map(|(i, _)| i)
            .take(queries::FEEDBACK_THREADS_PER_ROUND)
            .collect();
        let reactions: Vec<String> = self
            .threads
            .iter()
            .filter(|(p, _)| !p.thread.is_resolved)
            .flat_map(|(p, _)| p.thread.comments.iter())
            .filter(|c| c.reactions.is_none())
            .filter_map(|c| c.node_id.clone())
            .filter(|id| !self.asked.contains(id))
            .take(REACTIONS_PER_REQUEST * queries::FEEDBACK_REACTIONS_PER_ROUND)
            .collect();
        let shape = queries::FeedbackRound {
            threads: self.threads_after.is_some(),
            reviews: self.reviews_after.is_some(),
            comments: self.comments_after.is_some(),
            thread_comments: long_threads.len(),
            reactions: reactions.len().div_ceil(REACTIONS_PER_REQUEST),
        };
        (!shape.is_empty()).then_some(Round {
            shape,
            long_threads,
            reactions,
        })
    }
}

/// The list `name` of a pull request's answer.
fn field<T: DeserializeOwned>(pull: &Value, name: &str, what: &str) -> Result<T> {
    decode(pull.get(name).cloned().unwrap_or(Value::Null), what)
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
