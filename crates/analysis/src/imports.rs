//! Every import of a file as data: what it names as written, the names it binds, where.
//!
//! Read from the syntax tree for Python, TypeScript/JavaScript, Rust, Go and C; which file
//! an import names is the graph's business ([`crate::graph`] fills [`Import::resolved`]).

use tree_sitter::Node;

use crate::{Dialect, SourceFile, Span};

/// One import of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    pub file: String,
    /// The module as written: `./a`, `os.path`, `..m`, `crate::x::y`, `fmt`, `x.h`. A
    /// Rust use tree gives one import per leaf, its whole path (`crate::a::B`; a glob's
    /// path without the `*`).
    pub specifier: String,
    /// The statement, or for a Rust use tree the leaf, or for `require`/`import()` the call.
    pub span: Span,
    pub names: Vec<ImportedName>,
    /// The loaded file it names, filled by [`crate::graph::graph`]; for a Go import, the
    /// package's folder with a trailing `/` (`internal/store/`), every file of it a target.
    pub resolved: Option<String>,
    pub kind: ImportKind,
}

/// A name an import binds.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedName {
    /// The name bound in the file (`*` for a glob or star import; for a re-export the
    /// name exported).
    pub local: String,
    /// The name in the imported module: `default`, `*` for the whole module, or the
    /// module itself for Python `import a.b` (`a.b`, bound as `a`).
    pub imported: String,
    /// Of the local name (of the imported name when there is no alias).
    pub span: Span,
    /// `import type`, `import { type A }`, `export type { A } from`.
    pub type_only: bool,
}

/// How a file imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ImportKind {
    /// `import`, `from … import`, `use`, Go's `import`.
    Static,
    /// Imported for its effect only: `import './polyfill'`, Go's `import _ "x"`.
    SideEffect,
    /// `export … from` (TS/JS), `pub use` (Rust).
    ReExport,
    /// `require('x')`, `import x = require('x')`.
    Require,
    /// `import('x')` with a literal.
    Dynamic,
    /// Rust `mod x;`: the file is part of this crate, declared here.
    Module,
    /// Rust `extern crate x;`.
    ExternCrate,
    /// C `#include "x.h"`.
    Include,
    /// C `#include <x.h>`.
    SystemInclude,
}

