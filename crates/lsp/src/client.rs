//! One running language server and the conversation with it: requests with ids answered
//! concurrently over one stdio pipe, `$/cancelRequest` when a caller stops waiting (and the
//! server killed when it ignores that), the requests a server sends us answered, `$/progress`
//! and rust-analyzer's `experimental/serverStatus` tracked so "indexing" is what the server
//! said, published diagnostics kept, and documents opened and changed by version.
//!
//! The server runs contained ([`crate::contain`]): its own process group, a cgroup of its own
//! where one can be made, and a mark in the environment of everything it starts; all of it
//! is killed with the server: helpers it starts (tsserver under typescript-language-server)
//! and what they leave behind (a build script's `setsid` daemon) go too. When this process
//! dies without a word, the server reads the end of its stdin and exits (every server in the
//! registry does), but what it started need not: rust-analyzer leaves the `cargo check` that
//! builds build scripts and proc-macros running. So each server also has a watchdog, a shell
//! that waits for the end of a pipe only this process writes to, and then kills the whole
//! containment (tests/e2e/test_code_tools.py kills the MCP server with SIGKILL and checks).

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use lsp_types::ServerCapabilities;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, BufReader};
use tokio::process::Child;
use tokio::sync::{mpsc, oneshot, watch};

use crate::contain::Containment;
use crate::error::{Error, Result};
use crate::transport;
use crate::uri;

/// JSON-RPC: the server dropped the request because the document changed under it.
const CONTENT_MODIFIED: i64 = -32801;
/// JSON-RPC: the server cancelled the request itself (LSP 3.17).
const SERVER_CANCELLED: i64 = -32802;
/// Documents kept open at once; the least recently used beyond it are closed.
const MAX_OPEN_DOCUMENTS: usize = 64;
/// How long pushed diagnostics must stay unchanged to be taken as the server's answer.
const SETTLE: Duration = Duration::from_millis(500);
/// The same for an empty report, which pyright pushes for a changed document before its
/// analysis ends: on a loaded machine the real report can come more than SETTLE later.
const EMPTY_SETTLE: Duration = Duration::from_secs(2);
/// Bytes of the server's stderr kept, to log why a start failed or it died (never put in
/// an answer).
const STDERR_TAIL: usize = 4096;

/// How to start a server.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The server's name, for errors and health.
    pub name: &'static str,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The project root: the server's working directory and its workspace folder.
    pub root: PathBuf,
    pub initialization_options: Option<Value>,
    /// What `workspace/configuration` answers, by section (`"rust-analyzer"`, `"python"`).
    pub settings: Value,
    /// The settings are also sent with `workspace/didChangeConfiguration` once the server
    /// is initialized (for one that reads them only from there).
    pub push_settings: bool,
    /// Variables set for the server and everything it starts (an untrusted checkout's
    /// hardening: `crate::trust`).
    pub env: Vec<(String, OsString)>,
    /// A file larger than this is never sent to the server ([`Error::TooLarge`]).
    pub max_document_bytes: u64,
    /// The server reports readiness through `experimental/serverStatus` (rust-analyzer);
    /// until its first report it counts as indexing.
    pub reports_status: bool,
    /// The server finds the workspace's files some time after it starts and answers
    /// workspace-wide questions from the files it has found so far, without reporting
    /// progress (pyright's "Found 28 source files" log message ends it): until a log
    /// message this accepts, or FILES_FOUND_LIMIT, it counts as indexing.
    pub files_found: Option<fn(&str) -> bool>,
    /// One request's time limit.
    pub request_timeout: Duration,
    /// How long a cancelled request may go unanswered before the server is killed.
    pub cancel_grace: Duration,
    /// How long a request the server keeps dropping ("content modified", "server
    /// cancelled": rust-analyzer does so each time its workspace reloads while it starts)
    /// is asked again before the caller is told the server is still busy.
    pub retry_window: Duration,
}

/// What the server last said about its work.
#[derive(Debug, Clone, Default)]
pub struct Status {
    /// Open `$/progress` tokens and their titles.
    pub progress: BTreeMap<String, String>,
    /// rust-analyzer's `quiescent`: false while it loads or indexes.
    pub quiescent: Option<bool>,
    /// false until a server that finds its files late has said it found them
    /// ([`ClientConfig::files_found`]).
    pub files_found: Option<bool>,
    /// Why the server is gone, once it is.
    pub exited: Option<String>,
}

impl Status {
    /// What the server is busy with, when it said it is indexing. A progress that reports
    /// an error is not work that will end (gopls keeps "Error loading workspace" open until
    /// the workspace is fixed), so it is not waited for.
    pub fn indexing(&self) -> Option<String> {
        if let Some(title) = self.progress.values().find(|t| !t.starts_with("Error")) {
            return Some(title.clone());
        }
        if self.files_found == Some(false) {
            return Some("finding the workspace's source files".to_owned());
        }
        (self.quiescent == Some(false)).then(|| "loading the workspace".to_owned())
    }
}

/// Diagnostics a server published for one document.
#[derive(Debug, Clone)]
pub struct Published {
    pub version: Option<i32>,
    pub diagnostics: Vec<lsp_types::Diagnostic>,
}

struct Document {
    version: i32,
    text: Arc<str>,
    last_used: Instant,
}

