//! pytest: the `FAILURES` / `ERRORS` sections (one `___ head line ___` block per failure, any
//! `--tb` style, or `--tb=line` one-liners) and the `short test summary info` (`FAILED
//! nodeid - message`, `ERROR nodeid - message`), merged per test: the summary names the test
//! (its nodeid), the section gives the location, message and trace. Without a summary
//! (`-rN`, a truncated log) sections and `-v` progress lines (`nodeid FAILED [ 10%]`,
//! xdist's `[gw0] [ 10%] FAILED nodeid`) name it. A run ends at its stats line (`=== 2
//! failed, 1 passed in 0.10s ===`, without the `=` under `-q`); several runs in one log are
//! merged run by run.
//!
//! Location rule: the last `path:line:` traceback entry inside the test's own file (the line
//! of the test that failed, also when the exception came from a helper); if no entry is in
//! that file, the innermost entry (a fixture in `conftest.py`, `--tb=line` crash line). A
//! module that failed to import (`ERROR collecting x.py`) is located only in its own file,
//! at the line its `SyntaxError` names, if any.
//!
//! Confidence: `high` when the summary named the test and a location was found; `medium`
//! when one of the two is missing (a section without summary, a summary line without
//! section); xfail/xpass/skipped/passed are never failures (strict XPASS is: pytest says
//! FAILED).
//!
//! Streaming: the parser is busy (reads every line) only inside a `FAILURES`/`ERRORS`
//! section, which ends at the next `=` banner, the stats line or an Actions step boundary
//! (`##[group]`, `##[endgroup]`, `##[error]Process completed`). While idle it acts only on
//! lines with a trigger ([`TRIGGERS`]): the banners, the `FAILED`/`ERROR` of summary and
//! progress lines, and the ` failed`/` error` counts of the stats line (a stats line that
//! counts neither ends nothing: its run has nothing to keep apart), so skipping the other
//! lines changes nothing. Memory: at most [`MAX_FAILURES`] sections, summary and progress
//! lines per run; each section keeps [`MAX_BODY_LINES`] lines and [`MAX_TRACE`] bytes of
//! trace (the lines beyond are counted and the count is noted in the trace), [`MAX_MESSAGE`]
//! bytes of `E` lines, and its traceback entries condensed to the last line per file.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use regex::Regex;

use super::{LineParser, MAX_FAILURES, bounded_str, relative_path};
use crate::{Confidence, Failure, FlakyTest, Framework};

/// What makes the idle parser look at a line. Few and shared where possible: the scanner
/// searches all parsers' triggers at once, and above 64 distinct patterns Aho-Corasick drops
/// its SIMD prefilter (Teddy) and the skipping gets about twice as slow.
/// - `FAIL` (also jest's, vitest's, nextest's): `FAILED` summary and progress lines, the
///   `FAILURES` banner;
/// - `ERROR`: `ERROR` summary and progress lines, the `ERRORS` banner;
/// - `===` (also unittest's): every banner (`=== short test summary info ===`, `=== PASSES
///   ===`), which starts or ends the summary;
/// - `failed` (also mocha's and others'), ` error`: the stats line of a run that failed (`14
///   failed, 9 passed in 0.06s`, with no `=` under `-q`; pytest colours each count as one
///   piece, so the word is never split; ` error` keeps its space);
/// - `RERUN`: pytest-rerunfailures' `-v` progress lines (`nodeid RERUN [ 10%]`, xdist's
///   `[gw0] [ 10%] RERUN nodeid`), which make a test that then passes flaky.
pub const TRIGGERS: &[&str] = &["FAIL", "ERROR", "===", "failed", " error", "RERUN"];

/// Whether `line` has one of [`TRIGGERS`]: while idle, the parser changes nothing for a line
/// without one (which the scanner may not deliver).
fn has_trigger(line: &str) -> bool {
    TRIGGERS.iter().any(|t| line.contains(t))
}

pub const MAX_MESSAGE: usize = 2000;
pub const MAX_TRACE: usize = 4000;
/// Lines of a section kept for its trace and message; the rest are counted.
pub const MAX_BODY_LINES: usize = 400;
/// Distinct files whose last traceback entry one failure remembers.
pub const MAX_PATHS: usize = 64;
/// `E   File "…", line N` references (a `SyntaxError`'s location) kept per section.
const MAX_FILE_REFS: usize = 16;
/// Bytes kept of text that is later cut to `max` with [`bounded_str`]: a character more,
/// so the cut (and its `…`) comes out as if everything had been kept.
pub(super) const fn keep(max: usize) -> usize {
    max + 4
}

pub fn new() -> Box<dyn LineParser> {
    Box::<Pytest>::default()
}

/// The pytest parser (see the module documentation).
#[derive(Default)]
pub struct Pytest {
    state: State,
    run: Run,
    /// Failures of the runs that ended.
    out: Vec<(u64, Failure)>,
    /// Tests of the runs that ended that were rerun and then not reported failing.
    flaky: Vec<(u64, FlakyTest)>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    Outside,
    /// In a `FAILURES` or `ERRORS` section: busy.
    Failures,
    /// After the `short test summary info` banner (idle: its lines carry `FAILED`/`ERROR`).
    Summary,
}

