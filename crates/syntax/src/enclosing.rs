//! The declaration a position sits in: which function a reference is made from, and the
//! lines a declaration spans.

use resolve_pr_source::{LineCol, LineIndex};
use tree_sitter::Node;

use crate::{Dialect, SyntaxError, parse, text, to_u32};

/// The innermost named declaration holding a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enclosing {
    /// Qualified by its type or class for a method (`Circle::area` in Rust, `Circle.area`
    /// elsewhere).
    pub name: String,
    /// In LSP's words, lower case: `function`, `method`, `class`, `struct`, ...
    pub kind: &'static str,
    /// Zero-based lines of the whole declaration (its doc comment excluded), both inclusive.
    pub start_line: u32,
    pub end_line: u32,
}

/// The innermost named declaration (function, method, type, class) at the position
/// (zero-based line, UTF-16 column): the one whose name is there, else the one holding it;
/// none at the top level. Anonymous functions are passed through to the declaration around
/// them. A source with syntax errors is read as far as tree-sitter recovers.
pub fn enclosing_declaration(
    language: Dialect,
    source: &str,
    line: u32,
    character: u32,
) -> Result<Option<Enclosing>, SyntaxError> {
    Ok(find(language, source, &[(line, character)], false)?
        .pop()
        .flatten())
}

/// For each of several positions of one source (parsed once), the declaration holding it
/// (what a use sits in): as [`enclosing_declaration`], except that a position at a
/// declaration's own name is in what holds that declaration.
pub fn enclosing_declarations(
    language: Dialect,
    source: &str,
    positions: &[(u32, u32)],
) -> Result<Vec<Option<Enclosing>>, SyntaxError> {
    find(language, source, positions, true)
}

fn find(
    language: Dialect,
    source: &str,
    positions: &[(u32, u32)],
    outside_own_name: bool,
) -> Result<Vec<Option<Enclosing>>, SyntaxError> {
    let tree = parse(language, source)?;
    let lines = LineIndex::new(source);
    Ok(positions
        .iter()
        .map(|&(line, character)| {
            let at = byte_at(&lines, line, character)?;
            let mut node = tree.root_node().descendant_for_byte_range(at, at)?;
            loop {
                // A declaration's own name is not inside it: `fn f` is declared in what
                // holds `f`.
                let at_its_name = outside_own_name
                    && name_node(node).is_some_and(|n| n.byte_range().contains(&at));
                if !at_its_name && let Some((name, kind)) = declared(language, node, source) {
                    return Some(Enclosing {
                        name,
                        kind,
                        start_line: to_u32(node.start_position().row),
                        end_line: to_u32(node.end_position().row),
                    });
                }
                node = node.parent()?;
            }
        })
        .collect())
}

