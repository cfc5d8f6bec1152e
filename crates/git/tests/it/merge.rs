//! `merge_tree` on real repositories: every kind of conflict git reports, a clean merge,
//! hostile names, and never an object written to the user's repository.

use crate::common;

use common::Fixture;
use resolve_pr_git::{ConflictKind, Error, Limits, Merge};

const LINES: &str = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";

/// A repository whose `main` and `topic` branches both start at a commit holding `f`.
fn forked(setup_base: impl FnOnce(&Fixture)) -> Fixture {
    let fixture = Fixture::new();
    fixture.write("f", LINES);
    setup_base(&fixture);
    fixture.commit("base");
    fixture.git(&["branch", "topic"]);
    fixture
}

/// Commits `change` on `branch`.
fn on(fixture: &Fixture, branch: &str, change: impl FnOnce(&Fixture)) {
    fixture.checkout(&[branch]);
    change(fixture);
    fixture.commit(branch);
}

/// Merges `theirs` into `ours` and checks that the repository gained no object, and that a
/// merged tree the repository did not already have is in the scratch directory.
fn merged(fixture: &Fixture, ours: &str, theirs: &str) -> Merge {
    let before = fixture.object_count();
    let merge = fixture.repository().merge_tree(ours, theirs).unwrap();
    assert_eq!(
        fixture.object_count(),
        before,
        "the repository gained objects"
    );
    let written = std::fs::read_dir(merge.scratch_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .flat_map(|d| std::fs::read_dir(d).unwrap())
        .count();
    if !fixture.git_succeeds(&["cat-file", "-e", &merge.outcome.tree]) {
        assert!(written > 0, "no object in the scratch directory");
    }
    merge
}

fn paths(merge: &Merge) -> Vec<&str> {
    merge
        .outcome
        .conflicts
        .iter()
        .map(|f| f.path.as_str())
        .collect()
}

#[test]
fn a_clean_merge() {
    let fixture = forked(|f| {
        f.write("g", "other\n");
    });
    on(&fixture, "main", |f| {
        f.write("f", LINES.replace("one", "ONE"));
    });
    on(&fixture, "topic", |f| {
        f.write("g", "changed\n");
    });
    let merge = merged(&fixture, "main", "topic");
    assert!(merge.outcome.clean);
    assert!(merge.outcome.conflicts.is_empty());
    assert_eq!(merge.outcome.tree.len(), 40);
    // The tree is readable from the scratch store only.
    let missing = fixture
        .repository()
        .resolve_commit(&merge.outcome.tree)
        .unwrap_err();
    assert!(matches!(missing, Error::BadRevision { .. }));
}

#[test]
fn a_content_conflict_and_its_hunks() {
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        f.write("f", LINES.replace("two", "OURS"));
    });
    on(&fixture, "topic", |f| {
        f.write("f", LINES.replace("two", "THEIRS"));
    });
    let merge = merged(&fixture, "main", "topic");
    assert!(!merge.outcome.clean);
    assert_eq!(paths(&merge), ["f"]);
    let file = &merge.outcome.conflicts[0];
    assert_eq!(file.kind, ConflictKind::Content);
    assert!(file.base.is_some() && file.ours.is_some() && file.theirs.is_some());
    assert!(!file.modes_differ());
    assert!(
        file.message
            .as_deref()
            .unwrap()
            .contains("Merge conflict in f")
    );

    let hunks = merge
        .conflict_hunks("f", Limits::default())
        .unwrap()
        .unwrap();
    assert_eq!((hunks.total, hunks.cut), (1, false));
    let hunk = &hunks.hunks[0];
    assert_eq!(hunk.ours, "OURS\n");
    assert_eq!(hunk.base.as_deref(), Some("two\n"));
    assert_eq!(hunk.theirs, "THEIRS\n");
    assert_eq!(
        (hunk.start_line, hunk.ours_line, hunk.theirs_line),
        (2, 2, 2)
    );

    let error = merge.conflict_hunks("g", Limits::default()).unwrap_err();
    assert!(matches!(error, Error::NotConflicted { .. }), "{error:?}");
}

