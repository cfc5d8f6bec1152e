//! Vitest's console reporters (`default`, `verbose`), read line by line.
//!
//! A failing test is a ` FAIL  <file> > describe > test` header (under the `Failed Tests N`
//! banner); the block under it, up to the `⎯⎯⎯[i/n]⎯` separator (or the next header, or the
//! ` Test Files ` summary), holds the message, diff and `❯ path:L:C` frames. Naming
//! convention: the header as printed, file included (`src/a.test.ts > describe > test`).
//! The location is the first frame inside the test file. ` FAIL  <file> [ <file> ]` (a file
//! that failed to load: a syntax error, a missing import; vitest's JSON report has its
//! `message` and no assertion results) is one failure named by the file's path, located at
//! the first `path:L:C` of the file in its message or frames.
//!
//! Retries (`--retry n`, `{ retry: n }`): the default reporter lists the tests of a failed
//! file under ` ❯ <file> (N tests | M failed)`, a test that passed on a retry as
//! `   ✓ describe > test 12ms (retry x1)`: [`LineParser::flaky`] reports it, named like a
//! failure (`<file> > describe > test`). The verbose reporter does not mark retries, and
//! neither reporter lists the tests of a file that passed, so those are not seen.
//!
//! Streaming: the parser needs every line only inside a failure's block and inside a failed
//! file's test list; outside, it reads only lines with the trigger `FAIL` (the header;
//! colour codes around ` FAIL ` leave the word intact) or ` failed` (the file line of a
//! test list). The separator ends a block but never starts one, so it is no trigger.
//!
//! Behind `pnpm -r`'s `<package dir> <script>: ` prefixes (see
//! [`super::jest::PnpmPrefix`]) the lines are read without the prefix, and the file path is
//! joined to the package directory (the name stays as printed).
//!
//! Jest's `FAIL <file>` lines never carry ` > `, so the two parsers do not overlap.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

use super::cargo_test::Joined;
use super::jest::{
    MAX_MESSAGE, MAX_STACK, PnpmPrefix, Trimmed, error_type, escape_regex, frame, in_dir, indent,
    message_location,
};
use super::{LineParser, MAX_FAILURES, relative_path};
use crate::{Confidence, Failure, FlakyTest, Framework};

/// The substrings (in the raw log) of every line this parser reads while not busy.
pub const TRIGGERS: &[&str] = &["FAIL", " failed"];

/// Flaky tests remembered at most.
const MAX_FLAKY: usize = 5000;

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ ?FAIL  (?:\|[^|]+\| )?(\S+\.[A-Za-z]+) > (.+?)\s*$").expect("regex")
});
static SUITE_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ ?FAIL  (?:\|[^|]+\| )?(\S+\.[A-Za-z]+) \[ \S+ \]\s*$").expect("regex")
});
/// The file line of a failed file's test list: ` ❯ <file> (N tests | M failed) 12ms`.
static MODULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ ❯ (\S+\.[A-Za-z]+) \(\d+ tests?\b[^)]*\bfailed\)").expect("regex")
});
/// A test that passed on a retry in a test list: `   ✓ describe > test 12ms (retry x1)`.
static RETRIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+✓ (.+?)(?: \d+(?:\.\d+)?m?s)? \(retry x(\d+)\)").expect("regex")
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
    /// A file that failed to load: named by the file.
    suite_error: bool,
    /// The package directory of a pnpm `-r` run: vitest's paths are relative to it.
    dir: Option<String>,
}

