//! `find_unresolved_comments` (seed 000, tool 2): the review feedback on a pull request that
//! still needs an answer (comments of unresolved review threads, review summaries, other
//! people's conversation comments) as data, with commands to reply and resolve, 20 a page.
//! Pages are keyset-based, so threads resolved or comments added between calls never shift them.

use std::collections::{BTreeMap, HashSet};

use resolve_pr_core::budget::{cut, cut_tail};
use resolve_pr_core::{PageSize, Result};
use resolve_pr_forge::{
    IssueComment, Minimized, Reactions, Review, ReviewComment, ReviewState, ReviewThread,
};
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
    /// Also "owner/repo/pull/123", "host/owner/repo#123" or the pull request's URL.
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

impl Entry {
    fn minimized(&self) -> bool {
        self.comment.is_minimized == Some(true)
    }
}

pub struct FindUnresolvedComments;

impl Tool for FindUnresolvedComments {
    const NAME: &'static str = "find_unresolved_comments";
    const TITLE: &'static str = "Find unresolved review feedback on a pull request";
    const DESCRIPTION: &'static str = "The review feedback on a pull request (GitHub, GitHub \
Enterprise, Forgejo or Gitea) that still needs an answer, as data with ready-to-run commands: you \
judge what each item asks. review_comment: every comment of each unresolved review thread \
(outdated ones too), grouped by thread, oldest first; review: summaries requesting changes or \
commenting, with a body; issue_comment: conversation comments. Reviews and conversation comments \
have no resolved state, so all are listed except the author's own; minimized ones are left out. \
Replies share their thread's action_commands through thread_id. Run a reply_command as \
`<reply_command> <<'EOF'`, a line {\"body\": \"...\"}, then EOF; run resolve_command only \
after the fix is verified.";
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
        let forge = ctx.forges.for_repo(&pr.repo)?;

        let feedback = forge.review_feedback(&pr).await?;
        // Probing (Forgejo/Gitea) tries the endpoints on a thread we already have.
        let capabilities = forge.thread_capabilities(&pr, &feedback.threads).await?;

        let filter = AuthorFilter::new(&input);
        let unresolved: Vec<&ReviewThread> =
            feedback.threads.iter().filter(|t| !t.is_resolved).collect();
        let mut entries = Vec::new();
        let mut threads_with_items = 0;
        for (index, thread) in unresolved.iter().enumerate() {
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
        for c in &feedback.issue_comments {
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
        if !input.include_minimized {
            entries.retain(|e| !e.minimized());
        }

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
                        comment.action_commands = Some(commands.thread(unresolved[index])?);
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
        if out.next_cursor.is_some() {
            text.push_str(" (more: call again with nextCursor)");
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
    const CUT_MARKER: &str = "\n…[cut:";
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        let inside = &rest[open + 4..];
        rest = match inside.find("-->") {
            Some(close) => &inside[close + 3..],
            None => match inside.find(CUT_MARKER) {
                Some(marker) => &inside[marker..],
                None => "",
            },
        };
    }
    out.push_str(rest);
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
        created_at: c.created_at.clone(),
        updated_at: c.updated_at.clone(),
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
        created_at: c.created_at.clone(),
        updated_at: c.updated_at.clone(),
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
        if e.minimized() {
            s.minimized += 1;
            continue;
        }
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
