//! `cargo test` (libtest's human output), read line by line.
//!
//! Each test binary prints `running N tests`, `test name ... FAILED` lines, one
//! `---- name stdout ----` block per failure (the captured panic) after a `failures:` header,
//! a `failures:` list of the names (`    name`), and `test result: …`. A *section* runs from
//! `running N tests` to `test result:` (or the next `running N tests`, or the end of the log).
//! The `FAILED` line, the block and the list describe one failure; they are merged, named as
//! libtest names the test. With `--show-output` a `successes:` section of the same blocks
//! comes first: a block before the section's first `failures:` line is a passing test's
//! output and never a failure. The mode libtest prints after a name (`- should panic`,
//! `- compile fail`) is not part of it; a doctest whose output has no location is located
//! by its name (`src/lib.rs - add (line 5)`). With `--nocapture` there is no block: the panic is read from the
//! first `thread 'name' panicked at …` line in the section and the 59 lines after it.
//!
//! Cargo's `Running unittests src/lib.rs (target/debug/deps/<crate>-<hash>)`, `Doc-tests
//! <crate>` (seen outside sections) and `error: test failed, to rerun pass `-p x --lib``
//! (within the section's last line and the 3 after it) name the crate for the reproduce
//! command.
//!
//! Only unindented lines count, so libtest output nested in nextest's report (indented) is
//! left to the nextest parser.
//!
//! Streaming: the parser needs every line only inside a stdout block (until its panic
//! message and backtrace are read), inside the `failures:` list, for the 59 lines after a
//! `thread '…'` line and for the 3 lines after a section ends. Every other line it reads
//! carries one of [`TRIGGERS`]: `running `, `Running `, `Doc-tests `, `FAILED` (libtest may
//! colour it: `test x ... \x1b[31mFAILED`), `---- `, `failures:`, `thread '`,
//! `backtrace:`, `t result:`, `rerun pass`. Passing tests (`test x ... ok`) are
//! never looked at.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use crate::reproduce::option_args;
use regex::Regex;

use super::{LineParser, MAX_FAILURES, bounded_str, relative_path};
use crate::{Confidence, Failure, Framework};

/// Longest error message kept, in bytes.
pub(crate) const MAX_MESSAGE: usize = 2000;
/// Longest stack trace kept, in bytes.
pub(crate) const MAX_TRACE: usize = 4000;
/// Lines read from a `thread '…'` line on, for a test without a stdout block.
const INLINE_LINES: usize = 60;
/// Lines, from a section's last on, where cargo's rerun hint is looked for.
const HINT_LINES: usize = 4;

/// The substrings (in the raw log) of every line this parser reads while not busy.
///
/// `t result:`, `backtrace:` and `rerun pass` stand for `test result:`, `stack backtrace:`
/// and `to rerun pass`: the scanner's search checks each candidate by its first three bytes,
/// and `tes`, `sta` and `to ` start a good part of every passing test's line (`tests/…`,
/// `test_…`, `status`), which made the skip over a large pytest log three times slower.
pub const TRIGGERS: &[&str] = &[
    "running ",
    "Running ",
    "Doc-tests ",
    "FAILED",
    "failed",
    "---- ",
    "failures:",
    "thread '",
    "backtrace:",
    "t result:",
    "rerun pass",
];

static RUNNING_TESTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^running \d+ tests?$").expect("regex"));
static TEST_FAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^test (.+?)(?: - (?:should panic|compile fail|compile))? \.\.\. (?:FAILED|failed)$",
    )
    .expect("regex")
});
static STDOUT_HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^---- (.+?) (?:stdout|stderr) ----$").expect("regex"));
static RUNNING_BINARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*Running (unittests |benches? )?(\S+) \((?:.*[/\\])?([A-Za-z0-9_\-]+?)-[0-9a-f]{8,}(?:\.exe)?\)$")
        .expect("regex")
});
static DOC_TESTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*Doc-tests (\S+)$").expect("regex"));
static RERUN_HINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^error: (?:test|doctest|bench) failed, to rerun pass `(.+)`$").expect("regex")
});
static PANIC_NEW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^thread '(.*?)'(?: \(\d+\))? panicked at (.+?):(\d+):(\d+):$").expect("regex")
});
static PANIC_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^thread '(.*?)'(?: \(\d+\))? panicked at '(.*)', (.+?):(\d+):(\d+)$")
        .expect("regex")
});
static NO_PANIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^note: test did not panic as expected(?: at (.+?):(\d+):(\d+))?").expect("regex")
});
static NEXTEST_STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:TRY \d+ )?[A-Z][A-Z-]*(?: \d+/\d+)? \[\s*[\d.]+s\] ").expect("regex")
});
static DOCTEST_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+\.rs) - .*\(line (\d+)\)$").expect("regex"));
static COMPILE_LOCATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*--> (.+?):(\d+):(\d+)$").expect("regex"));

