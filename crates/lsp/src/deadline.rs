//! A code call's deadline, seen by every wait inside it: a client gives up on a request after
//! its own timeout (60 s in the TypeScript SDK, whatever progress says), so a wait for a server
//! to index ends early enough for the call to answer with what it has, said to be partial.
//!
//! The deadline is a task-local value set by whoever runs the call ([`within`]); waits read
//! it through [`wait_until`]. Outside a call (tests, the pool's own tasks) waits keep their
//! own limits.

use std::future::Future;
use std::time::{Duration, Instant};

tokio::task_local! {
    static CALL_DEADLINE: Instant;
}

/// Runs `work` with `deadline` as the deadline of every wait inside it.
pub async fn within<F: Future>(deadline: Instant, work: F) -> F::Output {
    CALL_DEADLINE.scope(deadline, work).await
}

/// `wait` from now, but not past the call's deadline.
pub fn wait_until(wait: Duration) -> Instant {
    let own = Instant::now() + wait;
    CALL_DEADLINE.try_with(|d| (*d).min(own)).unwrap_or(own)
}

/// `wait` from now, but not later than `leave` before the call's deadline (time kept for
/// answering another way), and not before now.
pub fn wait_until_leaving(wait: Duration, leave: Duration) -> Instant {
    let now = Instant::now();
    let own = now + wait;
    CALL_DEADLINE
        .try_with(|d| own.min(d.checked_sub(leave).unwrap_or(now)).max(now))
        .unwrap_or(own)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_wait_ends_at_the_calls_deadline_when_that_comes_first() {
        let soon = Instant::now() + Duration::from_secs(1);
        let (inside, long) = within(soon, async {
            (
                wait_until(Duration::from_secs(40)),
                wait_until(Duration::from_millis(10)),
            )
        })
        .await;
        assert_eq!(inside, soon);
        assert!(long < soon);
        assert!(wait_until(Duration::from_secs(40)) > soon + Duration::from_secs(30));
    }
}
