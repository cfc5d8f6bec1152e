//! The server's `instructions`: what the enabled tools are for, read from the registry so the
//! text cannot fall behind the tools, plus the conventions every tool shares (naming pull
//! requests and repositories, cursors, errors), which no single tool's description owns, and
//! what each enabled toolset's tools share (`Toolset::conventions`). Where toolsets are turned
//! on on demand, one line on each toolset that is off.

use resolve_pr_tools::Toolset;

use crate::Selection;

const PURPOSE: &str = "resolve-pr helps you take a pull request on GitHub, GitHub Enterprise, \
Forgejo or Gitea from red to merged.";

const CONVENTIONS: &str = "Name a pull request as 'owner/repo#123', 'owner/repo/pull/123', \
'host/owner/repo#123' (another forge) or by its URL, and a repository as 'owner/repo' (the \
default forge), 'host/owner/repo' or its URL. Lists come a page \
at a time: pass a result's nextCursor back as cursor for the next page. A failed call returns \
isError with a JSON error: category says what kind (user: fix the arguments; authentication: \
the token; rate_limit: wait retry_after seconds; logical: the forge or the situation does not \
allow it; network, api, timeout, unknown), suggestion what to do next, details the facts.";

/// The instructions for a server offering `selection`: its tools by toolset, each with its
/// title, then the shared conventions.
pub fn instructions(selection: &Selection) -> String {
    let mut toolsets: Vec<Toolset> = selection.tools().iter().map(|t| t.toolset).collect();
    toolsets.sort_unstable();
    toolsets.dedup();
    let mut text = String::from(PURPOSE);
    if toolsets.is_empty() {
        text.push_str(" No tools are enabled.");
    } else {
        text.push_str(" Tools by toolset:");
        for &set in &toolsets {
            let tools: Vec<String> = selection
                .tools()
                .iter()
                .filter(|t| t.toolset == set)
                .map(|t| format!("{} ({})", t.name, t.title))
                .collect();
            text.push_str(&format!("\n- {set}: {}", tools.join("; ")));
        }
    }
    if selection.read_only() {
        text.push_str("\nRead-only mode: tools that change the forge are not offered.");
        let planners: Vec<&str> = selection
            .tools()
            .iter()
            .filter(|t| t.writes_only_when_asked)
            .map(|t| t.name)
            .collect();
        if !planners.is_empty() {
            text.push_str(&format!(
                " {} only plan{} here: asking them to write is refused.",
                planners.join(", "),
                if planners.len() == 1 { "s" } else { "" }
            ));
        }
    }
    if selection.on_demand() {
        let off: Vec<String> = selection
            .toolsets()
            .into_iter()
            .filter(|(_, on, _)| !on)
            .map(|(set, _, _)| format!("\n- {set}: {}", set.summary()))
            .collect();
        if !off.is_empty() {
            text.push_str(
                "\nOff until you need them (enable_toolsets turns them on; list_toolsets names \
                 their tools):",
            );
            text.push_str(&off.concat());
        }
    }
    text.push('\n');
    text.push_str(CONVENTIONS);
    // Toolsets that share conventions (the refactoring, workspace and internal tools all
    // plan over the edit layer) have them said once.
    let mut said: Vec<&str> = Vec::new();
    for set in toolsets {
        if let Some(conventions) = set.conventions()
            && !said.contains(&conventions)
        {
            said.push(conventions);
            text.push('\n');
            text.push_str(conventions);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    #[test]
    fn conventions_shared_by_toolsets_are_said_once() {
        let selection = Selection::new(&Options {
            read_only: false,
            toolsets: Some(vec!["refactor".into(), "workspace".into()]),
        })
        .unwrap();
        let text = instructions(&selection);
        let shared = Toolset::Refactor.conventions().unwrap();
        assert_eq!(Toolset::Workspace.conventions(), Some(shared));
        assert_eq!(text.matches(shared).count(), 1, "{text}");
    }
}