/// The vitest parser. See the module documentation.
#[derive(Default)]
pub struct Vitest {
    block: Option<Block>,
    seen: HashSet<String>,
    out: Vec<(u64, Failure)>,
    /// The file whose test list is being read.
    module: Option<String>,
    prefix: PnpmPrefix,
    flaky: Vec<(u64, FlakyTest)>,
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

impl Vitest {
    /// A line of a failed file's test list; false when it ended the list.
    fn module_line(&mut self, offset: u64, line: &str) -> bool {
        let Some(file) = &self.module else {
            return false;
        };
        if line.trim().is_empty() || indent(line) < 3 {
            self.module = None;
            return false;
        }
        if let Some(c) = RETRIED.captures(line)
            && self.flaky.len() < MAX_FLAKY
        {
            let retries: u32 = c[2].parse().unwrap_or(u32::MAX);
            self.flaky.push((
                offset,
                FlakyTest {
                    test_name: format!("{file} > {}", &c[1]),
                    framework: Framework::Vitest,
                    file_path: Some(relative_path(file)),
                    line_number: None,
                    failed_attempts: Some(retries),
                    attempts: Some(retries.saturating_add(1)),
                    error_message: None,
                },
            ));
        }
        true
    }
}

impl LineParser for Vitest {
    fn line(&mut self, offset: u64, line: &str) {
        let line = self.prefix.strip(line, |rest| {
            suite_header(rest).is_some() || header(rest).is_some()
        });
        if self.module_line(offset, line) {
            return;
        }
        if line.starts_with(" ❯ ")
            && line.contains(" failed")
            && let Some(c) = MODULE.captures(line)
        {
            self.end_block();
            self.module = Some(c[1].to_owned());
            return;
        }
        if let Some(c) = suite_header(line) {
            self.end_block();
            let file = relative_path(&c[1]);
            self.block = Some(Block {
                dir: self.prefix.dir().map(str::to_owned),
                offset,
                name: file.clone(),
                file,
                titles: String::new(),
                message: Trimmed::new(MAX_MESSAGE),
                stack: Joined::new(MAX_STACK),
                in_message: true,
                line: None,
                suite_error: true,
            });
            return;
        }
        let header = header(line);
        if let Some(b) = &mut self.block {
            if header.is_none() && !is_separator(line) && !line.starts_with(" Test Files ") {
                b.line(line);
                return;
            }
            // A test that failed on every retry: its header once per attempt, then one block.
            if let Some(c) = &header
                && b.message.is_empty()
                && b.stack.is_empty()
                && b.titles == c[2]
                && b.name.starts_with(&c[1])
            {
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
            dir: self.prefix.dir().map(str::to_owned),
            offset,
            name,
            file: relative_path(printed_file),
            titles: c[2].to_owned(),
            message: Trimmed::new(MAX_MESSAGE),
            stack: Joined::new(MAX_STACK),
            in_message: true,
            line: None,
            suite_error: false,
        });
    }

    fn busy(&self) -> bool {
        self.block.is_some() || self.module.is_some()
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.end_block();
        std::mem::take(&mut self.out)
    }

    fn flaky(&mut self) -> Vec<(u64, FlakyTest)> {
        // A test listed twice (several runs in one log) is one flaky test; one that failed
        // in the end is a failure.
        let mut seen = HashSet::new();
        std::mem::take(&mut self.flaky)
            .into_iter()
            .filter(|(_, f)| !self.seen.contains(&f.test_name) && seen.insert(f.test_name.clone()))
            .collect()
    }
}

fn suite_header(line: &str) -> Option<regex::Captures<'_>> {
    if !line.starts_with("FAIL  ") && !line.starts_with(" FAIL  ") || !line.ends_with(']') {
        return None;
    }
    SUITE_HEADER.captures(line)
}

