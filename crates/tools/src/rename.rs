//! `rename`: renames a symbol (by the language server, in every file that uses it), or a file or directory (with the imports and module declarations the server rewrites). Plans by default.

use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_source::{FileChange, WorkspaceChange};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{aim, lsp_error, path_in, relative_error, server_for_file, target_input};
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RenameKind {
    #[default]
    Symbol,
    Parameter,
    Type,
    File,
    Directory,
}

target_input! {
    pub struct Input {
        /// symbol (default), parameter, type: the one at the target; file, directory: file_path.
        #[serde(default)]
        pub kind: RenameKind,
        /// The new name; for a file or directory, a path from the checkout or a bare name.
        #[serde(default)]
        pub new_name: Option<String>,
        /// Plan only; write nothing.
        #[serde(default = "crate::refactor::yes")]
        pub dry_run: bool,
        /// With dry_run: false, the plan to apply exactly.
        #[serde(default)]
        pub plan_id: Option<String>,
        /// Apply without verification. Default: false.
        #[serde(default)]
        pub force: bool,
    }
}

pub struct Rename;

impl Tool for Rename {
    const NAME: &'static str = "rename";
    const TITLE: &'static str = "Rename a symbol, file or directory";
    const DESCRIPTION: &'static str = "Renames a symbol everywhere it is used (by the language server), or a file or directory with the imports and module declarations that name it.";
    const TOOLSET: crate::Toolset = crate::Toolset::Refactor;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        run_as(ctx, Self::NAME, input).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

/// `rename` as `tool` calls it (`rename_symbol_with_imports` too): one plan type, so a
/// plan made by one applies by the other.
pub(crate) async fn run_as(ctx: &Context, tool: &str, input: Input) -> Result<RefactorOutput> {
    {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        if input.plan_id.is_none() {
            check(&input)?;
        }
        let mode = Mode {
            dry_run: input.dry_run,
            plan_id: input.plan_id.as_deref(),
            force: input.force,
        };
        let make = async {
            match input.kind {
                RenameKind::File | RenameKind::Directory => rename_path(ctx, &root, &input).await,
                _ => rename_symbol(ctx, &input).await,
            }
        };
        plan_or_apply(ctx, tool, &root, "RenamePlan", mode, make).await
    }
}

/// Every argument problem at once.
fn check(input: &Input) -> Result<()> {
    let mut problems: Vec<(&str, String)> = Vec::new();
    match input.new_name.as_deref().map(str::trim) {
        None | Some("") => problems.push((
            "new_name",
            "a new name is needed (or plan_id, to apply a plan)".into(),
        )),
        Some(name) => {
            let path_like = matches!(input.kind, RenameKind::File | RenameKind::Directory);
            if !path_like
                && name
                    .chars()
                    .any(|c| c.is_whitespace() || "/\\;{}()".contains(c))
            {
                problems.push(("new_name", format!("{name:?} is not a name")));
            }
            if path_like && (name.starts_with('/') || name.split('/').any(|p| p == "..")) {
                problems.push((
                    "new_name",
                    format!("{name:?} must stay inside the checkout (no leading / or ..)"),
                ));
            }
        }
    }
    if matches!(input.kind, RenameKind::File | RenameKind::Directory) {
        if input.file_path.is_none() {
            problems.push((
                "file_path",
                "renaming a file or directory needs file_path".into(),
            ));
        }
        if input.symbol.is_some() || input.position.is_some() || input.from_failure.is_some() {
            problems.push((
                "kind",
                "a file or directory is named by file_path alone".into(),
            ));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let text = problems
        .iter()
        .map(|(f, m)| format!("{f}: {m}"))
        .collect::<Vec<_>>()
        .join("; ");
    Err(Error::user(format!("rename: {text}"))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail(
            "problems",
            problems
                .iter()
                .map(|(f, m)| serde_json::json!({"field": f, "message": m}))
                .collect::<Vec<_>>(),
        ))
}

async fn rename_symbol(ctx: &Context, input: &Input) -> Result<(WorkspaceChange, PlanMeta)> {
    let new_name = input.new_name.as_deref().unwrap_or_default().trim();
    let aimed = aim(ctx, &input.target()).await?;
    if input.symbol.is_some() && !aimed.resolved.others.is_empty() {
        let candidates: Vec<String> = aimed
            .resolved
            .symbol
            .iter()
            .chain(&aimed.resolved.others)
            .map(|s| {
                let at = &s.location;
                let path = at.path.strip_prefix(&aimed.workspace).unwrap_or(&at.path);
                let line = at.range.start.line + 1;
                format!("{} {} at {}:{line}", s.kind, s.name, path.display())
            })
            .collect();
        return Err(Error::user(format!(
            "{} names {} symbols; a rename must not guess which",
            input.symbol.as_deref().unwrap_or_default(),
            candidates.len()
        ))
        .with_code(ErrorCode::AmbiguousTarget)
        .with_detail("candidates", candidates)
        .with_suggestion("Name it by file_path and position, or qualify it ('Type::method'), or give symbol_kind."));
    }
    let server = &aimed.server;
    let change = server
        .rename(&aimed.resolved.path, aimed.resolved.pos, new_name)
        .await
        .map_err(|e| relative_error(lsp_error(e), &aimed.workspace))?;
    let mut change = crate::refactor::rebase(change, &server.root, &aimed.workspace)?;
    let mut warnings: Vec<Warning> = doc_tests(&aimed, &mut change, new_name)
        .into_iter()
        .collect();
    warnings.extend(imports_left(&aimed, &mut change, new_name).await);
    let kind = match input.kind {
        RenameKind::Parameter => "rename.parameter",
        RenameKind::Type => "rename.type",
        _ => "rename.symbol",
    };
    Ok((
        change,
        PlanMeta {
            plan_type: "RenamePlan".into(),
            kind: kind.into(),
            language: Some(server.language.as_str().to_owned()),
            warnings,
        },
    ))
}

/// The name a rename's target has now: the identifier at its position.
fn old_name(aimed: &crate::code::Aimed) -> Option<String> {
    resolve_pr_code::target::identifier_at(&aimed.resolved.path, aimed.resolved.pos)
}

/// Rust: the old name in the doc-test code of the files the rename edits (and the one that
/// declares it), which rust-analyzer leaves and cargo check does not build, renamed too and
/// said in a warning.
fn doc_tests(
    aimed: &crate::code::Aimed,
    change: &mut WorkspaceChange,
    new_name: &str,
) -> Option<Warning> {
    if aimed.server.language != resolve_pr_lsp::Language::Rust {
        return None;
    }
    let old = old_name(aimed)?;
    let root = &aimed.workspace;
    let declared = aimed.resolved.path.strip_prefix(root).ok()?.to_owned();
    let mut files: Vec<PathBuf> = change
        .changes
        .iter()
        .filter_map(|c| match c {
            FileChange::Edit { path, .. } => Some(path.clone()),
            _ => None,
        })
        .collect();
    if !files.contains(&declared) {
        files.push(declared);
    }
    let mut shown = Vec::new();
    let mut count = 0;
    for file in files {
        let Ok(text) = std::fs::read_to_string(root.join(&file)) else {
            continue;
        };
        let found = resolve_pr_code::leftovers::rust_doc_code(&text, &old);
        if found.is_empty() {
            continue;
        }
        let index = resolve_pr_source::LineIndex::new(&text);
        // What the server already renames there (a later rust-analyzer may do doc tests).
        let taken: Vec<resolve_pr_source::TextRange> = change
            .changes
            .iter()
            .filter_map(|c| match c {
                FileChange::Edit { path, edits } if *path == file => {
                    Some(edits.iter().map(|e| e.range).collect::<Vec<_>>())
                }
                _ => None,
            })
            .flatten()
            .collect();
        let mut edits: Vec<resolve_pr_source::TextEdit> = Vec::new();
        for range in found
            .into_iter()
            .filter(|r| !taken.iter().any(|t| t.start < r.end && r.start < t.end))
        {
            count += 1;
            if let Ok(at) = index.position_utf8(range.start) {
                shown.push(format!("{}:{}", file.display(), at.line + 1));
            }
            edits.push(resolve_pr_source::TextEdit::replace(range, new_name));
        }
        match change
            .changes
            .iter_mut()
            .find(|c| matches!(c, FileChange::Edit { path, .. } if *path == file))
        {
            Some(FileChange::Edit {
                edits: existing, ..
            }) => existing.extend(edits),
            _ => change.changes.push(FileChange::Edit { path: file, edits }),
        }
    }
    if count == 0 {
        return None;
    }
    shown.truncate(5);
    Some(Warning {
        code: "DOC_TESTS_RENAMED".into(),
        message: format!(
            "{count} use(s) of {old} in doc-test code renamed by text (rust-analyzer leaves doc comments; cargo check does not build them, cargo test does): {}",
            shown.join(", ")
        ),
    })
}

/// Files that import the old name and that the server's rename leaves as they are (its
/// project's configuration leaves them out): the name's identifiers there are renamed too,
/// and a warning names them (verification then checks the whole).
async fn imports_left(
    aimed: &crate::code::Aimed,
    change: &mut WorkspaceChange,
    new_name: &str,
) -> Option<Warning> {
    let old = old_name(aimed)?;
    let touched: Vec<PathBuf> = change
        .changes
        .iter()
        .flat_map(|c| c.paths())
        .map(|p| p.to_path_buf())
        .collect();
    let (root, language) = (aimed.workspace.clone(), aimed.server.language);
    let (name, new) = (old.clone(), new_name.to_owned());
    let (left, cut, edits) = tokio::task::spawn_blocking(move || {
        let (left, cut) =
            resolve_pr_code::leftovers::imports_left(&root, language, &name, &touched);
        let mut files: Vec<PathBuf> = left.iter().map(|l| l.path.clone()).collect();
        files.dedup();
        let edits = resolve_pr_code::leftovers::renamed_by_text(&root, &files, &name, &new);
        (left, cut, edits)
    })
    .await
    .ok()?;
    if left.is_empty() {
        return None;
    }
    let files = edits.len();
    change.changes.extend(edits);
    let shown: Vec<String> = left
        .iter()
        .take(5)
        .map(|l| format!("{}:{}", l.path.display(), l.line + 1))
        .collect();
    Some(Warning {
        code: "IMPORTS_LEFT".into(),
        message: format!(
            "{} import(s) of {old} in {files} file(s) {} did not rename (outside its project's files?), renamed there by text{}: {}{}",
            left.len(),
            aimed.server.installed.spec.name,
            if cut {
                ", from a scan cut at its limit"
            } else {
                ""
            },
            shown.join(", "),
            if left.len() > shown.len() {
                format!(" and {} more", left.len() - shown.len())
            } else {
                String::new()
            },
        ),
    })
}

async fn rename_path(
    ctx: &Context,
    root: &Path,
    input: &Input,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let file_path = input.file_path.as_deref().unwrap_or_default();
    let new_name = input
        .new_name
        .as_deref()
        .unwrap_or_default()
        .trim()
        .trim_end_matches('/');
    let dir = input.kind == RenameKind::Directory;
    let (change, language, warnings) = path_moved(
        ctx,
        root,
        PathMove {
            file_path,
            new_name,
            dir,
            kind_field: "kind",
            from_root: new_name.contains('/'),
            overwrite: false,
        },
    )
    .await?;
    Ok((
        change,
        PlanMeta {
            plan_type: "RenamePlan".into(),
            kind: if dir {
                "rename.directory"
            } else {
                "rename.file"
            }
            .into(),
            language,
            warnings,
        },
    ))
}

/// What [`path_moved`] moves where.
pub(crate) struct PathMove<'a> {
    pub file_path: &'a str,
    /// A name beside the file, or (`from_root`) a path from the root.
    pub new_name: &'a str,
    pub dir: bool,
    /// The argument that said file or directory.
    pub kind_field: &'a str,
    pub from_root: bool,
    /// The destination may exist (a new package's template entry).
    pub overwrite: bool,
}

/// A file or directory moved to `new_name` (a name beside it, or a path from the root),
/// with what names it by path rewritten where its language's server (or, for Go, the
/// syntax tree) can: the change, the language, and warnings.
pub(crate) async fn path_moved(
    ctx: &Context,
    root: &Path,
    how: PathMove<'_>,
) -> Result<(WorkspaceChange, Option<String>, Vec<Warning>)> {
    let PathMove {
        file_path,
        new_name,
        dir,
        kind_field,
        from_root,
        overwrite,
    } = how;
    let from = path_in(root, file_path, "file_path")?;
    let is_dir = from.is_dir();
    if is_dir != dir {
        return Err(Error::user(format!(
            "{file_path} is a {}, but kind is {}",
            if is_dir { "directory" } else { "file" },
            if is_dir { "file" } else { "directory" }
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", kind_field));
    }
    let rel_from = from.strip_prefix(root).unwrap_or(&from).to_owned();
    let rel_to = if from_root {
        PathBuf::from(new_name)
    } else {
        rel_from.with_file_name(new_name)
    };
    // The server of the file's language (or of a source file in the directory).
    let probe = if is_dir {
        resolve_pr_source::Walk::sources(root)
            .under(&from)
            .files(1, |p| resolve_pr_lsp::Language::of_path(p).is_some())
            .unwrap_or_default()
            .files
            .into_iter()
            .next()
    } else {
        Some(from.clone())
    };
    let mut warnings = Vec::new();
    let mut changes = Vec::new();
    let mut language = None;
    let go = probe.as_deref().and_then(resolve_pr_lsp::Language::of_path)
        == Some(resolve_pr_lsp::Language::Go);
    match probe {
        // Go imports name directories, not files: a file that stays in its directory needs
        // nothing, and a directory's importers are rewritten here (gopls does neither).
        Some(_) if go => {
            language = Some("go".to_owned());
            let (abs_from, abs_to) = (root.join(&rel_from), root.join(&rel_to));
            if is_dir {
                match resolve_pr_code::go_imports::directory_renamed(root, &abs_from, &abs_to) {
                    Some(edits) => changes.extend(edits.changes),
                    None => warnings.push(Warning {
                        code: "IMPORTS_NOT_UPDATED".into(),
                        message: format!(
                            "{} and its new place are not in one Go module (go.mod), so its importers were not rewritten",
                            rel_from.display()
                        ),
                    }),
                }
            } else if abs_from.parent() != abs_to.parent() {
                warnings.push(Warning {
                    code: "IMPORTS_NOT_UPDATED".into(),
                    message: "a Go file that changes directory changes package: what it declares is not re-imported where it is used".into(),
                });
            }
        }
        Some(probe) if resolve_pr_lsp::Language::of_path(&probe).is_some() => {
            let server = server_for_file(ctx, root, &probe, "file_path").await?;
            language = Some(server.language.as_str().to_owned());
            let edits = server
                .will_rename_files(&[(root.join(&rel_from), root.join(&rel_to))])
                .await
                .map_err(|e| relative_error(lsp_error(e), root))?;
            match edits {
                Some(edits) => changes.extend(crate::refactor::rebase(edits, &server.root, root)?.changes),
                None => warnings.push(Warning {
                    code: "IMPORTS_NOT_UPDATED".into(),
                    message: format!(
                        "{} does not rewrite imports when files move; code that names {} by path is unchanged",
                        server.installed.spec.name,
                        rel_from.display()
                    ),
                }),
            }
        }
        _ => warnings.push(Warning {
            code: "IMPORTS_NOT_UPDATED".into(),
            message: "no language server reads this file, so nothing that names it was updated"
                .into(),
        }),
    }
    if language.as_deref() == Some(resolve_pr_lsp::Language::TypeScript.as_str()) {
        let moves = [(rel_from.clone(), rel_to.clone())];
        let (root_owned, moves_owned) = (root.to_owned(), moves.to_vec());
        let ours = tokio::task::spawn_blocking(move || {
            resolve_pr_code::js_paths::rewrites(&root_owned, &moves_owned)
        })
        .await
        .map_err(|e| Error::unknown(format!("reading the imports stopped: {e}")))?;
        match ours {
            Ok(ours) => {
                let added = merge_edits(&mut changes, ours);
                if added > 0 {
                    warnings.push(Warning {
                        code: "SPECIFIERS_REWRITTEN".into(),
                        message: format!(
                            "{added} module specifier(s) the server left (require calls, files outside its project) rewritten by the import graph"
                        ),
                    });
                }
            }
            Err(why) => warnings.push(Warning {
                code: "IMPORTS_NOT_UPDATED".into(),
                message: format!("the import graph could not be read ({why}): only the server's rewrites are in the plan"),
            }),
        }
    }
    changes.push(FileChange::Rename {
        from: rel_from,
        to: rel_to,
        overwrite,
        ignore_if_exists: false,
    });
    Ok((WorkspaceChange { changes }, language, warnings))
}

/// Adds `ours` (edits of files as they are) to `changes` (edits of the same files, all
/// before any rename): into the file's edit where there is one, leaving out an edit that
/// overlaps one already there (the server rewrote that specifier). How many were added.
fn merge_edits(changes: &mut Vec<FileChange>, ours: Vec<FileChange>) -> usize {
    let mut added = 0;
    for change in ours {
        let FileChange::Edit { path, edits } = change else {
            continue;
        };
        let existing = changes.iter_mut().find_map(|c| match c {
            FileChange::Edit { path: p, edits } if *p == path => Some(edits),
            _ => None,
        });
        match existing {
            Some(theirs) => {
                for edit in edits {
                    let overlaps = theirs.iter().any(|t| {
                        t.range.start < edit.range.end.max(edit.range.start + 1)
                            && edit.range.start < t.range.end.max(t.range.start + 1)
                    });
                    if !overlaps {
                        theirs.push(edit);
                        added += 1;
                    }
                }
            }
            None => {
                added += edits.len();
                changes.push(FileChange::Edit { path, edits });
            }
        }
    }
    added
}
