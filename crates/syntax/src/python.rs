//! Python: public module-level names, or exactly `__all__` when it is a literal.

use tree_sitter::Node;

use crate::render::{collapse, render, render_node};
use crate::{Export, ExportKind, export, text};

const MAX_DEPTH: usize = 16;

pub(crate) fn exports(root: Node<'_>, src: &str) -> Vec<Export> {
    let mut all = Vec::new();
    let mut imports: Vec<(String, String, Node<'_>)> = Vec::new();
    module(root, src, 0, &mut all, &mut imports);
    let Some((listed, all_line)) = dunder_all(root, src) else {
        all.retain(|e| !e.name.starts_with('_') || e.name.contains('.'));
        return all;
    };
    let top = |e: &Export| e.name.split('.').next().unwrap_or("").to_owned();
    let mut out: Vec<Export> = all
        .iter()
        .filter(|e| listed.contains(&top(e)))
        .cloned()
        .collect();
    for name in &listed {
        if out.iter().any(|e| &top(e) == name) {
            continue;
        }
        if let Some((_, sig, node)) = imports.iter().find(|(n, _, _)| n == name) {
            out.push(export(
                name.clone(),
                ExportKind::Reexport,
                sig.clone(),
                *node,
            ));
        } else {
            // Listed but bound in a way this reader does not follow (`globals()`, `*`
            // imports): the `__all__` line is where it is declared public.
            out.push(Export {
                name: name.clone(),
                kind: ExportKind::Variable,
                signature: format!("__all__ entry {name}"),
                line: all_line,
            });
        }
    }
    out.sort_by_key(|e| e.line);
    out
}

/// Module-level declarations, all names (the `_` rule is applied by the caller).
fn module<'t>(
    block: Node<'t>,
    src: &str,
    depth: usize,
    out: &mut Vec<Export>,
    imports: &mut Vec<(String, String, Node<'t>)>,
) {
    let mut cursor = block.walk();
    let children: Vec<Node<'t>> = block.named_children(&mut cursor).collect();
    for stmt in children {
        if stmt.has_error() {
            continue;
        }
        match stmt.kind() {
            "function_definition" | "class_definition" | "decorated_definition" => {
                definition(stmt, src, out);
            }
            "expression_statement" => {
                let mut c = stmt.walk();
                for assignment in stmt.named_children(&mut c) {
                    if assignment.kind() == "assignment" {
                        assigned(assignment, src, out);
                    }
                }
            }
            "type_alias_statement" => {
                if let Some(left) = stmt.child_by_field_name("left") {
                    let name = text(left, src).trim().to_owned();
                    out.push(export(name, ExportKind::Type, render_node(stmt, src), stmt));
                }
            }
            "import_from_statement" | "import_statement" => import(stmt, src, imports),
            "if_statement" | "try_statement" | "else_clause" | "elif_clause" | "except_clause"
            | "finally_clause" | "block"
                if depth < MAX_DEPTH =>
            {
                let mut c = stmt.walk();
                let parts: Vec<Node<'t>> = stmt.named_children(&mut c).collect();
                for part in parts {
                    if matches!(
                        part.kind(),
                        "block"
                            | "else_clause"
                            | "elif_clause"
                            | "except_clause"
                            | "finally_clause"
                    ) {
                        module(part, src, depth + 1, out, imports);
                    }
                }
                if stmt.kind() == "block" {
                    module(stmt, src, depth + 1, out, imports);
                }
            }
            _ => {}
        }
    }
}

fn def_head(def: Node<'_>, src: &str) -> String {
    let end = def
        .child_by_field_name("body")
        .map_or(def.end_byte(), |b| b.start_byte());
    render(def, def.start_byte(), end, src)
}

fn definition(stmt: Node<'_>, src: &str, out: &mut Vec<Export>) {
    let def = if stmt.kind() == "decorated_definition" {
        match stmt.child_by_field_name("definition") {
            Some(d) => d,
            None => return,
        }
    } else {
        stmt
    };
    let Some(name) = def
        .child_by_field_name("name")
        .map(|n| text(n, src).to_owned())
    else {
        return;
    };
    let is_class = def.kind() == "class_definition";
    let kind = if is_class {
        ExportKind::Class
    } else {
        ExportKind::Function
    };
    out.push(export(name.clone(), kind, def_head(def, src), stmt));
    if !is_class {
        return;
    }
    let Some(body) = def.child_by_field_name("body") else {
        return;
    };
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        let method = match member.kind() {
            "function_definition" => member,
            "decorated_definition" => match member.child_by_field_name("definition") {
                Some(d) if d.kind() == "function_definition" => d,
                _ => continue,
            },
            _ => continue,
        };
        if member.has_error() {
            continue;
        }
        let Some(m) = method.child_by_field_name("name").map(|n| text(n, src)) else {
            continue;
        };
        if m.starts_with('_') && m != "__init__" {
            continue;
        }
        out.push(export(
            format!("{name}.{m}"),
            ExportKind::Method,
            def_head(method, src),
            member,
        ));
    }
}