/// What one run (up to its stats line) reported.
#[derive(Default)]
struct Run {
    sections: Vec<Section>,
    summaries: Vec<Named>,
    progress: Vec<Named>,
    /// pytest-rerunfailures' `RERUN` progress lines: nodeid, offset of the first, count.
    reruns: Vec<(String, u64, u32)>,
    line_entries: Vec<LineEntry>,
    /// `E` lines waiting for their `--tb=line` crash line.
    pending_e: ELines,
    /// The section lines now belong to.
    current: Current,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Current {
    /// None: right after a `FAILURES`/`ERRORS` banner (`--tb=line` one-liners).
    #[default]
    None,
    Section(usize),
    /// A section beyond [`MAX_FAILURES`]: read, not kept.
    Dropped,
}

#[derive(Debug, Default)]
struct Section {
    offset: u64,
    /// Head line without `ERROR at setup of ` etc.
    key: String,
    /// `path:line: text` traceback entries.
    entries: Entries,
    e: ELines,
    /// The section's lines, for the trace.
    body: Lines,
    /// The first non-blank body line, trimmed and bounded: the message when there are no
    /// `E` lines.
    first_text: Option<String>,
    /// `--tb=native`: the lines after the last `File "…", line N` frame, from the first
    /// unindented one (the exception), and the type it names.
    native: Lines,
    native_type: Option<String>,
    /// After a `--- Captured … ---` line: what the test printed, no traceback entries.
    captured: bool,
    used: bool,
}

/// A test named by a summary or progress line.
#[derive(Debug)]
struct Named {
    offset: u64,
    nodeid: String,
    message: String,
}

/// A `--tb=line` crash line: `/abs/tests/test_x.py:12: AssertionError: ...`, with the `E`
/// lines before it.
#[derive(Debug)]
struct LineEntry {
    /// The crash line's path, repository-relative.
    rel: String,
    line: u64,
    message: String,
    e: ELines,
    used: bool,
}

/// `E` lines (`E` and indentation removed): joined and bounded, the error type the first of
/// them that names one names, and `File "…", line N` references.
#[derive(Debug, Default)]
struct ELines {
    text: Lines,
    error_type: Option<String>,
    file_refs: Vec<(String, u64)>,
}

impl ELines {
    fn push(&mut self, e: &str) {
        self.text.push(e, keep(MAX_MESSAGE), usize::MAX);
        if self.error_type.is_none() {
            self.error_type = line_error_type(e);
        }
        if self.file_refs.len() < MAX_FILE_REFS
            && let Some(rest) = e.strip_prefix("File \"")
            && let Some((path, tail)) = rest.split_once("\", line ")
            && let Ok(n) = tail.parse::<u64>()
        {
            self.file_refs.push((path.to_owned(), n));
        }
    }

    fn is_empty(&self) -> bool {
        self.text.count == 0
    }

    fn first(&self) -> Option<&str> {
        (!self.is_empty()).then(|| self.text.text.split('\n').next().unwrap_or(""))
    }

    fn message(&self) -> String {
        bounded_str(&self.text.text, MAX_MESSAGE)
    }
}

/// Lines joined with `\n`, kept up to a byte cap (cut on a character boundary) and a line
/// cap; the lines beyond are counted, not kept.
#[derive(Debug, Default)]
pub(super) struct Lines {
    pub(super) text: String,
    /// Lines pushed, kept or not.
    pub(super) count: usize,
    /// Lines not kept at all.
    pub(super) dropped: usize,
    /// Whether a kept line has a non-blank character.
    pub(super) has_text: bool,
    full: bool,
}

impl Lines {
    /// Appends `line` while fewer than `max_lines` lines came and the text is under `cap`.
    pub(super) fn push(&mut self, line: &str, cap: usize, max_lines: usize) {
        self.count += 1;
        if self.count > max_lines {
            self.dropped += 1;
            return;
        }
        if !self.has_text && !line.trim().is_empty() {
            self.has_text = true;
        }
        if self.full || (self.count > 1 && self.text.len() >= cap) {
            self.full = true;
            self.dropped += 1;
            return;
        }
        if self.count > 1 {
            self.text.push('\n');
        }
        let room = cap.saturating_sub(self.text.len());
        if line.len() <= room {
            self.text.push_str(line);
        } else {
            let mut end = room;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&line[..end]);
            self.full = true;
        }
    }

    /// The text cut to `max` bytes, with the number of lines not kept noted after it.
    pub(super) fn trace(&self, max: usize) -> String {
        let mut s = bounded_str(&self.text, max);
        if self.dropped > 0 {
            s.push_str(&format!("\n[{} more lines]", self.dropped));
        }
        s
    }
}

/// The traceback entries (`path`, `line`) of one failure, condensed to what the location
/// rules read: the first entry's path, the last entry, and for each distinct path (at most
/// [`MAX_PATHS`]) its repository-relative form and the line of its last entry. Allocates
/// only for a path not seen before.
#[derive(Debug, Default)]
pub(super) struct Entries {
    /// The first entry's path, repository-relative.
    first: Option<String>,
    /// Path (as printed), line and (bounded) text after `path:line: ` of the last entry.
    last: Option<(String, u64, String)>,
    /// Path as printed, repository-relative, line and sequence number of the last entry per
    /// path.
    paths: Vec<(String, String, u64, usize)>,
    seq: usize,
}

impl Entries {
    pub(super) fn push(&mut self, path: &str, line: u64, text: &str) {
        self.seq += 1;
        if self.first.is_none() {
            self.first = Some(relative_path(path));
        }
        let text = &text[..floor_boundary(text, keep(MAX_MESSAGE))];
        match &mut self.last {
            Some((p, l, t)) => {
                p.clear();
                p.push_str(path);
                *l = line;
                t.clear();
                t.push_str(text);
            }
            None => self.last = Some((path.to_owned(), line, text.to_owned())),
        }
        if let Some(entry) = self.paths.iter_mut().find(|e| e.0 == path) {
            entry.2 = line;
            entry.3 = self.seq;
        } else if self.paths.len() < MAX_PATHS {
            self.paths
                .push((path.to_owned(), relative_path(path), line, self.seq));
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// The first entry's path, repository-relative.
    fn first_path(&self) -> Option<&str> {
        self.first.as_deref()
    }

    /// The last entry: path as printed, line, text.
    fn last(&self) -> Option<(&str, u64, &str)> {
        self.last
            .as_ref()
            .map(|(p, l, t)| (p.as_str(), *l, t.as_str()))
    }

    /// The last entry whose repository-relative path satisfies `matches`: that path and
    /// the entry's line.
    pub(super) fn last_where(&self, matches: impl Fn(&str) -> bool) -> Option<(&str, u64)> {
        self.paths
            .iter()
            .filter(|e| matches(&e.1))
            .max_by_key(|e| e.3)
            .map(|e| (e.1.as_str(), e.2))
    }

    /// Whether an entry is in `file`.
    fn any_in(&self, file: &str) -> bool {
        self.paths.iter().any(|e| in_file(&e.1, file))
    }
}

/// Whether the repository-relative `rel` is `file` or ends with `/file`.
pub(super) fn in_file(rel: &str, file: &str) -> bool {
    rel.len() >= file.len()
        && rel.ends_with(file)
        && (rel.len() == file.len() || rel.as_bytes()[rel.len() - file.len() - 1] == b'/')
}

/// The largest character boundary of `s` at most `max`.
fn floor_boundary(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}

struct Patterns {
    stats: Regex,
    progress: Regex,
    xdist: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        stats: Regex::new(
            r"^=*\s*(?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)(?:, )?)+ in [\d.]+s",
        )
        .unwrap(),
        progress: Regex::new(r"^(\S+\.py::\S.*?) (FAILED|ERROR|RERUN)(?:\s+\[\s*\d+%\])?\s*$")
            .unwrap(),
        xdist: Regex::new(r"^\[gw\d+\] \[\s*\d+%\] (FAILED|ERROR|RERUN) (\S+\.py::\S.*)$")
            .unwrap(),
    })
}

