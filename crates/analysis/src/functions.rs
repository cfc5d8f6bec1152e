//! Every function of a file with its complexity: cyclomatic complexity counted as lizard
//! counts it (so the figures agree with the tool people already use), cognitive complexity
//! as SonarSource defines it, the deepest nesting of control flow, the parameters and the
//! length.
//!
//! Cyclomatic complexity is 1 plus the decision points among the function's own tokens:
//! the tokens of a nested function are its own, as in lizard. The decision points are
//! lizard 1.24's per language:
//! - Rust: `if`, `for`, `while`, `where`, `&&`, `||`, `?` (the try operator too), each
//!   arm of a `match` after the first, and the `else` of a `let … else`;
//! - Python: `if`, `elif`, `for`, `while`, `except`, `finally`, `and`, `or`, and `case`
//!   of a `match` (comprehensions' `for` and `if`, and conditional expressions, count);
//! - TypeScript/JavaScript: `if`, `for`, `while`, `catch`, `case`, `&&`, `||`, `??` and
//!   `?` (ternaries, and optional members and parameters, which lizard reads as the same
//!   token);
//! - Go and C: `if`, `for`, `while`, `case`, `&&`, `||`, `?`.
//!
//! Closures are part of the function they are written in (lizard reads Rust closures and
//! Python lambdas so); JavaScript's function expressions and arrow functions, and Go's
//! function literals, are functions of their own, named by what they are assigned to.

use tree_sitter::Node;

use crate::{Dialect, SourceFile, Span};

/// A function or method and its metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// The name as declared; `(anonymous)` for a function expression assigned to nothing.
    pub name: String,
    /// With the type, class or receiver it belongs to: `Type::name` (Rust), `Class.name`
    /// (Python, TypeScript/JavaScript), `Type.Name` (Go).
    pub qualified: String,
    /// `function` or `method` (LSP's symbol kinds).
    pub symbol_kind: &'static str,
    /// The whole function, head and body.
    pub span: Span,
    /// Its name (the `function`/`=>` token when anonymous).
    pub name_span: Span,
    pub cyclomatic: u32,
    pub cognitive: u32,
    /// The deepest nesting of control flow (`if`, loops, `match`/`switch`, `try`) inside.
    pub nesting: u32,
    /// Declared parameters, a Rust `self` and a Python `self`/`cls` included (as lizard
    /// counts them), a Go receiver not.
    pub parameters: u32,
    /// Lines from the first to the last, both included.
    pub lines: u32,
    /// Lines holding code: neither blank nor only comment.
    pub code_lines: u32,
    /// Whether the function is visible outside its file or type: Rust `pub`, exported
    /// (TypeScript/JavaScript), no leading underscore (Python), capitalised (Go),
    /// not `static` (C).
    pub public: bool,
    /// The control-flow statement holding most of the function's decisions (at least
    /// three), outermost first: where an extraction lowers the complexity most.
    pub hotspot: Option<Hotspot>,
}

/// A statement of a function worth extracting, and the decisions it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hotspot {
    pub span: Span,
    pub decisions: u32,
}