type Reply = std::result::Result<Value, (i64, String)>;

/// How long a server that finds its files late ([`ClientConfig::files_found`]) may take to
/// say so before it is believed to have found them anyway.
const FILES_FOUND_LIMIT: Duration = Duration::from_secs(30);

struct Inner {
    name: &'static str,
    root: PathBuf,
    settings: Value,
    out: mpsc::UnboundedSender<Value>,
    pending: Mutex<HashMap<i64, oneshot::Sender<Reply>>>,
    next_id: AtomicI64,
    status: watch::Sender<Status>,
    diagnostics: Mutex<HashMap<PathBuf, Published>>,
    published: watch::Sender<u64>,
    documents: tokio::sync::Mutex<HashMap<PathBuf, Document>>,
    pid: Option<u32>,
    child: Mutex<Option<Child>>,
    /// The server's process group, cgroup and mark, killed whole.
    containment: Containment,
    /// Kills the containment when this process is gone; see [`Containment::watchdog`]. Held
    /// for its stdin: dropping it (with the client) closes the pipe, which fires it too.
    _watchdog: Option<Child>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    files_found: Option<fn(&str) -> bool>,
    request_timeout: Duration,
    cancel_grace: Duration,
    retry_window: Duration,
    max_document_bytes: u64,
    /// When it was started.
    started: Instant,
    /// While set, edits the server asks us to apply are kept here instead of refused.
    captured_edits: Mutex<Option<Vec<Value>>>,
    /// The errors and warnings the server shows (`window/showMessage`) while edits are
    /// captured: why a command made no edit.
    captured_messages: Mutex<Vec<String>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.kill_all();
    }
}

/// A running, initialized language server. Cheap to clone; the server is killed when the
/// last clone is dropped.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    capabilities: Arc<ServerCapabilities>,
    server_version: Option<String>,
}

impl Client {
    /// Starts the server and completes `initialize`/`initialized`.
    pub async fn start(config: ClientConfig) -> Result<Client> {
        let containment = Containment::new();
        let mut command = containment.command(&config.program, &config.args);
        command
            .envs(config.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&config.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|e| Error::ServerFailed {
            server: config.name,
            message: format!("could not start {}: {e}", config.program.display()),
        })?;
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(Error::ServerFailed {
                server: config.name,
                message: "its standard streams could not be opened".to_owned(),
            });
        };
        let watchdog = child.id().and_then(|pid| match containment.watchdog(pid) {
            Ok(w) => Some(w),
            Err(e) => {
                tracing::warn!(
                    server = config.name,
                    error = %e,
                    "no watchdog for the server: what it starts may outlive \
                     this process if it is killed"
                );
                None
            }
        });
        let (out, mut out_rx) = mpsc::unbounded_channel::<Value>();
        let status = Status {
            quiescent: config.reports_status.then_some(false),
            files_found: config.files_found.map(|_| false),
            ..Status::default()
        };
        let inner = Arc::new(Inner {
            name: config.name,
            root: config.root.clone(),
            settings: config.settings.clone(),
            out,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            status: watch::Sender::new(status),
            diagnostics: Mutex::new(HashMap::new()),
            published: watch::Sender::new(0),
            documents: tokio::sync::Mutex::new(HashMap::new()),
            pid: child.id(),
            child: Mutex::new(Some(child)),
            containment,
            _watchdog: watchdog,
            stderr_tail: Arc::new(Mutex::new(Vec::new())),
            files_found: config.files_found,
            request_timeout: config.request_timeout,
            cancel_grace: config.cancel_grace,
            retry_window: config.retry_window,
            max_document_bytes: config.max_document_bytes,
            started: Instant::now(),
            captured_edits: Mutex::new(None),
            captured_messages: Mutex::new(Vec::new()),
        });

        // A server that never says it found its files is believed to have, after a while.
        if config.files_found.is_some() {
            let weak = Arc::downgrade(&inner);
            tokio::spawn(async move {
                tokio::time::sleep(FILES_FOUND_LIMIT).await;
                if let Some(inner) = weak.upgrade() {
                    inner.status.send_if_modified(|s| {
                        let waiting = s.files_found == Some(false);
                        if waiting {
                            s.files_found = Some(true);
                        }
                        waiting
                    });
                }
            });
        }

        // The writer owns stdin: when every sender is gone (the client dropped), stdin
        // closes and the server sees the end of its input.
        let mut stdin = stdin;
        tokio::spawn(async move {
            while let Some(message) = out_rx.recv().await {
                if transport::write_message(&mut stdin, &message)
                    .await
                    .is_err()
                {
                    break;
                }
            }
        });
        let tail = inner.stderr_tail.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                tail.extend_from_slice(&buf[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
        });
        let weak = Arc::downgrade(&inner);
        tokio::spawn(read_loop(weak, BufReader::new(stdout)));

