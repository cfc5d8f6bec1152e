//! The HTTP side: accepting connections on 127.0.0.1, applying injected faults, dispatching
//! to the GitHub or Forgejo handlers, checking every described response against the contract,
//! recording each request, and the `/_sim/*` control endpoints for out-of-process tests.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use hyper::service::service_fn;
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

#[cfg(feature = "faults")]
use crate::fault::{self, Fault, FaultKind};
use crate::scenario::{ForgeFlavor, Scenario};
use crate::state::World;
use crate::{SimError, forgejo, git_http, github};

/// One request as the simulator saw it. `status` is 0 when the connection was dropped
/// without a response (the `ResetConnection` fault).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub status: u16,
    /// The request carried `If-None-Match`.
    pub conditional: bool,
    /// The request carried a token the scenario knows.
    pub authenticated: bool,
    /// The token the request's `Authorization` header carried, known or not: tests check
    /// whose credentials a client used. (Scenario tokens are test data, not secrets.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// GitHub GraphQL: the rate-limit points the query cost, by GitHub's published rule
    /// (0 for a query that was refused or did not parse); `None` for other requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graphql_points: Option<u32>,
}

/// One request to the blob storage (the second listener job logs and artifacts redirect to).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageRequest {
    pub path: String,
    /// The `Range` header, if any.
    pub range: Option<String>,
    /// Whether the request carried an `Authorization` header (a client must not send the
    /// forge token to storage on another host).
    pub authorization: bool,
    /// 0 when the connection was dropped (the `reset` storage fault).
    pub status: u16,
}

/// Starts simulated forges.
pub struct Sim;

impl Sim {
    /// Serves the scenario on `127.0.0.1` on a free port.
    pub async fn start(scenario: Scenario) -> Result<SimHandle, SimError> {
        Sim::start_on(scenario, 0).await
    }

    /// Serves the scenario on `127.0.0.1:port` (0: any free port).
    pub async fn start_on(scenario: Scenario, port: u16) -> Result<SimHandle, SimError> {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
            .await
            .map_err(SimError::Bind)?;
        let addr = listener.local_addr().map_err(SimError::Bind)?;
        // Blob storage on its own port: another origin, as Azure blob storage is to GitHub.
        let storage = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .map_err(SimError::Bind)?;
        let storage_addr = storage.local_addr().map_err(SimError::Bind)?;
        let shared = Arc::new(Shared {
            flavor: scenario.forge,
            base_url: format!("http://{addr}"),
            git_root: scenario.git_root.clone(),
            storage_url: format!("http://{storage_addr}"),
            storage_log: Mutex::new(Vec::new()),
            world: Mutex::new(World::new(scenario)),
            log: Mutex::new(Vec::new()),
            #[cfg(feature = "faults")]
            faults: Mutex::new(Vec::new()),
            violations: Mutex::new(Vec::new()),
            rate_used: Mutex::new(HashMap::new()),
        });
        let task = tokio::spawn(accept_loop(listener, shared.clone()));
        let storage_task = tokio::spawn(crate::storage::accept_loop(storage, shared.clone()));
        Ok(SimHandle {
            shared,
            server: Arc::new(ServerTask {
                task: Mutex::new(Some(task)),
                storage: Mutex::new(Some(storage_task)),
            }),
        })
    }
}

/// A running simulator. Clones share one server; it stops when the last clone is dropped
/// or on [`SimHandle::shutdown`].
#[derive(Clone)]
pub struct SimHandle {
    shared: Arc<Shared>,
    server: Arc<ServerTask>,
}

struct ServerTask {
    task: Mutex<Option<JoinHandle<()>>>,
    storage: Mutex<Option<JoinHandle<()>>>,
}

impl Drop for ServerTask {
    fn drop(&mut self) {
        if let Some(task) = lock(&self.task).take() {
            task.abort();
        }
        if let Some(task) = lock(&self.storage).take() {
            task.abort();
        }
    }
}