/// Every import of `file`, in source order (Rust leaves in tree order). Imports inside
/// functions and conditional blocks count: they load the module as well.
pub fn imports(file: &SourceFile) -> Vec<Import> {
    let mut out = Vec::new();
    let mut stack = vec![file.root()];
    let mut cursor = file.root().walk();
    while let Some(node) = stack.pop() {
        let descend = match file.dialect {
            Dialect::Python => python(file, node, &mut out),
            Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
                script(file, node, &mut out)
            }
            Dialect::Rust => rust(file, node, &mut out),
            Dialect::Go => go(file, node, &mut out),
            Dialect::C => c(file, node, &mut out),
            Dialect::Cpp => false,
        };
        if descend {
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out
}

fn new_import(file: &SourceFile, specifier: String, node: Node<'_>, kind: ImportKind) -> Import {
    Import {
        file: file.path.clone(),
        specifier,
        span: file.span(node),
        names: Vec::new(),
        resolved: None,
        kind,
    }
}

fn name(file: &SourceFile, local: Node<'_>, imported: &str, type_only: bool) -> ImportedName {
    ImportedName {
        local: file.text_of(local).to_owned(),
        imported: imported.to_owned(),
        span: file.span(local),
        type_only,
    }
}

fn has_token(node: Node<'_>, token: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|c| !c.is_named() && c.kind() == token)
}

// ---- Python ----

/// Returns whether to look inside `node`.
fn python(file: &SourceFile, node: Node<'_>, out: &mut Vec<Import>) -> bool {
    let mut cursor = node.walk();
    match node.kind() {
        "import_statement" => {
            for n in node.children_by_field_name("name", &mut cursor) {
                let (dotted, alias) = match n.kind() {
                    "aliased_import" => (
                        n.child_by_field_name("name"),
                        n.child_by_field_name("alias"),
                    ),
                    _ => (Some(n), None),
                };
                let Some(dotted) = dotted else { continue };
                let module = dotted_text(file, dotted);
                if module.is_empty() {
                    continue;
                }
                let mut import = new_import(file, module.clone(), node, ImportKind::Static);
                import.names.push(match alias {
                    Some(a) => name(file, a, &module, false),
                    // `import a.b` binds `a`.
                    None => {
                        let first = dotted.named_child(0).unwrap_or(dotted);
                        name(file, first, &module, false)
                    }
                });
                out.push(import);
            }
            false
        }
        "import_from_statement" | "future_import_statement" => {
            let module = match node.child_by_field_name("module_name") {
                Some(m) if m.kind() == "relative_import" => {
                    let mut text = String::new();
                    let mut c = m.walk();
                    for part in m.named_children(&mut c) {
                        match part.kind() {
                            "import_prefix" => text.push_str(file.text_of(part).trim()),
                            _ => text.push_str(&dotted_text(file, part)),
                        }
                    }
                    text
                }
                Some(m) => dotted_text(file, m),
                None => "__future__".to_owned(),
            };
            if module.is_empty() {
                return false;
            }
            let mut import = new_import(file, module, node, ImportKind::Static);
            for n in node.children_by_field_name("name", &mut cursor) {
                let (imported, local) = match n.kind() {
                    "aliased_import" => (
                        n.child_by_field_name("name"),
                        n.child_by_field_name("alias"),
                    ),
                    _ => (Some(n), Some(n)),
                };
                let (Some(imported), Some(local)) = (imported, local) else {
                    continue;
                };
                import
                    .names
                    .push(name(file, local, &dotted_text(file, imported), false));
            }
            let mut c = node.walk();
            if let Some(star) = node
                .children(&mut c)
                .find(|c| c.kind() == "wildcard_import")
            {
                import.names.push(name(file, star, "*", false));
            }
            out.push(import);
            false
        }
        _ => true,
    }
}

/// A dotted name without the spaces and comments the grammar allows inside it.
fn dotted_text(file: &SourceFile, node: Node<'_>) -> String {
    let mut cursor = node.walk();
    let parts: Vec<&str> = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "identifier")
        .map(|c| file.text_of(c))
        .collect();
    if parts.is_empty() {
        file.text_of(node).trim().to_owned()
    } else {
        parts.join(".")
    }
}

// ---- TypeScript / JavaScript ----

fn string_value(file: &SourceFile, node: Node<'_>) -> Option<String> {
    if !matches!(node.kind(), "string" | "template_string") {
        return None;
    }
    let mut cursor = node.walk();
    if node
        .named_children(&mut cursor)
        .any(|c| c.kind() == "template_substitution")
    {
        return None;
    }
    let text = file.text_of(node);
    let inner = text.get(1..text.len().saturating_sub(1))?;
    Some(inner.to_owned())
}

