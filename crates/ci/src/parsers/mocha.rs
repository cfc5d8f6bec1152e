//! Mocha's `spec` reporter (and the other reporters built on its epilogue: `dot`, `list`, ...),
//! read line by line.
//!
//! After `N failing`, each failure is `  1) describe` with the nested titles on the following,
//! deeper-indented lines, the last ending in `:`; then the error and its stack (`at …`
//! lines; the error ends at the first other non-blank line after them, the next header, or
//! `N passing`/`N failing`). Naming convention: mocha's `fullTitle()`, the titles joined with
//! spaces. Mocha does not print the test's file: it is taken from the
//! `at Context.<anonymous> (file:L:C)` frame (the test function), else a frame in a
//! `*.spec.*`/`*.test.*` file, else the file a timeout message names, else the file of
//! another failure under the same top-level `describe` (no line then). The failing section
//! ends after failure `N)` (or at `N passing`), so later output shaped like a header (an
//! RSpec run's `  1) Cart …`) is not taken for mocha's.
//!
//! The `tap` reporter has no epilogue: a failure is `not ok N <fullTitle>`, then its message
//! and stack indented by 2, up to the next unindented line (`ok N …`, `# tests`, console
//! output). The file comes from the stack as above; without one, from another failure whose
//! title starts with the same word (the top-level `describe`, most often). TAP with a
//! ` - ` before the title (node's test runner, `prove`) is not mocha's and is left alone.
//!
//! Streaming: the parser needs every line only from a failure's header to the end of its
//! error (an error without stack frames is read for at most [`MAX_BLOCK_LINES`] lines).
//! Outside, it reads only lines with one of [`TRIGGERS`]: ` failing`, ` passing`, the
//! header's `N) ` (`0) `…`9) `) and TAP's `not ok `.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::cargo_test::Joined;
use super::jest::{MAX_MESSAGE, MAX_STACK, Trimmed, error_type, escape_regex, frame, indent};
use super::{LineParser, MAX_FAILURES, relative_path};
use crate::{Confidence, Failure, Framework};

/// The substrings (in the raw log) of every line this parser reads while not busy.
/// The header's `N) ` is ten patterns, not `) `: a two-byte pattern that common text holds
/// (`target(s) in`) halves the skip over idle lines (the `green` bench).
pub const TRIGGERS: &[&str] = &[
    " failing", " passing", "0) ", "1) ", "2) ", "3) ", "4) ", "5) ", "6) ", "7) ", "8) ", "9) ",
    "not ok ",
];

/// Lines of an error without stack frames read at most: its end is the first non-frame
/// line after the frames, so without frames the log would be read to its end.
pub const MAX_BLOCK_LINES: usize = 5000;
/// Title lines of one test kept at most.
const MAX_TITLES: usize = 64;

static FAILING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(\d+) failing\s*$").expect("regex"));
static PASSING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+ passing\b").expect("regex"));
static HEADER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^  (\d+)\) (.+)$").expect("regex"));
static TAP_NOT_OK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^not ok (\d+) (.+?)\s*$").expect("regex"));
static TEST_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\.(?:spec|test)\.[cm]?[jt]sx?$|(?:^|/)tests?/)").expect("regex")
});
static PAREN_PATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\((\S+\.[cm]?[jt]sx?)\)\s*$").expect("regex"));

struct Found {
    offset: u64,
    top: String,
    failure: Failure,
}

/// One failure's error being read.
struct Block {
    offset: u64,
    /// The header's number: `3` in `  3) describe`.
    number: usize,
    titles: Vec<String>,
    lines: usize,
    seen_frames: bool,
    message: Trimmed,
    stack: Joined,
    /// The frame of the first `at Context.<anonymous>` line, once there was one.
    context: Option<Option<(String, u64)>>,
    /// The first frame in a test file.
    test_frame: Option<(String, u64)>,
    /// From the `tap` reporter: the block is its lines indented by 2.
    tap: bool,
}

enum State {
    Idle,
    /// Title lines after a header, until one ends with `:`.
    Titles {
        offset: u64,
        number: usize,
        titles: Vec<String>,
    },
    Error(Box<Block>),
}

