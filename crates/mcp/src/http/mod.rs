//! `serve --http`: the same server over MCP's streamable-HTTP transport (rmcp's
//! `StreamableHttpService` in stateless mode), routed by axum beside `/healthz` and `/readyz`.
//!
//! Every request to `/mcp` carries its caller's forge token (`Authorization: Bearer …`), which
//! becomes that request's `Credential` and nothing else's; nothing about a caller outlives
//! its request, so instances can sit behind any load balancer. Host and Origin are checked
//! against DNS rebinding; shutdown drains the calls in flight. A hostile client cannot hold
//! the server: connections are limited below the descriptor limit (`listener`), and a request
//! head and body must each arrive within a deadline (`listener`, `body`).

mod body;
mod listener;

pub use listener::raise_descriptor_limit;

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use resolve_pr_tools::{Credential, Secret};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::message::MAX_MESSAGE_BYTES;
use crate::{Error, Server};

/// The path MCP is served at.
pub const MCP_PATH: &str = "/mcp";

/// Host names every server answers to: the loopback names a local client uses.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Origins accepted when the operator named none: pages served from this machine.
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// How long hyper may take to close connections after the drain, before the process exits
/// anyway (a client that keeps a connection open must not hold the shutdown).
const CLOSE_CONNECTIONS: Duration = Duration::from_secs(5);

/// What `serve --http` was asked for.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Where to listen; port 0 lets the system pick one.
    pub listen: SocketAddr,
    /// Host names (or `host:port`) clients reach the server by, besides the loopback names.
    /// Required when `listen` is not a loopback address.
    pub allowed_hosts: Vec<String>,
    /// Browser origins (`scheme://host[:port]`, `:*` for any port) whose pages may call the
    /// server. None given: only loopback origins; requests without `Origin` always pass.
    pub allowed_origins: Vec<String>,
    /// Requests without `Authorization` use the server's own credential (config, environment,
    /// `gh`) instead of being refused.
    pub allow_server_token: bool,
    /// How long shutdown waits for calls in flight.
    pub shutdown_grace: Duration,
    /// How long a client may take to send a request's head, counted from the connection's
    /// start and, on a kept-alive connection, from the previous response: idle connections
    /// close after it too.
    pub header_timeout: Duration,
    /// How long an MCP request's body may take to arrive, counted from the end of its head.
    pub body_timeout: Duration,
    /// The most connections open at once; more are answered 503 and closed. `None`: derived
    /// from the process's descriptor limit (see `listener::connections_within`).
    pub max_connections: Option<usize>,
}

impl HttpOptions {
    /// Listening on `listen` with the defaults: loopback hosts and origins, callers' tokens
    /// required, 30 s grace, 10 s for a request head, 30 s for a body, connections limited by
    /// the descriptor limit.
    pub fn new(listen: SocketAddr) -> HttpOptions {
        HttpOptions {
            listen,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            allow_server_token: false,
            shutdown_grace: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: None,
        }
    }

    /// Every problem with the options at once.
    fn check(&self) -> Result<(), Error> {
        let mut problems = Vec::new();
        if !self.listen.ip().is_loopback() && self.allowed_hosts.is_empty() {
            problems.push(format!(
                "{} is not a loopback address, so serving on it needs --allowed-host NAME for \
                 every host name clients use to reach this server: without it a web page could \
                 reach the server through DNS rebinding (the MCP specification's advice for HTTP \
                 servers is to validate Host and bind locally otherwise)",
                self.listen
            ));
        }
        for host in &self.allowed_hosts {
            if axum::http::uri::Authority::try_from(host.trim()).is_err() || host.contains('/') {
                problems.push(format!(
                    "--allowed-host {host:?} is not a host name or host:port (e.g. mcp.example.com)"
                ));
            }
        }
        for origin in &self.allowed_origins {
            if !origin_is_well_formed(origin) {
                problems.push(format!(
                    "--allowed-origin {origin:?} is not an origin: give scheme://host[:port], \
                     :* for any port (e.g. https://app.example.com:443 or http://localhost:*)"
                ));
            }
        }
        if self.header_timeout.is_zero() || self.body_timeout.is_zero() {
            problems.push(
                "--header-timeout and --body-timeout must be longer than 0 seconds".to_owned(),
            );
        }
        if self.max_connections == Some(0) {
            problems.push("--max-connections must be at least 1".to_owned());
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::HttpOptions(problems))
        }
    }

    fn hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect();
        hosts.extend(self.allowed_hosts.iter().map(|h| h.trim().to_owned()));
        hosts
    }

    fn origins(&self) -> Vec<String> {
        if self.allowed_origins.is_empty() {
            LOOPBACK_ORIGINS.iter().map(|o| (*o).to_owned()).collect()
        } else {
            self.allowed_origins
                .iter()
                .map(|o| o.trim().to_owned())
                .collect()
        }
    }
}