/// The stats line of a run that failed, which ends the run: `14 failed, 9 passed in 0.06s`
/// (with `=` around it unless `-q`), `2 errors in 0.18s`. A stats line without failures or
/// errors carries no trigger, so it ends nothing (the run before it reported nothing to
/// keep apart from the next). Cheap tests first: a digit after the leading `=` and blanks,
/// then the trigger.
fn failed_run_stats(line: &str) -> bool {
    let rest = line.trim_start_matches('=').trim_start();
    rest.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && (line.contains(" failed") || line.contains(" error"))
        && patterns().stats.is_match(line)
}

/// An Actions step boundary: whatever section was open ended with its step.
fn step_boundary(line: &str) -> bool {
    line.starts_with("##[")
        && (line.starts_with("##[group]")
            || line.starts_with("##[endgroup]")
            || line.starts_with("##[error]Process completed"))
}

impl LineParser for Pytest {
    fn line(&mut self, offset: u64, line: &str) {
        if let Some(title) = framed(line, '=', 1) {
            let state = match title.trim() {
                "FAILURES" | "ERRORS" => State::Failures,
                "short test summary info" => State::Summary,
                _ => State::Outside,
            };
            let stats = failed_run_stats(line);
            if self.busy() || has_trigger(line) {
                self.run.current = Current::None;
                self.state = state;
            }
            if stats {
                self.end_run();
            }
            return;
        }
        if failed_run_stats(line) {
            self.state = State::Outside;
            self.end_run();
            return;
        }
        match self.state {
            State::Outside => match progress_line(line, offset) {
                Some((named, false)) if self.run.progress.len() < MAX_FAILURES => {
                    self.run.progress.push(named);
                }
                Some((named, true)) => self.run.rerun(named),
                _ => {}
            },
            State::Summary => {
                if let Some(named) = summary_line(line, offset)
                    && self.run.summaries.len() < MAX_FAILURES
                {
                    self.run.summaries.push(named);
                }
            }
            State::Failures => {
                if step_boundary(line) {
                    self.state = State::Outside;
                    self.run.current = Current::None;
                } else {
                    self.run.section_line(offset, line);
                }
            }
        }
    }

    fn busy(&self) -> bool {
        self.state == State::Failures
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        self.end_run();
        self.state = State::Outside;
        std::mem::take(&mut self.out)
    }

    fn flaky(&mut self) -> Vec<(u64, FlakyTest)> {
        std::mem::take(&mut self.flaky)
    }
}

impl Pytest {
    fn end_run(&mut self) {
        let mut run = std::mem::take(&mut self.run);
        let reruns = std::mem::take(&mut run.reruns);
        let failures = run.finish();
        // A test rerun and then not reported failing in its run passed on a retry.
        let failed: HashSet<&str> = failures.iter().map(|(_, f)| f.test_name.as_str()).collect();
        for (nodeid, offset, count) in reruns {
            if failed.contains(nodeid.as_str()) || self.flaky.len() >= MAX_FAILURES {
                continue;
            }
            self.flaky.push((
                offset,
                FlakyTest {
                    file_path: Some(nodeid_file(&nodeid).to_owned()),
                    test_name: nodeid,
                    framework: Framework::Pytest,
                    line_number: None,
                    failed_attempts: Some(count),
                    attempts: Some(count + 1),
                    error_message: None,
                },
            ));
        }
        let room = MAX_FAILURES.saturating_sub(self.out.len());
        self.out.extend(failures.into_iter().take(room));
    }
}

impl Run {
    /// A `RERUN` progress line: one more failed attempt of its test.
    fn rerun(&mut self, named: Named) {
        if let Some(r) = self.reruns.iter_mut().find(|r| r.0 == named.nodeid) {
            r.2 += 1;
        } else if self.reruns.len() < MAX_FAILURES {
            self.reruns.push((named.nodeid, named.offset, 1));
        }
    }

