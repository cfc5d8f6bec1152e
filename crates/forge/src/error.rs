//! What went wrong talking to a forge, in the forge layer's own terms: the variant says what
//! happened (not found, rejected token, rate limit, broken connection, ...) and keeps the HTTP
//! status, so code in this crate decides by matching a variant, never by reading an error's
//! text, category or JSON details. The one conversion to the agents' error model,
//! [`resolve_pr_core::Error`], is at the bottom; it runs where a tool hands its result back.

use std::fmt;

use serde_json::{Map, Value};

use resolve_pr_core::Category;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How a connection to a forge failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// The connection never opened (refused, DNS, TLS): nothing was sent.
    Unreachable,
    /// No answer in time.
    Timeout,
    /// The connection broke after the request may have been sent, or while reading the answer.
    Broken,
}

/// What the error says to the person or agent who reads it: the message, how to fix it, and
/// the facts around it (method, URL, rate-limit counters, the start of a body...). Which
/// kind of error it is, and the HTTP status, are the variant's, not the report's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    pub message: String,
    pub suggestion: Option<String>,
    pub details: Map<String, Value>,
    pub documentation_url: Option<String>,
}

impl Report {
    fn new(message: impl Into<String>) -> Box<Report> {
        Box::new(Report {
            message: message.into(),
            ..Report::default()
        })
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// An error of the forge layer. Reports are boxed so `Result<T>` stays small.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The thing asked about does not exist, or the token cannot see it: a 404, GraphQL's
    /// `NOT_FOUND`, a thread id the pull request does not have.
    #[error("{report}")]
    NotFound {
        status: Option<u16>,
        report: Box<Report>,
    },
    /// No token, or the forge rejected it (401) or it lacks access (403, GraphQL `FORBIDDEN`).
    #[error("{report}")]
    Auth {
        status: Option<u16>,
        report: Box<Report>,
    },
    /// The rate limit is used up beyond what one call may wait: come back in `retry_after`
    /// seconds (from `retry-after`, or the limit's reset time).
    #[error("{report}")]
    RateLimited {
        status: Option<u16>,
        retry_after: u64,
        report: Box<Report>,
    },
    /// The forge could not be reached, did not answer in time, or the connection broke.
    #[error("{report}")]
    Transport {
        kind: Transport,
        report: Box<Report>,
        /// The HTTP client's error.
        #[source]
        cause: Option<Cause>,
    },
    /// The forge refused what was sent (422: a field it does not accept).
    #[error("{report}")]
    Rejected { status: u16, report: Box<Report> },
    /// Any other answer that is not a success: a 5xx (with the `retry-after` it gave, if any),
    /// another 4xx (405, 410, ...), a redirect without a usable `Location`.
    #[error("{report}")]
    Status {
        status: u16,
        retry_after: Option<u64>,
        report: Box<Report>,
    },
    /// An answer the client cannot use: not JSON, JSON of another shape, GraphQL errors or
    /// no data, an archive that does not unzip, pages that never end.
    #[error("{report}")]
    InvalidBody {
        report: Box<Report>,
        /// The JSON parser's (or unzipper's) error.
        #[source]
        cause: Option<Cause>,
    },
    /// The forge, or this instance of it, lacks a capability (an endpoint, a concept).
    #[error("{report}")]
    Unsupported {
        capability: String,
        forge: String,
        report: Box<Report>,
    },
    /// The input cannot be sent as given (an empty comment, a malformed thread id, a run
    /// number the repository does not have).
    #[error("{report}")]
    Usage { report: Box<Report> },
    /// The configuration cannot answer: a config file that cannot be read or parsed, a host
    /// that is not configured, a reference without a host that could mean several forges.
    #[error("{report}")]
    Config {
        report: Box<Report>,
        /// The file system's error.
        #[source]
        cause: Option<Cause>,
    },
    /// The request is well-formed but the situation does not allow it: a log that expired,
    /// an artifact over the size limit, a thread of another pull request.
    #[error("{report}")]
    Precondition { report: Box<Report> },
    /// The HTTP client could not be built.
    #[error("{report}")]
    Setup {
        report: Box<Report>,
        /// The HTTP client's error.
        #[source]
        cause: Option<Cause>,
    },
}

/// What caused a forge error (the HTTP client's, the JSON parser's, the file system's), link
/// by link as text, so `std::error::Error::source` walks from the forge error down to the
/// root cause while [`Error`] stays `Clone` and comparable. Every URL's query is cut off (a
/// signed download URL's query is a credential).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    message: String,
    source: Option<Box<Cause>>,
}

