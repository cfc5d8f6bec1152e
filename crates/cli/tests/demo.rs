//! `resolve-pr demo`, the first command a newcomer runs: every step does what it shows, on
//! both simulated forges, without a token, a config file or the network.

use std::process::Command;

use serde_json::Value;

#[test]
fn the_demo_runs_every_step_as_expected() {
    let home = tempfile::tempdir().expect("a scratch HOME");
    let out = Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(["demo", "--json"])
        // Nothing of the developer's: no config, no token, no state directory.
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("RESOLVE_PR_CONFIG", home.path().join("none.toml"))
        .output()
        .expect("resolve-pr runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The simulator found nothing outside the published APIs (where it checks).
    assert!(!stderr.contains("outside the published API"), "{stderr}");

    let steps: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let seen: Vec<(&str, &str, bool)> = steps
        .iter()
        .map(|s| {
            (
                s["forge"].as_str().unwrap(),
                s["tool"].as_str().unwrap(),
                s["ok"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("github", "pr_comment_list", true),
            ("github", "pr_comment_create", true),
            ("github", "pr_comment_list", true),
            ("forgejo", "pr_comment_list", true),
            ("forgejo", "pr_comment_create", true),
            ("forgejo", "pr_comment_list", true),
            ("github", "get_failing_tests", true),
            ("github", "pr_comment_create", false),
        ]
    );

    // The posted comment is on the last page listed afterwards.
    for forge in ["github", "forgejo"] {
        let of = |tool: &str| -> Vec<&Value> {
            steps
                .iter()
                .filter(|s| s["forge"] == forge && s["tool"] == tool && s["ok"] == true)
                .collect()
        };
        let posted = &of("pr_comment_create")[0]["result"]["comment"];
        let last = of("pr_comment_list").last().unwrap()["result"]["comments"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(&last, posted, "{forge}");
    }

    // CI: the failing test, where it is and how to rerun it; the check is not required.
    let ci = &steps[6]["result"];
    assert_eq!(ci["failures"][0]["test_name"], "tests::halves_odd");
    assert_eq!(ci["failures"][0]["file_path"], "beta/src/lib.rs");
    assert_eq!(
        ci["failures"][0]["reproduce_command"],
        "cargo test -p beta --lib -- --exact tests::halves_odd"
    );
    assert_eq!(ci["failed_checks"][0]["required"], false);

    // The bad call is a user error that reached no forge.
    let bad = &steps[7];
    assert_eq!(bad["error"]["category"], "user");
    assert_eq!(bad["http_requests"], 0);
}
