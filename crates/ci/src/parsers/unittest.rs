//! Python unittest (`python -m unittest`, also Django's and nose's runners, which print the
//! same blocks): a 70-`=` line, then `FAIL: <desc>` or `ERROR: <desc>`, a dashed line and the
//! traceback, up to the next 70-`=` line or the dashed line before `Ran N tests`. `<desc>` is
//! `test_y (pkg.mod.C.test_y)` (Python ≥ 3.11), `test_y (pkg.mod.C)` (older), with subtest
//! parameters after it (`(n=1)`, `[msg]`: one failure per test, the first block's),
//! `setUpClass (pkg.mod.C)` (names the class) or `pkg.mod (unittest.loader._FailedTest...)`
//! (an import error: names the module). `UNEXPECTED SUCCESS` blocks are not failures.
//!
//! Location: the last traceback frame (`File "path", line N`) in the test's module file (the
//! longest dotted prefix of the test id that names a `.py` file among the frames), else
//! none. Message: the exception, i.e. the lines after the last frame from the first
//! unindented one on. Confidence: `high` with a location, `medium` without.
//!
//! Streaming: the only trigger is the `===` of the 70-`=` rule (unittest never colours the
//! rule; Python 3.14 may colour the header, so it is no reliable trigger). After a rule the
//! parser is busy for the header line, and through a block's traceback until the block ends
//! (the next rule, a line of 35+ dashes, an Actions step boundary). Memory: at most
//! [`MAX_FAILURES`] failures; a block keeps [`MAX_TRACE`] bytes of trace (further lines are
//! counted and the count noted in the trace), [`MAX_MESSAGE`] bytes of exception and its
//! frames condensed to the last line per file.

use std::collections::HashSet;

use super::pytest::{Entries, Lines, in_file};
use super::{LineParser, MAX_FAILURES, bounded_str};
use crate::{Confidence, Failure, Framework};

const RULE: &str = "======================================================================";

/// The rule before every block (70 `=`, never coloured) has `===`, a token pytest's banners
/// share (one pattern less for the scanner's search, see [`super::pytest::TRIGGERS`]).
pub const TRIGGERS: &[&str] = &["==="];

pub const MAX_MESSAGE: usize = 2000;
pub const MAX_TRACE: usize = 4000;

pub fn new() -> Box<dyn LineParser> {
    Box::<Unittest>::default()
}

/// The unittest parser (see the module documentation).
#[derive(Default)]
pub struct Unittest {
    state: State,
    /// The block being read; `None` inside a block not kept (a further subtest of a test
    /// already reported, or beyond [`MAX_FAILURES`]).
    block: Option<Block>,
    /// Test ids reported.
    seen: HashSet<String>,
    out: Vec<(u64, Failure)>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    Idle,
    /// The line after a rule: a block header or not.
    Rule,
    /// The line after a header: the dashed line, or already the traceback.
    Header,
    Body,
    /// After xmlrunner's `UNEXPECTED SUCCESS: <xmlrunner.result._TestInfo object at …>`:
    /// the description is on the next line (the offset of the header).
    Unexpected(u64),
}

#[derive(Debug, Default)]
struct Block {
    offset: u64,
    name: String,
    trace: Lines,
    /// `File "path", line N` frames (the path as printed).
    frames: Entries,
    /// The lines after the last frame, from the first unindented one.
    exception: Lines,
    error_type: Option<String>,
}

const DASHES: &str = "-----------------------------------";

impl LineParser for Unittest {
    fn line(&mut self, offset: u64, line: &str) {
        match self.state {
            State::Idle => {
                if line == RULE {
                    self.state = State::Rule;
                }
            }
            State::Rule => self.header(offset, line),
            State::Unexpected(at) => {
                self.state = State::Idle;
                if let Some(name) = test_id(line)
                    && self.out.len() < MAX_FAILURES
                    && self.seen.insert(name.clone())
                {
                    self.out.push((at, unexpected_success(name)));
                }
            }
            State::Header if line.starts_with("----") => self.state = State::Body,
            State::Header | State::Body => {
                if line == RULE {
                    self.end_block();
                    self.state = State::Rule;
                } else if line.starts_with(DASHES) || step_boundary(line) {
                    self.end_block();
                    self.state = State::Idle;
                } else {
                    self.state = State::Body;
                    if let Some(block) = &mut self.block {
                        block.line(line);
                    }
                }
            }
        }
    }

