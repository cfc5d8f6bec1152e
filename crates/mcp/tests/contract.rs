//! What `tools/list` costs an agent and how portable it is: every agent pays for the whole
//! list in tokens on every connection, and clients that read schemas through a narrower
//! dialect (model providers, MCP Inspector, mcporter) show `unknown` or warn on `$ref`,
//! `oneOf` enums, type arrays and formats JSON Schema does not define.

use resolve_pr_mcp::{Options, Selection, tools_list_json};
use serde_json::{Value, json};

/// The budget for the whole tools/list result of the current twenty-eight tools (o200k tokens).
/// It was 12,477 for seven before the schemas were flattened and the descriptions
/// rewritten, then 6,000; the two git tools (a conflict report, and a restack plan with
/// seed 003's typed commands and automation status) add about 3,100; the merge and
/// analysis tools (readiness with its blockers and protection, impact, review context)
/// about 3,200 after their field descriptions were cut to what names do not say;
/// `pr_list` and `pr_get` (a compact list item, one pull request in full) about 1,250; the
/// issue tools and the two comment edits (five tools, each with its comment or issue shape)
/// about 2,450; comment bodies cut to a budget (a flag on six tools' comment shape) 130; the
/// nine code-intelligence tools (seed 002's Location and symbol shapes in each, their meaning
/// said once in the instructions instead of in every schema) about 7,000, down from 9,900
/// before their shared types lost their doc comments. `--toolsets` leaves them out.
const TOOLS_LIST_TOKEN_BUDGET: usize = 23_500;

fn tools_list() -> Value {
    let selection = Selection::new(&Options::default()).expect("the default selection");
    json!({ "tools": tools_list_json(&selection) })
}

#[test]
fn tools_list_fits_the_token_budget() {
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base ships with tiktoken-rs");
    // As a client receives it: compact JSON.
    let wire = serde_json::to_string(&tools_list()).expect("serializable");
    let tokens = bpe.encode_with_special_tokens(&wire).len();
    println!("tools/list: {tokens} o200k tokens, {} bytes", wire.len());
    assert!(
        tokens <= TOOLS_LIST_TOKEN_BUDGET,
        "tools/list costs {tokens} tokens, over the budget of {TOOLS_LIST_TOKEN_BUDGET}: \
         shorten descriptions (say what the schema cannot) before raising it"
    );

    let tools = tools_list()["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let total: usize = tools
        .iter()
        .map(|t| {
            bpe.encode_with_special_tokens(t["description"].as_str().unwrap_or(""))
                .len()
        })
        .sum();
    let average = total / tools.len().max(1);
    println!("tool descriptions: {average} tokens on average");
    assert!(average <= 230, "descriptions average {average} tokens");
}

/// The formats JSON Schema 2020-12 defines.
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

/// Every problem of one schema node and the nodes under it.
fn portability_problems(schema: &Value, path: &str, problems: &mut Vec<String>) {
    let Some(node) = schema.as_object() else {
        problems.push(format!("{path}: a schema that is not an object"));
        return;
    };
    for key in ["$ref", "$defs", "definitions", "$schema"] {
        if node.contains_key(key) {
            problems.push(format!("{path}: {key}"));
        }
    }
    if let Some(format) = node.get("format").and_then(Value::as_str)
        && !STANDARD_FORMATS.contains(&format)
    {
        problems.push(format!(
            "{path}: format {format:?} is not a JSON Schema format"
        ));
    }
    if node.get("type").is_some_and(Value::is_array) {
        problems.push(format!("{path}: type is an array"));
    }
    if node.get("default") == Some(&Value::Null) {
        problems.push(format!("{path}: default null"));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = node.get(key) {
            if branches.iter().all(|b| b.get("const").is_some()) {
                problems.push(format!("{path}: {key} of consts instead of enum"));
            }
            for (i, b) in branches.iter().enumerate() {
                portability_problems(b, &format!("{path}.{key}[{i}]"), problems);
            }
        }
    }
    if let Some(Value::Object(properties)) = node.get("properties") {
        for (name, p) in properties {
            portability_problems(p, &format!("{path}.{name}"), problems);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child @ Value::Object(_)) = node.get(key) {
            portability_problems(child, &format!("{path}.{key}"), problems);
        }
    }
}

#[test]
fn every_published_schema_is_flat_and_portable() {
    let mut problems = Vec::new();
    for tool in tools_list()["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        let name = tool["name"].as_str().unwrap_or("?").to_owned();
        for key in ["inputSchema", "outputSchema"] {
            portability_problems(&tool[key], &format!("{name}.{key}"), &mut problems);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_portability_check_finds_what_schemars_emits_by_default() {
    // What the tools published before: the check must see each of these.
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "id": {"type": "integer", "format": "uint64"},
            "cursor": {"type": ["string", "null"], "default": null},
            "kind": {"$ref": "#/$defs/Kind"},
            "sort": {"oneOf": [{"const": "a"}, {"const": "b"}]}
        },
        "$defs": {"Kind": {"enum": ["x"]}}
    });
    let mut problems = Vec::new();
    portability_problems(&schema, "s", &mut problems);
    assert_eq!(
        problems,
        [
            "s: $defs",
            "s: $schema",
            "s.cursor: type is an array",
            "s.cursor: default null",
            "s.id: format \"uint64\" is not a JSON Schema format",
            "s.kind: $ref",
            "s.sort: oneOf of consts instead of enum",
        ]
    );
}
