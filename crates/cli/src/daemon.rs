//! `resolve-pr daemon`: keeps language servers warm across `resolve-pr tool` calls of the code
//! tools. A call of a code tool connects to this checkout's daemon over a Unix socket (starting
//! it, detached, when none answers), sends one request line and reads progress lines and one
//! result line back. A daemon exits after `RESOLVE_PR_DAEMON_IDLE_SECS` (default 600) without
//! a call, when its binary changes, or on `resolve-pr daemon stop`.
//!
//! Invariants: one daemon per user, checkout (working directory) and environment (the key
//! hashes them with the binary's identity, so a rebuilt binary or another token gets its own);
//! its socket lives in a directory of the user's alone (0700, owned by them, else refused);
//! a daemon is started only under the key's lock file, and whoever holds it replaces a socket
//! nobody answers on (a daemon killed with -9), so concurrent first calls start one daemon.

use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use resolve_pr_mcp::{Options, Selection};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

/// Seconds without a call after which a daemon exits.
pub const IDLE_ENV: &str = "RESOLVE_PR_DAEMON_IDLE_SECS";
/// Set (to anything but `0`): `resolve-pr tool` never uses a daemon.
pub const OPT_OUT_ENV: &str = "RESOLVE_PR_NO_DAEMON";
const DEFAULT_IDLE: Duration = Duration::from_secs(10 * 60);
/// How long a started daemon may take to answer on its socket.
const START_WAIT: Duration = Duration::from_secs(15);
/// The longest request line a daemon reads.
const MAX_REQUEST_BYTES: u64 = resolve_pr_mcp::MAX_MESSAGE_BYTES as u64;

/// Where this checkout's daemon listens, its lock file and its log.
#[derive(Debug)]
pub struct Paths {
    pub socket: PathBuf,
    lock: PathBuf,
    log: PathBuf,
}

/// Whether `resolve-pr tool` may use a daemon: not with `--no-daemon` or `RESOLVE_PR_NO_DAEMON`.
pub fn enabled(no_daemon_flag: bool) -> bool {
    !no_daemon_flag
        && std::env::var(OPT_OUT_ENV).map_or(true, |v| v.trim().is_empty() || v.trim() == "0")
}

impl Paths {
    /// The paths for the current user, working directory, environment and binary.
    pub fn current() -> anyhow::Result<Paths> {
        let dir = private_dir()?;
        let key = key()?;
        Ok(Paths {
            socket: dir.join(format!("{key}.sock")),
            lock: dir.join(format!("{key}.lock")),
            log: dir.join(format!("{key}.log")),
        })
    }
}

/// `$XDG_RUNTIME_DIR/resolve-pr`, or `resolve-pr-UID` in the temporary directory: created
/// 0700, and refused when someone else owns it or others may write to it.
fn private_dir() -> anyhow::Result<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(runtime) => PathBuf::from(runtime).join("resolve-pr"),
        None => std::env::temp_dir().join(format!("resolve-pr-{uid}")),
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(anyhow!("cannot create {}: {e}", dir.display())),
    }
    let meta = std::fs::symlink_metadata(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?;
    if !meta.is_dir() || meta.uid() != uid || meta.permissions().mode() & 0o077 != 0 {
        bail!(
            "{} is not a directory of this user's alone (owner uid {}, mode {:o}); remove it or \
             set XDG_RUNTIME_DIR to a private directory",
            dir.display(),
            meta.uid(),
            meta.permissions().mode() & 0o7777
        );
    }
    Ok(dir)
}

/// What makes one daemon fit a call: the working directory (paths in arguments are relative
/// to it), the environment a call reads, and the binary (a rebuilt one gets a new daemon).
fn key() -> anyhow::Result<String> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let mut hash = Sha256::new();
    hash.update(cwd.as_os_str().as_encoded_bytes());
    hash.update([0]);
    hash.update(exe_identity().unwrap_or_default());
    let mut vars: Vec<_> = std::env::vars_os()
        .filter(|(name, _)| {
            let name = name.to_string_lossy();
            let relevant = [
                "RESOLVE_PR_",
                "GITHUB_",
                "GH_",
                "FORGEJO_",
                "GITEA_",
                "XDG_CONFIG",
                "XDG_STATE",
                "XDG_CACHE",
            ]
            .iter()
            .any(|p| name.starts_with(p))
                || [
                    "PATH",
                    "HOME",
                    "VIRTUAL_ENV",
                    "CARGO_HOME",
                    "RUSTUP_HOME",
                    "NO_COLOR",
                ]
                .contains(&name.as_ref());
            relevant && !name.starts_with("RESOLVE_PR_DAEMON") && name != OPT_OUT_ENV
        })
        .collect();
    vars.sort();
    for (name, value) in vars {
        hash.update(name.as_encoded_bytes());
        hash.update([0]);
        hash.update(value.as_encoded_bytes());
        hash.update([0]);
    }
    let digest = hash.finalize();
    Ok(format!(
        "daemon-{}",
        digest[..10]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    ))
}

