//! Performing and pushing a restack on real repositories, with `git replay` and with the
//! `git rebase` fallback (chosen explicitly, and chosen by a git that says it is 2.43): a
//! three-level stack after a squash merge of its bottom, a conflict that writes nothing,
//! hostile branch names, pushes with leases to a local bare remote (accepted, and rejected
//! when the remote moved), rollback, and the user's branches, HEAD, index, worktree and
//! hooks left alone.

use crate::common;

use std::path::Path;

use common::Fixture;
use resolve_pr_git::{
    Error, Git, PushUpdate, Repository, RestackBranch, RestackEngine, RestackResult,
};

const LINES: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

/// The user's side of the repository: branches, HEAD, index and worktree, worktrees.
fn user_state(fixture: &Fixture) -> Vec<String> {
    vec![
        fixture.git(&["for-each-ref", "refs/heads", "refs/tags", "refs/remotes"]),
        fixture.git(&["rev-parse", "HEAD"]),
        fixture.git(&["symbolic-ref", "-q", "HEAD"]),
        fixture.git(&["status", "--porcelain=v2", "--untracked-files=all"]),
        fixture.git(&["diff", "--cached", "--stat"]),
        fixture.git(&["worktree", "list", "--porcelain"]),
    ]
}

/// Writes a hook that leaves a marker when git runs it.
fn install_hooks(fixture: &Fixture) {
    #[cfg(unix)]
    {
        let marker = fixture.path().join("HOOK-RAN");
        for hook in [
            "post-checkout",
            "pre-rebase",
            "post-rewrite",
            "pre-commit",
            "prepare-commit-msg",
        ] {
            let path = fixture.path().join(".git/hooks").join(hook);
            resolve_pr_testkit::write_script(
                &path,
                &format!("#!/bin/sh\necho {hook} >> '{}'\n", marker.display()),
            );
        }
    }
}

/// A stack on `main`: `a` (2 commits), `$(id)` on it (2 commits), `c` on that (1 commit),
/// each touching its own file; then `a` is squash-merged into `main`, and `main` moves on.
/// The user is left on `c` with an uncommitted change and a staged file.
struct Stack {
    fixture: Fixture,
    a: String,
    b: String,
    c: String,
}

const B: &str = "$(id)";

fn stack() -> Stack {
    let fixture = Fixture::new();
    fixture.git(&["config", "user.name", "Stack Author"]);
    fixture.git(&["config", "user.email", "stack@example.com"]);
    fixture.write("f", LINES);
    fixture.commit("base");
    fixture.git(&["checkout", "-q", "-b", "a"]);
    fixture.write("a", "a1\n");
    fixture.commit("a 1");
    fixture.write("a", "a1\na2\n");
    let a = fixture.commit("a 2");
    fixture.git(&["checkout", "-q", "-b", B]);
    fixture.write("b", "b1\n");
    fixture.commit("b 1");
    fixture.write("f", LINES.replace("2\n", "two\n"));
    let b = fixture.commit("b 2");
    fixture.git(&["checkout", "-q", "-b", "c"]);
    fixture.write("c", "c1\n");
    let c = fixture.commit("c 1");
    fixture.checkout(&["main"]);
    fixture.git(&["merge", "-q", "--squash", "a"]);
    fixture.commit("A (#1)");
    fixture.write("trunk", "t\n");
    fixture.commit("trunk moves on");
    fixture.checkout(&["c"]);
    fixture.write("c", "c1\nuncommitted\n");
    fixture.write("staged", "s\n");
    fixture.git(&["add", "staged"]);
    Stack { fixture, a, b, c }
}

fn branches(stack: &Stack) -> Vec<RestackBranch> {
    vec![
        RestackBranch {
            name: B.into(),
            head: stack.b.clone(),
            old_base: stack.a.clone(),
        },
        RestackBranch {
            name: "c".into(),
            head: stack.c.clone(),
            old_base: stack.b.clone(),
        },
    ]
}

fn first_parents(fixture: &Fixture, from: &str, to: &str) -> Vec<String> {
    fixture
        .git(&[
            "log",
            "--first-parent",
            "--format=%s",
            &format!("{from}..{to}"),
        ])
        .lines()
        .map(str::to_string)
        .collect()
}

