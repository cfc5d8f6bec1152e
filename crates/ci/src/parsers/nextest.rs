//! `cargo nextest run`, read line by line: one status line per attempt (`FAIL [ 0.005s]
//! ( 3/12) alpha tests::x`, with `TRY n` when retrying), each failing attempt followed by its
//! captured stdout/stderr indented by four spaces (up to the next status line, a `────`
//! rule or an unindented line), and a summary repeating the final statuses. A test is a
//! failure when its last attempt failed; one that passed on retry (`TRY n PASS`, `FLAKY n/m`)
//! is flaky ([`LineParser::flaky`]), not a failure. The failure's details come from its last
//! failing attempt that printed output (less nextest's `stdout ───`/`stderr ───` headers and
//! libtest's `running 1 test`). Statuses besides `FAIL`: `SIGABRT` (shortened to `ABRT` after
//! `TRY n `, likewise `SEGV`, `KILL`, …), `TIMEOUT` (`TMT` after `TRY n `), `ABORT`,
//! `LEAK-FAIL` (`LKFAIL`); `LEAK` is a pass that left a process behind; `SLOW` and `TERMINATING`/`TRMNTG` lines (`[>  2.000s]`) are progress, not
//! results.
//!
//! Older nextest (and `--no-output-indent`) prints the output unindented under a header of
//! its own (`--- STDOUT:              beta tests::x ---` up to 0.9.7x, `──── STDOUT: beta
//! tests::x` up to 0.9.94, `── stderr ──`): it is read to the next status line, nextest's
//! `------------` rule or a verb of its own at column 12 (`Summary [`), and the libtest
//! report inside it is left to this parser.
//!
//! With `--no-capture` a test's output comes unindented before its status line, from
//! libtest's `running 1 test` on: it is read then and given to the status line that
//! follows (the libtest report inside it is left to this parser, not `cargo_test`).
//!
//! Streaming: the parser needs every line only inside a failing attempt's output (and a
//! `--no-capture` test's, from `running 1 test`, a trigger shared with `cargo_test`). It reads
//! status lines carrying one of [`TRIGGERS`] (`FAIL`, `TIMEOUT`, `SIG…`, `ABORT`, `LEAK`,
//! `FLAKY`, `TRY `; colour codes may sit between the status and its `[`, so the status word
//! alone is the token). A plain `PASS` or `SKIP` line (no `TRY`) is never a retry's result,
//! so it is not needed and ignored: passing tests are not looked at.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::cargo_test::{Details, DetailsReader};
use super::{LineParser, MAX_FAILURES};
use crate::{Confidence, Failure, FlakyTest, Framework};

/// The substrings (in the raw log) of every line this parser reads while not busy.
pub const TRIGGERS: &[&str] = &[
    "FAIL", "TIMEOUT", "SIG", "ABORT", "LEAK", "FLAKY", "TRY ", "running ",
];

static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(?:TRY (\d+) )?(PASS|FAIL|FLAKY(?: (\d+)/\d+)?|TIMEOUT|TMT|SIG[A-Z]+|ABORT|ABRT|SEGV|KILL|TERM|BUS|ILL|FPE|TRAP|QUIT|LEAK-FAIL|LKFAIL|LEAK|SKIP) \[\s*[\d.]+s\] (?:\(\s*[^)]*\) )?(\S+) (\S.*?)\s*$",
    )
    .expect("regex")
});

struct Test {
    offset: u64,
    binary: String,
    name: String,
    failed_last: bool,
    /// Attempts seen failing (`TRY n FAIL`, or a failure without retries).
    failed_attempts: u32,
    /// The attempt that passed after failures (`TRY n PASS`, `FLAKY n/m`), and the offset
    /// of the line that said so.
    passed: Option<(u64, Option<u32>)>,
    /// The status of the attempt the details come from.
    kind: String,
    details: Option<Details>,
}

/// A failing attempt's captured output being read.
struct Attempt {
    test: usize,
    status: String,
    lines: usize,
    reader: DetailsReader,
    /// The output comes unindented under a header of its own ([`flat_output_header`]): it
    /// runs to the next status line or nextest's own closing lines.
    flat: bool,
}

