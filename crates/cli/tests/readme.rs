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
