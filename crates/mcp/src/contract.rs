//! A registry `ToolSpec` as MCP publishes it in `tools/list`: name, title, description, both
//! schemas and the annotations. The CLI's `tools --json` prints exactly this, so there is one
//! rendering of the contract and the snapshot test pins it.

use std::sync::Arc;

use resolve_pr_tools::ToolSpec;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

use crate::Selection;

/// The MCP tool definition of one registry entry. Schemas that are not objects were refused
/// when the [`Selection`] was built, so the fallback below is never published.
pub fn describe(spec: &ToolSpec) -> Tool {
    let a = spec.annotations;
    let annotations = ToolAnnotations::with_title(spec.title)
        .read_only(a.read_only)
        .destructive(a.destructive)
        .idempotent(a.idempotent)
        .open_world(a.open_world);
    Tool::new(spec.name, spec.description, object(&spec.input_schema))
        .with_title(spec.title)
        .with_raw_output_schema(object(&spec.output_schema))
        .with_annotations(annotations)
}

/// What `tools/list` shows for this selection: its tools on now, then, where the agent may
/// turn toolsets on, the two tools that do so.
pub fn listed(selection: &Selection) -> Vec<Tool> {
    let mut tools: Vec<Tool> = selection.tools().iter().map(describe).collect();
    if selection.on_demand() {
        tools.extend(crate::on_demand::tools());
    }
    tools
}

/// The `tools` array of a `tools/list` result for this selection ([`listed`]).
pub fn tools_list_json(selection: &Selection) -> Value {
    let tools = listed(selection);
    // `Tool` is plain data with string keys; serializing it cannot fail, but stay total.
    serde_json::to_value(tools).unwrap_or_else(|_| Value::Array(Vec::new()))
}

fn object(schema: &Value) -> Arc<JsonObject> {
    match schema {
        Value::Object(map) => Arc::new(map.clone()),
        _ => {
            let mut map = JsonObject::new();
            map.insert("type".into(), "object".into());
            Arc::new(map)
        }
    }
}
