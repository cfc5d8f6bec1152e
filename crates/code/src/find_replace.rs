//! Find and replace across a checkout (seed 002's `workspace.find_replace`), as data: the
//! matches, and a [`WorkspaceChange`] for the edit layer. Nothing is written here.
//!
//! - `literal` patterns match their text; `regex` patterns are the `regex` crate's syntax,
//!   and their replacement expands `$1` / `${name}`. A match spans lines only when the
//!   pattern says so (`\n`, `(?s)`).
//! - `whole_word` matches only between word boundaries.
//! - `preserve_case` keeps each match's case style. For an identifier pattern (letters,
//!   digits, `_` and `-`) every spelling of its words is matched, each replaced by the
//!   same spelling of the replacement's words: `foo_bar` → `baz_qux` also turns `FooBar`
//!   into `BazQux`, `fooBar` into `bazQux`, `FOO_BAR` into `BAZ_QUX` and `foo-bar` into
//!   `baz-qux` (a one-word pattern: `foo`, `Foo`, `FOO`). Any other pattern is matched
//!   without regard to case, and the replacement takes the match's case: all upper, all
//!   lower, or capitalized, else as given.
//! - Files: the checkout's, as git sees them (`.gitignore` honoured, `.git` skipped),
//!   within `path` and the `include`/`exclude` globs; binary files (a NUL in the first
//!   8 KiB), files not in UTF-8 and files over 4 MiB are skipped and counted.

use std::path::{Path, PathBuf};

use regex::{Regex, RegexBuilder};
use resolve_pr_source::{FileChange, LineIndex, TextEdit, TextRange, WorkspaceChange};

/// Files larger than this are not searched.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Files searched at most.
pub const MAX_FILES: usize = 50_000;

#[derive(Debug, Clone)]
pub struct Options {
    pub pattern: String,
    pub replacement: String,
    pub regex: bool,
    pub case_sensitive: bool,
    pub whole_word: bool,
    pub preserve_case: bool,
    /// Globs relative to the checkout's root: only files matching one (none: all).
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// Matches replaced at most; the rest are counted, not changed.
    pub limit: usize,
}

/// One match, as shown: 0-based line and UTF-16 column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    pub path: PathBuf,
    pub line: u32,
    pub character: u32,
    pub old: String,
    pub new: String,
}

#[derive(Debug, Clone, Default)]
pub struct Found {
    pub change: WorkspaceChange,
    /// The matches replaced, in file and position order.
    pub matches: Vec<Match>,
    /// Every match found, replaced or not (past `limit`).
    pub total: usize,
    pub files_searched: usize,
    pub skipped_binary: usize,
    pub skipped_large: usize,
    /// The search stopped at [`MAX_FILES`].
    pub files_cut: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FindError {
    #[error("pattern is empty: give the text (or regex) to find")]
    Empty,
    #[error("pattern is not a valid regex: {0}")]
    BadRegex(String),
    #[error(
        "pattern matches the empty string (at {0}), which would insert the replacement everywhere: make it match at least one character"
    )]
    MatchesEmpty(String),
    #[error("{0}: a glob that cannot be read")]
    BadGlob(String),
    #[error("{0} is not inside the checkout")]
    Outside(String),
}

