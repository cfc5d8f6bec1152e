//! `search_symbols`: symbols by name across the workspace (`workspace/symbol`), in every
//! language the workspace holds, only the workspace's own files: exact names listed, closer
//! matches first, the looser ones counted unless asked for; or one file's outline
//! (`textDocument/documentSymbol`), nested.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_lsp::Language;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::checkout::workspace;
use crate::code::{
    SymbolInfo, Texts, check_cursor, display_path, file_in, guessed_flags_in, languages, lsp_error,
    page, position, project_roots, projects_for_name, server_for_file, server_holding, symbol_info,
};
use crate::registry::Tool;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout (workspace root). Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// A name, maybe qualified ("Circle::area").
    #[serde(default)]
    #[schemars(example = &"add_numbers")]
    pub query: Option<String>,
    /// Outline this file instead (query optional).
    #[serde(default)]
    pub file_path: Option<String>,
    /// Only symbols of this kind (function, method, class, struct, interface, ...).
    #[serde(default)]
    pub symbol_kind: Option<String>,
    /// rust, typescript, python, c or go. Default: each the workspace holds.
    #[serde(default)]
    pub language: Option<String>,
    /// Names to list. Default: exact.
    #[serde(default, rename = "match")]
    pub matching: Option<Match>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// How closely a name matches the query, closest first; a `match` lists its own and the
/// closer ones. `any` is the servers' fuzzy matching (`cut` finds `cpu_time`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Match {
    #[default]
    Exact,
    Prefix,
    Substring,
    Any,
}

impl Match {
    fn as_str(self) -> &'static str {
        match self {
            Match::Exact => "exact",
            Match::Prefix => "prefix",
            Match::Substring => "substring",
            Match::Any => "any",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Match::Exact => "named so",
            Match::Prefix => "starting with it",
            Match::Substring => "containing it",
            Match::Any => "loose",
        }
    }
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
    /// Each starts with its code (NO_COMPILE_DATABASE).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Looser matches, counted by the match that lists them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub not_listed: BTreeMap<String, usize>,
    /// For the text: the outline's file, and each listed symbol's depth in it.
    #[serde(skip)]
    #[schemars(skip)]
    pub outline: Option<(String, Vec<usize>)>,
    /// For the text: the match listed, when nothing matched as closely as asked.
    #[serde(skip)]
    #[schemars(skip)]
    pub widened: Option<Match>,
}

/// A query split into the name and what qualifies it (`Circle::area`, `Circle.area`).
struct Query<'a> {
    name: &'a str,
    qualifier: Option<&'a str>,
}

