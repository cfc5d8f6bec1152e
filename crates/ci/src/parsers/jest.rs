//! Jest's console reporter (default and `--verbose`), read line by line.
//!
//! A failing test is a `  ● describe › test` header inside a `FAIL <file>` section (the
//! section ends at the next `PASS`/`FAIL` line or any other unindented line: the summary,
//! another tool's output); the block under it (lines indented by 4 or more, and blank
//! lines) holds the message, a code frame and the stack. Naming convention: the header as
//! printed (`describe › nested › test`). The location is the first stack frame inside the
//! test file. `● Console` blocks are not tests; a test repeated by the `Summary of all
//! failing tests` is reported once.
//!
//! A file that failed to run at all (a syntax error, a missing import: `● Test suite failed
//! to run`, jest's JSON report has its `message` and no assertion results) is one failure
//! named by the file's path, located at the first `path:L:C` of the file in its message or
//! stack (a Babel syntax error says `SyntaxError: <path>: Unexpected token (L:C)`).
//!
//! Retries (`jest.retryTimes(n, {logErrorsBeforeRetry: true})`): right before a file's
//! `PASS`/`FAIL` header jest prints ` LOGGING RETRY ERRORS  <full name>` and one ` RETRY k `
//! block per failed attempt. A retried test that is not among the failures passed on a
//! retry: [`LineParser::flaky`] reports it. Jest names it there only by its full name (the
//! titles joined with spaces, its JSON report's `fullName`), so that is its flaky name.
//!
//! Streaming: the parser needs every line while inside a `FAIL` section (an unindented line
//! ends it); outside, it reads only lines with the trigger `FAIL` (jest colours it as
//! `\x1b[1m\x1b[31m FAIL \x1b[39m`, which leaves the word intact) or `ERROR` (`LOGGING RETRY
//! ERRORS`, after which it reads every line up to the file's header). `PASS` sections and
//! `●` headers outside a `FAIL` section never report anything, so they are not triggers.
//!
//! `pnpm -r` (parallel) puts `<package dir> <script>: ` before every line of a package's
//! output: the prefix of the last `FAIL` line seen behind one is read through, and jest's
//! paths (relative to the package) are joined to the package directory.
//!
//! Vitest output never has `●` headers, and its `FAIL` lines name `file > test`, so this parser
//! leaves it alone. The helpers at the bottom are shared with the vitest and mocha parsers.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::cargo_test::{Joined, push_capped};
use super::{LineParser, MAX_FAILURES, bounded_str, relative_path};
use crate::{Confidence, Failure, FlakyTest, Framework};

/// Longest error message kept, in bytes.
pub(crate) const MAX_MESSAGE: usize = 2000;
/// Longest stack excerpt kept, in bytes.
pub(crate) const MAX_STACK: usize = 4000;

/// The substrings (in the raw log) of every line this parser reads while not busy.
pub const TRIGGERS: &[&str] = &["FAIL", "ERROR"];

/// Retried tests remembered at most.
const MAX_RETRIED: usize = 5000;

static SUITE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s{0,2}(FAIL|PASS)\s+(\S+\.[A-Za-z]+)(?:\s+\(\d[^)]*\))?\s*$").expect("regex")
});
static CODE_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*>?\s*\d+ \|").expect("regex"));
/// pnpm's `-r` prefix: `packages/web test: `.
static PNPM_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+) ([^\s:]+): ").expect("regex"));
static RETRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s?RETRY (\d+)\s*$").expect("regex"));

/// One `●` block being read.
struct Block {
    offset: u64,
    name: String,
    file: String,
    message: Trimmed,
    stack: Joined,
    in_message: bool,
    line: Option<u64>,
    /// `● Test suite failed to run`: named by the file.
    suite_error: bool,
    /// The package directory of a pnpm `-r` run: jest's paths are relative to it.
    dir: Option<String>,
}

/// A test whose failed attempts jest logged before retrying it.
struct Retried {
    offset: u64,
    full_name: String,
    /// The highest `RETRY k`.
    retries: u32,
    message: Trimmed,
    in_message: bool,
    /// The first stack frame outside `node_modules`.
    frame: Option<(String, u64)>,
    /// The file of the `PASS`/`FAIL` header after the retry logs.
    file: Option<String>,
}

