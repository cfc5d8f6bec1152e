//! `serve --http` as its clients see it, through rmcp's own streamable-HTTP client and raw
//! HTTP requests, against the forge simulator: each request reaches the forge with the token
//! it carries (and only that one), requests without one are refused unless the server may use
//! its own, Host and Origin are checked, read-only applies, tasks are not offered, and
//! shutdown drains the calls in flight. A hostile client's slow request heads, slow bodies,
//! idle connections, invalid messages and oversized bodies are answered and closed.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use resolve_pr_core::CursorCodec;
use resolve_pr_forge::{ClientOptions, Config, Forges};
use resolve_pr_forge_sim::{Fault, FaultKind, Scenario, Sim, SimHandle};
use resolve_pr_mcp::{Error, HttpOptions, HttpServer, Options, Selection, Server};
use resolve_pr_tools::Context;
use rmcp::model::{CallToolRequestParams, CallToolResult, GetTaskParams};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

const ALICE: &str = "ghp_alice_token_0123456789";
const BOB: &str = "ghp_bob_token_9876543210";
const SECRET_COMMENT: &str = "The new key id is in the vault.";
const PUBLIC_COMMENT: &str = "Benchmarks attached.";

/// Forges configured for the simulator from a private environment; the server's own token is
/// `server_token` (none: the server has no credential of its own).
fn context(sim: &SimHandle, server_token: Option<&str>) -> Context {
    let mut env: BTreeMap<&str, String> = BTreeMap::from([("GITHUB_API_URL", sim.base_url())]);
    if let Some(token) = server_token {
        env.insert("GITHUB_TOKEN", token.to_owned());
    }
    let env = Arc::new(env);
    let lookup = {
        let env = env.clone();
        move |k: &str| env.get(k).cloned()
    };
    let config = Config::from_parts(None, None, &lookup).unwrap();
    let options = ClientOptions {
        env: Arc::new(lookup),
        gh_cli: false,
        ..ClientOptions::default()
    };
    Context::new(
        Arc::new(Forges::with_options(config, options)),
        CursorCodec::new([7; 32]),
    )
}

async fn two_users() -> SimHandle {
    Sim::start(Scenario::builtin("private_repo_two_users").unwrap())
        .await
        .unwrap()
}

/// A server listening on a port of the system's choice, stopped by `stop`.
struct Running {
    url: String,
    base: String,
    stop: Option<oneshot::Sender<()>>,
    done: JoinHandle<Result<(), Error>>,
}

impl Running {
    async fn start(ctx: Context, options: Options, http: impl FnOnce(&mut HttpOptions)) -> Running {
        let mut http_options = HttpOptions::new("127.0.0.1:0".parse().unwrap());
        http(&mut http_options);
        let server = Server::new(ctx, Selection::new(&options).unwrap());
        let bound = HttpServer::bind(server, http_options).await.unwrap();
        let url = bound.url().unwrap();
        let base = url.strip_suffix("/mcp").unwrap().to_owned();
        let (stop, stopped) = oneshot::channel::<()>();
        let done = tokio::spawn(bound.run(async move {
            let _ = stopped.await;
        }));
        Running {
            url,
            base,
            stop: Some(stop),
            done,
        }
    }

    async fn stop(mut self) -> Result<(), Error> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(30), self.done)
            .await
            .expect("the server stops")
            .expect("the server task")
    }
}

