//! `find_unresolved_comments` (seed 000, tool 2): the review feedback on a pull request that
//! still needs an answer (comments of unresolved review threads, review summaries, other
//! people's conversation comments) as data, with commands to reply and resolve, 20 a page.
//! Pages are keyset-based, so threads resolved or comments added between calls never shift them.
//!
//! Which items still need an answer, their order and their counts are
//! `resolve_pr_pr::review_feedback`; this module pages them, cuts long texts, adds commands
//! and renders the text.

use std::collections::{BTreeMap, HashSet};

use resolve_pr_core::budget::{cut, cut_tail};
use resolve_pr_core::{PageSize, Result};
use resolve_pr_forge::{
    IssueComment, Minimized, Reactions, Review, ReviewComment, ReviewState, ReviewThread,
    Timestamp, format_time,
};
use resolve_pr_pr::review_feedback::{self, Counts, Item, ItemKind, Order, Query};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::action_commands::{ActionCommands, CommandBuilder, ConversationItem};
use crate::registry::{Annotations, Tool};
use crate::shared::pr_from_ref;

/// Bodies above this many bytes are cut (CodeRabbit-style summaries run to tens of KB).
const BODY_BUDGET: usize = 4000;
/// Diff hunks above this many bytes keep their end: GitHub's hunk ends at the commented line.
const DIFF_HUNK_BUDGET: usize = 1500;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    #[schemars(example = &"owner/repo#123")]
    pub pr: String,
    /// false leaves out authors the forge marks as bots.
    #[serde(default = "default_true")]
    pub include_bots: bool,
    /// Logins to leave out (case-insensitive; "name" also matches "name[bot]").
    #[serde(default)]
    pub exclude_authors: Vec<String>,
    /// chronological (by start), by_file (path, line) or by_author. A thread's comments
    /// stay together, oldest first.
    #[serde(default)]
    pub sort: Sort,
    /// Also list items GitHub shows minimized, with the reason. Never counted.
    #[serde(default)]
    pub include_minimized: bool,
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
}

impl From<ItemKind> for CommentType {
    fn from(kind: ItemKind) -> Self {
        match kind {
            ItemKind::ThreadComment => CommentType::ReviewComment,
            ItemKind::Review => CommentType::Review,
            ItemKind::IssueComment => CommentType::IssueComment,
        }
    }
}