/// The jest parser. See the module documentation.
#[derive(Default)]
pub struct Jest {
    /// The file of the `FAIL` section lines are in.
    suite: Option<String>,
    prefix: PnpmPrefix,
    block: Option<Block>,
    seen: HashSet<(String, String)>,
    out: Vec<(u64, Failure)>,
    /// Retry logs not yet followed by their file's header.
    pending: Vec<Retried>,
    retried: Vec<Retried>,
}

impl Jest {
    pub fn new() -> Self {
        Self::default()
    }

    fn end_block(&mut self) {
        let Some(b) = self.block.take() else {
            return;
        };
        if self.out.len() < MAX_FAILURES {
            self.out.push((b.offset, b.failure()));
        }
    }

    fn header(&mut self, offset: u64, name: &str) {
        let Some(file) = &self.suite else {
            return;
        };
        if name == "Console" || name.is_empty() {
            return;
        }
        let dir = self.prefix.dir().map(str::to_owned);
        let full = in_dir(dir.as_deref(), file);
        let suite_error = name.starts_with("Test suite failed to run");
        let name = if suite_error { full.as_str() } else { name };
        if self.seen.len() >= MAX_FAILURES || !self.seen.insert((name.to_owned(), full.clone())) {
            return;
        }
        self.block = Some(Block {
            dir,
            offset,
            name: name.to_owned(),
            file: file.clone(),
            message: Trimmed::new(MAX_MESSAGE),
            stack: Joined::new(MAX_STACK),
            in_message: true,
            line: None,
            suite_error,
        });
    }

    /// A line while retry logs wait for their file's header; false when it ended them.
    fn retry_line(&mut self, offset: u64, line: &str) -> bool {
        let t = line.trim_start();
        if let Some(name) = t.strip_prefix("LOGGING RETRY ERRORS ") {
            self.retry_start(offset, name);
            return true;
        }
        let Some(r) = self.pending.last_mut() else {
            return false;
        };
        if let Some(c) = RETRY.captures(line) {
            r.retries = r.retries.max(c[1].parse().unwrap_or(u32::MAX));
            return true;
        }
        if line.trim().is_empty() || indent(line) >= 4 {
            if t.starts_with("at ") || line.contains('|') && CODE_FRAME.is_match(line) {
                r.in_message = false;
                if r.frame.is_none() {
                    r.frame = frame(line).filter(|(p, _)| !p.contains("node_modules/"));
                }
            } else if r.in_message && r.retries <= 1 {
                r.message.push(line.get(4..).unwrap_or(t));
            }
            return true;
        }
        // The file's header (or anything else unindented) ends the retry logs.
        let file = SUITE
            .captures(line)
            .filter(|_| line.len() - t.len() <= 2)
            .map(|c| relative_path(&c[2]));
        for mut r in self.pending.drain(..) {
            r.file = file.clone();
            if self.retried.len() < MAX_RETRIED {
                self.retried.push(r);
            }
        }
        false
    }

    fn retry_start(&mut self, offset: u64, name: &str) {
        if self.pending.len() >= MAX_RETRIED {
            return;
        }
        self.pending.push(Retried {
            offset,
            full_name: name.trim().to_owned(),
            retries: 0,
            message: Trimmed::new(MAX_MESSAGE),
            in_message: true,
            frame: None,
            file: None,
        });
    }
}

impl LineParser for Jest {
    fn line(&mut self, offset: u64, line: &str) {
        let line = self.prefix.strip(line, |rest| {
            let t = rest.trim_start();
            t.starts_with("FAIL") && rest.len() - t.len() <= 2 && SUITE.is_match(rest)
        });
        if (!self.pending.is_empty() || line.contains("LOGGING RETRY ERRORS "))
            && self.retry_line(offset, line)
        {
            return;
        }
        let blank = line.trim().is_empty();
        if let Some(b) = &mut self.block {
            if blank || indent(line) >= 4 {
                b.line(line);
                return;
            }
            self.end_block();
        }
        let t = line.trim_start();
        if (t.starts_with("FAIL") || t.starts_with("PASS"))
            && line.len() - t.len() <= 2
            && let Some(c) = SUITE.captures(line)
        {
            self.suite = (&c[1] == "FAIL").then(|| relative_path(&c[2]));
            return;
        }
        if let Some(name) = line.strip_prefix("  ● ") {
            self.header(offset, name.trim());
            return;
        }
        if !blank && !line.starts_with(' ') {
            // Summary lines and other tools' output end the suite.
            self.suite = None;
        }
    }

