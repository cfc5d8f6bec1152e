//! The review feedback on a pull request that still needs an answer: every comment of each
//! unresolved review thread, review summaries that request changes or comment, and other
//! people's conversation comments; filtered by author, in a stable order, and counted.
//! Minimized (hidden) items are counted apart and never as feedback.

use std::collections::BTreeMap;

use resolve_pr_forge::{
    Actor, IssueComment, Minimized, Reactions, Review, ReviewComment, ReviewFeedback, ReviewState,
    ReviewThread, Timestamp,
};

/// Which items to keep and in what order.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// false leaves out authors the forge marks as bots.
    pub include_bots: bool,
    /// Logins to leave out (case-insensitive; "name" also matches "name[bot]").
    pub exclude_authors: Vec<String>,
    pub order: Order,
    /// Keep minimized items in `items` (they are never counted).
    pub include_minimized: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    /// By when the thread, review or comment started.
    #[default]
    Chronological,
    /// By file path and line; reviews and conversation comments (no file) last.
    ByFile,
    /// By author login (case-insensitive), then chronologically.
    ByAuthor,
}

/// What an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A comment in an unresolved review thread on the diff.
    ThreadComment,
    /// A review's summary text (CHANGES_REQUESTED or COMMENTED, non-empty).
    Review,
    /// A conversation comment on the pull request.
    IssueComment,
}

impl ItemKind {
    pub const ALL: [ItemKind; 3] = [
        ItemKind::ThreadComment,
        ItemKind::Review,
        ItemKind::IssueComment,
    ];

    /// Orders items of different kinds that start at the same moment.
    fn rank(self) -> u8 {
        match self {
            ItemKind::ThreadComment => 0,
            ItemKind::Review => 1,
            ItemKind::IssueComment => 2,
        }
    }
}

/// One item of feedback, as the forge reported it.
#[derive(Debug, Clone, Copy)]
pub enum Item<'a> {
    /// `thread` indexes [`OpenFeedback::threads`].
    ThreadComment {
        thread: usize,
        comment: &'a ReviewComment,
    },
    /// A review has a time once submitted; only submitted ones are feedback.
    Review {
        review: &'a Review,
        submitted_at: Timestamp,
    },
    IssueComment(&'a IssueComment),
}

impl<'a> Item<'a> {
    pub fn kind(&self) -> ItemKind {
        match self {
            Item::ThreadComment { .. } => ItemKind::ThreadComment,
            Item::Review { .. } => ItemKind::Review,
            Item::IssueComment(_) => ItemKind::IssueComment,
        }
    }

    pub fn author(&self) -> &'a Actor {
        match self {
            Item::ThreadComment { comment, .. } => &comment.author,
            Item::Review { review, .. } => &review.author,
            Item::IssueComment(c) => &c.author,
        }
    }

    pub fn minimized(&self) -> Option<&'a Minimized> {
        match self {
            Item::ThreadComment { comment, .. } => comment.minimized.as_ref(),
            Item::Review { review, .. } => review.minimized.as_ref(),
            Item::IssueComment(c) => c.minimized.as_ref(),
        }
    }

    /// Reactions as feedback counts them: those of thread comments (the forge reads them for
    /// the comments of unresolved threads).
    pub fn reactions(&self) -> Option<&'a Reactions> {
        match self {
            Item::ThreadComment { comment, .. } => comment.reactions.as_ref(),
            Item::Review { .. } | Item::IssueComment(_) => None,
        }
    }
}

/// Where an item sorts. Compared field by field (derived `Ord`); the same key on a later
/// read names the same place, so a reader can resume after an item it has seen whatever
/// came or went before it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SortKey {
    /// by_file: 0 for items on a file, 1 for the rest; otherwise 0.
    pub section: u8,
    /// by_file: the path; by_author: the author's login in lower case; otherwise empty.
    pub text: String,
    /// by_file: the line (0 for a whole file).
    pub line: u64,
    /// When the item's group (thread, review or comment) started.
    pub group_at: Timestamp,
    pub rank: u8,
    /// Tells apart groups starting at the same moment.
    pub group: String,
    /// The item's place inside its group.
    pub at: Timestamp,
    pub id: u64,
}

/// An item and its place.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub key: SortKey,
    pub item: Item<'a>,
}

/// Counts over every item kept by the author filters; minimized items only in `minimized`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    /// Items per author login (as the forge spells it).
    pub by_author: BTreeMap<String, usize>,
    pub thread_comments: usize,
    pub reviews: usize,
    pub issue_comments: usize,
    pub bots: usize,
    pub humans: usize,
    /// Items with a reaction.
    pub with_reactions: usize,
    pub minimized: usize,
}

