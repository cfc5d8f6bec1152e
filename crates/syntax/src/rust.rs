//! Rust: `pub` items.

use std::collections::HashMap;

use tree_sitter::Node;

use crate::render::{render, render_node};
use crate::{Export, ExportKind, export, text};

/// Inline modules deeper than this are not read.
const MAX_DEPTH: usize = 32;

pub(crate) fn exports(root: Node<'_>, src: &str) -> Vec<Export> {
    let mut out = Vec::new();
    scope(root, "", src, 0, &mut out);
    out
}

fn is_pub(node: Node<'_>, src: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|c| c.kind() == "visibility_modifier")
        .is_some_and(|v| text(v, src).trim() == "pub")
}

fn name_of(node: Node<'_>, src: &str) -> Option<String> {
    node.child_by_field_name("name")
        .map(|n| text(n, src).to_owned())
}

/// The head of an item: everything before its body (or all of it without one).
fn head(node: Node<'_>, src: &str) -> String {
    let end = node
        .child_by_field_name("body")
        .map_or(node.end_byte(), |b| b.start_byte());
    render(node, node.start_byte(), end, src)
}

/// Up to the value (`= …`) of a const or static.
fn head_before_value(node: Node<'_>, src: &str) -> String {
    let end = node
        .child_by_field_name("value")
        .map_or(node.end_byte(), |v| v.start_byte());
    render(node, node.start_byte(), end, src)
}

/// The type an inherent `impl` is for, by its base name.
fn impl_type_name(ty: Node<'_>, src: &str) -> Option<String> {
    match ty.kind() {
        "type_identifier" => Some(text(ty, src).to_owned()),
        "generic_type" | "reference_type" => impl_type_name(ty.child_by_field_name("type")?, src),
        "scoped_type_identifier" => Some(text(ty.child_by_field_name("name")?, src).to_owned()),
        _ => None,
    }
}

fn struct_signature(node: Node<'_>, src: &str) -> String {
    let Some(body) = node.child_by_field_name("body") else {
        return render_node(node, src);
    };
    if body.kind() != "field_declaration_list" {
        // Tuple structs: every position matters.
        return render_node(node, src);
    }
    let mut fields = Vec::new();
    let mut hidden = false;
    let mut cursor = body.walk();
    for field in body.named_children(&mut cursor) {
        if field.kind() != "field_declaration" {
            continue;
        }
        if is_pub(field, src) {
            fields.push(render_node(field, src));
        } else {
            hidden = true;
        }
    }
    if hidden {
        fields.push("..".to_owned());
    }
    let head = render(node, node.start_byte(), body.start_byte(), src);
    if fields.is_empty() {
        format!("{head} {{ }}")
    } else {
        format!("{head} {{ {} }}", fields.join(", "))
    }
}

