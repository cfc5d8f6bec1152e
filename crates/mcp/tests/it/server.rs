//! The MCP server as a client sees it, over an in-process connection: the published tool
//! list (each tool pinned by its own snapshot), read-only mode and toolsets, error results,
//! cancellation. Lists of tools come from the registry, never typed out here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use resolve_pr_core::CursorCodec;
use resolve_pr_forge::{ClientOptions, Config, Forges};
use resolve_pr_forge_sim::{Scenario, Sim};
use resolve_pr_mcp::{Error, Options, Selection, Server, tools_list_json};
use resolve_pr_tools::vocabulary::{Spelling, Term, VOCABULARY};
use resolve_pr_tools::{Context, ToolSpec, Toolset};
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
    // The default toolsets' tools, then the two that turn the others on.
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut expected = registry_names(|t| t.toolset.on_by_default());
    expected.extend(["list_toolsets", "enable_toolsets"]);
    assert_eq!(names, expected);
    // Every tool of every toolset is pinned, and so are the two.
    let mut every = tools_list_json(&every_toolset())
        .as_array()
        .unwrap()
        .clone();
    every.extend(
        listed
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| ["list_toolsets", "enable_toolsets"].contains(&t["name"].as_str().unwrap()))
            .cloned(),
    );
    for tool in &every {
        assert_eq!(tool["inputSchema"]["type"], "object", "{}", tool["name"]);
        assert_eq!(tool["outputSchema"]["type"], "object", "{}", tool["name"]);
    }
    assert_tool_snapshots(&every);
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
            toolsets: Some(vec!["all".into()]),
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
    // Readers, and the tools that write only when asked (they only plan here).
    let readers =
        registry_names(|t| !t.toolset.hidden() && (!t.writes() || t.writes_only_when_asked));
    assert!(!readers.is_empty() && readers.len() < resolve_pr_tools::all().len());
    assert_eq!(names, readers);

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
    assert_eq!(data["code"], "TOOL_NOT_ENABLED");
    assert_eq!(data["details"]["available"], json!(readers));
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
        format!(
            "Unknown tool: pr_comment_delete: there is no tool named \"pr_comment_delete\". \
             Available tools: {}.",
            registry_names(|t| t.toolset.on_by_default()).join(", ")
        )
    );
    assert_eq!(err.data.unwrap()["code"], "UNKNOWN_TOOL");
}

#[tokio::test]
async fn toolsets_filter_and_reject_unknown_names() {
    let comments = Options {
        read_only: false,
        toolsets: Some(vec!["comments".into()]),
    };
    let client = connect(comments, UNREACHABLE).await;
    let listed: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    let in_comments = registry_names(|t| t.toolset == Toolset::Comments);
    assert!(!in_comments.is_empty() && in_comments.len() < resolve_pr_tools::all().len());
    assert_eq!(listed, in_comments);

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
        "unknown toolset \"cl\"; valid toolsets: analysis, ci, code, comments, git, impact, internal, merge, refactor, reviews, workspace, all, default"
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
            .contains("repository is 'owner/repo'")
    );
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(
        text.starts_with("Error (user): Invalid request: repository must be"),
        "{text}"
    );
    assert!(text.contains("\nSuggestion: Fix every argument"), "{text}");

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
    // The server still serves, and the call turned its toolset on.
    let listed = client.list_all_tools().await.unwrap();
    assert!(listed.iter().any(|t| t.name == "pr_comment_list"));
}

/// A client that counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct Listening {
    changed: Arc<std::sync::atomic::AtomicUsize>,
}

