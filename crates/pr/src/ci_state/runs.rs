//! What the workflow runs behind the checks say: the run the failures come from, the step a
//! running job is in, and when the running workflows should be done.

use std::collections::HashMap;

use resolve_pr_core::RepoRef;
use resolve_pr_forge::{CheckConclusion, CheckState, Forge, Timestamp, WorkflowRun};

use super::rollup::Rollup;

/// Past successful runs a workflow's typical duration is the median of.
const HISTORY_RUNS: usize = 10;
/// Running workflow runs estimated at most (each costs two requests).
const ESTIMATED_RUNS: usize = 3;

/// The workflow run behind the failures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CiRun {
    pub workflow_name: String,
    pub run_id: u64,
    pub run_url: Option<String>,
    pub started_at: Option<Timestamp>,
    /// When it last changed, once it has completed.
    pub completed_at: Option<Timestamp>,
    pub duration_seconds: Option<u64>,
    pub state: CheckState,
    pub conclusion: Option<CheckConclusion>,
}

impl CiRun {
    fn of(run: &WorkflowRun) -> CiRun {
        let run = run.clone();
        let completed_at = (run.state == CheckState::Completed)
            .then_some(run.updated_at)
            .flatten();
        let duration_seconds = match (&run.started_at, &completed_at) {
            (Some(a), Some(b)) => seconds_between(a, b),
            _ => None,
        };
        CiRun {
            workflow_name: run.name,
            run_id: run.id,
            run_url: run.html_url,
            started_at: run.started_at,
            completed_at,
            duration_seconds,
            state: run.state,
            conclusion: run.conclusion,
        }
    }
}

/// When the running workflows should be done, from their workflows' history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    /// Unix seconds.
    pub done_at: i64,
    /// The median duration behind it, and how many runs it is the median of.
    pub typical_seconds: u64,
    pub runs: usize,
}

/// The step a running Actions job is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningStep {
    /// The job's check.
    pub check: String,
    pub step: String,
    /// 1-based, of `steps`.
    pub number: u64,
    pub steps: usize,
}

/// `ci_run` (the run of the first failed, else running, else any Actions check) and the
/// estimate (the running runs). Each run is read once, however many of the two need it.
pub(super) async fn runs_info(
    forge: &dyn Forge,
    repo: &RepoRef,
    rollup: &Rollup<'_>,
) -> (Option<CiRun>, Option<Estimate>) {
    let main = rollup
        .failed
        .iter()
        .chain(rollup.running.iter())
        .copied()
        .chain(rollup.snapshot.checks.iter())
        .find_map(|c| c.actions_job.as_ref())
        .map(|job| job.run_id);
    let mut running: Vec<u64> = Vec::new();
    for check in rollup.running.iter().chain(rollup.queued.iter()) {
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
    let runs: HashMap<u64, WorkflowRun> = futures::future::join_all(ids.map(|id| async move {
        let run = forge.actions()?.workflow_run(repo, id).await.ok()?;
        Some((id, run))
    }))
    .await
    .into_iter()
    .flatten()
    .collect();
    let info = main.and_then(|id| runs.get(&id)).map(CiRun::of);
    let estimate = estimate(forge, repo, running.iter().filter_map(|id| runs.get(id))).await;
    (info, estimate)
}

/// The step the first running Actions job is in.
pub(super) async fn running_step(
    forge: &dyn Forge,
    repo: &RepoRef,
    rollup: &Rollup<'_>,
) -> Option<RunningStep> {
    let check = rollup.running.iter().find(|c| c.actions_job.is_some())?;
    let job = forge
        .actions()?
        .actions_job(repo, check.actions_job.as_ref()?)
        .await
        .ok()?;
    let steps = job.steps.len();
    let step = job
        .steps
        .iter()
        .find(|s| s.state == CheckState::InProgress)?;
    Some(RunningStep {
        check: check.name.clone(),
        step: step.name.clone(),
        number: step.number,
        steps,
    })
}

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
        let Some(started) = run.started_at else {
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
                .workflow_history()?
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

/// Whole seconds from `a` to `b`; `None` when `b` is before `a`.
fn seconds_between(a: &Timestamp, b: &Timestamp) -> Option<u64> {
    u64::try_from((*b - *a).num_seconds()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_from_timestamps() {
        let t = |s: &str| resolve_pr_forge::parse_time(s).unwrap();
        assert_eq!(
            seconds_between(&t("2024-05-01T10:00:00Z"), &t("2024-05-01T10:03:20Z")),
            Some(200)
        );
        assert_eq!(
            seconds_between(&t("2024-02-28T23:59:00Z"), &t("2024-03-01T00:00:00Z")),
            Some(86460)
        );
        // Offsets are instants, not spellings: 12:03:20+02:00 is 10:03:20Z.
        assert_eq!(
            seconds_between(&t("2024-05-01T10:00:00Z"), &t("2024-05-01T12:03:20+02:00")),
            Some(200)
        );
        assert_eq!(
            seconds_between(&t("2024-05-01T10:03:20Z"), &t("2024-05-01T10:00:00Z")),
            None
        );
        // A malformed time never reaches here: the forge client refuses it.
        assert_eq!(resolve_pr_forge::parse_time("garbage"), None);
    }
}
