//! Vitest's console reporters (`default`, `verbose`), read line by line.
//!
//! A failing test is a ` FAIL  <file> > describe > test` header (under the `Failed Tests N`
//! banner); the block under it, up to the `⎯⎯⎯[i/n]⎯` separator (or the next header, or the
//! ` Test Files ` summary), holds the message, diff and `❯ path:L:C` frames. Naming
//! convention: the header as printed, file included (`src/a.test.ts > describe > test`).
//! The location is the first frame inside the test file. ` FAIL  <file> [ <file> ]` (a file
//! that failed to load) names no test and is skipped.
//!
//! Streaming: the parser needs every line only inside a failure's block; outside, it reads
//! only lines with the trigger `FAIL` (the header; colour codes around ` FAIL ` leave the
//! word intact). The separator ends a block but never starts one, so it is no trigger.
//!
//! Jest's `FAIL <file>` lines never carry ` > `, so the two parsers do not overlap.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::cargo_test::Joined;
use super::jest::{MAX_MESSAGE, MAX_STACK, Trimmed, error_type, escape_regex, frame};
use super::{LineParser, MAX_FAILURES, relative_path};
use crate::{Confidence, Failure, Framework};

/// The substrings (in the raw log) of every line this parser reads while not busy.
pub const TRIGGERS: &[&str] = &["FAIL"];

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ ?FAIL  (?:\|[^|]+\| )?(\S+\.[A-Za-z]+) > (.+?)\s*$").expect("regex")
});
static CODE_FRAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*\d*\s*\| ").expect("regex"));

/// One failure's block being read.
struct Block {
    offset: u64,
    name: String,
    file: String,
    titles: String,
    message: Trimmed,
    stack: Joined,
    in_message: bool,
    line: Option<u64>,
}

/// The vitest parser. See the module documentation.
#[derive(Default)]
pub struct Vitest {
    block: Option<Block>,
    seen: HashSet<String>,
    out: Vec<(u64, Failure)>,
}

impl Vitest {
    pub fn new() -> Self {
        Self::default()
    }

    fn end_block(&mut self) {
        let Some(b) = self.block.take() else {
            return;
        };
        if self.out.len() < MAX_FAILURES && self.seen.insert(b.name.clone()) {
            self.out.push((b.offset, b.failure()));
        }
    }
}

fn header(line: &str) -> Option<regex::Captures<'_>> {
    if !line.starts_with("FAIL  ") && !line.starts_with(" FAIL  ") {
        return None;
    }
    HEADER.captures(line)
}

fn is_separator(line: &str) -> bool {
    line.trim_start().starts_with("⎯⎯⎯")
}

impl LineParser for Vitest {
    fn line(&mut self, offset: u64, line: &str) {
        let header = header(line);
        if let Some(b) = &mut self.block {
            if header.is_none() && !is_separator(line) && !line.starts_with(" Test Files ") {
                b.line(line);
                return;
            }
            self.end_block();
        }
        let Some(c) = header else {
            return;
        };
        let printed_file = &c[1];
        let name = format!("{printed_file} > {}", &c[2]);
        // A repeated header's block is read too, and dropped at its end.
        self.block = Some(Block {
            offset,
            name,
            file: relative_path(printed_file),
            titles: c[2].to_owned(),
            message: Trimmed::new(MAX_MESSAGE),
            stack: Joined::new(MAX_STACK),
            in_message: true,
            line: None,
        });
    }

    fn busy(&self) -> bool {
        self.block.is_some()
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.end_block();
        std::mem::take(&mut self.out)
    }
}

impl Block {
    fn line(&mut self, l: &str) {
        if self.in_message && (frame(l).is_some() || l.contains('|') && CODE_FRAME.is_match(l)) {
            self.in_message = false;
        }
        if self.in_message {
            self.message.push(l);
        } else if !l.trim().is_empty() {
            let s = l.trim_end();
            self.stack.push(s);
            if self.line.is_none() {
                self.line = frame(s).filter(|(p, _)| *p == self.file).map(|(_, n)| n);
            }
        }
    }

    fn failure(self) -> Failure {
        let message = self.message.text();
        let line = self.line;
        let pattern = escape_regex(&self.titles.replace(" > ", " "));
        Failure {
            reproduce_command: crate::reproduce::vitest(&self.file, &pattern),
            test_name: self.name,
            file_path: Some(self.file),
            line_number: line,
            error_type: Some(error_type(&message)),
            error_message: message,
            stack_trace: (!self.stack.is_empty()).then(|| self.stack.text()),
            confidence: if line.is_some() {
                Confidence::High
            } else {
                Confidence::Medium
            },
            framework: Framework::Vitest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Vec<Failure> {
        crate::parse_log(log.as_bytes())
            .into_iter()
            .filter(|f| f.framework == Framework::Vitest)
            .collect()
    }

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
        let f = &found[0];
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
        let g = &found[1];
        assert_eq!(g.line_number, Some(32));
        assert_eq!(g.error_type.as_deref(), Some("RangeError"));
    }

    #[test]
    fn jest_output_is_not_claimed() {
        let log = "FAIL src/a.test.js\n  ● suite › fails\n\n    expect(received).toBe(expected)\n";
        assert!(parse(log).is_empty());
    }

    #[test]
    fn not_busy_after_a_failure_and_the_failures_stay() {
        let mut p = Vitest::new();
        for (i, line) in LOG.lines().enumerate() {
            p.line(i as u64, line);
        }
        for i in 0..10_000 {
            p.line(1_000 + i, "   ✓ renders row (3 ms)");
            assert!(!p.busy(), "busy at noise line {i}");
        }
        let found = p.finish();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].1.line_number, Some(18));
    }
}
