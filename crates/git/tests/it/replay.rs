//! Predicting a restack on real repositories: a clean replay, a replay that stops on its
//! second commit, merge commits skipped, the final-state conflicts, the limit, and never a
//! change to the repository.

use crate::common;

use common::Fixture;
use resolve_pr_git::{CommitConflict, Error, ReplayPrediction, RestackEngine};

const LINES: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

fn snapshot(fixture: &Fixture) -> (String, u64, String) {
    (
        fixture.git(&["for-each-ref"]),
        fixture.object_count(),
        fixture.git(&["status", "--porcelain"]),
    )
}

/// `main` at a base with `f`; `topic` from there with `commits` (each a change to `f`);
/// then `main` gets `trunk` (a change to `f`). Returns the fixture and the base.
fn diverged(commits: &[(&str, &str)], trunk: &str) -> (Fixture, String) {
    let fixture = Fixture::new();
    fixture.write("f", LINES);
    let base = fixture.commit("base");
    fixture.git(&["checkout", "-q", "-b", "topic"]);
    for (summary, content) in commits {
        fixture.write("f", content);
        fixture.commit(summary);
    }
    fixture.checkout(&["main"]);
    fixture.write("f", trunk);
    fixture.commit("trunk");
    (fixture, base)
}

/// The prediction, the same by `git replay` into scratch (the default here) and commit by
/// commit (as with the rebase engine).
fn predict(fixture: &Fixture, new_base: &str, old_base: &str, head: &str) -> ReplayPrediction {
    let repo = fixture.repository();
    assert_eq!(
        repo.restack_engine(),
        RestackEngine::Replay,
        "git 2.44+ here"
    );
    let fast = repo.predict_replay(new_base, old_base, head).unwrap();
    let slow = repo
        .with_restack_engine(RestackEngine::Rebase)
        .predict_replay(new_base, old_base, head)
        .unwrap();
    assert_eq!(fast, slow);
    fast
}

#[test]
fn a_clean_replay() {
    let (fixture, base) = diverged(
        &[
            ("one", &LINES.replace("2\n", "two\n")),
            (
                "two",
                &LINES.replace("2\n", "two\n").replace("3\n", "three\n"),
            ),
        ],
        &LINES.replace("9\n", "nine\n"),
    );
    let before = snapshot(&fixture);
    let prediction = predict(&fixture, "main", &base, "topic");
    assert_eq!(snapshot(&fixture), before, "the repository changed");
    assert_eq!(prediction.commits, 2);
    assert!(prediction.clean);
    assert!(prediction.conflicts.is_empty());
    assert!(prediction.final_conflicts.is_empty());
}

/// The second commit conflicts with trunk though the first applies: the prediction names
/// the second, and the whole-range merge names the file too.
#[test]
fn a_replay_that_stops_on_the_second_commit() {
    let (fixture, base) = diverged(
        &[
            ("one", &LINES.replace("2\n", "two\n")),
            (
                "touches nine",
                &LINES.replace("2\n", "two\n").replace("9\n", "NINE\n"),
            ),
            (
                "three",
                &LINES
                    .replace("2\n", "two\n")
                    .replace("9\n", "NINE\n")
                    .replace("1\n", "one\n"),
            ),
        ],
        &LINES.replace("9\n", "nine\n"),
    );
    let second = fixture.git(&["rev-parse", "topic~1"]).trim().to_string();
    let before = snapshot(&fixture);
    let prediction = predict(&fixture, "main", &base, "topic");
    assert_eq!(snapshot(&fixture), before, "the repository changed");
    assert_eq!(prediction.commits, 3);
    assert!(!prediction.clean);
    assert_eq!(
        prediction.conflicts,
        [CommitConflict {
            commit: second,
            summary: "touches nine".into(),
            files: vec!["f".into()],
        }]
    );
    assert_eq!(prediction.final_conflicts, ["f"]);
}

/// Commits whose change trunk already has (a cherry-pick of the first, a commit empty from
/// the start, then one of its own) are named as becoming empty, by both engines and by the
/// stack prediction; the empty-from-the-start one is kept, as a rebase keeps it.
#[test]
fn commits_already_in_trunk_are_named_as_emptied() {
    let (fixture, base) = diverged(
        &[("one", &LINES.replace("2\n", "two\n"))],
        &LINES.replace("9\n", "nine\n"),
    );
    let first = fixture.git(&["rev-parse", "topic"]).trim().to_string();
    fixture.git(&["cherry-pick", &first]);
    fixture.checkout(&["topic"]);
    fixture.git(&[
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "empty from the start",
    ]);
    fixture.write("g", "g\n");
    fixture.commit("own");
    let prediction = predict(&fixture, "main", &base, "topic");
    assert!(prediction.clean);
    assert_eq!(prediction.commits, 3);
    assert_eq!(prediction.emptied, std::slice::from_ref(&first));
    let stack = fixture
        .repository()
        .predict_stack("main", &[(base.clone(), "topic".to_string())])
        .unwrap();
    assert_eq!(stack[0].emptied, [first]);
}

