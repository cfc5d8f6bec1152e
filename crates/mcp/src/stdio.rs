//! MCP over stdio, framed by us: one JSON-RPC message per line in, one per line out. rmcp's
//! own stdio transport drops what it cannot parse without a word (invalid JSON, a line over
//! its size limit), answers a `tools/call` whose params do not fit with "method not found",
//! and ends the session when a notification arrives before `initialize`; a client then waits
//! forever for an answer. Here every request that can be answered is: the lines are read and
//! checked first, and only messages rmcp can handle reach it.
//!
//! Memory stays bounded: a line is buffered up to [`MAX_LINE_BYTES`]; the rest of a longer one
//! is only scanned for its request id, so the error can still name the request.

use std::io;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ConstString, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

/// The longest message read, newline included: rmcp's limit for stdio and streamable HTTP
/// alike. Tool arguments are a few kilobytes; a longer line is a client bug or an attack.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// A buffer grown by one long message is given back once it is handled.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;

/// Lines waiting for stdout. A client that sends and never reads stalls the reading here
/// instead of growing a queue without end.
const QUEUED_LINES: usize = 64;

const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const INVALID_PARAMS: i32 = -32602;

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

    /// Queues a JSON-RPC error of our own. `id` is the request's, or `null` when it cannot be
    /// known (JSON-RPC 2.0, section 5; the Python SDK requires the member).
    fn answer(&mut self, id: Option<Value>, code: i32, message: String, data: Option<Value>) {
        let mut error = json!({"code": code, "message": message});
        if let Some(data) = data {
            error["data"] = data;
        }
        let response = json!({"jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": error});
        let mut line = response.to_string().into_bytes();
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
                } else if self.line.len() + take > MAX_LINE_BYTES {
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
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                self.answer(
                    None,
                    PARSE_ERROR,
                    format!("Parse error: the line is not JSON ({e})"),
                    None,
                );
                return None;
            }
        };
        let Value::Object(object) = &value else {
            let what = if value.is_array() {
                "a batch (an array); MCP sends one message per line"
            } else {
                "not a JSON-RPC message object"
            };
            self.answer(
                None,
                INVALID_REQUEST,
                format!("Invalid request: {what}"),
                None,
            );
            return None;
        };
        // A request id as JSON-RPC allows it: a string or a number.
        let id = object
            .get("id")
            .filter(|id| id.is_string() || id.is_number())
            .cloned();
        let method = object
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let stateless = carries_protocol_version(object);

        if let (Some(id), Some(method)) = (&id, &method) {
            if let Some(problem) = params_problem(method, object.get("params")) {
                self.answer(
                    Some(id.clone()),
                    INVALID_PARAMS,
                    format!("Invalid params for {method}: {problem}"),
                    None,
                );
                return None;
            }
            if !self.started && needs_lifecycle(method) && !stateless {
                self.answer(
                    Some(id.clone()),
                    INVALID_PARAMS,
                    format!(
                        "{method} before initialize: send an initialize request first, or (MCP \
                         2026-07-28) put io.modelcontextprotocol/protocolVersion and \
                         io.modelcontextprotocol/clientCapabilities in params._meta of every \
                         request"
                    ),
                    None,
                );
                return None;
            }
        }
        let version_ok = object.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
        let bad_id = object.contains_key("id") && id.is_none();
        let message: ClientJsonRpcMessage = match serde_json::from_value(value) {
            Ok(m) => m,
            Err(e) => {
                let (code, message) = match &method {
                    _ if !version_ok => (
                        INVALID_REQUEST,
                        "Invalid request: a JSON-RPC message needs \"jsonrpc\": \"2.0\"".to_owned(),
                    ),
                    _ if bad_id => (
                        INVALID_REQUEST,
                        "Invalid request: an id is a string or a number".to_owned(),
                    ),
                    None => (
                        INVALID_REQUEST,
                        "Invalid request: a request needs a method".to_owned(),
                    ),
                    Some(m) if is_mcp_request(m) => (
                        INVALID_PARAMS,
                        format!("Invalid params for {m}: params must be an object ({e})"),
                    ),
                    Some(_) => (INVALID_REQUEST, format!("Invalid request: {e}")),
                };
                self.answer(id, code, message, None);
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
                    self.answer(
                        id,
                        INVALID_PARAMS,
                        format!(
                            "Invalid params for {}: they do not match the MCP schema of the method",
                            custom.method
                        ),
                        None,
                    );
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

/// The client-to-server requests rmcp models; any other method is "not found".
fn is_mcp_request(method: &str) -> bool {
    use rmcp::model::*;
    [
        <InitializeResultMethod as ConstString>::VALUE,
        <PingRequestMethod as ConstString>::VALUE,
        <DiscoverRequestMethod as ConstString>::VALUE,
        <CompleteRequestMethod as ConstString>::VALUE,
        <SetLevelRequestMethod as ConstString>::VALUE,
        <GetPromptRequestMethod as ConstString>::VALUE,
        <ListPromptsRequestMethod as ConstString>::VALUE,
        <ListResourcesRequestMethod as ConstString>::VALUE,
        <ListResourceTemplatesRequestMethod as ConstString>::VALUE,
        <ReadResourceRequestMethod as ConstString>::VALUE,
        <SubscriptionsListenRequestMethod as ConstString>::VALUE,
        <SubscribeRequestMethod as ConstString>::VALUE,
        <UnsubscribeRequestMethod as ConstString>::VALUE,
        <CallToolRequestMethod as ConstString>::VALUE,
        <ListToolsRequestMethod as ConstString>::VALUE,
        <GetTaskMethod as ConstString>::VALUE,
        <UpdateTaskMethod as ConstString>::VALUE,
        <CancelTaskMethod as ConstString>::VALUE,
        <ListSkillsRequestMethod as ConstString>::VALUE,
        <GetSkillRequestMethod as ConstString>::VALUE,
        <ReadResourceDirectoryRequestMethod as ConstString>::VALUE,
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
                    tracing::warn!(?id, "a message over {MAX_LINE_BYTES} bytes was skipped");
                    self.answer(
                        id,
                        INVALID_REQUEST,
                        format!(
                            "Invalid request: the message is longer than {MAX_LINE_BYTES} bytes, \
                             the most resolve-pr reads; nothing of it was processed"
                        ),
                        Some(json!({"max_bytes": MAX_LINE_BYTES})),
                    );
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

/// Finds the `id` of a JSON object streamed through it in pieces, keeping only a few bytes:
/// the top-level key being read and the value of `id`. Anything unexpected (an escaped key,
/// an id longer than any sensible one) gives up rather than guesses.
#[derive(Default)]
struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a key.
    expect_key: bool,
    reading_key: bool,
    /// The key so far, while it can still be `id`.
    key: Vec<u8>,
    key_spoiled: bool,
    /// The last key read at depth 1 was `id`.
    key_is_id: bool,
    capturing: bool,
    value: Vec<u8>,
    found: Option<Value>,
    gave_up: bool,
}

impl IdScanner {
    const MAX_ID_BYTES: usize = 256;

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found.is_some() || self.gave_up {
                return;
            }
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if self.capturing {
            if self.value.len() >= Self::MAX_ID_BYTES {
                self.gave_up = true;
                return;
            }
            // The value ends at the `,` or `}` that closes it at depth 1.
            let ends = !self.in_string && self.depth == 1 && (b == b',' || b == b'}');
            if ends {
                self.capturing = false;
                self.found = serde_json::from_slice::<Value>(&self.value)
                    .ok()
                    .filter(|v| v.is_string() || v.is_number());
                if self.found.is_none() {
                    self.gave_up = true;
                }
                return;
            }
            self.value.push(b);
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
                // An escaped key is never the plain `id`.
                self.key_spoiled = true;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                    self.key_is_id = !self.key_spoiled && self.key == b"id";
                }
            } else if self.reading_key && !self.key_spoiled {
                self.key.push(b);
                self.key_spoiled = self.key.len() > 2;
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.reading_key = true;
                    self.key.clear();
                    self.key_spoiled = false;
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = b == b'{';
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.expect_key = true,
            b':' if self.depth == 1 && self.key_is_id && !self.capturing => {
                self.key_is_id = false;
                self.capturing = true;
                self.value.clear();
            }
            _ => {}
        }
    }

    fn id(self) -> Option<Value> {
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(pieces: &[&[u8]]) -> Option<Value> {
        let mut s = IdScanner::default();
        for p in pieces {
            s.feed(p);
        }
        s.id()
    }

    #[test]
    fn the_id_is_found_wherever_it_is_and_however_the_line_is_cut() {
        let line = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"id":"inner","a":[1,{"id":2}],"s":"x\"id\":3"},"id":"late"}"#;
        for cut in 1..line.len() {
            assert_eq!(
                scan(&[&line[..cut], &line[cut..]]),
                Some(json!("late")),
                "cut at {cut}"
            );
        }
        assert_eq!(
            scan(&[br#"{ "id" : 42 , "method":"ping"}"#]),
            Some(json!(42))
        );
        assert_eq!(scan(&[br#"{"method":"x","params":{"id":1}}"#]), None);
        assert_eq!(scan(&[br#"{"id":null}"#]), None);
        assert_eq!(scan(&[br#"{"i\u0064":5}"#]), None);
        assert_eq!(scan(&[br#"[{"id":1}]"#]), None);
    }
}
