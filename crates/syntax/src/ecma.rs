//! TypeScript, TSX and JavaScript: `export` statements and the public members of exported
//! classes.

use tree_sitter::Node;

use crate::render::{collapse, render, render_node};
use crate::{Export, ExportKind, export, text};

pub(crate) fn exports(root: Node<'_>, src: &str) -> Vec<Export> {
    let mut cursor = root.walk();
    let statements: Vec<Node<'_>> = root.named_children(&mut cursor).collect();
    let mut out = Vec::new();
    // Top-level declarations, exported or not, read once when a name must be looked up.
    let mut locals: Option<Vec<Export>> = None;
    for stmt in &statements {
        if stmt.has_error() {
            continue;
        }
        match stmt.kind() {
            "export_statement" => export_statement(*stmt, &statements, &mut locals, src, &mut out),
            "expression_statement" => {
                commonjs(*stmt, &statements, &mut locals, src, &mut out);
            }
            _ => {}
        }
    }
    out
}

/// `exports.x = …`, `module.exports.x = …`, `module.exports = …` at the top level.
fn commonjs(
    stmt: Node<'_>,
    statements: &[Node<'_>],
    locals: &mut Option<Vec<Export>>,
    src: &str,
    out: &mut Vec<Export>,
) {
    let Some(assignment) = stmt
        .named_child(0)
        .filter(|a| a.kind() == "assignment_expression")
    else {
        return;
    };
    let (Some(left), Some(right)) = (
        assignment.child_by_field_name("left"),
        assignment.child_by_field_name("right"),
    ) else {
        return;
    };
    let target = crate::render::collapse(text(left, src));
    let target = target.replace(' ', "");
    let value = |name: String, node: Node<'_>, locals: &mut Option<Vec<Export>>| -> Export {
        let prefix = if target == "module.exports" && name != target {
            format!("module.exports.{name}")
        } else {
            target.clone()
        };
        let (kind, sig) = match node.kind() {
            "function_expression" | "arrow_function" | "generator_function" => (
                ExportKind::Function,
                format!("{prefix} = {}", function_head(node, src)),
            ),
            "method_definition" => (
                ExportKind::Function,
                format!("module.exports.{}", function_head(node, src)),
            ),
            "class" => (
                ExportKind::Class,
                format!("{prefix} = {}", function_head(node, src)),
            ),
            "identifier" | "shorthand_property_identifier" => {
                match local_declaration(text(node, src), statements, locals, src) {
                    Some(e) => (e.kind, format!("{prefix} = {}", e.signature)),
                    None => (
                        ExportKind::Reexport,
                        format!("{prefix} = {}", text(node, src)),
                    ),
                }
            }
            other => (ExportKind::Variable, format!("{prefix} = <{other}>")),
        };
        export(name, kind, sig, node)
    };
    if let Some(name) = target
        .strip_prefix("module.exports.")
        .or_else(|| target.strip_prefix("exports."))
        .filter(|n| !n.contains('.'))
    {
        out.push(value(name.to_owned(), right, locals));
    } else if target == "module.exports" {
        if right.kind() != "object" {
            out.push(value("module.exports".to_owned(), right, locals));
            return;
        }
        let mut cursor = right.walk();
        for property in right.named_children(&mut cursor) {
            let (key, node) = match property.kind() {
                "shorthand_property_identifier" => (Some(property), property),
                "pair" => match (
                    property.child_by_field_name("key"),
                    property.child_by_field_name("value"),
                ) {
                    (Some(k), Some(v)) => (Some(k), v),
                    _ => continue,
                },
                "method_definition" => (property.child_by_field_name("name"), property),
                _ => continue,
            };
            if let Some(key) = key {
                let name = text(key, src).trim_matches(['"', '\'']).to_owned();
                out.push(value(name, node, locals));
            }
        }
    }
}