    fn busy(&self) -> bool {
        self.suite.is_some() || self.block.is_some() || !self.pending.is_empty()
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.end_block();
        self.retried.append(&mut self.pending);
        // Retried tests that failed in the end are failures, not flaky.
        let failed: HashSet<String> = self
            .out
            .iter()
            .map(|(_, f)| f.test_name.replace(" › ", " "))
            .collect();
        self.retried
            .retain(|r| r.retries > 0 && !failed.contains(&r.full_name));
        std::mem::take(&mut self.out)
    }

    fn flaky(&mut self) -> Vec<(u64, FlakyTest)> {
        let mut seen = HashSet::new();
        std::mem::take(&mut self.retried)
            .into_iter()
            .filter(|r| seen.insert(r.full_name.clone()))
            .map(|r| {
                let line = r
                    .frame
                    .filter(|(p, _)| r.file.as_deref() == Some(p.as_str()))
                    .map(|(_, n)| n);
                let message = r.message.text();
                (
                    r.offset,
                    FlakyTest {
                        test_name: r.full_name,
                        framework: Framework::Jest,
                        file_path: r.file,
                        line_number: line,
                        failed_attempts: Some(r.retries),
                        attempts: Some(r.retries.saturating_add(1)),
                        error_message: (!message.is_empty()).then_some(message),
                    },
                )
            })
            .collect()
    }
}

impl Block {
    fn line(&mut self, l: &str) {
        let t = l.trim_start();
        if self.in_message && (t.starts_with("at ") || l.contains('|') && CODE_FRAME.is_match(l)) {
            self.in_message = false;
        }
        if self.in_message {
            self.message.push(l.get(4..).unwrap_or(t));
            if self.suite_error && self.line.is_none() {
                self.line = message_location(l, &self.file);
            }
        } else if !t.is_empty() {
            let s = l.trim_end();
            self.stack.push(s);
            if self.line.is_none() {
                self.line = frame(s).filter(|(p, _)| *p == self.file).map(|(_, n)| n);
            }
        }
    }

    fn failure(self) -> Failure {
        let message = self.message.text();
        let name = self.name;
        let file = in_dir(self.dir.as_deref(), &self.file);
        let line = self.line;
        let pattern = escape_regex(&name.replace(" › ", " "));
        let reproduce_command = if self.suite_error {
            crate::reproduce::jest_file(&file)
        } else {
            crate::reproduce::jest(Some(&file), &pattern)
        };
        Failure {
            reproduce_command,
            test_name: name,
            file_path: Some(file),
            line_number: line,
            error_type: Some(error_type(&message)),
            error_message: message,
            stack_trace: (!self.stack.is_empty()).then(|| self.stack.text()),
            confidence: if line.is_some() {
                Confidence::High
            } else {
                Confidence::Medium
            },
            framework: Framework::Jest,
        }
    }
}

/// pnpm's `-r` prefix (`<package dir> <script>: `) of the last `FAIL` line seen behind one
/// (jest's or vitest's): lines behind it are read without it. Learnt from `FAIL` lines only,
/// which are always delivered, so skipping idle lines changes nothing.
#[derive(Default)]
pub(crate) struct PnpmPrefix {
    prefix: String,
    dir: Option<String>,
}