/// The name and kind a node declares, when it is a declaration this reads.
fn declared(language: Dialect, node: Node<'_>, source: &str) -> Option<(String, &'static str)> {
    let name = |field: &str| {
        node.child_by_field_name(field)
            .map(|n| text(n, source).to_owned())
    };
    match language {
        Dialect::Rust => {
            let kind = match node.kind() {
                "function_item" | "function_signature_item" => {
                    let owner = ancestor(node, &["impl_item", "trait_item"]).and_then(|o| {
                        let field = if o.kind() == "impl_item" {
                            "type"
                        } else {
                            "name"
                        };
                        o.child_by_field_name(field)
                            .map(|t| text(t, source).to_owned())
                    });
                    let own = name("name")?;
                    return Some(match owner {
                        Some(o) => (format!("{}::{own}", base_type(&o)), "method"),
                        None => (own, "function"),
                    });
                }
                "struct_item" => "struct",
                "enum_item" => "enum",
                "union_item" => "struct",
                "trait_item" => "interface",
                "const_item" => "constant",
                "static_item" => "variable",
                "type_item" => "type_parameter",
                "mod_item" => "module",
                "macro_definition" => "macro",
                _ => return None,
            };
            Some((name("name")?, kind))
        }
        Dialect::Python => {
            let kind = match node.kind() {
                "function_definition" => match ancestor(node, &["class_definition"]) {
                    Some(class) => {
                        let class = class.child_by_field_name("name")?;
                        return Some((
                            format!("{}.{}", text(class, source), name("name")?),
                            "method",
                        ));
                    }
                    None => "function",
                },
                "class_definition" => "class",
                _ => return None,
            };
            Some((name("name")?, kind))
        }
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            let kind = match node.kind() {
                "function_declaration" | "generator_function_declaration" => "function",
                "method_definition" | "method_signature" | "abstract_method_signature" => {
                    let class = ancestor(
                        node,
                        &[
                            "class_declaration",
                            "abstract_class_declaration",
                            "class",
                            "interface_declaration",
                        ],
                    )
                    .and_then(|c| c.child_by_field_name("name"))
                    .map(|n| text(n, source).to_owned());
                    let own = name("name")?;
                    return Some(match class {
                        Some(c) => (format!("{c}.{own}"), "method"),
                        None => (own, "method"),
                    });
                }
                "class_declaration" | "abstract_class_declaration" => "class",
                "interface_declaration" => "interface",
                "enum_declaration" => "enum",
                "type_alias_declaration" => "type_parameter",
                // `const f = () => ...`: the variable names the function.
                "variable_declarator" => {
                    let value = node.child_by_field_name("value")?;
                    if !matches!(
                        value.kind(),
                        "arrow_function" | "function_expression" | "function"
                    ) {
                        return None;
                    }
                    "function"
                }
                _ => return None,
            };
            Some((name("name")?, kind))
        }
        Dialect::Go => match node.kind() {
            "function_declaration" => Some((name("name")?, "function")),
            "method_declaration" => {
                let receiver = node.child_by_field_name("receiver").map(|r| {
                    let t = text(r, source);
                    let ty = t
                        .trim_matches(|c| c == '(' || c == ')')
                        .split_whitespace()
                        .last()
                        .unwrap_or("")
                        .trim_start_matches('*');
                    base_type(ty)
                });
                let own = name("name")?;
                Some(match receiver {
                    Some(r) if !r.is_empty() => (format!("{r}.{own}"), "method"),
                    _ => (own, "method"),
                })
            }
            "type_spec" => Some((name("name")?, "struct")),
            _ => None,
        },
        Dialect::C | Dialect::Cpp => match node.kind() {
            "function_definition" => Some((
                c_declarator_name(node.child_by_field_name("declarator")?, source)?,
                "function",
            )),
            "struct_specifier" | "union_specifier" | "enum_specifier"
                if node.child_by_field_name("body").is_some() =>
            {
                let kind = if node.kind() == "enum_specifier" {
                    "enum"
                } else {
                    "struct"
                };
                Some((name("name")?, kind))
            }
            _ => None,
        },
    }
}

/// The node of the name a declaration declares.
fn name_node(node: Node<'_>) -> Option<Node<'_>> {
    if let Some(n) = node.child_by_field_name("name") {
        return Some(n);
    }
    let mut at = node.child_by_field_name("declarator")?;
    loop {
        match at.kind() {
            "identifier" | "field_identifier" => return Some(at),
            _ => at = at.child_by_field_name("declarator")?,
        }
    }
}

/// The nearest ancestor of one of the kinds.
fn ancestor<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut at = node.parent();
    while let Some(n) = at {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        at = n.parent();
    }
    None
}

/// A type without its generic arguments (`Stack<T>` is `Stack`).
fn base_type(ty: &str) -> String {
    ty.split(['<', '[']).next().unwrap_or(ty).trim().to_owned()
}

/// The identifier a C declarator declares (through pointers, arrays and parentheses).
fn c_declarator_name(mut node: Node<'_>, source: &str) -> Option<String> {
    loop {
        match node.kind() {
            "identifier" | "field_identifier" => return Some(text(node, source).to_owned()),
            _ => node = node.child_by_field_name("declarator")?,
        }
    }
}

/// Whether the position (zero-based line, UTF-16 column) is inside an import: a Rust `use`
/// (`pub use` re-exports included), a Python `import`/`from … import`, a TypeScript or
/// JavaScript `import` or `export … from`, a Go `import`.
pub fn in_import(
    language: Dialect,
    source: &str,
    line: u32,
    character: u32,
) -> Result<bool, SyntaxError> {
    let tree = parse(language, source)?;
    let Some(at) = byte_at(&LineIndex::new(source), line, character) else {
        return Ok(false);
    };
    let Some(mut node) = tree.root_node().descendant_for_byte_range(at, at) else {
        return Ok(false);
    };
    loop {
        let import = match (language, node.kind()) {
            (Dialect::Rust, "use_declaration") => true,
            (Dialect::Python, "import_statement" | "import_from_statement") => true,
            (
                Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx,
                "import_statement",
            ) => true,
            (
                Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx,
                "export_statement",
            ) => node.child_by_field_name("source").is_some(),
            (Dialect::Go, "import_declaration") => true,
            _ => false,
        };
        if import {
            return Ok(true);
        }
        match node.parent() {
            Some(p) => node = p,
            None => return Ok(false),
        }
    }
}

/// The byte offset of a line and UTF-16 column (the line's end when past it; none for a
/// line past the end or a column inside a character).
fn byte_at(lines: &LineIndex<'_>, line: u32, character: u32) -> Option<usize> {
    lines
        .offset_utf16_clamped(LineCol {
            line,
            col: character,
        })
        .ok()
}