#[test]
fn add_add() {
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        f.write("new.txt", "ours\n");
    });
    on(&fixture, "topic", |f| {
        f.write("new.txt", "theirs\n");
    });
    let merge = merged(&fixture, "main", "topic");
    assert_eq!(paths(&merge), ["new.txt"]);
    let file = &merge.outcome.conflicts[0];
    assert_eq!(file.kind, ConflictKind::AddAdd);
    assert!(file.base.is_none());
    let hunks = merge
        .conflict_hunks("new.txt", Limits::default())
        .unwrap()
        .unwrap();
    assert_eq!(hunks.hunks[0].ours, "ours\n");
    assert_eq!(hunks.hunks[0].theirs, "theirs\n");
}

#[test]
fn modify_delete() {
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        f.write("f", LINES.replace("two", "OURS"));
    });
    on(&fixture, "topic", |f| f.remove("f"));
    let merge = merged(&fixture, "main", "topic");
    assert_eq!(paths(&merge), ["f"]);
    let file = &merge.outcome.conflicts[0];
    assert_eq!(file.kind, ConflictKind::ModifyDelete);
    assert!(file.theirs.is_none() && file.ours.is_some());
    // The merged tree keeps our version, without markers.
    let hunks = merge
        .conflict_hunks("f", Limits::default())
        .unwrap()
        .unwrap();
    assert_eq!(hunks.total, 0);
}

#[test]
fn rename_rename() {
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        f.git(&["mv", "f", "ours-name"]);
    });
    on(&fixture, "topic", |f| {
        f.git(&["mv", "f", "theirs-name"]);
    });
    let merge = merged(&fixture, "main", "topic");
    let mut got = paths(&merge);
    got.sort();
    assert!(
        got.contains(&"ours-name") && got.contains(&"theirs-name"),
        "{got:?}"
    );
    for file in &merge.outcome.conflicts {
        assert_eq!(file.kind, ConflictKind::RenameRename, "{}", file.path);
    }
    let message = merge
        .outcome
        .messages
        .iter()
        .find(|m| m.kind == "CONFLICT (rename/rename)")
        .unwrap();
    assert_eq!(message.paths.len(), 3);
}

#[test]
fn rename_delete() {
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        f.git(&["mv", "f", "moved"]);
    });
    on(&fixture, "topic", |f| f.remove("f"));
    let merge = merged(&fixture, "main", "topic");
    assert_eq!(paths(&merge), ["moved"]);
    assert_eq!(merge.outcome.conflicts[0].kind, ConflictKind::RenameDelete);
}

#[cfg(unix)]
#[test]
fn mode_change_with_a_content_conflict() {
    use std::os::unix::fs::PermissionsExt;
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        let path = f.write("f", LINES.replace("two", "OURS"));
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    });
    on(&fixture, "topic", |f| {
        f.write("f", LINES.replace("two", "THEIRS"));
    });
    let merge = merged(&fixture, "main", "topic");
    assert_eq!(paths(&merge), ["f"]);
    let file = &merge.outcome.conflicts[0];
    assert_eq!(file.kind, ConflictKind::Content);
    assert!(file.modes_differ());
    assert_eq!(file.ours.as_ref().unwrap().mode, "100755");
    assert_eq!(file.theirs.as_ref().unwrap().mode, "100644");
}

#[test]
fn binary() {
    let fixture = forked(|f| {
        f.write("b.bin", b"\x00\x01base");
    });
    on(&fixture, "main", |f| {
        f.write("b.bin", b"\x00\x01ours");
    });
    on(&fixture, "topic", |f| {
        f.write("b.bin", b"\x00\x01theirs");
    });
    let merge = merged(&fixture, "main", "topic");
    assert_eq!(paths(&merge), ["b.bin"]);
    assert_eq!(merge.outcome.conflicts[0].kind, ConflictKind::Binary);
}

#[test]
fn file_directory() {
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        f.write("d", "a file\n");
    });
    on(&fixture, "topic", |f| {
        f.write("d/inside", "a directory\n");
    });
    let merge = merged(&fixture, "main", "topic");
    assert!(!merge.outcome.clean);
    let file_directory: Vec<_> = merge
        .outcome
        .conflicts
        .iter()
        .filter(|f| f.kind == ConflictKind::FileDirectory)
        .collect();
    assert!(!file_directory.is_empty(), "{:?}", merge.outcome);
    assert!(
        file_directory[0].path.starts_with("d~"),
        "{:?}",
        file_directory
    );
}

