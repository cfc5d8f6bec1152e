//! The edit layer against real files: plans, applies, undo, and recovery after kill -9.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use resolve_pr_edit::{Checkout, Error, PlanMeta, Step};
use resolve_pr_source::{FileChange, TextEdit, TextRange, WorkspaceChange, checksum};

/// Every file under `root` (links too, as what they point to) with its checksum and mode.
fn hash_tree(root: &Path) -> BTreeMap<String, (String, u32)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if meta.is_dir() {
                stack.push(path);
                out.insert(format!("{rel}/"), (String::new(), 0));
            } else if meta.file_type().is_symlink() {
                out.insert(
                    rel,
                    (fs::read_link(&path).unwrap().display().to_string(), 0),
                );
            } else {
                let bytes = fs::read(&path).unwrap();
                out.insert(rel, (checksum(&bytes), meta.permissions().mode() & 0o777));
            }
        }
    }
    out
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
}

fn fixture(files: &[(&str, &str)]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let state = dir.path().join("state");
    for (path, text) in files {
        let full = root.join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, text).unwrap();
    }
    fs::create_dir_all(&root).unwrap();
    Fixture {
        _dir: dir,
        root: root.canonicalize().unwrap(),
        state,
    }
}

fn meta() -> PlanMeta {
    PlanMeta {
        plan_type: "RenamePlan".into(),
        kind: "rename.symbol".into(),
        language: Some("rust".into()),
        warnings: vec![],
    }
}

fn edit(path: &str, start: usize, end: usize, text: &str) -> FileChange {
    FileChange::Edit {
        path: path.into(),
        edits: vec![TextEdit::replace(TextRange::new(start, end), text)],
    }
}

/// Edits two files, creates one in a new directory, renames an executable file, and
/// deletes the only file of a directory: every kind of step, and directories both ways.
fn busy_change() -> WorkspaceChange {
    WorkspaceChange {
        changes: vec![
            edit("src/a.rs", 3, 6, "renamed"),
            edit("src/b.rs", 0, 0, "// b\n"),
            FileChange::Create {
                path: "src/new/c.rs".into(),
                contents: "pub fn c() {}\n".into(),
                overwrite: false,
                ignore_if_exists: false,
            },
            FileChange::Rename {
                from: "run.sh".into(),
                to: "scripts/run.sh".into(),
                overwrite: false,
                ignore_if_exists: false,
            },
            FileChange::Delete {
                path: "old/only.rs".into(),
                recursive: false,
                ignore_if_not_exists: false,
            },
        ],
    }
}