fn restacked(repo: &Repository, stack: &Stack) -> Vec<RestackResult> {
    let before = user_state(&stack.fixture);
    let results = repo.restack("main", &branches(stack)).unwrap();
    assert_eq!(
        user_state(&stack.fixture),
        before,
        "the user's state changed"
    );
    results
}

fn check_restacked(stack: &Stack, results: &[RestackResult]) {
    let fixture = &stack.fixture;
    let main = fixture.git(&["rev-parse", "main"]).trim().to_string();
    assert_eq!(results.len(), 2);
    let (b, c) = (&results[0], &results[1]);
    assert_eq!((b.name.as_str(), c.name.as_str()), (B, "c"));
    assert_eq!(
        (b.old_head.as_str(), c.old_head.as_str()),
        (stack.b.as_str(), stack.c.as_str())
    );
    assert_eq!((b.commits, c.commits), (2, 1));
    // Only the branch's own commits, on top of trunk; c on top of the new b.
    assert_eq!(first_parents(fixture, &main, &b.new_head), ["b 2", "b 1"]);
    assert_eq!(
        fixture
            .git(&["rev-parse", &format!("{}~2", b.new_head)])
            .trim(),
        main
    );
    assert_eq!(first_parents(fixture, &b.new_head, &c.new_head), ["c 1"]);
    assert_eq!(
        fixture
            .git(&["rev-parse", &format!("{}~1", c.new_head)])
            .trim(),
        b.new_head
    );
    // Authors are kept; the committer is the repository's user; the tree has everything.
    assert_eq!(
        fixture
            .git(&["log", "-1", "--format=%an <%ae>", &c.new_head])
            .trim(),
        "Test <test@example.com>"
    );
    assert_eq!(
        fixture
            .git(&["log", "-1", "--format=%cn <%ce>", &c.new_head])
            .trim(),
        "Stack Author <stack@example.com>"
    );
    let files = fixture.git(&["ls-tree", "--name-only", &c.new_head]);
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        ["a", "b", "c", "f", "trunk"]
    );
    // The refs under refs/resolve-pr/, and nothing else there.
    assert_eq!(b.backup_ref, format!("refs/resolve-pr/backup/{B}"));
    assert_eq!(b.result_ref, format!("refs/resolve-pr/restack/{B}"));
    let refs = fixture.git(&[
        "for-each-ref",
        "--format=%(refname) %(objectname)",
        "refs/resolve-pr",
    ]);
    let mut expected = vec![
        format!("refs/resolve-pr/backup/{B} {}", stack.b),
        format!("refs/resolve-pr/backup/c {}", stack.c),
        format!("refs/resolve-pr/restack/{B} {}", b.new_head),
        format!("refs/resolve-pr/restack/c {}", c.new_head),
    ];
    expected.sort();
    let mut found: Vec<String> = refs.lines().map(str::to_string).collect();
    found.sort();
    assert_eq!(found, expected);
    assert!(!fixture.path().join("HOOK-RAN").exists(), "a user hook ran");
}

#[test]
fn a_stack_restacked_with_git_replay() {
    let stack = stack();
    install_hooks(&stack.fixture);
    let repo = stack.fixture.repository();
    assert_eq!(
        repo.restack_engine(),
        RestackEngine::Replay,
        "git 2.44+ here"
    );
    let results = restacked(&repo, &stack);
    check_restacked(&stack, &results);
}

#[test]
fn a_stack_restacked_with_the_rebase_fallback() {
    let stack = stack();
    install_hooks(&stack.fixture);
    // Configuration that would make a rebase stop, prompt or move things: none acts.
    for (key, value) in [
        ("commit.gpgSign", "true"),
        ("gpg.program", "false"),
        ("rebase.autoStash", "true"),
        ("rebase.updateRefs", "true"),
        ("rebase.autoSquash", "true"),
        ("rerere.enabled", "true"),
        ("core.editor", "false"),
        ("sequence.editor", "false"),
    ] {
        stack.fixture.git(&["config", key, value]);
    }
    let repo = stack
        .fixture
        .repository()
        .with_restack_engine(RestackEngine::Rebase);
    let results = restacked(&repo, &stack);
    check_restacked(&stack, &results);
}

