//! Mocha's `spec` reporter (and the other reporters built on its epilogue: `dot`, `list`, ...).
//!
//! After `N failing`, each failure is `  1) describe` with the nested titles on the following,
//! deeper-indented lines, the last ending in `:`; then the error and its stack. Naming
//! convention: mocha's `fullTitle()`, the titles joined with spaces. Mocha does not print the
//! test's file: it is taken from the `at Context.<anonymous> (file:L:C)` frame (the test
//! function), else a frame in a `*.spec.*`/`*.test.*` file, else the file a timeout message
//! names, else the file of another failure under the same top-level `describe` (no line then).

use std::sync::LazyLock;

use regex::Regex;
use resolve_pr_core::ShellCommand;

use super::jest::{
    MAX_MESSAGE, MAX_STACK, bounded, error_type, escape_regex, frame, indent, lines_with_offsets,
};
use super::relative_path;
use crate::{Confidence, Failure, Framework};

static FAILING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+ failing\s*$").expect("regex"));
static PASSING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\d+ passing\b").expect("regex"));
static HEADER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^  (\d+)\) (.+)$").expect("regex"));
static TEST_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\.(?:spec|test)\.[cm]?[jt]sx?$|(?:^|/)tests?/)").expect("regex")
});
static PAREN_PATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\((\S+\.[cm]?[jt]sx?)\)\s*$").expect("regex"));

struct Found {
    offset: usize,
    top: String,
    failure: Failure,
}

pub fn parse(text: &str) -> Vec<(usize, Failure)> {
    let lines = lines_with_offsets(text);
    let mut found: Vec<Found> = Vec::new();
    let mut in_failing = false;
    let mut i = 0;
    while i < lines.len() {
        let (offset, line) = lines[i];
        if FAILING.is_match(line) {
            in_failing = true;
            i += 1;
            continue;
        }
        if PASSING.is_match(line) {
            in_failing = false;
        }
        let header = if in_failing {
            HEADER.captures(line)
        } else {
            None
        };
        let Some(c) = header else {
            i += 1;
            continue;
        };
        // Titles: the header line, then deeper-indented lines, until one ends with ':'.
        let mut titles = vec![c[2].trim().to_owned()];
        let mut j = i + 1;
        while !titles.last().is_some_and(|t| t.ends_with(':')) && j < lines.len() {
            let l = lines[j].1;
            if indent(l) < 5 || l.trim().is_empty() {
                break;
            }
            titles.push(l.trim().to_owned());
            j += 1;
        }
        if !titles.last().is_some_and(|t| t.ends_with(':')) {
            // Not a failure header (e.g. the progress tree).
            i += 1;
            continue;
        }
        if let Some(last) = titles.last_mut() {
            last.pop();
        }
        // The error: up to the next header, or the first non-frame line after the frames.
        let mut end = j;
        let mut seen_frames = false;
        while end < lines.len() {
            let l = lines[end].1;
            let t = l.trim_start();
            if HEADER.is_match(l) || PASSING.is_match(l) || FAILING.is_match(l) {
                break;
            }
            if t.starts_with("at ") {
                seen_frames = true;
            } else if seen_frames && !t.is_empty() {
                break;
            }
            end += 1;
        }
        let block: Vec<&str> = lines[j..end].iter().map(|(_, l)| *l).collect();
        i = end;
        let name = titles.join(" ");
        if found.iter().any(|f| f.failure.test_name == name) {
            continue;
        }
        found.push(Found {
            offset,
            top: titles[0].clone(),
            failure: failure(name, &block),
        });
    }
    // A failure whose stack never enters the test file: the file of a sibling under the same
    // top-level describe.
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

fn failure(name: String, block: &[&str]) -> Failure {
    let mut message = Vec::new();
    let mut stack = Vec::new();
    for l in block {
        if l.trim_start().starts_with("at ") {
            stack.push(l.trim());
        } else if stack.is_empty() {
            message.push(
                l.strip_prefix("      ")
                    .or_else(|| l.strip_prefix("     "))
                    .unwrap_or(l),
            );
        }
    }
    let message = bounded(message.join("\n").trim(), MAX_MESSAGE);
    let frames: Vec<(String, u64)> = stack.iter().filter_map(|l| frame(l)).collect();
    let context = stack
        .iter()
        .position(|l| l.starts_with("at Context.<anonymous>") || l.starts_with("at Context.it"))
        .and_then(|k| frame(stack[k]));
    let location = context.or_else(|| {
        frames
            .iter()
            .find(|(p, _)| TEST_FILE.is_match(p) && !p.contains("node_modules/"))
            .cloned()
    });
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
        stack_trace: (!stack.is_empty()).then(|| bounded(&stack.join("\n"), MAX_STACK)),
        confidence: if line.is_some() {
            Confidence::Medium
        } else {
            Confidence::Low
        },
        framework: Framework::Mocha,
    }
}

fn reproduce(file: Option<&str>, name: &str) -> Option<String> {
    let mut cmd = ShellCommand::new("npx").arg("mocha");
    if let Some(file) = file {
        cmd = cmd.arg(file);
    }
    cmd.args(["--grep", &escape_regex(name)]).render().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let names: Vec<_> = found.iter().map(|(_, f)| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cart totals sums line items",
                "users loads a missing user",
                "users waits"
            ]
        );
        let f = &found[0].1;
        assert_eq!(f.file_path.as_deref(), Some("test/cart.spec.js"));
        assert_eq!(f.line_number, Some(15));
        assert_eq!(f.error_type.as_deref(), Some("AssertionError"));
        assert!(f.error_message.contains("11 !== 12"));
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("npx mocha test/cart.spec.js --grep 'cart totals sums line items'")
        );
        assert_eq!(found[2].1.file_path.as_deref(), Some("test/users.spec.js"));
        assert_eq!(found[2].1.error_type.as_deref(), Some("Timeout"));
        // No frame in the test file: the sibling's file, no line.
        assert_eq!(found[1].1.file_path.as_deref(), Some("test/users.spec.js"));
        assert_eq!(found[1].1.line_number, None);
    }
}
