//! How a failed exchange with a forge becomes an error: the status of an answer (GitHub's
//! documented rate-limit rules, which Forgejo/Gitea's simpler 429s fit), a broken connection,
//! a body that is not the JSON promised. Each says whether and when it may be retried.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::retry::{Failure, Retry};

use crate::{Error, Result, Transport};

pub(crate) fn parse_json<T: DeserializeOwned>(body: &[u8], origin: &str) -> Result<T> {
    serde_json::from_slice(body).map_err(|e| {
        let error = if e.is_data() {
            format!("{origin} returned JSON of an unexpected shape: {e}")
        } else {
            format!("{origin} returned a response that is not valid JSON ({e})")
        };
        Error::invalid_body(error)
            .caused_by(&e)
            .with_detail("body_start", snippet(body))
            .with_suggestion(
                "Retry later; if it persists, a proxy or an incompatible forge version may be \
                 answering instead of the API.",
            )
    })
}

/// Everything a failure message needs to say what went wrong where.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ErrorContext<'a> {
    pub forge: &'a str,
    pub method: &'a str,
    pub url: &'a str,
    pub subject: &'a str,
    pub not_found_hint: &'a str,
    pub auth_hint: &'a str,
}

impl ErrorContext<'_> {
    pub(super) fn origin(&self) -> String {
        format!("{} ({} {})", self.forge, self.method, self.url)
    }

    /// The request's method and URL added to the error's details (the status, when there
    /// is one, is the error's own).
    pub(super) fn base(&self, error: Error) -> Error {
        error
            .with_detail("method", self.method)
            .with_detail("url", self.url)
    }
}

pub(super) fn transport_failure(
    e: &reqwest::Error,
    ctx: &ErrorContext<'_>,
    reading_body: bool,
) -> Failure {
    let cause = error_chain(e);
    if e.is_timeout() {
        // Not retried: a forge that needed 30 s once will likely need it again, and the
        // agent is better served by an answer now than by minutes of silence.
        return Failure::fatal(
            ctx.base(
                Error::transport(
                    Transport::Timeout,
                    format!(
                        "{} did not answer {} in time ({} {})",
                        ctx.forge, ctx.subject, ctx.method, ctx.url
                    ),
                )
                .caused_by(e),
            )
            .with_suggestion(format!(
                "The forge is slow or unreachable; retry in a minute. {}",
                if ctx.method == "GET" {
                    ""
                } else {
                    "The write may or may not have happened: check before repeating it."
                }
            )),
        );
    }
    if e.is_connect() {
        // The connection never opened, so nothing was sent: safe to retry even writes.
        return Failure {
            error: ctx
                .base(Error::transport(
                    Transport::Unreachable,
                    format!("cannot connect to {} at {}: {cause}", ctx.forge, ctx.url),
                )
                .caused_by(e))
            .with_suggestion(
                "Check the network, the forge's URL (GITHUB_API_URL, FORGEJO_HOST or the config \
                 file) and any proxy settings (HTTPS_PROXY).",
            ),
            retry: Retry::Always,
            wait: None,
        };
    }
    let what = if reading_body {
        "the connection broke while reading the answer"
    } else {
        "the connection broke"
    };
    let mut error = ctx.base(
        Error::transport(
            Transport::Broken,
            format!(
                "{what} from {} ({} {}): {cause}",
                ctx.forge, ctx.method, ctx.url
            ),
        )
        .caused_by(e),
    );
    error = if ctx.method == "GET" {
        error.with_suggestion("Retry in a moment; the forge or the network dropped the connection.")
    } else {
        error.with_suggestion(format!(
            "The forge may have acted on the request before the connection broke: check {} \
             before repeating the write.",
            ctx.subject
        ))
    };
    Failure {
        error,
        retry: Retry::IfIdempotent,
        wait: None,
    }
}

/// The message, documentation link and validation errors of an error body, when it is JSON
/// (GitHub: `message`, `documentation_url`, `errors`; Forgejo/Gitea: `message`, `url`).
#[derive(Debug, Default)]
struct ErrorBody {
    message: Option<String>,
    documentation_url: Option<String>,
    errors: Vec<String>,
}

