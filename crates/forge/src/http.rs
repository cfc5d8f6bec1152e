//! The one HTTP layer both forge clients use: a shared reqwest client (rustls, timeouts,
//! User-Agent), an ETag cache so repeated reads are conditional, bounded retries with
//! jittered backoff and rate-limit waits, and the mapping of every failure to a categorized
//! `resolve_pr_core::Error`. Tokens go in as sensitive header values and never come out.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use backon::{BackoffBuilder, ExponentialBuilder};
use bytes::Bytes;
use reqwest::header::{
    AUTHORIZATION, CONTENT_TYPE, ETAG, HeaderMap, HeaderValue, IF_MODIFIED_SINCE, IF_NONE_MATCH,
    LAST_MODIFIED, LINK, RETRY_AFTER,
};
use reqwest::{Method, StatusCode};
use resolve_pr_core::{Error, Result};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::Secret;

/// How hard one call tries before it gives up. The defaults suit an interactive agent: a
/// call never sleeps more than a minute in total.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Most time one call may spend sleeping between attempts. A wait the forge asks for
    /// that does not fit becomes a `rate_limit` error with `retry_after` instead.
    pub max_total_wait: Duration,
    /// First backoff delay for transient faults; doubles (with jitter) up to `max_backoff`.
    pub min_backoff: Duration,
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 4,
            max_total_wait: Duration::from_secs(60),
            min_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
        }
    }
}

impl RetryPolicy {
    fn backoff(&self) -> impl Iterator<Item = Duration> + use<> {
        ExponentialBuilder::new()
            .with_jitter()
            .with_min_delay(self.min_backoff)
            .with_max_delay(self.max_backoff.max(self.min_backoff))
            .with_max_times(self.max_retries as usize)
            .build()
    }
}

/// What the process environment looks like to a client; tests pass a closure instead of
/// touching the real environment.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Knobs of a forge client. `Default` is what the server and CLI use.
#[derive(Clone)]
pub struct ClientOptions {
    pub retry: RetryPolicy,
    pub connect_timeout: Duration,
    /// Whole request, including reading the body.
    pub request_timeout: Duration,
    /// GitHub only: where `GITHUB_TOKEN` and `GH_TOKEN` are read from.
    pub env: EnvLookup,
    /// GitHub only: whether to ask `gh auth token` when no variable holds a token.
    pub gh_cli: bool,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            env: Arc::new(|name| std::env::var(name).ok()),
            gh_cli: true,
        }
    }
}

impl fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientOptions")
            .field("retry", &self.retry)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("gh_cli", &self.gh_cli)
            .finish_non_exhaustive()
    }
}

/// An `Authorization` header for one token, plus an opaque identity so cached answers for
/// one token are never served to another.
#[derive(Clone)]
pub(crate) struct Auth {
    header: HeaderValue,
    identity: u64,
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Auth(<redacted>)")
    }
}

/// One request as the clients describe it.
pub(crate) struct Request<'a> {
    pub method: Method,
    pub url: String,
    pub auth: Option<&'a Auth>,
    pub body: Option<&'a Value>,
    /// Whether sending it twice is harmless. GETs are; a POST that creates something is not,
    /// so it is only retried when the forge certainly did not act on it.
    pub idempotent: bool,
    /// What the request is about, for messages: "pull request o/r#3".
    pub subject: &'a str,
    /// Suggestion for a 404.
    pub not_found_hint: &'a str,
    /// A `Range` header value; only [`Http::locate`] sends it (downloads that may be long).
    pub range: Option<String>,
}

impl<'a> Request<'a> {
    pub fn get(url: String, auth: Option<&'a Auth>, subject: &'a str) -> Self {
        Request {
            method: Method::GET,
            url,
            auth,
            body: None,
            idempotent: true,
            subject,
            not_found_hint: "",
            range: None,
        }
    }

    pub fn post(url: String, auth: Option<&'a Auth>, body: &'a Value, subject: &'a str) -> Self {
        Request {
            method: Method::POST,
            url,
            auth,
            body: Some(body),
            idempotent: false,
            subject,
            not_found_hint: "",
            range: None,
        }
    }

