//! The `forge-sim` binary: prints exactly its listening line, serves, and stops when its
//! stdin closes.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[tokio::test]
async fn prints_its_address_serves_and_stops_when_stdin_closes() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_forge-sim"))
        .args(["--scenario", "builtin:demo-forgejo"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim_end()
        .strip_prefix("listening ")
        .expect(&line)
        .to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{line}");

    let version: serde_json::Value = common::client()
        .get(format!("{base}/api/v1/version"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(version["version"], "11.0.1+gitea-1.22.0");
    let log: serde_json::Value = common::client()
        .get(format!("{base}/_sim/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(log[0]["path"], "/api/v1/version");

    drop(child.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "forge-sim did not stop after stdin closed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[test]
fn rejects_an_unknown_builtin_scenario() {
    let out = Command::new(env!("CARGO_BIN_EXE_forge-sim"))
        .args(["--scenario", "builtin:nope"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("demo-github"));
    assert!(out.stdout.is_empty());
}
