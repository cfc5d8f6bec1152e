//! `cargo nextest run`: one status line per attempt (`FAIL [ 0.005s] ( 3/12) alpha
//! tests::x`, with `TRY n` when retrying), each failing attempt followed by its captured
//! stdout/stderr indented by four spaces, and a summary repeating the final statuses. A test
//! is a failure when its last attempt failed; one that passed on retry is flaky, not a
//! failure.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use resolve_pr_core::ShellCommand;

use super::cargo_test::details;
use crate::{Confidence, Failure, Framework};

static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(?:TRY \d+ )?(PASS|FAIL|FLAKY(?: \d+/\d+)?|TIMEOUT|SIG[A-Z]+|ABORT|LEAK-FAIL|LEAK|SKIP) \[\s*[\d.]+s\] (?:\(\s*[^)]*\) )?(\S+) (\S.*?)\s*$",
    )
    .expect("regex")
});

struct Test {
    offset: usize,
    binary: String,
    name: String,
    failed_last: bool,
    kind: String,
    block: Vec<String>,
}

/// Failures nextest reports in `text`.
pub fn parse(text: &str) -> Vec<(usize, Failure)> {
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for line in text.split('\n') {
        lines.push((offset, line.strip_suffix('\r').unwrap_or(line)));
        offset += line.len() + 1;
    }
    let mut tests: Vec<Test> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    let mut i = 0;
    while i < lines.len() {
        let (off, line) = lines[i];
        let Some(c) = STATUS.captures(line) else {
            i += 1;
            continue;
        };
        let status = c[1].to_owned();
        if status == "SKIP" {
            i += 1;
            continue;
        }
        let key = (c[2].to_owned(), c[3].to_owned());
        let n = *index.entry(key.clone()).or_insert_with(|| {
            tests.push(Test {
                offset: off,
                binary: key.0.clone(),
                name: key.1.clone(),
                failed_last: false,
                kind: String::new(),
                block: Vec::new(),
            });
            tests.len() - 1
        });
        let failed = !(status == "PASS" || status.starts_with("FLAKY"));
        tests[n].failed_last = failed;
        // The attempt's captured output: indented lines up to the next status line.
        let mut e = i + 1;
        let mut block = Vec::new();
        while e < lines.len() {
            let l = lines[e].1;
            if STATUS.is_match(l) || l.starts_with("────") || !(l.is_empty() || l.starts_with(' '))
            {
                break;
            }
            block.push(l.strip_prefix("    ").unwrap_or(l).to_owned());
            e += 1;
        }
        if failed {
            if tests[n].failed_last && tests[n].kind.is_empty() || !block.is_empty() {
                tests[n].kind = status.clone();
            }
            if !block.is_empty() {
                tests[n].block = block;
            }
        }
        i = e.max(i + 1);
    }
    let mut out = Vec::new();
    for t in tests.into_iter().filter(|t| t.failed_last) {
        let refs: Vec<&str> = t.block.iter().map(String::as_str).collect();
        // The captured stdout is libtest's own report; the panic is in stderr.
        let mut d = details(&refs);
        if d.error_type.is_none() && t.kind != "FAIL" {
            d.error_type = Some(t.kind.to_lowercase());
        }
        let krate = t.binary.split("::").next().unwrap_or(&t.binary).to_owned();
        let cmd = ShellCommand::new("cargo")
            .args(["nextest", "run", "-p"])
            .arg(krate)
            .arg("-E")
            .arg(format!("test(={})", t.name));
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
                reproduce_command: cmd.render().ok(),
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let f = &found[0].1;
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
    fn cargo_test_output_is_not_nextest() {
        assert!(parse("test a ... FAILED\nfailures:\n    a\n").is_empty());
    }
}