impl rmcp::ClientHandler for Listening {
    async fn on_tool_list_changed(&self, _context: rmcp::service::NotificationContext<RoleClient>) {
        self.changed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

async fn connect_listening(options: Options) -> (RunningService<RoleClient, Listening>, Listening) {
    let server = Server::new(context(UNREACHABLE), Selection::new(&options).unwrap());
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let listening = Listening::default();
    (listening.clone().serve(client_io).await.unwrap(), listening)
}

/// Waits (a little) until the client has heard `n` list changes.
async fn heard(listening: &Listening, n: usize) -> usize {
    for _ in 0..100 {
        let now = listening.changed.load(std::sync::atomic::Ordering::SeqCst);
        if now >= n {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    listening.changed.load(std::sync::atomic::Ordering::SeqCst)
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn an_agent_turns_a_toolset_on_and_the_client_hears_the_list_changed() {
    let (client, listening) = connect_listening(Options::default()).await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed),
        Some(true)
    );
    // The toolsets that are off are named in the instructions, one line each.
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.contains(&format!("- code: {}", Toolset::Code.summary())),
        "{instructions}"
    );
    assert!(
        !instructions.contains("Code tools read the checkout"),
        "{instructions}"
    );

    let listed = client
        .call_tool(call("list_toolsets", json!({})))
        .await
        .unwrap();
    assert_ne!(listed.is_error, Some(true));
    let sets = listed.structured_content.clone().unwrap();
    let code = sets["toolsets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "code")
        .unwrap()
        .clone();
    assert_eq!(code["on"], false);
    assert_eq!(
        code["tools"],
        json!(registry_names(|t| t.toolset == Toolset::Code))
    );
    assert!(
        text_of(&listed).contains("- code (off): "),
        "{}",
        text_of(&listed)
    );

    let on = client
        .call_tool(call("enable_toolsets", json!({"toolsets": ["code"]})))
        .await
        .unwrap();
    assert_ne!(on.is_error, Some(true), "{}", text_of(&on));
    assert_eq!(
        on.structured_content.as_ref().unwrap()["turned_on"],
        json!(["code"])
    );
    // What the instructions would have said of the code tools comes with them.
    assert!(
        text_of(&on).contains("Code tools read the checkout"),
        "{}",
        text_of(&on)
    );
    assert_eq!(heard(&listening, 1).await, 1);
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    let mut expected = registry_names(|t| t.toolset.on_by_default() || t.toolset == Toolset::Code);
    expected.extend(["list_toolsets", "enable_toolsets"]);
    assert_eq!(names, expected);

    // Again: nothing changes, and the client is not told it did.
    let again = client
        .call_tool(call("enable_toolsets", json!({"toolsets": ["code"]})))
        .await
        .unwrap();
    assert!(
        text_of(&again).starts_with("Already on: code"),
        "{}",
        text_of(&again)
    );
    // A call of a tool whose toolset is off turns the toolset on.
    let issue = client
        .call_tool(call("issue_list", json!({"repository": "o/r"})))
        .await
        .unwrap();
    // The forge is unreachable: the call ran and failed on the network.
    assert_eq!(
        issue.structured_content.as_ref().unwrap()["category"],
        "network"
    );
    assert_eq!(heard(&listening, 2).await, 2);
    assert!(
        client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "issue_list")
    );
}

#[tokio::test]
async fn enable_toolsets_refuses_what_it_cannot_do_and_says_why() {
    let (client, listening) = connect_listening(Options::default()).await;
    for (args, said) in [
        (json!({}), "toolsets is required"),
        (json!({"toolsets": []}), "names no toolset"),
        (
            json!({"toolsets": ["coments"]}),
            "no toolset named \"coments\"",
        ),
        (json!({"toolsets": [1]}), "must hold names"),
    ] {
        let r = client
            .call_tool(call("enable_toolsets", args.clone()))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true), "{args}");
        let error = r.structured_content.unwrap();
        assert_eq!(error["code"], "INVALID_ARGUMENT", "{args}");
        assert!(
            error["error"].as_str().unwrap().contains(said),
            "{args}: {error}"
        );
        assert!(
            error["suggestion"]
                .as_str()
                .unwrap()
                .contains("code, comments"),
            "{error}"
        );
    }
    assert_eq!(heard(&listening, 1).await, 0);

    // Toolsets the operator named are all there is: no tools to change them, no list changes.
    let (fixed, _) = connect_listening(Options {
        read_only: false,
        toolsets: Some(vec!["ci".into()]),
    })
    .await;
    let info = fixed.peer_info().unwrap();
    assert_eq!(
        info.capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed),
        None
    );
    let names: Vec<String> = fixed
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect();
    assert_eq!(names, registry_names(|t| t.toolset == Toolset::Ci));
    let ServiceError::McpError(err) = fixed
        .call_tool(call("enable_toolsets", json!({"toolsets": ["code"]})))
        .await
        .unwrap_err()
    else {
        panic!("not a protocol error")
    };
    assert_eq!(err.data.unwrap()["code"], "UNKNOWN_TOOL");
    let ServiceError::McpError(err) = fixed
        .call_tool(call(
            "pr_comment_list",
            json!({"repository": "o/r", "pull_request_number": 1}),
        ))
        .await
        .unwrap_err()
    else {
        panic!("not a protocol error")
    };
    assert_eq!(err.data.unwrap()["code"], "TOOL_NOT_ENABLED");
}