/// Appends `s` to `out` until `out` is longer than `cap`: afterwards the first `cap` bytes of
/// `out`, and whether it is longer than `cap`, are those of the whole text, so
/// [`bounded_str`]`(out, cap)` is the bounded whole text.
pub(crate) fn push_capped(out: &mut String, s: &str, cap: usize) {
    if out.len() > cap {
        return;
    }
    let room = cap + 1 - out.len();
    if s.len() <= room {
        out.push_str(s);
        return;
    }
    let mut end = room;
    while !s.is_char_boundary(end) {
        end += 1;
    }
    out.push_str(&s[..end]);
}

/// Lines joined with `\n`, of which only what [`bounded_str`] keeps is stored.
#[derive(Debug, Clone)]
pub(crate) struct Joined {
    text: String,
    lines: usize,
    cap: usize,
}

impl Joined {
    pub(crate) fn new(cap: usize) -> Self {
        Joined {
            text: String::new(),
            lines: 0,
            cap,
        }
    }

    pub(crate) fn push(&mut self, line: &str) {
        if self.lines > 0 {
            push_capped(&mut self.text, "\n", self.cap);
        }
        push_capped(&mut self.text, line, self.cap);
        self.lines += 1;
    }

    /// Appends the lines of `other`.
    fn append(&mut self, other: &Joined) {
        if other.lines == 0 {
            return;
        }
        if self.lines > 0 {
            push_capped(&mut self.text, "\n", self.cap);
        }
        push_capped(&mut self.text, &other.text, self.cap);
        self.lines += other.lines;
    }

    fn clear(&mut self) {
        self.text.clear();
        self.lines = 0;
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// The joined lines, cut to the cap.
    pub(crate) fn text(&self) -> String {
        bounded_str(&self.text, self.cap)
    }
}

/// What a failure's captured output says about it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Details {
    pub file_path: Option<String>,
    pub line_number: Option<u64>,
    pub error_type: Option<String>,
    pub error_message: String,
    pub stack_trace: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Before the line that decides what kind of failure this is.
    Scanning,
    /// The panic message, up to the backtrace note.
    Message,
    /// Looking for `stack backtrace:`.
    SeekTrace,
    /// Inside the backtrace.
    Trace,
    Done,
}

/// Reads a failure's captured output (already dedented) line by line: a panic with its
/// location and message (incl. `left:`/`right:`) and backtrace, a `#[should_panic]` test that
/// did not panic, a test that returned `Err`, or a doctest that failed to compile. Keeps
/// only bounded text.
#[derive(Debug, Clone)]
pub(crate) struct DetailsReader {
    d: Details,
    reading: Reading,
    /// The non-blank lines, for a failure none of the shapes above describes.
    all: Joined,
    /// The panic message up to its last non-blank line, and the blank lines after it.
    message: Joined,
    blanks: Joined,
    trace: Joined,
    /// `error…` lines waiting for a `--> file:line:col` within the next 3 lines.
    compile: Vec<(String, u8)>,
    /// A `Error: ` line decided the message; a compile location may still set the file.
    returned_err: bool,
}

impl Default for DetailsReader {
    fn default() -> Self {
        DetailsReader {
            d: Details::default(),
            reading: Reading::Scanning,
            all: Joined::new(MAX_MESSAGE),
            message: Joined::new(MAX_MESSAGE),
            blanks: Joined::new(MAX_MESSAGE),
            trace: Joined::new(MAX_TRACE),
            compile: Vec::new(),
            returned_err: false,
        }
    }
}

