//! How the CLI ends when its user does: a reader that stops early (`resolve-pr tools --json
//! | head`) ends the output quietly, with no panic and no backtrace on stderr; Ctrl-C during a
//! call leaves nothing of it running.

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