fn script(file: &SourceFile, node: Node<'_>, out: &mut Vec<Import>) -> bool {
    let mut cursor = node.walk();
    match node.kind() {
        "import_statement" => {
            let type_only = has_token(node, "type");
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            if let Some(req) = children
                .iter()
                .find(|c| c.kind() == "import_require_clause")
            {
                // `import x = require('y')`
                let Some(spec) = req
                    .child_by_field_name("source")
                    .and_then(|s| string_value(file, s))
                else {
                    return false;
                };
                let mut import = new_import(file, spec, node, ImportKind::Require);
                let mut c = req.walk();
                if let Some(local) = req
                    .named_children(&mut c)
                    .find(|c| c.kind() == "identifier")
                {
                    import.names.push(name(file, local, "*", type_only));
                }
                out.push(import);
                return false;
            }
            let Some(spec) = node
                .child_by_field_name("source")
                .and_then(|s| string_value(file, s))
            else {
                return false;
            };
            let clause = children.iter().find(|c| c.kind() == "import_clause");
            let kind = if clause.is_some() {
                ImportKind::Static
            } else {
                ImportKind::SideEffect
            };
            let mut import = new_import(file, spec, node, kind);
            if let Some(clause) = clause {
                let mut c = clause.walk();
                for part in clause.named_children(&mut c) {
                    match part.kind() {
                        "identifier" => import.names.push(name(file, part, "default", type_only)),
                        "namespace_import" => {
                            let mut c2 = part.walk();
                            if let Some(local) = part
                                .named_children(&mut c2)
                                .find(|c| c.kind() == "identifier")
                            {
                                import.names.push(name(file, local, "*", type_only));
                            }
                        }
                        "named_imports" => {
                            let mut c2 = part.walk();
                            for spec in part.named_children(&mut c2) {
                                if spec.kind() != "import_specifier" {
                                    continue;
                                }
                                let Some(imported) = spec.child_by_field_name("name") else {
                                    continue;
                                };
                                let local = spec.child_by_field_name("alias").unwrap_or(imported);
                                let imported = unquote(file.text_of(imported));
                                import.names.push(name(
                                    file,
                                    local,
                                    &imported,
                                    type_only || has_token(spec, "type"),
                                ));
                            }
                        }
                        _ => {}
                    }
                }
            }
            out.push(import);
            false
        }
        "export_statement" => {
            let Some(spec) = node
                .child_by_field_name("source")
                .and_then(|s| string_value(file, s))
            else {
                return true;
            };
            let type_only = has_token(node, "type");
            let mut import = new_import(file, spec, node, ImportKind::ReExport);
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            let mut named = false;
            for part in &children {
                match part.kind() {
                    "export_clause" => {
                        named = true;
                        let mut c = part.walk();
                        for spec in part.named_children(&mut c) {
                            if spec.kind() != "export_specifier" {
                                continue;
                            }
                            let Some(imported) = spec.child_by_field_name("name") else {
                                continue;
                            };
                            let local = spec.child_by_field_name("alias").unwrap_or(imported);
                            let mut n = name(
                                file,
                                local,
                                &unquote(file.text_of(imported)),
                                type_only || has_token(spec, "type"),
                            );
                            n.local = unquote(&n.local);
                            import.names.push(n);
                        }
                    }
                    "namespace_export" => {
                        named = true;
                        let mut c = part.walk();
                        if let Some(local) = part.named_children(&mut c).next() {
                            let mut n = name(file, local, "*", type_only);
                            n.local = unquote(&n.local);
                            import.names.push(n);
                        }
                    }
                    _ => {}
                }
            }
            if !named && has_token(node, "*") {
                // `export * from './m'`
                let star = {
                    let mut c = node.walk();
                    node.children(&mut c).find(|c| c.kind() == "*")
                };
                if let Some(star) = star {
                    import.names.push(name(file, star, "*", type_only));
                }
            }
            out.push(import);
            false
        }
        "call_expression" => {
            let (Some(function), Some(args)) = (
                node.child_by_field_name("function"),
                node.child_by_field_name("arguments"),
            ) else {
                return true;
            };
            let kind = match function.kind() {
                "import" => ImportKind::Dynamic,
                "identifier" if file.text_of(function) == "require" => ImportKind::Require,
                _ => return true,
            };
            let mut c = args.walk();
            let first: Vec<Node<'_>> = args.named_children(&mut c).collect();
            let spec = match first.as_slice() {
                [only] => string_value(file, *only),
                _ => None,
            };
            let Some(spec) = spec else { return true };
            let mut import = new_import(file, spec, node, kind);
            if kind == ImportKind::Require {
                require_names(file, node, &mut import);
            }
            out.push(import);
            false
        }
        _ => true,
    }
}

