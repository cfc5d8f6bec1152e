//! MCP over stdio, framed by us: one JSON-RPC message per line in, one per line out. rmcp's
//! own stdio transport drops what it cannot parse without a word (invalid JSON, a line over
//! its size limit), answers a `tools/call` whose params do not fit with "method not found",
//! and ends the session when a notification arrives before `initialize`; a client then waits
//! forever for an answer. Here every request that can be answered is: the lines are read and
//! checked first, and only messages rmcp can handle reach it.
//!
//! Memory stays bounded: a line is buffered up to [`MAX_MESSAGE_BYTES`]; the rest of a longer
//! one is only scanned for its request id, so the error can still name the request. What a
//! line must be, and the errors that say it is not, are `message`'s: HTTP answers the same.

use std::io;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ConstString, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::message::{
    self, Framing, INVALID_PARAMS, IdScanner, MAX_MESSAGE_BYTES, Refusal, is_mcp_request,
};

/// A buffer grown by one long message is given back once it is handled.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;

/// Lines waiting for stdout. A client that sends and never reads stalls the reading here
/// instead of growing a queue without end.
const QUEUED_LINES: usize = 64;

/// What goes to stdout, in order: a line and, for rmcp's messages, who waits for it to be
/// written.
type Outgoing = (Vec<u8>, Option<oneshot::Sender<io::Result<()>>>);

/// The transport `Server::serve_stdio` hands to rmcp; generic so tests can drive it over any
/// byte stream.
pub struct LineTransport<R> {
    reader: BufReader<R>,
    /// The line being read (without its end yet).
    line: Vec<u8>,
    /// Set while the rest of an over-long line is skipped.
    skipping: Option<IdScanner>,
    out: mpsc::Sender<Outgoing>,
    /// An answer of our own, queued before the next line is read.
    pending: Option<Vec<u8>>,
    /// An `initialize` request (or a request carrying its protocol version in `_meta`, the
    /// stateless way) has reached rmcp; before that rmcp takes nothing else but `ping`.
    started: bool,
}

/// The task that writes the transport's lines; it ends once the transport is gone and every
/// line it queued is written.
pub struct Written(tokio::task::JoinHandle<()>);

