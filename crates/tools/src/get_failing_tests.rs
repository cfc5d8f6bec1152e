//! `get_failing_tests` (seed 000 tool 1; seed 003's `FailedTest`, `CIInfo`,
//! `TestInstructions`, `PollInfo`; seed 004 decisions 5–7): the CI state of a PR's head
//! commit and the failing tests its logs name, with file, line, message and a command that
//! reproduces each.
//!
//! The answer is `resolve_pr_pr::ci_state` (the rollup of checks, what each failed check
//! says failed, the priority rules); this module maps it to seed 003's contract, pages the
//! failures with a keyset cursor, words the instructions (`instructions`) and waits when
//! asked (`wait`).

mod convert;
#[cfg(test)]
mod fixtures;
mod instructions;
mod paging;
mod wait;

use resolve_pr_ci::{Confidence, Framework};
use resolve_pr_core::Result;
use resolve_pr_pr::ci_state;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::registry::{Annotations, Tool};
use crate::shared::pr_from_ref;
use crate::shared::short;
use convert::{failed_checks, flaky_tests, required_checks_read};
use instructions::{instructions, poll_info};
use paging::{Position, failures_in_order, head_moved, page};

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