/// `scheme://host[:port|:*]` with nothing after the authority, as rmcp's origin check reads it.
fn origin_is_well_formed(origin: &str) -> bool {
    let origin = origin.trim();
    let base = origin.strip_suffix(":*").unwrap_or(origin);
    let Ok(uri) = axum::http::Uri::try_from(base) else {
        return false;
    };
    uri.scheme().is_some()
        && uri.authority().is_some()
        && uri
            .path_and_query()
            .is_none_or(|p| p.as_str().is_empty() || p.as_str() == "/")
        && !(origin.ends_with(":*") && uri.port().is_some())
}

/// Whose credential an MCP request over HTTP carries, set by the auth middleware before rmcp
/// sees the request, read by the handler from the request's `http::request::Parts`.
#[derive(Clone, Debug)]
pub(crate) struct CallerCredential(pub Credential);

/// Who a call comes from, as the handler sees it.
pub(crate) enum Caller {
    /// Not over HTTP (stdio, in-process): the server's own credential.
    Local,
    /// Over HTTP, with this credential.
    Http(Credential),
    /// Over HTTP but without a credential: never served (the middleware always sets one).
    Unauthenticated,
}

pub(crate) fn caller(extensions: &rmcp::model::Extensions) -> Caller {
    match extensions.get::<axum::http::request::Parts>() {
        None => Caller::Local,
        Some(parts) => match parts.extensions.get::<CallerCredential>() {
            Some(CallerCredential(credential)) => Caller::Http(credential.clone()),
            None => Caller::Unauthenticated,
        },
    }
}

/// State the routes share: whether shutdown began, and the calls in flight.
struct Shared {
    allow_server_token: bool,
    body_timeout: Duration,
    draining: AtomicBool,
    in_flight: watch::Sender<usize>,
}

impl Shared {
    fn begin_call(self: &Arc<Self>) -> InFlight {
        self.in_flight.send_modify(|n| *n += 1);
        InFlight(self.clone())
    }
}

/// One request to `/mcp` until its response body is done (an SSE stream ends with the call).
struct InFlight(Arc<Shared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// A response body that counts as a call in flight until it has been sent.
struct CountedBody {
    inner: Body,
    _call: InFlight,
}

impl axum::body::HttpBody for CountedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The server bound to its address, not yet serving.
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    router: Router,
    shared: Arc<Shared>,
    grace: Duration,
    header_timeout: Duration,
    max_connections: usize,
    rmcp_stop: CancellationToken,
}

impl HttpServer {
    /// Checks the options (every problem at once) and binds the address. Tasks are not
    /// offered over HTTP: rmcp's task store is per process, which a stateless server behind a
    /// load balancer cannot share, and it would let one token poll another's task; long calls
    /// report progress on the request's SSE stream instead. Callers are remote: `directory`,
    /// the server's working directory and pushes (the server's git credentials) are theirs
    /// to use only on their own machine.
    pub async fn bind(server: Server, options: HttpOptions) -> Result<HttpServer, Error> {
        options.check()?;
        if options.allow_server_token && !options.listen.ip().is_loopback() {
            tracing::warn!(
                listen = %options.listen,
                "--allow-server-token on an address other machines reach: anyone who can send \
                 a request without a token acts with the server's own forge token"
            );
        }
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| Error::Bind {
                address: options.listen,
                reason: e.to_string(),
            })?;
        let max_connections = connection_limit(options.max_connections);
        tracing::debug!(
            max_connections,
            header_timeout_seconds = options.header_timeout.as_secs_f64(),
            body_timeout_seconds = options.body_timeout.as_secs_f64(),
            max_body_bytes = MAX_MESSAGE_BYTES,
            "HTTP limits"
        );
        let shared = Arc::new(Shared {
            allow_server_token: options.allow_server_token,
            body_timeout: options.body_timeout,
            draining: AtomicBool::new(false),
            in_flight: watch::Sender::new(0),
        });
        let rmcp_stop = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_allowed_hosts(options.hosts())
            .with_allowed_origins(options.origins())
            // Bodies reach rmcp through `body::read_message`, which holds them to this limit.
            .with_max_request_body_bytes(MAX_MESSAGE_BYTES)
            .with_cancellation_token(rmcp_stop.clone());
        let server = server.for_remote_callers();
        let mcp = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        let router = Router::new()
            .route_service(MCP_PATH, mcp)
            // The last layer runs first: admit, then read the body.
            .route_layer(middleware::from_fn_with_state(
                shared.clone(),
                body::read_message,
            ))
            .route_layer(middleware::from_fn_with_state(shared.clone(), admit))
            .route("/healthz", get(|| async { "ok\n" }))
            .route("/readyz", get(readiness))
            .with_state(shared.clone());
        Ok(HttpServer {
            listener,
            router,
            shared,
            grace: options.shutdown_grace,
            header_timeout: options.header_timeout,
            max_connections,
            rmcp_stop,
        })
    }

    /// The address it listens on (the system's choice for port 0).
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        self.listener
            .local_addr()
            .map_err(|e| Error::Transport(format!("cannot read the listening address: {e}")))
    }

    /// The URL clients connect to, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> Result<String, Error> {
        let address = self.local_addr()?;
        Ok(format!("http://{address}{MCP_PATH}"))
    }

    /// Serves until `shutdown` resolves, then drains: new MCP requests get 503 and `/readyz`
    /// answers 503, calls in flight finish (at most the grace period), and it returns.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) -> Result<(), Error> {
        let HttpServer {
            listener,
            router,
            shared,
            grace,
            header_timeout,
            max_connections,
            rmcp_stop,
        } = self;
        let mut accepting = listener::Accepting::start(
            listener,
            listener::Connections {
                router,
                header_timeout,
                max_connections,
            },
        );
        tokio::select! {
            // The accept loop survives every accept error; it ends only if it panicked.
            why = accepting.ended() => return Err(Error::Transport(why)),
            () = shutdown => {}
        }
        shared.draining.store(true, Ordering::SeqCst);
        let running = *shared.in_flight.borrow();
        tracing::info!(
            calls_in_flight = running,
            grace_seconds = grace.as_secs_f64(),
            "shutdown began: refusing new calls, finishing the calls in flight"
        );
        let mut in_flight = shared.in_flight.subscribe();
        let drained = tokio::time::timeout(grace, in_flight.wait_for(|n| *n == 0))
            .await
            .is_ok_and(|seen| seen.is_ok());
        if !drained {
            tracing::warn!(
                calls_in_flight = *shared.in_flight.borrow(),
                "the shutdown grace period ended with calls still running; ending them"
            );
        }
        rmcp_stop.cancel();
        accepting.close(CLOSE_CONNECTIONS).await;
        tracing::info!("stopped");
        Ok(())
    }
}

