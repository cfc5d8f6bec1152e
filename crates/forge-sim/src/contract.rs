//! The simulator's contract with the real forges' REST APIs: response bodies are checked
//! against the vendored slices of GitHub's OpenAPI and Forgejo's Swagger descriptions
//! (GraphQL documents are checked against GitHub's schema in `graphql_schema`). Regenerate the
//! descriptions with `scripts/vendor-api-descriptions.py`; this module never downloads
//! anything. Feature `contract`: tests want it, `resolve-pr demo` leaves it out.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::{Value, json};

use crate::forgejo::FORGEJO_API_PREFIX;
use crate::scenario::ForgeFlavor;

const GITHUB_REST: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vendor/api-descriptions/github-rest.json"
));
const FORGEJO_REST: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../vendor/api-descriptions/forgejo-rest.json"
));

struct Operation {
    method: String,
    template: String,
    segments: Vec<Segment>,
    responses: HashMap<String, Option<Value>>,
}

enum Segment {
    Literal(String),
    Param,
}

struct Description {
    operations: Vec<Operation>,
    definitions: Value,
    /// Compiled validators by (operation index, status), built on first use.
    validators: Mutex<HashMap<(usize, String), Arc<jsonschema::Validator>>>,
}

static GITHUB: LazyLock<Result<Description, String>> =
    LazyLock::new(|| Description::parse(GITHUB_REST));
static FORGEJO: LazyLock<Result<Description, String>> =
    LazyLock::new(|| Description::parse(FORGEJO_REST));

impl Description {
    fn parse(text: &str) -> Result<Description, String> {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("bad description: {e}"))?;
        let mut operations = Vec::new();
        for op in doc["operations"].as_array().into_iter().flatten() {
            let template = op["path"].as_str().unwrap_or_default().to_owned();
            let segments = template
                .split('/')
                .skip(1)
                .map(|s| {
                    if s.starts_with('{') {
                        Segment::Param
                    } else {
                        Segment::Literal(s.to_owned())
                    }
                })
                .collect();
            let responses = op["responses"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(status, r)| {
                    let schema = r.get("schema").filter(|s| !s.is_null()).cloned();
                    (status.clone(), schema)
                })
                .collect();
            operations.push(Operation {
                method: op["method"].as_str().unwrap_or_default().to_owned(),
                template,
                segments,
                responses,
            });
        }
        Ok(Description {
            operations,
            definitions: doc["definitions"].clone(),
            validators: Mutex::new(HashMap::new()),
        })
    }

    /// The operation whose template matches the path; literal segments beat parameters.
    fn find(&self, method: &str, path: &str) -> Option<usize> {
        let parts: Vec<&str> = path.split('/').skip(1).collect();
        let mut best: Option<(usize, usize)> = None;
        for (index, op) in self.operations.iter().enumerate() {
            if !op.method.eq_ignore_ascii_case(method) || op.segments.len() != parts.len() {
                continue;
            }
            let mut literals = 0;
            let matched = op.segments.iter().zip(&parts).all(|(seg, part)| match seg {
                Segment::Literal(l) => {
                    literals += 1;
                    l == part
                }
                Segment::Param => !part.is_empty(),
            });
            if matched && best.is_none_or(|(_, l)| literals > l) {
                best = Some((index, literals));
            }
        }
        best.map(|(index, _)| index)
    }

    fn validator(
        &self,
        index: usize,
        status: &str,
        schema: &Value,
    ) -> Result<Arc<jsonschema::Validator>, String> {
        let key = (index, status.to_owned());
        let mut cache = self
            .validators
            .lock()
            .map_err(|_| "validator cache poisoned".to_owned())?;
        if let Some(v) = cache.get(&key) {
            return Ok(v.clone());
        }
        let full = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "definitions": self.definitions,
            "allOf": [schema],
        });
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&full)
            .map_err(|e| format!("cannot compile the schema of {status}: {e}"))?;
        let validator = Arc::new(validator);
        cache.insert(key, validator.clone());
        Ok(validator)
    }
}

