//! Fetching from a local repository over `file://` (the user's own remotes may be paths):
//! refs only under `refs/resolve-pr/`, only missing commits (by id, else by name); the
//! managed blobless cache clone, made over smart HTTP from the simulator's git server (a
//! forge's URL is https, http or ssh, never a path), reused, safe under concurrent callers,
//! able to merge (blobs fetched lazily); and what a hostile remote cannot do: other
//! transports, silence, a clone that outlives its deadline or its caller.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Fixture, git};
use resolve_pr_forge_sim::{Scenario, Sim, SimHandle};
use resolve_pr_git::{Cancellation, Error, Git, Limits, NetworkLimits, open_cache};

const LINES: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

/// A source repository (`main`, and `topic` with two commits) serving partial clones, and
/// its `file://` URL.
fn source() -> (Fixture, String) {
    let source = Fixture::new();
    source.git(&["config", "uploadpack.allowFilter", "true"]);
    source.write("f", LINES);
    source.commit("base");
    source.git(&["checkout", "-q", "-b", "topic"]);
    source.write("f", LINES.replace("2\n", "two\n"));
    source.commit("topic 1");
    source.write("g", "g\n");
    source.commit("topic 2");
    source.checkout(&["main"]);
    source.write("f", LINES.replace("2\n", "TWO\n"));
    source.commit("main changes line 2");
    let url = format!("file://{}", source.path().display());
    (source, url)
}

/// A repository served over git's smart HTTP as `o/r`, as a forge serves it.
struct Served {
    url: String,
    _sim: SimHandle,
    _root: tempfile::TempDir,
    _runtime: tokio::runtime::Runtime,
}

/// Serves `fixture` (a non-bare repository: `git http-backend` finds its `.git`) at
/// `{simulator}/o/r.git`.
fn serve(fixture: &Fixture) -> Served {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("o")).unwrap();
    std::os::unix::fs::symlink(fixture.path(), root.path().join("o/r.git")).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let scenario = Scenario::from_yaml("forge: github\n")
        .unwrap()
        .with_git_root(root.path());
    let sim = runtime.block_on(Sim::start(scenario)).unwrap();
    Served {
        url: format!("{}/o/r.git", sim.base_url()),
        _sim: sim,
        _root: root,
        _runtime: runtime,
    }
}

fn head(fixture: &Fixture, rev: &str) -> String {
    fixture.git(&["rev-parse", rev]).trim().to_string()
}

fn user_refs(fixture: &Fixture) -> String {
    fixture.git(&["for-each-ref", "refs/heads", "refs/tags", "refs/remotes"])
}

#[test]
fn fetch_writes_only_under_refs_resolve_pr() {
    let (source, url) = source();
    let local = Fixture::new();
    local.commit("unrelated local work");
    let before = user_refs(&local);
    let repo = local.repository();
    repo.fetch(
        &url,
        &[
            (
                "refs/heads/topic".into(),
                "refs/resolve-pr/pr/1/head".into(),
            ),
            ("main".into(), "refs/resolve-pr/pr/1/base".into()),
        ],
    )
    .unwrap();
    assert_eq!(
        repo.read_ref("refs/resolve-pr/pr/1/head").unwrap(),
        Some(head(&source, "topic"))
    );
    assert_eq!(
        repo.read_ref("refs/resolve-pr/pr/1/base").unwrap(),
        Some(head(&source, "main"))
    );
    assert_eq!(user_refs(&local), before);
    assert!(
        !local.path().join(".git/FETCH_HEAD").exists(),
        "FETCH_HEAD was written"
    );
    // Forced: a rewritten remote branch replaces the ref.
    source.checkout(&["topic"]);
    source.git(&["commit", "-q", "--amend", "-m", "rewritten"]);
    repo.fetch(
        &url,
        &[(
            "refs/heads/topic".into(),
            "refs/resolve-pr/pr/1/head".into(),
        )],
    )
    .unwrap();
    assert_eq!(
        repo.read_ref("refs/resolve-pr/pr/1/head").unwrap(),
        Some(head(&source, "topic"))
    );
}

