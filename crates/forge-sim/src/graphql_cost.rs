//! The rate-limit points GitHub charges for a GraphQL query, by the rule it publishes
//! ("Rate limits and query limits for the GraphQL API", *Predicting the point value of a
//! query*): every connection in the query needs one request per object its enclosing
//! connections may return (the product of their `first`/`last`, as if every page were full);
//! the sum over all connections, divided by 100 and rounded to the nearest whole number, is
//! the cost, and no call costs less than 1.
//!
//! Connections are the fields whose type is named `…Connection`, as in GitHub's schema. A
//! connection asked for without `first`/`last` (only its `totalCount`) still counts as
//! requests; for anything nested under it, it counts as a full page of 100, GitHub's largest.

use std::collections::HashSet;

use apollo_compiler::ExecutableDocument;
use apollo_compiler::ast::Value as GqlValue;
use apollo_compiler::executable::{Operation, SelectionSet};
use apollo_compiler::response::JsonMap;

/// GitHub's largest page, assumed for a connection without `first`/`last`.
const FULL_PAGE: u64 = 100;

/// The points of the operation `operation_name` (or the only one) with these variables.
pub(crate) fn points(
    document: &ExecutableDocument,
    operation_name: Option<&str>,
    variables: &JsonMap,
) -> u32 {
    let Ok(operation) = document.operations.get(operation_name) else {
        return 1;
    };
    let mut walk = Walk {
        document,
        operation,
        variables,
        seen: HashSet::new(),
        requests: 0,
    };
    walk.selections(&operation.selection_set, 1, "");
    let rounded = (walk.requests + 50) / 100;
    u32::try_from(rounded.max(1)).unwrap_or(u32::MAX)
}

struct Walk<'a> {
    document: &'a ExecutableDocument,
    operation: &'a Operation,
    variables: &'a JsonMap,
    /// Response paths of the connections counted: a connection selected twice (through two
    /// fragments, say) is one connection.
    seen: HashSet<String>,
    requests: u64,
}

impl Walk<'_> {
    /// `objects`: how many objects the enclosing connections may return together.
    fn selections(&mut self, set: &SelectionSet, objects: u64, path: &str) {
        for selection in &set.selections {
            if let Some(field) = selection.as_field() {
                let path = format!("{path}.{}", field.response_key());
                let type_name = field.ty().inner_named_type().as_str();
                let nested = if type_name.ends_with("Connection") {
                    if self.seen.insert(path.clone()) {
                        self.requests = self.requests.saturating_add(objects);
                    }
                    let page = ["first", "last"]
                        .iter()
                        .find_map(|name| field.specified_argument_by_name(name))
                        .and_then(|v| self.int(v))
                        .unwrap_or(FULL_PAGE);
                    objects.saturating_mul(page)
                } else {
                    objects
                };
                self.selections(&field.selection_set, nested, &path);
            } else if let Some(inline) = selection.as_inline_fragment() {
                self.selections(&inline.selection_set, objects, path);
            } else if let Some(fragment) = selection
                .as_fragment_spread()
                .and_then(|spread| self.document.fragments.get(&spread.fragment_name))
            {
                self.selections(&fragment.selection_set, objects, path);
            }
        }
    }

    /// An argument's integer value: a literal, or a variable as sent (else its default).
    fn int(&self, value: &GqlValue) -> Option<u64> {
        match value {
            GqlValue::Int(i) => i.try_to_i32().ok().and_then(|n| u64::try_from(n).ok()),
            GqlValue::Variable(name) => match self.variables.get(name.as_str()) {
                Some(v) => v.as_i64().and_then(|n| u64::try_from(n).ok()),
                None => self
                    .operation
                    .variables
                    .iter()
                    .find(|d| d.name == *name)
                    .and_then(|d| d.default_value.as_ref())
                    .and_then(|v| self.int(v)),
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphql_schema::parse_graphql;

    fn cost(query: &str, variables: serde_json::Value) -> u32 {
        let document = parse_graphql(query).expect("a valid document");
        let variables: JsonMap = serde_json::from_value(variables).expect("variables");
        points(&document, None, &variables)
    }

    #[test]
    fn githubs_published_example_costs_51() {
        // 1 request for repositories, 100 for issues, 100 x 50 for labels: 5,101 -> 51.
        let query = "query { viewer { login repositories(first: 100) { edges { node { id \
                     issues(first: 50) { edges { node { id labels(first: 60) { edges { node \
                     { id name } } } } } } } } } } }";
        assert_eq!(cost(query, serde_json::json!({})), 51);
    }

    #[test]
    fn variables_fragments_and_the_minimum() {
        assert_eq!(cost("query { viewer { login } }", serde_json::json!({})), 1);
        let query = "query($n: Int = 100) { viewer { repositories(first: $n) { nodes { \
                     ...F } } } } fragment F on Repository { issues(first: 100) { nodes { \
                     labels(first: 10) { totalCount } } } }";
        // 1 + 100 + 100 x 100 = 10,101 -> 101 with the default; 1 + 2 + 200 -> 2 with n = 2.
        assert_eq!(cost(query, serde_json::json!({})), 101);
        assert_eq!(cost(query, serde_json::json!({"n": 2})), 2);
        // A connection with only totalCount still needs its requests.
        let query = "query { viewer { repositories(first: 100) { nodes { issues { totalCount } \
                     pullRequests(first: 1) { totalCount } } } } }";
        assert_eq!(cost(query, serde_json::json!({})), 2);
    }
}