#[cfg(unix)]
#[test]
fn distinct_modes() {
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        std::os::unix::fs::symlink("f", f.path().join("link")).unwrap();
    });
    on(&fixture, "topic", |f| {
        f.write("link", "a regular file\n");
    });
    let merge = merged(&fixture, "main", "topic");
    assert!(!merge.outcome.clean);
    assert!(
        merge
            .outcome
            .conflicts
            .iter()
            .all(|f| f.kind == ConflictKind::DistinctModes),
        "{:?}",
        merge.outcome
    );
}

#[test]
fn hostile_names_stay_intact() {
    let fixture = forked(|f| {
        f.write("-rf", "keep\n");
        f.write("dir with space/new\nline.txt", "base\n");
    });
    on(&fixture, "main", |f| {
        f.write("-rf", "ours\n");
        f.write("dir with space/new\nline.txt", "ours\n");
    });
    on(&fixture, "topic", |f| {
        f.write("-rf", "theirs\n");
        f.write("dir with space/new\nline.txt", "theirs\n");
    });
    fixture.git(&["update-ref", "refs/heads/-x", "topic"]);
    let merge = merged(&fixture, "main", "-x");
    let mut got = paths(&merge);
    got.sort();
    assert_eq!(got, ["-rf", "dir with space/new\nline.txt"]);
    for file in &merge.outcome.conflicts {
        assert_eq!(file.kind, ConflictKind::Content);
        let hunks = merge
            .conflict_hunks(&file.path, Limits::default())
            .unwrap()
            .unwrap();
        assert_eq!(hunks.hunks[0].ours, "ours\n");
        assert_eq!(hunks.hunks[0].theirs, "theirs\n");
    }
}

#[test]
fn revisions_that_name_no_commit() {
    let fixture = forked(|_| {});
    let repo = fixture.repository();
    for bad in ["nope", "--output=x", "-x"] {
        let error = repo.merge_tree("main", bad).unwrap_err();
        assert!(
            matches!(error, Error::BadRevision { .. }),
            "{bad}: {error:?}"
        );
    }
}

#[test]
fn many_hunks_are_cut_and_said_so() {
    let base: String = (0..40).map(|i| format!("line {i}\n")).collect();
    let fixture = forked(|f| {
        f.write("many", &base);
    });
    let edit = |tag: &str| -> String {
        (0..40)
            .map(|i| {
                if i % 4 == 0 {
                    format!("{tag} {i}\n")
                } else {
                    format!("line {i}\n")
                }
            })
            .collect()
    };
    on(&fixture, "main", |f| {
        f.write("many", edit("ours"));
    });
    on(&fixture, "topic", |f| {
        f.write("many", edit("theirs"));
    });
    let merge = merged(&fixture, "main", "topic");
    let limits = Limits {
        max_hunks: 3,
        max_bytes: 10_000,
    };
    let hunks = merge.conflict_hunks("many", limits).unwrap().unwrap();
    assert_eq!((hunks.hunks.len(), hunks.total, hunks.cut), (3, 10, true));
    assert_eq!(hunks.hunks[1].ours, "ours 4\n");
    assert_eq!(hunks.hunks[1].ours_line, 5);
}

#[test]
fn the_scratch_directory_goes_with_the_merge() {
    let fixture = forked(|_| {});
    on(&fixture, "topic", |f| {
        f.write("f", "changed\n");
    });
    let merge = merged(&fixture, "main", "topic");
    let scratch = merge.scratch_dir().to_path_buf();
    assert!(scratch.is_dir());
    drop(merge);
    assert!(!scratch.exists());
}

#[test]
fn submodule() {
    // Gitlinks to commits of a submodule that is not checked out: git cannot merge them.
    let gitlink = |f: &Fixture, digit: char| {
        let oid: String = std::iter::repeat_n(digit, 40).collect();
        f.git(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{oid},sub"),
        ]);
        f.git(&["commit", "-q", "-m", "gitlink"]);
    };
    let fixture = forked(|_| {});
    fixture.checkout(&["main"]);
    gitlink(&fixture, '1');
    fixture.git(&["branch", "-f", "topic"]);
    gitlink(&fixture, '2');
    fixture.checkout(&["topic"]);
    gitlink(&fixture, '3');
    let merge = merged(&fixture, "main", "topic");
    assert_eq!(paths(&merge), ["sub"]);
    let file = &merge.outcome.conflicts[0];
    assert_eq!(file.kind, ConflictKind::Submodule);
    assert_eq!(file.ours.as_ref().unwrap().mode, "160000");
    assert_eq!(
        merge.conflict_hunks("sub", Limits::default()).unwrap(),
        None
    );
}

