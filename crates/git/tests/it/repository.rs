//! Finding a repository and its remotes, in real repositories.

use crate::common;

use common::Fixture;
use resolve_pr_git::{Error, Repository};

#[test]
fn discovers_the_enclosing_repository_from_a_subdirectory() {
    let fixture = Fixture::new();
    fixture.write("a/b/c.txt", "x\n");
    fixture.commit("one");
    let repo = Repository::discover(&common::git(), &fixture.path().join("a/b")).unwrap();
    let top = fixture.path().canonicalize().unwrap();
    assert_eq!(repo.workdir().unwrap().canonicalize().unwrap(), top);
    assert_eq!(repo.git_dir().canonicalize().unwrap(), top.join(".git"));
    assert_eq!(
        repo.objects_dir().canonicalize().unwrap(),
        top.join(".git/objects")
    );
    assert!(!repo.is_shallow());
}

#[test]
fn a_plain_directory_is_not_a_repository() {
    let dir = tempfile::tempdir().unwrap();
    let error = Repository::discover(&common::git(), dir.path()).unwrap_err();
    assert!(matches!(error, Error::NotARepository { .. }), "{error:?}");
    let missing = dir.path().join("nope");
    let error = Repository::discover(&common::git(), &missing).unwrap_err();
    assert!(matches!(error, Error::NotARepository { .. }), "{error:?}");
}

#[test]
fn a_bare_repository_has_no_worktree() {
    let dir = tempfile::tempdir().unwrap();
    std::process::Command::new("git")
        .args(["init", "-q", "--bare", "."])
        .current_dir(dir.path())
        .status()
        .unwrap();
    let repo = Repository::discover(&common::git(), dir.path()).unwrap();
    assert_eq!(repo.workdir(), None);
    assert_eq!(
        repo.objects_dir().canonicalize().unwrap(),
        dir.path().canonicalize().unwrap().join("objects")
    );
}

/// Run as a child of the test below, with GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE pointing
/// at another repository in its environment (a test cannot set its own: no unsafe code).
#[test]
#[ignore = "run by an_inherited_git_dir_does_not_redirect_anything"]
fn child_discovers_its_own_directory() {
    let Some(expected) = std::env::var_os("RESOLVE_PR_GIT_TEST_DIR") else {
        return;
    };
    let repo = Repository::discover(&common::git(), std::path::Path::new(&expected)).unwrap();
    let expected = std::path::Path::new(&expected).canonicalize().unwrap();
    assert_eq!(repo.workdir().unwrap().canonicalize().unwrap(), expected);
    assert_eq!(
        repo.git_dir().canonicalize().unwrap(),
        expected.join(".git")
    );
}

#[test]
fn an_inherited_git_dir_does_not_redirect_anything() {
    let fixture = Fixture::new();
    let other = Fixture::new();
    let child = common::test_name(module_path!(), "child_discovers_its_own_directory");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &child, "--ignored"])
        .env("RESOLVE_PR_GIT_TEST_DIR", fixture.path())
        .env("GIT_DIR", other.path().join(".git"))
        .env("GIT_WORK_TREE", other.path())
        .env("GIT_INDEX_FILE", other.path().join(".git/index"))
        .env("GIT_OBJECT_DIRECTORY", other.path().join(".git/objects"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("1 passed"),
        "the child ran {child}: {stdout}"
    );
}

#[test]
fn remotes_and_the_one_of_a_pull_requests_repository() {
    let fixture = Fixture::new();
    fixture.commit("one");
    fixture.git(&["remote", "add", "origin", "git@github.com:me/app.git"]);
    fixture.git(&["remote", "add", "upstream", "https://github.com/Acme/App"]);
    fixture.git(&[
        "remote",
        "add",
        "mirror",
        "https://bot:ghp_secret@git.example.com/forgejo/acme/app.git/",
    ]);
    fixture.git(&["remote", "add", "local", "/srv/git/app.git"]);
    let repo = fixture.repository();
    let remotes = repo.remotes().unwrap();
    let names: Vec<&str> = remotes.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["local", "mirror", "origin", "upstream"]);
    assert_eq!(remotes[0].parsed, None);
    assert_eq!(
        remotes[1].url,
        "https://bot:***@git.example.com/forgejo/acme/app.git/"
    );
    assert!(!format!("{remotes:?}").contains("ghp_secret"));

    let upstream = repo.matching_remote("github.com", "acme", "app").unwrap();
    assert_eq!(upstream.unwrap().name, "upstream");
    let origin = repo.matching_remote("GitHub.com", "me", "app").unwrap();
    assert_eq!(origin.unwrap().name, "origin");
    let mirror = repo
        .matching_remote("git.example.com", "acme", "app")
        .unwrap();
    assert_eq!(mirror.unwrap().name, "mirror");
    assert_eq!(
        repo.matching_remote("github.com", "acme", "other").unwrap(),
        None
    );

    // Two remotes of the same repository: origin wins.
    fixture.git(&["remote", "add", "another", "https://github.com/me/app"]);
    let origin = repo.matching_remote("github.com", "me", "app").unwrap();
    assert_eq!(origin.unwrap().name, "origin");
}

#[test]
fn remote_urls_are_read_after_instead_of_rewriting() {
    let fixture = Fixture::new();
    fixture.git(&["config", "url.https://github.com/.insteadOf", "gh:"]);
    fixture.git(&["remote", "add", "origin", "gh:acme/app"]);
    let remotes = fixture.repository().remotes().unwrap();
    assert_eq!(remotes[0].url, "https://github.com/acme/app");
    assert!(
        remotes[0]
            .parsed
            .as_ref()
            .unwrap()
            .is("github.com", "acme", "app")
    );
}

#[test]
fn resolving_revisions_never_reads_them_as_options() {
    let fixture = Fixture::new();
    let head = fixture.commit("one");
    fixture.git(&["update-ref", "refs/heads/-x", "HEAD"]);
    let repo = fixture.repository();
    assert_eq!(repo.resolve_commit("-x").unwrap(), head);
    assert_eq!(repo.resolve_commit("main").unwrap(), head);
    for bad in ["--output=/tmp/pwned", "nope", "main~5", ""] {
        let error = repo.resolve_commit(bad).unwrap_err();
        assert!(
            matches!(error, Error::BadRevision { .. }),
            "{bad}: {error:?}"
        );
    }
}