impl DetailsReader {
    /// Whether the next line may change the result even if it has no trigger
    /// (`stack backtrace:` is one).
    pub(crate) fn needs_lines(&self) -> bool {
        match self.reading {
            Reading::Scanning | Reading::Message | Reading::Trace => true,
            Reading::SeekTrace => false,
            Reading::Done => !self.compile.is_empty(),
        }
    }

    pub(crate) fn line(&mut self, line: &str) {
        if !self.compile.is_empty() {
            self.compile_location(line);
        }
        match self.reading {
            Reading::Scanning => self.scanning(line),
            Reading::Message => {
                if line.starts_with("note: run with `RUST_BACKTRACE")
                    || line.starts_with("stack backtrace:")
                    || (line.starts_with("thread '") && PANIC_NEW.is_match(line))
                {
                    self.end_message();
                    self.reading = Reading::SeekTrace;
                    self.seek_trace(line);
                } else if line.trim().is_empty() {
                    self.blanks.push(line);
                } else {
                    self.message.append(&self.blanks);
                    self.blanks.clear();
                    self.message.push(line);
                }
            }
            Reading::SeekTrace => self.seek_trace(line),
            Reading::Trace => self.trace_line(line),
            Reading::Done => {}
        }
    }

    fn scanning(&mut self, line: &str) {
        if line.starts_with("thread '") {
            if let Some(c) = PANIC_NEW.captures(line) {
                self.d.file_path = Some(relative_path(&c[2]));
                self.d.line_number = c[3].parse().ok();
                self.compile.clear();
                self.reading = Reading::Message;
                return;
            }
            if let Some(c) = PANIC_OLD.captures(line) {
                self.d.file_path = Some(relative_path(&c[3]));
                self.d.line_number = c[4].parse().ok();
                self.d.error_message = bounded_str(&c[2], MAX_MESSAGE);
                self.d.error_type = Some(error_type(&self.d.error_message).to_owned());
                self.compile.clear();
                self.reading = Reading::SeekTrace;
                return;
            }
        }
        if line.starts_with("note: test did not panic")
            && let Some(c) = NO_PANIC.captures(line)
        {
            self.d.file_path = c.get(1).map(|m| relative_path(m.as_str()));
            self.d.line_number = c.get(2).and_then(|m| m.as_str().parse().ok());
            self.d.error_type = Some("did not panic".to_owned());
            self.d.error_message = "test did not panic as expected".to_owned();
            self.compile.clear();
            self.reading = Reading::Done;
            return;
        }
        if let Some(rest) = line.strip_prefix("Error: ") {
            self.d.error_type = Some("returned Err".to_owned());
            self.d.error_message = bounded_str(rest, MAX_MESSAGE);
            self.returned_err = true;
            self.reading = Reading::Done;
            return;
        }
        if self.d.file_path.is_none() && line.starts_with("error") && self.compile.len() < 4 {
            self.compile.push((bounded_str(line, MAX_MESSAGE), 3));
        }
        if !line.trim().is_empty() {
            self.all.push(line);
        }
    }

    /// A doctest that did not compile: `error[E0425]: …` then, within 3 lines,
    /// `--> src/lib.rs:6:1`. The earliest waiting `error` line wins.
    fn compile_location(&mut self, line: &str) {
        if line.contains("--> ")
            && self.d.file_path.is_none()
            && let Some(c) = COMPILE_LOCATION.captures(line)
        {
            let (message, _) = self.compile.remove(0);
            self.d.file_path = Some(relative_path(&c[1]));
            self.d.line_number = c[2].parse().ok();
            if !self.returned_err {
                self.d.error_type = Some("compile error".to_owned());
                self.d.error_message = message;
            }
            self.compile.clear();
            return;
        }
        for (_, left) in &mut self.compile {
            *left -= 1;
        }
        self.compile.retain(|(_, left)| *left > 0);
    }

    fn end_message(&mut self) {
        self.d.error_message = self.message.text();
        self.d.error_type = Some(error_type(&self.d.error_message).to_owned());
    }

    fn seek_trace(&mut self, line: &str) {
        if line.starts_with("stack backtrace:") {
            self.reading = Reading::Trace;
            self.trace_line(line);
        }
    }

    fn trace_line(&mut self, line: &str) {
        if line.trim().is_empty() {
            self.reading = Reading::Done;
            return;
        }
        self.trace.push(line);
        if line.starts_with("note: Some details are omitted") {
            self.reading = Reading::Done;
        }
    }

