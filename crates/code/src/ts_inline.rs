//! Inline a TypeScript/JavaScript function into its callers, which tsserver does not offer.
//! Only what can be inlined without changing what the code does: a function whose body is
//! one `return` of an expression (or an arrow function's expression body), with plain
//! parameters (no defaults, rest or destructuring), not using `this` or `arguments`; each
//! call passes one argument per parameter, and an argument whose parameter is not used
//! exactly once must be a name or a literal (else its side effects would repeat or vanish).
//! The caller's file is edited by the syntax tree; verification (tsc) then checks the whole.

use resolve_pr_source::{Dialect, TextEdit, TextRange};
use tree_sitter::Node;

/// A function that can be inlined.
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    /// The byte offset of the declaration's name.
    pub name_at: usize,
    params: Vec<String>,
    /// The returned expression's text.
    body: String,
    /// Where the parameters are used in `body`: byte range, parameter index, and whether
    /// the use is a shorthand property (`{ a }`).
    uses: Vec<(usize, usize, usize, bool)>,
    /// Whether `body` needs parentheses where a call was.
    wrap: bool,
    /// The bytes of the declaration to remove (its comments and line included).
    pub declaration: TextRange,
}

fn parse(dialect: Dialect, source: &str) -> Result<tree_sitter::Tree, String> {
    resolve_pr_syntax::parse_tree(dialect, source)
        .map_err(|e| format!("the file does not parse: {e}"))
}

fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    &source[node.byte_range()]
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The innermost node covering byte `at`.
fn node_at(root: Node<'_>, at: usize) -> Option<Node<'_>> {
    root.descendant_for_byte_range(at, at)
}

/// Every node of a subtree, in order.
fn walk<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    out.push(node);
    for child in named_children(node) {
        walk(child, out);
    }
}

/// The function declared at byte `at` (on its name): `function f(…) { return …; }` or
/// `const f = (…) => …`.
pub fn function_at(dialect: Dialect, source: &str, at: usize) -> Result<Function, String> {
    let tree = parse(dialect, source)?;
    let mut node = node_at(tree.root_node(), at).ok_or("nothing is at that position")?;
    let (name, params, body, statement) = loop {
        match node.kind() {
            "function_declaration" => {
                let body = node
                    .child_by_field_name("body")
                    .ok_or("the function has no body")?;
                let statements = named_children(body);
                let [only] = statements.as_slice() else {
                    return Err(
                        "only a function whose body is one return statement is inlined".to_owned(),
                    );
                };
                if only.kind() != "return_statement" {
                    return Err(
                        "only a function whose body is one return statement is inlined".to_owned(),
                    );
                }
                let value = named_children(*only)
                    .into_iter()
                    .next()
                    .ok_or("the function returns nothing")?;
                break (
                    node.child_by_field_name("name")
                        .ok_or("the function has no name")?,
                    node.child_by_field_name("parameters")
                        .ok_or("the function has no parameters")?,
                    value,
                    node,
                );
            }
            "variable_declarator" => {
                let value = node
                    .child_by_field_name("value")
                    .ok_or("the name has no value")?;
                if value.kind() != "arrow_function" {
                    return Err(
                        "only a function (a declaration or an arrow function) is inlined"
                            .to_owned(),
                    );
                }
                let body = value
                    .child_by_field_name("body")
                    .ok_or("the function has no body")?;
                let body = if body.kind() == "statement_block" {
                    let statements = named_children(body);
                    match statements.as_slice() {
                        [only] if only.kind() == "return_statement" => named_children(*only)
                            .into_iter()
                            .next()
                            .ok_or("the function returns nothing")?,
                        _ => {
                            return Err(
                                "only a function whose body is one return statement is inlined"
                                    .to_owned(),
                            );
                        }
                    }
                } else {
                    body
                };
                let params = value
                    .child_by_field_name("parameters")
                    .or_else(|| value.child_by_field_name("parameter"))
                    .ok_or("the function has no parameters")?;
                let declaration = node.parent().ok_or("the declaration has no statement")?;
                if named_children(declaration)
                    .iter()
                    .filter(|n| n.kind() == "variable_declarator")
                    .count()
                    != 1
                {
                    return Err("the declaration declares several names".to_owned());
                }
                break (
                    node.child_by_field_name("name")
                        .ok_or("the function has no name")?,
                    params,
                    body,
                    declaration,
                );
            }
            _ => {
                node = node
                    .parent()
                    .ok_or("no function is declared at that position")?
            }
        }
    };
    if name.kind() != "identifier" {
        return Err("the function's name is a pattern".to_owned());
    }
    let mut names = Vec::new();
    if params.kind() == "identifier" {
        names.push(text(params, source).to_owned());
    } else {
        for p in named_children(params) {
            let pattern = p.child_by_field_name("pattern");
            match (p.kind(), pattern) {
                ("required_parameter", Some(pat))
                    if pat.kind() == "identifier" && p.child_by_field_name("value").is_none() =>
                {
                    names.push(text(pat, source).to_owned())
                }
                ("identifier", _) => names.push(text(p, source).to_owned()),
                ("comment", _) => {}
                _ => {
                    return Err(format!(
                        "the parameter {} is not a plain name",
                        text(p, source)
                    ));
                }
            }
        }
    }
    let mut nodes = Vec::new();
    walk(body, &mut nodes);
    let mut uses = Vec::new();
    for n in &nodes {
        let t = text(*n, source);
        if n.kind() == "this" || (n.kind() == "identifier" && t == "arguments") {
            return Err("the function uses this or arguments".to_owned());
        }
        if matches!(n.kind(), "await_expression" | "yield_expression") {
            return Err("the function awaits or yields".to_owned());
        }
        let shorthand = n.kind() == "shorthand_property_identifier";
        if (n.kind() == "identifier" || shorthand)
            && let Some(i) = names.iter().position(|p| p == t)
        {
            let start = n.start_byte() - body.start_byte();
            uses.push((start, start + t.len(), i, shorthand));
        }
    }
    let wrap = !matches!(
        body.kind(),
        "identifier"
            | "call_expression"
            | "member_expression"
            | "subscript_expression"
            | "parenthesized_expression"
            | "number"
            | "string"
            | "template_string"
            | "true"
            | "false"
            | "null"
            | "undefined"
            | "array"
    );
    // The statement goes with its `export`, the comments right above it and its line.
    let statement = match statement.parent() {
        Some(p) if p.kind() == "export_statement" => p,
        _ => statement,
    };
    let mut start = statement.start_byte();
    let mut prev = statement.prev_sibling();
    while let Some(p) = prev {
        // A comment on the lines right above (no blank line between).
        if p.kind() != "comment" || source[p.end_byte()..start].matches('\n').count() > 1 {
            break;
        }
        start = p.start_byte();
        prev = p.prev_sibling();
    }
    let start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let mut end = statement.end_byte();
    if let Some(i) = source[end..].find('\n') {
        end += i + 1;
        // And a blank line after it.
        if source[end..].starts_with('\n') {
            end += 1;
        }
    }
    Ok(Function {
        name: text(name, source).to_owned(),
        name_at: name.start_byte(),
        params: names,
        body: text(body, source).to_owned(),
        uses,
        wrap,
        declaration: TextRange::new(start, end),
    })
}

