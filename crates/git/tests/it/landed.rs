//! Has a branch landed? Real merges, squash merges (also after trunk moved on), rebase
//! merges by cherry-pick, a squash carrying a conflict-resolution tweak, and a branch that
//! did not land. The repository must not change.

use crate::common;

use common::Fixture;
use resolve_pr_git::Landed;

const LINES: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

/// `main` with a file, and `feature` branching from it with three commits touching two files.
fn branch_of_three() -> (Fixture, String, String) {
    let fixture = Fixture::new();
    fixture.write("f", LINES);
    fixture.write("g", "g\n");
    let base = fixture.commit("base");
    fixture.git(&["checkout", "-q", "-b", "feature"]);
    fixture.write("f", LINES.replace("2\n", "two\n"));
    fixture.commit("feature 1");
    fixture.write("new", "new\n");
    fixture.commit("feature 2");
    fixture.write("f", LINES.replace("2\n", "two\n").replace("9\n", "nine\n"));
    let head = fixture.commit("feature 3");
    fixture.checkout(&["main"]);
    (fixture, base, head)
}

fn snapshot(fixture: &Fixture) -> (String, u64) {
    (fixture.git(&["for-each-ref"]), fixture.object_count())
}

fn landed(fixture: &Fixture, base: &str, head: &str) -> Landed {
    let before = snapshot(fixture);
    let result = fixture
        .repository()
        .landed(base, head, "main", 100)
        .unwrap();
    assert_eq!(snapshot(fixture), before, "the repository changed");
    result
}

#[test]
fn a_merge_commit_or_fast_forward_is_ancestor() {
    let (fixture, base, head) = branch_of_three();
    fixture.write("other", "x\n");
    fixture.commit("trunk moves");
    fixture.git(&["merge", "-q", "--no-edit", "feature"]);
    assert_eq!(landed(&fixture, &base, &head), Landed::Ancestor);
}

#[test]
fn a_squash_of_three_commits() {
    let (fixture, base, head) = branch_of_three();
    fixture.git(&["merge", "-q", "--squash", "feature"]);
    let squash = fixture.commit("Feature (#12)");
    assert_eq!(
        landed(&fixture, &base, &head),
        Landed::Squashed { commit: squash }
    );
}

#[test]
fn a_squash_after_which_trunk_moved_on() {
    let (fixture, base, head) = branch_of_three();
    fixture.write("before", "b\n");
    fixture.commit("trunk before the squash");
    fixture.git(&["merge", "-q", "--squash", "feature"]);
    let squash = fixture.commit("Feature (#12)");
    fixture.write("after", "a\n");
    fixture.commit("trunk after the squash");
    fixture.write(
        "f",
        LINES
            .replace("2\n", "two\n")
            .replace("9\n", "nine\n")
            .replace("5\n", "five\n"),
    );
    fixture.commit("trunk edits the same file later");
    assert_eq!(
        landed(&fixture, &base, &head),
        Landed::Squashed { commit: squash }
    );
}

#[test]
fn a_rebase_merge_by_cherry_picks() {
    let (fixture, base, head) = branch_of_three();
    fixture.write("other", "x\n");
    fixture.commit("trunk moves");
    let range = format!("{base}..{head}");
    fixture.git(&["cherry-pick", &range]);
    let picked: Vec<String> = fixture
        .git(&["rev-list", "--reverse", "-3", "main"])
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        landed(&fixture, &base, &head),
        Landed::Rebased { commits: picked }
    );
}

#[test]
fn a_branch_not_landed() {
    let (fixture, base, head) = branch_of_three();
    fixture.write("other", "x\n");
    fixture.commit("trunk moves");
    assert_eq!(landed(&fixture, &base, &head), Landed::NotLanded);
    // Only part of it landed (one commit picked): still not landed.
    let first = fixture.git(&["rev-list", "--reverse", &format!("{base}..{head}")]);
    let first = first.lines().next().unwrap();
    fixture.git(&["cherry-pick", first]);
    assert_eq!(landed(&fixture, &base, &head), Landed::NotLanded);
}

