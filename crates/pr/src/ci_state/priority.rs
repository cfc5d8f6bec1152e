//! What to fix first: errors that hide other tests, then what blocks the merge, then what the
//! framework pinned to a line; failures that share an error are one probable cause.

use std::collections::{HashMap, HashSet};

use resolve_pr_ci::{Confidence, Framework};

use super::failures::{Source, TestFailure};

/// Why a failure goes where it does, most urgent first (see [`Cause::rank`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// A collection, import or build error: it hides every test behind it.
    HidesOtherTests,
    /// It fails a check a branch rule requires: the PR cannot merge until it passes.
    FailsRequiredCheck,
    /// It fails a check whose requiredness could not be read: it may block the merge, so it
    /// goes before failures of checks known not to be required.
    MayFailRequiredCheck,
    /// The framework named the failing line.
    NamedLine,
    /// A failing test, nothing more known.
    FailingTest,
    /// An error the log printed outside any test (low confidence).
    OutsideAnyTest,
    /// The check named no test: its log is all there is.
    NoTestNamed,
}

impl Cause {
    /// Lower goes first; failures of the same rank keep their order.
    pub fn rank(self) -> u32 {
        match self {
            Cause::HidesOtherTests => 0,
            Cause::FailsRequiredCheck => 1,
            Cause::MayFailRequiredCheck => 2,
            Cause::NamedLine => 3,
            Cause::FailingTest | Cause::OutsideAnyTest => 4,
            Cause::NoTestNamed => 5,
        }
    }

    /// Why `f` goes first, best reason first; `required`: whether its check is required
    /// (`None`: unknown, which ranks as possibly required, never below a known "no").
    pub fn of(f: &TestFailure, required: Option<bool>) -> Cause {
        let t = f.error_type.as_deref().unwrap_or("");
        let m = &f.error_message;
        let hides = [
            "ImportError",
            "ModuleNotFoundError",
            "SyntaxError",
            "IndentationError",
            "CollectionError",
        ]
        .iter()
        .any(|k| t.contains(k))
            || m.contains("ERROR collecting")
            || m.contains("could not compile")
            || m.contains("build failed")
            || m.contains("setup failed")
            || m.contains("Test suite failed to run")
            || m.contains("Cannot find module")
            || f.test_name.contains("[build failed]")
            || f.test_name.starts_with("error[E");
        if hides {
            return Cause::HidesOtherTests;
        }
        if f.source == Source::CheckOutput && f.confidence == Confidence::Low {
            return Cause::NoTestNamed;
        }
        if f.framework == Some(Framework::Generic) {
            return Cause::OutsideAnyTest;
        }
        match required {
            Some(true) => return Cause::FailsRequiredCheck,
            None => return Cause::MayFailRequiredCheck,
            Some(false) => {}
        }
        if f.file_path.is_some() && f.line_number.is_some() {
            return Cause::NamedLine;
        }
        Cause::FailingTest
    }
}

/// A failure to fix, in the order to fix them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Priority {
    /// Into the failures prioritized.
    pub index: usize,
    pub cause: Cause,
    /// The failures whose message starts with the same line as this one's (check entries
    /// left out), in their order: probably one cause. It holds `index` unless this failure
    /// is itself a check entry; empty when its message is.
    pub same_error: Vec<usize>,
}

/// Each failure by cause, then in the order given; a failure that shares its error with
/// one listed earlier is not listed again. `required` says whether a check is required
/// (`None`: unknown).
pub fn prioritize(
    failures: &[TestFailure],
    required: impl Fn(&str) -> Option<bool>,
) -> Vec<Priority> {
    // Failures with the same first line of message: probably one cause.
    let mut by_message: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in failures.iter().enumerate() {
        let key = first_line(&f.error_message);
        if !key.is_empty() && f.source != Source::CheckOutput {
            by_message.entry(key).or_default().push(i);
        }
    }
    let mut ranked: Vec<(u32, usize, Cause)> = failures
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let cause = Cause::of(f, required(&f.check_name));
            (cause.rank(), i, cause)
        })
        .collect();
    ranked.sort_by_key(|(rank, i, _)| (*rank, *i));
    let mut out = Vec::new();
    let mut covered: HashSet<usize> = HashSet::new();
    for (_, i, cause) in ranked {
        if covered.contains(&i) {
            continue;
        }
        let same_error: Vec<usize> = by_message
            .get(first_line(&failures[i].error_message))
            .cloned()
            .unwrap_or_default();
        covered.extend(same_error.iter().copied());
        covered.insert(i);
        out.push(Priority {
            index: i,
            cause,
            same_error,
        });
    }
    out
}

fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ci_state::failures::tests::failed;

    #[test]
    fn build_errors_then_required_checks_then_named_lines() {
        let all = vec![
            failed("t1", "unit", "assert 1 == 2", Some("AssertionError")),
            failed("t2", "unit", "KeyError: 'id'", Some("KeyError")),
            failed("t3", "unit", "KeyError: 'id'\nat line 3", Some("KeyError")),
            failed("t4", "lint", "x", None),
            failed(
                "tests/test_y.py",
                "unit",
                "ModuleNotFoundError: No module named 'yaml'",
                Some("ModuleNotFoundError"),
            ),
        ];
        let order = prioritize(&all, |check| Some(check == "lint"));
        let listed: Vec<(usize, Cause, &[usize])> = order
            .iter()
            .map(|p| (p.index, p.cause, p.same_error.as_slice()))
            .collect();
        assert_eq!(
            listed,
            [
                (4, Cause::HidesOtherTests, &[4][..]),
                (3, Cause::FailsRequiredCheck, &[3][..]),
                (0, Cause::NamedLine, &[0][..]),
                (1, Cause::NamedLine, &[1, 2][..]),
            ]
        );
    }

    /// A failure whose check may be required (its rules could not be read) goes before one
    /// known not to be, and after one known to be.
    #[test]
    fn unknown_requiredness_is_not_demoted_below_known_not_required() {
        let mut no_line = failed("e2e::checkout", "e2e", "timed out", None);
        no_line.file_path = None;
        no_line.line_number = None;
        let all = vec![
            failed("t1", "unit", "assert 1 == 2", Some("AssertionError")),
            no_line,
            failed("t3", "build", "assert x", Some("AssertionError")),
        ];
        let order = prioritize(&all, |check| match check {
            "unit" => Some(false),
            "build" => Some(true),
            _ => None,
        });
        let listed: Vec<(usize, Cause)> = order.iter().map(|p| (p.index, p.cause)).collect();
        assert_eq!(
            listed,
            [
                (2, Cause::FailsRequiredCheck),
                (1, Cause::MayFailRequiredCheck),
                (0, Cause::NamedLine),
            ]
        );
    }
}
