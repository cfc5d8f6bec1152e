//! `get_call_hierarchy`: who calls a function and what it calls, by the language server's
//! call hierarchy (`prepareCallHierarchy`, then `incomingCalls`/`outgoingCalls`; the file is
//! opened first, which clangd needs).

use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{
    Range, SymbolInfo, Texts, aim, check_cursor, display_path, guessed_flags, lsp_error, page,
    range, symbol_info, target_input, target_warnings,
};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Incoming,
    Outgoing,
    #[default]
    Both,
}

target_input! {
    pub struct Input {
        #[serde(default)]
        pub cursor: Option<String>,
        /// incoming (callers), outgoing (callees) or both. Default: both.
        #[serde(default)]
        pub direction: Option<Direction>,
    }
}

/// A function on the other end of calls, and where the calls are.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CallOut {
    pub symbol: SymbolInfo,
    /// In the caller's file (incoming) or the function's (outgoing).
    pub call_sites: Vec<Range>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    pub function: SymbolInfo,
    /// Callers, 50 a page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoming: Option<Vec<CallOut>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoming_total: Option<usize>,
    /// Callees, 50 a page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outgoing: Option<Vec<CallOut>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outgoing_total: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    pub server: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

pub struct GetCallHierarchy;

impl Tool for GetCallHierarchy {
    const NAME: &'static str = "get_call_hierarchy";
    const TITLE: &'static str = "Get call hierarchy";
    const DESCRIPTION: &'static str = "Who calls a function (incoming) and what it calls \
(outgoing), with the call sites, by the language server; the function given by position, \
name, or a failure's line.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        check_cursor(ctx, Self::NAME, raw, input.cursor.as_deref())?;
        let aimed = aim(ctx, &input.target()).await?;
        let server = &aimed.server;
        if let Some(test) = &aimed.test {
            return test_hierarchy(ctx, raw, &input, &aimed, test).await;
        }
        let items = server
            .call_items(&aimed.resolved.path, aimed.resolved.pos)
            .await
            .map_err(lsp_error)?;
        let Some(item) = items.into_iter().next() else {
            return Err(Error::user("no function or method is at that position")
                .with_code(ErrorCode::SymbolNotFound)
                .with_suggestion("Point at a function's name, or give symbol."));
        };
        let direction = input.direction.unwrap_or_default();
        let mut texts = Texts::default();
        let ws = &aimed.workspace;
        let mut partial = false;
        let cursor = input.cursor.as_deref();
        // Sorted and paged before any file is read for the context lines of the page shown.
        let convert = |calls: Vec<resolve_pr_lsp::Call>,
                       texts: &mut Texts|
         -> Result<(Vec<CallOut>, usize, Option<String>)> {
            let mut keyed: Vec<(String, resolve_pr_lsp::Call)> = calls
                .into_iter()
                .map(|c| (display_path(ws, &c.other.location.path), c))
                .collect();
            keyed.sort_by(|a, b| {
                (&a.0, a.1.other.location.range.start).cmp(&(&b.0, b.1.other.location.range.start))
            });
            let total = keyed.len();
            let (shown, next) = page(ctx, Self::NAME, raw, cursor, keyed)?;
            let out = shown
                .iter()
                .map(|(_, c)| CallOut {
                    symbol: symbol_info(texts, ws, server.language, &c.other),
                    call_sites: {
                        let mut sites: Vec<Range> =
                            c.sites.iter().map(|l| range(l.range)).collect();
                        sites.sort();
                        sites.dedup();
                        sites
                    },
                })
                .collect();
            Ok((out, total, next))
        };
        let (mut incoming, mut outgoing) = (None, None);
        let (mut incoming_total, mut outgoing_total) = (None, None);
        let (mut next_in, mut next_out) = (None, None);
        if direction != Direction::Outgoing {
            let answer = server.incoming_calls(&item).await.map_err(lsp_error)?;
            partial |= answer.indexing.is_some();
            let (shown, total, next) = convert(answer.value, &mut texts)?;
            (incoming, incoming_total, next_in) = (Some(shown), Some(total), next);
        }
        if direction != Direction::Incoming {
            let answer = server.outgoing_calls(&item).await.map_err(lsp_error)?;
            partial |= answer.indexing.is_some();
            let mut calls = answer.value;
            // rust-analyzer does not see calls in macro arguments (`assert_eq!(f(x), 1)`):
            // those found by syntax, resolved by the server, are added and marked.
            let mut by_text = Vec::new();
            if server.language == resolve_pr_lsp::Language::Rust
                && let Some(path) = resolve_pr_lsp::uri::to_path(&item.uri)
            {
                let lines = (item.range.start.line, item.range.end.line);
                let found = syntax_calls(resolve_pr_syntax::Dialect::Rust, &path, lines).await;
                for call in callees(server, &path, found).await {
                    match calls
                        .iter_mut()
                        .find(|c| c.other.location == call.other.location)
                    {
                        Some(known) => known.sites.extend(call.sites),
                        None => {
                            by_text.push(call.other.location.clone());
                            calls.push(call);
                        }
                    }
                }
            }
            // Each overload of one callee (typeshed's three `sum`s) answers for the same call
            // sites: one entry, the first overload.
            let mut seen: Vec<(String, std::path::PathBuf, Vec<resolve_pr_lsp::Loc>)> = Vec::new();
            calls.retain(|c| {
                let key = (
                    c.other.name.clone(),
                    c.other.location.path.clone(),
                    c.sites.clone(),
                );
                let new = !seen.contains(&key);
                if new {
                    seen.push(key);
                }
                new
            });
            let (mut shown, total, next) = convert(calls, &mut texts)?;
            mark_text(&mut shown, ws, &by_text);
            (outgoing, outgoing_total, next_out) = (Some(shown), Some(total), next);
        }
        let function_loc = resolve_pr_lsp::Loc {
            path: resolve_pr_lsp::uri::to_path(&item.uri)
                .unwrap_or_else(|| aimed.resolved.path.clone()),
            range: resolve_pr_lsp::Span {
                start: resolve_pr_lsp::Pos {
                    line: item.selection_range.start.line,
                    character: item.selection_range.start.character,
                },
                end: resolve_pr_lsp::Pos {
                    line: item.selection_range.end.line,
                    character: item.selection_range.end.character,
                },
            },
        };
        let function = SymbolInfo {
            name: item.name.clone(),
            symbol_kind: resolve_pr_lsp::nav::kind_name(item.kind).to_owned(),
            language: server.language.as_str().to_owned(),
            container: item.detail.clone().filter(|d| !d.is_empty()),
            location: texts.location(ws, &function_loc),
        };
        // clangd without a compile database sees only the files it opened: callers in others
        // are missing.
        let guessed = guessed_flags(server, &aimed.resolved.path);
        Ok(Output {
            function,
            incoming,
            incoming_total,
            outgoing,
            outgoing_total,
            next_cursor: next_in.or(next_out),
            partial: partial || guessed.is_some(),
            server: server.installed.spec.name.to_owned(),
            warnings: target_warnings(&mut texts, &aimed)
                .into_iter()
                .chain(guessed)
                .collect(),
        })
    }

    fn shown(out: &Output) -> Option<(usize, Option<usize>)> {
        let shown = out.incoming.iter().chain(&out.outgoing).map(Vec::len).sum();
        let total = out.incoming_total.unwrap_or(0) + out.outgoing_total.unwrap_or(0);
        Some((shown, Some(total)))
    }

    fn render(out: &Output) -> String {
        let f = &out.function;
        let mut text = format!(
            "{} {} ({}) {}",
            f.symbol_kind,
            f.name,
            crate::code::shown_at(
                &f.location.file_path,
                f.location.range.start.line,
                f.location.range.start.character
            ),
            crate::code::ONE_BASED
        );
        if out.partial {
            text.push_str("; the server is still indexing, so this may be incomplete");
        }
        // Incoming call sites are in each caller's file; outgoing ones in this function's.
        let here = format!("in {} at", f.location.file_path);
        for (label, list, total, sites_in) in [
            ("called by", &out.incoming, out.incoming_total, "at"),
            ("calls", &out.outgoing, out.outgoing_total, here.as_str()),
        ] {
            let Some(list) = list else { continue };
            text.push_str(&format!("\n{label} ({}):", total.unwrap_or(list.len())));
            for c in list {
                let sites: Vec<String> = c
                    .call_sites
                    .iter()
                    .map(|s| {
                        format!(
                            "{}:{}",
                            u64::from(s.start.line) + 1,
                            u64::from(s.start.character) + 1
                        )
                    })
                    .collect();
                text.push_str(&format!(
                    "\n  {} {} ({}), {sites_in} {}",
                    c.symbol.symbol_kind,
                    c.symbol.name,
                    c.symbol.location.file_path,
                    sites.join(", ")
                ));
                if c.symbol.location.source.as_deref() == Some("text") {
                    text.push_str(" [text match]");
                }
            }
        }
        for w in &out.warnings {
            text.push('\n');
            text.push_str(w);
        }
        text
    }
}