/// The mocha parser. See the module documentation.
pub struct Mocha {
    /// After `N failing`, until failure `N) ` was read or `N passing`.
    in_failing: bool,
    /// `N` of `N failing`.
    failing: usize,
    state: State,
    seen: HashSet<String>,
    found: Vec<Found>,
}

impl Default for Mocha {
    fn default() -> Self {
        Mocha {
            in_failing: false,
            failing: 0,
            state: State::Idle,
            seen: HashSet::new(),
            found: Vec::new(),
        }
    }
}

/// `N` of an `N failing` line.
fn failing(line: &str) -> Option<usize> {
    if !line.contains(" failing") {
        return None;
    }
    let c = FAILING.captures(line)?;
    Some(c[1].parse().unwrap_or(usize::MAX))
}

fn is_passing(line: &str) -> bool {
    line.contains(" passing") && PASSING.is_match(line)
}

fn header(line: &str) -> Option<regex::Captures<'_>> {
    if !line.starts_with("  ") || !line.as_bytes().get(2).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    HEADER.captures(line)
}

impl Mocha {
    pub fn new() -> Self {
        Self::default()
    }

    fn idle(&mut self, offset: u64, line: &str) {
        if let Some(n) = failing(line) {
            self.in_failing = true;
            self.failing = n;
            return;
        }
        if is_passing(line) {
            self.in_failing = false;
            return;
        }
        if line.starts_with("not ok ") {
            self.tap(offset, line);
            return;
        }
        if !self.in_failing {
            return;
        }
        if let Some(c) = header(line) {
            let titles = vec![c[2].trim().to_owned()];
            let number = c[1].parse().unwrap_or(usize::MAX);
            self.state = State::Titles {
                offset,
                number,
                titles,
            };
            self.titles_done();
        }
    }

    /// TAP's `not ok N <fullTitle>`.
    fn tap(&mut self, offset: u64, line: &str) {
        let Some(c) = TAP_NOT_OK.captures(line) else {
            return;
        };
        let title = c[2].to_owned();
        if title.starts_with("- ") || title == "-" {
            return;
        }
        self.state = State::Error(Box::new(Block {
            offset,
            number: c[1].parse().unwrap_or(usize::MAX),
            titles: vec![title],
            lines: 0,
            seen_frames: false,
            message: Trimmed::new(MAX_MESSAGE),
            stack: Joined::new(MAX_STACK),
            context: None,
            test_frame: None,
            tap: true,
        }));
    }

    /// After a title was added: the error starts when the last title ends with `:`.
    fn titles_done(&mut self) {
        let State::Titles {
            offset,
            number,
            titles,
        } = &mut self.state
        else {
            return;
        };
        if let Some(last) = titles.last_mut()
            && last.ends_with(':')
        {
            last.pop();
            let block = Block {
                offset: *offset,
                number: *number,
                titles: std::mem::take(titles),
                lines: 0,
                seen_frames: false,
                message: Trimmed::new(MAX_MESSAGE),
                stack: Joined::new(MAX_STACK),
                context: None,
                test_frame: None,
                tap: false,
            };
            self.state = State::Error(Box::new(block));
        }
    }

    fn end_block(&mut self) {
        let State::Error(b) = std::mem::replace(&mut self.state, State::Idle) else {
            return;
        };
        if !b.tap && b.number >= self.failing {
            // The last failure of the list: what follows is not mocha's.
            self.in_failing = false;
        }
        let name = b.titles.join(" ");
        if self.found.len() >= MAX_FAILURES || !self.seen.insert(name.clone()) {
            return;
        }
        let top = if b.tap {
            // The full title's first word: the top-level describe, most often.
            b.titles[0].split(' ').next().unwrap_or_default().to_owned()
        } else {
            b.titles[0].clone()
        };
        self.found.push(Found {
            offset: b.offset,
            top,
            failure: b.failure(name),
        });
    }
}

