//! `resolve-pr serve --http` as a process: it announces `listening on URL` once it accepts
//! connections, serves calls with each request's bearer token, never logs a token (even at
//! debug level), refuses an unsafe listen address at startup, and on SIGTERM stops
//! accepting, answers `/readyz` with 503, finishes the call in flight and exits 0. Under a low
//! descriptor limit, more idle and half-sent connections than the limit allows neither stop it
//! nor keep a normal call out for longer than the header timeout.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use resolve_pr_forge_sim::{Fault, FaultKind, Scenario, Sim, SimHandle};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

const ALICE: &str = "ghp_alice_token_0123456789";
const BOB: &str = "ghp_bob_token_9876543210";
/// Sent in a malformed header: refused, and never logged either.
const STRAY: &str = "ghp_stray_secret_5555";

struct Serve {
    child: Child,
    url: String,
    base: String,
    stderr: Arc<Mutex<String>>,
    _home: tempfile::TempDir,
}

fn command(home: &tempfile::TempDir, api_url: &str, args: &[&str]) -> Command {
    limited_command(home, api_url, None, args)
}

/// `resolve-pr serve ARGS`, through `sh -c 'ulimit …; exec …'` when `descriptors` gives the
/// (soft, hard) descriptor limit to start it with.
fn limited_command(
    home: &tempfile::TempDir,
    api_url: &str,
    descriptors: Option<(u64, u64)>,
    args: &[&str],
) -> Command {
    let config = home.path().join("config.toml");
    std::fs::write(&config, "").expect("an empty config");
    let binary = env!("CARGO_BIN_EXE_resolve-pr");
    let mut command = match descriptors {
        None => Command::new(binary),
        Some((soft, hard)) => {
            let mut sh = Command::new("/bin/sh");
            sh.arg("-c")
                .arg(format!(
                    "ulimit -S -n {soft} && ulimit -H -n {hard} && exec \"$0\" \"$@\""
                ))
                .arg(binary);
            sh
        }
    };
    command
        .arg("serve")
        .args(args)
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("RESOLVE_PR_CONFIG", &config)
        .env("GITHUB_API_URL", api_url)
        .env("RESOLVE_PR_LOG", "debug")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

impl Serve {
    /// Starts the server and waits for its `listening on` line; stderr keeps being collected.
    async fn start(api_url: &str, args: &[&str]) -> Serve {
        Serve::start_limited(api_url, None, args).await
    }

    /// [`Serve::start`] with a (soft, hard) descriptor limit.
    async fn start_limited(api_url: &str, descriptors: Option<(u64, u64)>, args: &[&str]) -> Serve {
        let home = tempfile::tempdir().expect("a temporary HOME");
        let mut child = limited_command(&home, api_url, descriptors, args)
            .spawn()
            .expect("resolve-pr serve starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let stderr = Arc::new(Mutex::new(String::new()));
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.expect("stderr reads") {
                stderr.lock().unwrap().push_str(&line);
                stderr.lock().unwrap().push('\n');
                if let Some(url) = line.strip_prefix("listening on ") {
                    return url.to_owned();
                }
            }
            panic!("no listening line in:\n{}", stderr.lock().unwrap());
        })
        .await
        .expect("the server announces its address");
        let collected = stderr.clone();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                collected.lock().unwrap().push_str(&line);
                collected.lock().unwrap().push('\n');
            }
        });
        let base = url
            .strip_suffix("/mcp")
            .expect("the URL ends in /mcp")
            .to_owned();
        Serve {
            child,
            url,
            base,
            stderr,
            _home: home,
        }
    }

    fn logs(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// One tools/call as a raw MCP POST (the stateless server needs no handshake).
async fn tool_call(url: &str, authorization: &str, name: &str, args: Value) -> reqwest::Response {
    http()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", authorization)
        .body(
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": name, "arguments": args}})
            .to_string(),
        )
        .send()
        .await
        .expect("the server answers")
}

async fn result_of(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("a JSON answer");
    body["result"].clone()
}

async fn status(url: String) -> u16 {
    http()
        .get(url)
        .send()
        .await
        .expect("answers")
        .status()
        .as_u16()
}

async fn sim() -> SimHandle {
    Sim::start(Scenario::builtin("private_repo_two_users").unwrap())
        .await
        .unwrap()
}

fn comments(repo: &str) -> Value {
    json!({"repository": repo, "pull_request_number": 1})
}

#[tokio::test]
async fn serves_with_each_token_never_logs_one_and_drains_on_sigterm() {
    let sim = sim().await;
    let server = Serve::start(&sim.base_url(), &["--http", "127.0.0.1:0"]).await;
    let port = server
        .url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .expect(&server.url);
    assert!(port.parse::<u16>().is_ok_and(|p| p > 0), "{}", server.url);
    assert_eq!(
        server
            .logs()
            .lines()
            .filter(|l| l.starts_with("listening on "))
            .count(),
        1
    );

    let alice = format!("Bearer {ALICE}");
    let bob = format!("Bearer {BOB}");
    let result = result_of(
        tool_call(
            &server.url,
            &alice,
            "pr_comment_list",
            comments("acme/secret"),
        )
        .await,
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(result.to_string().contains("vault"), "{result}");
    let result = result_of(
        tool_call(
            &server.url,
            &bob,
            "pr_comment_list",
            comments("acme/secret"),
        )
        .await,
    )
    .await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(!result.to_string().contains("vault"), "{result}");
    for bad in [
        format!("Bearer {STRAY} x"),
        format!("Token {STRAY}"),
        STRAY.to_owned(),
    ] {
        let response = tool_call(
            &server.url,
            &bad,
            "pr_comment_list",
            comments("acme/secret"),
        )
        .await;
        assert_eq!(response.status(), 401);
    }
    let response = http()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(
        response.headers()["www-authenticate"],
        "Bearer realm=\"resolve-pr\""
    );

    // A call whose forge request takes 2 s is in flight when SIGTERM arrives.
    sim.inject(Fault {
        method: Some("GET".into()),
        path: "/repos/acme/widgets/*".into(),
        times: 1,
        kind: FaultKind::Latency { ms: 2000 },
    });
    let url = server.url.clone();
    let slow = tokio::spawn(async move {
        tool_call(
            &url,
            &format!("Bearer {ALICE}"),
            "pr_comment_list",
            comments("acme/widgets"),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = server.child.id().expect("running").to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let mut draining = false;
    for _ in 0..50 {
        if status(format!("{}/readyz", server.base)).await == 503 {
            draining = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(draining, "readyz turns 503 once shutdown began");
    assert_eq!(status(format!("{}/healthz", server.base)).await, 200);
    let refused = tool_call(
        &server.url,
        &bob,
        "pr_comment_list",
        comments("acme/widgets"),
    )
    .await;
    assert_eq!(refused.status(), 503);

    let result = result_of(slow.await.unwrap()).await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(
        result.to_string().contains("Benchmarks attached."),
        "{result}"
    );
    let mut server = server;
    let exit = tokio::time::timeout(Duration::from_secs(15), server.child.wait())
        .await
        .expect("the server exits after the call")
        .unwrap();
    assert!(exit.success(), "{exit:?}");
    tokio::time::sleep(Duration::from_millis(100)).await;

    let logs = server.logs();
    assert!(logs.contains("DEBUG"), "debug logs were on:\n{logs}");
    assert!(logs.contains("shutdown began"), "{logs}");
    for token in [ALICE, BOB, STRAY] {
        assert!(!logs.contains(token), "a token in the logs:\n{logs}");
    }
}

#[tokio::test]
async fn a_public_address_without_allowed_hosts_does_not_start() {
    let home = tempfile::tempdir().unwrap();
    let out = command(&home, "http://127.0.0.1:9", &["--http", "0.0.0.0:0"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--allowed-host"), "{stderr}");
    assert!(stderr.contains("DNS rebinding"), "{stderr}");
    assert!(
        !stderr.lines().any(|l| l.starts_with("listening on ")),
        "{stderr}"
    );

    let out = command(
        &home,
        "http://127.0.0.1:9",
        &["--allowed-host", "mcp.example.com"],
    )
    .output()
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2), "HTTP flags need --http");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--http"), "{stderr}");
}

/// The descriptors a process has open.
fn descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("/proc/PID/fd")
        .count()
}

/// initialize, then tools/list, each on a new connection: `Err` says what kept it out.
async fn normal_call(url: &str) -> Result<(), String> {
    let client = http();
    for body in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "normal", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        let response = client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("authorization", format!("Bearer {ALICE}"))
            .header("connection", "close")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| format!("no answer: {e}"))?;
        if response.status() != 200 {
            return Err(format!("HTTP {}", response.status()));
        }
        let answer: Value = response.json().await.map_err(|e| e.to_string())?;
        if answer.get("result").is_none() {
            return Err(answer.to_string());
        }
    }
    Ok(())
}

/// A normal call, tried again every 200 ms after a refusal, gets through within 5 s.
async fn a_normal_call_gets_through(url: &str) {
    let mut last = String::new();
    let through = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match normal_call(url).await {
                Ok(()) => return,
                Err(why) => last = why,
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    assert!(
        through.is_ok(),
        "a normal call did not get through in 5 s: {last}"
    );
}

/// What the server did with an attacker's connection within `wait`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// Still open, nothing sent.
    Held,
    /// Answered `503` (the connection limit), then closed.
    Refused,
    /// Closed without an answer (the header timeout).
    Closed,
}

async fn fate_of(mut stream: TcpStream, wait: Duration) -> Fate {
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    let read = tokio::time::timeout(wait, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&answer);
    if text.is_empty() {
        return if read.is_ok() {
            Fate::Closed
        } else {
            Fate::Held
        };
    }
    let head = text.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 503 "), "{text}");
    assert!(head.contains("\r\nretry-after: 1\r\n"), "{text}");
    assert!(head.contains("\r\nconnection: close\r\n"), "{text}");
    assert!(
        text.contains("the server is at its connection limit"),
        "{text}"
    );
    Fate::Refused
}

/// `count` connections as a hostile client opens them: every other one sends half a request
/// head and stops, the rest send nothing.
async fn attack(url: &str, count: usize) -> Vec<TcpStream> {
    let address = url
        .strip_prefix("http://")
        .and_then(|a| a.strip_suffix("/mcp"))
        .expect(url);
    let half = b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: appl";
    let mut streams = Vec::with_capacity(count);
    for i in 0..count {
        let mut stream = TcpStream::connect(address)
            .await
            .expect("the kernel accepts");
        if i % 2 == 1 {
            stream.write_all(half).await.expect("half a head");
        }
        streams.push(stream);
    }
    streams
}

async fn fates(streams: Vec<TcpStream>, wait: Duration) -> Vec<Fate> {
    let mut tasks = tokio::task::JoinSet::new();
    for stream in streams {
        tasks.spawn(fate_of(stream, wait));
    }
    tasks.join_all().await
}

const ATTACKERS: usize = 300;

#[tokio::test]
async fn under_a_low_descriptor_limit_idle_and_half_sent_connections_cannot_keep_calls_out() {
    let _alone = crate::ALONE.lock().await;
    // Soft 128, hard 256: the server raises its soft limit to 256 and keeps a quarter of it
    // for everything but connections.
    let server = Serve::start_limited(
        "http://127.0.0.1:9",
        Some((128, 256)),
        &["--http", "127.0.0.1:0", "--header-timeout", "2"],
    )
    .await;
    let logs = server.logs();
    let raised = logs
        .lines()
        .find(|l| l.contains("raised the soft descriptor limit"))
        .unwrap_or_else(|| panic!("{logs}"));
    assert!(
        raised.contains("from=128") && raised.contains("to=256"),
        "{raised}"
    );
    assert!(logs.contains("max_connections=192"), "{logs}");
    let pid = server.child.id().expect("running");
    let before = descriptors(pid);

    let streams = attack(&server.url, ATTACKERS).await;
    a_normal_call_gets_through(&server.url).await;
    // Generous: the header timeout is 2 s.
    let fates = fates(streams, Duration::from_secs(6)).await;
    let count = |fate| fates.iter().filter(|f| **f == fate).count();
    assert_eq!(count(Fate::Held), 0, "connections never let go: {fates:?}");
    assert!(
        count(Fate::Refused) >= ATTACKERS - 192,
        "{} refused, {} closed",
        count(Fate::Refused),
        count(Fate::Closed)
    );
    assert!(count(Fate::Closed) > 0, "the header timeout closed none");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after = descriptors(pid);
    assert!(
        after <= before + 4,
        "{before} descriptors before the attack, {after} after"
    );
    a_normal_call_gets_through(&server.url).await;
}

#[tokio::test]
async fn out_of_descriptors_a_waiting_connection_is_answered_not_left_in_the_backlog() {
    // A connection limit the descriptors cannot hold: accept fails with EMFILE.
    let server = Serve::start_limited(
        "http://127.0.0.1:9",
        Some((256, 256)),
        &[
            "--http",
            "127.0.0.1:0",
            "--header-timeout",
            "3",
            "--max-connections",
            "1000",
        ],
    )
    .await;
    assert!(
        server.logs().contains("--max-connections is above"),
        "{}",
        server.logs()
    );
    let streams = attack(&server.url, ATTACKERS).await;
    // Well inside the header timeout: what the server could not accept was answered or
    // closed at once, not left waiting in the backlog.
    let fates = fates(streams, Duration::from_secs(1)).await;
    let let_go = fates.iter().filter(|f| **f != Fate::Held).count();
    assert!(
        let_go >= ATTACKERS - 256,
        "{let_go} of {ATTACKERS} let go: {fates:?}"
    );
    a_normal_call_gets_through(&server.url).await;
    assert_eq!(status(format!("{}/healthz", server.base)).await, 200);
}