fn description(forge: ForgeFlavor) -> Result<&'static Description, String> {
    let d = match forge {
        ForgeFlavor::Github => &*GITHUB,
        ForgeFlavor::Forgejo | ForgeFlavor::Gitea => &*FORGEJO,
    };
    d.as_ref().map_err(Clone::clone)
}

/// The description-relative path: Forgejo's templates are written without `/api/v1`.
fn described_path(forge: ForgeFlavor, path: &str) -> Option<&str> {
    if forge.is_gitea_family() {
        path.strip_prefix(FORGEJO_API_PREFIX)
    } else {
        Some(path)
    }
}

/// Whether the vendored description has an operation for this request; the simulator
/// validates exactly those responses.
pub(crate) fn is_described(forge: ForgeFlavor, method: &str, path: &str) -> bool {
    let Ok(d) = description(forge) else {
        return false;
    };
    described_path(forge, path).is_some_and(|p| d.find(method, p).is_some())
}

/// Checks a response against the forge's published description: the concrete `path` is
/// matched to an operation's template, `status` must be described for it, and `body` must
/// match the status's schema. `body` is `Value::Null` for a response without a body.
/// For Forgejo/Gitea, `path` includes the `/api/v1` prefix.
pub fn validate_rest(
    forge: ForgeFlavor,
    method: &str,
    path: &str,
    status: u16,
    body: &Value,
) -> Result<(), String> {
    let d = description(forge)?;
    let rel = described_path(forge, path)
        .ok_or_else(|| format!("{path} is outside the API prefix {FORGEJO_API_PREFIX}"))?;
    let index = d
        .find(method, rel)
        .ok_or_else(|| format!("{method} {path}: no such operation in the vendored description"))?;
    let op = &d.operations[index];
    let status_key = status.to_string();
    let schema = op
        .responses
        .get(&status_key)
        .or_else(|| op.responses.get("default"))
        .ok_or_else(|| {
            format!(
                "{method} {}: status {status} is not described (described: {})",
                op.template,
                op.responses.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        })?;
    let Some(schema) = schema else {
        return if body.is_null() {
            Ok(())
        } else {
            Err(format!(
                "{method} {} {status}: described without a body, but one was sent",
                op.template
            ))
        };
    };
    let validator = d.validator(index, &status_key, schema)?;
    let problems: Vec<String> = validator
        .iter_errors(body)
        .take(5)
        .map(|e| format!("at '{}': {e}", e.instance_path()))
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{method} {} {status}: {}",
            op.template,
            problems.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_templates_preferring_literals() {
        let d = description(ForgeFlavor::Github).unwrap();
        let i = d.find("GET", "/repos/o/r/issues/5/comments").unwrap();
        assert_eq!(
            d.operations[i].template,
            "/repos/{owner}/{repo}/issues/{issue_number}/comments"
        );
        assert!(d.find("GET", "/repos/o/r/issues/5/labels").is_none());
        assert!(is_described(ForgeFlavor::Forgejo, "GET", "/api/v1/version"));
        assert!(!is_described(ForgeFlavor::Forgejo, "GET", "/version"));
    }

    #[test]
    fn catches_a_wrong_body_and_an_undescribed_status() {
        let err = validate_rest(
            ForgeFlavor::Github,
            "GET",
            "/rate_limit",
            200,
            &json!({"rate": 1}),
        )
        .unwrap_err();
        assert!(err.contains("/rate_limit"), "{err}");
        let err = validate_rest(ForgeFlavor::Github, "GET", "/user", 418, &json!({})).unwrap_err();
        assert!(err.contains("not described"), "{err}");
        let ok = json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"});
        validate_rest(ForgeFlavor::Github, "GET", "/repos/o/r", 404, &ok).unwrap();
        let closed = json!({"version": "1.0", "extra": true});
        assert!(
            validate_rest(ForgeFlavor::Forgejo, "GET", "/api/v1/version", 200, &closed).is_err()
        );
    }
}
