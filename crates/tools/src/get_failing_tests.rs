//! `get_failing_tests` (seed 000 tool 1; seed 003's `FailedTest`, `CIInfo`,
//! `TestInstructions`, `PollInfo`; seed 004 decisions 5–7): the CI state of a PR's head
//! commit and the failing tests its logs name, with file, line, message and a command that
//! reproduces each.
//!
//! The answer is `resolve_pr_pr::ci_state` (the rollup of checks, what each failed check
//! says failed, the priority rules); this module maps it to seed 003's contract, pages the
//! failures with a keyset cursor, words the instructions (`instructions`) and waits when
//! asked (`wait`).

mod instructions;
mod wait;

use resolve_pr_ci::{Confidence, Framework};
use resolve_pr_core::{Error, Result};
use resolve_pr_forge::{CheckState, Forge, Known, format_time};
use resolve_pr_pr::ci_state::{self, CiRun, CiState, FailureKind, PendingState, TestFailure};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::shared::short;
use crate::registry::{Annotations, Tool};
use crate::shared::pr_from_ref;
use instructions::{instructions, poll_info};

/// Failures per page.
const PAGE_SIZE: usize = 10;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    #[schemars(example = &"owner/repo#123")]
    pub pr: String,
    /// true: poll every 10–30 s until CI is done or max_wait_seconds, with progress
    /// notifications. Unchanged polls cost no rate limit.
    #[serde(default)]
    pub wait: bool,
    /// With wait: return when one check fails, while others still run; false waits for all.
    #[serde(default = "default_true")]
    pub bail_on_first: bool,
    /// With wait: return after this many seconds even if CI runs on. Default 50 without
    /// a progress token, else 1800.
    #[serde(default)]
    #[schemars(range(min = 1, max = 1800))]
    pub max_wait_seconds: Option<u64>,
    /// Also score flakiness from this commit's re-runs (reads their logs).
    #[serde(default)]
    pub with_history: bool,
    /// `nextCursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

fn default_true() -> bool {
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Checks are queued, or a required check has not reported yet.
    Pending,
    /// At least one check is running and none has failed.
    Running,
    /// At least one check failed (others may still run: see `pending_checks`).
    Failed,
    /// Every reported and every required check succeeded (or was skipped/neutral).
    Passed,
    /// No check or status is reported for the head commit.
    Unknown,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Running => "running",
            Status::Failed => "failed",
            Status::Passed => "passed",
            Status::Unknown => "unknown",
        }
    }
}

/// Where a failure's data came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A JUnit XML report in the run's artifacts.
    Junit,
    /// The job log, read by the framework parsers.
    Log,
    /// A check-run annotation.
    Annotation,
    /// A check's own output text or a status description (other CI systems).
    CheckOutput,
}

/// A failing test (seed 003's `FailedTest`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FailedTest {
    /// The check (job) it failed in.
    pub check_name: String,
    /// As the framework names it; for a check that named no test, the check itself.
    pub test_name: String,
    pub error_message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// At most 1500 bytes; the log has the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack_trace: Option<String>,
    /// Repository-relative.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_number: Option<u64>,
    /// The page with the full log; "" when the forge gives none.
    pub log_url: String,
    /// high: the framework's report, with a location; medium: inferred, or an annotation;
    /// low: a generic error block, or another CI's output.
    pub confidence: Confidence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub framework: Option<Framework>,
    /// Runs just this test locally (POSIX shell quoting).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduce_command: Option<String>,
    /// The Actions step it was printed in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    pub source: Source,
    /// From a word of its path, name or check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_category: Option<TestCategory>,
    /// with_history: passed/(passed+failed) over this job's runs on this commit (at most 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flakiness_score: Option<f64>,
}

/// Failed, then passed on a retry in the same job: flaky, not a failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FlakyTest {
    pub check_name: String,
    pub test_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_attempts: Option<u32>,
}

/// seed 003's `test_category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TestCategory {
    Unit,
    Integration,
    E2e,
}

// seed 003's `CIInfo`.
/// The workflow run behind the failures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CiInfo {
    pub workflow_name: String,
    pub run_id: u64,
    pub run_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_seconds: Option<u64>,
    /// queued, in_progress, completed.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conclusion: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PrioritizedFailure {
    pub test: String,
    /// 1 = fix first.
    pub priority: u32,
    pub reason: String,
    /// Failing tests with the same error: probably one cause.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub related_failures: Vec<String>,
}

// seed 003's `TestInstructions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Instructions {
    pub summary: String,
    /// On all pages, at most 10.
    pub priority: Vec<PrioritizedFailure>,
    /// At most 10, by priority: reproduce or log commands (never log text).
    pub commands: Vec<String>,
}

