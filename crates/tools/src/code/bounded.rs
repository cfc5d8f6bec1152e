//! A code call within its deadline: progress to a client that asked, and the answer of a
//! call that reached it.

use std::time::{Duration, Instant};

use resolve_pr_core::{Error, ErrorCode, Result};

use crate::Context;
/// How often a code call tells a client that asked for progress that it is alive: clients
/// that reset their timeout on progress (MCP Inspector's UI) give up 10 s after the last.
pub(crate) const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Runs a code tool's call within the pool's `call_wait`, telling a client that asked for
/// progress every `every` that it is alive and what it waits on (a server starting or
/// indexing, `cargo check`).
///
/// A cold rust-analyzer or `cargo check` can outlast a client's request timeout, and the
/// TypeScript SDK's is 60 s whatever progress says: every wait inside the call ends a margin
/// before the deadline (see `resolve_pr_lsp::deadline`), so the call answers with what the
/// servers have, said to be partial; a call still running at the deadline answers that the
/// servers are busy and when to ask again. A start it leaves goes on for the next call. The
/// progress ticks read the pool's state without waiting on any lock.
pub(crate) async fn bounded<T>(
    ctx: &Context,
    tool: &str,
    every: Duration,
    work: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    let wait = ctx.lsp.config().call_wait;
    let started = Instant::now();
    let deadline = started + wait;
    // Time to write the answer once the servers' waits ended.
    let margin = (wait / 8).min(Duration::from_secs(5));
    let work = resolve_pr_lsp::deadline::within(deadline - margin, work);
    tokio::pin!(work);
    let mut ticks = 0u32;
    loop {
        let next_tick = started + every * (ticks + 1);
        tokio::select! {
            done = &mut work => return done,
            () = tokio::time::sleep_until(next_tick.min(deadline).into()) => {
                if Instant::now() >= deadline {
                    return Err(still_busy(tool, wait, &ctx.lsp.busy()));
                }
                ticks += 1;
                if ctx.progress.is_some() {
                    let seconds = started.elapsed().as_secs();
                    let busy = busy_lines(&ctx.lsp.busy());
                    let message = if busy.is_empty() {
                        format!("{tool}: working ({seconds} s)")
                    } else {
                        format!("{tool}: waiting ({seconds} s); {}", busy.join("; "))
                    };
                    ctx.report_progress(f64::from(ticks), None, message).await;
                }
            }
        }
    }
}

/// How long to wait before asking again when a server is still starting or indexing at a
/// call's deadline: servers say no more than what they are doing, so this is a guess.
const ASK_AGAIN_SECONDS: u64 = 30;

/// The answer of a call that reached its deadline: what each busy server is doing, that it
/// goes on, and when to ask again.
fn still_busy(tool: &str, wait: Duration, busy: &[resolve_pr_lsp::Busy]) -> Error {
    let lines = busy_lines(busy);
    if lines.is_empty() {
        return Error::timeout(format!(
            "{tool} did not finish within {} s (RESOLVE_PR_CODE_CALL_WAIT)",
            wait.as_secs()
        ))
        .with_code(ErrorCode::Timeout)
        .with_retry_after(ASK_AGAIN_SECONDS)
        .with_suggestion(
            "Call again: work it started (a cargo check, a server loading its project) \
             keeps what it did; health_check shows the servers' state.",
        );
    }
    Error::timeout(format!(
        "{tool} did not finish within {} s: {}. It goes on in the background.",
        wait.as_secs(),
        lines.join("; ")
    ))
    .with_code(ErrorCode::ServerIndexing)
    .with_retry_after(ASK_AGAIN_SECONDS)
    .with_suggestion(format!(
        "Ask again in about {ASK_AGAIN_SECONDS} s; health_check shows what each server is \
         indexing."
    ))
}