fn assigned(assignment: Node<'_>, src: &str, out: &mut Vec<Export>) {
    let Some(left) = assignment.child_by_field_name("left") else {
        return;
    };
    let annotation = assignment
        .child_by_field_name("type")
        .map(|t| render_node(t, src));
    let mut names = Vec::new();
    if left.kind() == "identifier" {
        names.push(text(left, src).to_owned());
    } else if matches!(
        left.kind(),
        "pattern_list" | "tuple_pattern" | "list_pattern"
    ) {
        let mut cursor = left.walk();
        for part in left.named_children(&mut cursor) {
            if part.kind() == "identifier" {
                names.push(text(part, src).to_owned());
            }
        }
    }
    for name in names {
        let is_const =
            name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_lowercase());
        let kind = if is_const {
            ExportKind::Const
        } else {
            ExportKind::Variable
        };
        let sig = match &annotation {
            Some(t) => format!("{name}: {t}"),
            None => name.clone(),
        };
        out.push(export(name, kind, sig, assignment));
    }
}

fn import<'t>(stmt: Node<'t>, src: &str, imports: &mut Vec<(String, String, Node<'t>)>) {
    let module = stmt
        .child_by_field_name("module_name")
        .map(|m| collapse(text(m, src)));
    let mut cursor = stmt.walk();
    for name in stmt.children_by_field_name("name", &mut cursor) {
        let (bound, imported) = if name.kind() == "aliased_import" {
            let alias = name.child_by_field_name("alias").map(|a| text(a, src));
            let original = name.child_by_field_name("name").map(|a| text(a, src));
            match (alias, original) {
                (Some(a), Some(o)) => (a.to_owned(), format!("{o} as {a}")),
                _ => continue,
            }
        } else {
            let t = text(name, src);
            // `import a.b` binds `a`.
            (t.split('.').next().unwrap_or(t).to_owned(), t.to_owned())
        };
        let sig = match &module {
            Some(m) => format!("from {m} import {imported}"),
            None => format!("import {imported}"),
        };
        imports.push((bound, sig, stmt));
    }
}

/// The names of `__all__` when it is assigned once, at module level, to a literal list or
/// tuple of plain strings, and never changed in place (`+=`, `.append`, `.extend`).
fn dunder_all(root: Node<'_>, src: &str) -> Option<(Vec<String>, u32)> {
    let mut literal = None;
    let mut assignments = 0;
    let mut cursor = root.walk();
    for stmt in root.named_children(&mut cursor) {
        if stmt.kind() != "expression_statement" {
            continue;
        }
        let Some(expr) = stmt.named_child(0) else {
            continue;
        };
        let left = |field: &str| expr.child_by_field_name(field).map(|l| text(l, src));
        match expr.kind() {
            "assignment" if left("left") == Some("__all__") => {
                assignments += 1;
                literal = expr
                    .child_by_field_name("right")
                    .and_then(|r| string_list(r, src))
                    .map(|names| (names, crate::line_of(stmt)));
            }
            "augmented_assignment" if left("left") == Some("__all__") => return None,
            "call" => {
                let changed = expr
                    .child_by_field_name("function")
                    .filter(|f| f.kind() == "attribute")
                    .and_then(|f| f.child_by_field_name("object"))
                    .is_some_and(|o| text(o, src) == "__all__");
                if changed {
                    return None;
                }
            }
            _ => {}
        }
    }
    if assignments == 1 { literal } else { None }
}

fn string_list(node: Node<'_>, src: &str) -> Option<Vec<String>> {
    if !matches!(node.kind(), "list" | "tuple") {
        return None;
    }
    let mut names = Vec::new();
    let mut cursor = node.walk();
    for item in node.named_children(&mut cursor) {
        if item.kind() == "comment" {
            continue;
        }
        if item.kind() != "string" {
            return None;
        }
        let mut c = item.walk();
        let mut content = String::new();
        for part in item.named_children(&mut c) {
            match part.kind() {
                "string_start" | "string_end" => {}
                "string_content" => content.push_str(text(part, src)),
                _ => return None,
            }
        }
        let start = item.named_child(0).map(|s| text(s, src)).unwrap_or("");
        if start.chars().any(|c| matches!(c, 'f' | 'F' | 'b' | 'B')) {
            return None;
        }
        names.push(content);
    }
    Some(names)
}
