//! The maintainability index of a file, by the formula radon uses (the Visual Studio
//! variant, 0–100):
//!
//! `MI = max(0, (171 − 5.2 ln V − 0.23 G − 16.2 ln L + 50 sin √(2.46 · rad(C))) · 100 / 171)`
//!
//! with `V` the Halstead volume, `G` the cyclomatic complexity of the whole file, `L` its
//! logical lines and `C` the percentage of comment lines among its source lines. For Python
//! each term is counted as radon 6 counts it, so the index agrees with `radon mi`:
//! - `V` from the operators of binary, unary, boolean and augmented-assignment operations
//!   and comparisons, and their operands (names, attributes and constants by value within a
//!   function, any other expression each its own); decorators, default values and
//!   annotations of a `def` are not read;
//! - `G`: 1, plus the decisions of the module's own code and of its functions' bodies
//!   (`if`/`elif`/conditional expressions, each operand of `and`/`or` after the first, a
//!   loop and its `else`, a `try`'s handlers and `else`, comprehensions and their `if`s,
//!   `assert`, `match` cases but a catch-all), plus one per method; functions and classes
//!   nested in a function are not counted;
//! - `L`: logical lines as radon splits them (statements, two when a line holds a colon
//!   that does not end it, split at `;`);
//! - `C`: comment lines plus the lines of multi-line strings standing alone, over the
//!   source lines.
//!
//! Other languages take the same formula over their syntax trees: operators are the
//! operator tokens, operands the identifiers and literals, `G` the sum of the functions'
//! cyclomatic complexity (lizard's) plus one, `L` the lines holding code, `C` the comment
//! lines.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::{Dialect, SourceFile};

/// The terms of the index and the index itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Maintainability {
    /// 0–100, higher is easier to maintain.
    pub index: f64,
    pub halstead_volume: f64,
    pub complexity: u32,
    pub logical_lines: u32,
    pub source_lines: u32,
    /// Percent of comment lines among the source lines.
    pub comment_percent: f64,
}

/// The maintainability index of a file.
pub fn maintainability(file: &SourceFile) -> Maintainability {
    let (volume, complexity, lloc, sloc, comment_lines) = match file.dialect {
        Dialect::Python => {
            let raw = python_raw(&file.text);
            (
                python_volume(file),
                python_complexity(file),
                raw.lloc,
                raw.sloc,
                raw.comments + raw.multi,
            )
        }
        _ => generic_terms(file),
    };
    let comment_percent = if sloc == 0 {
        0.0
    } else {
        f64::from(comment_lines) / f64::from(sloc) * 100.0
    };
    Maintainability {
        index: index(volume, complexity, lloc, comment_percent),
        halstead_volume: volume,
        complexity,
        logical_lines: lloc,
        source_lines: sloc,
        comment_percent,
    }
}

fn index(volume: f64, complexity: u32, lloc: u32, comment_percent: f64) -> f64 {
    if volume <= 0.0 || lloc == 0 {
        return 100.0;
    }
    let nn = 171.0 - 5.2 * volume.ln() - 0.23 * f64::from(complexity) - 16.2 * f64::from(lloc).ln()
        + 50.0 * (2.46 * comment_percent.to_radians()).sqrt().sin();
    (nn * 100.0 / 171.0).clamp(0.0, 100.0)
}

/// Halstead counts: distinct operators and operands, and their totals.
#[derive(Default)]
struct Halstead<'a> {
    operators: HashSet<&'a str>,
    operands: HashSet<(Option<&'a str>, Operand<'a>)>,
    n1: u64,
    n2: u64,
}

#[derive(Hash, PartialEq, Eq)]
enum Operand<'a> {
    /// A name, attribute or constant: equal by its text.
    Value(&'a str),
    /// Any other expression: distinct from every other (radon keys it by the node).
    Node(usize),
}

impl Halstead<'_> {
    fn volume(&self) -> f64 {
        let h = self.operators.len() + self.operands.len();
        let n = self.n1 + self.n2;
        if h == 0 {
            return 0.0;
        }
        // Counts of tokens in a file stay far below 2^52: exact as floats.
        #[allow(clippy::cast_precision_loss)]
        let (n, h) = (n as f64, h as f64);
        n * h.log2()
    }
}