impl Counts {
    pub fn of_kind(&self, kind: ItemKind) -> usize {
        match kind {
            ItemKind::ThreadComment => self.thread_comments,
            ItemKind::Review => self.reviews,
            ItemKind::IssueComment => self.issue_comments,
        }
    }
}

/// The feedback that still needs an answer.
#[derive(Debug, Clone)]
pub struct OpenFeedback<'a> {
    /// The unresolved review threads (also those whose items the filters left out).
    pub threads: Vec<&'a ReviewThread>,
    /// Threads with an item left after the filters that is not minimized.
    pub threads_with_items: usize,
    /// In order; minimized ones only with `include_minimized`.
    pub items: Vec<Entry<'a>>,
    pub counts: Counts,
}

/// What of `feedback` still needs an answer. Reviews and conversation comments have no
/// resolved state: those written by someone other than the PR's author are all listed (the
/// author's own are not feedback).
pub fn open<'a>(feedback: &'a ReviewFeedback, query: &Query) -> OpenFeedback<'a> {
    let filter = AuthorFilter::new(query);
    let threads: Vec<&ReviewThread> = feedback.threads.iter().filter(|t| !t.is_resolved).collect();
    let mut items = Vec::new();
    let mut threads_with_items = 0;
    for (index, thread) in threads.iter().enumerate() {
        let kept: Vec<&ReviewComment> = thread
            .comments
            .iter()
            .filter(|c| filter.keeps(&c.author.login, c.author.is_bot))
            .collect();
        let Some(first) = kept.first() else { continue };
        if kept.iter().any(|c| c.minimized.is_none()) {
            threads_with_items += 1;
        }
        // A thread sorts by when it started, even when filters hide its first comment.
        let group_at = thread
            .comments
            .first()
            .map_or(first.created_at, |c| c.created_at);
        let author = first.author.login.clone();
        for c in kept {
            items.push(Entry {
                key: key_for(
                    query.order,
                    thread.path.as_deref(),
                    // The original line, which a push does not move: a key must not change
                    // between reads.
                    thread.original_line.or(thread.line),
                    &author,
                    group_at,
                    ItemKind::ThreadComment,
                    &thread.id,
                    c.created_at,
                    c.id,
                ),
                item: Item::ThreadComment {
                    thread: index,
                    comment: c,
                },
            });
        }
    }
    let pr_author = feedback.pull.author.login.to_lowercase();
    for r in &feedback.reviews {
        let wanted = matches!(
            r.state,
            ReviewState::ChangesRequested | ReviewState::Commented
        );
        if !wanted
            || r.body.trim().is_empty()
            || r.author.login.to_lowercase() == pr_author
            || !filter.keeps(&r.author.login, r.author.is_bot)
        {
            continue;
        }
        let Some(at) = r.submitted_at else {
            continue;
        };
        items.push(Entry {
            key: key_for(
                query.order,
                None,
                None,
                &r.author.login,
                at,
                ItemKind::Review,
                &format!("{:020}", r.id),
                at,
                r.id,
            ),
            item: Item::Review {
                review: r,
                submitted_at: at,
            },
        });
    }
    for c in &feedback.issue_comments {
        if c.author.login.to_lowercase() == pr_author
            || !filter.keeps(&c.author.login, c.author.is_bot)
        {
            continue;
        }
        items.push(Entry {
            key: key_for(
                query.order,
                None,
                None,
                &c.author.login,
                c.created_at,
                ItemKind::IssueComment,
                &format!("{:020}", c.id),
                c.created_at,
                c.id,
            ),
            item: Item::IssueComment(c),
        });
    }
    items.sort_by(|a, b| a.key.cmp(&b.key));
    let counts = count(&items);
    if !query.include_minimized {
        items.retain(|e| e.item.minimized().is_none());
    }
    OpenFeedback {
        threads,
        threads_with_items,
        items,
        counts,
    }
}

