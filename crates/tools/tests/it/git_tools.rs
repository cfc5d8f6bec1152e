//! `detect_merge_conflicts` and `manage_stacked_prs` on real repositories: each test builds a
//! history with git in a temporary directory, serves it from forge-sim over smart HTTP as the
//! PR's repository (the same host as the simulated API, so a checkout's `origin` matches the
//! PR), and checks the answers against what git itself says, on GitHub and Forgejo.

use crate::common;

/// Like `on_both_forges!`, on a multi-threaded runtime: the tests run git (clone, push) while
/// the simulator serves it on the same runtime.
macro_rules! on_both_forges_mt {
    ($($name:ident),* $(,)?) => {
        mod github {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
              async fn $name() { super::$name(super::Flavor::GitHub).await })*
        }
        mod forgejo {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
              async fn $name() { super::$name(super::Flavor::Forgejo).await })*
        }
    };
}

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Flavor, context, scenario};
use resolve_pr_forge_sim::{Sim, SimHandle};
use resolve_pr_tools::{Context, LocalSettings};
use serde_json::{Value, json};

/// Runs git in `dir` with a fixed identity and no user configuration.
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
        .env("GIT_AUTHOR_DATE", "2024-06-01T10:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-06-01T10:00:00Z")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository being built, the bare repository the simulator serves, and the user's
/// checkout cloned from the simulator.
struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    build: PathBuf,
    bare: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let build = root.join("build");
        std::fs::create_dir_all(&build).unwrap();
        git(&build, &["init", "-q", "-b", "main"]);
        let bare = root.join("git").join("acme").join("widgets.git");
        std::fs::create_dir_all(&bare).unwrap();
        git(&bare, &["init", "-q", "--bare", "-b", "main"]);
        World {
            _tmp: tmp,
            root,
            build,
            bare,
        }
    }

    fn git_root(&self) -> PathBuf {
        self.root.join("git")
    }

    /// Writes files (None deletes) and commits on the current branch; returns the commit.
    fn commit(&self, files: &[(&str, Option<&str>)], message: &str) -> String {
        for (path, content) in files {
            let p = self.build.join(path);
            match content {
                Some(c) => {
                    if let Some(parent) = p.parent() {
                        std::fs::create_dir_all(parent).unwrap();
                    }
                    std::fs::write(&p, c).unwrap();
                }
                None => {
                    let _ = std::fs::remove_file(&p);
                }
            }
        }
        git(&self.build, &["add", "-A"]);
        git(
            &self.build,
            &["commit", "-q", "--allow-empty", "-m", message],
        );
        self.head()
    }

    fn head(&self) -> String {
        git(&self.build, &["rev-parse", "HEAD"])
    }

    fn switch(&self, branch: &str, from: Option<&str>) {
        match from {
            Some(start) => git(&self.build, &["switch", "-q", "-c", branch, start]),
            None => git(&self.build, &["switch", "-q", branch]),
        };
    }

    /// Publishes every branch and `refs/pull/N/head` for each PR head.
    fn publish(&self, pulls: &[(u64, &str)]) {
        let bare = self.bare.to_str().unwrap();
        git(
            &self.build,
            &["push", "-q", "-f", bare, "refs/heads/*:refs/heads/*"],
        );
        for (n, sha) in pulls {
            git(
                &self.build,
                &[
                    "push",
                    "-q",
                    "-f",
                    bare,
                    &format!("{sha}:refs/pull/{n}/head"),
                ],
            );
        }
    }

    fn remote_branch(&self, branch: &str) -> String {
        git(&self.bare, &["rev-parse", &format!("refs/heads/{branch}")])
    }

    /// The user's checkout: a clone from the simulator, on `branch`.
    fn checkout(&self, sim: &SimHandle, branch: &str) -> PathBuf {
        let dir = self.root.join("checkout");
        let url = format!("{}/acme/widgets.git", sim.base_url());
        git(&self.root, &["clone", "-q", &url, dir.to_str().unwrap()]);
        git(&dir, &["switch", "-q", branch]);
        dir
    }
}

/// One PR of a scenario.
struct Pull<'a> {
    number: u64,
    head: &'a str,
    head_sha: &'a str,
    base: &'a str,
    base_sha: &'a str,
    state: &'a str,
    merge_commit: Option<&'a str>,
    mergeable: Option<bool>,
}

fn scenario_yaml(flavor: Flavor, pulls: &[Pull<'_>]) -> String {
    let forge = match flavor {
        Flavor::GitHub => "forge: github",
        Flavor::Forgejo => "forge: forgejo\nversion: \"11.0.1+gitea-1.22.0\"",
    };
    let mut yaml = format!(
        "{forge}\nnow: \"2024-06-01T12:00:00Z\"\ntokens:\n  - {{token: tok, login: alice, permission: write}}\nrepos:\n  - owner: acme\n    name: widgets\n    pulls:\n"
    );
    for p in pulls {
        yaml.push_str(&format!(
            "      - number: {}\n        title: \"PR {}\"\n        author: alice\n        state: {}\n        head: {{ref: {:?}, sha: {}}}\n        base: {{ref: {:?}, sha: {}}}\n        created_at: \"2024-06-01T00:00:00Z\"\n",
            p.number, p.number, p.state, p.head, p.head_sha, p.base, p.base_sha
        ));
        if let Some(m) = p.merge_commit {
            yaml.push_str(&format!(
                "        merge_commit_sha: {m}\n        merged_at: \"2024-06-01T11:00:00Z\"\n        merged_by: alice\n        closed_at: \"2024-06-01T11:00:00Z\"\n"
            ));
        }
        if let Some(m) = p.mergeable {
            yaml.push_str(&format!("        mergeable: {m}\n"));
        }
    }
    yaml
}

async fn start(flavor: Flavor, world: &World, pulls: &[Pull<'_>]) -> SimHandle {
    let sc = scenario(&scenario_yaml(flavor, pulls)).with_git_root(world.git_root());
    Sim::start(sc).await.expect("sim starts")
}

/// The simulator serving `w` with one open PR, #1, of `feature` (at `head`) into `main`
/// (at `main`), the forge's mergeability as given.
async fn start_feature_pr(
    flavor: Flavor,
    w: &World,
    head: &str,
    main: &str,
    mergeable: Option<bool>,
) -> SimHandle {
    let pulls = [Pull {
        number: 1,
        head: "feature",
        head_sha: head,
        base: "main",
        base_sha: main,
        state: "open",
        merge_commit: None,
        mergeable,
    }];
    start(flavor, w, &pulls).await
}

fn tool_ctx(flavor: Flavor, sim: &SimHandle, world: &World, cwd: Option<PathBuf>) -> Context {
    let mut ctx = context(flavor, sim, "tok", [3; 32]);
    ctx.local = LocalSettings {
        git: None,
        cwd,
        cache_dir: Some(world.root.join("cache")),
        ..LocalSettings::default()
    };
    ctx
}

fn pr(flavor: Flavor, sim: &SimHandle, n: u64) -> String {
    match flavor {
        Flavor::GitHub => format!("acme/widgets#{n}"),
        Flavor::Forgejo => format!("{}/acme/widgets/pulls/{n}", sim.base_url()),
    }
}

fn api_requests(sim: &SimHandle) -> usize {
    sim.requests()
        .iter()
        .filter(|r| !r.path.contains(".git/"))
        .count()
}

async fn call(ctx: &Context, tool: &str, args: Value) -> resolve_pr_core::Result<Value> {
    resolve_pr_tools::call(ctx, tool, args)
        .await
        .map(|o| o.structured)
}

/// Everything of the user's checkout a read-only tool must leave alone: branches, HEAD,
/// index and worktree status, and every ref outside refs/resolve-pr/.
fn snapshot(dir: &Path) -> (String, String, String) {
    let refs = git(dir, &["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .filter(|l| !l.starts_with("refs/resolve-pr/"))
        .collect::<Vec<_>>()
        .join("\n");
    (
        refs,
        git(dir, &["rev-parse", "HEAD"]),
        git(dir, &["status", "--porcelain"]),
    )
}

// ---------------------------------------------------------------- detect_merge_conflicts

/// main and a PR that conflict in three ways: a content conflict, a modify/delete, an
/// add/add; and a file both change without conflict.
fn conflicting_world() -> (World, String, String) {
    let w = World::new();
    w.commit(
        &[
            ("a.txt", Some("one\ntwo\nthree\n")),
            ("b.txt", Some("keep\n")),
            ("c.txt", Some("1\n2\n3\n4\n5\n6\n7\n8\n")),
        ],
        "base",
    );
    w.switch("feature", Some("main"));
    let head = w.commit(
        &[
            ("a.txt", Some("one\nTWO from the PR\nthree\n")),
            ("b.txt", None),
            ("new.txt", Some("pr version\n")),
            ("c.txt", Some("1 pr\n2\n3\n4\n5\n6\n7\n8\n")),
        ],
        "feature work",
    );
    w.switch("main", None);
    let main = w.commit(
        &[
            ("a.txt", Some("one\ntwo from main\nthree\n")),
            ("b.txt", Some("keep, changed on main\n")),
            ("new.txt", Some("main version\n")),
            ("c.txt", Some("1\n2\n3\n4\n5\n6\n7\n8 main\n")),
        ],
        "main work",
    );
    w.publish(&[(1, &head)]);
    (w, head, main)
}

async fn conflicts_computed_locally_when_the_forge_has_not(flavor: Flavor) {
    let (w, head, main) = conflicting_world();
    let sim = start_feature_pr(flavor, &w, &head, &main, None).await;
    let checkout = w.checkout(&sim, "main");
    let before = snapshot(&checkout);
    let ctx = tool_ctx(flavor, &sim, &w, None);
    sim.clear_requests();
    let out = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"pr": pr(flavor, &sim, 1), "directory": checkout}),
    )
    .await
    .expect("answers");
    assert_eq!(out["has_conflicts"], true, "{out:#}");
    assert_eq!(out["mergeable_state"], "dirty");
    assert_eq!(out["state_source"], "local");
    assert_eq!(out["head_sha"], head.as_str());
    assert_eq!(out["target_sha"], main.as_str());
    let kinds: Vec<(String, String)> = out["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["file_path"].as_str().unwrap().to_owned(),
                c["conflict_type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("a.txt".to_owned(), "content".to_owned()),
            ("b.txt".to_owned(), "modify/delete".to_owned()),
            ("new.txt".to_owned(), "add/add".to_owned()),
        ]
    );
    let a = &out["conflicts"][0];
    assert_eq!(a["head_content_preview"], "2| TWO from the PR\n");
    assert_eq!(a["target_content_preview"], "2| two from main\n");
    assert_eq!(a["base_content_preview"], "2| two\n");
    assert_eq!(a["start_line"], 2);
    let b = &out["conflicts"][1];
    assert!(
        b["suggested_resolution"]
            .as_str()
            .unwrap()
            .contains("The PR deleted this file"),
        "{b:#}"
    );
    assert!(
        a.get("suggested_resolution").is_none(),
        "no fact, no suggestion: {a:#}"
    );
    let steps = out["instructions"]["resolution_steps"].as_array().unwrap();
    assert!(
        steps.iter().any(|s| s == "git add -- a.txt b.txt new.txt"),
        "{steps:?}"
    );
    // Two forge requests (the PR, and where its target branch is now); both commits are in
    // the checkout already, so git never talks to the remote.
    let api: Vec<String> = sim
        .requests()
        .iter()
        .filter(|r| !r.path.contains(".git/"))
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(api.len(), 2, "{api:?}");
    assert!(api[1].ends_with("/main"), "{api:?}");
    let git_requests: Vec<String> = sim
        .requests()
        .iter()
        .filter(|r| r.path.contains(".git/"))
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    assert_eq!(git_requests, Vec::<String>::new());
    // The target moves on the remote: now it is fetched, into refs of that call only, which
    // are gone after it.
    w.switch("main", None);
    let moved = w.commit(&[("other.txt", Some("x\n"))], "main moves");
    w.publish(&[(1, &head)]);
    sim.clear_requests();
    let again = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"pr": pr(flavor, &sim, 1), "directory": checkout}),
    )
    .await
    .expect("answers");
    assert_eq!(again["target_sha"], moved.as_str());
    assert!(
        sim.requests()
            .iter()
            .any(|r| r.path.ends_with("git-upload-pack")),
        "fetched"
    );
    assert_eq!(
        git(&checkout, &["for-each-ref", "refs/resolve-pr/"]),
        "",
        "no ref left behind"
    );
    assert_eq!(
        snapshot(&checkout),
        before,
        "the user's repository is untouched"
    );
}

