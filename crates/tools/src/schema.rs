//! The JSON Schemas the tools publish. schemars derives them from the input and output types;
//! this module flattens them to the plain subset every MCP client reads alike: no `$ref` or
//! `$defs`, string enums as `enum`, only formats JSON Schema defines, optional fields as their
//! type alone, and no `null` defaults. Clients that map schemas onto a narrower dialect (model
//! providers, MCP Inspector, mcporter) otherwise show `unknown` types or warn, and every byte
//! here is paid in tokens by each agent on every connection.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use resolve_pr_core::Error;

/// What a tool reads: its arguments as serde deserializes them.
pub(crate) fn input<T: JsonSchema>() -> Value {
    let mut schema = generate::<T>(SchemaSettings::draft2020_12());
    flatten(&mut schema);
    strip_root(&mut schema);
    schema
}

/// What a tool returns: its output, or the error model. Error results (`isError`) carry the
/// error as `structuredContent`, and some clients validate every result against the output
/// schema, so the schema admits both.
pub(crate) fn output<T: JsonSchema>() -> Value {
    let mut ok = generate::<T>(SchemaSettings::draft2020_12().for_serialize());
    flatten(&mut ok);
    strip_root(&mut ok);
    drop_unsigned_minimum(&mut ok);
    let error = error_branch();
    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    root.insert("anyOf".into(), Value::Array(vec![ok, error]));
    Value::Object(root)
}

/// The error model as the output schemas admit it: its required fields, which tell an error
/// from an output, and nothing else. The server's instructions explain the error model once
/// (category, suggestion, retry_after, details) instead of every tool repeating it, and the
/// optional fields stay allowed because the branch does not close its properties.
fn error_branch() -> Value {
    let mut error = generate::<Error>(SchemaSettings::draft2020_12().for_serialize());
    flatten(&mut error);
    strip_root(&mut error);
    strip_descriptions(&mut error);
    if let Value::Object(node) = &mut error {
        let required: Vec<Value> = match node.get("required") {
            Some(Value::Array(r)) => r.clone(),
            _ => Vec::new(),
        };
        if let Some(Value::Object(properties)) = node.get_mut("properties") {
            properties.retain(|name, _| required.iter().any(|r| r == name.as_str()));
        }
    }
    error
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> Value {
    settings
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The root's `$schema` (2020-12 is MCP's default dialect), `title` (the Rust type's name) and
/// `description` (the tool's description says it) tell an agent nothing.
fn strip_root(schema: &mut Value) {
    if let Value::Object(root) = schema {
        for key in ["$schema", "title", "description", "$defs"] {
            root.remove(key);
        }
    }
}

/// `minimum: 0` is how schemars marks an unsigned Rust integer. On an argument it tells the
/// agent what is accepted; on a count the server returns it tells nothing, and the output
/// schemas hold dozens of them.
fn drop_unsigned_minimum(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("type").and_then(Value::as_str) == Some("integer")
                && map.get("minimum").and_then(Value::as_u64) == Some(0)
            {
                map.remove("minimum");
            }
            map.values_mut().for_each(drop_unsigned_minimum);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_unsigned_minimum),
        _ => {}
    }
}

fn strip_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("description").is_some_and(Value::is_string) {
                map.remove("description");
            }
            map.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// Rewrites `schema` and every subschema in place, children first.
pub(crate) fn flatten(schema: &mut Value) {
    let Value::Object(node) = schema else { return };
    if let Some(Value::Object(properties)) = node.get_mut("properties") {
        properties.values_mut().for_each(flatten);
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(child) = node.get_mut(key) {
            flatten(child);
        }
    }
    // An element's description is its Rust type's doc comment; the array's own description
    // says what the elements are.
    if let Some(Value::Object(items)) = node.get_mut("items") {
        items.remove("description");
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = node.get_mut(key) {
            children.iter_mut().for_each(flatten);
        }
    }

    node.remove("title");
    if node.get("default") == Some(&Value::Null) {
        node.remove("default");
    }
    // `true` is what an absent `additionalProperties` means.
    if node.get("additionalProperties") == Some(&Value::Bool(true)) {
        node.remove("additionalProperties");
    }
    if let Some(Value::String(text)) = node.get_mut("description") {
        // Doc comments wrap at 100 columns; the line breaks are not part of the meaning.
        *text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    // schemars names Rust types (`uint64`, `int32`, `double`); strict clients warn about
    // each format JSON Schema does not define.
    if node
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
    {
        node.remove("format");
    }
    drop_type_limits(node);
    consts_to_enum(node);

    let required: Vec<String> = match node.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(|n| n.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(properties)) = node.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if required.contains(name) {
                split_nullable_type(property);
            } else {
                // Optional fields are left out when empty (serde's `skip_serializing_if`;
                // `default` on input), so absent is how they say "none": the type alone is
                // the whole contract.
                drop_null(property);
            }
        }
    }
    if node
        .get("required")
        .is_some_and(|r| r.as_array().is_some_and(Vec::is_empty))
    {
        node.remove("required");
    }
}