impl Block {
    fn line(&mut self, l: &str) {
        if self.in_message && (frame(l).is_some() || l.contains('|') && CODE_FRAME.is_match(l)) {
            self.in_message = false;
        }
        if self.in_message {
            self.message.push(l);
            if self.suite_error && self.line.is_none() {
                self.line = message_location(l, &self.file);
            }
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
        let file = in_dir(self.dir.as_deref(), &self.file);
        let reproduce_command = if self.suite_error {
            crate::reproduce::vitest_file(&file)
        } else {
            crate::reproduce::vitest(&file, &pattern)
        };
        Failure {
            reproduce_command,
            test_name: self.name,
            file_path: Some(file),
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

    /// Real vitest 3 output: a file with a missing import, one with a syntax error.
    const SUITE_ERRORS: &str = "
 FAIL  vitest/broken-import.test.mjs [ vitest/broken-import.test.mjs ]
Error: Cannot find module '../helpers/does-not-exist.mjs' imported from '/home/runner/work/w/w/vitest/broken-import.test.mjs'
 ❯ vitest/broken-import.test.mjs:3:1
      3| import { missing } from '../helpers/does-not-exist.mjs';
       | ^

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯
Serialized Error: { code: 'ERR_MODULE_NOT_FOUND' }

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/2]⎯

 FAIL  vitest/broken-syntax.test.mjs [ vitest/broken-syntax.test.mjs ]
RollupError: Parse failure: Expression expected
At file: /home/runner/work/w/w/vitest/broken-syntax.test.mjs:6:18
  6  |      const total = ;
     |                    ^
 ❯ getRollupError node_modules/rollup/dist/es/shared/parseAst.js:355:41

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[2/2]⎯

 Test Files  2 failed (2)
";

    #[test]
    fn a_file_that_failed_to_load_is_one_failure_named_by_its_path() {
        let found = parse(SUITE_ERRORS);
        let got = super::super::named_at(&found);
        assert_eq!(
            got,
            [
                (
                    "vitest/broken-import.test.mjs",
                    Some("vitest/broken-import.test.mjs"),
                    Some(3)
                ),
                (
                    "vitest/broken-syntax.test.mjs",
                    Some("vitest/broken-syntax.test.mjs"),
                    Some(6)
                ),
            ]
        );
        assert_eq!(
            found[0].reproduce_command.as_deref(),
            Some("npx vitest run vitest/broken-import.test.mjs")
        );
    }

    /// Real vitest 3 output of `--retry 2` (default reporter).
    const RETRIES: &str = "
 ❯ vitest/flaky.test.mjs (2 tests | 1 failed) 39ms
   ✓ retried > passes on the second attempt 12ms (retry x1)
   × retried > fails on every attempt 20ms (retry x2)
     → expected 'red' to be 'green' // Object.is equality
     → expected 'red' to be 'green' // Object.is equality
     → expected 'red' to be 'green' // Object.is equality
 ✓ vitest/ok.test.mjs (4 tests) 20ms

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  vitest/flaky.test.mjs > retried > fails on every attempt
 FAIL  vitest/flaky.test.mjs > retried > fails on every attempt
 FAIL  vitest/flaky.test.mjs > retried > fails on every attempt
AssertionError: expected 'red' to be 'green' // Object.is equality
 ❯ vitest/flaky.test.mjs:11:19

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed | 1 passed (2)
";

    #[test]
    fn a_test_that_passed_on_a_retry_is_flaky_and_a_repeated_header_is_one_failure() {
        let report = {
            let mut s = crate::Scanner::new();
            s.feed(RETRIES.as_bytes());
            s.finish()
        };
        let failed = report.failures();
        assert_eq!(failed.len(), 1);
        assert_eq!(
            failed[0].test_name,
            "vitest/flaky.test.mjs > retried > fails on every attempt"
        );
        // The block after the last of the repeated headers is the failure's.
        assert_eq!(failed[0].line_number, Some(11));
        assert_eq!(report.flaky.len(), 1);
        let f = &report.flaky[0];
        assert_eq!(
            f.test_name,
            "vitest/flaky.test.mjs > retried > passes on the second attempt"
        );
        assert_eq!(f.file_path.as_deref(), Some("vitest/flaky.test.mjs"));
        assert_eq!((f.failed_attempts, f.attempts), (Some(1), Some(2)));
    }

    /// Real `pnpm -r test` output of two vitest packages, interleaved.
    const PNPM: &str = "\
packages/ui test:  ❯ button.test.mjs (2 tests | 1 failed) 62ms
packages/ui test:    × button > renders a label 58ms
packages/ui test: ⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯
packages/ui test:  FAIL  button.test.mjs > button > renders a label
packages/ui test: AssertionError: expected 'Savechanges' to be 'Save changes' // Object.is equality
packages/core test:  ✓ money.test.mjs (2 tests) 50ms
packages/ui test:  ❯ button.test.mjs:6:19
packages/ui test:       6|     expect(label).toBe('Save changes');
packages/ui test: ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯
packages/ui test:  Test Files  1 failed (1)
 ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  ui@1.0.0 test: `vitest run`
";

    #[test]
    fn pnpm_prefixes_are_read_through_and_paths_joined_to_the_package() {
        let found = parse(PNPM);
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(f.test_name, "button.test.mjs > button > renders a label");
        assert_eq!(f.file_path.as_deref(), Some("packages/ui/button.test.mjs"));
        assert_eq!(f.line_number, Some(6));
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
