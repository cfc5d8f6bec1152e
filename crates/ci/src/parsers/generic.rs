//! The generic fallback: the first error blocks of a log in which no test framework reported
//! a failure (a build that did not compile, a dependency install that failed, a script that
//! crashed, a workflow that could not start). Registered with `fallback: true`, so the
//! scanner uses its findings only when every framework parser found nothing; all of them are
//! `low` confidence and `Framework::Generic`.
//!
//! Blocks it recognises (on the cleaned line; the triggers find them in the raw bytes):
//! - a GitHub Actions `##[error]<message>` annotation, except the runner's own
//!   `Process completed with exit code N` (a consequence, not a cause);
//! - a rustc diagnostic `error[E0308]: mismatched types` / `error: <message>` with its
//!   ` --> src/x.rs:12:5` location and snippet (up to the blank line after it), except
//!   cargo's and rustc's summaries (`error: could not compile …`, `error: aborting due to …`);
//! - a compiler diagnostic `path:line[:col]: [fatal ]error: <message>` (gcc, clang, go vet,
//!   many linters) or TypeScript's `path(line,col): error TS2322: <message>`;
//! - a JavaScript (or other) exception line `Error: …` / `TypeError: …` at the start of a
//!   line: alone (a tool's last word: not when mocha's `N passing` summary follows it in the
//!   same step, then a passing test printed it), or with `    at …` frames when node's
//!   `Node.js vN` trailer follows them (uncaught; a logged error with a stack is not a
//!   failure);
//! - a Python `Traceback (most recent call last):` up to its exception line;
//! - an npm failure, the run of `npm error …` (npm ≥ 10) or `npm ERR! …` lines;
//! - a line with the word `FATAL`.
//!
//! Lines inside a libtest run (from `running N tests` to its `test result:` line, also as
//! nextest `--no-capture` shows each test) are the tests' own output: a passing test may print
//! `error: …` or `Error: …`, and a failing one is the framework parsers' to report, so no
//! block starts there (an `##[error]` annotation still counts).
//!
//! In a GitHub Actions log only the blocks of steps that failed (`##[error]Process completed
//! with exit code N`, or `##[error]The process '…' failed with exit code N` for an action's
//! command) count, and `##[error]` annotations wherever they are: a passing step
//! may print errors it handled. A log without step markers counts whole, except the blocks
//! before a test run's passing summary: the run printed them and passed (a test that prints
//! a handled traceback). The summaries that say nothing failed: pytest's `=== 5 passed, 2
//! warnings in 0.1s ===`, unittest's `Ran 5 tests in 0.01s`, a blank line and `OK` / `OK
//! (skipped=1)` (the parser is busy for the two lines after `Ran`: plain `OK` is too common
//! to be a trigger), rspec's `5 examples, 0 failures[, 2 pending]`, PHPUnit's `OK (5 tests,
//! 9 assertions)` and `OK, but …!` with its `Tests: 6, Assertions: 5, Skipped: 1.` line
//! (within [`PHPUNIT_VERDICT_LINES`] lines after its `Time: …, Memory: …` line, the trigger;
//! the parser is busy meanwhile and reads those lines as usual). Never `FAILED
//! (failures=1)`, `5 examples, 1 failure`, `FAILURES!`, `ERRORS!`. A summary line also ends
//! the block it would otherwise continue.
//!
//! Test name: a short description of the block: `error[E0308]: mismatched types`,
//! `error: <message>`, `error TS2322: <message>`, the exception line (`KeyError: 'port'`,
//! `Error: APP_CONFIG is not set`), `npm error code EUSAGE` (`npm ERR!` written as `npm
//! error`), the annotation's message, the `FATAL` line; at most [`MAX_TITLE`] bytes. At most
//! [`MAX_BLOCKS`] distinct blocks are reported, the first ones in the log. Location: the
//! block's own (` --> `, `path:line:`), the first JavaScript frame outside dependencies, the
//! last Python frame outside the standard library and site-packages.

use std::sync::LazyLock;

use regex::Regex;

use super::{LineParser, ParserSpec, bounded_str, relative_path};
use crate::{Confidence, Failure, Framework};

/// Distinct error blocks reported at most.
pub const MAX_BLOCKS: usize = 5;
/// Longest test name (a block's description), in bytes.
pub const MAX_TITLE: usize = 200;
const MAX_MESSAGE: usize = 2000;
const MAX_TRACE: usize = 4000;
/// Lines a block reads at most (a traceback of a deep recursion, npm's usage text).
const MAX_BLOCK_LINES: usize = 300;
/// Lines of a block kept for its message or trace.
const MAX_KEPT: usize = 40;