/// The running binary's path, size and modification time; `None` once it is gone (replaced).
fn exe_identity() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    Some(format!(
        "{}:{}:{}.{}",
        exe.display(),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec()
    ))
}

/// A connection to this checkout's daemon, started (detached) when none answers.
pub async fn connect_or_start(paths: &Paths) -> anyhow::Result<UnixStream> {
    if let Ok(stream) = UnixStream::connect(&paths.socket).await {
        return Ok(stream);
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&paths.lock)
        .with_context(|| format!("cannot open {}", paths.lock.display()))?;
    // Whoever holds the lock starts the daemon; the others wait here and then connect.
    let lock = tokio::task::spawn_blocking(move || lock.lock().map(|()| lock))
        .await?
        .with_context(|| format!("cannot lock {}", paths.lock.display()))?;
    let connected = match UnixStream::connect(&paths.socket).await {
        Ok(stream) => Ok(stream),
        Err(_) => start(paths).await,
    };
    drop(lock);
    connected
}

/// Starts `resolve-pr daemon run` in a process group of its own, its stderr to the log, and
/// waits until it answers. A socket nobody answers on is stale: the lock holder removes it.
async fn start(paths: &Paths) -> anyhow::Result<UnixStream> {
    use std::os::unix::process::CommandExt as _;
    match std::fs::remove_file(&paths.socket) {
        Ok(()) => tracing::info!(socket = %paths.socket.display(), "removed a stale socket"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!("cannot remove the stale {}: {e}", paths.socket.display()),
    }
    let exe = std::env::current_exe().context("cannot find this program's path")?;
    let log = std::fs::File::create(&paths.log)
        .with_context(|| format!("cannot write {}", paths.log.display()))?;
    let mut child = std::process::Command::new(exe)
        .args(["daemon", "run"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .context("cannot start the daemon")?;
    let deadline = Instant::now() + START_WAIT;
    loop {
        if let Ok(stream) = UnixStream::connect(&paths.socket).await {
            // Reaped by whoever reaps orphans once this process exits.
            drop(child);
            return Ok(stream);
        }
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(&paths.log).unwrap_or_default();
            let last = log.lines().last().unwrap_or("").trim();
            bail!("the daemon exited ({status}): {last}");
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            bail!(
                "the daemon did not answer within {} s",
                START_WAIT.as_secs()
            );
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
}

/// Sends one request and reads the daemon's lines: each `progress` goes to `progress`, the
/// last line (anything else) is returned.
pub async fn request(
    stream: UnixStream,
    request: &Value,
    mut progress: impl FnMut(&str),
) -> anyhow::Result<Value> {
    let (read, mut write) = stream.into_split();
    let mut line = request.to_string().into_bytes();
    line.push(b'\n');
    write.write_all(&line).await?;
    write.flush().await?;
    let mut lines = BufReader::new(read).lines();
    while let Some(line) = lines.next_line().await? {
        let message: Value = serde_json::from_str(&line)
            .with_context(|| format!("the daemon sent a line that is not JSON: {line:?}"))?;
        match message.get("progress").and_then(Value::as_str) {
            Some(text) => progress(text),
            None => return Ok(message),
        }
    }
    bail!("the daemon closed the connection without an answer")
}

/// What the daemon shares between connections.
struct State {
    ctx: resolve_pr_tools::Context,
    started: Instant,
    calls: AtomicU64,
    active: AtomicUsize,
    last_call: std::sync::Mutex<Instant>,
    idle: Duration,
    stop: tokio::sync::Notify,
}

/// `resolve-pr daemon run`: serves this checkout's socket until idle, stopped, its binary
/// changes, or its socket is removed.
pub async fn run() -> anyhow::Result<()> {
    let paths = Paths::current()?;
    if UnixStream::connect(&paths.socket).await.is_ok() {
        bail!("a daemon already serves {}", paths.socket.display());
    }
    let _ = std::fs::remove_file(&paths.socket);
    let mut ctx = crate::context_from_environment().map_err(|e| anyhow!(e.error))?;
    crate::for_the_cli(&mut ctx, &|k| std::env::var(k).ok());
    let listener = UnixListener::bind(&paths.socket)
        .with_context(|| format!("cannot listen on {}", paths.socket.display()))?;
    let bound = std::fs::metadata(&paths.socket)?.ino();
    let idle = std::env::var(IDLE_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(DEFAULT_IDLE, Duration::from_secs_f64);
    let state = Arc::new(State {
        ctx,
        started: Instant::now(),
        calls: AtomicU64::new(0),
        active: AtomicUsize::new(0),
        last_call: std::sync::Mutex::new(Instant::now()),
        idle,
        stop: tokio::sync::Notify::new(),
    });
    let identity = exe_identity();
    tracing::info!(socket = %paths.socket.display(), idle_secs = idle.as_secs_f64(), "daemon listening");
    let mut tick = tokio::time::interval(Duration::from_millis(250).min(idle / 2));
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => { tokio::spawn(serve(Arc::clone(&state), stream)); }
                Err(e) => tracing::warn!(error = %e, "accept failed"),
            },
            () = state.stop.notified() => break,
            _ = term.recv() => break,
            _ = tick.tick() => {
                let idle_for = state.last_call.lock().map(|t| t.elapsed()).unwrap_or_default();
                if state.active.load(Ordering::SeqCst) == 0 && idle_for >= state.idle {
                    tracing::info!("idle; exiting");
                    break;
                }
                if exe_identity() != identity {
                    tracing::info!("the binary changed; exiting");
                    break;
                }
                if !std::fs::metadata(&paths.socket).is_ok_and(|m| m.ino() == bound) {
                    tracing::info!("the socket is gone; exiting, since no call can reach this daemon");
                    break;
                }
            }
        }
    }
    // Only our own socket: a newer daemon may have replaced it.
    if std::fs::metadata(&paths.socket).is_ok_and(|m| m.ino() == bound) {
        let _ = std::fs::remove_file(&paths.socket);
    }
    state.ctx.lsp.shutdown_all().await;
    Ok(())
}

/// One connection: one request line, then progress lines and one answer.
async fn serve(state: Arc<State>, stream: UnixStream) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read.take(MAX_REQUEST_BYTES));
    let mut line = String::new();
    if reader.read_line(&mut line).await.is_err() || line.is_empty() {
        return;
    }
    let request: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
    let answer = if let Some(call) = request.get("call") {
        state.active.fetch_add(1, Ordering::SeqCst);
        state.calls.fetch_add(1, Ordering::SeqCst);
        let answer = call_tool(&state, call, reader, &mut write).await;
        if let Ok(mut last) = state.last_call.lock() {
            *last = Instant::now();
        }
        state.active.fetch_sub(1, Ordering::SeqCst);
        answer
    } else if request.get("status").is_some() {
        Some(status(&state).await)
    } else if request.get("stop").is_some() {
        // Answered before the daemon stops: its end takes this connection with it.
        let mut line = json!({"stopping": std::process::id()})
            .to_string()
            .into_bytes();
        line.push(b'\n');
        let _ = write.write_all(&line).await;
        let _ = write.flush().await;
        state.stop.notify_one();
        None
    } else {
        Some(json!({"error": {"error": "the daemon did not understand the request"}}))
    };
    if let Some(answer) = answer {
        let mut line = answer.to_string().into_bytes();
        line.push(b'\n');
        let _ = write.write_all(&line).await;
        let _ = write.flush().await;
    }
}