/// The functions of a file, in source order (a nested function after the one it is in).
pub fn functions(file: &SourceFile) -> Vec<Function> {
    let mut out = Vec::new();
    let mut stack = vec![file.root()];
    let mut cursor = file.root().walk();
    // Preorder: a function is listed before the ones nested in it.
    while let Some(node) = stack.pop() {
        if is_function(file.dialect, node) {
            out.push(measure(file, node));
        }
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// Whether a node is a function of its own for the metrics.
pub fn is_function(dialect: Dialect, node: Node<'_>) -> bool {
    match dialect {
        Dialect::Rust => node.kind() == "function_item",
        Dialect::Python => node.kind() == "function_definition",
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => matches!(
            node.kind(),
            "function_declaration"
                | "function_expression"
                | "generator_function_declaration"
                | "generator_function"
                | "arrow_function"
                | "method_definition"
        ),
        Dialect::Go => matches!(
            node.kind(),
            "function_declaration" | "method_declaration" | "func_literal"
        ),
        Dialect::C | Dialect::Cpp => node.kind() == "function_definition",
    }
}

fn measure(file: &SourceFile, node: Node<'_>) -> Function {
    let dialect = file.dialect;
    let (name, name_node) = name_of(file, node);
    let owner = owner_of(file, node);
    let sep = match dialect {
        Dialect::Rust => "::",
        _ => ".",
    };
    let qualified = match &owner {
        Some(o) => format!("{o}{sep}{name}"),
        None => name.clone(),
    };
    let method = owner.is_some()
        || node.kind() == "method_definition"
        || node.kind() == "method_declaration";
    let tokens = own_leaves(dialect, node);
    let start = node.start_position().row;
    let end = node.end_position().row;
    let end = if node.end_position().column == 0 && end > start {
        end - 1
    } else {
        end
    };
    Function {
        public: public(file, node, &name),
        symbol_kind: if method { "method" } else { "function" },
        cyclomatic: 1 + decisions(file, node, &tokens),
        cognitive: cognitive(file, node),
        nesting: nesting(dialect, node, 0),
        parameters: parameters(file, node),
        lines: u32::try_from(end - start + 1).unwrap_or(u32::MAX),
        code_lines: code_lines(start, end, node),
        hotspot: hotspot(file, node),
        span: file.span(node),
        name_span: name_node.map_or_else(|| file.span(node), |n| file.span(n)),
        name,
        qualified,
    }
}

/// The tokens (leaves) of `node` with their parents, not entering the functions nested in
/// it. (tree-sitter finds a node's parent by walking down from the root: known here, it is
/// kept.)
fn own_leaves<'t>(dialect: Dialect, node: Node<'t>) -> Vec<(Node<'t>, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let before = stack.len();
        for c in n.children(&mut cursor) {
            if is_function(dialect, c) {
                continue;
            }
            if c.child_count() == 0 {
                out.push((c, n));
            } else {
                stack.push(c);
            }
        }
        stack[before..].reverse();
    }
    out.sort_by_key(|(t, _)| t.start_byte());
    out
}

/// The decision points among a function's own tokens (see the module's documentation).
fn decisions(file: &SourceFile, function: Node<'_>, tokens: &[(Node<'_>, Node<'_>)]) -> u32 {
    let dialect = file.dialect;
    let mut n = 0u32;
    for (t, parent) in tokens {
        // Where the grammar recovers from what it cannot parse (C's `else if` after an
        // `#endif`), a keyword comes out as an identifier: lizard, reading tokens, still
        // counts it, and no language here takes these words as names.
        let recovered = t.kind() == "identifier" && {
            let word = file.text_of(*t);
            matches!(word, "if" | "for" | "while" | "case")
                || (dialect == Dialect::Python
                    && matches!(word, "elif" | "except" | "finally" | "and" | "or"))
                || (dialect.is_ecmascript() && word == "catch")
        };
        if recovered {
            n += 1;
            continue;
        }
        if t.is_named() && !matches!(t.kind(), "where" | "?") {
            // Identifiers, literals, comments: never a decision. (A few grammars name
            // their keyword tokens; those are matched by kind below.)
            continue;
        }
        let counted = match dialect {
            Dialect::Rust => matches!(
                t.kind(),
                "if" | "for" | "while" | "where" | "&&" | "||" | "?"
            ),
            Dialect::Python => {
                matches!(
                    t.kind(),
                    "if" | "elif" | "for" | "while" | "except" | "finally" | "and" | "or"
                ) || (t.kind() == "case" && parent.kind() == "case_clause")
            }
            Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
                matches!(
                    t.kind(),
                    "if" | "for" | "while" | "catch" | "case" | "&&" | "||" | "??"
                ) || (t.kind() == "?" && parent.kind() == "ternary_expression")
            }
            Dialect::Go => matches!(
                t.kind(),
                "if" | "for" | "while" | "case" | "&&" | "||" | "?"
            ),
            // `#if` and `#elif` are counted from the text (`conditional_directives`).
            Dialect::C | Dialect::Cpp => matches!(
                t.kind(),
                "if" | "for" | "while" | "case" | "&&" | "||" | "?"
            ),
        };
        if counted {
            n += 1;
        }
    }
    if dialect == Dialect::Rust {
        n += rust_arms_and_let_else(function);
    }
    if matches!(dialect, Dialect::C | Dialect::Cpp) {
        n += conditional_directives(file, function);
    }
    n
}

