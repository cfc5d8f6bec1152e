//! `move`: moves top-level declarations to another file with the imports fixed: to a new file, as typescript-language-server does it (TypeScript/JavaScript); into an existing module by rope (Python); other languages' servers offer no such move. Plans by default.

use std::path::Path;

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_lsp::{Language, Pos, Span};
use resolve_pr_source::WorkspaceChange;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{Range, file_in, language_of, lsp_error, relative_error, server_for_file};
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoveKind {
    #[default]
    Symbol,
    File,
    Directory,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[serde(default)]
    pub kind: MoveKind,
    /// The declaration's file, or the file or directory that moves.
    #[serde(default)]
    pub file_path: Option<String>,
    /// The whole declaration (or its name).
    #[serde(default)]
    pub range: Option<Range>,
    /// Symbol: a module (Python, Rust) or new file (TypeScript). Else: a new path or a directory to move into.
    #[serde(default)]
    pub destination: Option<String>,
    /// Plan only; write nothing.
    #[serde(default = "crate::refactor::yes")]
    pub dry_run: bool,
    /// With dry_run: false, the plan to apply exactly.
    #[serde(default)]
    pub plan_id: Option<String>,
    /// Apply even if verification finds new errors.
    #[serde(default)]
    pub force: bool,
}

pub struct Move;

