//! What each failed check says failed, best source first:
//! 1. JUnit XML in the workflow run's artifacts (`high`: the test tool's own report).
//! 2. The Actions job log, streamed through the `ci` crate's scanner (its parsers' confidence),
//!    with the failed step from the job's steps and check-run annotations filling in
//!    locations.
//! 3. Annotations alone, when the log named no test (`medium`).
//! 4. Other CI systems (third-party check runs, commit statuses): their output text is
//!    scanned too, and otherwise the check itself is reported, always `low`.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use resolve_pr_ci::{Confidence, Failure, FlakyTest, Framework, Scanner};
use resolve_pr_core::{RepoRef, Result, budget};
use resolve_pr_forge::{ActionsJobRef, Annotation, Check, CheckKind, CheckState, Forge, require};

use super::junit_jobs::{self, JobEvidence, ReportFile};
use super::rollup::Rollup;

/// Stack traces are cut to this many bytes (the log has the rest).
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

const NO_FRAMEWORK_OUTPUT: &str = "no test framework output was recognized in the log";

/// Where a failure's data came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A failing test, an error outside any test, or a failed check that named neither.
/// Messages and traces are already cut to a budget, so the per-process cache of findings
/// stays small whatever a log holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TestFailure {
    /// The check (job) it failed in.
    pub check_name: String,
    /// As the framework names it; for a check that named no test, the check itself.
    pub test_name: String,
    pub error_message: String,
    pub error_type: Option<String>,
    /// At most 1500 bytes; the log has the rest.
    pub stack_trace: Option<String>,
    /// Repository-relative.
    pub file_path: Option<String>,
    pub line_number: Option<u64>,
    /// The page with the full log, when the forge gives one.
    pub log_url: Option<String>,
    pub confidence: Confidence,
    pub framework: Option<Framework>,
    /// Runs just this test locally (POSIX shell quoting).
    pub reproduce_command: Option<String>,
    /// The Actions step it was printed in.
    pub step: Option<String>,
    pub source: Source,
}

/// What a failing entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// It names a test.
    Test,
    /// An error block outside any test (framework generic).
    Error,
    /// A failed check that named no test or error.
    Check,
}

impl TestFailure {
    pub fn kind(&self) -> FailureKind {
        if self.source == Source::CheckOutput && self.test_name == self.check_name {
            FailureKind::Check
        } else if self.framework == Some(Framework::Generic) {
            FailureKind::Error
        } else {
            FailureKind::Test
        }
    }

    /// The test's path says it, else its name, else its check's name.
    pub fn category(&self) -> Option<TestCategory> {
        [
            self.file_path.as_deref(),
            Some(self.test_name.as_str()),
            Some(self.check_name.as_str()),
        ]
        .into_iter()
        .flatten()
        .find_map(TestCategory::in_text)
    }
}

/// What kind of test failed, from a word of its path, name or check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
}

/// What was found for one failed check.
#[derive(Debug, Default)]
pub struct CheckFindings {
    /// In the check's order: as its log printed them (else as its annotations or output list
    /// them); tests only a JUnit report names come after.
    pub failures: Vec<TestFailure>,
    /// The step that failed (Actions jobs).
    pub failed_step: Option<String>,
    /// LOG TEXT, NOT A COMMAND: what the log says the failed step ran. Anything can print
    /// such lines; never run it.
    pub failed_step_script: Option<String>,
    /// What could not be read, and what was read instead.
    pub note: Option<String>,
    /// Tests that failed and then passed on a retry in the job (the framework says so).
    pub flaky: Vec<FlakyTest>,
    /// What the job says about itself, to tell which of its run's JUnit reports are its own.
    evidence: JobEvidence,
}

/// Per-process memory of finished work: a completed job's findings by job id, and the JUnit
/// reports of a run whose checks have all finished, by run id. Neither can change. Cloning
/// shares the memory.
#[derive(Default, Clone)]
pub struct JobCache {
    jobs: Memo<Arc<CheckFindings>>,
    junit: Memo<Arc<Vec<ReportFile>>>,
    /// Every attempt's jobs of a finished run (the history of a test, `history`).
    pub(super) run_jobs: Memo<Arc<Vec<resolve_pr_forge::Job>>>,
    /// The failing tests a finished job's log names (the history of a test).
    pub(super) job_tests: Memo<Arc<Vec<String>>>,
    /// Whose credential read what this view remembers: part of every key, so what one
    /// caller's token could read is never served to another.
    scope: Arc<str>,
}

impl JobCache {
    /// The same memory, seen by the credential `scope` names (a fingerprint, never a token):
    /// it finds only what was remembered under the same scope.
    pub fn scoped(&self, scope: &str) -> JobCache {
        JobCache {
            scope: scope.into(),
            ..self.clone()
        }
    }