impl SimHandle {
    /// `http://127.0.0.1:PORT`, no trailing slash. GitHub: the REST root (GraphQL at
    /// `/graphql`); Forgejo/Gitea: the web root (REST under `/api/v1`).
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    pub fn flavor(&self) -> ForgeFlavor {
        self.shared.flavor
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.log).clone()
    }

    pub fn clear_requests(&self) {
        lock(&self.shared.log).clear();
    }

    /// The blob storage's root (`http://127.0.0.1:PORT`, another port than the forge).
    pub fn storage_url(&self) -> String {
        self.shared.storage_url.clone()
    }

    /// Requests the blob storage received, oldest first.
    pub fn storage_requests(&self) -> Vec<StorageRequest> {
        lock(&self.shared.storage_log).clone()
    }

    /// Completes every check run called `name` now, with `conclusion` (default: the
    /// scenario's, else success). Returns how many there were.
    pub fn complete_check(&self, name: &str, conclusion: Option<&str>) -> usize {
        lock(&self.shared.world).complete_check(name, conclusion)
    }

    /// Opens `pull` in the repository `owner/name` now, as someone opening a pull request
    /// between two calls would. False when the scenario has no such repository.
    pub fn open_pull(&self, owner: &str, name: &str, pull: crate::PullSpec) -> bool {
        let mut world = lock(&self.shared.world);
        match world.repo_index(owner, name) {
            Some(r) => {
                world.repos[r].spec.pulls.push(pull);
                true
            }
            None => false,
        }
    }

    /// Closes pull request `number` of `owner/name` now. False when there is no such pull
    /// request.
    pub fn close_pull(&self, owner: &str, name: &str, number: u64) -> bool {
        let mut world = lock(&self.shared.world);
        let Some(r) = world.repo_index(owner, name) else {
            return false;
        };
        match world.repos[r]
            .spec
            .pulls
            .iter_mut()
            .find(|p| p.number == number)
        {
            Some(pull) => {
                pull.state = crate::PullState::Closed;
                true
            }
            None => false,
        }
    }

    #[cfg(feature = "faults")]
    pub fn inject(&self, fault: Fault) {
        lock(&self.shared.faults).push(fault);
    }

    /// Every response or request that did not match the forge's published description,
    /// oldest first; empty when all is well (and always without the `contract` and `graphql`
    /// features, which do the checking).
    pub fn contract_violations(&self) -> Vec<String> {
        lock(&self.shared.violations).clone()
    }

    /// Stops accepting and drops open connections.
    pub async fn shutdown(self) {
        let tasks = [
            lock(&self.server.task).take(),
            lock(&self.server.storage).take(),
        ];
        for task in tasks.into_iter().flatten() {
            task.abort();
            // The JoinError of an aborted task is the expected outcome.
            let _ = task.await;
        }
    }
}