/// A squash that also carries a conflict resolution is not patch-equal to the range, so it
/// is never `Squashed`. When the resolution kept the branch's lines, trunk already has
/// everything the branch changes: `ContentInTrunk`. When it changed them further, merging
/// the branch would change trunk (or conflict): `NotLanded`.
#[test]
fn a_squash_with_a_conflict_resolution_tweak() {
    // Trunk changed line 9 meanwhile; the squash resolves to the branch's version.
    let (fixture, base, head) = branch_of_three();
    fixture.write("f", LINES.replace("9\n", "NINE\n"));
    fixture.commit("trunk changes line 9");
    fixture.write("f", LINES.replace("2\n", "two\n").replace("9\n", "nine\n"));
    fixture.write("new", "new\n");
    fixture.commit("Feature (#12), conflict resolved to the branch's side");
    assert_eq!(landed(&fixture, &base, &head), Landed::ContentInTrunk);

    // The same, resolved to a third version of line 9.
    let (fixture, base, head) = branch_of_three();
    fixture.write("f", LINES.replace("9\n", "NINE\n"));
    fixture.commit("trunk changes line 9");
    fixture.write(
        "f",
        LINES
            .replace("2\n", "two\n")
            .replace("9\n", "nine (both)\n"),
    );
    fixture.write("new", "new\n");
    fixture.commit("Feature (#12), conflict resolved by hand");
    assert_eq!(landed(&fixture, &base, &head), Landed::NotLanded);
}

#[test]
fn range_patch_id_is_the_squash_patch_id_and_none_when_empty() {
    let (fixture, base, head) = branch_of_three();
    let repo = fixture.repository();
    let id = repo.range_patch_id(&base, &head).unwrap().unwrap();
    assert_eq!(id.len(), 40);
    fixture.git(&["merge", "-q", "--squash", "feature"]);
    let squash = fixture.commit("squash");
    let parent = format!("{squash}^");
    assert_eq!(repo.range_patch_id(&parent, &squash).unwrap(), Some(id));
    assert_eq!(repo.range_patch_id(&head, &head).unwrap(), None);
    fixture.git(&["commit", "-q", "--allow-empty", "-m", "empty"]);
    assert_eq!(repo.range_patch_id("main^", "main").unwrap(), None);
}

#[test]
fn the_limit_bounds_the_trunk_commits_looked_at() {
    let (fixture, base, head) = branch_of_three();
    fixture.git(&["merge", "-q", "--squash", "feature"]);
    let squash = fixture.commit("Feature (#12)");
    for i in 0..3 {
        fixture.write("later", format!("{i}\n"));
        fixture.commit("later");
    }
    let repo = fixture.repository();
    assert_eq!(
        repo.landed(&base, &head, "main", 4).unwrap(),
        Landed::Squashed { commit: squash }
    );
    // Three newer commits fill a limit of 3: the squash is not seen; the content check
    // still finds trunk has the change.
    assert_eq!(
        repo.landed(&base, &head, "main", 3).unwrap(),
        Landed::ContentInTrunk
    );
}

/// Trunk's first-parent history holds only merges of a merge queue's batches: the squash
/// commit sits on a merged side branch, and is still found.
#[test]
fn a_squash_that_reached_trunk_through_a_merge() {
    let (fixture, base, head) = branch_of_three();
    fixture.git(&["checkout", "-q", "-b", "queue", "main"]);
    fixture.git(&["merge", "-q", "--squash", "feature"]);
    let squash = fixture.commit("Feature (#12)");
    fixture.checkout(&["main"]);
    fixture.write("other", "x\n");
    fixture.commit("trunk moves");
    fixture.git(&["merge", "-q", "--no-ff", "--no-edit", "queue"]);
    assert_eq!(
        landed(&fixture, &base, &head),
        Landed::Squashed { commit: squash }
    );
}

#[test]
fn unknown_revisions_are_bad_revisions() {
    let (fixture, base, head) = branch_of_three();
    let repo = fixture.repository();
    for (b, h, t) in [
        ("-x", head.as_str(), "main"),
        (base.as_str(), "nope", "main"),
        (base.as_str(), head.as_str(), "--all"),
    ] {
        let error = repo.landed(b, h, t, 10).unwrap_err();
        assert!(
            matches!(error, resolve_pr_git::Error::BadRevision { .. }),
            "{error:?}"
        );
    }
}
