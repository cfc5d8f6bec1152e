//! The body of an MCP request, read by us before rmcp sees it: whole within the body timeout
//! (a body that trickles ends with `408` and a closed connection) and no longer than
//! [`MAX_MESSAGE_BYTES`] (`413`), the limit stdio has. A body that is not one JSON-RPC message
//! rmcp can take gets `400` with the JSON-RPC error stdio answers for such a line, where rmcp
//! would answer a plain-text `415`.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context as TaskContext, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::Body as _;
use rmcp::model::ClientJsonRpcMessage;
use serde_json::json;

use super::Shared;
use crate::message::{
    self, Framing, INVALID_REQUEST, IdScanner, MAX_MESSAGE_BYTES, PARSE_ERROR, Refusal,
};

/// Every request to `/mcp` after `admit`: a POST's body is read whole, checked, and handed to
/// rmcp unchanged when it is a message rmcp takes. Other methods pass as they came.
pub(super) async fn read_message(
    State(shared): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    if declared_length(&parts.headers).is_some_and(|n| n > MAX_MESSAGE_BYTES as u64) {
        return refused(
            StatusCode::PAYLOAD_TOO_LARGE,
            &message::oversized(None),
            Close::Yes,
        );
    }
    let mut bytes = Vec::new();
    let read = tokio::time::timeout(shared.body_timeout, read_into(body, &mut bytes)).await;
    match read {
        Ok(Read::Whole) => {}
        Ok(Read::TooLong) => {
            let refusal = message::oversized(id_in(&bytes));
            return refused(StatusCode::PAYLOAD_TOO_LARGE, &refusal, Close::Yes);
        }
        Ok(Read::Failed(why)) => {
            let refusal = Refusal::new(
                None,
                PARSE_ERROR,
                format!("Parse error: the request body could not be read ({why})"),
            );
            return refused(StatusCode::BAD_REQUEST, &refusal, Close::Yes);
        }
        Err(_) => {
            let seconds = shared.body_timeout.as_secs_f64();
            tracing::debug!(
                received_bytes = bytes.len(),
                "a request body did not arrive within the body timeout"
            );
            let mut refusal = Refusal::new(
                id_in(&bytes),
                INVALID_REQUEST,
                format!(
                    "Invalid request: the request body did not arrive within {seconds} s; \
                     nothing of it was processed"
                ),
            );
            refusal.data = Some(json!({"body_timeout_seconds": seconds}));
            return refused(StatusCode::REQUEST_TIMEOUT, &refusal, Close::Yes);
        }
    }
    // rmcp's own reading, so a message it takes goes on exactly as it came.
    if serde_json::from_slice::<ClientJsonRpcMessage>(&bytes).is_ok() {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    }
    let refusal = match message::parse_object(&bytes, Framing::HttpBody)
        .and_then(message::to_client_message)
    {
        Err(refusal) => refusal,
        // Not one message to rmcp, yet one to us: rmcp answers it as it always did.
        Ok(_) => {
            return next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
        }
    };
    // rmcp checks Host, Origin, the method, Accept and Content-Type before it reads a body, and
    // a request those refuse keeps rmcp's answer (403, 405, 406, 415); only one that passes
    // them all gets ours. rmcp is handed an empty body that notes whether it was read.
    let reached = Arc::new(AtomicBool::new(false));
    let response = next
        .run(Request::from_parts(
            parts,
            Body::new(Probe(reached.clone())),
        ))
        .await;
    if reached.load(Ordering::SeqCst) {
        tracing::debug!(
            code = refusal.code,
            "refused a request body that is not one JSON-RPC message"
        );
        refused(StatusCode::BAD_REQUEST, &refusal, Close::No)
    } else {
        response
    }
}

enum Read {
    Whole,
    /// Longer than the limit; what was read (the limit's worth) is kept.
    TooLong,
    Failed(String),
}

/// Reads the body into `bytes`, which keeps what arrived if the caller's deadline ends it.
async fn read_into(mut body: Body, bytes: &mut Vec<u8>) -> Read {
    loop {
        let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
        match frame {
            None => return Read::Whole,
            Some(Err(e)) => return Read::Failed(e.to_string()),
            Some(Ok(frame)) => {
                let Ok(data) = frame.into_data() else {
                    continue; // trailers
                };
                let room = MAX_MESSAGE_BYTES - bytes.len();
                if data.len() > room {
                    bytes.extend_from_slice(&data[..room]);
                    return Read::TooLong;
                }
                bytes.extend_from_slice(&data);
            }
        }
    }
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

fn id_in(bytes: &[u8]) -> Option<serde_json::Value> {
    let mut scanner = IdScanner::default();
    scanner.feed(bytes);
    scanner.id()
}

#[derive(PartialEq)]
enum Close {
    /// The body was left unread: the connection cannot carry another request.
    Yes,
    No,
}

/// The JSON-RPC error as an HTTP answer.
fn refused(status: StatusCode, refusal: &Refusal, close: Close) -> Response {
    let mut response = (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        refusal.to_json().to_string(),
    )
        .into_response();
    if close == Close::Yes {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// An empty body that records whether anyone read it.
struct Probe(Arc<AtomicBool>);

impl http_body::Body for Probe {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        self.0.store(true, Ordering::SeqCst);
        Poll::Ready(None)
    }
}