/// The connection limit: the one asked for, else what the descriptor limit leaves room for.
fn connection_limit(asked: Option<usize>) -> usize {
    let descriptors = listener::descriptor_limit();
    tracing::debug!(soft_descriptor_limit = ?descriptors, "descriptor limit");
    match (asked, descriptors) {
        (Some(asked), Some(descriptors)) => {
            let room = listener::descriptor_room(descriptors);
            if asked as u64 > room {
                tracing::warn!(
                    max_connections = asked,
                    descriptor_limit = descriptors,
                    "--max-connections is above the {room} connections the descriptor limit \
                     leaves room for beside language servers, git and files: other work may \
                     fail to open files while connections are many (raise `ulimit -n`)"
                );
            }
            asked
        }
        (Some(asked), None) => asked,
        (None, Some(descriptors)) => listener::connections_within(descriptors),
        (None, None) => listener::connections_within(u64::MAX),
    }
}

/// 200 while calls are accepted, 503 once shutdown began (a load balancer stops sending).
async fn readiness(State(shared): State<Arc<Shared>>) -> Response {
    if shared.draining.load(Ordering::SeqCst) {
        (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n").into_response()
    } else {
        (StatusCode::OK, "ready\n").into_response()
    }
}

/// Every MCP request: refused while draining, refused without a usable credential, else
/// handed to rmcp with its credential and counted until its response is sent.
async fn admit(State(shared): State<Arc<Shared>>, mut request: Request, next: Next) -> Response {
    if shared.draining.load(Ordering::SeqCst) {
        let body = resolve_pr_core::Error::network("the server is shutting down")
            .with_retry_after(1)
            .with_suggestion(
                "Send the request again; another instance (or this one, restarted) answers it.",
            );
        let mut response = json_response(StatusCode::SERVICE_UNAVAILABLE, &body);
        let headers = response.headers_mut();
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        return response;
    }
    let credential = match bearer_token(request.headers()) {
        Ok(Some(token)) => Credential::Token(Secret::new(token)),
        Ok(None) if shared.allow_server_token => Credential::Server,
        Ok(None) => return unauthorized(None),
        Err(why) => return unauthorized(Some(why)),
    };
    // The token now lives only in the credential, whose Debug is redacted; nothing later
    // (rmcp's request parts, a log of them) can show it.
    request.headers_mut().remove(header::AUTHORIZATION);
    request
        .extensions_mut()
        .insert(CallerCredential(credential));
    let call = shared.begin_call();
    let method = request.method().clone();
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    tracing::debug!(
        %method,
        status = response.status().as_u16(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "MCP request answered"
    );
    response.map(|inner| Body::new(CountedBody { inner, _call: call }))
}

/// The token of `Authorization: Bearer <token>`; `None` without the header. The reason a
/// header is unusable never quotes it.
fn bearer_token(headers: &HeaderMap) -> Result<Option<String>, &'static str> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err("the request has more than one Authorization header");
    }
    let Ok(value) = value.to_str() else {
        return Err("the Authorization header is not visible ASCII");
    };
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err("the Authorization header does not use the Bearer scheme");
    }
    let token = token.trim_start_matches(' ');
    if token.is_empty() {
        return Err("the Authorization header has no token after Bearer");
    }
    // RFC 6750's b64token: what forge tokens are made of, and nothing a log could misread.
    let body = token.trim_end_matches('=');
    if body.is_empty()
        || !body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
    {
        return Err("the bearer token has characters a token cannot have");
    }
    Ok(Some(token.to_owned()))
}

