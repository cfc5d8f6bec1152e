//! Location questions (definition, references, implementations, type definition) asked of
//! a server and paged.

use std::path::Path;

use resolve_pr_core::{Error, Result};
use resolve_pr_lsp::Loc;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use resolve_pr_code::target::{in_import, macro_references};

use super::aim::re_exported;
use super::texts::locations_of;
use super::{
    Goto, LocationsOutput, PAGE, Reference, TargetArgs, Texts, aim, display_path, guessed_flags,
    lsp_error, relative_error, symbol_at, symbol_info, target_warnings,
};
use crate::Context;
/// Where a page starts (from its cursor) and the cursor of the next one.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Offset {
    pub offset: usize,
}

/// Refuses a cursor this call cannot continue from, before any server is started or asked:
/// a bad cursor costs nothing.
pub(crate) fn check_cursor(
    ctx: &Context,
    tool: &str,
    raw: &Value,
    cursor: Option<&str>,
) -> Result<()> {
    if let Some(c) = cursor {
        ctx.cursors.decode::<Offset>(tool, raw, c)?;
    }
    Ok(())
}

/// The items of the page the cursor points at, and the next page's cursor.
pub(crate) fn page<T>(
    ctx: &Context,
    tool: &str,
    raw: &Value,
    cursor: Option<&str>,
    items: Vec<T>,
) -> Result<(Vec<T>, Option<String>)> {
    let start = match cursor {
        Some(c) => ctx.cursors.decode::<Offset>(tool, raw, c)?.offset,
        None => 0,
    };
    let total = items.len();
    let shown: Vec<T> = items.into_iter().skip(start).take(PAGE).collect();
    let next = (start + PAGE < total).then(|| {
        ctx.cursors.encode(
            tool,
            raw,
            &Offset {
                offset: start + PAGE,
            },
        )
    });
    Ok((shown, next))
}

/// Asks one location question about a target and pages the answer.
pub(crate) async fn locate(
    ctx: &Context,
    tool: &str,
    args: &TargetArgs<'_>,
    cursor: Option<&str>,
    raw: &Value,
    goto: Goto,
) -> Result<LocationsOutput<Reference>> {
    check_cursor(ctx, tool, raw, cursor)?;
    let aimed = aim(ctx, args).await?;
    let (path, pos) = (&aimed.resolved.path, aimed.resolved.pos);
    let server = &aimed.server;
    let answer = match goto {
        Goto::Definition => server.definition(path, pos).await,
        Goto::TypeDefinition => server.type_definition(path, pos).await,
        Goto::Implementations => server.implementations(path, pos).await,
        Goto::References {
            include_declaration,
        } => server.references(path, pos, include_declaration).await,
    }
    .map_err(|e| relative_error(lsp_error(e), &aimed.workspace))?;
    let mut texts = Texts::default();
    let mut warnings = Vec::new();
    // A definition that is an import (Rust's `pub use`) re-exports the name: it is said
    // apart, not listed as a definition (unless nothing else was found).
    let mut value = answer.value.clone();
    if matches!(goto, Goto::Definition) {
        let (imports, defined): (Vec<Loc>, Vec<Loc>) = value
            .iter()
            .cloned()
            .partition(|l| in_import(&mut texts, l));
        if !imports.is_empty() && !defined.is_empty() {
            warnings.push(re_exported(&aimed.workspace, imports.iter()));
            value = defined;
        }
    }
    // Every location, with whether a syntax scan found it; sorted and paged before any file
    // is read for its context line.
    let mut found: Vec<(&resolve_pr_lsp::Loc, bool)> = value.iter().map(|l| (l, false)).collect();
    let missed = if matches!(goto, Goto::References { .. })
        && server.language == resolve_pr_lsp::Language::Rust
    {
        macro_references(&aimed, &answer.value).await
    } else {
        Vec::new()
    };
    found.extend(missed.iter().map(|l| (l, true)));
    let with_containers = matches!(goto, Goto::References { .. });
    let (locations, total, next_cursor) = page_locations(
        ctx,
        tool,
        raw,
        cursor,
        &aimed.workspace,
        found,
        with_containers,
    )
    .await?;
    let symbol = match &aimed.resolved.symbol {
        Some(s) => Some(s.clone()),
        None => {
            let definitions = matches!(goto, Goto::Definition).then_some(answer.value.as_slice());
            symbol_at(server, path, pos, definitions).await
        }
    };
    let target = symbol
        .as_ref()
        .map(|s| symbol_info(&mut texts, &aimed.workspace, server.language, s));
    warnings.extend(target_warnings(&mut texts, &aimed));
    let guessed = guessed_flags(server, path);
    let partial = answer.indexing.is_some() || guessed.is_some();
    warnings.extend(guessed);
    Ok(LocationsOutput {
        target,
        locations,
        total,
        next_cursor,
        partial,
        indexing: answer.indexing,
        server: server.installed.spec.name.to_owned(),
        warnings,
    })
}

/// Sorts `found` (each with whether a syntax scan found it) by file and position, and shows
/// the page the cursor asks for, reading context lines for that page only (off the async
/// runtime). The page, the total and the next cursor.
pub(crate) async fn page_locations(
    ctx: &Context,
    tool: &str,
    raw: &Value,
    cursor: Option<&str>,
    workspace: &Path,
    found: Vec<(&resolve_pr_lsp::Loc, bool)>,
    with_containers: bool,
) -> Result<(Vec<Reference>, usize, Option<String>)> {
    let mut keyed: Vec<(String, resolve_pr_lsp::Pos, &resolve_pr_lsp::Loc, bool)> = found
        .into_iter()
        .map(|(l, text)| (display_path(workspace, &l.path), l.range.start, l, text))
        .collect();
    keyed.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let total = keyed.len();
    let (shown, next_cursor) = page(ctx, tool, raw, cursor, keyed)?;
    let shown: Vec<(String, resolve_pr_lsp::Pos, resolve_pr_lsp::Loc, bool)> = shown
        .into_iter()
        .map(|(p, at, l, text)| (p, at, l.clone(), text))
        .collect();
    let ws = workspace.to_owned();
    let locations = tokio::task::spawn_blocking(move || {
        let shown = shown
            .iter()
            .map(|(p, at, l, text)| (p.clone(), *at, l, *text))
            .collect();
        locations_of(&mut Texts::default(), &ws, shown, with_containers)
    })
    .await
    .map_err(|e| Error::unknown(format!("reading the context lines failed: {e}")))?;
    Ok((locations, total, next_cursor))
}