impl<'a> Query<'a> {
    fn parse(query: &'a str) -> Query<'a> {
        let parts: Vec<&str> = query
            .split("::")
            .flat_map(|p| p.split('.'))
            .filter(|p| !p.is_empty())
            .collect();
        match parts.as_slice() {
            [.., qualifier, name] => Query {
                name,
                qualifier: Some(qualifier),
            },
            [name] => Query {
                name,
                qualifier: None,
            },
            [] => Query {
                name: query,
                qualifier: None,
            },
        }
    }
}

/// A symbol's bare name and the owner its name gives: servers add a signature
/// (`area(self)`) or a receiver (`Circle.Area`, `(*Circle).Area`).
fn bare(name: &str) -> (&str, Option<&str>) {
    let name = match name.rsplit_once(')') {
        Some((head, tail)) if head.starts_with('(') && !tail.is_empty() => {
            return (
                tail.trim_start_matches(['.', ' ']),
                Some(head.trim_matches(['(', ')', '*'])),
            );
        }
        _ => name.split('(').next().unwrap_or(name),
    };
    match name.rsplit_once("::").or_else(|| name.rsplit_once('.')) {
        Some((owner, last)) if !last.is_empty() => (last, Some(owner)),
        _ => (name, None),
    }
}

/// How closely a symbol (its name, container and file, relative) matches the query; `None`
/// when the query's qualifier names neither its container, its owner nor its file's path.
fn closeness(name: &str, container: Option<&str>, file: &str, query: &Query<'_>) -> Option<Match> {
    let (name, owner) = bare(name);
    if let Some(q) = query.qualifier {
        let words = |t: &str| {
            t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .any(|w| w == q)
        };
        let file = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
        if !(container.is_some_and(words)
            || owner.is_some_and(words)
            || file.split('/').any(|c| c == q))
        {
            return None;
        }
    }
    let (lower, wanted) = (name.to_lowercase(), query.name.to_lowercase());
    Some(if name == query.name {
        Match::Exact
    } else if lower.starts_with(&wanted) {
        Match::Prefix
    } else if lower.contains(&wanted) {
        Match::Substring
    } else {
        Match::Any
    })
}

/// Symbols named `name` that their server gave without a container (typescript-language-
/// server does not name a method's class) get the declaration around them, by tree-sitter,
/// so that a qualified query (`Registry.size`) can choose by it. Each file parsed once, off
/// the async runtime.
async fn with_containers(
    symbols: Vec<resolve_pr_lsp::Symbol>,
    name: &str,
) -> Vec<resolve_pr_lsp::Symbol> {
    let name = name.to_owned();
    let fallback = symbols.clone();
    tokio::task::spawn_blocking(move || {
        let mut symbols = symbols;
        let mut by_file: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
        for (i, s) in symbols.iter().enumerate() {
            if s.container.is_none() && bare(&s.name).0.eq_ignore_ascii_case(&name) {
                by_file.entry(s.location.path.clone()).or_default().push(i);
            }
        }
        for (path, indices) in by_file {
            let Some(language) = resolve_pr_syntax::dialect_of(&path.to_string_lossy()) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let positions: Vec<(u32, u32)> = indices
                .iter()
                .map(|&i| {
                    let at = symbols[i].location.range.start;
                    (at.line, at.character)
                })
                .collect();
            let Ok(found) = resolve_pr_syntax::enclosing_declarations(language, &text, &positions)
            else {
                continue;
            };
            for (&i, around) in indices.iter().zip(found) {
                symbols[i].container = around.map(|e| e.name);
            }
        }
        symbols
    })
    .await
    .unwrap_or(fallback)
}

/// Keeps the matches `wanted` lists (or, when there are none, the closest there are) and
/// counts the others by the match that would list them. The match listed, and the counts.
fn select<T>(found: &mut Vec<(Match, T)>, wanted: Match) -> (Match, BTreeMap<String, usize>) {
    let closest = found.iter().map(|(m, _)| *m).min().unwrap_or(wanted);
    let listed = wanted.max(closest);
    let mut not_listed = BTreeMap::new();
    found.retain(|(m, _)| {
        if *m > listed {
            *not_listed.entry(m.as_str().to_owned()).or_insert(0) += 1;
        }
        *m <= listed
    });
    (listed, not_listed)
}

/// The depth of each symbol of an outline (in order of position) in the nesting of their
/// whole declarations.
fn depths(symbols: &[resolve_pr_lsp::Symbol]) -> Vec<usize> {
    let mut open: Vec<resolve_pr_lsp::Span> = Vec::new();
    symbols
        .iter()
        .map(|s| {
            let span = s.full_range.unwrap_or(s.location.range);
            while open
                .last()
                .is_some_and(|o| !(o.start <= span.start && span.end <= o.end))
            {
                open.pop();
            }
            let depth = open.len();
            open.push(span);
            depth
        })
        .collect()
}

/// One file's symbols, nested, each from its name to the end of its declaration.
async fn outline(
    ctx: &Context,
    raw: &Value,
    ws: &Path,
    file_path: &str,
    query: Option<&str>,
    kind: Option<&str>,
    input: &Input,
) -> Result<Output> {
    let path = file_in(ws, file_path, "file_path")?;
    let server = server_for_file(ctx, ws, &path, "file_path").await?;
    let symbols = server.document_symbols(&path).await.map_err(lsp_error)?;
    let file = display_path(ws, &path);
    let query = query.map(Query::parse);
    let mut found: Vec<(Match, (usize, resolve_pr_lsp::Symbol))> = depths(&symbols)
        .into_iter()
        .zip(symbols)
        .filter(|(_, s)| kind.is_none_or(|k| k == s.kind))
        .filter_map(|(depth, s)| {
            let m = match &query {
                Some(q) => closeness(&s.name, s.container.as_deref(), &file, q)?,
                None => Match::Exact,
            };
            Some((m, (depth, s)))
        })
        .collect();
    let (listed, not_listed) = select(&mut found, input.matching.unwrap_or_default());
    let total = found.len();
    let (shown, next_cursor) = page(
        ctx,
        SearchSymbols::NAME,
        raw,
        input.cursor.as_deref(),
        found,
    )?;
    let mut texts = Texts::default();
    let mut levels = Vec::new();
    let symbols = shown
        .into_iter()
        .map(|(_, (depth, s))| {
            levels.push(depth);
            let mut info = symbol_info(&mut texts, ws, server.language, &s);
            if let Some(full) = s.full_range {
                info.location.range.end = position(full.end);
            }
            info
        })
        .collect();
    Ok(Output {
        symbols,
        total,
        next_cursor,
        partial: false,
        servers: vec![server.installed.spec.name.to_owned()],
        skipped: Vec::new(),
        warnings: Vec::new(),
        widened: (query.is_some() && listed > input.matching.unwrap_or_default()).then_some(listed),
        not_listed,
        outline: Some((file, levels)),
    })
}

pub struct SearchSymbols;

impl Tool for SearchSymbols {
    const NAME: &'static str = "search_symbols";
    const TITLE: &'static str = "Search symbols";
    const DESCRIPTION: &'static str = "Symbols by name across the workspace, every language it \
holds, by the language servers, 50 a page; with file_path, a file's outline.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        let query = input
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty());
        check_cursor(ctx, Self::NAME, raw, input.cursor.as_deref())?;
        let ws = workspace(ctx, input.directory.as_deref())?;
        let kind = input.symbol_kind.as_deref().map(str::to_ascii_lowercase);
        if let Some(file) = input.file_path.as_deref() {
            return outline(ctx, raw, &ws, file, query, kind.as_deref(), &input).await;
        }
        let Some(query) = query else {
            return Err(Error::user("query is empty and no file_path is given")
                .with_code(ErrorCode::InvalidArgument)
                .with_detail("field", "query")
                .with_suggestion(
                    "Give query (a name) to search, or file_path for a file's outline.",
                ));
        };
        let parsed = Query::parse(query);
        // Symbols as the servers gave them: sorted and paged before any file is read for
        // the context lines of the page shown.
        let mut found: Vec<(Match, (String, Language, resolve_pr_lsp::Symbol))> = Vec::new();
        let (mut servers, mut skipped, mut partial) = (Vec::new(), Vec::new(), false);
        let mut warnings: Vec<String> = Vec::new();
        let mut not_asked = Vec::new();
        // Only the projects whose sources hold the query as text (any case) are asked: no
        // server is started, nor project loaded, for sources that cannot hold the name.
        let mut asked: Vec<(Language, PathBuf, Vec<PathBuf>)> = Vec::new();
        for language in languages(&ws, input.language.as_deref()).await? {
            // A qualified name's sources hold its last part; a loose (fuzzy) match need not
            // be in any text, so `match: "any"` asks every project as before.
            if input.matching == Some(Match::Any) {
                let ws = ws.clone();
                let (roots, left_out) =
                    tokio::task::spawn_blocking(move || project_roots(language, &ws))
                        .await
                        .unwrap_or_default();
                asked.extend(roots.into_iter().map(|r| (language, r, Vec::new())));
                not_asked.extend(left_out);
                continue;
            }
            let scope = projects_for_name(ctx, language, &ws, parsed.name, true).await;
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
                    // A qualified name is asked by its last part; the qualifier then chooses.
                    server.workspace_symbols(parsed.name).await
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
            if let Some(guessed) = guessed_flags_in(language, &root) {
                partial = true;
                if !warnings.contains(&guessed) {
                    warnings.push(guessed);
                }
            }
            let mut value = answer.value;
            if parsed.qualifier.is_some() {
                value = with_containers(value, parsed.name).await;
            }
            for s in value {
                if !s.location.path.starts_with(&ws) || kind.as_deref().is_some_and(|k| k != s.kind)
                {
                    continue;
                }
                let file = display_path(&ws, &s.location.path);
                if let Some(m) = closeness(&s.name, s.container.as_deref(), &file, &parsed) {
                    found.push((m, (file, language, s)));
                }
            }
        }
        if servers.is_empty()
            && let Some(first) = skipped.first()
        {
            return Err(
                Error::logical(format!("no language server could answer: {first}"))
                    .with_code(ErrorCode::ServerNotInstalled)
                    .with_suggestion("health_check lists the servers and how to install each."),
            );
        }
        skipped.extend(not_asked);
        // Every substring and fuzzy match listed costs tokens and pages for names nobody
        // asked about: only those `match` asks for are listed, the others counted.
        let wanted = input.matching.unwrap_or_default();
        let (listed, not_listed) = select(&mut found, wanted);
        found.sort_by(|a, b| {
            (a.0, &a.1.0, a.1.2.location.range.start).cmp(&(
                b.0,
                &b.1.0,
                b.1.2.location.range.start,
            ))
        });
        // The same symbol from two projects' servers (a file both hold).
        found.dedup_by(|a, b| {
            let ((_, la, sa), (_, lb, sb)) = (&a.1, &b.1);
            la == lb
                && sa.name == sb.name
                && sa.kind == sb.kind
                && sa.container == sb.container
                && sa.location == sb.location
        });
        let total = found.len();
        let (shown, next_cursor) = page(ctx, Self::NAME, raw, input.cursor.as_deref(), found)?;
        let mut texts = Texts::default();
        let symbols: Vec<SymbolInfo> = shown
            .iter()
            .map(|(_, (_, language, s))| symbol_info(&mut texts, &ws, *language, s))
            .collect();
        Ok(Output {
            symbols,
            total,
            next_cursor,
            partial,
            servers,
            skipped,
            warnings,
            not_listed,
            outline: None,
            widened: (listed > wanted).then_some(listed),
        })
    }

    fn shown(out: &Output) -> Option<(usize, Option<usize>)> {
        Some((out.symbols.len(), Some(out.total)))
    }

    fn render(out: &Output) -> String {
        let mut text = match &out.outline {
            Some((file, _)) => format!(
                "Outline of {file}: {} symbols (name line:column-last line, from 1; a position argument counts from 0)",
                out.total
            ),
            None => format!("{} symbols {}", out.total, crate::code::ONE_BASED),
        };
        if out.partial {
            text.push_str("; a server is still indexing, so this may be incomplete");
        }
        if let Some(m) = out.widened {
            text.push_str(&format!(
                "; none named exactly so, these are those {}",
                m.what()
            ));
        }
        if !out.not_listed.is_empty() {
            let counts: Vec<String> = [Match::Prefix, Match::Substring, Match::Any]
                .into_iter()
                .filter_map(|m| {
                    let n = out.not_listed.get(m.as_str())?;
                    Some(format!("{n} {} (match \"{}\")", m.what(), m.as_str()))
                })
                .collect();
            text.push_str(&format!("; not listed: {}", counts.join(", ")));
        }
        let depths = out
            .outline
            .as_ref()
            .map(|(_, d)| d.as_slice())
            .unwrap_or(&[]);
        for (i, s) in out.symbols.iter().enumerate() {
            let (start, end) = (s.location.range.start, s.location.range.end);
            match depths.get(i) {
                Some(depth) => {
                    text.push_str(&format!(
                        "\n{}{} {} {}:{}",
                        "  ".repeat(*depth),
                        s.symbol_kind,
                        s.name,
                        u64::from(start.line) + 1,
                        u64::from(start.character) + 1
                    ));
                    if end.line > start.line {
                        text.push_str(&format!("-{}", u64::from(end.line) + 1));
                    }
                }
                None => {
                    text.push_str(&format!(
                        "\n{} {} {}",
                        s.symbol_kind,
                        s.name,
                        crate::code::shown_at(&s.location.file_path, start.line, start.character)
                    ));
                    if let Some(c) = &s.container {
                        text.push_str(&format!(" in {c}"));
                    }
                }
            }
        }
        for w in &out.warnings {
            text.push('\n');
            text.push_str(w);
        }
        for s in &out.skipped {
            text.push_str(&format!("\nskipped {s}"));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::{Match, Query, closeness, select};

    #[test]
    fn only_exact_names_are_listed_unless_asked_and_the_others_are_counted() {
        let q = Query::parse("cut");
        let found = [
            ("cut", None, "src/budget.rs"),
            ("cut_tail", None, "src/budget.rs"),
            ("budget_cut", None, "src/a.rs"),
            ("Cut", None, "src/a.rs"),
            ("cpu_time", None, "src/a.rs"),
            ("cut(self)", Some("Text"), "text.py"),
            ("Budget.cut", None, "budget.go"),
        ];
        let ranked: Vec<(Match, &str)> = found
            .iter()
            .map(|(n, c, f)| (closeness(n, *c, f, &q).unwrap(), *n))
            .collect();
        use Match::*;
        assert_eq!(
            ranked.iter().map(|r| r.0).collect::<Vec<_>>(),
            [Exact, Prefix, Substring, Prefix, Any, Exact, Exact]
        );
        let mut exact = ranked.clone();
        let (listed, counted) = select(&mut exact, Exact);
        assert_eq!(listed, Exact);
        assert_eq!(
            exact.iter().map(|r| r.1).collect::<Vec<_>>(),
            ["cut", "cut(self)", "Budget.cut"]
        );
        assert_eq!(
            counted.into_iter().collect::<Vec<_>>(),
            [
                ("any".to_owned(), 1),
                ("prefix".to_owned(), 2),
                ("substring".to_owned(), 1)
            ]
        );
        let mut substring = ranked.clone();
        select(&mut substring, Substring);
        assert_eq!(substring.len(), 6);
        // Nothing exact: the closest there are, said so.
        let mut loose = vec![
            (Any, "cpu_time"),
            (Prefix, "cut_tail"),
            (Any, "CALL_TIMEOUT"),
        ];
        let (listed, counted) = select(&mut loose, Exact);
        assert_eq!((listed, loose.len(), counted["any"]), (Prefix, 1, 2));
    }

    #[test]
    fn a_qualified_query_matches_by_container_owner_or_file() {
        let q = Query::parse("Circle::area");
        assert_eq!(q.name, "area");
        assert_eq!(
            closeness("area", Some("impl Circle"), "src/shapes.rs", &q),
            Some(Match::Exact)
        );
        assert_eq!(
            closeness("area(self)", Some("Circle"), "shapes.py", &q),
            Some(Match::Exact)
        );
        assert_eq!(
            closeness("(*Circle).area", None, "shapes.go", &q),
            Some(Match::Exact)
        );
        assert_eq!(closeness("area", Some("Square"), "src/shapes.rs", &q), None);
        let q = Query::parse("shapes.area");
        assert_eq!(
            closeness("area", Some("Square"), "src/shapes.rs", &q),
            Some(Match::Exact)
        );
    }
}