/// The edit that inlines `f` at a use of its name at byte `at` of `source`: the call
/// replaced by the body, or the name taken out of an import.
pub fn inline_use(
    dialect: Dialect,
    source: &str,
    at: usize,
    f: &Function,
) -> Result<TextEdit, String> {
    let tree = parse(dialect, source)?;
    let ident = node_at(tree.root_node(), at).ok_or("no name is there")?;
    let parent = ident.parent().ok_or("the name stands alone")?;
    match parent.kind() {
        "call_expression" if parent.child_by_field_name("function") == Some(ident) => {}
        "import_specifier" => return Ok(unimport(source, parent)),
        _ => {
            return Err(format!(
                "{} is used there other than by a call ({})",
                f.name,
                parent.kind()
            ));
        }
    }
    let args = parent
        .child_by_field_name("arguments")
        .ok_or("the call has no arguments")?;
    if args.kind() != "arguments" {
        return Err("a tagged template is not inlined".to_owned());
    }
    let args: Vec<Node<'_>> = named_children(args)
        .into_iter()
        .filter(|a| a.kind() != "comment")
        .collect();
    if args.len() != f.params.len() || args.iter().any(|a| a.kind() == "spread_element") {
        return Err(format!(
            "the call passes {} argument(s) to {} parameter(s)",
            args.len(),
            f.params.len()
        ));
    }
    for (i, arg) in args.iter().enumerate() {
        let used = f.uses.iter().filter(|u| u.2 == i).count();
        let simple = matches!(
            arg.kind(),
            "identifier" | "number" | "string" | "true" | "false" | "null" | "undefined"
        );
        if used != 1 && !simple {
            return Err(format!(
                "the argument {} would be evaluated {used} times",
                text(*arg, source)
            ));
        }
    }
    let mut body = f.body.clone();
    for &(s, e, i, shorthand) in f.uses.iter().rev() {
        let arg = text(args[i], source);
        let value = if matches!(
            args[i].kind(),
            "identifier" | "number" | "string" | "true" | "false" | "null" | "undefined"
        ) {
            arg.to_owned()
        } else {
            format!("({arg})")
        };
        let new = if shorthand {
            format!("{}: {value}", f.params[i])
        } else {
            value
        };
        body.replace_range(s..e, &new);
    }
    // Where the call is a whole value (an initializer, a return, an argument), the body
    // needs no parentheses.
    let whole = parent.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "variable_declarator"
                | "return_statement"
                | "arguments"
                | "array"
                | "parenthesized_expression"
        )
    });
    let body = if f.wrap && !whole {
        format!("({body})")
    } else {
        body
    };
    Ok(TextEdit::replace(
        TextRange::new(parent.start_byte(), parent.end_byte()),
        body,
    ))
}

