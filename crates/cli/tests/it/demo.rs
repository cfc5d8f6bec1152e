//! `resolve-pr demo`, the first command a newcomer runs: every tool of the registry runs (or
//! is said to be skipped, and why) on simulated forges and a sample checkout, without a
//! token, a config file or the network; what it prints is what the README shows.

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};

use serde_json::Value;

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"));

/// The demo with nothing of the developer's: no config, no token, no state directory; the
/// language servers found as the tests find them.
fn demo(args: &[&str], home: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_resolve-pr"));
    command
        .arg("demo")
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("RESOLVE_PR_CONFIG", "");
    for var in ["RESOLVE_PR_LSP_PATH", "RUSTUP_HOME", "CARGO_HOME"] {
        if let Some(v) = std::env::var_os(var) {
            command.env(var, v);
        }
    }
    command
}

fn python_server_required() -> bool {
    std::env::var("RESOLVE_PR_REQUIRE_LSP")
        .is_ok_and(|l| l.split(',').any(|x| x.trim() == "python"))
}

#[test]
fn the_demo_runs_every_tool_as_expected() {
    let home = tempfile::tempdir().expect("a scratch HOME");
    let out = demo(&["--json"], home.path())
        .output()
        .expect("resolve-pr runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The simulator found nothing outside the published APIs (where it checks).
    assert!(!stderr.contains("outside the published API"), "{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let steps: Vec<&Value> = lines.iter().filter(|l| l.get("tool").is_some()).collect();
    let skipped: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.get("skipped"))
        .flat_map(|s| s.as_array().unwrap().iter().map(|t| t.as_str().unwrap()))
        .collect();
    // Every tool of the registry ran, or (the code tools, without a Python server) was
    // skipped with the reason said.
    let registry: Vec<&str> = resolve_pr_tools::all().iter().map(|t| t.name).collect();
    for tool in &registry {
        let ran = steps.iter().any(|s| s["tool"] == *tool);
        assert!(
            ran || skipped.contains(tool),
            "{tool} neither ran nor was skipped"
        );
    }
    // With a Python server, only these are skipped: extract and inline (pylsp runs only in
    // trusted checkouts, and the demo's is not), transform (no Python server offers it).
    // move is shown where rope is installed, as it is wherever the Python server is
    // required here.
    if python_server_required() {
        assert!(
            skipped
                .iter()
                .all(|t| ["extract", "inline", "transform"].contains(t)),
            "skipped {skipped:?} though the Python server is required"
        );
    }
    let summary = lines.last().unwrap();
    assert_eq!(summary["tools"], registry.len(), "{summary}");
    assert_eq!(summary["not_run"], serde_json::json!([]), "{summary}");
    // Every step did what it shows: only the bad call fails.
    for s in &steps {
        let bad = s["step"].as_str().unwrap().starts_with("a bad call");
        assert_eq!(s["ok"], !bad, "{s}");
    }
    let step = |tool: &str| -> &Value {
        steps
            .iter()
            .find(|s| s["tool"] == tool && s["ok"] == true)
            .unwrap_or_else(|| panic!("{tool} did not run"))
    };
    // CI: the failing test, where it is and how to rerun it.
    let ci = &step("get_failing_tests")["result"];
    assert_eq!(ci["failures"][0]["test_name"], "tests::halves_odd");
    assert_eq!(
        ci["failures"][0]["reproduce_command"],
        "cargo test -p beta --lib -- --exact tests::halves_odd"
    );
    // The conflict, and the stack restacked in the demo's own clone.
    let conflict = &step("detect_merge_conflicts")["result"];
    assert_eq!(conflict["has_conflicts"], true, "{conflict}");
    let executed = steps
        .iter()
        .find(|s| s["tool"] == "manage_stacked_prs" && s["arguments"]["execute"] == true)
        .unwrap();
    assert_eq!(executed["ok"], true, "{executed}");
    assert_eq!(executed["result"]["squash_merge"], true, "{executed}");
    // The bad call is a user error that reached no forge.
    let bad = steps.iter().find(|s| s["ok"] == false).unwrap();
    assert_eq!(bad["error"]["category"], "user");
    assert_eq!(bad["http_requests"], 0);
}

/// What varies between two runs: the simulators' ports (not the fixed ones of `demo
/// --serve`), the temporary directory, commit ids made at run time; and, in the code stage,
/// the answers (servers' versions, what is installed) of which the steps and their commands
/// are kept.
fn normalized(text: &str, with_code: bool) -> String {
    let port = regex::Regex::new(r"127\.0\.0\.1:(\d+)").unwrap();
    let text = port.replace_all(text, |c: &regex::Captures<'_>| match &c[1] {
        p @ ("8701" | "8702" | "8703" | "8704") => format!("127.0.0.1:{p}"),
        _ => "127.0.0.1:PORT".to_owned(),
    });
    let tmp = regex::Regex::new(r"/[^\s'\x22]*/resolve-pr-demo\.[A-Za-z0-9]+").unwrap();
    let text = tmp.replace_all(&text, "<tmp>");
    let sha = regex::Regex::new(r"\b[0-9a-f]{7,40}\b").unwrap();
    let text = sha.replace_all(&text, "<sha>");
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("== ") {
            in_code = line.starts_with("== Code navigation");
        }
        if line.starts_with("Ran ") {
            in_code = false;
        }
        if in_code {
            let kept = line.starts_with("== ")
                || line.starts_with("The checkout is")
                || line.starts_with('▸')
                || line.starts_with("  $ ");
            if with_code && kept {
                out.push(line.to_owned());
            }
            continue;
        }
        if line.starts_with("Ran ") && !with_code {
            continue;
        }
        out.push(line.to_owned());
    }
    out.join("\n")
}