fn scope(parent: Node<'_>, prefix: &str, src: &str, depth: usize, out: &mut Vec<Export>) {
    let mut cursor = parent.walk();
    let items: Vec<Node<'_>> = parent.named_children(&mut cursor).collect();
    // Types declared here, and whether they are `pub`.
    let mut types: HashMap<String, bool> = HashMap::new();
    for item in &items {
        if matches!(
            item.kind(),
            "struct_item" | "enum_item" | "union_item" | "type_item" | "trait_item"
        ) && let Some(name) = name_of(*item, src)
        {
            let public = is_pub(*item, src);
            types
                .entry(name)
                .and_modify(|p| *p |= public)
                .or_insert(public);
        }
    }
    let mut macro_export = false;
    for item in items {
        let kind = item.kind();
        if kind == "attribute_item" {
            macro_export |= text(item, src).contains("macro_export");
            continue;
        }
        if kind.contains("comment") {
            continue;
        }
        let exported_macro = std::mem::take(&mut macro_export);
        if item.has_error() {
            continue;
        }
        if kind == "macro_definition" {
            if exported_macro && let Some(name) = name_of(item, src) {
                let sig = format!("macro_rules! {name}");
                out.push(export(name, ExportKind::Macro, sig, item));
            }
            continue;
        }
        if kind == "impl_item" {
            inherent_impl(item, prefix, &types, src, out);
            continue;
        }
        if kind == "foreign_mod_item" {
            if let Some(body) = item.child_by_field_name("body") {
                scope(body, prefix, src, depth, out);
            }
            continue;
        }
        if !is_pub(item, src) {
            continue;
        }
        let named = |k: ExportKind, sig: String, out: &mut Vec<Export>| {
            if let Some(name) = name_of(item, src) {
                out.push(export(format!("{prefix}{name}"), k, sig, item));
            }
        };
        match kind {
            "function_item" | "function_signature_item" => {
                named(ExportKind::Function, head(item, src), out);
            }
            "struct_item" | "union_item" => {
                named(ExportKind::Struct, struct_signature(item, src), out);
            }
            "enum_item" => named(ExportKind::Enum, render_node(item, src), out),
            "type_item" => named(ExportKind::Type, render_node(item, src), out),
            "const_item" => named(ExportKind::Const, head_before_value(item, src), out),
            "static_item" => named(ExportKind::Static, head_before_value(item, src), out),
            "trait_item" => {
                named(ExportKind::Trait, head(item, src), out);
                if let (Some(name), Some(body)) =
                    (name_of(item, src), item.child_by_field_name("body"))
                {
                    trait_items(body, &format!("{prefix}{name}::"), src, out);
                }
            }
            "mod_item" => {
                named(ExportKind::Module, head(item, src), out);
                if let (Some(name), Some(body)) =
                    (name_of(item, src), item.child_by_field_name("body"))
                    && depth < super::rust::MAX_DEPTH
                {
                    scope(body, &format!("{prefix}{name}::"), src, depth + 1, out);
                }
            }
            "use_declaration" => {
                let sig = render_node(item, src);
                if let Some(arg) = item.child_by_field_name("argument") {
                    let mut names = Vec::new();
                    use_names(arg, src, &mut names, 0);
                    for name in names {
                        out.push(export(
                            format!("{prefix}{name}"),
                            ExportKind::Reexport,
                            sig.clone(),
                            item,
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The names a `use` tree brings in: the last segment, an alias, or `path::*`.
fn use_names(node: Node<'_>, src: &str, out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match node.kind() {
        "identifier" | "self" | "crate" | "super" => out.push(text(node, src).to_owned()),
        "scoped_identifier" => {
            if let Some(name) = node.child_by_field_name("name") {
                out.push(text(name, src).to_owned());
            }
        }
        "use_as_clause" => {
            if let Some(alias) = node.child_by_field_name("alias") {
                out.push(text(alias, src).to_owned());
            }
        }
        "use_wildcard" => out.push(crate::render::collapse(text(node, src))),
        "scoped_use_list" => {
            if let Some(list) = node.child_by_field_name("list") {
                use_names(list, src, out, depth + 1);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                use_names(child, src, out, depth + 1);
            }
        }
        _ => {}
    }
}

fn trait_items(body: Node<'_>, prefix: &str, src: &str, out: &mut Vec<Export>) {
    let mut cursor = body.walk();
    for item in body.named_children(&mut cursor) {
        if item.has_error() {
            continue;
        }
        let (kind, sig) = match item.kind() {
            "function_item" | "function_signature_item" => (ExportKind::Method, head(item, src)),
            "associated_type" => (ExportKind::Type, render_node(item, src)),
            "const_item" => (ExportKind::Const, head_before_value(item, src)),
            _ => continue,
        };
        if let Some(name) = name_of(item, src) {
            out.push(export(format!("{prefix}{name}"), kind, sig, item));
        }
    }
}

fn inherent_impl(
    item: Node<'_>,
    prefix: &str,
    types: &HashMap<String, bool>,
    src: &str,
    out: &mut Vec<Export>,
) {
    if item.child_by_field_name("trait").is_some() {
        return;
    }
    let (Some(ty), Some(body)) = (
        item.child_by_field_name("type"),
        item.child_by_field_name("body"),
    ) else {
        return;
    };
    let Some(type_name) = impl_type_name(ty, src) else {
        return;
    };
    if types.get(&type_name) == Some(&false) {
        return;
    }
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        if member.has_error() || !is_pub(member, src) {
            continue;
        }
        let (kind, sig) = match member.kind() {
            "function_item" => (ExportKind::Method, head(member, src)),
            "const_item" => (ExportKind::Const, head_before_value(member, src)),
            _ => continue,
        };
        if let Some(name) = name_of(member, src) {
            out.push(export(
                format!("{prefix}{type_name}::{name}"),
                kind,
                sig,
                member,
            ));
        }
    }
}