/// State shared by every connection.
pub(crate) struct Shared {
    pub flavor: ForgeFlavor,
    pub base_url: String,
    /// Root of the blob storage listener.
    pub storage_url: String,
    pub storage_log: Mutex<Vec<StorageRequest>>,
    pub world: Mutex<World>,
    /// Where the bare repositories served over git's smart HTTP live (`Scenario::git_root`).
    git_root: Option<std::path::PathBuf>,
    log: Mutex<Vec<RecordedRequest>>,
    #[cfg(feature = "faults")]
    faults: Mutex<Vec<Fault>>,
    violations: Mutex<Vec<String>>,
    /// GitHub rate-limit points used, by (login, resource).
    pub rate_used: Mutex<HashMap<(String, &'static str), u32>>,
}

impl Shared {
    pub fn violation(&self, message: String) {
        lock(&self.violations).push(message);
    }
}

/// Locks a mutex, carrying on after a panic elsewhere: the simulator's state is plain data
/// that stays consistent between statements.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    // Owning the connection tasks here means aborting this task drops them all.
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let shared = shared.clone();
                connections.spawn(async move {
                    let service = service_fn(move |req| {
                        let shared = shared.clone();
                        async move { handle(shared, req).await }
                    });
                    // Connection errors (client gone, injected resets) end only this connection.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .keep_alive(true)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// A request as the handlers see it.
pub(crate) struct Request {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Request {
    /// The first value of a query parameter, percent-decoded.
    pub fn query_param(&self, name: &str) -> Option<String> {
        let query = self.query.as_deref()?;
        url::form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }

    /// The token from `Authorization: token T` or `Authorization: Bearer T`.
    pub fn token(&self) -> Option<String> {
        let value = self
            .headers
            .get(hyper::header::AUTHORIZATION)?
            .to_str()
            .ok()?;
        let (scheme, token) = value.trim().split_once(' ')?;
        if scheme.eq_ignore_ascii_case("token") || scheme.eq_ignore_ascii_case("bearer") {
            Some(token.trim().to_owned())
        } else {
            None
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A response before it goes on the wire.
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: ReplyBody,
    /// Whether the contract check applies (off for GraphQL and injected faults).
    pub checked: bool,
}

pub(crate) enum ReplyBody {
    Json(Value),
    Empty,
    Raw {
        content_type: &'static str,
        bytes: Bytes,
    },
}

impl Reply {
    pub fn json(status: u16, body: Value) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: ReplyBody::Json(body),
            checked: true,
        }
    }

    pub fn empty(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: ReplyBody::Empty,
            checked: true,
        }
    }

    pub fn header(mut self, name: &str, value: impl Into<String>) -> Reply {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    pub fn unchecked(mut self) -> Reply {
        self.checked = false;
        self
    }
}

/// Why a connection is dropped instead of answered.
#[derive(Debug)]
struct Dropped(&'static str);

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Dropped {}

async fn handle(
    shared: Arc<Shared>,
    req: hyper::Request<Incoming>,
) -> Result<Response<SimBody>, Dropped> {
    let (parts, body) = req.into_parts();
    // Git's smart HTTP shares the forge's host, as on GitHub and Forgejo; its paths (ending
    // in `.git/info/refs` and the like) are no API route's.
    if let Some(route) = git_http::Route::parse(parts.method.as_str(), parts.uri.path()) {
        return Ok(serve_git(&shared, &route, parts, body).await);
    }
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => return Err(Dropped("request body not readable")),
    };
    let request = Request {
        method: parts.method.as_str().to_owned(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts.headers,
        body,
    };
    if let Some(rest) = request.path.strip_prefix("/_sim/") {
        return Ok(into_response(control(&shared, &request, rest), false));
    }
    if let Some(root) = shared.git_root.as_deref() {
        sync_pull_heads(&shared, root);
    }

    let token = request.token();
    let authenticated = token
        .as_deref()
        .is_some_and(|t| lock(&shared.world).token(t).is_some());
    let record = |status: u16, graphql_points: Option<u32>| RecordedRequest {
        method: request.method.clone(),
        path: request.path.clone(),
        query: request.query.clone(),
        status,
        conditional: request.headers.contains_key(hyper::header::IF_NONE_MATCH),
        authenticated,
        token: token.clone(),
        graphql_points,
    };

    // An injected fault answers instead of the forge, or cuts its answer short.
    #[cfg(feature = "faults")]
    let fault = fault::take_matching(&mut lock(&shared.faults), &request.method, &request.path);
    #[cfg(feature = "faults")]
    let truncate = match fault {
        Some(FaultKind::Status {
            code,
            headers,
            body,
        }) => {
            lock(&shared.log).push(record(code, None));
            let mut reply = Reply {
                status: code,
                headers,
                body: ReplyBody::Raw {
                    content_type: "application/json; charset=utf-8",
                    bytes: Bytes::from(body),
                },
                checked: false,
            };
            if matches!(&reply.body, ReplyBody::Raw { bytes, .. } if bytes.is_empty()) {
                reply.body = ReplyBody::Empty;
            }
            return Ok(into_response(reply, false));
        }
        Some(FaultKind::Latency { ms }) => {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            false
        }
        Some(FaultKind::ResetConnection) => {
            lock(&shared.log).push(record(0, None));
            return Err(Dropped("injected connection reset"));
        }
        Some(FaultKind::Garbage) => {
            lock(&shared.log).push(record(200, None));
            let reply = Reply {
                status: 200,
                headers: Vec::new(),
                body: ReplyBody::Raw {
                    // Claims JSON, like a misconfigured proxy would, so clients must not
                    // trust the content type alone.
                    content_type: "application/json; charset=utf-8",
                    bytes: Bytes::from_static(
                        b"<html><body><h1>502 Bad Gateway</h1>upstream sent garbage</body></html>",
                    ),
                },
                checked: false,
            };
            return Ok(into_response(reply, false));
        }
        Some(FaultKind::TruncatedBody) => true,
        Some(FaultKind::GraphqlError {
            message,
            error_type,
            keep_data,
        }) => {
            let (reply, _, points) = match shared.flavor {
                ForgeFlavor::Github => github::handle(&shared, &request),
                _ => (forgejo::handle(&shared, &request), String::new(), None),
            };
            let mut error = serde_json::json!({"message": message});
            if let Some(t) = error_type {
                error["type"] = Value::from(t);
            }
            let data = match (&reply.body, keep_data) {
                (ReplyBody::Json(v), true) => v.get("data").cloned().unwrap_or(Value::Null),
                _ => Value::Null,
            };
            let mut errors = match (&reply.body, keep_data) {
                (ReplyBody::Json(v), true) => v
                    .get("errors")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            errors.push(error);
            let body = serde_json::json!({"data": data, "errors": errors});
            let mut faulted = Reply::json(200, body).unchecked();
            faulted.headers = reply.headers;
            lock(&shared.log).push(record(200, points));
            return Ok(into_response(faulted, false));
        }
        None => false,
    };
    #[cfg(not(feature = "faults"))]
    let truncate = false;

    let (reply, described_path, graphql_points) = match shared.flavor {
        ForgeFlavor::Github => github::handle(&shared, &request),
        ForgeFlavor::Forgejo | ForgeFlavor::Gitea => (
            forgejo::handle(&shared, &request),
            request.path.clone(),
            None,
        ),
    };
    check_contract(&shared, &request, &described_path, &reply);
    lock(&shared.log).push(record(reply.status, graphql_points));
    Ok(into_response(reply, truncate))
}

/// What a forge does when a pull request's branch is pushed to: its head becomes the branch's
/// new tip, and `refs/pull/N/head` follows. Read from the served repositories before every
/// API request, so a push through git's smart HTTP shows on the pull requests it moved.
/// Pull requests whose branch the repository lacks (or from forks) keep the scenario's head.
fn sync_pull_heads(shared: &Shared, root: &std::path::Path) {
    let mut world = lock(&shared.world);
    for repo in &mut world.repos {
        let dir = root
            .join(&repo.spec.owner)
            .join(format!("{}.git", repo.spec.name));
        if !dir.is_dir() {
            continue;
        }
        let Ok(out) = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(&dir)
            .args([
                "for-each-ref",
                "--format=%(refname) %(objectname)",
                "refs/heads/",
            ])
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
        else {
            continue;
        };
        let listing = String::from_utf8_lossy(&out.stdout).into_owned();
        let tips: std::collections::HashMap<&str, &str> = listing
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter_map(|(name, oid)| Some((name.strip_prefix("refs/heads/")?, oid)))
            .collect();
        repo.git_tips = tips
            .iter()
            .map(|(name, oid)| ((*name).to_owned(), (*oid).to_owned()))
            .collect();
        for pull in &mut repo.spec.pulls {
            if pull.state != crate::scenario::PullState::Open || pull.head.repo.is_some() {
                continue;
            }
            let Some(tip) = tips.get(pull.head.ref_name.as_str()) else {
                continue;
            };
            if pull.head.sha != *tip {
                pull.head.sha = (*tip).to_owned();
                let _ = std::process::Command::new("git")
                    .arg("--git-dir")
                    .arg(&dir)
                    .args([
                        "update-ref",
                        &format!("refs/pull/{}/head", pull.number),
                        tip,
                    ])
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .output();
            }
        }
    }
}

/// A git smart HTTP request: answered by `git http-backend`, recorded like an API request,
/// never contract-checked (no API description covers git's protocol) and never faulted.
async fn serve_git(
    shared: &Shared,
    route: &git_http::Route,
    parts: hyper::http::request::Parts,
    body: Incoming,
) -> Response<SimBody> {
    let token = basic_or_bearer_token(&parts.headers);
    let login = token.as_deref().and_then(|t| {
        let world = lock(&shared.world);
        world.token(t).map(|spec| spec.login.clone())
    });
    let root = shared.git_root.as_deref();
    let served = git_http::serve(root, route, &parts, body, login.clone()).await;
    lock(&shared.log).push(RecordedRequest {
        method: parts.method.as_str().to_owned(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        status: served.status,
        conditional: parts.headers.contains_key(hyper::header::IF_NONE_MATCH),
        authenticated: login.is_some(),
        token,
        graphql_points: None,
    });
    served.response
}

/// The token of an `Authorization` header: `token T`, `Bearer T`, or git's `Basic` with the
/// token as the password (as both forges take it over HTTPS).
fn basic_or_bearer_token(headers: &HeaderMap) -> Option<String> {
    use base64::Engine as _;
    let value = headers.get(hyper::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = value.trim().split_once(' ')?;
    if scheme.eq_ignore_ascii_case("basic") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(rest.trim())
            .ok()?;
        let pair = String::from_utf8(decoded).ok()?;
        let (_, password) = pair.split_once(':')?;
        Some(password.to_owned())
    } else if scheme.eq_ignore_ascii_case("token") || scheme.eq_ignore_ascii_case("bearer") {
        Some(rest.trim().to_owned())
    } else {
        None
    }
}

/// Records a contract violation when the response to a described operation does not match
/// the forge's published description.
#[cfg(feature = "contract")]
fn check_contract(shared: &Shared, request: &Request, described_path: &str, reply: &Reply) {
    use crate::contract;
    if reply.checked && contract::is_described(shared.flavor, &request.method, described_path) {
        let body = match &reply.body {
            ReplyBody::Json(v) => Some(v.clone()),
            ReplyBody::Empty => Some(Value::Null),
            ReplyBody::Raw { .. } => None,
        };
        let result = match body {
            Some(body) => contract::validate_rest(
                shared.flavor,
                &request.method,
                described_path,
                reply.status,
                &body,
            ),
            None => Err(format!(
                "{} {}: non-JSON body on a described operation",
                request.method, request.path
            )),
        };
        if let Err(problem) = result {
            shared.violation(problem);
        }
    }
}

/// Without the `contract` feature nothing is checked.
#[cfg(not(feature = "contract"))]
fn check_contract(_: &Shared, _: &Request, _: &str, _: &Reply) {}

/// `/_sim/*`: the request log, faults and violations over HTTP. Not recorded in the log.
fn control(shared: &Shared, request: &Request, rest: &str) -> Reply {
    let bad = |msg: String| Reply::json(400, serde_json::json!({"message": msg})).unchecked();
    let reply = match (request.method.as_str(), rest) {
        ("GET", "requests") => match serde_json::to_value(&*lock(&shared.log)) {
            Ok(v) => Reply::json(200, v),
            Err(e) => bad(e.to_string()),
        },
        ("DELETE", "requests") => {
            lock(&shared.log).clear();
            Reply::empty(204)
        }
        #[cfg(feature = "faults")]
        ("POST", "faults") => match serde_json::from_slice::<Fault>(&request.body) {
            Ok(fault) => {
                lock(&shared.faults).push(fault);
                Reply::empty(201)
            }
            Err(e) => bad(format!("not a Fault: {e}")),
        },
        ("GET", "violations") => Reply::json(200, Value::from(lock(&shared.violations).clone())),
        ("GET", "storage") => match serde_json::to_value(&*lock(&shared.storage_log)) {
            Ok(v) => Reply::json(200, v),
            Err(e) => bad(e.to_string()),
        },
        ("POST", "checks/complete") => {
            #[derive(Deserialize)]
            struct Complete {
                name: String,
                #[serde(default)]
                conclusion: Option<String>,
            }
            match serde_json::from_slice::<Complete>(&request.body) {
                Ok(c) => {
                    let found =
                        lock(&shared.world).complete_check(&c.name, c.conclusion.as_deref());
                    if found == 0 {
                        Reply::json(404, serde_json::json!({"message": "no such check run"}))
                    } else {
                        Reply::json(200, serde_json::json!({"completed": found}))
                    }
                }
                Err(e) => bad(format!(
                    "expected {{\"name\": ..., \"conclusion\": ...}}: {e}"
                )),
            }
        }
        _ => Reply::json(
            404,
            serde_json::json!({"message": "unknown control endpoint"}),
        ),
    };
    reply.unchecked()
}

fn into_response(reply: Reply, truncate: bool) -> Response<SimBody> {
    let (content_type, bytes) = match reply.body {
        ReplyBody::Json(v) => (
            Some("application/json; charset=utf-8"),
            Bytes::from(serde_json::to_vec(&v).unwrap_or_default()),
        ),
        ReplyBody::Empty => (None, Bytes::new()),
        ReplyBody::Raw {
            content_type,
            bytes,
        } => (Some(content_type), bytes),
    };
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = Response::new(SimBody {
        data: Some(bytes.clone()),
        fail_after_data: truncate,
        fail_delay: None,
        stream: None,
    });
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Some(ct) = content_type {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static(ct));
    }
    for (name, value) in reply.headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            headers.append(n, v);
        }
    }
    if truncate {
        // Promise more than is sent; the body then errors, and hyper closes the connection.
        headers.insert(CONTENT_LENGTH, HeaderValue::from(bytes.len() as u64 + 512));
    }
    response
}

/// A response body that is either whole, streamed from a channel (git's output), or, for the
/// truncation fault, stops with an error after its data so the connection closes short of the
/// promised length.
pub(crate) struct SimBody {
    data: Option<Bytes>,
    fail_after_data: bool,
    /// Holds the error back until hyper has flushed the headers and data; failing at once
    /// would make hyper drop the buffered response unsent.
    fail_delay: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Frames that follow `data`, until the sender is dropped.
    stream: Option<tokio::sync::mpsc::Receiver<std::io::Result<Bytes>>>,
}

impl SimBody {
    pub(crate) fn whole(data: Bytes) -> SimBody {
        SimBody {
            data: Some(data),
            fail_after_data: false,
            fail_delay: None,
            stream: None,
        }
    }

    pub(crate) fn streamed(frames: tokio::sync::mpsc::Receiver<std::io::Result<Bytes>>) -> SimBody {
        SimBody {
            data: None,
            fail_after_data: false,
            fail_delay: None,
            stream: Some(frames),
        }
    }
}

impl HttpBody for SimBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        if let Some(data) = self.data.take() {
            return Poll::Ready(Some(Ok(Frame::data(data))));
        }
        if let Some(stream) = self.stream.as_mut() {
            return match stream.poll_recv(cx) {
                Poll::Ready(Some(frame)) => Poll::Ready(Some(frame.map(Frame::data))),
                Poll::Ready(None) => {
                    self.stream = None;
                    Poll::Ready(None)
                }
                Poll::Pending => Poll::Pending,
            };
        }
        if self.fail_after_data {
            let delay = self
                .fail_delay
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(Duration::from_millis(50))));
            if delay.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.fail_after_data = false;
            return Poll::Ready(Some(Err(std::io::Error::other("injected truncated body"))));
        }
        Poll::Ready(None)
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none() && !self.fail_after_data && self.stream.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        if self.stream.is_some() {
            return SizeHint::default();
        }
        match (&self.data, self.fail_after_data) {
            (Some(d), false) => SizeHint::with_exact(d.len() as u64),
            (None, false) => SizeHint::with_exact(0),
            _ => SizeHint::default(),
        }
    }
}
