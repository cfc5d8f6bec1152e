//! `get_failing_tests` (seed 000 tool 1; seed 003's `FailedTest`, `CIInfo`,
//! `TestInstructions`, `PollInfo`; seed 004 decisions 5–7): the CI state of a PR's head
//! commit and the failing tests its logs name, with file, line, message and a command that
//! reproduces each.
//!
//! Where failures come from, best first, per failed check:
//! 1. JUnit XML in the workflow run's artifacts (`high`: the test tool's own report).
//! 2. The Actions job log, streamed through the `ci` crate's scanner (its parsers' confidence),
//!    with the failed step from the job's steps and check-run annotations filling in
//!    locations.
//! 3. Annotations alone, when the log named no test (`medium`).
//! 4. Other CI systems (third-party check runs, commit statuses): their output text is
//!    scanned too, and otherwise the check itself is reported, always `low`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::StreamExt;
use resolve_pr_ci::{Confidence, Failure, Framework, Scanner};
use resolve_pr_core::{Error, PrRef, RepoRef, Result, budget};
use resolve_pr_forge::{Annotation, Check, CheckKind, CheckState, CiSnapshot, Forge, WorkflowRun};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::junit_jobs::{JobEvidence, ReportFile};
use crate::registry::{Annotations, Tool};
use crate::shared::pr_from_ref;

/// Failures per page.
const PAGE_SIZE: usize = 10;
/// Stack traces in the output are cut to this many bytes (the log has the rest).
const TRACE_BUDGET: usize = 1500;
/// Messages are cut to this many bytes.
const MESSAGE_BUDGET: usize = 2000;
/// Artifacts larger than this are not downloaded for JUnit reports.
const MAX_ARTIFACT_BYTES: u64 = 50 * 1024 * 1024;
/// Failed checks whose evidence is fetched at once.
const CONCURRENT_CHECKS: usize = 4;
/// Log steps, and bytes of each title or script, kept to match JUnit reports to jobs.
const EVIDENCE_STEPS: usize = 100;
const EVIDENCE_TEXT: usize = 500;
/// Entries in `instructions.priority`, and commands in `instructions.commands`.
const MAX_PRIORITY: usize = 10;

/// Per-process memory of finished work: a completed job's findings by job id, and the JUnit
/// reports of a run whose checks have all finished, by run id. Neither can change.
#[derive(Default, Clone)]
pub(crate) struct JobCache {
    jobs: Memo<Arc<Findings>>,
    junit: Memo<Arc<Vec<ReportFile>>>,
}

/// Values by a key naming the forge, the repository, the run or job, and when it finished
/// (see [`job_key`]).
type Memo<V> = Arc<Mutex<HashMap<String, V>>>;

const NO_FRAMEWORK_OUTPUT: &str = "no test framework output was recognized in the log";

/// Entries a cache keeps before starting over (a long-running server sees many PRs).
const CACHE_ENTRIES: usize = 256;

fn remember<V>(map: &Mutex<HashMap<String, V>>, key: String, value: V) {
    if let Ok(mut map) = map.lock() {
        if map.len() >= CACHE_ENTRIES {
            map.clear();
        }
        map.insert(key, value);
    }
}

/// What identifies a finished job's log: the forge (a short `owner/repo` is the default
/// forge), the repository, the run and job (on Forgejo/Gitea these are indexes, unique only
/// together), and when the check finished (a re-run finishes again).
fn job_key(repo: &RepoRef, check: &Check, job: &resolve_pr_forge::ActionsJobRef) -> String {
    format!(
        "{}/{}|run {}|job {}|{}",
        repo.web_base.as_deref().unwrap_or("default"),
        repo.full_name(),
        job.run_id,
        job.job_id,
        check.completed_at.as_deref().unwrap_or("")
    )
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Also "owner/repo/pull/123", "host/owner/repo#123" or the pull request's URL.
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
    /// From a word of the test's path, name or check (`tests/integration/…`, `e2e/…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_category: Option<TestCategory>,
}

/// seed 003's `test_category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TestCategory {
    Unit,
    Integration,
    E2e,
}

impl TestCategory {
    /// The first word of `text` (split at anything not a letter or digit) that names a
    /// category: the outermost directory decides, `tests/unit/test_integration_x.py` is unit.
    fn in_text(text: &str) -> Option<TestCategory> {
        text.split(|c: char| !c.is_ascii_alphanumeric())
            .find_map(|word| match word.to_ascii_lowercase().as_str() {
                "e2e" | "endtoend" | "playwright" | "cypress" | "selenium" => {
                    Some(TestCategory::E2e)
                }
                "integration" | "integrations" => Some(TestCategory::Integration),
                "unit" | "units" | "unittests" => Some(TestCategory::Unit),
                _ => None,
            })
    }

    /// The test's path says it, else its name, else its check's name.
    fn of(f: &FailedTest) -> Option<TestCategory> {
        [
            f.file_path.as_deref(),
            Some(f.test_name.as_str()),
            Some(f.check_name.as_str()),
        ]
        .into_iter()
        .flatten()
        .find_map(Self::in_text)
    }
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
    /// RFC 3339: each run's start plus the median of its workflow's last successful runs
    /// (GitHub Actions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_completion: Option<String>,
    pub retry_after_seconds: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_step: Option<String>,
}

/// What the failing entries are, counted once for the structured answer and the summary:
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

impl FailureCounts {
    fn of(all: &[FailedTest]) -> FailureCounts {
        let mut counts = FailureCounts::default();
        for f in all {
            if f.source == Source::CheckOutput && f.test_name == f.check_name {
                counts.checks += 1;
            } else if f.framework == Some(Framework::Generic) {
                counts.errors += 1;
            } else {
                counts.tests += 1;
            }
        }
        counts
    }
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
    /// Required by a branch rule, not reported yet.
    pub missing_required: usize,
}

