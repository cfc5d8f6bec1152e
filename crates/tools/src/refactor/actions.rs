//! Refactorings a language server performs as code actions (extract, inline, transform):
//! which action answers which operation, picked from what the server offers at the range.

use std::path::Path;

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::PlanMeta;
use resolve_pr_lsp::{Pos, Span};
use resolve_pr_source::WorkspaceChange;

use crate::Context;
use crate::code::{
    Position, Range, file_in, lsp_error, refactoring_server_for_file, relative_error,
    server_for_file,
};

/// How an operation is found among a server's code actions: the kinds asked for, and the
/// words its title must hold (any of `titles`, case-insensitive), the `prefer`red first.
pub(crate) struct Recipe {
    pub kind: &'static str,
    pub only: &'static [&'static str],
    pub titles: &'static [&'static str],
    pub prefer: &'static [&'static str],
}

/// Every operation performed by a code action, by its seed 002 kind.
pub(crate) const RECIPES: &[Recipe] = &[
    Recipe {
        kind: "extract.function",
        only: &["refactor.extract"],
        titles: &["function", "method"],
        prefer: &["module scope", "into function"],
    },
    Recipe {
        kind: "extract.variable",
        only: &["refactor.extract"],
        titles: &[
            "variable",
            "subexpression",
            "constant in enclosing scope",
            "local",
        ],
        prefer: &["variable"],
    },
    Recipe {
        kind: "extract.constant",
        only: &["refactor.extract"],
        // rope's module-level variable is Python's constant.
        titles: &["constant", "global variable"],
        prefer: &["module scope", "into constant"],
    },
    Recipe {
        kind: "extract.type_alias",
        only: &["refactor.extract"],
        titles: &["type alias", "typedef"],
        prefer: &[],
    },
    Recipe {
        kind: "extract.interface",
        only: &["refactor.extract"],
        titles: &["interface"],
        prefer: &[],
    },
    Recipe {
        kind: "inline.variable",
        only: &["refactor.inline"],
        titles: &["variable", "local"],
        prefer: &[],
    },
    Recipe {
        kind: "inline.function",
        only: &["refactor.inline"],
        titles: &[
            "inline call",
            "inline function",
            "inline `",
            "inline method",
            "into all callers",
        ],
        prefer: &["inline call"],
    },
    Recipe {
        kind: "inline.constant",
        only: &["refactor.inline"],
        titles: &["constant", "const"],
        prefer: &[],
    },
    Recipe {
        kind: "inline.type_alias",
        only: &["refactor.inline"],
        titles: &["type alias"],
        prefer: &[],
    },
    // rust-analyzer's "Sort fields/variants/methods alphabetically", offered for a
    // selection of a struct's, enum's, impl's or trait's name.
    Recipe {
        kind: "reorder.members",
        only: &["refactor"],
        titles: &["alphabetically"],
        prefer: &[],
    },
    Recipe {
        kind: "transform.to_arrow_function",
        only: &["refactor.rewrite"],
        titles: &["arrow function"],
        prefer: &[],
    },
    Recipe {
        kind: "transform.to_async",
        only: &["refactor.rewrite", "quickfix"],
        titles: &["async"],
        prefer: &[],
    },
    Recipe {
        kind: "transform.loop_to_iterator",
        only: &["refactor.rewrite"],
        titles: &["for_each", "iterator", "for loop"],
        prefer: &["for_each"],
    },
    Recipe {
        kind: "transform.callback_to_promise",
        only: &["refactor.rewrite", "quickfix"],
        titles: &["promise"],
        prefer: &[],
    },
    Recipe {
        kind: "transform.add_null_check",
        only: &["refactor.rewrite", "quickfix"],
        titles: &["null check", "optional chain"],
        prefer: &[],
    },
    Recipe {
        kind: "transform.remove_dead_branch",
        only: &["refactor.rewrite", "quickfix"],
        titles: &["unreachable", "dead", "remove branch"],
        prefer: &[],
    },
];

fn span(start: Position, end: Position) -> Span {
    Span {
        start: Pos {
            line: start.line,
            character: start.character,
        },
        end: Pos {
            line: end.line,
            character: end.character,
        },
    }
}

/// The whole call of a tool done by a code action (extract, inline, transform): `file_path`
/// is required, then the action for `kind` at `range` or `position`, planned or applied.
#[allow(
    clippy::too_many_arguments,
    reason = "the tool's arguments, passed through"
)]
pub(crate) async fn run_action_tool(
    ctx: &Context,
    tool: &str,
    plan_type: &str,
    kind: String,
    directory: Option<&str>,
    file_path: Option<&str>,
    range: Option<Range>,
    position: Option<Position>,
    name: Option<&str>,
    mode: super::Mode<'_>,
) -> Result<super::RefactorOutput> {
    let root = crate::checkout::workspace(ctx, directory)?;
    let make = async {
        let Some(file) = file_path else {
            return Err(Error::user(format!("{tool} needs file_path"))
                .with_code(ErrorCode::InvalidArgument)
                .with_detail("field", "file_path"));
        };
        let (mut change, meta) =
            by_action(ctx, &root, plan_type, &kind, file, range, position).await?;
        if let Some(name) = name {
            use resolve_pr_code::placeholder::{NameError, give_name};
            give_name(
                &mut change,
                |p| std::fs::read_to_string(root.join(p)).ok(),
                name,
            )
            .map_err(|e| {
                let code = match e {
                    NameError::Unclear(_) => ErrorCode::NotSupported,
                    _ => ErrorCode::InvalidArgument,
                };
                Error::user(format!("name: {e}"))
                    .with_code(code)
                    .with_detail("field", "name")
                    .with_suggestion("Call without name, then rename what the server named.")
            })?;
        }
        Ok((change, meta))
    };
    super::plan_or_apply(ctx, tool, &root, plan_type, mode, make).await
}