/// Runs a tool call, forwarding its progress; `None` when the client went away (the call is
/// dropped, as a cancelled MCP call is).
async fn call_tool<R: tokio::io::AsyncRead + Unpin>(
    state: &State,
    call: &Value,
    mut client: R,
    write: &mut tokio::net::unix::OwnedWriteHalf,
) -> Option<Value> {
    let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
    let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
    let options = Options {
        read_only: call.get("read_only").and_then(Value::as_bool) == Some(true),
        toolsets: call.get("toolsets").and_then(|t| {
            serde_json::from_value::<Option<Vec<String>>>(t.clone()).unwrap_or_default()
        }),
    };
    let selection = match Selection::new(&options) {
        Ok(selection) => selection.with_toolset_of(name),
        Err(e) => {
            return Some(json!({"error": resolve_pr_core::Error::user(e.to_string()).to_json()}));
        }
    };
    let tool = match selection.find(name) {
        Ok(tool) => tool,
        Err(e) => return Some(json!({"error": e.to_json()})),
    };
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let mut ctx = state.ctx.with_progress(Arc::new(Forward(sender)));
    ctx.read_only = options.read_only;
    let work = tool.call(&ctx, arguments);
    tokio::pin!(work);
    let mut byte = [0u8; 1];
    loop {
        tokio::select! {
            outcome = &mut work => return Some(match outcome {
                Ok(out) => json!({"result": out.structured, "failed": out.failed}),
                Err(e) => json!({"error": e.to_json()}),
            }),
            Some(message) = receiver.recv() => {
                let mut line = json!({"progress": message}).to_string().into_bytes();
                line.push(b'\n');
                if write.write_all(&line).await.is_err() {
                    return None;
                }
            }
            read = client.read(&mut byte) => if !matches!(read, Ok(n) if n > 0) {
                tracing::info!(tool = name, "the client went away; call dropped");
                return None;
            },
        }
    }
}

