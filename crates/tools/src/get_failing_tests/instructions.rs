//! The words of the answer: what to fix first and why (`instructions.priority`, in the order
//! `resolve_pr_pr::ci_state::prioritize` gives), the commands to run, the summary line, and
//! `poll_info` while checks run.

use resolve_pr_pr::ci_state::{Cause, CiState, Rollup, Status, TestFailure, prioritize};

use super::{FailedCheck, FailureCounts, Instructions, PollInfo, PrioritizedFailure};
use crate::Context;

/// Entries in `instructions.priority`, and commands in `instructions.commands`.
const MAX_PRIORITY: usize = 10;
/// Failed checks the summary names.
const NAMED_CHECKS: usize = 4;

/// Why a failure goes where it does, as agents read it.
fn reason(cause: Cause) -> &'static str {
    match cause {
        Cause::HidesOtherTests => {
            "a collection, import or build error: it hides every test behind it, fix it first"
        }
        Cause::NoTestNamed => {
            "no test was named: read the check's log at log_url to see what failed"
        }
        Cause::OutsideAnyTest => {
            "an error the log printed outside any test (low confidence): read the failed \
             step's log (its check's log_command, or log_url)"
        }
        Cause::FailsRequiredCheck => "fails a required check: the PR cannot merge until it passes",
        Cause::MayFailRequiredCheck => {
            "fails a check whose branch rules could not be read (see required_checks): it may \
             block the merge"
        }
        Cause::NamedLine => "the framework named the failing line",
        Cause::FailingTest => "failing test",
    }
}

pub(super) fn instructions(
    rollup: &Rollup<'_>,
    all: &[TestFailure],
    counts: &FailureCounts,
    checks: &[FailedCheck],
) -> Instructions {
    let mut priority = Vec::new();
    let mut commands = Vec::new();
    for p in prioritize(all, |check| rollup.is_required(check)) {
        let f = &all[p.index];
        let related: Vec<String> = p
            .same_error
            .iter()
            .filter(|j| **j != p.index)
            .map(|j| all[*j].test_name.clone())
            .take(5)
            .collect();
        let reason = if related.is_empty() || p.cause == Cause::HidesOtherTests {
            reason(p.cause).to_owned()
        } else {
            format!(
                "{} tests fail with the same error, probably one cause; {}",
                p.same_error.len(),
                reason(p.cause)
            )
        };
        if priority.len() < MAX_PRIORITY {
            priority.push(PrioritizedFailure {
                test: f.test_name.clone(),
                priority: priority.len() as u32 + 1,
                reason,
                related_failures: related,
            });
        }
        // A failure that names no test to run has its job's failed log to read instead.
        let command = f.reproduce_command.as_ref().or_else(|| {
            checks
                .iter()
                .find(|c| c.name == f.check_name)
                .and_then(|c| c.log_command.as_ref())
        });
        if let Some(cmd) = command
            && commands.len() < MAX_PRIORITY
            && !commands.contains(cmd)
        {
            commands.push(cmd.clone());
        }
    }
    Instructions {
        summary: summary(rollup, counts, checks),
        priority,
        commands,
    }
}

fn summary(rollup: &Rollup<'_>, counts: &FailureCounts, checks: &[FailedCheck]) -> String {
    let active = rollup.active();
    let still = if active > 0 {
        format!("; {active} check{} still running or queued", plural(active))
    } else {
        String::new()
    };
    match rollup.status {
        Status::Unknown => "no CI checks reported for this commit".to_owned(),
        Status::Passed => {
            let n = rollup.counts.passed;
            let skipped = rollup.counts.skipped;
            if skipped > 0 {
                format!("all {n} check{} passed ({skipped} skipped)", plural(n))
            } else {
                format!("all {n} check{} passed", plural(n))
            }
        }
        Status::Running | Status::Pending => {
            format!("no failures so far: {}", progress_message(rollup))
        }
        Status::Failed => {
            let FailureCounts {
                tests,
                errors,
                checks: bare,
            } = *counts;
            let mut parts = Vec::new();
            if tests > 0 || errors + bare == 0 {
                parts.push(format!("{tests} failing test{}", plural(tests)));
            }
            if errors > 0 {
                parts.push(format!("{errors} error{} outside any test", plural(errors)));
            }
            if bare > 0 {
                parts.push(format!(
                    "{bare} failed check{} that named no test",
                    plural(bare)
                ));
            }
            let what = match parts.split_last() {
                Some((last, rest)) if !rest.is_empty() => {
                    format!("{} and {last},", rest.join(", "))
                }
                _ => parts.concat(),
            };
            let what = if tests == 0 && errors + bare > 0 {
                format!("no test named: {what}")
            } else {
                what
            };
            let mut names: Vec<String> = checks
                .iter()
                .take(NAMED_CHECKS)
                .map(|c| format!("{} ({})", c.name, c.failures))
                .collect();
            // A cut list says so: the others' failures follow on the next pages.
            if checks.len() > NAMED_CHECKS {
                names.push(format!(
                    "{} more failed check{}, each named with its failures page by page",
                    checks.len() - NAMED_CHECKS,
                    plural(checks.len() - NAMED_CHECKS)
                ));
            }
            format!(
                "{what} in {} of {} check{}: {}{}",
                checks.len(),
                rollup.counts.total,
                plural(rollup.counts.total),
                names.join(", "),
                still
            )
        }
    }
}