#[test]
fn a_linked_worktree_merges_into_scratch_too() {
    let fixture = forked(|_| {});
    on(&fixture, "main", |f| {
        f.write("f", LINES.replace("two", "OURS"));
    });
    on(&fixture, "topic", |f| {
        f.write("f", LINES.replace("two", "THEIRS"));
    });
    fixture.checkout(&["main"]);
    let linked = tempfile::tempdir().unwrap();
    let linked_path = linked.path().join("wt");
    fixture.git(&[
        "worktree",
        "add",
        "-q",
        "--detach",
        linked_path.to_str().unwrap(),
        "topic",
    ]);
    let repo = resolve_pr_git::Repository::discover(&common::git(), &linked_path).unwrap();
    let common_objects = fixture.path().join(".git/objects").canonicalize().unwrap();
    assert_eq!(repo.objects_dir().canonicalize().unwrap(), common_objects);
    let before = fixture.object_count();
    let merge = repo.merge_tree("main", "HEAD").unwrap();
    assert_eq!(fixture.object_count(), before);
    assert_eq!(merge.outcome.conflicts[0].kind, ConflictKind::Content);
}

#[test]
fn each_side_is_numbered_in_its_own_file() {
    let base: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let fixture = forked(|f| {
        f.write("n", &base);
    });
    // main adds three lines near the top; topic removes two: both merge cleanly, so the
    // merged file above the conflict is in neither side.
    on(&fixture, "main", |f| {
        let text = base
            .replace("line 2\n", "line 2\nnew a\nnew b\nnew c\n")
            .replace("line 15\n", "OURS 15\n");
        f.write("n", text);
    });
    on(&fixture, "topic", |f| {
        let text = base
            .replace("line 5\nline 6\n", "")
            .replace("line 15\n", "THEIRS 15\n");
        f.write("n", text);
    });
    let merge = merged(&fixture, "main", "topic");
    let hunks = merge
        .conflict_hunks("n", Limits::default())
        .unwrap()
        .unwrap();
    let hunk = &hunks.hunks[0];
    assert_eq!(
        (hunk.ours.as_str(), hunk.theirs.as_str()),
        ("OURS 15\n", "THEIRS 15\n")
    );
    // ours: 15 + 3 added; base: 15; theirs: 15 - 2 removed.
    assert_eq!(
        (hunk.ours_line, hunk.base_line, hunk.theirs_line),
        (18, 15, 13)
    );
    // The merged file: 14 + 3 - 2 lines before the marker.
    assert_eq!(hunk.start_line, 16);
}

#[test]
fn a_heading_underline_is_no_marker() {
    // `=======` underlines a seven-letter heading, outside the conflict and inside it.
    let base = "Title\n=====\n\nChanges\n=======\n\nold text\nmore\n\nHistory\n=======\n\nend\n";
    let fixture = forked(|f| {
        f.write("README.rst", base);
    });
    on(&fixture, "main", |f| {
        f.write(
            "README.rst",
            base.replace(
                "old text\nmore\n",
                "ours text\n\nOurs123\n=======\n\nmore\n",
            ),
        );
    });
    on(&fixture, "topic", |f| {
        f.write("README.rst", base.replace("old text\n", "theirs text\n"));
    });
    let merge = merged(&fixture, "main", "topic");
    let file = &merge.outcome.conflicts[0];
    assert_eq!(file.kind, ConflictKind::Content);
    let hunks = merge
        .conflict_hunks("README.rst", Limits::default())
        .unwrap()
        .unwrap();
    assert_eq!(hunks.total, 1);
    let hunk = &hunks.hunks[0];
    assert_eq!(hunk.ours, "ours text\n\nOurs123\n=======\n\n");
    assert_eq!(hunk.base.as_deref(), Some("old text\n"));
    assert_eq!(hunk.theirs, "theirs text\n");
    assert_eq!(
        (hunk.ours_line, hunk.base_line, hunk.theirs_line),
        (7, 7, 7)
    );
    // Where git's own file (seven-character markers) has the region.
    assert_eq!((hunk.start_line, hunk.end_line), (7, 17));
}