impl From<Sort> for Order {
    fn from(sort: Sort) -> Self {
        match sort {
            Sort::Chronological => Order::Chronological,
            Sort::ByFile => Order::ByFile,
            Sort::ByAuthor => Order::ByAuthor,
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
    /// The (last) line; absent for a whole file. In the original diff if line_is_original.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_number: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    /// The thread is outdated and its lines are those of the original diff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_is_original: Option<bool>,
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
    /// Hidden on GitHub (listed only with include_minimized).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_minimized: Option<bool>,
    /// off-topic, spam, outdated, resolved, duplicate or abuse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimized_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_commands: Option<ActionCommands>,
}

fn no_reactions(reactions: &Option<Reactions>) -> bool {
    reactions
        .as_ref()
        .is_none_or(|r| *r == Reactions::default())
}

/// Over all pages, after the filters.
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
    /// Minimized items (counted only here).
    pub minimized: usize,
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

/// The cursor's copy of `review_feedback::SortKey`, field for field: the cursor carries the
/// key of the last item shown and the next page starts after it, so pages do not depend on
/// how many items came before.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SortKey {
    /// by_file: 0 for items on a file, 1 for the rest; otherwise 0.
    section: u8,
    /// by_file: the path; by_author: the author's login in lower case; otherwise empty.
    text: String,
    /// by_file: the line (0 for a whole file).
    line: u64,
    /// When the item's group (thread, review or comment) started. Written as RFC 3339 text,
    /// as cursors always were, so that cursors handed out before stay valid.
    #[serde(with = "resolve_pr_forge::time::rfc3339")]
    group_at: Timestamp,
    rank: u8,
    /// Tells apart groups starting at the same moment.
    group: String,
    /// The item's place inside its group.
    #[serde(with = "resolve_pr_forge::time::rfc3339")]
    at: Timestamp,
    id: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Position {
    after: SortKey,
}

pub struct FindUnresolvedComments;

impl Tool for FindUnresolvedComments {
    const NAME: &'static str = "find_unresolved_comments";
    const TITLE: &'static str = "Find unresolved review feedback on a pull request";
    const DESCRIPTION: &'static str = "The review feedback on a pull request that still needs \
an answer, with ready-to-run commands; you judge what each item asks. review_comment: every \
comment of each unresolved review thread (outdated too), by thread, oldest first; review: \
summaries requesting changes or commenting; issue_comment: conversation comments (neither \
resolves: all but the author's own and minimized ones are listed). Replies share their \
thread's action_commands via thread_id. Run a reply_command as `<reply_command> <<'EOF'`, a line {\"body\": \"...\"}, then EOF; resolve \
only once the fix is verified.";
    const TOOLSET: crate::Toolset = crate::Toolset::Reviews;
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
        let forge = ctx.forge(&pr.repo)?;

        let feedback = forge.threads().review_feedback(&pr).await?;
        // Probing (Forgejo/Gitea) tries the endpoints on a thread we already have.
        let capabilities = forge
            .threads()
            .thread_capabilities(&pr, &feedback.threads)
            .await?;
        let open = review_feedback::open(
            &feedback,
            &Query {
                include_bots: input.include_bots,
                exclude_authors: input.exclude_authors.clone(),
                order: input.sort.into(),
                include_minimized: input.include_minimized,
            },
        );

        let items = &open.items;
        let start = match position.map(|p| review_feedback::SortKey::from(p.after)) {
            Some(k) => items.partition_point(|e| e.key <= k),
            None => 0,
        };
        let size = PageSize::Comments.get();
        let end = (start + size).min(items.len());
        let next_cursor = (end < items.len()).then(|| {
            let last = SortKey::from(&items[end - 1].key);
            ctx.cursors
                .encode(Self::NAME, raw, &Position { after: last })
        });

        let limitations = capabilities.missing.clone();
        let commands = CommandBuilder::new(forge.commands(), &pr, forge.kind(), capabilities);
        let mut threads_shown: HashSet<usize> = HashSet::new();
        let mut comments = Vec::with_capacity(end - start);
        for entry in &items[start..end] {
            let comment = match entry.item {
                Item::ThreadComment { thread, comment } => {
                    let mut c = review_comment(open.threads[thread], comment);
                    if threads_shown.insert(thread) {
                        c.action_commands = Some(commands.thread(open.threads[thread])?);
                    } else {
                        // Replies repeat GitHub's hunk verbatim; the first comment has it.
                        c.diff_hunk = None;
                    }
                    c
                }
                Item::Review {
                    review,
                    submitted_at,
                } => {
                    let mut c = review_item(review, format_time(&submitted_at));
                    c.action_commands = Some(commands.conversation(
                        ConversationItem::Review,
                        &c.body,
                        &c.html_url,
                    )?);
                    c
                }
                Item::IssueComment(issue) => {
                    let mut c = issue_comment(issue);
                    c.action_commands = Some(commands.conversation(
                        ConversationItem::IssueComment,
                        &c.body,
                        &c.html_url,
                    )?);
                    c
                }
            };
            comments.push(comment);
        }

        Ok(Output {
            pr: pr.to_string(),
            total_unresolved: open.counts.total,
            unresolved_threads: open.threads_with_items,
            limitations,
            comments,
            summary: Summary::from(&open.counts),
            next_cursor,
        })
    }

