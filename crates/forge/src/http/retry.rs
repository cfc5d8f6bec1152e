//! How hard one call tries: the policy's bounds, whether a failed attempt may be repeated, and
//! the loop that sleeps between attempts (the forge's own wait when it names one, else a
//! jittered exponential backoff) until the bounds say stop.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};

use super::{Http, Request};

use crate::{Error, Result};

/// How hard one call tries before it gives up. The defaults suit an interactive agent: a
/// call never sleeps more than a minute in total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Most time one call may spend sleeping between attempts. A wait the forge asks for
    /// that does not fit becomes [`crate::Error::RateLimited`] with `retry_after` instead.
    pub max_total_wait: Duration,
    /// First backoff delay for transient faults; doubles (with jitter) up to `max_backoff`.
    pub min_backoff: Duration,
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            max_total_wait: Duration::from_secs(60),
            min_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
        }
    }
}

impl RetryPolicy {
    fn backoff(&self) -> impl Iterator<Item = Duration> + use<> {
        ExponentialBuilder::new()
            .with_jitter()
            .with_min_delay(self.min_backoff)
            .with_max_delay(self.max_backoff.max(self.min_backoff))
            .with_max_times(self.max_retries as usize)
            .build()
    }
}

/// Whether a failed attempt may be tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retry {
    No,
    /// The forge may have acted on the request (5xx, broken connection after sending).
    IfIdempotent,
    /// The forge certainly did not act on it (could not connect, rate-limited).
    Always,
}

#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub error: Error,
    pub retry: Retry,
    /// The wait the forge asked for; `None` means use the backoff schedule.
    pub wait: Option<Duration>,
}

impl Failure {
    pub(crate) fn fatal(error: Error) -> Self {
        Failure {
            error,
            retry: Retry::No,
            wait: None,
        }
    }
}

impl Http {
    /// Runs `attempt` until it succeeds or the policy says stop.
    pub(super) async fn retrying<T, F, Fut>(&self, req: &Request<'_>, mut attempt: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = std::result::Result<T, Failure>>,
    {
        let mut delays = self.retry.backoff();
        let mut slept = Duration::ZERO;
        let mut retries = 0u32;
        loop {
            let failure = match attempt().await {
                Ok(done) => return Ok(done),
                Err(failure) => failure,
            };
            let retryable = match failure.retry {
                Retry::No => false,
                Retry::IfIdempotent => req.idempotent,
                Retry::Always => true,
            };
            if !retryable {
                return Err(failure.error);
            }
            let wait = match failure.wait {
                Some(wait) => wait,
                None => match delays.next() {
                    Some(delay) => delay,
                    None => return Err(failure.error),
                },
            };
            // Saturating: a forge may ask for an absurd wait (retry-after: 2^64-1); that is
            // "over the bound", never an overflow.
            if retries >= self.retry.max_retries
                || slept.saturating_add(wait) > self.retry.max_total_wait
            {
                return Err(failure.error);
            }
            tracing::debug!(
                forge = %self.forge,
                method = %req.method,
                url = %req.url,
                wait_ms = wait.as_millis() as u64,
                error = %failure.error,
                "retrying"
            );
            tokio::time::sleep(wait).await;
            slept = slept.saturating_add(wait);
            retries += 1;
        }
    }
}
