//! The declaration a position sits in: which function a reference is made from, and the
//! lines a declaration spans.

use tree_sitter::{Node, Point};

use crate::{Language, SyntaxError, parse, text, to_u32};

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
    language: Language,
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
    language: Language,
    source: &str,
    positions: &[(u32, u32)],
) -> Result<Vec<Option<Enclosing>>, SyntaxError> {
    find(language, source, positions, true)
}

fn find(
    language: Language,
    source: &str,
    positions: &[(u32, u32)],
    outside_own_name: bool,
) -> Result<Vec<Option<Enclosing>>, SyntaxError> {
    let tree = parse(language, source)?;
    let lines: Vec<&str> = source.split('\n').collect();
    Ok(positions
        .iter()
        .map(|&(line, character)| {
            let line_text = lines.get(line as usize)?;
            let column = utf16_to_byte(line_text, character);
            let point = Point {
                row: line as usize,
                column,
            };
            let mut node = tree.root_node().descendant_for_point_range(point, point)?;
            loop {
                // A declaration's own name is not inside it: `fn f` is declared in what
                // holds `f`.
                let at_its_name = outside_own_name
                    && name_node(node)
                        .is_some_and(|n| n.start_position() <= point && point < n.end_position());
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
fn declared(language: Language, node: Node<'_>, source: &str) -> Option<(String, &'static str)> {
    let name = |field: &str| {
        node.child_by_field_name(field)
            .map(|n| text(n, source).to_owned())
    };
    match language {
        Language::Rust => {
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
        Language::Python => {
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
        Language::TypeScript | Language::Tsx | Language::JavaScript => {
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
        Language::Go => match node.kind() {
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
        Language::C => match node.kind() {
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
    language: Language,
    source: &str,
    line: u32,
    character: u32,
) -> Result<bool, SyntaxError> {
    let tree = parse(language, source)?;
    let Some(line_text) = source.split('\n').nth(line as usize) else {
        return Ok(false);
    };
    let column = utf16_to_byte(line_text, character);
    let point = Point {
        row: line as usize,
        column,
    };
    let Some(mut node) = tree.root_node().descendant_for_point_range(point, point) else {
        return Ok(false);
    };
    loop {
        let import = match (language, node.kind()) {
            (Language::Rust, "use_declaration") => true,
            (Language::Python, "import_statement" | "import_from_statement") => true,
            (Language::TypeScript | Language::Tsx | Language::JavaScript, "import_statement") => {
                true
            }
            (Language::TypeScript | Language::Tsx | Language::JavaScript, "export_statement") => {
                node.child_by_field_name("source").is_some()
            }
            (Language::Go, "import_declaration") => true,
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

/// The byte column of a UTF-16 column in a line (the line's end when past it).
fn utf16_to_byte(line_text: &str, character: u32) -> usize {
    let mut units = 0u32;
    for (i, c) in line_text.char_indices() {
        if units >= character {
            return i;
        }
        units += u32::try_from(c.len_utf16()).unwrap_or(1);
    }
    line_text.len()
}
