//! `find_unresolved_comments` (seed 000, tool 2): the review feedback on a pull request that
//! still needs an answer (comments of unresolved review threads, review summaries, other
//! people's conversation comments) as data, with commands to reply and resolve, 20 a page.
//! Pages are keyset-based, so threads resolved or comments added between calls never shift them.

use std::collections::{BTreeMap, HashSet};

use resolve_pr_core::budget::{cut, cut_tail};
use resolve_pr_core::{PageSize, PrRef, Result};
use resolve_pr_forge::{
    Forge, IssueComment, PageRequest, Reactions, Review, ReviewComment, ReviewState, ReviewThread,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::action_commands::{ActionCommands, CommandBuilder, ConversationItem};
use crate::registry::{Annotations, Tool};
use crate::shared::{first_line, pr_from_ref};

/// Bodies above this many bytes are cut (CodeRabbit-style summaries run to tens of KB).
const BODY_BUDGET: usize = 4000;
/// Diff hunks above this many bytes keep their end: GitHub's hunk ends at the commented line.
const DIFF_HUNK_BUDGET: usize = 1500;
/// Conversation comments are fetched 100 at a time (GitHub's maximum page size).
const ISSUE_COMMENTS_PER_REQUEST: u32 = 100;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Also "owner/repo/pull/123", "host/owner/repo#123" or the pull request's URL.
    #[schemars(example = &"owner/repo#123")]
    pub pr: String,
    /// false leaves out authors the forge marks as bots.
    #[serde(default = "default_true")]
    pub include_bots: bool,
    /// Logins to leave out (case-insensitive; "name" also matches "name[bot]").
    #[serde(default)]
    pub exclude_authors: Vec<String>,
    /// chronological: by when the thread, review or comment started; by_file: by path and
    /// line, items without a file last; by_author: by login. A thread's comments stay
    /// together, oldest first.
    #[serde(default)]
    pub sort: Sort,
    /// `nextCursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

fn default_true() -> bool {
    true
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sort {
    /// By when the thread, review or comment started.
    #[default]
    Chronological,
    /// By file path and line; reviews and conversation comments (no file) last.
    ByFile,
    /// By author login (case-insensitive), then chronologically.
    ByAuthor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommentType {
    /// A comment in an unresolved review thread on the diff.
    ReviewComment,
    /// A review's summary text (CHANGES_REQUESTED or COMMENTED, non-empty).
    Review,
    /// A conversation comment on the pull request.
    IssueComment,
}

impl CommentType {
    fn as_str(self) -> &'static str {
        match self {
            CommentType::ReviewComment => "review_comment",
            CommentType::Review => "review",
            CommentType::IssueComment => "issue_comment",
        }
    }
    /// Orders items of different types that start at the same moment.
    fn rank(self) -> u8 {
        match self {
            CommentType::ReviewComment => 0,
            CommentType::Review => 1,
            CommentType::IssueComment => 2,
        }
    }
}

/// One item of feedback (seed 003 `Comment`, plus `thread_id`, `is_outdated`, `review_state`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comment {
    pub id: u64,
    #[serde(rename = "type")]
    pub kind: CommentType,
    /// Login; `ghost` (GitHub) or `Ghost` (Forgejo/Gitea): a deleted account.
    pub author: String,
    /// GitHub only: OWNER, MEMBER, CONTRIBUTOR, NONE, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_association: Option<String>,
    /// The forge marks the account as a bot.
    pub is_bot: bool,
    /// Reviews: when submitted.
    pub created_at: String,
    pub updated_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// The (last) line commented on; absent for a whole file, or a line that no longer exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_number: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    /// RIGHT: lines of the head; LEFT: of the base (a removed line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    /// The code commented on, ending at its line; long hunks keep their end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_hunk: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_id: Option<String>,
    /// Markdown as written; above 4000 bytes cut, with a marker naming html_url.
    pub body: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_reply_to_id: Option<u64>,
    /// Counts by GitHub's reaction names; absent when there are none.
    // Most comments have no reaction; nine zeros on each would be a fifth of a page.
    #[serde(default, skip_serializing_if = "no_reactions")]
    #[schemars(with = "Option<BTreeMap<String, u64>>")]
    pub reactions: Option<Reactions>,
    pub html_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    /// The code it was written on has changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_outdated: Option<bool>,
    /// Reviews: CHANGES_REQUESTED or COMMENTED.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_state: Option<ReviewState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_commands: Option<ActionCommands>,
}

fn no_reactions(reactions: &Option<Reactions>) -> bool {
    reactions
        .as_ref()
        .is_none_or(|r| *r == Reactions::default())
}

/// Counts over every item left after the filters, on all pages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub total_comments: usize,
    /// Items per author login.
    pub by_author: BTreeMap<String, usize>,
    /// All three types, always.
    pub by_type: BTreeMap<String, usize>,
    pub bot_comments: usize,
    pub human_comments: usize,
    /// Items with a reaction.
    pub with_reactions: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    /// Items left after the filters, on all pages.
    pub total_unresolved: usize,
    /// Threads with an item left after the filters.
    pub unresolved_threads: usize,
    /// What this forge cannot do with review threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limitations: Option<String>,
    pub comments: Vec<Comment>,
    pub summary: Summary,
    /// Absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Where an item sorts. Compared field by field (derived `Ord`); the cursor carries the key of
/// the last item shown and the next page starts after it, so pages do not depend on how many
/// items came before.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
struct SortKey {
    /// by_file: 0 for items on a file, 1 for the rest; otherwise 0.
    section: u8,
    /// by_file: the path; by_author: the author's login in lower case; otherwise empty.
    text: String,
    /// by_file: the line (0 for a whole file).
    line: u64,
    /// When the item's group (thread, review or comment) started.
    group_at: String,
    rank: u8,
    /// Tells apart groups starting at the same moment.
    group: String,
    /// The item's place inside its group.
    at: String,
    id: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Position {
    after: SortKey,
}

/// An item with what is needed to sort it and to build its commands.
struct Entry {
    key: SortKey,
    comment: Comment,
    /// Index into the unresolved threads, for review comments.
    thread: Option<usize>,
}

pub struct FindUnresolvedComments;

impl Tool for FindUnresolvedComments {
    const NAME: &'static str = "find_unresolved_comments";
    const TITLE: &'static str = "Find unresolved review feedback on a pull request";
    const DESCRIPTION: &'static str = "The review feedback on a pull request (GitHub, GitHub \
Enterprise, Forgejo or Gitea) that still needs an answer, as data with ready-to-run commands: you \
judge what each item asks. Items: review_comment, every comment of each unresolved review thread \
(outdated threads too), a thread's comments together, oldest first; review, summaries that request \
changes or comment, with a body; issue_comment, conversation comments. Reviews and conversation \
comments have no resolved state on any forge, so all of them are listed except the pull request \
author's own. Replies share their thread's diff_hunk and action_commands through thread_id. Run a \
reply_command as `<reply_command> <<'EOF'`, then a line {\"body\": \"your reply\"} (JSON-escaped), \
then EOF; Forgejo/Gitea commands read the token from $FORGEJO_TOKEN or $GITEA_TOKEN. Run \
resolve_command only after the fix is verified. reply_to_review_thread and resolve_review_thread \
do the same by thread_id.";
    const TOOLSET: &'static str = "reviews";
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
        if input.exclude_authors.iter().any(|a| a.trim().is_empty()) {
            problems.push("exclude_authors must not contain empty logins".to_owned());
        }
        let pr = pr_from_ref(&input.pr, problems)?;
        let position = match &input.cursor {
            Some(c) => Some(ctx.cursors.decode::<Position>(Self::NAME, raw, c)?),
            None => None,
        };
        let forge = ctx.forges.for_repo(&pr.repo)?;

        // Everything at once; errors are reported in a fixed order (the PR first, so a
        // missing PR is "not found" whichever request noticed it first).
        let (pull, activity, issue_comments) = tokio::join!(
            forge.pull_request(&pr),
            forge.review_activity(&pr),
            all_issue_comments(forge.as_ref(), &pr),
        );
        let pull = pull?;
        let (threads, reviews) = activity?;
        let issue_comments = issue_comments?;
        // Probing (Forgejo/Gitea) tries the endpoints on a thread we already have.
        let capabilities = forge.thread_capabilities(&pr, &threads).await?;

        let filter = AuthorFilter::new(&input);
        let unresolved: Vec<ReviewThread> =
            threads.into_iter().filter(|t| !t.is_resolved).collect();
        let mut entries = Vec::new();
        let mut threads_with_items = 0;
        for (index, thread) in unresolved.iter().enumerate() {
            let kept: Vec<&ReviewComment> = thread
                .comments
                .iter()
                .filter(|c| filter.keeps(&c.author.login, c.author.is_bot))
                .collect();
            let Some(first) = kept.first() else { continue };
            threads_with_items += 1;
            // A thread sorts by when it started, even when filters hide its first comment.
            let group_at = thread
                .comments
                .first()
                .map_or_else(|| first.created_at.clone(), |c| c.created_at.clone());
            let author = first.author.login.clone();
            for c in kept {
                entries.push(Entry {
                    key: key_for(
                        input.sort,
                        thread.path.as_deref(),
                        // The original line, which a push does not move: a cursor's key
                        // must not change between pages.
                        thread.original_line.or(thread.line),
                        &author,
                        &group_at,
                        CommentType::ReviewComment,
                        &thread.id,
                        &c.created_at,
                        c.id,
                    ),
                    comment: review_comment(thread, c),
                    thread: Some(index),
                });
            }
        }
        // Summaries and conversation comments have no resolved state: both are listed when
        // someone other than the PR's author wrote them (the author's own are not feedback).
        let pr_author = pull.author.login.to_lowercase();
        for r in reviews {
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
            let Some(at) = r.submitted_at.clone() else {
                continue;
            };
            entries.push(Entry {
                key: key_for(
                    input.sort,
                    None,
                    None,
                    &r.author.login,
                    &at,
                    CommentType::Review,
                    &format!("{:020}", r.id),
                    &at,
                    r.id,
                ),
                comment: review_item(r, at),
                thread: None,
            });
        }
        for c in issue_comments {
            if c.author.login.to_lowercase() == pr_author
                || !filter.keeps(&c.author.login, c.author.is_bot)
            {
                continue;
            }
            entries.push(Entry {
                key: key_for(
                    input.sort,
                    None,
                    None,
                    &c.author.login,
                    &c.created_at,
                    CommentType::IssueComment,
                    &format!("{:020}", c.id),
                    &c.created_at,
                    c.id,
                ),
                comment: issue_comment(c),
                thread: None,
            });
        }
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        let summary = summarize(&entries);

        let after = position.map(|p| p.after);
        let start = match &after {
            Some(k) => entries.partition_point(|e| &e.key <= k),
            None => 0,
        };
        let size = PageSize::Comments.get();
        let end = (start + size).min(entries.len());
        let next_cursor = (end < entries.len()).then(|| {
            let last = entries[end - 1].key.clone();
            ctx.cursors
                .encode(Self::NAME, raw, &Position { after: last })
        });

        let limitations = capabilities.missing.clone();
        let commands = CommandBuilder::new(ctx.forges.config(), &pr, forge.kind(), capabilities)?;
        let mut threads_shown: HashSet<usize> = HashSet::new();
        let mut comments = Vec::with_capacity(end - start);
        for entry in entries.drain(start..end) {
            let mut comment = entry.comment;
            match entry.thread {
                Some(index) => {
                    if threads_shown.insert(index) {
                        comment.action_commands = Some(commands.thread(&unresolved[index])?);
                    } else {
                        // Replies repeat GitHub's hunk verbatim; the first comment has it.
                        comment.diff_hunk = None;
                    }
                }
                None => {
                    let item = match comment.kind {
                        CommentType::Review => ConversationItem::Review,
                        _ => ConversationItem::IssueComment,
                    };
                    comment.action_commands =
                        Some(commands.conversation(item, &comment.body, &comment.html_url)?);
                }
            }
            comments.push(comment);
        }

        Ok(Output {
            pr: pr.to_string(),
            total_unresolved: summary.total_comments,
            unresolved_threads: threads_with_items,
            limitations,
            comments,
            summary,
            next_cursor,
        })
    }

    fn render(out: &Output) -> String {
        let mut text = format!(
            "{} unresolved item(s) on {} ({} unresolved thread(s)); {} in this page",
            out.total_unresolved,
            out.pr,
            out.unresolved_threads,
            out.comments.len()
        );
        if out.next_cursor.is_some() {
            text.push_str(" (more: call again with nextCursor)");
        }
        if !out.comments.is_empty() {
            text.push(':');
        }
        for c in &out.comments {
            let place = match (&c.file_path, c.line_number) {
                (Some(p), Some(l)) => format!(" {p}:{l}"),
                (Some(p), None) => format!(" {p}"),
                _ => String::new(),
            };
            let outdated = if c.is_outdated == Some(true) {
                " (outdated)"
            } else {
                ""
            };
            let bot = if c.is_bot && !c.author.ends_with("[bot]") {
                " [bot]"
            } else {
                ""
            };
            text.push_str(&format!(
                "\n- {} #{}{}{} by {}{}: {}",
                c.kind.as_str(),
                c.id,
                place,
                outdated,
                c.author,
                bot,
                first_line(&c.body, 100)
            ));
        }
        text
    }
}

/// Every conversation comment of the PR, page after page.
async fn all_issue_comments(forge: &dyn Forge, pr: &PrRef) -> Result<Vec<IssueComment>> {
    // No pull request has a thousand pages of conversation; a forge that keeps saying "more"
    // past that is looping.
    const MAX_PAGES: u32 = 1000;
    let mut all = Vec::new();
    for page in 1u32.. {
        if page > MAX_PAGES {
            return Err(resolve_pr_core::Error::api(format!(
                "the forge kept returning pages of conversation comments past {MAX_PAGES} pages"
            )));
        }
        let got = forge
            .list_pr_comments(
                pr,
                PageRequest {
                    page,
                    per_page: ISSUE_COMMENTS_PER_REQUEST,
                },
            )
            .await?;
        let empty = got.items.is_empty();
        all.extend(got.items);
        if !got.has_next || empty {
            break;
        }
    }
    Ok(all)
}

/// `include_bots` and `exclude_authors`. Logins compare case-insensitively and without a
/// trailing `[bot]`: GitHub's REST API says `name[bot]` where its GraphQL API says `name`.
struct AuthorFilter {
    include_bots: bool,
    excluded: HashSet<String>,
}

impl AuthorFilter {
    fn new(input: &Input) -> Self {
        AuthorFilter {
            include_bots: input.include_bots,
            excluded: input.exclude_authors.iter().map(|a| login_key(a)).collect(),
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
    sort: Sort,
    path: Option<&str>,
    line: Option<u64>,
    author: &str,
    group_at: &str,
    kind: CommentType,
    group: &str,
    at: &str,
    id: u64,
) -> SortKey {
    let (section, text, line) = match sort {
        Sort::Chronological => (0, String::new(), 0),
        Sort::ByFile => match path {
            Some(p) => (0, p.to_owned(), line.unwrap_or(0)),
            None => (1, String::new(), 0),
        },
        Sort::ByAuthor => (0, login_key(author), 0),
    };
    SortKey {
        section,
        text,
        line,
        group_at: group_at.to_owned(),
        rank: kind.rank(),
        group: group.to_owned(),
        at: at.to_owned(),
        id,
    }
}

fn cut_body(body: &str, html_url: &str) -> String {
    cut(body, BODY_BUDGET, html_url).text
}

pub(crate) fn review_comment(thread: &ReviewThread, c: &ReviewComment) -> Comment {
    Comment {
        id: c.id,
        kind: CommentType::ReviewComment,
        author: c.author.login.clone(),
        author_association: c.author_association.clone(),
        is_bot: c.author.is_bot,
        created_at: c.created_at.clone(),
        updated_at: c.updated_at.clone(),
        file_path: thread.path.clone(),
        line_number: thread.line,
        start_line: thread.start_line,
        side: thread.diff_side.clone(),
        diff_hunk: c
            .diff_hunk
            .as_deref()
            .map(|h| cut_tail(h, DIFF_HUNK_BUDGET, &c.html_url).text),
        commit_id: c.commit_id.clone(),
        body: cut_body(&c.body, &c.html_url),
        in_reply_to_id: c.in_reply_to_id,
        reactions: c.reactions.clone(),
        html_url: c.html_url.clone(),
        thread_id: Some(thread.id.clone()),
        is_outdated: Some(thread.is_outdated),
        review_state: None,
        action_commands: None,
    }
}

fn review_item(r: Review, submitted_at: String) -> Comment {
    Comment {
        id: r.id,
        kind: CommentType::Review,
        body: cut_body(&r.body, &r.html_url),
        author: r.author.login,
        author_association: r.author_association,
        is_bot: r.author.is_bot,
        created_at: submitted_at.clone(),
        updated_at: submitted_at,
        file_path: None,
        line_number: None,
        start_line: None,
        side: None,
        diff_hunk: None,
        commit_id: r.commit_id,
        in_reply_to_id: None,
        reactions: None,
        html_url: r.html_url,
        thread_id: None,
        is_outdated: None,
        review_state: Some(r.state),
        action_commands: None,
    }
}

fn issue_comment(c: IssueComment) -> Comment {
    Comment {
        id: c.id,
        kind: CommentType::IssueComment,
        body: cut_body(&c.body, &c.html_url),
        author: c.author.login,
        author_association: c.author_association,
        is_bot: c.author.is_bot,
        created_at: c.created_at,
        updated_at: c.updated_at,
        file_path: None,
        line_number: None,
        start_line: None,
        side: None,
        diff_hunk: None,
        commit_id: None,
        in_reply_to_id: None,
        reactions: None,
        html_url: c.html_url,
        thread_id: None,
        is_outdated: None,
        review_state: None,
        action_commands: None,
    }
}

fn summarize(entries: &[Entry]) -> Summary {
    let mut s = Summary::default();
    for t in [
        CommentType::ReviewComment,
        CommentType::Review,
        CommentType::IssueComment,
    ] {
        s.by_type.insert(t.as_str().to_owned(), 0);
    }
    for e in entries {
        let c = &e.comment;
        s.total_comments += 1;
        *s.by_author.entry(c.author.clone()).or_default() += 1;
        *s.by_type.entry(c.kind.as_str().to_owned()).or_default() += 1;
        if c.is_bot {
            s.bot_comments += 1;
        } else {
            s.human_comments += 1;
        }
        if c.reactions.as_ref().is_some_and(|r| r.total_count > 0) {
            s.with_reactions += 1;
        }
    }
    s
}
