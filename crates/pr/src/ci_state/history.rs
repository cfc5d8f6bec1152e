//! How a failing test fared in the other runs of its job on the same commit (GitHub Actions
//! keeps them: re-runs, and runs other events started on the commit): flaky when it both
//! failed and passed on the same code.
//!
//! For each failed Actions check: its run's workflow, that workflow's runs on the head
//! commit (at most [`HISTORY_RUNS`], this one included), every attempt's jobs of those runs,
//! and among them the completed jobs of the same name. A job that succeeded passed every
//! test; a job that failed is read like this one (its log through the scanner) and failed
//! the tests its log names; anything else (cancelled, skipped, a log that cannot be read, a
//! failed job whose log does not name the test) says nothing about the test. This run
//! counts as one failure of each of its failing tests.
//!
//! `flakiness_score = passed / (passed + failed)`, only when at least one other run of the
//! job said something about the test: 0 failed every time (a real failure), near 1 usually
//! passes. Never guessed: no other outcome, no score.
//!
//! Requests: one per distinct run of the failed checks (its workflow), one per workflow (its
//! runs on the commit), one per run (its jobs, all attempts), and one per other failed job
//! (its log, at most [`MAX_HISTORY_LOGS`] in all), fetched [`CONCURRENT`] at a time. Finished jobs' logs and finished runs' jobs
//! are remembered in the [`JobCache`], since they cannot change.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use futures::StreamExt;
use resolve_pr_ci::Scanner;
use resolve_pr_core::RepoRef;
use resolve_pr_forge::{
    ActionsJobRef, CheckConclusion, CheckState, Forge, Job, WorkflowRun, format_time,
};

use super::failures::{CheckFindings, JobCache, remember};
use super::rollup::Rollup;

/// Runs of a workflow on one commit looked at, at most (this one included).
pub const HISTORY_RUNS: usize = 10;
/// Requests in flight at once.
const CONCURRENT: usize = 4;
/// Other jobs' logs read at most in one call, whatever the number of failed checks: each is
/// a download. Past it, further failed jobs say nothing, and the note says so.
pub const MAX_HISTORY_LOGS: usize = 20;

/// What the other runs of a test's job on the same commit say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TestHistory {
    /// Runs (this one included) in which the test failed.
    pub failed: u32,
    /// Runs in which it passed (its job succeeded).
    pub passed: u32,
}

impl TestHistory {
    /// `passed / (passed + failed)`, when more than this run said something.
    pub fn flakiness_score(&self) -> Option<f64> {
        let known = self.passed + self.failed;
        (known >= 2).then(|| f64::from(self.passed) / f64::from(known))
    }
}

/// The history of every failing test of the failed checks, by (check name, test name),
/// and a note when it could not be read whole.
#[derive(Debug, Default)]
pub struct History {
    pub tests: HashMap<(String, String), TestHistory>,
    pub note: Option<String>,
}