impl LineParser for Mocha {
    fn line(&mut self, offset: u64, line: &str) {
        match &mut self.state {
            State::Idle => self.idle(offset, line),
            State::Titles { titles, .. } => {
                if indent(line) < 5 || line.trim().is_empty() {
                    // Not a failure header (e.g. the progress tree).
                    self.state = State::Idle;
                    self.idle(offset, line);
                    return;
                }
                if titles.len() < MAX_TITLES {
                    titles.push(line.trim().to_owned());
                } else if line.trim().ends_with(':')
                    && let Some(last) = titles.last_mut()
                {
                    last.push(':');
                }
                self.titles_done();
            }
            State::Error(b) => {
                let t = line.trim_start();
                let frame_line = t.starts_with("at ");
                if b.tap {
                    if !line.starts_with("  ") && !t.is_empty() {
                        self.end_block();
                        self.idle(offset, line);
                        return;
                    }
                    b.line(line.get(2..).unwrap_or(t), frame_line);
                    if !b.seen_frames && b.lines >= MAX_BLOCK_LINES {
                        self.end_block();
                    }
                    return;
                }
                let ended = header(line).is_some()
                    || is_passing(line)
                    || failing(line).is_some()
                    || (b.seen_frames && !frame_line && !t.is_empty());
                if ended {
                    self.end_block();
                    self.idle(offset, line);
                    return;
                }
                b.line(line, frame_line);
                if !b.seen_frames && b.lines >= MAX_BLOCK_LINES {
                    self.end_block();
                }
            }
        }
    }

    fn busy(&self) -> bool {
        !matches!(self.state, State::Idle)
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        // A header whose titles never ended is no failure; an error is.
        self.end_block();
        let mut found = std::mem::take(&mut self.found);
        // A failure whose stack never enters the test file: the file of a sibling under the
        // same top-level describe.
        for k in 0..found.len() {
            if found[k].failure.file_path.is_none() {
                let sibling = found
                    .iter()
                    .find(|f| f.top == found[k].top && f.failure.file_path.is_some())
                    .and_then(|f| f.failure.file_path.clone());
                if let Some(file) = sibling {
                    let f = &mut found[k].failure;
                    f.reproduce_command = reproduce(Some(&file), &f.test_name);
                    f.file_path = Some(file);
                }
            }
        }
        found.into_iter().map(|f| (f.offset, f.failure)).collect()
    }
}

impl Block {
    fn line(&mut self, l: &str, frame_line: bool) {
        self.lines += 1;
        if frame_line {
            self.seen_frames = true;
            let s = l.trim();
            self.stack.push(s);
            if self.context.is_none()
                && (s.starts_with("at Context.<anonymous>") || s.starts_with("at Context.it"))
            {
                self.context = Some(frame(s));
            }
            if self.test_frame.is_none() {
                self.test_frame =
                    frame(s).filter(|(p, _)| TEST_FILE.is_match(p) && !p.contains("node_modules/"));
            }
        } else if self.stack.is_empty() {
            self.message.push(
                l.strip_prefix("      ")
                    .or_else(|| l.strip_prefix("     "))
                    .unwrap_or(l),
            );
        }
    }

    fn failure(self, name: String) -> Failure {
        let message = self.message.text();
        let location = self.context.flatten().or(self.test_frame);
        let (file, line) = match location {
            Some((p, n)) => (Some(p), Some(n)),
            None => {
                let named = message
                    .lines()
                    .find_map(|l| PAREN_PATH.captures(l).map(|c| relative_path(&c[1])));
                (named, None)
            }
        };
        Failure {
            reproduce_command: reproduce(file.as_deref(), &name),
            test_name: name,
            file_path: file,
            line_number: line,
            error_type: Some(error_type(&message)),
            error_message: message,
            stack_trace: (!self.stack.is_empty()).then(|| self.stack.text()),
            confidence: if line.is_some() {
                Confidence::Medium
            } else {
                Confidence::Low
            },
            framework: Framework::Mocha,
        }
    }
}

fn reproduce(file: Option<&str>, name: &str) -> Option<String> {
    crate::reproduce::mocha(file, &escape_regex(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Vec<Failure> {
        crate::parse_log(log.as_bytes())
            .into_iter()
            .filter(|f| f.framework == Framework::Mocha)
            .collect()
    }

    const LOG: &str = "\
  cart
    1) sums line items
Error: noisy but passing

  1 passing (20ms)
  3 failing

  1) cart
       totals
         sums line items:

      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:

11 !== 12

      at Context.<anonymous> (test/cart.spec.js:15:14)
      at process.processImmediate (node:internal/timers:483:21)

  2) users
       loads a missing user:
     Error: user 0 not found
      at Timeout._onTimeout (lib/parse.js:17:16)

  3) users
       waits:
     Error: Timeout of 200ms exceeded. (/home/runner/work/w/w/test/users.spec.js)
      at listOnTimeout (node:internal/timers:581:17)