impl PnpmPrefix {
    /// `line` without the prefix; `fail_line` says whether the rest of a prefixed line with
    /// `FAIL` is the framework's (then its prefix is learnt).
    pub(crate) fn strip<'a>(&mut self, line: &'a str, fail_line: impl Fn(&str) -> bool) -> &'a str {
        // `contains(": ")` first: the prefix needs it, and most lines with `FAIL` lack it.
        if line.contains("FAIL")
            && !line.starts_with(' ')
            && line.contains(": ")
            && let Some(c) = PNPM_PREFIX.captures(line)
        {
            let whole = c.get(0).map_or(0, |m| m.end());
            if fail_line(&line[whole..]) {
                self.prefix = line[..whole].to_owned();
                self.dir = Some(relative_path(&c[1]));
            }
        }
        if !self.prefix.is_empty() && line.starts_with(&self.prefix) {
            &line[self.prefix.len()..]
        } else {
            line
        }
    }

    /// The package directory of the prefix, once one was learnt.
    pub(crate) fn dir(&self) -> Option<&str> {
        self.dir.as_deref()
    }
}

/// `file` (as the framework printed it) inside a pnpm package directory, if any.
pub(crate) fn in_dir(dir: Option<&str>, file: &str) -> String {
    match dir {
        Some(d) if d != "." && !d.is_empty() && !file.starts_with('/') => format!("{d}/{file}"),
        _ => file.to_owned(),
    }
}

/// The line of `file` an error message names: `<path>:L:C`, or Babel's
/// `<path>: message (L:C)`.
pub(crate) fn message_location(line: &str, file: &str) -> Option<u64> {
    if !line.contains(':') {
        return None;
    }
    let number = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    for token in line.split_whitespace() {
        let token = token
            .trim_start_matches(['\'', '"', '('])
            .trim_end_matches(['\'', '"', ')', ',']);
        if let Some(path) = token.strip_suffix(':') {
            // Babel: `<path>: Unexpected token (L:C)`.
            if relative_path(path) == file
                && let Some((_, tail)) = line.trim_end().rsplit_once('(')
                && let Some((l, c)) = tail.strip_suffix(')').and_then(|t| t.split_once(':'))
                && number(c).is_some()
            {
                return number(l);
            }
            continue;
        }
        let mut parts = token.rsplitn(3, ':');
        if let (Some(c), Some(l), Some(path)) = (parts.next(), parts.next(), parts.next())
            && number(c).is_some()
            && relative_path(path.strip_prefix("file://").unwrap_or(path)) == file
        {
            return number(l);
        }
    }
    None
}

/// Lines joined with `\n` and trimmed, of which only what [`bounded_str`] keeps is stored:
/// leading whitespace is dropped, trailing whitespace held until more text follows.
pub(crate) struct Trimmed {
    text: String,
    held: String,
    lines: usize,
    cap: usize,
}

impl Trimmed {
    pub(crate) fn new(cap: usize) -> Self {
        Trimmed {
            text: String::new(),
            held: String::new(),
            lines: 0,
            cap,
        }
    }

    pub(crate) fn push(&mut self, line: &str) {
        if self.lines > 0 {
            self.push_str("\n");
        }
        self.push_str(line);
        self.lines += 1;
    }

    fn push_str(&mut self, s: &str) {
        if self.text.len() > self.cap {
            return;
        }
        let body = s.trim_end();
        if body.is_empty() {
            if !self.text.is_empty() {
                push_capped(&mut self.held, s, self.cap);
            }
            return;
        }
        let body = if self.text.is_empty() {
            body.trim_start()
        } else {
            push_capped(&mut self.text, &self.held, self.cap);
            self.held.clear();
            body
        };
        push_capped(&mut self.text, body, self.cap);
        push_capped(&mut self.held, &s[s.trim_end().len()..], self.cap);
    }

    /// Nothing but blanks pushed yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The trimmed text, cut to the cap.
    pub(crate) fn text(&self) -> String {
        bounded_str(&self.text, self.cap)
    }
}

/// The error's type from the first line of a JS test failure message.
pub(crate) fn error_type(message: &str) -> String {
    static TYPE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:Uncaught )?([A-Z][A-Za-z0-9_$]*(?:Error|Exception))\b").expect("regex")
    });
    let first = message
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if let Some(c) = TYPE.captures(first) {
        c[1].to_owned()
    } else if first.starts_with("expect(") {
        "AssertionError".to_owned()
    } else if first.contains("Exceeded timeout")
        || first.contains("Timeout of ")
        || first.contains("timed out")
    {
        "Timeout".to_owned()
    } else {
        "Error".to_owned()
    }
}

