//! The one HTTP layer both forge clients use: a shared reqwest client (rustls, timeouts,
//! User-Agent), an ETag cache so repeated reads are conditional (`etag`), bounded retries with
//! jittered backoff and rate-limit waits (`retry`), `Link` paging (`links`), and the mapping of
//! every failure to a [`crate::Error`] that says what happened (`status`). Tokens go in as
//! sensitive header values and never come out.

mod etag;
mod links;
mod retry;
mod status;

use std::fmt;
use std::hash::BuildHasher;
use std::sync::{Arc, Once};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use reqwest::header::{
    AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, IF_MODIFIED_SINCE, IF_NONE_MATCH, LINK,
};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::config::Secret;
use crate::{Error, Result};
use etag::EtagCache;
use links::link_rels;
pub use retry::RetryPolicy;
pub(crate) use retry::{Failure, Retry};
use status::{ErrorContext, classify_status, transport_failure};
pub(crate) use status::{UrlFree, error_chain, parse_json, strip_queries};

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
    /// GitHub only: how long `merge_facts` waits before asking once more while GitHub is
    /// still computing whether a pull request can merge (`mergeable: UNKNOWN`).
    pub mergeable_wait: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            env: Arc::new(|name| std::env::var(name).ok()),
            gh_cli: true,
            mergeable_wait: Duration::from_secs(2),
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
            .field("mergeable_wait", &self.mergeable_wait)
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

    /// A PATCH: a write, so never repeated once it may have reached the forge.
    pub fn patch(url: String, auth: Option<&'a Auth>, body: &'a Value, subject: &'a str) -> Self {
        Request {
            method: Method::PATCH,
            ..Request::post(url, auth, body, subject)
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
            Error::setup(format!(
                "cannot set up the HTTP client: {}",
                error_chain(&e)
            ))
            .caused_by(&e)
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
                Error::auth(
                    None,
                    format!(
                        "the {} token contains characters that cannot be sent in an HTTP header",
                        self.forge
                    ),
                )
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
                    None => Err(Failure::fatal(ctx.base(Error::status(
                        status.as_u16(),
                        None,
                        format!(
                            "{} answered {status} without a usable Location for {}",
                            ctx.forge, ctx.subject
                        ),
                    )))),
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

#[cfg(test)]
mod tests {
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
        let shown = format!(
            "{} {}",
            err,
            resolve_pr_core::Error::from(err.clone()).to_json()
        );
        assert!(!shown.contains("SECRET_SIGNATURE"), "{shown}");
        assert!(shown.contains("127.0.0.1:1"), "{shown}");
    }
}