async fn a_clean_pr_and_a_forge_that_disagrees(flavor: Flavor) {
    let w = World::new();
    let base = w.commit(&[("x.txt", Some("x\n"))], "base");
    w.switch("feature", Some("main"));
    let head = w.commit(&[("y.txt", Some("y\n"))], "feature");
    w.publish(&[(1, &head)]);
    let pulls = [Pull {
        number: 1,
        head: "feature",
        head_sha: &head,
        base: "main",
        base_sha: &base,
        state: "open",
        merge_commit: None,
        // The forge (stale) says it conflicts; git says it merges.
        mergeable: Some(false),
    }];
    let sim = start(flavor, &w, &pulls).await;
    let checkout = w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let out = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"pr": pr(flavor, &sim, 1), "directory": checkout}),
    )
    .await
    .unwrap();
    assert_eq!(out["has_conflicts"], false);
    match flavor {
        Flavor::GitHub => {
            assert_eq!(out["state_source"], "forge");
            assert_eq!(out["forge_agrees"], false, "{out:#}");
        }
        // Forgejo's `mergeable: false` also means "still checking": not conclusive.
        Flavor::Forgejo => {
            assert_eq!(out["state_source"], "local", "{out:#}");
            assert_eq!(out["forge_state"], "not_mergeable");
            assert_eq!(out["mergeable_state"], "clean");
        }
    }
    assert!(out.get("instructions").is_none());
    assert_eq!(out["conflicts"], json!([]));
}

async fn without_pr_the_current_branch_chooses_it(flavor: Flavor) {
    let (w, head, main) = conflicting_world();
    let sim = start_feature_pr(flavor, &w, &head, &main, None).await;
    let checkout = w.checkout(&sim, "feature");
    std::fs::create_dir_all(checkout.join("src/deep")).unwrap();
    // The server's working directory is somewhere inside the checkout.
    let ctx = tool_ctx(flavor, &sim, &w, Some(checkout.join("src/deep")));
    let out = call(&ctx, "detect_merge_conflicts", json!({}))
        .await
        .expect("answers");
    assert!(
        out["note"].as_str().unwrap().contains("chose #1"),
        "{out:#}"
    );
    assert_eq!(out["has_conflicts"], true);
    assert!(
        out["computed_in"]
            .as_str()
            .unwrap()
            .starts_with("checkout ")
    );
}

async fn without_a_checkout_a_managed_clone_is_used(flavor: Flavor) {
    let (w, head, main) = conflicting_world();
    let sim = start_feature_pr(flavor, &w, &head, &main, None).await;
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let args = json!({"pr": pr(flavor, &sim, 1)});
    let out = call(&ctx, "detect_merge_conflicts", args.clone())
        .await
        .expect("answers");
    assert_eq!(out["conflict_count"], 3);
    assert!(
        out["computed_in"]
            .as_str()
            .unwrap()
            .starts_with("managed clone "),
        "{out:#}"
    );
    // The clone is reused: the second call clones nothing.
    let again = call(&ctx, "detect_merge_conflicts", args).await.unwrap();
    assert_eq!(again["conflict_count"], 3);
    assert_eq!(again["computed_in"], out["computed_in"]);
}

/// A call cancelled while git talks to a remote that stopped answering (the MCP call's
/// future dropped) leaves no git process behind: the fetch and its remote helper are killed
/// with their process group at once, long before any network limit.
async fn a_cancelled_call_leaves_no_git_running(flavor: Flavor) {
    let (w, head, main) = conflicting_world();
    let sim = start_feature_pr(flavor, &w, &head, &main, None).await;
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let args = json!({"pr": pr(flavor, &sim, 1)});
    let out = call(&ctx, "detect_merge_conflicts", args.clone())
        .await
        .expect("answers");
    // The managed clone's remote now accepts connections and never answers.
    let clone = PathBuf::from(
        out["computed_in"]
            .as_str()
            .unwrap()
            .strip_prefix("managed clone ")
            .unwrap(),
    );
    let silent = resolve_pr_testkit::silent_http_remote("/acme/widgets.git");
    git(&clone, &["config", "remote.origin.url", &silent]);
    let started = std::time::Instant::now();
    tokio::select! {
        answer = call(&ctx, "detect_merge_conflicts", args) => panic!("answered: {answer:?}"),
        () = async {
            while resolve_pr_testkit::processes(&silent, None).is_empty() {
                assert!(started.elapsed().as_secs() < 20, "git never reached the remote");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        } => {}
    }
    // The call's future was dropped (the client gave up) while git's helper talked to the
    // remote.
    tokio::task::spawn_blocking(move || {
        resolve_pr_testkit::assert_no_processes(&silent, Some(&clone));
    })
    .await
    .unwrap();
}

async fn target_branch_overrides_the_base(flavor: Flavor) {
    let (w, head, main) = conflicting_world();
    // A release branch from before main's change: the PR merges there cleanly.
    git(&w.build, &["branch", "release", "HEAD~1"]);
    w.publish(&[(1, &head)]);
    let sim = start_feature_pr(flavor, &w, &head, &main, Some(false)).await;
    let checkout = w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let out = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"pr": pr(flavor, &sim, 1), "directory": checkout, "target_branch": "release"}),
    )
    .await
    .unwrap();
    assert_eq!(out["has_conflicts"], false, "{out:#}");
    assert_eq!(out["target_branch"], "release");
    // The forge's state is about main, not release.
    assert_eq!(out["state_source"], "local");
    assert!(out.get("forge_agrees").is_none());
}

async fn bad_directories_and_branches_are_clear_errors(flavor: Flavor) {
    let (w, head, main) = conflicting_world();
    let sim = start_feature_pr(flavor, &w, &head, &main, None).await;
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let p = pr(flavor, &sim, 1);
    // Not a repository.
    let plain = w.root.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let e = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"pr": p, "directory": plain}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user", "{e:?}");
    assert!(e.error.contains("not inside a git repository"), "{e:?}");
    // A repository of something else.
    let other = w.root.join("other");
    std::fs::create_dir_all(&other).unwrap();
    git(&other, &["init", "-q"]);
    git(
        &other,
        &[
            "remote",
            "add",
            "origin",
            "https://example.com/someone/else.git",
        ],
    );
    let e = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"pr": p, "directory": other}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user");
    assert!(e.error.contains("no remote"), "{e:?}");
    // A branch that would read as an option.
    for bad in ["-x", "--upload-pack=touch /tmp/pwned", "a..b"] {
        let e = call(
            &ctx,
            "detect_merge_conflicts",
            json!({"pr": p, "target_branch": bad}),
        )
        .await
        .unwrap_err();
        assert_eq!(e.category.as_str(), "user", "{bad}: {e:?}");
    }
    // A shallow clone.
    let shallow = w.root.join("shallow");
    let url = format!("{}/acme/widgets.git", sim.base_url());
    git(
        &w.root,
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            &url,
            shallow.to_str().unwrap(),
        ],
    );
    let e = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"pr": p, "directory": shallow}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "logical", "{e:?}");
    assert!(
        e.suggestion
            .as_deref()
            .unwrap_or("")
            .contains("--unshallow"),
        "{e:?}"
    );
    // Detached HEAD without pr.
    let checkout = w.checkout(&sim, "main");
    git(&checkout, &["switch", "-q", "--detach", "HEAD"]);
    let e = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"directory": checkout}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user");
    assert!(e.error.contains("detached"), "{e:?}");
}

// ---------------------------------------------------------------- manage_stacked_prs

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Landing {
    /// The base PR is still open, as the dependent knows it.
    Open,
    /// Still open, with a commit the dependent lacks.
    OpenMoved,
    Squash,
    MergeCommit,
    Rebase,
    /// Squash-merged, and trunk then added a file the dependent adds too.
    SquashThenConflict,
    /// Squash-merged together with the dependent's commits (one squash of B's branch): the
    /// dependent has nothing left of its own.
    SquashedWithDependent,
    /// Squash-merged with a line edited while squashing: neither its commits nor its
    /// changes are in trunk as they were.
    EditedSquash,
}

