//! The canonical text of a declaration head: its tokens, comments and attributes left out,
//! joined by fixed spacing rules. Two heads that differ only in layout, comments or a
//! trailing comma render the same, so comparing renderings compares the tokens.

use tree_sitter::Node;

/// Nodes that are one token whatever their inner structure (strings keep their inner text).
const ATOMIC: &[&str] = &[
    "string",
    "string_literal",
    "raw_string_literal",
    "interpreted_string_literal",
    "template_string",
    "char_literal",
    "rune_literal",
    "lifetime",
];

/// Nodes left out of a head: comments (doc comments included) and attributes.
fn skipped(kind: &str) -> bool {
    kind.contains("comment") || kind == "attribute_item" || kind == "inner_attribute_item"
}

/// The tokens of `node` that start in `start..end`, rendered canonically.
pub(crate) fn render(node: Node<'_>, start: usize, end: usize, src: &str) -> String {
    let mut tokens: Vec<String> = Vec::new();
    let mut stack = vec![node];
    let mut cursor = node.walk();
    while let Some(n) = stack.pop() {
        if n.end_byte() <= start || n.start_byte() >= end || skipped(n.kind()) {
            continue;
        }
        if n.child_count() == 0 || ATOMIC.contains(&n.kind()) {
            let (s, e) = (n.start_byte().max(start), n.end_byte().min(end));
            let text = collapse(src.get(s..e).unwrap_or(""));
            if !text.is_empty() {
                push(&mut tokens, text);
            }
            continue;
        }
        let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    while tokens
        .last()
        .is_some_and(|t| matches!(t.as_str(), ";" | ":" | "{" | "=" | ","))
    {
        tokens.pop();
    }
    join(&tokens)
}

/// The whole node, rendered.
pub(crate) fn render_node(node: Node<'_>, src: &str) -> String {
    render(node, node.start_byte(), node.end_byte(), src)
}

/// `text` with every run of whitespace made one space, trimmed.
pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn push(tokens: &mut Vec<String>, text: String) {
    // A trailing comma before a closing bracket is layout, not meaning.
    if matches!(text.as_str(), ")" | "]" | "}" | ">") && tokens.last().is_some_and(|t| t == ",") {
        tokens.pop();
    }
    tokens.push(text);
}

fn wordish(token: &str) -> bool {
    token
        .chars()
        .last()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '>' || c == ']')
}

fn join(tokens: &[String]) -> String {
    let mut out = String::new();
    for (i, token) in tokens.iter().enumerate() {
        // A `-` or `+` after an operator (or first) is a sign: `= -1`.
        let after_sign = i > 0
            && matches!(tokens[i - 1].as_str(), "-" | "+")
            && (i < 2 || !(wordish(&tokens[i - 2]) || tokens[i - 2] == ")"));
        if i > 0 && !after_sign && space_between(&tokens[i - 1], token) {
            out.push(' ');
        }
        out.push_str(token);
    }
    out
}

fn space_between(left: &str, right: &str) -> bool {
    if matches!(right, ")" | "]" | "," | ";" | "." | "::" | ":" | ">") {
        return false;
    }
    if right == "?" && wordish(left) {
        return false;
    }
    if left == "*" && right == "as" {
        return true;
    }
    if matches!(
        left,
        "(" | "[" | "." | "::" | "&" | "*" | "**" | "..." | "'" | "<" | "#" | "@" | "!" | "?"
    ) {
        return false;
    }
    if matches!(right, "(" | "<" | "[") && wordish(left) {
        return false;
    }
    true
}