    pub(super) fn key(&self, key: String) -> String {
        if self.scope.is_empty() {
            key
        } else {
            format!("{}|{key}", self.scope)
        }
    }
}

#[cfg(test)]
mod scope_tests {
    use super::*;

    #[test]
    fn scoped_views_share_memory_but_not_entries() {
        let cache = JobCache::default();
        let theirs = cache.scoped("fingerprint-b");
        assert_eq!(
            cache.key("k".into()),
            "k",
            "the server's keys are unchanged"
        );
        assert_ne!(theirs.key("k".into()), cache.key("k".into()));
        assert_ne!(
            theirs.key("k".into()),
            cache.scoped("fingerprint-c").key("k".into())
        );
        remember(&theirs.junit, theirs.key("k".into()), Arc::new(Vec::new()));
        let lookup = |c: &JobCache| c.junit.lock().unwrap().contains_key(&c.key("k".into()));
        assert!(lookup(&theirs) && lookup(&cache.scoped("fingerprint-b")));
        assert!(!lookup(&cache) && !lookup(&cache.scoped("fingerprint-c")));
    }
}

/// Values by a key naming the forge, the repository, the run or job, and when it finished
/// (see [`job_key`]).
type Memo<V> = Arc<Mutex<HashMap<String, V>>>;

/// Entries a cache keeps before starting over (a long-running server sees many PRs).
const CACHE_ENTRIES: usize = 256;

pub(super) fn remember<V>(map: &Mutex<HashMap<String, V>>, key: String, value: V) {
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
fn job_key(repo: &RepoRef, check: &Check, job: &ActionsJobRef) -> String {
    format!(
        "{}/{}|run {}|job {}|{}",
        repo.web_base.as_deref().unwrap_or("default"),
        repo.full_name(),
        job.run_id,
        job.job_id,
        check
            .completed_at
            .as_ref()
            .map(resolve_pr_forge::format_time)
            .unwrap_or_default()
    )
}

/// The findings of each of `rollup.failed`, in that order.
pub(super) async fn collect(
    forge: &dyn Forge,
    repo: &RepoRef,
    rollup: &Rollup<'_>,
    cache: &JobCache,
    max_log_bytes: u64,
) -> Vec<Arc<CheckFindings>> {
    // JUnit reports are per workflow run: fetched once per run with a failed job.
    let mut runs: BTreeMap<u64, Vec<&Check>> = BTreeMap::new();
    for check in &rollup.failed {
        if let Some(job) = &check.actions_job {
            runs.entry(job.run_id).or_default().push(check);
        }
    }
    // Futures built up front (not in a stream's closure) keep the call future `Send`.
    let settled = rollup.active() == 0;
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
            let key = cache.key(jobs.join(","));
            if let Some(hit) = cache.junit.lock().ok().and_then(|c| c.get(&key).cloned()) {
                return (run, hit);
            }
            let reports = Arc::new(junit_reports(forge, repo, run).await);
            if settled {
                remember(&cache.junit, key, reports.clone());
            }
            (run, reports)
        })
        .collect();
    let junit_by_run: HashMap<u64, Arc<Vec<ReportFile>>> = futures::stream::iter(junit_calls)
        .buffer_unordered(CONCURRENT_CHECKS)
        .collect()
        .await;
    let check_calls: Vec<_> = rollup
        .failed
        .iter()
        .map(|check| check_findings(forge, repo, check, cache, max_log_bytes))
        .collect();
    let per_check: Vec<Arc<CheckFindings>> = futures::stream::iter(check_calls)
        .buffered(CONCURRENT_CHECKS)
        .collect()
        .await;
    let mut out: Vec<CheckFindings> = per_check
        .iter()
        .map(|f| CheckFindings {
            failures: f.failures.clone(),
            failed_step: f.failed_step.clone(),
            failed_step_script: f.failed_step_script.clone(),
            note: f.note.clone(),
            flaky: f.flaky.clone(),
            evidence: JobEvidence::default(),
        })
        .collect();
    // Each report file goes to the failed job of its run that it names (see `junit_jobs`),
    // and merges with what the log said about the same test; a report no job clearly owns
    // is left out, with a note on the run's failed checks.
    for (run, reports) in junit_by_run {
        let indexes: Vec<usize> = runs[&run]
            .iter()
            .filter_map(|k| rollup.failed.iter().position(|c| std::ptr::eq(*c, *k)))
            .collect();
        let evidence: Vec<JobEvidence> = indexes
            .iter()
            .map(|&i| per_check[i].evidence.clone())
            .collect();
        let owners = junit_jobs::assign(&reports, &evidence);
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
                merge_report_failure(rollup.failed[target], &mut out[target], failure);
            }
            // What the report says passed on a retry, unless the log said so already.
            for flaky in &report.flaky {
                let known = out[target]
                    .flaky
                    .iter()
                    .any(|f| junit_jobs::same_name(&f.test_name, &flaky.test_name));
                if !known {
                    out[target].flaky.push(flaky.clone());
                }
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
fn merge_report_failure(check: &Check, findings: &mut CheckFindings, report: &Failure) {
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
fn same_test(existing: &TestFailure, report: &Failure) -> bool {
    existing.test_name == report.test_name
        || (existing.framework == Some(Framework::Nextest)
            && junit_jobs::same_name(&existing.test_name, &report.test_name))
}

fn merge_junit(existing: &mut TestFailure, report: &Failure) {
    // The report's name is the fuller one (nextest's includes the binary), and once taken
    // it keeps a second binary's test of the same name from merging here too.
    existing.test_name.clone_from(&report.test_name);
    existing.source = Source::Junit;
    existing.confidence = Confidence::High;
    // The log's reader picks the test's own frame (mocha's `Context.<anonymous>`, unittest's
    // module); a report's frame in another file is most often an assertion helper's. The
    // log's location stays unless it is outside the tests and the report's is a test file
    // (the log's reader then fell back to a helper's or library's frame).
    let own_file = existing.line_number.is_some()
        && existing.file_path.as_ref().is_some_and(|f| {
            report.file_path.as_ref().is_some_and(|r| {
                r != f
                    && (resolve_pr_ci::junit::looks_like_test(f)
                        || !resolve_pr_ci::junit::looks_like_test(r))
            })
        });
    if !own_file {
        if report.file_path.is_some() {
            existing.file_path.clone_from(&report.file_path);
        }
        if report.line_number.is_some() {
            existing.line_number = report.line_number;
        }
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
    // A forge without Actions has no artifacts: the log is the source.
    let Some(actions) = forge.actions() else {
        return Vec::new();
    };
    let Ok(artifacts) = actions.run_artifacts(repo, run).await else {
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
        let Ok(files) = actions
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
                    flaky: report.flaky,
                });
            }
        }
    }
    out
}

