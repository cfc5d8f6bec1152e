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
//! before a pytest run's passing summary (`=== 5 passed, 2 warnings in 0.1s ===`): the run
//! printed them and passed (a test that prints a handled traceback). unittest's `OK` has no
//! trigger of its own (the scanner's pattern budget), so a raw unittest log is not cleared.
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
        // A libtest run's start and end (also cargo_test's triggers).
        "running ",
        "test result:",
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
}

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

/// The summary of a pytest run that passed: `=== 5 passed, 1 xfailed in 0.10s ===` (nothing
/// failed or errored).
fn passing_summary(line: &str) -> bool {
    let t = line.trim_end();
    t.starts_with('=')
        && !t.contains(" failed")
        && !t.contains(" error")
        && PYTEST_PASSED.is_match(t)
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
        if let Some(c) = RUSTC.captures(t) {
            let mut b = Block::new(Kind::Diagnostic, offset, t.to_owned());
            b.error_type = c.get(1).map(|m| m.as_str().to_owned());
            b.keep_message(t);
            return Some(b);
        }
        if let Some(c) = COMPILER.captures(t) {
            let mut b = Block::new(Kind::Diagnostic, offset, format!("error: {}", &c[3]));
            b.file = Some(relative_path(&c[1]));
            b.line = c[2].parse().ok();
            b.keep_message(t);
            return Some(b);
        }
        if let Some(c) = TSC.captures(t) {
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
        if let Some(c) = EXCEPTION.captures(t)
            && (c[1].ends_with("Error") || c[1].ends_with(".Error"))
        {
            let mut b = Block::new(Kind::Exception, offset, t.to_owned());
            b.error_type = Some(c[1].rsplit('.').next().unwrap_or(&c[1]).to_owned());
            b.keep_message(t);
            return Some(b);
        }
        if FATAL.is_match(t) {
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
        if let Some(b) = self.open.as_mut() {
            if Self::continue_block(b, line) {
                return;
            }
            self.close();
        }
        // Blocks a test run printed before it said it passed were handled (a log without
        // Actions steps; in one, the step's exit code decides).
        if !self.actions && passing_summary(line) {
            self.pending.clear();
            return;
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
        self.open.is_some()
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
