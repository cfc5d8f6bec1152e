//! `resolve-pr serve` as a client that sends raw lines sees it: every request that can be
//! answered gets a JSON-RPC answer with the right code (invalid JSON, an over-long line, bad
//! `tools/call` params, a call before `initialize`), and the server keeps serving after each.
//! A config file named by RESOLVE_PR_CONFIG must exist.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

struct Serve {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    _home: tempfile::TempDir,
}

impl Serve {
    /// The server with a private HOME and config, and a forge nobody listens on: nothing here
    /// reaches a forge. Every toolset is listed from the start, so no call turns one on (and
    /// no `tools/list_changed` notification comes between a request and its answer).
    fn start() -> Serve {
        let home = tempfile::tempdir().expect("a temporary HOME");
        let config = home.path().join("config.toml");
        std::fs::write(&config, "").expect("an empty config");
        let mut child = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
            .args(["serve", "--toolsets", "all"])
            .env_clear()
            .env("HOME", home.path())
            .env("XDG_STATE_HOME", home.path().join("state"))
            .env("RESOLVE_PR_CONFIG", &config)
            .env("GITHUB_API_URL", "http://127.0.0.1:9")
            .env("GITHUB_TOKEN", "test-token")
            .env("RESOLVE_PR_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("resolve-pr serve starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Serve {
            child,
            stdin,
            stdout,
            _home: home,
        }
    }

    async fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).await.expect("the server reads");
        self.stdin.write_all(b"\n").await.expect("the server reads");
        self.stdin.flush().await.expect("the server reads");
    }

    /// The next message the server writes.
    async fn answer(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.stdout.next_line())
            .await
            .expect("the server answers")
            .expect("stdout is readable")
            .expect("the server is still running");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Sends `line` and returns the answer.
    async fn ask(&mut self, line: &str) -> Value {
        self.send(line.as_bytes()).await;
        self.answer().await
    }

    async fn initialize(&mut self) {
        let answer = self
            .ask(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#)
            .await;
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "resolve-pr",
            "{answer}"
        );
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }

    /// Still serving: a ping is answered.
    async fn assert_serving(&mut self, id: u64) {
        let pong = self
            .ask(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#))
            .await;
        assert_eq!(pong, json!({"jsonrpc": "2.0", "id": id, "result": {}}));
    }
}

fn assert_error(answer: &Value, id: Value, code: i64, says: &str) {
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["error"]["code"], code, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains(says), "{message:?} does not say {says:?}");
}