fn python_volume(file: &SourceFile) -> f64 {
    let mut h = Halstead::default();
    let mut stack: Vec<(Node<'_>, Option<&str>)> = vec![(file.root(), None)];
    let mut cursor = file.root().walk();
    while let Some((node, context)) = stack.pop() {
        let kind = node.kind();
        if kind == "function_definition" {
            // Only the body is read, in the function's own context.
            let name = node.child_by_field_name("name").map(|n| file.text_of(n));
            if let Some(body) = node.child_by_field_name("body") {
                stack.push((body, name));
            }
            continue;
        }
        if kind == "decorated_definition" {
            // Decorators of a def are not read; of a class they are.
            if let Some(def) = node.child_by_field_name("definition") {
                if def.kind() == "class_definition" {
                    let children: Vec<_> = node.children(&mut cursor).collect();
                    stack.extend(children.into_iter().map(|c| (c, context)));
                } else {
                    stack.push((def, context));
                }
            }
            continue;
        }
        let mut operands: Vec<Node<'_>> = Vec::new();
        match kind {
            "binary_operator" | "augmented_assignment" => {
                if let Some(op) = node.child_by_field_name("operator") {
                    h.operators.insert(file.text_of(op).trim_end_matches('='));
                }
                h.n1 += 1;
                h.n2 += 2;
                operands.extend(node.child_by_field_name("left"));
                operands.extend(node.child_by_field_name("right"));
            }
            // `A | None` in an annotation the module or a class reads (a def's own are
            // not read): Python's AST has a `|` operation there.
            "union_type" => {
                h.operators.insert("|");
                h.n1 += 1;
                h.n2 += 2;
                let mut c = node.walk();
                operands.extend(
                    node.named_children(&mut c)
                        .filter(|n| n.kind() != "comment"),
                );
            }
            "unary_operator" | "not_operator" => {
                let op = node
                    .child_by_field_name("operator")
                    .map_or("not", |o| file.text_of(o));
                h.operators
                    .insert(if kind == "not_operator" { "not" } else { op });
                h.n1 += 1;
                h.n2 += 1;
                operands.extend(node.child_by_field_name("argument"));
            }
            "boolean_operator" => {
                let op = node
                    .child_by_field_name("operator")
                    .map_or("", |o| o.kind());
                // `a and b and c` is one operation of three values (Python's AST), unless
                // parenthesised.
                let part_of_parent = node.parent().is_some_and(|p| {
                    p.kind() == "boolean_operator"
                        && p.child_by_field_name("operator").map(|o| o.kind()) == Some(op)
                });
                if !part_of_parent {
                    let mut values = Vec::new();
                    flatten_bool(node, op, &mut values);
                    h.operators.insert(op);
                    h.n1 += 1;
                    h.n2 += values.len() as u64;
                    operands.extend(values);
                }
            }
            "comparison_operator" => {
                let mut c = node.walk();
                let ops: Vec<&str> = node
                    .children_by_field_name("operators", &mut c)
                    .map(|o| o.kind())
                    .collect();
                let mut c = node.walk();
                let values: Vec<Node<'_>> = node
                    .named_children(&mut c)
                    .filter(|n| n.kind() != "comment")
                    .collect();
                h.n1 += ops.len() as u64;
                h.n2 += ops.len() as u64 + 1;
                h.operators.extend(ops);
                operands.extend(values);
            }
            _ => {}
        }
        for o in operands {
            h.operands.insert((context, python_operand(file, o)));
        }
        let children: Vec<_> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev().map(|c| (c, context)));
    }
    h.volume()
}

fn flatten_bool<'t>(node: Node<'t>, op: &str, out: &mut Vec<Node<'t>>) {
    for side in ["left", "right"] {
        if let Some(s) = node.child_by_field_name(side) {
            if s.kind() == "boolean_operator"
                && s.child_by_field_name("operator").map(|o| o.kind()) == Some(op)
            {
                flatten_bool(s, op, out);
            } else {
                out.push(s);
            }
        }
    }
}

