//! One streaming pass over a job log. Bytes arrive in chunks of any size (a download, a
//! file, stdin); complete lines are cleaned (see [`crate::log`]) and handed to every
//! registered parser and to the Actions segmenter. Memory does not grow with the log: the
//! scanner keeps at most one partial line (capped at [`MAX_LINE`]), and parsers keep only
//! what they report, capped per parser.
//!
//! Speed comes from skipping: while no parser is inside a block it is reading
//! ([`LineParser::busy`]), the scanner jumps with one Aho-Corasick search over the raw bytes
//! to the next line that contains any parser's trigger, so the bulk of a large log (build
//! output, passing tests) is never cleaned or looked at line by line. A parser must give
//! the same failures whether or not the lines without its triggers are delivered while it is
//! idle; the corpus test checks that for every log.

use std::borrow::Cow;
use std::io::Read;
use std::sync::{Arc, LazyLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::log::clean_line;
use crate::parsers::{self, LineParser};
use crate::segment::{Segmenter, StepSegment};
use crate::{Failure, FlakyTest, Framework};

/// Longest line kept, in bytes; the rest of a longer line is dropped (a minified bundle or
/// a log with no newlines cannot grow memory).
pub const MAX_LINE: usize = 64 * 1024;

/// A failing test with where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Byte offset in the log of the line the failure was reported on.
    pub offset: u64,
    /// The Actions step it was printed in (`Run pytest -q`), when the log has steps.
    pub step: Option<String>,
    pub failure: Failure,
}

/// Everything one pass over a log learned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Failing tests in log order. The generic fallback's low-confidence finds are here only
    /// when no framework parser found anything.
    pub found: Vec<Found>,
    /// Tests that failed and then passed on a retry in the same job, in log order: flaky by
    /// the framework's own account, never among `found`.
    pub flaky: Vec<FlakyTest>,
    /// The Actions steps (`##[group]Run …` boundaries), in order, with their `##[error]`
    /// lines and exit codes.
    pub steps: Vec<StepSegment>,
    /// Bytes read.
    pub bytes: u64,
    /// Lines longer than [`MAX_LINE`] that were cut.
    pub long_lines: u64,
}

impl Report {
    pub fn failures(&self) -> Vec<Failure> {
        self.found.iter().map(|f| f.failure.clone()).collect()
    }
}

/// The streaming scanner. Feed it chunks, then [`Scanner::finish`].
pub struct Scanner {
    parsers: Vec<Active>,
    segmenter: Segmenter,
    triggers: Arc<AhoCorasick>,
    /// Whether every line must be delivered (some parser is busy, or skipping is off).
    busy: bool,
    skip: bool,
    /// The partial line at the end of the previous chunk.
    carry: Vec<u8>,
    carry_offset: u64,
    carry_cut: bool,
    /// Offset of the next byte fed.
    offset: u64,
    long_lines: u64,
}

struct Active {
    parser: Box<dyn LineParser>,
    fallback: bool,
}

impl Default for Scanner {
    fn default() -> Self {
        Self::new()
    }
}

impl Scanner {
    pub fn new() -> Self {
        static ALL: LazyLock<Arc<AhoCorasick>> =
            LazyLock::new(|| Arc::new(automaton(parsers::PARSERS.iter())));
        Self::with(parsers::PARSERS.iter(), ALL.clone())
    }

    /// A scanner with only the parsers of these frameworks (and the step segmenter): for
    /// measuring what each parser costs.
    pub fn only(frameworks: &[Framework]) -> Self {
        let specs = || {
            parsers::PARSERS
                .iter()
                .filter(|s| frameworks.contains(&s.framework))
        };
        Self::with(specs(), Arc::new(automaton(specs())))
    }

