//! The one error model of resolve-pr (seeds 000/003/004): what went wrong, which category it
//! falls in, and what the agent can do about it. Tool errors are serialized as-is into
//! `structuredContent` of an `isError` MCP result, so every field here is part of the contract.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What kind of failure this is, so an agent can decide between fixing its input, retrying
/// later, or asking a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The input was wrong: fix the arguments and call again.
    User,
    /// The forge answered with an error that is not the caller's input.
    Api,
    /// The request was well-formed but the situation does not allow it.
    Logical,
    /// The forge could not be reached, or the connection broke.
    Network,
    /// No token, or the token was rejected or lacks access.
    Authentication,
    /// The forge's rate limit is exhausted; see `retry_after`.
    RateLimit,
    /// The operation ran out of time.
    Timeout,
    /// Anything else.
    Unknown,
}

impl Category {
    pub fn as_str(self) -> &'static str {
        match self {
            Category::User => "user",
            Category::Api => "api",
            Category::Logical => "logical",
            Category::Network => "network",
            Category::Authentication => "authentication",
            Category::RateLimit => "rate_limit",
            Category::Timeout => "timeout",
            Category::Unknown => "unknown",
        }
    }
}

/// A categorized error with enough context to act on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{error}")]
pub struct Error {
    /// Human-readable message: what was wrong.
    pub error: String,
    pub category: Category,
    /// A stable code in upper snake case, where a tool's contract names one (the code
    /// intelligence tools: `SERVER_NOT_INSTALLED`, `SYMBOL_NOT_FOUND`, ...). A boxed `str`
    /// keeps `Error` within clippy's size for an `Err` variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Box<str>>,
    /// Structured facts (HTTP status, field name, the value given, ...). Boxed so that
    /// `Result<T, Error>` stays small on the success path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<Map<String, Value>>>,
    /// How to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// Seconds to wait before retrying (rate limits, busy forges).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(category: Category, error: impl Into<String>) -> Self {
        Error {
            error: error.into(),
            category,
            code: None,
            details: None,
            suggestion: None,
            retry_after: None,
            documentation_url: None,
        }
    }

    pub fn user(error: impl Into<String>) -> Self {
        Self::new(Category::User, error)
    }
    pub fn api(error: impl Into<String>) -> Self {
        Self::new(Category::Api, error)
    }
    pub fn logical(error: impl Into<String>) -> Self {
        Self::new(Category::Logical, error)
    }
    pub fn network(error: impl Into<String>) -> Self {
        Self::new(Category::Network, error)
    }
    pub fn authentication(error: impl Into<String>) -> Self {
        Self::new(Category::Authentication, error)
    }
    pub fn rate_limit(error: impl Into<String>) -> Self {
        Self::new(Category::RateLimit, error)
    }
    pub fn timeout(error: impl Into<String>) -> Self {
        Self::new(Category::Timeout, error)
    }
    pub fn unknown(error: impl Into<String>) -> Self {
        Self::new(Category::Unknown, error)
    }

    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into().into_boxed_str());
        self
    }

    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details
            .get_or_insert_with(Default::default)
            .insert(key.to_owned(), value.into());
        self
    }

    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn with_documentation_url(mut self, url: impl Into<String>) -> Self {
        self.documentation_url = Some(url.into());
        self
    }

    /// The error as the JSON object agents receive.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|_| {
            // Serializing plain strings and maps cannot fail; keep a total function anyway.
            serde_json::json!({"error": self.error, "category": self.category.as_str()})
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_only_present_fields() {
        let e = Error::rate_limit("Rate limited")
            .with_retry_after(300)
            .with_detail("status", 429);
        assert_eq!(
            e.to_json(),
            serde_json::json!({
                "error": "Rate limited",
                "category": "rate_limit",
                "details": {"status": 429},
                "retry_after": 300
            })
        );
    }

    #[test]
    fn round_trips() {
        let e = Error::user("bad")
            .with_code("SYMBOL_NOT_FOUND")
            .with_suggestion("do better")
            .with_documentation_url("https://example.com");
        let back: Error = serde_json::from_value(e.to_json()).unwrap();
        assert_eq!(back, e);
    }
}