/// A stand-in git that says it is `version` and runs the real git for everything else.
#[cfg(unix)]
fn git_claiming(dir: &Path, version: &str) -> Git {
    let real = Git::find().unwrap();
    let path = dir.join("git");
    resolve_pr_testkit::write_script(
        &path,
        &format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'git version {version}'; exit 0; fi\nexec '{}' \"$@\"\n",
            real.program().display()
        ),
    );
    Git::at(path).unwrap()
}

#[cfg(unix)]
#[test]
fn a_git_older_than_2_44_restacks_by_rebase_and_refuses_replay() {
    let bin = tempfile::tempdir().unwrap();
    let old = git_claiming(bin.path(), "2.43.0");
    let stack = stack();
    let repo = Repository::discover(&old, stack.fixture.path()).unwrap();
    assert_eq!(repo.restack_engine(), RestackEngine::Rebase);
    let results = restacked(&repo, &stack);
    check_restacked(&stack, &results);

    let forced = repo.with_restack_engine(RestackEngine::Replay);
    match forced.restack("main", &branches(&stack)).unwrap_err() {
        Error::GitTooOld {
            required,
            needed_for,
            ..
        } => {
            assert_eq!(required.to_string(), "2.44.0");
            assert_eq!(needed_for, "replay");
        }
        other => panic!("{other:?}"),
    }

    let older = git_claiming(bin.path(), "2.39.2");
    let repo = Repository::discover(&older, stack.fixture.path()).unwrap();
    for error in [
        repo.predict_replay("main", &stack.a, &stack.b).unwrap_err(),
        repo.merge_tree_with_base(&stack.a, "main", &stack.b)
            .map(|_| ())
            .unwrap_err(),
    ] {
        match error {
            Error::GitTooOld { required, .. } => assert_eq!(required.to_string(), "2.40.0"),
            other => panic!("{other:?}"),
        }
    }
}

/// `c` changes the line trunk changed after the squash: both engines stop on c's commit,
/// name the file, write no ref and leave no worktree behind.
#[test]
fn a_conflict_writes_no_ref() {
    for engine in [RestackEngine::Replay, RestackEngine::Rebase] {
        let stack = stack();
        let fixture = &stack.fixture;
        // Rewrite c to touch line 9, and trunk to change it too.
        fixture.git(&["stash", "-q"]);
        fixture.write(
            "f",
            LINES.replace("2\n", "two\n").replace("9\n", "nine (c)\n"),
        );
        let c = fixture.commit("c 2 touches nine");
        fixture.checkout(&["main"]);
        fixture.write("f", LINES.replace("9\n", "nine (trunk)\n"));
        fixture.commit("trunk touches nine");
        let mut branches = branches(&stack);
        branches[1].head = c.clone();
        let repo = fixture.repository().with_restack_engine(engine);
        let before = user_state(fixture);
        let objects_before = fixture.object_count();
        let error = repo.restack("main", &branches).unwrap_err();
        match &error {
            Error::Conflict {
                branch,
                commit,
                files,
            } => {
                assert_eq!(branch, "c", "{engine:?}");
                assert_eq!(commit, &c, "{engine:?}");
                assert_eq!(files, &["f"], "{engine:?}");
            }
            other => panic!("{engine:?}: {other:?}"),
        }
        assert_eq!(
            user_state(fixture),
            before,
            "{engine:?}: the user's state changed"
        );
        assert_eq!(
            fixture.git(&["for-each-ref", "refs/resolve-pr"]),
            "",
            "{engine:?}"
        );
        let worktrees = std::fs::read_dir(fixture.path().join(".git/worktrees"))
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(worktrees, 0, "{engine:?}: a worktree was left behind");
        // Objects: replay may have written b's replayed commits (allowed); never fewer.
        assert!(fixture.object_count() >= objects_before);
        let agent = resolve_pr_core::Error::from(error);
        assert_eq!(agent.category, resolve_pr_core::Category::Logical);
    }
}

