//! The MCP server as a client sees it, over an in-process connection: the published tool
//! list (pinned by a snapshot), read-only mode and toolsets, error results, cancellation.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use resolve_pr_core::CursorCodec;
use resolve_pr_forge::{ClientOptions, Config, Forges};
use resolve_pr_mcp::{Error, Options, Selection, Server, tools_list_json};
use resolve_pr_tools::Context;
use rmcp::model::{CallToolRequestParams, ClientRequest, ErrorCode, Request};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

/// Forges configured from a private environment: GitHub at `api_url` with a dummy token, so
/// no test ever reads the developer's config or tokens.
fn context(api_url: &str) -> Context {
    let env: BTreeMap<&str, String> = BTreeMap::from([
        ("GITHUB_API_URL", api_url.to_owned()),
        ("GITHUB_TOKEN", "test-token".to_owned()),
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
    Context::new(
        Arc::new(Forges::with_options(config, options)),
        CursorCodec::new([1; 32]),
    )
}

async fn connect(options: Options, api_url: &str) -> RunningService<RoleClient, ()> {
    let server = Server::new(context(api_url), Selection::new(&options).unwrap());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.unwrap()
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

// Nothing listens on port 9 of localhost; calls that reach the network fail fast there.
const UNREACHABLE: &str = "http://127.0.0.1:9";

#[tokio::test]
async fn tool_list_matches_the_snapshot() {
    let client = connect(Options::default(), UNREACHABLE).await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("resolve-pr")
    );
    assert!(
        info.instructions
            .as_deref()
            .unwrap_or("")
            .contains("pull request")
    );
    assert!(info.capabilities.tools.is_some());

    let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    // `tools --json` in the CLI prints the same thing.
    assert_eq!(
        listed,
        tools_list_json(&Selection::new(&Options::default()).unwrap())
    );
    for tool in listed.as_array().unwrap() {
        assert_eq!(tool["inputSchema"]["type"], "object", "{}", tool["name"]);
        assert_eq!(tool["outputSchema"]["type"], "object", "{}", tool["name"]);
    }
    assert_snapshot("tools.json", &listed);
}

/// The instructions name exactly the tools this server offers, from the registry: a tool
/// added, renamed or left out by --read-only/--toolsets changes them.
#[tokio::test]
async fn instructions_name_the_enabled_tools_and_no_others() {
    let all: Vec<&str> = resolve_pr_tools::all().iter().map(|t| t.name).collect();
    for options in [
        Options::default(),
        Options {
            read_only: true,
            toolsets: None,
        },
        Options {
            read_only: false,
            toolsets: Some(vec!["comments".into(), "ci".into()]),
        },
    ] {
        let client = connect(options.clone(), UNREACHABLE).await;
        let text = client
            .peer_info()
            .and_then(|i| i.instructions.clone())
            .unwrap_or_default();
        let enabled = Selection::new(&options).unwrap().names();
        for name in &all {
            assert_eq!(
                text.contains(&format!("{name} (")),
                enabled.contains(name),
                "{options:?}: {name} in\n{text}"
            );
        }
        assert_eq!(text.contains("Read-only mode"), options.read_only, "{text}");
        assert!(
            text.contains("nextCursor") && text.contains("category"),
            "{text}"
        );
        // What the instructions said while only the comment tools existed.
        assert!(!text.contains("conversation comments"), "{text}");
    }
}

#[tokio::test]
async fn read_only_hides_and_refuses_writing_tools() {
    let client = connect(
        Options {
            read_only: true,
            toolsets: None,
        },
        UNREACHABLE,
    )
    .await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "pr_comment_list",
            "find_unresolved_comments",
            "get_failing_tests"
        ]
    );

    let args = json!({"repository": "o/r", "pull_request_number": 1, "comment": "hi"});
    let err = client
        .call_tool(call("pr_comment_create", args))
        .await
        .unwrap_err();
    let ServiceError::McpError(err) = err else {
        panic!("expected a JSON-RPC error, got {err:?}")
    };
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    assert!(err.message.contains("read-only"), "{}", err.message);
    assert!(
        err.message.contains("Available tools: pr_comment_list"),
        "{}",
        err.message
    );
    let data = err.data.unwrap();
    assert_eq!(data["category"], "user");
    assert_eq!(
        data["details"]["available"],
        json!([
            "pr_comment_list",
            "find_unresolved_comments",
            "get_failing_tests"
        ])
    );
}