impl Cause {
    /// `e` and its causes.
    pub fn of(e: &dyn std::error::Error) -> Cause {
        Cause {
            message: crate::http::strip_queries(&e.to_string()),
            source: e.source().map(|s| Box::new(Cause::of(s))),
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
}

impl Error {
    pub fn not_found(status: Option<u16>, message: impl Into<String>) -> Self {
        Error::NotFound {
            status,
            report: Report::new(message),
        }
    }
    pub fn auth(status: Option<u16>, message: impl Into<String>) -> Self {
        Error::Auth {
            status,
            report: Report::new(message),
        }
    }
    pub fn rate_limited(status: Option<u16>, retry_after: u64, message: impl Into<String>) -> Self {
        Error::RateLimited {
            status,
            retry_after,
            report: Report::new(message),
        }
    }
    pub fn transport(kind: Transport, message: impl Into<String>) -> Self {
        Error::Transport {
            kind,
            report: Report::new(message),
            cause: None,
        }
    }
    pub fn rejected(status: u16, message: impl Into<String>) -> Self {
        Error::Rejected {
            status,
            report: Report::new(message),
        }
    }
    pub fn status(status: u16, retry_after: Option<u64>, message: impl Into<String>) -> Self {
        Error::Status {
            status,
            retry_after,
            report: Report::new(message),
        }
    }
    pub fn invalid_body(message: impl Into<String>) -> Self {
        Error::InvalidBody {
            report: Report::new(message),
            cause: None,
        }
    }
    pub fn unsupported(
        capability: impl Into<String>,
        forge: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Unsupported {
            capability: capability.into(),
            forge: forge.into(),
            report: Report::new(message),
        }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage {
            report: Report::new(message),
        }
    }
    pub fn config(message: impl Into<String>) -> Self {
        Error::Config {
            report: Report::new(message),
            cause: None,
        }
    }
    pub fn precondition(message: impl Into<String>) -> Self {
        Error::Precondition {
            report: Report::new(message),
        }
    }
    pub fn setup(message: impl Into<String>) -> Self {
        Error::Setup {
            report: Report::new(message),
            cause: None,
        }
    }

    /// This error caused by `e` (kept as its [`Cause`], reached through
    /// `std::error::Error::source`), for the variants that wrap another library's error:
    /// `Transport`, `InvalidBody`, `Config` and `Setup`; the others are left as they are.
    pub fn caused_by(mut self, e: &dyn std::error::Error) -> Self {
        if let Error::Transport { cause, .. }
        | Error::InvalidBody { cause, .. }
        | Error::Config { cause, .. }
        | Error::Setup { cause, .. } = &mut self
        {
            *cause = Some(Cause::of(e));
        }
        self
    }

    pub fn report(&self) -> &Report {
        match self {
            Error::NotFound { report, .. }
            | Error::Auth { report, .. }
            | Error::RateLimited { report, .. }
            | Error::Transport { report, .. }
            | Error::Rejected { report, .. }
            | Error::Status { report, .. }
            | Error::InvalidBody { report, .. }
            | Error::Unsupported { report, .. }
            | Error::Usage { report }
            | Error::Config { report, .. }
            | Error::Precondition { report }
            | Error::Setup { report, .. } => report,
        }
    }

    fn report_mut(&mut self) -> &mut Report {
        match self {
            Error::NotFound { report, .. }
            | Error::Auth { report, .. }
            | Error::RateLimited { report, .. }
            | Error::Transport { report, .. }
            | Error::Rejected { report, .. }
            | Error::Status { report, .. }
            | Error::InvalidBody { report, .. }
            | Error::Unsupported { report, .. }
            | Error::Usage { report }
            | Error::Config { report, .. }
            | Error::Precondition { report }
            | Error::Setup { report, .. } => report,
        }
    }

    /// The HTTP status of the answer this error comes from, if there was one.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Error::NotFound { status, .. }
            | Error::Auth { status, .. }
            | Error::RateLimited { status, .. } => *status,
            Error::Rejected { status, .. } | Error::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The message alone.
    pub fn message(&self) -> &str {
        &self.report().message
    }

    /// Every fact of the error as the agent sees them in `details`: the report's, plus the
    /// HTTP status and the forge that lacks a capability.
    pub fn details(&self) -> Map<String, Value> {
        let mut details = self.report().details.clone();
        if let Some(status) = self.http_status() {
            details.insert("status".to_owned(), status.into());
        }
        if let Error::Unsupported { forge, .. } = self {
            details.insert("forge".to_owned(), forge.clone().into());
        }
        details
    }

    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.report_mut().suggestion = Some(suggestion.into());
        self
    }

    pub fn with_detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.report_mut()
            .details
            .insert(key.to_owned(), value.into());
        self
    }