/// The change of the code action that performs `kind` at `range` (or `position`) of
/// `file_path`, with the plan's metadata. No action offered is NOT_SUPPORTED, naming the
/// actions the server did offer there.
pub(crate) async fn by_action(
    ctx: &Context,
    root: &Path,
    plan_type: &str,
    kind: &str,
    file_path: &str,
    range: Option<Range>,
    position: Option<Position>,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let recipe = RECIPES.iter().find(|r| r.kind == kind).ok_or_else(|| {
        Error::user(format!(
            "{kind} is not an operation a language server performs here"
        ))
        .with_code(ErrorCode::NotSupported)
    })?;
    let at = match (range, position) {
        (Some(r), _) => span(r.start, r.end),
        (None, Some(p)) => span(p, p),
        (None, None) => {
            return Err(
                Error::user(format!("{kind} needs range (or position) in file_path"))
                    .with_code(ErrorCode::InvalidArgument)
                    .with_detail("field", "range"),
            );
        }
    };
    let path = file_in(root, file_path, "file_path")?;
    let server = refactoring_server_for_file(ctx, root, &path, "file_path").await?;
    let actions = server
        .code_actions(&path, at, recipe.only)
        .await
        .map_err(|e| relative_error(lsp_error(e), root))?;
    let fits = |title: &str| {
        let t = title.to_lowercase();
        recipe.titles.iter().any(|w| t.contains(w))
    };
    // The plain form before a wider one (rope's "Extract method including similar
    // statements" also replaces every other statement like the selection).
    let mut usable: Vec<_> = actions
        .iter()
        .filter(|a| a.disabled.is_none() && fits(&a.title))
        .collect();
    usable.sort_by_key(|a| a.title.to_lowercase().contains("similar"));
    let chosen = recipe
        .prefer
        .iter()
        .find_map(|p| usable.iter().find(|a| a.title.to_lowercase().contains(p)))
        .or_else(|| usable.first())
        .copied();
    let Some(action) = chosen else {
        let offered: Vec<String> = actions
            .iter()
            .map(|a| match &a.disabled {
                Some(why) => format!("{} (disabled: {why})", a.title),
                None => a.title.clone(),
            })
            .collect();
        let missing = ctx
            .lsp
            .refactoring_server_missing(server.language, &server.root)
            .map(|why| format!("; {why}"))
            .unwrap_or_default();
        return Err(Error::user(format!(
            "{} offers no {kind} at that range{}{missing}",
            server.installed.spec.name,
            if offered.is_empty() {
                String::new()
            } else {
                format!("; it offers: {}", offered.join("; "))
            }
        ))
        .with_code(ErrorCode::NotSupported)
        .with_detail("offered", offered)
        .with_suggestion("Select exactly the expression or statements (range), or a name (position), the operation applies to."));
    };
    let change = server
        .action_change(action)
        .await
        .map_err(|e| relative_error(lsp_error(e), root))?;
    let change = super::rebase(change, &server.root, root)?;
    Ok((
        change,
        PlanMeta {
            plan_type: plan_type.to_owned(),
            kind: kind.to_owned(),
            language: Some(server.language.as_str().to_owned()),
            warnings: vec![resolve_pr_edit::Warning {
                code: "PERFORMED_BY".into(),
                message: format!("{}: \"{}\"", server.installed.spec.name, action.title),
            }],
        },
    ))
}

/// The change of a whole-file source action (`source.organizeImports`, …): the first action
/// the server offers for `file` whose kind starts with one of `kinds`, in that order.
/// `None` when the server offers none of them.
pub(crate) async fn source_action(
    ctx: &Context,
    root: &Path,
    file: &Path,
    kinds: &[&str],
) -> Result<Option<(WorkspaceChange, String, resolve_pr_lsp::Language)>> {
    let server = server_for_file(ctx, root, file, "file_path").await?;
    let start = Pos {
        line: 0,
        character: 0,
    };
    let actions = server
        .code_actions(file, Span { start, end: start }, kinds)
        .await
        .map_err(|e| relative_error(lsp_error(e), root))?;
    let chosen = kinds.iter().find_map(|k| {
        actions.iter().find(|a| {
            a.disabled.is_none() && a.kind.as_deref().is_some_and(|kind| kind.starts_with(k))
        })
    });
    let Some(action) = chosen else {
        return Ok(None);
    };
    let change = server
        .action_change(action)
        .await
        .map_err(|e| relative_error(lsp_error(e), root))?;
    let change = super::rebase(change, &server.root, root)?;
    Ok(Some((
        change,
        format!("{}: \"{}\"", server.installed.spec.name, action.title),
        server.language,
    )))
}