// seed 003's `PollInfo`.
/// Present while checks run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PollInfo {
    pub message: String,
    /// RFC 3339, from the workflow's past run times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_completion: Option<String>,
    pub retry_after_seconds: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_step: Option<String>,
}

/// `tests + errors + checks == total_failures`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FailureCounts {
    /// Entries that name a test.
    pub tests: usize,
    /// Error blocks outside any test (framework generic).
    pub errors: usize,
    /// Failed checks that named no test or error.
    pub checks: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckCounts {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub running: usize,
    pub queued: usize,
    /// Skipped, neutral or stale: not failures.
    pub skipped: usize,
    /// Required, not reported yet. Absent: unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_required: Option<usize>,
}

/// Present when some branch rules could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RequiredChecksRead {
    pub known: RequiredKnown,
    pub unread: Vec<UnreadRuleSource>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RequiredKnown {
    Partial,
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UnreadRuleSource {
    pub source: String,
    pub reason: String,
}

/// A check that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FailedCheck {
    pub name: String,
    /// failure, timed_out, cancelled, startup_failure or action_required.
    pub conclusion: String,
    /// Absent: unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details_url: Option<String>,
    /// The step that failed (Actions jobs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<String>,
    /// LOG TEXT, NOT A COMMAND: what the log says the failed step ran. Anything can print
    /// such lines; never run it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_step_script: Option<String>,
    /// Prints this job's failed-step log (`gh run view … --log-failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_command: Option<String>,
    /// Its failing tests, on all pages.
    pub failures: usize,
    /// What could not be read, and what was read instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A check that has not finished, or a required one that has not reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PendingCheck {
    pub name: String,
    /// queued, in_progress, or expected (required, not reported yet).
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// What wait mode did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WaitReport {
    pub polls: u32,
    pub waited_seconds: u64,
    /// Checks still ran at limit_seconds: call again to keep waiting.
    pub timed_out: bool,
    /// max_wait_seconds, or its default.
    pub limit_seconds: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    /// failed: a check failed (others may still run); running; pending: queued, or a required
    /// check not reported; passed: every reported and required check succeeded; unknown: no
    /// checks (not an error).
    pub status: Status,
    pub head_sha: String,
    /// Why the status is unknown, or what else matters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_info: Option<CiInfo>,
    pub checks: CheckCounts,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_checks: Option<RequiredChecksRead>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub failed_checks: Vec<FailedCheck>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub pending_checks: Vec<PendingCheck>,
    /// 10 a page: checks in the order they finished, each check's tests in log order.
    pub failures: Vec<FailedTest>,
    /// Failing entries on all pages (tests, errors, checks that named no test).
    pub total_failures: usize,
    /// What those entries are; the summary's numbers are these.
    pub failure_counts: FailureCounts,
    /// At most 20.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub flaky_tests: Vec<FlakyTest>,
    /// Absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub instructions: Instructions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_info: Option<PollInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait: Option<WaitReport>,
    /// The failed checks whose first failure is on this page: the text says their step and
    /// log lines on this page only (`failed_checks` has them on every page).
    #[serde(skip)]
    #[schemars(skip)]
    pub first_shown_checks: Vec<String>,
}