/// main ← A (#1: three commits, the first two rewriting one line) ← B (#2: two commits) ← C
/// (#3: one commit), with A landed as asked. Returns the world, the pulls' heads and the
/// merge commit.
struct Stack {
    w: World,
    names: [&'static str; 3],
    main_before: String,
    a: String,
    b: String,
    c: String,
    merge_commit: Option<String>,
}

fn stack_world(landing: Landing) -> Stack {
    stack_world_named(landing, ["feature-a", "feature-b", "feature-c"])
}

fn stack_world_named(landing: Landing, names: [&'static str; 3]) -> Stack {
    let [na, nb, nc] = names;
    let w = World::new();
    let lines: String = (1..=10).map(|i| format!("{i}\n")).collect();
    let main_before = w.commit(&[("f.txt", Some(&lines)), ("g.txt", Some("g\n"))], "base");
    w.switch(na, Some("main"));
    w.commit(
        &[("f.txt", Some(&lines.replacen("1\n", "A1\n", 1)))],
        "A: first try",
    );
    w.commit(
        &[("f.txt", Some(&lines.replacen("1\n", "A2\n", 1)))],
        "A: second try",
    );
    let mut a = w.commit(&[("a.txt", Some("a\n"))], "A: a.txt");
    w.switch(nb, Some(na));
    w.commit(&[("g.txt", Some("g from B\n"))], "B: g");
    let b = w.commit(&[("b.txt", Some("b\n"))], "B: b.txt");
    w.switch(nc, Some(nb));
    let c = w.commit(&[("c.txt", Some("c\n"))], "C: c.txt");
    w.switch("main", None);
    let merge_commit = match landing {
        Landing::Open => None,
        Landing::OpenMoved => {
            w.switch(na, None);
            a = w.commit(&[("a2.txt", Some("more A\n"))], "A: more");
            w.switch("main", None);
            None
        }
        Landing::Squash | Landing::SquashThenConflict => {
            git(&w.build, &["merge", "-q", "--squash", na]);
            let sq = w.commit(&[], "A (#1)");
            w.commit(&[("h.txt", Some("h\n"))], "unrelated");
            if landing == Landing::SquashThenConflict {
                w.commit(&[("b.txt", Some("b from main\n"))], "main adds b.txt");
            }
            Some(sq)
        }
        Landing::EditedSquash => {
            git(&w.build, &["merge", "-q", "--squash", na]);
            let edited = lines.replacen("1\n", "A2, edited\n", 1);
            let sq = w.commit(&[("f.txt", Some(&edited))], "A (#1)");
            w.commit(&[("h.txt", Some("h\n"))], "unrelated");
            Some(sq)
        }
        Landing::SquashedWithDependent => {
            git(&w.build, &["merge", "-q", "--squash", nb]);
            let sq = w.commit(&[], "A and B (#1)");
            w.commit(&[("h.txt", Some("h\n"))], "unrelated");
            Some(sq)
        }
        Landing::MergeCommit => {
            git(&w.build, &["merge", "-q", "--no-ff", "-m", "Merge #1", na]);
            Some(w.head())
        }
        Landing::Rebase => {
            git(
                &w.build,
                &["commit", "-q", "--allow-empty", "-m", "trunk moved"],
            );
            let range = format!("{main_before}..{na}");
            git(&w.build, &["cherry-pick", "--allow-empty", &range]);
            Some(w.head())
        }
    };
    w.publish(&[(1, &a), (2, &b), (3, &c)]);
    Stack {
        w,
        names,
        main_before,
        a,
        b,
        c,
        merge_commit,
    }
}

/// The three PRs of `s` as the forge reports them.
fn stack_pulls(s: &Stack) -> [Pull<'_>; 3] {
    let merged = s.merge_commit.is_some();
    [
        Pull {
            number: 1,
            head: s.names[0],
            head_sha: &s.a,
            base: "main",
            base_sha: &s.main_before,
            state: if merged { "merged" } else { "open" },
            merge_commit: s.merge_commit.as_deref(),
            mergeable: None,
        },
        Pull {
            number: 2,
            head: s.names[1],
            head_sha: &s.b,
            base: s.names[0],
            base_sha: &s.a,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
        Pull {
            number: 3,
            head: s.names[2],
            head_sha: &s.c,
            base: s.names[1],
            base_sha: &s.b,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
    ]
}

async fn stack_sim(flavor: Flavor, s: &Stack) -> SimHandle {
    start(flavor, &s.w, &stack_pulls(s)).await
}

/// A dependent retargeted to trunk by hand after its base squash-merged: the error that it
/// is not stacked names the merged PR whose head commit it still carries.
async fn a_dependent_retargeted_by_hand_is_told_its_merged_base(flavor: Flavor) {
    let s = stack_world(Landing::Squash);
    let mut pulls = stack_pulls(&s);
    let main_now = s.w.remote_branch("main");
    pulls[1].base = "main";
    pulls[1].base_sha = &main_now;
    let mut yaml = scenario_yaml(flavor, &pulls);
    yaml.push_str(&format!(
        "    contents:\n      commits:\n        - {{sha: {a}, message: a, authored_at: \"2024-06-01T09:00:00Z\", pull: 2}}\n        - {{sha: {b}, message: b, authored_at: \"2024-06-01T09:30:00Z\", pull: 2}}\n",
        a = s.a,
        b = s.b
    ));
    let sc = scenario(&yaml).with_git_root(s.w.git_root());
    let sim = Sim::start(sc).await.expect("sim starts");
    let checkout = s.w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let e = call(
        &ctx,
        "manage_stacked_prs",
        json!({"dependent_pr": pr(flavor, &sim, 2), "directory": checkout}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "logical", "{e:?}");
    let suggestion = e.suggestion.unwrap_or_default();
    assert!(
        suggestion.contains("#1 merged") && suggestion.contains("base_pr: #1"),
        "{suggestion}"
    );
}

async fn a_squash_merged_base_is_restacked_with_onto(flavor: Flavor) {
    let s = stack_world(Landing::Squash);
    let sim = stack_sim(flavor, &s).await;
    let checkout = s.w.checkout(&sim, "main");
    let before = snapshot(&checkout);
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    sim.clear_requests();
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout}),
    )
    .await
    .expect("plans");
    assert_eq!(out["is_stacked"], true, "{out:#}");
    assert_eq!(out["upstream_merge_detected"], true);
    assert_eq!(out["squash_merge"], true);
    assert_eq!(out["merge_method"], "squash");
    assert_eq!(out["last_upstream_commit"], s.a.as_str());
    assert_eq!(out["rebase_strategy"]["recommended"], "onto");
    assert_eq!(out["rebase_strategy"]["ai_should_decide"], false);
    let onto = out["rebase_strategy"]["onto_command"].as_str().unwrap();
    assert_eq!(
        onto,
        format!(
            "git rebase --onto origin/main {} --end-of-options feature-b",
            s.a
        )
    );
    // The whole stack, three levels, and C moves with B.
    let stack: Vec<&str> = out["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["branch"].as_str().unwrap())
        .collect();
    assert_eq!(stack, ["feature-a", "feature-b", "feature-c"]);
    let vis = out["stack_info"]["visualization"].as_str().unwrap();
    assert!(
        vis.starts_with("main\n└─ #1 feature-a [merged: squash"),
        "{vis}"
    );
    assert!(vis.contains("      └─ #3 feature-c [open"), "{vis}");
    assert_eq!(
        out["predicted_conflicts"],
        json!([]),
        "--onto replays cleanly"
    );
    let considerations = out["rebase_strategy"]["considerations"].to_string();
    assert!(
        considerations.contains("stops at a conflict"),
        "a plain rebase replays A's first try: {considerations}"
    );
    let commands: Vec<&str> = out["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["command"].as_str().unwrap())
        .collect();
    assert!(commands.contains(&onto), "{commands:?}");
    assert!(
        commands.contains(
            &format!(
                "git rebase --onto feature-b {} --end-of-options feature-c",
                s.b
            )
            .as_str()
        ),
        "{commands:?}"
    );
    let push = commands.iter().find(|c| c.starts_with("git push")).unwrap();
    let argv = shlex::split(push).expect("a shell command");
    let lease_b = format!("--force-with-lease=refs/heads/feature-b:{}", s.b);
    let lease_c = format!("--force-with-lease=refs/heads/feature-c:{}", s.c);
    assert_eq!(
        argv,
        [
            "git",
            "push",
            "--atomic",
            &lease_b,
            &lease_c,
            "--end-of-options",
            "origin",
            "refs/heads/feature-b:refs/heads/feature-b",
            "refs/heads/feature-c:refs/heads/feature-c",
        ]
    );
    let kinds: Vec<&str> = out["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    let retarget = kinds
        .iter()
        .position(|k| *k == "github_api")
        .expect("a retarget step");
    assert!(retarget > kinds.iter().position(|k| *k == "git").unwrap());
    assert!(kinds.contains(&"ci_wait"));
    assert_eq!(out["automation"]["status"], "not_started");
    // Forge: the two PRs, #1's timeline (its force-pushes), and on GitHub one list down
    // from #1's base (none) and one up per level above #2; Forgejo's open list once.
    let lists = match flavor {
        Flavor::GitHub => 1 + 2,
        Flavor::Forgejo => 1,
    };
    assert_eq!(api_requests(&sim), 2 + 1 + lists, "{:?}", sim.requests());
    assert_eq!(
        snapshot(&checkout),
        before,
        "planning touches nothing of the user's"
    );
}

async fn execute_pushes_with_lease_retargets_and_rolls_back(flavor: Flavor) {
    let s = stack_world(Landing::Squash);
    let sim = stack_sim(flavor, &s).await;
    let checkout = s.w.checkout(&sim, "main");
    let before = snapshot(&checkout);
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let args = json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2),
        "directory": checkout, "execute": true, "push": true, "retarget": true,
    });
    let answered = resolve_pr_tools::call(&ctx, "manage_stacked_prs", args)
        .await
        .expect("runs");
    assert!(!answered.failed, "{}", answered.text);
    let out = answered.structured;
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    assert_eq!(out["summary"]["action_required"], false, "{out:#}");
    let after: Vec<&str> = out["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["command"].as_str().unwrap())
        .collect();
    assert_eq!(
        after,
        [
            "git fetch --end-of-options origin",
            "git switch --end-of-options feature-b",
            "git reset --keep origin/feature-b",
            "git switch --end-of-options feature-c",
            "git reset --keep origin/feature-c",
        ]
    );
    let new_b = s.w.remote_branch("feature-b");
    let new_c = s.w.remote_branch("feature-c");
    assert_ne!(new_b, s.b);
    let main = s.w.remote_branch("main");
    // B's own two commits on main, C's one on B: nothing of A's replayed.
    assert_eq!(
        git(
            &s.w.bare,
            &["rev-list", "--count", &format!("{main}..{new_b}")]
        ),
        "2"
    );
    assert_eq!(git(&s.w.bare, &["rev-parse", &format!("{new_b}^^")]), main);
    assert_eq!(git(&s.w.bare, &["rev-parse", &format!("{new_c}^")]), new_b);
    assert_eq!(
        git(&s.w.bare, &["show", &format!("{new_c}:f.txt")])
            .lines()
            .next(),
        Some("A2")
    );
    // The dependent now targets main on the forge.
    let view = call(&ctx, "manage_stacked_prs", json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout,
    }))
    .await
    .expect("plans again");
    assert_eq!(view["stack_info"]["dependent_base"], "main", "{view:#}");
    assert_eq!(view["summary"]["action_required"], false, "{view:#}");
    // The user's branches, HEAD, index and worktree did not move; the push moved the
    // remote-tracking refs of the pushed branches with the remote, as any git push does.
    let after = snapshot(&checkout);
    assert_eq!((&after.1, &after.2), (&before.1, &before.2));
    let local_refs = |refs: &str| {
        refs.lines()
            .filter(|l| !l.starts_with("refs/remotes/"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(local_refs(&after.0), local_refs(&before.0));
    assert!(
        after
            .0
            .contains(&format!("refs/remotes/origin/feature-b {new_b}")),
        "{}",
        after.0
    );
    // Rollback puts the remote branches back.
    let out = call(&ctx, "manage_stacked_prs", json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout, "rollback": true,
    }))
    .await
    .expect("rolls back");
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    assert_eq!(s.w.remote_branch("feature-b"), s.b);
    assert_eq!(s.w.remote_branch("feature-c"), s.c);
    // The retarget stays: the command that undoes it is given, in the text too.
    let undo = out["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "github_api")
        .unwrap_or_else(|| panic!("an undo of the retarget: {out:#}"));
    assert!(
        undo["command"].as_str().unwrap().contains("feature-a"),
        "{undo:#}"
    );
    let text = resolve_pr_tools::call(&ctx, "manage_stacked_prs", json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout,
    }))
    .await
    .expect("plans")
    .text;
    assert!(text.contains("#2's base is \"main\""), "{text}");
}

/// The maintainer edited a line while squashing: no commit or patch of the base matches,
/// but the forge's merge commit is in trunk with one parent: reported as a squash that
/// differs slightly, never "trunk shows neither its commits nor its changes".
async fn an_edited_squash_is_trusted_from_the_forge(flavor: Flavor) {
    let s = stack_world(Landing::EditedSquash);
    let sim = stack_sim(flavor, &s).await;
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let (out, text) = call_text(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2)}),
    )
    .await;
    assert_eq!(out["merge_method"], "squash", "{out:#}");
    assert_eq!(out["squash_merge"], true);
    let sq = &s.merge_commit.as_deref().unwrap()[..7];
    assert!(
        text.contains(&format!(
            "! #1 was squash-merged as {sq}, the forge says; its changes differ slightly"
        )),
        "{text}"
    );
    assert!(!out.to_string().contains("shows neither"), "{out:#}");
    assert_eq!(out["rebase_strategy"]["recommended"], "onto");
}