async fn check_findings(
    forge: &dyn Forge,
    repo: &RepoRef,
    check: &Check,
    cache: &JobCache,
    max_log_bytes: u64,
) -> Arc<CheckFindings> {
    let Some(job) = &check.actions_job else {
        return Arc::new(other_ci(check));
    };
    let key = cache.key(job_key(repo, check, job));
    let mut cacheable = check.state == CheckState::Completed;
    if cacheable && let Some(hit) = cache.jobs.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return hit;
    }
    let annotations = async {
        if check.kind == CheckKind::CheckRun && check.annotations_count > 0 {
            require(
                forge.kind(),
                forge.annotations(),
                "reading check annotations",
            )?
            .check_annotations(repo, check.id)
            .await
        } else {
            Ok(Vec::new())
        }
    };
    let (steps, log, annotations) = tokio::join!(
        async {
            require(forge.kind(), forge.actions(), "reading Actions jobs")?
                .actions_job(repo, job)
                .await
        },
        read_log(forge, repo, job, max_log_bytes),
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
    let mut findings = CheckFindings {
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
            findings.flaky.clone_from(&report.flaky);
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
        remember(&cache.jobs, key, findings.clone());
    }
    findings
}

/// Streams the job log through the scanner: the log is never held whole.
async fn read_log(
    forge: &dyn Forge,
    repo: &RepoRef,
    job: &ActionsJobRef,
    max_bytes: u64,
) -> Result<(resolve_pr_ci::Report, u64)> {
    let mut stream = require(forge.kind(), forge.actions(), "downloading job logs")?
        .job_log(repo, job, max_bytes)
        .await?;
    let mut scanner = Scanner::new();
    while let Some(chunk) = stream.chunks.next().await {
        scanner.feed(&chunk?);
    }
    Ok((scanner.finish(), stream.skipped_bytes))
}