#[test]
fn destinations_outside_the_namespace_are_refused_before_anything_runs() {
    let (_source, url) = source();
    let local = Fixture::new();
    local.commit("local");
    let repo = local.repository();
    for (src, dst) in [
        ("main", "refs/heads/main"),
        ("main", "refs/resolve-pr/"),
        ("main", "refs/resolve-pr"),
        ("main", "refs/remotes/origin/main"),
        ("main", "refs/resolve-pr/../heads/x"),
        ("main", "refs/resolve-pr/a b"),
        ("main:refs/heads/x", "refs/resolve-pr/x"),
        ("refs/heads/*", "refs/resolve-pr/x"),
        ("", "refs/resolve-pr/x"),
    ] {
        let error = repo.fetch(&url, &[(src.into(), dst.into())]).unwrap_err();
        assert!(
            matches!(error, Error::Usage { .. }),
            "{src} -> {dst}: {error:?}"
        );
    }
    for remote in ["--upload-pack=touch /tmp/resolve-pr-pwned", "-x", ""] {
        let error = repo
            .fetch(remote, &[("main".into(), "refs/resolve-pr/x".into())])
            .unwrap_err();
        assert!(matches!(error, Error::Usage { .. }), "{remote}: {error:?}");
    }
    assert!(matches!(
        repo.fetch(&url, &[]).unwrap_err(),
        Error::Usage { .. }
    ));
    assert_eq!(local.git(&["for-each-ref", "refs/resolve-pr"]), "");
    // A pattern on both sides is a refspec git takes.
    repo.fetch(
        &url,
        &[("refs/heads/*".into(), "refs/resolve-pr/remote/*".into())],
    )
    .unwrap();
    assert_eq!(
        local.git(&["for-each-ref", "--format=%(refname)", "refs/resolve-pr"]),
        "refs/resolve-pr/remote/main\nrefs/resolve-pr/remote/topic\n"
    );
}

#[test]
fn fetch_missing_fetches_only_what_is_absent() {
    let (source, url) = source();
    let local = Fixture::new();
    let repo = local.repository();
    let topic = head(&source, "topic");
    let main = head(&source, "main");
    let wanted = vec![
        (topic.clone(), "refs/heads/topic".to_string()),
        (main.clone(), "refs/heads/main".to_string()),
    ];
    assert_eq!(repo.fetch_missing(&url, &wanted).unwrap(), 1);
    assert!(repo.has_commit(&topic).unwrap() && repo.has_commit(&main).unwrap());
    assert_eq!(
        repo.fetch_missing(&url, &wanted).unwrap(),
        0,
        "all present: no fetch"
    );
}

/// Over protocol v0 a server sends only advertised tips by id: a commit below a tip is
/// fetched by its branch's name on the second try.
#[test]
fn fetch_missing_falls_back_to_ref_names() {
    let (source, url) = source();
    let local = Fixture::new();
    local.git(&["config", "protocol.version", "0"]);
    let repo = local.repository();
    let below_tip = head(&source, "topic~1");
    let wanted = vec![(below_tip.clone(), "refs/heads/topic".to_string())];
    assert_eq!(repo.fetch_missing(&url, &wanted).unwrap(), 2);
    assert!(repo.has_commit(&below_tip).unwrap());
    assert_eq!(
        repo.read_ref("refs/resolve-pr/fetched/heads/topic")
            .unwrap(),
        Some(head(&source, "topic"))
    );
    // A commit the remote does not have at all.
    let absent = "1".repeat(40);
    let error = repo
        .fetch_missing(&url, &[(absent, "refs/heads/main".into())])
        .unwrap_err();
    assert!(matches!(error, Error::BadRevision { .. }), "{error:?}");
    for bad in [("main", "refs/heads/main"), (&"a".repeat(40)[..], "-x")] {
        let error = repo
            .fetch_missing(&url, &[(bad.0.into(), bad.1.into())])
            .unwrap_err();
        assert!(matches!(error, Error::Usage { .. }), "{bad:?}: {error:?}");
    }
}

#[test]
fn an_unreachable_remote_is_a_network_error_without_the_token() {
    let local = Fixture::new();
    let repo = local.repository();
    let url = "https://bot:ghp_topsecret@127.0.0.1:9/o/r.git";
    let error = repo
        .fetch(url, &[("main".into(), "refs/resolve-pr/x".into())])
        .unwrap_err();
    assert!(matches!(error, Error::Network { .. }), "{error:?}");
    let text = format!("{error:?} {error}");
    assert!(!text.contains("ghp_topsecret"), "{text}");
    let cache = tempfile::tempdir().unwrap();
    let error = open_cache(&git(), cache.path(), url).unwrap_err();
    assert!(matches!(error, Error::Network { .. }), "{error:?}");
    assert!(!format!("{error:?} {error}").contains("ghp_topsecret"));
    // Nothing half-made is left in the cache.
    let leftovers: Vec<PathBuf> = walk(cache.path())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "git"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            found.push(path.clone());
            if path.is_dir() {
                found.extend(walk(&path));
            }
        }
    }
    found
}

