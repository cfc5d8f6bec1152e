//! How the CLI ends when its user does: a reader that stops early (`resolve-pr tools --json
//! | head`) ends the output quietly, with no panic and no backtrace on stderr; Ctrl-C during a
//! call leaves nothing of it running. And what outlives a call on purpose: the daemon that
//! keeps language servers warm between code calls, which ends when idle or stopped.

use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["tools", "--json"])
        .env("RESOLVE_PR_CONFIG", "/dev/null")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("resolve-pr starts");
    // The listing is larger than a pipe's buffer, so the write meets the closed end.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("resolve-pr ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{:?} {stderr}", out.status);
}

/// Runs git in `dir` for the test's setup, with a fixed identity and no user configuration.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Ada")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Ctrl-C (SIGINT) while `resolve-pr tool` fetches from a remote that never answers: the
/// fetch runs in a process group of its own, which the terminal's signal does not reach, so
/// the CLI cancels the call itself and exits 130, and no git is left running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_a_call_leaves_no_git_running() {
    let tmp = tempfile::tempdir().unwrap();
    let build = tmp.path().join("build");
    std::fs::create_dir(&build).unwrap();
    git(&build, &["init", "-q", "-b", "main"]);
    std::fs::write(build.join("f.txt"), "one\n").unwrap();
    git(&build, &["add", "-A"]);
    git(&build, &["commit", "-q", "-m", "base"]);
    let main = git(&build, &["rev-parse", "HEAD"]);
    git(&build, &["switch", "-q", "-c", "feature"]);
    std::fs::write(build.join("g.txt"), "two\n").unwrap();
    git(&build, &["add", "-A"]);
    git(&build, &["commit", "-q", "-m", "feature"]);
    let head = git(&build, &["rev-parse", "HEAD"]);
    let bare = tmp.path().join("git/acme/widgets.git");
    std::fs::create_dir_all(&bare).unwrap();
    git(&bare, &["init", "-q", "--bare", "-b", "main"]);
    git(
        &build,
        &[
            "push",
            "-q",
            bare.to_str().unwrap(),
            "refs/heads/*:refs/heads/*",
        ],
    );
    git(
        &build,
        &[
            "push",
            "-q",
            bare.to_str().unwrap(),
            &format!("{head}:refs/pull/1/head"),
        ],
    );
    let yaml = format!(
        "forge: github\nnow: \"2024-06-01T12:00:00Z\"\ntokens:\n  - {{token: tok, login: alice, permission: write}}\nrepos:\n  - owner: acme\n    name: widgets\n    pulls:\n      - number: 1\n        title: \"PR 1\"\n        author: alice\n        state: open\n        head: {{ref: feature, sha: {head}}}\n        base: {{ref: main, sha: {main}}}\n        created_at: \"2024-06-01T00:00:00Z\"\n"
    );
    let scenario = resolve_pr_forge_sim::Scenario::from_yaml(&yaml)
        .unwrap()
        .with_git_root(tmp.path().join("git"));
    let sim = resolve_pr_forge_sim::Sim::start(scenario).await.unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let config = home.join("config.toml");
    std::fs::write(&config, "").unwrap();
    let tool = |args: &str| {
        let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_resolve-pr"));
        c.args(["tool", "detect_merge_conflicts", args])
            .current_dir(&home)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("XDG_STATE_HOME", home.join("state"))
            .env("RESOLVE_PR_CONFIG", &config)
            .env("GITHUB_API_URL", sim.base_url())
            .env("GITHUB_TOKEN", "tok")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        c
    };
    // A first call makes the managed clone.
    let first = tool("{\"pr\": \"acme/widgets#1\"}").output().await.unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stdout)
    );
    let out: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    let clone = out["computed_in"]
        .as_str()
        .unwrap()
        .strip_prefix("managed clone ")
        .unwrap()
        .to_owned();
    // main moves on the forge, so the next call must fetch it; and the clone's remote now
    // accepts connections and never answers.
    git(&build, &["switch", "-q", "main"]);
    std::fs::write(build.join("h.txt"), "moved\n").unwrap();
    git(&build, &["add", "-A"]);
    git(&build, &["commit", "-q", "-m", "main moves"]);
    git(
        &build,
        &[
            "push",
            "-q",
            bare.to_str().unwrap(),
            "refs/heads/main:refs/heads/main",
        ],
    );
    let silent = resolve_pr_testkit::silent_http_remote("/acme/widgets.git");
    git(Path::new(&clone), &["config", "remote.origin.url", &silent]);
    let mut second = tool("{\"pr\": \"acme/widgets#1\"}").spawn().unwrap();
    let started = std::time::Instant::now();
    while resolve_pr_testkit::processes(&silent, None).is_empty() {
        assert!(
            started.elapsed().as_secs() < 30,
            "git never reached the remote"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let pid = second.id().unwrap().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), second.wait())
        .await
        .expect("the CLI ends on Ctrl-C")
        .unwrap();
    assert_eq!(status.code(), Some(130));
    tokio::task::spawn_blocking(move || {
        resolve_pr_testkit::assert_no_processes(&silent, Some(Path::new(&clone)));
    })
    .await
    .unwrap();
}