/// The nextest parser. See the module documentation.
#[derive(Default)]
pub struct Nextest {
    tests: Vec<Test>,
    index: HashMap<(String, String), usize>,
    attempt: Option<Attempt>,
    /// `--no-capture` output being read, for the status line that follows it.
    inline: Option<Inline>,
    flaky: Vec<(u64, FlakyTest)>,
}

/// Lines of one test's `--no-capture` output read at most.
const MAX_INLINE_LINES: usize = 2000;

/// `--no-capture`: a test's output, unindented and before its status line, from libtest's
/// `running 1 test` (nextest runs one test per process) to 3 lines after `test result:`.
#[derive(Default)]
struct Inline {
    reader: DetailsReader,
    lines: usize,
    reported: bool,
    after_result: Option<u8>,
}

/// The status word as nextest prints it without retries: with `TRY n ` it is shortened
/// (`ABRT` for `SIGABRT`, `TMT` for `TIMEOUT`).
fn full_status(status: &str) -> String {
    match status {
        "TMT" => "TIMEOUT".to_owned(),
        "LKFAIL" => "LEAK-FAIL".to_owned(),
        "ABRT" | "SEGV" | "KILL" | "TERM" | "BUS" | "ILL" | "FPE" | "TRAP" | "QUIT" => {
            format!("SIG{status}")
        }
        _ => status.to_owned(),
    }
}

impl Nextest {
    pub fn new() -> Self {
        Self::default()
    }

    fn end_attempt(&mut self) {
        let Some(a) = self.attempt.take() else {
            return;
        };
        let t = &mut self.tests[a.test];
        if a.lines > 0 {
            t.kind = a.status;
            t.details = Some(a.reader.finish());
        } else if t.kind.is_empty() {
            t.kind = a.status;
        }
    }

    fn status(&mut self, offset: u64, c: &regex::Captures<'_>) {
        let status = &c[2];
        let attempt: Option<u32> = c.get(1).and_then(|m| m.as_str().parse().ok());
        // `LEAK`: passed, but left a process holding its output (a pass unless the profile's
        // leak-timeout says fail: then `LEAK-FAIL`, `LKFAIL` after `TRY n `).
        let passed = status == "PASS" || status == "LEAK";
        if status == "SKIP" || (passed && attempt.is_none()) {
            return;
        }
        let key = (c[4].to_owned(), c[5].to_owned());
        let flaky = status.starts_with("FLAKY");
        let failed = !(passed || flaky);
        let n = match self.index.get(&key) {
            Some(&n) => n,
            None if (failed || flaky) && self.tests.len() < MAX_FAILURES => {
                self.tests.push(Test {
                    offset,
                    binary: key.0.clone(),
                    name: key.1.clone(),
                    failed_last: false,
                    failed_attempts: 0,
                    passed: None,
                    kind: String::new(),
                    details: None,
                });
                self.index.insert(key, self.tests.len() - 1);
                self.tests.len() - 1
            }
            None => return,
        };
        let t = &mut self.tests[n];
        t.failed_last = failed;
        if failed {
            // The summary repeats the last attempt's line: count each attempt once.
            let number = attempt.unwrap_or(1);
            t.failed_attempts = t.failed_attempts.max(number);
            self.attempt = Some(Attempt {
                test: n,
                status: full_status(status),
                lines: 0,
                reader: DetailsReader::default(),
                flat: false,
            });
        } else {
            let passed_on = attempt.or_else(|| c.get(3).and_then(|m| m.as_str().parse().ok()));
            match &mut t.passed {
                Some((_, on)) => *on = on.or(passed_on),
                None => t.passed = Some((offset, passed_on)),
            }
        }
    }
}

/// nextest's header of a captured stream (`  stdout ───`, `  stderr ───`, older
/// `--- STDERR:              beta tests::x ---`).
fn output_header(line: &str) -> bool {
    let t = line.trim();
    ((t.starts_with("stdout ") || t.starts_with("stderr ")) && t.ends_with('─'))
        || t.starts_with("--- STDOUT:")
        || t.starts_with("--- STDERR:")
}

