//! Toolsets on demand: the two tools through which an agent sees the toolsets that are off
//! and turns them on (`list_toolsets`, `enable_toolsets`). They exist only where the agent may
//! do so ([`Selection::on_demand`]: no `--toolsets`, a connection that keeps state), and they
//! are the server's, not the registry's: they change what this connection offers, nothing on
//! a forge or in a checkout. What a toolset is and says comes from the registry's `Toolset`.

use std::sync::Arc;

use resolve_pr_core::Error as ToolError;
use resolve_pr_tools::{ToolOutput, Toolset};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::Selection;
use resolve_pr_core::ErrorCode;

pub(crate) const LIST: &str = "list_toolsets";
pub(crate) const ENABLE: &str = "enable_toolsets";

/// Whether `name` is one of the two tools.
pub(crate) fn is_ours(name: &str) -> bool {
    name == LIST || name == ENABLE
}

/// The two tools as tools/list shows them.
pub(crate) fn tools() -> Vec<Tool> {
    let names: Vec<&str> = Toolset::ALL
        .iter()
        .filter(|t| !t.hidden())
        .map(|t| t.as_str())
        .collect();
    let toolset = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "on": {"type": "boolean"},
            "summary": {"type": "string"},
            "tools": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["name", "on", "summary", "tools"]
    });
    let list = Tool::new(
        LIST,
        "The toolsets of this server, on or off, with their tools. Turn one on with \
         enable_toolsets.",
        object(json!({"type": "object", "properties": {}})),
    )
    .with_title("List toolsets")
    .with_raw_output_schema(object(json!({
        "type": "object",
        "properties": {"toolsets": {"type": "array", "items": toolset}},
        "required": ["toolsets"]
    })))
    .with_annotations(annotations("List toolsets"));
    let enable = Tool::new(
        ENABLE,
        "Turn toolsets on for this session; their tools join tools/list (the client is \
         notified). Calling a tool of an off toolset also turns it on.",
        object(json!({
            "type": "object",
            "properties": {
                "toolsets": {
                    "type": "array",
                    "items": {"type": "string", "enum": names},
                    "minItems": 1
                }
            },
            "required": ["toolsets"]
        })),
    )
    .with_title("Enable toolsets")
    .with_raw_output_schema(object(json!({
        "type": "object",
        "properties": {
            "turned_on": {"type": "array", "items": {"type": "string"}},
            "tools": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["turned_on", "tools"]
    })))
    .with_annotations(annotations("Enable toolsets"));
    vec![list, enable]
}

/// Neither tool changes anything outside this connection, and calling again changes nothing
/// more.
fn annotations(title: &str) -> ToolAnnotations {
    ToolAnnotations::with_title(title)
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

fn object(schema: Value) -> Arc<JsonObject> {
    match schema {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// `list_toolsets`: every toolset of the server with its state, summary and tools.
pub(crate) fn list(selection: &Selection) -> ToolOutput {
    let sets = selection.toolsets();
    let structured = json!({
        "toolsets": sets.iter().map(|(set, on, tools)| json!({
            "name": set.as_str(),
            "on": on,
            "summary": set.summary(),
            "tools": tools,
        })).collect::<Vec<_>>()
    });
    let mut text = String::from("Toolsets (turn one on with enable_toolsets):");
    for (set, on, tools) in &sets {
        text.push_str(&format!(
            "\n- {set} ({}): {}. Tools: {}",
            if *on { "on" } else { "off" },
            set.summary(),
            tools.join(", ")
        ));
    }
    ToolOutput {
        structured,
        text,
        failed: false,
    }
}

/// The toolsets named by `enable_toolsets`'s arguments, or a `user` error saying which
/// argument is wrong and what it may be.
pub(crate) fn requested(args: &Value) -> Result<Vec<Toolset>, ToolError> {
    let valid = || {
        Toolset::ALL
            .iter()
            .filter(|t| !t.hidden())
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let wrong = |why: String| {
        ToolError::user(why)
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", "toolsets")
            .with_suggestion(format!(
                "Pass toolsets as a list of names, e.g. {{\"toolsets\": [\"code\"]}}; toolsets: {}.",
                valid()
            ))
    };
    let Some(given) = args.get("toolsets") else {
        return Err(wrong("toolsets is required".into()));
    };
    let names: Vec<&str> = match given {
        Value::String(one) => vec![one.as_str()],
        Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| wrong(format!("toolsets must hold names, not {v}")))
            })
            .collect::<Result<_, _>>()?,
        other => return Err(wrong(format!("toolsets must be a list, not {other}"))),
    };
    if names.is_empty() {
        return Err(wrong("toolsets names no toolset".into()));
    }
    names
        .into_iter()
        .map(|name| {
            Toolset::from_name(name.trim())
                .ok_or_else(|| wrong(format!("there is no toolset named {name:?}")))
        })
        .collect()
}

/// What `enable_toolsets` answers once `turned` were turned on in `selection`: the tools they
/// added, and what the toolsets' tools share (the conventions the instructions would have said,
/// had they been on when the session began).
pub(crate) fn enabled(selection: &Selection, asked: &[Toolset], turned: &[Toolset]) -> ToolOutput {
    let tools: Vec<&str> = selection
        .tools()
        .iter()
        .filter(|t| turned.contains(&t.toolset))
        .map(|t| t.name)
        .collect();
    let structured = json!({
        "turned_on": turned.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        "tools": tools,
    });
    let mut text = if turned.is_empty() {
        let names: Vec<&str> = asked.iter().map(|t| t.as_str()).collect();
        format!("Already on: {}; tools/list is unchanged.", names.join(", "))
    } else {
        let names: Vec<&str> = turned.iter().map(|t| t.as_str()).collect();
        format!(
            "Turned on {}: {} more tools ({}). The client was notified that tools/list changed.",
            names.join(", "),
            tools.len(),
            tools.join(", ")
        )
    };
    let mut said: Vec<&str> = Vec::new();
    for set in turned {
        if let Some(conventions) = set.conventions()
            && !said.contains(&conventions)
        {
            said.push(conventions);
            text.push('\n');
            text.push_str(conventions);
        }
    }
    ToolOutput {
        structured,
        text,
        failed: false,
    }
}
