//! Reading history on real repositories: commits with awkward messages and paths, merge
//! bases, ancestry, diff sizes, the current branch and refs.

use crate::common;

use common::Fixture;
use resolve_pr_git::{Error, Repository};

fn repo(fixture: &Fixture) -> Repository {
    fixture.repository()
}

#[test]
fn has_commit_is_a_question_never_a_revision() {
    let fixture = Fixture::new();
    let one = fixture.commit("one");
    let repo = repo(&fixture);
    assert!(repo.has_commit(&one).unwrap());
    assert!(repo.has_commit(&one[..12]).unwrap());
    let tree = fixture.git(&["rev-parse", "HEAD^{tree}"]);
    assert!(
        !repo.has_commit(tree.trim()).unwrap(),
        "a tree is not a commit"
    );
    for not_hex in ["main", "HEAD", "-x", "--all", "", "zz", &"0".repeat(40)] {
        assert!(!repo.has_commit(not_hex).unwrap(), "{not_hex}");
    }
}

#[test]
fn merge_base_ancestry_and_unrelated_histories() {
    let fixture = Fixture::new();
    let base = fixture.commit("base");
    fixture.git(&["branch", "topic"]);
    let main = fixture.commit("main");
    fixture.checkout(&["topic"]);
    let topic = fixture.commit("topic");
    fixture.checkout(&["--orphan", "lonely"]);
    let lonely = fixture.commit("lonely");
    let repo = repo(&fixture);
    assert_eq!(repo.merge_base(&main, &topic).unwrap(), Some(base.clone()));
    assert_eq!(repo.merge_base("main", "lonely").unwrap(), None);
    assert!(repo.is_ancestor(&base, &main).unwrap());
    assert!(repo.is_ancestor(&main, &main).unwrap());
    assert!(!repo.is_ancestor(&main, &topic).unwrap());
    assert!(!repo.is_ancestor(&lonely, &main).unwrap());
    let error = repo.merge_base("nope", "main").unwrap_err();
    assert!(matches!(error, Error::BadRevision { .. }), "{error:?}");
}

#[test]
fn commits_between_oldest_first_with_limit_and_total() {
    let fixture = Fixture::new();
    fixture.write("a", "a\n");
    let base = fixture.commit("base");
    fixture.write("weird\nname\t.txt", "x\n");
    fixture.write("\nleading-newline", "y\n");
    let message = "first: summary, café\n\nbody with \0? no: with \x1e and \x1f and a\nnewline\n";
    let message = message.replace('\0', "");
    fixture.git(&["add", "-A"]);
    fixture.git(&["commit", "-q", "-m", &message]);
    let first = fixture.git(&["rev-parse", "HEAD"]).trim().to_string();
    fixture.git(&["mv", "a", "b"]);
    let second = fixture.commit("second");
    let third = fixture.commit("third (empty)");
    let repo = repo(&fixture);

    let (commits, total) = repo.commits_between(&base, "main", 10).unwrap();
    assert_eq!(total, 3);
    let oids: Vec<&str> = commits.iter().map(|c| c.oid.as_str()).collect();
    assert_eq!(oids, [first.as_str(), second.as_str(), third.as_str()]);
    let c = &commits[0];
    assert_eq!(c.summary, "first: summary, café");
    assert_eq!(c.message, message.trim_end());
    assert_eq!(c.author_name, "Test");
    assert_eq!(c.author_email, "test@example.com");
    // Strict ISO 8601; git 2.47 writes UTC as `Z`, older ones as `+00:00`.
    assert!(
        ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00+00:00"].contains(&c.author_date.as_str()),
        "{}",
        c.author_date
    );
    assert_eq!(c.parents, std::slice::from_ref(&base));
    let mut files = c.files.clone();
    files.sort();
    assert_eq!(files, ["\nleading-newline", "weird\nname\t.txt"]);
    // A rename is both of its paths; an empty commit has none.
    assert_eq!(commits[1].files, ["a", "b"]);
    assert!(commits[2].files.is_empty());

    // The user's configuration does not change what is read.
    fixture.git(&["config", "i18n.logOutputEncoding", "ISO-8859-1"]);
    fixture.git(&["config", "log.showSignature", "true"]);
    fixture.git(&["config", "log.showRoot", "false"]);
    fixture.git(&["config", "diff.renames", "copies"]);
    let (again, _) = repo.commits_between(&base, "main", 10).unwrap();
    assert_eq!(again, commits);

    let (oldest, total) = repo.commits_between(&base, "main", 2).unwrap();
    assert_eq!(total, 3);
    assert_eq!(oldest.len(), 2);
    assert_eq!(oldest[0].oid, first, "the oldest are kept");
    let (none, total) = repo.commits_between("main", &base, 5).unwrap();
    assert!(none.is_empty() && total == 0);
}