/// nextest's header of captured output printed unindented: `--- STDOUT:              beta
/// tests::x ---` (0.9.7x and before, `--- TRY 2 STDERR: …` on a retry), `──── STDOUT:
/// beta tests::x` (0.9.8x to 0.9.94; `----` with ASCII-only output), and `── stdout ──`
/// (`--no-output-indent`).
pub(crate) fn flat_output_header(line: &str) -> bool {
    let rest = line.trim_start_matches(['-', '─']);
    if rest.len() == line.len() {
        return false;
    }
    let Some(rest) = rest.strip_prefix(' ') else {
        return false;
    };
    let rest = match rest.strip_prefix("TRY ") {
        Some(r) => r
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start(),
        None => rest,
    };
    ["STDOUT:", "STDERR:", "OUTPUT:", "EXECFAIL:"]
        .iter()
        .any(|h| rest.starts_with(h))
        || ["stdout ", "stderr ", "output ", "execfail "]
            .iter()
            .filter_map(|h| rest.strip_prefix(h))
            .any(|bars| {
                let bars = bars.trim_end();
                !bars.is_empty() && bars.chars().all(|c| c == '-' || c == '─')
            })
}

/// Where unindented captured output ends besides a status or progress line: nextest's
/// `------------` rule before its summary, a verb it right-aligns to column 12 (`Summary
/// [`, `Cancelling due to …`, `Starting …`), or `error: test run failed`.
fn flat_output_end(line: &str) -> bool {
    let t = line.trim_end();
    if t.len() >= 12 && t.chars().all(|c| c == '-' || c == '─') {
        return true;
    }
    if line.starts_with("error: test run failed") {
        return true;
    }
    line.as_bytes().get(12) == Some(&b' ')
        && line.get(..12).is_some_and(|head| {
            matches!(
                head.trim_start(),
                "Summary" | "Cancelling" | "Canceling" | "Starting"
            )
        })
}

/// A progress line of another test: `SLOW [>  1.000s]`, `TERMINATING [>  2.000s]`, `TRY 1
/// TRMNTG [> …]`, `START [         ]` (`--no-capture`).
fn progress_line(line: &str) -> bool {
    let t = line.trim_start();
    t.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
        && (t.contains(" [>") || t.contains("START ["))
}

/// A status line (cheap checks first: they run on every line of a failure's output).
fn status_line(line: &str) -> Option<regex::Captures<'_>> {
    let t = line.trim_start();
    if !t.as_bytes().first().is_some_and(u8::is_ascii_uppercase) || !t.contains("s] ") {
        return None;
    }
    STATUS.captures(line)
}

impl LineParser for Nextest {
    fn line(&mut self, offset: u64, line: &str) {
        if let Some(c) = status_line(line) {
            self.end_attempt();
            let inline = self.inline.take();
            self.status(offset, &c);
            // `--no-capture`: the output came before the status line.
            if let (Some(i), Some(a)) = (inline, &mut self.attempt)
                && i.lines > 0
            {
                let t = &mut self.tests[a.test];
                t.kind = a.status.clone();
                t.details = Some(i.reader.finish());
            }
            return;
        }
        if self.attempt.is_none() && line == "running 1 test" {
            self.inline = Some(Inline::default());
            return;
        }
        if let Some(i) = &mut self.inline {
            if let Some(n) = &mut i.after_result {
                *n += 1;
                if *n > 3 {
                    self.inline = None;
                }
                return;
            }
            if line.starts_with("test result:") {
                i.after_result = Some(0);
                return;
            }
            // libtest's own `test x ... FAILED` and `failures:` report end the output.
            if line.starts_with("test ") && line.contains(" ... ") {
                i.reported = true;
            }
            i.lines += 1;
            if i.lines > MAX_INLINE_LINES {
                self.inline = None;
            } else if !i.reported {
                i.reader.line(line);
            }
            return;
        }
        if let Some(a) = &mut self.attempt {
            if flat_output_header(line) {
                a.flat = true;
                return;
            }
            if a.flat {
                if flat_output_end(line) || progress_line(line) {
                    self.end_attempt();
                } else {
                    a.lines += 1;
                    if line != "running 1 test" {
                        a.reader.line(line);
                    }
                }
                return;
            }
            if line.starts_with("────")
                || !(line.is_empty() || line.starts_with(' '))
                || progress_line(line)
            {
                self.end_attempt();
            } else {
                a.lines += 1;
                let text = line.strip_prefix("    ").unwrap_or(line);
                // Not the test's words: nextest's `stdout ───`/`stderr ───` headers and
                // libtest's `running 1 test`.
                if !(output_header(line) || text == "running 1 test") {
                    a.reader.line(text);
                }
            }
        }
    }