/// One line per busy server: `rust-analyzer (crates/x) is starting (12 s)`, or what it
/// indexes. Roots are shown relative to the working directory when under it.
fn busy_lines(busy: &[resolve_pr_lsp::Busy]) -> Vec<String> {
    let cwd = std::env::current_dir().unwrap_or_default();
    busy.iter()
        .map(|b| {
            let root = match b.root.strip_prefix(&cwd) {
                Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
                Ok(rel) => rel.display().to_string(),
                Err(_) => b.root.display().to_string(),
            };
            match (&b.starting_for, &b.indexing) {
                (Some(since), _) => format!(
                    "{} for {root} is starting ({} s so far)",
                    b.server,
                    since.as_secs()
                ),
                (None, Some(what)) => format!("{} for {root} is indexing: {what}", b.server),
                (None, None) => format!("{} for {root} is busy", b.server),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_lsp::Language;

    struct Recorder(std::sync::Mutex<Vec<(f64, String)>>);

    impl crate::ProgressSink for Recorder {
        fn report(
            &self,
            progress: f64,
            _total: Option<f64>,
            message: String,
        ) -> crate::BoxFuture<'_, ()> {
            self.0.lock().unwrap().push((progress, message));
            Box::pin(async {})
        }
    }

    #[tokio::test]
    async fn a_long_code_call_reports_progress_only_to_a_client_that_asked() {
        use std::sync::Arc;
        let config = resolve_pr_forge::Config::from_parts(None, None, &|_| None).unwrap();
        let ctx = Context::new(
            Arc::new(resolve_pr_forge::Forges::new(config)),
            resolve_pr_core::CursorCodec::new([1; 32]),
        );
        let slow = || tokio::time::sleep(Duration::from_millis(300));
        // No sink: the call runs as it is.
        bounded(&ctx, "find_references", Duration::from_millis(40), async {
            slow().await;
            Ok(())
        })
        .await
        .unwrap();
        let recorder = Arc::new(Recorder(Default::default()));
        let asked = ctx.with_progress(recorder.clone());
        let answer = bounded(
            &asked,
            "find_references",
            Duration::from_millis(40),
            async {
                slow().await;
                Ok(7)
            },
        )
        .await
        .unwrap();
        assert_eq!(answer, 7);
        let reports = recorder.0.lock().unwrap().clone();
        assert!(reports.len() >= 3, "{reports:?}");
        assert!(
            reports.windows(2).all(|w| w[0].0 < w[1].0),
            "progress grows: {reports:?}"
        );
        assert!(
            reports[0].1.starts_with("find_references: working"),
            "{reports:?}"
        );
        // A quick call sends nothing.
        let before = recorder.0.lock().unwrap().len();
        bounded(&asked, "find_definition", Duration::from_secs(5), async {
            Ok(())
        })
        .await
        .unwrap();
        assert_eq!(recorder.0.lock().unwrap().len(), before);
    }

    /// A call that outlasts `call_wait` answers at it, saying it ran out of time, and the
    /// waits inside it see a deadline before the call's.
    #[tokio::test]
    async fn a_code_call_answers_at_its_deadline_and_its_waits_end_before() {
        use std::sync::Arc;
        let config = resolve_pr_forge::Config::from_parts(None, None, &|_| None).unwrap();
        let mut ctx = Context::new(
            Arc::new(resolve_pr_forge::Forges::new(config)),
            resolve_pr_core::CursorCodec::new([1; 32]),
        );
        ctx.lsp = resolve_pr_lsp::Pool::new(resolve_pr_lsp::PoolConfig {
            call_wait: Duration::from_millis(400),
            ..Default::default()
        });
        let started = Instant::now();
        let e = bounded(&ctx, "find_definition", Duration::from_secs(5), async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(())
        })
        .await
        .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(e.code, Some(ErrorCode::Timeout), "{e:?}");
        assert!(e.error.contains("did not finish"), "{e:?}");
        assert!(e.retry_after.is_some(), "{e:?}");
        let inner = bounded(&ctx, "find_definition", Duration::from_secs(5), async {
            Ok(resolve_pr_lsp::deadline::wait_until(Duration::from_secs(
                40,
            )))
        })
        .await
        .unwrap();
        assert!(
            inner < started + Duration::from_secs(5),
            "the wait was not cut"
        );
    }

    #[test]
    fn busy_servers_are_named_with_what_they_do() {
        let cwd = std::env::current_dir().unwrap();
        let busy = [
            resolve_pr_lsp::Busy {
                language: Language::Rust,
                server: "rust-analyzer",
                root: cwd.clone(),
                starting_for: Some(Duration::from_secs(12)),
                indexing: None,
            },
            resolve_pr_lsp::Busy {
                language: Language::Python,
                server: "basedpyright",
                root: cwd.join("py"),
                starting_for: None,
                indexing: Some("Indexing 3/40".into()),
            },
        ];
        let e = still_busy("find_definition", Duration::from_secs(45), &busy);
        assert_eq!(e.code, Some(ErrorCode::ServerIndexing));
        assert_eq!(
            e.error,
            "find_definition did not finish within 45 s: rust-analyzer for . is starting (12 s \
             so far); basedpyright for py is indexing: Indexing 3/40. It goes on in the background."
        );
    }
}
