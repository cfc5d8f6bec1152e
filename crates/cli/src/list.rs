//! `resolve-pr tools`: the enabled tools, as a table for people or as the exact `tools` array
//! of MCP `tools/list` for programs.

#![allow(clippy::print_stdout, reason = "prints the tool list it is asked for")]

use anyhow::Context as _;
use resolve_pr_mcp::{Options, Selection, tools_list_json};
use std::process::ExitCode;

use crate::style::Style;

pub fn run(options: &Options, style: Style) -> anyhow::Result<ExitCode> {
    let selection = Selection::new(options).context("cannot select the tools")?;
    if style.json {
        let json = tools_list_json(&selection);
        quietly(format!("{}\n", serde_json::to_string_pretty(&json)?));
    } else {
        quietly(table(&selection, style));
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes to stdout; a reader that went away (`| head`) ends the output quietly instead of
/// panicking as `print!` does on a broken pipe.
fn quietly(text: String) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Every tool the server would offer: those on from the start, and those an agent turns on
/// when it needs them (`on demand`).
fn table(selection: &Selection, style: Style) -> String {
    let rows: Vec<[String; 5]> = selection
        .offered()
        .iter()
        .map(|t| {
            let access = if t.writes() { "writes" } else { "read-only" };
            let on = if selection.is_on(t.toolset) {
                "on"
            } else {
                "on-demand"
            };
            [
                t.name.to_owned(),
                t.toolset.as_str().to_owned(),
                access.to_owned(),
                on.to_owned(),
                t.title.to_owned(),
            ]
        })
        .collect();
    let header = ["TOOL", "TOOLSET", "ACCESS", "LISTED", "TITLE"];
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([header[i].len()])
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2), width(3)];
    // Pad before painting: escape codes have no width on screen.
    let line = |cells: [&str; 5], paint: &dyn Fn(usize, &str) -> String| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i < 4 {
                out.push_str(&paint(i, &format!("{cell:<w$}  ", w = widths[i])));
            } else {
                out.push_str(&paint(i, cell));
            }
        }
        out.trim_end().to_owned() + "\n"
    };
    let mut out = line(header, &|_, s| style.bold(s));
    for r in &rows {
        let cells = [
            r[0].as_str(),
            r[1].as_str(),
            r[2].as_str(),
            r[3].as_str(),
            r[4].as_str(),
        ];
        out.push_str(&line(cells, &|i, s| match i {
            0 => style.cyan(s),
            2 if r[2] == "writes" => style.red(s),
            3 if r[3] != "on" => style.dim(s),
            _ => s.to_owned(),
        }));
    }
    if rows.is_empty() {
        out.push_str("(no tools enabled with these options)\n");
    }
    if selection.on_demand() {
        out.push_str(&style.dim(
            "on-demand: listed once an agent turns its toolset on (enable_toolsets, or by calling \
             the tool); --toolsets all lists every tool from the start. Seed 002's internal \
             plumbing only with --toolsets internal.",
        ));
        out.push('\n');
    }
    out.push_str(&style.dim("Schemas and descriptions: resolve-pr tools --json"));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_lists_every_tool_with_its_access() {
        let s = Selection::new(&Options::default()).unwrap();
        let t = table(&s, Style::plain());
        let lines: Vec<&str> = t.lines().collect();
        let header: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(header, ["TOOL", "TOOLSET", "ACCESS", "LISTED", "TITLE"]);
        // Every tool but the hidden internal toolset's, which only `--toolsets internal` offers.
        let tools: Vec<_> = resolve_pr_tools::all()
            .into_iter()
            .filter(|t| !t.toolset.hidden())
            .collect();
        // Header, one row per tool, what on-demand means, then a pointer to the JSON form.
        assert_eq!(lines.len(), tools.len() + 3, "{t}");
        assert!(
            lines[lines.len() - 1].contains("resolve-pr tools --json"),
            "{t}"
        );
        for (line, tool) in lines[1..=tools.len()].iter().zip(&tools) {
            let access = if tool.writes() { "writes" } else { "read-only" };
            let listed = if tool.toolset.on_by_default() {
                "on"
            } else {
                "on-demand"
            };
            let cells: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(
                &cells[..4],
                [tool.name, tool.toolset.as_str(), access, listed],
                "{line}"
            );
            assert!(line.ends_with(tool.title), "{line}");
        }
        // Columns line up: every row's toolset starts where the header's does.
        let col = lines[0].find("TOOLSET").unwrap();
        for line in &lines[1..=tools.len()] {
            assert!(line[..col].ends_with(' '), "{line}");
            assert!(!line[col..].starts_with(' '), "{line}");
        }
    }
}