        let root_uri = uri::from_path(&config.root)?;
        let folder_name = config
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "root".to_owned());
        let params = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "resolve-pr", "version": env!("CARGO_PKG_VERSION")},
            "rootUri": root_uri.as_str(),
            "rootPath": config.root,
            "workspaceFolders": [{"uri": root_uri.as_str(), "name": folder_name}],
            "initializationOptions": config.initialization_options,
            "capabilities": client_capabilities(),
        });
        let client = Client {
            inner: inner.clone(),
            capabilities: Arc::new(ServerCapabilities::default()),
            server_version: None,
        };
        let answer = match client.request_raw("initialize", params).await {
            Ok(answer) => answer,
            Err(e) => {
                // What the server printed goes to the log, never into an answer (a Node
                // stack trace is noise to an agent, and the server's words are not ours).
                let said = inner.stderr_text();
                if !said.is_empty() {
                    tracing::warn!(server = config.name, stderr = %said, "initialize failed");
                }
                return Err(Error::ServerFailed {
                    server: config.name,
                    message: format!("initialize failed: {e}"),
                });
            }
        };
        let result: lsp_types::InitializeResult =
            serde_json::from_value(answer).map_err(|e| Error::ServerFailed {
                server: config.name,
                message: format!("its initialize answer is not LSP: {e}"),
            })?;
        client.notify("initialized", json!({}));
        if config.push_settings && !config.settings.is_null() {
            client.notify(
                "workspace/didChangeConfiguration",
                json!({"settings": config.settings}),
            );
        }
        Ok(Client {
            inner,
            capabilities: Arc::new(result.capabilities),
            server_version: result.server_info.and_then(|i| i.version),
        })
    }

    pub fn name(&self) -> &'static str {
        self.inner.name
    }

    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The version the server gave in `initialize`, if it gave one.
    pub fn server_version(&self) -> Option<&str> {
        self.server_version.as_deref()
    }

    /// How long ago the server was started.
    pub fn age(&self) -> Duration {
        self.inner.started.elapsed()
    }

    /// The cgroup the server runs in, when it runs in one of its own.
    pub fn cgroup(&self) -> Option<&Path> {
        self.inner.containment.cgroup()
    }

    pub fn pid(&self) -> Option<u32> {
        self.inner.pid
    }

    pub fn status(&self) -> Status {
        self.inner.status.borrow().clone()
    }

    /// Changes of the status, from now on.
    pub fn subscribe_status(&self) -> watch::Receiver<Status> {
        self.inner.status.subscribe()
    }

    /// Whether the server is gone (exited, killed, or its pipe broke).
    pub fn exited(&self) -> bool {
        self.inner.status.borrow().exited.is_some()
    }

    /// Waits until the server says it is no longer indexing, it exits, or `deadline` passes.
    /// Returns what it is still busy with when the deadline passed.
    pub async fn wait_ready(&self, deadline: Instant) -> Option<String> {
        let mut rx = self.inner.status.subscribe();
        loop {
            let busy = {
                let s = rx.borrow_and_update();
                if s.exited.is_some() {
                    return None;
                }
                s.indexing()
            };
            let busy = busy?;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Some(busy);
            }
            if tokio::time::timeout(left, rx.changed()).await.is_err() {
                return self.status().indexing();
            }
        }
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        let _ = self
            .inner
            .out
            .send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// A typed request.
    pub async fn request<R: lsp_types::request::Request>(
        &self,
        params: R::Params,
    ) -> Result<R::Result> {
        let params = serde_json::to_value(params).map_err(|e| Error::Io(e.to_string()))?;
        let answer = self.request_raw(R::METHOD, params).await?;
        serde_json::from_value(answer).map_err(|e| Error::Protocol {
            server: self.inner.name,
            method: R::METHOD.to_owned(),
            code: 0,
            message: format!("the answer is not LSP: {e}"),
        })
    }

    /// A request; asked again while the server drops it because a document or its
    /// workspace changed under it, or cancels it itself: after a pause that doubles from
    /// 100 ms to 1 s, and once any indexing it reports has ended, until `retry_window` has
    /// passed. Then the caller is told the server is busy (`SERVER_INDEXING`).
    pub async fn request_raw(&self, method: &str, params: Value) -> Result<Value> {
        let started = Instant::now();
        let deadline = crate::deadline::wait_until(self.inner.retry_window);
        let mut pause = Duration::from_millis(100);
        let mut dropped = 0u32;
        loop {
            match self.request_once(method, params.clone()).await {
                Err(Error::Protocol { code, message, .. })
                    if code == CONTENT_MODIFIED || code == SERVER_CANCELLED =>
                {
                    dropped += 1;
                    if Instant::now() + pause >= deadline {
                        return Err(Error::Indexing(format!(
                            "{} dropped {method} {dropped} times in {:.1} s ({message}): its \
                             project is still changing under it, as while it loads the \
                             workspace; ask again in a moment",
                            self.inner.name,
                            started.elapsed().as_secs_f64()
                        )));
                    }
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_secs(1));
                    self.wait_ready(deadline).await;
                }
                other => return other,
            }
        }
    }

    async fn request_once(&self, method: &str, params: Value) -> Result<Value> {
        let inner = &self.inner;
        if let Some(why) = inner.status.borrow().exited.clone() {
            return Err(Error::ServerFailed {
                server: inner.name,
                message: format!("the server is gone: {why}"),
            });
        }
        let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        inner.pending().insert(id, tx);
        let _ = inner
            .out
            .send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut in_flight = InFlight {
            inner: Arc::downgrade(inner),
            id,
            rx: Some(rx),
        };
        let rx = in_flight.rx.as_mut().expect("set above");
        let reply = match tokio::time::timeout(inner.request_timeout, rx).await {
            Ok(reply) => {
                in_flight.rx = None;
                reply
            }
            Err(_) => {
                // Dropping `in_flight` cancels the request, and kills a server that ignores that.
                return Err(Error::Timeout(format!(
                    "{} did not answer {method} within {} s; the request was cancelled",
                    inner.name,
                    inner.request_timeout.as_secs()
                )));
            }
        };
        match reply {
            Ok(Ok(value)) => Ok(value),
            Ok(Err((code, message))) => Err(Error::Protocol {
                server: inner.name,
                method: method.to_owned(),
                code,
                message: without_trace(inner.name, method, &message),
            }),
            Err(_) => Err(Error::ServerFailed {
                server: inner.name,
                message: format!(
                    "the server exited before answering {method}{}",
                    inner
                        .status
                        .borrow()
                        .exited
                        .as_deref()
                        .map(|w| format!(": {w}"))
                        .unwrap_or_default()
                ),
            }),
        }
    }

    /// Opens the file in the server, or tells it the new text when the file changed on disk
    /// since; returns the text the server now has and its version.
    pub async fn sync_document(&self, path: &Path, language_id: &str) -> Result<(Arc<str>, i32)> {
        // Checked before it is read: a huge file costs this process its size several times
        // over (text, JSON, the message) and may kill the server.
        if let Ok(meta) = tokio::fs::metadata(path).await
            && meta.len() > self.inner.max_document_bytes
        {
            return Err(Error::TooLarge {
                path: path.to_owned(),
                bytes: meta.len(),
                limit: self.inner.max_document_bytes,
            });
        }
        let text = match tokio::fs::read(path).await {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                let mut docs = self.inner.documents.lock().await;
                if docs.remove(path).is_some()
                    && let Ok(uri) = uri::from_path(path)
                {
                    self.notify(
                        "textDocument/didClose",
                        json!({"textDocument": {"uri": uri.as_str()}}),
                    );
                }
                return Err(Error::InvalidPath {
                    path: path.to_owned(),
                    message: format!("{} cannot be read: {e}", path.display()),
                });
            }
        };
        let uri = uri::from_path(path)?;
        let mut docs = self.inner.documents.lock().await;
        if let Some(doc) = docs.get_mut(path) {
            doc.last_used = Instant::now();
            if *doc.text == *text {
                return Ok((doc.text.clone(), doc.version));
            }
            doc.version += 1;
            doc.text = Arc::from(text);
            self.inner.forget_diagnostics(path);
            self.notify(
                "textDocument/didChange",
                json!({
                    "textDocument": {"uri": uri.as_str(), "version": doc.version},
                    "contentChanges": [{"text": &*doc.text}],
                }),
            );
            return Ok((doc.text.clone(), doc.version));
        }
        if docs.len() >= MAX_OPEN_DOCUMENTS {
            let oldest = docs
                .iter()
                .min_by_key(|(_, d)| d.last_used)
                .map(|(p, _)| p.clone());
            if let Some(oldest) = oldest {
                docs.remove(&oldest);
                if let Ok(u) = uri::from_path(&oldest) {
                    self.notify(
                        "textDocument/didClose",
                        json!({"textDocument": {"uri": u.as_str()}}),
                    );
                }
            }
        }
        let text: Arc<str> = Arc::from(text);
        self.inner.forget_diagnostics(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {
                "uri": uri.as_str(), "languageId": language_id, "version": 1, "text": &*text,
            }}),
        );
        docs.insert(
            path.to_owned(),
            Document {
                version: 1,
                text: text.clone(),
                last_used: Instant::now(),
            },
        );
        Ok((text, 1))
    }

    /// Whether the server has `path` open.
    pub async fn is_open(&self, path: &Path) -> bool {
        self.inner.documents.lock().await.contains_key(path)
    }

    /// Closes `path` in the server (`didClose`) when it has it open; whether it had.
    pub async fn close_document(&self, path: &Path) -> bool {
        let mut docs = self.inner.documents.lock().await;
        if docs.remove(path).is_none() {
            return false;
        }
        self.inner.forget_diagnostics(path);
        if let Ok(uri) = uri::from_path(path) {
            self.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri.as_str()}}),
            );
        }
        true
    }

    /// Whether the server asked to hear of saves (`textDocumentSync.save`), and whether with
    /// the text.
    pub fn save_wanted(&self) -> Option<bool> {
        use lsp_types::{TextDocumentSyncCapability as Sync, TextDocumentSyncSaveOptions as Save};
        match self.capabilities.text_document_sync.as_ref()? {
            Sync::Kind(_) => None,
            Sync::Options(o) => match o.save.as_ref()? {
                Save::Supported(true) => Some(false),
                Save::Supported(false) => None,
                Save::SaveOptions(s) => Some(s.include_text == Some(true)),
            },
        }
    }

    /// Tells the server `path` was saved (`didSave`), with `text` when it asked for it.
    pub fn saved(&self, path: &Path, text: Option<&str>) {
        let Ok(uri) = uri::from_path(path) else {
            return;
        };
        let mut params = json!({"textDocument": {"uri": uri.as_str()}});
        if let Some(text) = text {
            params["text"] = json!(text);
        }
        self.notify("textDocument/didSave", params);
    }

    /// The version of `path` the server has open, when it has it open.
    pub async fn document_version(&self, path: &Path) -> Option<i32> {
        self.inner
            .documents
            .lock()
            .await
            .get(path)
            .map(|d| d.version)
    }

    /// How many documents the server has open.
    pub async fn open_documents(&self) -> usize {
        self.inner.documents.lock().await.len()
    }

    /// Tells the server about files changed on disk that it may not have open.
    pub fn files_changed(&self, changes: &[(PathBuf, FileChange)]) {
        let changes: Vec<Value> = changes
            .iter()
            .filter_map(|(p, kind)| {
                let uri = uri::from_path(p).ok()?;
                Some(json!({"uri": uri.as_str(), "type": *kind as u8}))
            })
            .collect();
        if !changes.is_empty() {
            self.notify(
                "workspace/didChangeWatchedFiles",
                json!({"changes": changes}),
            );
        }
    }

    /// The diagnostics the server published for `path` at `version` (or later) of the
    /// document, waiting for them until `deadline`: a late report about an older version is
    /// not taken for the current one. A server that pushes diagnostics says nothing when it
    /// is done, and some (pyright) first push an empty report for a changed document and the
    /// real one after checking it; so the report taken is the last one after `SETTLE` with no
    /// newer one. `None`: none arrived in time.
    pub async fn published_diagnostics(
        &self,
        path: &Path,
        version: i32,
        deadline: Instant,
    ) -> Option<Published> {
        let current = |p: &Published| p.version.is_none_or(|v| v >= version);
        let mut rx = self.inner.published.subscribe();
        let mut seen: Option<Published> = None;
        // When the report seen last is taken as the answer, unless another comes first. A
        // wake-up for another document's report keeps it: only a change of this one moves it.
        let mut settled_at: Option<Instant> = None;
        loop {
            rx.borrow_and_update();
            let now = self
                .inner
                .diagnostics()
                .get(path)
                .filter(|p| current(p))
                .cloned();
            if now.is_some() {
                let changed = seen.is_none()
                    || seen.as_ref().map(|s| s.diagnostics.len())
                        != now.as_ref().map(|n| n.diagnostics.len());
                seen = now;
                if changed {
                    let empty = seen.as_ref().is_some_and(|s| s.diagnostics.is_empty());
                    settled_at = Some(Instant::now() + if empty { EMPTY_SETTLE } else { SETTLE });
                }
            }
            let wake = settled_at.map_or(deadline, |at| at.min(deadline));
            let left = wake.saturating_duration_since(Instant::now());
            if self.exited() {
                return seen;
            }
            if left.is_zero() {
                return seen;
            }
            match tokio::time::timeout(left, rx.changed()).await {
                // A newer report, maybe for this document: look again.
                Ok(Ok(())) => continue,
                Ok(Err(_)) => return seen,
                // Quiet for SETTLE (or the deadline passed): what was seen stands.
                Err(_) => {
                    return seen.or_else(|| {
                        self.inner
                            .diagnostics()
                            .get(path)
                            .filter(|p| current(p))
                            .cloned()
                    });
                }
            }
        }
    }

    /// Every document's diagnostics the server has published and not since changed.
    pub fn all_published_diagnostics(&self) -> Vec<(PathBuf, Published)> {
        let mut all: Vec<_> = self
            .inner
            .diagnostics()
            .iter()
            .map(|(p, d)| (p.clone(), d.clone()))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// Starts keeping the edits the server asks us to apply (`workspace/applyEdit`), which
    /// are otherwise refused: a refactoring's plan is made of them, and nothing is written.
    pub fn capture_edits(&self) {
        *self.inner.captured() = Some(Vec::new());
        self.inner.shown().clear();
    }

    /// The errors and warnings the server showed since [`Client::capture_edits`].
    pub fn take_captured_messages(&self) -> Vec<String> {
        std::mem::take(&mut *self.inner.shown())
    }

    /// The edits kept since [`Client::capture_edits`]; stops keeping them.
    pub fn take_captured_edits(&self) -> Vec<Value> {
        self.inner.captured().take().unwrap_or_default()
    }

    /// `shutdown`, `exit`, then signals to the process group: TERM after `grace`, KILL after
    /// as long again.
    pub async fn shutdown(&self, grace: Duration) {
        let _ = tokio::time::timeout(grace, self.request_once("shutdown", Value::Null)).await;
        self.notify("exit", Value::Null);
        let child = self.inner.child().take();
        if let Some(mut child) = child
            && tokio::time::timeout(grace, child.wait()).await.is_err()
        {
            signal_group(self.inner.pid, rustix::process::Signal::TERM);
            if tokio::time::timeout(grace, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
        // Helpers the server started (tsserver) may outlive it.
        self.inner.kill_all();
        self.inner.mark_exited("shut down".to_owned());
    }

    /// Kills the server and everything it started now.
    pub fn kill(&self, why: &str) {
        self.inner.kill_all();
        self.inner.mark_exited(why.to_owned());
    }

    /// Resident memory of the server's whole process group, in bytes (Linux; 0 elsewhere).
    pub fn resident_bytes(&self) -> u64 {
        self.inner.pid.map(group_resident_bytes).unwrap_or(0)
    }
}

/// `workspace/didChangeWatchedFiles`' change types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum FileChange {
    Created = 1,
    Changed = 2,
    Deleted = 3,
}

/// A request the caller is waiting for. Dropped before its answer (a timeout, or the MCP
/// call cancelled), it sends `$/cancelRequest`, and kills the server if no answer (not even
/// "cancelled") comes within the grace time: a server that ignores cancellation would
/// otherwise stay busy with it and block every later request.
struct InFlight {
    inner: Weak<Inner>,
    id: i64,
    rx: Option<oneshot::Receiver<Reply>>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let (Some(rx), Some(inner)) = (self.rx.take(), self.inner.upgrade()) else {
            return;
        };
        let _ = inner.out.send(json!({
            "jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": self.id},
        }));
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let weak = self.inner.clone();
        let grace = inner.cancel_grace;
        let id = self.id;
        drop(inner);
        runtime.spawn(async move {
            if tokio::time::timeout(grace, rx).await.is_err()
                && let Some(inner) = weak.upgrade()
            {
                tracing::warn!(
                    server = inner.name,
                    id,
                    "a cancelled request was not answered; killing the server"
                );
                inner.kill_all();
                inner.mark_exited(format!(
                    "killed: it did not answer a cancelled request within {} s",
                    grace.as_secs()
                ));
            }
        });
    }
}