/// rmcp's streamable-HTTP client, sending `Authorization: Bearer token` when given.
async fn client(url: &str, token: Option<&str>) -> RunningService<RoleClient, ()> {
    install_crypto();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    if let Some(token) = token {
        config = config.auth_header(token.to_owned());
    }
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

/// In a workspace build reqwest has rustls without a built-in provider.
fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn http() -> reqwest::Client {
    install_crypto();
    reqwest::Client::new()
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
}

/// A raw MCP POST with the given extra headers.
async fn post(url: &str, headers: &[(&str, &str)], body: &Value) -> reqwest::Response {
    let mut request = http()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

fn comments_of(repo: &str) -> CallToolRequestParams {
    call(
        "pr_comment_list",
        json!({"repository": repo, "pull_request_number": 1}),
    )
}

fn unresolved_of(repo: &str) -> CallToolRequestParams {
    call(
        "find_unresolved_comments",
        json!({"pr": format!("{repo}#1")}),
    )
}

fn text(result: &CallToolResult) -> String {
    serde_json::to_string(result).unwrap()
}

/// Which tokens reached the forge, in order, since the last clear.
fn tokens_seen(sim: &SimHandle) -> Vec<Option<String>> {
    sim.requests().into_iter().map(|r| r.token).collect()
}

#[tokio::test]
async fn a_client_lists_and_calls_tools_with_its_bearer_token() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |_| {}).await;
    let alice = client(&server.url, Some(ALICE)).await;
    let info = alice.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("resolve-pr")
    );
    let names: Vec<String> = alice
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    // Every tool but the code and refactoring tools, whose every call a remote caller would
    // have refused (they read a checkout on the server's machine). A stateless server cannot remember what
    // one agent turned on, so it offers every other toolset, and no tools to turn them on.
    let remote: Vec<&str> = resolve_pr_tools::all()
        .iter()
        .filter(|t| !t.toolset.reads_the_servers_checkout())
        .map(|t| t.name)
        .collect();
    assert_eq!(names, remote);
    assert!(!names.iter().any(|n| n == "rename"), "{names:?}");
    assert!(!names.iter().any(|n| n == "find_definition"), "{names:?}");
    let err = alice
        .call_tool(call("find_definition", json!({"symbol": "main"})))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("stdio"), "{err}");
    let all = Selection::new(&Options::default()).unwrap();
    assert!(all.toolset_to_enable("find_definition").is_some());

    let result = alice.call_tool(comments_of("acme/secret")).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert!(text(&result).contains(SECRET_COMMENT), "{}", text(&result));
    let tokens = tokens_seen(&sim);
    assert!(!tokens.is_empty());
    assert!(
        tokens.iter().all(|t| t.as_deref() == Some(ALICE)),
        "{tokens:?}"
    );
    alice.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn without_a_token_the_answer_is_401_saying_how_to_send_one() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, Some(ALICE)), Options::default(), |_| {}).await;
    let response = post(&server.url, &[], &initialize()).await;
    assert_eq!(response.status(), 401);
    assert_eq!(
        response.headers()["www-authenticate"],
        "Bearer realm=\"resolve-pr\""
    );
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["category"], "authentication", "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("Authorization: Bearer <token>"),
        "{body}"
    );
    assert!(
        body["suggestion"]
            .as_str()
            .unwrap()
            .contains("--header \"Authorization: Bearer"),
        "{body}"
    );

    // A header that is not `Bearer <token>` is refused the same way, without quoting it.
    for bad in [
        "Basic YWxpY2U6c2VjcmV0",
        "Bearer",
        "ghp_alice_token_0123456789",
        "Bearer ghp_alice token",
    ] {
        let response = post(&server.url, &[("authorization", bad)], &initialize()).await;
        assert_eq!(response.status(), 401, "{bad}");
        assert!(
            response.headers()["www-authenticate"]
                .to_str()
                .unwrap()
                .contains("invalid_token"),
            "{bad}"
        );
        let body = response.text().await.unwrap();
        assert!(!body.contains("YWxpY2U6c2VjcmV0"), "{body}");
        assert!(!body.contains("ghp_alice"), "{body}");
        assert!(body.contains("\"category\":\"authentication\""), "{body}");
    }

    // rmcp's client sees the refusal too, and nothing reached the forge.
    install_crypto();
    let config = StreamableHttpClientTransportConfig::with_uri(server.url.clone());
    let refused = ().serve(StreamableHttpClientTransport::from_config(config)).await;
    assert!(refused.is_err());
    assert!(sim.requests().is_empty(), "{:?}", sim.requests());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn allow_server_token_serves_requests_without_one_with_the_servers_token() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, Some(ALICE)), Options::default(), |h| {
        h.allow_server_token = true;
    })
    .await;
    let anonymous = client(&server.url, None).await;
    let result = anonymous
        .call_tool(comments_of("acme/secret"))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert!(text(&result).contains(SECRET_COMMENT));
    let tokens = tokens_seen(&sim);
    assert!(
        !tokens.is_empty() && tokens.iter().all(|t| t.as_deref() == Some(ALICE)),
        "{tokens:?}"
    );

    // A header that is not `Bearer <token>` is still refused, never served as the server.
    let response = post(
        &server.url,
        &[("authorization", "Basic YWxpY2U6c2VjcmV0")],
        &initialize(),
    )
    .await;
    assert_eq!(response.status(), 401);

    // A caller who sends a token still gets their own, never the server's.
    sim.clear_requests();
    let bob = client(&server.url, Some(BOB)).await;
    let result = bob.call_tool(comments_of("acme/secret")).await.unwrap();
    assert_eq!(result.is_error, Some(true), "{}", text(&result));
    assert!(!text(&result).contains(SECRET_COMMENT));
    let tokens = tokens_seen(&sim);
    assert!(
        !tokens.is_empty() && tokens.iter().all(|t| t.as_deref() == Some(BOB)),
        "{tokens:?}"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn two_tokens_each_see_only_what_they_may_also_interleaved_and_repeated() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |_| {}).await;
    let alice = client(&server.url, Some(ALICE)).await;
    let bob = client(&server.url, Some(BOB)).await;
    // Alice first, so anything cached from her reads is there when Bob asks; then both at
    // once, several times (ETag revalidation, the review-feedback snapshot, client reuse).
    for round in 0..3 {
        for request in [comments_of as fn(&str) -> _, unresolved_of] {
            let (a, b) = tokio::join!(
                alice.call_tool(request("acme/secret")),
                bob.call_tool(request("acme/secret")),
            );
            let (a, b) = (a.unwrap(), b.unwrap());
            assert_eq!(a.is_error, Some(false), "round {round}: {}", text(&a));
            assert_eq!(b.is_error, Some(true), "round {round}: {}", text(&b));
            assert!(!text(&b).contains("vault"), "round {round}: {}", text(&b));
            let b_error = b.structured_content.unwrap();
            assert_eq!(b_error["category"], "user", "{b_error}");

            let (a, b) = tokio::join!(
                alice.call_tool(request("acme/widgets")),
                bob.call_tool(request("acme/widgets")),
            );
            let (a, b) = (a.unwrap(), b.unwrap());
            assert_eq!(a.is_error, Some(false), "{}", text(&a));
            assert_eq!(b.is_error, Some(false), "{}", text(&b));
        }
        let result = alice.call_tool(comments_of("acme/secret")).await.unwrap();
        assert!(text(&result).contains(SECRET_COMMENT));
        let result = bob.call_tool(comments_of("acme/widgets")).await.unwrap();
        assert!(text(&result).contains(PUBLIC_COMMENT));
    }
    // Every request to the private repository that was answered came with Alice's token.
    for r in sim.requests() {
        if r.path.starts_with("/repos/acme/secret") && r.status < 300 {
            assert_eq!(r.token.as_deref(), Some(ALICE), "{r:?}");
        }
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn origin_and_host_are_checked() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |_| {}).await;
    let auth = ("authorization", "Bearer ghp_alice_token_0123456789");
    for (origin, status) in [
        ("https://evil.example", 403),
        ("null", 403),
        ("http://localhost:3000", 200),
        ("http://127.0.0.1:6274", 200),
    ] {
        let response = post(&server.url, &[auth, ("origin", origin)], &initialize()).await;
        assert_eq!(response.status(), status, "{origin}");
    }
    for (host, status) in [
        ("evil.example", 403),
        ("evil.example:8080", 403),
        ("localhost", 200),
    ] {
        let response = post(&server.url, &[auth, ("host", host)], &initialize()).await;
        assert_eq!(response.status(), status, "{host}");
    }
    server.stop().await.unwrap();

    // Named origins and hosts replace the loopback origins and add to the loopback hosts.
    let server = Running::start(context(&sim, None), Options::default(), |h| {
        h.allowed_origins = vec!["https://app.example.com".into()];
        h.allowed_hosts = vec!["mcp.example.com".into()];
    })
    .await;
    for (origin, status) in [
        ("https://app.example.com", 200),
        ("http://localhost:3000", 403),
        ("https://evil.example", 403),
    ] {
        let response = post(&server.url, &[auth, ("origin", origin)], &initialize()).await;
        assert_eq!(response.status(), status, "{origin}");
    }
    for (host, status) in [("mcp.example.com", 200), ("evil.example", 403)] {
        let response = post(&server.url, &[auth, ("host", host)], &initialize()).await;
        assert_eq!(response.status(), status, "{host}");
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_public_address_needs_allowed_hosts() {
    let sim = two_users().await;
    let server = Server::new(
        context(&sim, None),
        Selection::new(&Options::default()).unwrap(),
    );
    let mut options = HttpOptions::new("0.0.0.0:0".parse().unwrap());
    options.allowed_origins = vec!["not an origin".into()];
    let Err(e) = HttpServer::bind(server.clone(), options.clone()).await else {
        panic!("a public address without --allowed-host must not start")
    };
    let message = e.to_string();
    assert!(message.contains("--allowed-host"), "{message}");
    assert!(message.contains("DNS rebinding"), "{message}");
    assert!(message.contains("\"not an origin\""), "{message}");

    options.allowed_origins.clear();
    options.allowed_hosts = vec!["mcp.example.com".into()];
    let bound = HttpServer::bind(server, options).await.unwrap();
    assert!(bound.local_addr().unwrap().ip().is_unspecified());
}

#[tokio::test]
async fn read_only_hides_writing_tools_over_http() {
    let sim = two_users().await;
    let options = Options {
        read_only: true,
        toolsets: None,
    };
    let server = Running::start(context(&sim, None), options.clone(), |_| {}).await;
    let alice = client(&server.url, Some(ALICE)).await;
    let names: Vec<String> = alice
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(
        names,
        Selection::new(&options)
            .unwrap()
            .for_remote_callers()
            .names()
    );
    assert!(!names.iter().any(|n| n == "pr_comment_create"));
    let err = alice
        .call_tool(call(
            "pr_comment_create",
            json!({"repository": "acme/widgets", "pull_request_number": 1, "comment": "hi"}),
        ))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
    assert!(
        !sim.requests().iter().any(|r| r.method == "POST"),
        "nothing written"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn tasks_are_not_offered_over_http() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |_| {}).await;
    let alice = client(&server.url, Some(ALICE)).await;
    let info = alice.peer_info().unwrap();
    assert!(info.capabilities.tools.is_some());
    assert!(
        !info.capabilities.supports_tasks(),
        "{:?}",
        info.capabilities
    );
    let err = alice
        .get_task(GetTaskParams::new("any".to_owned()))
        .await
        .unwrap_err();
    let ServiceError::McpError(err) = err else {
        panic!("expected a JSON-RPC error, got {err:?}")
    };
    assert_eq!(err.code, rmcp::model::ErrorCode::METHOD_NOT_FOUND);
    server.stop().await.unwrap();
}

async fn status_of(url: String) -> u16 {
    http().get(url).send().await.unwrap().status().as_u16()
}

/// Polls `check` until it holds (at most 10 s).
async fn eventually<F: Future<Output = bool>>(mut check: impl FnMut() -> F) {
    for _ in 0..200 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the condition never held");
}

#[tokio::test]
async fn shutdown_refuses_new_calls_and_finishes_the_ones_in_flight() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |_| {}).await;
    assert_eq!(status_of(format!("{}/healthz", server.base)).await, 200);
    assert_eq!(status_of(format!("{}/readyz", server.base)).await, 200);

    let alice = client(&server.url, Some(ALICE)).await;
    // The call's forge request takes 1.5 s: it is in flight when shutdown begins.
    sim.inject(Fault {
        method: Some("GET".into()),
        path: "/repos/acme/widgets/*".into(),
        times: 1,
        kind: FaultKind::Latency { ms: 1500 },
    });
    let slow = tokio::spawn(async move {
        let result = alice.call_tool(comments_of("acme/widgets")).await;
        (alice, result)
    });
    // Well inside the 1.5 s the forge takes to answer.
    tokio::time::sleep(Duration::from_millis(400)).await;

    let Running {
        base,
        url,
        stop,
        done,
        ..
    } = server;
    stop.unwrap().send(()).unwrap();
    let base_ref = &base;
    eventually(|| async move { status_of(format!("{base_ref}/readyz")).await == 503 }).await;
    assert_eq!(status_of(format!("{base}/healthz")).await, 200);
    let refused = post(
        &url,
        &[("authorization", "Bearer ghp_bob_token_9876543210")],
        &initialize(),
    )
    .await;
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "1");
    assert!(!done.is_finished(), "the server waits for the call");

    let (alice, result) = slow.await.unwrap();
    let result = result.unwrap();
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert!(text(&result).contains(PUBLIC_COMMENT));
    drop(alice);
    tokio::time::timeout(Duration::from_secs(10), done)
        .await
        .expect("the server stops once the call is done")
        .unwrap()
        .unwrap();
    assert!(
        http().get(format!("{base}/healthz")).send().await.is_err(),
        "nothing listens any more"
    );
}

