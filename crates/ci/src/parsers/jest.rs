//! Jest's console reporter (default and `--verbose`).
//!
//! A failing test is a `  ● describe › test` header inside a `FAIL <file>` section; the block
//! under it holds the message, a code frame and the stack. Naming convention: the header as
//! printed (`describe › nested › test`). The location is the first stack frame inside the test
//! file. `● Console` and `● Test suite failed to run` blocks are not tests.
//!
//! Vitest output never has `●` headers, and its `FAIL` lines name `file > test`, so this parser
//! leaves it alone. The helpers at the bottom are shared with the vitest and mocha parsers.

use std::sync::LazyLock;

use regex::Regex;
use resolve_pr_core::ShellCommand;

use super::relative_path;
use crate::{Confidence, Failure, Framework};

/// Longest error message kept, in bytes.
pub(crate) const MAX_MESSAGE: usize = 2000;
/// Longest stack excerpt kept, in bytes.
pub(crate) const MAX_STACK: usize = 4000;

static SUITE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s{0,2}(FAIL|PASS)\s+(\S+\.[A-Za-z]+)(?:\s+\(\d[^)]*\))?\s*$").expect("regex")
});
static CODE_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*>?\s*\d+ \|").expect("regex"));

pub fn parse(text: &str) -> Vec<(usize, Failure)> {
    let mut out: Vec<(usize, Failure)> = Vec::new();
    let lines = lines_with_offsets(text);
    let mut suite: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let (offset, line) = lines[i];
        if let Some(c) = SUITE.captures(line) {
            suite = (&c[1] == "FAIL").then(|| relative_path(&c[2]));
            i += 1;
            continue;
        }
        let Some(name) = line.strip_prefix("  ● ") else {
            if !line.trim().is_empty() && indent(line) < 2 {
                // Summary lines and other tools' output end the suite.
                if !line.starts_with(' ') {
                    suite = None;
                }
            }
            i += 1;
            continue;
        };
        let name = name.trim();
        let Some(file) = suite.clone() else {
            i += 1;
            continue;
        };
        let mut end = i + 1;
        while end < lines.len() {
            let l = lines[end].1;
            if !l.trim().is_empty() && indent(l) < 4 {
                break;
            }
            end += 1;
        }
        let block: Vec<&str> = lines[i + 1..end].iter().map(|(_, l)| *l).collect();
        i = end;
        if name == "Console" || name.starts_with("Test suite failed to run") || name.is_empty() {
            continue;
        }
        if out
            .iter()
            .any(|(_, f)| f.test_name == name && f.file_path.as_deref() == Some(file.as_str()))
        {
            continue;
        }
        out.push((offset, failure(name, &file, &block)));
    }
    out
}

fn failure(name: &str, file: &str, block: &[&str]) -> Failure {
    let mut message = Vec::new();
    let mut stack = Vec::new();
    let mut in_message = true;
    for l in block {
        let t = l.trim_start();
        if t.starts_with("at ") || CODE_FRAME.is_match(l) {
            in_message = false;
        }
        if in_message {
            message.push(l.get(4..).unwrap_or(l.trim_start()));
        } else if !t.is_empty() {
            stack.push(l.trim_end());
        }
    }
    let message = bounded(message.join("\n").trim(), MAX_MESSAGE);
    let line = stack
        .iter()
        .find_map(|l| frame(l).filter(|(p, _)| p == file).map(|(_, n)| n));
    let pattern = escape_regex(&name.replace(" › ", " "));
    Failure {
        test_name: name.to_owned(),
        file_path: Some(file.to_owned()),
        line_number: line,
        error_type: Some(error_type(&message)),
        error_message: message,
        stack_trace: (!stack.is_empty()).then(|| bounded(&stack.join("\n"), MAX_STACK)),
        confidence: if line.is_some() {
            Confidence::High
        } else {
            Confidence::Medium
        },
        framework: Framework::Jest,
        reproduce_command: ShellCommand::new("npx")
            .args(["jest", file, "-t", &pattern])
            .render()
            .ok(),
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
    static FRAME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^\s*(?:at |❯ )(?:.*? \(|\S+ )?(?:file://)?([^\s()]+?):(\d+):(\d+)\)?\s*$")
            .expect("regex")
    });
    let c = FRAME.captures(line)?;
    Some((relative_path(&c[1]), c[2].parse().ok()?))
}

/// At most `max` bytes of `s`, cut on a character boundary, marked when cut.
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

pub(crate) fn lines_with_offsets(text: &str) -> Vec<(usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n')
        .map(|l| {
            let at = offset;
            offset += l.len();
            (at, l.trim_end_matches(['\n', '\r']))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let names: Vec<_> = found.iter().map(|(_, f)| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cart › totals › sums line items",
                "cart › parses amount abc as 0"
            ]
        );
        let f = &found[0].1;
        assert_eq!(f.file_path.as_deref(), Some("src/cart.test.js"));
        assert_eq!(f.line_number, Some(14));
        assert_eq!(f.error_type.as_deref(), Some("AssertionError"));
        assert!(f.error_message.contains("Received: 11"));
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("npx jest src/cart.test.js -t 'cart totals sums line items'")
        );
        let g = &found[1].1;
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
}