impl Inner {
    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<i64, oneshot::Sender<Reply>>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn diagnostics(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Published>> {
        self.diagnostics.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn child(&self) -> std::sync::MutexGuard<'_, Option<Child>> {
        self.child.lock().unwrap_or_else(|e| e.into_inner())
    }
    fn shown(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.captured_messages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
    fn captured(&self) -> std::sync::MutexGuard<'_, Option<Vec<Value>>> {
        self.captured_edits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
    fn stderr_text(&self) -> String {
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&tail).trim().to_owned()
    }

    fn forget_diagnostics(&self, path: &Path) {
        self.diagnostics().remove(path);
    }

    /// Kills the server, its group, its cgroup and every process with its mark.
    fn kill_all(&self) {
        self.containment.kill(self.pid);
    }

    fn mark_exited(&self, why: String) {
        self.status.send_modify(|s| {
            if s.exited.is_none() {
                s.exited = Some(why);
            }
        });
        // Everyone waiting learns the server is gone (their senders drop).
        self.pending().clear();
    }

    fn send(&self, message: Value) {
        let _ = self.out.send(message);
    }

    /// One message from the server.
    fn dispatch(&self, message: Value) {
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").cloned();
        match (method, id) {
            (Some(method), Some(id)) => {
                let reply = self.answer(method, message.get("params").unwrap_or(&Value::Null));
                let mut response = json!({"jsonrpc": "2.0", "id": id});
                match reply {
                    Ok(result) => response["result"] = result,
                    Err((code, text)) => response["error"] = json!({"code": code, "message": text}),
                }
                self.send(response);
            }
            (Some(method), None) => {
                self.notified(method, message.get("params").unwrap_or(&Value::Null))
            }
            (None, Some(id)) => {
                let Some(id) = id.as_i64() else { return };
                let Some(tx) = self.pending().remove(&id) else {
                    return;
                };
                let reply = match message.get("error") {
                    Some(error) => Err((
                        error.get("code").and_then(Value::as_i64).unwrap_or(0),
                        error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_owned(),
                    )),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = tx.send(reply);
            }
            (None, None) => {}
        }
    }

    /// Answers a request the server sent us.
    fn answer(&self, method: &str, params: &Value) -> std::result::Result<Value, (i64, String)> {
        match method {
            "workspace/configuration" => {
                let items = params
                    .get("items")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                Ok(Value::Array(
                    items
                        .iter()
                        .map(|item| match item.get("section").and_then(Value::as_str) {
                            Some(section) => lookup_section(&self.settings, section),
                            None => Value::Null,
                        })
                        .collect(),
                ))
            }
            "workspace/workspaceFolders" => {
                let uri = uri::from_path(&self.root)
                    .map(|u| u.as_str().to_owned())
                    .unwrap_or_default();
                Ok(
                    json!([{"uri": uri, "name": self.root.file_name().map(|n| n.to_string_lossy().into_owned())}]),
                )
            }
            "workspace/applyEdit" => {
                let mut captured = self.captured();
                match captured.as_mut() {
                    Some(edits) => {
                        edits.push(params.get("edit").cloned().unwrap_or(Value::Null));
                        Ok(json!({"applied": true}))
                    }
                    None => Ok(json!({
                        "applied": false,
                        "failureReason": "resolve-pr writes edits only from a plan it was asked for",
                    })),
                }
            }
            "window/workDoneProgress/create"
            | "client/registerCapability"
            | "client/unregisterCapability"
            | "window/showMessageRequest"
            | "workspace/codeLens/refresh"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/inlineValue/refresh"
            | "workspace/diagnostic/refresh"
            | "workspace/foldingRange/refresh" => Ok(Value::Null),
            "window/showDocument" => Ok(json!({"success": false})),
            // typescript-language-server asks an editor to start renaming what a refactoring
            // just named (`newLocal`); there is no editor: the name stays.
            "_typescript.rename" => Ok(Value::Null),
            other => Err((-32601, format!("resolve-pr does not handle {other}"))),
        }
    }

    fn notified(&self, method: &str, params: &Value) {
        match method {
            "$/progress" => {
                let token = params
                    .get("token")
                    .map(|t| t.to_string())
                    .unwrap_or_default();
                let value = params.get("value").unwrap_or(&Value::Null);
                match value.get("kind").and_then(Value::as_str) {
                    Some("begin") => {
                        let title = value
                            .get("title")
                            .and_then(Value::as_str)
                            .unwrap_or("working")
                            .to_owned();
                        self.status.send_modify(|s| {
                            s.progress.insert(token, title);
                        });
                    }
                    Some("end") => self.status.send_modify(|s| {
                        s.progress.remove(&token);
                    }),
                    _ => {}
                }
            }
            "window/showMessage" => {
                let serious = params
                    .get("type")
                    .and_then(Value::as_u64)
                    .is_some_and(|t| t <= 2);
                if serious
                    && self.captured().is_some()
                    && let Some(message) = params.get("message").and_then(Value::as_str)
                {
                    self.shown().push(message.to_owned());
                }
            }
            "window/logMessage" => {
                let said = |found: fn(&str) -> bool| {
                    params
                        .get("message")
                        .and_then(Value::as_str)
                        .is_some_and(found)
                };
                if self.files_found.is_some_and(said) {
                    self.status.send_if_modified(|s| {
                        let news = s.files_found == Some(false);
                        s.files_found = Some(true);
                        news
                    });
                }
            }
            "experimental/serverStatus" => {
                let quiescent = params.get("quiescent").and_then(Value::as_bool);
                self.status
                    .send_modify(|s| s.quiescent = quiescent.or(s.quiescent));
            }
            "textDocument/publishDiagnostics" => {
                let Ok(published) =
                    serde_json::from_value::<lsp_types::PublishDiagnosticsParams>(params.clone())
                else {
                    return;
                };
                let Some(path) = uri::to_path(&published.uri) else {
                    return;
                };
                self.diagnostics().insert(
                    path,
                    Published {
                        version: published.version,
                        diagnostics: published.diagnostics,
                    },
                );
                self.published.send_modify(|n| *n += 1);
            }
            _ => {}
        }
    }
}

async fn read_loop(inner: Weak<Inner>, mut stdout: BufReader<tokio::process::ChildStdout>) {
    let why = loop {
        match transport::read_message(&mut stdout).await {
            Ok(Some(message)) => match inner.upgrade() {
                Some(inner) => inner.dispatch(message),
                None => return,
            },
            Ok(None) => break "it closed its output".to_owned(),
            Err(e) => break format!("its output is not LSP: {e}"),
        }
    };
    if let Some(inner) = inner.upgrade() {
        // What it printed is logged, not put in the error answers carry.
        let said = inner.stderr_text();
        if !said.is_empty() {
            tracing::warn!(server = inner.name, stderr = %said, "{why}");
        }
        inner.mark_exited(why);
        // Reap it, and anything it left behind.
        inner.kill_all();
    }
}

/// A server's error message without a stack trace, at most 200 characters: tsserver puts
/// its Node stack in the message ("TypeScript Server Error (5.9.3) No Project." then 15 lines
/// of `at ...`). The lines before the first stack frame are kept, joined; the whole message
/// is logged.
fn without_trace(server: &str, method: &str, message: &str) -> String {
    let said: Vec<&str> = message
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("at "))
        .filter(|l| !l.is_empty())
        .collect();
    let said = said.join(" ");
    if said == message && said.chars().count() <= 200 {
        return said;
    }
    tracing::debug!(
        server,
        method,
        message,
        "a server's error message, its stack left out"
    );
    let mut cut: String = said.chars().take(200).collect();
    if cut.len() < said.len() {
        cut.push('…');
    }
    cut
}

/// The value at a dotted section of the settings (`"rust-analyzer"`, `"python.analysis"`).
fn lookup_section(settings: &Value, section: &str) -> Value {
    let mut at = settings;
    for part in section.split('.') {
        match at.get(part) {
            Some(v) => at = v,
            None => return Value::Null,
        }
    }
    at.clone()
}

fn client_capabilities() -> Value {
    let kinds: Vec<u32> = (1..=26).collect();
    json!({
        "general": {"positionEncodings": ["utf-16"]},
        "window": {"workDoneProgress": true, "showDocument": {"support": false}},
        "workspace": {
            "configuration": true,
            "workspaceFolders": true,
            "applyEdit": true,
            "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create", "rename", "delete"]},
            "symbol": {"symbolKind": {"valueSet": kinds}},
            // Not offered: servers that can watch the files themselves (rust-analyzer,
            // pyright, tsserver) then do, instead of waiting for us to report each change.
            "didChangeWatchedFiles": {"dynamicRegistration": false},
            "fileOperations": {"willRename": true, "didRename": true},
        },
        "textDocument": {
            "synchronization": {"didSave": true, "dynamicRegistration": false},
            "definition": {"linkSupport": true},
            "declaration": {"linkSupport": true},
            "typeDefinition": {"linkSupport": true},
            "implementation": {"linkSupport": true},
            "references": {},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            // Plain insert texts (no snippets), items never resolved one by one.
            "completion": {
                "completionItem": {
                    "snippetSupport": false,
                    "documentationFormat": ["plaintext", "markdown"],
                    "labelDetailsSupport": true,
                    "insertReplaceSupport": false,
                },
                "contextSupport": true,
            },
            "signatureHelp": {
                "signatureInformation": {
                    "documentationFormat": ["plaintext", "markdown"],
                    "parameterInformation": {"labelOffsetSupport": true},
                    "activeParameterSupport": true,
                },
                "contextSupport": true,
            },
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true, "symbolKind": {"valueSet": kinds}},
            "callHierarchy": {},
            "publishDiagnostics": {"versionSupport": true},
            "diagnostic": {"dynamicRegistration": false},
            "rename": {"prepareSupport": true},
            // Refactorings as code actions: literals with their kinds, resolved lazily
            // (rust-analyzer computes an assist's edit only when it is resolved).
            "codeAction": {
                "codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                    "", "quickfix", "refactor", "refactor.extract", "refactor.inline",
                    "refactor.rewrite", "refactor.move", "source", "source.organizeImports",
                    "source.fixAll",
                ]}},
                "resolveSupport": {"properties": ["edit", "command"]},
                "dataSupport": true,
                "disabledSupport": true,
                "isPreferredSupport": true,
            },
        },
        "experimental": {"serverStatusNotification": true},
    })
}