#[test]
fn the_cache_is_a_bare_blobless_clone_reused_and_able_to_merge() {
    let (source, _) = source();
    let served = serve(&source);
    let url = served.url.clone();
    let cache = tempfile::tempdir().unwrap();
    let repo = open_cache(&git(), cache.path(), &url).unwrap();
    assert!(repo.workdir().is_none(), "not bare");
    let dir = repo.git_dir().to_path_buf();
    assert!(dir.starts_with(cache.path()), "{dir:?}");
    assert!(dir.ends_with("o/r.git"), "{dir:?}");
    let in_cache = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(
        in_cache(&["config", "remote.origin.promisor"]).trim(),
        "true"
    );
    let missing = in_cache(&["rev-list", "--objects", "--missing=print", "--all"]);
    assert!(
        missing.lines().any(|l| l.starts_with('?')),
        "no blob is missing: {missing}"
    );
    assert_eq!(in_cache(&["tag", "-l"]), "");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the clone is readable by others: {mode:o}");
    }

    // Reused: the same repository, not a new clone.
    std::fs::write(dir.join("marker"), "kept").unwrap();
    let again = open_cache(&git(), cache.path(), &url).unwrap();
    assert_eq!(again.git_dir(), dir);
    assert!(dir.join("marker").exists());

    // Brought up to date by a fetch into refs/resolve-pr/; asking about a commit the
    // clone lacks does not fetch it from the promisor remote.
    source.write("h", "h\n");
    let newer = source.commit("main moves");
    assert!(!repo.has_commit(&newer).unwrap());
    assert_eq!(
        repo.fetch_missing("origin", &[(newer.clone(), "refs/heads/main".into())])
            .unwrap(),
        1
    );
    repo.fetch(
        "origin",
        &[("refs/heads/main".into(), "refs/resolve-pr/main".into())],
    )
    .unwrap();
    assert_eq!(repo.read_ref("refs/resolve-pr/main").unwrap(), Some(newer));

    // A merge needs blobs the clone lacks: git fetches them lazily.
    let merge = repo
        .merge_tree("refs/resolve-pr/main", "refs/heads/topic")
        .unwrap();
    assert!(!merge.outcome.clean);
    assert_eq!(merge.outcome.conflicts[0].path, "f");
    let hunks = merge
        .conflict_hunks("f", Limits::default())
        .unwrap()
        .unwrap();
    assert_eq!(hunks.hunks.len(), 1);
}

#[test]
fn concurrent_callers_share_one_clone() {
    let (source, _) = source();
    let served = serve(&source);
    let url = served.url.clone();
    let cache = tempfile::tempdir().unwrap();
    let dirs: Vec<PathBuf> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    open_cache(&git(), cache.path(), &url)
                        .unwrap()
                        .git_dir()
                        .to_path_buf()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(dirs.windows(2).all(|w| w[0] == w[1]), "{dirs:?}");
    let parent = dirs[0].parent().unwrap();
    let entries: Vec<_> = std::fs::read_dir(parent).unwrap().flatten().collect();
    assert_eq!(entries.len(), 1, "staging directories were left behind");
}

#[test]
fn cache_urls_that_are_options_are_refused() {
    let cache = tempfile::tempdir().unwrap();
    for url in ["--upload-pack=touch /tmp/resolve-pr-pwned", "-x", ""] {
        let error = open_cache(&git(), cache.path(), url).unwrap_err();
        assert!(matches!(error, Error::Usage { .. }), "{url}: {error:?}");
    }
    assert!(walk(cache.path()).is_empty());
}