/// A directory to call code tools in, with a private runtime directory for its daemon; the
/// daemon is stopped when the test ends, however it ends.
struct Checkout {
    tmp: tempfile::TempDir,
    idle_secs: &'static str,
}

impl Checkout {
    fn new(idle_secs: &'static str) -> Checkout {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        std::fs::create_dir(&project).unwrap();
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/code/python");
        for entry in std::fs::read_dir(fixture).unwrap().flatten() {
            std::fs::copy(entry.path(), project.join(entry.file_name())).unwrap();
        }
        for dir in ["run", "home", "state"] {
            std::fs::create_dir(tmp.path().join(dir)).unwrap();
        }
        use std::os::unix::fs::PermissionsExt as _;
        let private = std::fs::Permissions::from_mode(0o700);
        std::fs::set_permissions(tmp.path().join("run"), private).unwrap();
        Checkout { tmp, idle_secs }
    }

    fn project(&self) -> std::path::PathBuf {
        self.tmp.path().join("project")
    }

    fn daemon_dir(&self) -> std::path::PathBuf {
        self.tmp.path().join("run/resolve-pr")
    }

    fn command(&self, args: &[&str]) -> Command {
        self.command_of(env!("CARGO_BIN_EXE_resolve-pr").as_ref(), args)
    }

    fn command_of(&self, program: &std::ffi::OsStr, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args)
            .current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.tmp.path().join("home"))
            .env("XDG_STATE_HOME", self.tmp.path().join("state"))
            .env("XDG_RUNTIME_DIR", self.tmp.path().join("run"))
            .env("RESOLVE_PR_CONFIG", "/dev/null")
            .env("RESOLVE_PR_DAEMON_IDLE_SECS", self.idle_secs)
            .env("GITHUB_TOKEN", "unused")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(path) = std::env::var_os("RESOLVE_PR_LSP_PATH") {
            c.env("RESOLVE_PR_LSP_PATH", path);
        }
        c
    }

    /// `resolve-pr tool NAME ARGS`: its JSON output; it must succeed, and through the daemon
    /// (no line saying it ran in process).
    fn tool(&self, name: &str, args: &str) -> serde_json::Value {
        let out = self.command(&["tool", name, args]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(!stderr.contains("no daemon"), "{stderr}");
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// `resolve-pr daemon status`'s output.
    fn status(&self) -> String {
        let out = self.command(&["daemon", "status"]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The daemon's pid, from its status.
    fn daemon_pid(&self) -> u32 {
        let status = self.status();
        status
            .strip_prefix("daemon pid ")
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no daemon: {status}"))
    }

    fn sockets(&self) -> usize {
        std::fs::read_dir(self.daemon_dir()).map_or(0, |d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "sock"))
                .count()
        })
    }
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let _ = self.command(&["daemon", "stop"]).output();
    }
}

/// Whether the process is gone (or a zombie nobody reaps).
fn gone(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit(") ").next().is_some_and(|s| s.starts_with('Z'))
    })
}

