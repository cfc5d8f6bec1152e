//! Connections of `serve --http`: accepted by our own loop (axum's `serve` cannot set hyper's
//! timer, so it has no header timeout), served by hyper's HTTP/1 connection with a header
//! timeout, and held under a limit below the process's descriptor limit. A connection over the
//! limit is answered `503` at once and closed, so the listener never runs out of descriptors
//! and an attacker's idle connections cannot starve everyone else.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio_util::sync::CancellationToken;

/// The most connections a descriptor limit leaves room for, by default: a quarter of it (at
/// least 32) stays for what else the process opens (language servers' pipes, git, forge
/// connections, log and plan files), and no more than [`MOST_CONNECTIONS`].
pub(crate) fn connections_within(descriptor_limit: u64) -> usize {
    let room = descriptor_room(descriptor_limit).max(1);
    usize::try_from(room)
        .unwrap_or(usize::MAX)
        .min(MOST_CONNECTIONS)
}

/// The descriptors left for connections once the reserve is set aside.
pub(crate) fn descriptor_room(descriptor_limit: u64) -> u64 {
    let reserve = (descriptor_limit / 4).max(RESERVED_DESCRIPTORS);
    descriptor_limit.saturating_sub(reserve)
}

/// Descriptors kept for everything but connections, at the least.
const RESERVED_DESCRIPTORS: u64 = 32;

/// The default limit however many descriptors there are: past this, memory (a task and
/// hyper's buffers per connection) runs out before descriptors do.
const MOST_CONNECTIONS: usize = 8192;

/// Over-limit connections answered at once while their client's request is read and thrown
/// away (see `refuse`); any more are answered without waiting.
const LINGERING: usize = 32;

/// How long an over-limit connection is read after its answer, so that closing it does not
/// reset the connection under the client's feet (a reset can discard the answer unread).
const LINGER: Duration = Duration::from_millis(500);

/// Pause after a failed accept (out of descriptors, out of memory), so the loop neither
/// spins nor stops.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The soft descriptor limit (`RLIMIT_NOFILE`) of this process, when the platform has one.
pub(crate) fn descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, getrlimit};
        // `None` is RLIM_INFINITY.
        Some(getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Raises this process's soft descriptor limit to its hard limit, as far as the system lets
/// it: the soft limit is often 1,024 while the hard one allows far more, and every HTTP
/// connection takes a descriptor. Children (language servers, git) inherit the raised limit.
/// Logs the limits at debug level; a failure only leaves the limit as it was.
pub fn raise_descriptor_limit() {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        // `None` is RLIM_INFINITY.
        let limits = getrlimit(Resource::Nofile);
        let soft = limits.current.unwrap_or(u64::MAX);
        let hard = limits.maximum.unwrap_or(u64::MAX);
        // macOS refuses a soft limit over OPEN_MAX (10,240) whatever the hard limit says.
        let wanted = if cfg!(target_os = "macos") {
            hard.min(10_240)
        } else {
            hard
        };
        if wanted <= soft {
            tracing::debug!(
                soft,
                hard,
                "descriptor limit (the soft limit is the hard one)"
            );
            return;
        }
        let raised = Rlimit {
            current: Some(wanted),
            maximum: limits.maximum,
        };
        match setrlimit(Resource::Nofile, raised) {
            Ok(()) => tracing::debug!(
                from = soft,
                to = wanted,
                hard,
                "raised the soft descriptor limit"
            ),
            Err(e) => tracing::debug!(
                soft,
                hard,
                error = %e,
                "cannot raise the soft descriptor limit; keeping it"
            ),
        }
    }
}

/// How connections are accepted and served.
pub(crate) struct Connections {
    pub router: Router,
    pub header_timeout: Duration,
    pub max_connections: usize,
}