    fn busy(&self) -> bool {
        self.attempt.is_some() || self.inline.is_some()
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.end_attempt();
        let mut out = Vec::new();
        for t in std::mem::take(&mut self.tests) {
            if !t.failed_last {
                if let Some((offset, passed_on)) = t.passed {
                    let d = t.details.unwrap_or_default();
                    let failed = passed_on
                        .map(|p| p.saturating_sub(1))
                        .or((t.failed_attempts > 0).then_some(t.failed_attempts));
                    self.flaky.push((
                        offset,
                        FlakyTest {
                            test_name: t.name,
                            framework: Framework::Nextest,
                            file_path: d.file_path,
                            line_number: d.line_number,
                            failed_attempts: failed,
                            attempts: passed_on,
                            error_message: (!d.error_message.is_empty()).then_some(d.error_message),
                        },
                    ));
                }
                continue;
            }
            // The captured stdout is libtest's own report; the panic is in stderr.
            let mut d = t.details.unwrap_or_default();
            if d.error_type.is_none() && t.kind != "FAIL" {
                d.error_type = Some(t.kind.to_lowercase());
            }
            let krate = t.binary.split("::").next().unwrap_or(&t.binary).to_owned();
            let reproduce_command =
                crate::reproduce::nextest(&krate, &format!("test(={})", t.name));
            out.push((
                t.offset,
                Failure {
                    confidence: if d.file_path.is_some() {
                        Confidence::High
                    } else {
                        Confidence::Medium
                    },
                    test_name: t.name,
                    file_path: d.file_path,
                    line_number: d.line_number,
                    error_type: d.error_type,
                    error_message: d.error_message,
                    stack_trace: d.stack_trace,
                    framework: Framework::Nextest,
                    reproduce_command,
                },
            ));
        }
        out
    }

    fn flaky(&mut self) -> Vec<(u64, FlakyTest)> {
        std::mem::take(&mut self.flaky)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Vec<Failure> {
        crate::parse_log(log.as_bytes())
            .into_iter()
            .filter(|f| f.framework == Framework::Nextest)
            .collect()
    }

    const LOG: &str = "\
    Starting 3 tests across 1 binary
  TRY 1 FAIL [   0.010s] (─────) beta tests::flaky
  stderr ───

    thread 'tests::flaky' (1) panicked at beta/src/lib.rs:30:13:
    connection reset

  TRY 2 PASS [   0.013s] ( 1/3) beta tests::flaky
  TRY 1 FAIL [   0.009s] (─────) beta::integration end_to_end
  stderr ───

    thread 'end_to_end' (2) panicked at beta/tests/integration.rs:4:5:
    sum too small: [1, 2, 3]
    note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace

  TRY 2 FAIL [   0.009s] ( 2/3) beta::integration end_to_end
        PASS [   0.009s] ( 3/3) beta tests::halves
────────────
     Summary [   0.331s] 3 tests run: 2 passed (1 flaky), 1 failed, 0 skipped
   FLAKY 2/2 [   0.013s] ( 1/3) beta tests::flaky
  TRY 2 FAIL [   0.009s] ( 2/3) beta::integration end_to_end
error: test run failed
";

    #[test]
    fn last_attempt_decides_and_flaky_is_not_a_failure() {
        let found = parse(LOG);
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(f.test_name, "end_to_end");
        assert_eq!(f.file_path.as_deref(), Some("beta/tests/integration.rs"));
        assert_eq!(f.line_number, Some(4));
        assert_eq!(f.error_message, "sum too small: [1, 2, 3]");
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("cargo nextest run -p beta -E 'test(=end_to_end)'")
        );
    }

    #[test]
    fn flaky_tests_come_out_as_flaky() {
        let mut p = Nextest::new();
        for (i, line) in LOG.lines().enumerate() {
            p.line(i as u64, line);
        }
        assert_eq!(p.finish().len(), 1);
        let flaky = p.flaky();
        assert_eq!(flaky.len(), 1);
        let f = &flaky[0].1;
        assert_eq!(f.test_name, "tests::flaky");
        assert_eq!(f.failed_attempts, Some(1));
        assert_eq!(f.attempts, Some(2));
        assert_eq!(f.line_number, Some(30));
        assert_eq!(f.error_message.as_deref(), Some("connection reset"));
        let mut scanner = crate::Scanner::new();
        scanner.feed(LOG.as_bytes());
        let report = scanner.finish();
        assert_eq!(report.flaky.len(), 1);
        assert!(
            report
                .failures()
                .iter()
                .all(|f| f.test_name != "tests::flaky")
        );
    }