#[tokio::test]
async fn a_call_before_initialize_is_answered_and_a_stray_notification_ends_nothing() {
    let mut serve = Serve::start();
    // rmcp used to end the session here.
    serve
        .send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    let early = serve
        .ask(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pr_comment_list","arguments":{}}}"#)
        .await;
    assert_error(&early, json!(1), -32602, "send an initialize request first");
    serve.assert_serving(2).await;
    serve.initialize().await;
    let listed = serve
        .ask(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#)
        .await;
    // `all`: every toolset but the hidden internal one.
    let public = resolve_pr_tools::all()
        .iter()
        .filter(|t| !t.toolset.hidden())
        .count();
    assert_eq!(
        listed["result"]["tools"].as_array().map(Vec::len),
        Some(public)
    );
}

#[tokio::test]
async fn malformed_messages_get_the_json_rpc_error_they_call_for() {
    let mut serve = Serve::start();
    serve.initialize().await;

    let answer = serve.ask(r#"{"jsonrpc":"2.0","id":1,"method":"#).await;
    assert_error(&answer, Value::Null, -32700, "Parse error");
    let answer = serve.ask("\u{1}not json at all").await;
    assert_error(&answer, Value::Null, -32700, "Parse error");

    for (arguments, given) in [
        ("[1,2]", "an array"),
        (r#""x""#, "a string"),
        ("7", "a number"),
    ] {
        let answer = serve
            .ask(&format!(
                r#"{{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{{"name":"pr_comment_list","arguments":{arguments}}}}}"#
            ))
            .await;
        assert_error(
            &answer,
            json!("call"),
            -32602,
            "arguments must be an object",
        );
        assert_error(&answer, json!("call"), -32602, given);
    }
    let answer = serve
        .ask(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#)
        .await;
    assert_error(
        &answer,
        json!(4),
        -32602,
        "name (the tool to call) is missing",
    );
    let answer = serve
        .ask(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[]}"#)
        .await;
    assert_error(&answer, json!(5), -32602, "tools/list");

    let answer = serve.ask(r#"{"id":6,"method":"ping"}"#).await;
    assert_error(&answer, json!(6), -32600, "\"jsonrpc\": \"2.0\"");
    let answer = serve
        .ask(r#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#)
        .await;
    assert_error(&answer, Value::Null, -32600, "batch");
    let answer = serve
        .ask(r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#)
        .await;
    assert_error(
        &answer,
        Value::Null,
        -32600,
        "an id is a string or a number",
    );
    let answer = serve.ask(r#"{"jsonrpc":"2.0","id":8}"#).await;
    assert_error(&answer, json!(8), -32600, "needs a method");
    let answer = serve
        .ask(r#"{"jsonrpc":"2.0","id":9,"method":"tools/delete"}"#)
        .await;
    assert_error(&answer, json!(9), -32601, "tools/delete");

    // A well-formed call still works: arguments that miss the schema are a tool error.
    let answer = serve
        .ask(r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"pr_comment_list","arguments":{"repository":5}}}"#)
        .await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    serve.assert_serving(11).await;
}

#[tokio::test]
async fn answers_to_the_last_lines_are_written_before_the_server_exits() {
    let mut serve = Serve::start();
    // Enough answers that some still wait to be written when stdin ends.
    const BAD_LINES: usize = 5000;
    let mut burst = Vec::new();
    for _ in 0..BAD_LINES {
        burst.extend_from_slice(b"{oops\n");
    }
    serve
        .stdin
        .write_all(&burst)
        .await
        .expect("the server reads");
    serve
        .send(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .await;
    // The client hangs up at once, before initialize.
    let Serve {
        mut child,
        stdin,
        mut stdout,
        _home,
    } = serve;
    drop(stdin);
    let mut lines = Vec::new();
    while let Ok(Some(line)) = stdout.next_line().await {
        lines.push(serde_json::from_str::<Value>(&line).expect("JSON"));
    }
    let _ = child.wait().await;
    assert_eq!(lines.len(), BAD_LINES + 1);
    assert_error(&lines[0], Value::Null, -32700, "Parse error");
    assert_error(&lines[BAD_LINES], json!(1), -32602, "before initialize");
}

/// The peak resident memory of a process, from Linux's /proc.
fn peak_memory_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[tokio::test]
async fn a_line_over_16_mib_is_answered_with_its_id_and_the_next_one_served() {
    let mut serve = Serve::start();
    serve.initialize().await;
    let before = peak_memory_bytes(serve.child.id().expect("running"));

    // 64 MiB of arguments, with the id after them: the server must find it without holding
    // the line.
    let mut line = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"pr_comment_create","arguments":{"comment":""#.to_vec();
    line.resize(line.len() + 64 * 1024 * 1024, b'a');
    line.extend_from_slice(br#""}},"id":"big"}"#);
    serve.send(&line).await;
    drop(line);
    let answer = serve.answer().await;
    assert_error(&answer, json!("big"), -32600, "longer than 16777216 bytes");
    assert_eq!(answer["error"]["data"]["max_bytes"], 16 * 1024 * 1024);
    serve.assert_serving(1).await;

    // An over-long line whose id cannot be found is answered with a null id.
    let mut line = vec![b'['; 17 * 1024 * 1024];
    line.extend_from_slice(b"]");
    serve.send(&line).await;
    let answer = serve.answer().await;
    assert_error(&answer, Value::Null, -32600, "longer than");
    serve.assert_serving(2).await;

    if let (Some(before), Some(after)) = (
        before,
        peak_memory_bytes(serve.child.id().expect("running")),
    ) {
        // One line's buffer (16 MiB) at most, never the 64 MiB sent.
        let grown = after.saturating_sub(before);
        println!("peak memory grew by {grown} bytes while reading the long lines");
        assert!(
            grown < 40 * 1024 * 1024,
            "reading the long lines took {grown} bytes of memory"
        );
    }
}

/// `resolve-pr tool pr_get '{}'` (arguments that fail after the configuration is read) with a
/// private HOME and `config` as RESOLVE_PR_CONFIG (unset: `None`): its stdout and stderr.
fn call_with_config(home: &std::path::Path, config: Option<&std::path::Path>) -> String {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_resolve-pr"));
    command
        .args(["tool", "pr_get", "{}"])
        .env_clear()
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("GITHUB_TOKEN", "test-token")
        .env("RESOLVE_PR_LOG", "error")
        .stdin(Stdio::null());
    if let Some(config) = config {
        command.env("RESOLVE_PR_CONFIG", config);
    }
    let out = command.output().expect("resolve-pr tool runs");
    assert!(!out.status.success());
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_config_file_named_but_missing_is_an_error_naming_it_and_the_default_one_may_be_missing() {
    let home = tempfile::tempdir().expect("a temporary HOME");
    let missing = home.path().join("typo").join("config.toml");
    let said = call_with_config(home.path(), Some(&missing));
    assert!(said.contains(&missing.display().to_string()), "{said}");
    assert!(said.contains("RESOLVE_PR_CONFIG"), "{said}");
    assert!(!said.contains("pull_request_number"), "{said}");
    // No file at the default place (HOME has none) is no config: the call goes on to its
    // arguments.
    let said = call_with_config(home.path(), None);
    assert!(
        said.contains("missing required argument: pull_request_number"),
        "{said}"
    );
    assert!(!said.contains("config"), "{said}");
}