/// `(repository-relative path, line)` of a stack frame line: `at f (path:L:C)`, `at path:L:C`,
/// or vitest's `❯ f path:L:C`. `file://` URLs are accepted.
pub(crate) fn frame(line: &str) -> Option<(String, u64)> {
    let (path, line) = frame_location(line)?;
    Some((relative_path(path), line))
}

/// A stack frame's location: `at fn (path:12:5)`, `at path:12:5`, `❯ fn path:12:5`, with an
/// optional `file://`. What the regex
/// `^\s*(?:at |❯ )(?:.*? \(|\S+ )?(?:file://)?([^\s()]+?):(\d+):(\d+)\)?\s*$` captures,
/// without a regex: frames are most of a JavaScript failure's lines.
fn frame_location(line: &str) -> Option<(&str, u64)> {
    let t = line.trim();
    let rest = t.strip_prefix("at ").or_else(|| t.strip_prefix("❯ "))?;
    let inner = rest.strip_suffix(')').unwrap_or(rest);
    // The location is the last run of characters that are neither blank nor parentheses.
    let start = inner
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace() || *c == '(' || *c == ')')
        .map_or(0, |(i, c)| i + c.len_utf8());
    let (before, loc) = inner.split_at(start);
    // Before it: nothing, one word and a blank (`❯ fn path`), or anything and ` (`.
    let word = before
        .strip_suffix(' ')
        .is_some_and(|w| !w.is_empty() && !w.contains(char::is_whitespace));
    if !(before.is_empty() || word || before.ends_with(" (")) {
        return None;
    }
    let loc = loc.strip_prefix("file://").unwrap_or(loc);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (rest, column) = loc.rsplit_once(':')?;
    let (path, line) = rest.rsplit_once(':')?;
    if path.is_empty() || !digits(line) || !digits(column) {
        return None;
    }
    Some((path, line.parse().ok()?))
}

/// `s` as a regular expression matching itself (jest's `-t`, vitest's `-t`, mocha's `--grep`).
pub(crate) fn escape_regex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub(crate) fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written frame parser takes what the regex it replaced would.
    #[test]
    fn frame_locations_match_the_regex() {
        let re =
            Regex::new(r"^\s*(?:at |❯ )(?:.*? \(|\S+ )?(?:file://)?([^\s()]+?):(\d+):(\d+)\)?\s*$")
                .unwrap();
        for line in [
            "    at Object.<anonymous> (/home/runner/work/r/r/src/a.test.js:12:5)",
            "    at a.test.js:3:9",
            "      at async Promise.all (index 0)",
            "    at new Foo (src/foo.ts:1:2)",
            " ❯ src/math.test.ts:14:20",
            " ❯ add src/math.ts:3:9",
            "    at fn (file:///tmp/x.mjs:4:1)",
            "    at fn two words src/a.js:1:2",
            "    at (a.js:1:2)",
            "    at a.js:1:",
            "    at a.js::2",
            "    at :1:2",
            "    at fn (a b.js:1:2)",
            "    at fn (a.js:1:2) ",
            "at x",
            "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
            "    at é (src/é.js:7:1)",
        ] {
            let want = re
                .captures(line)
                .map(|c| (c.get(1).unwrap().as_str(), c[2].parse::<u64>().unwrap()));
            assert_eq!(frame_location(line), want, "{line:?}");
        }
    }

    fn parse(log: &str) -> Vec<Failure> {
        crate::parse_log(log.as_bytes())
            .into_iter()
            .filter(|f| f.framework == Framework::Jest)
            .collect()
    }

    const LOG: &str = "\
FAIL src/cart.test.js (5.2 s)
  ● Console

    console.error
      Error: noisy

      at Object.error (src/cart.test.js:36:13)

  ● cart › totals › sums line items

    expect(received).toBe(expected) // Object.is equality

    Expected: 12
    Received: 11

    > 14 |       expect(total(items)).toBe(12);
         |                            ^

      at Object.toBe (src/cart.test.js:14:28)

  ● cart › parses amount abc as 0

    RangeError: not an amount: \"abc\"

      at parseAmount (helpers/parse.js:8:11)
      at parseAmount (/home/runner/work/w/w/src/cart.test.js:28:12)

