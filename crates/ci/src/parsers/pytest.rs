//! pytest: the `FAILURES` / `ERRORS` sections (one `___ head line ___` block per failure, any
//! `--tb` style, or `--tb=line` one-liners) and the `short test summary info` (`FAILED nodeid
//! - message`, `ERROR nodeid - message`), merged per test: the summary names the test (its
//! nodeid), the section gives the location, message and trace. Without a summary (`-rN`, a
//! truncated log) sections and `-v` progress lines (`nodeid FAILED [ 10%]`) name it.
//!
//! Location rule: the last `path:line:` traceback entry inside the test's own file (the line
//! of the test that failed, also when the exception came from a helper); if no entry is in
//! that file, the innermost entry (a fixture in `conftest.py`, `--tb=line` crash line).
//!
//! Confidence: `high` when the summary named the test and a location was found; `medium`
//! when one of the two is missing (a section without summary, a summary line without
//! section); xfail/xpass/skipped/passed are never failures (strict XPASS is: pytest says
//! FAILED).

use std::collections::HashSet;

use regex::Regex;
use resolve_pr_core::ShellCommand;

use super::relative_path;
use crate::{Confidence, Failure, Framework};

const MAX_MESSAGE: usize = 2000;
const MAX_TRACE: usize = 4000;

#[derive(Debug, Default)]
struct Section {
    offset: usize,
    /// Head line without `ERROR at setup of ` etc.
    key: String,
    /// `(path, line, text after "path:line: ")` entries.
    locations: Vec<(String, u64, String)>,
    e_lines: Vec<String>,
    body: Vec<String>,
    used: bool,
}

#[derive(Debug)]
struct Summary {
    offset: usize,
    nodeid: String,
    message: String,
}

/// A `--tb=line` crash line: `/abs/tests/test_x.py:12: AssertionError: ...`.
#[derive(Debug)]
struct LineEntry {
    path: String,
    line: u64,
    message: String,
    e_lines: Vec<String>,
    used: bool,
}

#[derive(Default)]
struct Session {
    sections: Vec<Section>,
    summaries: Vec<Summary>,
    progress: Vec<Summary>,
    line_entries: Vec<LineEntry>,
    pending_e: Vec<String>,
    /// The section lines now belong to (none right after a `FAILURES`/`ERRORS` banner).
    current: Option<usize>,
}

#[derive(PartialEq)]
enum State {
    Outside,
    Failures,
    Summary,
}

struct Patterns {
    banner: Regex,
    head: Regex,
    location: Regex,
    stats: Regex,
    progress: Regex,
    xdist: Regex,
}

fn patterns() -> &'static Patterns {
    static P: std::sync::OnceLock<Patterns> = std::sync::OnceLock::new();
    P.get_or_init(|| Patterns {
        banner: Regex::new(r"^=+ (.+?) =+$").unwrap(),
        head: Regex::new(r"^_{3,} (.+?) _{3,}$").unwrap(),
        location: Regex::new(r"^([^\s:][^:]*?\.py|<[^>]+>):(\d+):(?: (.*))?$").unwrap(),
        stats: Regex::new(
            r"^=*\s*(?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?)(?:, )?)+ in [\d.]+s",
        )
        .unwrap(),
        progress: Regex::new(r"^(\S+\.py::\S.*?) (FAILED|ERROR)(?:\s+\[\s*\d+%\])?$").unwrap(),
        xdist: Regex::new(r"^\[gw\d+\] \[\s*\d+%\] (FAILED|ERROR) (\S+\.py::\S.*)$").unwrap(),
    })
}