fn export_statement(
    stmt: Node<'_>,
    statements: &[Node<'_>],
    locals: &mut Option<Vec<Export>>,
    src: &str,
    out: &mut Vec<Export>,
) {
    let mut cursor = stmt.walk();
    let children: Vec<Node<'_>> = stmt.children(&mut cursor).collect();
    let is_default = children.iter().any(|c| c.kind() == "default");
    let source = stmt
        .child_by_field_name("source")
        .map(|s| collapse(text(s, src)));
    if let Some(decl) = stmt.child_by_field_name("declaration") {
        let prefix = if is_default {
            "export default "
        } else {
            "export "
        };
        let class = decl.child_by_field_name("name").map(|n| text(n, src));
        for mut e in declaration(decl, src) {
            // The declaration itself; its class members keep their own head and line.
            let member = class.is_some_and(|c| e.name.len() > c.len() && e.name.starts_with(c));
            if !member {
                if is_default {
                    e.name = "default".to_owned();
                }
                e.signature = format!("{prefix}{}", e.signature);
                e.line = crate::line_of(stmt);
            }
            out.push(e);
        }
        return;
    }
    if let Some(value) = stmt.child_by_field_name("value") {
        // `export default <expression>`.
        let local = (value.kind() == "identifier")
            .then(|| local_declaration(text(value, src), statements, locals, src))
            .flatten();
        let (kind, sig) = match (local, value.kind()) {
            (Some(e), _) => (e.kind, format!("export default {}", e.signature)),
            (None, "function_expression" | "arrow_function" | "generator_function") => (
                ExportKind::Function,
                format!("export default {}", function_head(value, src)),
            ),
            (None, "class") => (
                ExportKind::Class,
                format!("export default {}", class_head(value, src)),
            ),
            (None, "identifier") => (
                ExportKind::Reexport,
                format!("export default {}", text(value, src)),
            ),
            // Another expression: its kind, not its value, is the signature.
            (None, other) => (ExportKind::Variable, format!("export default <{other}>")),
        };
        out.push(export("default".to_owned(), kind, sig, stmt));
        return;
    }
    let from = source
        .as_ref()
        .map(|s| format!(" from {s}"))
        .unwrap_or_default();
    let mut found_clause = false;
    for child in &children {
        match child.kind() {
            "export_clause" => {
                found_clause = true;
                let mut c = child.walk();
                for spec in child.named_children(&mut c) {
                    if spec.kind() != "export_specifier" {
                        continue;
                    }
                    let Some(name) = spec.child_by_field_name("name").map(|n| text(n, src)) else {
                        continue;
                    };
                    let exported_as = spec
                        .child_by_field_name("alias")
                        .map_or(name, |a| text(a, src))
                        .to_owned();
                    let local = source
                        .is_none()
                        .then(|| local_declaration(name, statements, locals, src))
                        .flatten();
                    match local {
                        Some(e) => out.push(Export {
                            name: exported_as,
                            kind: e.kind,
                            signature: e.signature,
                            line: crate::line_of(stmt),
                        }),
                        None => out.push(export(
                            exported_as,
                            ExportKind::Reexport,
                            format!("export {{ {} }}{from}", render_node(spec, src)),
                            stmt,
                        )),
                    }
                }
            }
            "namespace_export" => {
                found_clause = true;
                let name = child
                    .named_children(&mut child.walk())
                    .last()
                    .map(|n| text(n, src).to_owned())
                    .unwrap_or_default();
                out.push(export(
                    name,
                    ExportKind::Reexport,
                    format!("export {}{from}", render_node(*child, src)),
                    stmt,
                ));
            }
            _ => {}
        }
    }
    if !found_clause && source.is_some() {
        // `export * from './x'`.
        out.push(export(
            format!("*{from}"),
            ExportKind::Reexport,
            format!("export *{from}"),
            stmt,
        ));
    }
}

/// The first top-level declaration of `name`, exported or not.
fn local_declaration(
    name: &str,
    statements: &[Node<'_>],
    locals: &mut Option<Vec<Export>>,
    src: &str,
) -> Option<Export> {
    let locals = locals.get_or_insert_with(|| {
        statements
            .iter()
            .filter_map(|s| {
                if s.kind() == "export_statement" {
                    s.child_by_field_name("declaration")
                } else {
                    Some(*s)
                }
            })
            .flat_map(|s| declaration(s, src))
            .collect()
    });
    locals.iter().find(|e| e.name == name).cloned()
}

fn function_head(node: Node<'_>, src: &str) -> String {
    let end = node
        .child_by_field_name("body")
        .map_or(node.end_byte(), |b| b.start_byte());
    render(node, node.start_byte(), end, src)
}

fn class_head(node: Node<'_>, src: &str) -> String {
    function_head(node, src)
}

/// The names a declaration binds, with signatures (without `export`).
fn declaration(decl: Node<'_>, src: &str) -> Vec<Export> {
    let name = || {
        decl.child_by_field_name("name")
            .map(|n| text(n, src).to_owned())
    };
    let one = |kind: ExportKind, sig: String| -> Vec<Export> {
        name().map_or_else(Vec::new, |n| vec![export(n, kind, sig, decl)])
    };
    match decl.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            one(ExportKind::Function, function_head(decl, src))
        }
        "class_declaration" | "abstract_class_declaration" => {
            let Some(class_name) = name() else {
                return Vec::new();
            };
            let mut out = vec![export(
                class_name.clone(),
                ExportKind::Class,
                class_head(decl, src),
                decl,
            )];
            if let Some(body) = decl.child_by_field_name("body") {
                members(body, &class_name, src, &mut out);
            }
            out
        }
        "interface_declaration" => one(ExportKind::Interface, render_node(decl, src)),
        "type_alias_declaration" => one(ExportKind::Type, render_node(decl, src)),
        "enum_declaration" => one(ExportKind::Enum, render_node(decl, src)),
        "internal_module" | "module" => one(ExportKind::Module, function_head(decl, src)),
        "ambient_declaration" => {
            let mut cursor = decl.walk();
            let inner: Vec<Node<'_>> = decl.named_children(&mut cursor).collect();
            inner
                .into_iter()
                .flat_map(|d| declaration(d, src))
                .map(|mut e| {
                    e.signature = format!("declare {}", e.signature);
                    e
                })
                .collect()
        }
        "lexical_declaration" | "variable_declaration" => variables(decl, src),
        _ => Vec::new(),
    }
}