    pub(crate) fn finish(mut self) -> Details {
        match self.reading {
            Reading::Scanning if self.d.error_message.is_empty() => {
                self.d.error_message = self.all.text();
            }
            Reading::Message => self.end_message(),
            _ => {}
        }
        if !self.trace.is_empty() {
            self.d.stack_trace = Some(self.trace.text());
        }
        self.d
    }
}

fn error_type(message: &str) -> &'static str {
    if message.starts_with("assertion") {
        "assertion failed"
    } else {
        "panicked"
    }
}

/// A failing test of the current section.
struct Found {
    offset: u64,
    name: String,
    /// What its stdout block says, once the block ended; `None` while it has no block.
    block: Option<Details>,
    listed: bool,
}

/// A `thread 'name' …` line and the lines after it, for tests without a stdout block.
struct Inline {
    thread: String,
    reader: DetailsReader,
    left: usize,
}

/// One test binary's section: `running N tests` to `test result:`.
struct Section {
    /// The reproduce selector known when the section started.
    selector: Vec<String>,
    found: Vec<Found>,
    index: HashMap<String, usize>,
    /// The stdout block being read: the failure it belongs to (`None` for a second block of
    /// the same test, which is skipped) and its reader.
    block: Option<(Option<usize>, DetailsReader)>,
    /// Inside the `failures:` list.
    list: bool,
    /// A `failures:` line was seen: stdout blocks before it are passing tests' output
    /// (`--show-output` prints a `successes:` section first), not failures.
    failures_seen: bool,
    inline: Vec<Inline>,
    inline_done: HashMap<String, Details>,
    inline_seen: HashSet<String>,
    /// Printed inside nextest's report of a test (see [`CargoTest::nextest_output`]).
    nextest: bool,
}

/// A section that ended, waiting for cargo's rerun hint.
struct Ended {
    found: Vec<(Found, Details)>,
    selector: Vec<String>,
    left: usize,
}

/// The `cargo test` parser. See the module documentation.
#[derive(Default)]
pub struct CargoTest {
    /// `-p alpha --lib`, from the last `Running …`/`Doc-tests …` line outside a section.
    selector: Vec<String>,
    section: Option<Section>,
    ended: Vec<Ended>,
    out: Vec<(u64, Failure)>,
    /// A nextest header of unindented captured output was the last thing seen: the libtest
    /// run that follows is inside nextest's report of a test, nextest's to report.
    nextest_output: bool,
}

impl CargoTest {
    pub fn new() -> Self {
        Self::default()
    }

    fn end_section(&mut self) {
        let Some(mut s) = self.section.take() else {
            return;
        };
        if s.nextest {
            return;
        }
        if let Some((Some(n), reader)) = s.block.take() {
            s.found[n].block = Some(reader.finish());
        }
        for i in s.inline.drain(..) {
            s.inline_done.insert(i.thread, i.reader.finish());
        }
        let found = s
            .found
            .into_iter()
            .map(|mut f| {
                let d = f
                    .block
                    .take()
                    .or_else(|| s.inline_done.remove(&f.name))
                    .unwrap_or_default();
                (f, d)
            })
            .collect();
        self.ended.push(Ended {
            found,
            selector: s.selector,
            left: HINT_LINES,
        });
    }

    /// Feeds `line` to the sections waiting for a rerun hint; reports those that are done.
    fn hint_line(&mut self, line: &str) {
        let hint = (line.starts_with("error: ") && line.contains("to rerun pass"))
            .then(|| RERUN_HINT.captures(line))
            .flatten()
            .map(|c| {
                c[1].split_whitespace()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            });
        // `cargo nextest run --no-capture` shows each test's libtest output, then nextest's
        // status line for it: the nextest parser reports that test (a failed try may pass
        // on the next), so the section is not a cargo test failure.
        if nextest_status(line) {
            self.ended.clear();
            return;
        }
        let binary = is_binary_line(line);
        let mut i = 0;
        while i < self.ended.len() {
            let e = &mut self.ended[i];
            e.left -= 1;
            if let Some(selector) = &hint {
                e.selector = selector.clone();
            }
            if hint.is_some() || binary || e.left == 0 {
                let e = self.ended.remove(i);
                self.report(e);
            } else {
                i += 1;
            }
        }
    }

