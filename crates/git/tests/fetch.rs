//! Fetching from a local bare repository over `file://`: refs only under
//! `refs/resolve-pr/`, only missing commits (by id, else by name), and the managed blobless
//! cache clone, reused, safe under concurrent callers, and able to merge (blobs fetched
//! lazily).

mod common;

use std::path::{Path, PathBuf};

use common::{Fixture, git};
use resolve_pr_git::{Error, Limits, open_cache};

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
    let (source, url) = source();
    let cache = tempfile::tempdir().unwrap();
    let repo = open_cache(&git(), cache.path(), &url).unwrap();
    assert!(repo.workdir().is_none(), "not bare");
    let dir = repo.git_dir().to_path_buf();
    assert!(dir.starts_with(cache.path().join("local")), "{dir:?}");
    assert!(dir.to_string_lossy().ends_with(".git"));
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
    let (_source, url) = source();
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
    let (source, url) = source();
    // topic is based on main's parent; restack it onto main's tip (no conflict: the
    // change to line 2 there is replaced by one to line 5).
    source.git(&["config", "user.name", "Source"]);
    source.write("f", LINES.replace("5\n", "FIVE\n"));
    source.git(&["commit", "-q", "-a", "--amend", "-m", "main changes line 5"]);
    let main = head(&source, "main");
    let topic = head(&source, "topic");
    let old_base = head(&source, "topic~2");
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
