//! What `tools/list` costs an agent and how portable it is: every agent pays for the whole
//! list in tokens on every connection, and clients that read schemas through a narrower
//! dialect (model providers, MCP Inspector, mcporter) show `unknown` or warn on `$ref`,
//! `oneOf` enums, type arrays and formats JSON Schema does not define.

use resolve_pr_mcp::{Options, Selection, tools_list_json};
use resolve_pr_tools::Toolset;
use serde_json::{Value, json};

/// What the session of an agent pays before it does anything, with the default toolsets:
/// tools/list (the default toolsets' tools and the two that turn others on) and the
/// server's instructions, in o200k tokens. It was 23,437 when every tool was listed.
const DEFAULT_SESSION_BUDGET: usize = 8_000;

/// What each toolset's tools cost in tools/list (o200k tokens), so that a new tool's cost is
/// seen in review, toolset by toolset. A toolset off by default costs nothing until an agent
/// turns it on; the budgets still bound what it costs then. Never raise one to let a change
/// pass: make room first (a description that repeats its schema, a field whose doc comment
/// says what its name does).
const TOOLSET_BUDGETS: [(Toolset, usize); 11] = [
    // Seed 002's nine analysis tools: 5,409 (each lists the same AnalysisResult schema, its
    // nested shapes left to the toolset's conventions).
    (Toolset::Analysis, 5_450),
    (Toolset::Ci, 2_150),
    (Toolset::Code, 7_300),
    (Toolset::Comments, 4_950),
    (Toolset::Git, 3_250),
    (Toolset::Impact, 2_050),
    // Seed 002's internal API, 19 tools: 9,037. Hidden (only `--toolsets internal` lists it),
    // so no agent session pays for it; each lists the refactoring tools' plan output.
    (Toolset::Internal, 9_100),
    (Toolset::Merge, 1_300),
    // Seed 002's seven refactoring tools, find_replace and rollback: 5,548.
    (Toolset::Refactor, 5_550),
    (Toolset::Reviews, 3_000),
    // Seed 002's workspace tools: 1,666.
    (Toolset::Workspace, 1_700),
];

/// Descriptions say what the schema cannot, in at most this many tokens; a tool over it is
/// listed in [`LONG_DESCRIPTIONS`] with the reason.
const DESCRIPTION_LIMIT: usize = 120;

/// The tools whose description may exceed [`DESCRIPTION_LIMIT`], and why.
const LONG_DESCRIPTIONS: [(&str, &str); 0] = [];

fn tokens(bpe: &tiktoken_rs::CoreBPE, text: &str) -> usize {
    bpe.encode_with_special_tokens(text).len()
}

fn selection(toolsets: Option<&[&str]>) -> Selection {
    Selection::new(&Options {
        read_only: false,
        toolsets: toolsets.map(|t| t.iter().map(|s| s.to_string()).collect()),
    })
    .expect("a valid selection")
}

fn tools_list() -> Value {
    json!({ "tools": tools_list_json(&selection(Some(&["all", "internal"]))) })
}

/// Prints what every tool and toolset costs, and holds each toolset to its budget and a
/// session with the default toolsets to [`DEFAULT_SESSION_BUDGET`].
#[test]
fn every_toolset_fits_its_budget_and_the_default_session_fits_8000_tokens() {
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base ships with tiktoken-rs");
    // Every toolset, the hidden one (which `all` leaves out) included.
    let all = selection(Some(&["all", "internal"]));
    let listed = tools_list_json(&all);
    let mut table =
        String::from("toolset    default  tool                              tokens  description\n");
    let mut over = Vec::new();
    for (set, budget) in TOOLSET_BUDGETS {
        let mut sum = 0;
        for (spec, tool) in all.tools().iter().zip(listed.as_array().unwrap()) {
            if spec.toolset != set {
                continue;
            }
            let cost = tokens(&bpe, &serde_json::to_string(tool).unwrap());
            let description = tokens(&bpe, spec.description);
            sum += cost;
            table.push_str(&format!(
                "{:10} {:8} {:33} {cost:6}  {description:6}\n",
                set.as_str(),
                if set.on_by_default() { "yes" } else { "" },
                spec.name
            ));
            if description > DESCRIPTION_LIMIT
                && !LONG_DESCRIPTIONS.iter().any(|(n, _)| *n == spec.name)
            {
                over.push(format!(
                    "{}: its description is {description} tokens, over {DESCRIPTION_LIMIT}",
                    spec.name
                ));
            }
        }
        table.push_str(&format!(
            "{:10} {:8} {:33} {sum:6}  (budget {budget})\n",
            set.as_str(),
            "",
            "= the toolset"
        ));
        if sum > budget {
            over.push(format!(
                "toolset {set}: {sum} tokens, over its budget of {budget}"
            ));
        }
    }
    assert_eq!(
        TOOLSET_BUDGETS.map(|(s, _)| s),
        Toolset::ALL,
        "every toolset has a budget"
    );

    let default = selection(None);
    let wire = serde_json::to_string(&json!({ "tools": tools_list_json(&default) })).unwrap();
    let list = tokens(&bpe, &wire);
    let instructions = tokens(&bpe, &resolve_pr_mcp::instructions(&default));
    let everything = tokens(&bpe, &serde_json::to_string(&tools_list()).unwrap());
    table.push_str(&format!(
        "default session: tools/list {list} + instructions {instructions} = {} (budget \
         {DEFAULT_SESSION_BUDGET}); every toolset on: tools/list {everything}\n",
        list + instructions
    ));
    println!("{table}");
    if list + instructions > DEFAULT_SESSION_BUDGET {
        over.push(format!(
            "the default session costs {} tokens, over {DEFAULT_SESSION_BUDGET}",
            list + instructions
        ));
    }
    assert!(
        over.is_empty(),
        "{}\n\n{table}\nshorten descriptions (say what the schema cannot) before raising a budget",
        over.join("\n")
    );

    let total: usize = all
        .tools()
        .iter()
        .map(|t| tokens(&bpe, t.description))
        .sum();
    let average = total / all.tools().len().max(1);
    assert!(average <= 100, "descriptions average {average} tokens");
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
    // Every registry tool, and the two that turn toolsets on (listed by default only).
    let on_demand = tools_list_json(&selection(None));
    let mut tools = tools_list()["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    tools.extend(on_demand.as_array().cloned().unwrap_or_default());
    assert!(tools.iter().any(|t| t["name"] == "enable_toolsets"));
    for tool in tools {
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