    fn report(&mut self, e: Ended) {
        for (f, mut d) in e.found {
            if self.out.len() >= MAX_FAILURES {
                return;
            }
            // A doctest that printed no location (`compile_fail` that compiled) is named
            // after its place: `src/lib.rs - add (line 5)`.
            if d.file_path.is_none()
                && let Some(c) = DOCTEST_NAME.captures(&f.name)
            {
                d.file_path = Some(relative_path(&c[1]));
                d.line_number = c[2].parse().ok();
            }
            let confidence = if f.listed && d.file_path.is_some() {
                Confidence::High
            } else {
                Confidence::Medium
            };
            let reproduce_command = crate::reproduce::cargo_test(&e.selector, &f.name);
            self.out.push((
                f.offset,
                Failure {
                    test_name: f.name,
                    file_path: d.file_path,
                    line_number: d.line_number,
                    error_type: d.error_type,
                    error_message: d.error_message,
                    stack_trace: d.stack_trace,
                    confidence,
                    framework: Framework::CargoTest,
                    reproduce_command,
                },
            ));
        }
    }

    /// A line outside any section: the binary being run, or a section's start.
    fn outside(&mut self, line: &str) {
        let t = line.trim_start();
        if t.starts_with("Running ") {
            if let Some(c) = RUNNING_BINARY.captures(line) {
                self.selector = selector_from_running(c.get(1).is_some(), &c[2], &c[3]);
            }
        } else if t.starts_with("Doc-tests ") {
            if let Some(c) = DOC_TESTS.captures(line) {
                self.selector = option_args("-p", "--package", &c[1].replace('_', "-"));
                self.selector.push("--doc".into());
            }
        } else if line.starts_with("running ") && RUNNING_TESTS.is_match(line) {
            self.section = Some(Section {
                selector: self.selector.clone(),
                found: Vec::new(),
                index: HashMap::new(),
                block: None,
                list: false,
                failures_seen: false,
                inline: Vec::new(),
                inline_done: HashMap::new(),
                inline_seen: HashSet::new(),
                nextest: std::mem::take(&mut self.nextest_output),
            });
        }
    }
}

impl Section {
    /// The failure named `name`, added at `offset` if new (`None` past the cap).
    fn get(&mut self, name: &str, offset: u64) -> Option<usize> {
        if let Some(&n) = self.index.get(name) {
            return Some(n);
        }
        if self.found.len() >= MAX_FAILURES {
            return None;
        }
        self.found.push(Found {
            offset,
            name: name.to_owned(),
            block: None,
            listed: false,
        });
        self.index.insert(name.to_owned(), self.found.len() - 1);
        Some(self.found.len() - 1)
    }

    fn busy(&self) -> bool {
        self.list
            || self
                .block
                .as_ref()
                .is_some_and(|(n, r)| n.is_some() && r.needs_lines())
            || !self.inline.is_empty()
    }

    fn line(&mut self, offset: u64, line: &str) {
        self.inline_line(line);
        if let Some((n, reader)) = &mut self.block {
            let header = line.starts_with("---- ") && STDOUT_HEADER.is_match(line);
            if !header && line != "failures:" {
                if n.is_some() {
                    reader.line(line);
                }
                return;
            }
            if let Some((Some(n), reader)) = self.block.take() {
                self.found[n].block = Some(reader.finish());
            }
        }
        if self.list {
            if let Some(name) = line.strip_prefix("    ") {
                if let Some(n) = self.get(name.trim(), offset) {
                    self.found[n].listed = true;
                }
                return;
            }
            if line.trim().is_empty() {
                return;
            }
            self.list = false;
        }
        if line.starts_with("test ") {
            if let Some(c) = TEST_FAILED.captures(line) {
                self.get(&c[1], offset);
            }
        } else if line.starts_with("---- ") {
            if let Some(c) = STDOUT_HEADER.captures(line) {
                // Before `failures:`, a block is a passing test's output (`successes:`).
                let n = if self.failures_seen {
                    self.get(&c[1], offset)
                        .filter(|&n| self.found[n].block.is_none())
                } else {
                    None
                };
                self.block = Some((n, DetailsReader::default()));
            }
        } else if line == "failures:" {
            self.list = true;
            self.failures_seen = true;
        }
    }