#[test]
fn unrelated_histories_are_said_so() {
    let fixture = forked(|_| {});
    fixture.git(&["checkout", "-q", "--orphan", "elsewhere"]);
    fixture.write("f", "another history\n");
    fixture.commit("root of another history");
    let error = fixture
        .repository()
        .merge_tree("main", "elsewhere")
        .unwrap_err();
    assert!(
        matches!(error, Error::UnrelatedHistories { .. }),
        "{error:?}"
    );
    let agent = resolve_pr_core::Error::from(error);
    assert_eq!(agent.category, resolve_pr_core::Category::User);
    assert!(
        agent.error.contains("no commit in common"),
        "{}",
        agent.error
    );
    assert!(!agent.error.contains("fatal"), "{}", agent.error);
    let suggestion = agent.suggestion.unwrap_or_default();
    assert!(
        suggestion.contains("git rebase --root --onto"),
        "{suggestion}"
    );
}

#[test]
fn a_side_over_the_budget_leaves_the_others_whole() {
    let fixture = forked(|_| {});
    let huge: String = (0..3000)
        .map(|i| format!("a long line {i} of the target's side\n"))
        .collect();
    on(&fixture, "main", |f| {
        f.write("f", LINES.replace("two\n", &huge));
    });
    on(&fixture, "topic", |f| {
        f.write("f", LINES.replace("two", "THEIRS"));
    });
    let merge = merged(&fixture, "main", "topic");
    let hunks = merge
        .conflict_hunks("f", Limits::default())
        .unwrap()
        .unwrap();
    assert!(hunks.cut);
    let hunk = &hunks.hunks[0];
    assert_eq!(hunk.base.as_deref(), Some("two\n"));
    assert_eq!(hunk.theirs, "THEIRS\n");
    assert!(hunk.ours.starts_with("a long line 0 "));
    assert!(hunk.ours.ends_with('\n') && hunk.ours.len() <= 16 * 1024);
    assert_eq!(hunk.ours_omitted, 3000 - hunk.ours.lines().count());
}

/// `merge.outcome` of `main` and `topic` in a clone of `fixture` checked out at `main` (a
/// fresh clone's answer), with the clone's remote-tracking names.
fn in_a_fresh_clone(fixture: &Fixture) -> resolve_pr_git::MergeOutcome {
    let clone = tempfile::tempdir().unwrap();
    let source = fixture.path().to_str().unwrap();
    let target = clone.path().join("clone");
    fixture.git(&[
        "clone",
        "-q",
        "-b",
        "main",
        source,
        target.to_str().unwrap(),
    ]);
    let repository = resolve_pr_git::Repository::discover(&common::git(), &target).unwrap();
    let merge = repository
        .merge_tree("origin/main", "origin/topic")
        .unwrap();
    merge.outcome.clone()
}

#[test]
fn the_merged_trees_attributes_decide_not_the_checkout() {
    // The target adds `*.txt merge=union`; both sides change the same line of a.txt.
    let fixture = forked(|f| {
        f.write("a.txt", LINES);
    });
    on(&fixture, "main", |f| {
        f.write(".gitattributes", "*.txt merge=union\n");
        f.write("a.txt", LINES.replace("two", "OURS"));
    });
    on(&fixture, "topic", |f| {
        f.write("a.txt", LINES.replace("two", "THEIRS"));
    });
    let fresh = in_a_fresh_clone(&fixture);
    assert!(fresh.clean, "{fresh:?}");

    // The user's checkout is at the PR's commit, which lacks the target's attributes.
    fixture.checkout(&["topic"]);
    assert_eq!(merged(&fixture, "main", "topic").outcome, fresh);

    // At the target, with a worktree whose uncommitted attributes say the opposite, and a
    // an `attr.tree` in the repository's configuration naming the PR's commit.
    fixture.checkout(&["main"]);
    fixture.write(".gitattributes", "*.txt -merge\n");
    fixture.git(&["config", "attr.tree", "topic"]);
    assert_eq!(merged(&fixture, "main", "topic").outcome, fresh);

    // And the reverse: the merged trees say nothing, the checkout says union.
    let plain = forked(|f| {
        f.write("a.txt", LINES);
    });
    on(&plain, "main", |f| {
        f.write("a.txt", LINES.replace("two", "OURS"));
    });
    on(&plain, "topic", |f| {
        f.write("a.txt", LINES.replace("two", "THEIRS"));
    });
    let fresh = in_a_fresh_clone(&plain);
    assert!(!fresh.clean);
    plain.write(".gitattributes", "*.txt merge=union\n");
    assert_eq!(merged(&plain, "main", "topic").outcome, fresh);
}

