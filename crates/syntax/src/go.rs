//! Go: package-level identifiers that start with an upper-case letter.

use tree_sitter::Node;

use crate::render::{render, render_node};
use crate::{Export, ExportKind, export, text};

fn exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

pub(crate) fn exports(root: Node<'_>, src: &str) -> Vec<Export> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    for decl in root.named_children(&mut cursor) {
        if decl.has_error() {
            continue;
        }
        match decl.kind() {
            "function_declaration" => {
                let Some(name) = decl.child_by_field_name("name").map(|n| text(n, src)) else {
                    continue;
                };
                if exported(name) {
                    out.push(export(
                        name.to_owned(),
                        ExportKind::Function,
                        head(decl, decl.start_byte(), src),
                        decl,
                    ));
                }
            }
            "method_declaration" => method(decl, src, &mut out),
            "type_declaration" => {
                let mut c = decl.walk();
                for spec in decl.named_children(&mut c) {
                    if matches!(spec.kind(), "type_spec" | "type_alias") {
                        type_spec(spec, src, &mut out);
                    }
                }
            }
            "const_declaration" | "var_declaration" => {
                let (keyword, kind) = if decl.kind() == "const_declaration" {
                    ("const", ExportKind::Const)
                } else {
                    ("var", ExportKind::Variable)
                };
                let mut c = decl.walk();
                let specs: Vec<Node<'_>> = decl.named_children(&mut c).collect();
                for spec in specs {
                    // `var ( … )` groups its specs in a `var_spec_list`.
                    if spec.kind() == "var_spec_list" {
                        let mut c2 = spec.walk();
                        for inner in spec.named_children(&mut c2) {
                            value_spec(inner, keyword, kind, src, &mut out);
                        }
                    } else {
                        value_spec(spec, keyword, kind, src, &mut out);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// From `from` up to the body.
fn head(decl: Node<'_>, from: usize, src: &str) -> String {
    let end = decl
        .child_by_field_name("body")
        .map_or(decl.end_byte(), |b| b.start_byte());
    render(decl, from, end, src)
}

/// The base name of a receiver's type: `*Server[T]` is `Server`.
fn base_type(ty: Node<'_>, src: &str) -> Option<String> {
    match ty.kind() {
        "type_identifier" => Some(text(ty, src).to_owned()),
        "pointer_type" | "parenthesized_type" => base_type(ty.named_child(0)?, src),
        "generic_type" => base_type(ty.child_by_field_name("type")?, src),
        _ => None,
    }
}

fn method(decl: Node<'_>, src: &str, out: &mut Vec<Export>) {
    let Some(name_node) = decl.child_by_field_name("name") else {
        return;
    };
    let name = text(name_node, src);
    let receiver_type = decl
        .child_by_field_name("receiver")
        .and_then(|r| r.named_child(0))
        .and_then(|p| p.child_by_field_name("type"));
    let Some(receiver_type) = receiver_type else {
        return;
    };
    let Some(type_name) = base_type(receiver_type, src) else {
        return;
    };
    if !exported(name) || !exported(&type_name) {
        return;
    }
    // The receiver's variable name is not part of the API.
    let sig = format!(
        "func ({}) {}",
        render_node(receiver_type, src),
        head(decl, name_node.start_byte(), src)
    );
    out.push(export(
        format!("{type_name}.{name}"),
        ExportKind::Method,
        sig,
        decl,
    ));
}

fn type_spec(spec: Node<'_>, src: &str, out: &mut Vec<Export>) {
    let Some(name) = spec.child_by_field_name("name").map(|n| text(n, src)) else {
        return;
    };
    if !exported(name) {
        return;
    }
    let ty = spec.child_by_field_name("type");
    let (kind, sig) = match ty.map(|t| t.kind()) {
        Some("struct_type") if spec.kind() == "type_spec" => {
            let ty = ty.unwrap_or(spec);
            let head = render(spec, spec.start_byte(), ty.start_byte(), src);
            (
                ExportKind::Struct,
                format!("type {head} struct {{ {} }}", fields(ty, src)),
            )
        }
        Some("interface_type") => (
            ExportKind::Interface,
            format!("type {}", render_node(spec, src)),
        ),
        _ => (ExportKind::Type, format!("type {}", render_node(spec, src))),
    };
    out.push(export(name.to_owned(), kind, sig, spec));
}

/// The exported fields of a struct type (embedded ones by their type), `..` for the others.
fn fields(struct_type: Node<'_>, src: &str) -> String {
    let mut shown = Vec::new();
    let mut hidden = false;
    let Some(list) = struct_type.named_child(0) else {
        return String::new();
    };
    let mut cursor = list.walk();
    for field in list.named_children(&mut cursor) {
        if field.kind() != "field_declaration" {
            continue;
        }
        let mut c = field.walk();
        let names: Vec<&str> = field
            .children_by_field_name("name", &mut c)
            .map(|n| text(n, src))
            .collect();
        let ty = field.child_by_field_name("type");
        let tag = field
            .child_by_field_name("tag")
            .map(|t| format!(" {}", render_node(t, src)))
            .unwrap_or_default();
        let ty_text = ty.map(|t| render_node(t, src)).unwrap_or_default();
        if names.is_empty() {
            // Embedded: exported when its type's name is.
            let base = ty.and_then(|t| base_type(t, src).or_else(|| qualified(t, src)));
            if base.as_deref().is_some_and(exported) {
                shown.push(format!("{ty_text}{tag}"));
            } else {
                hidden = true;
            }
            continue;
        }
        let public: Vec<&str> = names.iter().copied().filter(|n| exported(n)).collect();
        if public.len() < names.len() {
            hidden = true;
        }
        if !public.is_empty() {
            shown.push(format!("{} {ty_text}{tag}", public.join(", ")));
        }
    }
    if hidden {
        shown.push("..".to_owned());
    }
    shown.join("; ")
}

/// `pkg.Name` embedded: its `Name`.
fn qualified(ty: Node<'_>, src: &str) -> Option<String> {
    (ty.kind() == "qualified_type")
        .then(|| ty.child_by_field_name("name"))
        .flatten()
        .map(|n| text(n, src).to_owned())
}

fn value_spec(spec: Node<'_>, keyword: &str, kind: ExportKind, src: &str, out: &mut Vec<Export>) {
    if !matches!(spec.kind(), "const_spec" | "var_spec") {
        return;
    }
    let ty = spec
        .child_by_field_name("type")
        .map(|t| format!(" {}", render_node(t, src)))
        .unwrap_or_default();
    let mut cursor = spec.walk();
    for name in spec.children_by_field_name("name", &mut cursor) {
        let name = text(name, src);
        if exported(name) {
            out.push(export(
                name.to_owned(),
                kind,
                format!("{keyword} {name}{ty}"),
                spec,
            ));
        }
    }
}
