//! The rollup of a head commit's checks: which failed, which still run or wait, which
//! required ones have not reported, and the one status they add up to.

use std::collections::HashSet;
use std::time::Duration;

use resolve_pr_forge::{Check, CheckConclusion, CheckKind, CheckState, CiSnapshot, Known};

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
    /// Required by a branch rule, not reported yet; `None` when the required set is not
    /// known whole (a rule source could not be read), so any number would be a guess.
    pub missing_required: Option<usize>,
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
    /// `None`: whether a rule requires it could not be read.
    pub required: Option<bool>,
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
    /// Required checks known not to have reported yet, by name (when the required set is
    /// partial, there may be more).
    pub missing_required: Vec<String>,
}

impl<'a> Rollup<'a> {
    pub fn of(snapshot: &'a CiSnapshot) -> Rollup<'a> {
        let mut checks: Vec<&Check> = snapshot.checks.iter().collect();
        checks.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        let required: HashSet<&str> = snapshot.required.names.iter().map(String::as_str).collect();
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
        counts.missing_required =
            (snapshot.required.known == Known::Complete).then_some(missing_required.len());
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
        }
    }

    /// Whether a branch rule requires the check of this name: `None` when that could not be
    /// read (never taken as "not required").
    pub fn is_required(&self, name: &str) -> Option<bool> {
        self.snapshot.required.is_required(name)
    }

    /// How much of the required set the snapshot knows.
    pub fn required_known(&self) -> Known {
        self.snapshot.required.known
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
            required: Some(true),
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
    use resolve_pr_forge::{ActionsJobRef, CheckConclusion, RequiredChecks};

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

    /// `required`: the whole required set, or `None` when no rule source could be read.
    pub(crate) fn snapshot(checks: Vec<Check>, required: Option<Vec<&str>>) -> CiSnapshot {
        CiSnapshot {
            head_sha: "0123456789abcdef".to_owned(),
            checks,
            required: match required {
                Some(names) => {
                    RequiredChecks::complete(names.into_iter().map(str::to_owned).collect())
                }
                None => RequiredChecks::unknown(Vec::new()),
            },
            unchanged: false,
        }
    }

    /// A required set some of whose sources could not be read: a rule requires `required`
    /// and GraphQL said no to `not_required`; nothing is known of the rest.
    #[test]
    fn a_partial_required_set_leaves_the_rest_unknown_never_false() {
        let snap = CiSnapshot {
            required: RequiredChecks {
                names: vec!["build".to_owned(), "deploy".to_owned()],
                not_required: vec!["lint".to_owned()],
                known: Known::Partial,
                unread: Vec::new(),
            },
            ..snapshot(
                vec![
                    check("build", S::Completed, Some(C::Failure)),
                    check("lint", S::Completed, Some(C::Failure)),
                    check("e2e", S::Completed, Some(C::Failure)),
                    check("docs", S::InProgress, None),
                ],
                None,
            )
        };
        let view = Rollup::of(&snap);
        assert_eq!(view.is_required("build"), Some(true));
        assert_eq!(view.is_required("lint"), Some(false));
        assert_eq!(view.is_required("e2e"), None);
        // deploy is known missing; others may be too, so there is no count.
        assert_eq!(view.missing_required, ["deploy"]);
        assert_eq!(view.counts.missing_required, None);
        let pending: Vec<(String, Option<bool>)> = view
            .pending()
            .into_iter()
            .map(|p| (p.name, p.required))
            .collect();
        assert_eq!(
            pending,
            [("docs".to_owned(), None), ("deploy".to_owned(), Some(true))]
        );
        // Nothing readable: unknown for every check, and no count either.
        let unknown = snapshot(vec![check("build", S::Completed, Some(C::Failure))], None);
        let view = Rollup::of(&unknown);
        assert_eq!(view.is_required("build"), None);
        assert_eq!(view.counts.missing_required, None);
        // A complete set answers every name, and counts.
        let complete = snapshot(
            vec![check("lint", S::Completed, Some(C::Failure))],
            Some(vec!["build"]),
        );
        let view = Rollup::of(&complete);
        assert_eq!(view.is_required("lint"), Some(false));
        assert_eq!(view.counts.missing_required, Some(1));
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