/// The accept loop and the connections it started: ended by [`Accepting::close`].
pub(crate) struct Accepting {
    stop_accepting: CancellationToken,
    close_connections: CancellationToken,
    /// Every connection task holds a receiver; `closed()` resolves once they have all ended.
    open: watch::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Accepting {
    /// Starts accepting on `listener`.
    pub(crate) fn start(listener: TcpListener, connections: Connections) -> Accepting {
        let stop_accepting = CancellationToken::new();
        let close_connections = CancellationToken::new();
        let (open, _) = watch::channel(());
        let task = tokio::spawn(accept(
            listener,
            connections,
            stop_accepting.clone(),
            close_connections.clone(),
            open.clone(),
        ));
        Accepting {
            stop_accepting,
            close_connections,
            open,
            task,
        }
    }

    /// Resolves if the accept loop ends before it was asked to (it never should: it survives
    /// every accept error), with why.
    pub(crate) async fn ended(&mut self) -> String {
        match (&mut self.task).await {
            Ok(()) => "the accept loop ended".to_owned(),
            Err(e) => format!("the accept loop failed: {e}"),
        }
    }

    /// Stops accepting (the listener closes), asks every connection to close once its response
    /// in progress is sent, and waits for them at most `patience`.
    pub(crate) async fn close(self, patience: Duration) {
        let Accepting {
            stop_accepting,
            close_connections,
            open,
            task,
        } = self;
        stop_accepting.cancel();
        if let Err(e) = task.await {
            tracing::warn!(error = %e, "the accept loop failed");
        }
        close_connections.cancel();
        let still_open = open.receiver_count();
        if tokio::time::timeout(patience, open.closed()).await.is_err() {
            tracing::debug!(
                connections = open.receiver_count(),
                "connections still open after the close wait; leaving them"
            );
        } else {
            tracing::debug!(connections = still_open, "every connection closed");
        }
    }
}

async fn accept(
    listener: TcpListener,
    connections: Connections,
    stop: CancellationToken,
    closing: CancellationToken,
    open: watch::Sender<()>,
) {
    let Connections {
        router,
        header_timeout,
        max_connections,
    } = connections;
    let slots = Arc::new(Semaphore::new(max_connections));
    let lingering = Arc::new(Semaphore::new(LINGERING));
    let at_capacity = at_capacity_response(max_connections);
    // A descriptor held in reserve: when accept fails for want of descriptors, giving it back
    // lets one waiting connection be accepted and told 503 instead of waiting in the backlog.
    let mut spare = spare_descriptor();
    let mut failing_since: Option<(std::time::Instant, u64)> = None;
    loop {
        let accepted = tokio::select! {
            biased;
            () = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let error = match accepted {
            Ok((stream, _peer)) => {
                if let Some((since, failures)) = failing_since.take() {
                    tracing::info!(
                        failures,
                        seconds = since.elapsed().as_secs_f64(),
                        "accepting connections again"
                    );
                }
                match slots.clone().try_acquire_owned() {
                    Ok(slot) => {
                        let task = serve_connection(
                            stream,
                            router.clone(),
                            header_timeout,
                            closing.clone(),
                            (slot, open.subscribe()),
                        );
                        tokio::spawn(task);
                    }
                    Err(_) => {
                        tracing::debug!(max_connections, "at the connection limit: answered 503");
                        let linger = lingering.clone().try_acquire_owned().ok();
                        tokio::spawn(refuse(stream, at_capacity.clone(), linger));
                    }
                }
                continue;
            }
            Err(e) => e,
        };
        if is_connection_error(&error) {
            continue; // the client gave up before we accepted: nothing to do
        }
        if out_of_descriptors(&error)
            && let Some(reserve) = spare.take()
        {
            drop(reserve);
            let shed = match tokio::time::timeout(ACCEPT_BACKOFF, listener.accept()).await {
                Ok(Ok((stream, _))) => {
                    tracing::debug!("out of descriptors: answered 503 with the spare one");
                    refuse(stream, at_capacity.clone(), None).await;
                    true
                }
                _ => false,
            };
            spare = spare_descriptor();
            if shed {
                continue;
            }
        }
        match &mut failing_since {
            None => {
                tracing::warn!(
                    error = %error,
                    "cannot accept connections; retrying every {} ms",
                    ACCEPT_BACKOFF.as_millis()
                );
                failing_since = Some((std::time::Instant::now(), 1));
            }
            Some((_, failures)) => *failures += 1,
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(ACCEPT_BACKOFF) => {}
        }
    }
}

/// One connection until it closes: hyper's header timeout bounds how long a request head may
/// take to arrive, from the connection's start and again after each response (a kept-alive
/// connection waiting for its next request), so idle and slow-header connections free their
/// slot. The request body's deadline is the router's (see `body`).
async fn serve_connection(
    stream: TcpStream,
    router: Router,
    header_timeout: Duration,
    closing: CancellationToken,
    _held: (OwnedSemaphorePermit, watch::Receiver<()>),
) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let connection =
        builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(router));
    tokio::pin!(connection);
    let ended = tokio::select! {
        ended = connection.as_mut() => ended,
        () = closing.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    match ended {
        Ok(()) => {}
        Err(e) if e.is_timeout() => {
            tracing::debug!("closed a connection whose request head did not arrive in time");
        }
        Err(e) => tracing::debug!(error = %e, "a connection ended with an error"),
    }
}

/// `503` with `Retry-After` and `Connection: close`, written before anything is read.
fn at_capacity_response(max_connections: usize) -> Arc<[u8]> {
    let body = format!(
        "the server is at its connection limit ({max_connections} open connections); try \
         again in a moment\n"
    );
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
    .into()
}

/// Answers an over-limit connection and closes it. The client's request is still unread:
/// closing at once would reset the connection, and a reset can make the client drop the answer
/// unread; so, while a lingering slot is free, our side is shut after the answer and what the
/// client sends is read and thrown away for a moment.
async fn refuse(mut stream: TcpStream, answer: Arc<[u8]>, linger: Option<OwnedSemaphorePermit>) {
    let Some(_linger) = linger else {
        let _ = stream.try_write(&answer);
        return;
    };
    let _ = tokio::time::timeout(LINGER, async {
        stream.write_all(&answer).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), io::Error>(())
    })
    .await;
}

/// Errors of one connection that went away before it was accepted.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// EMFILE or ENFILE: this process, or the whole system, has no descriptor left.
fn out_of_descriptors(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        matches!(
            e.raw_os_error().map(Errno::from_raw_os_error),
            Some(Errno::MFILE | Errno::NFILE)
        )
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

fn spare_descriptor() -> Option<std::fs::File> {
    #[cfg(unix)]
    {
        std::fs::File::open("/dev/null").ok()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_leave_a_quarter_of_the_descriptors_for_the_rest() {
        assert_eq!(connections_within(256), 192);
        assert_eq!(connections_within(1024), 768);
        assert_eq!(connections_within(100), 68);
        assert_eq!(connections_within(20), 1);
        assert_eq!(connections_within(1 << 20), MOST_CONNECTIONS);
    }

    #[test]
    fn the_503_is_a_whole_http_response() {
        let answer = at_capacity_response(192);
        let text = std::str::from_utf8(&answer).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 503 Service Unavailable\r\n"));
        assert!(head.contains("\r\nretry-after: 1"));
        assert!(head.contains("\r\nconnection: close"));
        assert!(head.contains(&format!("\r\ncontent-length: {}", body.len())));
        assert!(body.contains("connection limit (192 open connections)"));
    }
}