fn error_body(body: &[u8]) -> ErrorBody {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) else {
        return ErrorBody::default();
    };
    let text = |k: &str| {
        map.get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .filter(|s| !s.is_empty())
    };
    let errors = match map.get("errors") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or_else(|| {
                        let field = o.get("field").and_then(Value::as_str)?;
                        let code = o.get("code").and_then(Value::as_str).unwrap_or("invalid");
                        Some(format!("{field}: {code}"))
                    }),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    ErrorBody {
        message: text("message"),
        documentation_url: text("documentation_url").or_else(|| text("url")),
        errors,
    }
}

fn header_u64(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// Turns a non-2xx answer into the error it stands for and says whether and when to retry,
/// following GitHub's documented rate-limit rules (which Forgejo/Gitea's simpler 429s fit).
pub(crate) fn classify_status(
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
    ctx: &ErrorContext<'_>,
    now: SystemTime,
) -> Failure {
    let parsed = error_body(body);
    let message = parsed
        .message
        .clone()
        .unwrap_or_else(|| reason(status).to_owned());
    let with_doc = |e: Error| match &parsed.documentation_url {
        Some(url) => e.with_documentation_url(url.clone()),
        None => e,
    };
    let remaining = header_u64(headers, "x-ratelimit-remaining");
    let retry_after = header_u64(headers, RETRY_AFTER.as_str());
    let secondary = message
        .to_ascii_lowercase()
        .contains("secondary rate limit");

    if status == 403 || status == 429 {
        // GitHub: retry-after wins; then remaining 0 means wait for the reset; then a
        // secondary limit without headers means wait at least a minute.
        let wait = if let Some(secs) = retry_after {
            Some(Duration::from_secs(secs))
        } else if remaining == Some(0) {
            let reset = header_u64(headers, "x-ratelimit-reset").unwrap_or(0);
            let now_secs = now.duration_since(UNIX_EPOCH).unwrap_or_default();
            // One second of margin: the forge's clock and ours are not the same clock.
            Some(
                Duration::from_secs(reset)
                    .saturating_sub(now_secs)
                    .saturating_add(Duration::from_secs(1)),
            )
        } else if secondary {
            Some(Duration::from_secs(60))
        } else {
            None
        };
        if wait.is_some() || status == 429 {
            let retry_after_secs = wait
                .map(|w| w.as_secs_f64().ceil() as u64)
                .unwrap_or(60)
                .max(1);
            let kind = if remaining == Some(0) && retry_after.is_none() {
                "rate limit"
            } else if secondary || retry_after.is_some() {
                "secondary rate limit"
            } else {
                "rate limit"
            };
            let mut error = ctx
                .base(Error::rate_limited(
                    Some(status),
                    retry_after_secs,
                    format!(
                        "{} {kind} exceeded while requesting {}: {message}",
                        ctx.forge, ctx.subject
                    ),
                ))
                .with_suggestion(format!(
                    "Wait {retry_after_secs} seconds before calling again; repeated reads of \
                     unchanged data are conditional and do not use up the limit."
                ));
            for (name, key) in [
                ("x-ratelimit-limit", "limit"),
                ("x-ratelimit-remaining", "remaining"),
                ("x-ratelimit-reset", "reset"),
            ] {
                if let Some(v) = header_u64(headers, name) {
                    error = error.with_detail(key, v);
                }
            }
            if let Some(resource) = headers
                .get("x-ratelimit-resource")
                .and_then(|v| v.to_str().ok())
            {
                error = error.with_detail("resource", resource);
            }
            return Failure {
                error: with_doc(error),
                // A rate-limited request was refused before it did anything.
                retry: Retry::Always,
                wait,
            };
        }
    }

    let error = match status {
        401 => with_doc(
            ctx.base(Error::auth(
                Some(status),
                format!(
                    "{} rejected the token (401 Unauthorized) while requesting {}: {message}",
                    ctx.forge, ctx.subject
                ),
            ))
            .with_suggestion(format!(
                "The token is invalid, expired or revoked. {}",
                ctx.auth_hint
            )),
        ),
        403 => {
            let mut error = ctx
                .base(Error::auth(
                    Some(status),
                    format!(
                        "the token has no access to {} on {} (403 Forbidden): {message}",
                        ctx.subject, ctx.forge
                    ),
                ))
                .with_suggestion(format!(
                    "Use a token that can see and write to this repository (GitHub classic \
                     tokens need the `repo` scope for private repositories; fine-grained tokens \
                     need Pull requests and Issues permissions; SSO organizations need the token \
                     authorized). {}",
                    ctx.auth_hint
                ));
            if let Some(needed) = headers
                .get("x-accepted-github-permissions")
                .and_then(|v| v.to_str().ok())
            {
                error = error.with_detail("accepted_permissions", needed);
            }
            with_doc(error)
        }
        404 => {
            let hint = if ctx.not_found_hint.is_empty() {
                "Check the owner, repository and number. A private repository also answers 404 \
                 when the token cannot see it."
            } else {
                ctx.not_found_hint
            };
            with_doc(
                ctx.base(Error::not_found(
                    Some(status),
                    format!("{} not found on {}", ctx.subject, ctx.forge),
                ))
                .with_suggestion(hint),
            )
        }
        422 => {
            let errors = if parsed.errors.is_empty() {
                String::new()
            } else {
                format!(" ({})", parsed.errors.join("; "))
            };
            with_doc(
                ctx.base(Error::rejected(
                    status,
                    format!(
                        "{} rejected the request for {}: {message}{errors}",
                        ctx.forge, ctx.subject
                    ),
                ))
                .with_suggestion("Fix the request as the forge's message says and call again."),
            )
        }
        s if s >= 500 => {
            let error = ctx
                .base(Error::status(
                    status,
                    retry_after,
                    format!(
                        "{} failed with {s} {} while handling {}: {message}",
                        ctx.forge,
                        reason(s),
                        ctx.subject
                    ),
                ))
                .with_suggestion(if ctx.method == "GET" {
                    "The forge had a transient problem; retry in a minute.".to_owned()
                } else {
                    format!(
                        "The forge may or may not have applied the write: check {} before \
                         repeating it.",
                        ctx.subject
                    )
                });
            let error = with_doc(error);
            return Failure {
                error,
                retry: Retry::IfIdempotent,
                wait: retry_after.map(Duration::from_secs),
            };
        }
        s => with_doc(
            ctx.base(Error::status(
                status,
                None,
                format!(
                    "{} answered {s} {} for {}: {message}",
                    ctx.forge,
                    reason(s),
                    ctx.subject
                ),
            ))
            .with_detail("body_start", snippet(body)),
        ),
    };
    Failure::fatal(error)
}

fn reason(status: u16) -> &'static str {
    StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("")
}