    /// `--status-level fail`: a flaky test shows only in the summary's `FLAKY n/m` line.
    #[test]
    fn a_flaky_line_alone_is_flaky() {
        let mut p = Nextest::new();
        p.line(
            0,
            "   FLAKY 2/2 [   0.024s] (3/7) beta tests::flaky_network",
        );
        assert!(p.finish().is_empty());
        let flaky = p.flaky();
        assert_eq!(flaky.len(), 1);
        assert_eq!(flaky[0].1.attempts, Some(2));
        assert_eq!(flaky[0].1.failed_attempts, Some(1));
    }

    /// With retries nextest shortens `SIGABRT` to `ABRT` and `TIMEOUT` to `TMT`.
    #[test]
    fn retried_aborts_and_timeouts_are_failures() {
        let log = "\
  TRY 1 ABRT [   0.030s] (───) beta tests::aborts
  stdout ───

    running 1 test
  stderr ───
    heap corruption detected, aborting

    (test aborted with signal 6: SIGABRT)

  TRY 2 ABRT [   0.027s] (1/3) beta tests::aborts
  stdout ───

    running 1 test
  stderr ───
    heap corruption detected, aborting

    (test aborted with signal 6: SIGABRT)

  TRY 1 SLOW [>  1.000s] (───) beta tests::waits
TRY 1 TRMNTG [>  2.000s] (───) beta tests::waits
   TRY 1 TMT [   2.027s] (───) beta tests::waits
  stdout ───

    running 1 test

    (test timed out)

   TRY 2 TMT [   2.018s] (3/3) beta tests::waits
  stdout ───

    running 1 test

    (test timed out)

────────────
     Summary [   6.474s] 3 tests run: 1 passed, 1 failed, 1 timed out, 0 skipped
  TRY 2 ABRT [   0.027s] (1/3) beta tests::aborts
   TRY 2 TMT [   2.018s] (3/3) beta tests::waits
error: test run failed
";
        let found = parse(log);
        let names: Vec<_> = found.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(names, ["tests::aborts", "tests::waits"]);
        assert_eq!(found[0].error_type.as_deref(), Some("sigabrt"));
        assert_eq!(
            found[0].error_message,
            "heap corruption detected, aborting\n(test aborted with signal 6: SIGABRT)"
        );
        assert_eq!(found[1].error_type.as_deref(), Some("timeout"));
        assert_eq!(found[1].error_message, "(test timed out)");
    }