    fn busy(&self) -> bool {
        self.state != State::Idle
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.end_block();
        self.state = State::Idle;
        std::mem::take(&mut self.out)
    }
}

impl Unittest {
    fn header(&mut self, offset: u64, line: &str) {
        if line.starts_with("UNEXPECTED SUCCESS: <xmlrunner.") {
            self.state = State::Unexpected(offset);
            return;
        }
        let name = header_desc(line).and_then(test_id);
        let Some(name) = name else {
            self.state = if line == RULE {
                State::Rule
            } else {
                State::Idle
            };
            return;
        };
        self.state = State::Header;
        // The first block of a test is reported (further ones are its other subtests).
        self.block = (self.out.len() < MAX_FAILURES && !self.seen.contains(&name)).then(|| Block {
            offset,
            name,
            ..Default::default()
        });
    }

    fn end_block(&mut self) {
        if let Some(block) = self.block.take() {
            self.seen.insert(block.name.clone());
            self.out.push((block.offset, block.failure()));
        }
    }
}

/// An Actions step boundary: the block ended with its step.
fn step_boundary(line: &str) -> bool {
    line.starts_with("##[")
        && (line.starts_with("##[group]")
            || line.starts_with("##[endgroup]")
            || line.starts_with("##[error]Process completed"))
}

/// The description of a `FAIL: <desc>` / `ERROR: <desc>` header, also with the duration
/// unittest-xml-reporting adds (`FAIL [0.001s]: <desc>`).
fn header_desc(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("FAIL")
        .or_else(|| line.strip_prefix("ERROR"))?;
    if let Some(desc) = rest.strip_prefix(": ") {
        return Some(desc);
    }
    let rest = rest.strip_prefix(" [")?;
    let (time, desc) = rest.split_once("]: ")?;
    time.ends_with('s').then_some(desc)
}

/// An unexpected success as unittest-xml-reporting reports it (an error in its XML report):
/// no traceback; the module is the test id's lowercase dotted prefix (`pkg.test_x` of
/// `pkg.test_x.TestC.test_y`), without a line.
fn unexpected_success(name: String) -> Failure {
    let module: Vec<&str> = name
        .split('.')
        .take_while(|p| !p.starts_with(|c: char| c.is_ascii_uppercase()))
        .collect();
    let file_path = (!module.is_empty() && module.len() < name.split('.').count())
        .then(|| format!("{}.py", module.join("/")));
    Failure {
        reproduce_command: crate::reproduce::unittest(&name),
        test_name: name,
        file_path,
        line_number: None,
        error_type: Some("UnexpectedSuccess".to_owned()),
        error_message: "Unexpected success".to_owned(),
        stack_trace: None,
        confidence: Confidence::Medium,
        framework: Framework::Unittest,
    }
}

/// The test id a block header describes.
fn test_id(desc: &str) -> Option<String> {
    let (first, rest) = desc.trim().split_once(' ').unwrap_or((desc.trim(), ""));
    let inner = rest.trim_start().strip_prefix('(')?;
    let inner = &inner[..inner.find(')')?];
    if inner.starts_with("unittest.loader._FailedTest")
        || inner.starts_with("unittest.loader.ModuleImportFailure")
    {
        return Some(first.to_owned());
    }
    if matches!(
        first,
        "setUpClass" | "tearDownClass" | "setUpModule" | "tearDownModule"
    ) {
        return Some(inner.to_owned());
    }
    if inner.strip_suffix(first).is_some_and(|s| s.ends_with('.')) {
        Some(inner.to_owned())
    } else {
        Some(format!("{inner}.{first}"))
    }
}

/// `File "path", line N, in func` (indented): the path and line.
fn frame(line: &str) -> Option<(&str, u64)> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (path, tail) = rest.split_once("\", line ")?;
    let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
    Some((path, tail[..digits].parse().ok()?))
}