fn python_operand<'a>(file: &'a SourceFile, node: Node<'_>) -> Operand<'a> {
    let mut node = node;
    // A type annotation's node wraps the expression it is.
    while matches!(node.kind(), "parenthesized_expression" | "type") {
        match node.named_child(0) {
            Some(inner) if inner.kind() != "comment" => node = inner,
            _ => break,
        }
    }
    match node.kind() {
        "identifier" | "integer" | "float" | "true" | "false" | "none" => {
            Operand::Value(file.text_of(node))
        }
        "string"
            if !file
                .text_of(node)
                .trim_start_matches(['r', 'R', 'b', 'B', 'u', 'U'])
                .starts_with(['f', 'F']) =>
        {
            Operand::Value(string_value(file.text_of(node)))
        }
        "attribute" => node
            .child_by_field_name("attribute")
            .map_or(Operand::Node(node.id()), |a| {
                Operand::Value(file.text_of(a))
            }),
        _ => Operand::Node(node.id()),
    }
}

/// A string literal's text without its prefix and quotes (equal contents are one operand).
fn string_value(text: &str) -> &str {
    let t = text.trim_start_matches(['r', 'R', 'b', 'B', 'u', 'U']);
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(inner) = t.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner;
        }
    }
    text
}

/// The file's cyclomatic complexity as radon totals it.
fn python_complexity(file: &SourceFile) -> u32 {
    let root = file.root();
    let mut total = 1;
    let mut cursor = root.walk();
    for stmt in root.named_children(&mut cursor) {
        total += python_block_item(file, stmt, Scope::Module);
    }
    total
}

#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Module,
    Class,
    Function,
}

/// What a statement adds to the file's total, where it stands.
fn python_block_item(file: &SourceFile, stmt: Node<'_>, scope: Scope) -> u32 {
    let def = if stmt.kind() == "decorated_definition" {
        stmt.child_by_field_name("definition").unwrap_or(stmt)
    } else {
        stmt
    };
    match def.kind() {
        "function_definition" => match scope {
            // A closure's decisions are not counted.
            Scope::Function => 0,
            Scope::Module => body_decisions(file, def),
            Scope::Class => 1 + body_decisions(file, def),
        },
        "class_definition" => match scope {
            Scope::Function | Scope::Class => 0,
            Scope::Module => {
                let Some(body) = def.child_by_field_name("body") else {
                    return 0;
                };
                let mut c = body.walk();
                body.named_children(&mut c)
                    .map(|s| python_block_item(file, s, Scope::Class))
                    .sum()
            }
        },
        _ => decisions_in(stmt),
    }
}

fn body_decisions(file: &SourceFile, def: Node<'_>) -> u32 {
    let Some(body) = def.child_by_field_name("body") else {
        return 0;
    };
    let mut c = body.walk();
    body.named_children(&mut c)
        .map(|s| python_block_item(file, s, Scope::Function))
        .sum()
}

/// radon's decisions in a statement, not entering the functions and classes it holds.
fn decisions_in(node: Node<'_>) -> u32 {
    let mut n = 0;
    let mut stack = vec![node];
    let mut cursor = node.walk();
    while let Some(x) = stack.pop() {
        match x.kind() {
            "function_definition" | "class_definition" => continue,
            "decorated_definition" => continue,
            "if_statement" | "elif_clause" | "conditional_expression" | "assert_statement" => {
                n += 1
            }
            "boolean_operator" => {
                let op = x.child_by_field_name("operator").map(|o| o.kind());
                let chained = x.parent().is_some_and(|p| {
                    p.kind() == "boolean_operator"
                        && p.child_by_field_name("operator").map(|o| o.kind()) == op
                });
                if !chained {
                    // Values minus one: one per operator of the flattened chain.
                    let mut values = Vec::new();
                    flatten_bool(x, op.unwrap_or(""), &mut values);
                    n += u32::try_from(values.len().saturating_sub(1)).unwrap_or(0);
                }
            }
            "for_statement" | "while_statement" => {
                n += 1 + u32::from(x.child_by_field_name("alternative").is_some());
            }
            "try_statement" => {
                let mut c = x.walk();
                for child in x.named_children(&mut c) {
                    match child.kind() {
                        "except_clause" => n += 1,
                        "else_clause" => n += 1,
                        _ => {}
                    }
                }
            }
            "for_in_clause" | "if_clause" => n += 1,
            "match_statement" => {
                if let Some(body) = x.child_by_field_name("body") {
                    let mut c = body.walk();
                    let cases: Vec<Node<'_>> = body
                        .named_children(&mut c)
                        .filter(|k| k.kind() == "case_clause")
                        .collect();
                    let catch_all = cases.iter().any(|case| is_catch_all(*case));
                    n += u32::try_from(cases.len()).unwrap_or(0) - u32::from(catch_all);
                }
            }
            _ => {}
        }
        let children: Vec<_> = x.children(&mut cursor).collect();
        stack.extend(children);
    }
    n
}