#[test]
fn bad_names_and_bases_are_usage_errors_and_run_nothing() {
    let stack = stack();
    let repo = stack.fixture.repository();
    for name in ["-x", "a;rm -rf ~", "@{-1}", "HEAD", "", "a..b", "--force"] {
        let mut branches = branches(&stack);
        branches[0].name = name.to_string();
        let error = repo.restack("main", &branches).unwrap_err();
        assert!(matches!(error, Error::Usage { .. }), "{name:?}: {error:?}");
    }
    let mut twice = branches(&stack);
    twice[1].name = B.to_string();
    assert!(matches!(
        repo.restack("main", &twice).unwrap_err(),
        Error::Usage { .. }
    ));
    let mut nested = branches(&stack);
    nested[1].name = format!("{B}/c");
    assert!(matches!(
        repo.restack("main", &nested).unwrap_err(),
        Error::Usage { .. }
    ));
    // An old base that is not an ancestor of the head.
    let mut wrong = branches(&stack);
    wrong[0].old_base = stack.c.clone();
    assert!(matches!(
        repo.restack("main", &wrong).unwrap_err(),
        Error::Usage { .. }
    ));
    let mut unknown = branches(&stack);
    unknown[0].head = "-x".to_string();
    assert!(matches!(
        repo.restack("main", &unknown).unwrap_err(),
        Error::BadRevision { .. }
    ));
    assert!(matches!(
        repo.restack("main", &[]).unwrap_err(),
        Error::Usage { .. }
    ));
    assert_eq!(stack.fixture.git(&["for-each-ref", "refs/resolve-pr"]), "");
}

/// A bare remote holding the stack's branches as they were before the restack.
fn remote_of(stack: &Stack) -> tempfile::TempDir {
    let remote = tempfile::tempdir().unwrap();
    let path = remote.path().to_str().unwrap();
    stack.fixture.git(&["init", "-q", "--bare", path]);
    stack.fixture.git(&["remote", "add", "origin", path]);
    stack
        .fixture
        .git(&["push", "-q", "origin", "main", "a", B, "c"]);
    remote
}