/// The error model as a JSON response, as tool errors carry it.
fn json_response(status: StatusCode, error: &resolve_pr_core::Error) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        error.to_json().to_string(),
    )
        .into_response()
}

/// 401 with `WWW-Authenticate: Bearer` and the error model saying how to send a token.
fn unauthorized(malformed: Option<&'static str>) -> Response {
    let (message, challenge) = match malformed {
        None => (
            "this server needs your forge token on every request: send the header \
             `Authorization: Bearer <token>`"
                .to_owned(),
            HeaderValue::from_static("Bearer realm=\"resolve-pr\""),
        ),
        Some(why) => (
            format!("{why}; send `Authorization: Bearer <token>`"),
            HeaderValue::from_static("Bearer realm=\"resolve-pr\", error=\"invalid_token\""),
        ),
    };
    let body = resolve_pr_core::Error::authentication(message).with_suggestion(
        "Configure your MCP client to send your GitHub, Forgejo or Gitea token in the \
             Authorization header, e.g. `claude mcp add --transport http resolve-pr \
             https://HOST/mcp --header \"Authorization: Bearer $GITHUB_TOKEN\"`. Each request \
             reaches the forge with the token it carries.",
    );
    let mut response = json_response(StatusCode::UNAUTHORIZED, &body);
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&[u8]]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::AUTHORIZATION, HeaderValue::from_bytes(v).unwrap());
        }
        h
    }

    #[test]
    fn bearer_tokens_are_read_and_bad_headers_named_without_the_token() {
        assert_eq!(bearer_token(&headers(&[])), Ok(None));
        for ok in [
            &b"Bearer ghp_abc123"[..],
            b"bearer ghp_abc123",
            b"BEARER  ghp_abc123",
        ] {
            assert_eq!(bearer_token(&headers(&[ok])), Ok(Some("ghp_abc123".into())));
        }
        assert_eq!(
            bearer_token(&headers(&[b"Bearer abc+/=="])),
            Ok(Some("abc+/==".into()))
        );
        for bad in [
            &b"Basic dXNlcjpwYXNz"[..],
            b"Bearer",
            b"Bearer ",
            b"ghp_secretvalue",
            b"Bearer ghp_secret value",
            b"Bearer ghp_secret\"x",
            b"Bearer ===",
            b"Bearer ghp_\xffsecret",
        ] {
            let why = bearer_token(&headers(&[bad])).expect_err(&String::from_utf8_lossy(bad));
            assert!(!why.contains("secret"), "{why}");
        }
        assert!(bearer_token(&headers(&[b"Bearer a", b"Bearer b"])).is_err());
    }

    #[test]
    fn options_name_every_problem_at_once() {
        let mut options = HttpOptions::new("0.0.0.0:8080".parse().unwrap());
        options.allowed_origins = vec!["example.com".into(), "https://ok.example:*".into()];
        let Err(Error::HttpOptions(problems)) = options.check() else {
            panic!("expected problems")
        };
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("DNS rebinding"), "{}", problems[0]);
        assert!(problems[1].contains("\"example.com\""), "{}", problems[1]);

        options.allowed_hosts = vec!["mcp.example.com".into(), "bad/host".into()];
        options.allowed_origins = vec!["https://app.example.com".into(), "null".into()];
        let Err(Error::HttpOptions(problems)) = options.check() else {
            panic!("expected problems")
        };
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("bad/host"), "{problems:?}");
        assert!(problems[1].contains("\"null\""), "{problems:?}");

        options.allowed_hosts = vec!["mcp.example.com".into(), "mcp.example.com:8443".into()];
        options.allowed_origins = vec![
            "https://app.example.com".into(),
            "http://localhost:*".into(),
            "http://[::1]:3000".into(),
        ];
        assert!(options.check().is_ok());
        assert!(HttpOptions::new("[::1]:0".parse().unwrap()).check().is_ok());
    }
}