/// The formats JSON Schema 2020-12 defines (Validation, section 7.3).
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// schemars bounds integers by their Rust type (`u32` up to 4294967295, `i64` from
/// -9223372036854775808). Only `minimum: 0` says something an agent can use.
fn drop_type_limits(node: &mut Map<String, Value>) {
    const TYPE_MAXIMA: [u64; 8] = [
        u8::MAX as u64,
        u16::MAX as u64,
        u32::MAX as u64,
        u64::MAX,
        i8::MAX as u64,
        i16::MAX as u64,
        i32::MAX as u64,
        i64::MAX as u64,
    ];
    const TYPE_MINIMA: [i64; 4] = [i8::MIN as i64, i16::MIN as i64, i32::MIN as i64, i64::MIN];
    if node
        .get("maximum")
        .and_then(Value::as_u64)
        .is_some_and(|m| TYPE_MAXIMA.contains(&m))
    {
        node.remove("maximum");
    }
    if node
        .get("minimum")
        .and_then(Value::as_i64)
        .is_some_and(|m| TYPE_MINIMA.contains(&m))
    {
        node.remove("minimum");
    }
}

/// A Rust enum whose variants have doc comments comes out as `oneOf` one `const` each; some
/// clients show that as `unknown`. A plain `enum` says the same. What a value means belongs in
/// the description of the field or the enum.
fn consts_to_enum(node: &mut Map<String, Value>) {
    let Some(Value::Array(variants)) = node.get("oneOf") else {
        return;
    };
    let values: Option<Vec<Value>> = variants
        .iter()
        .map(|v| {
            let v = v.as_object()?;
            let only_metadata = v
                .keys()
                .all(|k| matches!(k.as_str(), "const" | "type" | "description" | "enum"));
            if !only_metadata {
                return None;
            }
            match (v.get("const"), v.get("enum")) {
                (Some(c), None) => Some(vec![c.clone()]),
                (None, Some(Value::Array(e))) => Some(e.clone()),
                _ => None,
            }
        })
        .collect::<Option<Vec<Vec<Value>>>>()
        .map(|groups| groups.into_iter().flatten().collect());
    let Some(values) = values else { return };
    if !values.iter().all(Value::is_string) {
        return;
    }
    node.remove("oneOf");
    node.insert("type".into(), "string".into());
    node.insert("enum".into(), Value::Array(values));
}

/// `{"type": ["string", "null"]}` → `{"type": "string"}`; `{"anyOf": [S, {"type": "null"}]}`
/// → S (with the field's own description).
fn drop_null(property: &mut Value) {
    let Value::Object(node) = property else {
        return;
    };
    if let Some(Value::Array(types)) = node.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            node.insert("type".into(), only);
        }
    }
    if let Some(Value::Array(values)) = node.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    let Some(Value::Array(branches)) = node.get("anyOf") else {
        return;
    };
    let is_null = |b: &Value| b.get("type").and_then(Value::as_str) == Some("null");
    let kept: Vec<&Value> = branches.iter().filter(|b| !is_null(b)).collect();
    if kept.len() != 1 || branches.len() != 2 {
        return;
    }
    let Value::Object(mut inner) = kept[0].clone() else {
        return;
    };
    node.remove("anyOf");
    // The field's own keys (its description) win over the type's.
    for (k, v) in std::mem::take(node) {
        inner.insert(k, v);
    }
    *node = inner;
}

/// A field that is always present but may be `null` keeps saying so, in the form strict
/// clients accept: one `type` per branch.
fn split_nullable_type(property: &mut Value) {
    let Value::Object(node) = property else {
        return;
    };
    let Some(Value::Array(types)) = node.get("type") else {
        return;
    };
    if types.len() < 2 {
        return;
    }
    let branches: Vec<Value> = types
        .iter()
        .map(|t| serde_json::json!({ "type": t }))
        .collect();
    node.remove("type");
    node.insert("anyOf".into(), Value::Array(branches));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flattening_leaves_the_plain_subset() {
        let mut schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Input",
            "type": "object",
            "properties": {
                "id": {"type": "integer", "format": "uint64", "minimum": 0},
                "at": {"type": "string", "format": "date-time"},
                "page": {"type": "integer", "minimum": 0, "maximum": 4294967295u64},
                "delta": {"type": "integer", "minimum": -9223372036854775807i64 - 1},
                "cursor": {"type": ["string", "null"], "default": null},
                "sort": {
                    "description": "Order\n  of the items.",
                    "oneOf": [
                        {"type": "string", "const": "a", "description": "first"},
                        {"type": "string", "const": "b"}
                    ]
                },
                "nested": {"anyOf": [{"type": "object", "description": "type doc"}, {"type": "null"}], "description": "field doc"},
                "maybe": {"type": ["boolean", "null"]},
                "list": {"type": "array", "items": {"type": "object", "description": "A thing."}}
            },
            "required": ["id", "maybe"],
            "additionalProperties": true
        });
        flatten(&mut schema);
        strip_root(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "minimum": 0},
                    "at": {"type": "string", "format": "date-time"},
                    "page": {"type": "integer", "minimum": 0},
                    "delta": {"type": "integer"},
                    "cursor": {"type": "string"},
                    "sort": {"description": "Order of the items.", "type": "string", "enum": ["a", "b"]},
                    "nested": {"type": "object", "description": "field doc"},
                    "maybe": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
                    "list": {"type": "array", "items": {"type": "object"}}
                },
                "required": ["id", "maybe"]
            })
        );
    }
}