/// A restack in the blobless cache clone (bare, no checkout), with both engines: the blobs
/// the replayed merges need come lazily from the remote, in the side repository of
/// `git replay` as in the temporary worktree of `git rebase`.
#[test]
fn a_restack_in_the_blobless_cache() {
    let (source, _) = source();
    // topic is based on main's parent; restack it onto main's tip (no conflict: the
    // change to line 2 there is replaced by one to line 5).
    source.git(&["config", "user.name", "Source"]);
    source.write("f", LINES.replace("5\n", "FIVE\n"));
    source.git(&["commit", "-q", "-a", "--amend", "-m", "main changes line 5"]);
    let main = head(&source, "main");
    let topic = head(&source, "topic");
    let old_base = head(&source, "topic~2");
    let served = serve(&source);
    let url = served.url.clone();
    for engine in [
        resolve_pr_git::RestackEngine::Replay,
        resolve_pr_git::RestackEngine::Rebase,
    ] {
        let cache = tempfile::tempdir().unwrap();
        let repo = open_cache(&git(), cache.path(), &url)
            .unwrap()
            .with_restack_engine(engine);
        let branches = [resolve_pr_git::RestackBranch {
            name: "topic".into(),
            head: topic.clone(),
            old_base: old_base.clone(),
        }];
        let results = repo.restack(&main, &branches).unwrap();
        assert_eq!(results[0].commits, 2, "{engine:?}");
        assert!(repo.is_ancestor(&main, &results[0].new_head).unwrap());
        let stat = repo.diff_stat(&main, &results[0].new_head).unwrap();
        assert_eq!(stat.files, ["f", "g"], "{engine:?}");
        assert_eq!(
            repo.read_ref("refs/resolve-pr/restack/topic").unwrap(),
            Some(results[0].new_head.clone())
        );
        assert_eq!(
            repo.read_ref("refs/heads/topic").unwrap(),
            Some(topic.clone())
        );
    }
}

// ---------------------------------------------------------------- hostile remotes

/// A stand-in git that answers `--version` and records every other call in `calls`.
fn recording_git(dir: &Path) -> (Git, PathBuf) {
    let calls = dir.join("calls");
    let program = dir.join("git");
    resolve_pr_testkit::write_script(
        &program,
        &format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'git version 2.47.0'; exit 0; fi\necho \"$@\" >> '{}'\nexit 1\n",
            calls.display()
        ),
    );
    (Git::at(&program).unwrap(), calls)
}

#[test]
fn forge_urls_that_are_not_https_http_or_ssh_are_refused_before_git_runs() {
    let bin = tempfile::tempdir().unwrap();
    let (stand_in, calls) = recording_git(bin.path());
    let cache = tempfile::tempdir().unwrap();
    let (_source, file_url) = source();
    for url in [
        "fd::17",
        "fd::0,1/o/r",
        "ext::sh -c touch% /tmp/resolve-pr-pwned",
        file_url.as_str(),
        "/srv/git/o/r.git",
        "git://github.com/o/r.git",
        "ssh://-oProxyCommand=touch%20x/o/r",
    ] {
        let error = open_cache(&stand_in, cache.path(), url).unwrap_err();
        assert!(
            matches!(error, Error::RefusedUrl { .. }),
            "{url}: {error:?}"
        );
        let agent = resolve_pr_core::Error::from(error);
        assert_eq!(agent.category, resolve_pr_core::Category::Logical, "{url}");
        assert!(agent.suggestion.unwrap().contains("https"), "{url}");
    }
    assert!(
        !calls.exists(),
        "git ran: {:?}",
        std::fs::read_to_string(&calls)
    );
    assert!(walk(cache.path()).is_empty());
}

/// The user's checkout keeps its own remotes (a path is fine) but never `ext::` or `fd::`,
/// even where its configuration allows them.
#[test]
fn ext_and_fd_are_refused_even_where_the_user_allows_them() {
    let local = Fixture::new();
    local.commit("local");
    let marker = local.path().join("pwned");
    local.git(&["config", "protocol.ext.allow", "always"]);
    local.git(&[
        "remote",
        "add",
        "evil",
        &format!("ext::sh -c touch% {}", marker.display()),
    ]);
    let repo = local.repository();
    let error = repo
        .fetch("evil", &[("main".into(), "refs/resolve-pr/x".into())])
        .unwrap_err();
    assert!(matches!(error, Error::RefusedUrl { .. }), "{error:?}");
    assert!(!marker.exists(), "the ext:: command ran");
    for url in ["fd::0", "ext::sh -c x"] {
        let error = repo
            .fetch(url, &[("main".into(), "refs/resolve-pr/x".into())])
            .unwrap_err();
        assert!(
            matches!(error, Error::RefusedUrl { .. }),
            "{url}: {error:?}"
        );
    }
}

