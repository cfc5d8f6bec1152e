//! The blob storage job logs and artifact archives redirect to: a second listener (another
//! port, so another origin to clients), serving bytes with `Range` support, streaming them in
//! chunks so a multi-gigabyte generated log costs no memory, and recording whether a request
//! carried an `Authorization` header (it must not: the token belongs to the forge).

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use hyper::header::{HeaderValue, RANGE};
use hyper::service::service_fn;
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

use crate::ci::{Blob, LogContent, blob, parse_range};
use crate::server::{Shared, StorageRequest, lock};

/// Bytes per frame of a streamed blob.
const CHUNK: usize = 64 * 1024;

pub(crate) async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let shared = shared.clone();
                connections.spawn(async move {
                    let service = service_fn(move |req| {
                        let shared = shared.clone();
                        async move { handle(&shared, req) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .keep_alive(true)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

#[derive(Debug)]
struct Reset;

impl std::fmt::Display for Reset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("injected connection reset")
    }
}

impl std::error::Error for Reset {}

fn handle<B>(shared: &Shared, req: hyper::Request<B>) -> Result<Response<BlobBody>, Reset> {
    let path = req.uri().path().to_owned();
    let range = req
        .headers()
        .get(RANGE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let authorization = req.headers().contains_key(hyper::header::AUTHORIZATION);
    let record = |status: u16| {
        lock(&shared.storage_log).push(StorageRequest {
            path: path.clone(),
            range: range.clone(),
            authorization,
            status,
        });
    };
    let found = if req.method() == hyper::Method::GET {
        blob(&lock(&shared.world), &path)
    } else {
        None
    };
    let (content, fault) = match found {
        Some(Blob::Log(content, fault)) => (content, fault),
        Some(Blob::Archive(bytes)) => (LogContent::Text(bytes), None),
        None => {
            record(404);
            return Ok(error(
                404,
                "BlobNotFound",
                "The specified blob does not exist.",
            ));
        }
    };
    match fault.as_deref() {
        Some("error") => {
            record(500);
            return Ok(error(
                500,
                "InternalError",
                "The server encountered an internal error.",
            ));
        }
        Some("gone") => {
            record(404);
            return Ok(error(
                404,
                "BlobNotFound",
                "The specified blob does not exist.",
            ));
        }
        Some("reset") => {
            record(0);
            return Err(Reset);
        }
        _ => {}
    }
    let len = content.len();
    let honour_range = fault.as_deref() != Some("ignore_range");
    let ranged = range
        .as_deref()
        .filter(|_| honour_range)
        .map(|h| parse_range(h, len));
    let (status, start, end) = match ranged {
        Some(Some((s, e))) => (StatusCode::PARTIAL_CONTENT, s, e + 1),
        Some(None) => {
            record(416);
            let mut r = error(416, "InvalidRange", "The range specified is invalid.");
            if let Ok(v) = HeaderValue::from_str(&format!("bytes */{len}")) {
                r.headers_mut().insert(hyper::header::CONTENT_RANGE, v);
            }
            return Ok(r);
        }
        None => (StatusCode::OK, 0, len),
    };
    record(status.as_u16());
    let mut response = Response::new(BlobBody {
        content: Some(content),
        pos: start,
        end,
        message: None,
    });
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        hyper::header::ACCEPT_RANGES,
        HeaderValue::from_static("bytes"),
    );
    if status == StatusCode::PARTIAL_CONTENT
        && let Ok(v) = HeaderValue::from_str(&format!("bytes {start}-{}/{len}", end - 1))
    {
        headers.insert(hyper::header::CONTENT_RANGE, v);
    }
    Ok(response)
}

/// Azure's XML error body.
fn error(status: u16, code: &str, message: &str) -> Response<BlobBody> {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>{code}</Code><Message>{message}</Message></Error>"
    );
    let mut response = Response::new(BlobBody {
        content: None,
        pos: 0,
        end: 0,
        message: Some(Bytes::from(body)),
    });
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/xml"),
    );
    response
}

/// Streams `content[pos..end]` in chunks, generated as they are sent.
pub(crate) struct BlobBody {
    content: Option<LogContent>,
    pos: u64,
    end: u64,
    message: Option<Bytes>,
}

impl HttpBody for BlobBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(message) = self.message.take() {
            return Poll::Ready(Some(Ok(Frame::data(message))));
        }
        let Some(content) = &self.content else {
            return Poll::Ready(None);
        };
        if self.pos >= self.end {
            return Poll::Ready(None);
        }
        let want = ((self.end - self.pos) as usize).min(CHUNK);
        let chunk = content.read(self.pos, want);
        if chunk.is_empty() {
            self.pos = self.end;
            return Poll::Ready(None);
        }
        self.pos += chunk.len() as u64;
        Poll::Ready(Some(Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.message.is_none() && (self.content.is_none() || self.pos >= self.end)
    }

    fn size_hint(&self) -> SizeHint {
        match &self.message {
            Some(m) => SizeHint::with_exact(m.len() as u64),
            None if self.content.is_some() => SizeHint::with_exact(self.end - self.pos),
            None => SizeHint::with_exact(0),
        }
    }
}
