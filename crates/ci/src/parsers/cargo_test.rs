//! `cargo test` (libtest's human output): each test binary prints `running N tests`,
//! `test name ... FAILED` lines, one `---- name stdout ----` block per failure (the captured
//! panic) and a `failures:` list. The block and the list describe one failure; they are
//! merged. Cargo's `Running unittests src/lib.rs (target/debug/deps/<crate>-<hash>)`,
//! `Doc-tests <crate>` and `error: test failed, to rerun pass `-p x --lib`` name the crate
//! for the reproduce command.
//!
//! Only unindented lines count, so libtest output nested in nextest's report (indented)
//! is left to the nextest parser.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use resolve_pr_core::ShellCommand;

use super::relative_path;
use crate::{Confidence, Failure, Framework};

/// Longest error message kept, in bytes.
pub(crate) const MAX_MESSAGE: usize = 2000;
/// Longest stack trace kept, in bytes.
pub(crate) const MAX_TRACE: usize = 4000;

static RUNNING_TESTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^running \d+ tests?$").expect("regex"));
static TEST_FAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^test (.+?)(?: - should panic)? \.\.\. (?:FAILED|failed)$").expect("regex")
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
static COMPILE_LOCATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*--> (.+?):(\d+):(\d+)$").expect("regex"));

/// What a failure's captured output says about it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Details {
    pub file_path: Option<String>,
    pub line_number: Option<u64>,
    pub error_type: Option<String>,
    pub error_message: String,
    pub stack_trace: Option<String>,
}

/// Reads a failure's captured output (already dedented): a panic with its location and
/// message (incl. `left:`/`right:`), a `#[should_panic]` test that did not panic, a test
/// that returned `Err`, or a doctest that failed to compile.
pub(crate) fn details(lines: &[&str]) -> Details {
    let mut d = Details::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(c) = PANIC_NEW.captures(line) {
            d.file_path = Some(relative_path(&c[2]));
            d.line_number = c[3].parse().ok();
            let mut msg = Vec::new();
            let mut j = i + 1;
            while j < lines.len() {
                let l = lines[j];
                if l.starts_with("note: run with `RUST_BACKTRACE")
                    || l.starts_with("stack backtrace:")
                    || PANIC_NEW.is_match(l)
                {
                    break;
                }
                msg.push(l);
                j += 1;
            }
            while msg.last().is_some_and(|l| l.trim().is_empty()) {
                msg.pop();
            }
            d.error_message = bounded(&msg.join("\n"), MAX_MESSAGE);
            d.error_type = Some(error_type(&d.error_message).to_owned());
            d.stack_trace = trace(&lines[j..]);
            return d;
        }
        if let Some(c) = PANIC_OLD.captures(line) {
            d.file_path = Some(relative_path(&c[3]));
            d.line_number = c[4].parse().ok();
            d.error_message = bounded(&c[2], MAX_MESSAGE);
            d.error_type = Some(error_type(&d.error_message).to_owned());
            d.stack_trace = trace(&lines[i + 1..]);
            return d;
        }
        if let Some(c) = NO_PANIC.captures(line) {
            d.file_path = c.get(1).map(|m| relative_path(m.as_str()));
            d.line_number = c.get(2).and_then(|m| m.as_str().parse().ok());
            d.error_type = Some("did not panic".to_owned());
            d.error_message = "test did not panic as expected".to_owned();
            return d;
        }
        if let Some(rest) = line.strip_prefix("Error: ") {
            d.error_type = Some("returned Err".to_owned());
            d.error_message = bounded(rest, MAX_MESSAGE);
            return d;
        }
        if d.file_path.is_none() && line.starts_with("error") {
            // A doctest that did not compile: `error[E0425]: ...` then `--> src/lib.rs:6:1`.
            if let Some(c) = lines[i + 1..]
                .iter()
                .take(3)
                .find_map(|l| COMPILE_LOCATION.captures(l))
            {
                d.file_path = Some(relative_path(&c[1]));
                d.line_number = c[2].parse().ok();
                d.error_type = Some("compile error".to_owned());
                d.error_message = bounded(line, MAX_MESSAGE);
            }
        }
        i += 1;
    }
    if d.error_message.is_empty() {
        let text: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.trim().is_empty())
            .collect();
        d.error_message = bounded(&text.join("\n"), MAX_MESSAGE);
    }
    d
}

fn error_type(message: &str) -> &'static str {
    if message.starts_with("assertion") {
        "assertion failed"
    } else {
        "panicked"
    }
}

/// The `stack backtrace:` section among `lines`, bounded.
fn trace(lines: &[&str]) -> Option<String> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("stack backtrace:"))?;
    let mut out = Vec::new();
    for l in &lines[start..] {
        if l.trim().is_empty() {
            break;
        }
        out.push(*l);
        if l.starts_with("note: Some details are omitted") {
            break;
        }
    }
    Some(bounded(&out.join("\n"), MAX_TRACE))
}

