//! Pieces several tools share: parsing the PR argument, the `user` error for invalid
//! arguments, and the comment shape agents see. Which repository and checkout a call targets
//! is `checkout`.

use resolve_pr_core::{Error, PrRef, Result};
use resolve_pr_forge::{Forge, IssueComment, ReviewThread, format_time};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `user` error for invalid arguments: every problem, one sentence each.
pub(crate) fn invalid(problems: Vec<String>) -> Error {
    Error::user(format!("Invalid request: {}", problems.join("; ")))
        .with_detail("problems", problems)
        .with_suggestion(
            "Fix every argument named in problems and call again. repository is 'owner/repo', \
             'host/owner/repo' or 'https://host/owner/repo'; directory is a local checkout whose \
             remote is the repository.",
        )
}

/// A conversation comment as the comment tools return it (seed 001's `PullRequestComment`,
/// plus the link and the author's account type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PullRequestComment {
    pub id: u64,
    /// Cut to 4000 bytes, with a marker.
    pub body: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub body_cut: bool,
    /// Author's login; `ghost`: a deleted account.
    pub user: String,
    /// The forge marks the account as a bot.
    pub is_bot: bool,
    /// GitHub only: OWNER, MEMBER, CONTRIBUTOR, NONE, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author_association: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub html_url: String,
}

/// How much of a comment's body the comment tools show: a page of 20 stays readable when
/// someone pasted a log into a comment.
pub(crate) const COMMENT_BODY_BYTES: usize = 4000;

impl From<IssueComment> for PullRequestComment {
    fn from(c: IssueComment) -> Self {
        let cut = resolve_pr_core::budget::cut(&c.body, COMMENT_BODY_BYTES, &c.html_url);
        PullRequestComment {
            id: c.id,
            body: cut.text,
            body_cut: cut.original_bytes.is_some(),
            user: c.author.login,
            is_bot: c.author.is_bot,
            author_association: c.author_association,
            created_at: format_time(&c.created_at),
            updated_at: format_time(&c.updated_at),
            html_url: c.html_url,
        }
    }
}

/// The first line of a body, cut for one-line text renderings.
pub fn first_line(body: &str, max_chars: usize) -> String {
    let line = body
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() > max_chars {
        let cut: String = line.chars().take(max_chars).collect();
        format!("{cut}…")
    } else if body.trim().lines().count() > 1 {
        format!("{line} …")
    } else {
        line.to_owned()
    }
}

/// Parses the `pr` argument (any form `PrRef` accepts) and reports it together with the other
/// `problems` found in the arguments, so an agent learns about every bad field at once.
pub fn pr_from_ref(pr: &str, mut problems: Vec<String>) -> Result<PrRef> {
    let parsed = match PrRef::parse(pr) {
        Ok(p) => Some(p),
        Err(e) => {
            problems.insert(0, format!("pr: {}", e.error));
            None
        }
    };
    let pr_is_bad = parsed.is_none();
    match (parsed, problems.is_empty()) {
        (Some(pr), true) => Ok(pr),
        _ => Err(Error::user(format!("Invalid request: {}", problems.join("; ")))
            .with_detail("problems", problems)
            .with_suggestion(if pr_is_bad {
                "pr is 'owner/repo#123', 'owner/repo/pull/123', 'host/owner/repo#123' or a pull \
                 request URL such as 'https://github.com/owner/repo/pull/123'."
            } else {
                "Fix the arguments named in problems and call again."
            })),
    }
}

/// `text` without its HTML comments (`<!-- … -->`): invisible where the forge renders
/// Markdown, bots keep state, markers and fingerprints in them. A comment left open (a cut
/// body) runs up to `stop` when it holds it, else to the end.
pub fn without_html_comments(text: &str, stop: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("<!--") {
        out.push_str(&rest[..open]);
        let inside = &rest[open + 4..];
        rest = match inside.find("-->") {
            Some(close) => &inside[close + 3..],
            None => match (!stop.is_empty()).then(|| inside.find(stop)).flatten() {
                Some(at) => &inside[at..],
                None => "",
            },
        };
    }
    out.push_str(rest);
    out
}

/// HTML tags Markdown comments use for layout: not shown themselves, their text is.
const LAYOUT_TAGS: &[&str] = &[
    "a",
    "b",
    "blockquote",
    "br",
    "code",
    "details",
    "div",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "kbd",
    "li",
    "ol",
    "p",
    "pre",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
];

/// `text` as a reader of the rendered Markdown sees it, roughly: without HTML comments,
/// Markdown's comment idiom (`[//]: # (…)` lines) and layout tags (their text stays). A `<`
/// that opens no known tag (`Vec<u8>`, `Result<A, B>`, `i<a && b> 0`) is kept, and so is
/// everything inside a code span.
fn visible_text(text: &str) -> String {
    let text = without_html_comments(text, "");
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if line.trim_start().starts_with("[//]: #") {
            continue;
        }
        // Between backticks is code: odd pieces stay as they are.
        for (i, piece) in line.split('`').enumerate() {
            if i > 0 {
                out.push('`');
            }
            if i % 2 == 1 {
                out.push_str(piece);
            } else {
                without_layout_tags(piece, &mut out);
            }
        }
        out.push('\n');
    }
    out
}