/// The first bytes of a body, for error details: enough to recognize an HTML error page.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(200)]);
    text.into_owned()
}

/// An error's text and causes with every URL's query removed: what may be shown of an error
/// that happened on a signed download URL.
#[derive(Debug)]
pub(crate) struct UrlFree(String);

impl UrlFree {
    pub(crate) fn of(e: &dyn std::error::Error) -> UrlFree {
        UrlFree(strip_queries(&error_chain(e)))
    }
}

impl std::fmt::Display for UrlFree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UrlFree {}

/// `text` with the query of every `http(s)://` URL in it cut off (up to the next space,
/// parenthesis or quote).
pub(crate) fn strip_queries(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("http") {
        let (before, url_on) = rest.split_at(start);
        out.push_str(before);
        let end = url_on
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '>'))
            .unwrap_or(url_on.len());
        let url = &url_on[..end];
        out.push_str(url.split('?').next().unwrap_or(url));
        rest = &url_on[end..];
    }
    out.push_str(rest);
    out
}

/// The error and its causes on one line: reqwest's own message hides the interesting part
/// ("connection refused") in its sources.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error as the agent sees it.
    fn agent(e: &Error) -> resolve_pr_core::Error {
        e.clone().into()
    }
    use reqwest::header::HeaderValue;

    fn ctx() -> ErrorContext<'static> {
        ErrorContext {
            forge: "GitHub",
            method: "GET",
            url: "https://api.github.com/repos/o/r/pulls/1",
            subject: "pull request o/r#1",
            not_found_hint: "",
            auth_hint: "Set GITHUB_TOKEN.",
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    /// A body that is not JSON is an `InvalidBody` whose source is the parser's error.
    #[test]
    fn a_body_that_is_not_json_keeps_the_parsers_error_as_source() {
        let e = parse_json::<Value>(b"not json", "the forge").unwrap_err();
        assert!(matches!(e, Error::InvalidBody { .. }), "{e:?}");
        let cause = std::error::Error::source(&e).expect("the parser's error");
        let parser = serde_json::from_slice::<Value>(b"not json").unwrap_err();
        assert_eq!(cause.to_string(), parser.to_string());
    }
    #[test]
    fn not_found_names_the_subject() {
        let f = classify_status(
            404,
            &HeaderMap::new(),
            br#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}"#,
            &ctx(),
            at(0),
        );
        assert_eq!(agent(&f.error).category, resolve_pr_core::Category::User);
        assert_eq!(
            agent(&f.error).error,
            "pull request o/r#1 not found on GitHub"
        );
        assert_eq!(
            agent(&f.error).documentation_url.as_deref(),
            Some("https://docs.github.com/rest")
        );
        assert!(agent(&f.error).suggestion.is_some());
        assert_eq!(f.retry, Retry::No);
    }

    #[test]
    fn authentication_failures() {
        let f = classify_status(
            401,
            &HeaderMap::new(),
            br#"{"message":"Bad credentials"}"#,
            &ctx(),
            at(0),
        );
        assert_eq!(
            agent(&f.error).category,
            resolve_pr_core::Category::Authentication
        );
        assert!(
            agent(&f.error).error.contains("rejected the token"),
            "{}",
            agent(&f.error).error
        );
        assert!(agent(&f.error).suggestion.unwrap().contains("GITHUB_TOKEN"));

        let h = headers(&[
            ("x-ratelimit-remaining", "4999"),
            ("x-accepted-github-permissions", "pull_requests=read"),
        ]);
        let f = classify_status(
            403,
            &h,
            br#"{"message":"Resource not accessible by integration"}"#,
            &ctx(),
            at(0),
        );
        assert_eq!(
            agent(&f.error).category,
            resolve_pr_core::Category::Authentication
        );
        assert!(
            agent(&f.error)
                .error
                .contains("has no access to pull request o/r#1")
        );
        assert_eq!(
            agent(&f.error).details.unwrap()["accepted_permissions"],
            "pull_requests=read"
        );
        assert_eq!(f.retry, Retry::No);
    }

    #[test]
    fn primary_rate_limit_waits_for_reset() {
        let h = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1030"),
            ("x-ratelimit-limit", "5000"),
        ]);
        let f = classify_status(
            403,
            &h,
            br#"{"message":"API rate limit exceeded"}"#,
            &ctx(),
            at(1000),
        );
        assert_eq!(
            agent(&f.error).category,
            resolve_pr_core::Category::RateLimit
        );
        assert_eq!(f.wait, Some(Duration::from_secs(31)));
        assert_eq!(agent(&f.error).retry_after, Some(31));
        assert_eq!(f.retry, Retry::Always);
        // A reset in the past still waits the margin, never underflows.
        let f = classify_status(429, &h, b"", &ctx(), at(2000));
        assert_eq!(f.wait, Some(Duration::from_secs(1)));
    }

    #[test]
    fn secondary_rate_limits() {
        let h = headers(&[("retry-after", "7"), ("x-ratelimit-remaining", "100")]);
        let f = classify_status(
            403,
            &h,
            br#"{"message":"You have exceeded a secondary rate limit."}"#,
            &ctx(),
            at(0),
        );
        assert_eq!(
            agent(&f.error).category,
            resolve_pr_core::Category::RateLimit
        );
        assert_eq!(f.wait, Some(Duration::from_secs(7)));
        assert!(agent(&f.error).error.contains("secondary rate limit"));

        let h = headers(&[("x-ratelimit-remaining", "100")]);
        let f = classify_status(
            403,
            &h,
            br#"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes"}"#,
            &ctx(),
            at(0),
        );
        assert_eq!(f.wait, Some(Duration::from_secs(60)));
        assert_eq!(agent(&f.error).retry_after, Some(60));

        // A bare 429 (a proxy in front of Forgejo) backs off on our schedule.
        let f = classify_status(429, &HeaderMap::new(), b"", &ctx(), at(0));
        assert_eq!(
            (agent(&f.error).category, f.wait),
            (resolve_pr_core::Category::RateLimit, None)
        );
    }

    /// Code that decides on an error (a log that is gone, a route an instance lacks) matches
    /// these variants and their status.
    #[test]
    fn statuses_become_variants_that_keep_the_status() {
        let variant = |status: u16, headers: &HeaderMap| {
            classify_status(status, headers, b"", &ctx(), at(0)).error
        };
        let none = HeaderMap::new();
        assert!(matches!(
            variant(404, &none),
            Error::NotFound {
                status: Some(404),
                ..
            }
        ));
        for status in [405, 410, 409, 400] {
            assert!(
                matches!(variant(status, &none), Error::Status { status: s, retry_after: None, .. } if s == status),
                "{status}"
            );
        }
        assert!(matches!(
            variant(422, &none),
            Error::Rejected { status: 422, .. }
        ));
        assert!(matches!(
            variant(401, &none),
            Error::Auth {
                status: Some(401),
                ..
            }
        ));
        assert!(matches!(
            variant(403, &none),
            Error::Auth {
                status: Some(403),
                ..
            }
        ));
        assert!(matches!(
            variant(429, &none),
            Error::RateLimited {
                status: Some(429),
                retry_after: 60,
                ..
            }
        ));
        let h = headers(&[("retry-after", "7")]);
        assert!(matches!(
            variant(503, &h),
            Error::Status {
                status: 503,
                retry_after: Some(7),
                ..
            }
        ));
        assert!(matches!(
            variant(403, &h),
            Error::RateLimited {
                status: Some(403),
                retry_after: 7,
                ..
            }
        ));
    }

    #[test]
    fn server_errors_retry_only_if_idempotent() {
        let f = classify_status(
            502,
            &HeaderMap::new(),
            b"<html>bad gateway</html>",
            &ctx(),
            at(0),
        );
        assert_eq!(agent(&f.error).category, resolve_pr_core::Category::Api);
        assert_eq!(f.retry, Retry::IfIdempotent);
        assert_eq!(agent(&f.error).details.as_ref().unwrap()["status"], 502);
    }

    #[test]
    fn validation_and_other_client_errors() {
        let f = classify_status(422, &HeaderMap::new(), br#"{"message":"Validation Failed","errors":[{"resource":"IssueComment","field":"body","code":"missing_field"}]}"#, &ctx(), at(0));
        assert_eq!(agent(&f.error).category, resolve_pr_core::Category::User);
        assert!(
            agent(&f.error)
                .error
                .contains("Validation Failed (body: missing_field)"),
            "{}",
            agent(&f.error).error
        );

        let f = classify_status(
            410,
            &HeaderMap::new(),
            br#"{"message":"Issues are disabled for this repo"}"#,
            &ctx(),
            at(0),
        );
        assert_eq!(agent(&f.error).category, resolve_pr_core::Category::Api);
        assert_eq!(agent(&f.error).details.unwrap()["status"], 410);
    }

    #[test]
    fn garbage_is_not_json() {
        let e = agent(&parse_json::<Value>(b"<html>", "GitHub (GET x)").unwrap_err());
        assert_eq!(e.category, resolve_pr_core::Category::Api);
        assert!(e.error.contains("not valid JSON"));
        let e = agent(&parse_json::<Vec<u8>>(b"{}", "GitHub (GET x)").unwrap_err());
        assert!(e.error.contains("unexpected shape"));
    }

    #[test]
    fn queries_are_cut_from_urls_in_text() {
        assert_eq!(
            strip_queries(
                "error sending request for url (https://blob.core/x.txt?sig=abc&se=1): reset"
            ),
            "error sending request for url (https://blob.core/x.txt): reset"
        );
        assert_eq!(strip_queries("no url here"), "no url here");
        assert_eq!(
            strip_queries("http://a/b?c http://d/e"),
            "http://a/b http://d/e"
        );
    }
}