/// Every toolset on, as `--toolsets all` asks.
/// Every toolset, the hidden internal one (which `all` leaves out) included.
fn every_toolset() -> Selection {
    Selection::new(&Options {
        read_only: false,
        toolsets: Some(vec!["all".into(), "internal".into()]),
    })
    .unwrap()
}

/// The registry's tool names that pass `keep`, in registry order.
fn registry_names(keep: impl Fn(&ToolSpec) -> bool) -> Vec<&'static str> {
    resolve_pr_tools::all()
        .iter()
        .filter(|t| keep(t))
        .map(|t| t.name)
        .collect()
}

/// Where each tool's contract is pinned: `tests/it/snapshots/tools/NAME.snap`, one per tool.
fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/snapshots/tools")
}

/// Compares every listed tool with its snapshot (insta: `cargo insta review`, or
/// `INSTA_UPDATE=always` to write them, then review the diff), and fails on a snapshot
/// without a tool. A changed tool contract must show up as a reviewed diff of that tool's
/// file, never by accident.
fn assert_tool_snapshots(listed: &[Value]) {
    let names: Vec<&str> = listed
        .iter()
        .map(|t| t["name"].as_str().expect("every tool has a name"))
        .collect();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshot_dir());
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, tool) in names.iter().zip(listed) {
            insta::assert_json_snapshot!(*name, tool);
        }
    });
    let stale: Vec<String> = std::fs::read_dir(snapshot_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            !(path.extension().is_some_and(|e| e == "snap") && names.contains(&stem))
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(
        stale.is_empty(),
        "snapshots of no tool the registry lists (remove them): {}",
        stale.join(", ")
    );
}

/// The arguments a tool requires, each its schema's example or a plain value of its type.
fn required_args(tool: &ToolSpec) -> serde_json::Map<String, Value> {
    let schema = &tool.input_schema;
    let mut args = serde_json::Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap();
        let property = &schema["properties"][name];
        let value = match property.pointer("/examples/0") {
            Some(example) => example.clone(),
            None => match property["type"].as_str() {
                Some("integer") => json!(1),
                Some("boolean") => json!(false),
                Some("array") => json!([]),
                _ => json!("x"),
            },
        };
        args.insert(name.to_owned(), value);
    }
    args
}

/// A term written one way: the arguments that say it.
fn spelled(term: &Term, spelling: Spelling) -> serde_json::Map<String, Value> {
    let value = match term.what {
        "the pull request" => json!("octo/widgets#123"),
        _ => json!("Fixed in the next commit."),
    };
    let Value::Object(args) = (match spelling {
        Spelling::Name(name) => json!({ name: value }),
        Spelling::RepositoryAndNumber => {
            json!({"repository": "octo/widgets", "pull_request_number": 123})
        }
    }) else {
        unreachable!()
    };
    args
}

