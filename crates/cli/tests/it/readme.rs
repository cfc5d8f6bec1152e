//! The README's tool table and toolset names are the registry's: a tool added, renamed,
//! made read-only or moved to another toolset without its README row fails here. So does a
//! variable the code reads without its line in `resolve-pr --help`, a help line clap would
//! wrap, and a shell without completions.

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

/// Variables the code reads that a user has no business setting.
const INTERNAL_VARIABLES: &[&str] = &[
    // Set by resolve-pr on the language servers it starts, to find their descendants.
    "RESOLVE_PR_CONTAINER",
    // A prefix: the daemon's own variables, left out of the key that names a daemon.
    "RESOLVE_PR_DAEMON",
];

/// Every environment variable the product's sources name (outside unit tests): string
/// literals with the prefixes of the project's and the forges' variables, and NO_COLOR.
fn variables_the_code_reads() -> std::collections::BTreeSet<String> {
    fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a source directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates).expect("crates/") {
        let dir = entry.expect("a crate").path();
        // The simulator and the test kit stand in for forges and tools; they read nothing
        // of the user's.
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name == "forge-sim" || name == "testkit" || !dir.join("src").is_dir() {
            continue;
        }
        walk(&dir.join("src"), &mut files);
    }
    let prefixes = [
        "RESOLVE_PR_",
        "GITHUB_",
        "GH_",
        "FORGEJO_",
        "GITEA_",
        "NO_COLOR",
    ];
    let mut found = std::collections::BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for literal in code.split('"').skip(1).step_by(2) {
            let name_like = !literal.is_empty()
                && literal
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            // A literal ending in `_` is a prefix the code matches names with, not a name.
            if name_like
                && !literal.ends_with('_')
                && prefixes.iter().any(|p| literal.starts_with(p))
            {
                found.insert(literal.to_owned());
            }
        }
    }
    found
}

fn help(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_resolve-pr"))
        .args(args)
        .env("COLUMNS", "80")
        .output()
        .expect("resolve-pr runs");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

#[test]
fn the_help_lists_every_environment_variable_the_code_reads() {
    let variables = variables_the_code_reads();
    // The search itself works: variables of four crates.
    for known in [
        "RESOLVE_PR_CONFIG",
        "RESOLVE_PR_LSP_PATH",
        "RESOLVE_PR_GIT",
        "GH_TOKEN",
    ] {
        assert!(
            variables.contains(known),
            "{known} not found in {variables:?}"
        );
    }
    let text = help(&["--help"]);
    let environment = text
        .split("\nEnvironment:\n")
        .nth(1)
        .expect("an Environment section");
    let listed: Vec<&str> = environment
        .split(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .collect();
    let missing: Vec<&String> = variables
        .iter()
        .filter(|v| !INTERNAL_VARIABLES.contains(&v.as_str()) && !listed.contains(&v.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "resolve-pr --help's Environment section must list {missing:?}"
    );
}

#[test]
fn help_examples_and_environment_are_indented_and_not_rewrapped() {
    for args in [
        &["--help"][..],
        &["serve", "--help"],
        &["tools", "--help"],
        &["tool", "--help"],
        &["ci", "parse", "--help"],
        &["completions", "--help"],
    ] {
        let text = help(args);
        let mut in_section = false;
        for line in text.lines() {
            if line == "Examples:" || line == "Environment:" {
                in_section = true;
            } else if line.is_empty() {
                in_section = false;
            } else if in_section {
                // A line clap had to wrap continues at column 0.
                assert!(
                    line.starts_with("  "),
                    "{args:?}: {line:?} is not indented\n{text}"
                );
            }
        }
        assert!(text.contains("Examples:"), "{args:?}");
    }
}

#[test]
fn completions_are_printed_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = help(&["completions", shell]);
        for word in ["resolve-pr", "serve", "completions", "read-only"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
}