/// Reads the history of `findings` (the failures of `rollup.failed`, in that order).
pub async fn test_history(
    forge: &dyn Forge,
    repo: &RepoRef,
    head_sha: &str,
    rollup: &Rollup<'_>,
    findings: &[Arc<CheckFindings>],
    cache: &JobCache,
    max_log_bytes: u64,
) -> History {
    let mut out = History::default();
    let (Some(history), Some(actions)) = (forge.workflow_history(), forge.actions()) else {
        out.note = Some(format!(
            "{} keeps no history of workflow runs through its API: no flakiness_score",
            forge.kind()
        ));
        return out;
    };
    let mut problems: BTreeSet<String> = BTreeSet::new();
    // This run's failures count once each.
    let mut checks: Vec<(&resolve_pr_forge::Check, &CheckFindings)> = Vec::new();
    for (check, found) in rollup.failed.iter().zip(findings) {
        if check.actions_job.is_some() {
            checks.push((check, found));
        }
        for f in &found.failures {
            out.tests
                .entry((check.name.clone(), f.test_name.clone()))
                .or_default()
                .failed += 1;
        }
    }
    // The workflow of each failed job's run.
    let run_ids: BTreeSet<u64> = checks
        .iter()
        .filter_map(|(c, _)| c.actions_job.as_ref().map(|j| j.run_id))
        .collect();
    let run_calls: Vec<_> = run_ids
        .iter()
        .map(|&id| async move { (id, actions.workflow_run(repo, id).await) })
        .collect();
    let runs: Vec<(u64, _)> = futures::stream::iter(run_calls)
        .buffer_unordered(CONCURRENT)
        .collect()
        .await;
    let mut workflow_of: HashMap<u64, u64> = HashMap::new();
    for (id, run) in runs {
        match run {
            Ok(WorkflowRun {
                workflow_id: Some(w),
                ..
            }) => {
                workflow_of.insert(id, w);
            }
            Ok(_) => {
                problems.insert(format!("run {id} names no workflow"));
            }
            Err(e) => {
                problems.insert(format!("run {id}: {e}"));
            }
        }
    }
    // Each workflow's runs on the commit.
    let workflows: BTreeSet<u64> = workflow_of.values().copied().collect();
    let commit_calls: Vec<_> = workflows
        .iter()
        .map(|&w| async move {
            (
                w,
                history.commit_runs(repo, w, head_sha, HISTORY_RUNS).await,
            )
        })
        .collect();
    let commit_runs: Vec<(u64, _)> = futures::stream::iter(commit_calls)
        .buffer_unordered(CONCURRENT)
        .collect()
        .await;
    let mut runs_of: BTreeMap<u64, Vec<WorkflowRun>> = BTreeMap::new();
    for (w, runs) in commit_runs {
        match runs {
            Ok(runs) => {
                runs_of.insert(w, runs);
            }
            Err(e) => {
                problems.insert(format!("runs of workflow {w}: {e}"));
            }
        }
    }
    // Every attempt's jobs of those runs (and of the failed checks' own runs, whose earlier
    // attempts are re-runs of the same commit).
    let mut all_runs: BTreeMap<u64, Option<WorkflowRun>> = BTreeMap::new();
    for run in runs_of.values().flatten() {
        all_runs.insert(run.id, Some(run.clone()));
    }
    for id in &run_ids {
        all_runs.entry(*id).or_insert(None);
    }
    let job_calls: Vec<_> = all_runs
        .iter()
        .map(|(&id, run)| async move {
            let finished = run
                .as_ref()
                .filter(|r| r.state == CheckState::Completed)
                .map(|r| r.updated_at.as_ref().map(format_time).unwrap_or_default());
            let key = finished.map(|at| {
                cache.key(format!(
                    "{}/{}|run {id} jobs|{at}",
                    repo.web_base.as_deref().unwrap_or("default"),
                    repo.full_name()
                ))
            });
            if let Some(key) = &key
                && let Some(hit) = cache.run_jobs.lock().ok().and_then(|c| c.get(key).cloned())
            {
                return (id, Ok(hit));
            }
            let jobs = history.run_jobs_all_attempts(repo, id).await.map(Arc::new);
            if let (Some(key), Ok(jobs)) = (key, &jobs) {
                remember(&cache.run_jobs, key, jobs.clone());
            }
            (id, jobs)
        })
        .collect();
    let jobs_by_run: Vec<(u64, _)> = futures::stream::iter(job_calls)
        .buffer_unordered(CONCURRENT)
        .collect()
        .await;
    let mut jobs: Vec<Job> = Vec::new();
    for (id, got) in jobs_by_run {
        match got {
            Ok(list) => jobs.extend(list.iter().cloned()),
            Err(e) => {
                problems.insert(format!("jobs of run {id}: {e}"));
            }
        }
    }
    // Each run was listed once, so no job twice; newest first for the take below.
    jobs.sort_by_key(|j| std::cmp::Reverse(j.completed_at));
    // The other completed jobs of each failed check's name, newest first.
    let mut to_read: BTreeMap<u64, ActionsJobRef> = BTreeMap::new();
    let mut others: Vec<(usize, Vec<&Job>)> = Vec::new();
    for (i, (check, _)) in checks.iter().enumerate() {
        let Some(this) = &check.actions_job else {
            continue;
        };
        let same_workflow: BTreeSet<u64> = workflow_of
            .get(&this.run_id)
            .and_then(|w| runs_of.get(w))
            .map(|runs| runs.iter().map(|r| r.id).collect())
            .unwrap_or_default();
        let mine: Vec<&Job> = jobs
            .iter()
            .filter(|j| {
                j.name == check.name
                    && j.id != this.job_id
                    && j.state == CheckState::Completed
                    && (j.run_id == this.run_id || same_workflow.contains(&j.run_id))
            })
            .take(HISTORY_RUNS - 1)
            .collect();
        for j in &mine {
            if j.conclusion.is_some_and(|c| c.is_failure()) {
                if to_read.len() >= MAX_HISTORY_LOGS && !to_read.contains_key(&j.id) {
                    problems.insert(format!(
                        "only {MAX_HISTORY_LOGS} other failed jobs' logs were read"
                    ));
                    continue;
                }
                to_read.insert(
                    j.id,
                    ActionsJobRef {
                        run_id: j.run_id,
                        job_id: j.id,
                    },
                );
            }
        }
        others.push((i, mine));
    }
    // The failed ones' logs: the tests each names.
    let log_calls: Vec<_> = to_read
        .values()
        .map(|job| async move {
            let key = cache.key(format!(
                "{}/{}|job {} failures",
                repo.web_base.as_deref().unwrap_or("default"),
                repo.full_name(),
                job.job_id
            ));
            if let Some(hit) = cache
                .job_tests
                .lock()
                .ok()
                .and_then(|c| c.get(&key).cloned())
            {
                return (job.job_id, Ok(hit));
            }
            let names = failing_tests(actions, repo, job, max_log_bytes).await;
            if let Ok(names) = &names {
                remember(&cache.job_tests, key, names.clone());
            }
            (job.job_id, names)
        })
        .collect();
    let logs: HashMap<u64, _> = futures::stream::iter(log_calls)
        .buffer_unordered(CONCURRENT)
        .collect()
        .await;
    for (i, mine) in others {
        let (check, found) = checks[i];
        for job in mine {
            let passed = job.conclusion == Some(CheckConclusion::Success);
            let failed_names = match logs.get(&job.id) {
                Some(Ok(names)) => Some(names.clone()),
                Some(Err(e)) => {
                    problems.insert(format!("log of job {}: {e}", job.id));
                    None
                }
                None => None,
            };
            for f in &found.failures {
                let entry = out
                    .tests
                    .entry((check.name.clone(), f.test_name.clone()))
                    .or_default();
                if passed {
                    entry.passed += 1;
                } else if let Some(names) = &failed_names
                    && names.iter().any(|n| same_test(n, &f.test_name))
                {
                    entry.failed += 1;
                }
            }
        }
    }
    if !problems.is_empty() {
        let more = problems.len().saturating_sub(3);
        let mut list: Vec<String> = problems.into_iter().take(3).collect();
        if more > 0 {
            list.push(format!("{more} more"));
        }
        out.note = Some(format!(
            "part of the run history could not be read: {}",
            list.join("; ")
        ));
    }
    out
}