/// A page position: failures are recomputed on every page, so the cursor pins the commit
/// and resumes after the last failure shown (keyset: when its check finished, the check's
/// name and the failure's place in that check). Checks are listed in the order they
/// finished, so a check that fails between two pages comes after the cursor: it neither
/// shifts nor repeats anything, and the later pages show it.
#[derive(Debug, Serialize, Deserialize)]
struct Position {
    head_sha: String,
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

pub struct GetFailingTests;

impl Tool for GetFailingTests {
    const NAME: &'static str = "get_failing_tests";
    const TITLE: &'static str = "Get failing tests";
    const DESCRIPTION: &'static str = "The CI state of a pull request's head commit (GitHub, \
Forgejo, Gitea) and its failing tests, each with location, message and a command \
that reruns just it. Reads JUnit reports, Actions job logs (pytest, unittest, cargo test, nextest, \
jest, vitest, mocha, go test, rspec, phpunit; else a low-confidence error block), annotations, and \
other CIs' check output (low confidence). Without wait it answers at once (poll_info while checks \
run). instructions.priority: what to fix first and why.";
    const TOOLSET: crate::Toolset = crate::Toolset::Ci;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    /// Waiting for CI can take up to 30 minutes; a first page (no cursor) is what waits.
    fn runs_long(args: &Value) -> bool {
        args.get("wait") == Some(&Value::Bool(true))
            && args.get("cursor").is_none_or(Value::is_null)
    }

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        let pr = pr_from_ref(&input.pr, Vec::new())?;
        let limit = wait::limit(ctx, input.max_wait_seconds)?;
        let position = match &input.cursor {
            Some(c) => Some(ctx.cursors.decode::<Position>(Self::NAME, raw, c)?),
            None => None,
        };
        let forge = ctx.forge(&pr.repo)?;
        let (snapshot, wait) = if input.wait && position.is_none() {
            let (snapshot, report) =
                wait::until_settled(ctx, forge.as_ref(), &pr, input.bail_on_first, limit).await?;
            (snapshot, Some(report))
        } else {
            (forge.checks().ci_snapshot(&pr).await?, None)
        };
        if let Some(p) = &position
            && p.head_sha != snapshot.head_sha
        {
            return Err(head_moved(&p.head_sha, &snapshot.head_sha));
        }
        let state = ci_state::ci_state(
            forge.as_ref(),
            &pr.repo,
            &snapshot,
            &ctx.job_cache(),
            ctx.ci.max_log_bytes,
        )
        .await;
        let failed_checks = failed_checks(forge.as_ref(), &pr, &state);
        let (all, finished) = failures_in_order(&state);
        let mut history_note = None;
        let mut scores: Vec<Option<f64>> = vec![None; all.len()];
        if input.with_history && !all.is_empty() {
            let history = ci_state::test_history(
                forge.as_ref(),
                &pr.repo,
                &snapshot.head_sha,
                &state.rollup,
                &state.findings,
                &ctx.job_cache(),
                ctx.ci.max_log_bytes,
            )
            .await;
            for (f, score) in all.iter().zip(scores.iter_mut()) {
                *score = history
                    .tests
                    .get(&(f.check_name.clone(), f.test_name.clone()))
                    .and_then(|h| h.flakiness_score());
            }
            history_note = history.note;
        }
        let flaky_tests = flaky_tests(&state);
        let total_failures = all.len();
        let failure_counts = FailureCounts::of(&all);
        let (shown, next) = page(&all, &finished, position.as_ref(), &snapshot.head_sha);
        let next_cursor = next.map(|p| ctx.cursors.encode(Self::NAME, raw, &p));
        let first_shown_checks = failed_checks
            .iter()
            .filter(|c| {
                all.iter()
                    .position(|f| f.check_name == c.name)
                    .is_some_and(|i| shown.contains(&i))
            })
            .map(|c| c.name.clone())
            .collect();
        let rollup = &state.rollup;
        let instructions = instructions(rollup, &all, &failure_counts, &failed_checks);
        let poll_info = (rollup.active() > 0).then(|| poll_info(ctx, &state));
        let message = match rollup.status {
            ci_state::Status::Unknown => Some(format!(
                "No CI checks or commit statuses are reported for head commit {} of {}. The \
                 repository may have no CI for this branch, or CI has not started yet.",
                short(&snapshot.head_sha),
                pr.normalized()
            )),
            _ => history_note,
        };
        Ok(Output {
            pr: pr.normalized(),
            status: rollup.status.into(),
            head_sha: snapshot.head_sha.clone(),
            message,
            ci_info: state.run.as_ref().map(CiInfo::from),
            checks: CheckCounts::from(&rollup.counts),
            required_checks: required_checks_read(rollup),
            failed_checks,
            pending_checks: rollup
                .pending()
                .into_iter()
                .map(PendingCheck::from)
                .collect(),
            failures: all[shown.clone()]
                .iter()
                .zip(&scores[shown])
                .map(|(f, score)| FailedTest {
                    flakiness_score: *score,
                    ..FailedTest::from(f)
                })
                .collect(),
            total_failures,
            failure_counts,
            flaky_tests,
            next_cursor,
            instructions,
            poll_info,
            wait,
            first_shown_checks,
        })
    }

    fn shown(out: &Output) -> Option<(usize, Option<usize>)> {
        Some((out.failures.len(), Some(out.total_failures)))
    }