    /// Enough to act on without the structured content: per item who wrote it, where, its
    /// whole body (within the same budget, HTML comments left out) and the id to answer with.
    fn render(out: &Output) -> String {
        let mut text = format!(
            "{} unresolved item(s) on {} ({} unresolved thread(s)); {} in this page",
            out.total_unresolved,
            out.pr,
            out.unresolved_threads,
            out.comments.len()
        );
        if out.summary.minimized > 0 {
            text.push_str(&format!(
                "; {} minimized item(s) not counted",
                out.summary.minimized
            ));
        }
        if out.comments.is_empty() {
            return text;
        }
        text.push_str(
            ".\nAnswer a review_comment with reply_to_review_thread (thread_id); resolve its \
             thread with resolve_review_thread only after the fix is verified. Answer a review \
             or issue_comment with pr_comment_create. Each item: type id, author, place, then \
             its body.",
        );
        if let Some(limits) = &out.limitations {
            text.push_str(&format!("\nLimitations: {limits}"));
        }
        let mut threads_seen: HashSet<&str> = HashSet::new();
        for c in &out.comments {
            text.push_str(&format!(
                "\n\n### {} {} by {}",
                c.kind.as_str(),
                c.id,
                c.author
            ));
            if c.is_bot && !c.author.ends_with("[bot]") {
                text.push_str(" (bot)");
            }
            if let Some(path) = &c.file_path {
                text.push_str(&format!(" on {path}"));
                match (c.start_line, c.line_number) {
                    (Some(start), Some(end)) if start != end => {
                        text.push_str(&format!(":{start}-{end}"))
                    }
                    (_, Some(line)) => text.push_str(&format!(":{line}")),
                    _ => text.push_str(" (whole file)"),
                }
            }
            if c.line_is_original == Some(true) {
                text.push_str(" (outdated: line in the original diff)");
            } else if c.is_outdated == Some(true) {
                text.push_str(" (outdated)");
            }
            if let Some(state) = c.review_state {
                let state = match state {
                    ReviewState::ChangesRequested => "changes requested",
                    _ => "commented",
                };
                text.push_str(&format!(", {state}"));
            }
            if let Some(thread) = &c.thread_id {
                if threads_seen.insert(thread) {
                    text.push_str(&format!(", thread_id {thread}"));
                } else {
                    text.push_str(", reply in the same thread");
                }
            }
            if c.is_minimized == Some(true) {
                let why = c.minimized_reason.as_deref().unwrap_or("no reason given");
                text.push_str(&format!(" [minimized: {why}; not counted]"));
            }
            text.push('\n');
            text.push_str(&readable_body(&c.body));
        }
        text
    }
}

/// A body for reading as text: HTML comments (`<!-- … -->`, invisible where the forge renders
/// Markdown; bots keep state and fingerprints in them) are left out, and so are the blank
/// lines they leave. Everything shown on the forge stays, `<details>` blocks included: bots
/// put the substance there (CodeRabbit's fix prompts and suggestions).
fn readable_body(body: &str) -> String {
    // A comment the budget cut open runs up to the cut marker.
    let out = crate::shared::without_html_comments(body, "\n…[cut:");
    let mut text = String::with_capacity(out.len());
    let mut blank_run = 0;
    for line in out.trim().lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        text.push_str(line);
        text.push('\n');
    }
    let text = text.trim_end();
    if text.is_empty() {
        "(no text)".to_owned()
    } else {
        text.to_owned()
    }
}

fn cut_body(body: &str, html_url: &str) -> String {
    cut(body, BODY_BUDGET, html_url).text
}

/// The minimized flag and reason of an item, as the output shows them.
fn minimized_fields(m: Option<&Minimized>) -> (Option<bool>, Option<String>) {
    match m {
        Some(m) => (Some(true), m.reason.clone()),
        None => (None, None),
    }
}