#[test]
fn a_merge_commit_lists_files_against_its_first_parent_and_a_root_all() {
    let fixture = Fixture::new();
    fixture.write("root", "r\n");
    let root = fixture.commit("root");
    fixture.git(&["branch", "side"]);
    fixture.write("m", "m\n");
    fixture.commit("on main");
    fixture.checkout(&["side"]);
    fixture.write("s", "s\n");
    fixture.commit("on side");
    fixture.checkout(&["main"]);
    fixture.git(&["merge", "-q", "--no-edit", "side"]);
    let repo = repo(&fixture);
    let (commits, _) = repo.commits_between(&root, "main", 10).unwrap();
    let merge = commits.last().unwrap();
    assert_eq!(merge.parents.len(), 2);
    assert_eq!(merge.files, ["s"]);
    // The root commit itself: `root^` does not exist, so the range starts at an unrelated
    // orphan.
    fixture.checkout(&["--orphan", "empty"]);
    fixture.git(&["rm", "-rq", "--cached", "."]);
    let orphan = fixture.commit("orphan");
    let (all, total) = repo.commits_between(&orphan, "main", 10).unwrap();
    assert_eq!(total, 4);
    assert_eq!(all[0].oid, root);
    assert_eq!(all[0].files, ["root"]);
}

#[test]
fn diff_stat_counts_lines_renames_and_binaries() {
    let fixture = Fixture::new();
    fixture.write("keep", "1\n2\n3\n");
    fixture.write("moved", "a\nb\nc\nd\ne\nf\ng\nh\n");
    let base = fixture.commit("base");
    fixture.write("keep", "1\nTWO\n3\n4\n");
    fixture.remove("moved");
    fixture.write("dir/moved", "a\nb\nc\nd\ne\nf\ng\nh\n");
    fixture.write("img.bin", [0u8, 159, 146, 150, 0, 1]);
    let head = fixture.commit("change");
    let stat = repo(&fixture).diff_stat(&base, &head).unwrap();
    let mut files = stat.files.clone();
    files.sort();
    assert_eq!(files, ["dir/moved", "img.bin", "keep"]);
    assert_eq!((stat.additions, stat.deletions), (2, 1));
}

#[test]
fn current_branch_detached_and_unborn() {
    let fixture = Fixture::new();
    let repo = repo(&fixture);
    assert_eq!(repo.current_branch().unwrap(), None, "unborn");
    let one = fixture.commit("one");
    assert_eq!(repo.current_branch().unwrap().as_deref(), Some("main"));
    fixture.git(&["checkout", "-q", "-b", "feature/x"]);
    assert_eq!(repo.current_branch().unwrap().as_deref(), Some("feature/x"));
    fixture.git(&["checkout", "-q", "--detach", &one]);
    assert_eq!(repo.current_branch().unwrap(), None);
}

#[test]
fn read_ref_is_exact() {
    let fixture = Fixture::new();
    let one = fixture.commit("one");
    fixture.git(&["update-ref", "refs/resolve-pr/x", &one]);
    let repo = repo(&fixture);
    assert_eq!(repo.read_ref("refs/heads/main").unwrap(), Some(one.clone()));
    assert_eq!(
        repo.read_ref("refs/resolve-pr/x").unwrap(),
        Some(one.clone())
    );
    assert_eq!(repo.read_ref("refs/heads/nope").unwrap(), None);
    // `refs/x` is not looked up as `refs/heads/x` or the like.
    fixture.git(&["update-ref", "refs/refs/heads/ghost", &one]);
    assert_eq!(repo.read_ref("refs/heads/ghost").unwrap(), None);
    for bad in ["main", "-x", "--all"] {
        let error = repo.read_ref(bad).unwrap_err();
        assert!(matches!(error, Error::Usage { .. }), "{bad}: {error:?}");
    }
}

#[test]
fn a_shallow_clone_without_the_merge_base_says_so() {
    let source = Fixture::new();
    source.commit("base");
    source.git(&["branch", "topic"]);
    source.commit("main 1");
    source.commit("main 2");
    source.checkout(&["topic"]);
    source.commit("topic 1");
    source.commit("topic 2");
    let clone = tempfile::tempdir().unwrap();
    let url = format!("file://{}", source.path().display());
    source.git(&[
        "clone",
        "-q",
        "--depth=1",
        "--no-single-branch",
        &url,
        clone.path().to_str().unwrap(),
    ]);
    let repo = Repository::discover(&common::git(), clone.path()).unwrap();
    assert!(repo.is_shallow());
    let error = repo.merge_base("origin/main", "origin/topic").unwrap_err();
    assert!(matches!(error, Error::Shallow { .. }), "{error:?}");
    let agent = resolve_pr_core::Error::from(error);
    assert_eq!(agent.category, resolve_pr_core::Category::User);
    assert!(agent.suggestion.unwrap().contains("--unshallow"));
}
