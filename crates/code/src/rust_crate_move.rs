//! Rust's `move` of a whole module into a crate of its own (the package an agent made with
//! `create_package`), by the syntax tree and the two manifests. Every path that named the
//! module keeps working:
//!
//! - the module file becomes the new crate's library root, and its submodule files the
//!   new crate's modules (`src/m.rs` + `src/m/*.rs`, or `src/m/mod.rs` + its siblings);
//! - the old crate's `mod m;` becomes `use new_crate as m;` with the declaration's own
//!   visibility and attributes, so `crate::m::X`, `m::X` and a `pub` module's users outside
//!   the crate still resolve;
//! - `pub(crate)` (and a top-level `pub(super)`) in the moved code become `pub`: the old
//!   crate used them, and now reaches them across a crate boundary; `crate::m::` inside the
//!   module becomes `crate::`; `extern crate alloc;` is added when the code names `alloc::`
//!   (a `no_std` crate's habit);
//! - the old crate's manifest gets a path dependency on the new crate.
//!
//! - the crates the moved code names go into the new manifest, copied from the old one as
//!   written (what `extract_dependencies` does), so the plan builds on its own.
//!
//! A module that uses other items of its crate (`crate::other`, `super::` out of the
//! module) cannot leave it without a dependency cycle: refused, naming what it uses.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use resolve_pr_source::{FileChange, TextEdit, TextRange, WorkspaceChange};
use tree_sitter::Node;

/// A planned move of a module into another crate.
#[derive(Debug, Clone)]
pub struct CrateMove {
    pub change: WorkspaceChange,
    /// The module's path in the old crate (`errors`, `hir::literal`).
    pub module: String,
    /// The new crate's name as code names it (`fern_errors`).
    pub new_crate: String,
    /// What the plan should say (doc tests that name the old crate, a replaced library root).
    pub warnings: Vec<String>,
}

/// A Cargo package: its directory (relative to the checkout), name, version and library root.
#[derive(Debug, Clone)]
pub struct Package {
    pub dir: PathBuf,
    pub name: String,
    pub version: Option<String>,
    pub lib: PathBuf,
    pub manifest: String,
}

impl Package {
    /// The name code uses for the crate (`-` as `_`, or `[lib] name`).
    pub fn crate_name(&self) -> String {
        let lib_name = toml::from_str::<toml::Value>(&self.manifest)
            .ok()
            .and_then(|v| v.get("lib")?.get("name")?.as_str().map(str::to_owned));
        lib_name.unwrap_or_else(|| self.name.replace('-', "_"))
    }
}

/// The package holding `path` (relative to `root`): the nearest directory above it, within
/// the checkout, whose Cargo.toml has a `[package]`.
pub fn package_of(root: &Path, path: &Path) -> Option<Package> {
    let mut dir = path.parent();
    while let Some(d) = dir {
        let manifest = root.join(d).join("Cargo.toml");
        let value = std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|text| Some((toml::from_str::<toml::Value>(&text).ok()?, text)));
        if let Some((value, text)) = value
            && let Some(package) = value.get("package")
        {
            let name = package.get("name")?.as_str()?.to_owned();
            let version = match package.get("version") {
                Some(toml::Value::String(v)) => Some(v.clone()),
                Some(toml::Value::Table(t))
                    if t.get("workspace").and_then(toml::Value::as_bool) == Some(true) =>
                {
                    workspace_version(root, d)
                }
                _ => None,
            };
            let lib = value
                .get("lib")
                .and_then(|l| l.get("path"))
                .and_then(toml::Value::as_str)
                .map_or_else(|| PathBuf::from("src/lib.rs"), PathBuf::from);
            return Some(Package {
                dir: d.to_owned(),
                name,
                version,
                lib: d.join(lib),
                manifest: text,
            });
        }
        if d.as_os_str().is_empty() {
            break;
        }
        dir = d.parent();
    }
    None
}