pub const SPEC: ParserSpec = ParserSpec {
    framework: Framework::Generic,
    triggers: &[
        "##[error]",
        "error[E",
        "error:",
        // rustc in colour: `error` then an escape before the colon.
        "error\x1b[",
        "): error TS",
        "Error:",
        "npm ERR!",
        "npm error",
        "FATAL",
        "Traceback (most recent call last)",
        // pytest's passing summary (`=== 5 passed in 0.1s ===`); pytest's and unittest's
        // parsers share the pattern.
        "===",
        // mocha's summary, which makes the frameless exceptions before it test output.
        " passing",
        // Where a passing summary starts: unittest's `Ran 5 tests in 0.01s` (`OK` follows
        // two lines on), rspec's `5 examples, 0 failures` (replaces cargo_test's
        // `failures:` in the search), PHPUnit's `Time: 00:00.02, Memory: 6.00 MB` (its
        // verdict follows a few lines on). The parser is busy until the verdict, which needs
        // no trigger of its own: `OK` is too common (a two-byte pattern halves the skip),
        // and `OK (`, `OK, but`, `0 failures` made the search over the `green` bench's
        // lines a third slower (the SIMD prefilter's buckets fill up); these three cost it
        // nothing measurable.
        "Ran ",
        "failures",
        "Time: ",
        // A libtest run's start and end (also cargo_test's triggers; `t result:` for `test
        // result:`, see there).
        "running ",
        "t result:",
    ],
    new: || Box::<Generic>::default(),
    fallback: true,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One line: an Actions annotation, a compiler diagnostic without a snippet, `FATAL`.
    Line,
    /// A rustc or compiler diagnostic: up to the blank line.
    Diagnostic,
    /// A JavaScript exception: its `at` frames.
    Exception,
    Traceback,
    Npm,
}

struct Block {
    kind: Kind,
    offset: u64,
    title: String,
    error_type: Option<String>,
    file: Option<String>,
    line: Option<u64>,
    message: Vec<String>,
    trace: Vec<String>,
    read: usize,
    /// Lines read after a JavaScript exception's frames, and whether node's `Node.js vN`
    /// trailer (an uncaught exception) followed them.
    tail: usize,
    crashed: bool,
    /// An `##[error]` annotation: an error whatever the step's outcome.
    annotation: bool,
    /// Python frames: (path, line), in order.
    frames: Vec<(String, u64)>,
}

impl Block {
    fn new(kind: Kind, offset: u64, title: String) -> Self {
        Block {
            kind,
            offset,
            title: bounded_str(title.trim(), MAX_TITLE),
            error_type: None,
            file: None,
            line: None,
            message: Vec::new(),
            trace: Vec::new(),
            read: 0,
            tail: 0,
            crashed: false,
            annotation: false,
            frames: Vec::new(),
        }
    }

    fn keep_message(&mut self, line: &str) {
        if self.message.len() < MAX_KEPT {
            self.message.push(line.to_owned());
        }
    }

    fn keep_trace(&mut self, line: &str) {
        if self.trace.len() < MAX_KEPT {
            self.trace.push(line.to_owned());
        }
    }
}

#[derive(Default)]
pub struct Generic {
    open: Option<Block>,
    /// Blocks of failed steps (or of a log without Actions steps), and annotations.
    found: Vec<(u64, Failure)>,
    /// Blocks of the Actions step being read, kept if the step fails.
    pending: Vec<(u64, Failure)>,
    /// Offsets of the frameless exceptions ("last words") in `pending`.
    last_words: Vec<u64>,
    /// The log has Actions step markers.
    actions: bool,
    npm_seen: bool,
    /// Inside a libtest run: its tests' output, not the job's errors.
    in_tests: bool,
    /// A summary whose next lines say whether its run passed (a log without Actions steps).
    awaiting: Option<Awaiting>,
}

/// What the lines after a summary's first line must be for the run to have passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Awaiting {
    /// After unittest's `Ran 5 tests in 0.01s`: the blank line,
    UnittestBlank,
    /// then `OK` or `OK (skipped=1, expected failures=1)` (not `FAILED (failures=1)`).
    UnittestOk,
    /// After PHPUnit's `Time: 00:00.024, Memory: 6.00 MB`, for this many lines more (a
    /// testdox run lists its skipped tests first; the lines are read as usual meanwhile):
    /// the verdict, `OK (6 tests, 5 assertions)` or `OK, but …!`; not `FAILURES!`,
    /// `ERRORS!`, `WARNINGS!`, which end the wait.
    PhpunitVerdict(u16),
    /// After PHPUnit's `OK, but incomplete, skipped, or risky tests!` (9) / `OK, but there
    /// were issues!` (10+): `Tests: 6, Assertions: 5, Skipped: 1.` with no failure or error.
    PhpunitCounts,
}

/// Lines after PHPUnit's `Time:` line its verdict is looked for in.
pub const PHPUNIT_VERDICT_LINES: u16 = 500;

static LIBTEST_RUNNING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^running \d+ tests?$").expect("regex"));

