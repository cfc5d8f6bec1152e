//! Why a tool's arguments do not fit its input schema, in words an agent can act on: every bad
//! argument at once, each with the type the schema expects, an example, and what was given.
//! serde stops at the first problem and names Rust types (`expected i64`); the schema knows
//! every field, so the `jsonschema` crate finds all the problems and this module words them.

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::Value;

/// Values quoted in a problem are cut to this many characters.
const QUOTE_CHARS: usize = 40;

/// Every way `args` misses `schema`, one sentence per argument: unknown arguments together,
/// missing required ones together, then each bad value. Empty when the schema accepts `args`
/// (or cannot be compiled, which the registry's tests rule out).
pub(crate) fn problems(tool: &str, schema: &Value, args: &Value) -> Vec<String> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Vec::new();
    };
    let mut missing: Vec<String> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    let mut bad: Vec<(String, String)> = Vec::new();
    for error in validator.iter_errors(args) {
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                if let Some(name) = property.as_str() {
                    missing.push(name.to_owned());
                }
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                unknown.extend(unexpected.iter().cloned());
            }
            _ => {
                let path: Vec<LocationSegment<'_>> = error.instance_path().segments().collect();
                let field = field_name(&path);
                // One sentence per argument, however many keywords it fails (type and
                // minimum, say): the sentence says everything the schema wants of it.
                if bad.iter().any(|(f, _)| *f == field) {
                    continue;
                }
                let expected = schema_at(schema, &path).map_or_else(
                    || "a value that fits the input schema".to_owned(),
                    expectation,
                );
                let problem = format!(
                    "{field}: expected {expected}, got {}",
                    given(error.instance())
                );
                bad.push((field, problem));
            }
        }
    }
    let mut problems = Vec::new();
    // A name another tool takes, an alias' guess or a near spelling: say which was meant.
    unknown.retain(|name| match crate::vocabulary::meant(tool, schema, name) {
        Some(meant) => {
            problems.push(format!("`{name}` is not an argument of {tool}: {meant}"));
            false
        }
        None => true,
    });
    if !unknown.is_empty() {
        let known: Vec<&str> = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        problems.push(format!(
            "unknown argument{} {} ({tool} takes {})",
            if unknown.len() > 1 { "s" } else { "" },
            unknown.join(", "),
            known.join(", ")
        ));
    }
    if !missing.is_empty() {
        problems.push(format!(
            "missing required argument{}: {}",
            if missing.len() > 1 { "s" } else { "" },
            missing
                .iter()
                .map(|name| {
                    match schema
                        .pointer(&format!("/properties/{name}"))
                        .map(expectation)
                    {
                        Some(expected) => format!("{name} ({expected})"),
                        None => name.clone(),
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    problems.extend(bad.into_iter().map(|(_, p)| p));
    problems
}

/// `exclude_authors[0]`, `pr`: the argument as an agent would write it.
fn field_name(path: &[LocationSegment<'_>]) -> String {
    let mut name = String::new();
    for segment in path {
        match segment {
            LocationSegment::Property(p) => {
                if !name.is_empty() {
                    name.push('.');
                }
                name.push_str(p);
            }
            LocationSegment::Index(i) => name.push_str(&format!("[{i}]")),
        }
    }
    if name.is_empty() {
        "arguments".to_owned()
    } else {
        name
    }
}

/// The subschema that describes the value at `path`. The published schemas are flat (see
/// `schema`), so properties and items are all there is to follow.
fn schema_at<'s>(schema: &'s Value, path: &[LocationSegment<'_>]) -> Option<&'s Value> {
    let mut node = schema;
    for segment in path {
        node = match segment {
            LocationSegment::Property(p) => node.get("properties")?.get(p.as_ref())?,
            LocationSegment::Index(_) => node.get("items")?,
        };
    }
    Some(node)
}

/// What a schema wants, as a phrase: `a string like "owner/repo#123"`, `true or false`,
/// `a positive integer like 42`, `one of "a", "b"`.
fn expectation(schema: &Value) -> String {
    if let Some(Value::Array(values)) = schema.get("enum") {
        let values: Vec<String> = values.iter().map(Value::to_string).collect();
        return format!("one of {}", values.join(", "));
    }
    let kind = match schema.get("type").and_then(Value::as_str) {
        Some("string") => "a string".to_owned(),
        Some("boolean") => return "true or false".to_owned(),
        Some("integer") => match schema.get("minimum").and_then(Value::as_i64) {
            Some(0) => "a non-negative integer".to_owned(),
            Some(1) => "a positive integer".to_owned(),
            Some(min) => format!("an integer ≥ {min}"),
            None => "an integer".to_owned(),
        },
        Some("number") => "a number".to_owned(),
        Some("array") => match schema.pointer("/items/type").and_then(Value::as_str) {
            Some("string") => "an array of strings".to_owned(),
            Some("integer") => "an array of integers".to_owned(),
            _ => "an array".to_owned(),
        },
        Some("object") => "an object".to_owned(),
        _ => "a value that fits the input schema".to_owned(),
    };
    match schema.pointer("/examples/0") {
        Some(example) => format!("{kind} like {example}"),
        None => kind,
    }
}

/// What was given: `number 42`, `string "yes"`, `null`.
fn given(value: &Value) -> String {
    let quoted = || {
        let text = value.to_string();
        if text.chars().count() > QUOTE_CHARS {
            let cut: String = text.chars().take(QUOTE_CHARS).collect();
            format!("{cut}…")
        } else {
            text
        }
    };
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(_) => format!("number {}", quoted()),
        Value::String(_) => format!("string {}", quoted()),
        Value::Array(_) => format!("array {}", quoted()),
        Value::Object(_) => format!("object {}", quoted()),
    }
}

/// A word for a JSON value's type, for errors about the arguments as a whole.
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "pr": {"type": "string", "examples": ["owner/repo#123"]},
                "wait": {"type": "boolean"},
                "number": {"type": "integer", "minimum": 1, "examples": [42]},
                "sort": {"type": "string", "enum": ["chronological", "by_file"]},
                "authors": {"type": "array", "items": {"type": "string"}},
                "body": {"type": "string"}
            },
            "required": ["pr", "body"],
            "additionalProperties": false
        })
    }

    #[test]
    fn every_bad_argument_is_named_with_what_it_should_be() {
        let args = json!({"pr": 42, "wait": "yes", "number": 0, "sort": "size", "authors": ["a", 7], "extra": 1, "more": 2});
        assert_eq!(
            problems("t", &schema(), &args),
            [
                "unknown arguments extra, more (t takes authors, body, number, pr, sort, wait)",
                "missing required argument: body (a string)",
                "authors[1]: expected a string, got number 7",
                "number: expected a positive integer like 42, got number 0",
                "pr: expected a string like \"owner/repo#123\", got number 42",
                "sort: expected one of \"chronological\", \"by_file\", got string \"size\"",
                "wait: expected true or false, got string \"yes\"",
            ]
        );
    }

    #[test]
    fn missing_arguments_come_together_and_fitting_ones_give_nothing() {
        assert_eq!(
            problems("t", &schema(), &json!({})),
            ["missing required arguments: pr (a string like \"owner/repo#123\"), body (a string)"]
        );
        assert!(problems("t", &schema(), &json!({"pr": "o/r#1", "body": "hi"})).is_empty());
    }

    #[test]
    fn long_values_are_quoted_cut() {
        let long = "x".repeat(500);
        let got = problems(
            "t",
            &schema(),
            &json!({"pr": "o/r#1", "body": "b", "wait": long}),
        );
        assert_eq!(got.len(), 1);
        assert!(got[0].len() < 120, "{}", got[0]);
        assert!(got[0].ends_with('…'), "{}", got[0]);
    }
}