/// The failures pytest reports in `text`.
pub fn parse(text: &str) -> Vec<(usize, Failure)> {
    let p = patterns();
    let mut out = Vec::new();
    let mut session = Session::default();
    let mut state = State::Outside;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_offset = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if let Some(c) = p.banner.captures(line) {
            let title = c[1].trim();
            session.current = None;
            state = match title {
                "FAILURES" => State::Failures,
                "ERRORS" => State::Failures,
                "short test summary info" => State::Summary,
                _ => State::Outside,
            };
            if p.stats.is_match(line) {
                out.extend(finish(std::mem::take(&mut session)));
            }
            continue;
        }
        if p.stats.is_match(line) {
            state = State::Outside;
            out.extend(finish(std::mem::take(&mut session)));
            continue;
        }
        match state {
            State::Outside => {
                let hit = p
                    .progress
                    .captures(line)
                    .map(|c| c[1].to_owned())
                    .or_else(|| p.xdist.captures(line).map(|c| c[2].trim().to_owned()));
                if let Some(nodeid) = hit {
                    session.progress.push(Summary {
                        offset: line_offset,
                        nodeid,
                        message: String::new(),
                    });
                }
            }
            State::Summary => {
                if let Some(s) = summary_line(line, line_offset) {
                    session.summaries.push(s);
                }
            }
            State::Failures => {
                if let Some(c) = p.head.captures(line) {
                    let head = c[1].trim();
                    let key = [
                        "ERROR at setup of ",
                        "ERROR at teardown of ",
                        "ERROR collecting ",
                    ]
                    .iter()
                    .find_map(|pre| head.strip_prefix(pre))
                    .unwrap_or(head)
                    .to_owned();
                    session.sections.push(Section {
                        offset: line_offset,
                        key,
                        ..Default::default()
                    });
                    session.current = Some(session.sections.len() - 1);
                    continue;
                }
                let loc = p.location.captures(line).and_then(|c| {
                    Some((
                        c[1].to_owned(),
                        c[2].parse::<u64>().ok()?,
                        c.get(3).map_or("", |m| m.as_str()).to_owned(),
                    ))
                });
                match session.current.and_then(|i| session.sections.get_mut(i)) {
                    Some(section) => {
                        if section.body.len() < 400 {
                            section.body.push(line.to_owned());
                        }
                        if let Some(e) = line.strip_prefix("E ") {
                            section.e_lines.push(e.trim_start().to_owned());
                        } else if let Some(l) = loc {
                            section.locations.push(l);
                        }
                    }
                    _ => {
                        // `--tb=line`: `E ...` lines, then the crash line.
                        if let Some(e) = line.strip_prefix("E ") {
                            session.pending_e.push(e.trim_start().to_owned());
                        } else if let Some((path, line, message)) = loc {
                            let e_lines = std::mem::take(&mut session.pending_e);
                            session.line_entries.push(LineEntry {
                                path,
                                line,
                                message,
                                e_lines,
                                used: false,
                            });
                        }
                    }
                }
            }
        }
    }
    out.extend(finish(session));
    out
}

/// `FAILED tests/x.py::test[a - b] - message`: the nodeid ends at the first ` - ` outside
/// brackets.
fn summary_line(line: &str, offset: usize) -> Option<Summary> {
    let rest = line
        .strip_prefix("FAILED ")
        .or_else(|| line.strip_prefix("ERROR "))?;
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
    let message = rest.get(end + 3..).unwrap_or("").trim().to_owned();
    Some(Summary {
        offset,
        nodeid: nodeid.to_owned(),
        message,
    })
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
    let path = relative_path(path);
    path == file || path.ends_with(&format!("/{file}"))
}