#[tokio::test]
async fn shutdown_grace_bounds_the_wait_for_calls_in_flight() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |h| {
        h.shutdown_grace = Duration::from_millis(300);
    })
    .await;
    let alice = client(&server.url, Some(ALICE)).await;
    sim.inject(Fault {
        method: Some("GET".into()),
        path: "/repos/acme/widgets/*".into(),
        times: 1,
        kind: FaultKind::Latency { ms: 20_000 },
    });
    let slow = tokio::spawn(async move { alice.call_tool(comments_of("acme/widgets")).await });
    tokio::time::sleep(Duration::from_millis(400)).await;
    let started = std::time::Instant::now();
    server.stop().await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    slow.abort();
}

/// A client that declares the tasks extension.
#[derive(Clone)]
struct TaskClient;

impl rmcp::ClientHandler for TaskClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_tasks()
                .build(),
            rmcp::model::Implementation::new("task-client", "0"),
        )
    }
}

/// `ci_running` with its running checks finishing on the 6th check listing, polled fast.
async fn running_ci() -> (SimHandle, Context) {
    let yaml = include_str!("../../../forge-sim/scenarios/ci_running.yaml")
        .replace("complete_after: 2", "complete_after: 6")
        .replace("complete_after: 4", "complete_after: 6");
    let sim = Sim::start(Scenario::from_yaml(&yaml).unwrap())
        .await
        .unwrap();
    let mut ctx = context(&sim, None);
    ctx.ci.poll_min = Duration::from_millis(20);
    ctx.ci.poll_max = Duration::from_millis(40);
    ctx.ci.wait_cap = Duration::from_secs(120);
    (sim, ctx)
}