/// `#if` and `#elif` lines inside a C function (lizard reads each as a condition); the
/// parser saw them blanked out (see `SourceFile::parse`).
fn conditional_directives(file: &SourceFile, function: Node<'_>) -> u32 {
    let text = file.text.get(function.byte_range()).unwrap_or("");
    let n = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix('#'))
        .map(str::trim_start)
        .filter(|d| {
            ["if", "elif"].iter().any(|k| {
                d.strip_prefix(k)
                    .is_some_and(|rest| rest.starts_with([' ', '\t', '(', '!']) || rest.is_empty())
            })
        })
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The outermost control-flow statement with the most decisions, if it holds three or
/// more and is not the whole body.
fn hotspot(file: &SourceFile, function: Node<'_>) -> Option<Hotspot> {
    let dialect = file.dialect;
    let mut best: Option<(u32, Node<'_>)> = None;
    let mut cursor = function.walk();
    let mut stack: Vec<(Node<'_>, Node<'_>)> = function
        .children(&mut cursor)
        .map(|c| (c, function))
        .collect();
    while let Some((n, parent)) = stack.pop() {
        if is_function(dialect, n) {
            continue;
        }
        if nests(dialect, n, Some(parent)) {
            let tokens = own_leaves(dialect, n);
            let d = decisions(file, n, &tokens);
            if d >= 3 && best.is_none_or(|(b, _)| d > b) {
                best = Some((d, n));
            }
            // An inner statement holds fewer decisions than the one around it.
            continue;
        }
        stack.extend(n.children(&mut cursor).map(|c| (c, n)).collect::<Vec<_>>());
    }
    best.map(|(decisions, n)| Hotspot {
        span: file.span(n),
        decisions,
    })
}

/// Rust's decisions that are not one token: each `match` arm after the first, and the
/// `else` of `let … else`, in the function's own body.
fn rust_arms_and_let_else(function: Node<'_>) -> u32 {
    let mut n = 0u32;
    let mut stack = vec![function];
    let mut cursor = function.walk();
    while let Some(node) = stack.pop() {
        if node.id() != function.id() && node.kind() == "function_item" {
            continue;
        }
        match node.kind() {
            "match_block" => {
                let arms = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "match_arm")
                    .count();
                n += u32::try_from(arms.saturating_sub(1)).unwrap_or(0);
            }
            "let_declaration" if node.child_by_field_name("alternative").is_some() => n += 1,
            // lizard reads a closure without parameters, `||`, as the operator.
            "closure_parameters"
                if node.child_count() == 2 && node.start_byte() + 2 == node.end_byte() =>
            {
                n += 1
            }
            _ => {}
        }
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children);
    }
    n
}

/// Whether a node is control flow that nests (for the nesting depth and cognitive
/// complexity).
fn nests(dialect: Dialect, node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    match dialect {
        Dialect::Rust => {
            matches!(
                node.kind(),
                "if_expression"
                    | "match_expression"
                    | "for_expression"
                    | "while_expression"
                    | "loop_expression"
            ) && !is_else_if(dialect, node, parent)
        }
        Dialect::Python => matches!(
            node.kind(),
            "if_statement"
                | "for_statement"
                | "while_statement"
                | "try_statement"
                | "with_statement"
                | "match_statement"
        ),
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            matches!(
                node.kind(),
                "if_statement"
                    | "for_statement"
                    | "for_in_statement"
                    | "while_statement"
                    | "do_statement"
                    | "switch_statement"
                    | "try_statement"
            ) && !is_else_if(dialect, node, parent)
        }
        Dialect::Go => {
            matches!(
                node.kind(),
                "if_statement"
                    | "for_statement"
                    | "expression_switch_statement"
                    | "type_switch_statement"
                    | "select_statement"
            ) && !is_else_if(dialect, node, parent)
        }
        Dialect::C | Dialect::Cpp => {
            matches!(
                node.kind(),
                "if_statement"
                    | "for_statement"
                    | "while_statement"
                    | "do_statement"
                    | "switch_statement"
            ) && !is_else_if(dialect, node, parent)
        }
    }
}