fn signal_group(pid: Option<u32>, signal: rustix::process::Signal) {
    let Some(pid) = pid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(rustix::process::Pid::from_raw)
    else {
        return;
    };
    let _ = rustix::process::kill_process_group(pid, signal);
}

/// The resident memory of every process in the group led by `pid` (Linux's /proc).
fn group_resident_bytes(pid: u32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut total = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let pgrp = rest
            .split_whitespace()
            .nth(2)
            .and_then(|g| g.parse::<u32>().ok());
        if pgrp != Some(pid) {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        if let Some(kib) = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
        {
            total += kib * 1024;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_error_message_loses_its_stack_trace() {
        let tsserver = "<main> TypeScript Server Error (5.9.3)\nNo Project.\nError: No Project.\n    at Object.ThrowNoProject (/x/node_modules/typescript/lib/typescript.js:181:11)\n    at ProjectService.getDefaultProject (/x/typescript.js:190:20)";
        assert_eq!(
            without_trace("t", "workspace/symbol", tsserver),
            "<main> TypeScript Server Error (5.9.3) No Project. Error: No Project."
        );
        assert_eq!(
            without_trace("t", "m", "content modified"),
            "content modified"
        );
        assert_eq!(
            without_trace("t", "m", &"x".repeat(300)).chars().count(),
            201
        );
    }

    #[test]
    fn an_error_reported_as_progress_is_not_indexing() {
        let mut status = Status::default();
        status
            .progress
            .insert("a".into(), "Error loading workspace".into());
        assert_eq!(status.indexing(), None);
        status.progress.insert("b".into(), "Indexing".into());
        assert_eq!(status.indexing().as_deref(), Some("Indexing"));
    }

    #[test]
    fn settings_sections_are_found_by_dotted_path() {
        let settings = json!({"python": {"analysis": {"mode": "x"}}, "rust-analyzer": {"a": 1}});
        assert_eq!(
            lookup_section(&settings, "python.analysis"),
            json!({"mode": "x"})
        );
        assert_eq!(lookup_section(&settings, "rust-analyzer"), json!({"a": 1}));
        assert_eq!(lookup_section(&settings, "nope.x"), Value::Null);
    }

    /// Live processes (not zombies) of a process group, from /proc.
    #[cfg(target_os = "linux")]
    fn live_members(group: u32) -> Vec<u32> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            let Some((_, rest)) = stat.rsplit_once(')') else {
                continue;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            if fields.get(2) == Some(&group.to_string().as_str()) && fields[0] != "Z" {
                found.push(pid);
            }
        }
        found
    }

    /// The pipe's end (this process gone, or here the watchdog's handle dropped) makes the
    /// watchdog kill the whole group: the leader and what it started in the background.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_watchdog_kills_the_group_when_its_pipe_closes() {
        use std::os::unix::process::ExitStatusExt;
        let mut leader = tokio::process::Command::new("/bin/sh")
            .args(["-c", "sleep 300 & wait"])
            .stdin(Stdio::null())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let group = leader.id().unwrap();
        let dog = Containment::new().watchdog(group).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        // The leader, its sleep, and the watchdog.
        while live_members(group).len() < 3 {
            assert!(Instant::now() < deadline, "{:?}", live_members(group));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        drop(dog);
        let status = tokio::time::timeout(Duration::from_secs(10), leader.wait())
            .await
            .expect("the group was not killed")
            .unwrap();
        assert_eq!(status.signal(), Some(9));
        while !live_members(group).is_empty() {
            assert!(Instant::now() < deadline, "{:?}", live_members(group));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    #[test]
    fn indexing_is_open_progress_or_not_quiescent() {
        let mut s = Status::default();
        assert_eq!(s.indexing(), None);
        s.quiescent = Some(false);
        assert!(s.indexing().is_some());
        s.quiescent = Some(true);
        s.progress.insert("1".into(), "Indexing".into());
        assert_eq!(s.indexing().as_deref(), Some("Indexing"));
    }
}
