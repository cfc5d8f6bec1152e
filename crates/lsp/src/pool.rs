//! The running servers: one per language and project root, started on first use, kept
//! warm, shut down after an idle time, and held under a memory cap across all of them (the
//! least recently used go first). A server that died or was killed is started again on the
//! next call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use crate::client::{Client, ClientConfig};
use crate::error::{Error, Result};
use crate::servers::{self, Installed, Language, Missing};
use crate::trust::{self, Trust, TrustPolicy};

/// How servers are kept.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// A server unused this long is shut down.
    pub idle_timeout: Duration,
    /// Resident memory of all servers together; above it, the least recently used are shut
    /// down before another starts.
    pub memory_cap_bytes: u64,
    /// One request's time limit.
    pub request_timeout: Duration,
    /// How long a cancelled request may go unanswered before its server is killed.
    pub cancel_grace: Duration,
    /// How long a question about the whole workspace (references, implementations,
    /// callers, symbols) waits for the server to finish indexing before it is answered with
    /// what the server has, marked partial. Also how long a request the server keeps
    /// dropping while its workspace changes is asked again.
    pub ready_wait: Duration,
    /// How long one code tool call may take before it answers with what it has, or with
    /// what the servers are still doing: under the 60 s after which the TypeScript SDK (MCP
    /// Inspector, many clients) gives up on a request whatever progress says. A server start
    /// or `cargo check` the call leaves goes on for the next call.
    pub call_wait: Duration,
    /// Which checkouts may run their own code; the others' servers run hardened.
    pub trust: TrustPolicy,
    /// A source file larger than this is not given to a server (nor read for context): said
    /// as skipped instead.
    pub max_file_bytes: u64,
}

/// See [`PoolConfig::call_wait`]: a quarter of a minute's margin under the usual client
/// timeout, for a machine busy enough that the answer itself takes seconds to write.
pub const DEFAULT_CALL_WAIT: Duration = Duration::from_secs(45);

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            idle_timeout: Duration::from_secs(10 * 60),
            memory_cap_bytes: 8 << 30,
            request_timeout: Duration::from_secs(60),
            cancel_grace: Duration::from_secs(5),
            ready_wait: Duration::from_secs(40),
            call_wait: DEFAULT_CALL_WAIT,
            trust: TrustPolicy::nothing(),
            max_file_bytes: 4 << 20,
        }
    }
}

impl PoolConfig {
    /// The defaults, with `RESOLVE_PR_LSP_IDLE_SECONDS`, `RESOLVE_PR_LSP_MEMORY_MIB`,
    /// `RESOLVE_PR_LSP_MAX_FILE_MIB` and `RESOLVE_PR_CODE_CALL_WAIT` (seconds) read from the
    /// environment when set, and trust as [`TrustPolicy::from_env`] gives it (the
    /// working directory's project and `RESOLVE_PR_TRUST`).
    pub fn from_env() -> Self {
        let mut config = PoolConfig {
            trust: TrustPolicy::from_env(),
            ..PoolConfig::default()
        };
        let number = |name: &str| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        if let Some(s) = number("RESOLVE_PR_LSP_IDLE_SECONDS") {
            config.idle_timeout = Duration::from_secs(s.max(1));
        }
        if let Some(m) = number("RESOLVE_PR_LSP_MEMORY_MIB") {
            config.memory_cap_bytes = m.max(64) << 20;
        }
        if let Some(m) = number("RESOLVE_PR_LSP_MAX_FILE_MIB") {
            config.max_file_bytes = m.max(1) << 20;
        }
        if let Some(s) = number("RESOLVE_PR_CODE_CALL_WAIT") {
            // A day at most: "forever" must not overflow an Instant.
            config.call_wait = Duration::from_secs(s.clamp(1, 86_400));
        }
        config
    }
}

