//! The rollup of a head commit's checks: which failed, which still run or wait, which
//! required ones have not reported, and the one status they add up to.

use std::collections::HashSet;
use std::time::Duration;

use resolve_pr_forge::{Check, CheckConclusion, CheckKind, CheckState, CiSnapshot};

/// What a commit's CI adds up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Checks are queued, or a required check has not reported yet.
    Pending,
    /// At least one check is running and none has failed.
    Running,
    /// At least one check failed (others may still run).
    Failed,
    /// Every reported and every required check succeeded (or was skipped/neutral).
    Passed,
    /// No check or status is reported for the head commit.
    Unknown,
}

/// How many checks are in each state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckCounts {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub running: usize,
    pub queued: usize,
    /// Skipped, neutral or stale: not failures.
    pub skipped: usize,
    /// Required by a branch rule, not reported yet.
    pub missing_required: usize,
}

/// Where a check that has not finished is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingState {
    InProgress,
    Queued,
    /// Required, not reported yet.
    Expected,
}

/// A check that has not finished, or a required one that has not reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingCheck {
    pub name: String,
    pub state: PendingState,
    pub required: bool,
}

/// The snapshot sorted by what each check's state means.
#[derive(Debug)]
pub struct Rollup<'a> {
    pub snapshot: &'a CiSnapshot,
    pub status: Status,
    pub counts: CheckCounts,
    /// In the order they finished (those with no time last), then by name: a check that fails
    /// later comes after those already listed.
    pub failed: Vec<&'a Check>,
    /// Running checks, and commit statuses that are pending (their CI has picked the commit
    /// up), by name.
    pub running: Vec<&'a Check>,
    pub queued: Vec<&'a Check>,
    /// Required checks not reported yet, by name.
    pub missing_required: Vec<String>,
    required: HashSet<&'a str>,
}