/// A repository where `main` renames the directory `a/` to `b/` and `f` to `g`, and edits
/// the top of `h`; `topic` adds `a/new`, edits `f` and the bottom of `h`. With git's
/// defaults: `a/new` is a directory-rename conflict, the rest merges cleanly.
fn renames() -> Fixture {
    let fixture = forked(|f| {
        f.write("a/x", "x\n");
        f.write("a/y", "y\n");
        f.write("h", LINES);
    });
    on(&fixture, "main", |f| {
        f.git(&["mv", "a", "b"]);
        f.git(&["mv", "f", "g"]);
        f.write("h", LINES.replace("one", "ONE"));
    });
    on(&fixture, "topic", |f| {
        f.write("a/new", "new\n");
        f.write("f", LINES.replace("eight", "EIGHT"));
        f.write("h", LINES.replace("eight", "EIGHT"));
    });
    fixture
}

#[test]
fn the_repositorys_merge_settings_do_not_change_the_answer() {
    let fixture = renames();
    let fresh = in_a_fresh_clone(&fixture);
    assert_eq!(paths_of(&fresh), ["b/new"]);
    let attributes = fixture.path().join(".git").join("no-merge-attributes");
    std::fs::write(&attributes, "* -merge\n").unwrap();
    for (key, value) in [
        ("core.attributesFile", attributes.to_str().unwrap()),
        ("merge.directoryRenames", "true"),
        // merge-ort ignores these two (it always detects renames); kept so that a git
        // that reads them again is caught.
        ("merge.renames", "false"),
        ("diff.renames", "false"),
        ("merge.default", "binary"),
        ("merge.renormalize", "true"),
        ("merge.renameLimit", "1"),
        ("merge.conflictStyle", "merge"),
    ] {
        fixture.git(&["config", key, value]);
        let outcome = merged(&fixture, "main", "topic").outcome;
        assert_eq!(outcome, fresh, "with {key}={value}");
        fixture.git(&["config", "--unset", key]);
    }
}

fn paths_of(outcome: &resolve_pr_git::MergeOutcome) -> Vec<&str> {
    outcome.conflicts.iter().map(|f| f.path.as_str()).collect()
}

/// A stand-in git that runs the real one with the configuration file `file` in `scope`
/// (`GLOBAL` or `SYSTEM`), unless the crate switched that scope off: as a user's
/// `~/.gitconfig` or `/etc/gitconfig` would be read.
#[cfg(unix)]
fn git_with_config(
    dir: &std::path::Path,
    scope: &str,
    file: &std::path::Path,
) -> resolve_pr_git::Git {
    let real = common::git();
    let path = dir.join("git");
    let guard = match scope {
        "GLOBAL" => "[ \"$GIT_CONFIG_GLOBAL\" != /dev/null ]",
        _ => "[ -z \"$GIT_CONFIG_NOSYSTEM\" ]",
    };
    resolve_pr_testkit::write_script(
        &path,
        &format!(
            "#!/bin/sh\nif {guard}; then GIT_CONFIG_{scope}='{}'; export GIT_CONFIG_{scope}; fi\n\
             exec '{}' \"$@\"\n",
            file.display(),
            real.program().display()
        ),
    );
    resolve_pr_git::Git::at(path).unwrap()
}

