//! Real `git diff` output for the review tests.
// Each test crate uses part of these helpers.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// The patch git writes for `path` changing from `before` to `after`, from its first `@@`
/// (as forges give a file's patch). Made with `git diff --no-index` in a temporary
/// directory, each argument its own vector element.
pub fn git_patch(path: &str, before: &str, after: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let name = Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .expect("file name");
    for (side, text) in [("a", before), ("b", after)] {
        std::fs::create_dir_all(dir.path().join(side)).expect("mkdir");
        std::fs::write(dir.path().join(side).join(name), text).expect("write");
    }
    let output = Command::new("git")
        .current_dir(dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args([
            "diff",
            "--no-index",
            "--no-color",
            "--no-ext-diff",
            "-U3",
            "--",
        ])
        .arg(format!("a/{name}"))
        .arg(format!("b/{name}"))
        .output()
        .expect("git runs");
    // 1: the files differ.
    assert!(
        output.status.code() == Some(1) || output.status.success(),
        "git diff failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let diff = String::from_utf8(output.stdout).expect("utf-8 diff");
    match diff.find("\n@@") {
        Some(i) => diff[i + 1..].to_owned(),
        None => String::new(),
    }
}

/// The 1-based line of the first line of `text` containing `needle`.
pub fn line_of(text: &str, needle: &str) -> u32 {
    let index = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    u32::try_from(index + 1).expect("small")
}