async fn a_merge_commit_leaves_the_choice_to_the_agent(flavor: Flavor) {
    let s = stack_world(Landing::MergeCommit);
    let sim = stack_sim(flavor, &s).await;
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2)}),
    )
    .await
    .expect("plans");
    assert_eq!(out["merge_method"], "merge", "{out:#}");
    assert_eq!(out["squash_merge"], false);
    assert_eq!(out["rebase_strategy"]["recommended"], "regular");
    assert_eq!(out["rebase_strategy"]["ai_should_decide"], true);
    assert_eq!(out["predicted_conflicts"], json!([]));
}

async fn a_rebase_merge_is_detected(flavor: Flavor) {
    let s = stack_world(Landing::Rebase);
    let sim = stack_sim(flavor, &s).await;
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2)}),
    )
    .await
    .expect("plans");
    assert_eq!(out["merge_method"], "rebase", "{out:#}");
    assert_eq!(out["rebase_strategy"]["recommended"], "onto");
}

async fn predicted_conflicts_stop_execute_before_anything_moves(flavor: Flavor) {
    let s = stack_world(Landing::SquashThenConflict);
    let sim = stack_sim(flavor, &s).await;
    let checkout = s.w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let answered = resolve_pr_tools::call(&ctx, "manage_stacked_prs", json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout,
        "execute": true, "push": true,
    }))
    .await
    .expect("answers");
    // The execution asked for failed: the call says so (MCP's isError), not only its output.
    assert!(answered.failed, "{}", answered.text);
    let out = answered.structured;
    let predicted = &out["predicted_conflicts"][0];
    assert_eq!(predicted["branch"], "feature-b", "{out:#}");
    assert_eq!(predicted["files"], json!(["b.txt"]));
    assert_eq!(predicted["summary"], "B: b.txt");
    assert_eq!(out["summary"]["risk_level"], "high");
    assert_eq!(out["automation"]["status"], "failed");
    assert_eq!(s.w.remote_branch("feature-b"), s.b, "nothing pushed");
    let refs = git(&checkout, &["for-each-ref", "refs/resolve-pr/restack/"]);
    assert_eq!(refs, "", "no result refs");
}

async fn open_bases_unchanged_or_moved(flavor: Flavor) {
    let s = stack_world(Landing::Open);
    let sim = stack_sim(flavor, &s).await;
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2)}),
    )
    .await
    .expect("plans");
    assert_eq!(out["summary"]["action_required"], false, "{out:#}");
    assert_eq!(out["commands"], json!([]));
    // Higher up the same stack: the open PR below the pair is walked too.
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 2), "dependent_pr": pr(flavor, &sim, 3)}),
    )
    .await
    .expect("plans");
    let roles: Vec<(&str, &str)> = out["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["branch"].as_str().unwrap(), l["role"].as_str().unwrap()))
        .collect();
    assert_eq!(
        roles,
        [
            ("feature-a", "below"),
            ("feature-b", "base"),
            ("feature-c", "dependent")
        ]
    );
    let s = stack_world(Landing::OpenMoved);
    let sim = stack_sim(flavor, &s).await;
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    // Without base_pr: the PR whose head is #2's base.
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"dependent_pr": pr(flavor, &sim, 2)}),
    )
    .await
    .expect("plans");
    assert_eq!(out["summary"]["action_required"], true, "{out:#}");
    assert_eq!(out["change_summary"]["new_commits_in_base"], 1);
    assert_eq!(out["change_summary"]["commits"][0]["message"], "A: more");
    assert!(out["note"].as_str().unwrap().contains("chose #1"));
    assert_eq!(out["rebase_strategy"]["recommended"], "regular");
    assert_eq!(
        out["rebase_strategy"]["regular_command"],
        "git rebase origin/feature-a --end-of-options feature-b"
    );
}

async fn stack_bad_inputs(flavor: Flavor) {
    let s = stack_world(Landing::Squash);
    let sim = stack_sim(flavor, &s).await;
    let mut ctx = tool_ctx(flavor, &sim, &s.w, None);
    let p1 = pr(flavor, &sim, 1);
    let p2 = pr(flavor, &sim, 2);
    // Not stacked: #3 is not built on #1's branch... it is (through #2), so use #1 on #2
    // reversed.
    let e = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": p2, "dependent_pr": p1}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "logical", "{e:?}");
    // A merged PR has nothing left to merge.
    let e = call(&ctx, "detect_merge_conflicts", json!({"pr": p1}))
        .await
        .unwrap_err();
    assert_eq!(e.category.as_str(), "logical", "{e:?}");
    assert!(e.error.contains("already merged"), "{e:?}");
    let e = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": p1, "dependent_pr": p1}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user");
    let e = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": p1, "dependent_pr": "other/repo#2"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user", "{e:?}");
    let e = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": p1, "dependent_pr": p2, "push": true}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user");
    let e = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": p1, "dependent_pr": p2, "onto_base": "-x"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user");
    ctx.read_only = true;
    let e = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": p1, "dependent_pr": p2, "execute": true}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "logical");
    assert!(e.error.contains("--read-only"));
}

/// The plan's git commands, run as given in a real bash in the user's checkout, restack the
/// branches; branch names full of shell syntax stay data.
async fn plan_commands_run_in_bash_and_hostile_names_stay_data(flavor: Flavor) {
    let names = [
        "a-$(touch${IFS}pwned-a)",
        "b;touch${IFS}pwned-b",
        "c`touch${IFS}pwned-c`",
    ];
    let s = stack_world_named(Landing::Squash, names);
    let sim = stack_sim(flavor, &s).await;
    let checkout = s.w.checkout(&sim, "main");
    // The user works on the dependent: a local branch of it.
    git(&checkout, &["switch", "-q", names[1]]);
    git(&checkout, &["switch", "-q", names[2]]);
    git(&checkout, &["switch", "-q", "main"]);
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let out = call(&ctx, "manage_stacked_prs", json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout,
    }))
    .await
    .expect("plans");
    let commands: Vec<String> = out["commands"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "git" && !c["command"].as_str().unwrap().starts_with("git push"))
        .map(|c| c["command"].as_str().unwrap().to_owned())
        .collect();
    assert!(commands.len() >= 4, "{commands:?}");
    let script = commands.join(" && \\\n");
    let run = Command::new("bash")
        .args(["--noprofile", "--norc", "-e", "-c", &script])
        .current_dir(&checkout)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{script}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for f in ["pwned-a", "pwned-b", "pwned-c"] {
        assert!(
            !checkout.join(f).exists() && !s.w.root.join(f).exists(),
            "{f} was created"
        );
    }
    let main = git(&checkout, &["rev-parse", "origin/main"]);
    let b = git(
        &checkout,
        &["rev-parse", &format!("refs/heads/{}", names[1])],
    );
    let c = git(
        &checkout,
        &["rev-parse", &format!("refs/heads/{}", names[2])],
    );
    assert_eq!(
        git(&checkout, &["rev-list", "--count", &format!("{main}..{b}")]),
        "2"
    );
    assert_eq!(git(&checkout, &["rev-parse", &format!("{c}^")]), b);
}

/// The text a client without structured output sees.
async fn call_text(ctx: &Context, tool: &str, args: Value) -> (Value, String) {
    let out = resolve_pr_tools::call(ctx, tool, args)
        .await
        .expect("answers");
    (out.structured, out.text)
}

