//! Lines of a diff worth a reviewer's attention, by fixed rules.

use std::sync::LazyLock;

use regex::Regex;

use super::category::{FileCategory, file_category};
use super::patch::{Line, hunks};

/// Why a line deserves attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FocusKind {
    /// Rust `unsafe`, Go's `unsafe` package, `dangerouslySetInnerHTML` / `innerHTML =`.
    Unsafe,
    /// Code run from data: `eval(`, `exec(`, `new Function(`, `pickle.load(s)`,
    /// `yaml.load(`, `os.system(`, `subprocess…(…shell=True`, `child_process` `exec(`,
    /// a shell spawned with `-c`.
    DynamicCode,
    /// An SQL statement built by concatenation or interpolation.
    SqlConcatenation,
    /// A credential-shaped literal (token prefixes, private keys, `password = "…"`).
    SecretLike,
    /// A test removed.
    RemovedTest,
    /// `TODO`, `FIXME`, `XXX` or `HACK` added.
    TodoAdded,
    /// A public declaration added or removed.
    PublicSignature,
    /// `unwrap()`, `expect(`, `panic!`, `unreachable!`, `todo!`, `unimplemented!` added in
    /// Rust outside tests.
    Panic,
}

impl FocusKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FocusKind::Unsafe => "unsafe",
            FocusKind::DynamicCode => "dynamic_code",
            FocusKind::SqlConcatenation => "sql_concatenation",
            FocusKind::SecretLike => "secret_like",
            FocusKind::RemovedTest => "removed_test",
            FocusKind::TodoAdded => "todo_added",
            FocusKind::PublicSignature => "public_signature",
            FocusKind::Panic => "panic",
        }
    }
}

/// One line of a diff worth attention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FocusPoint {
    pub kind: FocusKind,
    /// The line in the new file for an added line, in the old file for a removed one
    /// (counted from 0 when its hunk header has no line numbers).
    pub line: u32,
    pub removed: bool,
    /// The line, trimmed, at most [`EXCERPT_CHARS`] characters (cut ones end in `…`), with
    /// credential-shaped values masked.
    pub excerpt: String,
    /// The rule that matched, in words.
    pub reason: String,
}

/// The longest [`FocusPoint::excerpt`], in characters.
pub const EXCERPT_CHARS: usize = 160;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Rust,
    Go,
    Python,
    Js,
    Java,
    Ruby,
    Shell,
    Other,
}

fn lang_of(path: &str) -> Lang {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "rs" => Lang::Rust,
        "go" => Lang::Go,
        "py" | "pyi" => Lang::Python,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "vue" | "svelte" => Lang::Js,
        "java" | "kt" | "kts" | "scala" | "cs" | "swift" | "c" | "h" | "cc" | "cpp" | "hpp" => {
            Lang::Java
        }
        "rb" => Lang::Ruby,
        "sh" | "bash" | "zsh" | "yml" | "yaml" | "toml" => Lang::Shell,
        _ => Lang::Other,
    }
}

/// Whether the trimmed line is a comment in `lang`: `//`, `/*`, `*` continuation lines for
/// C-like languages (Rust, Go, JS/TS, Java, C#, C/C++, Kotlin, Swift); `#` for Python,
/// Ruby, shell, YAML and TOML.
fn is_comment(lang: Lang, trimmed: &str) -> bool {
    match lang {
        Lang::Rust | Lang::Go | Lang::Js | Lang::Java => {
            trimmed.starts_with("//")
                || trimmed.starts_with("/*")
                || trimmed == "*"
                || trimmed.starts_with("* ")
                || trimmed.starts_with("*/")
        }
        Lang::Python | Lang::Ruby | Lang::Shell => trimmed.starts_with('#'),
        Lang::Other => {
            trimmed.starts_with("//") || trimmed.starts_with("/*") || trimmed.starts_with('#')
        }
    }
}

fn re(pattern: &str) -> Regex {
    // The patterns are constants of this file; a test compiles every one.
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("focus pattern {pattern}: {e}"))
}