/// An `if` that is the `else` branch of another (`else if`): not a level deeper.
fn is_else_if(dialect: Dialect, node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    let Some(parent) = parent else {
        return false;
    };
    match dialect {
        Dialect::Rust => parent.kind() == "else_clause",
        Dialect::Go => {
            parent.kind() == "if_statement"
                && parent
                    .child_by_field_name("alternative")
                    .is_some_and(|a| a.id() == node.id())
        }
        _ => parent.kind() == "else_clause",
    }
}

/// The deepest nesting of control flow under `node`, not entering nested functions.
fn nesting(dialect: Dialect, node: Node<'_>, depth: u32) -> u32 {
    let mut deepest = depth;
    let mut cursor = node.walk();
    // Depth-first with an explicit stack: (node, depth of control flow around it).
    let mut stack: Vec<(Node<'_>, Node<'_>, u32)> = node
        .children(&mut cursor)
        .map(|c| (c, node, depth))
        .collect();
    while let Some((n, parent, d)) = stack.pop() {
        if is_function(dialect, n) {
            continue;
        }
        let d = if nests(dialect, n, Some(parent)) {
            d + 1
        } else {
            d
        };
        deepest = deepest.max(d);
        stack.extend(
            n.children(&mut cursor)
                .map(|c| (c, n, d))
                .collect::<Vec<_>>(),
        );
    }
    deepest
}

/// Cognitive complexity (SonarSource's definition): +1 for each break in the linear flow
/// (`if`, `else if`, `else`, ternary, `switch`/`match`, loops, `catch`/`except`, a jump
/// to a label, a sequence of like logical operators), plus the nesting level for those
/// that nest; nested functions and closures raise the nesting level of what they hold.
fn cognitive(file: &SourceFile, function: Node<'_>) -> u32 {
    let dialect = file.dialect;
    let mut total = 0u32;
    let mut cursor = function.walk();
    let mut stack: Vec<(Node<'_>, Node<'_>, u32)> = function
        .children(&mut cursor)
        .map(|c| (c, function, 0))
        .collect();
    stack.reverse();
    while let Some((n, parent, level)) = stack.pop() {
        if is_function(dialect, n) {
            // Counted as a function of its own.
            continue;
        }
        let kind = n.kind();
        let mut inner = level;
        if nests(dialect, n, Some(parent)) && kind != "try_statement" && kind != "with_statement" {
            total += 1 + level;
            inner = level + 1;
        } else if is_else_if(dialect, n, Some(parent)) && kind.starts_with("if") {
            total += 1;
            inner = level;
        } else if matches!(kind, "try_statement" | "with_statement") {
            // The `try` itself breaks nothing; its handlers do (below), nested.
            inner = level + 1;
        } else if matches!(kind, "else_clause" | "elif_clause") {
            // Its body stays at the level of the `if`'s body, which it is inside of.
            total += 1;
        } else if matches!(kind, "except_clause" | "catch_clause") {
            total += level;
        } else if matches!(kind, "conditional_expression" | "ternary_expression") {
            total += 1 + level;
            inner = level + 1;
        } else if matches!(kind, "closure_expression" | "lambda") {
            inner = level + 1;
        } else if let Some(op) = logical_operator(dialect, n) {
            let parent_same = logical_operator(dialect, parent).is_some_and(|p| p == op);
            if !parent_same {
                total += 1;
            }
        } else if matches!(
            kind,
            "break_expression" | "continue_expression" | "break_statement" | "continue_statement"
        ) && n.named_child(0).is_some_and(|c| {
            matches!(
                c.kind(),
                "label" | "label_name" | "statement_identifier" | "identifier"
            )
        }) || kind == "goto_statement"
        {
            total += 1;
        }
        let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
        for c in children.into_iter().rev() {
            stack.push((c, n, inner));
        }
    }
    total
}