#[cfg(unix)]
#[test]
fn the_users_global_and_system_configuration_do_not_change_the_answer() {
    // The target's attributes name a merge driver `keep` no forge has; a.txt and b.txt
    // conflict.
    let fixture = forked(|f| {
        f.write("a.txt", LINES);
        f.write("b.txt", LINES);
    });
    on(&fixture, "main", |f| {
        f.write(".gitattributes", "a.txt merge=keep\n");
        f.write("a.txt", LINES.replace("two", "OURS"));
        f.write("b.txt", LINES.replace("two", "OURS"));
    });
    on(&fixture, "topic", |f| {
        f.write("a.txt", LINES.replace("two", "THEIRS"));
        f.write("b.txt", LINES.replace("two", "THEIRS"));
    });
    let fresh = in_a_fresh_clone(&fixture);
    assert_eq!(paths_of(&fresh), ["a.txt", "b.txt"]);
    // The user's configuration defines `keep` (keep the target's side), has an attributes
    // file that unions b.txt, and other merge settings.
    let home = tempfile::tempdir().unwrap();
    let attributes = home.path().join("attributes");
    std::fs::write(&attributes, "b.txt merge=union\n").unwrap();
    let config = home.path().join("config");
    std::fs::write(
        &config,
        format!(
            "[core]\n\tattributesFile = {}\n[merge]\n\tconflictStyle = diff3\n\
             \tdirectoryRenames = true\n[merge \"keep\"]\n\tdriver = true\n",
            attributes.display()
        ),
    )
    .unwrap();
    for scope in ["GLOBAL", "SYSTEM"] {
        let bin = tempfile::tempdir().unwrap();
        let git = git_with_config(bin.path(), scope, &config);
        let merge = fixture
            .repository_with(&git)
            .merge_tree("main", "topic")
            .unwrap();
        assert_eq!(merge.outcome, fresh, "with a {scope} configuration");
        let hunks = merge
            .conflict_hunks("a.txt", Limits::default())
            .unwrap()
            .unwrap();
        assert_eq!(hunks.hunks[0].base.as_deref(), Some("two\n"));
    }
}

#[test]
fn a_path_the_target_calls_binary_is_not_merged_again_as_text() {
    // Marker-like lines would have the file merged again alone; the target's attributes
    // say `-merge`, so git kept the target's file and wrote no region.
    let base = "Title\n=======\n\nold\n";
    let fixture = forked(|f| {
        f.write("README.md", base);
    });
    on(&fixture, "main", |f| {
        f.write(".gitattributes", "*.md -merge\n");
        f.write("README.md", base.replace("old", "ours"));
    });
    on(&fixture, "topic", |f| {
        f.write("README.md", base.replace("old", "theirs"));
    });
    let merge = merged(&fixture, "main", "topic");
    assert_eq!(paths(&merge), ["README.md"]);
    assert_eq!(merge.outcome.conflicts[0].kind, ConflictKind::Binary);
    let hunks = merge
        .conflict_hunks("README.md", Limits::default())
        .unwrap()
        .unwrap();
    assert_eq!(hunks.total, 0, "{hunks:?}");
}

/// A partial clone fetches the blobs a merge needs as it merges, which may need the user's
/// configuration (here a global `url.*.insteadOf` that makes its remote reachable): its
/// merges keep the user's global configuration, and still get the merge's attributes.
#[cfg(unix)]
#[test]
fn a_partial_clone_keeps_the_users_configuration_for_its_fetches() {
    let fixture = forked(|f| {
        f.write("a.txt", LINES);
    });
    on(&fixture, "main", |f| {
        f.write(".gitattributes", "*.txt merge=union\n");
        f.write("a.txt", LINES.replace("two", "OURS"));
    });
    on(&fixture, "topic", |f| {
        f.write("a.txt", LINES.replace("two", "THEIRS"));
    });
    fixture.git(&["config", "uploadpack.allowFilter", "true"]);
    let place = tempfile::tempdir().unwrap();
    let clone = place.path().join("clone");
    let source = format!("file://{}", fixture.path().display());
    fixture.git(&[
        "clone",
        "-q",
        "--filter=blob:none",
        "--no-checkout",
        &source,
        clone.to_str().unwrap(),
    ]);
    let unreachable = "https://example.invalid/repo.git";
    fixture.git(&[
        "-C",
        clone.to_str().unwrap(),
        "remote",
        "set-url",
        "origin",
        unreachable,
    ]);
    let config = place.path().join("gitconfig");
    std::fs::write(
        &config,
        format!("[url \"{source}\"]\n\tinsteadOf = {unreachable}\n"),
    )
    .unwrap();
    let bin = tempfile::tempdir().unwrap();
    let git = git_with_config(bin.path(), "GLOBAL", &config);
    let repository = resolve_pr_git::Repository::discover(&git, &clone).unwrap();
    let merge = repository
        .merge_tree("origin/main", "origin/topic")
        .unwrap();
    assert_eq!(merge.outcome, in_a_fresh_clone(&fixture));
    assert!(merge.outcome.clean, "{:?}", merge.outcome);
}