/// The calls in lines `lines` of a file that syntax finds (see [`resolve_pr_syntax::calls_in`]).
async fn syntax_calls(
    language: resolve_pr_syntax::Dialect,
    path: &std::path::Path,
    lines: (u32, u32),
) -> Vec<(String, resolve_pr_syntax::Occurrence)> {
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || {
        let text = std::fs::read_to_string(&path).ok()?;
        resolve_pr_syntax::calls_in(language, &text, lines.0, lines.1).ok()
    })
    .await
    .ok()
    .flatten()
    .unwrap_or_default()
}

/// Calls found by syntax, each resolved by the server's go-to-definition (one that resolves
/// nowhere is left out), grouped by the function called.
async fn callees(
    server: &resolve_pr_lsp::Server,
    path: &std::path::Path,
    found: Vec<(String, resolve_pr_syntax::Occurrence)>,
) -> Vec<resolve_pr_lsp::Call> {
    /// Calls resolved at most: each is a question to the server.
    const MAX_CALLS: usize = 100;
    let mut out: Vec<resolve_pr_lsp::Call> = Vec::new();
    for (name, at) in found.into_iter().take(MAX_CALLS) {
        let site = resolve_pr_lsp::Loc {
            path: path.to_owned(),
            range: resolve_pr_lsp::Span {
                start: resolve_pr_lsp::Pos {
                    line: at.line,
                    character: at.character,
                },
                end: resolve_pr_lsp::Pos {
                    line: at.line,
                    character: at.end_character,
                },
            },
        };
        let Ok(answer) = server.definition(path, site.range.start).await else {
            continue;
        };
        let Some(definition) = answer.value.into_iter().next() else {
            continue;
        };
        if let Some(known) = out.iter_mut().find(|c| c.other.location == definition) {
            known.sites.push(site);
            continue;
        }
        // Its kind from the outline of the file that defines it.
        let kind = server
            .document_symbols(&definition.path)
            .await
            .ok()
            .and_then(|symbols| {
                symbols
                    .into_iter()
                    .find(|s| s.location.range.start == definition.range.start)
                    .map(|s| s.kind)
            })
            .unwrap_or("function");
        out.push(resolve_pr_lsp::Call {
            other: resolve_pr_lsp::Symbol {
                name,
                kind,
                container: None,
                detail: None,
                location: definition,
                full_range: None,
            },
            sites: vec![site],
        });
    }
    out
}

