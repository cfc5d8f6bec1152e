//! `search_symbols`: symbols by name across the workspace (`workspace/symbol`), in every
//! language the workspace holds, exact names first; only the workspace's own files.

use std::path::PathBuf;

use resolve_pr_core::{Error, Result};
use resolve_pr_lsp::Language;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{SymbolInfo, Texts, check_cursor, display_path, languages, lsp_error, page, projects_for_name, server_holding, symbol_info, workspace};
use crate::registry::Tool;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout (workspace root). Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// A name or part of one; servers also match fuzzily.
    #[schemars(example = &"add_numbers")]
    pub query: String,
    /// Only symbols of this kind (function, method, class, struct, interface, ...).
    #[serde(default)]
    pub symbol_kind: Option<String>,
    /// rust, typescript, python, c or go. Default: each the workspace holds.
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    pub symbols: Vec<SymbolInfo>,
    pub total: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    pub servers: Vec<String>,
    /// Languages whose server could not answer, and why; projects not asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// Loose (fuzzy) matches left out, because names containing the query were found.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub loose_left_out: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How closely a symbol's name matches the query: 0 the same, 1 it starts with it, 2 it
/// contains it in any case, 3 a server's loose match.
fn rank(name: &str, query: &str) -> u8 {
    let name = name.split('(').next().unwrap_or(name);
    if name == query {
        0
    } else if name.starts_with(query) {
        1
    } else if name.to_lowercase().contains(&query.to_lowercase()) {
        2
    } else {
        3
    }
}

/// Leaves out the loose matches when closer ones were found; returns how many.
fn drop_loose<T>(found: &mut Vec<(u8, T)>) -> usize {
    if !found.iter().any(|(rank, _)| *rank < 3) {
        return 0;
    }
    let before = found.len();
    found.retain(|(rank, _)| *rank < 3);
    before - found.len()
}


pub struct SearchSymbols;