static TODO: LazyLock<Regex> = LazyLock::new(|| re(r"\b(TODO|FIXME|XXX|HACK)\b"));
static RUST_UNSAFE: LazyLock<Regex> = LazyLock::new(|| re(r"\bunsafe\b"));
static GO_UNSAFE: LazyLock<Regex> = LazyLock::new(|| re(r#"\bunsafe\.|"unsafe""#));
static JS_UNSAFE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"dangerouslySetInnerHTML|\.(innerHTML|outerHTML)\s*\+?=[^=]|document\.write\(")
});
static DYNAMIC: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"(^|[^\w.$])(eval|exec|execfile)\s*\(",
        r"|\bnew\s+Function\s*\(",
        r"|\bpickle\.loads?\s*\(|\bcPickle\.loads?\s*\(|\bmarshal\.loads\s*\(",
        r"|\byaml\.load\s*\(|\byaml\.unsafe_load\s*\(",
        r"|\bos\.(system|popen)\s*\(",
        r"|\bsubprocess\.\w+\s*\(.*\bshell\s*=\s*True",
        r"|\bchild_process\b|\bexecSync\s*\(|\.exec\s*\(\s*`",
        r#"|Command::new\s*\(\s*"(sh|bash|zsh|cmd|powershell)"|exec\.Command\s*\(\s*"(sh|bash|zsh)"\s*,\s*"-c""#,
        r#"|\bsetTimeout\s*\(\s*["'`]|\bsetInterval\s*\(\s*["'`]"#,
    ))
});
static SQL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(select\s+.+\s+from|insert\s+into|update\s+\w+\s+set|delete\s+from|drop\s+table|alter\s+table)\b",
    )
});
static BUILT: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r#"["'`]\s*\+|\+\s*["'`]"#,
        r#"|\$\{|\bf"[^"]*\{|\bf'[^']*\{|\.format\s*\("#,
        r#"|["']\s*%\s*[\w(]|\bSprintf\s*\(|\bformat!\s*\(|\bString\.format\s*\("#,
        r#"|\bconcat\s*\(|\|\|\s*\w"#,
    ))
});
static SECRET_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"\b(AKIA|ASIA)[0-9A-Z]{16}\b",
        r"|\b(ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{30,}",
        r"|\bgithub_pat_[A-Za-z0-9_]{40,}",
        r"|\bglpat-[A-Za-z0-9_-]{20,}",
        r"|\bxox[abposr]-[A-Za-z0-9-]{10,}",
        r"|\b(sk|rk)_(live|test)_[A-Za-z0-9]{16,}",
        r"|\bsk-[A-Za-z0-9_-]{32,}",
        r"|\bAIza[0-9A-Za-z_-]{35}",
        r"|-----BEGIN ([A-Z]+ )?PRIVATE KEY-----",
    ))
});
/// `password = "…"`, `"api_key": "…"`, `SECRET_TOKEN := "…"`: a quoted literal of 8 or more
/// characters assigned to a credential-named key.
static SECRET_ASSIGN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)(passw(or)?d|passwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|private[_-]?key|client[_-]?secret|\btoken)\w*["']?\s*(:=|=|:)\s*["']([^"'\s$<>{}]{8,})["']"#,
    )
});
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(x+|\*+|\.+|changeme|change_me|example\w*|placeholder|password\d*|secret|test\w*|dummy\w*|fake\w*|your[_-]\w+|redacted|none|null|todo)$",
    )
});
static RUST_PANIC: LazyLock<Regex> = LazyLock::new(|| {
    re(r"\.unwrap\(\)|\.expect\(|\b(panic|unreachable|todo|unimplemented)!\s*[(\[{]")
});
static RUST_TEST_MARK: LazyLock<Regex> =
    LazyLock::new(|| re(r"#\[(cfg\(test\)|([\w:]+::)?test\b)|\bmod tests?\b"));
