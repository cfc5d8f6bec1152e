//! Real repositories built with the installed git in temporary directories.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use resolve_pr_git::{Git, Repository};

/// The name the test harness gives the test `name` of the module `module` (`module_path!()`):
/// its path inside the test binary, for a test that runs itself again as a child process
/// with `--exact NAME` (a name that matches nothing runs nothing, and passes).
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_binary, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}

pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// An empty repository on branch `main`.
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let fixture = Fixture { dir };
        fixture.git(&["init", "-q", "-b", "main", "."]);
        fixture
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git for the test's own setup (not through the crate), with a fixed identity and
    /// dates and no system or global configuration.
    pub fn git_output(&self, args: &[&str]) -> std::process::Output {
        let output = Command::new("git")
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"])
            .args(args)
            .current_dir(self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Whether git succeeds, for questions (`cat-file -e`).
    pub fn git_succeeds(&self, args: &[&str]) -> bool {
        Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env_remove("GIT_DIR")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES")
            .output()
            .unwrap()
            .status
            .success()
    }

    pub fn git(&self, args: &[&str]) -> String {
        String::from_utf8(self.git_output(args).stdout).unwrap()
    }

    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let full = self.path().join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&full, content).unwrap();
        full
    }

    pub fn remove(&self, path: &str) {
        self.git(&["rm", "-q", "--", path]);
    }

    /// Stages everything and commits.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    pub fn checkout(&self, args: &[&str]) {
        let mut all = vec!["checkout", "-q"];
        all.extend_from_slice(args);
        self.git(&all);
    }

    /// Objects in the repository's store, loose and packed (`git count-objects -v`).
    pub fn object_count(&self) -> u64 {
        count_objects(&self.git(&["count-objects", "-v"]))
    }

    pub fn repository(&self) -> Repository {
        Repository::discover(&git(), self.path()).unwrap()
    }

    /// The repository, run by `git` (other network limits, a stand-in).
    pub fn repository_with(&self, git: &Git) -> Repository {
        Repository::discover(git, self.path()).unwrap()
    }
}

/// `count:` plus `in-pack:` of `git count-objects -v` output.
pub fn count_objects(text: &str) -> u64 {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once(": ")?;
            matches!(key, "count" | "in-pack").then(|| value.parse::<u64>().unwrap())
        })
        .sum()
}

pub fn git() -> Git {
    Git::find().unwrap()
}