/// Every tool that takes a term takes each other spelling of it too, to the same effect: the
/// call with the alias answers exactly what the call with the tool's own name answers (here
/// the forge's failure, which names the pull request asked for).
#[tokio::test]
async fn every_alias_spelling_works_in_every_tool() {
    // A forge that answers at once (it refuses the test token, without retries), naming the
    // pull request asked for.
    let sim = Sim::start(Scenario::builtin("private_repo_two_users").unwrap())
        .await
        .unwrap();
    let client = connect(Options::default(), &sim.base_url()).await;
    let mut checked = Vec::new();
    for tool in resolve_pr_tools::all() {
        // What the tool requires, each term it takes in its own spelling, and a comment to
        // act on where it takes one: enough for the call to reach the forge.
        let mut full = required_args(&tool);
        for (name, value) in [
            ("comment_id", json!(1)),
            ("repository", json!("octo/widgets")),
        ] {
            if tool.input_schema["properties"].get(name).is_some() {
                full.insert(name.to_owned(), value);
            }
        }
        for term in VOCABULARY {
            if let Some(own) = term.spelling_in(&tool.input_schema) {
                full.extend(spelled(term, own));
            }
        }
        for term in VOCABULARY {
            let Some(own) = term.spelling_in(&tool.input_schema) else {
                continue;
            };
            let mut base = full.clone();
            for name in spelled(term, own).keys() {
                base.remove(name);
            }
            let canonical = full.clone();
            let expected = client
                .call_tool(call(tool.name, Value::Object(canonical.clone())))
                .await
                .unwrap();
            let expected_text = expected.content[0].as_text().unwrap().text.clone();
            // The call got past the arguments to the forge.
            assert_eq!(
                expected.structured_content.as_ref().unwrap()["category"],
                "authentication",
                "{} {canonical:?}: {expected_text}",
                tool.name
            );
            // A spelling the tool takes itself is no alias there.
            let taken = |s: &Spelling| {
                spelled(term, *s)
                    .keys()
                    .all(|k| tool.input_schema["properties"].get(k).is_some())
            };
            for alias in term.spellings.iter().copied().filter(|s| !taken(s)) {
                let mut args = base.clone();
                args.extend(spelled(term, alias));
                let got = client
                    .call_tool(call(tool.name, Value::Object(args.clone())))
                    .await
                    .unwrap();
                let got_text = got.content[0].as_text().unwrap().text.clone();
                // Requests sent concurrently fail in either order: the same failure, about
                // the same pull request, is what the alias must give.
                let fields = |r: &Option<Value>| {
                    r.as_ref()
                        .map(|e| (e.get("category").cloned(), e.get("code").cloned()))
                };
                assert_eq!(
                    (got.is_error, fields(&got.structured_content)),
                    (expected.is_error, fields(&expected.structured_content)),
                    "{} with {args:?}: {got_text}\nexpected: {expected_text}",
                    tool.name
                );
                for said in ["octo/widgets", "123"] {
                    assert_eq!(
                        got_text.contains(said),
                        expected_text.contains(said),
                        "{said}: {got_text}\nexpected: {expected_text}"
                    );
                }
                checked.push(format!("{}:{alias:?}", tool.name));
            }
        }
    }
    // Every tool that names a pull request or a comment's text: 19 of them, some twice.
    assert!(checked.len() >= 19, "{checked:?}");
}

/// A name no tool takes, guessed for a term, or an alias given with the tool's own name, is
/// an INVALID_ARGUMENT that names the argument meant.
#[tokio::test]
async fn a_wrong_name_is_answered_with_the_name_meant() {
    let client = connect(Options::default(), UNREACHABLE).await;
    for tool in resolve_pr_tools::all() {
        for term in VOCABULARY {
            let Some(own) = term.spelling_in(&tool.input_schema) else {
                continue;
            };
            let mut args = required_args(&tool);
            args.insert(term.guesses[0].to_owned(), json!("x"));
            let result = client
                .call_tool(call(tool.name, Value::Object(args)))
                .await
                .unwrap();
            assert_eq!(result.is_error, Some(true));
            let error = result.structured_content.unwrap();
            assert_eq!(error["code"], "INVALID_ARGUMENT", "{error}");
            let own = match own {
                Spelling::Name(name) => format!("`{name}`"),
                Spelling::RepositoryAndNumber => "`repository` + `pull_request_number`".to_owned(),
            };
            let said = format!(
                "`{}` is not an argument of {}: {} is {own}",
                term.guesses[0], tool.name, term.what
            );
            assert!(
                error["error"].as_str().unwrap().contains(&said),
                "{said}\n{error}"
            );
        }
    }
    let result = client
        .call_tool(call(
            "pr_comment_create",
            json!({"pr": "octo/widgets#1", "pull_request_number": 2, "body": "a", "comment": "b"}),
        ))
        .await
        .unwrap();
    let error = result.structured_content.unwrap();
    assert_eq!(error["code"], "INVALID_ARGUMENT", "{error}");
    assert_eq!(
        error["details"]["problems"],
        json!([
            "`repository` + `pull_request_number` and `pr` are one argument of pr_comment_create, \
             the pull request (its name is `repository` + `pull_request_number`): give it once",
            "`comment` and `body` are one argument of pr_comment_create, the comment's text (its \
             name is `comment`): give it once"
        ])
    );
    let result = client
        .call_tool(call(
            "issue_comment_list",
            json!({"issue_number": 1, "isue": 2, "body": "x"}),
        ))
        .await
        .unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("`body` is an argument of"), "{text}");
}