/// The logical operator of a binary expression (`&&`, `||`, `and`, `or`, `??`).
fn logical_operator(dialect: Dialect, node: Node<'_>) -> Option<&'static str> {
    let kind = node.kind();
    if !matches!(kind, "binary_expression" | "boolean_operator") {
        return None;
    }
    let op = node.child_by_field_name("operator")?;
    let op = match op.kind() {
        "&&" => "&&",
        "||" => "||",
        "and" => "and",
        "or" => "or",
        "??" if dialect.is_ecmascript() => "??",
        _ => return None,
    };
    Some(op)
}

fn parameters(file: &SourceFile, function: Node<'_>) -> u32 {
    let params = match file.dialect {
        Dialect::C | Dialect::Cpp => {
            declarator(function).and_then(|d| d.child_by_field_name("parameters"))
        }
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => function
            .child_by_field_name("parameters")
            .or_else(|| function.child_by_field_name("parameter")),
        _ => function.child_by_field_name("parameters"),
    };
    let Some(params) = params else {
        return 0;
    };
    if params.kind() == "identifier" {
        // `x => x + 1`
        return 1;
    }
    let mut cursor = params.walk();
    let n = params
        .named_children(&mut cursor)
        .filter(|p| !matches!(p.kind(), "comment" | "line_comment" | "block_comment"))
        .filter(|p| {
            // `f(void)` declares none.
            !(p.kind() == "parameter_declaration" && file.text_of(*p).trim() == "void")
        })
        .map(|p| match p.kind() {
            // Go: `a, b int` is two.
            "parameter_declaration" | "variadic_parameter_declaration"
                if file.dialect == Dialect::Go =>
            {
                let mut c = p.walk();
                p.children_by_field_name("name", &mut c).count().max(1)
            }
            _ => 1,
        })
        .sum::<usize>();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A C function definition's `function_declarator` (under pointers).
fn declarator(function: Node<'_>) -> Option<Node<'_>> {
    let mut d = function.child_by_field_name("declarator")?;
    for _ in 0..8 {
        if d.kind() == "function_declarator" {
            return Some(d);
        }
        d = d.child_by_field_name("declarator")?;
    }
    None
}

fn name_of<'t>(file: &SourceFile, node: Node<'t>) -> (String, Option<Node<'t>>) {
    let named = |n: Node<'t>| (file.text_of(n).to_owned(), Some(n));
    match file.dialect {
        Dialect::C | Dialect::Cpp => {
            if let Some(d) = declarator(node).and_then(|d| d.child_by_field_name("declarator")) {
                return named(d);
            }
        }
        _ => {
            if let Some(n) = node.child_by_field_name("name") {
                return named(n);
            }
        }
    }
    // A function expression is named by what holds it.
    if let Some(parent) = node.parent() {
        let holder = match parent.kind() {
            "variable_declarator" => parent.child_by_field_name("name"),
            "assignment_expression" => parent.child_by_field_name("left"),
            "pair" => parent.child_by_field_name("key"),
            "public_field_definition" | "field_definition" => parent
                .child_by_field_name("name")
                .or_else(|| parent.child_by_field_name("property")),
            _ => None,
        };
        if let Some(h) = holder {
            let text = file.text_of(h);
            let last = text.rsplit('.').next().unwrap_or(text);
            return (last.to_owned(), Some(h));
        }
    }
    ("(anonymous)".to_owned(), None)
}

/// The type, class or receiver a function belongs to, if any.
fn owner_of(file: &SourceFile, node: Node<'_>) -> Option<String> {
    match file.dialect {
        Dialect::Go => {
            let receiver = node.child_by_field_name("receiver")?;
            let text = file.text_of(receiver);
            // `(s *Server)` → `Server`; `(Server)` → `Server`; generic `[T]` dropped.
            let ty = text
                .trim_matches(|c| c == '(' || c == ')')
                .split_whitespace()
                .last()?
                .trim_start_matches('*');
            Some(ty.split('[').next().unwrap_or(ty).to_owned())
        }
        Dialect::Rust => {
            let mut p = node.parent();
            while let Some(n) = p {
                match n.kind() {
                    "impl_item" => {
                        let ty = n.child_by_field_name("type")?;
                        return Some(without_generics(file.text_of(ty)));
                    }
                    "trait_item" => {
                        return n
                            .child_by_field_name("name")
                            .map(|t| file.text_of(t).to_owned());
                    }
                    "function_item" | "source_file" => return None,
                    _ => p = n.parent(),
                }
            }
            None
        }
        _ => {
            // The classes around a method or a function defined in a class body.
            let mut names = Vec::new();
            let mut p = node.parent();
            let mut direct = true;
            while let Some(n) = p {
                match n.kind() {
                    "class_definition"
                    | "class_declaration"
                    | "class"
                    | "abstract_class_declaration" => {
                        if let Some(name) = n.child_by_field_name("name") {
                            names.push(file.text_of(name).to_owned());
                        }
                    }
                    k if is_function(file.dialect, n) || k == "program" => {
                        if names.is_empty() {
                            direct = false;
                        }
                        break;
                    }
                    _ => {}
                }
                p = n.parent();
            }
            if names.is_empty() || !direct {
                return None;
            }
            names.reverse();
            Some(names.join("."))
        }
    }
}

fn without_generics(ty: &str) -> String {
    let ty = ty.trim();
    let base = ty.split('<').next().unwrap_or(ty);
    base.trim().to_owned()
}

fn public(file: &SourceFile, node: Node<'_>, name: &str) -> bool {
    match file.dialect {
        Dialect::Rust => {
            let mut c = node.walk();
            let vis = node
                .children(&mut c)
                .find(|n| n.kind() == "visibility_modifier")
                .map(|v| file.text_of(v).to_owned());
            match vis.as_deref() {
                Some("pub") => true,
                Some(_) => false,
                // Trait items are as public as the trait.
                None => node
                    .parent()
                    .and_then(|p| p.parent())
                    .is_some_and(|p| p.kind() == "trait_item"),
            }
        }
        Dialect::Python => {
            !name.starts_with('_') || (name.starts_with("__") && name.ends_with("__"))
        }
        Dialect::Go => name.chars().next().is_some_and(char::is_uppercase),
        Dialect::C | Dialect::Cpp => {
            let mut c = node.walk();
            !node
                .children(&mut c)
                .any(|n| n.kind() == "storage_class_specifier" && file.text_of(n) == "static")
        }
        _ => {
            let mut p = node.parent();
            while let Some(n) = p {
                match n.kind() {
                    "export_statement" => return true,
                    "class_body" => {
                        p = n.parent();
                        continue;
                    }
                    k if k.contains("class") => {
                        p = n.parent();
                        continue;
                    }
                    "method_definition" => {}
                    _ => {}
                }
                if n.kind() == "program" || is_function(file.dialect, n) {
                    return false;
                }
                p = n.parent();
            }
            false
        }
    }
}

/// Lines of a function that hold code: not blank and not only comment.
fn code_lines(start: usize, end: usize, function: Node<'_>) -> u32 {
    let mut comment_only = vec![true; end - start + 1];
    // A line holds code when a token that is not a comment starts or ends on it.
    let mut tokens = Vec::new();
    crate::leaves(function, &|_| false, &mut tokens);
    for t in tokens {
        if t.kind().contains("comment") {
            continue;
        }
        for row in [t.start_position().row, t.end_position().row] {
            if (start..=end).contains(&row) {
                comment_only[row - start] = false;
            }
        }
    }
    u32::try_from(comment_only.iter().filter(|c| !**c).count()).unwrap_or(u32::MAX)
}