/// The names of the tests a finished job's log reports failing (the log streamed through
/// the scanner, only its last `max_bytes`).
async fn failing_tests(
    actions: &dyn resolve_pr_forge::Actions,
    repo: &RepoRef,
    job: &ActionsJobRef,
    max_bytes: u64,
) -> resolve_pr_forge::Result<Arc<Vec<String>>> {
    let mut stream = actions.job_log(repo, job, max_bytes).await?;
    let mut scanner = Scanner::new();
    while let Some(chunk) = stream.chunks.next().await {
        scanner.feed(&chunk?);
    }
    Ok(Arc::new(
        scanner
            .finish()
            .found
            .into_iter()
            .map(|f| f.failure.test_name)
            .collect(),
    ))
}

/// The same test, whichever side carries nextest's binary in front (this run's name may be
/// its JUnit report's, another run's its log's).
fn same_test(a: &str, b: &str) -> bool {
    super::junit_jobs::same_name(a, b) || super::junit_jobs::same_name(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_score_needs_another_outcome_and_is_the_share_of_passes() {
        let h = |failed, passed| TestHistory { failed, passed }.flakiness_score();
        assert_eq!(h(1, 0), None, "this run alone says nothing");
        assert_eq!(h(3, 0), Some(0.0), "failed every time: a real failure");
        assert_eq!(h(1, 1), Some(0.5));
        assert_eq!(h(1, 3), Some(0.75));
    }

    #[test]
    fn names_match_exactly_or_with_nextests_binary_in_front() {
        assert!(same_test("tests::it", "tests::it"));
        assert!(same_test("ledger::tests::it", "tests::it"));
        assert!(same_test("tests::it", "ledger::tests::it"));
        assert!(!same_test("tests::it", "tests::it_too"));
        assert!(!same_test("xtests::it", "tests::it"));
    }
}
