//! The CI state of a pull request's head commit: the rollup of its checks ([`Rollup`]), what
//! each failed check says failed (JUnit reports, job logs streamed through the `ci` crate's
//! scanner, annotations, other CI systems' output), the workflow run behind them, the step a
//! running job is in, when the running workflows should be done, and what to fix first
//! ([`prioritize`]).
//!
//! Polling is the caller's: it reads a snapshot as often as it likes, and [`Rollup::settled`]
//! says when waiting longer would not change the answer.

mod failures;
mod history;
mod junit_jobs;
mod priority;
mod rollup;
mod runs;

use std::sync::Arc;

use resolve_pr_core::RepoRef;
use resolve_pr_forge::{CiSnapshot, Forge};

pub use failures::{CheckFindings, FailureKind, JobCache, Source, TestCategory, TestFailure};
pub use history::{HISTORY_RUNS, History, TestHistory, test_history};
pub use priority::{Cause, Priority, prioritize};
pub use rollup::{CheckCounts, PendingCheck, PendingState, Rollup, Status, finished_ms};
pub use runs::{CiRun, Estimate, RunningStep};

/// What a snapshot of a head commit's CI adds up to, with everything its failed and running
/// checks say.
#[derive(Debug)]
pub struct CiState<'a> {
    pub rollup: Rollup<'a>,
    /// What each of `rollup.failed` says failed, in that order.
    pub findings: Vec<Arc<CheckFindings>>,
    /// The workflow run of the first failed Actions job, else of the first running one, else
    /// of any.
    pub run: Option<CiRun>,
    /// When the running workflows should be done (GitHub Actions keeps the history).
    pub estimate: Option<Estimate>,
    /// The step the first running Actions job is in.
    pub running_step: Option<RunningStep>,
}

/// Reads what the snapshot's failed and running checks say. Job logs are streamed, never
/// held whole, and only their last `max_log_bytes` are read. Completed jobs' findings and
/// settled runs' JUnit reports are kept in `cache`, and only when everything was read.
/// Nothing here fails: what cannot be read becomes a note on its check, or is left out.
pub async fn ci_state<'a>(
    forge: &dyn Forge,
    repo: &RepoRef,
    snapshot: &'a CiSnapshot,
    cache: &JobCache,
    max_log_bytes: u64,
) -> CiState<'a> {
    let rollup = Rollup::of(snapshot);
    let (findings, (run, estimate), running_step) = tokio::join!(
        failures::collect(forge, repo, &rollup, cache, max_log_bytes),
        runs::runs_info(forge, repo, &rollup),
        runs::running_step(forge, repo, &rollup),
    );
    CiState {
        rollup,
        findings,
        run,
        estimate,
        running_step,
    }
}
