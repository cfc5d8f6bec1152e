//! What seed 002's internal file tools share (`read_file` … `execute_batch`, toolset
//! `internal`): paths an agent names, checked to stay inside the checkout, the plan
//! metadata of plain file operations, and an LSP `WorkspaceEdit` checked part by part.

use std::path::{Component, Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_source::{Language, WorkspaceChange};
use serde_json::Value;

/// The plan type of the plain file operations (and of edits given as data): a plan made by
/// one of them applies through any of them.
pub(crate) const FILE_PLAN: &str = "FilePlan";

/// Reading tools change nothing.
pub(crate) const READS_LOCAL: crate::registry::Annotations = crate::registry::Annotations {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// An input of a planning tool: the checkout, the tool's own fields, and the fields every
/// plan takes.
macro_rules! plan_input {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The checkout. Default: the server's working directory.
            #[serde(default)]
            pub directory: Option<String>,
            $($(#[$fmeta])* pub $field: $ty,)*
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

        impl $name {
            pub(crate) fn mode(&self) -> $crate::refactor::Mode<'_> {
                $crate::refactor::Mode {
                    dry_run: self.dry_run,
                    plan_id: self.plan_id.as_deref(),
                    force: self.force,
                }
            }
        }
    };
}
pub(crate) use plan_input;

pub(crate) fn invalid_path(given: &str, why: impl std::fmt::Display, field: &str) -> Error {
    Error::user(format!("{field} {given:?} {why}"))
        .with_code(ErrorCode::InvalidPath)
        .with_detail("field", field)
        .with_suggestion("Name a path inside the checkout, relative to directory, without `..` or symbolic links.")
}

/// A path an agent names, as a change names it: relative to the checkout `root`
/// (canonical), without `..`, and through no symbolic link (each existing component is
/// checked). Absolute paths are taken only inside the checkout.
pub(crate) fn inside(root: &Path, given: &str, field: &str) -> Result<PathBuf> {
    let trimmed = given.trim();
    if trimmed.is_empty() {
        return Err(invalid_path(given, "is empty", field));
    }
    let p = Path::new(trimmed);
    let rel = if p.is_absolute() {
        p.strip_prefix(root).map_err(|_| {
            invalid_path(
                given,
                format!("is outside the checkout {}", root.display()),
                field,
            )
        })?
    } else {
        p
    };
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            _ => return Err(invalid_path(given, "leaves the checkout (`..`)", field)),
        }
    }
    if out.as_os_str().is_empty() {
        return Err(invalid_path(given, "names the checkout itself", field));
    }
    let mut at = root.to_owned();
    for c in out.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = at.strip_prefix(root).unwrap_or(&at).display().to_string();
                return Err(invalid_path(
                    given,
                    format!("goes through the symbolic link {link}"),
                    field,
                ));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(out)
}

/// What is at a relative path: a file, a directory, or nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Directory,
    Missing,
}

pub(crate) fn kind_at(root: &Path, rel: &Path) -> Kind {
    match std::fs::symlink_metadata(root.join(rel)) {
        Ok(m) if m.is_dir() => Kind::Directory,
        Ok(_) => Kind::File,
        Err(_) => Kind::Missing,
    }
}