#[tokio::test]
async fn unknown_tool_is_a_protocol_error_naming_the_tools() {
    let client = connect(Options::default(), UNREACHABLE).await;
    let err = client
        .call_tool(call("pr_comment_delete", json!({})))
        .await
        .unwrap_err();
    let ServiceError::McpError(err) = err else {
        panic!("expected a JSON-RPC error, got {err:?}")
    };
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        err.message,
        "Unknown tool: pr_comment_delete: there is no tool named \"pr_comment_delete\". \
         Available tools: pr_comment_list, pr_comment_create, find_unresolved_comments, \
         reply_to_review_thread, resolve_review_thread, unresolve_review_thread, get_failing_tests."
    );
}

#[tokio::test]
async fn toolsets_filter_and_reject_unknown_names() {
    let comments = Options {
        read_only: false,
        toolsets: Some(vec!["comments".into()]),
    };
    let client = connect(comments, UNREACHABLE).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 2);

    let typo = Options {
        read_only: false,
        toolsets: Some(vec!["comments".into(), "cl".into()]),
    };
    let Err(err) = Selection::new(&typo) else {
        panic!("accepted toolset cl")
    };
    assert!(matches!(&err, Error::UnknownToolset { given, .. } if given == "cl"));
    assert_eq!(
        err.to_string(),
        "unknown toolset \"cl\"; valid toolsets: ci, comments, reviews"
    );
}

#[tokio::test]
async fn a_tool_error_is_an_error_result_with_the_error_json() {
    let client = connect(Options::default(), UNREACHABLE).await;
    let args = json!({"repository": "not a repo", "pull_request_number": 0, "comment": "  "});
    let result = client
        .call_tool(call("pr_comment_create", args))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let error = result.structured_content.unwrap();
    assert_eq!(error["category"], "user");
    assert_eq!(
        error["details"]["problems"].as_array().map(Vec::len),
        Some(3)
    );
    assert!(
        error["suggestion"]
            .as_str()
            .unwrap()
            .starts_with("Example:")
    );
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(
        text.starts_with("Error (user): Invalid request: repository must be"),
        "{text}"
    );
    assert!(text.contains("\nSuggestion: Example:"), "{text}");

    // Input that does not fit the schema is a tool error too (SEP-1303), not a protocol error,
    // and names every bad argument at once.
    let result = client
        .call_tool(call("pr_comment_list", json!({"repository": 5})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let error = result.structured_content.unwrap();
    assert_eq!(error["category"], "user");
    assert_eq!(
        error["details"]["problems"],
        json!([
            "missing required argument: pull_request_number (a positive integer like 42)",
            "repository: expected a string like \"owner/repo\", got number 5"
        ])
    );
}

#[tokio::test]
async fn cancelling_a_call_stops_its_forge_requests() {
    // A "forge" that accepts connections and never answers.
    let forge = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", forge.local_addr().unwrap());
    let client = connect(Options::default(), &url).await;

    let request = ClientRequest::CallToolRequest(Request::new(call(
        "pr_comment_list",
        json!({"repository": "o/r", "pull_request_number": 1}),
    )));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let (mut conn, _) = tokio::time::timeout(Duration::from_secs(10), forge.accept())
        .await
        .unwrap()
        .unwrap();
    let mut buf = [0u8; 4096];
    assert!(
        conn.read(&mut buf).await.unwrap() > 0,
        "the tool sent no request"
    );

    handle.cancel(Some("test".into())).await.unwrap();
    // The dropped call closes its connection: the forge reads end-of-file.
    let eof = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match conn.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(eof.is_ok(), "the cancelled call kept its request open");
    // The server still serves.
    assert_eq!(
        client.list_all_tools().await.unwrap().len(),
        resolve_pr_tools::all().len()
    );
}

/// Compares `value` with `tests/snapshots/NAME`; `UPDATE_SNAPSHOTS=1` rewrites the file.
/// A changed tool contract must show up as a reviewed diff, never by accident.
fn assert_snapshot(name: &str, value: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    let actual = serde_json::to_string_pretty(value).unwrap() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .context_radius(3)
            .header("snapshot", "actual")
            .to_string();
        panic!(
            "{} does not match the tool contract (run with UPDATE_SNAPSHOTS=1 to accept):\n{diff}",
            path.display()
        );
    }
}