/// A commit that conflicts and a later one that reverts it: the replay stops, but the range
/// as a whole applies.
#[test]
fn per_commit_and_final_state_conflicts_differ() {
    let (fixture, base) = diverged(
        &[
            ("touches nine", &LINES.replace("9\n", "NINE\n")),
            ("puts nine back", LINES),
            ("two", &LINES.replace("2\n", "two\n")),
        ],
        &LINES.replace("9\n", "nine\n"),
    );
    let prediction = predict(&fixture, "main", &base, "topic");
    assert!(!prediction.clean);
    assert_eq!(prediction.conflicts[0].summary, "touches nine");
    assert!(prediction.final_conflicts.is_empty());
}

#[test]
fn merge_commits_in_the_range_are_skipped() {
    let (fixture, base) = diverged(
        &[("one", &LINES.replace("2\n", "two\n"))],
        &LINES.replace("9\n", "nine\n"),
    );
    fixture.checkout(&["-b", "side", &base]);
    fixture.write("side", "s\n");
    fixture.commit("side");
    fixture.checkout(&["topic"]);
    fixture.git(&["merge", "-q", "--no-edit", "side"]);
    let prediction = predict(&fixture, "main", &base, "topic");
    // "one" and "side"; the merge is not replayed.
    assert_eq!(prediction.commits, 2);
    assert!(prediction.clean);
}

#[test]
fn merge_tree_with_an_explicit_base() {
    let (fixture, base) = diverged(
        &[("one", &LINES.replace("2\n", "two\n"))],
        &LINES.replace("2\n", "TWO\n"),
    );
    let repo = fixture.repository();
    let merge = repo.merge_tree_with_base(&base, "main", "topic").unwrap();
    assert!(!merge.outcome.clean);
    assert_eq!(merge.outcome.conflicts[0].path, "f");
    // With topic itself as the base, topic brings no change: clean, trunk's tree.
    let merge = repo.merge_tree_with_base("topic", "main", "topic").unwrap();
    assert!(merge.outcome.clean);
    let trunk_tree = fixture.git(&["rev-parse", "main^{tree}"]);
    assert_eq!(merge.outcome.tree, trunk_tree.trim());
    let error = repo
        .merge_tree_with_base("-x", "main", "topic")
        .unwrap_err();
    assert!(matches!(error, Error::BadRevision { .. }), "{error:?}");
}

#[test]
fn more_than_five_hundred_commits_is_a_usage_error() {
    let fixture = Fixture::new();
    let base = fixture.commit("base");
    // 501 empty commits, made quickly with commit-tree.
    let tree = fixture
        .git(&["rev-parse", "HEAD^{tree}"])
        .trim()
        .to_string();
    let mut parent = base.clone();
    for i in 0..501 {
        parent = fixture
            .git(&["commit-tree", &tree, "-p", &parent, "-m", &i.to_string()])
            .trim()
            .to_string();
    }
    let error = fixture
        .repository()
        .predict_replay("main", &base, &parent)
        .unwrap_err();
    assert!(matches!(error, Error::Usage { .. }), "{error:?}");
}

/// A prediction merges as the forge would, whatever the checkout and the repository's
/// settings: with the attributes of the new base (here `f merge=union`, which trunk added),
/// the same by `git replay` (a side repository, which sees no worktree) and commit by commit.
#[test]
fn a_prediction_takes_the_new_bases_attributes_not_the_checkouts() {
    let (fixture, base) = diverged(
        &[("ours", &LINES.replace("2\n", "topic's two\n"))],
        &LINES.replace("2\n", "trunk's two\n"),
    );
    fixture.write(".gitattributes", "f merge=union\n");
    fixture.commit("union");
    fixture.git(&["config", "merge.default", "binary"]);
    fixture.git(&["config", "merge.directoryRenames", "true"]);
    for checkout in ["main", "topic"] {
        fixture.checkout(&[checkout]);
        let prediction = predict(&fixture, "main", &base, "topic");
        assert!(prediction.clean, "checkout at {checkout}: {prediction:?}");
        assert!(prediction.final_conflicts.is_empty(), "{prediction:?}");
    }
}