/// An import specifier taken out: the whole import when it is the only one.
fn unimport(source: &str, specifier: Node<'_>) -> TextEdit {
    let list = specifier.parent();
    let siblings = list.map(|l| {
        named_children(l)
            .into_iter()
            .filter(|n| n.kind() == "import_specifier")
            .count()
    });
    if siblings == Some(1) {
        let mut statement = specifier;
        while statement.kind() != "import_statement" {
            match statement.parent() {
                Some(p) => statement = p,
                None => break,
            }
        }
        let start = statement.start_byte();
        let end = source[statement.end_byte()..]
            .find('\n')
            .map_or(statement.end_byte(), |i| statement.end_byte() + i + 1);
        return TextEdit::replace(TextRange::new(start, end), "");
    }
    // `a, f, b` → `a, b`: the specifier and the comma and spaces after it (before it, last).
    let (start, end) = (specifier.start_byte(), specifier.end_byte());
    let after = &source[end..];
    let trimmed = after.trim_start_matches([' ', '\t', '\n']);
    if let Some(rest) = trimmed.strip_prefix(',') {
        let skip = after.len() - rest.len();
        let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        return TextEdit::replace(TextRange::new(start, end + skip + spaces), "");
    }
    let before = source[..start].trim_end_matches([' ', '\t', '\n']);
    let comma = before.strip_suffix(',').map_or(start, str::len);
    TextEdit::replace(TextRange::new(comma, end), "")
}

#[cfg(test)]
mod tests {
    use resolve_pr_source::apply_edits;

    use super::*;

    const LIB: &str = "import { x } from './x';\n\n/** Twice. */\nexport function twice(n: number): number {\n  return n * 2;\n}\n\nexport const pair = (a: number, b: string) => ({ a, b });\n\nfunction uses(): number {\n  return twice(x) + twice(3 + 4);\n}\n";

    fn at(source: &str, needle: &str) -> usize {
        source.find(needle).unwrap()
    }

    #[test]
    fn a_one_return_function_is_inlined_at_its_calls_and_its_declaration_goes() {
        let f = function_at(Dialect::TypeScript, LIB, at(LIB, "twice(n")).unwrap();
        assert_eq!(f.name, "twice");
        let first = inline_use(Dialect::TypeScript, LIB, at(LIB, "twice(x)"), &f).unwrap();
        let second = inline_use(Dialect::TypeScript, LIB, at(LIB, "twice(3"), &f).unwrap();
        let out = apply_edits(LIB, &[TextEdit::replace(f.declaration, ""), first, second]).unwrap();
        assert_eq!(
            out,
            "import { x } from './x';\n\nexport const pair = (a: number, b: string) => ({ a, b });\n\nfunction uses(): number {\n  return (x * 2) + ((3 + 4) * 2);\n}\n"
        );
        let g = function_at(Dialect::TypeScript, LIB, at(LIB, "pair =")).unwrap();
        let src = "import { pair, other } from './lib';\nconst p = pair(1, 'a');\n";
        let call = inline_use(Dialect::TypeScript, src, at(src, "pair(1"), &g).unwrap();
        let import = inline_use(Dialect::TypeScript, src, at(src, "pair,"), &g).unwrap();
        assert_eq!(
            apply_edits(src, &[import, call]).unwrap(),
            "import { other } from './lib';\nconst p = ({ a: 1, b: 'a' });\n"
        );
    }

    #[test]
    fn what_would_change_behaviour_is_refused() {
        let src = "function sq(n: number) {\n  return n * n;\n}\nfunction two(n: number) {\n  const m = n;\n  return m;\n}\nconst v = sq(next());\nconst w = [1].map(sq);\n";
        let f = function_at(Dialect::TypeScript, src, at(src, "sq(n")).unwrap();
        let err = inline_use(Dialect::TypeScript, src, at(src, "sq(next"), &f).unwrap_err();
        assert!(err.contains("evaluated 2 times"), "{err}");
        let err = inline_use(Dialect::TypeScript, src, at(src, "sq);"), &f).unwrap_err();
        assert!(err.contains("other than by a call"), "{err}");
        let err = function_at(Dialect::TypeScript, src, at(src, "two(n")).unwrap_err();
        assert!(err.contains("one return"), "{err}");
    }
}