fn variables(decl: Node<'_>, src: &str) -> Vec<Export> {
    let keyword = decl
        .child_by_field_name("kind")
        .map_or("var", |k| text(k, src));
    let mut out = Vec::new();
    let mut cursor = decl.walk();
    for declarator in decl.named_children(&mut cursor) {
        if declarator.kind() != "variable_declarator" {
            continue;
        }
        let Some(name_node) = declarator.child_by_field_name("name") else {
            continue;
        };
        let value = declarator.child_by_field_name("value");
        let ty = declarator
            .child_by_field_name("type")
            .map(|t| render_node(t, src))
            .unwrap_or_default();
        let mut names = Vec::new();
        bound_names(name_node, src, &mut names, 0);
        for name in names {
            let (kind, sig) = match value.map(|v| (v, v.kind())) {
                Some((v, "arrow_function" | "function_expression" | "generator_function")) => (
                    ExportKind::Function,
                    format!("{keyword} {name}{ty} = {}", function_head(v, src)),
                ),
                _ if keyword == "const" => (ExportKind::Const, format!("{keyword} {name}{ty}")),
                _ => (ExportKind::Variable, format!("{keyword} {name}{ty}")),
            };
            out.push(export(name, kind, sig, declarator));
        }
    }
    out
}

/// The identifiers a binding pattern binds (`const { a, b: c } = …` binds `a` and `c`).
fn bound_names(pattern: Node<'_>, src: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 32 {
        return;
    }
    match pattern.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => {
            out.push(text(pattern, src).to_owned());
        }
        "pair_pattern" => {
            if let Some(value) = pattern.child_by_field_name("value") {
                bound_names(value, src, out, depth + 1);
            }
        }
        "assignment_pattern" | "object_assignment_pattern" => {
            if let Some(left) = pattern.child_by_field_name("left") {
                bound_names(left, src, out, depth + 1);
            }
        }
        _ => {
            let mut cursor = pattern.walk();
            for child in pattern.named_children(&mut cursor) {
                bound_names(child, src, out, depth + 1);
            }
        }
    }
}

fn members(body: Node<'_>, class: &str, src: &str, out: &mut Vec<Export>) {
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        if member.has_error() {
            continue;
        }
        let kind = match member.kind() {
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                ExportKind::Method
            }
            "public_field_definition" | "field_definition" => ExportKind::Variable,
            _ => continue,
        };
        let mut c = member.walk();
        let hidden = member.children(&mut c).any(|m| {
            m.kind() == "accessibility_modifier"
                && matches!(text(m, src).trim(), "private" | "protected")
        });
        let Some(name_node) = member
            .child_by_field_name("name")
            .or_else(|| member.child_by_field_name("property"))
        else {
            continue;
        };
        if hidden || name_node.kind() == "private_property_identifier" {
            continue;
        }
        let end = member
            .child_by_field_name("body")
            .or_else(|| member.child_by_field_name("value"))
            .map_or(member.end_byte(), |b| b.start_byte());
        out.push(export(
            format!("{class}.{}", text(name_node, src)),
            kind,
            render(member, member.start_byte(), end, src),
            member,
        ));
    }
}