/// How far CI is: checks done and failed, and the first few it is waiting on.
pub(super) fn progress_message(rollup: &Rollup<'_>) -> String {
    let done = rollup.counts.total - rollup.running.len() - rollup.queued.len();
    let mut m = format!(
        "{done} of {} checks done, {} failed",
        rollup.counts.total + rollup.missing_required.len(),
        rollup.failed.len()
    );
    let waiting: Vec<&str> = rollup
        .running
        .iter()
        .chain(rollup.queued.iter())
        .map(|c| c.name.as_str())
        .chain(rollup.missing_required.iter().map(String::as_str))
        .take(3)
        .collect();
    if !waiting.is_empty() {
        m.push_str(&format!("; waiting on {}", waiting.join(", ")));
        if rollup.active() > waiting.len() {
            m.push_str(&format!(" and {} more", rollup.active() - waiting.len()));
        }
    }
    m
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

fn minutes(seconds: u64) -> String {
    let m = seconds.div_ceil(60).max(1);
    format!("{m} min")
}

pub(super) fn poll_info(ctx: &Context, state: &CiState<'_>) -> PollInfo {
    let rollup = &state.rollup;
    let retry = ctx.ci.poll_max.as_secs().max(1);
    let what = match rollup.status {
        Status::Failed => "Some checks failed; others are still running",
        Status::Pending => "CI is queued",
        _ => "CI is still running",
    };
    let expected = state.estimate.as_ref().map(|e| {
        let left = e.done_at - unix_now();
        let history = format!(
            "its last {} successful run{} took {} (median)",
            e.runs,
            plural(e.runs),
            minutes(e.typical_seconds)
        );
        if left > 0 {
            format!(
                " Expected to finish in about {}: {history}.",
                minutes(left.unsigned_abs())
            )
        } else {
            format!(" Taking longer than usual: {history}.")
        }
    });
    PollInfo {
        message: format!(
            "{what} ({}).{} Call again in {retry} s, or with wait: true to wait here.",
            progress_message(rollup),
            expected.unwrap_or_default()
        ),
        estimated_completion: state.estimate.as_ref().and_then(|e| {
            chrono::DateTime::from_timestamp(e.done_at, 0)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        }),
        retry_after_seconds: retry,
        current_step: state
            .running_step
            .as_ref()
            .map(|s| format!("{}: {} (step {} of {})", s.check, s.step, s.number, s.steps)),
    }
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::get_failing_tests::fixtures::{check, failed, snapshot};
    use resolve_pr_forge::{CheckConclusion as C, CheckState as S};

    #[test]
    fn collection_errors_come_first_and_shared_errors_are_grouped() {
        let snap = snapshot(
            vec![
                check("unit", S::Completed, Some(C::Failure)),
                check("lint", S::Completed, Some(C::Failure)),
            ],
            Some(vec!["lint"]),
        );
        let view = Rollup::of(&snap);
        let all = vec![
            failed("t1", "unit", "assert 1 == 2", Some("AssertionError")),
            failed("t2", "unit", "KeyError: 'id'", Some("KeyError")),
            failed("t3", "unit", "KeyError: 'id'", Some("KeyError")),
            failed("t4", "lint", "x", None),
            failed(
                "tests/test_y.py",
                "unit",
                "ModuleNotFoundError: No module named 'yaml'",
                Some("ModuleNotFoundError"),
            ),
        ];
        let checks = vec![
            FailedCheck {
                name: "unit".into(),
                conclusion: "failure".into(),
                required: Some(false),
                details_url: None,
                failed_step: None,
                failed_step_script: None,
                log_command: None,
                failures: 4,
                note: None,
            },
            FailedCheck {
                name: "lint".into(),
                conclusion: "failure".into(),
                required: Some(true),
                details_url: None,
                failed_step: None,
                failed_step_script: None,
                log_command: None,
                failures: 1,
                note: None,
            },
        ];
        let ins = instructions(&view, &all, &FailureCounts::of(&all), &checks);
        let order: Vec<&str> = ins.priority.iter().map(|p| p.test.as_str()).collect();
        assert_eq!(order, ["tests/test_y.py", "t4", "t1", "t2"]);
        assert!(ins.priority[0].reason.contains("hides every test"));
        assert!(ins.priority[1].reason.contains("required"));
        assert_eq!(ins.priority[3].related_failures, ["t3"]);
        assert!(
            ins.priority[3]
                .reason
                .starts_with("2 tests fail with the same error")
        );
        assert_eq!(ins.commands[0], "pytest 'tests/test_y.py'");
        assert!(
            ins.summary.starts_with("5 failing tests in 2 of 2 checks"),
            "{}",
            ins.summary
        );
    }
}