fn wait_args() -> Value {
    json!({"pr": "acme/widgets#8", "wait": true, "bail_on_first": false})
}

#[tokio::test]
async fn a_long_call_reports_progress_on_its_stream_and_is_never_a_task() {
    let (_sim, ctx) = running_ci().await;
    let server = Running::start(ctx, Options::default(), |_| {}).await;

    // The request asks for progress: the answer becomes an SSE stream of progress
    // notifications that ends with the result.
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "get_failing_tests", "arguments": wait_args(),
        "_meta": {"progressToken": "wait-1"}}});
    let response = post(&server.url, &[("authorization", "Bearer ghp_read")], &body).await;
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let stream = response.text().await.unwrap();
    let messages: Vec<Value> = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect();
    let progress: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "{stream}");
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "wait-1")
    );
    let last = messages.last().unwrap();
    assert_eq!(last["id"], 3, "{stream}");
    assert_eq!(
        last["result"]["structuredContent"]["status"], "failed",
        "{last}"
    );

    // A client that declares tasks in every request (2026-07-28) still gets the result
    // itself: no task store to poll on another instance, or with another token.
    install_crypto();
    let config = StreamableHttpClientTransportConfig::with_uri(server.url.clone())
        .auth_header("ghp_read".to_owned());
    let client = rmcp::service::ClientServiceExt::serve_with_lifecycle(
        TaskClient,
        StreamableHttpClientTransport::from_config(config),
        rmcp::service::ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .unwrap();
    let Value::Object(args) = wait_args() else {
        unreachable!()
    };
    let response = client
        .call_tool_once(CallToolRequestParams::new("get_failing_tests").with_arguments(args))
        .await
        .unwrap();
    let rmcp::model::CallToolResponse::Complete(result) = response else {
        panic!("expected the result itself, got {response:?}")
    };
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_remote_caller_cannot_use_the_servers_paths_or_push_with_its_credentials() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |_| {}).await;
    let alice = client(&server.url, Some(ALICE)).await;
    let here = std::env::current_dir().unwrap();
    let result = alice
        .call_tool(call(
            "pr_comment_list",
            json!({"directory": here.display().to_string(), "pull_request_number": 1}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true), "{}", text(&result));
    let error = result.structured_content.unwrap();
    assert_eq!(error["category"], "user", "{error}");
    assert_eq!(error["details"]["field"], "directory", "{error}");

    let result = alice
        .call_tool(call(
            "manage_stacked_prs",
            json!({"base_pr": "acme/widgets#1", "dependent_pr": "acme/widgets#1",
                   "execute": true, "push": true}),
        ))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true), "{}", text(&result));
    let error = result.structured_content.unwrap();
    assert_eq!(error["category"], "logical", "{error}");
    assert!(
        error["error"].as_str().unwrap().contains("git credentials"),
        "{error}"
    );
    assert!(sim.requests().is_empty(), "{:?}", sim.requests());
    server.stop().await.unwrap();
}