impl Tool for Move {
    const NAME: &'static str = "move";
    const TITLE: &'static str = "Move a declaration to another file";
    const DESCRIPTION: &'static str = "Moves declarations (TypeScript/JavaScript to a new file, Python and Rust into a module), files and directories, fixing imports. A Rust module into another package becomes that crate.";
    const TOOLSET: crate::Toolset = crate::Toolset::Refactor;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let mode = Mode {
            dry_run: input.dry_run,
            plan_id: input.plan_id.as_deref(),
            force: input.force,
        };
        let make = plan(ctx, &root, &input);
        plan_or_apply(ctx, Self::NAME, &root, "MovePlan", mode, make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

async fn plan(ctx: &Context, root: &Path, input: &Input) -> Result<(WorkspaceChange, PlanMeta)> {
    if input.kind != MoveKind::Symbol {
        return move_path(ctx, root, input).await;
    }
    let (Some(file), Some(range)) = (input.file_path.as_deref(), input.range) else {
        return Err(
            Error::user("move needs file_path and the declaration's range")
                .with_code(ErrorCode::InvalidArgument)
                .with_detail(
                    "field",
                    if input.file_path.is_none() {
                        "file_path"
                    } else {
                        "range"
                    },
                ),
        );
    };
    let path = file_in(root, file, "file_path")?;
    let language = language_of(&path, "file_path")?;
    if language == Language::Python {
        return python_move(root, &path, range, input.destination.as_deref(), ctx).await;
    }
    if language == Language::Rust {
        return rust_move(root, &path, range, input.destination.as_deref());
    }
    if language != Language::TypeScript {
        return Err(Error::user(format!(
            "move is offered for TypeScript, JavaScript, Python and Rust only: no {} server here moves a declaration between files",
            language.as_str()
        ))
        .with_code(ErrorCode::NotSupported)
        .with_suggestion("Move the code by hand, or with extract and find_replace, then check it with get_diagnostics."));
    }
    let server = server_for_file(ctx, root, &path, "file_path").await?;
    let span = Span {
        start: Pos {
            line: range.start.line,
            character: range.start.character,
        },
        end: Pos {
            line: range.end.line,
            character: range.end.character,
        },
    };
    let actions = server
        .code_actions(&path, span, &["refactor.move"])
        .await
        .map_err(|e| relative_error(lsp_error(e), root))?;
    // The new file's path, when the agent names it: a file that does not exist yet.
    let destination = match input.destination.as_deref() {
        None => None,
        Some(dest) => {
            let given = Path::new(dest);
            let rel = given.strip_prefix(root).unwrap_or(given);
            if rel.is_absolute()
                || rel
                    .components()
                    .any(|c| !matches!(c, std::path::Component::Normal(_)))
            {
                return Err(Error::user(format!(
                    "destination {dest} is not a path inside the checkout"
                ))
                .with_code(ErrorCode::InvalidPath)
                .with_detail("field", "destination"));
            }
            if root.join(rel).exists() {
                return Err(Error::user(format!(
                    "typescript-language-server moves declarations only to a new file, and {dest} exists"
                ))
                .with_code(ErrorCode::NotSupported)
                .with_detail("field", "destination")
                .with_suggestion("Give a path that does not exist yet (the moved declarations become that file)."));
            }
            Some(rel.to_owned())
        }
    };
    let wanted = "move to a new file";
    let Some(action) = actions
        .iter()
        .find(|a| a.disabled.is_none() && a.title.to_lowercase().starts_with(wanted))
    else {
        let offered: Vec<String> = actions.iter().map(|a| a.title.clone()).collect();
        return Err(Error::user(format!(
            "{} offers no \"{wanted}\" for that range{}",
            server.installed.spec.name,
            if offered.is_empty() {
                String::new()
            } else {
                format!("; it offers: {}", offered.join("; "))
            }
        ))
        .with_code(ErrorCode::NotSupported)
        .with_detail("offered", offered)
        .with_suggestion("Give the range of whole top-level declarations."));
    };
    let change = server
        .action_change(action)
        .await
        .map_err(|e| relative_error(lsp_error(e), root))?;
    let mut change = crate::refactor::rebase(change, &server.root, root)?;
    if let Some(dest) = &destination {
        resolve_pr_code::ts_move::retarget(&mut change, dest).map_err(|why| {
            Error::user(format!("destination {}: {why}", dest.display()))
                .with_code(ErrorCode::NotSupported)
                .with_detail("field", "destination")
        })?;
    }
    Ok((
        change,
        PlanMeta {
            plan_type: "MovePlan".into(),
            kind: "move.symbol".into(),
            language: Some(language.as_str().to_owned()),
            warnings: vec![Warning {
                code: "PERFORMED_BY".into(),
                message: format!("{}: \"{}\"", server.installed.spec.name, action.title),
            }],
        },
    ))
}

/// Python: rope moves the function or class named at `range`'s start (or whose `def` /
/// `class` line it starts) into the existing module `destination`, rewriting the imports of
/// every file that uses it.
async fn python_move(
    root: &Path,
    path: &Path,
    range: Range,
    destination: Option<&str>,
    _ctx: &Context,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let MoveEnds {
        dest_path,
        text,
        at: mut byte,
    } = move_ends(
        root,
        path,
        range,
        destination,
        Language::Python,
        "Name an existing module (.py); rope moves into a module, not a new file.",
    )?;
    // At `def`, `async def` or `class`: the name after it.
    let rest = &text[byte..];
    for keyword in ["async def ", "def ", "class "] {
        if let Some(after) = rest.strip_prefix(keyword) {
            byte += keyword.len() + (after.len() - after.trim_start().len());
            break;
        }
    }
    let offset = text[..byte].chars().count();
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).to_owned();
    let until = resolve_pr_lsp::deadline::wait_until_leaving(
        std::time::Duration::from_secs(300),
        std::time::Duration::from_secs(5),
    );
    let timeout = until.saturating_duration_since(std::time::Instant::now());
    let (change, description) = resolve_pr_code::python_move::rope_move(
        root,
        &rel(path),
        offset,
        &rel(&dest_path),
        timeout,
    )
    .await
    .map_err(|e| match e {
        resolve_pr_code::python_move::MoveError::NotInstalled(why) => Error::logical(why)
            .with_code(ErrorCode::ServerNotInstalled)
            .with_suggestion(
                "pip install rope (or python-lsp-server and pylsp-rope), then call again.",
            ),
        resolve_pr_code::python_move::MoveError::Refused(why) => Error::user(format!(
            "rope cannot move that: {why}"
        ))
        .with_code(ErrorCode::NotSupported)
        .with_suggestion(
            "Point range at the name (or the def/class line) of a module-level function or class.",
        ),
        resolve_pr_code::python_move::MoveError::Failed(why) => {
            Error::unknown(why).with_code(ErrorCode::ServerFailed)
        }
    })?;
    Ok((
        change,
        PlanMeta {
            plan_type: "MovePlan".into(),
            kind: "move.symbol".into(),
            language: Some("python".into()),
            warnings: vec![Warning {
                code: "PERFORMED_BY".into(),
                message: format!("rope: \"{description}\""),
            }],
        },
    ))
}

/// Rust: the item at `range`'s start (with its docs, attributes and, for a type, its impl
/// blocks) moves to the end of the module file `destination` of the same crate; the old
/// module re-exports it so every path to it still works.
fn rust_move(
    root: &Path,
    path: &Path,
    range: Range,
    destination: Option<&str>,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let MoveEnds {
        dest_path,
        text,
        at,
    } = move_ends(
        root,
        path,
        range,
        destination,
        Language::Rust,
        "Name an existing module file (declared with `mod`) of the same crate.",
    )?;
    let dest = destination.unwrap_or_default();
    // The crate: the nearest Cargo.toml above the file, inside the checkout.
    let manifest_dir = path
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(root))
        .find(|d| d.join("Cargo.toml").is_file())
        .ok_or_else(|| {
            Error::user("file_path is in no Cargo package of the checkout")
                .with_code(ErrorCode::NotSupported)
        })?;
    let src = manifest_dir.join("src");
    let module_of = |file: &Path| {
        file.strip_prefix(&src)
            .ok()
            .and_then(resolve_pr_code::rust_move::module_path)
    };
    let Some(source_module) = module_of(path) else {
        return Err(Error::user("file_path is not a module of its crate's src (a binary of src/bin is a crate of its own)")
            .with_code(ErrorCode::NotSupported));
    };
    let Some(dest_module) = module_of(&dest_path) else {
        return Err(Error::user(format!(
            "destination {dest} is not a module of the same crate as file_path"
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", "destination"));
    };
    let dest_text = read(&dest_path, "destination")?;
    let rel = |p: &Path| p.strip_prefix(root).unwrap_or(p).to_owned();
    let moved = resolve_pr_code::rust_move::plan(
        &rel(path),
        &text,
        at,
        &source_module,
        &rel(&dest_path),
        &dest_text,
        &dest_module,
    )
    .map_err(|why| {
        Error::user(format!("cannot move that: {why}"))
            .with_code(ErrorCode::NotSupported)
            .with_suggestion(
                "Point range at a top-level function, type, trait, constant, static or type alias.",
            )
    })?;
    Ok((
        moved.change,
        PlanMeta {
            plan_type: "MovePlan".into(),
            kind: "move.symbol".into(),
            language: Some("rust".into()),
            warnings: vec![Warning {
                code: "PERFORMED_BY".into(),
                message: format!(
                    "resolve-pr's syntax tree: {} (the old module re-exports it)",
                    moved.items.join(", ")
                ),
            }],
        },
    ))
}

/// What a move into an existing module starts from: the destination (a file of
/// `language` in the checkout), the source file's text, and `range.start` as a byte offset.
struct MoveEnds {
    dest_path: std::path::PathBuf,
    text: String,
    at: usize,
}

fn read(path: &Path, field: &str) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| {
        Error::user(format!("{field} cannot be read: {e}"))
            .with_code(ErrorCode::InvalidPath)
            .with_detail("field", field)
    })
}

fn move_ends(
    root: &Path,
    path: &Path,
    range: Range,
    destination: Option<&str>,
    language: Language,
    hint: &str,
) -> Result<MoveEnds> {
    let name = match language {
        Language::Python => "Python",
        _ => "Rust",
    };
    let Some(dest) = destination else {
        return Err(Error::user(format!(
            "a {name} move needs destination: the module file to move into"
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", "destination"));
    };
    let dest_path = file_in(root, dest, "destination")?;
    if language_of(&dest_path, "destination")? != language {
        return Err(Error::user(format!(
            "destination {dest} is not a {name} file of the checkout"
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", "destination")
        .with_suggestion(hint));
    }
    let text = read(path, "file_path")?;
    let at = resolve_pr_source::LineIndex::new(&text)
        .offset_utf16(resolve_pr_source::LineCol {
            line: range.start.line,
            col: range.start.character,
        })
        .map_err(|e| {
            Error::user(format!("range.start: {e}"))
                .with_code(ErrorCode::InvalidPosition)
                .with_detail("field", "range")
        })?;
    Ok(MoveEnds {
        dest_path,
        text,
        at,
    })
}

/// `kind: file | directory`: the path moved with what names it rewritten (as `rename` does),
/// or a Rust module made a crate of its own when the destination is another Cargo package.
async fn move_path(
    ctx: &Context,
    root: &Path,
    input: &Input,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let dir = input.kind == MoveKind::Directory;
    let needs = |field: &str, what: &str| {
        Error::user(format!(
            "move kind {} needs {what}",
            if dir { "directory" } else { "file" }
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", field)
    };
    let Some(file) = input.file_path.as_deref() else {
        return Err(needs("file_path", "file_path (what moves)"));
    };
    let Some(dest) = input
        .destination
        .as_deref()
        .map(|d| d.trim().trim_end_matches('/'))
        .filter(|d| !d.is_empty())
    else {
        return Err(needs("destination", "destination (where it goes)"));
    };
    if input.range.is_some() {
        return Err(Error::user(
            "a file or directory is named by file_path alone; range is for kind symbol",
        )
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", "range"));
    }
    let from = crate::code::path_in(root, file, "file_path")?;
    let given = Path::new(dest);
    let dest_rel = given.strip_prefix(root).unwrap_or(given);
    if dest_rel.is_absolute()
        || dest_rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(Error::user(format!(
            "destination {dest} is not a path inside the checkout"
        ))
        .with_code(ErrorCode::InvalidPath)
        .with_detail("field", "destination"));
    }
    let rel_from = from.strip_prefix(root).unwrap_or(&from).to_owned();
    // A Rust module into another package: the module file (for a directory, its `mod.rs` or
    // the `.rs` beside it).
    let module_file = if dir {
        [rel_from.join("mod.rs"), rel_from.with_extension("rs")]
            .into_iter()
            .find(|f| root.join(f).is_file())
    } else {
        Some(rel_from.clone())
    };
    if let Some(module_file) = module_file.filter(|f| Language::of_path(f) == Some(Language::Rust))
    {
        let probe = if root.join(dest_rel).is_dir() {
            dest_rel.join("Cargo.toml")
        } else {
            dest_rel.to_owned()
        };
        let old = resolve_pr_code::rust_crate_move::package_of(root, &module_file);
        let new = resolve_pr_code::rust_crate_move::package_of(root, &probe);
        if let (Some(old), Some(new)) = (old, new)
            && old.dir != new.dir
        {
            return crate_move(root, &module_file, dest_rel);
        }
    }
    // Into an existing directory: under its own name there.
    let to = if root.join(dest_rel).is_dir() {
        dest_rel.join(rel_from.file_name().unwrap_or_default())
    } else {
        dest_rel.to_owned()
    };
    // A new package's template entry file (what create_package wrote) is replaced by the
    // file moved onto it; any other existing destination is refused by the plan.
    let template = (!dir).then(|| template_entry(root, &to)).flatten();
    let to_text = to.to_string_lossy();
    let (change, language, mut warnings) = crate::rename::path_moved(
        ctx,
        root,
        crate::rename::PathMove {
            file_path: file,
            new_name: &to_text,
            dir,
            kind_field: "kind",
            from_root: true,
            overwrite: template.is_some(),
        },
    )
    .await?;
    if let Some(lines) = template {
        warnings.push(Warning {
            code: "TEMPLATE_REPLACED".into(),
            message: format!(
                "{} held {lines} line(s), its package's template entry: the moved file replaces them",
                to.display()
            ),
        });
    }
    Ok((
        change,
        PlanMeta {
            plan_type: "MovePlan".into(),
            kind: if dir { "move.directory" } else { "move.file" }.into(),
            language,
            warnings,
        },
    ))
}

fn crate_move(root: &Path, module_file: &Path, dest: &Path) -> Result<(WorkspaceChange, PlanMeta)> {
    let planned = resolve_pr_code::rust_crate_move::plan(root, module_file, dest).map_err(|why| {
        Error::user(format!("the module cannot become a crate of its own: {why}"))
            .with_code(ErrorCode::NotSupported)
            .with_detail("field", "destination")
            .with_suggestion(
                "analyze_module_dependencies says what the module uses of its crate; create the package first with create_package.",
            )
    })?;
    let mut warnings: Vec<Warning> = planned
        .warnings
        .into_iter()
        .map(|message| Warning {
            code: "CRATE_MOVE".into(),
            message,
        })
        .collect();
    warnings.insert(
        0,
        Warning {
            code: "PERFORMED_BY".into(),
            message: format!(
                "module {} becomes crate {}; the old crate uses it under the module's name",
                planned.module, planned.new_crate
            ),
        },
    );
    Ok((
        planned.change,
        PlanMeta {
            plan_type: "MovePlan".into(),
            kind: "move.module_to_crate".into(),
            language: Some(Language::Rust.as_str().to_owned()),
            warnings,
        },
    ))
}

/// The lines of `to` when it is the entry file of the package it is in (package.json's
/// `main`, `index.js`/`index.ts`, `src/lib.rs`, `__init__.py`) and small enough to be a
/// template (at most 5 non-blank lines).
fn template_entry(root: &Path, to: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(root.join(to)).ok()?;
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    if lines > 5 {
        return None;
    }
    let dir = to.parent()?;
    let name = to.file_name()?.to_str()?;
    let main = std::fs::read_to_string(root.join(dir).join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| {
            v.get("main")
                .and_then(Value::as_str)
                .map(|m| m.trim_start_matches("./").to_owned())
        });
    let entry = main.as_deref() == Some(name)
        || (main.is_none()
            && root.join(dir).join("package.json").is_file()
            && matches!(name, "index.js" | "index.ts"))
        || name == "__init__.py"
        || (name == "lib.rs"
            && dir
                .parent()
                .is_some_and(|p| root.join(p).join("Cargo.toml").is_file()));
    entry.then_some(lines)
}