/// The words of an identifier: split at `_`, `-` and case humps (`fooBar`, `HTTPServer`).
fn words(ident: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in ident.split(['_', '-']).filter(|p| !p.is_empty()) {
        let chars: Vec<char> = part.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            let hump = c.is_uppercase()
                && (prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                    || prev.is_some_and(char::is_uppercase)
                        && next.is_some_and(char::is_lowercase));
            if hump && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out.into_iter().map(|w| w.to_lowercase()).collect()
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|f| f.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// An identifier's spellings: snake, SCREAMING, camel, Pascal, kebab (one word: lower,
/// upper, capitalized), each once.
fn spellings(words: &[String]) -> Vec<String> {
    let mut out = vec![
        words.join("_"),
        words.join("_").to_uppercase(),
        words
            .iter()
            .enumerate()
            .map(|(i, w)| if i == 0 { w.clone() } else { capitalize(w) })
            .collect(),
        words.iter().map(|w| capitalize(w)).collect(),
        words.join("-"),
    ];
    let mut seen = std::collections::HashSet::new();
    out.retain(|s| seen.insert(s.clone()));
    out
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// The replacement in the case style of `matched`.
fn in_case_of(matched: &str, replacement: &str) -> String {
    let letters: Vec<char> = matched.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() {
        return replacement.to_owned();
    }
    if letters.iter().all(|c| c.is_uppercase()) && letters.len() > 1 {
        return replacement.to_uppercase();
    }
    if letters.iter().all(|c| c.is_lowercase()) {
        return replacement.to_lowercase();
    }
    if letters[0].is_uppercase() && letters[1..].iter().all(|c| c.is_lowercase()) {
        return capitalize(&replacement.to_lowercase());
    }
    replacement.to_owned()
}

enum Plan {
    /// One regex; replacement expanded (regex mode) or literal, then cased if asked.
    Plain { re: Regex, expand: bool, case: bool },
    /// Identifier spellings: the regex's alternatives, and the replacement for each.
    Spellings {
        re: Regex,
        map: Vec<(String, String)>,
    },
}

fn compile(opts: &Options) -> Result<Plan, FindError> {
    if opts.pattern.is_empty() {
        return Err(FindError::Empty);
    }
    let bounded = |body: String| {
        if opts.whole_word {
            format!(r"\b(?:{body})\b")
        } else {
            body
        }
    };
    if opts.preserve_case
        && !opts.regex
        && is_identifier(&opts.pattern)
        && is_identifier(&opts.replacement)
    {
        let from = spellings(&words(&opts.pattern));
        let to = spellings(&words(&opts.replacement));
        if from.len() == to.len() {
            let map: Vec<(String, String)> = from.into_iter().zip(to).collect();
            // Longest first, so `FOO_BAR` is not read as a shorter spelling.
            let mut alts: Vec<&String> = map.iter().map(|(f, _)| f).collect();
            alts.sort_by_key(|a| std::cmp::Reverse(a.len()));
            let body = alts
                .iter()
                .map(|a| regex::escape(a))
                .collect::<Vec<_>>()
                .join("|");
            let re = RegexBuilder::new(&bounded(body))
                .build()
                .map_err(|e| FindError::BadRegex(e.to_string()))?;
            return Ok(Plan::Spellings { re, map });
        }
    }
    let body = if opts.regex {
        opts.pattern.clone()
    } else {
        regex::escape(&opts.pattern)
    };
    let re = RegexBuilder::new(&bounded(body))
        .case_insensitive(!opts.case_sensitive || opts.preserve_case)
        .size_limit(1 << 24)
        .build()
        .map_err(|e| FindError::BadRegex(e.to_string()))?;
    Ok(Plan::Plain {
        re,
        expand: opts.regex,
        case: opts.preserve_case,
    })
}

/// Every match in `text`, with its replacement, at most `room` of them replaced.
fn find_in(
    plan: &Plan,
    opts: &Options,
    text: &str,
    path: &Path,
) -> Result<Vec<(TextRange, String)>, FindError> {
    let mut out = Vec::new();
    match plan {
        Plan::Plain { re, expand, case } => {
            for caps in re.captures_iter(text) {
                let m = caps.get(0).expect("a match has group 0");
                if m.is_empty() {
                    let at = LineIndex::new(text)
                        .position_utf8(m.start())
                        .map(|p| p.line + 1)
                        .unwrap_or(0);
                    return Err(FindError::MatchesEmpty(format!("{}:{at}", path.display())));
                }
                let mut new = String::new();
                if *expand {
                    caps.expand(&opts.replacement, &mut new);
                } else {
                    new.push_str(&opts.replacement);
                }
                if *case {
                    new = in_case_of(m.as_str(), &new);
                }
                out.push((TextRange::new(m.start(), m.end()), new));
            }
        }
        Plan::Spellings { re, map } => {
            for m in re.find_iter(text) {
                let new = map
                    .iter()
                    .find(|(f, _)| f == m.as_str())
                    .map(|(_, t)| t.clone())
                    .unwrap_or_else(|| opts.replacement.clone());
                out.push((TextRange::new(m.start(), m.end()), new));
            }
        }
    }
    Ok(out)
}

/// Files under `scope` (relative to `root`) as the search reads them, sorted.
fn files(root: &Path, scope: &Path, opts: &Options) -> Result<(Vec<PathBuf>, bool), FindError> {
    let walked = resolve_pr_source::Walk::checkout(root)
        .under(scope)
        .globs(&opts.include, &opts.exclude)
        .files(MAX_FILES, |_| true)
        .map_err(|e| FindError::BadGlob(e.glob))?;
    let files = walked
        .files
        .into_iter()
        .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_owned))
        .collect();
    Ok((files, walked.more))
}

/// Finds `opts.pattern` in the checkout at `root` (within `scope`, relative), and the
/// change that replaces the first `opts.limit` matches.
pub fn find_replace(root: &Path, scope: &Path, opts: &Options) -> Result<Found, FindError> {
    if scope.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    }) {
        return Err(FindError::Outside(scope.display().to_string()));
    }
    let plan = compile(opts)?;
    let (paths, files_cut) = files(root, scope, opts)?;
    let mut found = Found {
        files_cut,
        ..Found::default()
    };
    for rel in paths {
        let full = root.join(&rel);
        if std::fs::metadata(&full).map(|m| m.len()).unwrap_or(0) > MAX_FILE_BYTES {
            found.skipped_large += 1;
            continue;
        }
        let Ok(bytes) = std::fs::read(&full) else {
            continue;
        };
        if bytes[..bytes.len().min(8192)].contains(&0) {
            found.skipped_binary += 1;
            continue;
        }
        let Ok(text) = String::from_utf8(bytes) else {
            found.skipped_binary += 1;
            continue;
        };
        found.files_searched += 1;
        let hits = find_in(&plan, opts, &text, &rel)?;
        if hits.is_empty() {
            continue;
        }
        found.total += hits.len();
        let room = opts.limit.saturating_sub(found.matches.len());
        let index = LineIndex::new(&text);
        let mut edits = Vec::new();
        for (range, new) in hits.into_iter().take(room) {
            let at = index.position_utf16(range.start).unwrap_or_default();
            found.matches.push(Match {
                path: rel.clone(),
                line: at.line,
                character: at.col,
                old: text[range.start..range.end].to_owned(),
                new: new.clone(),
            });
            if text[range.start..range.end] != new {
                edits.push(TextEdit::replace(range, new));
            }
        }
        if !edits.is_empty() {
            found
                .change
                .changes
                .push(FileChange::Edit { path: rel, edits });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use resolve_pr_source::apply_edits;

    fn opts(pattern: &str, replacement: &str) -> Options {
        Options {
            pattern: pattern.into(),
            replacement: replacement.into(),
            regex: false,
            case_sensitive: true,
            whole_word: false,
            preserve_case: false,
            include: vec![],
            exclude: vec![],
            limit: 1000,
        }
    }

    fn replace(text: &str, o: &Options) -> String {
        let plan = compile(o).unwrap();
        let hits = find_in(&plan, o, text, Path::new("t")).unwrap();
        let edits: Vec<TextEdit> = hits
            .into_iter()
            .map(|(r, n)| TextEdit::replace(r, n))
            .collect();
        apply_edits(text, &edits).unwrap()
    }

    #[test]
    fn preserve_case_maps_every_spelling_of_an_identifier() {
        let o = Options {
            preserve_case: true,
            ..opts("foo_bar", "baz_qux")
        };
        let table = [
            ("foo_bar", "baz_qux"),
            ("FooBar", "BazQux"),
            ("fooBar", "bazQux"),
            ("FOO_BAR", "BAZ_QUX"),
            ("foo-bar", "baz-qux"),
            ("xfoo_barx", "xbaz_quxx"),
        ];
        for (from, to) in table {
            assert_eq!(replace(from, &o), to, "{from}");
        }
        let one = Options {
            preserve_case: true,
            ..opts("user", "account")
        };
        assert_eq!(replace("user User USER", &one), "account Account ACCOUNT");
        let camel = Options {
            preserve_case: true,
            ..opts("HTTPServer", "WebHost")
        };
        assert_eq!(
            replace("http_server HttpServer", &camel),
            "web_host WebHost"
        );
    }

    #[test]
    fn preserve_case_of_other_patterns_follows_the_match() {
        let o = Options {
            preserve_case: true,
            ..opts("old name", "new title")
        };
        assert_eq!(
            replace("old name, Old name, OLD NAME", &o),
            "new title, New title, NEW TITLE"
        );
    }

    #[test]
    fn regex_captures_whole_words_and_case() {
        let o = Options {
            regex: true,
            ..opts(r"(\w+)\.unwrap\(\)", "${1}.expect(\"$1\")")
        };
        assert_eq!(
            replace("a.unwrap() + b.unwrap()", &o),
            "a.expect(\"a\") + b.expect(\"b\")"
        );
        let w = Options {
            whole_word: true,
            ..opts("cat", "dog")
        };
        assert_eq!(
            replace("cat concat cat_x cat.", &w),
            "dog concat cat_x dog."
        );
        let i = Options {
            case_sensitive: false,
            ..opts("Cat", "dog")
        };
        assert_eq!(replace("cat CAT", &i), "dog dog");
        let lines = Options {
            regex: true,
            ..opts(r"a\nb", "ab")
        };
        assert_eq!(replace("a\nb a b", &lines), "ab a b");
    }

    #[test]
    fn bad_patterns_are_refused() {
        assert_eq!(compile(&opts("", "x")).err(), Some(FindError::Empty));
        assert!(matches!(
            compile(&Options {
                regex: true,
                ..opts("(", "x")
            }),
            Err(FindError::BadRegex(_))
        ));
        let empty = Options {
            regex: true,
            ..opts("a*", "x")
        };
        let plan = compile(&empty).unwrap();
        assert!(matches!(
            find_in(&plan, &empty, "bbb", Path::new("f")),
            Err(FindError::MatchesEmpty(_))
        ));
    }

    proptest! {
        #[test]
        fn a_literal_replace_equals_str_replace(text in "[ab\\n😀]{0,30}", pattern in "[ab😀]{1,3}", with in "[xy]{0,3}") {
            let o = opts(&pattern, &with);
            prop_assert_eq!(replace(&text, &o), text.replace(&pattern, &with));
        }
    }

    #[test]
    fn files_are_those_git_sees_and_binary_ones_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/gen")).unwrap();
        std::fs::write(root.join(".gitignore"), "gen/\n!keep.txt\n*.log\n").unwrap();
        std::fs::write(root.join("src/a.rs"), "old old").unwrap();
        std::fs::write(root.join("src/gen/b.rs"), "old").unwrap();
        std::fs::write(root.join("x.log"), "old").unwrap();
        std::fs::write(root.join("bin.dat"), b"old\0old").unwrap();
        std::fs::write(root.join("notes.md"), "old").unwrap();
        let found = find_replace(root, Path::new(""), &opts("old", "new")).unwrap();
        let touched: Vec<_> = found
            .change
            .changes
            .iter()
            .flat_map(|c| c.paths())
            .map(|p| p.display().to_string())
            .collect();
        assert_eq!(touched, ["notes.md", "src/a.rs"]);
        assert_eq!(found.total, 3);
        assert_eq!(found.skipped_binary, 1);
        let only = Options {
            include: vec!["*.rs".into()],
            limit: 1,
            ..opts("old", "new")
        };
        let found = find_replace(root, Path::new("src"), &only).unwrap();
        assert_eq!(
            (found.matches.len(), found.total),
            (1, 2),
            "the limit replaces one and counts both"
        );
        assert!(find_replace(root, Path::new("../x"), &opts("old", "new")).is_err());
    }
}