fn wait_until(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(
            started.elapsed().as_secs() < secs,
            "{what} not within {secs} s"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The second code call goes to the daemon the first started, and to the language server it
/// started: one daemon pid, one server pid, two calls; it answers much faster.
#[test]
fn a_second_code_call_reuses_the_daemon_and_its_language_server() {
    let checkout = Checkout::new("60");
    let out = checkout
        .command(&["tool", "health_check", "{}", "--no-daemon"])
        .output()
        .unwrap();
    let health: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let installed = health["servers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["language"] == "python" && s["installed"] == true);
    if !installed {
        let required = std::env::var("RESOLVE_PR_REQUIRE_LSP")
            .is_ok_and(|v| v.split(',').any(|l| l.trim() == "python"));
        assert!(!required, "basedpyright is required here: {health}");
        eprintln!("SKIPPED: no python server installed");
        return;
    }
    let args = r#"{"file_path": "main.py", "position": {"line": 5, "character": 12}}"#;
    let timed = || {
        let started = std::time::Instant::now();
        let out = checkout.tool("find_definition", args);
        assert!(out.to_string().contains("util.py"), "{out}");
        started.elapsed()
    };
    let first = timed();
    let status = checkout.status();
    let second = timed();
    let again = checkout.status();
    eprintln!(
        "first call {first:?}, second {second:?}: {:.1}x",
        first.as_secs_f64() / second.as_secs_f64()
    );
    let server = |status: &str| {
        status
            .lines()
            .find(|l| l.starts_with("server basedpyright pid "))
            .map(|l| l.split(' ').nth(3).unwrap_or("").to_owned())
            .unwrap_or_else(|| panic!("no server: {status}"))
    };
    assert_eq!(server(&status), server(&again), "{status}\n{again}");
    assert_eq!(
        status.split(" up ").next(),
        again.split(" up ").next(),
        "{status}\n{again}"
    );
    assert!(status.contains(", 1 calls,"), "{status}");
    assert!(again.contains(", 2 calls,"), "{again}");
}

/// A daemon without calls for RESOLVE_PR_DAEMON_IDLE_SECS exits and removes its socket.
#[test]
fn an_idle_daemon_exits() {
    let checkout = Checkout::new("2");
    checkout.tool("health_check", "{}");
    let pid = checkout.daemon_pid();
    assert_eq!(checkout.sockets(), 1);
    wait_until("the idle daemon's exit", 15, || gone(pid));
    assert_eq!(checkout.sockets(), 0);
    assert!(checkout.status().starts_with("no daemon"));
}

/// A daemon whose binary is replaced (an upgrade, a rebuild) exits; the new binary's calls
/// get a daemon of their own.
#[test]
fn a_daemon_exits_when_its_binary_changes() {
    let checkout = Checkout::new("60");
    let bin = checkout.tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let installed = bin.join("resolve-pr");
    std::fs::copy(env!("CARGO_BIN_EXE_resolve-pr"), &installed).unwrap();
    let run = |args: &[&str]| {
        let out = checkout
            .command_of(installed.as_os_str(), args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && stderr.is_empty(), "{stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&["tool", "health_check", "{}"]);
    let status = run(&["daemon", "status"]);
    let pid: u32 = status.split(' ').nth(2).unwrap().parse().unwrap();
    // Installed as upgrades are: a new file renamed over the old one.
    let upgrade = bin.join("resolve-pr.new");
    std::fs::copy(env!("CARGO_BIN_EXE_resolve-pr"), &upgrade).unwrap();
    std::fs::rename(&upgrade, &installed).unwrap();
    wait_until("the outdated daemon's exit", 10, || gone(pid));
    run(&["tool", "health_check", "{}"]);
    let status = run(&["daemon", "status"]);
    assert!(status.contains(", 1 calls,"), "{status}");
    let _ = run(&["daemon", "stop"]);
}

/// A daemon killed with -9 leaves its socket behind; the next call replaces it with a new
/// daemon instead of failing or running in process.
#[test]
fn a_stale_socket_is_replaced() {
    let checkout = Checkout::new("60");
    checkout.tool("health_check", "{}");
    let pid = checkout.daemon_pid();
    assert!(
        Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    wait_until("the killed daemon's end", 10, || gone(pid));
    assert_eq!(checkout.sockets(), 1, "the socket stays behind");
    checkout.tool("health_check", "{}");
    let replaced = checkout.daemon_pid();
    assert_ne!(replaced, pid);
    assert!(checkout.status().contains(", 1 calls,"));
}

/// Calls that all find no daemon start one: it serves all of them, and no other daemon is
/// left running unreachable.
#[test]
fn concurrent_first_calls_start_one_daemon() {
    let checkout = Checkout::new("60");
    let calls: Vec<_> = (0..8)
        .map(|_| {
            checkout
                .command(&["tool", "health_check", "{}"])
                .spawn()
                .unwrap()
        })
        .collect();
    for call in calls {
        let out = call.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(!stderr.contains("no daemon"), "{stderr}");
    }
    let status = checkout.status();
    assert!(status.contains(", 8 calls,"), "{status}");
    assert_eq!(checkout.sockets(), 1);
    // A daemon that found another serving exits at once; none may stay.
    let project = checkout.project();
    wait_until("one daemon", 5, || {
        resolve_pr_testkit::processes("\0", Some(&project)).len() == 1
    });

    // Who starts a daemon holds the lock: while another does, a call waits for it.
    let stop = checkout.command(&["daemon", "stop"]).output().unwrap();
    assert!(stop.status.success(), "{stop:?}");
    wait_until("the socket's removal", 10, || checkout.sockets() == 0);
    let lock = std::fs::read_dir(checkout.daemon_dir())
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "lock"))
        .unwrap();
    let lock = std::fs::File::options()
        .write(true)
        .open(lock.path())
        .unwrap();
    lock.lock().unwrap();
    let mut waiting = checkout
        .command(&["tool", "health_check", "{}"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(waiting.try_wait().unwrap().is_none(), "did not wait");
    assert_eq!(checkout.sockets(), 0, "started a daemon without the lock");
    lock.unlock().unwrap();
    let out = waiting.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{stderr}");
    assert!(checkout.status().contains(", 1 calls,"));
}

/// `--no-daemon` and RESOLVE_PR_NO_DAEMON run the call in process and start nothing; a
/// daemon directory others may write to is refused, and the call runs in process, saying so.
#[test]
fn opting_out_or_an_unsafe_directory_runs_the_call_in_process() {
    let checkout = Checkout::new("60");
    let out = checkout
        .command(&["tool", "health_check", "{}", "--no-daemon"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    let out = checkout
        .command(&["tool", "health_check", "{}"])
        .env("RESOLVE_PR_NO_DAEMON", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    assert_eq!(checkout.sockets(), 0);
    assert!(checkout.status().starts_with("no daemon"));

    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(
        checkout.daemon_dir(),
        std::fs::Permissions::from_mode(0o777),
    )
    .unwrap();
    let out = checkout
        .command(&["tool", "health_check", "{}"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no daemon") && stderr.contains("not a directory of this user's alone"),
        "{stderr}"
    );
    assert_eq!(checkout.sockets(), 0);
}

/// On a terminal, a long code call shows its progress on one updating stderr line (here: a
/// language server that never gets ready, for more than the 5 s between progress reports);
/// piped, stderr gets nothing of it.
#[test]
fn progress_shows_on_a_terminal_only() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no script(1) to give the call a terminal");
        return;
    }
    let checkout = Checkout::new("60");
    let fake = checkout.tmp.path().join("fake-servers");
    std::fs::create_dir(&fake).unwrap();
    resolve_pr_testkit::write_script(
        &fake.join("basedpyright"),
        "#!/bin/sh\necho basedpyright 1.0\n",
    );
    resolve_pr_testkit::write_script(
        &fake.join("basedpyright-langserver"),
        "#!/bin/sh\nexec sleep 7\n",
    );
    let call = checkout.tmp.path().join("call.sh");
    resolve_pr_testkit::write_script(
        &call,
        &format!(
            "#!/bin/sh\nexec '{}' tool find_definition '{{\"file_path\": \"main.py\", \"position\": {{\"line\": 5, \"character\": 12}}}}'\n",
            env!("CARGO_BIN_EXE_resolve-pr")
        ),
    );
    let run = |program: &std::ffi::OsStr, args: &[&str]| {
        checkout
            .command_of(program, args)
            .env("RESOLVE_PR_LSP_PATH", &fake)
            .env("COLUMNS", "60")
            .spawn()
            .unwrap()
    };
    let on_terminal = run(
        "script".as_ref(),
        &["-qec", call.to_str().unwrap(), "/dev/null"],
    );
    let piped = run(call.as_os_str(), &[]).wait_with_output().unwrap();
    let on_terminal = on_terminal.wait_with_output().unwrap();
    // script(1) puts the call's stdout and stderr both on its terminal, hence on its stdout.
    let shown = String::from_utf8_lossy(&on_terminal.stdout);
    assert!(
        shown.contains("\r\x1b[2Kfind_definition: waiting (5 s)"),
        "{shown:?}"
    );
    let line = shown
        .split("\r\x1b[2K")
        .find(|l| l.starts_with("find_definition: waiting"))
        .unwrap();
    assert!(line.chars().count() <= 59, "{line:?}");
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(!stderr.contains("find_definition: waiting"), "{stderr:?}");
    assert!(!stderr.contains('\x1b'), "{stderr:?}");
    // The daemon of this environment, which the guard's `daemon stop` does not reach.
    let bin: &std::ffi::OsStr = env!("CARGO_BIN_EXE_resolve-pr").as_ref();
    run(bin, &["daemon", "stop"]).wait().unwrap();
}

/// A daemon whose socket is removed (its directory cleaned up) can be reached by no call:
/// it exits.
#[test]
fn a_daemon_without_its_socket_exits() {
    let checkout = Checkout::new("60");
    checkout.tool("health_check", "{}");
    let pid = checkout.daemon_pid();
    std::fs::remove_dir_all(checkout.daemon_dir()).unwrap();
    wait_until("the unreachable daemon's exit", 10, || gone(pid));
}