PASS src/ok.test.js
  ● Console

    console.error
      Error: handles error

Test Suites: 1 failed, 1 passed, 2 total
";

    #[test]
    fn headers_in_fail_sections_are_failures() {
        let found = parse(LOG);
        let names: Vec<_> = found.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cart › totals › sums line items",
                "cart › parses amount abc as 0"
            ]
        );
        let f = &found[0];
        assert_eq!(f.file_path.as_deref(), Some("src/cart.test.js"));
        assert_eq!(f.line_number, Some(14));
        assert_eq!(f.error_type.as_deref(), Some("AssertionError"));
        assert!(f.error_message.contains("Received: 11"));
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("npx jest src/cart.test.js -t 'cart totals sums line items'")
        );
        let g = &found[1];
        assert_eq!(g.line_number, Some(28));
        assert_eq!(g.error_type.as_deref(), Some("RangeError"));
    }

    #[test]
    fn vitest_output_is_not_claimed() {
        let log = " FAIL  src/a.test.ts > suite > fails\nAssertionError: expected 1 to be 2\n ❯ src/a.test.ts:3:5\n";
        assert!(parse(log).is_empty());
    }

    #[test]
    fn a_summary_repeat_is_merged() {
        let twice = format!("{LOG}\nSummary of all failing tests\n{LOG}");
        assert_eq!(parse(&twice).len(), 2);
    }

    #[test]
    fn not_busy_after_a_fail_section_and_the_failures_stay() {
        let mut p = Jest::new();
        for (i, line) in LOG.lines().enumerate() {
            p.line(i as u64, line);
        }
        for i in 0..10_000 {
            p.line(1_000 + i, "npm warn noise");
            assert!(!p.busy(), "busy at noise line {i}");
        }
        let found = p.finish();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].1.line_number, Some(14));
    }

    /// Real jest 29 output: two files that failed to run (a missing module, a syntax error).
    const SUITE_ERRORS: &str = "\
FAIL jest/broken-import.test.js
  ● Test suite failed to run

    Cannot find module '../helpers/does-not-exist' from 'jest/broken-import.test.js'

      1 | // Imports a module that does not exist.
    > 2 | const { missing } = require('../helpers/does-not-exist');
        |                     ^

      at Resolver._throwModNotFoundError (node_modules/jest-resolve/build/resolver.js:427:11)
      at Object.require (jest/broken-import.test.js:2:21)