    /// `--nocapture`: the first `thread 'name' …` line of each thread, and the lines after it.
    fn inline_line(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("thread '")
            && self.inline_seen.len() < MAX_FAILURES
        {
            let thread = rest.split('\'').next().unwrap_or(rest);
            if !self.inline_seen.contains(thread) {
                self.inline_seen.insert(thread.to_owned());
                self.inline.push(Inline {
                    thread: thread.to_owned(),
                    reader: DetailsReader::default(),
                    left: INLINE_LINES,
                });
            }
        }
        if self.inline.is_empty() {
            return;
        }
        for i in &mut self.inline {
            i.reader.line(line);
            i.left -= 1;
        }
        let mut k = 0;
        while k < self.inline.len() {
            let i = &self.inline[k];
            if i.left == 0
                || matches!(i.reader.reading, Reading::Done) && i.reader.compile.is_empty()
            {
                let i = self.inline.remove(k);
                self.inline_done.insert(i.thread, i.reader.finish());
            } else {
                k += 1;
            }
        }
    }
}

/// A nextest status line: `  TRY 1 FAIL [   0.018s] (───) beta tests::x`, `PASS [ 0.011s] …`.
fn nextest_status(line: &str) -> bool {
    let t = line.trim_start();
    t.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
        && t.contains("s] ")
        && NEXTEST_STATUS.is_match(t)
}

fn is_binary_line(line: &str) -> bool {
    let t = line.trim_start();
    (t.starts_with("Running ") && RUNNING_BINARY.is_match(line))
        || (t.starts_with("Doc-tests ") && DOC_TESTS.is_match(line))
}

impl LineParser for CargoTest {
    fn line(&mut self, offset: u64, line: &str) {
        if self.section.is_some()
            && (line.starts_with("test result:")
                || (line.starts_with("running ") && RUNNING_TESTS.is_match(line)))
        {
            self.end_section();
        }
        if !self.ended.is_empty() {
            self.hint_line(line);
        }
        if self.section.is_none() {
            if super::nextest::flat_output_header(line) {
                self.nextest_output = true;
            } else if self.nextest_output && (nextest_status(line) || is_binary_line(line)) {
                self.nextest_output = false;
            }
        }
        match &mut self.section {
            Some(s) => s.line(offset, line),
            None => self.outside(line),
        }
    }

    fn busy(&self) -> bool {
        !self.ended.is_empty() || self.section.as_ref().is_some_and(Section::busy)
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.end_section();
        for e in std::mem::take(&mut self.ended) {
            self.report(e);
        }
        std::mem::take(&mut self.out)
    }
}

