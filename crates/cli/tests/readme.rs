//! The README's tool table and toolset names are the registry's: a tool added, renamed,
//! made read-only or moved to another toolset without its README row fails here.

use resolve_pr_tools::Toolset;

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"));

/// The rows of the table that starts with `| tool |`: (name, writes).
fn readme_tools() -> Vec<(String, bool)> {
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in README.lines() {
        if line.starts_with("| tool |") {
            in_table = true;
            continue;
        }
        if !in_table || line.starts_with("|---") {
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let name = cells[0].trim_matches('`').to_owned();
        let writes = match cells.last().copied() {
            Some("yes") => true,
            Some("no") => false,
            other => panic!("{name}: the writes column says {other:?}, not yes or no"),
        };
        rows.push((name, writes));
    }
    rows
}

#[test]
fn the_readme_lists_every_tool_of_the_registry() {
    let registry: Vec<(String, bool)> = resolve_pr_tools::all()
        .iter()
        .map(|t| (t.name.to_owned(), t.writes()))
        .collect();
    assert_eq!(
        readme_tools(),
        registry,
        "README.md's tool table must list the registry's tools, in its order"
    );
}

#[test]
fn the_readme_names_every_toolset() {
    let names: Vec<&str> = Toolset::ALL.iter().map(|t| t.as_str()).collect();
    let listed = format!("({})", names.join(", "));
    assert!(
        README
            .lines()
            .any(|l| l.contains("--toolsets") && l.contains(&listed)),
        "README.md's `serve --toolsets` line must name the toolsets {listed}"
    );
}

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The licence Cargo.toml declares is in the repository, once per licence.
#[test]
fn the_declared_licences_are_in_the_repository() {
    let manifest = std::fs::read_to_string(format!("{ROOT}/Cargo.toml")).unwrap();
    assert!(
        manifest.contains("license = \"MIT OR Apache-2.0\""),
        "the workspace's licence changed: change LICENSE-* and this test with it"
    );
    let mit = std::fs::read_to_string(format!("{ROOT}/LICENSE-MIT")).expect("LICENSE-MIT");
    assert!(mit.starts_with("MIT License") && mit.contains("WITHOUT WARRANTY"));
    let apache = std::fs::read_to_string(format!("{ROOT}/LICENSE-APACHE")).expect("LICENSE-APACHE");
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0"));
}

/// Every `cargo install` the README shows builds the tested versions (`--locked`); the
/// minimum Rust it names is the manifest's, and CI builds with exactly that toolchain.
#[test]
fn installs_are_locked_and_the_minimum_rust_is_the_manifests_and_checked() {
    for line in README.lines().filter(|l| l.contains("cargo install")) {
        assert!(line.contains("--locked"), "not --locked: {line}");
    }
    let manifest = std::fs::read_to_string(format!("{ROOT}/Cargo.toml")).unwrap();
    let msrv = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("rust-version in Cargo.toml");
    assert!(
        README.contains(&format!("Rust {msrv} or later")),
        "the README does not name Rust {msrv}"
    );
    let test_script = std::fs::read_to_string(format!("{ROOT}/scripts/test.sh")).unwrap();
    assert!(
        test_script.contains(&format!("MSRV={msrv}")),
        "scripts/test.sh does not build with Rust {msrv}"
    );
}

/// Configuration examples name the variable that holds a token, never a token: teams commit
/// these files.
#[test]
fn client_examples_take_tokens_from_the_environment() {
    // The demo's block shows the simulator's own tokens, which reach nothing.
    let start = README
        .find("<!-- demo-output:start -->")
        .unwrap_or(README.len());
    let end = README
        .find("<!-- demo-output:end -->")
        .unwrap_or(README.len());
    let outside = format!("{}{}", &README[..start], &README[end..]);
    for line in outside.lines() {
        let literal = ["\"ghp_", "=ghp_", "\"glpat", "\"gho_"]
            .iter()
            .any(|t| line.contains(t));
        assert!(!literal, "a literal token in an example: {line}");
    }
    for needed in [
        "\"${GITHUB_TOKEN}\"",
        "${env:GITHUB_TOKEN}",
        "env_vars = [",
        "RESOLVE_PR_LSP_PATH",
    ] {
        assert!(README.contains(needed), "the README lacks {needed}");
    }
}
