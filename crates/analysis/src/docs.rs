//! Documentation of a file's declarations: which are documented and how well, which
//! parameters a doc still names after the signature lost them, and the TODOs left in
//! comments.
//!
//! What counts as a declaration follows the tool each language's users trust: Python as
//! `interrogate` 1.7.0 counts with its default options (every module, class, function,
//! method, nested one, `__init__`, magic and private one), Rust as rustc's `missing_docs`
//! lint asks for docs (crate roots, `pub` items, named fields, variants, trait items and
//! `pub` methods of inherent impls; trait impls never), TypeScript/JavaScript as JSDoc
//! `/** */` on declarations (public: exported), Go doc comments on top-level declarations
//! (public: capitalised; package comments are not counted, as one file per package is
//! enough), C comments before functions and tagged types (public: in a `.h`, not
//! `static`). C++ has no grammar here and gives no items.

use tree_sitter::Node;

use crate::{Dialect, SourceFile, Span};

/// One declaration that can carry documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct DocItem {
    pub file: String,
    pub name: String,
    /// Lowercase LSP `SymbolKind`: module, class, function, method, constructor, struct,
    /// enum, enum_member, interface, constant, variable, field, property, namespace,
    /// type_parameter (type aliases, as rust-analyzer says).
    pub symbol_kind: &'static str,
    /// Of the name (for a module, the start of the file).
    pub span: Span,
    /// Part of the file's API: exported, `pub`, capitalised, declared in a header.
    pub public: bool,
    pub documented: bool,
    /// The doc text without comment markers.
    pub doc: Option<String>,
    /// Parameter names of the signature (no `self`/`cls`/receiver, no `*`), for functions.
    pub params: Vec<String>,
    /// The doc shows an example (a code block, `>>>`, `@example`, an Examples section).
    pub has_example: bool,
}

/// A TODO-like tag left in a comment.
#[derive(Debug, Clone, PartialEq)]
pub struct Todo {
    pub file: String,
    /// Zero-based line of the tag.
    pub line: u32,
    /// `TODO`, `FIXME`, `XXX`, `HACK` or `BUG`.
    pub tag: String,
    /// The rest of the comment line after the tag (and its `(owner)` and `:`).
    pub text: String,
}

/// The declarations of `file` that documentation is expected on, in source order.
pub fn doc_items(file: &SourceFile) -> Vec<DocItem> {
    let mut out = Vec::new();
    match file.dialect {
        Dialect::Python => python::items(file, &mut out),
        Dialect::Rust => rust::items(file, &mut out),
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            js::items(file, &mut out)
        }
        Dialect::Go => go::items(file, &mut out),
        Dialect::C => c::items(file, &mut out),
        Dialect::Cpp => {}
    }
    out
}

/// [`doc_items`] of every file, with Rust visibility settled across files as rustc's
/// `missing_docs` sees it: an item of a module file counts as public only when the
/// `mod` declarations from a crate root (`src/lib.rs`, `src/main.rs`, `build.rs`,
/// `src/bin/*.rs`) down to it are all `pub`, or when a `pub use` somewhere in the
/// checkout names it (by name: a by-name approximation of re-exports, which does not
/// carry over to its fields and methods). A `mod x;` declaration counts as documented
/// when the module's own file starts with `//!` docs.
pub fn doc_items_of(files: &[SourceFile]) -> Vec<DocItem> {
    let mut per_file: Vec<Vec<DocItem>> = files.iter().map(doc_items).collect();
    rust::settle(files, &mut per_file);
    per_file.into_iter().flatten().collect()
}

/// `(documented, total)` over `items`, only the public ones when `public_only`.
pub fn coverage(items: &[DocItem], public_only: bool) -> (u32, u32) {
    let counted = items.iter().filter(|i| i.public || !public_only);
    let (mut documented, mut total) = (0u32, 0u32);
    for item in counted {
        total = total.saturating_add(1);
        documented = documented.saturating_add(u32::from(item.documented));
    }
    (documented, total)
}

/// Parameter names the doc describes that the signature no longer has: Sphinx
/// `:param x:`, Google `Args:`, numpy `Parameters` sections, JSDoc `@param x`, Rust
/// `# Arguments` lists of `` * `x` ``. Empty for items without a doc or parameters list.
pub fn outdated(item: &DocItem) -> Vec<String> {
    let Some(doc) = &item.doc else {
        return Vec::new();
    };
    if !matches!(item.symbol_kind, "function" | "method" | "constructor") {
        return Vec::new();
    }
    let mut gone = Vec::new();
    for name in documented_params(doc) {
        if !item.params.contains(&name) && !gone.contains(&name) {
            gone.push(name);
        }
    }
    gone
}

/// Labels for what is wrong with an item's documentation: `missing` (none),
/// `too_short` (under three words), `no_params_documented` (a function with parameters
/// whose doc names none of them), `outdated_params` (see [`outdated`]), `no_example`
/// (when `require_examples` and the doc shows none).
pub fn doc_quality(item: &DocItem, require_examples: bool) -> Vec<&'static str> {
    let Some(doc) = item.doc.as_deref().filter(|_| item.documented) else {
        return vec!["missing"];
    };
    let mut labels = Vec::new();
    if doc.split_whitespace().count() < 3 {
        labels.push("too_short");
    }
    if !item.params.is_empty() {
        let words: Vec<&str> = doc
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        if !item.params.iter().any(|p| words.contains(&p.as_str())) {
            labels.push("no_params_documented");
        }
    }
    if !outdated(item).is_empty() {
        labels.push("outdated_params");
    }
    if require_examples && !item.has_example {
        labels.push("no_example");
    }
    labels
}

const TODO_TAGS: [&str; 5] = ["TODO", "FIXME", "XXX", "HACK", "BUG"];