/// The stack of `stack_world(Squash)` with the PRs of `forked` coming from the fork
/// `someone/widgets`, whose branches live only there: a bare repository the simulator
/// serves beside acme/widgets, and no such branch in acme/widgets (only `refs/pull/N/head`).
async fn fork_stack_sim(flavor: Flavor, s: &Stack, forked: &[u64]) -> SimHandle {
    let fork = s.w.git_root().join("someone").join("widgets.git");
    std::fs::create_dir_all(&fork).unwrap();
    git(&fork, &["init", "-q", "--bare", "-b", "main"]);
    let mut yaml = String::new();
    let merged = s.merge_commit.is_some();
    let pulls = [
        Pull {
            number: 1,
            head: s.names[0],
            head_sha: &s.a,
            base: "main",
            base_sha: &s.main_before,
            state: if merged { "merged" } else { "open" },
            merge_commit: s.merge_commit.as_deref(),
            mergeable: None,
        },
        Pull {
            number: 2,
            head: s.names[1],
            head_sha: &s.b,
            base: s.names[0],
            base_sha: &s.a,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
        Pull {
            number: 3,
            head: s.names[2],
            head_sha: &s.c,
            base: s.names[1],
            base_sha: &s.b,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
    ];
    yaml.push_str(&scenario_yaml(flavor, &pulls));
    for n in forked {
        let (name, sha) = match n {
            2 => (s.names[1], &s.b),
            _ => (s.names[2], &s.c),
        };
        let from = format!("head: {{ref: {name:?}, sha: {sha}}}");
        assert!(yaml.contains(&from));
        yaml = yaml.replace(
            &from,
            &format!("head: {{ref: {name:?}, sha: {sha}, repo: someone/widgets}}"),
        );
        git(
            &s.w.build,
            &[
                "push",
                "-q",
                fork.to_str().unwrap(),
                &format!("{sha}:refs/heads/{name}"),
            ],
        );
        git(
            &s.w.bare,
            &["update-ref", "-d", &format!("refs/heads/{name}")],
        );
    }
    yaml.push_str("  - owner: someone\n    name: widgets\n");
    Sim::start(scenario(&yaml).with_git_root(s.w.git_root()))
        .await
        .unwrap()
}

/// Runs `commands` in bash in `dir`, each as given, and says whether all succeeded.
fn run_in_bash(dir: &Path, commands: &[String]) -> std::process::Output {
    let script = commands.join(" && \\\n");
    Command::new("bash")
        .args(["--noprofile", "--norc", "-e", "-c", &script])
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .output()
        .unwrap()
}

fn command_lines(out: &Value) -> Vec<String> {
    out["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["command"].as_str().unwrap().to_owned())
        .collect()
}

/// A dependent from a fork whose branch exists only there: the plan fetches its head from
/// `refs/pull/N/head` into `pr-N` (no `git switch` of a branch this repository lacks), and
/// its commands run as given; execute with push restacks it but never pushes it through
/// this repository's remote, and says it is from a fork, in the text too.
async fn a_fork_dependent_is_planned_from_its_pull_ref_and_never_pushed_here(flavor: Flavor) {
    let s = stack_world(Landing::Squash);
    let sim = fork_stack_sim(flavor, &s, &[2]).await;
    let checkout = s.w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let args = json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout,
    });
    let (out, text) = call_text(&ctx, "manage_stacked_prs", args.clone()).await;
    assert_eq!(out["merge_method"], "squash", "{out:#}");
    assert!(
        text.contains("#2 is from a fork (someone/widgets)"),
        "{text}"
    );
    let commands = command_lines(&out);
    assert!(
        commands.contains(
            &"git fetch --end-of-options origin refs/pull/2/head:refs/heads/pr-2".to_owned()
        ),
        "{commands:?}"
    );
    let local: Vec<String> = commands
        .iter()
        .filter(|c| c.starts_with("git ") && !c.starts_with("git push"))
        .cloned()
        .collect();
    let run = run_in_bash(&checkout, &local);
    assert!(
        run.status.success(),
        "{local:?}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let main = git(&checkout, &["rev-parse", "origin/main"]);
    assert_eq!(
        git(
            &checkout,
            &["rev-list", "--count", &format!("{main}..pr-2")]
        ),
        "2"
    );
    // The push to the fork, as given, moves the fork's branch.
    let to_fork = commands
        .iter()
        .find(|c| c.starts_with("git push") && c.contains("someone/widgets.git"))
        .expect("a push to the fork");
    let run = run_in_bash(&checkout, std::slice::from_ref(to_fork));
    assert!(
        run.status.success(),
        "{to_fork}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let fork = s.w.git_root().join("someone").join("widgets.git");
    assert_eq!(
        git(&fork, &["rev-parse", "refs/heads/feature-b"]),
        git(&checkout, &["rev-parse", "pr-2"])
    );
    // execute + push: restacked, nothing pushed to acme/widgets, and said so.
    let mut push = args.clone();
    push["execute"] = json!(true);
    push["push"] = json!(true);
    let (out, text) = call_text(&ctx, "manage_stacked_prs", push).await;
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    assert!(
        text.contains("[skipped] push feature-b: #2 is from a fork"),
        "{text}"
    );
    assert!(
        git(&s.w.bare, &["for-each-ref", "refs/heads/feature-b"]).is_empty(),
        "no branch made in the base repository"
    );
}

/// A fork's PR above the user's own: execute with push restacks both, pushes the user's
/// own branch (not one atomic push that fails as a whole), and gives the push of the fork's
/// level, which works as given, with what its author runs instead.
async fn a_fork_above_the_users_own_pr_is_left_out_of_the_push(flavor: Flavor) {
    let s = stack_world(Landing::Squash);
    let sim = fork_stack_sim(flavor, &s, &[3]).await;
    let checkout = s.w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let args = json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout,
        "execute": true, "push": true,
    });
    let (out, text) = call_text(&ctx, "manage_stacked_prs", args).await;
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    assert_eq!(out["summary"]["action_required"], true, "{out:#}");
    let new_b = s.w.remote_branch("feature-b");
    let main = s.w.remote_branch("main");
    assert_eq!(
        git(
            &s.w.bare,
            &["rev-list", "--count", &format!("{main}..{new_b}")]
        ),
        "2",
        "the user's own PR is restacked and pushed"
    );
    assert!(
        text.contains("#3 is from a fork (someone/widgets)"),
        "{text}"
    );
    assert!(text.contains("if it fails: The fork refuses your push: ask @alice to run `git rebase --onto upstream/feature-b"), "{text}");
    let commands = command_lines(&out);
    let to_fork = commands
        .iter()
        .find(|c| c.starts_with("git push"))
        .expect("a push to the fork");
    assert!(
        to_fork.contains("someone/widgets.git")
            && to_fork.contains("refs/resolve-pr/restack/feature-c:refs/heads/feature-c"),
        "{to_fork}"
    );
    let run = run_in_bash(&checkout, std::slice::from_ref(to_fork));
    assert!(
        run.status.success(),
        "{to_fork}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let fork = s.w.git_root().join("someone").join("widgets.git");
    let new_c = git(&fork, &["rev-parse", "refs/heads/feature-c"]);
    git(
        &s.w.bare,
        &["fetch", "-q", fork.to_str().unwrap(), "feature-c"],
    );
    assert_eq!(git(&s.w.bare, &["rev-parse", &format!("{new_c}^")]), new_b);
}

/// A dependent whose commits all reached trunk in the base's squash: the plan replays 0 of
/// them (not 2), verifies 0 lines, says the PR has nothing left and can be closed, and
/// pushes only the PR above; execute with push leaves the dependent's branch alone.
async fn a_dependent_with_nothing_left_is_not_pushed_but_closed(flavor: Flavor) {
    let s = stack_world(Landing::SquashedWithDependent);
    let sim = stack_sim(flavor, &s).await;
    let checkout = s.w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let args = json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout,
    });
    let (out, text) = call_text(&ctx, "manage_stacked_prs", args.clone()).await;
    assert!(
        text.contains("! #2 has nothing left: all 2 of its commit(s) are in main already"),
        "{text}"
    );
    let commands = out["commands"].as_array().unwrap();
    let check = commands
        .iter()
        .find(|c| {
            c["type"] == "verification" && c["command"].as_str().unwrap().starts_with("git log")
        })
        .unwrap();
    assert_eq!(check["expect_output"], "0 line(s)", "{out:#}");
    let lines = command_lines(&out);
    let push = lines.iter().find(|c| c.starts_with("git push")).unwrap();
    assert!(!push.contains("feature-b"), "{push}");
    assert!(
        lines.iter().any(|c| c.starts_with("# close #2")),
        "{lines:?}"
    );
    let mut exec = args.clone();
    exec["execute"] = json!(true);
    exec["push"] = json!(true);
    let (out, text) = call_text(&ctx, "manage_stacked_prs", exec).await;
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    assert!(
        text.contains("[skipped] push feature-b: #2 has nothing left"),
        "{text}"
    );
    assert!(text.contains("2 dropped: already in main"), "{text}");
    assert_eq!(
        s.w.remote_branch("feature-b"),
        s.b,
        "not emptied on the forge"
    );
    let main = s.w.remote_branch("main");
    let new_c = s.w.remote_branch("feature-c");
    assert_eq!(git(&s.w.bare, &["rev-parse", &format!("{new_c}^")]), main);
}