fn selector_from_running(unittests: bool, source: &str, stem: &str) -> Vec<String> {
    let krate = stem.replace('_', "-");
    if unittests && source.ends_with("lib.rs") {
        let mut selector = option_args("-p", "--package", &krate);
        selector.push("--lib".into());
        selector
    } else if source.starts_with("tests/") {
        // Integration test: the stem is the target, the package is unknown here.
        option_args("--test", "--test", stem)
    } else {
        option_args("-p", "--package", &krate)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `lines` read by a [`DetailsReader`].
    pub(crate) fn details(lines: &[&str]) -> Details {
        let mut r = DetailsReader::default();
        for l in lines {
            r.line(l);
        }
        r.finish()
    }

    fn parse(log: &str) -> Vec<Failure> {
        crate::parse_log(log.as_bytes())
            .into_iter()
            .filter(|f| f.framework == Framework::CargoTest)
            .collect()
    }

    const LOG: &str = "\
   Compiling alpha v0.1.0 (/home/runner/work/repo/repo/alpha)
warning: unused variable: `unused`
     Running unittests src/lib.rs (target/debug/deps/alpha-e62994b938fd5803)

running 4 tests
test tests::error_is_reported ... ok
test tests::should_overflow - should panic ... FAILED
test tests::report_matches ... FAILED
test tests::returns_err ... FAILED

failures:

---- tests::should_overflow stdout ----
note: test did not panic as expected at alpha/src/lib.rs:57:8
---- tests::report_matches stdout ----

thread 'tests::report_matches' (21171) panicked at /home/runner/work/repo/repo/alpha/src/lib.rs:40:9:
assertion `left == right` failed: reports differ
  left: Report [
    beta,
]
 right: Report [
    delta,
]
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

---- tests::returns_err stdout ----
Error: \"config file missing\"


failures:
    tests::report_matches
    tests::returns_err
    tests::should_overflow

test result: FAILED. 1 passed; 3 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.12s

error: test failed, to rerun pass `-p alpha --lib`
";

    #[test]
    fn block_and_list_merge_into_one_failure_each() {
        let found = parse(LOG);
        let names: Vec<_> = found.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "tests::should_overflow",
                "tests::report_matches",
                "tests::returns_err"
            ]
        );
        let f = &found[1];
        assert_eq!(f.file_path.as_deref(), Some("alpha/src/lib.rs"));
        assert_eq!(f.line_number, Some(40));
        assert_eq!(f.error_type.as_deref(), Some("assertion failed"));
        assert!(
            f.error_message.contains(" right: Report [\n    delta,"),
            "{}",
            f.error_message
        );
        assert_eq!(f.confidence, Confidence::High);
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("cargo test -p alpha --lib -- --exact tests::report_matches")
        );
        assert_eq!(found[0].line_number, Some(57));
        assert_eq!(found[0].error_type.as_deref(), Some("did not panic"));
        assert_eq!(found[2].error_message, "\"config file missing\"");
        assert_eq!(found[2].error_type.as_deref(), Some("returned Err"));
    }

    #[test]
    fn show_output_success_blocks_are_not_failures() {
        let log = "running 2 tests\ntest tests::noisy ... ok\ntest tests::broken ... FAILED\n\nsuccesses:\n\n---- tests::noisy stdout ----\nstep 1: FAILED to reach cache\nthread 'tests::noisy' panicked at src/lib.rs:9:9:\ncaught\n\n\nsuccesses:\n    tests::noisy\n\nfailures:\n\n---- tests::broken stdout ----\n\nthread 'tests::broken' panicked at src/lib.rs:20:5:\nboom\n\n\nfailures:\n    tests::broken\n\ntest result: FAILED. 1 passed; 1 failed\n";
        let found = parse(log);
        let names: Vec<_> = found.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(names, ["tests::broken"]);
        assert_eq!(found[0].line_number, Some(20));
        let green = "running 1 test\ntest tests::noisy ... ok\n\nsuccesses:\n\n---- tests::noisy stdout ----\nerror: cache unavailable\n\n\nsuccesses:\n    tests::noisy\n\ntest result: ok. 1 passed; 0 failed\n";
        assert!(parse(green).is_empty());
    }

    /// libtest names a test's mode after it (`- should panic`, and for doctests `- compile
    /// fail`, `- compile` for `no_run`); the `failures:` list does not.
    #[test]
    fn test_modes_are_not_part_of_the_name() {
        let log = "running 2 tests\ntest src/lib.rs - sub (line 15) - compile fail ... FAILED\ntest src/lib.rs - run (line 30) - compile ... FAILED\n\nfailures:\n\n---- src/lib.rs - sub (line 15) stdout ----\nTest compiled successfully, but it's marked `compile_fail`.\n\nfailures:\n    src/lib.rs - sub (line 15)\n    src/lib.rs - run (line 30)\n\ntest result: FAILED. 0 passed; 2 failed\n";
        let found = parse(log);
        let names: Vec<_> = found.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            ["src/lib.rs - sub (line 15)", "src/lib.rs - run (line 30)"]
        );
        // No location printed: the doctest's name says where it is.
        assert_eq!(found[0].file_path.as_deref(), Some("src/lib.rs"));
        assert_eq!(found[0].line_number, Some(15));
    }

    /// `cargo nextest run --no-capture`: libtest's output of each test, unindented, then
    /// nextest's status line; the test is nextest's to report (this try may be retried).
    #[test]
    fn libtest_output_inside_nextest_no_capture_is_left_to_nextest() {
        let log = "       START [         ] (2/7) beta tests::flaky\nrunning 1 test\nthread 'tests::flaky' (1) panicked at beta/src/lib.rs:30:13:\nconnection reset\ntest tests::flaky ... FAILED\n\nfailures:\n\nfailures:\n    tests::flaky\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 4 filtered out; finished in 0.00s\n\n  TRY 1 FAIL [   0.018s] (───) beta tests::flaky\n TRY 2 START [         ] (───) beta tests::flaky\nrunning 1 test\ntest tests::flaky ... ok\n\ntest result: ok. 1 passed; 0 failed\n\n  TRY 2 PASS [   0.011s] (2/7) beta tests::flaky\n";
        assert!(parse(log).is_empty());
    }

    #[test]
    fn passing_tests_named_like_errors_are_not_failures() {
        let log = "running 1 test\ntest tests::error_is_reported ... ok\n\ntest result: ok. 1 passed; 0 failed\n";
        assert!(parse(log).is_empty());
    }

    #[test]
    fn nested_libtest_output_in_nextest_is_ignored() {
        let log = "    running 1 test\n    test a::b ... FAILED\n\n    failures:\n        a::b\n";
        assert!(parse(log).is_empty());
    }

    #[test]
    fn doctests_get_a_doc_reproduce_command() {
        let log = "   Doc-tests alpha\n\nrunning 1 test\ntest alpha/src/lib.rs - add (line 5) ... FAILED\n\nfailures:\n\n---- alpha/src/lib.rs - add (line 5) stdout ----\nTest executable failed (exit status: 101).\n\nstderr:\n\nthread 'main' (1) panicked at alpha/src/lib.rs:5:1:\nassertion `left == right` failed\n  left: 4\n right: 5\n\n\nfailures:\n    alpha/src/lib.rs - add (line 5)\n\ntest result: FAILED. 0 passed; 1 failed\n";
        let found = parse(log);
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(f.test_name, "alpha/src/lib.rs - add (line 5)");
        assert_eq!(f.line_number, Some(5));
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("cargo test -p alpha --doc -- --exact 'alpha/src/lib.rs - add (line 5)'")
        );
    }

    #[test]
    fn coloured_failed_lines_count_with_and_without_skipping() {
        let log = LOG.replace(" ... FAILED", " ... \x1b[31mFAILED\x1b[0m");
        let mut skipping = crate::Scanner::new();
        skipping.feed(log.as_bytes());
        let mut every = crate::Scanner::without_skipping();
        every.feed(log.as_bytes());
        let skipping = skipping.finish();
        assert_eq!(skipping, every.finish());
        assert_eq!(skipping.found.len(), 3);
        let at = log.find("test tests::should_overflow").expect("line") as u64;
        assert_eq!(skipping.found[0].offset, at);
    }

    #[test]
    fn nocapture_panics_are_read_inline() {
        let log = "running 1 test\nthread 'a::b' panicked at src/a.rs:3:5:\nboom\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\ntest a::b ... FAILED\n\nfailures:\n    a::b\n\ntest result: FAILED. 0 passed; 1 failed\n";
        let found = parse(log);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].line_number, Some(3));
        assert_eq!(found[0].error_message, "boom");
        assert_eq!(found[0].confidence, Confidence::High);
    }

    #[test]
    fn a_doctest_compile_error_names_its_location() {
        let d = details(&[
            "error[E0425]: cannot find value `x` in this scope",
            " --> src/lib.rs:6:1",
            "  |",
        ]);
        assert_eq!(d.file_path.as_deref(), Some("src/lib.rs"));
        assert_eq!(d.line_number, Some(6));
        assert_eq!(d.error_type.as_deref(), Some("compile error"));
    }

    #[test]
    fn long_messages_are_bounded() {
        let long = "x".repeat(10_000);
        let d = details(&["thread 't' panicked at src/a.rs:1:1:", &long]);
        assert!(d.error_message.len() <= MAX_MESSAGE + 3);
        let lines: Vec<String> = (0..10_000).map(|i| format!("line {i}")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let d = details(&refs);
        assert!(d.error_message.len() <= MAX_MESSAGE + 3);
    }

    #[test]
    fn not_busy_after_a_section_and_the_failure_stays() {
        let mut p = CargoTest::new();
        for (i, line) in LOG.lines().enumerate() {
            p.line(i as u64, line);
        }
        for i in 0..10_000 {
            p.line(1_000 + i, "    some build output");
            assert!(!p.busy(), "busy at noise line {i}");
        }
        let found = p.finish();
        assert_eq!(found.len(), 3);
        assert_eq!(found[1].1.line_number, Some(40));
    }
}