/// TODO, FIXME, XXX, HACK and BUG tags (upper case, as whole words) in comments; text in
/// string literals and docstrings is never read.
pub fn todos(file: &SourceFile) -> Vec<Todo> {
    let mut out = Vec::new();
    let mut stack = vec![file.root()];
    while let Some(node) = stack.pop() {
        if is_comment(node) {
            comment_todos(file, node, &mut out);
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

fn is_comment(node: Node<'_>) -> bool {
    matches!(node.kind(), "comment" | "line_comment" | "block_comment")
}

fn comment_todos(file: &SourceFile, node: Node<'_>, out: &mut Vec<Todo>) {
    let text = file.text_of(node);
    let first_line = file.pos(node.start_byte()).line;
    for (i, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        for tag in TODO_TAGS {
            let mut from = 0;
            while let Some(at) = line[from..].find(tag).map(|a| a + from) {
                from = at + tag.len();
                let before = at.checked_sub(1).map(|b| bytes[b]);
                let after = bytes.get(at + tag.len()).copied();
                let word =
                    |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
                if word(before) || word(after) {
                    continue;
                }
                let mut rest = line[at + tag.len()..].trim_start();
                if rest.starts_with('(') {
                    rest = rest.find(')').map_or(rest, |c| &rest[c + 1..]);
                }
                let rest = rest.trim_start_matches([':', '-', ' ', '!']).trim();
                let rest = rest.trim_end_matches("*/").trim_end();
                out.push(Todo {
                    file: file.path.clone(),
                    line: first_line.saturating_add(u32::try_from(i).unwrap_or(u32::MAX)),
                    tag: tag.to_owned(),
                    text: rest.to_owned(),
                });
                break;
            }
        }
    }
    out.sort_by_key(|t| t.line);
}

/// Parameter names a doc describes, in the order it names them.
fn documented_params(doc: &str) -> Vec<String> {
    let mut names = Vec::new();
    let lines: Vec<&str> = doc.lines().collect();
    let clean = |s: &str| -> Option<String> {
        let s = s.trim().trim_start_matches('*').trim_matches('`');
        let s = s.split('.').next().unwrap_or("");
        let ok = !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
        ok.then(|| s.to_owned())
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        // Sphinx: `:param x:` or `:param int x:`.
        if let Some(rest) = line
            .strip_prefix(":param ")
            .or_else(|| line.strip_prefix(":parameter "))
            .or_else(|| line.strip_prefix(":arg "))
            && let Some(head) = rest.split(':').next()
            && let Some(n) = head.split_whitespace().last().and_then(clean)
        {
            names.push(n);
        }
        // JSDoc: `@param {T} x`, `@param [x=1]`, `@param x.y`.
        if let Some(rest) = line
            .strip_prefix("@param")
            .or_else(|| line.strip_prefix("@arg"))
        {
            let mut rest = rest.trim_start();
            if rest.starts_with('{') {
                let mut depth = 0usize;
                let mut end = rest.len();
                for (j, c) in rest.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                end = j + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = rest[end..].trim_start();
            }
            let word = rest.split_whitespace().next().unwrap_or("");
            let word = word.trim_start_matches('[').trim_start_matches("...");
            let word = word.split(['=', ']']).next().unwrap_or("");
            if let Some(n) = clean(word) {
                names.push(n);
            }
        }
        // Google: `Args:` then indented `x (int): ...` / `x: ...`.
        if matches!(
            line,
            "Args:" | "Arguments:" | "Parameters:" | "Params:" | "Keyword Args:"
        ) {
            let indent = indent_of(lines[i]);
            let mut j = i + 1;
            let mut item_indent = None;
            while j < lines.len() {
                let l = lines[j];
                if l.trim().is_empty() {
                    j += 1;
                    continue;
                }
                let ind = indent_of(l);
                if ind <= indent {
                    break;
                }
                let first = *item_indent.get_or_insert(ind);
                if ind == first {
                    let head = l.trim().split(':').next().unwrap_or("");
                    let head = head.split(['(', ' ']).next().unwrap_or("");
                    if let Some(n) = clean(head) {
                        names.push(n);
                    }
                }
                j += 1;
            }
            i = j;
            continue;
        }
        // numpy: `Parameters` over a `---` rule, then `x : int` at the section's indent.
        if matches!(line, "Parameters" | "Other Parameters")
            && lines
                .get(i + 1)
                .is_some_and(|l| l.trim().starts_with("---") && l.trim().chars().all(|c| c == '-'))
        {
            let indent = indent_of(lines[i]);
            let mut j = i + 2;
            while j < lines.len() {
                let l = lines[j];
                if l.trim().is_empty() {
                    j += 1;
                    continue;
                }
                let ind = indent_of(l);
                if ind < indent
                    || lines
                        .get(j + 1)
                        .is_some_and(|n| n.trim().starts_with("---") && ind == indent)
                {
                    break;
                }
                if ind == indent {
                    let head = l.split(" :").next().unwrap_or("").trim();
                    for part in head.split(',') {
                        if let Some(n) = clean(part) {
                            names.push(n);
                        }
                    }
                }
                j += 1;
            }
            i = j;
            continue;
        }
        // Rust: `# Arguments` then `* `x` - ...` items.
        if line.starts_with('#') && line.trim_start_matches('#').trim() == "Arguments" {
            let mut j = i + 1;
            while j < lines.len() {
                let l = lines[j].trim();
                if l.starts_with('#') {
                    break;
                }
                if let Some(item) = l.strip_prefix("* ").or_else(|| l.strip_prefix("- "))
                    && let Some(code) = item.trim_start().strip_prefix('`')
                    && let Some(end) = code.find('`')
                    && let Some(n) = clean(&code[..end])
                {
                    names.push(n);
                }
                j += 1;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    names
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn has_example(doc: &str) -> bool {
    doc.contains("```")
        || doc.contains(">>>")
        || doc.contains("@example")
        || doc.contains(".. code-block")
        || doc.contains(".. doctest")
        || doc.lines().any(|l| {
            let l = l.trim().trim_start_matches('#').trim();
            matches!(
                l,
                "Example" | "Examples" | "Example:" | "Examples:" | "Example::"
            )
        })
}

fn item(
    file: &SourceFile,
    name: &str,
    symbol_kind: &'static str,
    span: Span,
    public: bool,
    doc: Option<String>,
    params: Vec<String>,
) -> DocItem {
    let documented = doc.as_deref().is_some_and(|d| !d.trim().is_empty());
    DocItem {
        file: file.path.clone(),
        name: name.to_owned(),
        symbol_kind,
        span,
        public,
        documented,
        has_example: doc.as_deref().is_some_and(has_example),
        doc,
        params,
    }
}

fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn name_of<'t>(node: Node<'t>) -> Option<Node<'t>> {
    node.child_by_field_name("name")
}

/// Text of `/** ... */`, `/* */` or `//`/`///` comments without their markers.
fn strip_comment(text: &str) -> String {
    let t = text.trim();
    if let Some(body) = t.strip_prefix("/*") {
        let body = body.strip_suffix("*/").unwrap_or(body);
        let body = body.trim_start_matches(['*', '!']);
        return body
            .lines()
            .map(|l| {
                let l = l.trim();
                l.strip_prefix("* ")
                    .or_else(|| l.strip_prefix('*'))
                    .unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_owned();
    }
    t.lines()
        .map(|l| {
            let l = l.trim_start();
            let l = l.trim_start_matches('/').trim_start_matches('!');
            l.strip_prefix(' ').unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

mod python {
    use super::*;

    /// interrogate visits every module, class and (async) function in the AST, wherever
    /// it is nested, and calls one covered when its docstring is non-blank.
    pub(super) fn items(file: &SourceFile, out: &mut Vec<DocItem>) {
        let root = file.root();
        let doc = docstring(file, root);
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        out.push(item(
            file,
            name,
            "module",
            Span::default(),
            !name.starts_with('_') || name == "__init__.py",
            doc,
            Vec::new(),
        ));
        walk(file, root, true, false, out);
    }

    fn walk(
        file: &SourceFile,
        node: Node<'_>,
        public: bool,
        in_class: bool,
        out: &mut Vec<DocItem>,
    ) {
        for child in children(node) {
            let def = if child.kind() == "decorated_definition" {
                child.child_by_field_name("definition").unwrap_or(child)
            } else {
                child
            };
            match def.kind() {
                "class_definition" | "function_definition" => {
                    let Some(name) = name_of(def) else {
                        walk(file, def, public, in_class, out);
                        continue;
                    };
                    let text = file.text_of(name);
                    let own_public = public
                        && (!text.starts_with('_')
                            || (text.starts_with("__") && text.ends_with("__")));
                    let is_class = def.kind() == "class_definition";
                    let kind = match (is_class, in_class) {
                        (true, _) => "class",
                        (false, true) if text == "__init__" => "constructor",
                        (false, true) => "method",
                        (false, false) => "function",
                    };
                    let body = def.child_by_field_name("body");
                    let doc = body.and_then(|b| docstring(file, b));
                    let params = if is_class {
                        Vec::new()
                    } else {
                        def.child_by_field_name("parameters")
                            .map(|p| params(file, p))
                            .unwrap_or_default()
                    };
                    out.push(item(
                        file,
                        text,
                        kind,
                        file.span(name),
                        own_public,
                        doc,
                        params,
                    ));
                    if let Some(body) = body {
                        walk(file, body, own_public, is_class, out);
                    }
                }
                _ => walk(file, child, public, in_class, out),
            }
        }
    }

    fn params(file: &SourceFile, list: Node<'_>) -> Vec<String> {
        let mut names = Vec::new();
        for p in children(list) {
            let ident = match p.kind() {
                "identifier" => Some(p),
                "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                    children(p)
                        .into_iter()
                        .find(|c| c.kind() == "identifier")
                        .or_else(|| {
                            children(p).into_iter().find_map(|c| {
                                matches!(
                                    c.kind(),
                                    "list_splat_pattern" | "dictionary_splat_pattern"
                                )
                                .then(|| children(c).into_iter().find(|d| d.kind() == "identifier"))
                                .flatten()
                            })
                        })
                }
                "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
                _ => None,
            };
            if let Some(ident) = ident {
                let n = file.text_of(ident);
                if n != "self" && n != "cls" {
                    names.push(n.to_owned());
                }
            }
        }
        names
    }

    /// The docstring of a module or block as `ast.get_docstring` finds it: the first
    /// statement, when it is a plain (not f-, not bytes) string expression.
    pub(super) fn docstring(file: &SourceFile, body: Node<'_>) -> Option<String> {
        let first = children(body).into_iter().find(|c| c.kind() != "comment")?;
        if first.kind() != "expression_statement" || first.named_child_count() != 1 {
            return None;
        }
        let mut expr = first.named_child(0)?;
        while expr.kind() == "parenthesized_expression" && expr.named_child_count() == 1 {
            expr = expr.named_child(0)?;
        }
        let parts = match expr.kind() {
            "string" => vec![expr],
            "concatenated_string" => children(expr),
            _ => return None,
        };
        let mut value = String::new();
        for part in parts {
            if part.kind() != "string" {
                return None;
            }
            value.push_str(&string_value(file, part)?);
        }
        Some(cleandoc(&value))
    }

    fn string_value(file: &SourceFile, s: Node<'_>) -> Option<String> {
        let text = file.text_of(s);
        let quote = text.find(['"', '\''])?;
        let prefix = text[..quote].to_ascii_lowercase();
        if prefix.contains('f') || prefix.contains('b') || prefix.contains('t') {
            return None;
        }
        let raw = prefix.contains('r');
        let body = &text[quote..];
        let q = if body.starts_with("\"\"\"") || body.starts_with("'''") {
            3
        } else {
            1
        };
        let inner = body.get(q..body.len().saturating_sub(q)).unwrap_or("");
        Some(if raw {
            inner.to_owned()
        } else {
            unescape(inner)
        })
    }

    fn unescape(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('\n') | None => {}
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('f') => out.push('\x0c'),
                Some('v') => out.push('\x0b'),
                Some('0') => out.push('\0'),
                Some(other @ ('\\' | '\'' | '"')) => out.push(other),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        out
    }

    /// `inspect.cleandoc`: the first line stripped, the common indentation of the rest
    /// removed, blank lines at both ends dropped.
    fn cleandoc(s: &str) -> String {
        let s = s.replace('\t', "        ");
        let lines: Vec<&str> = s.lines().collect();
        let margin = lines
            .iter()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| indent_of(l))
            .min()
            .unwrap_or(0);
        let mut out: Vec<String> = Vec::with_capacity(lines.len());
        for (i, l) in lines.iter().enumerate() {
            if i == 0 {
                out.push(l.trim_start().to_owned());
            } else {
                out.push(l.get(margin..).unwrap_or("").trim_end().to_owned());
            }
        }
        while out.first().is_some_and(|l| l.trim().is_empty()) {
            out.remove(0);
        }
        while out.last().is_some_and(|l| l.trim().is_empty()) {
            out.pop();
        }
        out.join("\n")
    }
}

mod rust {
    use std::collections::{HashMap, HashSet, VecDeque};

    use super::*;

    pub(super) fn is_crate_root(path: &str) -> bool {
        let p = format!("/{path}");
        p.ends_with("/src/lib.rs")
            || p.ends_with("/src/main.rs")
            || p.ends_with("/build.rs")
            || p.rsplit_once("/src/bin/")
                .is_some_and(|(_, rest)| !rest.contains('/') || rest.ends_with("/main.rs"))
    }

    pub(super) fn items(file: &SourceFile, out: &mut Vec<DocItem>) {
        let root = file.root();
        // A build script is a crate of its own, but no one documents it: missing_docs set
        // in the library does not reach it, and cargo builds it apart.
        let build_script = format!("/{}", file.path).ends_with("/build.rs");
        if is_crate_root(&file.path) && !build_script {
            let doc = inner_doc(file, root);
            out.push(item(
                file,
                "crate",
                "module",
                Span::default(),
                true,
                doc,
                Vec::new(),
            ));
        }
        walk(file, root, true, out);
    }

    fn is_pub(file: &SourceFile, node: Node<'_>) -> bool {
        children(node)
            .into_iter()
            .find(|c| c.kind() == "visibility_modifier")
            .is_some_and(|v| file.text_of(v) == "pub")
    }

    fn walk(file: &SourceFile, container: Node<'_>, scope_public: bool, out: &mut Vec<DocItem>) {
        for node in children(container) {
            let public = scope_public && is_pub(file, node) && !doc_hidden(file, node);
            let mut push =
                |name: Node<'_>, kind: &'static str, public: bool, params: Vec<String>| {
                    let doc = outer_doc(file, node);
                    out.push(item(
                        file,
                        file.text_of(name),
                        kind,
                        file.span(name),
                        public,
                        doc,
                        params,
                    ));
                };
            match node.kind() {
                "function_item" | "function_signature_item" => {
                    if let Some(name) = name_of(node) {
                        push(name, "function", public, fn_params(file, node));
                    }
                }
                "struct_item" | "union_item" => {
                    if let Some(name) = name_of(node) {
                        push(name, "struct", public, Vec::new());
                    }
                    if let Some(body) = node.child_by_field_name("body") {
                        fields(file, body, public, false, out);
                    }
                }
                "enum_item" => {
                    if let Some(name) = name_of(node) {
                        push(name, "enum", public, Vec::new());
                    }
                    if let Some(body) = node.child_by_field_name("body") {
                        for variant in children(body)
                            .into_iter()
                            .filter(|v| v.kind() == "enum_variant")
                        {
                            let public = public && !doc_hidden(file, variant);
                            if let Some(vname) = name_of(variant) {
                                let doc = outer_doc(file, variant);
                                out.push(item(
                                    file,
                                    file.text_of(vname),
                                    "enum_member",
                                    file.span(vname),
                                    public,
                                    doc,
                                    Vec::new(),
                                ));
                            }
                            if let Some(vbody) = variant.child_by_field_name("body") {
                                fields(file, vbody, public, true, out);
                            }
                        }
                    }
                }
                "trait_item" => {
                    if let Some(name) = name_of(node) {
                        push(name, "interface", public, Vec::new());
                    }
                    if let Some(body) = node.child_by_field_name("body") {
                        assoc_items(file, body, public, true, out);
                    }
                }
                "impl_item" => {
                    if node.child_by_field_name("trait").is_none()
                        && let Some(body) = node.child_by_field_name("body")
                    {
                        assoc_items(
                            file,
                            body,
                            scope_public && !doc_hidden(file, node),
                            false,
                            out,
                        );
                    }
                }
                "type_item" => {
                    if let Some(name) = name_of(node) {
                        push(name, "type_parameter", public, Vec::new());
                    }
                }
                "const_item" | "static_item" => {
                    if let Some(name) = name_of(node) {
                        let kind = if node.kind() == "const_item" {
                            "constant"
                        } else {
                            "variable"
                        };
                        push(name, kind, public, Vec::new());
                    }
                }
                "macro_definition" => {
                    let exported = preceding_attrs(file, node)
                        .iter()
                        .any(|a| a.trim_start_matches("#[").starts_with("macro_export"));
                    if let Some(name) = name_of(node) {
                        push(name, "function", scope_public && exported, Vec::new());
                    }
                }
                "mod_item" => {
                    let body = node.child_by_field_name("body");
                    if let Some(name) = name_of(node) {
                        let mut doc = outer_doc(file, node);
                        if doc.is_none() {
                            doc = body.and_then(|b| inner_doc(file, b));
                        }
                        out.push(item(
                            file,
                            file.text_of(name),
                            "module",
                            file.span(name),
                            public,
                            doc,
                            Vec::new(),
                        ));
                    }
                    if let Some(body) = body {
                        walk(file, body, public, out);
                    }
                }
                "foreign_mod_item" => {
                    if let Some(body) = node.child_by_field_name("body") {
                        walk(file, body, scope_public, out);
                    }
                }
                _ => {}
            }
        }
    }

    /// Trait items are public with their trait; inherent impl items when `pub`.
    fn assoc_items(
        file: &SourceFile,
        body: Node<'_>,
        scope_public: bool,
        in_trait: bool,
        out: &mut Vec<DocItem>,
    ) {
        for node in children(body) {
            let public =
                scope_public && (in_trait || is_pub(file, node)) && !doc_hidden(file, node);
            let (kind, params) = match node.kind() {
                "function_item" | "function_signature_item" => ("method", fn_params(file, node)),
                "const_item" => ("constant", Vec::new()),
                "type_item" | "associated_type" => ("type_parameter", Vec::new()),
                _ => continue,
            };
            if let Some(name) = name_of(node) {
                let doc = outer_doc(file, node);
                out.push(item(
                    file,
                    file.text_of(name),
                    kind,
                    file.span(name),
                    public,
                    doc,
                    params,
                ));
            }
        }
    }

    /// Named fields (rustc does not ask docs of tuple fields); a variant's fields are as
    /// public as their enum.
    fn fields(
        file: &SourceFile,
        body: Node<'_>,
        public: bool,
        in_variant: bool,
        out: &mut Vec<DocItem>,
    ) {
        if body.kind() != "field_declaration_list" {
            return;
        }
        for f in children(body)
            .into_iter()
            .filter(|f| f.kind() == "field_declaration")
        {
            if let Some(name) = name_of(f) {
                let doc = outer_doc(file, f);
                let public = public && (in_variant || is_pub(file, f)) && !doc_hidden(file, f);
                out.push(item(
                    file,
                    file.text_of(name),
                    "field",
                    file.span(name),
                    public,
                    doc,
                    Vec::new(),
                ));
            }
        }
    }

    fn fn_params(file: &SourceFile, node: Node<'_>) -> Vec<String> {
        let Some(list) = node.child_by_field_name("parameters") else {
            return Vec::new();
        };
        children(list)
            .into_iter()
            .filter(|p| p.kind() == "parameter")
            .filter_map(|p| p.child_by_field_name("pattern"))
            .map(|p| {
                let ident = if p.kind() == "identifier" {
                    Some(p)
                } else {
                    children(p).into_iter().find(|c| c.kind() == "identifier")
                };
                ident.map_or_else(
                    || file.text_of(p).to_owned(),
                    |i| file.text_of(i).to_owned(),
                )
            })
            .collect()
    }

    /// rustc asks no docs of `#[doc(hidden)]` items nor of anything inside them.
    fn doc_hidden(file: &SourceFile, node: Node<'_>) -> bool {
        preceding_attrs(file, node).iter().any(|a| {
            let a: String = a.chars().filter(|c| !c.is_whitespace()).collect();
            a.contains("doc(hidden)")
        })
    }

    /// Integration tests and benches are built with `--test`, where rustc asks no docs.
    fn test_target(path: &str) -> bool {
        let p = format!("/{path}");
        p.contains("/tests/") || p.contains("/benches/")
    }

    fn preceding_attrs(file: &SourceFile, node: Node<'_>) -> Vec<String> {
        let mut attrs = Vec::new();
        let mut sib = node.prev_named_sibling();
        while let Some(s) = sib {
            match s.kind() {
                "attribute_item" => attrs.push(file.text_of(s).to_owned()),
                "line_comment" | "block_comment" => {}
                _ => break,
            }
            sib = s.prev_named_sibling();
        }
        attrs
    }

    /// `#[doc = "..."]` / `#![doc = "..."]`: the string's text.
    fn doc_attr(text: &str) -> Option<String> {
        let inner = text
            .trim_start_matches('#')
            .trim_start_matches('!')
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim();
        let rest = inner
            .strip_prefix("doc")?
            .trim_start()
            .strip_prefix('=')?
            .trim();
        Some(rest.trim_matches('"').replace("\\n", "\n"))
    }

    /// `///`, `/** */` and `#[doc]` before `node`, attributes and plain comments between.
    fn outer_doc(file: &SourceFile, node: Node<'_>) -> Option<String> {
        let mut parts = Vec::new();
        let mut sib = node.prev_sibling();
        while let Some(s) = sib {
            let text = file.text_of(s);
            match s.kind() {
                "attribute_item" => {
                    if let Some(d) = doc_attr(text) {
                        parts.push(d);
                    }
                }
                "line_comment" => {
                    if text.starts_with("///") && !text.starts_with("////") {
                        parts.push(strip_comment(text));
                    }
                }
                "block_comment" => {
                    if text.starts_with("/**") && !text.starts_with("/***") && text != "/**/" {
                        parts.push(strip_comment(text));
                    }
                }
                _ => break,
            }
            sib = s.prev_sibling();
        }
        if parts.is_empty() {
            return None;
        }
        parts.reverse();
        Some(parts.join("\n"))
    }

    /// `//!`, `/*! */` and `#![doc]` inside a file or module body.
    fn inner_doc(file: &SourceFile, body: Node<'_>) -> Option<String> {
        let mut parts = Vec::new();
        let mut cursor = body.walk();
        for c in body.children(&mut cursor) {
            let text = file.text_of(c);
            match c.kind() {
                "line_comment" if text.starts_with("//!") => parts.push(strip_comment(text)),
                "block_comment" if text.starts_with("/*!") => parts.push(strip_comment(text)),
                "inner_attribute_item" => {
                    if let Some(d) = doc_attr(text) {
                        parts.push(d);
                    }
                }
                _ => {}
            }
        }
        (!parts.is_empty()).then(|| parts.join("\n"))
    }

    struct ModDecl {
        name: String,
        public: bool,
    }

    fn mod_decls(file: &SourceFile) -> Vec<ModDecl> {
        children(file.root())
            .into_iter()
            .filter(|n| n.kind() == "mod_item" && n.child_by_field_name("body").is_none())
            .filter_map(|n| {
                Some(ModDecl {
                    name: file.text_of(name_of(n)?).to_owned(),
                    public: is_pub(file, n),
                })
            })
            .collect()
    }

    /// Where `mod name;` in `parent` is: `dir/name.rs` or `dir/name/mod.rs`, `dir` being
    /// the parent's directory for crate roots and `mod.rs`, else `parent/` without `.rs`.
    fn child_paths(parent: &str, name: &str) -> [String; 2] {
        let dir = if is_crate_root(parent) || parent.ends_with("/mod.rs") || parent == "mod.rs" {
            parent
                .rsplit_once('/')
                .map_or(String::new(), |(d, _)| format!("{d}/"))
        } else {
            format!("{}/", parent.trim_end_matches(".rs"))
        };
        [format!("{dir}{name}.rs"), format!("{dir}{name}/mod.rs")]
    }

    fn reexported_names(file: &SourceFile, out: &mut HashSet<String>) {
        let mut stack = vec![file.root()];
        while let Some(n) = stack.pop() {
            if n.kind() == "use_declaration" {
                if is_pub(file, n) {
                    let text = file.text_of(n);
                    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                        if !word.is_empty() {
                            out.insert(word.to_owned());
                        }
                    }
                }
                continue;
            }
            if matches!(n.kind(), "source_file" | "mod_item" | "declaration_list") {
                stack.extend(children(n));
            }
        }
    }

    pub(super) fn settle(files: &[SourceFile], per_file: &mut [Vec<DocItem>]) {
        let index: HashMap<&str, usize> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.dialect == Dialect::Rust)
            .map(|(i, f)| (f.path.as_str(), i))
            .collect();
        let mut file_public: HashMap<usize, bool> = HashMap::new();
        let mut queue: VecDeque<usize> = VecDeque::new();
        for (&path, &i) in &index {
            if is_crate_root(path) {
                file_public.insert(i, true);
                queue.push_back(i);
            }
        }
        let mut reexported = HashSet::new();
        while let Some(i) = queue.pop_front() {
            let parent = &files[i];
            reexported_names(parent, &mut reexported);
            let parent_public = file_public.get(&i).copied().unwrap_or(false);
            for decl in mod_decls(parent) {
                let Some(&child) = child_paths(&parent.path, &decl.name)
                    .iter()
                    .find_map(|p| index.get(p.as_str()))
                else {
                    continue;
                };
                if file_public.contains_key(&child) {
                    continue;
                }
                file_public.insert(child, parent_public && decl.public);
                queue.push_back(child);
                // The declaration is documented by the module file's inner docs too.
                if let Some(doc) = inner_doc(&files[child], files[child].root()) {
                    for it in per_file[i].iter_mut() {
                        if it.symbol_kind == "module" && it.name == decl.name && !it.documented {
                            it.has_example = has_example(&doc);
                            it.doc = Some(doc.clone());
                            it.documented = true;
                        }
                    }
                }
            }
        }
        for (&path, &i) in &index {
            if test_target(path) && !file_public.contains_key(&i) {
                file_public.insert(i, false);
            }
        }
        for (&i, &public) in &file_public {
            if public {
                continue;
            }
            for it in per_file[i].iter_mut() {
                if it.public && !reexported.contains(&it.name) {
                    it.public = false;
                }
            }
        }
    }
}

mod js {
    use std::collections::HashSet;

    use super::*;

    pub(super) fn items(file: &SourceFile, out: &mut Vec<DocItem>) {
        let root = file.root();
        let mut exported_names = HashSet::new();
        for n in children(root) {
            if n.kind() == "export_statement" && n.child_by_field_name("declaration").is_none() {
                // `export { a, b as c }` names declarations made elsewhere in the file.
                for clause in children(n)
                    .into_iter()
                    .filter(|c| c.kind() == "export_clause")
                {
                    for spec in children(clause) {
                        if let Some(name) = spec.child_by_field_name("name") {
                            exported_names.insert(file.text_of(name).to_owned());
                        }
                    }
                }
                if let Some(value) = n.child_by_field_name("value")
                    && value.kind() == "identifier"
                {
                    exported_names.insert(file.text_of(value).to_owned());
                }
            }
        }
        statements(file, root, &exported_names, false, out);
    }

    fn statements(
        file: &SourceFile,
        container: Node<'_>,
        names: &HashSet<String>,
        exported_scope: bool,
        out: &mut Vec<DocItem>,
    ) {
        for n in children(container) {
            if n.kind() == "export_statement" {
                let decl = n.child_by_field_name("declaration").or_else(|| {
                    n.child_by_field_name("value")
                        .filter(|v| is_declaration(v.kind()))
                });
                if let Some(decl) = decl {
                    declaration(file, decl, n, true, names, out);
                }
            } else if is_declaration(n.kind()) {
                declaration(file, n, n, exported_scope, names, out);
            }
        }
    }

    fn is_declaration(kind: &str) -> bool {
        matches!(
            kind,
            "function_declaration"
                | "generator_function_declaration"
                | "class_declaration"
                | "abstract_class_declaration"
                | "class"
                | "function_expression"
                | "interface_declaration"
                | "type_alias_declaration"
                | "enum_declaration"
                | "lexical_declaration"
                | "variable_declaration"
                | "internal_module"
                | "module"
                | "ambient_declaration"
                | "function_signature"
        )
    }

    fn jsdoc(file: &SourceFile, node: Node<'_>) -> Option<String> {
        let prev = node.prev_sibling()?;
        let text = file.text_of(prev);
        (prev.kind() == "comment" && text.starts_with("/**") && text != "/**/")
            .then(|| strip_comment(text))
    }

    fn declaration(
        file: &SourceFile,
        decl: Node<'_>,
        doc_anchor: Node<'_>,
        exported: bool,
        names: &HashSet<String>,
        out: &mut Vec<DocItem>,
    ) {
        let doc = jsdoc(file, doc_anchor);
        let public_name = |n: Node<'_>| exported || names.contains(file.text_of(n));
        match decl.kind() {
            "ambient_declaration" => {
                for inner in children(decl)
                    .into_iter()
                    .filter(|c| is_declaration(c.kind()))
                {
                    declaration(file, inner, doc_anchor, exported, names, out);
                }
            }
            "function_declaration"
            | "generator_function_declaration"
            | "function_signature"
            | "function_expression" => {
                if let Some(name) = name_of(decl) {
                    let params = params(file, decl);
                    out.push(item(
                        file,
                        file.text_of(name),
                        "function",
                        file.span(name),
                        public_name(name),
                        doc,
                        params,
                    ));
                }
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                let public = name_of(decl).is_none_or(public_name);
                if let Some(name) = name_of(decl) {
                    out.push(item(
                        file,
                        file.text_of(name),
                        "class",
                        file.span(name),
                        public,
                        doc,
                        Vec::new(),
                    ));
                }
                if let Some(body) = decl.child_by_field_name("body") {
                    members(file, body, public, out);
                }
            }
            "interface_declaration" => {
                if let Some(name) = name_of(decl) {
                    let public = public_name(name);
                    out.push(item(
                        file,
                        file.text_of(name),
                        "interface",
                        file.span(name),
                        public,
                        doc,
                        Vec::new(),
                    ));
                    if let Some(body) = decl.child_by_field_name("body") {
                        members(file, body, public, out);
                    }
                }
            }
            "type_alias_declaration" => {
                if let Some(name) = name_of(decl) {
                    out.push(item(
                        file,
                        file.text_of(name),
                        "type_parameter",
                        file.span(name),
                        public_name(name),
                        doc,
                        Vec::new(),
                    ));
                }
            }
            "enum_declaration" => {
                if let Some(name) = name_of(decl) {
                    let public = public_name(name);
                    out.push(item(
                        file,
                        file.text_of(name),
                        "enum",
                        file.span(name),
                        public,
                        doc,
                        Vec::new(),
                    ));
                    if let Some(body) = decl.child_by_field_name("body") {
                        for m in children(body) {
                            let mname = match m.kind() {
                                "property_identifier" | "string" => Some(m),
                                "enum_assignment" => name_of(m),
                                _ => None,
                            };
                            if let Some(mname) = mname {
                                let mdoc = jsdoc(file, m);
                                out.push(item(
                                    file,
                                    file.text_of(mname),
                                    "enum_member",
                                    file.span(mname),
                                    public,
                                    mdoc,
                                    Vec::new(),
                                ));
                            }
                        }
                    }
                }
            }
            "lexical_declaration" | "variable_declaration" => {
                let is_const = file.text_of(decl).starts_with("const");
                for d in children(decl)
                    .into_iter()
                    .filter(|d| d.kind() == "variable_declarator")
                {
                    let Some(name) = name_of(d).filter(|n| n.kind() == "identifier") else {
                        continue;
                    };
                    let value = d.child_by_field_name("value");
                    let is_fn = value.is_some_and(|v| {
                        matches!(
                            v.kind(),
                            "arrow_function" | "function_expression" | "function"
                        )
                    });
                    let kind = match (is_fn, is_const) {
                        (true, _) => "function",
                        (false, true) => "constant",
                        (false, false) => "variable",
                    };
                    let params = value
                        .filter(|_| is_fn)
                        .map(|v| params(file, v))
                        .unwrap_or_default();
                    out.push(item(
                        file,
                        file.text_of(name),
                        kind,
                        file.span(name),
                        public_name(name),
                        doc.clone(),
                        params,
                    ));
                }
            }
            "internal_module" | "module" => {
                if let Some(name) = name_of(decl) {
                    let public = public_name(name);
                    out.push(item(
                        file,
                        file.text_of(name),
                        "namespace",
                        file.span(name),
                        public,
                        doc,
                        Vec::new(),
                    ));
                    if let Some(body) = decl.child_by_field_name("body") {
                        statements(file, body, &HashSet::new(), false, out);
                    }
                }
            }
            _ => {}
        }
    }

    fn members(file: &SourceFile, body: Node<'_>, public: bool, out: &mut Vec<DocItem>) {
        for m in children(body) {
            let kind = match m.kind() {
                "method_definition" | "method_signature" | "abstract_method_signature" => "method",
                "public_field_definition" | "property_signature" | "field_definition" => "property",
                _ => continue,
            };
            let Some(name) = name_of(m).or_else(|| m.child_by_field_name("property")) else {
                continue;
            };
            let hidden = name.kind() == "private_property_identifier"
                || children(m).into_iter().any(|c| {
                    c.kind() == "accessibility_modifier"
                        && matches!(file.text_of(c), "private" | "protected")
                });
            let text = file.text_of(name);
            let kind = if kind == "method" && text == "constructor" {
                "constructor"
            } else {
                kind
            };
            let params = if kind == "property" {
                Vec::new()
            } else {
                params(file, m)
            };
            let doc = jsdoc(file, m);
            out.push(item(
                file,
                text,
                kind,
                file.span(name),
                public && !hidden,
                doc,
                params,
            ));
        }
    }

    fn params(file: &SourceFile, func: Node<'_>) -> Vec<String> {
        let Some(list) = func.child_by_field_name("parameters") else {
            return func
                .child_by_field_name("parameter")
                .map(|p| vec![file.text_of(p).to_owned()])
                .unwrap_or_default();
        };
        let mut names = Vec::new();
        for p in children(list) {
            let pat = match p.kind() {
                "required_parameter" | "optional_parameter" => p.child_by_field_name("pattern"),
                "assignment_pattern" => p.child_by_field_name("left"),
                _ => Some(p),
            };
            let Some(mut pat) = pat else { continue };
            if pat.kind() == "rest_pattern" {
                match pat.named_child(0) {
                    Some(inner) => pat = inner,
                    None => continue,
                }
            }
            if pat.kind() == "identifier" && file.text_of(pat) != "this" {
                names.push(file.text_of(pat).to_owned());
            }
        }
        names
    }
}

mod go {
    use super::*;

    pub(super) fn items(file: &SourceFile, out: &mut Vec<DocItem>) {
        for n in children(file.root()) {
            match n.kind() {
                "function_declaration" | "method_declaration" => {
                    if let Some(name) = name_of(n) {
                        let text = file.text_of(name);
                        let kind = if n.kind() == "method_declaration" {
                            "method"
                        } else {
                            "function"
                        };
                        let params = params(file, n);
                        out.push(item(
                            file,
                            text,
                            kind,
                            file.span(name),
                            exported(text),
                            doc_before(file, n),
                            params,
                        ));
                    }
                }
                "type_declaration" | "const_declaration" | "var_declaration" => {
                    let group_doc = doc_before(file, n);
                    let specs: Vec<Node<'_>> = children(n)
                        .into_iter()
                        .flat_map(|c| {
                            if c.kind().ends_with("_spec_list") {
                                children(c)
                            } else {
                                vec![c]
                            }
                        })
                        .filter(|c| {
                            matches!(
                                c.kind(),
                                "type_spec" | "type_alias" | "const_spec" | "var_spec"
                            )
                        })
                        .collect();
                    for spec in specs {
                        let kind = match spec.kind() {
                            "type_spec" | "type_alias" => {
                                match spec.child_by_field_name("type").map(|t| t.kind()) {
                                    Some("struct_type") => "struct",
                                    Some("interface_type") => "interface",
                                    _ => "class",
                                }
                            }
                            "const_spec" => "constant",
                            _ => "variable",
                        };
                        let doc = doc_before(file, spec).or_else(|| group_doc.clone());
                        let names: Vec<Node<'_>> = {
                            let mut cursor = spec.walk();
                            spec.children_by_field_name("name", &mut cursor).collect()
                        };
                        for name in names {
                            let text = file.text_of(name);
                            if text == "_" {
                                continue;
                            }
                            out.push(item(
                                file,
                                text,
                                kind,
                                file.span(name),
                                exported(text),
                                doc.clone(),
                                Vec::new(),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn exported(name: &str) -> bool {
        name.chars().next().is_some_and(char::is_uppercase)
    }

    /// The comment group ending on the line just above `node`.
    fn doc_before(file: &SourceFile, node: Node<'_>) -> Option<String> {
        let mut parts = Vec::new();
        let mut expect_line = file.pos(node.start_byte()).line;
        let mut sib = node.prev_sibling();
        while let Some(s) = sib.filter(|s| s.kind() == "comment") {
            let end = file.pos(s.end_byte()).line;
            if end + 1 != expect_line {
                break;
            }
            parts.push(strip_comment(file.text_of(s)));
            expect_line = file.pos(s.start_byte()).line;
            sib = s.prev_sibling();
        }
        parts.reverse();
        (!parts.is_empty()).then(|| parts.join("\n"))
    }

    fn params(file: &SourceFile, func: Node<'_>) -> Vec<String> {
        let Some(list) = func.child_by_field_name("parameters") else {
            return Vec::new();
        };
        let mut names = Vec::new();
        for p in children(list) {
            let mut cursor = p.walk();
            for n in p.children_by_field_name("name", &mut cursor) {
                names.push(file.text_of(n).to_owned());
            }
        }
        names
    }
}

mod c {
    use super::*;

    pub(super) fn items(file: &SourceFile, out: &mut Vec<DocItem>) {
        let header = file.path.ends_with(".h");
        top_level(file, file.root(), header, out);
    }

    fn top_level(file: &SourceFile, container: Node<'_>, header: bool, out: &mut Vec<DocItem>) {
        for n in children(container) {
            match n.kind() {
                "preproc_ifdef"
                | "preproc_if"
                | "preproc_else"
                | "preproc_elif"
                | "linkage_specification"
                | "declaration_list" => top_level(file, n, header, out),
                "function_definition" | "declaration" => {
                    let Some(func) = function_declarator(n.child_by_field_name("declarator"))
                    else {
                        continue;
                    };
                    let Some(name) = func
                        .child_by_field_name("declarator")
                        .filter(|d| d.kind() == "identifier")
                    else {
                        continue;
                    };
                    let is_static = children(n).into_iter().any(|c| {
                        c.kind() == "storage_class_specifier" && file.text_of(c) == "static"
                    });
                    let params = params(file, func);
                    out.push(item(
                        file,
                        file.text_of(name),
                        "function",
                        file.span(name),
                        header && !is_static,
                        doc_before(file, n),
                        params,
                    ));
                }
                "struct_specifier" | "union_specifier" | "enum_specifier" | "type_definition" => {
                    let spec = if n.kind() == "type_definition" {
                        n.child_by_field_name("type").unwrap_or(n)
                    } else {
                        n
                    };
                    let name = if n.kind() == "type_definition" {
                        n.child_by_field_name("declarator")
                            .filter(|d| d.kind() == "type_identifier")
                    } else {
                        name_of(n).filter(|_| n.child_by_field_name("body").is_some())
                    };
                    let Some(name) = name else { continue };
                    let kind = match spec.kind() {
                        "enum_specifier" => "enum",
                        "struct_specifier" | "union_specifier" => "struct",
                        _ => "type_parameter",
                    };
                    out.push(item(
                        file,
                        file.text_of(name),
                        kind,
                        file.span(name),
                        header,
                        doc_before(file, n),
                        Vec::new(),
                    ));
                }
                _ => {}
            }
        }
    }

    fn function_declarator(mut d: Option<Node<'_>>) -> Option<Node<'_>> {
        while let Some(n) = d {
            match n.kind() {
                "function_declarator" => return Some(n),
                "pointer_declarator" | "parenthesized_declarator" | "attributed_declarator" => {
                    d = n
                        .child_by_field_name("declarator")
                        .or_else(|| n.named_child(0));
                }
                _ => return None,
            }
        }
        None
    }

    fn doc_before(file: &SourceFile, node: Node<'_>) -> Option<String> {
        let mut parts = Vec::new();
        let mut expect_line = file.pos(node.start_byte()).line;
        let mut sib = node.prev_sibling();
        while let Some(s) = sib.filter(|s| s.kind() == "comment") {
            let end = file.pos(s.end_byte()).line;
            if end + 1 != expect_line && end != expect_line {
                break;
            }
            parts.push(strip_comment(file.text_of(s)));
            expect_line = file.pos(s.start_byte()).line;
            sib = s.prev_sibling();
        }
        parts.reverse();
        (!parts.is_empty()).then(|| parts.join("\n"))
    }

    fn params(file: &SourceFile, func: Node<'_>) -> Vec<String> {
        let Some(list) = func.child_by_field_name("parameters") else {
            return Vec::new();
        };
        let mut names = Vec::new();
        for p in children(list)
            .into_iter()
            .filter(|p| p.kind() == "parameter_declaration")
        {
            let mut d = p.child_by_field_name("declarator");
            while let Some(n) = d {
                if n.kind() == "identifier" {
                    names.push(file.text_of(n).to_owned());
                    break;
                }
                d = n.child_by_field_name("declarator");
            }
        }
        names
    }
}
