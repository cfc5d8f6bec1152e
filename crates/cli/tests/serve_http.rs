//! `resolve-pr serve --http` as a process: it announces `listening on URL` once it accepts
//! connections, serves calls with each request's bearer token, never logs a token (even at
//! debug level), refuses an unsafe listen address at startup, and on SIGTERM stops
//! accepting, answers `/readyz` with 503, finishes the call in flight and exits 0.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use resolve_pr_forge_sim::{Fault, FaultKind, Scenario, Sim, SimHandle};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
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
    let config = home.path().join("config.toml");
    std::fs::write(&config, "").expect("an empty config");
    let mut command = Command::new(env!("CARGO_BIN_EXE_resolve-pr"));
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
        let home = tempfile::tempdir().expect("a temporary HOME");
        let mut child = command(&home, api_url, args)
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