    /// `--no-capture`: the panic is read from the output before the status line.
    #[test]
    fn no_capture_output_before_the_status_line_is_read() {
        let log = "       START [         ] (2/7) beta tests::flaky\nrunning 1 test\nthread 'tests::flaky' (1) panicked at beta/src/lib.rs:30:13:\nconnection reset\ntest tests::flaky ... FAILED\n\nfailures:\n\nfailures:\n    tests::flaky\n\ntest result: FAILED. 0 passed; 1 failed\n\n  TRY 1 FAIL [   0.018s] (───) beta tests::flaky\n TRY 2 START [         ] (───) beta tests::flaky\nrunning 1 test\ntest tests::flaky ... ok\n\ntest result: ok. 1 passed; 0 failed\n\n  TRY 2 PASS [   0.011s] (2/7) beta tests::flaky\n       START [         ] (3/7) beta tests::odd\nrunning 1 test\nthread 'tests::odd' (2) panicked at beta/src/lib.rs:19:13:\nhalve(3) was 1\ntest tests::odd ... FAILED\n\ntest result: FAILED. 0 passed; 1 failed\n\n        FAIL [   0.015s] (4/7) beta tests::odd\n";
        let mut p = Nextest::new();
        for (i, line) in log.lines().enumerate() {
            p.line(i as u64, line);
        }
        let found = p.finish();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.test_name, "tests::odd");
        assert_eq!(found[0].1.line_number, Some(19));
        assert_eq!(found[0].1.error_message, "halve(3) was 1");
        let flaky = p.flaky();
        assert_eq!(flaky.len(), 1);
        assert_eq!(flaky[0].1.line_number, Some(30));
    }

    /// `LEAK` is a pass (`7 passed (1 leaky)`); `LEAK-FAIL`/`LKFAIL` is a failure.
    #[test]
    fn leaky_passes_are_not_failures() {
        let log = "        LEAK [   0.213s] (7/7) gamma tests::spawns\n     Summary [   0.252s] 7 tests run: 7 passed (1 leaky), 0 skipped\n";
        assert!(parse(log).is_empty());
        let log = "TRY 1 LKFAIL [   0.110s] (───) gamma tests::spawns\nTRY 2 LKFAIL [   0.114s] (7/7) gamma tests::spawns\n   LEAK-FAIL [   0.137s] (1/7) gamma tests::leaks\n";
        let found = parse(log);
        let names: Vec<_> = found.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(names, ["tests::spawns", "tests::leaks"]);
        assert_eq!(found[0].error_type.as_deref(), Some("leak-fail"));
    }

    /// Captured output nextest printed unindented under a header of its own: `--- STDOUT:
    /// <binary> <test> ---` (0.9.7x and before), `──── STDOUT: <binary> <test>` (0.9.8x to
    /// 0.9.94; `----` in ASCII) and `── stderr ──` (`--no-output-indent`). The panic in it
    /// locates the test, and the libtest report in it is not also a `cargo test` failure.
    #[test]
    fn unindented_output_under_its_header_locates_the_test() {
        type Header = fn(&str) -> String;
        let body = |header: Header| {
            format!(
                "        PASS [   0.002s] alpha tests::ok\n        FAIL [   0.003s] alpha::integration module::test_name\n{}\n\nrunning 1 test\ntest module::test_name ... FAILED\n\nfailures:\n\nfailures:\n    module::test_name\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 3 filtered out; finished in 0.00s\n\n{}\nthread 'module::test_name' panicked at alpha/tests/integration.rs:12:5:\nassertion `left == right` failed\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n        PASS [   0.004s] alpha tests::later\n------------\n     Summary [   0.010s] 3 tests run: 2 passed, 1 failed, 0 skipped\n        FAIL [   0.003s] alpha::integration module::test_name\nerror: test run failed\n",
                header("STDOUT"),
                header("STDERR"),
            )
        };
        let old =
            |s: &str| format!("\n--- {s}:              alpha::integration module::test_name ---");
        let bar = |s: &str| format!("──── {s}:             alpha::integration module::test_name");
        let ascii = |s: &str| format!("---- {s}:             alpha::integration module::test_name");
        let flat = |s: &str| format!("── {} ──", s.to_lowercase());
        let headers: [(&str, Header); 4] = [
            ("0.9.70", old),
            ("0.9.90", bar),
            ("ascii", ascii),
            ("flat", flat),
        ];
        // libtest's own block header for a test named `output` is not nextest's.
        assert!(!flat_output_header("---- output stdout ----"));
        for (name, header) in headers {
            let log = body(header);
            let found = crate::parse_log(log.as_bytes());
            assert_eq!(found.len(), 1, "{name}: {found:#?}");
            let f = &found[0];
            assert_eq!(f.framework, Framework::Nextest, "{name}");
            assert_eq!(f.test_name, "module::test_name", "{name}");
            assert_eq!(
                (f.file_path.as_deref(), f.line_number),
                (Some("alpha/tests/integration.rs"), Some(12)),
                "{name}"
            );
            assert_eq!(
                f.error_message, "assertion `left == right` failed\n  left: 1\n right: 2",
                "{name}"
            );
        }
    }

    #[test]
    fn cargo_test_output_is_not_nextest() {
        assert!(parse("test a ... FAILED\nfailures:\n    a\n").is_empty());
    }

    #[test]
    fn not_busy_after_a_failure_and_the_failure_stays() {
        let mut p = Nextest::new();
        for (i, line) in LOG.lines().enumerate() {
            p.line(i as u64, line);
        }
        for i in 0..10_000 {
            p.line(1_000 + i, "    Compiling noise v1.0.0");
            assert!(!p.busy(), "busy at noise line {i}");
        }
        let found = p.finish();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1.line_number, Some(4));
    }
}
