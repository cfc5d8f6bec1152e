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

/// The stable codes an error can carry, in one place: what an agent (and our own code) may
/// decide on, where the category is too coarse. Serialized in upper snake case
/// (`SYMBOL_NOT_FOUND`); a code is added here, never spelled as a string elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// Arguments that do not fit the tool's input schema (every one in `details.problems`).
    InvalidArgument,
    /// A cursor that is not one of ours, or belongs to other arguments.
    InvalidCursor,
    /// No tool has this name.
    UnknownTool,
    /// The tool exists but this server does not offer it (`--toolsets`, `--read-only`).
    ToolNotEnabled,
    /// The tool reads the server's checkout, which callers of a shared HTTP server cannot name.
    NotAvailableRemotely,
    /// The operator fixed the toolsets (`--toolsets`): the agent cannot turn others on.
    ToolsetsFixed,
    /// This server has no tools of the toolset asked for.
    ToolsetNotAvailable,
    /// A bug: the tool panicked. Other tools still work.
    InternalError,
    /// No language server for the language is installed (the install command is said).
    ServerNotInstalled,
    /// No language server covers this kind of file.
    UnsupportedLanguage,
    /// A path outside the checkout, missing, or not a file.
    InvalidPath,
    /// A file too large to send to a language server.
    FileTooLarge,
    /// A line or character past the end of the file.
    InvalidPosition,
    /// The target is named ambiguously or by too many ways at once.
    InvalidTarget,
    /// No symbol by this name or at this position.
    SymbolNotFound,
    /// The language server died or would not start.
    ServerFailed,
    /// The language server answered with an error.
    ServerError,
    /// The language server does not offer this request.
    NotSupported,
    /// The call ran out of time.
    Timeout,
    /// The language server is still indexing: call again after `retry_after`.
    ServerIndexing,
    /// Reading or writing a file failed.
    IoError,
    /// A plan whose files changed since it was made, or that is not in this checkout's store: plan again.
    StalePlan,
    /// One file of a plan no longer has the checksum the plan recorded (`details.file_path`).
    ChecksumMismatch,
    /// Applying a plan failed (verification found new errors, or a write failed and was rolled back).
    ApplyFailed,
    /// Rolling an apply back failed; the files named in `details` need a look.
    RollbackFailed,
    /// A plan given to a tool of another operation.
    InvalidPlanType,
    /// A name that matches several symbols (the candidates are in `details.candidates`).
    AmbiguousTarget,
    /// No undo snapshot by this id in this checkout.
    SnapshotNotFound,
    /// Another apply holds this checkout: call again when it ends.
    CheckoutBusy,
    /// An analysis scope that names no path, a path of the wrong kind, or no symbol
    /// (`details.field` says which: `scope.path`, `scope.symbol_name`, `scope.include`).
    InvalidScope,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 30] = [
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidCursor,
        ErrorCode::UnknownTool,
        ErrorCode::ToolNotEnabled,
        ErrorCode::NotAvailableRemotely,
        ErrorCode::ToolsetsFixed,
        ErrorCode::ToolsetNotAvailable,
        ErrorCode::InternalError,
        ErrorCode::ServerNotInstalled,
        ErrorCode::UnsupportedLanguage,
        ErrorCode::InvalidPath,
        ErrorCode::FileTooLarge,
        ErrorCode::InvalidPosition,
        ErrorCode::InvalidTarget,
        ErrorCode::SymbolNotFound,
        ErrorCode::ServerFailed,
        ErrorCode::ServerError,
        ErrorCode::NotSupported,
        ErrorCode::Timeout,
        ErrorCode::ServerIndexing,
        ErrorCode::IoError,
        ErrorCode::StalePlan,
        ErrorCode::ChecksumMismatch,
        ErrorCode::ApplyFailed,
        ErrorCode::RollbackFailed,
        ErrorCode::InvalidPlanType,
        ErrorCode::AmbiguousTarget,
        ErrorCode::SnapshotNotFound,
        ErrorCode::CheckoutBusy,
        ErrorCode::InvalidScope,
    ];

    /// The code as agents read it.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::InvalidCursor => "INVALID_CURSOR",
            ErrorCode::UnknownTool => "UNKNOWN_TOOL",
            ErrorCode::ToolNotEnabled => "TOOL_NOT_ENABLED",
            ErrorCode::NotAvailableRemotely => "NOT_AVAILABLE_REMOTELY",
            ErrorCode::ToolsetsFixed => "TOOLSETS_FIXED",
            ErrorCode::ToolsetNotAvailable => "TOOLSET_NOT_AVAILABLE",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::ServerNotInstalled => "SERVER_NOT_INSTALLED",
            ErrorCode::UnsupportedLanguage => "UNSUPPORTED_LANGUAGE",
            ErrorCode::InvalidPath => "INVALID_PATH",
            ErrorCode::FileTooLarge => "FILE_TOO_LARGE",
            ErrorCode::InvalidPosition => "INVALID_POSITION",
            ErrorCode::InvalidTarget => "INVALID_TARGET",
            ErrorCode::SymbolNotFound => "SYMBOL_NOT_FOUND",
            ErrorCode::ServerFailed => "SERVER_FAILED",
            ErrorCode::ServerError => "SERVER_ERROR",
            ErrorCode::NotSupported => "NOT_SUPPORTED",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::ServerIndexing => "SERVER_INDEXING",
            ErrorCode::IoError => "IO_ERROR",
            ErrorCode::StalePlan => "STALE_PLAN",
            ErrorCode::ChecksumMismatch => "CHECKSUM_MISMATCH",
            ErrorCode::ApplyFailed => "APPLY_FAILED",
            ErrorCode::RollbackFailed => "ROLLBACK_FAILED",
            ErrorCode::InvalidPlanType => "INVALID_PLAN_TYPE",
            ErrorCode::AmbiguousTarget => "AMBIGUOUS_TARGET",
            ErrorCode::SnapshotNotFound => "SNAPSHOT_NOT_FOUND",
            ErrorCode::CheckoutBusy => "CHECKOUT_BUSY",
            ErrorCode::InvalidScope => "INVALID_SCOPE",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A categorized error with enough context to act on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{error}")]
pub struct Error {
    /// Human-readable message: what was wrong.
    pub error: String,
    pub category: Category,
    /// A stable code in upper snake case where one applies (`SERVER_NOT_INSTALLED`,
    /// `SYMBOL_NOT_FOUND`, ...: [`ErrorCode`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub code: Option<ErrorCode>,
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

    pub fn with_code(mut self, code: ErrorCode) -> Self {
        self.code = Some(code);
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
    fn every_code_serializes_as_it_reads() {
        for code in ErrorCode::ALL {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, code.as_str(), "{code:?}");
            assert_eq!(serde_json::from_value::<ErrorCode>(json).unwrap(), code);
        }
        let e = Error::user("no such symbol").with_code(ErrorCode::SymbolNotFound);
        assert_eq!(e.to_json()["code"], "SYMBOL_NOT_FOUND");
    }

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
            .with_code(ErrorCode::SymbolNotFound)
            .with_suggestion("do better")
            .with_documentation_url("https://example.com");
        let back: Error = serde_json::from_value(e.to_json()).unwrap();
        assert_eq!(back, e);
    }
}