impl Block {
    fn line(&mut self, line: &str) {
        self.trace
            .push(line, super::pytest::keep(MAX_TRACE), usize::MAX);
        if let Some((path, n)) = frame(line) {
            self.frames.push(path, n, "");
            self.exception = Lines::default();
            self.error_type = None;
        } else if self.exception.count > 0 || !(line.is_empty() || line.starts_with(' ')) {
            if self.exception.count == 0 {
                self.error_type = line.split(':').next().map(str::trim).and_then(|t| {
                    (!t.is_empty() && !t.contains(' '))
                        .then(|| t.rsplit('.').next().unwrap_or(t).to_owned())
                });
            }
            self.exception
                .push(line, super::pytest::keep(MAX_MESSAGE), usize::MAX);
        }
    }

    fn failure(self) -> Failure {
        let parts: Vec<&str> = self.name.split('.').collect();
        let location = (1..=parts.len()).rev().find_map(|n| {
            let module = format!("{}.py", parts[..n].join("/"));
            let (_, line) = self.frames.last_where(|rel| in_file(rel, &module))?;
            Some((module, line))
        });
        let message = bounded_str(self.exception.text.trim(), MAX_MESSAGE);
        Failure {
            reproduce_command: crate::reproduce::unittest(&self.name),
            test_name: self.name,
            confidence: if location.is_some() {
                Confidence::High
            } else {
                Confidence::Medium
            },
            file_path: location.as_ref().map(|(p, _)| p.clone()),
            line_number: location.map(|(_, l)| l),
            error_type: self.error_type,
            error_message: message,
            stack_trace: self.trace.has_text.then(|| self.trace.trace(MAX_TRACE)),
            framework: Framework::Unittest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parsers::pytest::feed;

    fn parse(text: &str) -> Vec<(u64, Failure)> {
        feed(&mut Unittest::default(), text)
    }

    #[test]
    fn header_forms() {
        assert_eq!(
            test_id("test_y (pkg.mod.C.test_y)").unwrap(),
            "pkg.mod.C.test_y"
        );
        assert_eq!(test_id("test_y (pkg.mod.C)").unwrap(), "pkg.mod.C.test_y");
        assert_eq!(
            test_id("test_y (pkg.mod.C.test_y) (n=1)").unwrap(),
            "pkg.mod.C.test_y"
        );
        assert_eq!(test_id("setUpClass (pkg.mod.C)").unwrap(), "pkg.mod.C");
        assert_eq!(
            test_id("pkg.test_x (unittest.loader._FailedTest.pkg.test_x)").unwrap(),
            "pkg.test_x"
        );
        assert!(test_id("something else").is_none());
    }

    #[test]
    fn subtests_merge_and_location_is_in_the_test_module() {
        let log = format!(
            "{RULE}\nFAIL: test_s (pkg.test_a.C.test_s) (n=1)\n----------------------------------------------------------------------\n\
Traceback (most recent call last):\n  File \"/home/runner/work/r/r/pkg/test_a.py\", line 9, in test_s\n    helper()\n  File \"/home/runner/work/r/r/pkg/util.py\", line 2, in helper\n    raise ValueError('x')\nValueError: x\n\n\
{RULE}\nFAIL: test_s (pkg.test_a.C.test_s) (n=3)\n----------------------------------------------------------------------\nAssertionError: 1 != 0\n\n\
----------------------------------------------------------------------\nRan 1 test in 0.001s\n"
        );
        let got = parse(&log);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, 71, "the offset of the header line");
        let f = &got[0].1;
        assert_eq!(f.test_name, "pkg.test_a.C.test_s");
        assert_eq!(f.file_path.as_deref(), Some("pkg/test_a.py"));
        assert_eq!(f.line_number, Some(9));
        assert_eq!(f.error_type.as_deref(), Some("ValueError"));
        assert_eq!(f.error_message, "ValueError: x");
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("python -m unittest pkg.test_a.C.test_s")
        );
        assert_eq!(crate::parse_log(log.as_bytes()), std::slice::from_ref(f));
    }

    #[test]
    fn printed_fail_lines_and_unexpected_success_are_not_failures() {
        let log = format!(
            "test_p (a.C.test_p) ... FAIL: test_fake (a.C.test_fake)\nok\n{RULE}\nUNEXPECTED SUCCESS: test_u (a.C.test_u)\n"
        );
        assert!(parse(&log).is_empty());
        assert!(crate::parse_log(log.as_bytes()).is_empty());
    }

