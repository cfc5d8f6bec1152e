//! Jest's console reporter (default and `--verbose`), read line by line.
//!
//! A failing test is a `  ● describe › test` header inside a `FAIL <file>` section (the
//! section ends at the next `PASS`/`FAIL` line or any other unindented line: the summary,
//! another tool's output); the block under it (lines indented by 4 or more, and blank
//! lines) holds the message, a code frame and the stack. Naming convention: the header as
//! printed (`describe › nested › test`). The location is the first stack frame inside the
//! test file. `● Console` and `● Test suite failed to run` blocks are not tests; a test
//! repeated by the `Summary of all failing tests` is reported once.
//!
//! Streaming: the parser needs every line while inside a `FAIL` section (an unindented line
//! ends it); outside, it reads only lines with the trigger `FAIL` (jest colours it as
//! `\x1b[1m\x1b[31m FAIL \x1b[39m`, which leaves the word intact). `PASS` sections and `●`
//! headers outside a `FAIL` section never report anything, so they are not triggers.
//!
//! Vitest output never has `●` headers, and its `FAIL` lines name `file > test`, so this parser
//! leaves it alone. The helpers at the bottom are shared with the vitest and mocha parsers.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::cargo_test::{Joined, push_capped};
use super::{LineParser, MAX_FAILURES, bounded_str, relative_path};
use crate::{Confidence, Failure, Framework};

/// Longest error message kept, in bytes.
pub(crate) const MAX_MESSAGE: usize = 2000;
/// Longest stack excerpt kept, in bytes.
pub(crate) const MAX_STACK: usize = 4000;

/// The substrings (in the raw log) of every line this parser reads while not busy.
pub const TRIGGERS: &[&str] = &["FAIL"];

static SUITE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s{0,2}(FAIL|PASS)\s+(\S+\.[A-Za-z]+)(?:\s+\(\d[^)]*\))?\s*$").expect("regex")
});
static CODE_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*>?\s*\d+ \|").expect("regex"));

/// One `●` block being read.
struct Block {
    offset: u64,
    name: String,
    file: String,
    message: Trimmed,
    stack: Joined,
    in_message: bool,
    line: Option<u64>,
}

/// The jest parser. See the module documentation.
#[derive(Default)]
pub struct Jest {
    /// The file of the `FAIL` section lines are in.
    suite: Option<String>,
    block: Option<Block>,
    seen: HashSet<(String, String)>,
    out: Vec<(u64, Failure)>,
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
        if name == "Console" || name.starts_with("Test suite failed to run") || name.is_empty() {
            return;
        }
        if self.seen.len() >= MAX_FAILURES || !self.seen.insert((name.to_owned(), file.clone())) {
            return;
        }
        self.block = Some(Block {
            offset,
            name: name.to_owned(),
            file: file.clone(),
            message: Trimmed::new(MAX_MESSAGE),
            stack: Joined::new(MAX_STACK),
            in_message: true,
            line: None,
        });
    }
}

impl LineParser for Jest {
    fn line(&mut self, offset: u64, line: &str) {
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
        self.suite.is_some() || self.block.is_some()
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.end_block();
        std::mem::take(&mut self.out)
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
        let file = self.file;
        let line = self.line;
        let pattern = escape_regex(&name.replace(" › ", " "));
        Failure {
            reproduce_command: crate::reproduce::jest(Some(&file), &pattern),
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
