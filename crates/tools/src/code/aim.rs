//! A target made concrete through the code layer (`resolve_pr_code::target::aim`), and
//! the warnings an answer gives about how it was resolved (worded for the tools'
//! arguments).

use std::path::Path;

use resolve_pr_core::Result;
use resolve_pr_lsp::Loc;

use super::{Aimed, TargetArgs, Texts, display_path, shown_at};
use crate::Context;
use crate::checkout::workspace;

/// Finds the server and the position for a target, in the checkout `directory` names.
pub(crate) async fn aim(ctx: &Context, args: &TargetArgs<'_>) -> Result<Aimed> {
    let workspace = workspace(ctx, args.directory)?;
    resolve_pr_code::target::aim(&ctx.lsp, workspace, &args.spec()).await
}

/// Warnings about how a target was resolved.
pub(crate) fn target_warnings(texts: &mut Texts, aimed: &Aimed) -> Vec<String> {
    let mut warnings = Vec::new();
    if let (Some(test), Some(symbol)) = (&aimed.test, &aimed.resolved.symbol) {
        let about = match &test.subject {
            Some(name) => format!("the answer is about {name}, the call nearest before the failure of a function the checkout defines"),
            None => "no call in it before the failure reaches the checkout's code, so the answer is about the test's own call".to_owned(),
        };
        return vec![format!(
            "FROM_FAILURE: the line is in the test {}({:?}) at line {}; {about}. get_call_hierarchy gives the calls the test makes.",
            test.runner,
            symbol.name,
            u64::from(symbol.location.range.start.line) + 1
        )];
    }
    if !aimed.re_exports.is_empty() {
        warnings.push(re_exported(
            &aimed.workspace,
            aimed.re_exports.iter().map(|s| &s.location),
        ));
    }
    if !aimed.also_in.is_empty() {
        let names: Vec<String> = aimed
            .also_in
            .iter()
            .map(|r| display_path(&aimed.workspace, r))
            .map(|r| if r.is_empty() { ".".to_owned() } else { r })
            .collect();
        warnings.push(format!(
            "AMBIGUOUS_TARGET: the name is also in {} other {} ({}), not asked; the answer is \
             for the first. Give file_path and position, or directory, to ask another.",
            names.len(),
            if names.len() == 1 {
                "project"
            } else {
                "projects"
            },
            names.join(", ")
        ));
    }
    let others = &aimed.resolved.others;
    if others.is_empty() {
        return warnings;
    }
    let listed: Vec<String> = others
        .iter()
        .take(5)
        .map(|s| {
            let l = texts.location(&aimed.workspace, &s.location);
            shown_at(&l.file_path, l.range.start.line, l.range.start.character)
        })
        .collect();
    warnings.push(format!(
        "AMBIGUOUS_TARGET: {} more {} this name ({}{}); the answer is for the first. \
         Give a qualified name, symbol_kind, or file_path and position to choose.",
        others.len(),
        if others.len() == 1 {
            "symbol has"
        } else {
            "symbols have"
        },
        listed.join(", "),
        if others.len() > 5 { ", ..." } else { "" }
    ));
    warnings
}

/// The note for where a name is re-exported (made visible, not defined).
pub(super) fn re_exported<'a>(workspace: &Path, places: impl Iterator<Item = &'a Loc>) -> String {
    let places: Vec<&Loc> = places.collect();
    let listed: Vec<String> = places
        .iter()
        .take(5)
        .map(|l| {
            shown_at(
                &display_path(workspace, &l.path),
                l.range.start.line,
                l.range.start.character,
            )
        })
        .collect();
    format!(
        "RE_EXPORTED: also made visible (not defined) at {}{}",
        listed.join(", "),
        if places.len() > 5 { ", ..." } else { "" }
    )
}