npm error code 1
";

    #[test]
    fn failing_section_is_parsed() {
        let found = parse(LOG);
        let names: Vec<_> = found.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cart totals sums line items",
                "users loads a missing user",
                "users waits"
            ]
        );
        let f = &found[0];
        assert_eq!(f.file_path.as_deref(), Some("test/cart.spec.js"));
        assert_eq!(f.line_number, Some(15));
        assert_eq!(f.error_type.as_deref(), Some("AssertionError"));
        assert!(f.error_message.contains("11 !== 12"));
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("npx mocha test/cart.spec.js --grep 'cart totals sums line items'")
        );
        assert_eq!(found[2].file_path.as_deref(), Some("test/users.spec.js"));
        assert_eq!(found[2].error_type.as_deref(), Some("Timeout"));
        // No frame in the test file: the sibling's file, no line.
        assert_eq!(found[1].file_path.as_deref(), Some("test/users.spec.js"));
        assert_eq!(found[1].line_number, None);
    }

    #[test]
    fn not_busy_after_a_failure_and_the_failures_stay() {
        let mut p = Mocha::new();
        for (i, line) in LOG.lines().enumerate() {
            p.line(i as u64, line);
        }
        for i in 0..10_000 {
            p.line(1_000 + i, "      some output");
            assert!(!p.busy(), "busy at noise line {i}");
        }
        let found = p.finish();
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].1.line_number, Some(15));
    }

    #[test]
    fn the_failing_section_ends_after_its_last_failure() {
        let later = "\n  1) Cart\n       totals:\n     Failure/Error: expect(1).to eq(2)\n      at spec/cart.test.js:4:1\n";
        let log = format!("{LOG}{later}");
        assert_eq!(parse(&log).len(), 3);
    }

    /// Real mocha 10 `--reporter=tap` output.
    const TAP: &str = "\
not ok 1 top-level test outside describe
  expected the list to contain 4
  AssertionError [ERR_ASSERTION]: expected the list to contain 4
      at Context.<anonymous> (mocha/users.spec.js:27:10)
      at process.processImmediate (node:internal/timers:483:21)
ok 2 cart parses amount 1.50 as 1.5
Error: something noisy happened (this test still passes)
ok 3 users loads an existing user
not ok 4 users loads a missing user
  user 0 not found
  Error: user 0 not found
      at Timeout._onTimeout (helpers/parse.js:17:16)
      at listOnTimeout (node:internal/timers:581:17)
not ok 5 users parses a user balance
  TypeError: expected a string, got undefined
      at parseAmount (helpers/parse.js:4:11)
      at Context.<anonymous> (mocha/users.spec.js:21:21)
# tests 5
# pass 2
# fail 3
not ok 1 - a node:test failure
";

    #[test]
    fn tap_failures_are_parsed() {
        let found = parse(TAP);
        let got = super::super::named_at(&found);
        assert_eq!(
            got,
            [
                (
                    "top-level test outside describe",
                    Some("mocha/users.spec.js"),
                    Some(27)
                ),
                (
                    "users loads a missing user",
                    Some("mocha/users.spec.js"),
                    None
                ),
                (
                    "users parses a user balance",
                    Some("mocha/users.spec.js"),
                    Some(21)
                ),
            ]
        );
        assert_eq!(
            found[0].error_message,
            "expected the list to contain 4\nAssertionError [ERR_ASSERTION]: expected the list to contain 4"
        );
        assert_eq!(found[2].error_type.as_deref(), Some("TypeError"));
    }

    #[test]
    fn an_error_without_frames_is_not_read_to_the_end() {
        let mut p = Mocha::new();
        for line in [
            "  1 failing",
            "",
            "  1) suite",
            "       fails:",
            "     Error: no stack",
        ] {
            p.line(0, line);
        }
        for i in 0..MAX_BLOCK_LINES as u64 + 10 {
            p.line(i, "      noise");
        }
        assert!(!p.busy());
        let found = p.finish();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.test_name, "suite fails");
    }
}