static REMOVED_TEST: LazyLock<[(Lang, Regex); 6]> = LazyLock::new(|| {
    [
        (
            Lang::Rust,
            re(r"^#\[([\w:]+::)?test\b|^(pub\s+)?(async\s+)?fn\s+test_\w*\s*\("),
        ),
        (Lang::Python, re(r"^(async\s+)?def\s+test\w*\s*\(")),
        (
            Lang::Js,
            re(r"^(it|test)(\.(only|skip|each|concurrent|todo)[^(]*)?\s*\("),
        ),
        (
            Lang::Go,
            re(r"^func\s+(Test|Benchmark|Fuzz|Example)\w*\s*\("),
        ),
        (
            Lang::Java,
            re(r"^@(Test|ParameterizedTest)\b|^\[(Test|Fact|Theory)\b"),
        ),
        (Lang::Ruby, re(r#"^(it|test|specify)\s+["']|^def\s+test_"#)),
    ]
});
static PUBLIC_DECL: LazyLock<[(Lang, Regex); 4]> = LazyLock::new(|| {
    [
        (
            Lang::Rust,
            re(
                r"^pub\s+((async|const|unsafe|extern\s+\S+)\s+)*(fn|struct|enum|trait|type|const|static|mod|use|union|macro)\b",
            ),
        ),
        (Lang::Js, re(r"^export\s")),
        (
            Lang::Go,
            re(r"^(func\s+(\([^)]*\)\s*)?[A-Z]|type\s+[A-Z]|(const|var)\s+[A-Z])"),
        ),
        (Lang::Python, re(r"^(async\s+def|def|class)\s+[A-Za-z]")),
    ]
});

/// The lines of `patch` (a file's unified diff, from its first `@@`) worth attention, in
/// diff order. Only added and removed lines are read, numbered from the hunk headers.
///
/// Rules, for the file's language (by extension):
/// - Comment lines (`//`, `/*`, `* …` in C-like languages, `#` in Python, Ruby, shell,
///   YAML, TOML) are skipped for every kind but `TodoAdded` and `SecretLike`.
/// - `Unsafe`, `DynamicCode`, `SqlConcatenation`, `Panic` and `TodoAdded` read added lines.
///   `SqlConcatenation` needs an SQL statement (`SELECT … FROM`, `INSERT INTO`,
///   `UPDATE … SET`, `DELETE FROM`, `DROP TABLE`, `ALTER TABLE`) and concatenation or
///   interpolation (`+` beside a quote, `${`, f-strings, `.format(`, `%`, `Sprintf`,
///   `format!`) on the same line.
/// - `Panic` is Rust only, outside tests: not in a test file ([`file_category`]), and not
///   after a `#[test]`, `#[cfg(test)]` or `mod tests` line earlier in the same hunk or in
///   the hunk header's section.
/// - `SecretLike` reads added lines: well-known token shapes (AWS, GitHub, GitLab, Slack,
///   Stripe, OpenAI, Google API keys, private key blocks) and credential-named keys
///   assigned a quoted literal of 8+ characters that is not a placeholder.
/// - `RemovedTest` reads removed lines: `#[test]`/`#[tokio::test]`/`fn test_…` (Rust),
///   `def test…` (Python), `it(`/`test(` (JS/TS), `func TestX(` (Go), `@Test` (JVM),
///   `[Fact]`/`[Test]` (.NET), `it "…"`/`def test_` (Ruby).
/// - `PublicSignature` reads both: an unindented public declaration (`pub fn`, … but not
///   `pub(crate)` in Rust; `export` in JS/TS; an upper-case func, method, type, const or
///   var in Go; `def`/`class` not starting with `_` in Python).
///
/// A line may give several points, one per kind.
pub fn focus_points(path: &str, patch: &str) -> Vec<FocusPoint> {
    let lang = lang_of(path);
    let test_file = file_category(path) == FileCategory::Test;
    let mut out = Vec::new();
    for hunk in hunks(patch) {
        let mut in_tests = lang == Lang::Rust && RUST_TEST_MARK.is_match(hunk.section());
        for line in hunk.lines() {
            let (number, text, removed) = match line {
                Line::Added(n, t) => (n, t, false),
                Line::Removed(n, t) => (n, t, true),
                Line::Context(t) => {
                    in_tests |= lang == Lang::Rust && RUST_TEST_MARK.is_match(t);
                    continue;
                }
            };
            let trimmed = text.trim();
            if trimmed.is_empty() {
                continue;
            }
            let comment = is_comment(lang, trimmed);
            let mut point = |kind: FocusKind, reason: String| {
                out.push(FocusPoint {
                    kind,
                    line: number,
                    removed,
                    excerpt: excerpt(trimmed),
                    reason,
                });
            };
            if !removed {
                in_tests |= lang == Lang::Rust && RUST_TEST_MARK.is_match(trimmed);
                added(lang, trimmed, comment, test_file || in_tests, &mut point);
            } else if !comment && let Some(rule) = removed_test(lang, trimmed) {
                point(FocusKind::RemovedTest, format!("removes a test ({rule})"));
            }
            if !comment
                && !text.starts_with([' ', '\t'])
                && let Some(language) = public_declaration(lang, trimmed)
            {
                let verb = if removed { "removes" } else { "adds" };
                point(
                    FocusKind::PublicSignature,
                    format!("{verb} a public {language} declaration"),
                );
            }
        }
    }
    out
}

fn added(
    lang: Lang,
    line: &str,
    comment: bool,
    in_tests: bool,
    point: &mut impl FnMut(FocusKind, String),
) {
    if let Some(m) = TODO.find(line) {
        point(
            FocusKind::TodoAdded,
            format!("adds a {} marker", m.as_str()),
        );
    }
    if secret_like(line) {
        point(
            FocusKind::SecretLike,
            "adds a credential-shaped value (masked here)".to_owned(),
        );
    }
    if comment {
        return;
    }
    let unsafe_reason = match lang {
        Lang::Rust if RUST_UNSAFE.is_match(line) => Some("adds Rust `unsafe` code"),
        Lang::Go if GO_UNSAFE.is_match(line) => Some("uses Go's `unsafe` package"),
        Lang::Js if JS_UNSAFE.is_match(line) => Some("writes raw HTML into the page"),
        _ => None,
    };
    if let Some(reason) = unsafe_reason {
        point(FocusKind::Unsafe, reason.to_owned());
    }
    if let Some(m) = DYNAMIC.find(line) {
        let what = m
            .as_str()
            .trim_start_matches(|c: char| !c.is_alphanumeric() && c != '`');
        point(
            FocusKind::DynamicCode,
            format!("runs code or a shell from data (`{}`)", cut(what, 40)),
        );
    }
    if SQL.is_match(line) && BUILT.is_match(line) {
        point(
            FocusKind::SqlConcatenation,
            "builds an SQL statement by concatenation or interpolation".to_owned(),
        );
    }
    if lang == Lang::Rust
        && !in_tests
        && let Some(m) = RUST_PANIC.find(line)
    {
        let what = m.as_str().trim_end_matches(['(', '[', '{']);
        point(
            FocusKind::Panic,
            format!("can panic outside tests (`{what}`)"),
        );
    }
}

fn removed_test(lang: Lang, line: &str) -> Option<&'static str> {
    let rule = REMOVED_TEST.iter().find(|(l, _)| *l == lang)?;
    rule.1.is_match(line).then_some(match lang {
        Lang::Rust => "a Rust #[test] or test_ function",
        Lang::Python => "a Python test function",
        Lang::Js => "an it()/test() case",
        Lang::Go => "a Go Test/Benchmark/Fuzz/Example function",
        Lang::Java => "a test-annotated method",
        _ => "a Ruby test",
    })
}

fn public_declaration(lang: Lang, line: &str) -> Option<&'static str> {
    let rule = PUBLIC_DECL.iter().find(|(l, _)| *l == lang)?;
    rule.1.is_match(line).then_some(match lang {
        Lang::Rust => "Rust",
        Lang::Js => "JavaScript/TypeScript",
        Lang::Go => "Go",
        _ => "Python",
    })
}

