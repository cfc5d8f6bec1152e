//! The issues and pull requests a pull request's texts refer to.

use std::sync::LazyLock;

use regex::Regex;

/// An issue or pull request number, in another repository when `repo` is set.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IssueRef {
    /// `owner/name` when another repository than the one asked about.
    pub repo: Option<String>,
    pub number: u64,
}

/// What a set of texts refers to, each list without repeats, in first-seen order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct References {
    /// Issues a closing keyword names: merging the pull request closes them (on GitHub).
    pub closes: Vec<IssueRef>,
    /// Other issue or pull request references, not in `closes` or `pulls`.
    pub mentions: Vec<IssueRef>,
    /// References that are pull requests by their form.
    pub pulls: Vec<IssueRef>,
}

static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)",
        r"(?P<kw>\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+)?",
        r"(?P<pr>\b(?:pr|pull\s+request)\s+)?",
        r"(?:",
        r"(?P<url>https?://[^\s<>()\[\]]+)",
        r"|(?P<repo>[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+)?#(?P<n>[0-9]+)",
        r")",
    ))
    .unwrap_or_else(|e| unreachable!("reference pattern: {e}"))
});

static ISSUE_URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^https?://[^/\s]+/(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+)/(?P<kind>issues|pull|pulls)/(?P<n>[0-9]+)(?:[/?#][^\s]*)?$")
        .unwrap_or_else(|e| unreachable!("issue URL pattern: {e}"))
});

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Closes,
    Pull,
    Mention,
}

/// The references in `texts` (a title, a body, commit messages…), for the repository
/// `this_repo` (`owner/name`; its references come out with `repo: None`, compared
/// case-insensitively).
///
/// - A reference is `#N`, `owner/name#N`, or an issue or pull request URL of any host
///   (`…/owner/name/issues/N`, `…/pull/N`, `…/pulls/N`). `#N` must not follow a letter,
///   digit, `_`, `&` (`&#123;` is an HTML entity) or `/`, nor be followed by a letter,
///   digit or `_`; a URL is one token, so its `#fragment` is no reference.
/// - **closes**: a closing keyword (`close`, `closes`, `closed`, `fix`, `fixes`, `fixed`,
///   `resolve`, `resolves`, `resolved`; any case; an optional `:`) then an issue reference
///   (`#N`, `owner/name#N` or an issues URL), as GitHub reads them.
/// - **pulls**: `…/pull/N` and `…/pulls/N` URLs, and `PR #N` / `pull request #N` (any case).
/// - **mentions**: every other reference.
///
/// Skipped: fenced code blocks (```` ``` ```` or `~~~`), inline code spans and HTML
/// comments (indented code blocks are read as prose). A heading `# Title` is no reference
/// (no number follows the `#`).
pub fn references(texts: &[&str], this_repo: &str) -> References {
    let mut found: Vec<(Role, IssueRef)> = Vec::new();
    for text in texts {
        let prose = without_code(text);
        for caps in REFERENCE.captures_iter(&prose) {
            let keyword = caps.name("kw").is_some();
            let pr_word = caps.name("pr").is_some();
            if let Some(url) = caps.name("url") {
                let Some(u) = ISSUE_URL.captures(
                    url.as_str()
                        .trim_end_matches(['.', ',', ';', ':', '!', '?', '\'', '"']),
                ) else {
                    continue;
                };
                let Ok(number) = u["n"].parse::<u64>() else {
                    continue;
                };
                let repo = format!("{}/{}", &u["owner"], &u["name"]);
                let is_pull = &u["kind"] != "issues";
                let role = if is_pull || pr_word {
                    Role::Pull
                } else if keyword {
                    Role::Closes
                } else {
                    Role::Mention
                };
                found.push((role, issue_ref(Some(&repo), number, this_repo)));
                continue;
            }
            let Some(n) = caps.name("n") else { continue };
            let start = caps.name("repo").map_or(n.start() - 1, |r| r.start());
            let before = prose[..start].chars().next_back();
            if before
                .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '&' | '/' | '.' | '-'))
            {
                continue;
            }
            let after = prose[n.end()..].chars().next();
            if after.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let Ok(number) = n.as_str().parse::<u64>() else {
                continue;
            };
            if number == 0 {
                continue;
            }
            let role = if pr_word {
                Role::Pull
            } else if keyword {
                Role::Closes
            } else {
                Role::Mention
            };
            let repo = caps.name("repo").map(|r| r.as_str());
            found.push((role, issue_ref(repo, number, this_repo)));
        }
    }
    let mut out = References::default();
    for (role, r) in &found {
        let list = match role {
            Role::Closes => &mut out.closes,
            Role::Pull => &mut out.pulls,
            Role::Mention => continue,
        };
        if !list.contains(r) {
            list.push(r.clone());
        }
    }
    for (role, r) in found {
        if role == Role::Mention
            && !out.closes.contains(&r)
            && !out.pulls.contains(&r)
            && !out.mentions.contains(&r)
        {
            out.mentions.push(r);
        }
    }
    out
}

fn issue_ref(repo: Option<&str>, number: u64, this_repo: &str) -> IssueRef {
    let repo = repo
        .filter(|r| !r.eq_ignore_ascii_case(this_repo))
        .map(str::to_owned);
    IssueRef { repo, number }
}

/// `text` with fenced code blocks, inline code spans and HTML comments blanked out
/// (replaced by spaces, so what is around them stays apart).
fn without_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    let mut in_comment = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            out.push_str(&blank(line));
            continue;
        }
        if !in_comment && (trimmed.starts_with("```") || trimmed.starts_with("~~~")) {
            let marker: String = trimmed
                .chars()
                .take_while(|c| *c == '`' || *c == '~')
                .collect();
            fence = Some(marker);
            out.push_str(&blank(line));
            continue;
        }
        // Inline spans and comments, character by character.
        let mut rest = line;
        while !rest.is_empty() {
            if in_comment {
                match rest.find("-->") {
                    Some(i) => {
                        out.push_str(&blank(&rest[..i + 3]));
                        rest = &rest[i + 3..];
                        in_comment = false;
                    }
                    None => {
                        out.push_str(&blank(rest));
                        rest = "";
                    }
                }
                continue;
            }
            let comment = rest.find("<!--");
            let tick = rest.find('`');
            match (comment, tick) {
                (Some(c), t) if t.is_none_or(|t| c < t) => {
                    out.push_str(&rest[..c]);
                    in_comment = true;
                    rest = &rest[c..];
                }
                (_, Some(t)) => {
                    out.push_str(&rest[..t]);
                    let run = rest[t..].chars().take_while(|c| *c == '`').count();
                    let ticks = &rest[t..t + run];
                    match rest[t + run..].find(ticks) {
                        Some(end) => {
                            let span = &rest[t..t + run + end + run];
                            out.push_str(&blank(span));
                            rest = &rest[t + run + end + run..];
                        }
                        None => {
                            out.push_str(ticks);
                            rest = &rest[t + run..];
                        }
                    }
                }
                _ => {
                    out.push_str(rest);
                    rest = "";
                }
            }
        }
    }
    out
}

fn blank(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect()
}