/// A raw POST to `/mcp` of `body` with a bearer token and MCP's headers; `replace` replaces
/// or adds headers.
async fn post_raw(
    url: &str,
    replace: &[(&'static str, &str)],
    body: impl Into<reqwest::Body>,
) -> reqwest::Response {
    use reqwest::header::{HeaderMap, HeaderValue};
    let mut headers = HeaderMap::new();
    let token = format!("Bearer {ALICE}");
    for (name, value) in [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("authorization", token.as_str()),
    ]
    .iter()
    .chain(replace)
    {
        headers.insert(*name, HeaderValue::from_str(value).unwrap());
    }
    http()
        .post(url)
        .headers(headers)
        .body(body)
        .send()
        .await
        .unwrap()
}

/// The JSON-RPC error of a refused body: HTTP `status`, JSON, the error's code and id.
async fn json_rpc_error(response: reqwest::Response, status: u16, code: i64, id: Value) -> Value {
    assert_eq!(response.status(), status);
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(body["id"], id, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    body["error"].clone()
}

#[tokio::test]
async fn a_body_that_is_not_one_message_gets_400_and_the_json_rpc_error_stdio_gives() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |_| {}).await;
    let url = &server.url;

    let error = json_rpc_error(
        post_raw(url, &[], "{\"jsonrpc\":\"2.0\",").await,
        400,
        -32700,
        Value::Null,
    )
    .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("Parse error: the request body is not JSON"),
        "{error}"
    );
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]).to_string();
    let error = json_rpc_error(
        post_raw(url, &[], batch.clone()).await,
        400,
        -32600,
        Value::Null,
    )
    .await;
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("a batch (an array)")
            && message.contains("not supported by this MCP version"),
        "{error}"
    );
    json_rpc_error(post_raw(url, &[], "7").await, 400, -32600, Value::Null).await;
    let error = json_rpc_error(
        post_raw(url, &[], r#"{"jsonrpc":"2.0","id":8}"#).await,
        400,
        -32600,
        json!(8),
    )
    .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("needs a method"),
        "{error}"
    );

    // What rmcp refuses before reading a body keeps its answer; admit's come first of all.
    let wrong_host = post_raw(url, &[("host", "evil.example")], batch.clone()).await;
    assert_eq!(wrong_host.status(), 403);
    let not_json = post_raw(url, &[("content-type", "text/plain")], "not json").await;
    assert_eq!(not_json.status(), 415);
    let no_token = http()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(batch)
        .send()
        .await
        .unwrap();
    assert_eq!(no_token.status(), 401);

    // A message still goes through as before.
    let answer = post_raw(url, &[], r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#).await;
    assert_eq!(answer.status(), 200);
    let answer: Value = answer.json().await.unwrap();
    assert_eq!(answer["id"], "p", "{answer}");
    assert!(answer.get("result").is_some(), "{answer}");
    server.stop().await.unwrap();
}

