//! Pages of failures: a keyset cursor that pins the head commit and resumes after the last
//! failure shown, whatever the checks add between two pages.

use resolve_pr_core::Error;
use resolve_pr_pr::ci_state::{self, CiState, TestFailure};
use serde::{Deserialize, Serialize};

use crate::shared::short;

/// Failures per page.
const PAGE_SIZE: usize = 10;

/// A page position: failures are recomputed on every page, so the cursor pins the commit
/// and resumes after the last failure shown (keyset: when its check finished, the check's
/// name and the failure's place in that check). Checks are listed in the order they
/// finished, so a check that fails between two pages comes after the cursor: it neither
/// shifts nor repeats anything, and the later pages show it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Position {
    pub(super) head_sha: String,
    /// When the check finished, in Unix milliseconds (`None`: the forge gave no time).
    #[serde(default)]
    finished: Option<i64>,
    check: String,
    ordinal: usize,
    /// The last failure shown: when a check's list changed between pages (a JUnit report
    /// arrived, a placeholder gave way to real tests), the page resumes after this test.
    #[serde(default)]
    test: String,
}

/// Every failure in output order (checks as the rollup lists them, each check's tests in
/// its order), with when each one's check finished.
pub(super) fn failures_in_order(state: &CiState<'_>) -> (Vec<TestFailure>, Vec<Option<i64>>) {
    let mut all = Vec::new();
    let mut finished = Vec::new();
    for (check, findings) in state.rollup.failed.iter().zip(&state.findings) {
        all.extend(findings.failures.iter().cloned());
        let done = ci_state::finished_ms(check);
        finished.extend(findings.failures.iter().map(|_| done));
    }
    (all, finished)
}

pub(super) fn head_moved(cursor_sha: &str, head_sha: &str) -> Error {
    Error::user(format!(
        "the cursor is for commit {}, but the pull request's head is now {}",
        short(cursor_sha),
        short(head_sha)
    ))
    .with_suggestion("New commits were pushed: call get_failing_tests again without cursor.")
}

/// The failures of the page after `position` (the first page without one), and, when more
/// follow, the position of the last one shown.
pub(super) fn page(
    all: &[TestFailure],
    finished: &[Option<i64>],
    position: Option<&Position>,
    head_sha: &str,
) -> (std::ops::Range<usize>, Option<Position>) {
    let keys = keys_of(all, finished);
    let start = position.map_or(0, |p| resume_at(all, &keys, p));
    let end = (start + PAGE_SIZE).min(all.len());
    let next = (end < all.len()).then(|| {
        let key = keys[end - 1];
        Position {
            head_sha: head_sha.to_owned(),
            finished: key.finished,
            check: key.check.to_owned(),
            ordinal: key.ordinal,
            test: all[end - 1].test_name.clone(),
        }
    });
    (start..end, next)
}

/// A failure's place in output order: checks in the order they finished (those with no
/// time last), then by name; tests in the order their check lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Key<'a> {
    untimed: bool,
    finished: Option<i64>,
    check: &'a str,
    ordinal: usize,
}

impl<'a> Key<'a> {
    fn new(finished: Option<i64>, check: &'a str, ordinal: usize) -> Self {
        Key {
            untimed: finished.is_none(),
            finished,
            check,
            ordinal,
        }
    }
}

/// Each failure's key, given when each failure's check finished. `all` is in output order.
fn keys_of<'a>(all: &'a [TestFailure], finished: &[Option<i64>]) -> Vec<Key<'a>> {
    let mut keys: Vec<Key<'a>> = Vec::with_capacity(all.len());
    for (f, done) in all.iter().zip(finished) {
        let ordinal = match keys.last() {
            Some(k) if k.check == f.check_name && k.finished == *done => k.ordinal + 1,
            _ => 0,
        };
        keys.push(Key::new(*done, &f.check_name, ordinal));
    }
    keys
}

/// Where the page after `p` starts: after the last failure shown, by key; when that key now
/// holds another test (its check's list changed), after the same test if it is still there.
fn resume_at(all: &[TestFailure], keys: &[Key<'_>], p: &Position) -> usize {
    let last = Key::new(p.finished, &p.check, p.ordinal);
    let keyset = keys.partition_point(|k| *k <= last);
    let same = keyset
        .checked_sub(1)
        .is_some_and(|i| all[i].check_name == p.check && all[i].test_name == p.test);
    if same || p.test.is_empty() {
        return keyset;
    }
    all.iter()
        .position(|f| f.check_name == p.check && f.test_name == p.test)
        .map_or(keyset, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::get_failing_tests::fixtures::failed;

    #[test]
    fn pages_resume_after_the_last_test_shown_even_when_its_check_changed() {
        // (check, test); check a finished at 1000 ms, b at 2000, c at 3000.
        let list = |names: &[(&str, &str)]| -> (Vec<TestFailure>, Vec<Option<i64>>) {
            let done = |check: &str| match check {
                "a" => Some(1000),
                "b" => Some(2000),
                "c" => Some(3000),
                _ => None,
            };
            (
                names
                    .iter()
                    .map(|(check, test)| failed(test, check, "boom", None))
                    .collect(),
                names.iter().map(|(check, _)| done(check)).collect(),
            )
        };
        let (before, done) = list(&[("a", "t1"), ("a", "t2"), ("b", "u1"), ("b", "u2")]);
        let keys = keys_of(&before, &done);
        let after_t2 = Position {
            head_sha: String::new(),
            finished: Some(1000),
            check: "a".into(),
            ordinal: 1,
            test: "t2".into(),
        };
        assert_eq!(resume_at(&before, &keys, &after_t2), 2);
        // A JUnit report added t0 to check a before the next page: no repeat of t2.
        let (after, done) = list(&[
            ("a", "t0"),
            ("a", "t1"),
            ("a", "t2"),
            ("b", "u1"),
            ("b", "u2"),
        ]);
        let keys = keys_of(&after, &done);
        assert_eq!(resume_at(&after, &keys, &after_t2), 3);
        // t2 is gone: fall back to the key.
        let (gone, done) = list(&[("a", "t1"), ("a", "x"), ("b", "u1")]);
        let keys = keys_of(&gone, &done);
        assert_eq!(resume_at(&gone, &keys, &after_t2), 2);
        // A check that failed between pages finished after a, so it comes after the cursor
        // even though its name sorts first; an untimed one comes last.
        let (late, done) = list(&[
            ("a", "t1"),
            ("a", "t2"),
            ("b", "u1"),
            ("c", "0"),
            ("0", "z"),
        ]);
        let keys = keys_of(&late, &done);
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert_eq!(resume_at(&late, &keys, &after_t2), 2);
    }
}
