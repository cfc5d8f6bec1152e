//! Checks, snapshots and failures the unit tests are made of.

use resolve_pr_ci::{Confidence, Framework};
use resolve_pr_forge::{ActionsJobRef, Check, CheckConclusion, CheckKind, CheckState, CiSnapshot};
use resolve_pr_pr::ci_state::{self, TestFailure};

pub(super) fn check(name: &str, state: CheckState, conclusion: Option<CheckConclusion>) -> Check {
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

pub(super) fn snapshot(checks: Vec<Check>, required: Option<Vec<&str>>) -> CiSnapshot {
    CiSnapshot {
        head_sha: "0123456789abcdef".to_owned(),
        checks,
        required: match required {
            Some(names) => resolve_pr_forge::RequiredChecks::complete(
                names.into_iter().map(str::to_owned).collect(),
            ),
            None => resolve_pr_forge::RequiredChecks::unknown(Vec::new()),
        },
        unchanged: false,
    }
}

pub(super) fn failed(
    test: &str,
    check: &str,
    message: &str,
    error_type: Option<&str>,
) -> TestFailure {
    TestFailure {
        check_name: check.to_owned(),
        test_name: test.to_owned(),
        error_message: message.to_owned(),
        error_type: error_type.map(str::to_owned),
        stack_trace: None,
        file_path: Some("tests/test_x.py".to_owned()),
        line_number: Some(3),
        log_url: None,
        confidence: Confidence::High,
        framework: Some(Framework::Pytest),
        reproduce_command: Some(format!("pytest '{test}'")),
        step: None,
        source: ci_state::Source::Log,
    }
}