/// The README's block between the demo-output markers, without its code fence.
fn readme_demo() -> String {
    let start = README
        .find("<!-- demo-output:start -->")
        .expect("the README's demo block");
    let end = README
        .find("<!-- demo-output:end -->")
        .expect("the README's demo block end");
    let block = &README[start..end];
    let body = block
        .split_once("```text\n")
        .and_then(|(_, rest)| rest.rsplit_once("```"))
        .map(|(body, _)| body)
        .expect("a ```text fence in the demo block");
    body.trim_end().to_owned()
}

#[test]
fn the_readme_shows_what_the_demo_prints() {
    let home = tempfile::tempdir().expect("a scratch HOME");
    let out = demo(&[], home.path()).output().expect("resolve-pr runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Through a pipe the demo still prints text for people (JSON with --json), uncoloured.
    assert!(stdout.starts_with("resolve-pr demo:"), "{stdout}");
    assert!(!stdout.contains('\x1b'), "colour through a pipe");
    let with_code = !stdout.contains("no Python language server is installed");
    if !with_code {
        assert!(
            !python_server_required(),
            "the code stage was skipped: {stdout}"
        );
    }
    let printed = normalized(stdout.trim_end(), with_code);
    let shown = normalized(&readme_demo(), with_code);
    if printed != shown {
        let first = printed
            .lines()
            .zip(shown.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(printed.lines().count().min(shown.lines().count()));
        panic!(
            "README.md's demo block differs from what `resolve-pr demo` prints, first at \
             line {}:\n  printed: {:?}\n  README:  {:?}\nPaste the demo's output between the \
             demo-output markers.",
            first + 1,
            printed.lines().nth(first),
            shown.lines().nth(first)
        );
    }
}

/// `demo | head`: the reader stops early; the demo ends quietly, no panic, no backtrace.
#[test]
fn a_reader_that_stops_early_ends_the_demo_quietly() {
    let home = tempfile::tempdir().expect("a scratch HOME");
    let mut child = demo(&[], home.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("resolve-pr starts");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    for _ in 0..5 {
        lines.next().expect("a line").expect("text");
    }
    drop(lines);
    let out = child.wait_with_output().expect("resolve-pr ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
}
