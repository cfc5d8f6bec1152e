//! Wait mode: how long one call may wait, and the poll loop. Waiting is a mode of this tool,
//! not an answer about the PR: its limit depends on whether the client hears progress, its
//! pauses on `CiSettings`, it reports progress through the call's sink, and it ends when the
//! caller drops the call future (MCP cancellation). When the CI answer is final is the pr
//! layer's rule (`Rollup::settled`).

use std::time::{Duration, Instant};

use resolve_pr_core::{Error, PrRef, Result};
use resolve_pr_forge::{CiSnapshot, Forge};
use resolve_pr_pr::ci_state::{Rollup, Status};

use super::WaitReport;
use super::instructions::progress_message;
use crate::Context;

/// How long one call may wait: what the caller asked (1-1800 s), else 30 minutes for a
/// client that hears progress and less than a minute for one that does not; never more
/// than the configured cap.
pub(super) fn limit(ctx: &Context, asked: Option<u64>) -> Result<Duration> {
    let limit = match asked {
        Some(secs @ 1..=1800) => Duration::from_secs(secs),
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

/// Polls until the answer is final (or the first failure, with `bail_on_first`), `limit`,
/// or cancellation (the caller drops this future). The last pause is cut short so the last
/// poll happens at the limit, not a pause before it.
pub(super) async fn until_settled(
    ctx: &Context,
    forge: &dyn Forge,
    pr: &PrRef,
    bail_on_first: bool,
    limit: Duration,
) -> Result<(CiSnapshot, WaitReport)> {
    let started = Instant::now();
    let settings = &ctx.ci;
    let mut pause = settings.poll_min;
    let mut polls = 0u32;
    loop {
        let snapshot = forge.checks().ci_snapshot(pr).await?;
        polls += 1;
        let rollup = Rollup::of(&snapshot);
        let elapsed = started.elapsed();
        let done = rollup.settled(bail_on_first, elapsed, settings.no_checks_grace);
        let left = limit.saturating_sub(elapsed);
        // Less than a tenth of a pause left is not worth another poll.
        let timed_out = !done && left < settings.poll_min / 10 + Duration::from_millis(1);
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
        let message = match rollup.status {
            Status::Unknown => "no checks reported yet".to_owned(),
            _ => progress_message(&rollup),
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