/// 25 conflicted files: 20 on the first page, the rest after the cursor; a cursor of another
/// merge is refused.
async fn many_conflicts_are_paged(flavor: Flavor) {
    let w = World::new();
    let names: Vec<String> = (0..25).map(|i| format!("dir/file{i:02}.txt")).collect();
    let base: Vec<(&str, Option<&str>)> =
        names.iter().map(|n| (n.as_str(), Some("base\n"))).collect();
    w.commit(&base, "base");
    w.switch("feature", Some("main"));
    let pr_side: Vec<(&str, Option<&str>)> =
        names.iter().map(|n| (n.as_str(), Some("pr\n"))).collect();
    let head = w.commit(&pr_side, "feature");
    w.switch("main", None);
    let main_side: Vec<(&str, Option<&str>)> =
        names.iter().map(|n| (n.as_str(), Some("main\n"))).collect();
    let main = w.commit(&main_side, "main");
    w.publish(&[(1, &head)]);
    let sim = start_feature_pr(flavor, &w, &head, &main, None).await;
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let args = json!({"pr": pr(flavor, &sim, 1)});
    let first = call(&ctx, "detect_merge_conflicts", args.clone())
        .await
        .unwrap();
    assert_eq!(first["conflict_count"], 25);
    let page: Vec<&str> = first["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["file_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        page,
        names[..20].iter().map(String::as_str).collect::<Vec<_>>()
    );
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let text = resolve_pr_tools::call(&ctx, "detect_merge_conflicts", args.clone())
        .await
        .unwrap()
        .text;
    let mut next_args = args.clone();
    next_args["cursor"] = json!(cursor);
    assert!(
        text.ends_with(&format!(
            "\nShowing 20 of 25; next page: call detect_merge_conflicts with {next_args}"
        )),
        "{text}"
    );
    let second = call(&ctx, "detect_merge_conflicts", next_args)
        .await
        .unwrap();
    let page: Vec<&str> = second["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["file_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        page,
        names[20..].iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert!(second.get("nextCursor").is_none());
    assert!(
        second.get("instructions").is_none(),
        "the first page has them"
    );
    // The instructions add every conflicted file, not only the page's.
    let steps = first["instructions"]["resolution_steps"].to_string();
    assert!(steps.contains("dir/file24.txt"), "{steps}");
    // The target moves: the cursor no longer fits.
    w.commit(&[("other.txt", Some("x\n"))], "main moves");
    w.publish(&[(1, &head)]);
    let mut stale = args.clone();
    stale["cursor"] = json!(cursor);
    let e = call(&ctx, "detect_merge_conflicts", stale)
        .await
        .unwrap_err();
    assert_eq!(e.category.as_str(), "user", "{e:?}");
    assert!(e.suggestion.unwrap().contains("without cursor"));
}

/// The plan's commands stop before the push when a local branch of the stack is stale: the
/// check fails instead of pushing it over the PR's commits.
/// What a call costs in git processes when the PR's commits are in the checkout: the merge
/// bases (which also say both commits are here), the merge, and one read of every conflicted
/// file: 3, against about 22 and a fetch before. The checkout's discovery and remotes are
/// remembered from the process's first call. A later page of the same merge runs none.
async fn a_local_pr_costs_three_git_processes_and_a_later_page_none(flavor: Flavor) {
    let w = World::new();
    let names: Vec<String> = (0..22).map(|i| format!("f{i:02}.txt")).collect();
    let side = |text: &'static str| -> Vec<(&str, Option<&str>)> {
        names.iter().map(|n| (n.as_str(), Some(text))).collect()
    };
    w.commit(&side("base\n"), "base");
    w.switch("feature", Some("main"));
    let head = w.commit(&side("pr\n"), "feature");
    w.switch("main", None);
    let main = w.commit(&side("main\n"), "main");
    w.publish(&[(1, &head)]);
    let sim = start_feature_pr(flavor, &w, &head, &main, None).await;
    let checkout = w.checkout(&sim, "main");
    git(&checkout, &["fetch", "-q", "origin", "feature"]);
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("log");
    resolve_pr_testkit::write_script(
        &bin.path().join("git"),
        &format!(
            "#!/bin/sh\necho \"$1\" >> '{}'\nexec git \"$@\"\n",
            log.display()
        ),
    );
    let mut ctx = tool_ctx(flavor, &sim, &w, None);
    ctx.local.git = Some(bin.path().join("git"));
    let args = json!({"pr": pr(flavor, &sim, 1), "directory": checkout});
    // The first call also asks the program's version and finds the checkout and its
    // remotes, once per process.
    call(&ctx, "detect_merge_conflicts", args.clone())
        .await
        .unwrap();
    std::fs::remove_file(&log).unwrap();
    let first = call(&ctx, "detect_merge_conflicts", args.clone())
        .await
        .unwrap();
    assert_eq!(first["conflict_count"], 22);
    let ran = std::fs::read_to_string(&log).unwrap();
    assert_eq!(ran.lines().count(), 3, "{ran}");
    assert!(!ran.contains("fetch"), "{ran}");
    std::fs::remove_file(&log).unwrap();
    let mut next = args.clone();
    next["cursor"] = first["nextCursor"].clone();
    let second = call(&ctx, "detect_merge_conflicts", next).await.unwrap();
    assert_eq!(second["conflicts"].as_array().unwrap().len(), 2);
    assert!(!log.exists(), "{:?}", std::fs::read_to_string(&log));
}

async fn a_stale_local_branch_stops_the_commands_before_the_push(flavor: Flavor) {
    let s = stack_world(Landing::Squash);
    let sim = stack_sim(flavor, &s).await;
    let checkout = s.w.checkout(&sim, "main");
    git(&checkout, &["branch", "feature-b", "origin/feature-b"]);
    // Local feature-c lacks #3's commit.
    git(&checkout, &["branch", "feature-c", &s.b]);
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let out = call(&ctx, "manage_stacked_prs", json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout,
    }))
    .await
    .expect("plans");
    let script = out["commands"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "git" || c["type"] == "verification")
        .filter(|c| !c["command"].as_str().unwrap().starts_with("git log"))
        .map(|c| c["command"].as_str().unwrap().to_owned())
        .collect::<Vec<_>>()
        .join(" && ");
    assert!(script.contains("git push"), "{script}");
    let run = Command::new("bash")
        .args(["--noprofile", "--norc", "-c", &script])
        .current_dir(&checkout)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_COMMITTER_NAME", "Ada")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .output()
        .unwrap();
    assert!(!run.status.success(), "the chain must stop");
    assert_eq!(s.w.remote_branch("feature-b"), s.b, "nothing pushed");
    assert_eq!(s.w.remote_branch("feature-c"), s.c, "nothing pushed");
}

/// The base PR was force-pushed after the dependent left it, then squash-merged: the old
/// commits are not the dependent's own; the boundary is the base the forge recorded.
async fn a_rewritten_base_is_not_replayed(flavor: Flavor) {
    let w = World::new();
    let lines: String = (1..=10).map(|i| format!("{i}\n")).collect();
    let main_before = w.commit(&[("f.txt", Some(&lines))], "base");
    w.switch("feature-a", Some("main"));
    w.commit(&[("f.txt", Some(&lines.replacen("1\n", "A1\n", 1)))], "A1");
    let old_a = w.commit(&[("a.txt", Some("a\n"))], "A2");
    w.switch("feature-b", Some("feature-a"));
    let b = w.commit(&[("b.txt", Some("b\n"))], "B");
    // feature-a is rewritten: other content on the same line.
    w.switch("feature-a", None);
    git(&w.build, &["reset", "-q", "--hard", &main_before]);
    let a = w.commit(
        &[("f.txt", Some(&lines.replacen("1\n", "A rewritten\n", 1)))],
        "A again",
    );
    w.switch("main", None);
    git(&w.build, &["merge", "-q", "--squash", "feature-a"]);
    let squash = w.commit(&[], "A (#1)");
    w.publish(&[(1, &a), (2, &b)]);
    let pulls = [
        Pull {
            number: 1,
            head: "feature-a",
            head_sha: &a,
            base: "main",
            base_sha: &main_before,
            state: "merged",
            merge_commit: Some(&squash),
            mergeable: None,
        },
        Pull {
            number: 2,
            head: "feature-b",
            head_sha: &b,
            base: "feature-a",
            base_sha: &old_a,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
    ];
    let sim = start(flavor, &w, &pulls).await;
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2)}),
    )
    .await
    .expect("plans");
    assert_eq!(out["last_upstream_commit"], old_a.as_str(), "{out:#}");
    assert_eq!(out["rebase_strategy"]["recommended"], "onto");
    assert_eq!(
        out["predicted_conflicts"],
        json!([]),
        "only B is replayed: {out:#}"
    );
    assert!(out["issues"].to_string().contains("rewritten"), "{out:#}");
    assert!(
        out["rebase_strategy"]["considerations"]
            .to_string()
            .contains("only the dependent's own 1 commit"),
        "{out:#}"
    );
}