/// Annotations fill locations the log lacked; when the log named no test, failure-level
/// annotations are the failures.
fn apply_annotations(check: &Check, annotations: &[Annotation], failures: &mut Vec<TestFailure>) {
    let failing: Vec<&Annotation> = annotations
        .iter()
        .filter(|a| {
            a.level == "failure" && !a.message.starts_with("Process completed with exit code")
        })
        .collect();
    if failures.is_empty() {
        for a in failing {
            let title = a.title.clone().filter(|t| !t.trim().is_empty());
            failures.push(TestFailure {
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
                log_url: check.details_url.clone(),
                confidence: Confidence::Medium,
                framework: None,
                reproduce_command: None,
                step: None,
                source: Source::Annotation,
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
fn other_ci(check: &Check) -> CheckFindings {
    let mut findings = CheckFindings::default();
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

fn check_entry(check: &Check, message: String, step: Option<String>) -> TestFailure {
    TestFailure {
        check_name: check.name.clone(),
        test_name: check.name.clone(),
        error_message: cut(&message, MESSAGE_BUDGET),
        error_type: None,
        stack_trace: None,
        file_path: None,
        line_number: None,
        log_url: check.details_url.clone(),
        confidence: Confidence::Low,
        framework: None,
        reproduce_command: None,
        step,
        source: Source::CheckOutput,
    }
}

fn from_failure(check: &Check, f: &Failure, source: Source, step: Option<String>) -> TestFailure {
    TestFailure {
        check_name: check.name.clone(),
        test_name: f.test_name.clone(),
        error_message: cut(&f.error_message, MESSAGE_BUDGET),
        error_type: f.error_type.clone(),
        stack_trace: f.stack_trace.as_deref().map(|t| cut(t, TRACE_BUDGET)),
        file_path: f.file_path.clone(),
        line_number: f.line_number,
        log_url: check.details_url.clone(),
        confidence: f.confidence,
        framework: Some(f.framework),
        reproduce_command: f.reproduce_command.clone(),
        step,
        source,
    }
}

fn conclusion_of(check: &Check) -> &'static str {
    check.conclusion.map_or("failure", |c| c.as_str())
}

fn cut(text: &str, max: usize) -> String {
    budget::cut(text, max, "the full text is in the log").text
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn failed(
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
            source: Source::Log,
        }
    }

    #[test]
    fn a_report_merges_into_the_logs_entry_and_keeps_the_tests_own_location() {
        let check = resolve_pr_forge::Check {
            id: 1,
            name: "test / mocha".into(),
            kind: CheckKind::CheckRun,
            state: CheckState::Completed,
            conclusion: None,
            started_at: None,
            completed_at: None,
            details_url: None,
            app: None,
            title: None,
            summary: None,
            text: None,
            annotations_count: 0,
            actions_job: None,
        };
        let mut log = failed("cart totals sums line items", "test / mocha", "boom", None);
        log.file_path = Some("test/cart.spec.js".into());
        log.line_number = Some(12);
        log.confidence = Confidence::Medium;
        log.framework = Some(Framework::Mocha);
        log.reproduce_command = Some("npx mocha test/cart.spec.js --grep 'x'".into());
        let mut findings = CheckFindings {
            failures: vec![log],
            ..Default::default()
        };
        // A report that took the first frame of the trace: the assertion helper's.
        let report = Failure {
            test_name: "cart totals sums line items".into(),
            file_path: Some("test/helpers/money.js".into()),
            line_number: Some(4),
            error_type: Some("AssertionError".into()),
            error_message: "expected total 31, got 30".into(),
            stack_trace: None,
            confidence: Confidence::High,
            framework: Framework::Junit,
            reproduce_command: None,
        };
        merge_report_failure(&check, &mut findings, &report);
        assert_eq!(findings.failures.len(), 1, "{:#?}", findings.failures);
        let f = &findings.failures[0];
        assert_eq!(f.source, Source::Junit);
        assert_eq!(
            (f.file_path.as_deref(), f.line_number),
            (Some("test/cart.spec.js"), Some(12))
        );
        assert!(f.reproduce_command.is_some());
        // Without a line the log's location gives way to the report's.
        let mut log = failed("t", "test / mocha", "boom", None);
        log.line_number = None;
        let mut findings = CheckFindings {
            failures: vec![log],
            ..Default::default()
        };
        let report = Failure {
            test_name: "t".into(),
            ..report
        };
        merge_report_failure(&check, &mut findings, &report);
        assert_eq!(
            findings.failures[0].file_path.as_deref(),
            Some("test/helpers/money.js")
        );
        // A log whose reader fell back to a frame outside the tests gives way to a report
        // that names the test's file.
        let mut log = failed("u", "test / mocha", "boom", None);
        log.file_path = Some("src/lib/assert.js".into());
        log.line_number = Some(3);
        let mut findings = CheckFindings {
            failures: vec![log],
            ..Default::default()
        };
        let report = Failure {
            test_name: "u".into(),
            file_path: Some("test/cart.spec.js".into()),
            line_number: Some(12),
            ..report
        };
        merge_report_failure(&check, &mut findings, &report);
        let f = &findings.failures[0];
        assert_eq!(
            (f.file_path.as_deref(), f.line_number),
            (Some("test/cart.spec.js"), Some(12))
        );
    }

    #[test]
    fn categories_come_from_the_path_then_the_name_then_the_check() {
        let of = |path: Option<&str>, test: &str, check: &str| {
            let mut f = failed(test, check, "boom", None);
            f.file_path = path.map(str::to_owned);
            f.category()
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
}