fn remote_head(remote: &Path, branch: &str) -> String {
    let output = std::process::Command::new("git")
        .args(["rev-parse", &format!("refs/heads/{branch}")])
        .current_dir(remote)
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

fn updates(results: &[RestackResult]) -> Vec<PushUpdate> {
    results
        .iter()
        .map(|r| PushUpdate {
            branch: r.name.clone(),
            expected_old: r.old_head.clone(),
            new: r.new_head.clone(),
        })
        .collect()
}

#[test]
fn push_with_lease_then_rollback() {
    let stack = stack();
    let remote = remote_of(&stack);
    let repo = stack.fixture.repository();
    let results = repo.restack("main", &branches(&stack)).unwrap();
    let before = user_state(&stack.fixture);
    repo.push_with_lease("origin", &updates(&results)).unwrap();
    assert_eq!(remote_head(remote.path(), B), results[0].new_head);
    assert_eq!(remote_head(remote.path(), "c"), results[1].new_head);
    repo.rollback("origin", &results).unwrap();
    assert_eq!(remote_head(remote.path(), B), stack.b);
    assert_eq!(remote_head(remote.path(), "c"), stack.c);
    assert_eq!(
        user_state(&stack.fixture),
        before,
        "pushing changed the user's state"
    );
}

/// Someone pushed to `c` meanwhile: the lease fails, the push is rejected naming `c`, and
/// with `--atomic` the other branch is not updated either.
#[test]
fn a_stale_lease_is_rejected_and_nothing_moves() {
    let stack = stack();
    let remote = remote_of(&stack);
    let url = format!("file://{}", remote.path().display());
    let repo = stack.fixture.repository();
    let results = repo.restack("main", &branches(&stack)).unwrap();
    // Another clone pushes a commit to c.
    let other = tempfile::tempdir().unwrap();
    let other_path = other.path().join("clone");
    stack
        .fixture
        .git(&["clone", "-q", "-b", "c", &url, other_path.to_str().unwrap()]);
    let run = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.name=O", "-c", "user.email=o@example.com"])
            .args(args)
            .current_dir(&other_path)
            .status()
            .unwrap();
        assert!(status.success());
    };
    run(&["commit", "-q", "--allow-empty", "-m", "someone else"]);
    run(&["push", "-q", "origin", "c"]);
    let moved = remote_head(remote.path(), "c");

    let error = repo.push_with_lease(&url, &updates(&results)).unwrap_err();
    match &error {
        Error::PushRejected { branch, reason } => {
            assert_eq!(branch, "c");
            assert!(reason.contains("stale"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        remote_head(remote.path(), B),
        stack.b,
        "the atomic push moved a branch"
    );
    assert_eq!(remote_head(remote.path(), "c"), moved);
    // Rolling back now is rejected too: c is not at the restacked head.
    assert!(matches!(
        repo.rollback(&url, &results).unwrap_err(),
        Error::PushRejected { .. }
    ));
}

#[test]
fn push_arguments_are_checked_before_anything_runs() {
    let stack = stack();
    let _remote = remote_of(&stack);
    let repo = stack.fixture.repository();
    let good = PushUpdate {
        branch: "c".into(),
        expected_old: stack.c.clone(),
        new: stack.b.clone(),
    };
    for update in [
        PushUpdate {
            branch: "-x".into(),
            ..good.clone()
        },
        PushUpdate {
            branch: "a b".into(),
            ..good.clone()
        },
        PushUpdate {
            new: "main".into(),
            ..good.clone()
        },
        PushUpdate {
            expected_old: "--force".into(),
            ..good.clone()
        },
    ] {
        let error = repo
            .push_with_lease("origin", std::slice::from_ref(&update))
            .unwrap_err();
        assert!(
            matches!(error, Error::Usage { .. }),
            "{update:?}: {error:?}"
        );
    }
    for remote in ["--receive-pack=touch /tmp/pwned", ""] {
        let error = repo
            .push_with_lease(remote, std::slice::from_ref(&good))
            .unwrap_err();
        assert!(
            matches!(error, Error::Usage { .. }),
            "{remote:?}: {error:?}"
        );
    }
    assert!(matches!(
        repo.push_with_lease("origin", &[]).unwrap_err(),
        Error::Usage { .. }
    ));
    assert_eq!(remote_head(_remote.path(), "c"), stack.c);
}

#[test]
fn an_unreachable_remote_is_a_network_error_without_secrets() {
    let stack = stack();
    let repo = stack.fixture.repository();
    let update = PushUpdate {
        branch: "c".into(),
        expected_old: stack.c.clone(),
        new: stack.b.clone(),
    };
    let url = "https://bot:ghp_topsecret@127.0.0.1:9/o/r.git";
    let error = repo.push_with_lease(url, &[update]).unwrap_err();
    assert!(matches!(error, Error::Network { .. }), "{error:?}");
    let agent = resolve_pr_core::Error::from(error);
    assert_eq!(agent.category, resolve_pr_core::Category::Network);
    let shown = serde_json::to_string(&agent.to_json()).unwrap();
    assert!(!shown.contains("ghp_topsecret"), "{shown}");
}

/// Both engines give the same history: a commit whose change trunk already has is dropped
/// (as a plain rebase drops it, not kept empty), a merge commit in the range is dropped
/// (`git replay` cannot replay it, so that branch goes through rebase), an empty range is
/// the base itself.
#[test]
fn both_engines_agree_on_emptied_commits_merges_and_empty_ranges() {
    let mut shapes = Vec::new();
    for engine in [RestackEngine::Replay, RestackEngine::Rebase] {
        let stack = stack();
        let fixture = &stack.fixture;
        // Trunk also gets b's first commit (a cherry-pick).
        fixture.git(&["stash", "-q"]);
        fixture.checkout(&["main"]);
        fixture.git(&["cherry-pick", &format!("{}~1", stack.b)]);
        // c gets a merge of a side branch.
        fixture.checkout(&["-b", "side", &stack.b]);
        fixture.write("side", "s\n");
        fixture.commit("side");
        fixture.checkout(&["c"]);
        fixture.git(&["merge", "-q", "--no-edit", "side"]);
        let c = head_of(fixture, "c");
        let mut branches = branches(&stack);
        branches[1].head = c;
        // A third branch with nothing of its own.
        branches.push(RestackBranch {
            name: "d".into(),
            head: branches[1].head.clone(),
            old_base: branches[1].head.clone(),
        });
        let repo = fixture.repository().with_restack_engine(engine);
        let results = repo.restack("main", &branches).unwrap();
        let main = head_of(fixture, "main");
        let shape: Vec<Vec<String>> = vec![
            first_parents(fixture, &main, &results[0].new_head),
            first_parents(fixture, &results[0].new_head, &results[1].new_head),
        ];
        assert_eq!(results[2].new_head, results[1].new_head, "{engine:?}");
        assert_eq!(results[2].commits, 0);
        assert_eq!(
            (results[0].commits, results[0].dropped),
            (1, 1),
            "{engine:?}: b 1 is in main already"
        );
        assert_eq!(
            fixture.git(&[
                "rev-list",
                "--merges",
                &format!("{main}..{}", results[1].new_head)
            ]),
            ""
        );
        shapes.push((shape, results.iter().map(|r| r.commits).collect::<Vec<_>>()));
    }
    assert_eq!(shapes[0], shapes[1]);
    assert_eq!(shapes[0].0[0], ["b 2"]);
    assert_eq!(shapes[0].0[1], ["side", "c 1"]);
}

/// A branch all of whose commits reached trunk another way (here one squash of both) has
/// nothing left after a restack, with either engine: its new head is the new base, no
/// empty commit is made, and the branch above lands on trunk directly.
#[test]
fn a_branch_whose_commits_all_reached_trunk_is_left_with_none() {
    for engine in [RestackEngine::Replay, RestackEngine::Rebase] {
        let stack = stack();
        let fixture = &stack.fixture;
        fixture.git(&["stash", "-q"]);
        fixture.checkout(&["main"]);
        fixture.git(&["merge", "-q", "--squash", &stack.b]);
        fixture.commit("a and b squashed");
        let main = head_of(fixture, "main");
        let repo = fixture.repository().with_restack_engine(engine);
        let results = repo.restack("main", &branches(&stack)).unwrap();
        assert_eq!(results[0].new_head, main, "{engine:?}");
        assert_eq!(
            (results[0].commits, results[0].dropped),
            (0, 2),
            "{engine:?}"
        );
        assert_eq!(first_parents(fixture, &main, &results[1].new_head), ["c 1"]);
        assert_eq!(
            (results[1].commits, results[1].dropped),
            (1, 0),
            "{engine:?}"
        );
    }
}

fn head_of(fixture: &Fixture, rev: &str) -> String {
    fixture.git(&["rev-parse", rev]).trim().to_string()
}

/// What the child process of the kill test reads: the repository, its stack and a git.
const KILL_CHILD: &str = "RESOLVE_PR_TEST_RESTACK_CHILD";

/// A process restacking by the rebase fallback is killed with SIGKILL at each git command
/// it runs in turn (a stand-in git kills it, then lets the command finish as an orphan, as a
/// real kill mid-command would): the user's repository looks as before every time (no
/// worktree registered, branches, HEAD, index and worktree unchanged), and what the kill
/// left in the temporary directory is swept away by the next process, while a live
/// process's scratch directory is never taken.
#[cfg(unix)]
#[test]
fn a_kill_during_a_rebase_restack_leaves_the_repository_as_it_was() {
    if let Some(spec) = std::env::var_os(KILL_CHILD) {
        // The child: restack as the product would, until the stand-in git kills it.
        let spec = spec.into_string().unwrap();
        let [dir, git, a, b, c] = spec.split('\n').collect::<Vec<_>>()[..] else {
            panic!("bad spec {spec:?}")
        };
        let repo = Repository::discover(&Git::at(git).unwrap(), Path::new(dir))
            .unwrap()
            .with_restack_engine(RestackEngine::Rebase);
        let branches = [
            RestackBranch {
                name: B.into(),
                head: b.into(),
                old_base: a.into(),
            },
            RestackBranch {
                name: "c".into(),
                head: c.into(),
                old_base: b.into(),
            },
        ];
        repo.restack("main", &branches).unwrap();
        return;
    }
    let real = Git::find().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let counter = bin.path().join("count");
    let finished = bin.path().join("finished");
    let stand_in = bin.path().join("git");
    // Counts its calls; at call $KILL_AT it kills the process that started it, runs the
    // command to its end all the same, and says when it is done.
    resolve_pr_testkit::write_script(
        &stand_in,
        &format!(
            "#!/bin/sh\nn=$(cat '{count}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{count}'\n\
             if [ \"$n\" = \"$KILL_AT\" ]; then kill -KILL $PPID; '{real}' \"$@\" >/dev/null 2>&1; \
             touch '{finished}'; exit 0; fi\nexec '{real}' \"$@\"\n",
            count = counter.display(),
            finished = finished.display(),
            real = real.program().display(),
        ),
    );
    let run_child = |stack: &Stack, tmp: &Path, kill_at: usize| {
        let _ = std::fs::remove_file(&counter);
        let _ = std::fs::remove_file(&finished);
        let spec = [
            stack.fixture.path().to_str().unwrap(),
            stand_in.to_str().unwrap(),
            &stack.a,
            &stack.b,
            &stack.c,
        ]
        .join("\n");
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &common::test_name(
                    module_path!(),
                    "a_kill_during_a_rebase_restack_leaves_the_repository_as_it_was",
                ),
                "--test-threads=1",
                "--quiet",
            ])
            .env(KILL_CHILD, spec)
            .env("KILL_AT", kill_at.to_string())
            .env("TMPDIR", tmp)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        let calls: usize = std::fs::read_to_string(&counter)
            .unwrap_or_default()
            .trim()
            .parse()
            .unwrap_or(0);
        (status, calls)
    };
    let leftovers = |tmp: &Path| -> Vec<String> {
        std::fs::read_dir(tmp)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("resolve-pr-"))
            .collect()
    };

    // Unharmed, to count the kill points.
    let unharmed = stack();
    let tmp = tempfile::tempdir().unwrap();
    let (status, calls) = run_child(&unharmed, tmp.path(), 0);
    assert!(status.success(), "the restack runs in the child");
    assert!(calls >= 5, "{calls} git calls");
    assert!(
        unharmed
            .fixture
            .git(&["for-each-ref", "refs/resolve-pr/restack/"])
            .contains("refs/resolve-pr/restack/c"),
        "the child restacked"
    );
    assert_eq!(leftovers(tmp.path()), Vec::<String>::new());

    for kill_at in 1..=calls {
        let stack = stack();
        let before = user_state(&stack.fixture);
        let tmp = tempfile::tempdir().unwrap();
        let (status, _) = run_child(&stack, tmp.path(), kill_at);
        assert!(!status.success(), "killed at git call {kill_at}");
        // The orphaned git command ends on its own.
        for _ in 0..200 {
            if finished.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        assert!(finished.exists(), "git call {kill_at} never finished");
        assert_eq!(
            user_state(&stack.fixture),
            before,
            "the user's repository changed after a kill at git call {kill_at}"
        );
        assert_eq!(
            stack
                .fixture
                .git(&["worktree", "list", "--porcelain"])
                .lines()
                .filter(|l| l.starts_with("worktree "))
                .count(),
            1,
            "a worktree stays registered after a kill at git call {kill_at}"
        );
        // The next process sweeps what the dead one left.
        resolve_pr_git::sweep_stale(tmp.path());
        assert_eq!(
            leftovers(tmp.path()),
            Vec::<String>::new(),
            "after a kill at git call {kill_at}"
        );
    }
}

/// `git replay` runs in a bare side repository, which has no worktree to read attributes
/// from: it merges with the new base's (here `f merge=union`), as the prediction and the
/// rebase fallback (which checks the new base out) do.
#[test]
fn both_engines_merge_with_the_new_bases_attributes() {
    let fixture = Fixture::new();
    fixture.write("f", LINES);
    let base = fixture.commit("base");
    fixture.git(&["checkout", "-q", "-b", "topic"]);
    fixture.write("f", LINES.replace("2\n", "topic's two\n"));
    let head = fixture.commit("topic");
    fixture.checkout(&["main"]);
    fixture.write("f", LINES.replace("2\n", "trunk's two\n"));
    fixture.write(".gitattributes", "f merge=union\n");
    fixture.commit("trunk");
    let branch = RestackBranch {
        name: "topic".to_string(),
        head,
        old_base: base.clone(),
    };
    for engine in [RestackEngine::Replay, RestackEngine::Rebase] {
        let repo = fixture.repository().with_restack_engine(engine);
        let prediction = repo.predict_replay("main", &base, "topic").unwrap();
        assert!(prediction.clean, "{engine:?}: {prediction:?}");
        let results = repo
            .restack("main", std::slice::from_ref(&branch))
            .unwrap_or_else(|e| panic!("{engine:?}: {e:?}"));
        let merged = fixture.git(&["show", &format!("{}:f", results[0].new_head)]);
        assert!(
            merged.contains("trunk's two\ntopic's two\n"),
            "{engine:?}: {merged}"
        );
    }
}