fn count(items: &[Entry<'_>]) -> Counts {
    let mut s = Counts::default();
    for e in items {
        let item = &e.item;
        if item.minimized().is_some() {
            s.minimized += 1;
            continue;
        }
        s.total += 1;
        let author = item.author();
        *s.by_author.entry(author.login.clone()).or_default() += 1;
        match item.kind() {
            ItemKind::ThreadComment => s.thread_comments += 1,
            ItemKind::Review => s.reviews += 1,
            ItemKind::IssueComment => s.issue_comments += 1,
        }
        if author.is_bot {
            s.bots += 1;
        } else {
            s.humans += 1;
        }
        if item.reactions().is_some_and(|r| r.total_count > 0) {
            s.with_reactions += 1;
        }
    }
    s
}

/// `include_bots` and `exclude_authors`. Logins compare case-insensitively and without a
/// trailing `[bot]`: GitHub's REST API says `name[bot]` where its GraphQL API says `name`.
struct AuthorFilter {
    include_bots: bool,
    excluded: std::collections::HashSet<String>,
}

impl AuthorFilter {
    fn new(query: &Query) -> Self {
        AuthorFilter {
            include_bots: query.include_bots,
            excluded: query.exclude_authors.iter().map(|a| login_key(a)).collect(),
        }
    }

    fn keeps(&self, login: &str, is_bot: bool) -> bool {
        (self.include_bots || !is_bot) && !self.excluded.contains(&login_key(login))
    }
}

fn login_key(login: &str) -> String {
    let lower = login.trim().to_lowercase();
    match lower.strip_suffix("[bot]") {
        Some(stem) => stem.to_owned(),
        None => lower,
    }
}

#[allow(clippy::too_many_arguments)]
fn key_for(
    order: Order,
    path: Option<&str>,
    line: Option<u64>,
    author: &str,
    group_at: Timestamp,
    kind: ItemKind,
    group: &str,
    at: Timestamp,
    id: u64,
) -> SortKey {
    let (section, text, line) = match order {
        Order::Chronological => (0, String::new(), 0),
        Order::ByFile => match path {
            Some(p) => (0, p.to_owned(), line.unwrap_or(0)),
            None => (1, String::new(), 0),
        },
        Order::ByAuthor => (0, login_key(author), 0),
    };
    SortKey {
        section,
        text,
        line,
        group_at,
        rank: kind.rank(),
        group: group.to_owned(),
        at,
        id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_forge::{PrState, PullRequest};

    fn time(at: &str) -> Timestamp {
        resolve_pr_forge::parse_time(at).unwrap()
    }

    fn actor(login: &str, is_bot: bool) -> Actor {
        Actor {
            login: login.to_owned(),
            is_bot,
        }
    }

    fn comment(id: u64, author: Actor, at: &str) -> ReviewComment {
        ReviewComment {
            id,
            node_id: None,
            author,
            author_association: None,
            body: format!("comment {id}"),
            created_at: time(at),
            updated_at: time(at),
            html_url: format!("https://forge.example/c/{id}"),
            diff_hunk: None,
            commit_id: None,
            in_reply_to_id: None,
            reactions: None,
            minimized: None,
        }
    }

    fn thread(
        id: &str,
        path: &str,
        line: u64,
        resolved: bool,
        comments: Vec<ReviewComment>,
    ) -> ReviewThread {
        ReviewThread {
            id: id.to_owned(),
            is_resolved: resolved,
            is_outdated: false,
            path: Some(path.to_owned()),
            line: Some(line),
            start_line: None,
            original_line: Some(line),
            original_start_line: None,
            diff_side: None,
            subject_type: None,
            viewer_can_resolve: true,
            viewer_can_reply: true,
            resolved_by: None,
            comments,
        }
    }

    fn review(id: u64, author: Actor, state: ReviewState, body: &str, at: &str) -> Review {
        Review {
            id,
            author,
            author_association: None,
            state,
            body: body.to_owned(),
            submitted_at: Some(time(at)),
            html_url: format!("https://forge.example/r/{id}"),
            commit_id: None,
            minimized: None,
        }
    }

    fn issue_comment(id: u64, author: Actor, at: &str) -> IssueComment {
        IssueComment {
            id,
            author,
            author_association: None,
            body: format!("issue comment {id}"),
            created_at: time(at),
            updated_at: time(at),
            html_url: format!("https://forge.example/i/{id}"),
            minimized: None,
        }
    }

    fn feedback() -> ReviewFeedback {
        let mut hidden = comment(4, actor("carol", false), "2024-05-01T10:04:00Z");
        hidden.minimized = Some(Minimized {
            reason: Some("outdated".to_owned()),
        });
        let mut liked = comment(2, actor("carol", false), "2024-05-01T10:02:00Z");
        liked.reactions = Some(Reactions {
            total_count: 1,
            heart: 1,
            ..Default::default()
        });
        ReviewFeedback {
            pull: PullRequest {
                number: 7,
                title: "t".to_owned(),
                body: String::new(),
                labels: Vec::new(),
                state: PrState::Open,
                draft: false,
                author: actor("Bob", false),
                html_url: "https://forge.example/pull/7".to_owned(),
                head_ref: "feature".to_owned(),
                head_sha: "abc".to_owned(),
                base_ref: "main".to_owned(),
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
            threads: vec![
                thread("T2", "src/b.rs", 3, false, vec![liked, hidden]),
                thread(
                    "T1",
                    "src/a.rs",
                    9,
                    false,
                    vec![comment(
                        1,
                        actor("coderabbitai[bot]", true),
                        "2024-05-01T10:01:00Z",
                    )],
                ),
                thread(
                    "T0",
                    "src/a.rs",
                    1,
                    true,
                    vec![comment(9, actor("carol", false), "2024-05-01T09:00:00Z")],
                ),
            ],
            reviews: vec![
                review(
                    5,
                    actor("carol", false),
                    ReviewState::ChangesRequested,
                    "fix it",
                    "2024-05-01T10:05:00Z",
                ),
                review(
                    6,
                    actor("carol", false),
                    ReviewState::Approved,
                    "lgtm",
                    "2024-05-01T10:06:00Z",
                ),
                review(
                    7,
                    actor("dave", false),
                    ReviewState::Commented,
                    "  ",
                    "2024-05-01T10:07:00Z",
                ),
            ],
            issue_comments: vec![
                issue_comment(8, actor("bob", false), "2024-05-01T10:08:00Z"),
                issue_comment(10, actor("dave", false), "2024-05-01T10:00:00Z"),
            ],
        }
    }

    fn ids(open: &OpenFeedback<'_>) -> Vec<u64> {
        open.items
            .iter()
            .map(|e| match e.item {
                Item::ThreadComment { comment, .. } => comment.id,
                Item::Review { review, .. } => review.id,
                Item::IssueComment(c) => c.id,
            })
            .collect()
    }

    #[test]
    fn open_items_leave_out_resolved_threads_the_authors_own_and_empty_or_approving_reviews() {
        let feedback = feedback();
        let query = Query {
            include_bots: true,
            ..Default::default()
        };
        let open = open(&feedback, &query);
        // Chronological by when each thread, review or comment started; the minimized
        // comment is not listed and not counted, but its thread still has an item.
        assert_eq!(ids(&open), [10, 1, 2, 5]);
        assert_eq!(open.threads.len(), 2);
        assert_eq!(open.threads_with_items, 2);
        assert_eq!(
            open.counts,
            Counts {
                total: 4,
                by_author: BTreeMap::from([
                    ("carol".to_owned(), 2),
                    ("coderabbitai[bot]".to_owned(), 1),
                    ("dave".to_owned(), 1),
                ]),
                thread_comments: 2,
                reviews: 1,
                issue_comments: 1,
                bots: 1,
                humans: 3,
                with_reactions: 1,
                minimized: 1,
            }
        );
        let with_minimized = super::open(
            &feedback,
            &Query {
                include_minimized: true,
                ..query.clone()
            },
        );
        assert_eq!(ids(&with_minimized), [10, 1, 2, 4, 5]);
        assert_eq!(with_minimized.counts, open.counts);
    }

    #[test]
    fn authors_are_filtered_without_case_or_bot_suffix_and_sorted_by_file() {
        let feedback = feedback();
        let open = open(
            &feedback,
            &Query {
                include_bots: true,
                exclude_authors: vec!["CodeRabbitAI".to_owned()],
                order: Order::ByFile,
                include_minimized: false,
            },
        );
        // Files first (by path, then line), then what has no file, chronologically.
        assert_eq!(ids(&open), [2, 10, 5]);
        let no_bots = super::open(
            &feedback,
            &Query {
                include_bots: false,
                order: Order::ByAuthor,
                ..Default::default()
            },
        );
        assert_eq!(ids(&no_bots), [2, 5, 10]);
    }

    #[test]
    fn times_with_offsets_sort_by_their_instant() {
        // Forgejo/Gitea write the server's offset. 11:30+02:00 is 09:30Z: before 10:00Z,
        // although as text it sorts after it.
        let mut feedback = feedback();
        feedback.issue_comments = vec![
            issue_comment(10, actor("dave", false), "2024-05-01T10:00:00Z"),
            issue_comment(11, actor("erin", false), "2024-05-01T11:30:00+02:00"),
        ];
        feedback.threads[0].comments[0].created_at = time("2024-05-01T12:15:00+02:00");
        let open = open(
            &feedback,
            &Query {
                include_bots: true,
                ..Default::default()
            },
        );
        // 11 (09:30Z), 10 (10:00Z), 1 (10:01Z), review 5 (10:05Z), 2 (10:15Z).
        assert_eq!(ids(&open), [11, 10, 1, 5, 2]);
    }
}