/// A server ready for questions about files under its root.
#[derive(Clone)]
pub struct Server {
    pub client: Client,
    pub language: Language,
    pub root: PathBuf,
    pub installed: Installed,
    /// Whether it runs the checkout's own code, or hardened.
    pub trust: Trust,
    /// How long a workspace-wide question waits for indexing to end.
    pub ready_wait: Duration,
    /// The largest file given to it.
    pub max_file_bytes: u64,
    /// For a server that does not watch files itself: what they were at the last question.
    pub(crate) disk: Option<Arc<crate::disk::DiskWatch>>,
    /// Set once the server has a project file open (see `Server::warm_up`).
    pub(crate) warmed: Arc<tokio::sync::OnceCell<()>>,
}

struct Slot {
    server: Server,
    started: Instant,
    last_used: Instant,
}

/// One running server, as health reports it.
#[derive(Debug, Clone)]
pub struct Running {
    pub language: Language,
    pub server: &'static str,
    pub root: PathBuf,
    pub pid: Option<u32>,
    pub trust: Trust,
    /// Its cgroup, when it runs in one.
    pub cgroup: Option<PathBuf>,
    /// What it said it is busy with; `None`: ready.
    pub indexing: Option<String>,
    pub resident_bytes: u64,
    pub open_documents: usize,
    pub uptime: Duration,
    pub idle: Duration,
}

/// A server starting, or running and indexing, as [`Pool::busy`] reads it.
#[derive(Debug, Clone)]
pub struct Busy {
    pub language: Language,
    pub server: &'static str,
    pub root: PathBuf,
    /// Starting, for this long.
    pub starting_for: Option<Duration>,
    /// Running, and what it said it is busy with.
    pub indexing: Option<String>,
}

/// Each known server: installed (where, which version) or why not.
#[derive(Debug, Clone)]
pub struct Availability {
    pub language: Language,
    pub found: std::result::Result<Installed, Missing>,
}

/// What a server is started for: most questions go to the language's navigation server;
/// refactorings go to a refactoring server where one is installed (Python's pylsp with
/// rope offers the extract and inline basedpyright does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Navigation,
    Refactoring,
}

/// A slot: one server per language, root and role.
type Key = (Language, PathBuf, Role);

/// What a start of one (language, root) holds while it runs.
type StartGate = Arc<tokio::sync::Mutex<()>>;