/// A check that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FailedCheck {
    pub name: String,
    /// failure, timed_out, cancelled, startup_failure or action_required.
    pub conclusion: String,
    pub required: bool,
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
    pub required: bool,
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
    /// Why the status is unknown, or what else matters about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_info: Option<CiInfo>,
    pub checks: CheckCounts,
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
    /// Absent on the last page.
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub instructions: Instructions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub poll_info: Option<PollInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait: Option<WaitReport>,
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
GitHub Enterprise, Forgejo or Gitea) and the failing tests its checks report, each with location, \
message and a command that reruns just that test. Reads JUnit reports, GitHub Actions job logs \
(pytest, unittest, cargo test, nextest, jest, vitest, mocha, go test, rspec, phpunit; other output \
as a low-confidence error block) and check annotations; other CI systems give their check output, \
low confidence. Without wait it answers at once, with poll_info while checks run. \
instructions.priority says what to fix first and why: collection, import and build errors hide the \
tests behind them.";
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
        let limit = wait_limit(ctx, input.max_wait_seconds)?;
        let position = match &input.cursor {
            Some(c) => Some(ctx.cursors.decode::<Position>(Self::NAME, raw, c)?),
            None => None,
        };
        let forge = ctx.forges.for_repo(&pr.repo)?;
        let (snapshot, wait) = if input.wait && position.is_none() {
            let (snapshot, report) =
                wait_for(ctx, forge.as_ref(), &pr, input.bail_on_first, limit).await?;
            (snapshot, Some(report))
        } else {
            (forge.ci_snapshot(&pr).await?, None)
        };
        if let Some(p) = &position
            && p.head_sha != snapshot.head_sha
        {
            return Err(Error::user(format!(
                "the cursor is for commit {}, but the pull request's head is now {}",
                short(&p.head_sha),
                short(&snapshot.head_sha)
            ))
            .with_suggestion(
                "New commits were pushed: call get_failing_tests again without cursor.",
            ));
        }
        let view = View::of(&snapshot);
        let (checks_found, (ci_info, estimate), current_step) = tokio::join!(
            collect_failures(ctx, forge.as_ref(), &pr.repo, &view),
            runs_info(forge.as_ref(), &pr.repo, &view),
            current_step(forge.as_ref(), &pr.repo, &view),
        );
        let mut failed_checks = Vec::new();
        let mut all = Vec::new();
        let mut finished = Vec::new();
        for (check, findings) in view.failed.iter().zip(checks_found) {
            failed_checks.push(FailedCheck {
                name: check.name.clone(),
                conclusion: check
                    .conclusion
                    .map(|c| c.as_str().to_owned())
                    .unwrap_or_else(|| "failure".to_owned()),
                required: view.is_required(&check.name),
                details_url: check.details_url.clone(),
                failed_step: findings.failed_step.clone(),
                failed_step_script: findings.failed_step_script.clone(),
                log_command: check.actions_job.as_ref().and_then(|job| {
                    crate::action_commands::github_job_log(
                        ctx.forges.config(),
                        forge.kind(),
                        &pr.repo,
                        job,
                    )
                }),
                failures: findings.failures.len(),
                note: findings.note.clone(),
            });
            all.extend(findings.failures.iter().cloned());
            let done = finished_ms(check);
            finished.extend(findings.failures.iter().map(|_| done));
        }
        for f in &mut all {
            f.test_category = TestCategory::of(f);
        }
        let total_failures = all.len();
        let failure_counts = FailureCounts::of(&all);
        let keys = keys_of(&all, &finished);
        let start = position.as_ref().map_or(0, |p| resume_at(&all, &keys, p));
        let end = (start + PAGE_SIZE).min(total_failures);
        let next_cursor = (end < total_failures).then(|| {
            let key = keys[end - 1];
            ctx.cursors.encode(
                Self::NAME,
                raw,
                &Position {
                    head_sha: snapshot.head_sha.clone(),
                    finished: key.finished,
                    check: key.check.to_owned(),
                    ordinal: key.ordinal,
                    test: all[end - 1].test_name.clone(),
                },
            )
        });
        let page = all[start..end].to_vec();
        let instructions = instructions(&view, &all, &failure_counts, &failed_checks);
        let poll_info = (view.active() > 0).then(|| poll_info(ctx, &view, current_step, estimate));
        let message = match view.status {
            Status::Unknown => Some(format!(
                "No CI checks or commit statuses are reported for head commit {} of {}. The \
                 repository may have no CI for this branch, or CI has not started yet.",
                short(&snapshot.head_sha),
                pr.normalized()
            )),
            _ => None,
        };
        Ok(Output {
            pr: pr.normalized(),
            status: view.status,
            head_sha: snapshot.head_sha.clone(),
            message,
            ci_info,
            checks: view.counts.clone(),
            failed_checks,
            pending_checks: view.pending(),
            failures: page,
            total_failures,
            failure_counts,
            next_cursor,
            instructions,
            poll_info,
            wait,
        })
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
            if let Some(cmd) = &f.reproduce_command {
                text.push_str(&format!("\n  reproduce: {cmd}"));
            }
        }
        for c in &out.failed_checks {
            if let Some(script) = &c.failed_step_script {
                // Log text, labelled as such: anything the job printed can look like a step.
                text.push_str(&format!(
                    "\n[{}] step ran (from the log, not verified): {}",
                    c.name,
                    crate::shared::first_line(script, 160)
                ));
            }
            if let Some(cmd) = &c.log_command {
                text.push_str(&format!("\n[{}] failed log: {cmd}", c.name));
            }
        }
        if let Some(p) = &out.poll_info {
            text.push_str(&format!(
                "\n{} (retry in {} s)",
                p.message, p.retry_after_seconds
            ));
        }
        if out.next_cursor.is_some() {
            text.push_str(&format!(
                "\n(showing {} of {} failures: call again with nextCursor for more)",
                out.failures.len(),
                out.total_failures
            ));
        }
        text
    }
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
fn keys_of<'a>(all: &'a [FailedTest], finished: &[Option<i64>]) -> Vec<Key<'a>> {
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
fn resume_at(all: &[FailedTest], keys: &[Key<'_>], p: &Position) -> usize {
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

/// The snapshot sorted into what the tool reports.
struct View<'a> {
    snapshot: &'a CiSnapshot,
    status: Status,
    counts: CheckCounts,
    failed: Vec<&'a Check>,
    running: Vec<&'a Check>,
    queued: Vec<&'a Check>,
    missing_required: Vec<String>,
    required: HashSet<&'a str>,
}

impl<'a> View<'a> {
    fn of(snapshot: &'a CiSnapshot) -> View<'a> {
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
                (CheckState::Completed, Some(resolve_pr_forge::CheckConclusion::Success)) => {
                    counts.passed += 1
                }
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
        // checks fail (see `Key`).
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
        View {
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

    fn is_required(&self, name: &str) -> bool {
        self.required.contains(name)
    }

    /// Checks that have not finished (including required ones not reported yet).
    fn active(&self) -> usize {
        self.running.len() + self.queued.len() + self.missing_required.len()
    }

    fn pending(&self) -> Vec<PendingCheck> {
        let mut out: Vec<PendingCheck> = self
            .running
            .iter()
            .map(|c| (c, "in_progress"))
            .chain(self.queued.iter().map(|c| (c, "queued")))
            .map(|(c, state)| PendingCheck {
                name: c.name.clone(),
                state: state.to_owned(),
                required: self.is_required(&c.name),
            })
            .collect();
        out.extend(self.missing_required.iter().map(|name| PendingCheck {
            name: name.clone(),
            state: "expected".to_owned(),
            required: true,
        }));
        out
    }

    fn progress_message(&self) -> String {
        let done = self.counts.total - self.running.len() - self.queued.len();
        let mut m = format!(
            "{done} of {} checks done, {} failed",
            self.counts.total + self.missing_required.len(),
            self.failed.len()
        );
        let waiting: Vec<&str> = self
            .running
            .iter()
            .chain(self.queued.iter())
            .map(|c| c.name.as_str())
            .chain(self.missing_required.iter().map(String::as_str))
            .take(3)
            .collect();
        if !waiting.is_empty() {
            m.push_str(&format!("; waiting on {}", waiting.join(", ")));
            if self.active() > waiting.len() {
                m.push_str(&format!(" and {} more", self.active() - waiting.len()));
            }
        }
        m
    }
}

/// How long one call may wait: what the caller asked (1-1800 s), else 30 minutes for a
/// client that hears progress and less than a minute for one that does not; never more
/// than the configured cap.
fn wait_limit(ctx: &Context, asked: Option<u64>) -> Result<std::time::Duration> {
    let limit = match asked {
        Some(secs @ 1..=1800) => std::time::Duration::from_secs(secs),
        Some(secs) => {
            return Err(Error::user(format!(
                "max_wait_seconds is {secs}, but it must be between 1 and 1800"
            ))
            .with_detail("field", "max_wait_seconds")
            .with_suggestion("Pass a number of seconds from 1 to 1800, e.g. 50, or omit it."));
        }
        None if ctx.progress.is_some() => ctx.ci.wait_cap,
        None => ctx.ci.wait_without_progress,
    };
    Ok(limit.min(ctx.ci.wait_cap))
}

/// Wait mode: polls until the answer is final (or the first failure, with `bail_on_first`),
/// `limit`, or cancellation (the caller drops this future). The last pause is cut short so
/// the last poll happens at the limit, not a pause before it.
async fn wait_for(
    ctx: &Context,
    forge: &dyn Forge,
    pr: &PrRef,
    bail_on_first: bool,
    limit: std::time::Duration,
) -> Result<(CiSnapshot, WaitReport)> {
    let started = Instant::now();
    let settings = &ctx.ci;
    let mut pause = settings.poll_min;
    let mut polls = 0u32;
    loop {
        let snapshot = forge.ci_snapshot(pr).await?;
        polls += 1;
        let view = View::of(&snapshot);
        let elapsed = started.elapsed();
        let done = match view.status {
            Status::Passed => true,
            Status::Failed => bail_on_first || view.active() == 0,
            Status::Unknown => elapsed >= settings.no_checks_grace,
            Status::Pending | Status::Running => false,
        };
        let left = limit.saturating_sub(elapsed);
        // Less than a tenth of a pause left is not worth another poll.
        let timed_out =
            !done && left < settings.poll_min / 10 + std::time::Duration::from_millis(1);
        if done || timed_out {
            return Ok((
                snapshot,
                WaitReport {
                    polls,
                    waited_seconds: elapsed.as_secs(),
                    timed_out,
                    limit_seconds: limit.as_secs() + u64::from(limit.subsec_nanos() > 0),
                },
            ));
        }
        let pause_now = pause.min(left);
        let message = match view.status {
            Status::Unknown => "no checks reported yet".to_owned(),
            _ => view.progress_message(),
        };
        ctx.report_progress(
            f64::from(polls),
            None,
            format!(
                "{message} (poll {polls}, next in {} s)",
                pause_now.as_secs()
            ),
        )
        .await;
        tokio::time::sleep(pause_now).await;
        pause = (pause + pause / 2).min(settings.poll_max);
    }
}

/// What the tool found for one failed check.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    failures: Vec<FailedTest>,
    failed_step: Option<String>,
    /// Log text, never a command (see `FailedCheck::failed_step_script`).
    failed_step_script: Option<String>,
    note: Option<String>,
    /// What the job says about itself, to tell which of its run's JUnit reports are its own.
    evidence: JobEvidence,
}

async fn collect_failures(
    ctx: &Context,
    forge: &dyn Forge,
    repo: &RepoRef,
    view: &View<'_>,
) -> Vec<Arc<Findings>> {
    // JUnit reports are per workflow run: fetched once per run with a failed job.
    let mut runs: BTreeMap<u64, Vec<&Check>> = BTreeMap::new();
    for check in &view.failed {
        if let Some(job) = &check.actions_job {
            runs.entry(job.run_id).or_default().push(check);
        }
    }
    // Futures built up front (not in a stream's closure) keep the call future `Send`.
    let settled = view.active() == 0;
    let junit_calls: Vec<_> = runs
        .iter()
        .map(|(&run, checks)| async move {
            // A re-run of failed jobs keeps the run id: the failed jobs and when they
            // finished are part of what the reports belong to.
            let mut jobs: Vec<String> = checks
                .iter()
                .filter_map(|c| c.actions_job.as_ref().map(|j| job_key(repo, c, j)))
                .collect();
            jobs.sort();
            let key = jobs.join(",");
            if let Some(hit) = ctx
                .job_cache
                .junit
                .lock()
                .ok()
                .and_then(|c| c.get(&key).cloned())
            {
                return (run, hit);
            }
            let reports = Arc::new(junit_reports(forge, repo, run).await);
            if settled {
                remember(&ctx.job_cache.junit, key, reports.clone());
            }
            (run, reports)
        })
        .collect();
    let junit_by_run: HashMap<u64, Arc<Vec<ReportFile>>> = futures::stream::iter(junit_calls)
        .buffer_unordered(CONCURRENT_CHECKS)
        .collect()
        .await;
    let check_calls: Vec<_> = view
        .failed
        .iter()
        .map(|check| check_findings(ctx, forge, repo, check))
        .collect();
    let per_check: Vec<Arc<Findings>> = futures::stream::iter(check_calls)
        .buffered(CONCURRENT_CHECKS)
        .collect()
        .await;
    let mut out: Vec<Findings> = per_check
        .iter()
        .map(|f| Findings {
            failures: f.failures.clone(),
            failed_step: f.failed_step.clone(),
            failed_step_script: f.failed_step_script.clone(),
            note: f.note.clone(),
            evidence: JobEvidence::default(),
        })
        .collect();
    // Each report file goes to the failed job of its run that it names (see `junit_jobs`),
    // and merges with what the log said about the same test; a report no job clearly owns
    // is left out, with a note on the run's failed checks.
    for (run, reports) in junit_by_run {
        let indexes: Vec<usize> = runs[&run]
            .iter()
            .filter_map(|k| view.failed.iter().position(|c| std::ptr::eq(*c, *k)))
            .collect();
        let evidence: Vec<JobEvidence> = indexes
            .iter()
            .map(|&i| per_check[i].evidence.clone())
            .collect();
        let owners = crate::junit_jobs::assign(&reports, &evidence);
        let mut unowned: Vec<String> = Vec::new();
        for (report, owner) in reports.iter().zip(owners) {
            let Some(target) = owner.map(|o| indexes[o]) else {
                unowned.push(format!(
                    "{} ({} failure{})",
                    report.label(),
                    report.failures.len(),
                    plural(report.failures.len())
                ));
                continue;
            };
            for failure in &report.failures {
                merge_report_failure(view.failed[target], &mut out[target], failure);
            }
        }
        if !unowned.is_empty() {
            let more = unowned.len().saturating_sub(3);
            unowned.truncate(3);
            let mut note = format!(
                "a JUnit report of the run could not be matched to one job and was left out: {}",
                unowned.join(", ")
            );
            if more > 0 {
                note.push_str(&format!(" and {more} more"));
            }
            for &i in &indexes {
                let findings = &mut out[i];
                findings.note = Some(match findings.note.take() {
                    Some(n) => format!("{n}; {note}"),
                    None => note.clone(),
                });
            }
        }
    }
    out.into_iter().map(Arc::new).collect()
}

/// A JUnit failure of `check`'s report: merged into the log's entry of the same test, else
/// added (the check's own placeholder entry gives way to real tests).
fn merge_report_failure(check: &Check, findings: &mut Findings, report: &Failure) {
    match findings.failures.iter_mut().find(|f| same_test(f, report)) {
        Some(existing) => merge_junit(existing, report),
        None => {
            let before = findings.failures.len();
            findings
                .failures
                .retain(|f| !(f.source == Source::CheckOutput && f.test_name == check.name));
            if findings.failures.len() < before {
                findings.note = findings.note.as_deref().map(|n| {
                    n.replace(
                        NO_FRAMEWORK_OUTPUT,
                        "the failures come from the run's JUnit report",
                    )
                });
            }
            findings
                .failures
                .push(from_failure(check, report, Source::Junit, None));
        }
    }
}

/// Whether a JUnit testcase is the test the log named. Names are compared as the tools
/// print them, except that cargo-nextest's JUnit report puts the binary in front
/// (`crate::tests::it`) where its log prints the binary apart (`tests::it`).
fn same_test(existing: &FailedTest, report: &Failure) -> bool {
    if existing.test_name == report.test_name {
        return true;
    }
    existing.framework == Some(Framework::Nextest)
        && report
            .test_name
            .strip_suffix(existing.test_name.as_str())
            .is_some_and(|binary| binary.ends_with("::"))
}

fn merge_junit(existing: &mut FailedTest, report: &Failure) {
    // The report's name is the fuller one (nextest's includes the binary), and once taken
    // it keeps a second binary's test of the same name from merging here too.
    existing.test_name.clone_from(&report.test_name);
    existing.source = Source::Junit;
    existing.confidence = Confidence::High;
    if report.file_path.is_some() {
        existing.file_path.clone_from(&report.file_path);
    }
    if report.line_number.is_some() {
        existing.line_number = report.line_number;
    }
    if existing.error_type.is_none() {
        existing.error_type.clone_from(&report.error_type);
    }
    if existing.reproduce_command.is_none() {
        existing
            .reproduce_command
            .clone_from(&report.reproduce_command);
    }
}

/// JUnit XML files of a run's test-report artifacts, each with what it says about its
/// origin. Anything that goes wrong here only means the log is the source instead.
async fn junit_reports(forge: &dyn Forge, repo: &RepoRef, run: u64) -> Vec<ReportFile> {
    let Ok(artifacts) = forge.run_artifacts(repo, run).await else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for artifact in artifacts.iter().filter(|a| {
        let name = a.name.to_ascii_lowercase();
        !a.expired
            && a.size_in_bytes <= MAX_ARTIFACT_BYTES
            && [
                "junit",
                "test-result",
                "test_result",
                "testresult",
                "test-report",
                "surefire",
                "xunit",
            ]
            .iter()
            .any(|k| name.contains(k))
    }) {
        let Ok(files) = forge
            .artifact_files(repo, artifact, ".xml", MAX_ARTIFACT_BYTES)
            .await
        else {
            continue;
        };
        for (path, bytes) in files {
            if let Ok(report) = resolve_pr_ci::junit::parse_junit_report(&bytes)
                && !report.failures.is_empty()
            {
                out.push(ReportFile {
                    artifact: artifact.name.clone(),
                    path,
                    tool: report.tool,
                    suites: report.suites,
                    failures: report.failures,
                });
            }
        }
    }
    out
}

async fn check_findings(
    ctx: &Context,
    forge: &dyn Forge,
    repo: &RepoRef,
    check: &Check,
) -> Arc<Findings> {
    let Some(job) = &check.actions_job else {
        return Arc::new(other_ci(check));
    };
    let key = job_key(repo, check, job);
    let mut cacheable = check.state == CheckState::Completed;
    if cacheable
        && let Some(hit) = ctx
            .job_cache
            .jobs
            .lock()
            .ok()
            .and_then(|c| c.get(&key).cloned())
    {
        return hit;
    }
    let annotations = async {
        if check.kind == CheckKind::CheckRun && check.annotations_count > 0 {
            forge.check_annotations(repo, check.id).await
        } else {
            Ok(Vec::new())
        }
    };
    let (steps, log, annotations) = tokio::join!(
        forge.actions_job(repo, job),
        read_log(forge, repo, job, ctx.ci.max_log_bytes),
        annotations,
    );
    // Only what was read whole is remembered: a failed read may work on the next call.
    cacheable &= steps.is_ok() && log.is_ok() && annotations.is_ok();
    let annotations = annotations.unwrap_or_default();
    let step_names: Vec<String> = steps
        .as_ref()
        .map(|j| j.steps.iter().map(|s| s.name.clone()).collect())
        .unwrap_or_default();
    let failed_step = steps.ok().and_then(|j| {
        j.steps
            .iter()
            .find(|s| s.conclusion.is_some_and(|c| c.is_failure()))
            .map(|s| s.name.clone())
    });
    let mut findings = Findings {
        failed_step,
        ..Default::default()
    };
    findings.evidence.name.clone_from(&check.name);
    findings.evidence.steps = step_names;
    let mut notes = Vec::new();
    let mut step_errors = Vec::new();
    match log {
        Ok((report, skipped)) => {
            if skipped > 0 {
                notes.push(format!(
                    "the log is {} MiB; only its last {} MiB were read",
                    (skipped + report.bytes) >> 20,
                    report.bytes >> 20
                ));
            }
            // Titles and scripts are log text: good for telling jobs apart, never output.
            findings.evidence.steps.extend(
                report
                    .steps
                    .iter()
                    .take(EVIDENCE_STEPS)
                    .flat_map(|s| [Some(&s.title), s.command.as_ref()])
                    .flatten()
                    .map(|t| cut(t, EVIDENCE_TEXT)),
            );
            for found in &report.found {
                let f = &found.failure;
                findings.evidence.tests.push(f.test_name.clone());
                findings.evidence.files.extend(f.file_path.clone());
                if !findings.evidence.frameworks.contains(&f.framework) {
                    findings.evidence.frameworks.push(f.framework);
                }
                findings.failures.push(from_failure(
                    check,
                    &found.failure,
                    Source::Log,
                    found.step.clone(),
                ));
            }
            // The failed step as the log shows it: the one the job's steps name, else the
            // last that ended with a non-zero exit code.
            let named = findings
                .failed_step
                .as_deref()
                .and_then(|name| report.steps.iter().rev().find(|s| s.title == name));
            let exited = || {
                report
                    .steps
                    .iter()
                    .rev()
                    .find(|s| s.exit_code.is_some_and(|c| c != 0))
            };
            if let Some(step) = named.or_else(exited) {
                step_errors.extend(step.errors.iter().cloned());
                if findings.failed_step.is_none() {
                    findings.failed_step = Some(step.title.clone());
                }
                findings.failed_step_script.clone_from(&step.command);
            }
        }
        Err(e) => notes.push(format!("the job log could not be read: {}", e.error)),
    }
    apply_annotations(check, &annotations, &mut findings.failures);
    if findings.failures.is_empty() {
        let mut message = match &findings.failed_step {
            Some(step) => format!("step '{step}' failed"),
            None => format!("the check ended with {}", conclusion_of(check)),
        };
        let errors: Vec<&String> = step_errors
            .iter()
            .filter(|e| !e.starts_with("Process completed"))
            .collect();
        if !errors.is_empty() {
            message.push_str(": ");
            message.push_str(
                &errors
                    .iter()
                    .map(|e| e.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
        notes.push(NO_FRAMEWORK_OUTPUT.to_owned());
        findings
            .failures
            .push(check_entry(check, message, findings.failed_step.clone()));
    }
    findings.note = (!notes.is_empty()).then(|| notes.join("; "));
    let findings = Arc::new(findings);
    if cacheable {
        remember(&ctx.job_cache.jobs, key, findings.clone());
    }
    findings
}

/// Streams the job log through the scanner: the log is never held whole.
async fn read_log(
    forge: &dyn Forge,
    repo: &RepoRef,
    job: &resolve_pr_forge::ActionsJobRef,
    max_bytes: u64,
) -> Result<(resolve_pr_ci::Report, u64)> {
    let mut stream = forge.job_log(repo, job, max_bytes).await?;
    let mut scanner = Scanner::new();
    while let Some(chunk) = stream.chunks.next().await {
        scanner.feed(&chunk?);
    }
    Ok((scanner.finish(), stream.skipped_bytes))
}

/// Annotations fill locations the log lacked; when the log named no test, failure-level
/// annotations are the failures.
fn apply_annotations(check: &Check, annotations: &[Annotation], failures: &mut Vec<FailedTest>) {
    let failing: Vec<&Annotation> = annotations
        .iter()
        .filter(|a| {
            a.level == "failure" && !a.message.starts_with("Process completed with exit code")
        })
        .collect();
    if failures.is_empty() {
        for a in failing {
            let title = a.title.clone().filter(|t| !t.trim().is_empty());
            failures.push(FailedTest {
                check_name: check.name.clone(),
                test_name: title.unwrap_or_else(|| match a.start_line {
                    Some(l) => format!("{}:{l}", a.path),
                    None => a.path.clone(),
                }),
                error_message: cut(&a.message, MESSAGE_BUDGET),
                error_type: None,
                stack_trace: a.raw_details.as_deref().map(|d| cut(d, TRACE_BUDGET)),
                file_path: (!a.path.is_empty() && a.path != ".github").then(|| a.path.clone()),
                line_number: a.start_line,
                log_url: check.details_url.clone().unwrap_or_default(),
                confidence: Confidence::Medium,
                framework: None,
                reproduce_command: None,
                step: None,
                source: Source::Annotation,
                test_category: None,
            });
        }
        return;
    }
    for f in failures.iter_mut().filter(|f| f.line_number.is_none()) {
        if let Some(a) = failing.iter().find(|a| {
            f.file_path.as_deref() == Some(a.path.as_str())
                || a.title.as_deref() == Some(f.test_name.as_str())
        }) {
            f.file_path = Some(a.path.clone());
            f.line_number = a.start_line;
        }
    }
}

/// A check from another CI system (or a status): its output text is scanned like a log; what
/// it yields is never better than `low`, since the text is a summary, not the test output.
fn other_ci(check: &Check) -> Findings {
    let mut findings = Findings::default();
    let text: String = [&check.title, &check.summary, &check.text]
        .iter()
        .filter_map(|t| t.as_deref())
        .collect::<Vec<_>>()
        .join("\n");
    if !text.trim().is_empty() {
        let mut scanner = Scanner::new();
        scanner.feed(text.as_bytes());
        for found in scanner.finish().found {
            let mut f = from_failure(check, &found.failure, Source::CheckOutput, None);
            f.confidence = Confidence::Low;
            findings.failures.push(f);
        }
    }
    if findings.failures.is_empty() {
        let message = [&check.title, &check.summary]
            .iter()
            .filter_map(|t| t.as_deref())
            .find(|t| !t.trim().is_empty())
            .map(|t| t.to_owned());
        if message.is_none() {
            findings.note = Some(match &check.details_url {
                Some(url) => format!("the check reported no output; its details are at {url}"),
                None => "the check reported no output and no details URL".to_owned(),
            });
        }
        let message =
            message.unwrap_or_else(|| format!("the check ended with {}", conclusion_of(check)));
        findings.failures.push(check_entry(check, message, None));
    }
    findings
}

fn check_entry(check: &Check, message: String, step: Option<String>) -> FailedTest {
    FailedTest {
        check_name: check.name.clone(),
        test_name: check.name.clone(),
        error_message: cut(&message, MESSAGE_BUDGET),
        error_type: None,
        stack_trace: None,
        file_path: None,
        line_number: None,
        log_url: check.details_url.clone().unwrap_or_default(),
        confidence: Confidence::Low,
        framework: None,
        reproduce_command: None,
        step,
        source: Source::CheckOutput,
        test_category: None,
    }
}

fn from_failure(check: &Check, f: &Failure, source: Source, step: Option<String>) -> FailedTest {
    FailedTest {
        check_name: check.name.clone(),
        test_name: f.test_name.clone(),
        error_message: cut(&f.error_message, MESSAGE_BUDGET),
        error_type: f.error_type.clone(),
        stack_trace: f.stack_trace.as_deref().map(|t| cut(t, TRACE_BUDGET)),
        file_path: f.file_path.clone(),
        line_number: f.line_number,
        log_url: check.details_url.clone().unwrap_or_default(),
        confidence: f.confidence,
        framework: Some(f.framework),
        reproduce_command: f.reproduce_command.clone(),
        step,
        source,
        test_category: None,
    }
}

fn conclusion_of(check: &Check) -> &'static str {
    check.conclusion.map_or("failure", |c| c.as_str())
}

fn cut(text: &str, max: usize) -> String {
    budget::cut(text, max, "the full text is in the log").text
}

/// The workflow run of the first failed Actions job, else of the first Actions job.
/// What the workflow runs behind the checks say: `ci_info` (the run of the first failed,
/// else running, else any Actions check) and the estimate (the running runs). Each run is
/// read once, however many of the two need it.
async fn runs_info(
    forge: &dyn Forge,
    repo: &RepoRef,
    view: &View<'_>,
) -> (Option<CiInfo>, Option<Estimate>) {
    let main = view
        .failed
        .iter()
        .chain(view.running.iter())
        .copied()
        .chain(view.snapshot.checks.iter())
        .find_map(|c| c.actions_job.as_ref())
        .map(|job| job.run_id);
    let mut running: Vec<u64> = Vec::new();
    for check in view.running.iter().chain(view.queued.iter()) {
        if let Some(job) = &check.actions_job
            && !running.contains(&job.run_id)
            && running.len() < ESTIMATED_RUNS
        {
            running.push(job.run_id);
        }
    }
    let ids = running
        .iter()
        .copied()
        .chain(main.filter(|m| !running.contains(m)));
    let runs: HashMap<u64, WorkflowRun> = futures::future::join_all(
        ids.map(|id| async move { Some((id, forge.workflow_run(repo, id).await.ok()?)) }),
    )
    .await
    .into_iter()
    .flatten()
    .collect();
    let info = main.and_then(|id| runs.get(&id)).map(ci_info);
    let estimate = estimate(forge, repo, running.iter().filter_map(|id| runs.get(id))).await;
    (info, estimate)
}

fn ci_info(run: &WorkflowRun) -> CiInfo {
    let run = run.clone();
    let completed_at = (run.state == CheckState::Completed)
        .then(|| run.updated_at.clone())
        .flatten();
    let duration_seconds = match (&run.started_at, &completed_at) {
        (Some(a), Some(b)) => seconds_between(a, b),
        _ => None,
    };
    CiInfo {
        workflow_name: run.name,
        run_id: run.id,
        run_url: run.html_url.unwrap_or_default(),
        started_at: run.started_at,
        completed_at,
        duration_seconds,
        status: match run.state {
            CheckState::Queued => "queued",
            CheckState::InProgress => "in_progress",
            CheckState::Completed => "completed",
        }
        .to_owned(),
        conclusion: run.conclusion.map(|c| c.as_str().to_owned()),
    }
}

/// The step a running Actions job is in, for `poll_info.current_step`.
async fn current_step(forge: &dyn Forge, repo: &RepoRef, view: &View<'_>) -> Option<String> {
    let check = view.running.iter().find(|c| c.actions_job.is_some())?;
    let job = forge
        .actions_job(repo, check.actions_job.as_ref()?)
        .await
        .ok()?;
    let total = job.steps.len();
    let step = job
        .steps
        .iter()
        .find(|s| s.state == CheckState::InProgress)?;
    Some(format!(
        "{}: {} (step {} of {total})",
        check.name, step.name, step.number
    ))
}

/// When the running workflows should be done, from their workflows' history.
#[derive(Debug, Clone, PartialEq)]
struct Estimate {
    /// Unix seconds.
    done_at: i64,
    /// The median duration behind it, and how many runs it is the median of.
    typical_seconds: u64,
    runs: usize,
}

/// Past successful runs a workflow's typical duration is the median of.
const HISTORY_RUNS: usize = 10;
/// Running workflow runs estimated at most (each costs two requests).
const ESTIMATED_RUNS: usize = 3;

/// The latest expected end of the running Actions workflow runs: each run's start plus the
/// median duration of its workflow's last successful runs (each workflow's history read
/// once). None when no running check is an Actions job or the forge keeps no such history
/// (Forgejo, Gitea).
async fn estimate<'a>(
    forge: &dyn Forge,
    repo: &RepoRef,
    running: impl Iterator<Item = &'a WorkflowRun>,
) -> Option<Estimate> {
    let mut starts: Vec<(u64, i64)> = Vec::new();
    for run in running {
        let Some(workflow) = run.workflow_id else {
            continue;
        };
        let Some(started) = run
            .started_at
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        else {
            continue;
        };
        starts.push((workflow, started.timestamp()));
    }
    let mut workflows: Vec<u64> = starts.iter().map(|(w, _)| *w).collect();
    workflows.sort_unstable();
    workflows.dedup();
    let typical: HashMap<u64, (u64, usize)> =
        futures::future::join_all(workflows.into_iter().map(|workflow| async move {
            let mut durations = forge
                .workflow_durations(repo, workflow, HISTORY_RUNS)
                .await
                .ok()?;
            durations.sort_unstable();
            let median = *durations.get(durations.len() / 2)?;
            Some((workflow, (median, durations.len())))
        }))
        .await
        .into_iter()
        .flatten()
        .collect();
    starts
        .into_iter()
        .filter_map(|(workflow, started)| {
            let (median, runs) = *typical.get(&workflow)?;
            Some(Estimate {
                done_at: started + i64::try_from(median).ok()?,
                typical_seconds: median,
                runs,
            })
        })
        .max_by_key(|e| e.done_at)
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

fn poll_info(
    ctx: &Context,
    view: &View<'_>,
    current_step: Option<String>,
    estimate: Option<Estimate>,
) -> PollInfo {
    let retry = ctx.ci.poll_max.as_secs().max(1);
    let what = match view.status {
        Status::Failed => "Some checks failed; others are still running",
        Status::Pending => "CI is queued",
        _ => "CI is still running",
    };
    let expected = estimate.as_ref().map(|e| {
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
            view.progress_message(),
            expected.unwrap_or_default()
        ),
        estimated_completion: estimate.and_then(|e| {
            chrono::DateTime::from_timestamp(e.done_at, 0)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        }),
        retry_after_seconds: retry,
        current_step,
    }
}

/// Seconds between two RFC 3339 timestamps (`2024-05-01T10:00:00Z`); `None` when either is
/// malformed or `b` is before `a`.
/// When a check finished, in Unix milliseconds, if the forge said.
fn finished_ms(check: &Check) -> Option<i64> {
    let at = chrono::DateTime::parse_from_rfc3339(check.completed_at.as_deref()?).ok()?;
    Some(at.timestamp_millis())
}

fn seconds_between(a: &str, b: &str) -> Option<u64> {
    let at = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
    u64::try_from((at(b)? - at(a)?).num_seconds()).ok()
}

/// Why a failure goes first, best reason first.
fn priority_class(f: &FailedTest, required: bool) -> (u32, &'static str) {
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
        return (
            0,
            "a collection, import or build error: it hides every test behind it, fix it first",
        );
    }
    if f.source == Source::CheckOutput && f.confidence == Confidence::Low {
        return (
            4,
            "no test was named: read the check's log at log_url to see what failed",
        );
    }
    if f.framework == Some(Framework::Generic) {
        return (
            3,
            "an error the log printed outside any test (low confidence): read the failed \
             step's log (its check's log_command, or log_url)",
        );
    }
    if required {
        return (
            1,
            "fails a required check: the PR cannot merge until it passes",
        );
    }
    if f.file_path.is_some() && f.line_number.is_some() {
        return (2, "the framework named the failing line");
    }
    (3, "failing test")
}

fn instructions(
    view: &View<'_>,
    all: &[FailedTest],
    counts: &FailureCounts,
    checks: &[FailedCheck],
) -> Instructions {
    let required: HashSet<&str> = checks
        .iter()
        .filter(|c| c.required)
        .map(|c| c.name.as_str())
        .collect();
    // Failures with the same first line of message: probably one cause.
    let mut by_message: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in all.iter().enumerate() {
        let key = f
            .error_message
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        if !key.is_empty() && f.source != Source::CheckOutput {
            by_message.entry(key).or_default().push(i);
        }
    }
    let mut ranked: Vec<(u32, usize, &'static str)> = all
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (class, reason) = priority_class(f, required.contains(f.check_name.as_str()));
            (class, i, reason)
        })
        .collect();
    ranked.sort();
    let mut priority = Vec::new();
    let mut commands = Vec::new();
    let mut covered: HashSet<usize> = HashSet::new();
    for (class, i, reason) in ranked {
        if covered.contains(&i) {
            continue;
        }
        let f = &all[i];
        let key = f
            .error_message
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        let group: Vec<usize> = by_message.get(&key).cloned().unwrap_or_default();
        let related: Vec<String> = group
            .iter()
            .filter(|j| **j != i)
            .map(|j| all[*j].test_name.clone())
            .take(5)
            .collect();
        covered.extend(group.iter().copied());
        covered.insert(i);
        let reason = if related.is_empty() || class == 0 {
            reason.to_owned()
        } else {
            format!(
                "{} tests fail with the same error, probably one cause; {reason}",
                group.len()
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
        summary: summary(view, counts, checks),
        priority,
        commands,
    }
}

fn summary(view: &View<'_>, counts: &FailureCounts, checks: &[FailedCheck]) -> String {
    let active = view.active();
    let still = if active > 0 {
        format!("; {active} check{} still running or queued", plural(active))
    } else {
        String::new()
    };
    match view.status {
        Status::Unknown => "no CI checks reported for this commit".to_owned(),
        Status::Passed => {
            let n = view.counts.passed;
            let skipped = view.counts.skipped;
            if skipped > 0 {
                format!("all {n} check{} passed ({skipped} skipped)", plural(n))
            } else {
                format!("all {n} check{} passed", plural(n))
            }
        }
        Status::Running | Status::Pending => {
            format!("no failures so far: {}", view.progress_message())
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
            let names: Vec<String> = checks
                .iter()
                .take(4)
                .map(|c| format!("{} ({})", c.name, c.failures))
                .collect();
            format!(
                "{what} in {} of {} check{}: {}{}",
                checks.len(),
                view.counts.total,
                plural(view.counts.total),
                names.join(", "),
                still
            )
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_forge::{ActionsJobRef, CheckConclusion};

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
            assert_eq!(View::of(&snap).status, want, "{names:?}");
        }
        for failing in [
            C::Failure,
            C::TimedOut,
            C::Cancelled,
            C::StartupFailure,
            C::ActionRequired,
        ] {
            let snap = snapshot(vec![check("a", S::Completed, Some(failing))], None);
            assert_eq!(View::of(&snap).status, Status::Failed, "{failing:?}");
        }
    }

    #[test]
    fn a_pending_commit_status_counts_as_running() {
        let mut status = check("ci/jenkins", S::Queued, None);
        status.kind = CheckKind::Status;
        let snap = snapshot(vec![status], None);
        let view = View::of(&snap);
        assert_eq!(view.status, Status::Running);
        assert_eq!(view.counts.running, 1);
    }

    fn failed(test: &str, check: &str, message: &str, error_type: Option<&str>) -> FailedTest {
        FailedTest {
            check_name: check.to_owned(),
            test_name: test.to_owned(),
            error_message: message.to_owned(),
            error_type: error_type.map(str::to_owned),
            stack_trace: None,
            file_path: Some("tests/test_x.py".to_owned()),
            line_number: Some(3),
            log_url: String::new(),
            confidence: Confidence::High,
            framework: Some(Framework::Pytest),
            reproduce_command: Some(format!("pytest '{test}'")),
            step: None,
            source: Source::Log,
            test_category: None,
        }
    }

    #[test]
    fn categories_come_from_the_path_then_the_name_then_the_check() {
        let of = |path: Option<&str>, test: &str, check: &str| {
            let mut f = failed(test, check, "boom", None);
            f.file_path = path.map(str::to_owned);
            TestCategory::of(&f)
        };
        use TestCategory::*;
        assert_eq!(
            of(Some("tests/unit/test_integration_x.py"), "t", "e2e"),
            Some(Unit)
        );
        assert_eq!(
            of(Some("e2e/login.spec.ts"), "unit fixtures", "unit"),
            Some(E2e)
        );
        assert_eq!(
            of(Some("src/lib.rs"), "integration::checkout", "unit"),
            Some(Integration)
        );
        assert_eq!(of(None, "t", "CI / Unit-Tests (3.11)"), Some(Unit));
        assert_eq!(of(Some("cypress/e2e/a.cy.ts"), "t", "x"), Some(E2e));
        // Words, not substrings: `community`, `unitary` and `reintegration` say nothing.
        assert_eq!(
            of(Some("community/unitary.py"), "reintegration", "build"),
            None
        );
    }

    #[test]
    fn pages_resume_after_the_last_test_shown_even_when_its_check_changed() {
        // (check, test); check a finished at 1000 ms, b at 2000, c at 3000.
        let list = |names: &[(&str, &str)]| -> (Vec<FailedTest>, Vec<Option<i64>>) {
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
    fn failed_checks_are_listed_in_the_order_they_finished() {
        let at = |name: &str, done: Option<&str>| {
            let mut c = check(name, S::Completed, Some(C::Failure));
            c.completed_at = done.map(str::to_owned);
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
        let view = View::of(&snap);
        let names: Vec<&str> = view.failed.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["d-first", "a-early", "c-early", "a-late", "b-untimed"]
        );
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
        let view = View::of(&snap);
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
                required: false,
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
                required: true,
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

    #[test]
    fn durations_from_timestamps() {
        assert_eq!(
            seconds_between("2024-05-01T10:00:00Z", "2024-05-01T10:03:20Z"),
            Some(200)
        );
        assert_eq!(
            seconds_between("2024-02-28T23:59:00Z", "2024-03-01T00:00:00Z"),
            Some(86460)
        );
        assert_eq!(seconds_between("2024-05-01T10:00:00Z", "garbage"), None);
    }
}