/// Marks the callees found by syntax (by their definitions) as text matches.
fn mark_text(shown: &mut [CallOut], ws: &std::path::Path, by_text: &[resolve_pr_lsp::Loc]) {
    for c in shown {
        let found_by_text = by_text.iter().any(|l| {
            display_path(ws, &l.path) == c.symbol.location.file_path
                && range(l.range) == c.symbol.location.range
        });
        if found_by_text {
            c.symbol.location.source = Some("text".to_owned());
        }
    }
}

/// The call hierarchy of a JavaScript/TypeScript test callback: the calls it makes (found by
/// syntax, resolved by the server); nothing calls it but the test runner.
async fn test_hierarchy(
    ctx: &Context,
    raw: &Value,
    input: &Input,
    aimed: &crate::code::Aimed,
    test: &crate::code::TestTarget,
) -> Result<Output> {
    let server = &aimed.server;
    let ws = &aimed.workspace;
    let path = &aimed.resolved.path;
    let direction = input.direction.unwrap_or_default();
    let mut texts = Texts::default();
    let (mut outgoing, mut outgoing_total, mut next_cursor) = (None, None, None);
    if direction != Direction::Incoming {
        let language = resolve_pr_syntax::dialect_of(&path.to_string_lossy())
            .unwrap_or(resolve_pr_syntax::Dialect::TypeScript);
        let mut found = syntax_calls(language, path, test.body_lines).await;
        found.retain(|(_, o)| (o.line, o.character) >= test.body_start);
        let mut calls = callees(server, path, found).await;
        calls.sort_by(|a, b| {
            (
                display_path(ws, &a.other.location.path),
                a.other.location.range.start,
            )
                .cmp(&(
                    display_path(ws, &b.other.location.path),
                    b.other.location.range.start,
                ))
        });
        let total = calls.len();
        let (shown, next) = page(
            ctx,
            GetCallHierarchy::NAME,
            raw,
            input.cursor.as_deref(),
            calls,
        )?;
        outgoing = Some(
            shown
                .iter()
                .map(|c| CallOut {
                    symbol: symbol_info(&mut texts, ws, server.language, &c.other),
                    call_sites: c.sites.iter().map(|l| range(l.range)).collect(),
                })
                .collect(),
        );
        (outgoing_total, next_cursor) = (Some(total), next);
    }
    let symbol = aimed.resolved.symbol.as_ref().ok_or_else(|| {
        Error::unknown("a test target without its symbol").with_code(ErrorCode::SymbolNotFound)
    })?;
    Ok(Output {
        function: symbol_info(&mut texts, ws, server.language, symbol),
        // Only the test runner calls a test.
        incoming: (direction != Direction::Outgoing).then(Vec::new),
        incoming_total: (direction != Direction::Outgoing).then_some(0),
        outgoing,
        outgoing_total,
        next_cursor,
        partial: false,
        server: server.installed.spec.name.to_owned(),
        warnings: vec![format!(
            "FROM_FAILURE: the line is in the test {}({:?}); these are the calls it makes.",
            test.runner, symbol.name
        )],
    })
}