FAIL jest/broken-syntax.test.js
  ● Test suite failed to run

    Jest encountered an unexpected token

    Details:

    SyntaxError: /home/runner/work/w/w/jest/broken-syntax.test.js: Unexpected token (4:18)

      3 |   test('never runs', () => {
    > 4 |     const total = ;
        |                   ^

      at constructor (node_modules/@babel/parser/src/parse-error.ts:96:45)

Test Suites: 2 failed, 2 total
";

    #[test]
    fn a_file_that_failed_to_run_is_one_failure_named_by_its_path() {
        let found = parse(SUITE_ERRORS);
        let got = super::super::named_at(&found);
        assert_eq!(
            got,
            [
                (
                    "jest/broken-import.test.js",
                    Some("jest/broken-import.test.js"),
                    Some(2)
                ),
                (
                    "jest/broken-syntax.test.js",
                    Some("jest/broken-syntax.test.js"),
                    Some(4)
                ),
            ]
        );
        assert!(found[0].error_message.contains("Cannot find module"));
        assert_eq!(
            found[1].reproduce_command.as_deref(),
            Some("npx jest jest/broken-syntax.test.js")
        );
    }

    #[test]
    fn message_locations() {
        let f = "jest/a.test.js";
        for (line, want) in [
            (
                "SyntaxError: /home/runner/work/w/w/jest/a.test.js: Unexpected token (4:18)",
                Some(4),
            ),
            (
                "At file: /home/runner/work/w/w/jest/a.test.js:6:18",
                Some(6),
            ),
            ("Error in 'jest/a.test.js:9:1'", Some(9)),
            (
                "SyntaxError: jest/other.test.js: Unexpected token (4:18)",
                None,
            ),
            ("Cannot find module 'x' from 'jest/a.test.js'", None),
            ("jest/a.test.js: no location", None),
        ] {
            assert_eq!(message_location(line, f), want, "{line}");
        }
    }

    /// Real jest 29 output with `jest.retryTimes(2, {logErrorsBeforeRetry: true})`.
    const RETRIES: &str = "
 LOGGING RETRY ERRORS  retried passes on the second attempt
 RETRY 1 

    expect(received).toBeGreaterThan(expected)

    Expected: > 1
    Received:   1

    > 7 |     expect(attempt('jest-flaky-second')).toBeGreaterThan(1);
        |                                          ^

      at Object.toBeGreaterThan (jest/flaky.test.js:7:42)

 LOGGING RETRY ERRORS  retried fails on every attempt
 RETRY 1 

    expect(received).toBe(expected) // Object.is equality

      at Object.toBe (jest/flaky.test.js:12:19)

 RETRY 2 

    expect(received).toBe(expected) // Object.is equality

      at Object.toBe (jest/flaky.test.js:12:19)

FAIL jest/flaky.test.js
  ● retried › fails on every attempt

    expect(received).toBe(expected) // Object.is equality

      at Object.toBe (jest/flaky.test.js:12:19)

Tests:       1 failed, 1 passed, 2 total
";

    #[test]
    fn a_test_that_passed_on_a_retry_is_flaky_not_failed() {
        let report = {
            let mut s = crate::Scanner::new();
            s.feed(RETRIES.as_bytes());
            s.finish()
        };
        let failed: Vec<_> = report.failures().into_iter().map(|f| f.test_name).collect();
        assert_eq!(failed, ["retried › fails on every attempt"]);
        assert_eq!(report.flaky.len(), 1);
        let f = &report.flaky[0];
        assert_eq!(f.test_name, "retried passes on the second attempt");
        assert_eq!(f.framework, Framework::Jest);
        assert_eq!(f.file_path.as_deref(), Some("jest/flaky.test.js"));
        assert_eq!(f.line_number, Some(7));
        assert_eq!((f.failed_attempts, f.attempts), (Some(1), Some(2)));
        assert!(
            f.error_message
                .as_deref()
                .is_some_and(|m| m.contains("Received:   1"))
        );
    }

    /// Real `pnpm -r test` output: every line behind the package's prefix.
    const PNPM: &str = "\
packages/api test$ jest
packages/web test$ jest
packages/web test: FAIL ./render.test.js
packages/web test:   ● render › escapes html
packages/web test:     expect(received).toBe(expected) // Object.is equality
packages/web test:     Expected: \"&lt;b&gt;\"
packages/web test:     > 4 |     expect(escape('<b>')).toBe('&lt;b&gt;');
packages/web test:         |                           ^
packages/web test:       at Object.toBe (render.test.js:4:27)
packages/web test: Test Suites: 1 failed, 1 total
packages/web test: Failed
/home/runner/work/w/w/packages/web:
 ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  web@1.0.0 test: `jest`
Exit status 1
";

    #[test]
    fn pnpm_prefixes_are_read_through_and_paths_joined_to_the_package() {
        let found = parse(PNPM);
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(f.test_name, "render › escapes html");
        assert_eq!(f.file_path.as_deref(), Some("packages/web/render.test.js"));
        assert_eq!(f.line_number, Some(4));
        assert!(f.error_message.contains("Expected: \"&lt;b&gt;\""));
    }

    #[test]
    fn trimmed_matches_join_trim_bound() {
        let cases: &[&[&str]] = &[
            &["", "  ", "  a  ", "", " b ", "  ", ""],
            &["x"],
            &[],
            &["   ", "\t"],
        ];
        for lines in cases {
            let mut t = Trimmed::new(5);
            for l in *lines {
                t.push(l);
            }
            assert_eq!(
                t.text(),
                bounded_str(lines.join("\n").trim(), 5),
                "{lines:?}"
            );
        }
    }
}