/// Progress of a daemon call, as the text the CLI shows.
struct Forward(tokio::sync::mpsc::UnboundedSender<String>);

impl resolve_pr_tools::ProgressSink for Forward {
    fn report(
        &self,
        _progress: f64,
        _total: Option<f64>,
        message: String,
    ) -> resolve_pr_tools::BoxFuture<'_, ()> {
        let _ = self.0.send(message);
        Box::pin(async {})
    }
}

async fn status(state: &State) -> Value {
    let servers: Vec<Value> = state
        .ctx
        .lsp
        .running()
        .await
        .into_iter()
        .map(|s| {
            json!({
                "server": s.server,
                "pid": s.pid,
                "root": s.root,
                "indexing": s.indexing,
            })
        })
        .collect();
    json!({"status": {
        "pid": std::process::id(),
        "uptime_seconds": state.started.elapsed().as_secs(),
        "calls": state.calls.load(Ordering::SeqCst),
        "idle_exit_seconds": state.idle.as_secs_f64(),
        "servers": servers,
    }})
}

/// `resolve-pr daemon status|stop`: what this checkout's daemon runs, or stops it. Neither
/// starts one.
#[allow(clippy::print_stdout, reason = "the command's output")]
pub async fn control(stop: bool) -> anyhow::Result<std::process::ExitCode> {
    let paths = Paths::current()?;
    let Ok(stream) = UnixStream::connect(&paths.socket).await else {
        println!("no daemon runs for this directory");
        return Ok(std::process::ExitCode::SUCCESS);
    };
    let ask = if stop {
        json!({"stop": true})
    } else {
        json!({"status": true})
    };
    let answer = request(stream, &ask, |_| {}).await?;
    let mut out = std::io::stdout().lock();
    if let Some(pid) = answer.get("stopping") {
        writeln!(out, "stopped the daemon (pid {pid})")?;
        return Ok(std::process::ExitCode::SUCCESS);
    }
    let s = answer
        .get("status")
        .ok_or_else(|| anyhow!("the daemon answered {answer}"))?;
    writeln!(
        out,
        "daemon pid {} up {} s, {} calls, exits after {} s idle\nsocket {}",
        s["pid"],
        s["uptime_seconds"],
        s["calls"],
        s["idle_exit_seconds"],
        paths.socket.display()
    )?;
    for server in s["servers"].as_array().into_iter().flatten() {
        let state = server["indexing"].as_str().unwrap_or("ready");
        let line = format!(
            "server {} pid {} in {}: {state}",
            server["server"].as_str().unwrap_or("?"),
            server["pid"],
            server["root"].as_str().unwrap_or("?"),
        );
        writeln!(out, "{}", resolve_pr_core::terminal::printable(&line))?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}