    pub fn not_found_hint(mut self, hint: &'a str) -> Self {
        self.not_found_hint = hint;
        self
    }

    pub fn range(mut self, range: Option<String>) -> Self {
        self.range = range;
        self
    }

    pub fn idempotent(mut self, yes: bool) -> Self {
        self.idempotent = yes;
        self
    }
}

/// A successful answer (2xx, or a 304 turned back into the cached 200).
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub headers: HeaderMap,
    pub body: Bytes,
    /// Served from the ETag cache after a 304.
    pub from_cache: bool,
    /// "GitHub (GET https://...)", for messages about the body.
    origin: String,
}

impl Response {
    /// The body as `T`, telling garbage apart from JSON of an unexpected shape.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T> {
        parse_json(&self.body, &self.origin)
    }

    /// Whether a list page may have a successor. The `Link` header says so, except after a
    /// 304: forges compute ETags from the body alone, so a full page that gained a successor
    /// revalidates as unchanged and the cached `Link` still says "last page". A full page
    /// served from the cache is therefore taken as possibly followed by more (at worst one
    /// extra, empty page).
    pub fn may_have_next(&self, items: usize, per_page: usize) -> bool {
        self.has_next_link() || (self.from_cache && items >= per_page)
    }

    /// Whether the `Link` header has `rel="next"`.
    pub fn has_next_link(&self) -> bool {
        self.headers
            .get_all(LINK)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| link_rels(v).iter().any(|(rel, _)| rel == "next"))
    }
}

pub(crate) fn parse_json<T: DeserializeOwned>(body: &[u8], origin: &str) -> Result<T> {
    serde_json::from_slice(body).map_err(|e| {
        let error = if e.is_data() {
            format!("{origin} returned JSON of an unexpected shape: {e}")
        } else {
            format!("{origin} returned a response that is not valid JSON ({e})")
        };
        Error::api(error)
            .with_detail("body_start", snippet(body))
            .with_suggestion(
                "Retry later; if it persists, a proxy or an incompatible forge version may be \
                 answering instead of the API.",
            )
    })
}

/// The HTTP client of one forge endpoint. Cheap to share: clone the `Arc` around it.
pub(crate) struct Http {
    client: reqwest::Client,
    /// For downloads (job logs, artifacts): follows no redirect (the client decides where
    /// its token goes), sends no default headers, and bounds each read instead of the
    /// whole transfer, so a large log can stream for as long as it keeps arriving.
    raw: reqwest::Client,
    /// The default headers of `client`, added to API requests made with `raw`.
    api_headers: HeaderMap,
    cache: EtagCache,
    retry: RetryPolicy,
    /// "GitHub", "Forgejo", ..., for messages.
    forge: String,
    /// What to do when the forge rejects the token (401/403), e.g. which variable to set.
    auth_hint: String,
}

impl fmt::Debug for Http {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Http")
            .field("forge", &self.forge)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// ring instead of aws-lc-rs: same security for our purposes, far quicker to build. Installing
/// it only when nobody else has chosen a provider keeps an embedding program in charge.
fn ensure_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Losing a race with another installer is fine: any provider will do.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}