fn finish(mut s: Session) -> Vec<(usize, Failure)> {
    let mut named: Vec<(Summary, Confidence)> = Vec::new();
    let mut seen = HashSet::new();
    let from_summary = !s.summaries.is_empty();
    for sum in std::mem::take(&mut s.summaries)
        .into_iter()
        .chain(std::mem::take(&mut s.progress))
    {
        if seen.insert(sum.nodeid.clone()) {
            named.push((
                sum,
                if from_summary {
                    Confidence::High
                } else {
                    Confidence::Medium
                },
            ));
        }
    }
    let mut out = Vec::new();
    for (sum, confidence) in named {
        let file = nodeid_file(&sum.nodeid).to_owned();
        let head = head_line(&sum.nodeid);
        let idx = {
            let candidates: Vec<usize> = (0..s.sections.len())
                .filter(|&i| {
                    !s.sections[i].used
                        && (s.sections[i].key == head || s.sections[i].key == sum.nodeid)
                })
                .collect();
            candidates
                .iter()
                .copied()
                .find(|&i| {
                    s.sections[i]
                        .locations
                        .iter()
                        .any(|(p, _, _)| same_file(p, &file))
                })
                .or_else(|| candidates.first().copied())
        };
        let mut f = base_failure(&sum.nodeid, confidence);
        let mut at = sum.offset;
        if let Some(i) = idx {
            // A test reported twice (failed, then teardown error): use the first section and
            // mark the rest with the same head line as used.
            let key = s.sections[i].key.clone();
            for sec in s.sections.iter_mut().filter(|x| x.key == key) {
                if sec.locations.iter().any(|(p, _, _)| same_file(p, &file))
                    || sec.locations.is_empty()
                {
                    sec.used = true;
                }
            }
            s.sections[i].used = true;
            let sec = &s.sections[i];
            at = at.min(sec.offset);
            fill_from_section(&mut f, sec, &file);
        } else if let Some(entry) = pick_line_entry(&mut s.line_entries, &file, &sum.message) {
            f.file_path = Some(location_path(&entry.path, &file));
            f.line_number = Some(entry.line);
            f.error_type = error_type(&entry.message, &entry.e_lines);
            f.error_message = bounded(
                &if entry.e_lines.is_empty() {
                    entry.message.clone()
                } else {
                    entry.e_lines.join("\n")
                },
                MAX_MESSAGE,
            );
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
        out.push((at, f));
    }
    // Sections no summary line named (`-rN`, a log cut before the summary).
    for sec in s.sections.iter().filter(|x| !x.used) {
        let Some(file) = sec.locations.first().map(|(p, _, _)| relative_path(p)) else {
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
        if out
            .iter()
            .any(|(_, f): &(usize, Failure)| f.test_name == nodeid)
        {
            continue;
        }
        let mut f = base_failure(&nodeid, Confidence::Medium);
        fill_from_section(&mut f, sec, &file);
        out.push((sec.offset, f));
    }
    out
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
        reproduce_command: Some(
            ShellCommand::new("python")
                .args(["-m", "pytest", nodeid])
                .to_string(),
        ),
    }
}

fn fill_from_section(f: &mut Failure, sec: &Section, file: &str) {
    let in_file = sec
        .locations
        .iter()
        .rev()
        .find(|(p, _, _)| same_file(p, file));
    // A module that failed to import: the module, at the line a `SyntaxError` names.
    let collection = sec.key == file;
    let chosen = if collection {
        in_file
    } else {
        in_file.or_else(|| sec.locations.last())
    };
    if let Some((path, line, _)) = chosen {
        f.file_path = Some(location_path(path, file));
        f.line_number = Some(*line);
    } else {
        f.file_path = Some(file.to_owned());
        f.line_number = sec.e_lines.iter().find_map(|l| {
            let rest = l.strip_prefix("File \"")?;
            let (path, tail) = rest.split_once("\", line ")?;
            same_file(path, file).then(|| tail.parse().ok())?
        });
    }
    let last_text = sec.locations.last().map_or("", |(_, _, t)| t.as_str());
    f.error_type = error_type(last_text, &sec.e_lines);
    let message = if sec.e_lines.is_empty() {
        sec.body
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_owned()
    } else {
        sec.e_lines.join("\n")
    };
    f.error_message = bounded(&message, MAX_MESSAGE);
    let trace = sec.body.join("\n");
    if !trace.trim().is_empty() {
        f.stack_trace = Some(bounded(&trace, MAX_TRACE));
    }
}

fn location_path(path: &str, file: &str) -> String {
    if same_file(path, file) {
        file.to_owned()
    } else {
        relative_path(path)
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
            || e.e_lines.first().is_some_and(|l| l.starts_with(prefix))
    };
    let i = entries
        .iter()
        .position(|e| !e.used && same_file(&e.path, file) && matches(e))
        .or_else(|| entries.iter().position(|e| !e.used && matches(e)))?;
    entries[i].used = true;
    Some(&entries[i])
}

/// `AssertionError` from a long-style `path:12: AssertionError` line, else from the first
/// `E   KeyError: ...` line (`E   assert ...` is an `AssertionError`).
fn error_type(location_text: &str, e_lines: &[String]) -> Option<String> {
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    };
    let head = location_text.split(':').next().unwrap_or("").trim();
    if ident(head) {
        return Some(head.to_owned());
    }
    for l in e_lines
        .iter()
        .chain(std::iter::once(&location_text.to_owned()))
    {
        let l = l.trim();
        if l.starts_with("assert ") {
            return Some("AssertionError".to_owned());
        }
        if let Some((t, _)) = l.split_once(':')
            && ident(t)
        {
            return Some(t.rsplit('.').next().unwrap_or(t).to_owned());
        }
    }
    None
}

/// `s` cut to at most `max` bytes on a character boundary, marked when cut.
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn section_and_summary_merge_with_location_in_test_file() {
        let log = "\
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
        let got = parse(log);
        assert_eq!(got.len(), 2);
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
    }
}
