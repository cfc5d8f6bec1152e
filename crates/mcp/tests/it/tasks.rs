//! Waiting for CI as an MCP task (the `io.modelcontextprotocol/tasks` extension), through
//! rmcp's own client: a client that declares the extension gets a task handle at once for
//! `get_failing_tests` with `wait`, reads the wait's progress as the task's status message,
//! gets the result from `tasks/get`, and can cancel it. A client that does not declare it
//! gets a plain result, as before.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use resolve_pr_core::CursorCodec;
use resolve_pr_forge::{ClientOptions, Config, Forges};
use resolve_pr_forge_sim::{Scenario, Sim, SimHandle};
use resolve_pr_mcp::{Options, Selection, Server};
use resolve_pr_tools::Context;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, ProtocolVersion, TaskPayload, TaskStatus,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// A client that declares the tasks extension at initialize.
#[derive(Clone)]
struct TaskClient;

impl ClientHandler for TaskClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("task-client", "0"),
        )
    }
}

fn context(sim: &SimHandle) -> Context {
    let env: BTreeMap<&str, String> = BTreeMap::from([
        ("GITHUB_API_URL", sim.base_url()),
        ("GITHUB_TOKEN", "ghp_read".to_owned()),
    ]);
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
    let mut ctx = Context::new(
        Arc::new(Forges::with_options(config, options)),
        CursorCodec::new([3; 32]),
    );
    ctx.ci.poll_min = Duration::from_millis(20);
    ctx.ci.poll_max = Duration::from_millis(40);
    ctx.ci.wait_cap = Duration::from_secs(120);
    ctx
}

/// `ci_running` with its running checks finishing on the `listings`th check listing.
async fn running_ci(listings: u32) -> SimHandle {
    let yaml = include_str!("../../../forge-sim/scenarios/ci_running.yaml")
        .replace("complete_after: 2", &format!("complete_after: {listings}"))
        .replace("complete_after: 4", &format!("complete_after: {listings}"));
    Sim::start(Scenario::from_yaml(&yaml).unwrap())
        .await
        .unwrap()
}

/// A client connected the 2026-07-28 way (`server/discover`, capabilities in every
/// request's `_meta`), or the legacy way (`initialize`).
async fn connect<C: ClientHandler>(
    client: C,
    ctx: Context,
    modern: bool,
) -> RunningService<RoleClient, C> {
    let server = Server::new(ctx, Selection::new(&Options::default()).unwrap());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = if modern {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    client
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .unwrap()
}

fn wait_call() -> CallToolRequestParams {
    let Value::Object(args) = json!({"pr": "acme/widgets#8", "wait": true, "bail_on_first": false})
    else {
        unreachable!()
    };
    CallToolRequestParams::new("get_failing_tests").with_arguments(args)
}

#[tokio::test]
async fn a_wait_runs_as_a_task_for_a_client_that_declares_tasks() {
    let sim = running_ci(12).await;
    let client = connect(TaskClient, context(&sim), true).await;
    let info = client.peer_info().unwrap();
    assert!(
        info.capabilities.supports_tasks(),
        "the server declares tasks"
    );

    let response = client.call_tool_once(wait_call()).await.unwrap();
    let CallToolResponse::Task(created) = response else {
        panic!("expected a task handle, got {response:?}")
    };
    assert_eq!(created.task.status, TaskStatus::Working);
    // The task outlives the longest wait, and suggests polling at the CI poll pace.
    assert!(created.task.ttl_ms.unwrap() > 120_000);
    assert_eq!(created.task.poll_interval_ms, Some(20));

    let mut messages = Vec::new();
    let result = loop {
        let got = client
            .get_task(GetTaskParams::new(created.task.task_id.clone()))
            .await
            .unwrap();
        messages.extend(got.task.task.status_message.clone());
        match got.task.payload {
            TaskPayload::Completed { result } => break Value::Object(result),
            TaskPayload::Working => tokio::time::sleep(Duration::from_millis(15)).await,
            other => panic!("unexpected task state {other:?}"),
        }
    };
    let out = &result["structuredContent"];
    assert_eq!(result["isError"], false, "{result:#}");
    assert_eq!(out["status"], "failed");
    assert_eq!(out["wait"]["timed_out"], false);
    // A task hears progress, so it waits up to the cap, not a client's 60 s.
    assert_eq!(out["wait"]["limit_seconds"], 120);
    assert!(
        messages.iter().any(|m| m.contains("waiting on")),
        "the wait's progress shows as the status message: {messages:?}"
    );
}

#[tokio::test]
async fn cancelling_the_task_stops_its_requests() {
    let sim = running_ci(100_000).await;
    let client = connect(TaskClient, context(&sim), true).await;
    let CallToolResponse::Task(created) = client.call_tool_once(wait_call()).await.unwrap() else {
        panic!("expected a task handle")
    };
    tokio::time::sleep(Duration::from_millis(150)).await;
    let id = created.task.task_id.clone();
    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    let status = loop {
        let got = client
            .get_task(GetTaskParams::new(id.clone()))
            .await
            .unwrap();
        if got.task.status().is_terminal() {
            break got.task.status();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(status, TaskStatus::Cancelled);
    let after = sim.requests().len();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(sim.requests().len(), after, "no request after the cancel");
}

#[tokio::test]
async fn without_the_extension_or_a_wait_the_answer_is_a_plain_result() {
    let sim = running_ci(3).await;
    // A client that does not declare tasks: the call waits and answers in the request.
    let plain = connect((), context(&sim), true).await;
    let response = plain.call_tool_once(wait_call()).await.unwrap();
    let CallToolResponse::Complete(result) = response else {
        panic!("expected a plain result, got {response:?}")
    };
    assert_eq!(result.structured_content.unwrap()["status"], "failed");

    // A task client asking for no wait: nothing long, so no task.
    let sim = running_ci(3).await;
    let tasks = connect(TaskClient, context(&sim), true).await;
    let Value::Object(args) = json!({"pr": "acme/widgets#8"}) else {
        unreachable!()
    };
    let call = CallToolRequestParams::new("get_failing_tests").with_arguments(args);
    assert!(matches!(
        tasks.call_tool_once(call).await.unwrap(),
        CallToolResponse::Complete(_)
    ));

    // The extension listed only at a legacy `initialize` (as MCP Inspector's CLI lists it,
    // without reading task handles) does not count: the wait answers in the request.
    let sim = running_ci(3).await;
    let legacy = connect(TaskClient, context(&sim), false).await;
    let response = legacy.call_tool_once(wait_call()).await.unwrap();
    assert!(
        matches!(response, CallToolResponse::Complete(_)),
        "{response:?}"
    );
}