/// A branch that does not exist on the remote is the caller's mistake, said as such.
async fn a_missing_branch_is_a_user_error(flavor: Flavor) {
    let s = stack_world(Landing::Squash);
    let sim = stack_sim(flavor, &s).await;
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let e = call(&ctx, "manage_stacked_prs", json!({
        "base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "onto_base": "nope",
    }))
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user", "{e:?}");
    assert!(e.error.contains("refs/heads/nope"), "{e:?}");
    let e = call(
        &ctx,
        "detect_merge_conflicts",
        json!({"pr": pr(flavor, &sim, 2), "target_branch": "nope"}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.category.as_str(), "user", "{e:?}");
}

// ---------------------------------------------------------------- check_merge_readiness

/// The forge has not computed mergeability (GitHub's null; Forgejo's false, which also means
/// "checking"): in the user's checkout a local merge answers, never in a fresh clone.
async fn readiness_merges_locally_when_the_forge_has_not(flavor: Flavor) {
    let (w, head, main) = conflicting_world();
    let mergeable = match flavor {
        Flavor::GitHub => None,
        Flavor::Forgejo => Some(false),
    };
    let sim = start_feature_pr(flavor, &w, &head, &main, mergeable).await;
    let checkout = w.checkout(&sim, "main");
    let before = snapshot(&checkout);
    // The checkout is the server's working directory: no directory argument.
    let ctx = tool_ctx(flavor, &sim, &w, Some(checkout.clone()));
    let out = call(
        &ctx,
        "check_merge_readiness",
        json!({"pr": pr(flavor, &sim, 1)}),
    )
    .await
    .expect("answers");
    assert_eq!(out["ready_to_merge"], false, "{out:#}");
    assert_eq!(out["checks"]["no_conflicts"], false);
    assert_eq!(out["conflicts_checked_by"], "local", "{out:#}");
    let conflicts = out["blocking_issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["category"] == "conflicts")
        .unwrap_or_else(|| panic!("a conflicts blocker: {out:#}"));
    assert_eq!(conflicts["next_tool"], "detect_merge_conflicts");
    assert_eq!(
        snapshot(&checkout),
        before,
        "the user's repository is untouched"
    );
    assert_eq!(
        git(&checkout, &["for-each-ref", "refs/resolve-pr/"]),
        "",
        "what the merge fetched leaves no ref behind"
    );

    // Without a checkout at hand: unknown, and nothing is cloned.
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let out = call(
        &ctx,
        "check_merge_readiness",
        json!({"pr": pr(flavor, &sim, 1)}),
    )
    .await
    .expect("answers");
    assert_eq!(out["ready_to_merge"], false);
    assert!(out.get("conflicts_checked_by").is_none(), "{out:#}");
    assert!(
        out["checks"]["no_conflicts"].is_null(),
        "unknown, not false: {out:#}"
    );
    assert_eq!(
        out["unknown"][0]["next_tool"], "detect_merge_conflicts",
        "{out:#}"
    );
    assert!(
        !w.root.join("cache").exists(),
        "no managed clone for a readiness check"
    );
}

/// A PR that merges cleanly, with no rules and no checks, is ready once the local merge says
/// so.
async fn readiness_of_a_clean_pr_with_a_lazy_forge(flavor: Flavor) {
    let w = World::new();
    let base = w.commit(&[("x.txt", Some("x\n"))], "base");
    w.switch("feature", Some("main"));
    let head = w.commit(&[("y.txt", Some("y\n"))], "feature");
    w.publish(&[(1, &head)]);
    let pulls = [Pull {
        number: 1,
        head: "feature",
        head_sha: &head,
        base: "main",
        base_sha: &base,
        state: "open",
        merge_commit: None,
        mergeable: None,
    }];
    let sim = start(flavor, &w, &pulls).await;
    let checkout = w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let out = call(
        &ctx,
        "check_merge_readiness",
        json!({"pr": pr(flavor, &sim, 1), "directory": checkout}),
    )
    .await
    .expect("answers");
    assert_eq!(out["checks"]["no_conflicts"], true, "{out:#}");
    assert_eq!(out["conflicts_checked_by"], "local");
    assert_eq!(out["ready_to_merge"], true, "{out:#}");
}

/// Execute and push on the stack of `s`, with the simulator's PRs as `stack_sim` sets them.
async fn execute_and_push(
    flavor: Flavor,
    sim: &SimHandle,
    ctx: &Context,
    checkout: &Path,
) -> Value {
    call(
        ctx,
        "manage_stacked_prs",
        json!({
            "base_pr": pr(flavor, sim, 1), "dependent_pr": pr(flavor, sim, 2),
            "directory": checkout, "execute": true, "push": true,
        }),
    )
    .await
    .expect("answers")
}

/// The steps an execute reported, as `status step: detail` lines.
fn steps_of(out: &Value) -> String {
    out["automation"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}: {}", s["status"], s["step"], s["detail"]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A stand-in git that runs the shell command `before` once, just before the tool's first
/// `git <verb>`, then the real git for everything: what happens on the remote between the
/// forge's answer and the tool's own git work.
fn git_that_first(bin: &Path, verb: &str, before: &str) -> PathBuf {
    let stand_in = bin.join("git");
    let once = bin.join("ran");
    resolve_pr_testkit::write_script(
        &stand_in,
        &format!(
            "#!/bin/sh\nif [ \"$1\" = {verb} ] && [ ! -e '{once}' ]; then touch '{once}'; {before}; fi\nexec git \"$@\"\n",
            once = once.display()
        ),
    );
    stand_in
}

/// A squash-merged stack whose `feature-b` someone else moves on the remote to a commit of
/// theirs (`commit`, made on a side branch off feature-b by `theirs` and published under it),
/// just before the tool's first `git <verb>`: after the forge answered, before the tool's
/// own git work.
struct Race {
    s: Stack,
    sim: SimHandle,
    checkout: PathBuf,
    ctx: Context,
    commit: String,
    _bin: tempfile::TempDir,
}

async fn race(flavor: Flavor, verb: &str, theirs: impl FnOnce(&World) -> String) -> Race {
    let s = stack_world(Landing::Squash);
    s.w.switch("theirs", Some("feature-b"));
    let commit = theirs(&s.w);
    s.w.switch("main", None);
    git(
        &s.w.build,
        &["push", "-q", s.w.bare.to_str().unwrap(), "theirs"],
    );
    let sim = stack_sim(flavor, &s).await;
    let checkout = s.w.checkout(&sim, "main");
    let bin = tempfile::tempdir().unwrap();
    let mut ctx = tool_ctx(flavor, &sim, &s.w, None);
    let move_b = format!(
        "git --git-dir='{}' update-ref refs/heads/feature-b {commit}",
        s.w.bare.display()
    );
    ctx.local.git = Some(git_that_first(bin.path(), verb, &move_b));
    Race {
        s,
        sim,
        checkout,
        ctx,
        commit,
        _bin: bin,
    }
}

/// Someone force-pushed the dependent's branch after the forge answered and before the
/// tool fetched: the branch no longer contains the head the forge reported, so it is never
/// restacked from the forge's view (that replays commits the branch no longer has back onto
/// it): a plan says the branch moved; execute says so and changes nothing, here or on the
/// remote.
async fn a_force_pushed_branch_is_never_restacked_from_the_forges_old_view(flavor: Flavor) {
    for execute in [false, true] {
        let r = race(flavor, "fetch", |w| {
            git(
                &w.build,
                &["commit", "-q", "--amend", "-m", "B: b.txt, amended"],
            );
            w.head()
        })
        .await;
        let (s, rewritten) = (&r.s, &r.commit);
        let out = call(
            &r.ctx,
            "manage_stacked_prs",
            json!({
                "base_pr": pr(flavor, &r.sim, 1), "dependent_pr": pr(flavor, &r.sim, 2),
                "directory": r.checkout, "execute": execute, "push": execute,
            }),
        )
        .await
        .expect("answers");
        let moved = format!(
            "feature-b (#2) moved: it is at {} on origin, which does not contain {}",
            &rewritten[..7],
            &s.b[..7]
        );
        if !execute {
            let note = out["note"].as_str().unwrap_or_default();
            assert!(note.contains(&moved), "{out:#}");
            continue;
        }
        assert_eq!(out["automation"]["status"], "failed", "{out:#}");
        let steps = steps_of(&out);
        assert!(
            steps.contains(&format!("nothing was changed: {moved}")),
            "{steps}"
        );
        assert_eq!(
            &s.w.remote_branch("feature-b"),
            rewritten,
            "the other push stays"
        );
        assert_eq!(s.w.remote_branch("feature-c"), s.c);
        let refs = git(&r.checkout, &["for-each-ref", "refs/resolve-pr/restack/"]);
        assert_eq!(refs, "", "nothing restacked");
    }
}

/// The dependent's author rebased it onto a newer trunk (a force-push the forge reports):
/// trunk's commits in it are not the dependent's own, so the restack onto the open base
/// replays its two commits only; the PR above it, still on the old head, starts after the
/// base the forge recorded for it.
async fn a_dependent_rebased_onto_trunk_replays_none_of_trunks_commits(flavor: Flavor) {
    let s = stack_world(Landing::Open);
    let w = &s.w;
    let trunk_commit = w.commit(&[("h.txt", Some("trunk moves on\n"))], "trunk moves on");
    w.switch("feature-b", None);
    git(&w.build, &["rebase", "-q", "--onto", "main", &s.a]);
    let rebased = w.head();
    w.switch("main", None);
    w.publish(&[(1, &s.a), (2, &rebased), (3, &s.c)]);
    let pulls = [
        Pull {
            number: 1,
            head: "feature-a",
            head_sha: &s.a,
            base: "main",
            base_sha: &s.main_before,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
        Pull {
            number: 2,
            head: "feature-b",
            head_sha: &rebased,
            base: "feature-a",
            base_sha: &s.a,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
        Pull {
            number: 3,
            head: "feature-c",
            head_sha: &s.c,
            base: "feature-b",
            base_sha: &s.b,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
    ];
    let sim = start(flavor, w, &pulls).await;
    let checkout = w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, w, None);
    let out = execute_and_push(flavor, &sim, &ctx, &checkout).await;
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    assert!(
        out["issues"]
            .to_string()
            .contains("its own commits are taken to start there"),
        "{out:#}"
    );
    let (a, b, c) = (
        w.remote_branch("feature-a"),
        w.remote_branch("feature-b"),
        w.remote_branch("feature-c"),
    );
    assert_eq!(
        git(&w.bare, &["rev-list", "--count", &format!("{a}..{b}")]),
        "2"
    );
    assert_eq!(
        git(&w.bare, &["rev-list", "--count", &format!("{b}..{c}")]),
        "1"
    );
    let touched = git(
        &w.bare,
        &["log", "--format=%s", "--name-only", &format!("{a}..{c}")],
    );
    assert!(
        !touched.contains("h.txt"),
        "trunk's commit was replayed: {touched}"
    );
    assert!(
        !Command::new("git")
            .args(["merge-base", "--is-ancestor", &trunk_commit, &c])
            .current_dir(&w.bare)
            .status()
            .unwrap()
            .success()
    );
}

/// A colleague pushes to the dependent's branch while execute runs (between its fetch and
/// its push): the lease on the head it restacked refuses the push, the colleague's commit
/// stays, and the other branch of the atomic push does not move either.
async fn a_colleagues_push_during_execute_is_kept_by_the_lease(flavor: Flavor) {
    let r = race(flavor, "push", |w| {
        w.commit(&[("colleague.txt", Some("mine\n"))], "colleague's fix")
    })
    .await;
    let out = execute_and_push(flavor, &r.sim, &r.ctx, &r.checkout).await;
    assert_eq!(out["automation"]["status"], "failed", "{out:#}");
    let steps = steps_of(&out);
    assert!(steps.contains("\"failed\" \"push\""), "{steps}");
    assert_eq!(
        r.s.w.remote_branch("feature-b"),
        r.commit,
        "the colleague's push stays"
    );
    assert_eq!(r.s.w.remote_branch("feature-c"), r.s.c, "all or nothing");
}

/// Someone pushed to the dependent's branch after the forge answered and before the tool
/// fetched: the branch contains the head the forge reported, so it is planned and restacked
/// from its tip, the new commit with it, under a lease on that tip.
async fn a_push_the_forge_has_not_shown_is_restacked_with_the_branch(flavor: Flavor) {
    let r = race(flavor, "fetch", |w| {
        w.commit(&[("late.txt", Some("late\n"))], "B: a late push")
    })
    .await;
    let out = execute_and_push(flavor, &r.sim, &r.ctx, &r.checkout).await;
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    assert!(
        out["note"]
            .as_str()
            .unwrap_or_default()
            .contains("ahead of the head"),
        "{out:#}"
    );
    let bare = &r.s.w.bare;
    let main = r.s.w.remote_branch("main");
    let b = r.s.w.remote_branch("feature-b");
    assert_eq!(
        git(bare, &["rev-list", "--count", &format!("{main}..{b}")]),
        "3"
    );
    assert_eq!(git(bare, &["show", &format!("{b}:late.txt")]), "late");
    let c = r.s.w.remote_branch("feature-c");
    assert_eq!(git(bare, &["rev-parse", &format!("{c}^")]), b);
}

/// Forgejo and Gitea report a merged PR's `base.sha` as its target branch's current tip,
/// which holds a merge commit of the PR: the base's changed files still come from history
/// (the merge commit's first parent), not from a merge base that is the head itself.
async fn a_merge_commit_base_reports_its_files_when_base_sha_is_trunks_tip(flavor: Flavor) {
    let s = stack_world(Landing::MergeCommit);
    let merge = s.merge_commit.clone().unwrap();
    let mut pulls = stack_pulls(&s);
    pulls[0].base_sha = &merge;
    let sim = start(flavor, &s.w, &pulls).await;
    let ctx = tool_ctx(flavor, &sim, &s.w, None);
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2)}),
    )
    .await
    .expect("plans");
    assert_eq!(out["merge_method"], "merge", "{out:#}");
    assert_eq!(
        out["change_summary"]["files_changed_in_base"],
        json!(["a.txt", "f.txt"]),
        "{out:#}"
    );
    assert_eq!(out["change_summary"]["base_additions"], 2, "{out:#}");
}

/// A five-level stack: GitHub filters its list by branch (one request a level), Forgejo and
/// Gitea do not, so there the open list is read once for every level.
async fn a_five_level_stack_is_walked_with_one_listing_where_the_forge_cannot_filter(
    flavor: Flavor,
) {
    let w = World::new();
    w.commit(&[("f.txt", Some("f\n"))], "base");
    let mut heads = Vec::new();
    let mut from = "main".to_owned();
    for i in 1..=5 {
        let branch = format!("level-{i}");
        w.switch(&branch, Some(&from));
        heads.push(w.commit(&[(&format!("{i}.txt"), Some("x\n"))], &format!("level {i}")));
        from = branch;
    }
    w.switch("main", None);
    let main = w.head();
    let published: Vec<(u64, &str)> = heads
        .iter()
        .enumerate()
        .map(|(i, h)| (i as u64 + 1, h.as_str()))
        .collect();
    w.publish(&published);
    let names: Vec<String> = (0..=5)
        .map(|i| {
            if i == 0 {
                "main".to_owned()
            } else {
                format!("level-{i}")
            }
        })
        .collect();
    let pulls: Vec<Pull<'_>> = (1..=5)
        .map(|i| Pull {
            number: i as u64,
            head: &names[i],
            head_sha: &heads[i - 1],
            base: &names[i - 1],
            base_sha: if i == 1 { &main } else { &heads[i - 2] },
            state: "open",
            merge_commit: None,
            mergeable: None,
        })
        .collect();
    let sim = start(flavor, &w, &pulls).await;
    let ctx = tool_ctx(flavor, &sim, &w, None);
    sim.clear_requests();
    let out = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 2), "dependent_pr": pr(flavor, &sim, 3)}),
    )
    .await
    .expect("plans");
    let stack: Vec<&str> = out["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["branch"].as_str().unwrap())
        .collect();
    assert_eq!(
        stack,
        ["level-1", "level-2", "level-3", "level-4", "level-5"],
        "{out:#}"
    );
    let lists = sim
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/pulls") && r.method == "GET")
        .count();
    // GitHub: two levels down (#1, then none), three up (#4, #5, then none).
    let expected = match flavor {
        Flavor::GitHub => 5,
        Flavor::Forgejo => 1,
    };
    assert_eq!(lists, expected, "{:?}", sim.requests());
}