static RUSTC: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^error(?:\[(E\d{4})\])?: (.+)$").expect("regex"));
static ARROW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*--> (.+?):(\d+)(?::\d+)?\s*$").expect("regex"));
static COMPILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([^\s:][^\s]*?):(\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(.+)$").expect("regex")
});
static TSC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([^\s(][^\s(]*)\((\d+),\d+\): error (TS\d+): (.+)$").expect("regex")
});
static EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:Uncaught )?((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*)(?: \[[\w]+\])?: (.*)$")
        .expect("regex")
});
static JS_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+at (?:.*? \()?((?:[A-Za-z]:)?[^():\s]+):(\d+):(\d+)\)?\s*$").expect("regex")
});
static PY_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^\s*File "([^"]+)", line (\d+)"#).expect("regex"));
static PYTEST_PASSED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^=+ (?:\d+ [a-z]+(?:, )?)+ in [\d.]+s\b").expect("regex"));
static PASSING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+ passing \(\d").expect("regex"));
static FATAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bFATAL\b").expect("regex"));
static UNITTEST_RAN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Ran \d+ tests? in [\d.]+s$").expect("regex"));
static UNITTEST_OK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^OK(?: \([a-z ]+=\d+(?:, [a-z ]+=\d+)*\))?$").expect("regex"));
static PHPUNIT_TIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Time: [^,]+, Memory: [\d.]+ ?[KMGT]?B$").expect("regex"));
static RSPEC_PASSED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+ examples?, 0 failures(?:, \d+ pending)?$").expect("regex"));
static PHPUNIT_OK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^OK \(\d+ tests?, \d+ assertions?\)$").expect("regex"));
static PHPUNIT_COUNTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Tests: \d+, Assertions: \d+").expect("regex"));

/// A one-line summary of a run that passed (nothing failed or errored), on a line with a
/// trigger: pytest's `=== 5 passed, 1 xfailed in 0.10s ===`, rspec's `5 examples, 0
/// failures, 2 pending`.
fn passing_summary(t: &str) -> bool {
    (t.starts_with('=')
        && !t.contains(" failed")
        && !t.contains(" error")
        && PYTEST_PASSED.is_match(t))
        || (t.contains(" 0 failures") && RSPEC_PASSED.is_match(t))
}

/// The first line of a summary that passed only if the next ones say so (see [`Awaiting`]),
/// on a line with a trigger.
fn summary_start(t: &str) -> Option<Awaiting> {
    if t.starts_with("Ran ") && UNITTEST_RAN.is_match(t) {
        Some(Awaiting::UnittestBlank)
    } else if t.starts_with("Time: ") && PHPUNIT_TIME.is_match(t) {
        Some(Awaiting::PhpunitVerdict(PHPUNIT_VERDICT_LINES))
    } else {
        None
    }
}

/// Summaries that follow the error that caused them.
fn consequence(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("Process completed with exit code")
        || t.starts_with("error: could not compile")
        || t.starts_with("error: aborting due to")
        || t.starts_with("error: test failed, to rerun pass")
        || t.starts_with("error: process didn't exit successfully")
        || t.starts_with("error: Recipe")
        || t.starts_with("Error: Process completed with exit code")
        || t.starts_with("Error: The operation was canceled")
}

fn npm_line(line: &str) -> Option<&str> {
    line.strip_prefix("npm error")
        .or_else(|| line.strip_prefix("npm ERR!"))
        .filter(|rest| rest.is_empty() || rest.starts_with(' '))
        .map(str::trim)
}

/// Paths of dependencies, toolchains and runtimes.
fn dependency(path: &str) -> bool {
    path.starts_with('/')
        || path.starts_with('<')
        || path.starts_with("node:")
        || path.contains("node_modules/")
        || path.contains("site-packages/")
        || path.contains("dist-packages/")
}

impl Generic {
    /// A block that starts at `line`, if any.
    fn header(&self, offset: u64, line: &str) -> Option<Block> {
        let t = line.trim_end();
        if let Some(msg) = t.strip_prefix("##[error]") {
            if msg.trim().is_empty() || consequence(msg) {
                return None;
            }
            let mut b = Block::new(Kind::Line, offset, msg.to_owned());
            b.annotation = true;
            if let Some(c) = COMPILER.captures(msg) {
                b.file = Some(relative_path(&c[1]));
                b.line = c[2].parse().ok();
            }
            b.keep_message(msg.trim());
            return Some(b);
        }
        if consequence(t) {
            return None;
        }
        // Each pattern below needs a word the line must hold: checked first, since most
        // lines delivered here (a trigger of any parser) are none of these.
        if t.starts_with("error")
            && let Some(c) = RUSTC.captures(t)
        {
            let mut b = Block::new(Kind::Diagnostic, offset, t.to_owned());
            b.error_type = c.get(1).map(|m| m.as_str().to_owned());
            b.keep_message(t);
            return Some(b);
        }
        if t.contains("error:")
            && let Some(c) = COMPILER.captures(t)
        {
            let mut b = Block::new(Kind::Diagnostic, offset, format!("error: {}", &c[3]));
            b.file = Some(relative_path(&c[1]));
            b.line = c[2].parse().ok();
            b.keep_message(t);
            return Some(b);
        }
        if t.contains("): error TS")
            && let Some(c) = TSC.captures(t)
        {
            let mut b = Block::new(
                Kind::Diagnostic,
                offset,
                format!("error {}: {}", &c[3], &c[4]),
            );
            b.file = Some(relative_path(&c[1]));
            b.line = c[2].parse().ok();
            b.error_type = Some(c[3].to_owned());
            b.keep_message(t);
            return Some(b);
        }
        if t.starts_with("Traceback (most recent call last)") {
            let mut b = Block::new(Kind::Traceback, offset, "Traceback".to_owned());
            b.keep_trace(t);
            return Some(b);
        }
        if let Some(rest) = npm_line(t) {
            if self.npm_seen || rest.is_empty() {
                return None;
            }
            let mut b = Block::new(Kind::Npm, offset, format!("npm error {rest}"));
            b.error_type = rest.strip_prefix("code ").map(|c| c.trim().to_owned());
            return Some(b);
        }
        if t.contains("Error")
            && let Some(c) = EXCEPTION.captures(t)
            && (c[1].ends_with("Error") || c[1].ends_with(".Error"))
        {
            let mut b = Block::new(Kind::Exception, offset, t.to_owned());
            b.error_type = Some(c[1].rsplit('.').next().unwrap_or(&c[1]).to_owned());
            b.keep_message(t);
            return Some(b);
        }
        if t.contains("FATAL") && FATAL.is_match(t) {
            let mut b = Block::new(Kind::Line, offset, t.trim().to_owned());
            b.keep_message(t.trim());
            return Some(b);
        }
        None
    }

    /// Feeds `line` to the open block; false when the block ended before this line.
    fn continue_block(b: &mut Block, line: &str) -> bool {
        b.read += 1;
        if b.read > MAX_BLOCK_LINES {
            return false;
        }
        let t = line.trim_end();
        match b.kind {
            Kind::Line => false,
            Kind::Diagnostic => {
                if t.trim().is_empty() {
                    return false;
                }
                // A new diagnostic right after this one (no blank line between).
                if b.read > 1 && (RUSTC.is_match(t) || COMPILER.is_match(t)) {
                    return false;
                }
                // Snippet, location and note lines are indented, numbered or marked.
                let snippet = t.starts_with([' ', '\t', '|', '='])
                    || t.starts_with(|c: char| c.is_ascii_digit())
                    || t.starts_with("help:")
                    || t.starts_with("note:");
                if !snippet {
                    return false;
                }
                if b.file.is_none()
                    && let Some(c) = ARROW.captures(t)
                {
                    b.file = Some(relative_path(&c[1]));
                    b.line = c[2].parse().ok();
                }
                b.keep_message(t);
                true
            }
            Kind::Exception => {
                let Some(c) = JS_FRAME.captures(t) else {
                    // After the frames: node's `{ code: … }` details, then `Node.js vN` when
                    // the exception was uncaught.
                    if b.trace.is_empty() || b.tail >= 12 {
                        return false;
                    }
                    if t.starts_with("Node.js v") {
                        b.crashed = true;
                        b.read = MAX_BLOCK_LINES;
                        return true;
                    }
                    b.tail += 1;
                    return t.is_empty() || t.starts_with([' ', '\t', '}', '{']);
                };
                if b.tail > 0 {
                    return false;
                }
                let path = relative_path(&c[1]);
                if b.file.is_none() && !dependency(&path) {
                    b.file = Some(path);
                    b.line = c[2].parse().ok();
                }
                b.keep_trace(t);
                true
            }
            Kind::Traceback => {
                if let Some(c) = PY_FRAME.captures(t) {
                    if let Ok(n) = c[2].parse() {
                        b.frames.push((relative_path(&c[1]), n));
                        if b.frames.len() > MAX_KEPT {
                            b.frames.remove(0);
                        }
                    }
                    b.keep_trace(t);
                    return true;
                }
                if t.is_empty() || t.starts_with(' ') || t.starts_with('\t') {
                    b.keep_trace(t);
                    return true;
                }
                // The exception line ends the traceback.
                b.title = bounded_str(t.trim(), MAX_TITLE);
                b.error_type = EXCEPTION
                    .captures(t)
                    .map(|c| c[1].rsplit('.').next().unwrap_or(&c[1]).to_owned())
                    .or_else(|| {
                        let name = t.trim();
                        (!name.contains(' ')).then(|| name.to_owned())
                    });
                b.keep_message(t.trim());
                b.keep_trace(t);
                if let Some((p, l)) = b
                    .frames
                    .iter()
                    .rev()
                    .find(|(p, _)| !dependency(p))
                    .or(b.frames.last())
                {
                    b.file = Some(p.clone());
                    b.line = Some(*l);
                }
                b.read = MAX_BLOCK_LINES; // done: the next line ends the block
                true
            }
            Kind::Npm => match npm_line(t) {
                Some(rest) => {
                    if !rest.is_empty() && !rest.starts_with("A complete log of this run") {
                        b.keep_message(rest);
                    }
                    true
                }
                None => false,
            },
        }
    }

    /// A test run said it passed: the blocks before it were its tests' output.
    fn passed(&mut self) {
        self.close();
        self.pending.clear();
        self.last_words.clear();
    }

    /// Reads `t` (a line of a log without Actions steps) as part of a test run's summary;
    /// true when that is all it is.
    fn summary(&mut self, t: &str) -> bool {
        if let Some(awaiting) = self.awaiting.take() {
            match awaiting {
                Awaiting::UnittestBlank if t.is_empty() => {
                    self.awaiting = Some(Awaiting::UnittestOk);
                    return true;
                }
                Awaiting::UnittestOk if UNITTEST_OK.is_match(t) => {
                    self.passed();
                    return true;
                }
                Awaiting::PhpunitVerdict(left) => {
                    if t.starts_with("OK (") && PHPUNIT_OK.is_match(t) {
                        self.passed();
                        return true;
                    }
                    if t.starts_with("OK, but ") && t.ends_with('!') {
                        self.close();
                        self.awaiting = Some(Awaiting::PhpunitCounts);
                        return true;
                    }
                    // `FAILURES!`, `ERRORS!`, `WARNINGS!`: the run did not pass.
                    let failed = t.ends_with('!')
                        && t.len() > 1
                        && t[..t.len() - 1]
                            .bytes()
                            .all(|b| b.is_ascii_uppercase() || b == b' ');
                    if !failed && left > 1 {
                        self.awaiting = Some(Awaiting::PhpunitVerdict(left - 1));
                    }
                }
                Awaiting::PhpunitCounts
                    if PHPUNIT_COUNTS.is_match(t)
                        && !t.contains("Failures:")
                        && !t.contains("Errors:") =>
                {
                    self.passed();
                    return true;
                }
                // Not the summary expected: an ordinary line.
                _ => {}
            }
        }
        if passing_summary(t) {
            self.passed();
            return true;
        }
        if let Some(awaiting) = summary_start(t) {
            self.close();
            self.awaiting = Some(awaiting);
            return true;
        }
        false
    }

    fn close(&mut self) {
        let Some(b) = self.open.take() else {
            return;
        };
        if b.kind == Kind::Npm {
            self.npm_seen = true;
        }
        // An exception with a stack that did not end the process was printed, not thrown
        // (`console.error(err)` in a passing test).
        if b.kind == Kind::Exception && !b.trace.is_empty() && !b.crashed {
            return;
        }
        if self.found.len() + self.pending.len() >= MAX_BLOCKS
            || self
                .found
                .iter()
                .chain(&self.pending)
                .any(|(_, f)| f.test_name == b.title)
        {
            return;
        }
        let message = if b.message.is_empty() {
            b.title.clone()
        } else {
            b.message.join("\n")
        };
        let to = if b.annotation {
            &mut self.found
        } else {
            if b.kind == Kind::Exception && b.trace.is_empty() && self.last_words.len() < MAX_BLOCKS
            {
                self.last_words.push(b.offset);
            }
            &mut self.pending
        };
        to.push((
            b.offset,
            Failure {
                test_name: b.title,
                file_path: b.file,
                line_number: b.line,
                error_type: b.error_type,
                error_message: bounded_str(message.trim(), MAX_MESSAGE),
                stack_trace: (!b.trace.is_empty())
                    .then(|| bounded_str(&b.trace.join("\n"), MAX_TRACE)),
                confidence: Confidence::Low,
                framework: Framework::Generic,
                reproduce_command: None,
            },
        ));
    }
}

impl LineParser for Generic {
    fn line(&mut self, offset: u64, line: &str) {
        // Blocks a test run printed before it said it passed were handled (a log without
        // Actions steps; in one, the step's exit code decides). A summary also ends a block
        // (a test's `error: …` line reads as a diagnostic up to a blank line).
        if !self.actions && self.summary(line.trim_end()) {
            return;
        }
        if let Some(b) = self.open.as_mut() {
            if Self::continue_block(b, line) {
                return;
            }
            self.close();
        }
        // In an Actions log, blocks count only in steps that fail: a passing step may print
        // errors it handled (a test that logs one on purpose).
        if line.starts_with("##[group]Run ") {
            self.in_tests = false;
            self.actions = true;
            self.pending.clear();
            self.last_words.clear();
            return;
        }
        // Mocha passed: the frameless exceptions before its summary were printed by tests.
        if !self.last_words.is_empty() && line.contains(" passing") && PASSING.is_match(line) {
            let last_words = std::mem::take(&mut self.last_words);
            self.pending.retain(|(o, _)| !last_words.contains(o));
            return;
        }
        if line.starts_with("##[error]")
            && let Some(code) = crate::segment::exit_code(line)
        {
            self.in_tests = false;
            self.actions = true;
            self.last_words.clear();
            if code != 0 {
                self.found.append(&mut self.pending);
                self.found.sort_by_key(|(offset, _)| *offset);
            }
            return;
        }
        if line.starts_with("running ") && LIBTEST_RUNNING.is_match(line) {
            self.in_tests = true;
            return;
        }
        if self.in_tests {
            // cargo's report that a test binary failed (or crashed: no `test result:`) ends
            // the run too.
            if line.starts_with("test result:")
                || (line.starts_with("error: ") && line.contains(" failed, to rerun pass"))
            {
                self.in_tests = false;
            }
            if !line.starts_with("##[error]") {
                return;
            }
        }
        if self.found.len() + self.pending.len() >= MAX_BLOCKS {
            return;
        }
        self.open = self.header(offset, line);
        if self.open.as_ref().is_some_and(|b| b.kind == Kind::Line) {
            self.close();
        }
    }

    fn busy(&self) -> bool {
        self.open.is_some() || self.awaiting.is_some()
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.close();
        if !self.actions {
            self.found.append(&mut self.pending);
        }
        std::mem::take(&mut self.found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(log: &str) -> Vec<Failure> {
        let mut p = Generic::default();
        let mut offset = 0;
        for l in log.lines() {
            p.line(offset, l);
            offset += l.len() as u64 + 1;
        }
        p.finish().into_iter().map(|(_, f)| f).collect()
    }

    /// A log without Actions steps: the traceback a passing pytest run printed (`-s`) is no
    /// failure once the run says it passed; one after the summary is.
    #[test]
    fn blocks_before_a_passing_test_summary_are_handled() {
        let tb = "Traceback (most recent call last):\n  File \"green/test_g.py\", line 12, in parse\n    raise ValueError(\"x\")\nValueError: Error: not a number\n";
        for summary in [
            "======== 6 passed, 1 xfailed, 2 warnings in 0.02s ========",
            "= 1 passed in 0.01s =",
        ] {
            let got = run(&format!("{tb}Error: connection refused\n{summary}\n"));
            assert!(got.is_empty(), "{summary}: {got:#?}");
        }
        let got = run(&format!(
            "{tb}========= 1 failed, 5 passed in 0.02s =========\n"
        ));
        assert_eq!(got.len(), 1);
        let got = run(&format!("= 1 passed in 0.01s =\n{tb}"));
        assert_eq!(got.len(), 1);
    }

    /// The noise a passing test prints (lines of the corpus' green sample projects): an
    /// `Error:` last word, an `error:` diagnostic-like line and a handled traceback.
    const PRINTED: &str = "Error: connection refused (retrying)\nerror: retrying connection (attempt 1 of 3)\nTraceback (most recent call last):\n  File \"unit_green/test_green.py\", line 14, in test_error_handling\n    {}[\"missing\"]\nKeyError: 'missing'\n";

    fn names(log: &str) -> Vec<String> {
        run(log).into_iter().map(|f| f.test_name).collect()
    }

    /// What the scanner finds in `PRINTED`, a line without a trigger, and `summary`: the
    /// summary's first line reaches the idle parser only through its trigger.
    fn scanned(summary: &str) -> Vec<Failure> {
        let log = format!("{PRINTED}..x.s\n{summary}\n");
        crate::parse_log(log.as_bytes())
    }

    const ALL_PRINTED: [&str; 3] = [
        "Error: connection refused (retrying)",
        "error: retrying connection (attempt 1 of 3)",
        "KeyError: 'missing'",
    ];

    /// A raw unittest log: `Ran N tests`, a blank line, then `OK` (with its details or not)
    /// says the run passed, and only that.
    #[test]
    fn blocks_before_unittest_ok_are_handled() {
        for ok in [
            "OK",
            "OK (skipped=1, expected failures=1)",
            "OK (skipped=2)",
        ] {
            let log = format!(
                "{PRINTED}.x.s\n{}\nRan 4 tests in 0.006s\n\n{ok}\n",
                "-".repeat(70)
            );
            assert!(names(&log).is_empty(), "{ok}: {:?}", names(&log));
        }
        // Through the scanner, which skips lines without a trigger: the blank line and a
        // plain `OK` have none, and reach the parser because it is busy after `Ran`.
        for ok in ["OK", "OK (skipped=1)"] {
            let got = scanned(&format!("Ran 1 test in 0.000s\n\n{ok}"));
            assert!(got.is_empty(), "{ok}: {got:#?}");
        }
        assert_eq!(
            scanned("Ran 1 test in 0.000s\n\nFAILED (failures=1)").len(),
            3
        );
        // What follows the summary counts.
        let log = format!("Ran 1 test in 0.000s\n\nOK\n{PRINTED}");
        assert_eq!(names(&log), ALL_PRINTED);
    }

    #[test]
    fn blocks_before_a_failed_unittest_summary_still_count() {
        for verdict in [
            "FAILED (failures=1)",
            "FAILED (errors=1, skipped=1)",
            "NO TESTS RAN",
        ] {
            let log = format!("{PRINTED}Ran 4 tests in 0.006s\n\n{verdict}\n");
            assert_eq!(names(&log), ALL_PRINTED, "{verdict}");
        }
        // `OK` only right after the blank line after `Ran`.
        for log in [
            format!("{PRINTED}Ran 4 tests in 0.006s\nOK\n"),
            format!("{PRINTED}Ran 4 tests in 0.006s\n\nsomething else\nOK\n"),
            format!("{PRINTED}OK\n"),
        ] {
            assert_eq!(names(&log), ALL_PRINTED, "{log}");
        }
        // An error right after `Ran` is a block as ever.
        let got = names(&format!("Ran 4 tests in 0.006s\n{PRINTED}"));
        assert_eq!(got, ALL_PRINTED);
    }

    #[test]
    fn blocks_before_rspec_zero_failures_are_handled() {
        for summary in [
            "5 examples, 0 failures",
            "5 examples, 0 failures, 2 pending",
            "1 example, 0 failures",
        ] {
            let log = format!(
                "{PRINTED}.**\n\nFinished in 0.12139 seconds (files took 0.94727 seconds to load)\n{summary}\n\n"
            );
            assert!(names(&log).is_empty(), "{summary}: {:?}", names(&log));
            assert!(scanned(summary).is_empty(), "{summary}");
        }
    }

    #[test]
    fn blocks_before_a_failed_rspec_summary_still_count() {
        for summary in [
            "5 examples, 1 failure",
            "5 examples, 10 failures, 2 pending",
            "0 examples, 0 failures, 1 error occurred outside of examples",
        ] {
            let log = format!(
                "{PRINTED}Finished in 0.1 seconds (files took 0.9 seconds to load)\n{summary}\n"
            );
            assert_eq!(names(&log), ALL_PRINTED, "{summary}");
        }
    }

    /// PHPUnit's verdict comes a few lines after its `Time: …, Memory: …` line (after the
    /// non-successful tests under `--testdox`).
    #[test]
    fn blocks_before_phpunit_ok_are_handled() {
        const TIME: &str = "Time: 00:00.046, Memory: 6.00 MB";
        for summary in [
            "OK (6 tests, 5 assertions)",
            "OK (1 test, 1 assertion)",
            "OK, but incomplete, skipped, or risky tests!\nTests: 6, Assertions: 5, Skipped: 1.",
            "OK, but there were issues!\nTests: 1, Assertions: 1, Deprecations: 1.",
            "Summary of non-successful tests:\n\nReport (Acme\\Widgets\\Tests\\Green\\Report)\n \u{21a9} Skipped without database\nOK, but incomplete, skipped, or risky tests!\nTests: 6, Assertions: 5, Skipped: 1.",
        ] {
            let log =
                format!("{PRINTED}...S                  6 / 6 (100%)\n\n{TIME}\n\n{summary}\n");
            assert!(names(&log).is_empty(), "{summary}: {:?}", names(&log));
            // Through the scanner: the lines after `Time:` have no trigger and reach the
            // parser because it is busy.
            let got = scanned(&format!("{TIME}\n\n{summary}"));
            assert!(got.is_empty(), "{summary}: {got:#?}");
        }
        // What follows the verdict counts.
        let log = format!("{TIME}\n\nOK (1 test, 1 assertion)\n{PRINTED}");
        assert_eq!(names(&log), ALL_PRINTED);
    }

    #[test]
    fn blocks_before_a_failed_phpunit_summary_still_count() {
        for summary in [
            "FAILURES!\nTests: 6, Assertions: 5, Failures: 1.",
            "ERRORS!\nTests: 6, Assertions: 5, Errors: 1, Skipped: 1.",
            "WARNINGS!\nTests: 6, Assertions: 5, Warnings: 1.",
            // A verdict after the one that failed is another run's (without its `Time:`).
            "FAILURES!\nTests: 6, Assertions: 5, Failures: 1.\nOK (1 test, 1 assertion)",
            "OK, but incomplete, skipped, or risky tests!\nTests: 6, Assertions: 5, Errors: 1.",
            "OK, but incomplete, skipped, or risky tests!\nsomething else",
        ] {
            let log = format!("{PRINTED}\nTime: 00:00.046, Memory: 6.00 MB\n\n{summary}\n");
            assert_eq!(names(&log), ALL_PRINTED, "{summary}");
        }
        // The verdict without its `Time:` line (which the scanner would not deliver).
        assert_eq!(
            names(&format!("{PRINTED}OK (6 tests, 5 assertions)\n")),
            ALL_PRINTED
        );
        // Only so many lines after `Time:`.
        let far = "x\n".repeat(usize::from(PHPUNIT_VERDICT_LINES));
        let log =
            format!("{PRINTED}Time: 00:00.046, Memory: 6.00 MB\n{far}OK (6 tests, 5 assertions)\n");
        assert_eq!(names(&log), ALL_PRINTED);
    }

    /// In an Actions log the step's exit code decides, not a summary.
    #[test]
    fn summaries_do_not_clear_a_failed_actions_step() {
        let log = format!(
            "##[group]Run python -m unittest\n{PRINTED}Ran 4 tests in 0.006s\n\nOK\n##[error]Process completed with exit code 1.\n"
        );
        assert_eq!(names(&log), ALL_PRINTED);
    }

    #[test]
    fn rustc_errors_with_locations_and_no_summaries() {
        let got = run("   Compiling inventory v0.1.0\n\
error[E0308]: mismatched types\n --> src/main.rs:3:16\n  |\n3 |         return \"none\";\n  |                ^^^^^^ expected `u32`, found `&str`\n\n\
For more information about this error, try `rustc --explain E0308`.\n\
error: could not compile `inventory` (bin \"inventory\") due to 1 previous error\n\
##[error]Process completed with exit code 101.\n");
        assert_eq!(got.len(), 1, "{got:#?}");
        let f = &got[0];
        assert_eq!(f.test_name, "error[E0308]: mismatched types");
        assert_eq!(f.file_path.as_deref(), Some("src/main.rs"));
        assert_eq!(f.line_number, Some(3));
        assert_eq!(f.error_type.as_deref(), Some("E0308"));
        assert_eq!(f.confidence, Confidence::Low);
        assert_eq!(f.framework, Framework::Generic);
        assert!(
            f.error_message.contains("expected `u32`"),
            "{}",
            f.error_message
        );
    }

    #[test]
    fn actions_annotations_compiler_lines_and_fatal() {
        let got = run(
            "##[error]Unable to resolve action `foo/bar@v9`, repository not found\n\
src/util.c:12:5: error: 'x' undeclared (first use in this function)\n\
FATAL: database system is shutting down\n",
        );
        let names: Vec<&str> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Unable to resolve action `foo/bar@v9`, repository not found",
                "error: 'x' undeclared (first use in this function)",
                "FATAL: database system is shutting down"
            ]
        );
        assert_eq!(got[1].file_path.as_deref(), Some("src/util.c"));
        assert_eq!(got[1].line_number, Some(12));
    }

    #[test]
    fn node_throw_python_traceback_and_npm() {
        let got = run(
            "/home/runner/work/a/a/node/config.js:3\n    throw new Error('x');\n    ^\n\n\
Error: APP_CONFIG is not set\n    at loadConfig (/home/runner/work/a/a/node/config.js:3:11)\n    at Module._compile (node:internal/modules/cjs/loader:1521:14)\n\nNode.js v20.20.2\n",
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].test_name, "Error: APP_CONFIG is not set");
        assert_eq!(got[0].file_path.as_deref(), Some("node/config.js"));
        assert_eq!(got[0].line_number, Some(3));
        assert_eq!(got[0].error_type.as_deref(), Some("Error"));

        // The same error logged with its stack by a test that passes: not a crash.
        assert!(run("Error: logged on purpose\n    at t (/home/runner/work/a/a/t.test.js:5:19)\n\n ✓ ok\n").is_empty());
        // A tool's last word, no stack.
        assert_eq!(run("Error: connect ECONNREFUSED 127.0.0.1:5432\n").len(), 1);
        // Not when a passing mocha summary follows: a test printed it (real mocha output).
        let printed = "  ok\nAssertionError [ERR_ASSERTION]: handled, 1 failing check ignored\n    ✔ handles FAILED input\n\n\n  2 passing (45ms)\n\n";
        assert!(run(printed).is_empty());
        assert_eq!(
            run(&format!("{printed}Error: connect ECONNREFUSED\n")).len(),
            1
        );

        let got = run(
            "Traceback (most recent call last):\n  File \"/home/runner/work/a/a/migrate.py\", line 11, in <module>\n    main()\n  File \"/usr/lib/python3.12/json/__init__.py\", line 2, in loads\n    x\nKeyError: 'port'\n",
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].test_name, "KeyError: 'port'");
        assert_eq!(got[0].error_type.as_deref(), Some("KeyError"));
        assert_eq!(got[0].file_path.as_deref(), Some("migrate.py"));
        assert_eq!(got[0].line_number, Some(11));

        let got = run(
            "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/nope\nnpm ERR! A complete log of this run can be found in: /x.log\nnpm ERR! more\n",
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].test_name, "npm error code E404");
        assert_eq!(got[0].error_type.as_deref(), Some("E404"));
        assert!(got[0].error_message.starts_with("404 Not Found"));
    }

    #[test]
    fn a_handful_of_blocks_at_most_and_no_duplicates() {
        let mut log = String::new();
        for i in 0..50 {
            log.push_str(&format!("error: thing {i}\n\nerror: thing 0\n\n"));
        }
        let got = run(&log);
        assert_eq!(got.len(), MAX_BLOCKS);
        assert_eq!(got[1].test_name, "error: thing 1");
    }

    #[test]
    fn output_of_passing_libtest_runs_is_not_an_error() {
        let run_log = "running 2 tests\nerror: about to overflow\nError: handled, falling back to 80\ntest tests::a ... ok\ntest tests::b ... ok\n\ntest result: ok. 2 passed; 0 failed\n\n";
        assert!(run(run_log).is_empty());
        // After the run, errors count again; a crashed binary (no `test result:`) ends it too.
        let got = run(&format!(
            "{run_log}error: linking failed\nrunning 1 test\nerror: test failed, to rerun pass `-p a --lib`\nerror[E0432]: unresolved import\n"
        ));
        let names: Vec<_> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            ["error: linking failed", "error[E0432]: unresolved import"]
        );
    }

    #[test]
    fn errors_of_passing_actions_steps_do_not_count() {
        let got = run(
            "##[group]Run npm test\nError: logged on purpose\n    at t (/home/runner/work/a/a/t.test.js:5:19)\n\
##[group]Run cargo build\nerror[E0308]: mismatched types\n --> src/main.rs:3:16\n\n\
##[error]Process completed with exit code 101.\n##[group]Run echo done\nFATAL: ignored, step passed\n",
        );
        let names: Vec<&str> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(names, ["error[E0308]: mismatched types"]);
        // Annotations count wherever they are.
        let got = run("##[error]Unable to resolve action `foo/bar@v9`\n##[group]Run x\nFATAL: y\n");
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn an_action_whose_command_failed_counts_its_blocks() {
        let got = run(
            "##[group]Run actions-rs/cargo@v1\nwith:\n  command: build\n##[endgroup]\n\
[command]/home/runner/.cargo/bin/cargo build --locked\n\
error: the lock file Cargo.lock needs to be updated but --locked was passed to prevent this\n\
##[error]The process '/home/runner/.cargo/bin/cargo' failed with exit code 101\n",
        );
        let names: Vec<&str> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "error: the lock file Cargo.lock needs to be updated but --locked was passed to prevent this"
            ]
        );
    }

    #[test]
    fn busy_only_inside_a_block() {
        let mut p = Generic::default();
        p.line(0, "Traceback (most recent call last):");
        assert!(p.busy());
        p.line(1, "  File \"x.py\", line 1, in <module>");
        p.line(2, "ValueError: bad");
        p.line(3, "after");
        assert!(!p.busy());
        p.line(4, "##[error]Process completed with exit code 1.");
        assert!(!p.busy());
        assert_eq!(p.finish().len(), 1);
    }

    #[test]
    fn fallback_is_silent_when_a_framework_found_failures() {
        // A real unittest run (its tracebacks are generic blocks too) after a compile error.
        let log = format!(
            "error[E0599]: no method named `x`\n --> src/a.rs:1:1\n\n{}",
            include_str!("../../corpus/unittest/default.log")
        );
        let found = crate::parse_log(log.as_bytes());
        assert!(
            found.iter().all(|f| f.framework != Framework::Generic),
            "{found:#?}"
        );
        assert!(!found.is_empty());
        let alone = crate::parse_log(b"error[E0599]: no method named `x`\n --> src/a.rs:1:1\n\n");
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].framework, Framework::Generic);
    }
}