/// A ping whose `_meta` pads it to `bytes` bytes, with its id first.
fn padded_ping(id: &str, bytes: usize) -> String {
    let head =
        format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping","params":{{"_meta":{{"pad":""#);
    let tail = r#""}}}"#;
    let mut body = head;
    body.extend(std::iter::repeat_n('a', bytes - body.len() - tail.len()));
    body.push_str(tail);
    body
}

#[tokio::test]
async fn a_request_body_may_be_16_mib_as_a_stdio_line_may_and_no_more() {
    const MIB: usize = 1024 * 1024;
    assert_eq!(resolve_pr_mcp::MAX_MESSAGE_BYTES, 16 * MIB);
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |_| {}).await;

    let answer = post_raw(&server.url, &[], padded_ping("fifteen", 15 * MIB)).await;
    assert_eq!(answer.status(), 200);
    let answer: Value = answer.json().await.unwrap();
    assert_eq!(answer["id"], "fifteen");
    assert!(
        answer.get("result").is_some(),
        "{}",
        answer.to_string().len()
    );

    // Too long by its Content-Length: refused before a byte of it is read.
    let refused = post_raw(&server.url, &[], padded_ping("seventeen", 17 * MIB)).await;
    assert_eq!(refused.headers()["connection"], "close");
    let error = json_rpc_error(refused, 413, -32600, Value::Null).await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("longer than 16777216 bytes"),
        "{error}"
    );
    assert_eq!(error["data"]["max_bytes"], 16 * MIB);

    // Too long as it streams in (chunked, no length): refused at the limit, with its id.
    let mut stream = connect(&server.base).await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer {ALICE}\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         transfer-encoding: chunked\r\n\r\n"
    );
    let body = padded_ping("streamed", 17 * MIB);
    let (mut reading, mut writing) = stream.split();
    let write = async {
        writing.write_all(head.as_bytes()).await?;
        for chunk in body.as_bytes().chunks(MIB) {
            writing
                .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                .await?;
            writing.write_all(chunk).await?;
            writing.write_all(b"\r\n").await?;
        }
        writing.write_all(b"0\r\n\r\n").await
    };
    let (_, answer) = tokio::join!(write, read_response(&mut reading, Duration::from_secs(30)));
    let (status, head, body) = answer.expect("an answer to the long body");
    assert_eq!(status, 413, "{head}");
    assert!(
        head.to_ascii_lowercase().contains("connection: close"),
        "{head}"
    );
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["id"], "streamed", "{body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    server.stop().await.unwrap();
}