impl Http {
    pub fn new(
        forge: impl Into<String>,
        default_headers: HeaderMap,
        options: &ClientOptions,
        auth_hint: impl Into<String>,
    ) -> Result<Http> {
        ensure_crypto_provider();
        let setup = |e: reqwest::Error| {
            Error::unknown(format!(
                "cannot set up the HTTP client: {}",
                error_chain(&e)
            ))
        };
        let client = reqwest::Client::builder()
            .user_agent(concat!("resolve-pr/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .default_headers(default_headers.clone())
            .build()
            .map_err(setup)?;
        let raw = reqwest::Client::builder()
            .user_agent(concat!("resolve-pr/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(options.connect_timeout)
            .read_timeout(options.request_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(setup)?;
        Ok(Http {
            client,
            raw,
            api_headers: default_headers,
            cache: EtagCache::new(512),
            retry: options.retry.clone(),
            forge: forge.into(),
            auth_hint: auth_hint.into(),
        })
    }

    pub fn forge(&self) -> &str {
        &self.forge
    }

    /// The `Authorization` header `"{scheme} {token}"`, marked sensitive so it never shows
    /// in `Debug` output.
    pub fn auth(&self, scheme: &str, token: &Secret) -> Result<Auth> {
        let mut header =
            HeaderValue::from_str(&format!("{scheme} {}", token.expose())).map_err(|_| {
                Error::authentication(format!(
                    "the {} token contains characters that cannot be sent in an HTTP header",
                    self.forge
                ))
                .with_suggestion(format!(
                    "Check for stray quotes or line breaks in the token. {}",
                    self.auth_hint
                ))
            })?;
        header.set_sensitive(true);
        let identity = self.cache.hasher.hash_one(token.expose());
        Ok(Auth { header, identity })
    }

    /// Sends the request, retrying what is safe to retry within the policy's bounds.
    pub async fn send(&self, req: &Request<'_>) -> Result<Response> {
        self.send_checked(req, Ok).await
    }

    /// Like [`Http::send`], with `check` run on each successful answer inside the retry loop:
    /// an answer `check` calls transient (a `Failure` that may be retried, such as a GraphQL
    /// timeout in a 200) is retried like a 5xx, within the same bounds.
    pub(crate) async fn send_checked<T>(
        &self,
        req: &Request<'_>,
        check: impl Fn(Response) -> std::result::Result<T, Box<Failure>>,
    ) -> Result<T> {
        let check = &check;
        self.retrying(req, || async move {
            let response = self.attempt(req).await?;
            if response.from_cache {
                tracing::trace!(url = %req.url, "not modified; served from the ETag cache");
            }
            check(response).map_err(|failure| *failure)
        })
        .await
    }

    /// Runs `attempt` until it succeeds or the policy says stop.
    async fn retrying<T, F, Fut>(&self, req: &Request<'_>, mut attempt: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = std::result::Result<T, Failure>>,
    {
        let mut delays = self.retry.backoff();
        let mut slept = Duration::ZERO;
        let mut retries = 0u32;
        loop {
            let failure = match attempt().await {
                Ok(done) => return Ok(done),
                Err(failure) => failure,
            };
            let retryable = match failure.retry {
                Retry::No => false,
                Retry::IfIdempotent => req.idempotent,
                Retry::Always => true,
            };
            if !retryable {
                return Err(failure.error);
            }
            let wait = match failure.wait {
                Some(wait) => wait,
                None => match delays.next() {
                    Some(delay) => delay,
                    None => return Err(failure.error),
                },
            };
            // Saturating: a forge may ask for an absurd wait (retry-after: 2^64-1); that is
            // "over the bound", never an overflow.
            if retries >= self.retry.max_retries
                || slept.saturating_add(wait) > self.retry.max_total_wait
            {
                return Err(failure.error);
            }
            tracing::debug!(
                forge = %self.forge,
                method = %req.method,
                url = %req.url,
                wait_ms = wait.as_millis() as u64,
                error = %failure.error,
                "retrying"
            );
            tokio::time::sleep(wait).await;
            slept = slept.saturating_add(wait);
            retries += 1;
        }
    }

    async fn attempt(&self, req: &Request<'_>) -> std::result::Result<Response, Failure> {
        let identity = req.auth.map(|a| a.identity).unwrap_or(0);
        let cached = (req.method == Method::GET)
            .then(|| self.cache.get(identity, &req.url))
            .flatten();
        let mut builder = self.client.request(req.method.clone(), &req.url);
        if let Some(auth) = req.auth {
            builder = builder.header(AUTHORIZATION, auth.header.clone());
        }
        if let Some(body) = req.body {
            builder = builder
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_string());
        }
        if let Some(entry) = &cached {
            if let Some(etag) = &entry.etag {
                builder = builder.header(IF_NONE_MATCH, etag.clone());
            }
            if let Some(modified) = &entry.last_modified {
                builder = builder.header(IF_MODIFIED_SINCE, modified.clone());
            }
        }
        let ctx = self.context(req);
        let response = builder
            .send()
            .await
            .map_err(|e| transport_failure(&e, &ctx, false))?;
        let status = response.status();
        let headers = response.headers().clone();
        if status == StatusCode::NOT_MODIFIED
            && let Some(entry) = cached
        {
            // Drain the (empty) body so the connection goes back to the pool.
            let _ = response.bytes().await;
            return Ok(Response {
                headers: entry.headers.clone(),
                body: entry.body.clone(),
                from_cache: true,
                origin: ctx.origin(),
            });
        }
        let body = response
            .bytes()
            .await
            .map_err(|e| transport_failure(&e, &ctx, true))?;
        if !status.is_success() {
            return Err(classify_status(
                status.as_u16(),
                &headers,
                &body,
                &ctx,
                SystemTime::now(),
            ));
        }
        // Every API answer is JSON. A 2xx that is not (a proxy's error page, a body cut by a
        // load balancer) is a transient fault like a 502: retried when the request may be
        // repeated, and never cached, or revalidation would serve it again.
        if !body.trim_ascii().is_empty()
            && let Err(error) = parse_json::<serde::de::IgnoredAny>(&body, &ctx.origin())
        {
            return Err(Failure {
                error,
                retry: Retry::IfIdempotent,
                wait: None,
            });
        }
        if req.method == Method::GET {
            self.cache.put(identity, &req.url, &headers, &body);
        } else {
            // A write changes what reads of the same collection return; drop them rather
            // than rely on every forge changing its ETag.
            self.cache.invalidate_prefix(&req.url);
        }
        Ok(Response {
            headers,
            body,
            from_cache: false,
            origin: ctx.origin(),
        })
    }

    /// A GET on the API that may answer with a redirect to storage on another host (job
    /// logs, artifact archives): the redirect is not followed here, so the token stays with
    /// the API, and the body of a direct answer is not read.
    pub async fn locate(&self, req: &Request<'_>) -> Result<Located> {
        self.retrying(req, || async {
            let mut builder = self.raw.get(&req.url).headers(self.api_headers.clone());
            if let Some(auth) = req.auth {
                builder = builder.header(AUTHORIZATION, auth.header.clone());
            }
            if let Some(range) = &req.range {
                builder = builder.header(reqwest::header::RANGE, range.clone());
            }
            let ctx = self.context(req);
            let response = builder
                .send()
                .await
                .map_err(|e| transport_failure(&e, &ctx, false))?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| url::Url::parse(&req.url).ok()?.join(v).ok());
                return match location {
                    Some(url) => Ok(Located::Redirect(url.to_string())),
                    None => Err(Failure::fatal(ctx.base(
                        Error::api(format!(
                            "{} answered {status} without a usable Location for {}",
                            ctx.forge, ctx.subject
                        )),
                        Some(status.as_u16()),
                    ))),
                };
            }
            if status.is_success() {
                return Ok(Located::Direct(response));
            }
            let headers = response.headers().clone();
            let body = response
                .bytes()
                .await
                .map_err(|e| transport_failure(&e, &ctx, true))?;
            Err(classify_status(
                status.as_u16(),
                &headers,
                &body,
                &ctx,
                SystemTime::now(),
            ))
        })
        .await
    }

    /// A GET to a download URL the API redirected to, without our token (it belongs to the
    /// API host only), optionally for a byte range; the body is left unread for streaming.
    /// Errors name `storage` (e.g. "the log storage (blob.example:443)") and never show the
    /// URL's query, which on signed URLs is a credential.
    pub async fn download(
        &self,
        url: &str,
        range: Option<&str>,
        storage: &str,
        subject: &str,
    ) -> Result<reqwest::Response> {
        let shown = url.split('?').next().unwrap_or(url).to_owned();
        let req = Request::get(shown, None, subject);
        self.retrying(&req, || async {
            let mut builder = self.raw.get(url);
            if let Some(range) = range {
                builder = builder.header(reqwest::header::RANGE, range);
            }
            let ctx = ErrorContext {
                forge: storage,
                ..self.context(&req)
            };
            // reqwest's error text includes the URL, whose query is the storage credential.
            let response = builder
                .send()
                .await
                .map_err(|e| transport_failure(&e.without_url(), &ctx, false))?;
            let status = response.status();
            if status.is_success() {
                return Ok(response);
            }
            let headers = response.headers().clone();
            let body = response
                .bytes()
                .await
                .map_err(|e| transport_failure(&e.without_url(), &ctx, true))?;
            Err(classify_status(
                status.as_u16(),
                &headers,
                &body,
                &ctx,
                SystemTime::now(),
            ))
        })
        .await
    }

    fn context<'r>(&'r self, req: &'r Request<'r>) -> ErrorContext<'r> {
        ErrorContext {
            forge: &self.forge,
            method: req.method.as_str(),
            url: &req.url,
            subject: req.subject,
            not_found_hint: req.not_found_hint,
            auth_hint: &self.auth_hint,
        }
    }
}

/// Where a download lives: the API redirected there, or answered with the content itself.
pub(crate) enum Located {
    Redirect(String),
    Direct(reqwest::Response),
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
    fn origin(&self) -> String {
        format!("{} ({} {})", self.forge, self.method, self.url)
    }