    /// A line inside a `FAILURES`/`ERRORS` section.
    fn section_line(&mut self, offset: u64, line: &str) {
        if let Some(head) = framed(line, '_', 3) {
            if self.sections.len() >= MAX_FAILURES {
                self.current = Current::Dropped;
                return;
            }
            let head = head.trim();
            let key = [
                "ERROR at setup of ",
                "ERROR at teardown of ",
                "ERROR collecting ",
            ]
            .iter()
            .find_map(|pre| head.strip_prefix(pre))
            .unwrap_or(head);
            let key = without_subtest(key).to_owned();
            self.sections.push(Section {
                offset,
                key,
                ..Default::default()
            });
            self.current = Current::Section(self.sections.len() - 1);
            return;
        }
        let e = line.strip_prefix("E ").map(str::trim_start);
        match self.current {
            Current::Section(i) => {
                let section = &mut self.sections[i];
                if section.body.count < MAX_BODY_LINES && section.first_text.is_none() {
                    let t = line.trim();
                    if !t.is_empty() {
                        section.first_text = Some(bounded_str(t, MAX_MESSAGE));
                    }
                }
                section.body.push(line, keep(MAX_TRACE), MAX_BODY_LINES);
                if line.starts_with("---") && line.contains(" Captured ") {
                    section.captured = true;
                }
                if section.captured {
                } else if let Some(e) = e {
                    section.e.push(e);
                } else if let Some((path, n, text)) = location(line) {
                    section.entries.push(path, n, text);
                } else if let Some((path, n)) = native_frame(line) {
                    section.entries.push(path, n, "");
                    section.native = Lines::default();
                    section.native_type = None;
                } else if !section.entries.is_empty()
                    && (section.native.count > 0 || !(line.is_empty() || line.starts_with(' ')))
                {
                    if section.native.count == 0 {
                        section.native_type = line_error_type(line);
                    }
                    section.native.push(line, keep(MAX_MESSAGE), usize::MAX);
                }
            }
            Current::Dropped => {}
            Current::None => {
                // `--tb=line`: `E ...` lines, then the crash line.
                if let Some(e) = e {
                    self.pending_e.push(e);
                } else if let Some((path, line, message)) = location(line) {
                    let e = std::mem::take(&mut self.pending_e);
                    if self.line_entries.len() < MAX_FAILURES {
                        self.line_entries.push(LineEntry {
                            rel: relative_path(path),
                            line,
                            message: message[..floor_boundary(message, keep(MAX_MESSAGE))]
                                .to_owned(),
                            e,
                            used: false,
                        });
                    }
                }
            }
        }
    }

    /// The failures of the run, in the order they are reported.
    fn finish(mut self) -> Vec<(u64, Failure)> {
        let from_summary = !self.summaries.is_empty();
        let confidence = if from_summary {
            Confidence::High
        } else {
            Confidence::Medium
        };
        let mut seen = HashSet::new();
        let named: Vec<Named> = std::mem::take(&mut self.summaries)
            .into_iter()
            .chain(std::mem::take(&mut self.progress))
            .filter(|n| seen.insert(n.nodeid.clone()))
            .collect();
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, sec) in self.sections.iter().enumerate() {
            by_key.entry(sec.key.clone()).or_default().push(i);
        }
        let mut out = Vec::new();
        let mut names = HashSet::new();
        for sum in named {
            let file = nodeid_file(&sum.nodeid).to_owned();
            let head = head_line(&sum.nodeid);
            let idx = {
                let mut candidates: Vec<usize> = [head.as_str(), sum.nodeid.as_str()]
                    .iter()
                    .filter_map(|k| by_key.get(*k))
                    .flatten()
                    .copied()
                    .filter(|&i| !self.sections[i].used)
                    .collect();
                candidates.sort_unstable();
                candidates.dedup();
                candidates
                    .iter()
                    .copied()
                    .find(|&i| self.sections[i].entries.any_in(&file))
                    .or_else(|| candidates.first().copied())
            };
            let mut f = base_failure(&sum.nodeid, confidence);
            let mut at = sum.offset;
            if let Some(i) = idx {
                // A test reported twice (failed, then teardown error): use the first section
                // and mark the rest with the same head line as used.
                for &j in &by_key[&self.sections[i].key] {
                    let sec = &mut self.sections[j];
                    if sec.entries.is_empty() || sec.entries.any_in(&file) {
                        sec.used = true;
                    }
                }
                self.sections[i].used = true;
                let sec = &self.sections[i];
                at = at.min(sec.offset);
                fill_from_section(&mut f, sec, &file);
            } else if let Some(entry) = pick_line_entry(&mut self.line_entries, &file, &sum.message)
            {
                f.file_path = Some(location_path(&entry.rel, &file));
                f.line_number = Some(entry.line);
                f.error_type = error_type(&entry.message, entry.e.error_type.as_deref());
                f.error_message = if entry.e.is_empty() {
                    bounded_str(&entry.message, MAX_MESSAGE)
                } else {
                    entry.e.message()
                };
            } else {
                f.file_path = Some(file.clone());
                f.confidence = Confidence::Medium;
            }
            if f.error_message.is_empty() {
                f.error_message = sum.message.clone();
            }
            if f.line_number.is_none() {
                f.confidence = f.confidence.min(Confidence::Medium);
            }
            names.insert(f.test_name.clone());
            out.push((at, f));
        }
        // A test reported by name also owns its other sections with its head line (an error
        // at teardown after a failed call, whose entries are all in a `conftest.py` fixture).
        let heads: HashSet<String> = names.iter().map(|n| head_line(n)).collect();
        // Sections no summary line named (`-rN`, a log cut before the summary).
        for sec in self
            .sections
            .iter()
            .filter(|x| !x.used && !heads.contains(&x.key))
        {
            let Some(file) = sec.entries.first_path().map(str::to_owned) else {
                continue;
            };
            let nodeid = if sec.key.ends_with(".py") {
                sec.key.clone()
            } else {
                let (name, params) = match sec.key.find('[') {
                    Some(i) => sec.key.split_at(i),
                    None => (sec.key.as_str(), ""),
                };
                format!("{file}::{}{params}", name.replace('.', "::"))
            };
            if !names.insert(nodeid.clone()) {
                continue;
            }
            let mut f = base_failure(&nodeid, Confidence::Medium);
            fill_from_section(&mut f, sec, &file);
            out.push((sec.offset, f));
        }
        out
    }
}

/// The title of a line framed by runs of `c` (at least `min` on each side, a space between
/// run and title): `=== FAILURES ===` (pytest's banners), `___ test_x[a] ___` (section
/// heads). What the regex `^c{min,} (.+?) c{min,}$` would capture, without a regex.
fn framed(line: &str, c: char, min: usize) -> Option<&str> {
    let rest = line.trim_start_matches(c);
    if line.len() - rest.len() < min {
        return None;
    }
    let rest = rest.strip_prefix(' ')?;
    let inner = rest.trim_end_matches(c);
    if rest.len() - inner.len() < min {
        return None;
    }
    let title = inner.strip_suffix(' ')?;
    (!title.is_empty()).then_some(title)
}

