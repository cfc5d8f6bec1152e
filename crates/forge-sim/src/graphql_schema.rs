//! GitHub's GraphQL schema (vendored from GitHub's published SDL, 1.2 MB): the endpoint
//! parses and validates every document against it before executing it (an invalid one is a
//! contract violation), and tests price documents with it. Feature `graphql`, like the
//! endpoint; `resolve-pr demo` leaves it out.

use std::sync::LazyLock;

use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};
use serde_json::{Value, json};

const GITHUB_GRAPHQL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vendor/api-descriptions/github-schema.graphql"
));

/// GitHub's schema is large (1.2 MB of SDL); it is parsed once, on first use.
static GRAPHQL_SCHEMA: LazyLock<Result<Valid<Schema>, String>> = LazyLock::new(|| {
    // GitHub's published SDL is what its server validates against; if the compiler finds
    // schema-level nits in it, the document checks still work on the parsed schema.
    match Schema::parse_and_validate(GITHUB_GRAPHQL, "github-schema.graphql") {
        Ok(schema) => Ok(schema),
        Err(with_errors) => Ok(Valid::assume_valid(with_errors.partial)),
    }
});

/// Parses and validates a GraphQL document against GitHub's schema; the error lists every
/// problem the compiler found.
pub fn validate_graphql(document: &str) -> Result<(), String> {
    parse_graphql(document).map(|_| ())
}

/// The rate-limit points GitHub charges for a document with these variables, by its
/// published rule (see `graphql_cost`); an error when the document does not validate.
pub fn graphql_points(document: &str, variables: &Value) -> Result<u32, String> {
    let parsed = parse_graphql(document)?;
    let variables = serde_json::from_value(variables.clone()).map_err(|e| e.to_string())?;
    Ok(crate::graphql_cost::points(&parsed, None, &variables))
}

pub(crate) fn graphql_schema() -> Result<&'static Valid<Schema>, String> {
    GRAPHQL_SCHEMA.as_ref().map_err(Clone::clone)
}

pub(crate) fn parse_graphql(document: &str) -> Result<Valid<ExecutableDocument>, String> {
    let schema = graphql_schema()?;
    ExecutableDocument::parse_and_validate(schema, document, "query.graphql").map_err(|e| {
        e.errors
            .iter()
            .map(|d| d.error.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Like `parse_graphql` but keeps each problem with its location, for GitHub-shaped errors.
pub(crate) fn graphql_errors(document: &str) -> Vec<Value> {
    let Ok(schema) = graphql_schema() else {
        return vec![json!({"message": "forge-sim: GitHub schema unavailable"})];
    };
    match ExecutableDocument::parse_and_validate(schema, document, "query.graphql") {
        Ok(_) => Vec::new(),
        Err(e) => e
            .errors
            .iter()
            .map(|d| {
                let mut err = json!({"message": d.error.to_string()});
                if let Some(range) = d.line_column_range() {
                    err["locations"] =
                        json!([{"line": range.start.line, "column": range.start.column}]);
                }
                err
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_graphql_documents() {
        validate_graphql("query { viewer { login } rateLimit { remaining } }").unwrap();
        let err = validate_graphql("query { viewer { loginn } }").unwrap_err();
        assert!(err.contains("loginn"), "{err}");
        assert!(validate_graphql("query {").is_err());
    }
}