    fn with<'a>(
        specs: impl Iterator<Item = &'a parsers::ParserSpec>,
        triggers: Arc<AhoCorasick>,
    ) -> Self {
        let parsers = specs
            .map(|spec| Active {
                parser: (spec.new)(),
                fallback: spec.fallback,
            })
            .collect();
        let mut scanner = Scanner {
            parsers,
            segmenter: Segmenter::default(),
            triggers,
            busy: false,
            skip: true,
            carry: Vec::new(),
            carry_offset: 0,
            carry_cut: false,
            offset: 0,
            long_lines: 0,
        };
        scanner.update_busy();
        scanner
    }

    /// Delivers every line to every parser (no skipping). For tests that check skipping
    /// changes nothing.
    pub fn without_skipping() -> Self {
        let mut s = Self::new();
        s.skip = false;
        s.busy = true;
        s
    }

    /// Reads `reader` to the end in 1 MiB chunks.
    pub fn read_from(mut self, mut reader: impl Read) -> std::io::Result<Report> {
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.feed(&buf[..n]);
        }
        Ok(self.finish())
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        let mut data = chunk;
        let base = self.offset;
        self.offset += chunk.len() as u64;
        let mut data_offset = base;
        if !self.carry.is_empty() || self.carry_cut {
            match memchr::memchr(b'\n', data) {
                Some(i) => {
                    self.append_carry(&data[..i]);
                    let line = std::mem::take(&mut self.carry);
                    let offset = self.carry_offset;
                    self.carry_cut = false;
                    self.deliver(&line, offset);
                    self.carry = line;
                    self.carry.clear();
                    data = &data[i + 1..];
                    data_offset = base + i as u64 + 1;
                }
                None => {
                    self.append_carry(data);
                    return;
                }
            }
        }
        let complete = match memchr::memrchr(b'\n', data) {
            Some(i) => i + 1,
            None => 0,
        };
        self.block(&data[..complete], data_offset);
        let rest = &data[complete..];
        if !rest.is_empty() {
            self.carry_offset = data_offset + complete as u64;
            self.append_carry(rest);
        }
    }

    fn append_carry(&mut self, bytes: &[u8]) {
        let room = MAX_LINE.saturating_sub(self.carry.len());
        if bytes.len() > room {
            self.carry.extend_from_slice(&bytes[..room]);
            if !self.carry_cut {
                self.carry_cut = true;
                self.long_lines += 1;
            }
        } else {
            self.carry.extend_from_slice(bytes);
        }
    }

    /// `block` holds whole lines, each ending in `\n`.
    fn block(&mut self, block: &[u8], offset: u64) {
        let mut pos = 0;
        while pos < block.len() {
            if !self.busy {
                match self.triggers.find(&block[pos..]) {
                    None => return,
                    Some(m) => {
                        let at = pos + m.start();
                        pos = match memchr::memrchr(b'\n', &block[pos..at]) {
                            Some(i) => pos + i + 1,
                            None => pos,
                        };
                    }
                }
            }
            let end = match memchr::memchr(b'\n', &block[pos..]) {
                Some(i) => pos + i,
                None => block.len(),
            };
            let line = &block[pos..end];
            if line.len() > MAX_LINE {
                self.long_lines += 1;
                self.deliver(&line[..MAX_LINE], offset + pos as u64);
            } else {
                self.deliver(line, offset + pos as u64);
            }
            pos = end + 1;
        }
    }

    fn deliver(&mut self, raw: &[u8], offset: u64) {
        let text: Cow<'_, str> = clean_line(raw);
        self.segmenter.line(offset, &text);
        for p in &mut self.parsers {
            p.parser.line(offset, &text);
        }
        self.update_busy();
    }

    fn update_busy(&mut self) {
        self.busy =
            !self.skip || self.segmenter.busy() || self.parsers.iter().any(|p| p.parser.busy());
    }

    pub fn finish(mut self) -> Report {
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.deliver(&line, self.carry_offset);
        }
        let mut found: Vec<(u64, Failure)> = Vec::new();
        let mut fallback: Vec<(u64, Failure)> = Vec::new();
        let mut flaky: Vec<(u64, FlakyTest)> = Vec::new();
        for p in &mut self.parsers {
            let got = p.parser.finish();
            flaky.extend(p.parser.flaky());
            if p.fallback {
                fallback.extend(got);
            } else {
                found.extend(got);
            }
        }
        if found.is_empty() {
            found = fallback;
        }
        found.sort_by_key(|(offset, _)| *offset);
        flaky.sort_by_key(|(offset, _)| *offset);
        let steps = self.segmenter.finish();
        let found = found
            .into_iter()
            .map(|(offset, failure)| Found {
                offset,
                step: step_at(&steps, offset),
                failure,
            })
            .collect();
        Report {
            found,
            flaky: flaky.into_iter().map(|(_, f)| f).collect(),
            steps,
            bytes: self.offset,
            long_lines: self.long_lines,
        }
    }
}