fn secret_like(line: &str) -> bool {
    SECRET_TOKEN.is_match(line)
        || SECRET_ASSIGN
            .captures_iter(line)
            .any(|c| c.get(4).is_some_and(|v| !PLACEHOLDER.is_match(v.as_str())))
}

/// `line` with credential-shaped values masked: a token keeps its first 4 characters, an
/// assigned literal none.
pub(crate) fn mask_secrets(line: &str) -> String {
    let masked = SECRET_TOKEN.replace_all(line, |c: &regex::Captures<'_>| {
        let token = &c[0];
        if token.starts_with("-----BEGIN") {
            return token.to_owned();
        }
        let keep: String = token.chars().take(4).collect();
        format!("{keep}****")
    });
    SECRET_ASSIGN
        .replace_all(&masked, |c: &regex::Captures<'_>| {
            let whole = &c[0];
            match c.get(4) {
                Some(v) if !PLACEHOLDER.is_match(v.as_str()) => {
                    let start = v.start() - c.get(0).map_or(0, |m| m.start());
                    format!("{}****{}", &whole[..start], &whole[start + v.len()..])
                }
                _ => whole.to_owned(),
            }
        })
        .into_owned()
}

fn excerpt(trimmed: &str) -> String {
    cut(&mask_secrets(trimmed), EXCERPT_CHARS)
}

/// At most `max` characters: a longer text keeps `max - 1` and ends in `…`.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for r in [
            &*TODO,
            &*RUST_UNSAFE,
            &*GO_UNSAFE,
            &*JS_UNSAFE,
            &*DYNAMIC,
            &*SQL,
            &*BUILT,
            &*SECRET_TOKEN,
            &*SECRET_ASSIGN,
            &*PLACEHOLDER,
            &*RUST_PANIC,
            &*RUST_TEST_MARK,
        ] {
            let _ = r.is_match("");
        }
        assert_eq!(REMOVED_TEST.len(), 6);
        assert_eq!(PUBLIC_DECL.len(), 4);
    }

    #[test]
    fn masking_keeps_shape_but_not_value() {
        assert_eq!(
            mask_secrets(r#"let key = "AKIAIOSFODNN7EXAMPLE";"#),
            r#"let key = "AKIA****";"#
        );
        assert_eq!(
            mask_secrets(r#"DB_PASSWORD = "hunter2hunter2""#),
            r#"DB_PASSWORD = "****""#
        );
        assert_eq!(
            mask_secrets(r#"password = "changeme""#),
            r#"password = "changeme""#
        );
        assert_eq!(cut("ééé", 2), "é…");
    }
}