/// `s` cut to at most `max` bytes on a character boundary, with `…` when cut.
pub(crate) fn bounded(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Which test binary a section belongs to, as far as the log says.
#[derive(Debug, Default, Clone)]
struct Binary {
    /// `-p alpha --lib`, from cargo's rerun hint or the `Running` line.
    selector: Vec<String>,
}

struct Found {
    offset: usize,
    name: String,
    block: Option<(usize, usize)>,
    listed: bool,
}

/// Failures `cargo test` reports in `text`.
pub fn parse(text: &str) -> Vec<(usize, Failure)> {
    // Lines with their byte offsets.
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for line in text.split('\n') {
        lines.push((offset, line.strip_suffix('\r').unwrap_or(line)));
        offset += line.len() + 1;
    }
    let only: Vec<&str> = lines.iter().map(|(_, l)| *l).collect();

    let mut out = Vec::new();
    let mut binary = Binary::default();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].1;
        if let Some(c) = RUNNING_BINARY.captures(line) {
            binary = binary_from_running(c.get(1).is_some(), &c[2], &c[3]);
        } else if let Some(c) = DOC_TESTS.captures(line) {
            binary = Binary {
                selector: vec!["-p".into(), c[1].replace('_', "-"), "--doc".into()],
            };
        }
        if !RUNNING_TESTS.is_match(line) {
            i += 1;
            continue;
        }
        // One test binary's section: up to `test result:`.
        let start = i;
        let mut end = i + 1;
        while end < lines.len() && !lines[end].1.starts_with("test result:") {
            if RUNNING_TESTS.is_match(lines[end].1) {
                break;
            }
            end += 1;
        }
        let found = section(&lines[start..end], start);
        // Cargo's rerun hint follows the section and names the target exactly.
        let mut selector = binary.selector.clone();
        for (_, l) in lines.iter().skip(end).take(4) {
            if let Some(c) = RERUN_HINT.captures(l) {
                selector = c[1].split_whitespace().map(str::to_owned).collect();
                break;
            }
            if RUNNING_BINARY.is_match(l) || DOC_TESTS.is_match(l) {
                break;
            }
        }
        for f in found {
            let block: Vec<&str> = match f.block {
                Some((a, b)) => only[a..b].to_vec(),
                None => inline_panic(&only[start..end], &f.name),
            };
            let d = details(&block);
            let confidence = if f.listed && d.file_path.is_some() {
                Confidence::High
            } else {
                Confidence::Medium
            };
            let mut cmd = ShellCommand::new("cargo")
                .arg("test")
                .args(selector.iter().cloned());
            cmd = cmd.args(["--", "--exact"]).arg(f.name.clone());
            out.push((
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
                    reproduce_command: cmd.render().ok(),
                },
            ));
        }
        i = end.max(i + 1);
    }
    out
}

fn binary_from_running(unittests: bool, source: &str, stem: &str) -> Binary {
    let krate = stem.replace('_', "-");
    let selector = if unittests && source.ends_with("lib.rs") {
        vec!["-p".into(), krate, "--lib".into()]
    } else if source.starts_with("tests/") {
        // Integration test: the stem is the target, the package is unknown here.
        vec!["--test".into(), stem.to_owned()]
    } else {
        vec!["-p".into(), krate]
    };
    Binary { selector }
}

/// The failures in one section (`lines` from `running N tests` to before `test result:`).
fn section(lines: &[(usize, &str)], base: usize) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut get = |found: &mut Vec<Found>, name: &str, offset: usize| -> usize {
        *index.entry(name.to_owned()).or_insert_with(|| {
            found.push(Found {
                offset,
                name: name.to_owned(),
                block: None,
                listed: false,
            });
            found.len() - 1
        })
    };
    let mut k = 0;
    while k < lines.len() {
        let (off, line) = lines[k];
        if let Some(c) = TEST_FAILED.captures(line) {
            get(&mut found, &c[1], off);
        } else if let Some(c) = STDOUT_HEADER.captures(line) {
            let n = get(&mut found, &c[1], off);
            let mut e = k + 1;
            while e < lines.len()
                && !STDOUT_HEADER.is_match(lines[e].1)
                && lines[e].1 != "failures:"
            {
                e += 1;
            }
            if found[n].block.is_none() {
                found[n].block = Some((base + k + 1, base + e));
            }
            k = e;
            continue;
        } else if line == "failures:" {
            // Either the header of the stdout blocks or the final list of names.
            let mut e = k + 1;
            while e < lines.len() {
                let l = lines[e].1;
                if let Some(name) = l.strip_prefix("    ") {
                    let n = get(&mut found, name.trim(), lines[e].0);
                    found[n].listed = true;
                } else if !l.trim().is_empty() {
                    break;
                }
                e += 1;
            }
            k = e;
            continue;
        }
        k += 1;
    }
    found
}

/// With `--nocapture` there is no stdout block: the panic is printed where it happened.
fn inline_panic<'a>(lines: &[&'a str], name: &str) -> Vec<&'a str> {
    let prefix = format!("thread '{name}'");
    match lines.iter().position(|l| l.starts_with(&prefix)) {
        Some(p) => lines[p..].iter().take(60).copied().collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let names: Vec<_> = found.iter().map(|(_, f)| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "tests::should_overflow",
                "tests::report_matches",
                "tests::returns_err"
            ]
        );
        let (_, f) = &found[1];
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
        assert_eq!(found[0].1.line_number, Some(57));
        assert_eq!(found[0].1.error_type.as_deref(), Some("did not panic"));
        assert_eq!(found[2].1.error_message, "\"config file missing\"");
        assert_eq!(found[2].1.error_type.as_deref(), Some("returned Err"));
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
        let f = &found[0].1;
        assert_eq!(f.test_name, "alpha/src/lib.rs - add (line 5)");
        assert_eq!(f.line_number, Some(5));
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("cargo test -p alpha --doc -- --exact 'alpha/src/lib.rs - add (line 5)'")
        );
    }

    #[test]
    fn long_messages_are_bounded() {
        let long = "x".repeat(10_000);
        let d = details(&["thread 't' panicked at src/a.rs:1:1:", &long]);
        assert!(d.error_message.len() <= MAX_MESSAGE + 3);
    }
}