impl<'a> Rollup<'a> {
    pub fn of(snapshot: &'a CiSnapshot) -> Rollup<'a> {
        let mut checks: Vec<&Check> = snapshot.checks.iter().collect();
        checks.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        let required: HashSet<&str> = snapshot
            .required
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let mut counts = CheckCounts {
            total: checks.len(),
            ..Default::default()
        };
        let (mut failed, mut running, mut queued) = (Vec::new(), Vec::new(), Vec::new());
        for check in checks {
            match (check.state, check.conclusion) {
                (CheckState::Completed, Some(c)) if c.is_failure() => {
                    counts.failed += 1;
                    failed.push(check);
                }
                (CheckState::Completed, Some(CheckConclusion::Success)) => counts.passed += 1,
                (CheckState::Completed, _) => counts.skipped += 1,
                (CheckState::InProgress, _) => {
                    counts.running += 1;
                    running.push(check);
                }
                // A pending commit status means its CI has picked the commit up.
                (CheckState::Queued, _) if check.kind == CheckKind::Status => {
                    counts.running += 1;
                    running.push(check);
                }
                (CheckState::Queued, _) => {
                    counts.queued += 1;
                    queued.push(check);
                }
            }
        }
        // Failed checks in the order they finished, so that pages stay stable while more
        // checks fail.
        failed.sort_by_cached_key(|c| {
            let done = finished_ms(c);
            (done.is_none(), done)
        });
        let reported: HashSet<&str> = snapshot.checks.iter().map(|c| c.name.as_str()).collect();
        let mut missing_required: Vec<String> = required
            .iter()
            .filter(|r| !reported.contains(**r))
            .map(|r| r.to_string())
            .collect();
        missing_required.sort();
        counts.missing_required = missing_required.len();
        let status = if !failed.is_empty() {
            Status::Failed
        } else if !running.is_empty() {
            Status::Running
        } else if !queued.is_empty() || !missing_required.is_empty() {
            Status::Pending
        } else if snapshot.checks.is_empty() {
            Status::Unknown
        } else {
            Status::Passed
        };
        Rollup {
            snapshot,
            status,
            counts,
            failed,
            running,
            queued,
            missing_required,
            required,
        }
    }

    /// Whether a branch rule requires the check of this name.
    pub fn is_required(&self, name: &str) -> bool {
        self.required.contains(name)
    }

    /// Checks that have not finished (including required ones not reported yet).
    pub fn active(&self) -> usize {
        self.running.len() + self.queued.len() + self.missing_required.len()
    }

    /// Running, then queued, then expected checks.
    pub fn pending(&self) -> Vec<PendingCheck> {
        let mut out: Vec<PendingCheck> = self
            .running
            .iter()
            .map(|c| (c, PendingState::InProgress))
            .chain(self.queued.iter().map(|c| (c, PendingState::Queued)))
            .map(|(c, state)| PendingCheck {
                name: c.name.clone(),
                state,
                required: self.is_required(&c.name),
            })
            .collect();
        out.extend(self.missing_required.iter().map(|name| PendingCheck {
            name: name.clone(),
            state: PendingState::Expected,
            required: true,
        }));
        out
    }

    /// Whether waiting longer would not change the answer: passed is final; failed is once
    /// nothing else runs, or at once when only the first failure matters (`bail_on_first`);
    /// no checks at all is final only after `no_checks_grace` (CI takes a moment to register
    /// checks after a push).
    pub fn settled(
        &self,
        bail_on_first: bool,
        waited: Duration,
        no_checks_grace: Duration,
    ) -> bool {
        match self.status {
            Status::Passed => true,
            Status::Failed => bail_on_first || self.active() == 0,
            Status::Unknown => waited >= no_checks_grace,
            Status::Pending | Status::Running => false,
        }
    }
}

/// When a check finished, in Unix milliseconds, if the forge said.
pub fn finished_ms(check: &Check) -> Option<i64> {
    Some(check.completed_at?.timestamp_millis())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use resolve_pr_forge::{ActionsJobRef, CheckConclusion};

    pub(crate) fn check(
        name: &str,
        state: CheckState,
        conclusion: Option<CheckConclusion>,
    ) -> Check {
        Check {
            id: 1,
            name: name.to_owned(),
            kind: CheckKind::CheckRun,
            state,
            conclusion,
            started_at: None,
            completed_at: None,
            details_url: Some(format!("https://ci.example/{name}")),
            app: Some("github-actions".to_owned()),
            title: None,
            summary: None,
            text: None,
            annotations_count: 0,
            actions_job: Some(ActionsJobRef {
                run_id: 1,
                job_id: 1,
            }),
        }
    }

    pub(crate) fn snapshot(checks: Vec<Check>, required: Option<Vec<&str>>) -> CiSnapshot {
        CiSnapshot {
            head_sha: "0123456789abcdef".to_owned(),
            checks,
            required: required.map(|r| r.into_iter().map(str::to_owned).collect()),
            unchanged: false,
        }
    }

    use CheckConclusion as C;
    use CheckState as S;

    #[test]
    fn status_from_checks() {
        type Case = (Vec<Check>, Option<Vec<&'static str>>, Status);
        let cases: Vec<Case> = vec![
            (vec![], None, Status::Unknown),
            (
                vec![check("a", S::Completed, Some(C::Success))],
                None,
                Status::Passed,
            ),
            (
                vec![
                    check("a", S::Completed, Some(C::Success)),
                    check("b", S::Completed, Some(C::Skipped)),
                    check("c", S::Completed, Some(C::Neutral)),
                ],
                None,
                Status::Passed,
            ),
            (
                vec![check("a", S::Completed, Some(C::Success))],
                Some(vec!["a", "lint"]),
                Status::Pending,
            ),
            (
                vec![
                    check("a", S::Completed, Some(C::Success)),
                    check("b", S::Queued, None),
                ],
                None,
                Status::Pending,
            ),
            (
                vec![check("a", S::InProgress, None), check("b", S::Queued, None)],
                None,
                Status::Running,
            ),
            (
                vec![
                    check("a", S::InProgress, None),
                    check("b", S::Completed, Some(C::TimedOut)),
                ],
                None,
                Status::Failed,
            ),
        ];
        for (checks, required, want) in cases {
            let names: Vec<String> = checks.iter().map(|c| c.name.clone()).collect();
            let snap = snapshot(checks, required);
            assert_eq!(Rollup::of(&snap).status, want, "{names:?}");
        }
        for failing in [
            C::Failure,
            C::TimedOut,
            C::Cancelled,
            C::StartupFailure,
            C::ActionRequired,
        ] {
            let snap = snapshot(vec![check("a", S::Completed, Some(failing))], None);
            assert_eq!(Rollup::of(&snap).status, Status::Failed, "{failing:?}");
        }
    }

    #[test]
    fn a_pending_commit_status_counts_as_running() {
        let mut status = check("ci/jenkins", S::Queued, None);
        status.kind = CheckKind::Status;
        let snap = snapshot(vec![status], None);
        let view = Rollup::of(&snap);
        assert_eq!(view.status, Status::Running);
        assert_eq!(view.counts.running, 1);
    }

    #[test]
    fn failed_checks_are_listed_in_the_order_they_finished() {
        let at = |name: &str, done: Option<&str>| {
            let mut c = check(name, S::Completed, Some(C::Failure));
            c.completed_at = done.map(|t| resolve_pr_forge::parse_time(t).unwrap());
            c
        };
        let snap = snapshot(
            vec![
                at("a-late", Some("2024-05-01T10:09:00Z")),
                at("b-untimed", None),
                // Same instant as 10:05Z, written with an offset.
                at("c-early", Some("2024-05-01T12:05:00+02:00")),
                at("d-first", Some("2024-05-01T10:01:00Z")),
                at("a-early", Some("2024-05-01T10:05:00Z")),
            ],
            None,
        );
        let view = Rollup::of(&snap);
        let names: Vec<&str> = view.failed.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["d-first", "a-early", "c-early", "a-late", "b-untimed"]
        );
    }

    #[test]
    fn a_check_finished_at_an_offset_orders_by_its_instant() {
        let at = |name: &str, done: &str| {
            let mut c = check(name, S::Completed, Some(C::Failure));
            c.completed_at = resolve_pr_forge::parse_time(done);
            c
        };
        // 10:30+01:00 is 09:30Z: first, though as text it sorts after 10:00Z.
        let snap = snapshot(
            vec![
                at("a-utc", "2024-05-01T10:00:00Z"),
                at("b-offset", "2024-05-01T10:30:00+01:00"),
            ],
            None,
        );
        let view = Rollup::of(&snap);
        let names: Vec<&str> = view.failed.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["b-offset", "a-utc"]);
    }
}