impl Written {
    /// Waits until every queued line is out, so answers sent just before the client closed
    /// its end are not lost when the process exits.
    pub async fn wait(self) {
        if let Err(e) = self.0.await {
            tracing::error!(error = %e, "the stdout writer failed");
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> LineTransport<R> {
    /// Reads from `reader` and writes to `writer` on a task of its own, so an answer the
    /// transport sends while rmcp is busy never waits for rmcp, and lines never interleave.
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(reader: R, writer: W) -> (Self, Written) {
        let (out, mut queue) = mpsc::channel::<Outgoing>(QUEUED_LINES);
        let task = tokio::spawn(async move {
            let mut writer = writer;
            while let Some((line, done)) = queue.recv().await {
                let written = match writer.write_all(&line).await {
                    Ok(()) => writer.flush().await,
                    Err(e) => Err(e),
                };
                let failed = written.as_ref().err().map(|e| (e.kind(), e.to_string()));
                if let Some(done) = done {
                    let _ = done.send(written);
                }
                if let Some((kind, message)) = failed {
                    tracing::error!(?kind, message, "cannot write to stdout; stopping");
                    break;
                }
            }
        });
        let transport = LineTransport {
            reader: BufReader::new(reader),
            line: Vec::new(),
            skipping: None,
            out,
            pending: None,
            started: false,
        };
        (transport, Written(task))
    }

    /// Queues a JSON-RPC error of our own.
    fn answer(&mut self, refusal: Refusal) {
        let mut line = refusal.to_json().to_string().into_bytes();
        line.push(b'\n');
        // One line yields at most one answer, and `receive` queues it before reading on.
        self.pending = Some(line);
    }

    /// The next whole line, cancel-safe: `fill_buf` consumes nothing when dropped, and the
    /// bytes it yields are moved into `self` before anything else can be polled.
    async fn next_line(&mut self) -> Frame {
        loop {
            let (consumed, step) = {
                let available = match self.reader.fill_buf().await {
                    Ok(bytes) => bytes,
                    Err(e) => return Frame::Failed(e),
                };
                if available.is_empty() {
                    // A last message without its newline is still a message.
                    if self.skipping.is_none() && !self.line.is_empty() {
                        return Frame::Line;
                    }
                    return Frame::End;
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                let chunk = &available[..take];
                let step = if let Some(scan) = &mut self.skipping {
                    scan.feed(chunk);
                    if newline.is_some() {
                        Step::OversizedEnded
                    } else {
                        Step::More
                    }
                } else if self.line.len() + take > MAX_MESSAGE_BYTES {
                    let mut scan = IdScanner::default();
                    scan.feed(&self.line);
                    scan.feed(chunk);
                    self.line = Vec::new();
                    self.skipping = Some(scan);
                    if newline.is_some() {
                        Step::OversizedEnded
                    } else {
                        Step::More
                    }
                } else {
                    self.line.extend_from_slice(chunk);
                    if newline.is_some() {
                        Step::Line
                    } else {
                        Step::More
                    }
                };
                (take, step)
            };
            self.reader.consume(consumed);
            match step {
                Step::More => {}
                Step::Line => return Frame::Line,
                Step::OversizedEnded => {
                    let id = self.skipping.take().and_then(IdScanner::id);
                    return Frame::Oversized(id);
                }
            }
        }
    }

    /// What one line means to rmcp: a message for it, or nothing (answered or dropped here).
    fn read_message(&mut self, line: &[u8]) -> Option<ClientJsonRpcMessage> {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let value = match message::parse_object(line, Framing::Line) {
            Ok(value) => value,
            Err(refusal) => {
                self.answer(refusal);
                return None;
            }
        };
        let Value::Object(object) = &value else {
            return None; // parse_object gives objects only
        };
        let id = message::request_id(object);
        let method = object
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let stateless = carries_protocol_version(object);

        if let (Some(id), Some(method)) = (&id, &method) {
            if let Some(problem) = params_problem(method, object.get("params")) {
                self.answer(Refusal::new(
                    Some(id.clone()),
                    INVALID_PARAMS,
                    format!("Invalid params for {method}: {problem}"),
                ));
                return None;
            }
            if !self.started && needs_lifecycle(method) && !stateless {
                self.answer(Refusal::new(
                    Some(id.clone()),
                    INVALID_PARAMS,
                    format!(
                        "{method} before initialize: send an initialize request first, or (MCP \
                         2026-07-28) put io.modelcontextprotocol/protocolVersion and \
                         io.modelcontextprotocol/clientCapabilities in params._meta of every \
                         request"
                    ),
                ));
                return None;
            }
        }
        let message = match message::to_client_message(value) {
            Ok(message) => message,
            Err(refusal) => {
                self.answer(refusal);
                return None;
            }
        };
        if !self.started && !matches!(message, ClientJsonRpcMessage::Request(_)) {
            // rmcp ends the session on anything but a request before the handshake; a stray
            // notification or response is not worth losing the connection over.
            tracing::debug!(
                ?method,
                "ignoring a message that is not a request before initialize"
            );
            return None;
        }
        if let ClientJsonRpcMessage::Request(request) = &message {
            match &request.request {
                // rmcp files a known method whose params do not fit as a custom request and
                // answers "method not found"; the method exists, its params are wrong.
                ClientRequest::CustomRequest(custom) if is_mcp_request(&custom.method) => {
                    self.answer(Refusal::new(
                        id,
                        INVALID_PARAMS,
                        format!(
                            "Invalid params for {}: they do not match the MCP schema of the method",
                            custom.method
                        ),
                    ));
                    return None;
                }
                ClientRequest::InitializeRequest(_) => self.started = true,
                _ if stateless => self.started = true,
                _ => {}
            }
        }
        Some(message)
    }
}

/// Whether `_meta` of a request says its protocol version: the stateless lifecycle of MCP
/// 2026-07-28, which has no `initialize`.
fn carries_protocol_version(object: &serde_json::Map<String, Value>) -> bool {
    object
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .is_some()
}

/// Requests rmcp answers before any lifecycle: the handshake itself and the probes.
fn needs_lifecycle(method: &str) -> bool {
    ![
        <rmcp::model::InitializeResultMethod as ConstString>::VALUE,
        <rmcp::model::PingRequestMethod as ConstString>::VALUE,
        <rmcp::model::DiscoverRequestMethod as ConstString>::VALUE,
    ]
    .contains(&method)
}

/// What is wrong with the params of a `tools/call`, in words: the method's schema wants an
/// object with a string `name` and, when given, an object of `arguments`.
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    if method != <rmcp::model::CallToolRequestMethod as ConstString>::VALUE {
        return None;
    }
    let Some(Value::Object(params)) = params else {
        return Some("params must be an object with the tool's name and arguments".to_owned());
    };
    match params.get("name") {
        Some(Value::String(_)) => {}
        Some(other) => return Some(format!("name must be a string, not {}", kind(other))),
        None => return Some("name (the tool to call) is missing".to_owned()),
    }
    match params.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(other) => Some(format!(
            "arguments must be an object of the tool's arguments by name, not {}",
            kind(other)
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

enum Frame {
    /// A whole line is in `line`.
    Line,
    /// A line over the limit ended; its id, if one was found.
    Oversized(Option<Value>),
    End,
    Failed(io::Error),
}

enum Step {
    Line,
    More,
    OversizedEnded,
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            let (done, written) = oneshot::channel();
            out.send((line, Some(done)))
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))?;
            written
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))?
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.pending.is_some() {
                // Cancel-safe: the answer leaves `pending` only once there is room for it.
                let Ok(room) = self.out.reserve().await else {
                    return None; // stdout is gone: nobody to answer
                };
                if let Some(line) = self.pending.take() {
                    room.send((line, None));
                }
            }
            match self.next_line().await {
                Frame::End => return None,
                Frame::Failed(e) => {
                    tracing::error!(error = %e, "cannot read stdin");
                    return None;
                }
                Frame::Oversized(id) => {
                    tracing::warn!(?id, "a message over {MAX_MESSAGE_BYTES} bytes was skipped");
                    self.answer(message::oversized(id));
                }
                Frame::Line => {
                    let line = std::mem::take(&mut self.line);
                    let message = self.read_message(&line);
                    if line.capacity() <= KEEP_BUFFER_BYTES {
                        self.line = line;
                        self.line.clear();
                    }
                    if let Some(message) = message {
                        return Some(message);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        Ok(())
    }
}
