//! A reader that stops early (`resolve-pr tools --json | head`) ends the output quietly: no
//! panic, no backtrace on stderr.

use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["tools", "--json"])
        .env("RESOLVE_PR_CONFIG", "/dev/null")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("resolve-pr starts");
    // The listing is larger than a pipe's buffer, so the write meets the closed end.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("resolve-pr ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{:?} {stderr}", out.status);
}