async fn connect(base: &str) -> TcpStream {
    TcpStream::connect(base.strip_prefix("http://").unwrap())
        .await
        .unwrap()
}

/// One HTTP response read off a raw connection: status, head, body (by Content-Length, else
/// up to the end); `None` when nothing whole came within `wait` or the server closed first.
async fn read_response(
    stream: &mut (impl tokio::io::AsyncRead + Unpin),
    wait: Duration,
) -> Option<(u16, String, String)> {
    let read = async {
        let mut bytes = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head.lines().find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                });
                if length.is_some_and(|n| body.len() >= n) {
                    let status = head.split(' ').nth(1)?.parse().ok()?;
                    return Some((status, head.to_owned(), body.to_owned()));
                }
            }
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => bytes.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(wait, read).await.ok().flatten()
}

/// Whether the server closes `stream` within `wait` (reading whatever it sends first).
async fn closed_within(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 4096];
    let closed = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(wait, closed).await.is_ok()
}

#[tokio::test]
async fn idle_connections_and_slow_request_heads_are_closed_by_the_header_timeout() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |h| {
        h.header_timeout = Duration::from_secs(1);
    })
    .await;
    // Generous: the header timeout is 1 s.
    let wait = Duration::from_secs(8);

    let mut idle = connect(&server.base).await;
    assert!(
        closed_within(&mut idle, wait).await,
        "an idle connection stays open"
    );

    // Kept alive after an answer, then idle.
    let mut kept = connect(&server.base).await;
    kept.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    let (status, _, body) = read_response(&mut kept, wait)
        .await
        .expect("healthz answers");
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    assert!(
        closed_within(&mut kept, wait).await,
        "a kept-alive idle connection stays open"
    );

    // Slowloris: a byte of the head every second, for longer than anyone waits.
    let mut slow = connect(&server.base).await;
    let head = b"POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n";
    let mut closed = false;
    for byte in head.iter().take(10) {
        if slow.write_all(&[*byte]).await.is_err()
            || closed_within(&mut slow, Duration::from_secs(1)).await
        {
            closed = true;
            break;
        }
    }
    assert!(closed, "a head sent a byte a second was never cut off");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_body_sent_a_byte_a_second_is_ended_by_the_body_timeout() {
    let sim = two_users().await;
    let server = Running::start(context(&sim, None), Options::default(), |h| {
        h.body_timeout = Duration::from_secs(2);
    })
    .await;
    let stream = connect(&server.base).await;
    let (mut reading, mut writing) = stream.into_split();
    let body = json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/list"}).to_string();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer {ALICE}\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         content-length: {}\r\n\r\n",
        body.len()
    );
    // The head and the body's start (its id) at once, then a byte a second.
    let (start, rest) = body.split_at(20);
    assert!(start.contains(r#""id":"slow","#), "{start}");
    writing.write_all(head.as_bytes()).await.unwrap();
    writing.write_all(start.as_bytes()).await.unwrap();
    let rest = rest.to_owned();
    let trickle = tokio::spawn(async move {
        for byte in rest.bytes() {
            if writing.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
    let (status, head, body) = read_response(&mut reading, Duration::from_secs(15))
        .await
        .expect("the trickling body is answered");
    assert_eq!(status, 408, "{head}");
    assert!(
        head.to_ascii_lowercase().contains("connection: close"),
        "{head}"
    );
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["id"], "slow", "the id had arrived: {body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not arrive within 2 s"),
        "{body}"
    );
    let mut rest = [0u8; 64];
    let end = tokio::time::timeout(Duration::from_secs(5), reading.read(&mut rest)).await;
    assert!(
        matches!(end, Ok(Ok(0)) | Ok(Err(_))),
        "the connection stays open: {end:?}"
    );
    trickle.abort();
    server.stop().await.unwrap();
}