/// Appends `text` to `out` without its layout tags (`<sub>`, `</details>`, `<br/>`): a tag
/// name as HTML writes it (lowercase), then whitespace, `/` or `>`.
fn without_layout_tags(text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let body = after.strip_prefix('/').unwrap_or(after);
        let tag = LAYOUT_TAGS.iter().find(|t| {
            body.strip_prefix(**t)
                .and_then(|r| r.chars().next())
                .is_some_and(|c| c.is_whitespace() || c == '/' || c == '>')
        });
        match (tag, after.find('>')) {
            (Some(_), Some(close)) => {
                out.push(' ');
                rest = &after[close + 1..];
            }
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
}

/// `text` as the forge shows it ([`visible_text`]) with runs of whitespace collapsed, cut to
/// `max_chars` characters (with `…`), for quoting a comment inside a sentence.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let collapsed = visible_text(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if collapsed.chars().count() > max_chars {
        let cut: String = collapsed.chars().take(max_chars).collect();
        format!("{}…", cut.trim_end())
    } else {
        collapsed
    }
}

/// Which review thread a write tool acts on: its id, or the id of one of its comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadSelector {
    Thread(String),
    Comment(u64),
}

/// Checks that exactly one of `thread_id` and `comment_id` is given and well-formed; problems
/// go to `problems` so they are reported with the others.
pub fn thread_selector(
    thread_id: Option<&str>,
    comment_id: Option<i64>,
    problems: &mut Vec<String>,
) -> Option<ThreadSelector> {
    match (thread_id.map(str::trim), comment_id) {
        (Some(_), Some(_)) => {
            problems.push("give thread_id or comment_id, not both".to_owned());
            None
        }
        (None, None) => {
            problems.push(
                "give thread_id (from find_unresolved_comments) or comment_id (a review \
                 comment's numeric id)"
                    .to_owned(),
            );
            None
        }
        (Some(""), None) => {
            problems.push("thread_id must not be empty".to_owned());
            None
        }
        (Some(id), None) => Some(ThreadSelector::Thread(id.to_owned())),
        (None, Some(id)) if id <= 0 => {
            problems.push(format!("comment_id must be positive (got {id})"));
            None
        }
        (None, Some(id)) => Some(ThreadSelector::Comment(id as u64)),
    }
}

/// The thread a selector names, on this PR. The forge checks that a thread id belongs to the
/// PR; a comment id is looked up among the PR's threads.
pub async fn find_thread(
    forge: &dyn Forge,
    pr: &PrRef,
    selector: &ThreadSelector,
) -> Result<ReviewThread> {
    match selector {
        ThreadSelector::Thread(id) => Ok(forge.threads().review_thread(pr, id).await?),
        ThreadSelector::Comment(id) => {
            let threads = forge.threads().review_threads(pr).await?;
            threads
                .into_iter()
                .find(|t| t.comments.iter().any(|c| c.id == *id))
                .ok_or_else(|| {
                    Error::user(format!("no review comment with id {id} on {pr}"))
                        .with_detail("field", "comment_id")
                        .with_detail("value", *id)
                        .with_suggestion(
                            "comment_id is the numeric id of a comment in a review thread of \
                             this pull request (the id of a review_comment item of \
                             find_unresolved_comments); or pass its thread_id.",
                        )
                })
        }
    }
}

/// A commit id's first 7 characters, as git shows it.
pub fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// How an issue is named in output: `owner/repo#N` (or `host/owner/repo#N`), or where that
/// form does not parse back (another scheme, a sub-path install) the `/issues/N` URL, as
/// [`PrRef`]'s display does with `/pulls/N` for pull requests.
pub(crate) fn issue_ref(issue: &PrRef) -> String {
    let shown = issue.to_string();
    match shown.strip_suffix(&format!("/pulls/{}", issue.number)) {
        Some(repo) => format!("{repo}/issues/{}", issue.number),
        None => shown,
    }
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    /// Layout tags go, their text stays; generics, comparisons and code spans that look like
    /// tags are the comment's text.
    #[test]
    fn excerpts_keep_what_only_looks_like_a_tag() {
        for (body, want) in [
            ("<sub>critical</sub> <B>kept</B>", "critical <B>kept</B>"),
            (
                "returns Result<A, B> and PhantomData<P>",
                "returns Result<A, B> and PhantomData<P>",
            ),
            ("fn f<I: Iterator>(i: I)", "fn f<I: Iterator>(i: I)"),
            ("while i<a.len() && b> 0", "while i<a.len() && b> 0"),
            (
                "wrap it in `<details>` please<br/>",
                "wrap it in `<details>` please",
            ),
            (
                "<details><summary>Fix</summary>len - 1</details>",
                "Fix len - 1",
            ),
        ] {
            assert_eq!(excerpt(body, 200), want, "{body}");
        }
    }
}