fn busy_fixture() -> Fixture {
    let f = fixture(&[
        ("src/a.rs", "fn old() {}\n"),
        ("src/b.rs", "fn b() {}\n"),
        ("run.sh", "#!/bin/sh\necho hi\n"),
        ("old/only.rs", "// gone\n"),
        ("README", "kept\n"),
    ]);
    fs::set_permissions(f.root.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    f
}

#[test]
fn a_plan_writes_nothing_and_shows_every_change() {
    let f = busy_fixture();
    let before = hash_tree(&f.root);
    let (checkout, recovered) = Checkout::open(&f.root, &f.state).unwrap();
    assert!(recovered.is_empty());
    let plan = checkout.plan(busy_change(), meta()).unwrap();
    assert_eq!(
        hash_tree(&f.root),
        before,
        "a plan must leave every byte as it was"
    );
    assert_eq!(plan.summary.created_files, 1);
    assert_eq!(plan.summary.deleted_files, 1);
    assert_eq!(plan.summary.renamed_files, 1);
    assert_eq!(plan.summary.affected_files, 5);
    assert!(
        plan.diff.contains("-fn old() {}\n+fn renamed() {}\n"),
        "{}",
        plan.diff
    );
    assert!(
        plan.diff.contains("--- /dev/null\n+++ b/src/new/c.rs"),
        "{}",
        plan.diff
    );
    assert!(
        plan.diff.contains("rename a/run.sh → b/scripts/run.sh"),
        "{}",
        plan.diff
    );
    assert_eq!(
        plan.file_checksums["src/a.rs"],
        checksum(b"fn old() {}\n"),
        "checksums are sha256:<hex> of the files read"
    );
    // The same change on the same files is the same plan.
    let again = checkout.plan(busy_change(), meta()).unwrap();
    assert_eq!(again.id, plan.id);
    assert_eq!(checkout.load_plan(&plan.id).unwrap().change, plan.change);
}

#[test]
fn an_apply_does_exactly_the_plan_and_undo_puts_everything_back() {
    let f = busy_fixture();
    let before = hash_tree(&f.root);
    let (checkout, _) = Checkout::open(&f.root, &f.state).unwrap();
    let plan = checkout.plan(busy_change(), meta()).unwrap();
    // Applied in another process's lifetime: a new Checkout reads the stored plan.
    let (checkout, _) = Checkout::open(&f.root, &f.state).unwrap();
    let stored = checkout.load_plan(&plan.id).unwrap();
    let applied = checkout.apply(&stored, &|_| {}).unwrap();
    assert!(applied.success && applied.rollback_available);
    assert_eq!(applied.applied_files, ["src/a.rs", "src/b.rs"]);
    assert_eq!(applied.created_files, ["scripts/run.sh", "src/new/c.rs"]);
    assert_eq!(applied.deleted_files, ["old/only.rs", "run.sh"]);
    assert_eq!(
        fs::read_to_string(f.root.join("src/a.rs")).unwrap(),
        "fn renamed() {}\n"
    );
    let mode = fs::metadata(f.root.join("scripts/run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755, "a renamed file keeps its mode");
    assert!(
        !f.root.join("old").exists(),
        "the emptied directory is removed"
    );
    let after = hash_tree(&f.root);

    let undone = checkout.undo(&applied.snapshot_id, false, &|_| {}).unwrap();
    assert_eq!(
        hash_tree(&f.root),
        before,
        "undo restores contents, files, directories, modes"
    );
    // An undo is a snapshot too: undoing it redoes the apply.
    checkout.undo(&undone.snapshot_id, false, &|_| {}).unwrap();
    assert_eq!(hash_tree(&f.root), after);
    let err = checkout
        .undo(&applied.snapshot_id, false, &|_| {})
        .unwrap_err();
    assert!(matches!(err, Error::SnapshotUndone { .. }), "{err}");
}

#[test]
fn a_stale_plan_is_refused_naming_the_file_and_nothing_is_written() {
    let f = busy_fixture();
    let (checkout, _) = Checkout::open(&f.root, &f.state).unwrap();
    let plan = checkout.plan(busy_change(), meta()).unwrap();
    fs::write(f.root.join("src/b.rs"), "fn b() { /* edited by hand */ }\n").unwrap();
    let before = hash_tree(&f.root);
    let err = checkout.apply(&plan, &|_| {}).unwrap_err();
    match &err {
        Error::ChecksumMismatch { path, .. } => assert_eq!(path, "src/b.rs"),
        other => panic!("{other}"),
    }
    assert_eq!(err.code().as_str(), "CHECKSUM_MISMATCH");
    assert_eq!(hash_tree(&f.root), before);

    // A path the plan creates that appeared since.
    fs::write(f.root.join("src/b.rs"), "fn b() {}\n").unwrap();
    fs::create_dir_all(f.root.join("src/new")).unwrap();
    fs::write(f.root.join("src/new/c.rs"), "mine").unwrap();
    let err = checkout.apply(&plan, &|_| {}).unwrap_err();
    assert_eq!(err.code().as_str(), "STALE_PLAN", "{err}");
    assert!(err.to_string().contains("src/new/c.rs"), "{err}");
}

#[test]
fn a_plan_of_another_checkout_says_where_it_belongs() {
    let one = busy_fixture();
    let two = fixture(&[("x", "x")]);
    let state = one.state.clone();
    let (first, _) = Checkout::open(&one.root, &state).unwrap();
    let plan = first.plan(busy_change(), meta()).unwrap();
    let (second, _) = Checkout::open(&two.root, &state).unwrap();
    let err = second.load_plan(&plan.id).unwrap_err();
    assert!(
        err.to_string().contains(&one.root.display().to_string()),
        "{err}"
    );
    assert_eq!(err.code().as_str(), "STALE_PLAN");
    let err = second.apply(&plan, &|_| {}).unwrap_err();
    assert!(matches!(err, Error::PlanNotFound { .. }), "{err}");
    assert!(second.load_plan("../../etc/passwd").is_err());
}

#[test]
fn no_write_leaves_the_checkout_or_passes_through_a_link() {
    let f = fixture(&[("a.rs", "a")]);
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret"), "keep").unwrap();
    std::os::unix::fs::symlink(outside.path(), f.root.join("link")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), f.root.join("file-link")).unwrap();
    let (checkout, _) = Checkout::open(&f.root, &f.state).unwrap();
    for change in [
        edit("link/secret", 0, 4, "gone"),
        edit("file-link", 0, 4, "gone"),
        FileChange::Create {
            path: "link/new".into(),
            contents: "x".into(),
            overwrite: false,
            ignore_if_exists: false,
        },
        FileChange::Delete {
            path: "../outside".into(),
            recursive: true,
            ignore_if_not_exists: true,
        },
    ] {
        let err = checkout
            .plan(
                WorkspaceChange {
                    changes: vec![change.clone()],
                },
                meta(),
            )
            .unwrap_err();
        assert_eq!(err.code().as_str(), "INVALID_PATH", "{change:?}: {err}");
    }
    assert_eq!(
        fs::read_to_string(outside.path().join("secret")).unwrap(),
        "keep"
    );
    assert!(!outside.path().join("new").exists());
}

#[test]
fn a_failed_write_rolls_back_every_file_already_written() {
    let f = busy_fixture();
    let before = hash_tree(&f.root);
    let (checkout, _) = Checkout::open(&f.root, &f.state).unwrap();
    let plan = checkout.plan(busy_change(), meta()).unwrap();
    let root = f.root.clone();
    // After the first write, something puts a directory where the next file goes.
    let err = checkout
        .apply(&plan, &|step| {
            if step == Step::Wrote(0) {
                fs::create_dir_all(root.join("src/new/c.rs/in-the-way")).unwrap();
            }
        })
        .unwrap_err();
    assert_eq!(err.code().as_str(), "APPLY_FAILED", "{err}");
    assert!(err.to_string().contains("src/new/c.rs"), "{err}");
    // What is not the apply's (the obstacle, and so its directory) stays.
    fs::remove_dir_all(f.root.join("src/new")).unwrap();
    assert_eq!(hash_tree(&f.root), before);
}

#[test]
fn concurrent_applies_of_one_change_apply_it_once() {
    let f = busy_fixture();
    let (checkout, _) = Checkout::open(&f.root, &f.state).unwrap();
    let plan = checkout.plan(busy_change(), meta()).unwrap();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let (checkout, plan) = (checkout.clone(), plan.clone());
                s.spawn(move || checkout.apply(&plan, &|_| {}))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ok = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(ok, 1, "{results:?}");
    for err in results.iter().filter_map(|r| r.as_ref().err()) {
        assert!(
            matches!(err, Error::ChecksumMismatch { .. } | Error::Stale { .. }),
            "{err}"
        );
    }
    assert_eq!(
        fs::read_to_string(f.root.join("src/a.rs")).unwrap(),
        "fn renamed() {}\n"
    );
}

#[test]
fn undo_refuses_to_overwrite_later_changes_unless_forced() {
    let f = busy_fixture();
    let before = hash_tree(&f.root);
    let (checkout, _) = Checkout::open(&f.root, &f.state).unwrap();
    let plan = checkout.plan(busy_change(), meta()).unwrap();
    let applied = checkout.apply(&plan, &|_| {}).unwrap();
    fs::write(f.root.join("src/a.rs"), "fn mine() {}\n").unwrap();
    let err = checkout
        .undo(&applied.snapshot_id, false, &|_| {})
        .unwrap_err();
    assert!(
        matches!(&err, Error::SnapshotStale { paths, .. } if paths == &["src/a.rs"]),
        "{err}"
    );
    checkout.undo(&applied.snapshot_id, true, &|_| {}).unwrap();
    assert_eq!(hash_tree(&f.root), before);
    let err = checkout.undo("snap-nope", false, &|_| {}).unwrap_err();
    assert_eq!(err.code().as_str(), "SNAPSHOT_NOT_FOUND");
}

mod kill;