/// `[workspace.package] version` of the workspace above `dir`.
fn workspace_version(root: &Path, dir: &Path) -> Option<String> {
    let mut at = Some(dir);
    while let Some(d) = at {
        let value = std::fs::read_to_string(root.join(d).join("Cargo.toml"))
            .ok()
            .and_then(|text| toml::from_str::<toml::Value>(&text).ok());
        if let Some(ws) = value.as_ref().and_then(|v| v.get("workspace")) {
            return ws
                .get("package")?
                .get("version")?
                .as_str()
                .map(str::to_owned);
        }
        if d.as_os_str().is_empty() {
            break;
        }
        at = d.parent();
    }
    None
}

fn parse(source: &str, what: &str) -> Result<tree_sitter::Tree, String> {
    resolve_pr_syntax::parse_tree(resolve_pr_syntax::Dialect::Rust, source)
        .map_err(|e| format!("{what} does not parse: {e}"))
}

fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    &source[node.byte_range()]
}

/// The `mod name;` declaration in `source`'s top level (not one with a body).
fn mod_declaration<'t>(root: Node<'t>, source: &str, name: &str) -> Option<Node<'t>> {
    let mut cursor = root.walk();
    root.children(&mut cursor).find(|item| {
        item.kind() == "mod_item"
            && item.child_by_field_name("body").is_none()
            && item
                .child_by_field_name("name")
                .is_some_and(|n| text(n, source) == name)
    })
}

/// Whether an attribute right above `item` is `#[path = ...]` (a module file placed by hand).
fn has_path_attribute(item: Node<'_>, source: &str) -> bool {
    let mut prev = item.prev_sibling();
    while let Some(p) = prev {
        if p.kind() != "attribute_item" {
            break;
        }
        if text(p, source).replace(' ', "").starts_with("#[path") {
            return true;
        }
        prev = p.prev_sibling();
    }
    false
}

/// What one moved file names outside the module, and the edits it needs.
struct Scan {
    escapes: BTreeSet<String>,
    edits: Vec<TextEdit>,
    names_alloc: bool,
    doc_tests_name: bool,
}

/// `depth`: how many modules below the moved module's top this file is (its top file: 0).
fn scan(source: &str, depth: usize, module: &str, old_crate: &str) -> Result<Scan, String> {
    let tree = parse(source, "the module")?;
    let mut out = Scan {
        escapes: BTreeSet::new(),
        edits: Vec::new(),
        names_alloc: false,
        doc_tests_name: false,
    };
    // (node, inline modules it is inside)
    let mut stack = vec![(tree.root_node(), 0usize)];
    while let Some((node, nested)) = stack.pop() {
        match node.kind() {
            "visibility_modifier" => {
                let vis: String = text(node, source)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                let top_level = depth == 0 && nested == 0;
                if vis == "pub(crate)"
                    || vis.starts_with("pub(in")
                    || (vis == "pub(super)" && top_level)
                {
                    out.edits.push(TextEdit::replace(
                        TextRange::new(node.start_byte(), node.end_byte()),
                        "pub",
                    ));
                }
            }
            "crate" => {
                let rest = &source[node.end_byte()..];
                let after = rest.trim_start();
                if let Some(path) = after.strip_prefix("::") {
                    let path = path.trim_start();
                    let segment: String = path
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if segment == module {
                        // `crate::m::x` → `crate::x`: delete `m::`.
                        let seg_start = node.end_byte() + (rest.len() - path.len());
                        let tail = &source[seg_start + segment.len()..];
                        let tail_trim = tail.trim_start();
                        if let Some(after_colons) = tail_trim.strip_prefix("::") {
                            let end = seg_start
                                + segment.len()
                                + (tail.len() - tail_trim.len())
                                + 2
                                + (after_colons.len() - after_colons.trim_start().len());
                            out.edits
                                .push(TextEdit::delete(TextRange::new(seg_start, end)));
                        } else {
                            out.escapes
                                .insert(format!("crate::{segment} (the module itself by path)"));
                        }
                    } else if segment.is_empty() {
                        if path.starts_with('{') {
                            out.escapes.insert("crate::{…}".into());
                        }
                    } else {
                        out.escapes.insert(format!("crate::{segment}"));
                    }
                }
            }
            "super"
                if node
                    .parent()
                    .is_none_or(|p| p.kind() != "visibility_modifier") =>
            {
                // Count a chain once, from its first `super`.
                let before = source[..node.start_byte()].trim_end();
                if !before.ends_with("::") {
                    let mut count = 0;
                    let mut rest = &source[node.start_byte()..];
                    while let Some(r) = rest.strip_prefix("super") {
                        count += 1;
                        let r = r.trim_start();
                        match r.strip_prefix("::") {
                            Some(r) => rest = r.trim_start(),
                            None => break,
                        }
                    }
                    if count > depth + nested {
                        let line = source[..node.start_byte()].matches('\n').count() + 1;
                        out.escapes
                            .insert(format!("super:: at line {line} (outside the module)"));
                    }
                }
            }
            "scoped_identifier"
            | "scoped_type_identifier"
            | "scoped_use_list"
            | "use_declaration"
                if text(node, source).starts_with("alloc::")
                    || text(node, source).starts_with("use alloc::") =>
            {
                out.names_alloc = true;
            }
            "line_comment" | "block_comment" => {
                let t = text(node, source);
                if t.contains(&format!("{old_crate}::")) {
                    out.doc_tests_name = true;
                }
            }
            _ => {}
        }
        let inner = if node.kind() == "mod_item" && node.child_by_field_name("body").is_some() {
            nested + 1
        } else {
            nested
        };
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            stack.push((child, inner));
        }
    }
    Ok(out)
}