/// `path:12: text` (a long/short traceback entry, a `--tb=line` crash line): what the
/// regex `^([^\s:][^:]*?\.py|<[^>]+>):(\d+):(?: (.*))?$` would capture, without a regex.
/// The path is a `.py` file without `:` (`tests/x.py`) or a `<frozen …>` pseudo-file.
fn location(line: &str) -> Option<(&str, u64, &str)> {
    let colon = memchr::memchr(b':', line.as_bytes())?;
    let path = &line[..colon];
    if path.len() >= 4
        && path.ends_with(".py")
        && !path.starts_with(char::is_whitespace)
        && let Some((n, text)) = line_and_text(&line[colon + 1..])
    {
        return Some((path, n, text));
    }
    let close = line.strip_prefix('<')?.find('>')? + 1;
    let rest = line[close + 1..].strip_prefix(':')?;
    if close < 2 {
        return None;
    }
    let (n, text) = line_and_text(rest)?;
    Some((&line[..close + 1], n, text))
}

/// `12: text` or `12:` after a location's path.
fn line_and_text(rest: &str) -> Option<(u64, &str)> {
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let n = rest[..digits].parse().ok()?;
    let tail = rest[digits..].strip_prefix(':')?;
    if tail.is_empty() {
        Some((n, ""))
    } else {
        Some((n, tail.strip_prefix(' ')?))
    }
}

/// `tests/x.py::t FAILED [ 10%]` (`-v`) or `[gw0] [ 10%] FAILED tests/x.py::t` (xdist), and
/// whether the outcome is pytest-rerunfailures' `RERUN` (an attempt that failed and is run
/// again) rather than `FAILED`/`ERROR`.
fn progress_line(line: &str, offset: u64) -> Option<(Named, bool)> {
    let p = patterns();
    let (nodeid, outcome) = if line.starts_with("[gw") {
        let c = p.xdist.captures(line)?;
        (c[2].trim().to_owned(), c.get(1)?)
    } else if line.contains("::")
        && (line.contains(" FAILED") || line.contains(" ERROR") || line.contains(" RERUN"))
    {
        let c = p.progress.captures(line)?;
        (c[1].to_owned(), c.get(2)?)
    } else {
        return None;
    };
    let rerun = outcome.as_str() == "RERUN";
    Some((
        Named {
            offset,
            nodeid,
            message: String::new(),
        },
        rerun,
    ))
}

/// `  File "/abs/tests/test_x.py", line 12, in test_x` (a `--tb=native` frame): path, line.
fn native_frame(line: &str) -> Option<(&str, u64)> {
    let rest = line.strip_prefix("  File \"")?;
    let (path, tail) = rest.split_once("\", line ")?;
    let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
    Some((path, tail[..digits].parse().ok()?))
}

/// A section head without the subtest part pytest adds after the test (`TestC.test_x
/// (n=1)`, `test_x [custom message]`): the head of the test itself.
fn without_subtest(head: &str) -> &str {
    // Only a part outside the test's own `[params]` (which may hold ` [` or ` (`).
    let balanced = |s: &str| s.matches('[').count() == s.matches(']').count();
    let mut head = head;
    if head.ends_with(')')
        && let Some(i) = head.rfind(" (")
        && balanced(&head[..i])
    {
        head = &head[..i];
    }
    if head.ends_with(']')
        && let Some(i) = head.rfind(" [")
        && balanced(&head[..i])
    {
        head = &head[..i];
    }
    head
}

/// `FAILED tests/x.py::test[a - b] - message`: the nodeid ends at the first ` - ` outside
/// brackets.
fn summary_line(line: &str, offset: u64) -> Option<Named> {
    let rest = line
        .strip_prefix("FAILED ")
        .or_else(|| line.strip_prefix("ERROR "))
        .or_else(|| subfailed(line))?;
    let mut depth = 0i32;
    let bytes = rest.as_bytes();
    let mut end = rest.len();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b' ' if depth <= 0 && rest[i..].starts_with(" - ") => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let nodeid = rest[..end].trim();
    if nodeid.is_empty() || !(nodeid.contains(".py") || nodeid.contains("::")) {
        return None;
    }
    let message = bounded_str(rest.get(end + 3..).unwrap_or("").trim(), MAX_MESSAGE);
    Some(Named {
        offset,
        nodeid: nodeid.to_owned(),
        message,
    })
}

/// A failed subtest's summary line without its head: `SUBFAILED(n=1) tests/x.py::t - msg`,
/// `SUBFAILED[custom] tests/x.py::t - msg` (pytest ≥ 9), one per failed subtest.
fn subfailed(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("SUBFAILED")?;
    if let Some(r) = rest.strip_prefix(' ') {
        return Some(r);
    }
    let close = match rest.as_bytes().first()? {
        b'(' => ") ",
        b'[' => "] ",
        _ => return None,
    };
    let i = rest.find(close)?;
    Some(&rest[i + 2..])
}

/// The nodeid's file part (`tests/x.py` of `tests/x.py::C::t[a::b]`).
fn nodeid_file(nodeid: &str) -> &str {
    nodeid.split("::").next().unwrap_or(nodeid)
}

/// The head line pytest prints for a nodeid: `C.t[id]` for `file::C::t[id]`, the path for a
/// module.
fn head_line(nodeid: &str) -> String {
    let Some((_, tail)) = nodeid.split_once("::") else {
        return nodeid.to_owned();
    };
    let (name, params) = match tail.find('[') {
        Some(i) => tail.split_at(i),
        None => (tail, ""),
    };
    format!("{}{params}", name.replace("::", "."))
}

fn same_file(path: &str, file: &str) -> bool {
    in_file(&relative_path(path), file)
}

fn base_failure(nodeid: &str, confidence: Confidence) -> Failure {
    Failure {
        test_name: nodeid.to_owned(),
        file_path: None,
        line_number: None,
        error_type: None,
        error_message: String::new(),
        stack_trace: None,
        confidence,
        framework: Framework::Pytest,
        reproduce_command: crate::reproduce::pytest(nodeid),
    }
}