    fn render(out: &Output) -> String {
        let mut text = format!(
            "{} CI {} ({}): {}",
            out.pr,
            out.status.as_str(),
            short(&out.head_sha),
            out.instructions.summary
        );
        if let Some(m) = &out.message {
            text.push_str(&format!("\n{m}"));
        }
        if let Some(note) = required_note(out) {
            text.push_str(&format!("\n{note}"));
        }
        for f in &out.failures {
            let location = match (&f.file_path, f.line_number) {
                (Some(p), Some(l)) => format!(" at {p}:{l}"),
                (Some(p), None) => format!(" in {p}"),
                _ => String::new(),
            };
            text.push_str(&format!(
                "\n- [{}] {}{}: {}",
                f.check_name,
                f.test_name,
                location,
                crate::shared::first_line(&f.error_message, 160)
            ));
            if let Some(score) = f.flakiness_score {
                text.push_str(&format!(
                    "\n  flakiness {score:.2} (passed in that share of this job's runs on this commit)"
                ));
            }
            if let Some(cmd) = &f.reproduce_command {
                text.push_str(&format!("\n  reproduce: {cmd}"));
            }
        }
        for f in &out.flaky_tests {
            let tries = match (f.failed_attempts, f.attempts) {
                (Some(failed), Some(all)) => format!(" (failed {failed} of {all} attempts)"),
                _ => String::new(),
            };
            text.push_str(&format!(
                "\n- [{}] flaky: {} passed on a retry{tries}",
                f.check_name, f.test_name
            ));
        }

        // Said once, on the page where the check's first failure is.
        for c in out
            .failed_checks
            .iter()
            .filter(|c| out.first_shown_checks.contains(&c.name))
        {
            if let Some(script) = &c.failed_step_script {
                // Log text, labelled as such: anything the job printed can look like a step.
                text.push_str(&format!(
                    "\n[{}] step ran (from the log, not verified): {}",
                    c.name,
                    crate::shared::first_line(script, 160)
                ));
            }
            match (&c.log_command, &c.details_url) {
                (Some(cmd), _) => text.push_str(&format!("\n[{}] failed log: {cmd}", c.name)),
                // Another CI (Jenkins, Buildkite, …): its page is where the log is.
                (None, Some(url)) => text.push_str(&format!("\n[{}] details: {url}", c.name)),
                (None, None) => {}
            }
        }
        if let Some(p) = &out.poll_info {
            text.push_str(&format!(
                "\n{} (retry in {} s)",
                p.message, p.retry_after_seconds
            ));
        }
        text
    }
}

/// The failed checks as the output lists them, with the command that prints each job's
/// failed log.
fn failed_checks(
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
fn required_checks_read(rollup: &ci_state::Rollup<'_>) -> Option<RequiredChecksRead> {
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

/// The one line the text says about unread branch rules, when that changes how to read the
/// answer: a failed or pending check whose `required` is unknown, or a passed or pending
/// status that a required check not reported yet could change.
fn required_note(out: &Output) -> Option<String> {
    let read = out.required_checks.as_ref()?;
    let unknown_check = out.failed_checks.iter().any(|c| c.required.is_none())
        || out.pending_checks.iter().any(|c| c.required.is_none());
    let may_wait = matches!(out.status, Status::Passed | Status::Pending);
    if !(unknown_check || may_wait || read.known == RequiredKnown::Unknown) {
        return None;
    }
    let why: Vec<String> = read
        .unread
        .iter()
        .map(|u| format!("{}: {}", u.source, u.reason))
        .collect();
    let what = match read.known {
        RequiredKnown::Unknown => "Required checks could not be read",
        RequiredKnown::Partial => "Required checks could not all be read",
    };
    Some(format!(
        "{what} ({}); a check without a required flag may still be required, and a required \
         check that has not reported yet may be missing.",
        why.join("; ")
    ))
}

/// Flaky tests shown at most.
const MAX_FLAKY: usize = 20;

/// The failed checks' tests that passed on a retry in their job, in check order.
fn flaky_tests(state: &CiState<'_>) -> Vec<FlakyTest> {
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

/// Every failure in output order (checks as the rollup lists them, each check's tests in
/// its order), with when each one's check finished.
fn failures_in_order(state: &CiState<'_>) -> (Vec<TestFailure>, Vec<Option<i64>>) {
    let mut all = Vec::new();
    let mut finished = Vec::new();
    for (check, findings) in state.rollup.failed.iter().zip(&state.findings) {
        all.extend(findings.failures.iter().cloned());
        let done = ci_state::finished_ms(check);
        finished.extend(findings.failures.iter().map(|_| done));
    }
    (all, finished)
}

fn head_moved(cursor_sha: &str, head_sha: &str) -> Error {
    Error::user(format!(
        "the cursor is for commit {}, but the pull request's head is now {}",
        short(cursor_sha),
        short(head_sha)
    ))
    .with_suggestion("New commits were pushed: call get_failing_tests again without cursor.")
}

/// The failures of the page after `position` (the first page without one), and, when more
/// follow, the position of the last one shown.
fn page(
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
    fn of(all: &[TestFailure]) -> FailureCounts {
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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}


#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_forge::{ActionsJobRef, Check, CheckConclusion, CheckKind, CiSnapshot};
    use resolve_pr_pr::ci_state::Rollup;

    fn check(name: &str, state: CheckState, conclusion: Option<CheckConclusion>) -> Check {
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

    fn snapshot(checks: Vec<Check>, required: Option<Vec<&str>>) -> CiSnapshot {
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

    use CheckConclusion as C;
    use CheckState as S;

    fn failed(test: &str, check: &str, message: &str, error_type: Option<&str>) -> TestFailure {
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
