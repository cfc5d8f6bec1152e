//! Vitest's console reporters (`default`, `verbose`).
//!
//! A failing test is a ` FAIL  <file> > describe > test` header (under the `Failed Tests N`
//! banner); the block under it, up to the `⎯⎯⎯[i/n]⎯` separator, holds the message, diff and
//! `❯ path:L:C` frames. Naming convention: the header as printed, file included
//! (`src/a.test.ts > describe > test`). The location is the first frame inside the test file.
//! ` FAIL  <file> [ <file> ]` (a file that failed to load) names no test and is skipped.
//!
//! Jest's `FAIL <file>` lines never carry ` > `, so the two parsers do not overlap.

use std::sync::LazyLock;

use regex::Regex;
use resolve_pr_core::ShellCommand;

use super::jest::{
    MAX_MESSAGE, MAX_STACK, bounded, error_type, escape_regex, frame, lines_with_offsets,
};
use super::relative_path;
use crate::{Confidence, Failure, Framework};

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ ?FAIL  (?:\|[^|]+\| )?(\S+\.[A-Za-z]+) > (.+?)\s*$").expect("regex")
});
static CODE_FRAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*\d*\s*\| ").expect("regex"));

pub fn parse(text: &str) -> Vec<(usize, Failure)> {
    let mut out: Vec<(usize, Failure)> = Vec::new();
    let lines = lines_with_offsets(text);
    let mut i = 0;
    while i < lines.len() {
        let (offset, line) = lines[i];
        let Some(c) = HEADER.captures(line) else {
            i += 1;
            continue;
        };
        let printed_file = c[1].to_owned();
        let titles = c[2].to_owned();
        let mut end = i + 1;
        while end < lines.len() {
            let l = lines[end].1;
            if HEADER.is_match(l) || is_separator(l) || l.starts_with(" Test Files ") {
                break;
            }
            end += 1;
        }
        let block: Vec<&str> = lines[i + 1..end].iter().map(|(_, l)| *l).collect();
        i = end;
        let name = format!("{printed_file} > {titles}");
        if out.iter().any(|(_, f)| f.test_name == name) {
            continue;
        }
        out.push((
            offset,
            failure(name, &relative_path(&printed_file), &titles, &block),
        ));
    }
    out
}

fn is_separator(line: &str) -> bool {
    line.trim_start().starts_with("⎯⎯⎯")
}

fn failure(name: String, file: &str, titles: &str, block: &[&str]) -> Failure {
    let mut message = Vec::new();
    let mut stack = Vec::new();
    let mut in_message = true;
    for l in block {
        if frame(l).is_some() || CODE_FRAME.is_match(l) {
            in_message = false;
        }
        if in_message {
            message.push(*l);
        } else if !l.trim().is_empty() {
            stack.push(l.trim_end());
        }
    }
    let message = bounded(message.join("\n").trim(), MAX_MESSAGE);
    let line = stack
        .iter()
        .find_map(|l| frame(l).filter(|(p, _)| p == file).map(|(_, n)| n));
    let pattern = escape_regex(&titles.replace(" > ", " "));
    Failure {
        test_name: name,
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
        framework: Framework::Vitest,
        reproduce_command: ShellCommand::new("npx")
            .args(["vitest", "run", file, "-t", &pattern])
            .render()
            .ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
 ❯ src/cart.test.ts (7 tests | 2 failed) 12ms
   × cart > totals > sums line items 5ms
     → expected 11 to be 12 // Object.is equality
   ✓ cart > handles error 0ms

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/cart.test.ts > cart > totals > sums line items
AssertionError: expected 11 to be 12 // Object.is equality

- Expected
+ Received

- 12
+ 11

 ❯ src/cart.test.ts:18:28
     16|         { price: 5, qty: 1 },
     18|       expect(total(items)).toBe(12);
       |                            ^

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/2]⎯

 FAIL  src/cart.test.ts > cart > parses amount abc as 0
RangeError: not an amount: \"abc\"
 ❯ parseAmount helpers/parse.js:8:11
 ❯ src/cart.test.ts:32:12

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[2/2]⎯

 Test Files  1 failed (1)
";

    #[test]
    fn fail_headers_are_failures() {
        let found = parse(LOG);
        assert_eq!(found.len(), 2);
        let f = &found[0].1;
        assert_eq!(
            f.test_name,
            "src/cart.test.ts > cart > totals > sums line items"
        );
        assert_eq!(f.file_path.as_deref(), Some("src/cart.test.ts"));
        assert_eq!(f.line_number, Some(18));
        assert_eq!(f.error_type.as_deref(), Some("AssertionError"));
        assert!(f.error_message.contains("+ 11"));
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("npx vitest run src/cart.test.ts -t 'cart totals sums line items'")
        );
        let g = &found[1].1;
        assert_eq!(g.line_number, Some(32));
        assert_eq!(g.error_type.as_deref(), Some("RangeError"));
    }

    #[test]
    fn jest_output_is_not_claimed() {
        let log = "FAIL src/a.test.js\n  ● suite › fails\n\n    expect(received).toBe(expected)\n";
        assert!(parse(log).is_empty());
    }
}