    /// unittest-xml-reporting (`python -m xmlrunner`): `FAIL [0.001s]: desc` headers, a
    /// `setUpClass` error, and its `UNEXPECTED SUCCESS` block (an error in its XML report)
    /// whose description is on the next line.
    #[test]
    fn xmlrunner_blocks() {
        let dashes = "-".repeat(70);
        let log = format!(
            "{RULE}\nERROR [0.000s]: setUpClass (unit.test_c.TestB)\n{dashes}\nTraceback (most recent call last):\n  File \"/home/runner/work/r/r/unit/test_c.py\", line 66, in setUpClass\n    raise ConnectionError(\"x\")\nConnectionError: x\n\n\
{RULE}\nFAIL [0.001s]: test_s (unit.test_c.TestC.test_s) (n=1)\n{dashes}\nTraceback (most recent call last):\n  File \"/home/runner/work/r/r/unit/test_c.py\", line 40, in test_s\n    self.assertEqual(n % 2, 0)\nAssertionError: 1 != 0\n\n\
{RULE}\nUNEXPECTED SUCCESS: <xmlrunner.result._TestInfo object at 0x7f7d2651f350>\ntest_u (unit.test_c.TestC.test_u)\n{dashes}\nRan 3 tests in 0.013s\n\nFAILED (failures=1, errors=1, unexpected successes=1)\n"
        );
        let got = parse(&log);
        let names: Vec<_> = got.iter().map(|(_, f)| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "unit.test_c.TestB",
                "unit.test_c.TestC.test_s",
                "unit.test_c.TestC.test_u"
            ]
        );
        assert_eq!(got[0].1.line_number, Some(66));
        assert_eq!(got[1].1.line_number, Some(40));
        assert_eq!(got[1].1.error_type.as_deref(), Some("AssertionError"));
        assert_eq!(got[2].1.file_path.as_deref(), Some("unit/test_c.py"));
        assert_eq!(got[2].1.line_number, None);
        assert_eq!(crate::parse_log(log.as_bytes()).len(), 3);
    }

    /// The block ends at the dashed line before `Ran N tests`: the parser is idle again, so
    /// the scanner skips the rest of the log, and the failure still comes out.
    #[test]
    fn busy_ends_with_the_block() {
        let mut p = Unittest::default();
        let mut offset = 0;
        let mut line = |p: &mut Unittest, l: &str| {
            p.line(offset, l);
            offset += l.len() as u64 + 1;
        };
        line(&mut p, RULE);
        assert!(p.busy());
        line(&mut p, "ERROR: test_big (pkg.test_b.C.test_big)");
        line(&mut p, &"-".repeat(70));
        line(&mut p, "Traceback (most recent call last):");
        line(
            &mut p,
            "  File \"/home/runner/work/r/r/pkg/test_b.py\", line 4, in test_big",
        );
        line(&mut p, "RuntimeError: huge");
        for i in 0..10_000 {
            line(&mut p, &format!("  detail {i}"));
        }
        assert!(p.busy());
        line(&mut p, &"-".repeat(70));
        assert!(!p.busy());
        line(&mut p, "Ran 3 tests in 0.01s");
        for i in 0..10_000 {
            line(&mut p, &format!("noise {i}"));
            assert!(!p.busy());
        }
        let got = p.finish();
        assert_eq!(got.len(), 1);
        let f = &got[0].1;
        assert_eq!(f.test_name, "pkg.test_b.C.test_big");
        assert_eq!(f.line_number, Some(4));
        assert_eq!(f.error_type.as_deref(), Some("RuntimeError"));
        assert!(
            f.error_message
                .starts_with("RuntimeError: huge\n  detail 0")
        );
        assert!(f.error_message.len() <= MAX_MESSAGE + 3);
        let trace = f.stack_trace.as_deref().unwrap();
        assert!(trace.len() < MAX_TRACE + 100, "{}", trace.len());
        assert!(trace.ends_with(" more lines]"), "{trace}");

        // A block cut off by the end of its step.
        let mut p = Unittest::default();
        for l in [RULE, "FAIL: test_cut (m.C.test_cut)", "AssertionError"] {
            p.line(0, l);
        }
        assert!(p.busy());
        p.line(0, "##[error]Process completed with exit code 1.");
        assert!(!p.busy());
        assert_eq!(p.finish()[0].1.test_name, "m.C.test_cut");
    }
}