/// A managed clone follows only https, http and ssh, also when its `origin` was changed to
/// a path afterwards: fetches and lazy fetches alike (`GIT_ALLOW_PROTOCOL`).
#[test]
fn a_managed_clone_never_follows_another_transport() {
    let (source, file_url) = source();
    let served = serve(&source);
    let cache = tempfile::tempdir().unwrap();
    let repo = open_cache(&git(), cache.path(), &served.url).unwrap();
    let set_origin = |url: &str| {
        let status = std::process::Command::new("git")
            .args(["config", "remote.origin.url", url])
            .current_dir(repo.git_dir())
            .status()
            .unwrap();
        assert!(status.success());
    };
    set_origin(&file_url);
    let error = repo
        .fetch(
            "origin",
            &[("refs/heads/main".into(), "refs/resolve-pr/main".into())],
        )
        .unwrap_err();
    assert!(matches!(error, Error::RefusedUrl { .. }), "{error:?}");
    // A merge needs blobs the clone lacks; the lazy fetch from a path is refused too.
    let merge = repo.merge_tree("refs/heads/main", "refs/heads/topic");
    assert!(merge.is_err(), "{merge:?}");
    set_origin(&served.url);
    assert!(
        repo.merge_tree("refs/heads/main", "refs/heads/topic")
            .is_ok()
    );
}

fn silent_remote() -> String {
    resolve_pr_testkit::silent_http_remote("/o/r.git")
}

fn processes_naming(needle: &str) -> Vec<String> {
    resolve_pr_testkit::processes(needle, None)
}

fn assert_gone(needle: &str) {
    resolve_pr_testkit::assert_no_processes(needle, None);
}

#[test]
fn a_remote_that_never_answers_is_a_timely_timeout() {
    let url = silent_remote();
    let limits = NetworkLimits {
        low_speed_time: Duration::from_secs(2),
        ..NetworkLimits::DEFAULT
    };
    let git = git().with_network_limits(limits);
    let cache = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let error = open_cache(&git, cache.path(), &url).unwrap_err();
    let took = started.elapsed();
    eprintln!("a silent remote's clone failed after {took:?}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    assert!(matches!(error, Error::TimedOut { .. }), "{error:?}");
    let agent = resolve_pr_core::Error::from(error);
    assert_eq!(agent.category, resolve_pr_core::Category::Timeout);
    assert!(agent.suggestion.unwrap().contains("RESOLVE_PR_GIT_TIMEOUT"));
    // The user's checkout gets the same limit.
    let local = Fixture::new();
    let error = local
        .repository_with(&git)
        .fetch(&url, &[("main".into(), "refs/resolve-pr/x".into())])
        .unwrap_err();
    assert!(matches!(error, Error::TimedOut { .. }), "{error:?}");
    assert_gone(&url);
}

#[test]
fn a_network_command_past_its_deadline_is_killed_with_its_helpers() {
    let url = silent_remote();
    let limits = NetworkLimits {
        low_speed_time: Duration::from_secs(120),
        deadline: Duration::from_secs(2),
        ..NetworkLimits::DEFAULT
    };
    let cache = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let error = open_cache(&git().with_network_limits(limits), cache.path(), &url).unwrap_err();
    let took = started.elapsed();
    eprintln!("a silent remote's clone was killed after {took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    match &error {
        Error::TimedOut { what, .. } => assert!(what.contains("after 2 s"), "{what}"),
        other => panic!("{other:?}"),
    }
    assert_gone(&url);
    assert!(
        walk(cache.path())
            .iter()
            .all(|p| p.extension().is_none_or(|e| e != "git")),
        "a half-made clone was left"
    );
}

#[test]
fn a_cancelled_clone_is_killed_with_its_helpers() {
    let url = silent_remote();
    let cache = tempfile::tempdir().unwrap();
    let cancellation = Cancellation::new();
    let started = Instant::now();
    let error = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let _entered = cancellation.enter();
            open_cache(&git(), cache.path(), &url)
        });
        // Once git and its helper run, the caller gives up.
        let end = Instant::now() + Duration::from_secs(10);
        while processes_naming(&url).len() < 2 && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !processes_naming(&url).is_empty(),
            "the clone never started"
        );
        cancellation.cancel();
        worker.join().unwrap().unwrap_err()
    });
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(matches!(error, Error::Cancelled { .. }), "{error:?}");
    assert_gone(&url);
    // A cancelled caller starts nothing more.
    let _entered = cancellation.enter();
    let error = open_cache(&git(), cache.path(), &url).unwrap_err();
    assert!(matches!(error, Error::Cancelled { .. }), "{error:?}");
}
