//! The pr layer's CI answer mapped to the contract's types: the failed checks with the
//! command that prints each one's log, the branch rules not read, the flaky tests.

use resolve_pr_forge::{CheckState, Forge, Known, format_time};
use resolve_pr_pr::ci_state::{self, CiRun, CiState, FailureKind, PendingState, TestFailure};

use super::{
    CheckCounts, CiInfo, FailedCheck, FailedTest, FailureCounts, FlakyTest, PendingCheck,
    RequiredChecksRead, RequiredKnown, Source, Status, TestCategory, UnreadRuleSource,
};

/// The failed checks as the output lists them, with the command that prints each job's
/// failed log.
pub(super) fn failed_checks(
    forge: &dyn Forge,
    pr: &resolve_pr_core::PrRef,
    state: &CiState<'_>,
) -> Vec<FailedCheck> {
    let rollup = &state.rollup;
    rollup
        .failed
        .iter()
        .zip(&state.findings)
        .map(|(check, findings)| FailedCheck {
            name: check.name.clone(),
            conclusion: check
                .conclusion
                .map(|c| c.as_str().to_owned())
                .unwrap_or_else(|| "failure".to_owned()),
            required: rollup.is_required(&check.name),
            details_url: check.details_url.clone(),
            failed_step: findings.failed_step.clone(),
            failed_step_script: findings.failed_step_script.clone(),
            log_command: check.actions_job.as_ref().and_then(|job| {
                forge
                    .commands()
                    .job_log(&pr.repo, job)
                    .and_then(|command| command.render().ok())
            }),
            failures: findings.failures.len(),
            note: findings.note.clone(),
        })
        .collect()
}

/// What could not be read of the branch rules, when something could not.
pub(super) fn required_checks_read(rollup: &ci_state::Rollup<'_>) -> Option<RequiredChecksRead> {
    let known = match rollup.required_known() {
        Known::Complete => return None,
        Known::Partial => RequiredKnown::Partial,
        Known::Unknown => RequiredKnown::Unknown,
    };
    let unread = rollup
        .snapshot
        .required
        .unread
        .iter()
        .map(|u| UnreadRuleSource {
            source: u.source.clone(),
            reason: u.reason.clone(),
        })
        .collect();
    Some(RequiredChecksRead { known, unread })
}

/// Flaky tests shown at most.
const MAX_FLAKY: usize = 20;

/// The failed checks' tests that passed on a retry in their job, in check order.
pub(super) fn flaky_tests(state: &CiState<'_>) -> Vec<FlakyTest> {
    state
        .rollup
        .failed
        .iter()
        .zip(&state.findings)
        .flat_map(|(check, findings)| {
            findings.flaky.iter().map(|f| FlakyTest {
                check_name: check.name.clone(),
                test_name: f.test_name.clone(),
                attempts: f.attempts,
                failed_attempts: f.failed_attempts,
            })
        })
        .take(MAX_FLAKY)
        .collect()
}

impl From<ci_state::Status> for Status {
    fn from(status: ci_state::Status) -> Self {
        match status {
            ci_state::Status::Pending => Status::Pending,
            ci_state::Status::Running => Status::Running,
            ci_state::Status::Failed => Status::Failed,
            ci_state::Status::Passed => Status::Passed,
            ci_state::Status::Unknown => Status::Unknown,
        }
    }
}

impl From<ci_state::Source> for Source {
    fn from(source: ci_state::Source) -> Self {
        match source {
            ci_state::Source::Junit => Source::Junit,
            ci_state::Source::Log => Source::Log,
            ci_state::Source::Annotation => Source::Annotation,
            ci_state::Source::CheckOutput => Source::CheckOutput,
        }
    }
}

impl From<ci_state::TestCategory> for TestCategory {
    fn from(category: ci_state::TestCategory) -> Self {
        match category {
            ci_state::TestCategory::Unit => TestCategory::Unit,
            ci_state::TestCategory::Integration => TestCategory::Integration,
            ci_state::TestCategory::E2e => TestCategory::E2e,
        }
    }
}

impl From<&TestFailure> for FailedTest {
    fn from(f: &TestFailure) -> Self {
        FailedTest {
            check_name: f.check_name.clone(),
            test_name: f.test_name.clone(),
            error_message: f.error_message.clone(),
            error_type: f.error_type.clone(),
            stack_trace: f.stack_trace.clone(),
            file_path: f.file_path.clone(),
            line_number: f.line_number,
            log_url: f.log_url.clone().unwrap_or_default(),
            confidence: f.confidence,
            framework: f.framework,
            reproduce_command: f.reproduce_command.clone(),
            step: f.step.clone(),
            source: f.source.into(),
            test_category: f.category().map(TestCategory::from),
            flakiness_score: None,
        }
    }
}

impl FailureCounts {
    pub(super) fn of(all: &[TestFailure]) -> FailureCounts {
        let mut counts = FailureCounts::default();
        for f in all {
            match f.kind() {
                FailureKind::Check => counts.checks += 1,
                FailureKind::Error => counts.errors += 1,
                FailureKind::Test => counts.tests += 1,
            }
        }
        counts
    }
}

impl From<&ci_state::CheckCounts> for CheckCounts {
    fn from(c: &ci_state::CheckCounts) -> Self {
        CheckCounts {
            total: c.total,
            passed: c.passed,
            failed: c.failed,
            running: c.running,
            queued: c.queued,
            skipped: c.skipped,
            missing_required: c.missing_required,
        }
    }
}

impl From<ci_state::PendingCheck> for PendingCheck {
    fn from(p: ci_state::PendingCheck) -> Self {
        PendingCheck {
            name: p.name,
            state: match p.state {
                PendingState::InProgress => "in_progress",
                PendingState::Queued => "queued",
                PendingState::Expected => "expected",
            }
            .to_owned(),
            required: p.required,
        }
    }
}

impl From<&CiRun> for CiInfo {
    fn from(run: &CiRun) -> Self {
        CiInfo {
            workflow_name: run.workflow_name.clone(),
            run_id: run.run_id,
            run_url: run.run_url.clone().unwrap_or_default(),
            started_at: run.started_at.as_ref().map(format_time),
            completed_at: run.completed_at.as_ref().map(format_time),
            duration_seconds: run.duration_seconds,
            status: match run.state {
                CheckState::Queued => "queued",
                CheckState::InProgress => "in_progress",
                CheckState::Completed => "completed",
            }
            .to_owned(),
            conclusion: run.conclusion.map(|c| c.as_str().to_owned()),
        }
    }
}