/// Where `extern crate alloc;` goes: after the file's inner docs and attributes.
fn after_inner_attributes(source: &str) -> usize {
    let mut at = 0;
    for line in source.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with("//!") || t.starts_with("#![") || t.is_empty() {
            at += line.len();
        } else {
            break;
        }
    }
    at
}

/// A module's files: the file itself and, under its directory, its submodules (relative to
/// that directory), which keep their places under the new crate's `src`.
fn module_files(root: &Path, file: &Path) -> (PathBuf, Vec<PathBuf>) {
    let dir = if file.file_name().is_some_and(|n| n == "mod.rs") {
        file.parent().map(Path::to_owned)
    } else {
        Some(file.with_extension(""))
    };
    let mut children = Vec::new();
    if let Some(dir) = dir.filter(|d| root.join(d).is_dir()) {
        let walk = resolve_pr_source::Walk::checkout(root)
            .under(&root.join(&dir))
            .files(100_000, |_| true)
            .unwrap_or_default();
        for f in walk.files {
            let rel = f.strip_prefix(root).unwrap_or(&f).to_owned();
            if rel != file {
                children.push(rel);
            }
        }
        children.sort();
        return (dir, children);
    }
    (file.with_extension(""), children)
}

/// Plans moving the module in `module_file` (relative to `root`) into the library root of the
/// package at `destination` (its directory, or its library root file).
pub fn plan(root: &Path, module_file: &Path, destination: &Path) -> Result<CrateMove, String> {
    let old = package_of(root, module_file)
        .ok_or_else(|| format!("{} is in no Cargo package", module_file.display()))?;
    let dest_probe = if root.join(destination).is_dir() {
        destination.join("Cargo.toml")
    } else {
        destination.to_owned()
    };
    let new = package_of(root, &dest_probe).ok_or_else(|| {
        format!(
            "{} is in no Cargo package: make it first (create_package)",
            destination.display()
        )
    })?;
    if new.dir == old.dir {
        return Err("the destination is in the module's own crate: move it with kind file into a module path".into());
    }
    if !(destination == new.dir || destination == new.lib) {
        return Err(format!(
            "a module moves into the new crate's library root ({}), not {}",
            new.lib.display(),
            destination.display()
        ));
    }
    let old_dependency_of_new = toml::from_str::<toml::Value>(&new.manifest)
        .ok()
        .is_some_and(|v| {
            ["dependencies", "dev-dependencies", "build-dependencies"]
                .iter()
                .any(|t| v.get(t).and_then(|d| d.get(&old.name)).is_some())
        });
    if old_dependency_of_new {
        return Err(format!(
            "{} depends on {}: moving code the other way would make a dependency cycle",
            new.name, old.name
        ));
    }
    let src_dir = old.lib.parent().map(Path::to_owned).unwrap_or_default();
    let under_src = module_file.strip_prefix(&src_dir).map_err(|_| {
        format!(
            "{} is not under {}",
            module_file.display(),
            src_dir.display()
        )
    })?;
    let path = crate::rust_move::module_path(under_src)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| {
            format!(
                "{} is not a module of {} (a crate root or a binary)",
                module_file.display(),
                old.name
            )
        })?;
    let name = path.last().cloned().unwrap_or_default();
    // The file declaring it: the crate root, or the parent module's file.
    let parent_file = if path.len() == 1 {
        old.lib.clone()
    } else {
        let parent: PathBuf = path[..path.len() - 1].iter().collect();
        let flat = src_dir.join(&parent).with_extension("rs");
        if root.join(&flat).is_file() {
            flat
        } else {
            src_dir.join(parent).join("mod.rs")
        }
    };
    let parent_text = std::fs::read_to_string(root.join(&parent_file))
        .map_err(|e| format!("reading {}: {e}", parent_file.display()))?;
    let parent_tree = parse(&parent_text, &parent_file.display().to_string())?;
    let decl = mod_declaration(parent_tree.root_node(), &parent_text, &name).ok_or_else(|| {
        format!(
            "{} declares no `mod {name};` at its top level",
            parent_file.display()
        )
    })?;
    if has_path_attribute(decl, &parent_text) {
        return Err(format!(
            "`mod {name};` in {} has a #[path] attribute: move the file it names",
            parent_file.display()
        ));
    }
    let mut cursor = decl.walk();
    let visibility = decl
        .children(&mut cursor)
        .find(|c| c.kind() == "visibility_modifier")
        .map(|v| format!("{} ", text(v, &parent_text)))
        .unwrap_or_default();
    let new_crate = new.crate_name();
    let old_crate = old.crate_name();

    let (module_dir, children) = module_files(root, module_file);
    let dest_src = new.lib.parent().map(Path::to_owned).unwrap_or_default();
    let mut change = WorkspaceChange::default();
    let mut escapes = BTreeSet::new();
    let mut warnings = Vec::new();
    let mut names_alloc = false;
    let mut doc_tests = false;
    let mut moved_edits = Vec::new();
    let mut uses = std::collections::BTreeMap::new();
    for (file, to) in
        std::iter::once((module_file.to_owned(), new.lib.clone())).chain(children.iter().map(|c| {
            (
                c.clone(),
                dest_src.join(c.strip_prefix(&module_dir).unwrap_or(c)),
            )
        }))
    {
        let source = std::fs::read_to_string(root.join(&file))
            .map_err(|e| format!("reading {}: {e}", file.display()))?;
        let depth = if file == module_file {
            0
        } else {
            // Modules below the moved one: its directory's components, less `mod.rs`.
            let under = file.strip_prefix(&module_dir).unwrap_or(&file);
            crate::rust_move::module_path(under).map_or(1, |p| p.len())
        };
        let found = scan(&source, depth, &name, &old_crate)?;
        for (krate, kind) in crate::manifests::cargo::rust_uses(&source) {
            let e = uses.entry(krate).or_insert(kind);
            *e = (*e).min(kind);
        }
        escapes.extend(
            found
                .escapes
                .into_iter()
                .map(|e| format!("{}: {e}", file.display())),
        );
        names_alloc |= found.names_alloc;
        doc_tests |= found.doc_tests_name;
        moved_edits.push((to.clone(), source, found.edits));
        let overwrite = root.join(&to).exists();
        if overwrite && to != new.lib {
            return Err(format!("{} already exists in {}", to.display(), new.name));
        }
        change.changes.push(FileChange::Rename {
            from: file,
            to,
            overwrite,
            ignore_if_exists: false,
        });
    }
    if !escapes.is_empty() {
        return Err(format!(
            "the module uses its crate outside itself, so a crate of its own would depend on {} and {} on it: {}. Move what it uses first, or keep it a module",
            old.name,
            old.name,
            escapes.into_iter().collect::<Vec<_>>().join("; ")
        ));
    }
    if let Ok(existing) = std::fs::read_to_string(root.join(&new.lib)) {
        let lines = existing.lines().filter(|l| !l.trim().is_empty()).count();
        if lines > 0 {
            warnings.push(format!(
                "{} held {lines} line(s) (the new package's template): the module replaces them",
                new.lib.display()
            ));
        }
    }
    for (to, source, mut edits) in moved_edits {
        if to == new.lib && names_alloc && !source.contains("extern crate alloc") {
            edits.push(TextEdit::insert(
                after_inner_attributes(&source),
                "extern crate alloc;\n\n",
            ));
        }
        if !edits.is_empty() {
            change.changes.push(FileChange::Edit { path: to, edits });
        }
    }
    // The crates the module names, copied from the old manifest as written: the new crate
    // builds in this plan, not only after extract_dependencies.
    for own in [
        old.name.replace('-', "_"),
        "std".into(),
        "core".into(),
        "alloc".into(),
        new_crate.clone(),
    ] {
        uses.remove(&own);
    }
    let extracted = crate::manifests::cargo::copy_dependencies(
        &old.manifest,
        &new.manifest,
        &uses,
        Some((&old.dir, &new.dir)),
    )
    .map_err(|e| format!("copying the module's dependencies: {e:?}"))?;
    // The module's code was written for the old crate's edition: the new crate keeps it
    // (a literal edition only; an inherited one is the workspace's choice).
    let (text, edition_note) = same_edition(&old.manifest, &extracted.text);
    let extracted = crate::manifests::Extracted { text, ..extracted };
    warnings.extend(edition_note);
    if extracted.text != new.manifest {
        change.changes.push(FileChange::Edit {
            path: new.dir.join("Cargo.toml"),
            edits: crate::imports::line_edits(&new.manifest, &extracted.text),
        });
    }
    if !extracted.copied.is_empty() {
        warnings.push(format!(
            "dependencies the module uses, copied from {} as written: {}",
            old.dir.join("Cargo.toml").display(),
            extracted.copied.join(", ")
        ));
    }
    if !extracted.missing.is_empty() {
        warnings.push(format!(
            "named in the module but in no table of {} (left out): {}",
            old.dir.join("Cargo.toml").display(),
            extracted.missing.join(", ")
        ));
    }
    // The old crate: the declaration becomes a use of the new crate under the module's name.
    change.changes.push(FileChange::Edit {
        path: parent_file.clone(),
        edits: vec![TextEdit::replace(
            TextRange::new(decl.start_byte(), decl.end_byte()),
            format!("{visibility}use {new_crate} as {name};"),
        )],
    });
    // And its manifest, a dependency on the new one.
    let relative = relative_path(&old.dir, &new.dir);
    let manifest =
        add_path_dependency(&old.manifest, &new.name, &relative, new.version.as_deref())?;
    if manifest != old.manifest {
        change.changes.push(FileChange::Edit {
            path: old.dir.join("Cargo.toml"),
            edits: crate::imports::line_edits(&old.manifest, &manifest),
        });
    }
    if doc_tests {
        warnings.push(format!(
            "comments in the module name `{old_crate}::`: its doc tests now run in {} and would need {old_crate} (which depends on it)",
            new.name
        ));
    }
    Ok(CrateMove {
        change,
        module: path.join("::"),
        new_crate,
        warnings,
    })
}

