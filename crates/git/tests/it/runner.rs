//! The git runner against the real git of this machine and against stand-in programs.

use std::path::Path;

use resolve_pr_git::{CLEARED_VARIABLES, Error, Git, Version};

#[test]
fn finds_the_installed_git() {
    let git = Git::find().expect("git on PATH");
    assert!(git.version() >= Version::MINIMUM);
    assert!(git.program().is_absolute());
}

#[test]
fn a_missing_program_is_git_missing() {
    let error = Git::at("/nonexistent/bin/git").unwrap_err();
    assert!(matches!(error, Error::GitMissing { .. }), "{error:?}");
}

#[cfg(unix)]
fn stand_in(dir: &Path, script: &str) -> std::path::PathBuf {
    let path = dir.join("git");
    resolve_pr_testkit::write_script(&path, &format!("#!/bin/sh\n{script}\n"));
    path
}

#[cfg(unix)]
#[test]
fn an_old_git_is_refused_with_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    let error = Git::at(stand_in(dir.path(), "echo 'git version 2.37.1'")).unwrap_err();
    match &error {
        Error::GitTooOld {
            found, required, ..
        } => {
            assert_eq!(found.to_string(), "2.37.1");
            assert_eq!(*required, Version::MINIMUM);
        }
        other => panic!("{other:?}"),
    }
    let text = error.to_string();
    assert!(text.contains("2.37.1") && text.contains("2.38"), "{text}");
    assert!(text.contains("merge-tree --write-tree"), "{text}");
}

#[cfg(unix)]
#[test]
fn a_program_that_prints_no_version_is_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let error = Git::at(stand_in(dir.path(), "echo 'hub version 2.14.2'")).unwrap_err();
    assert!(matches!(error, Error::UnknownVersion { .. }), "{error:?}");
}

#[test]
fn the_cleared_variables_cover_what_git_calls_local() {
    let git = Git::find().unwrap();
    let output = std::process::Command::new(git.program())
        .args(["rev-parse", "--local-env-vars"])
        .output()
        .unwrap();
    let listed = String::from_utf8(output.stdout).unwrap();
    for name in listed.lines() {
        assert!(CLEARED_VARIABLES.contains(&name), "{name} is not cleared");
    }
    assert!(CLEARED_VARIABLES.contains(&"GIT_DIR"));
}