fn fill_from_section(f: &mut Failure, sec: &Section, file: &str) {
    let here = sec.entries.last_where(|rel| in_file(rel, file));
    // A module that failed to import: the module, at the line a `SyntaxError` names.
    let collection = sec.key == file;
    let last = sec.entries.last().filter(|_| !collection);
    if let Some((_, line)) = here {
        f.file_path = Some(file.to_owned());
        f.line_number = Some(line);
    } else if let Some((path, line, _)) = last {
        f.file_path = Some(location_path(&relative_path(path), file));
        f.line_number = Some(line);
    } else {
        f.file_path = Some(file.to_owned());
        f.line_number = sec
            .e
            .file_refs
            .iter()
            .find_map(|(path, n)| same_file(path, file).then_some(*n));
    }
    let last_text = sec.entries.last().map_or("", |(_, _, t)| t);
    f.error_type =
        error_type(last_text, sec.e.error_type.as_deref()).or_else(|| sec.native_type.clone());
    f.error_message = if !sec.e.is_empty() {
        sec.e.message()
    } else if sec.native.has_text {
        bounded_str(sec.native.text.trim(), MAX_MESSAGE)
    } else {
        sec.first_text.clone().unwrap_or_default()
    };
    if sec.body.has_text {
        f.stack_trace = Some(sec.body.trace(MAX_TRACE));
    }
}

/// `file` for a repository-relative path in it, else the path.
fn location_path(rel: &str, file: &str) -> String {
    if in_file(rel, file) {
        file.to_owned()
    } else {
        rel.to_owned()
    }
}

fn pick_line_entry<'a>(
    entries: &'a mut [LineEntry],
    file: &str,
    message: &str,
) -> Option<&'a LineEntry> {
    let prefix = message.trim_end_matches("...").trim_end();
    let matches = |e: &LineEntry| {
        prefix.is_empty()
            || e.message.starts_with(prefix)
            || e.e.first().is_some_and(|l| l.starts_with(prefix))
    };
    let i = entries
        .iter()
        .position(|e| !e.used && in_file(&e.rel, file) && matches(e))
        .or_else(|| entries.iter().position(|e| !e.used && matches(e)))?;
    entries[i].used = true;
    Some(&entries[i])
}

fn is_type_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
}

/// `AssertionError` from a long-style `path:12: AssertionError` line, else from the first
/// `E` line that names one (`e_type`), else from the crash line's text.
fn error_type(location_text: &str, e_type: Option<&str>) -> Option<String> {
    let head = location_text.split(':').next().unwrap_or("").trim();
    if is_type_name(head) {
        return Some(head.to_owned());
    }
    e_type
        .map(str::to_owned)
        .or_else(|| line_error_type(location_text))
}

/// The error type one line names: `KeyError: ...` (`a.b.KeyError` shortened), `assert ...`
/// is an `AssertionError`.
fn line_error_type(l: &str) -> Option<String> {
    let l = l.trim();
    if l.starts_with("assert ") {
        return Some("AssertionError".to_owned());
    }
    let (t, _) = l.split_once(':')?;
    is_type_name(t).then(|| t.rsplit('.').next().unwrap_or(t).to_owned())
}