/// `const x = require('m')` binds the module; `const {a, b: c} = require('m')` its names.
fn require_names(file: &SourceFile, call: Node<'_>, import: &mut Import) {
    let Some(declarator) = call.parent().filter(|p| p.kind() == "variable_declarator") else {
        return;
    };
    let Some(target) = declarator.child_by_field_name("name") else {
        return;
    };
    match target.kind() {
        "identifier" => import.names.push(name(file, target, "*", false)),
        "object_pattern" => {
            let mut c = target.walk();
            for prop in target.named_children(&mut c) {
                match prop.kind() {
                    "shorthand_property_identifier_pattern" => {
                        let text = file.text_of(prop).to_owned();
                        import.names.push(name(file, prop, &text, false));
                    }
                    "pair_pattern" => {
                        let (Some(key), Some(value)) = (
                            prop.child_by_field_name("key"),
                            prop.child_by_field_name("value"),
                        ) else {
                            continue;
                        };
                        if value.kind() == "identifier" {
                            let key = unquote(file.text_of(key));
                            import.names.push(name(file, value, &key, false));
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn unquote(text: &str) -> String {
    text.trim_matches(|c| c == '"' || c == '\'').to_owned()
}

// ---- Rust ----

fn rust(file: &SourceFile, node: Node<'_>, out: &mut Vec<Import>) -> bool {
    match node.kind() {
        "use_declaration" => {
            let public = {
                let mut c = node.walk();
                node.named_children(&mut c)
                    .any(|c| c.kind() == "visibility_modifier")
            };
            let kind = if public {
                ImportKind::ReExport
            } else {
                ImportKind::Static
            };
            if let Some(arg) = node.child_by_field_name("argument") {
                use_tree(file, arg, &[], kind, out);
            }
            false
        }
        "mod_item" if node.child_by_field_name("body").is_none() => {
            if let Some(n) = node.child_by_field_name("name") {
                let text = file.text_of(n).to_owned();
                let mut import = new_import(file, text.clone(), node, ImportKind::Module);
                import.names.push(name(file, n, &text, false));
                out.push(import);
            }
            false
        }
        "extern_crate_declaration" => {
            if let Some(n) = node.child_by_field_name("name") {
                let text = file.text_of(n).to_owned();
                let local = node.child_by_field_name("alias").unwrap_or(n);
                let mut import = new_import(file, text.clone(), node, ImportKind::ExternCrate);
                import.names.push(name(file, local, &text, false));
                out.push(import);
            }
            false
        }
        _ => true,
    }
}

/// The segments of a path node (`a::b::c`, `crate`, `self`, `super::x`).
pub(crate) fn path_segments(file: &SourceFile, node: Node<'_>) -> Vec<String> {
    match node.kind() {
        "scoped_identifier" | "scoped_type_identifier" => {
            let mut segs = node
                .child_by_field_name("path")
                .map(|p| path_segments(file, p))
                .unwrap_or_default();
            if let Some(n) = node.child_by_field_name("name") {
                segs.push(file.text_of(n).to_owned());
            }
            segs
        }
        "generic_type" => node
            .child_by_field_name("type")
            .map(|t| path_segments(file, t))
            .unwrap_or_default(),
        _ => {
            let text = file.text_of(node).trim();
            if text.is_empty() {
                Vec::new()
            } else {
                vec![text.to_owned()]
            }
        }
    }
}

pub(crate) fn use_tree(
    file: &SourceFile,
    node: Node<'_>,
    prefix: &[String],
    kind: ImportKind,
    out: &mut Vec<Import>,
) {
    let join = |segs: &[String]| segs.join("::");
    match node.kind() {
        "scoped_use_list" => {
            let mut base = prefix.to_vec();
            if let Some(p) = node.child_by_field_name("path") {
                base.extend(path_segments(file, p));
            }
            if let Some(list) = node.child_by_field_name("list") {
                use_tree(file, list, &base, kind, out);
            }
        }
        "use_list" => {
            let mut c = node.walk();
            for child in node.named_children(&mut c) {
                use_tree(file, child, prefix, kind, out);
            }
        }
        "use_as_clause" => {
            let (Some(path), Some(alias)) = (
                node.child_by_field_name("path"),
                node.child_by_field_name("alias"),
            ) else {
                return;
            };
            let mut segs = prefix.to_vec();
            segs.extend(path_segments(file, path));
            // `use a::{self as b}` names `a`.
            if segs.last().is_some_and(|s| s == "self") && segs.len() > 1 {
                segs.pop();
            }
            let imported = segs.last().cloned().unwrap_or_default();
            let mut import = new_import(file, join(&segs), node, kind);
            import.names.push(name(file, alias, &imported, false));
            out.push(import);
        }
        "use_wildcard" => {
            let mut segs = prefix.to_vec();
            let mut c = node.walk();
            if let Some(p) = node.named_children(&mut c).next() {
                segs.extend(path_segments(file, p));
            }
            let mut import = new_import(file, join(&segs), node, kind);
            let star = {
                let mut c = node.walk();
                node.children(&mut c).find(|c| c.kind() == "*")
            };
            import.names.push(match star {
                Some(s) => name(file, s, "*", false),
                None => ImportedName {
                    local: "*".into(),
                    imported: "*".into(),
                    span: file.span(node),
                    type_only: false,
                },
            });
            out.push(import);
        }
        "scoped_identifier" | "identifier" | "self" | "crate" | "super" | "metavariable" => {
            let mut segs = prefix.to_vec();
            segs.extend(path_segments(file, node));
            let mut local_node = node.child_by_field_name("name").unwrap_or(node);
            if segs.last().is_some_and(|s| s == "self") && segs.len() > 1 {
                // `use a::b::{self}` binds `b`.
                segs.pop();
                local_node = node;
            }
            let imported = segs.last().cloned().unwrap_or_default();
            let mut import = new_import(file, join(&segs), node, kind);
            let mut n = name(file, local_node, &imported, false);
            n.local = imported.clone();
            import.names.push(n);
            out.push(import);
        }
        _ => {}
    }
}

// ---- Go ----

fn go(file: &SourceFile, node: Node<'_>, out: &mut Vec<Import>) -> bool {
    match node.kind() {
        "import_spec" => {
            let Some(path) = node.child_by_field_name("path") else {
                return false;
            };
            let text = file.text_of(path);
            let spec = text
                .get(1..text.len().saturating_sub(1))
                .unwrap_or("")
                .to_owned();
            if spec.is_empty() {
                return false;
            }
            let alias = node.child_by_field_name("name");
            let kind = match alias.map(|a| file.text_of(a)) {
                Some("_") => ImportKind::SideEffect,
                _ => ImportKind::Static,
            };
            let package = go_package_name(&spec);
            let mut import = new_import(file, spec, node, kind);
            import.names.push(match alias {
                Some(a) => name(file, a, &package, false),
                None => {
                    let mut n = name(file, path, &package, false);
                    n.local = package.clone();
                    n
                }
            });
            out.push(import);
            false
        }
        _ => true,
    }
}

/// The name a Go import path binds by convention: its last element, without a major
/// version element (`…/v2`) or a `.vN` suffix (`gopkg.in/yaml.v3`) or a `go-` prefix.
fn go_package_name(path: &str) -> String {
    let mut parts: Vec<&str> = path.split('/').collect();
    if parts.len() > 1
        && parts.last().is_some_and(|p| {
            p.len() > 1 && p.starts_with('v') && p[1..].chars().all(|c| c.is_ascii_digit())
        })
    {
        parts.pop();
    }
    let last = parts.last().copied().unwrap_or(path);
    let last = match last.rsplit_once(".v") {
        Some((head, v)) if !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()) => head,
        _ => last,
    };
    let last = last.strip_prefix("go-").unwrap_or(last);
    last.replace(['-', '.'], "_")
}

// ---- C ----

fn c(file: &SourceFile, node: Node<'_>, out: &mut Vec<Import>) -> bool {
    if node.kind() != "preproc_include" {
        return true;
    }
    let Some(path) = node.child_by_field_name("path") else {
        return false;
    };
    let text = file.text_of(path);
    let kind = match path.kind() {
        "string_literal" => ImportKind::Include,
        "system_lib_string" => ImportKind::SystemInclude,
        _ => return false,
    };
    let spec = text.get(1..text.len().saturating_sub(1)).unwrap_or("");
    if spec.is_empty() {
        return false;
    }
    let mut import = new_import(file, spec.to_owned(), node, kind);
    import.span.end = file.pos(path.end_byte());
    out.push(import);
    false
}