pub(crate) fn review_comment(thread: &ReviewThread, c: &ReviewComment) -> Comment {
    // An outdated thread's line is gone from the current diff; the line it was written on
    // still says where to look, in the diff of its commit.
    let original = thread.line.is_none() && thread.original_line.is_some();
    let (line_number, start_line) = if original {
        (thread.original_line, thread.original_start_line)
    } else {
        (thread.line, thread.start_line)
    };
    let (is_minimized, minimized_reason) = minimized_fields(c.minimized.as_ref());
    Comment {
        id: c.id,
        kind: CommentType::ReviewComment,
        author: c.author.login.clone(),
        author_association: c.author_association.clone(),
        is_bot: c.author.is_bot,
        created_at: format_time(&c.created_at),
        updated_at: format_time(&c.updated_at),
        file_path: thread.path.clone(),
        line_number,
        start_line,
        line_is_original: original.then_some(true),
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
        is_minimized,
        minimized_reason,
        action_commands: None,
    }
}

fn review_item(r: &Review, submitted_at: String) -> Comment {
    let (is_minimized, minimized_reason) = minimized_fields(r.minimized.as_ref());
    Comment {
        id: r.id,
        kind: CommentType::Review,
        body: cut_body(&r.body, &r.html_url),
        author: r.author.login.clone(),
        author_association: r.author_association.clone(),
        is_bot: r.author.is_bot,
        created_at: submitted_at.clone(),
        updated_at: submitted_at,
        file_path: None,
        line_number: None,
        start_line: None,
        line_is_original: None,
        side: None,
        diff_hunk: None,
        commit_id: r.commit_id.clone(),
        in_reply_to_id: None,
        reactions: None,
        html_url: r.html_url.clone(),
        thread_id: None,
        is_outdated: None,
        review_state: Some(r.state),
        is_minimized,
        minimized_reason,
        action_commands: None,
    }
}

fn issue_comment(c: &IssueComment) -> Comment {
    let (is_minimized, minimized_reason) = minimized_fields(c.minimized.as_ref());
    Comment {
        id: c.id,
        kind: CommentType::IssueComment,
        body: cut_body(&c.body, &c.html_url),
        author: c.author.login.clone(),
        author_association: c.author_association.clone(),
        is_bot: c.author.is_bot,
        created_at: format_time(&c.created_at),
        updated_at: format_time(&c.updated_at),
        file_path: None,
        line_number: None,
        start_line: None,
        line_is_original: None,
        side: None,
        diff_hunk: None,
        commit_id: None,
        in_reply_to_id: None,
        reactions: None,
        html_url: c.html_url.clone(),
        thread_id: None,
        is_outdated: None,
        review_state: None,
        is_minimized,
        minimized_reason,
        action_commands: None,
    }
}

impl From<&Counts> for Summary {
    fn from(counts: &Counts) -> Self {
        Summary {
            total_comments: counts.total,
            by_author: counts.by_author.clone(),
            // All three types, always.
            by_type: ItemKind::ALL
                .into_iter()
                .map(|kind| {
                    let name = CommentType::from(kind).as_str().to_owned();
                    (name, counts.of_kind(kind))
                })
                .collect(),
            bot_comments: counts.bots,
            human_comments: counts.humans,
            with_reactions: counts.with_reactions,
            minimized: counts.minimized,
        }
    }
}

impl From<&review_feedback::SortKey> for SortKey {
    fn from(k: &review_feedback::SortKey) -> Self {
        SortKey {
            section: k.section,
            text: k.text.clone(),
            line: k.line,
            group_at: k.group_at,
            rank: k.rank,
            group: k.group.clone(),
            at: k.at,
            id: k.id,
        }
    }
}

impl From<SortKey> for review_feedback::SortKey {
    fn from(k: SortKey) -> Self {
        review_feedback::SortKey {
            section: k.section,
            text: k.text,
            line: k.line,
            group_at: k.group_at,
            rank: k.rank,
            group: k.group,
            at: k.at,
            id: k.id,
        }
    }
}