/// Feeds `text` line by line to `parser`, as the scanner would without skipping.
#[cfg(test)]
pub(super) fn feed(parser: &mut dyn LineParser, text: &str) -> Vec<(u64, Failure)> {
    let mut offset = 0u64;
    for raw in text.split_inclusive('\n') {
        parser.line(offset, raw.trim_end_matches(['\n', '\r']));
        offset += raw.len() as u64;
    }
    parser.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<(u64, Failure)> {
        feed(&mut Pytest::default(), text)
    }

    #[test]
    fn summary_nodeid_keeps_brackets_and_dashes() {
        let s = summary_line("FAILED tests/t.py::test_x[a - b] - assert 1 == 2", 0).unwrap();
        assert_eq!(s.nodeid, "tests/t.py::test_x[a - b]");
        assert_eq!(s.message, "assert 1 == 2");
        let s = summary_line("ERROR tests/t.py", 0).unwrap();
        assert_eq!(s.nodeid, "tests/t.py");
        assert!(summary_line("FAILED to connect", 0).is_none());
    }

    #[test]
    fn head_line_of_nodeid() {
        assert_eq!(
            head_line("tests/t.py::TestC::test_y[a::b c]"),
            "TestC.test_y[a::b c]"
        );
        assert_eq!(head_line("tests/t.py"), "tests/t.py");
    }

    const MERGE_LOG: &str = "\
=================================== FAILURES ===================================
___________________________ TestC.test_helper[a b] ____________________________

    def test_helper(self):
>       check(-5)

tests/test_x.py:42: 
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ 
>       raise ValueError(\"bad\")
E       ValueError: bad

tests/helpers.py:3: ValueError
=========================== short test summary info ============================
FAILED tests/test_x.py::TestC::test_helper[a b] - ValueError: bad
FAILED tests/test_x.py::test_other - assert 1 == 2
========================= 2 failed, 1 passed in 0.10s ==========================
";

    #[test]
    fn section_and_summary_merge_with_location_in_test_file() {
        let got = parse(MERGE_LOG);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, 81, "the offset of the section's head line");
        let f = &got[0].1;
        assert_eq!(f.test_name, "tests/test_x.py::TestC::test_helper[a b]");
        assert_eq!(f.file_path.as_deref(), Some("tests/test_x.py"));
        assert_eq!(f.line_number, Some(42));
        assert_eq!(f.error_type.as_deref(), Some("ValueError"));
        assert_eq!(f.error_message, "ValueError: bad");
        assert_eq!(f.confidence, Confidence::High);
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("python -m pytest 'tests/test_x.py::TestC::test_helper[a b]'")
        );
        assert_eq!(got[1].1.test_name, "tests/test_x.py::test_other");
        assert_eq!(got[1].1.confidence, Confidence::Medium);
        assert_eq!(crate::parse_log(MERGE_LOG.as_bytes()).len(), 2);
    }

    #[test]
    fn printed_failed_lines_and_passes_are_not_failures() {
        let log = "\
tests/test_x.py::test_error_handling PASSED                              [ 50%]
==================================== PASSES ====================================
_________________________________ test_prints __________________________________
FAILED tests/test_x.py::test_fake - only printed
=========================== short test summary info ============================
PASSED tests/test_x.py::test_error_handling
XPASS tests/test_x.py::test_lenient - was a bug
============================== 2 passed in 0.01s ===============================
";
        assert!(parse(log).is_empty());
        assert!(crate::parse_log(log.as_bytes()).is_empty());
    }

    #[test]
    fn progress_lines_name_tests_without_summary() {
        let log = "\
tests/test_x.py::test_a PASSED                                           [ 33%]
tests/test_x.py::test_b FAILED                                           [ 66%]
[gw1] [ 90%] ERROR tests/test_y.py::test_c
";
        let got = crate::parse_log(log.as_bytes());
        let names: Vec<_> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            ["tests/test_x.py::test_b", "tests/test_y.py::test_c"]
        );
        assert!(got.iter().all(|f| f.confidence == Confidence::Medium));
    }

    /// Every line the idle parser acts on carries a trigger: the scanner's skipping gives
    /// the same report as delivering every line.
    #[test]
    fn skipping_changes_nothing() {
        let log = format!(
            "\
{MERGE_LOG}build noise
tests/test_y.py::test_v FAILED [ 50%]
= a narrow banner without trigger =
FAILED tests/test_y.py::test_w - after the run
=== FAILURES ===
E   assert 0
/home/runner/work/r/r/tests/test_y.py:7: assert 0
=== short test summary info ===
FAILED tests/test_y.py::test_w - assert 0
no stats line
"
        );
        let mut skipping = crate::Scanner::new();
        skipping.feed(log.as_bytes());
        let mut every = crate::Scanner::without_skipping();
        every.feed(log.as_bytes());
        let (skipping, every) = (skipping.finish(), every.finish());
        assert_eq!(skipping, every);
        let names: Vec<_> = skipping
            .found
            .iter()
            .map(|f| f.failure.test_name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "tests/test_x.py::TestC::test_helper[a b]",
                "tests/test_x.py::test_other",
                "tests/test_y.py::test_v",
                "tests/test_y.py::test_w",
            ]
        );
        let w = &skipping.found[3].failure;
        assert_eq!(w.file_path.as_deref(), Some("tests/test_y.py"));
        assert_eq!(w.line_number, Some(7));
    }

    /// The parser stops being busy when a section ends, so the scanner skips again; the
    /// failure still comes out, and a huge section keeps a bounded trace.
    #[test]
    fn busy_ends_with_the_section() {
        let mut p = Pytest::default();
        let mut offset = 0;
        let mut line = |p: &mut Pytest, l: &str| {
            p.line(offset, l);
            offset += l.len() as u64 + 1;
        };
        line(&mut p, "=================== FAILURES ===================");
        assert!(p.busy());
        line(&mut p, "__________________ test_big __________________");
        for i in 0..10_000 {
            line(&mut p, &format!("captured output line {i}"));
        }
        line(&mut p, "E   assert 1 == 2");
        line(&mut p, "tests/test_big.py:3: AssertionError");
        line(&mut p, "=========== short test summary info ===========");
        assert!(!p.busy());
        line(&mut p, "FAILED tests/test_big.py::test_big - assert 1 == 2");
        for i in 0..10_000 {
            line(&mut p, &format!("noise {i} without anything"));
            assert!(!p.busy());
        }
        let got = p.finish();
        assert_eq!(got.len(), 1);
        let f = &got[0].1;
        assert_eq!(f.test_name, "tests/test_big.py::test_big");
        assert_eq!(f.line_number, Some(3));
        assert_eq!(f.error_type.as_deref(), Some("AssertionError"));
        let trace = f.stack_trace.as_deref().unwrap();
        assert!(trace.len() < MAX_TRACE + 100, "{}", trace.len());
        assert!(trace.ends_with(" more lines]"), "{trace}");

        // A section cut off by the end of its step.
        let mut p = Pytest::default();
        feed_lines(
            &mut p,
            &[
                "=== FAILURES ===",
                "___ test_cut ___",
                "tests/test_cut.py:9: in test_cut",
                "##[error]Process completed with exit code 1.",
            ],
        );
        assert!(!p.busy());
        let got = p.finish();
        assert_eq!(got[0].1.test_name, "tests/test_cut.py::test_cut");
        assert_eq!(got[0].1.line_number, Some(9));
    }

    /// `--tb=native`: the `File "…", line N` frames locate the failure, the exception line
    /// after the last frame is the message.
    #[test]
    fn native_tracebacks_give_the_line() {
        let log = "\
=================================== FAILURES ===================================
_______________________________ test_in_helper _______________________________
Traceback (most recent call last):
  File \"/home/runner/work/r/r/tests/test_x.py\", line 42, in test_in_helper
    check(-5)
  File \"/home/runner/work/r/r/tests/helpers.py\", line 3, in check
    raise ValueError(f\"bad {n}\")
ValueError: bad -5
----------------------------- Captured stdout call -----------------------------
  File \"/home/runner/work/r/r/tests/test_x.py\", line 99, in printed
=========================== short test summary info ============================
FAILED tests/test_x.py::test_in_helper - ValueError: bad -5
============================== 1 failed in 0.10s ===============================
";
        let got = parse(log);
        assert_eq!(got.len(), 1);
        let f = &got[0].1;
        assert_eq!(f.file_path.as_deref(), Some("tests/test_x.py"));
        assert_eq!(f.line_number, Some(42));
        assert_eq!(f.error_type.as_deref(), Some("ValueError"));
        assert_eq!(f.error_message, "ValueError: bad -5");
    }

    /// A test that fails and then errors in teardown (a `conftest.py` fixture) is one
    /// failure, located in its call.
    #[test]
    fn failure_then_teardown_error_is_one_test() {
        let log = "\
==================================== ERRORS ====================================
______________ ERROR at teardown of test_fails_then_teardown_errors ______________

    @pytest.fixture
    def conn():
        yield 1
>       raise ConnectionResetError(\"dropped\")
E       ConnectionResetError: dropped

tests/conftest.py:8: ConnectionResetError
=================================== FAILURES ===================================
_______________________ test_fails_then_teardown_errors ________________________

    def test_fails_then_teardown_errors(conn):
>       assert conn == 2
E       assert 1 == 2

tests/test_c.py:43: AssertionError
=========================== short test summary info ============================
FAILED tests/test_c.py::test_fails_then_teardown_errors - assert 1 == 2
ERROR tests/test_c.py::test_fails_then_teardown_errors - ConnectionResetError: dropped
========================== 1 failed, 1 error in 0.10s ==========================
";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        let f = &got[0].1;
        assert_eq!(
            f.test_name,
            "tests/test_c.py::test_fails_then_teardown_errors"
        );
        assert_eq!(f.file_path.as_deref(), Some("tests/test_c.py"));
        assert_eq!(f.line_number, Some(43));
    }

    /// pytest-rerunfailures under `-v`: a test rerun and then passed is flaky, one rerun
    /// every time and failed is a failure; xdist's form too.
    #[test]
    fn reruns_that_pass_are_flaky() {
        let log = "\
flaky/test_f.py::test_retry RERUN                                        [ 33%]
flaky/test_f.py::test_retry PASSED                                       [ 33%]
[gw1] [ 50%] RERUN flaky/test_f.py::test_x \n\
[gw1] [ 50%] PASSED flaky/test_f.py::test_x \n\
flaky/test_f.py::test_always RERUN                                       [ 66%]
flaky/test_f.py::test_always RERUN                                       [ 66%]
flaky/test_f.py::test_always FAILED                                      [ 66%]
=========================== short test summary info ============================
FAILED flaky/test_f.py::test_always - assert 1 == 2
================ 1 failed, 2 passed, 4 rerun in 0.12s =================
";
        let mut p = Pytest::default();
        let got = feed(&mut p, log);
        let names: Vec<_> = got.iter().map(|(_, f)| f.test_name.as_str()).collect();
        assert_eq!(names, ["flaky/test_f.py::test_always"]);
        let flaky = p.flaky();
        let names: Vec<_> = flaky.iter().map(|(_, f)| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            ["flaky/test_f.py::test_retry", "flaky/test_f.py::test_x"]
        );
        assert_eq!(flaky[0].1.failed_attempts, Some(1));
        assert_eq!(flaky[0].1.attempts, Some(2));
        let report = {
            let mut s = crate::Scanner::new();
            s.feed(log.as_bytes());
            s.finish()
        };
        assert_eq!(report.flaky.len(), 2);
        assert_eq!(report.failures().len(), 1);
    }

    /// pytest ≥ 9 subtests: `SUBFAILED(n=1) nodeid` summary lines and `C.t (n=1)` heads
    /// name the test once, located by its first failing subtest.
    #[test]
    fn subtests_name_their_test_once() {
        let log = "\
=================================== FAILURES ===================================
_________________________ TestC.test_s (n=1) __________________________

    def test_s(self):
>       self.assertEqual(n % 2, 0)
E       AssertionError: 1 != 0

unit/test_c.py:40: AssertionError
_________________________ TestC.test_s (n=3) __________________________
unit/test_c.py:40: AssertionError
_________________________ test_p[a [b]] __________________________
unit/test_c.py:50: AssertionError
=========================== short test summary info ============================
SUBFAILED(n=1) unit/test_c.py::TestC::test_s - AssertionError: 1 != 0
SUBFAILED(n=3) unit/test_c.py::TestC::test_s - AssertionError: 1 != 0
FAILED unit/test_c.py::test_p[a [b]] - AssertionError
========================== 2 failed in 0.10s ==========================
";
        let got = parse(log);
        let names: Vec<_> = got.iter().map(|(_, f)| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "unit/test_c.py::TestC::test_s",
                "unit/test_c.py::test_p[a [b]]"
            ]
        );
        assert_eq!(got[0].1.line_number, Some(40));
        assert_eq!(got[1].1.line_number, Some(50));
        assert_eq!(without_subtest("test_p[a (b)]"), "test_p[a (b)]");
        assert_eq!(without_subtest("C.t [msg] (i=1)"), "C.t");
    }

    proptest::proptest! {
        /// The hand-written parsers of the busy path capture what the regexes they replace
        /// capture.
        #[test]
        fn hand_parsers_match_their_regexes(
            line in "(=|==|_|___| |<|>|:|\\.py|x\\.py|1|42|a|\\t|é)*"
        ) {
            static RES: OnceLock<[Regex; 3]> = OnceLock::new();
            let [banner, head, loc] = RES.get_or_init(|| {
                [
                    r"^=+ (.+?) =+$",
                    r"^_{3,} (.+?) _{3,}$",
                    r"^([^\s:][^:]*?\.py|<[^>]+>):(\d+):(?: (.*))?$",
                ]
                .map(|re| Regex::new(re).unwrap())
            });
            let capture = |re: &Regex| re.captures(&line).map(|c| c.get(1).unwrap().as_str());
            proptest::prop_assert_eq!(framed(&line, '=', 1), capture(banner));
            proptest::prop_assert_eq!(framed(&line, '_', 3), capture(head));
            let want = loc.captures(&line).and_then(|c| {
                Some((
                    c.get(1)?.as_str(),
                    c[2].parse::<u64>().ok()?,
                    c.get(3).map_or("", |m| m.as_str()),
                ))
            });
            proptest::prop_assert_eq!(location(&line), want);
        }
    }

    fn feed_lines(p: &mut dyn LineParser, lines: &[&str]) {
        for (i, l) in lines.iter().enumerate() {
            p.line(i as u64, l);
        }
    }
}