/// `new` with `[package] edition` set to `old`'s when both are literal and differ, and what
/// was done.
fn same_edition(old: &str, new: &str) -> (String, Option<String>) {
    let edition = |text: &str| {
        toml::from_str::<toml::Value>(text)
            .ok()?
            .get("package")?
            .get("edition")?
            .as_str()
            .map(str::to_owned)
    };
    let (Some(theirs), Some(ours)) = (edition(old), edition(new)) else {
        return (new.to_owned(), None);
    };
    if theirs == ours {
        return (new.to_owned(), None);
    }
    let Ok(mut doc) = new.parse::<toml_edit::DocumentMut>() else {
        return (new.to_owned(), None);
    };
    doc["package"]["edition"] = toml_edit::value(theirs.clone());
    (
        doc.to_string(),
        Some(format!(
            "the new crate's edition is {theirs}, the module's (it was {ours})"
        )),
    )
}

/// `to` as seen from `from` (both relative to one root): `../crates/x`.
fn relative_path(from: &Path, to: &Path) -> String {
    let f: Vec<_> = from.components().collect();
    let t: Vec<_> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), f.len() - common).collect();
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// `manifest` with `name = { path, version }` in `[dependencies]`, comments and layout kept
/// (`toml_edit`). Unchanged when the dependency is there.
pub fn add_path_dependency(
    manifest: &str,
    name: &str,
    path: &str,
    version: Option<&str>,
) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = manifest
        .parse()
        .map_err(|e| format!("Cargo.toml does not parse: {e}"))?;
    let table = doc
        .entry("dependencies")
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    if table.as_table_like().is_some_and(|d| d.get(name).is_some()) {
        return Ok(manifest.to_owned());
    }
    let implicit = table.as_table().is_some_and(toml_edit::Table::is_implicit);
    let Some(deps) = table.as_table_like_mut() else {
        return Err("[dependencies] in Cargo.toml is not a table".into());
    };
    if implicit {
        // Written as `[dependencies.x]` tables (a published crate's normalized manifest):
        // one more of those.
        let mut spec = toml_edit::Table::new();
        spec.insert("path", toml_edit::value(path));
        if let Some(v) = version {
            spec.insert("version", toml_edit::value(v));
        }
        deps.insert(name, toml_edit::Item::Table(spec));
    } else {
        let mut spec = toml_edit::InlineTable::new();
        spec.insert("path", path.into());
        if let Some(v) = version {
            spec.insert("version", v.into());
        }
        deps.insert(
            name,
            toml_edit::Item::Value(toml_edit::Value::InlineTable(spec)),
        );
    }
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(source: &str, edits: &[TextEdit]) -> String {
        resolve_pr_source::apply_edits(source, edits).unwrap()
    }

    #[test]
    fn the_modules_own_paths_and_crate_visibility_are_rewritten() {
        let src = "//! Docs.\n#![allow(x)]\nuse alloc::string::String;\npub(crate) fn f() -> crate::m::T { crate::m::T }\npub(super) struct T;\nmod inner { pub(super) fn g() { super::f(); } }\n";
        let s = scan(src, 0, "m", "old").unwrap();
        assert!(s.escapes.is_empty(), "{:?}", s.escapes);
        assert!(s.names_alloc);
        let out = apply(src, &s.edits);
        assert!(out.contains("pub fn f() -> crate::T { crate::T }"), "{out}");
        assert!(out.contains("pub struct T;"), "{out}");
        assert!(
            out.contains("mod inner { pub(super) fn g()"),
            "nested pub(super) keeps its meaning: {out}"
        );
        assert_eq!(
            after_inner_attributes(src),
            "//! Docs.\n#![allow(x)]\n".len()
        );
    }

    #[test]
    fn uses_of_the_rest_of_the_crate_are_escapes() {
        let src = "use crate::other::X;\nfn f() { super::g(); }\nmod t { use super::*; fn h() { super::super::k(); } }\n";
        let s = scan(src, 0, "m", "old").unwrap();
        let escapes: Vec<_> = s.escapes.iter().cloned().collect();
        assert!(escapes.iter().any(|e| e == "crate::other"), "{escapes:?}");
        assert!(
            escapes.iter().any(|e| e.starts_with("super:: at line 2")),
            "{escapes:?}"
        );
        assert!(
            escapes.iter().any(|e| e.starts_with("super:: at line 3")),
            "{escapes:?}"
        );
        assert_eq!(
            escapes.len(),
            3,
            "use super::* inside the module stays inside: {escapes:?}"
        );
        // A submodule file one level down may name its parent, the moved module.
        let child = scan("use super::T;\n", 1, "m", "old").unwrap();
        assert!(child.escapes.is_empty());
    }

    #[test]
    fn a_path_dependency_is_added_with_comments_kept() {
        let manifest =
            "[package]\nname = \"old\" # the old one\n\n[dependencies]\n# logging\nlog = \"0.4\"\n";
        let out = add_path_dependency(manifest, "new-crate", "../new", Some("0.1.0")).unwrap();
        assert!(
            out.contains("# the old one") && out.contains("# logging"),
            "{out}"
        );
        assert!(
            out.contains("new-crate = { path = \"../new\", version = \"0.1.0\" }"),
            "{out}"
        );
        assert_eq!(
            add_path_dependency(&out, "new-crate", "../x", None).unwrap(),
            out
        );
        let normalized = "[package]\nname = \"old\"\n\n[dependencies.log]\nversion = \"0.4\"\n";
        let out = add_path_dependency(normalized, "new", "../new", None).unwrap();
        assert!(
            out.ends_with(
                "[dependencies.log]\nversion = \"0.4\"\n\n[dependencies.new]\npath = \"../new\"\n"
            ),
            "{out}"
        );
        assert_eq!(
            relative_path(Path::new("fern"), Path::new("crates/fern-errors")),
            "../crates/fern-errors"
        );
    }

    #[test]
    fn a_module_moves_into_a_new_crate_with_its_declaration_made_a_use() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |p: &str, t: &str| {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), t).unwrap();
        };
        write("Cargo.toml", "[workspace]\nmembers = [\"old\", \"new\"]\n");
        write(
            "old/Cargo.toml",
            "[package]\nname = \"old\"\nversion = \"0.1.0\"\n",
        );
        write(
            "old/src/lib.rs",
            "#[cfg(unix)]\npub mod errs;\npub use crate::errs::E;\n",
        );
        write("old/src/errs.rs", "pub(crate) enum E { A }\nmod more;\n");
        write("old/src/errs/more.rs", "use super::E;\n");
        write(
            "new/Cargo.toml",
            "[package]\nname = \"new-errs\"\nversion = \"0.2.0\"\n",
        );
        write("new/src/lib.rs", "pub fn add() {}\n");
        let planned = plan(root, Path::new("old/src/errs.rs"), Path::new("new")).unwrap();
        assert_eq!(planned.new_crate, "new_errs");
        assert_eq!(planned.module, "errs");
        let show = format!("{:?}", planned.change.changes);
        assert!(
            show.contains("old/src/errs/more.rs") && show.contains("new/src/more.rs"),
            "{show}"
        );
        let lib_edit = planned.change.changes.iter().find_map(|c| match c {
            FileChange::Edit { path, edits } if path == Path::new("old/src/lib.rs") => {
                Some(edits.clone())
            }
            _ => None,
        });
        let lib = apply(
            "#[cfg(unix)]\npub mod errs;\npub use crate::errs::E;\n",
            &lib_edit.unwrap(),
        );
        assert_eq!(
            lib,
            "#[cfg(unix)]\npub use new_errs as errs;\npub use crate::errs::E;\n"
        );
        assert!(
            show.contains("new-errs = { path = \\\"../new\\\", version = \\\"0.2.0\\\" }"),
            "{show}"
        );
        assert!(
            planned.warnings.iter().any(|w| w.contains("template")),
            "{:?}",
            planned.warnings
        );
        // A module that uses the rest of its crate is refused, naming what it uses.
        write("old/src/lib.rs", "mod errs;\nmod other;\n");
        write("old/src/errs.rs", "use crate::other::X;\n");
        let refused = plan(root, Path::new("old/src/errs.rs"), Path::new("new")).unwrap_err();
        assert!(refused.contains("crate::other"), "{refused}");
    }
}