/// The patterns one search needs for these triggers: each distinct trigger, except those
/// that contain another (a line holding `FAILED` holds `FAIL`, so searching for `FAIL` finds
/// it): the lines found are the same, and fewer patterns keep the search on its SIMD path.
fn search_patterns(triggers: impl IntoIterator<Item = &'static str>) -> Vec<&'static str> {
    let mut patterns: Vec<&'static str> = triggers.into_iter().collect();
    patterns.sort_unstable();
    patterns.dedup();
    let all = patterns.clone();
    patterns.retain(|p| !all.iter().any(|q| q != p && p.contains(q)));
    patterns
}

/// One search for every trigger of these parsers and of the segmenter.
fn automaton<'a>(specs: impl Iterator<Item = &'a parsers::ParserSpec>) -> AhoCorasick {
    let mut triggers: Vec<&'static str> = Segmenter::TRIGGERS.to_vec();
    for spec in specs {
        triggers.extend_from_slice(spec.triggers);
    }
    let patterns = search_patterns(triggers);
    AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::DFA))
        .match_kind(MatchKind::LeftmostFirst)
        .build(&patterns)
        .expect("trigger patterns are plain strings")
}

fn step_at(steps: &[StepSegment], offset: u64) -> Option<String> {
    let i = steps.partition_point(|s| s.start <= offset);
    i.checked_sub(1).map(|i| steps[i].title.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Aho-Corasick's SIMD prefilter (Teddy) handles at most 64 patterns; above that the
    /// skip over idle lines runs about half as fast. Parsers share tokens to stay under
    /// (a trigger that contains another costs nothing).
    #[test]
    fn triggers_fit_the_simd_prefilter() {
        let mut triggers: Vec<&'static str> = Segmenter::TRIGGERS.to_vec();
        for spec in parsers::PARSERS {
            triggers.extend_from_slice(spec.triggers);
        }
        let patterns = search_patterns(triggers);
        assert!(
            patterns.len() <= 64,
            "{} trigger patterns: {patterns:?}",
            patterns.len()
        );
    }

    /// The search checks each candidate position by a pattern's first three bytes: a
    /// pattern starting like the lines of passing tests (`tests/…`, `test_…`, `status`,
    /// English `to `) makes nearly every line a candidate, and `test result:`, `stack
    /// backtrace:` and `to rerun pass` made the skip over a large pytest log three times
    /// slower.
    #[test]
    fn no_searched_pattern_starts_like_passing_output() {
        let mut triggers: Vec<&'static str> = Segmenter::TRIGGERS.to_vec();
        for spec in parsers::PARSERS {
            triggers.extend_from_slice(spec.triggers);
        }
        // Measured on pytest logs; other starts are not a rule (which patterns share the
        // search's buckets matters as much: `There was 1 failure:` as `1 failure:` was slower).
        let common = ["tes", "sta", "to "];
        let bad: Vec<_> = search_patterns(triggers)
            .into_iter()
            .filter(|p| common.iter().any(|c| p.starts_with(c)))
            .collect();
        assert!(bad.is_empty(), "{bad:?}");
    }

    #[test]
    fn a_trigger_that_contains_another_is_not_searched_for() {
        assert_eq!(
            search_patterns([
                "FAILED",
                "FAIL",
                "--- FAIL",
                "===",
                "=== RUN",
                "panicked at",
                "FAIL"
            ]),
            ["===", "FAIL", "panicked at"]
        );
    }

    #[test]
    fn a_line_split_across_chunks_and_a_huge_line_are_handled() {
        let mut s = Scanner::new();
        let long = vec![b'x'; MAX_LINE * 3];
        s.feed(&long);
        s.feed(b"\nFAILED tests/a.py::t - boom\n");
        let report = s.finish();
        assert_eq!(report.long_lines, 1);
        assert_eq!(report.bytes, (MAX_LINE * 3 + 29) as u64);
    }
}
