//! One client message as both transports read it before rmcp sees it: a stdio line and an HTTP
//! request body are held to the same size limit, and a message rmcp cannot take is answered
//! with the same JSON-RPC error on either (rmcp's own answers are silence on stdio and a
//! plain-text HTTP 415).

use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Value, json};

/// The longest message read, on stdio (a line, newline included) and over HTTP (a request
/// body) alike. Tool arguments are a few kilobytes; a longer message is a client bug or an
/// attack.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

pub(crate) const PARSE_ERROR: i32 = -32700;
pub(crate) const INVALID_REQUEST: i32 = -32600;
pub(crate) const INVALID_PARAMS: i32 = -32602;

/// How the message came: the words an error uses for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// One line of stdio.
    Line,
    /// The body of one HTTP request.
    HttpBody,
}

/// A JSON-RPC error answering a message that never reaches rmcp.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Refusal {
    /// The request's id, or `None` when it cannot be known (answered as `null`).
    pub id: Option<Value>,
    pub code: i32,
    pub message: String,
    pub data: Option<Value>,
}

impl Refusal {
    pub(crate) fn new(id: Option<Value>, code: i32, message: String) -> Refusal {
        Refusal {
            id,
            code,
            message,
            data: None,
        }
    }

    /// The JSON-RPC response. `id` is `null` when it cannot be known (JSON-RPC 2.0, section 5;
    /// the Python SDK requires the member).
    pub(crate) fn to_json(&self) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        json!({"jsonrpc": "2.0", "id": self.id.clone().unwrap_or(Value::Null), "error": error})
    }
}

/// The answer to a message longer than [`MAX_MESSAGE_BYTES`], with its id when one was found.
pub(crate) fn oversized(id: Option<Value>) -> Refusal {
    Refusal {
        id,
        code: INVALID_REQUEST,
        message: format!(
            "Invalid request: the message is longer than {MAX_MESSAGE_BYTES} bytes, the most \
             resolve-pr reads; nothing of it was processed"
        ),
        data: Some(json!({"max_bytes": MAX_MESSAGE_BYTES})),
    }
}

/// The message as a JSON object, or the answer when it is not JSON (-32700) or not one object:
/// a batch or a bare value (-32600).
pub(crate) fn parse_object(bytes: &[u8], framing: Framing) -> Result<Value, Refusal> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        let what = match framing {
            Framing::Line => "the line",
            Framing::HttpBody => "the request body",
        };
        Refusal::new(
            None,
            PARSE_ERROR,
            format!("Parse error: {what} is not JSON ({e})"),
        )
    })?;
    if value.is_object() {
        return Ok(value);
    }
    let what = match (value.is_array(), framing) {
        (true, Framing::Line) => "a batch (an array); MCP sends one message per line",
        (true, Framing::HttpBody) => {
            "a batch (an array); JSON-RPC batches are not supported by this MCP version \
             (MCP removed them in 2025-06-18): send one message per request"
        }
        (false, _) => "not a JSON-RPC message object",
    };
    Err(Refusal::new(
        None,
        INVALID_REQUEST,
        format!("Invalid request: {what}"),
    ))
}

/// A request id as JSON-RPC allows it: a string or a number.
pub(crate) fn request_id(object: &serde_json::Map<String, Value>) -> Option<Value> {
    object
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
}

/// The object (from [`parse_object`]) as a message rmcp models, or the answer saying what
/// keeps it from being one.
pub(crate) fn to_client_message(object: Value) -> Result<ClientJsonRpcMessage, Refusal> {
    let Value::Object(map) = &object else {
        return Err(Refusal::new(
            None,
            INVALID_REQUEST,
            "Invalid request: not a JSON-RPC message object".to_owned(),
        ));
    };
    let id = request_id(map);
    let method = map.get("method").and_then(Value::as_str).map(str::to_owned);
    let version_ok = map.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let bad_id = map.contains_key("id") && id.is_none();
    serde_json::from_value(object).map_err(|e| {
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
        Refusal::new(id, code, message)
    })
}

/// The client-to-server requests rmcp models; any other method is "not found".
pub(crate) fn is_mcp_request(method: &str) -> bool {
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

/// Finds the `id` of a JSON object streamed through it in pieces, keeping only a few bytes:
/// the top-level key being read and the value of `id`. Anything unexpected (an escaped key,
/// an id longer than any sensible one) gives up rather than guesses.
#[derive(Default)]
pub(crate) struct IdScanner {
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

    pub(crate) fn feed(&mut self, bytes: &[u8]) {
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

    pub(crate) fn id(self) -> Option<Value> {
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

    #[test]
    fn a_line_and_a_request_body_get_the_same_codes_in_their_own_words() {
        for framing in [Framing::Line, Framing::HttpBody] {
            let refusal = parse_object(br#"{"jsonrpc":"2.0","#, framing).unwrap_err();
            assert_eq!((refusal.id.clone(), refusal.code), (None, PARSE_ERROR));
            assert!(refusal.message.starts_with("Parse error: "), "{refusal:?}");
            let batch = parse_object(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, framing)
                .unwrap_err();
            assert_eq!((batch.id.clone(), batch.code), (None, INVALID_REQUEST));
            assert!(batch.message.contains("a batch (an array)"), "{batch:?}");
            let bare = parse_object(b"7", framing).unwrap_err();
            assert_eq!(bare.code, INVALID_REQUEST);
            assert!(parse_object(br#"{"a":1}"#, framing).is_ok());
        }
        let refusal = parse_object(b"nope", Framing::HttpBody).unwrap_err();
        assert!(refusal.message.contains("the request body is not JSON"));
        let batch = parse_object(b"[]", Framing::HttpBody).unwrap_err();
        assert!(batch.message.contains("not supported by this MCP version"));
        assert_eq!(
            batch.to_json(),
            json!({"jsonrpc": "2.0", "id": null,
                   "error": {"code": -32600, "message": batch.message}})
        );
    }

    #[test]
    fn an_object_that_is_not_a_message_is_answered_with_its_id() {
        let refusal = to_client_message(json!({"jsonrpc": "2.0", "id": 8})).expect_err("no method");
        assert_eq!(refusal.id, Some(json!(8)));
        assert_eq!(refusal.code, INVALID_REQUEST);
        assert!(refusal.message.contains("needs a method"));
        let refusal = to_client_message(json!({"id": 6, "method": "ping"})).expect_err("version");
        assert!(refusal.message.contains("\"jsonrpc\": \"2.0\""));
        assert!(to_client_message(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).is_ok());
    }
}
