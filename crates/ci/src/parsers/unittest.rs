//! Python unittest (`python -m unittest`, also Django's and nose's runners, which print the
//! same blocks): a 70-`=` line, then `FAIL: <desc>` or `ERROR: <desc>`, a dashed line and the
//! traceback. `<desc>` is `test_y (pkg.mod.C.test_y)` (Python ≥ 3.11), `test_y (pkg.mod.C)`
//! (older), with subtest parameters after it (`(n=1)`, `[msg]`: one failure per test),
//! `setUpClass (pkg.mod.C)` (names the class) or `pkg.mod (unittest.loader._FailedTest...)`
//! (an import error: names the module). `UNEXPECTED SUCCESS` blocks are not failures.
//!
//! Location: the last traceback frame in the test's module file (the one whose dotted path
//! begins the test id), else none. Confidence: `high` with a location, `medium` without.

use resolve_pr_core::ShellCommand;

use super::pytest::bounded;
use super::relative_path;
use crate::{Confidence, Failure, Framework};

const RULE: &str = "======================================================================";

/// The failures unittest reports in `text`.
pub fn parse(text: &str) -> Vec<(usize, Failure)> {
    let mut lines = Vec::new();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        lines.push((offset, raw.trim_end_matches(['\n', '\r'])));
        offset += raw.len();
    }
    let mut out: Vec<(usize, Failure)> = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if lines[i].1 != RULE {
            i += 1;
            continue;
        }
        let (at, header) = lines[i + 1];
        let desc = header
            .strip_prefix("FAIL: ")
            .or_else(|| header.strip_prefix("ERROR: "));
        let Some(name) = desc.and_then(test_id) else {
            i += 1;
            continue;
        };
        // The body: after the dashed line, up to the next rule or the closing dashes.
        let mut body = Vec::new();
        let mut j = i + 2;
        if lines.get(j).is_some_and(|(_, l)| l.starts_with("----")) {
            j += 1;
        }
        while j < lines.len()
            && lines[j].1 != RULE
            && !lines[j]
                .1
                .starts_with("-----------------------------------")
        {
            body.push(lines[j].1);
            j += 1;
        }
        i = j;
        if out.iter().any(|(_, f)| f.test_name == name) {
            continue; // another subtest of the same test
        }
        out.push((at, failure(name, &body)));
    }
    out
}

/// The test id a block header describes.
fn test_id(desc: &str) -> Option<String> {
    let (first, rest) = desc.trim().split_once(' ').unwrap_or((desc.trim(), ""));
    let inner = rest.trim_start().strip_prefix('(')?;
    let inner = &inner[..inner.find(')')?];
    if inner.starts_with("unittest.loader._FailedTest")
        || inner.starts_with("unittest.loader.ModuleImportFailure")
    {
        return Some(first.to_owned());
    }
    if matches!(
        first,
        "setUpClass" | "tearDownClass" | "setUpModule" | "tearDownModule"
    ) {
        return Some(inner.to_owned());
    }
    if inner.ends_with(&format!(".{first}")) {
        Some(inner.to_owned())
    } else {
        Some(format!("{inner}.{first}"))
    }
}

fn failure(name: String, body: &[&str]) -> Failure {
    // `File "path", line N, in func` frames.
    let mut frames = Vec::new();
    let mut last_frame_line = None;
    for (k, l) in body.iter().enumerate() {
        let Some(rest) = l.trim_start().strip_prefix("File \"") else {
            continue;
        };
        let Some((path, tail)) = rest.split_once("\", line ") else {
            continue;
        };
        let n: String = tail.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = n.parse::<u64>() {
            frames.push((relative_path(path), n));
            last_frame_line = Some(k);
        }
    }
    let parts: Vec<&str> = name.split('.').collect();
    let mut location = None;
    'outer: for n in (1..=parts.len()).rev() {
        let module = format!("{}.py", parts[..n].join("/"));
        for (path, line) in frames.iter().rev() {
            if *path == module || path.ends_with(&format!("/{module}")) {
                location = Some((module, *line));
                break 'outer;
            }
        }
    }
    // The exception: the first unindented line after the last frame.
    let start = last_frame_line.map_or(0, |k| k + 1);
    let exc: Vec<&str> = body[start.min(body.len())..]
        .iter()
        .skip_while(|l| l.starts_with(' ') || l.is_empty())
        .copied()
        .collect();
    let message = exc.join("\n").trim().to_owned();
    let error_type = exc.first().and_then(|l| {
        let t = l.split(':').next()?.trim();
        (!t.is_empty() && !t.contains(' ')).then(|| t.rsplit('.').next().unwrap_or(t).to_owned())
    });
    let trace = body.join("\n");
    Failure {
        reproduce_command: Some(
            ShellCommand::new("python")
                .args(["-m", "unittest", name.as_str()])
                .to_string(),
        ),
        test_name: name,
        confidence: if location.is_some() {
            Confidence::High
        } else {
            Confidence::Medium
        },
        file_path: location.as_ref().map(|(p, _)| p.clone()),
        line_number: location.map(|(_, l)| l),
        error_type,
        error_message: bounded(&message, 2000),
        stack_trace: (!trace.trim().is_empty()).then(|| bounded(&trace, 4000)),
        framework: Framework::Unittest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms() {
        assert_eq!(
            test_id("test_y (pkg.mod.C.test_y)").unwrap(),
            "pkg.mod.C.test_y"
        );
        assert_eq!(test_id("test_y (pkg.mod.C)").unwrap(), "pkg.mod.C.test_y");
        assert_eq!(
            test_id("test_y (pkg.mod.C.test_y) (n=1)").unwrap(),
            "pkg.mod.C.test_y"
        );
        assert_eq!(test_id("setUpClass (pkg.mod.C)").unwrap(), "pkg.mod.C");
        assert_eq!(
            test_id("pkg.test_x (unittest.loader._FailedTest.pkg.test_x)").unwrap(),
            "pkg.test_x"
        );
        assert!(test_id("something else").is_none());
    }

    #[test]
    fn subtests_merge_and_location_is_in_the_test_module() {
        let log = format!(
            "{RULE}\nFAIL: test_s (pkg.test_a.C.test_s) (n=1)\n----------------------------------------------------------------------\n\
Traceback (most recent call last):\n  File \"/home/runner/work/r/r/pkg/test_a.py\", line 9, in test_s\n    helper()\n  File \"/home/runner/work/r/r/pkg/util.py\", line 2, in helper\n    raise ValueError('x')\nValueError: x\n\n\
{RULE}\nFAIL: test_s (pkg.test_a.C.test_s) (n=3)\n----------------------------------------------------------------------\nAssertionError: 1 != 0\n\n\
----------------------------------------------------------------------\nRan 1 test in 0.001s\n"
        );
        let got = parse(&log);
        assert_eq!(got.len(), 1);
        let f = &got[0].1;
        assert_eq!(f.test_name, "pkg.test_a.C.test_s");
        assert_eq!(f.file_path.as_deref(), Some("pkg/test_a.py"));
        assert_eq!(f.line_number, Some(9));
        assert_eq!(f.error_type.as_deref(), Some("ValueError"));
        assert_eq!(f.error_message, "ValueError: x");
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("python -m unittest pkg.test_a.C.test_s")
        );
    }

    #[test]
    fn printed_fail_lines_and_unexpected_success_are_not_failures() {
        let log = format!(
            "test_p (a.C.test_p) ... FAIL: test_fake (a.C.test_fake)\nok\n{RULE}\nUNEXPECTED SUCCESS: test_u (a.C.test_u)\n"
        );
        assert!(parse(&log).is_empty());
    }
}