impl Tool for SearchSymbols {
    const NAME: &'static str = "search_symbols";
    const TITLE: &'static str = "Search symbols";
    const DESCRIPTION: &'static str = "Functions, types, methods and other symbols whose name \
matches a query, across the workspace's files in every language it holds, by the language \
servers; exact names first, 50 a page.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        let query = input.query.trim();
        if query.is_empty() {
            return Err(Error::user("query is empty")
                .with_code("INVALID_ARGUMENT")
                .with_detail("field", "query"));
        }
        check_cursor(ctx, Self::NAME, raw, input.cursor.as_deref())?;
        let ws = workspace(ctx, input.directory.as_deref())?;
        let kind = input.symbol_kind.as_deref().map(str::to_ascii_lowercase);
        // Symbols as the servers gave them: sorted and paged before any file is read for
        // the context lines of the page shown.
        let mut found: Vec<(u8, (Language, resolve_pr_lsp::Symbol))> = Vec::new();
        let (mut servers, mut skipped, mut partial) = (Vec::new(), Vec::new(), false);
        let mut not_asked = Vec::new();
        // Only the projects whose sources hold the query as text (any case) are asked: no
        // server is started, nor project loaded, for sources that cannot hold the name.
        let mut asked: Vec<(Language, PathBuf, Vec<PathBuf>)> = Vec::new();
        for language in languages(&ws, input.language.as_deref())? {
            let scope = projects_for_name(ctx, language, &ws, query, true).await;
            asked.extend(scope.projects.into_iter().map(|(r, f)| (language, r, f)));
            not_asked.extend(scope.note);
        }
        for (language, root, files) in asked {
            let answer = match server_holding(ctx, language, &root, &files).await {
                Ok(server) => {
                    let name = server.installed.spec.name.to_owned();
                    if !servers.contains(&name) {
                        servers.push(name);
                    }
                    server.workspace_symbols(query).await
                }
                Err(e) => Err(e),
            };
            let answer = match answer {
                Ok(a) => a,
                Err(e) => {
                    let e = lsp_error(e);
                    let said = format!("{language}: {}", e.error);
                    if !skipped.contains(&said) {
                        skipped.push(said);
                    }
                    continue;
                }
            };
            partial |= answer.indexing.is_some();
            for s in answer.value {
                if !s.location.path.starts_with(&ws) || kind.as_deref().is_some_and(|k| k != s.kind) {
                    continue;
                }
                found.push((rank(&s.name, query), (language, s)));
            }
        }
        if servers.is_empty()
            && let Some(first) = skipped.first()
        {
            return Err(Error::logical(format!("no language server could answer: {first}"))
                .with_code("SERVER_NOT_INSTALLED")
                .with_suggestion("health_check lists the servers and how to install each."));
        }
        skipped.extend(not_asked);
        // Servers match loosely (`cut` finds `cpu_time`); once names that contain the query
        // are found, the rest is noise that costs tokens and pages.
        let loose_left_out = drop_loose(&mut found);
        let mut keyed: Vec<(u8, String, (Language, resolve_pr_lsp::Symbol))> = found
            .into_iter()
            .map(|(rank, found)| (rank, display_path(&ws, &found.1.location.path), found))
            .collect();
        keyed.sort_by(|a, b| {
            (a.0, &a.1, a.2.1.location.range.start).cmp(&(b.0, &b.1, b.2.1.location.range.start))
        });
        // The same symbol from two projects' servers (a file both hold).
        keyed.dedup_by(|a, b| {
            let ((la, sa), (lb, sb)) = (&a.2, &b.2);
            la == lb
                && sa.name == sb.name
                && sa.kind == sb.kind
                && sa.container == sb.container
                && sa.location == sb.location
        });
        let total = keyed.len();
        let (shown, next_cursor) = page(ctx, Self::NAME, raw, input.cursor.as_deref(), keyed)?;
        let mut texts = Texts::default();
        let symbols: Vec<SymbolInfo> = shown
            .iter()
            .map(|(_, _, (language, s))| symbol_info(&mut texts, &ws, *language, s))
            .collect();
        Ok(Output {
            symbols,
            total,
            next_cursor,
            partial,
            servers,
            skipped,
            loose_left_out,
        })
    }

    fn render(out: &Output) -> String {
        let mut text = format!("{} symbols (positions count from 0)", out.total);
        if out.partial {
            text.push_str("; a server is still indexing, so this may be incomplete");
        }
        if out.loose_left_out > 0 {
            text.push_str(&format!("; {} loose matches left out", out.loose_left_out));
        }
        for s in &out.symbols {
            text.push_str(&format!(
                "\n{} {} {} {}:{}",
                s.symbol_kind, s.name, s.location.file_path, s.location.range.start.line, s.location.range.start.character
            ));
            if let Some(c) = &s.container {
                text.push_str(&format!(" in {c}"));
            }
        }
        for s in &out.skipped {
            text.push_str(&format!("\nskipped {s}"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::{drop_loose, rank};

    #[test]
    fn loose_matches_go_only_when_closer_ones_were_found() {
        let names = ["cut", "cut_tail", "budget_cut", "Cut", "cpu_time", "area(self)"];
        let ranks: Vec<u8> = names.iter().map(|n| rank(n, "cut")).collect();
        assert_eq!(ranks, [0, 1, 2, 2, 3, 3]);
        assert_eq!(rank("area(self)", "area"), 0);
        let mut found: Vec<(u8, &str)> = ranks.into_iter().zip(names).collect();
        assert_eq!(drop_loose(&mut found), 2);
        assert_eq!(found.len(), 4);
        // Only loose matches: all of them stay.
        let mut loose = vec![(3, "cpu_time"), (3, "CALL_TIMEOUT")];
        assert_eq!(drop_loose(&mut loose), 0);
        assert_eq!(loose.len(), 2);
    }
}
