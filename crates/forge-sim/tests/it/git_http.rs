//! Git's smart HTTP protocol at `{base}/{owner}/{name}.git`, with real git clients against
//! real bare repositories: clone, blobless clone and its lazy fetches, fetch into a custom
//! namespace (with a gzip request body), push (a large one streamed without a length),
//! `--force-with-lease` accepted and refused, unknown repositories and path traversal.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use resolve_pr_forge_sim::{RecordedRequest, Scenario, Sim, SimHandle};
use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

/// A temporary world: `root` holds the served bare repositories, `work` the clients' clones,
/// and `home` an empty home so no user configuration leaks in.
struct World {
    dir: TempDir,
}

impl World {
    fn new() -> World {
        let world = World {
            dir: tempfile::tempdir().unwrap(),
        };
        for d in ["root", "work", "home"] {
            std::fs::create_dir(world.dir.path().join(d)).unwrap();
        }
        world
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn work(&self, name: &str) -> PathBuf {
        self.dir.path().join("work").join(name)
    }

    async fn output(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new("git");
        command
            .args(args)
            .current_dir(dir)
            .env("HOME", self.dir.path().join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_AUTHOR_NAME", "Tester")
            .env("GIT_AUTHOR_EMAIL", "tester@example.com")
            .env("GIT_COMMITTER_NAME", "Tester")
            .env("GIT_COMMITTER_EMAIL", "tester@example.com")
            .env("LC_ALL", "C");
        for (k, v) in env {
            command.env(k, v);
        }
        command.output().await.unwrap()
    }

    /// Runs git in `dir`, expecting success; its trimmed stdout.
    async fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.output(dir, args, &[]).await;
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// A bare repository `root/<owner>/<name>.git` whose `main` has two commits and whose
    /// `topic` one more; made locally, without the simulator. Returns the seeding clone.
    async fn seed(&self, owner: &str, name: &str) -> PathBuf {
        let bare = self.root().join(owner).join(format!("{name}.git"));
        std::fs::create_dir_all(&bare).unwrap();
        self.git(&bare, &["init", "--bare", "-b", "main"]).await;
        let seed = self.work("seed");
        std::fs::create_dir_all(&seed).unwrap();
        self.git(&seed, &["init", "-b", "main"]).await;
        std::fs::write(seed.join("README"), "hello\n").unwrap();
        std::fs::create_dir(seed.join("src")).unwrap();
        std::fs::write(seed.join("src/lib.rs"), "pub fn one() {}\n").unwrap();
        self.git(&seed, &["add", "-A"]).await;
        self.git(&seed, &["commit", "-m", "first"]).await;
        std::fs::write(seed.join("README"), "hello\nworld\n").unwrap();
        self.git(&seed, &["commit", "-am", "second"]).await;
        self.git(&seed, &["checkout", "-b", "topic"]).await;
        std::fs::write(seed.join("src/lib.rs"), "pub fn two() {}\n").unwrap();
        self.git(&seed, &["commit", "-am", "topic"]).await;
        self.git(&seed, &["checkout", "main"]).await;
        let bare = bare.to_str().unwrap().to_owned();
        self.git(&seed, &["push", &bare, "main", "topic"]).await;
        seed
    }

    fn bare(&self, owner: &str, name: &str) -> PathBuf {
        self.root().join(owner).join(format!("{name}.git"))
    }
}

async fn sim(world: &World, builtin: &str) -> SimHandle {
    let scenario = Scenario::builtin(builtin)
        .unwrap()
        .with_git_root(world.root());
    Sim::start(scenario).await.unwrap()
}

fn git_requests(sim: &SimHandle) -> Vec<RecordedRequest> {
    sim.requests()
        .into_iter()
        .filter(|r| r.path.contains(".git/"))
        .collect()
}

#[tokio::test]
async fn clones_over_http_and_records_the_round_trips() {
    let world = World::new();
    let seed = world.seed("acme", "widgets").await;
    let sim = sim(&world, "demo-github").await;
    let url = format!("{}/acme/widgets.git", sim.base_url());

    let clone = world.work("clone");
    world
        .git(
            &world.work(""),
            &["clone", "--", &url, clone.to_str().unwrap()],
        )
        .await;
    assert_eq!(
        world.git(&clone, &["rev-parse", "HEAD"]).await,
        world.git(&seed, &["rev-parse", "main"]).await
    );
    assert_eq!(
        std::fs::read_to_string(clone.join("README")).unwrap(),
        "hello\nworld\n"
    );
    assert_eq!(
        world.git(&clone, &["remote", "get-url", "origin"]).await,
        url
    );

    let requests = git_requests(&sim);
    assert!(requests.len() >= 2, "{requests:?}");
    assert_eq!(requests[0].method, "GET");
    assert_eq!(requests[0].path, "/acme/widgets.git/info/refs");
    assert_eq!(
        requests[0].query.as_deref(),
        Some("service=git-upload-pack")
    );
    assert!(requests[1..].iter().all(|r| r.method == "POST"
        && r.path == "/acme/widgets.git/git-upload-pack"
        && r.status == 200));
    assert!(requests.iter().all(|r| r.status == 200));
    assert!(
        sim.contract_violations().is_empty(),
        "{:?}",
        sim.contract_violations()
    );
}

#[tokio::test]
async fn a_blobless_clone_fetches_blobs_lazily_over_http() {
    let world = World::new();
    world.seed("acme", "widgets").await;
    let sim = sim(&world, "demo-forgejo").await;
    let url = format!("{}/acme/widgets.git", sim.base_url());

    let clone = world.work("blobless");
    world
        .git(
            &world.work(""),
            &[
                "clone",
                "--filter=blob:none",
                "--no-checkout",
                "--",
                &url,
                clone.to_str().unwrap(),
            ],
        )
        .await;
    assert_eq!(
        world
            .git(&clone, &["config", "remote.origin.promisor"])
            .await,
        "true"
    );
    let missing = |listing: String| listing.lines().filter(|l| l.starts_with('?')).count();
    let before = missing(
        world
            .git(
                &clone,
                &["rev-list", "--objects", "--all", "--missing=print"],
            )
            .await,
    );
    assert!(before >= 3, "the blobs should be missing: {before}");
    sim.clear_requests();

    world.git(&clone, &["checkout", "main"]).await;
    assert_eq!(
        std::fs::read_to_string(clone.join("src/lib.rs")).unwrap(),
        "pub fn one() {}\n"
    );
    let after = missing(
        world
            .git(
                &clone,
                &["rev-list", "--objects", "--all", "--missing=print"],
            )
            .await,
    );
    assert!(
        after < before,
        "checkout fetched no blob: {before} -> {after}"
    );
    let lazy = git_requests(&sim);
    assert!(
        lazy.iter()
            .any(|r| r.method == "POST" && r.path == "/acme/widgets.git/git-upload-pack"),
        "the checkout's blobs came over HTTP: {lazy:?}"
    );
    assert!(sim.contract_violations().is_empty());
}

#[tokio::test]
async fn fetches_refs_into_a_custom_namespace_with_a_gzip_request() {
    let world = World::new();
    let seed = world.seed("acme", "widgets").await;
    // Enough branches that the fetch request is over 1 KiB, which git sends gzipped.
    for i in 0..40 {
        std::fs::write(seed.join("n"), format!("{i}\n")).unwrap();
        world.git(&seed, &["add", "n"]).await;
        world.git(&seed, &["commit", "-qm", &format!("n{i}")]).await;
        world.git(&seed, &["branch", &format!("b{i}")]).await;
    }
    let bare = world.bare("acme", "widgets");
    world
        .git(&seed, &["push", "-q", bare.to_str().unwrap(), "--all"])
        .await;
    let sim = sim(&world, "demo-github").await;
    let url = format!("{}/acme/widgets.git", sim.base_url());

    let local = world.work("local");
    std::fs::create_dir(&local).unwrap();
    world.git(&local, &["init", "-q"]).await;
    // By URL: a configured remote's refspec would also update `refs/remotes/origin/*`.
    let trace = world.dir.path().join("curl-trace");
    let out = world
        .output(
            &local,
            &["fetch", &url, "+refs/heads/*:refs/resolve-pr/heads/*"],
            &[("GIT_TRACE_CURL", trace.to_str().unwrap())],
        )
        .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        world
            .git(&local, &["rev-parse", "refs/resolve-pr/heads/topic"])
            .await,
        world.git(&seed, &["rev-parse", "topic"]).await
    );
    assert_eq!(
        world
            .git(&local, &["rev-parse", "refs/resolve-pr/heads/b39"])
            .await,
        world.git(&seed, &["rev-parse", "b39"]).await
    );
    // Every branch (40, main, topic), and only in the namespace asked for.
    let refs = world
        .git(&local, &["for-each-ref", "--format=%(refname)"])
        .await;
    assert_eq!(refs.lines().count(), 42, "{refs}");
    assert!(
        refs.lines()
            .all(|r| r.starts_with("refs/resolve-pr/heads/")),
        "{refs}"
    );
    let trace = std::fs::read_to_string(trace).unwrap();
    assert!(
        trace
            .to_ascii_lowercase()
            .contains("content-encoding: gzip"),
        "the fetch request was not gzipped, so this test proves nothing about gzip"
    );
}

#[tokio::test]
async fn pushes_and_force_with_lease_is_accepted_or_refused_as_on_a_forge() {
    let world = World::new();
    world.seed("acme", "widgets").await;
    let sim = sim(&world, "demo-github").await;
    let url = format!("{}/acme/widgets.git", sim.base_url());
    let bare = world.bare("acme", "widgets");

    let mine = world.work("mine");
    let theirs = world.work("theirs");
    for clone in [&mine, &theirs] {
        world
            .git(
                &world.work(""),
                &["clone", "-q", "--", &url, clone.to_str().unwrap()],
            )
            .await;
    }

    // A plain push of a large file: over http.postBuffer, so sent chunked, without a length.
    world.git(&mine, &["checkout", "-q", "topic"]).await;
    let big: Vec<u8> = (0u32..3 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(mine.join("big.bin"), &big).unwrap();
    world.git(&mine, &["add", "big.bin"]).await;
    world.git(&mine, &["commit", "-qm", "big"]).await;
    let trace = world.dir.path().join("push-trace");
    let out = world
        .output(
            &mine,
            &["push", "-q", "origin", "topic"],
            &[("GIT_TRACE_CURL", trace.to_str().unwrap())],
        )
        .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(&trace)
            .unwrap()
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "the push was not sent chunked, so this test proves nothing about streaming"
    );
    let pushed = world.git(&mine, &["rev-parse", "HEAD"]).await;
    assert_eq!(world.git(&bare, &["rev-parse", "topic"]).await, pushed);
    assert!(git_requests(&sim).iter().any(|r| r.method == "POST"
        && r.path == "/acme/widgets.git/git-receive-pack"
        && r.status == 200));

    // Rewritten history, with a lease on what we last saw: accepted.
    world
        .git(&mine, &["commit", "-q", "--amend", "-m", "big, reworded"])
        .await;
    let lease = format!("--force-with-lease=topic:{pushed}");
    world
        .git(&mine, &["push", "-q", &lease, "origin", "topic"])
        .await;
    let amended = world.git(&mine, &["rev-parse", "HEAD"]).await;
    assert_ne!(amended, pushed);
    assert_eq!(world.git(&bare, &["rev-parse", "topic"]).await, amended);

    // Someone else pushes; our lease names the commit we saw before, so the push is refused
    // and the branch keeps their commit.
    world.git(&theirs, &["fetch", "-q", "origin"]).await;
    world
        .git(&theirs, &["checkout", "-q", "-b", "topic", "origin/topic"])
        .await;
    std::fs::write(theirs.join("theirs"), "x\n").unwrap();
    world.git(&theirs, &["add", "theirs"]).await;
    world.git(&theirs, &["commit", "-qm", "theirs"]).await;
    world.git(&theirs, &["push", "-q", "origin", "topic"]).await;
    let their_commit = world.git(&theirs, &["rev-parse", "HEAD"]).await;

    world
        .git(&mine, &["commit", "-q", "--amend", "-m", "again"])
        .await;
    let stale = format!("--force-with-lease=topic:{amended}");
    let out = world
        .output(&mine, &["push", &stale, "origin", "topic"], &[])
        .await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stale info"), "{stderr}");
    assert_eq!(
        world.git(&bare, &["rev-parse", "topic"]).await,
        their_commit
    );

    // Hostile branch names travel inside git's protocol, never through a command line.
    let hostile = ["-x", "$(id)", "a;touch${IFS}pwned", "`id`"];
    for name in hostile {
        let spec = format!("HEAD:refs/heads/{name}");
        world.git(&mine, &["push", "-q", "origin", &spec]).await;
    }
    let listed = world.git(&mine, &["ls-remote", "--heads", "origin"]).await;
    for name in hostile {
        assert!(
            listed.contains(&format!("refs/heads/{name}")),
            "{name}: {listed}"
        );
    }
    assert!(!world.root().join("pwned").exists() && !mine.join("pwned").exists());
    assert!(sim.contract_violations().is_empty());
}

#[tokio::test]
async fn an_unknown_repository_or_no_git_root_is_a_404() {
    let world = World::new();
    world.seed("acme", "widgets").await;
    let served = sim(&world, "demo-github").await;
    let client = common::client();
    let get = |base: String, path: &str| {
        client
            .get(format!("{base}{path}?service=git-upload-pack"))
            .send()
    };
    let missing = get(served.base_url(), "/acme/nothing.git/info/refs")
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert_eq!(
        served.requests().last().map(|r| r.status),
        Some(404),
        "recorded"
    );
    let out = world
        .output(
            &world.work(""),
            &[
                "ls-remote",
                &format!("{}/acme/nothing.git", served.base_url()),
            ],
            &[],
        )
        .await;
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not found"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The dumb protocol is not served.
    let dumb = client
        .get(format!("{}/acme/widgets.git/info/refs", served.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(dumb.status(), 403);

    // The same repository on a simulator without `git_root`: the forge's 404.
    let plain = Sim::start(Scenario::builtin("demo-github").unwrap())
        .await
        .unwrap();
    let response = get(plain.base_url(), "/acme/widgets.git/info/refs")
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
}

/// Sends a request line as is (HTTP clients normalise `..` and `%2e%2e` away) and returns
/// the status code.
async fn raw_status(base: &str, target: &str) -> u16 {
    let addr = base.strip_prefix("http://").unwrap();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"))
}

#[tokio::test]
async fn path_traversal_out_of_the_root_is_refused() {
    let world = World::new();
    world.seed("acme", "widgets").await;
    // A real repository just outside the served root: `/../outside.git` would reach it if
    // the path were handed to git unchecked.
    let outside = world.dir.path().join("outside.git");
    world
        .git(
            world.dir.path(),
            &[
                "clone",
                "-q",
                "--bare",
                world.bare("acme", "widgets").to_str().unwrap(),
                "outside.git",
            ],
        )
        .await;
    assert!(outside.is_dir());
    let sim = sim(&world, "demo-github").await;
    let base = sim.base_url();
    assert_eq!(
        raw_status(&base, "/acme/widgets.git/info/refs?service=git-upload-pack").await,
        200,
        "the raw request works for a served repository"
    );
    for target in [
        "/../outside.git/info/refs?service=git-upload-pack",
        "/%2e%2e/outside.git/info/refs?service=git-upload-pack",
        "/%2E%2E/outside.git/info/refs?service=git-upload-pack",
        "/acme/..%2f..%2foutside.git/info/refs?service=git-upload-pack",
        "/acme/%2e%2e%2f%2e%2e%2foutside.git/info/refs?service=git-upload-pack",
        "/..%2f/outside.git/info/refs?service=git-upload-pack",
        "/acme/../../outside.git/info/refs?service=git-upload-pack",
        "/.git/x.git/info/refs?service=git-upload-pack",
    ] {
        assert_eq!(raw_status(&base, target).await, 404, "{target}");
    }
}
