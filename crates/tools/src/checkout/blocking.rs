//! Git work off the async runtime: progress while it runs, cancelled with its call.

use resolve_pr_core::{Error, Result};
use resolve_pr_git::Cancellation;

use crate::Context;

/// How often a call doing long git work (a first clone of a large repository) tells the
/// client it is alive: clients on the TypeScript SDK end a call after 60 s without progress.
pub(crate) const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs blocking git work off the async runtime, reporting progress (`what`, and how long it
/// has run) every [`PROGRESS_EVERY`] while it runs, when the caller asked for progress. When
/// the call is cancelled (this future dropped), the git commands talking to a remote are
/// killed with their helpers and no further one starts; the work then ends on its own.
pub(crate) async fn blocking<T, F>(ctx: &Context, what: &str, f: F) -> Result<T>
where
    F: FnOnce() -> Result<T> + Send + 'static,
    T: Send + 'static,
{
    blocking_every(ctx, what, PROGRESS_EVERY, f).await
}

async fn blocking_every<T, F>(
    ctx: &Context,
    what: &str,
    every: std::time::Duration,
    f: F,
) -> Result<T>
where
    F: FnOnce() -> Result<T> + Send + 'static,
    T: Send + 'static,
{
    let cancellation = Cancellation::new();
    let _cancel_on_drop = CancelOnDrop(cancellation.clone());
    let mut work = tokio::task::spawn_blocking(move || {
        let _entered = cancellation.enter();
        f()
    });
    let mut ticks = 0u32;
    loop {
        tokio::select! {
            done = &mut work => {
                return done.map_err(|e| {
                    Error::unknown(format!("the git work stopped unexpectedly: {e}"))
                })?;
            }
            () = tokio::time::sleep(every) => {
                ticks += 1;
                let seconds = (every * ticks).as_secs();
                ctx.report_progress(f64::from(ticks), None, format!("{what} ({seconds} s)")).await;
            }
        }
    }
}

/// Cancels the git work of [`blocking_every`] when its future is dropped (after the work has
/// finished, that changes nothing).
struct CancelOnDrop(Cancellation);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use resolve_pr_core::CursorCodec;
    use resolve_pr_forge::{Config, Forges};

    use super::*;
    use crate::{BoxFuture, ProgressSink};

    struct Recorder(Mutex<Vec<(f64, String)>>);

    impl ProgressSink for Recorder {
        fn report(&self, progress: f64, _total: Option<f64>, message: String) -> BoxFuture<'_, ()> {
            self.0.lock().unwrap().push((progress, message));
            Box::pin(async {})
        }
    }

    #[tokio::test]
    async fn long_git_work_keeps_telling_the_client_it_is_alive() {
        let config = Config::from_parts(None, None, &|_| None).unwrap();
        let ctx = Context::new(Arc::new(Forges::new(config)), CursorCodec::new([1; 32]));
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        let ctx = ctx.with_progress(recorder.clone());
        let out = blocking_every(&ctx, "cloning", Duration::from_millis(40), || {
            std::thread::sleep(Duration::from_millis(300));
            Ok(7)
        })
        .await
        .unwrap();
        assert_eq!(out, 7);
        let reports = recorder.0.lock().unwrap().clone();
        assert!(reports.len() >= 3, "{reports:?}");
        assert!(
            reports.windows(2).all(|w| w[0].0 < w[1].0),
            "progress grows: {reports:?}"
        );
        assert!(reports[0].1.starts_with("cloning ("), "{reports:?}");
        // Quick work reports nothing.
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        let ctx = ctx.with_progress(recorder.clone());
        blocking(&ctx, "reading", || Ok(())).await.unwrap();
        assert!(recorder.0.lock().unwrap().is_empty());
    }
}