    fn base(&self, error: Error, status: Option<u16>) -> Error {
        let error = error
            .with_detail("method", self.method)
            .with_detail("url", self.url);
        match status {
            Some(s) => error.with_detail("status", s),
            None => error,
        }
    }
}

/// Whether a failed attempt may be tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retry {
    No,
    /// The forge may have acted on the request (5xx, broken connection after sending).
    IfIdempotent,
    /// The forge certainly did not act on it (could not connect, rate-limited).
    Always,
}

#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub error: Error,
    pub retry: Retry,
    /// The wait the forge asked for; `None` means use the backoff schedule.
    pub wait: Option<Duration>,
}

impl Failure {
    pub(crate) fn fatal(error: Error) -> Self {
        Failure {
            error,
            retry: Retry::No,
            wait: None,
        }
    }
}

fn transport_failure(e: &reqwest::Error, ctx: &ErrorContext<'_>, reading_body: bool) -> Failure {
    let cause = error_chain(e);
    if e.is_timeout() {
        // Not retried: a forge that needed 30 s once will likely need it again, and the
        // agent is better served by an answer now than by minutes of silence.
        return Failure::fatal(
            ctx.base(
                Error::timeout(format!(
                    "{} did not answer {} in time ({} {})",
                    ctx.forge, ctx.subject, ctx.method, ctx.url
                )),
                None,
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
            error: ctx.base(
                Error::network(format!("cannot connect to {} at {}: {cause}", ctx.forge, ctx.url)),
                None,
            )
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
        Error::network(format!(
            "{what} from {} ({} {}): {cause}",
            ctx.forge, ctx.method, ctx.url
        )),
        None,
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

/// Turns a non-2xx answer into a categorized error and says whether and when to retry,
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
                .base(
                    Error::rate_limit(format!(
                        "{} {kind} exceeded while requesting {}: {message}",
                        ctx.forge, ctx.subject
                    )),
                    Some(status),
                )
                .with_retry_after(retry_after_secs)
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
            ctx.base(
                Error::authentication(format!(
                    "{} rejected the token (401 Unauthorized) while requesting {}: {message}",
                    ctx.forge, ctx.subject
                )),
                Some(status),
            )
            .with_suggestion(format!(
                "The token is invalid, expired or revoked. {}",
                ctx.auth_hint
            )),
        ),
        403 => {
            let mut error = ctx
                .base(
                    Error::authentication(format!(
                        "the token has no access to {} on {} (403 Forbidden): {message}",
                        ctx.subject, ctx.forge
                    )),
                    Some(status),
                )
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
                ctx.base(
                    Error::user(format!("{} not found on {}", ctx.subject, ctx.forge)),
                    Some(status),
                )
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
                ctx.base(
                    Error::user(format!(
                        "{} rejected the request for {}: {message}{errors}",
                        ctx.forge, ctx.subject
                    )),
                    Some(status),
                )
                .with_suggestion("Fix the request as the forge's message says and call again."),
            )
        }
        s if s >= 500 => {
            let mut error = ctx
                .base(
                    Error::api(format!(
                        "{} failed with {s} {} while handling {}: {message}",
                        ctx.forge,
                        reason(s),
                        ctx.subject
                    )),
                    Some(status),
                )
                .with_suggestion(if ctx.method == "GET" {
                    "The forge had a transient problem; retry in a minute.".to_owned()
                } else {
                    format!(
                        "The forge may or may not have applied the write: check {} before \
                         repeating it.",
                        ctx.subject
                    )
                });
            if let Some(secs) = retry_after {
                error = error.with_retry_after(secs);
            }
            let error = with_doc(error);
            return Failure {
                error,
                retry: Retry::IfIdempotent,
                wait: retry_after.map(Duration::from_secs),
            };
        }
        s => with_doc(
            ctx.base(
                Error::api(format!(
                    "{} answered {s} {} for {}: {message}",
                    ctx.forge,
                    reason(s),
                    ctx.subject
                )),
                Some(status),
            )
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

/// The error and its causes on one line: reqwest's own message hides the interesting part
/// ("connection refused") in its sources.
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

/// The `(rel, url)` pairs of one `Link` header value (RFC 8288), as GitHub and Gitea send
/// them: `<https://...?page=2>; rel="next", <...>; rel="last"`.
pub(crate) fn link_rels(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find('<') {
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        let url = &rest[start + 1..start + end];
        let after = &rest[start + end + 1..];
        // Parameters run up to the next link, which starts at the next '<'.
        let params_end = after.find('<').unwrap_or(after.len());
        for param in after[..params_end].split(';') {
            let param = param.trim().trim_end_matches(',').trim();
            if let Some((name, val)) = param.split_once('=')
                && name.trim().eq_ignore_ascii_case("rel")
            {
                // `rel` may hold several space-separated relation types.
                for rel in val.trim().trim_matches('"').split_whitespace() {
                    out.push((rel.to_ascii_lowercase(), url.to_owned()));
                }
            }
        }
        rest = &after[params_end..];
    }
    out
}

/// A GET answer kept for revalidation.
#[derive(Debug, Clone)]
struct CachedEntry {
    etag: Option<HeaderValue>,
    last_modified: Option<HeaderValue>,
    headers: HeaderMap,
    body: Bytes,
    last_used: u64,
}

/// ETag cache keyed by (URL, token identity), always revalidated.
///
/// Why not `http-cache-reqwest`: its stable 0.16 line (reqwest 0.12) does not send a
/// conditional request in its always-revalidate mode and answers any revalidation status
/// other than 200/304 (401, 404, 429, 5xx) with the stale body, which would hide rate limits
/// and revoked access from our retry and error logic; the 1.0 line that fixes this is an
/// alpha and needs Rust 1.89 (the workspace supports 1.88). GitHub marks answers
/// `private, max-age=60`, and serving them fresh for 60 s would hide a comment just created,
/// so every read goes to the forge with `If-None-Match`; a 304 costs no rate limit.
struct EtagCache {
    entries: Mutex<HashMap<(u64, String), CachedEntry>>,
    capacity: usize,
    clock: std::sync::atomic::AtomicU64,
    hasher: RandomState,
}

impl EtagCache {
    fn new(capacity: usize) -> Self {
        EtagCache {
            entries: Mutex::new(HashMap::new()),
            capacity,
            clock: std::sync::atomic::AtomicU64::new(0),
            hasher: RandomState::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, String), CachedEntry>> {
        // A poisoned lock means a panic elsewhere mid-update; the map is still usable.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn tick(&self) -> u64 {
        self.clock
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    fn get(&self, identity: u64, url: &str) -> Option<CachedEntry> {
        let tick = self.tick();
        let mut entries = self.lock();
        let entry = entries.get_mut(&(identity, url.to_owned()))?;
        entry.last_used = tick;
        Some(entry.clone())
    }

    fn put(&self, identity: u64, url: &str, headers: &HeaderMap, body: &Bytes) {
        let etag = headers.get(ETAG).cloned();
        let last_modified = headers.get(LAST_MODIFIED).cloned();
        let key = (identity, url.to_owned());
        let mut entries = self.lock();
        if etag.is_none() && last_modified.is_none() {
            // Nothing to revalidate with; an old entry would only go stale.
            entries.remove(&key);
            return;
        }
        if entries.len() >= self.capacity
            && !entries.contains_key(&key)
            && let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone())
        {
            entries.remove(&oldest);
        }
        let last_used = self.tick();
        entries.insert(
            key,
            CachedEntry {
                etag,
                last_modified,
                headers: headers.clone(),
                body: body.clone(),
                last_used,
            },
        );
    }

    fn invalidate_prefix(&self, url: &str) {
        let base = url.split('?').next().unwrap_or(url);
        self.lock()
            .retain(|(_, cached), _| !cached.starts_with(base));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn link_header_rels() {
        let v = r#"<https://api.github.com/repositories/1/issues/2/comments?page=2&per_page=1>; rel="next", <https://api.github.com/repositories/1/issues/2/comments?page=5&per_page=1>; rel="last""#;
        let rels = link_rels(v);
        assert_eq!(
            rels,
            vec![
                (
                    "next".to_owned(),
                    "https://api.github.com/repositories/1/issues/2/comments?page=2&per_page=1"
                        .to_owned()
                ),
                (
                    "last".to_owned(),
                    "https://api.github.com/repositories/1/issues/2/comments?page=5&per_page=1"
                        .to_owned()
                ),
            ]
        );
        assert!(
            link_rels(r#"<a?x=1,2>; rel="prev first""#)
                .contains(&("first".into(), "a?x=1,2".into()))
        );
        assert!(link_rels(r#"<a>;rel=next"#).contains(&("next".into(), "a".into())));
        assert!(link_rels("").is_empty());
        assert!(link_rels("garbage <unterminated").is_empty());
        assert!(
            !link_rels(r#"<a>; rel="prev""#)
                .iter()
                .any(|(r, _)| r == "next")
        );
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
        assert_eq!(f.error.category, resolve_pr_core::Category::User);
        assert_eq!(f.error.error, "pull request o/r#1 not found on GitHub");
        assert_eq!(
            f.error.documentation_url.as_deref(),
            Some("https://docs.github.com/rest")
        );
        assert!(f.error.suggestion.is_some());
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
        assert_eq!(f.error.category, resolve_pr_core::Category::Authentication);
        assert!(
            f.error.error.contains("rejected the token"),
            "{}",
            f.error.error
        );
        assert!(f.error.suggestion.unwrap().contains("GITHUB_TOKEN"));

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
        assert_eq!(f.error.category, resolve_pr_core::Category::Authentication);
        assert!(
            f.error
                .error
                .contains("has no access to pull request o/r#1")
        );
        assert_eq!(
            f.error.details.unwrap()["accepted_permissions"],
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
        assert_eq!(f.error.category, resolve_pr_core::Category::RateLimit);
        assert_eq!(f.wait, Some(Duration::from_secs(31)));
        assert_eq!(f.error.retry_after, Some(31));
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
        assert_eq!(f.error.category, resolve_pr_core::Category::RateLimit);
        assert_eq!(f.wait, Some(Duration::from_secs(7)));
        assert!(f.error.error.contains("secondary rate limit"));

        let h = headers(&[("x-ratelimit-remaining", "100")]);
        let f = classify_status(
            403,
            &h,
            br#"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes"}"#,
            &ctx(),
            at(0),
        );
        assert_eq!(f.wait, Some(Duration::from_secs(60)));
        assert_eq!(f.error.retry_after, Some(60));

        // A bare 429 (a proxy in front of Forgejo) backs off on our schedule.
        let f = classify_status(429, &HeaderMap::new(), b"", &ctx(), at(0));
        assert_eq!(
            (f.error.category, f.wait),
            (resolve_pr_core::Category::RateLimit, None)
        );
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
        assert_eq!(f.error.category, resolve_pr_core::Category::Api);
        assert_eq!(f.retry, Retry::IfIdempotent);
        assert_eq!(f.error.details.as_ref().unwrap()["status"], 502);
    }

    #[test]
    fn validation_and_other_client_errors() {
        let f = classify_status(422, &HeaderMap::new(), br#"{"message":"Validation Failed","errors":[{"resource":"IssueComment","field":"body","code":"missing_field"}]}"#, &ctx(), at(0));
        assert_eq!(f.error.category, resolve_pr_core::Category::User);
        assert!(
            f.error
                .error
                .contains("Validation Failed (body: missing_field)"),
            "{}",
            f.error.error
        );

        let f = classify_status(
            410,
            &HeaderMap::new(),
            br#"{"message":"Issues are disabled for this repo"}"#,
            &ctx(),
            at(0),
        );
        assert_eq!(f.error.category, resolve_pr_core::Category::Api);
        assert_eq!(f.error.details.unwrap()["status"], 410);
    }

    #[test]
    fn garbage_is_not_json() {
        let e = parse_json::<Value>(b"<html>", "GitHub (GET x)").unwrap_err();
        assert_eq!(e.category, resolve_pr_core::Category::Api);
        assert!(e.error.contains("not valid JSON"));
        let e = parse_json::<Vec<u8>>(b"{}", "GitHub (GET x)").unwrap_err();
        assert!(e.error.contains("unexpected shape"));
    }

    #[test]
    fn cache_keys_include_the_token_and_evict_oldest() {
        let cache = EtagCache::new(2);
        let h = headers(&[("etag", "\"a\"")]);
        cache.put(1, "u1", &h, &Bytes::from_static(b"one"));
        assert!(cache.get(2, "u1").is_none());
        assert!(cache.get(1, "u1").is_some());
        cache.put(1, "u2", &h, &Bytes::from_static(b"two"));
        assert!(
            cache.get(1, "u1").is_some(),
            "touching u1 makes u2 the oldest"
        );
        cache.put(1, "u3", &h, &Bytes::from_static(b"three"));
        assert!(
            cache.get(1, "u2").is_none(),
            "least recently used goes first"
        );
        assert!(cache.get(1, "u1").is_some());
        cache.invalidate_prefix("u1?x");
        assert!(cache.get(1, "u1").is_none());
        cache.put(
            1,
            "u4",
            &HeaderMap::new(),
            &Bytes::from_static(b"no validator"),
        );
        assert!(cache.get(1, "u4").is_none());
    }
}

#[cfg(test)]
mod signed_urls {
    use super::*;

    /// A storage URL's query is its credential (Azure SAS, S3 signatures): a failed
    /// download must not show it.
    #[tokio::test]
    async fn a_failed_download_never_shows_the_signed_query() {
        let mut options = ClientOptions::default();
        options.retry.max_retries = 0;
        let http = Http::new("GitHub", HeaderMap::new(), &options, "hint").expect("client");
        // Port 1 on localhost: connection refused.
        let url = "http://127.0.0.1:1/logs/job.txt?sv=2021&sig=SECRET_SIGNATURE";
        let err = http
            .download(
                url,
                None,
                "the download storage (127.0.0.1:1)",
                "the log of job 1",
            )
            .await
            .expect_err("nothing listens there");
        let shown = format!("{} {}", err, err.to_json());
        assert!(!shown.contains("SECRET_SIGNATURE"), "{shown}");
        assert!(shown.contains("127.0.0.1:1"), "{shown}");
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