/// `case _:` or `case name:` (a capture without a guard's pattern): radon's catch-all.
fn is_catch_all(case: Node<'_>) -> bool {
    let mut c = case.walk();
    let patterns: Vec<Node<'_>> = case
        .named_children(&mut c)
        .filter(|n| n.kind() == "case_pattern")
        .collect();
    patterns.len() == 1 && {
        let p = patterns[0];
        p.named_child_count() == 0
            || p.named_child(0)
                .is_some_and(|i| i.kind() == "identifier" && p.named_child_count() == 1)
    }
}

/// radon's raw line counts of a Python source.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PythonRaw {
    pub lloc: u32,
    pub sloc: u32,
    pub comments: u32,
    pub multi: u32,
    pub single_comments: u32,
    pub blank: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    Comment,
    Str,
    Colon,
    Semicolon,
    Other,
}

/// Lines grouped as Python's tokenizer completes them (open brackets, strings and
/// backslashes continue a line), each group's tokens, as radon's `analyze` counts them.
pub fn python_raw(source: &str) -> PythonRaw {
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let mut raw = PythonRaw::default();
    let mut i = 0;
    while i < lines.len() {
        let mut group = vec![lines[i]];
        let mut scan = Scanner::default();
        scan.feed(lines[i]);
        while !scan.complete() && i + group.len() < lines.len() {
            scan.feed("\n");
            scan.feed(lines[i + group.len()]);
            group.push(lines[i + group.len()]);
        }
        i += group.len();
        let tokens = scan.tokens;
        raw.comments +=
            u32::try_from(tokens.iter().filter(|t| **t == Tok::Comment).count()).unwrap_or(0);
        let nonblank = u32::try_from(group.iter().filter(|l| !l.is_empty()).count()).unwrap_or(0);
        let blank = u32::try_from(group.len()).unwrap_or(0) - nonblank;
        if tokens == [Tok::Comment] {
            raw.single_comments += 1;
        } else if tokens == [Tok::Str] {
            if group.len() == 1 {
                raw.single_comments += 1;
            } else {
                raw.multi += nonblank;
                raw.blank += blank;
            }
        } else {
            raw.sloc += nonblank;
            raw.blank += blank;
        }
        raw.lloc += logical(&tokens);
    }
    raw
}

fn logical(tokens: &[Tok]) -> u32 {
    tokens
        .split(|t| *t == Tok::Semicolon)
        .map(|part| {
            let real: Vec<Tok> = part
                .iter()
                .copied()
                .filter(|t| *t != Tok::Comment)
                .collect();
            match real.iter().rposition(|t| *t == Tok::Colon) {
                Some(at) => 2 - u32::from(at + 1 == real.len()),
                None => u32::from(!real.is_empty()),
            }
        })
        .sum()
}

/// A small Python tokenizer: enough to know where a logical line ends and which of its
/// tokens are comments, strings, colons and semicolons.
#[derive(Default)]
struct Scanner {
    tokens: Vec<Tok>,
    depth: u32,
    /// Inside a string: its quote (`'`, `"`, `'''`, `"""`).
    string: Option<&'static str>,
    continued: bool,
    /// The previous token was a string (`"a" "b"` is one token? no: two, as tokenize says).
    other_pending: bool,
}

impl Scanner {
    fn complete(&self) -> bool {
        self.depth == 0 && self.string.is_none() && !self.continued
    }