    pub fn with_documentation_url(mut self, url: impl Into<String>) -> Self {
        self.report_mut().documentation_url = Some(url.into());
        self
    }

    /// The category the agent reads, which decides between fixing the input, retrying and
    /// asking a human.
    fn category(&self) -> Category {
        match self {
            Error::NotFound { .. } | Error::Rejected { .. } => Category::User,
            Error::Usage { .. } | Error::Config { .. } => Category::User,
            Error::Auth { .. } => Category::Authentication,
            Error::RateLimited { .. } => Category::RateLimit,
            Error::Transport {
                kind: Transport::Timeout,
                ..
            } => Category::Timeout,
            Error::Transport { .. } => Category::Network,
            Error::Status { .. } | Error::InvalidBody { .. } => Category::Api,
            Error::Unsupported { .. } | Error::Precondition { .. } => Category::Logical,
            Error::Setup { .. } => Category::Unknown,
        }
    }

    fn retry_after(&self) -> Option<u64> {
        match self {
            Error::RateLimited { retry_after, .. } => Some(*retry_after),
            Error::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// The one way a forge error becomes the error agents see; `?` applies it where a tool (or
/// the CLI) returns.
impl From<Error> for resolve_pr_core::Error {
    fn from(e: Error) -> Self {
        let details = e.details();
        let category = e.category();
        let retry_after = e.retry_after();
        let report = match e {
            Error::NotFound { report, .. }
            | Error::Auth { report, .. }
            | Error::RateLimited { report, .. }
            | Error::Transport { report, .. }
            | Error::Rejected { report, .. }
            | Error::Status { report, .. }
            | Error::InvalidBody { report, .. }
            | Error::Unsupported { report, .. }
            | Error::Usage { report }
            | Error::Config { report, .. }
            | Error::Precondition { report }
            | Error::Setup { report, .. } => *report,
        };
        resolve_pr_core::Error {
            error: report.message,
            category,
            code: None,
            details: (!details.is_empty()).then(|| Box::new(details)),
            suggestion: report.suggestion,
            retry_after,
            documentation_url: report.documentation_url,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_core::Error as Agent;

    /// A wrapped error stays reachable through `source()`, link by link down to the root
    /// cause, and a signed URL's query in any link is not kept.
    #[test]
    fn the_source_chain_walks_to_the_root_cause_without_url_queries() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl fmt::Display for Outer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the request timed out")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let root = std::io::Error::other("https://storage.example/log?sig=SECRET timed out");
        let outer = Outer(root);
        let e = Error::transport(Transport::Broken, "the connection broke").caused_by(&outer);
        let first = std::error::Error::source(&e).expect("the cause is the source");
        assert_eq!(first.to_string(), "the request timed out");
        let second = first.source().expect("the cause's own cause");
        assert_eq!(second.to_string(), "https://storage.example/log timed out");
        assert!(second.source().is_none());
        // The variants that wrap nothing have no source; cloning keeps the chain.
        assert!(std::error::Error::source(&Error::usage("x").caused_by(&outer)).is_none());
        assert_eq!(e.clone(), e);
        assert!(std::error::Error::source(&e.clone()).is_some());
    }

    /// Each variant becomes exactly the error the clients built directly before the forge had
    /// its own type: same category, message, details (the status among them), suggestion,
    /// `retry_after` and documentation link.
    #[test]
    fn every_variant_converts_to_the_agent_error_it_stands_for() {
        let cases: Vec<(Error, Agent)> = vec![
            (
                Error::not_found(Some(404), "pull request o/r#1 not found on GitHub")
                    .with_detail("method", "GET")
                    .with_suggestion("Check the owner, repository and number.")
                    .with_documentation_url("https://docs.github.com/rest"),
                Agent::user("pull request o/r#1 not found on GitHub")
                    .with_detail("method", "GET")
                    .with_detail("status", 404)
                    .with_suggestion("Check the owner, repository and number.")
                    .with_documentation_url("https://docs.github.com/rest"),
            ),
            (
                Error::not_found(None, "no review thread PRRT_x on GitHub")
                    .with_detail("thread_id", "PRRT_x"),
                Agent::user("no review thread PRRT_x on GitHub").with_detail("thread_id", "PRRT_x"),
            ),
            (
                Error::auth(Some(401), "GitHub rejected the token").with_suggestion("Set it."),
                Agent::authentication("GitHub rejected the token")
                    .with_detail("status", 401)
                    .with_suggestion("Set it."),
            ),
            (
                Error::auth(None, "no GitHub token found for github.com")
                    .with_detail("host", "github.com"),
                Agent::authentication("no GitHub token found for github.com")
                    .with_detail("host", "github.com"),
            ),
            (
                Error::rate_limited(Some(403), 31, "GitHub rate limit exceeded")
                    .with_detail("remaining", 0),
                Agent::rate_limit("GitHub rate limit exceeded")
                    .with_detail("status", 403)
                    .with_detail("remaining", 0)
                    .with_retry_after(31),
            ),
            (
                Error::rate_limited(None, 60, "GitHub GraphQL q failed: limited"),
                Agent::rate_limit("GitHub GraphQL q failed: limited").with_retry_after(60),
            ),
            (
                Error::transport(Transport::Timeout, "GitHub did not answer in time"),
                Agent::timeout("GitHub did not answer in time"),
            ),
            (
                Error::transport(Transport::Unreachable, "cannot connect to GitHub"),
                Agent::network("cannot connect to GitHub"),
            ),
            (
                Error::transport(Transport::Broken, "the connection broke"),
                Agent::network("the connection broke"),
            ),
            (
                Error::rejected(422, "GitHub rejected the request"),
                Agent::user("GitHub rejected the request").with_detail("status", 422),
            ),
            (
                Error::status(502, Some(5), "GitHub failed with 502"),
                Agent::api("GitHub failed with 502")
                    .with_detail("status", 502)
                    .with_retry_after(5),
            ),
            (
                Error::status(410, None, "GitHub answered 410 Gone").with_detail("body_start", ""),
                Agent::api("GitHub answered 410 Gone")
                    .with_detail("status", 410)
                    .with_detail("body_start", ""),
            ),
            (
                Error::invalid_body("GitHub returned a response that is not valid JSON"),
                Agent::api("GitHub returned a response that is not valid JSON"),
            ),
            (
                Error::unsupported(
                    "downloading job logs",
                    "gitea",
                    "gitea does not support downloading job logs through its API",
                ),
                Agent::logical("gitea does not support downloading job logs through its API")
                    .with_detail("forge", "gitea"),
            ),
            (
                Error::usage("the comment body is empty").with_detail("field", "body"),
                Agent::user("the comment body is empty").with_detail("field", "body"),
            ),
            (
                Error::config("the forge host x is not configured"),
                Agent::user("the forge host x is not configured"),
            ),
            (
                Error::precondition("the log of job 1 is gone"),
                Agent::logical("the log of job 1 is gone"),
            ),
            (
                Error::setup("cannot set up the HTTP client"),
                Agent::unknown("cannot set up the HTTP client"),
            ),
        ];
        for (forge, agent) in cases {
            assert_eq!(forge.to_string(), agent.error);
            let converted = Agent::from(forge.clone());
            assert_eq!(converted, agent, "{forge:?}");
            assert_eq!(converted.to_json(), agent.to_json());
        }
    }

    #[test]
    fn the_status_is_the_variants() {
        assert_eq!(Error::not_found(Some(404), "x").http_status(), Some(404));
        assert_eq!(Error::not_found(None, "x").http_status(), None);
        assert_eq!(Error::rejected(422, "x").http_status(), Some(422));
        assert_eq!(Error::status(405, None, "x").http_status(), Some(405));
        assert_eq!(
            Error::rate_limited(Some(429), 1, "x").http_status(),
            Some(429)
        );
        assert_eq!(Error::invalid_body("x").http_status(), None);
        // The details the agent sees carry it; the report does not, so it is said once.
        let e = Error::status(410, None, "x");
        assert!(e.report().details.is_empty());
        assert_eq!(e.details()["status"], 410);
    }
}