/// The field a plan needs (an apply by plan_id needs none).
pub(crate) fn needed<'a>(tool: &str, value: Option<&'a str>, field: &str) -> Result<&'a str> {
    value.ok_or_else(|| {
        Error::user(format!(
            "{tool} needs {field} to plan; only an apply by plan_id goes without"
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", field)
    })
}

pub(crate) fn meta(kind: &str, warnings: Vec<Warning>) -> PlanMeta {
    PlanMeta {
        plan_type: FILE_PLAN.into(),
        kind: kind.into(),
        language: None,
        warnings,
    }
}

/// A rename or move of source files: the plain file tools rewrite no import, and `rename`
/// does.
pub(crate) fn imports_not_rewritten(root: &Path, from: &Path, kind: &str) -> Option<Warning> {
    let full = root.join(from);
    let source = if full.is_dir() {
        resolve_pr_source::Walk::sources(root)
            .under(from)
            .files(1, |p| Language::of_path(p).is_some())
            .is_ok_and(|w| !w.files.is_empty())
    } else {
        Language::of_path(&full).is_some()
    };
    source.then(|| Warning {
        code: "IMPORTS_NOT_REWRITTEN".into(),
        message: format!(
            "imports that name {} were not rewritten: the rename tool (kind {kind}) rewrites them",
            from.display()
        ),
    })
}

fn bad_edit(pointer: &str, why: impl std::fmt::Display) -> Error {
    Error::user(format!("{pointer}: {why}"))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", pointer)
        .with_suggestion("Fix that part of the WorkspaceEdit (LSP's: positions from 0, characters in UTF-16 units) and call again.")
}

/// The file URI's path inside the checkout, or the error naming `pointer`.
fn uri_inside(root: &Path, value: &Value, pointer: &str) -> Result<()> {
    let Some(uri) = value.as_str() else {
        return Err(bad_edit(pointer, "expected a file URI string"));
    };
    let path = url::Url::parse(uri)
        .ok()
        .filter(|u| u.scheme() == "file")
        .and_then(|u| u.to_file_path().ok())
        .ok_or_else(|| bad_edit(pointer, format!("{uri:?} is not a file URI")))?;
    let mut e = match inside(root, &path.to_string_lossy(), pointer) {
        Ok(_) => return Ok(()),
        Err(e) => e,
    };
    e.code = Some(ErrorCode::InvalidPath);
    Err(e)
}

fn check_position(p: &Value, pointer: &str) -> Result<(u64, u64)> {
    let line = p["line"].as_u64();
    let character = p["character"].as_u64();
    match (line, character) {
        (Some(l), Some(c)) => Ok((l, c)),
        _ => Err(bad_edit(
            pointer,
            "expected {line, character}, whole numbers from 0",
        )),
    }
}

fn check_text_edits(edits: &Value, pointer: &str) -> Result<()> {
    let Some(list) = edits.as_array() else {
        return Err(bad_edit(pointer, "expected an array of text edits"));
    };
    for (j, e) in list.iter().enumerate() {
        let at = format!("{pointer}[{j}]");
        let range = &e["range"];
        let start = check_position(&range["start"], &format!("{at}.range"))?;
        let end = check_position(&range["end"], &format!("{at}.range"))?;
        if end < start {
            return Err(bad_edit(&format!("{at}.range"), "ends before it starts"));
        }
        if !e["newText"].is_string() {
            return Err(bad_edit(&format!("{at}.newText"), "expected a string"));
        }
    }
    Ok(())
}

/// Checks the shape of an LSP `WorkspaceEdit` (`field` names it, as `edit`), every URI
/// inside the checkout.
fn check_edit(root: &Path, edit: &Value, field: &str) -> Result<()> {
    let Some(obj) = edit.as_object() else {
        return Err(bad_edit(
            field,
            "expected a WorkspaceEdit object (changes or documentChanges)",
        ));
    };
    if let Some(steps) = obj.get("documentChanges") {
        let Some(steps) = steps.as_array() else {
            return Err(bad_edit(
                &format!("{field}.documentChanges"),
                "expected an array",
            ));
        };
        for (i, step) in steps.iter().enumerate() {
            let at = format!("{field}.documentChanges[{i}]");
            match step.get("kind").map(|k| k.as_str()) {
                None => {
                    uri_inside(
                        root,
                        &step["textDocument"]["uri"],
                        &format!("{at}.textDocument.uri"),
                    )?;
                    check_text_edits(&step["edits"], &format!("{at}.edits"))?;
                }
                Some(Some("create" | "delete")) => {
                    uri_inside(root, &step["uri"], &format!("{at}.uri"))?
                }
                Some(Some("rename")) => {
                    uri_inside(root, &step["oldUri"], &format!("{at}.oldUri"))?;
                    uri_inside(root, &step["newUri"], &format!("{at}.newUri"))?;
                }
                Some(_) => {
                    return Err(bad_edit(
                        &format!("{at}.kind"),
                        "expected create, rename or delete",
                    ));
                }
            }
            if let Some(options) = step.get("options")
                && !options.is_object()
            {
                return Err(bad_edit(&format!("{at}.options"), "expected an object"));
            }
        }
    } else if let Some(changes) = obj.get("changes") {
        let Some(map) = changes.as_object() else {
            return Err(bad_edit(
                &format!("{field}.changes"),
                "expected an object of URI to edits",
            ));
        };
        for (uri, edits) in map {
            let at = format!("{field}.changes[{uri:?}]");
            uri_inside(root, &Value::String(uri.clone()), &at)?;
            check_text_edits(edits, &at)?;
        }
    } else {
        return Err(bad_edit(field, "has neither changes nor documentChanges"));
    }
    Ok(())
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// An LSP `WorkspaceEdit` as a change of the checkout: its shape checked, then converted
/// (`resolve_pr_lsp::refactor::to_change`). A part that does not apply is named by its
/// pointer (`edit.documentChanges[2].edits[0]`), found by converting ever longer prefixes.
pub(crate) fn workspace_edit_change(
    root: &Path,
    edit: &Value,
    field: &str,
) -> Result<WorkspaceChange> {
    check_edit(root, edit, field)?;
    let convert = |e: &Value| resolve_pr_lsp::refactor::to_change(root, e, &read);
    let why = match convert(edit) {
        Ok(change) => return Ok(change),
        Err(e) => e.to_string(),
    };
    if let Some(steps) = edit["documentChanges"].as_array() {
        for i in 0..steps.len() {
            let prefix = serde_json::json!({"documentChanges": steps[..=i]});
            let Err(e) = convert(&prefix) else { continue };
            let at = format!("{field}.documentChanges[{i}]");
            if let Some(edits) = steps[i]["edits"].as_array() {
                for j in 0..edits.len() {
                    let mut step = steps[i].clone();
                    step["edits"] = Value::Array(edits[..=j].to_vec());
                    let mut upto = steps[..i].to_vec();
                    upto.push(step);
                    if let Err(e) = convert(&serde_json::json!({"documentChanges": upto})) {
                        return Err(bad_edit(&format!("{at}.edits[{j}].range"), e));
                    }
                }
            }
            return Err(bad_edit(&at, e));
        }
    } else if let Some(map) = edit["changes"].as_object() {
        for (uri, edits) in map {
            let one = serde_json::json!({"changes": {uri.clone(): edits.clone()}});
            if let Err(e) = convert(&one) {
                return Err(bad_edit(&format!("{field}.changes[{uri:?}]"), e));
            }
        }
    }
    Err(bad_edit(field, why))
}

/// A file or directory under a new name (`from`, `to` as the agent gave them), checked:
/// `from` is what `want` says, `to` is free (unless `overwrite`) and not inside `from`.
pub(crate) fn renamed(
    root: &Path,
    from: &str,
    to: &str,
    overwrite: bool,
    want: Kind,
    kind: &str,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let rel_from = inside(root, from, "from")?;
    let rel_to = inside(root, to, "to")?;
    let what = if want == Kind::Directory {
        "a directory"
    } else {
        "a file"
    };
    if kind_at(root, &rel_from) != want {
        return Err(invalid_path(from, format!("is not {what}"), "from"));
    }
    if rel_to.starts_with(&rel_from) {
        return Err(invalid_path(to, format!("is {from} or inside it"), "to"));
    }
    match kind_at(root, &rel_to) {
        Kind::Missing => {}
        Kind::File if overwrite && want == Kind::File => {}
        _ => {
            return Err(
                invalid_path(to, "exists", "to").with_suggestion(if want == Kind::File {
                    "Pass overwrite: true to replace it."
                } else {
                    "Name a path that does not exist."
                }),
            );
        }
    }
    let shown = if want == Kind::Directory {
        "directory"
    } else {
        "file"
    };
    let warnings = imports_not_rewritten(root, &rel_from, shown)
        .into_iter()
        .collect();
    let change = WorkspaceChange {
        changes: vec![resolve_pr_source::FileChange::Rename {
            from: rel_from,
            to: rel_to,
            overwrite,
            ignore_if_exists: false,
        }],
    };
    Ok((change, meta(kind, warnings)))
}

/// The plan type of edits given as data (`apply_workspace_edit`, `execute_edits`).
pub(crate) const EDIT_PLAN: &str = "WorkspaceEditPlan";

/// The one language of the files a change names, if there is one: the checker that
/// verifies the plan.
pub(crate) fn language_of(change: &WorkspaceChange) -> Option<String> {
    let mut languages: Vec<Language> = change
        .named_paths()
        .into_iter()
        .filter_map(Language::of_path)
        .collect();
    languages.sort_by_key(|l| l.as_str());
    languages.dedup();
    match languages.as_slice() {
        [one] => Some(one.as_str().to_owned()),
        _ => None,
    }
}