    fn feed(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        self.continued = false;
        while i < bytes.len() {
            if let Some(q) = self.string {
                if bytes[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if bytes[i..].starts_with(q.as_bytes()) {
                    self.string = None;
                    i += q.len();
                    continue;
                }
                if q.len() == 1 && bytes[i] == b'\n' {
                    // An unterminated one-line string: an error token, ends here.
                    self.string = None;
                }
                i += 1;
                continue;
            }
            let c = bytes[i];
            match c {
                b'#' => {
                    self.tokens.push(Tok::Comment);
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'\'' | b'"' => {
                    let q: &'static str = match (
                        c,
                        bytes[i..].starts_with(b"'''"),
                        bytes[i..].starts_with(b"\"\"\""),
                    ) {
                        (_, true, _) => "'''",
                        (_, _, true) => "\"\"\"",
                        (b'\'', ..) => "'",
                        _ => "\"",
                    };
                    // A prefix (r, b, f, u) is part of the string token.
                    if self.other_pending
                        && matches!(self.tokens.last(), Some(Tok::Other))
                        && prefix_before(bytes, i)
                    {
                        self.tokens.pop();
                    }
                    self.tokens.push(Tok::Str);
                    self.string = Some(q);
                    self.other_pending = false;
                    i += q.len();
                    continue;
                }
                b'\\' if bytes.get(i + 1).is_none_or(|b| *b == b'\n') => {
                    self.continued = true;
                    i += 1;
                    continue;
                }
                b'(' | b'[' | b'{' => self.depth += 1,
                b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => {
                    i += 1;
                    self.other_pending = false;
                    continue;
                }
                _ => {}
            }
            if c == b':' && bytes.get(i + 1) != Some(&b'=') {
                self.tokens.push(Tok::Colon);
                self.other_pending = false;
            } else if c == b';' {
                self.tokens.push(Tok::Semicolon);
                self.other_pending = false;
            } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
                // One name or number token for a run of word characters.
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || bytes[i] == b'_'
                        || bytes[i] >= 0x80
                        || (bytes[i] == b'.' && start < i && bytes[start].is_ascii_digit()))
                {
                    i += 1;
                }
                self.tokens.push(Tok::Other);
                self.other_pending = true;
                continue;
            } else {
                self.tokens.push(Tok::Other);
                self.other_pending = false;
                if c == b':' {
                    i += 1; // `:=`
                }
            }
            i += 1;
        }
    }
}

/// Whether the word just before a quote is a string prefix (`r`, `b`, `f`, `rb`, ...).
fn prefix_before(bytes: &[u8], quote: usize) -> bool {
    let mut s = quote;
    while s > 0 && bytes[s - 1].is_ascii_alphabetic() {
        s -= 1;
    }
    let word = &bytes[s..quote];
    word.len() <= 2
        && !word.is_empty()
        && word
            .iter()
            .all(|b| matches!(b.to_ascii_lowercase(), b'r' | b'b' | b'f' | b'u'))
}

/// The terms for a language other than Python.
fn generic_terms(file: &SourceFile) -> (f64, u32, u32, u32, u32) {
    let mut h = Halstead::default();
    let mut tokens = Vec::new();
    crate::leaves(file.root(), &|_| false, &mut tokens);
    let mut code = HashSet::new();
    let mut comments = HashSet::new();
    for t in &tokens {
        let kind = t.kind();
        if kind.contains("comment") {
            for row in t.start_position().row..=t.end_position().row {
                comments.insert(row);
            }
            continue;
        }
        code.insert(t.start_position().row);
        if t.is_named() {
            h.n2 += 1;
            h.operands.insert((None, Operand::Value(file.text_of(*t))));
        } else if kind.chars().any(|c| !c.is_alphanumeric() && c != '_')
            && !matches!(
                kind,
                "(" | ")" | "{" | "}" | "[" | "]" | ";" | "," | "\"" | "'"
            )
        {
            h.n1 += 1;
            h.operators.insert(kind);
        }
    }
    let complexity = 1 + crate::functions::functions(file)
        .iter()
        .map(|f| f.cyclomatic)
        .sum::<u32>();
    let comment_only = comments.iter().filter(|r| !code.contains(*r)).count();
    let lines = u32::try_from(code.len()).unwrap_or(u32::MAX);
    (
        h.volume(),
        complexity,
        lines,
        lines,
        u32::try_from(comment_only).unwrap_or(u32::MAX),
    )
}