/// The simulator with `pulls`, where PR #1's head branch was force-pushed as `pushes`
/// (before, after), as its timeline records it.
async fn start_with_force_pushes(
    flavor: Flavor,
    world: &World,
    pulls: &[Pull<'_>],
    pushes: &[(&str, &str)],
) -> SimHandle {
    let yaml = scenario_yaml(flavor, pulls);
    let list: Vec<String> = pushes
        .iter()
        .map(|(b, a)| format!("{{before: {b}, after: {a}}}"))
        .collect();
    let field = format!("        force_pushes: [{}]\n", list.join(", "));
    let yaml = yaml.replacen(
        "      - number: 2\n",
        &format!("{field}      - number: 2\n"),
        1,
    );
    let sc = scenario(&yaml).with_git_root(world.git_root());
    Sim::start(sc).await.expect("sim starts")
}

/// main ← A (#1: a commit on f.txt, then one adding debug.txt) ← B (#2: b.txt, branched from
/// A's second commit). A's author then dropped the debug.txt commit and force-pushed (from
/// `dropped_from`: A's second commit, or a later push of it nobody fetched), and A was
/// squash-merged. The forge reports #2's base as A's branch now (Forgejo recomputes it;
/// GitHub after #2's next push). Returns the world, A's old tip, A's head, B and `dropped_from`.
fn force_pushed_base_world(later_push: bool) -> (World, String, String, String, String) {
    let w = World::new();
    let lines: String = (1..=10).map(|i| format!("{i}\n")).collect();
    w.commit(&[("f.txt", Some(&lines))], "base");
    w.switch("feature-a", Some("main"));
    let a1 = w.commit(
        &[("f.txt", Some(&lines.replacen("1\n", "A1\n", 1)))],
        "A: f",
    );
    let old_tip = w.commit(&[("debug.txt", Some("debug\n"))], "A: debug output");
    w.switch("feature-b", Some("feature-a"));
    let b = w.commit(&[("b.txt", Some("b\n"))], "B: b.txt");
    w.switch("feature-a", None);
    let dropped_from = if later_push {
        w.commit(&[("more.txt", Some("more\n"))], "A: more")
    } else {
        old_tip.clone()
    };
    git(&w.build, &["reset", "-q", "--hard", &a1]);
    w.switch("main", None);
    git(&w.build, &["merge", "-q", "--squash", "feature-a"]);
    w.commit(&[], "A (#1)");
    w.publish(&[(1, &a1), (2, &b)]);
    (w, old_tip, a1, b, dropped_from)
}

/// The base PR was force-pushed after the dependent branched (a commit dropped), then
/// squash-merged: its timeline gives the old tip, so the dropped commit is not the
/// dependent's own, and the restack and push leave it out.
async fn a_force_pushed_base_does_not_put_a_dropped_commit_back(flavor: Flavor) {
    let (w, old_tip, a1, b, _) = force_pushed_base_world(false);
    let squash = w.remote_branch("main");
    let pulls = [
        Pull {
            number: 1,
            head: "feature-a",
            head_sha: &a1,
            base: "main",
            base_sha: &squash,
            state: "merged",
            merge_commit: Some(&squash),
            mergeable: None,
        },
        Pull {
            number: 2,
            head: "feature-b",
            head_sha: &b,
            base: "feature-a",
            base_sha: &a1,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
    ];
    let sim = start_with_force_pushes(flavor, &w, &pulls, &[(&old_tip, &a1)]).await;
    let checkout = w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let plan = call(
        &ctx,
        "manage_stacked_prs",
        json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout}),
    )
    .await
    .expect("plans");
    assert_eq!(plan["last_upstream_commit"], old_tip.as_str(), "{plan:#}");
    assert_eq!(
        plan["change_summary"]["new_commits_in_dependent"], 1,
        "{plan:#}"
    );
    assert!(plan["issues"].to_string().contains("timeline"), "{plan:#}");
    let out = execute_and_push(flavor, &sim, &ctx, &checkout).await;
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    let main = w.remote_branch("main");
    let new_b = w.remote_branch("feature-b");
    assert_eq!(
        git(
            &w.bare,
            &["log", "--format=%s", &format!("{main}..{new_b}")]
        ),
        "B: b.txt"
    );
    assert!(
        git(&w.bare, &["ls-tree", "--name-only", &new_b])
            .lines()
            .all(|f| f != "debug.txt"),
        "the dropped commit came back"
    );
}

/// The same, but the base's old head before its force-push was never fetched here and
/// nothing else records where the dependent left it: the plan says the boundary is a guess,
/// and a push is refused before anything moves.
async fn a_guessed_boundary_is_said_and_never_pushed(flavor: Flavor) {
    let (w, old_tip, a1, b, unseen) = force_pushed_base_world(true);
    let squash = w.remote_branch("main");
    let pulls = [
        Pull {
            number: 1,
            head: "feature-a",
            head_sha: &a1,
            base: "main",
            base_sha: &squash,
            state: "merged",
            merge_commit: Some(&squash),
            mergeable: None,
        },
        Pull {
            number: 2,
            head: "feature-b",
            head_sha: &b,
            base: "feature-a",
            base_sha: &a1,
            state: "open",
            merge_commit: None,
            mergeable: None,
        },
    ];
    let sim = start_with_force_pushes(flavor, &w, &pulls, &[(&unseen, &a1)]).await;
    let checkout = w.checkout(&sim, "main");
    let ctx = tool_ctx(flavor, &sim, &w, None);
    let args = json!({"base_pr": pr(flavor, &sim, 1), "dependent_pr": pr(flavor, &sim, 2), "directory": checkout});
    let out = resolve_pr_tools::call(&ctx, "manage_stacked_prs", args.clone())
        .await
        .expect("plans");
    let plan = &out.structured;
    assert_eq!(plan["last_upstream_commit"], a1.as_str(), "{plan:#}");
    assert!(
        plan["issues"].to_string().contains("is a guess"),
        "{plan:#}"
    );
    assert!(out.text.contains("is a guess"), "{}", out.text);
    let mut push = args.clone();
    push["execute"] = json!(true);
    push["push"] = json!(true);
    let e = call(&ctx, "manage_stacked_prs", push.clone())
        .await
        .unwrap_err();
    assert_eq!(e.category.as_str(), "logical", "{e:?}");
    assert!(e.error.contains("guess"), "{e:?}");
    assert!(
        e.suggestion.as_deref().unwrap_or("").contains("old_base"),
        "{e:?}"
    );
    assert_eq!(w.remote_branch("feature-b"), b, "nothing pushed");
    // Given the old base, the restack leaves the dropped commit out and pushes.
    push["old_base"] = json!(old_tip);
    let out = call(&ctx, "manage_stacked_prs", push).await.expect("runs");
    assert_eq!(out["automation"]["status"], "completed", "{out:#}");
    let main = w.remote_branch("main");
    let new_b = w.remote_branch("feature-b");
    assert_eq!(
        git(
            &w.bare,
            &["log", "--format=%s", &format!("{main}..{new_b}")]
        ),
        "B: b.txt"
    );
}

on_both_forges_mt!(
    readiness_merges_locally_when_the_forge_has_not,
    readiness_of_a_clean_pr_with_a_lazy_forge,
    conflicts_computed_locally_when_the_forge_has_not,
    a_clean_pr_and_a_forge_that_disagrees,
    without_pr_the_current_branch_chooses_it,
    without_a_checkout_a_managed_clone_is_used,
    a_cancelled_call_leaves_no_git_running,
    target_branch_overrides_the_base,
    bad_directories_and_branches_are_clear_errors,
    a_squash_merged_base_is_restacked_with_onto,
    a_dependent_retargeted_by_hand_is_told_its_merged_base,
    execute_pushes_with_lease_retargets_and_rolls_back,
    a_merge_commit_leaves_the_choice_to_the_agent,
    a_rebase_merge_is_detected,
    predicted_conflicts_stop_execute_before_anything_moves,
    open_bases_unchanged_or_moved,
    stack_bad_inputs,
    plan_commands_run_in_bash_and_hostile_names_stay_data,
    a_fork_dependent_is_planned_from_its_pull_ref_and_never_pushed_here,
    a_dependent_with_nothing_left_is_not_pushed_but_closed,
    an_edited_squash_is_trusted_from_the_forge,
    a_fork_above_the_users_own_pr_is_left_out_of_the_push,
    many_conflicts_are_paged,
    a_local_pr_costs_three_git_processes_and_a_later_page_none,
    a_stale_local_branch_stops_the_commands_before_the_push,
    a_rewritten_base_is_not_replayed,
    a_missing_branch_is_a_user_error,
    a_force_pushed_branch_is_never_restacked_from_the_forges_old_view,
    a_dependent_rebased_onto_trunk_replays_none_of_trunks_commits,
    a_colleagues_push_during_execute_is_kept_by_the_lease,
    a_push_the_forge_has_not_shown_is_restacked_with_the_branch,
    a_merge_commit_base_reports_its_files_when_base_sha_is_trunks_tip,
    a_five_level_stack_is_walked_with_one_listing_where_the_forge_cannot_filter,
    a_force_pushed_base_does_not_put_a_dropped_commit_back,
    a_guessed_boundary_is_said_and_never_pushed,
);