/// A start under way: which server, since when.
type StartUnderWay = (&'static str, Instant);

struct PoolInner {
    config: PoolConfig,
    /// The servers it knows (`servers::SERVERS`, or a test's own).
    registry: &'static [servers::ServerSpec],
    slots: tokio::sync::Mutex<HashMap<Key, Slot>>,
    /// One start lock per (language, root) being started: a start holds its own only.
    starting: std::sync::Mutex<HashMap<Key, StartGate>>,
    /// The starts under way: which server, since when (for [`Pool::busy`]).
    starts: std::sync::Mutex<HashMap<Key, StartUnderWay>>,
    probes: tokio::sync::Mutex<HashMap<&'static str, std::result::Result<Installed, Missing>>>,
    reaper: std::sync::Once,
}

/// The servers of one process. Cheap to clone.
#[derive(Clone)]
pub struct Pool {
    inner: Arc<PoolInner>,
}

impl Default for Pool {
    fn default() -> Self {
        Pool::new(PoolConfig::default())
    }
}

impl Pool {
    pub fn new(config: PoolConfig) -> Self {
        Pool::with_registry(config, servers::SERVERS)
    }

    /// A pool that knows only `registry`'s servers (tests run stand-in servers this way).
    pub fn with_registry(config: PoolConfig, registry: &'static [servers::ServerSpec]) -> Self {
        Pool {
            inner: Arc::new(PoolInner {
                config,
                registry,
                slots: tokio::sync::Mutex::new(HashMap::new()),
                starting: std::sync::Mutex::new(HashMap::new()),
                starts: std::sync::Mutex::new(HashMap::new()),
                probes: tokio::sync::Mutex::new(HashMap::new()),
                reaper: std::sync::Once::new(),
            }),
        }
    }

    pub fn config(&self) -> &PoolConfig {
        &self.inner.config
    }

    /// How a checkout (a project root) is trusted: whether its own code may run.
    pub fn trust_of(&self, root: &Path) -> Trust {
        self.inner.config.trust.of(root)
    }

    /// The server for `language` at `root`, started if it is not running. A start (up to a
    /// minute for a cold server) holds only its own (language, root)'s start lock, never the
    /// pool's: questions to other servers, and other starts, go on meanwhile; a second caller
    /// for the same root waits for that start and takes its server.
    ///
    /// The start runs as a task of its own: a caller that gives up (its call's deadline, a
    /// cancelled request) leaves it running, so the next call finds the server started or
    /// further along, not a start from zero that a slow machine never finishes in one call.
    pub async fn server(&self, language: Language, root: &Path) -> Result<Server> {
        self.server_in_role(language, root, Role::Navigation).await
    }

    /// The server that performs refactorings for `language` at `root`: the refactoring
    /// server where one is installed, else the navigation server.
    pub async fn refactoring_server(&self, language: Language, root: &Path) -> Result<Server> {
        let installed = self.inner.registry.iter().any(|s| {
            s.language == language && s.refactors_only && servers::find_program(s.program).is_some()
        });
        let trusted = self.inner.config.trust.of(root) == crate::Trust::Trusted;
        let role = if installed && trusted {
            Role::Refactoring
        } else {
            Role::Navigation
        };
        self.server_in_role(language, root, role).await
    }

    /// Why `language`'s refactoring server is not the one asked at `root`, when it has one:
    /// not installed (with the command that installs it) or the checkout is not trusted.
    pub fn refactoring_server_missing(&self, language: Language, root: &Path) -> Option<String> {
        let spec = self
            .inner
            .registry
            .iter()
            .find(|s| s.language == language && s.refactors_only)?;
        if servers::find_program(spec.program).is_none() {
            return Some(format!(
                "{} performs them and is not installed ({})",
                spec.name, spec.install
            ));
        }
        (self.inner.config.trust.of(root) != crate::Trust::Trusted).then(|| {
            format!(
                "{} performs them, in trusted checkouts only (RESOLVE_PR_TRUST)",
                spec.name
            )
        })
    }

    async fn server_in_role(&self, language: Language, root: &Path, role: Role) -> Result<Server> {
        self.start_reaper();
        let key = (language, root.to_owned(), role);
        if let Some(server) = self.running_server(&key).await {
            return Ok(server);
        }
        let pool = self.clone();
        let started = tokio::spawn(async move { pool.gated_start(key).await }).await;
        started.unwrap_or_else(|e| {
            Err(Error::ServerFailed {
                server: "language server",
                message: format!("its start ended abnormally: {e}"),
            })
        })
    }

    /// What a start under way and the running servers' indexing are, read without waiting on
    /// any lock: a call reports it as progress while it waits, and says it when its deadline
    /// comes first. A running server whose state cannot be read at once is left out.
    pub fn busy(&self) -> Vec<Busy> {
        let mut out: Vec<Busy> = self
            .inner
            .starts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|((language, root, _), (server, since))| Busy {
                language: *language,
                server,
                root: root.clone(),
                starting_for: Some(since.elapsed()),
                indexing: None,
            })
            .collect();
        if let Ok(slots) = self.inner.slots.try_lock() {
            out.extend(slots.values().filter_map(|s| {
                let client = &s.server.client;
                let indexing = (!client.exited())
                    .then(|| client.status().indexing())
                    .flatten()?;
                Some(Busy {
                    language: s.server.language,
                    server: s.server.installed.spec.name,
                    root: s.server.root.clone(),
                    starting_for: None,
                    indexing: Some(indexing),
                })
            }));
        }
        out.sort_by(|a, b| (a.language, &a.root).cmp(&(b.language, &b.root)));
        out
    }

    async fn gated_start(&self, key: Key) -> Result<Server> {
        let (language, root, role) = (key.0, key.1.as_path(), key.2);
        loop {
            let gate = self
                .inner
                .starting
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(key.clone())
                .or_default()
                .clone();
            let _starting = gate.lock().await;
            // Started by the caller this one waited for.
            if let Some(server) = self.running_server(&key).await {
                return Ok(server);
            }
            // That caller's start failed and its gate is gone: a newer caller may hold a new
            // one, so this one queues there rather than starting a second copy beside it.
            let current = self
                .inner
                .starting
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&key)
                .is_some_and(|g| Arc::ptr_eq(g, &gate));
            if !current {
                continue;
            }
            let started = {
                // Whatever ends the start (an answer, an error, a panic in it), it is no
                // longer under way.
                struct Ended<'a>(&'a PoolInner, &'a Key);
                impl Drop for Ended<'_> {
                    fn drop(&mut self) {
                        self.0
                            .starts
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .remove(self.1);
                    }
                }
                let _ended = Ended(&self.inner, &key);
                self.start(language, root, role).await
            };
            if let Ok(server) = &started {
                let now = Instant::now();
                self.inner.slots.lock().await.insert(
                    key.clone(),
                    Slot {
                        server: server.clone(),
                        started: now,
                        last_used: now,
                    },
                );
            }
            let mut starting = self
                .inner
                .starting
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if starting.get(&key).is_some_and(|g| Arc::ptr_eq(g, &gate)) {
                starting.remove(&key);
            }
            return started;
        }
    }

    /// Whether a live server for `language` at `root` is running (nothing is started).
    pub async fn is_running(&self, language: Language, root: &Path) -> bool {
        self.inner
            .slots
            .lock()
            .await
            .get(&(language, root.to_owned(), Role::Navigation))
            .is_some_and(|s| !s.server.client.exited())
    }

    /// The live server of a slot, marked used; a dead one is forgotten.
    async fn running_server(&self, key: &Key) -> Option<Server> {
        let mut slots = self.inner.slots.lock().await;
        let slot = slots.get_mut(key)?;
        if slot.server.client.exited() {
            slots.remove(key);
            return None;
        }
        slot.last_used = Instant::now();
        Some(slot.server.clone())
    }

    /// Starts a server for `language` at `root` (the pool's lock is not held meanwhile).
    async fn start(&self, language: Language, root: &Path, role: Role) -> Result<Server> {
        // The first server whose program is found is started at once; its version command
        // (half a second for a Node server) runs only when the start fails, to tell "not
        // really installed" (rustup's proxy without the component) from a failing server.
        let in_role: Vec<&'static servers::ServerSpec> = match role {
            Role::Navigation => self.candidates(language).collect(),
            Role::Refactoring => self
                .inner
                .registry
                .iter()
                .filter(|s| s.language == language && s.refactors_only)
                .collect(),
        };
        let found = in_role.into_iter().find_map(|spec| {
            servers::find_program(spec.program).map(|path| Installed {
                spec,
                path,
                version: String::new(),
            })
        });
        let Some(mut installed) = found else {
            return Err(self.installed(language).await.err().unwrap_or_else(|| {
                Error::ServerFailed {
                    server: "language server",
                    message: "it was found, then not".to_owned(),
                }
            }));
        };
        self.inner
            .starts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                (language, root.to_owned(), role),
                (installed.spec.name, Instant::now()),
            );
        self.make_room().await;
        let spec = installed.spec;
        let config = &self.inner.config;
        let trust = config.trust.of(root);
        let hardening = trust::hardening(spec, &installed.path, root, trust).map_err(|why| {
            Error::ServerFailed {
                server: spec.name,
                message: why,
            }
        })?;
        let mut initialization_options = (spec.initialization_options)(root);
        if let Some(patch) = &hardening.initialization_options {
            trust::merge(
                initialization_options.get_or_insert(serde_json::Value::Null),
                patch,
            );
        }
        let mut settings = (spec.settings)(root);
        if let Some(patch) = &hardening.settings {
            trust::merge(&mut settings, patch);
        }
        let started = Client::start(ClientConfig {
            name: spec.name,
            program: installed.path.clone(),
            args: spec.args.iter().map(|a| (*a).to_owned()).collect(),
            root: root.to_owned(),
            initialization_options,
            settings,
            push_settings: spec.push_settings,
            env: hardening.env,
            max_document_bytes: config.max_file_bytes,
            reports_status: spec.reports_status,
            files_found: spec.files_found,
            request_timeout: config.request_timeout,
            cancel_grace: config.cancel_grace,
            retry_window: config.ready_wait,
        })
        .await;
        let client = match started {
            Ok(client) => client,
            Err(e) => {
                return Err(match servers::probe(spec).await {
                    Err(missing) => Error::NotInstalled {
                        language: language.as_str(),
                        looked_for: format!("{} ({})", spec.name, missing.reason),
                        install: spec.install,
                    },
                    Ok(_) => e,
                });
            }
        };
        installed.version = client.server_version().unwrap_or_default().to_owned();
        let disk = if spec.watches_files {
            None
        } else {
            let (root, language) = (root.to_owned(), language);
            tokio::task::spawn_blocking(move || crate::disk::DiskWatch::new(&root, language))
                .await
                .ok()
                .map(Arc::new)
        };
        let server = Server {
            client,
            language,
            root: root.to_owned(),
            installed,
            trust,
            ready_wait: config.ready_wait,
            max_file_bytes: config.max_file_bytes,
            disk,
            warmed: Arc::new(tokio::sync::OnceCell::new()),
        };
        Ok(server)
    }

    /// The preferred installed server for a language, or the error naming what to install.
    async fn installed(&self, language: Language) -> Result<Installed> {
        let mut missing = Vec::new();
        for a in self.availability_of(language).await {
            match a.found {
                Ok(installed) => return Ok(installed),
                Err(m) => missing.push(m),
            }
        }
        let preferred = self
            .candidates(language)
            .next()
            .map(|s| s.install)
            .unwrap_or("");
        Err(Error::NotInstalled {
            language: language.as_str(),
            looked_for: missing
                .iter()
                .map(|m| format!("{} ({})", m.spec.name, m.reason))
                .collect::<Vec<_>>()
                .join("; "),
            install: preferred,
        })
    }

    /// Each server of a language, probed once per process while found (a missing one is
    /// probed again, so installing it needs no restart).
    async fn availability_of(&self, language: Language) -> Vec<Availability> {
        let mut out = Vec::new();
        for spec in self.candidates(language) {
            let cached = self.inner.probes.lock().await.get(spec.name).cloned();
            let found = match cached {
                Some(Ok(found)) => Ok(found),
                _ => {
                    let probed = servers::probe(spec).await;
                    self.inner
                        .probes
                        .lock()
                        .await
                        .insert(spec.name, probed.clone());
                    probed
                }
            };
            out.push(Availability { language, found });
        }
        out
    }

    fn candidates(&self, language: Language) -> impl Iterator<Item = &'static servers::ServerSpec> {
        self.inner
            .registry
            .iter()
            .filter(move |s| s.language == language && !s.refactors_only)
    }

    /// Every known server, installed or not.
    pub async fn availability(&self) -> Vec<Availability> {
        let mut all = Vec::new();
        for language in Language::ALL {
            all.extend(self.availability_of(language).await);
        }
        all
    }

    /// Every running server, of every role (none is started).
    pub async fn running_servers(&self) -> Vec<Server> {
        let slots = self.inner.slots.lock().await;
        slots
            .values()
            .filter(|s| !s.server.client.exited())
            .map(|s| s.server.clone())
            .collect()
    }

    /// The servers running now.
    pub async fn running(&self) -> Vec<Running> {
        let slots: Vec<(Server, Instant, Instant)> = {
            let slots = self.inner.slots.lock().await;
            slots
                .values()
                .filter(|s| !s.server.client.exited())
                .map(|s| (s.server.clone(), s.started, s.last_used))
                .collect()
        };
        let mut out = Vec::new();
        for (server, started, last_used) in slots {
            out.push(Running {
                language: server.language,
                server: server.installed.spec.name,
                root: server.root.clone(),
                pid: server.client.pid(),
                trust: server.trust,
                cgroup: server.client.cgroup().map(Path::to_path_buf),
                indexing: server.client.status().indexing(),
                resident_bytes: server.client.resident_bytes(),
                open_documents: server.client.open_documents().await,
                uptime: started.elapsed(),
                idle: last_used.elapsed(),
            });
        }
        out.sort_by(|a, b| (a.language, &a.root).cmp(&(b.language, &b.root)));
        out
    }

    /// Shuts every server down (the MCP server is stopping).
    pub async fn shutdown_all(&self) {
        let slots: Vec<Slot> = self
            .inner
            .slots
            .lock()
            .await
            .drain()
            .map(|(_, s)| s)
            .collect();
        let grace = Duration::from_secs(2);
        let stops = slots.iter().map(|s| s.server.client.shutdown(grace));
        for stop in stops {
            stop.await;
        }
    }

    /// Before another server starts: shut down the least recently used until the others'
    /// memory is under the cap. The slots are taken out under the lock and shut down after
    /// it is released.
    async fn make_room(&self) {
        let mut going = Vec::new();
        {
            let mut slots = self.inner.slots.lock().await;
            slots.retain(|_, s| !s.server.client.exited());
            loop {
                let total: u64 = slots
                    .values()
                    .map(|s| s.server.client.resident_bytes())
                    .sum();
                if total <= self.inner.config.memory_cap_bytes || slots.is_empty() {
                    break;
                }
                let Some(oldest) = slots
                    .iter()
                    .min_by_key(|(_, s)| s.last_used)
                    .map(|(k, _)| k.clone())
                else {
                    break;
                };
                if let Some(slot) = slots.remove(&oldest) {
                    tracing::info!(
                        server = slot.server.installed.spec.name,
                        root = %slot.server.root.display(),
                        total,
                        "shutting down the least recently used server: memory cap"
                    );
                    going.push(slot);
                }
            }
        }
        for slot in going {
            slot.server.client.shutdown(Duration::from_secs(2)).await;
        }
    }

    /// Once per pool: a task that shuts down idle servers and forgets dead ones.
    fn start_reaper(&self) {
        let weak: Weak<PoolInner> = Arc::downgrade(&self.inner);
        self.inner.reaper.call_once(|| {
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                return;
            };
            runtime.spawn(async move {
                loop {
                    let period = match weak.upgrade() {
                        Some(inner) => (inner.config.idle_timeout / 4)
                            .clamp(Duration::from_millis(200), Duration::from_secs(30)),
                        None => return,
                    };
                    tokio::time::sleep(period).await;
                    let Some(inner) = weak.upgrade() else { return };
                    let idle: Vec<Slot> = {
                        let mut slots = inner.slots.lock().await;
                        let keys: Vec<_> = slots
                            .iter()
                            .filter(|(_, s)| {
                                s.server.client.exited()
                                    || s.last_used.elapsed() >= inner.config.idle_timeout
                            })
                            .map(|(k, _)| k.clone())
                            .collect();
                        keys.iter().filter_map(|k| slots.remove(k)).collect()
                    };
                    drop(inner);
                    for slot in idle {
                        if !slot.server.client.exited() {
                            tracing::info!(
                                server = slot.server.installed.spec.name,
                                "shutting down an idle server"
                            );
                            slot.server.client.shutdown(Duration::from_secs(2)).await;
                        }
                    }
                }
            });
        });
    }
}
