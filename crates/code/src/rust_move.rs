//! Rust's `move` of a top-level item into another module file of the same crate, by the
//! syntax tree (rust-analyzer offers no such move): the item goes with its doc comments and
//! attributes, and a type with the `impl` blocks of it in the same file (its private fields
//! are only reachable from its own module). Every path that named it keeps working:
//!
//! - the old module re-exports it (`use crate::dest::Name;` with the item's own visibility),
//!   so its users anywhere in the crate, and outside it for a `pub` item, are unchanged;
//! - a private item becomes `pub(crate)` in its new module, which the old one still uses;
//! - the new module gets the imports the item needs: the old module's `use` declarations
//!   that bind a name it uses (`self::` and `super::` made absolute), and the old module's
//!   own items it names.
//!
//! What this cannot see (a private field or method used from the old module, a macro's
//! input) is what verification by `cargo check` is for: the plan says so before anything
//! is written.

use std::collections::BTreeSet;

use resolve_pr_source::{FileChange, TextEdit, TextRange, WorkspaceChange};
use tree_sitter::Node;

/// A planned move.
#[derive(Debug, Clone)]
pub struct Moved {
    pub change: WorkspaceChange,
    /// The item's name, then what went with it (`impl Name`, `impl Display for Name`).
    pub items: Vec<String>,
}

/// The module a file of a crate's `src` is, by its path under `src` (`lib.rs` and
/// `main.rs` are the crate root, `a/mod.rs` and `a.rs` are `a`). `None` for a file that is
/// a crate of its own (`src/bin/*`) or not Rust.
pub fn module_path(under_src: &std::path::Path) -> Option<Vec<String>> {
    let parts: Vec<String> = under_src
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let (last, dirs) = parts.split_last()?;
    if dirs.first().is_some_and(|d| d == "bin") {
        return None;
    }
    let stem = last.strip_suffix(".rs")?;
    let mut path = dirs.to_vec();
    match stem {
        "mod" => {}
        "lib" | "main" if dirs.is_empty() => {}
        other => path.push(other.to_owned()),
    }
    Some(path)
}

fn absolute(module: &[String]) -> String {
    std::iter::once("crate".to_owned())
        .chain(module.iter().cloned())
        .collect::<Vec<_>>()
        .join("::")
}

const MOVABLE: &[&str] = &[
    "function_item",
    "struct_item",
    "enum_item",
    "union_item",
    "trait_item",
    "const_item",
    "static_item",
    "type_item",
];

fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    &source[node.byte_range()]
}

/// Where a top-level node's text begins with its doc comments and attributes, from the
/// start of its line.
fn extended_start(node: Node<'_>, source: &str) -> usize {
    let mut start = node.start_byte();
    let mut prev = node.prev_sibling();
    while let Some(p) = prev {
        let attached = match p.kind() {
            "attribute_item" => true,
            "line_comment" => text(p, source).starts_with("///"),
            "block_comment" => text(p, source).starts_with("/**"),
            _ => false,
        };
        // Only what touches it: no blank line between.
        let gap = &source[p.end_byte()..start];
        if !attached || gap.matches('\n').count() > 1 {
            break;
        }
        start = p.start_byte();
        prev = p.prev_sibling();
    }
    source[..start].rfind('\n').map_or(0, |i| i + 1)
}

/// Where a top-level node's text ends: past its line's end and one blank line after it.
fn extended_end(node: Node<'_>, source: &str) -> usize {
    let mut end = node.end_byte();
    if let Some(nl) = source[end..].find('\n') {
        end += nl + 1;
    } else {
        return source.len();
    }
    let rest = &source[end..];
    let blank = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if rest[blank..].starts_with('\n') {
        end += blank + 1;
    }
    end
}

/// The names a `use` declaration binds (its last segments, aliases, group members); `*`
/// for a glob.
fn bound_names(node: Node<'_>, source: &str, out: &mut BTreeSet<String>) {
    match node.kind() {
        "identifier" | "type_identifier" | "crate" | "self" | "super" => {
            out.insert(text(node, source).to_owned());
        }
        "scoped_identifier" => {
            if let Some(name) = node.child_by_field_name("name") {
                let name = text(name, source);
                // `use a::b::self` binds `b`.
                if name == "self" {
                    if let Some(path) = node.child_by_field_name("path") {
                        bound_names(path, source, out);
                    }
                } else {
                    out.insert(name.to_owned());
                }
            }
        }
        "use_as_clause" => {
            if let Some(alias) = node.child_by_field_name("alias") {
                out.insert(text(alias, source).to_owned());
            }
        }
        "use_wildcard" => {
            out.insert("*".to_owned());
        }
        "scoped_use_list" => {
            if let Some(list) = node.child_by_field_name("list") {
                bound_names(list, source, out);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                bound_names(child, source, out);
            }
        }
        _ => {}
    }
}

fn use_binds(node: Node<'_>, source: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(arg) = node.child_by_field_name("argument") {
        bound_names(arg, source, &mut out);
    }
    out
}

/// Every identifier a node's text holds.
fn identifiers(node: Node<'_>, source: &str, out: &mut BTreeSet<String>) {
    if matches!(
        node.kind(),
        "identifier" | "type_identifier" | "field_identifier"
    ) {
        out.insert(text(node, source).to_owned());
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        identifiers(child, source, out);
    }
}

/// The names a node uses as traits: an `impl` block's trait, bounds, `dyn` and `impl`
/// types. Such a name may be imported for its methods too, so its `use` is never removed.
fn trait_names(node: Node<'_>, source: &str, out: &mut BTreeSet<String>) {
    if node.kind() == "impl_item"
        && let Some(t) = node.child_by_field_name("trait")
    {
        identifiers(t, source, out);
    }
    if matches!(
        node.kind(),
        "trait_bounds" | "dyn_type" | "abstract_type" | "higher_ranked_trait_bound"
    ) {
        identifiers(node, source, out);
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        trait_names(child, source, out);
    }
}

/// Whether a node calls a method (`x.f(…)`) or a macro, either of which may need a trait
/// that only a `use` brings into scope.
fn calls_methods(node: Node<'_>) -> bool {
    if node.kind() == "macro_invocation"
        || (node.kind() == "call_expression"
            && node
                .child_by_field_name("function")
                .is_some_and(|f| f.kind() == "field_expression"))
    {
        return true;
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| calls_methods(c))
}

/// The type an `impl` block is for, without generics or references: `impl<T> Name<T>`
/// and `impl Display for Name` are both for `Name`.
fn impl_for(node: Node<'_>, source: &str) -> Option<String> {
    let ty = node.child_by_field_name("type")?;
    let t = text(ty, source);
    let t = t.trim_start_matches('&').trim();
    let t = t.split('<').next()?.trim();
    Some(t.rsplit("::").next()?.to_owned())
}

/// An item's visibility (`pub`, `pub(crate)`, …), `None` when private.
fn visibility_of(item: Node<'_>, source: &str) -> Option<String> {
    let mut c = item.walk();
    item.children(&mut c)
        .find(|n| n.kind() == "visibility_modifier")
        .map(|v| text(v, source).to_owned())
}

/// The item's own name.
fn item_name(node: Node<'_>, source: &str) -> Option<String> {
    node.child_by_field_name("name")
        .map(|n| text(n, source).to_owned())
}

/// Where `use` lines go in a file: after its last top-level `use`, else after its inner
/// attributes and `//!` comments at the top.
fn imports_at(root: Node<'_>, source: &str) -> usize {
    let mut cursor = root.walk();
    let mut after_use = None;
    let mut header_end = 0;
    let mut in_header = true;
    for child in root.children(&mut cursor) {
        match child.kind() {
            "use_declaration" => after_use = Some(extended_end_line(child, source)),
            "inner_attribute_item" if in_header => header_end = extended_end_line(child, source),
            "line_comment" if in_header && text(child, source).starts_with("//!") => {
                header_end = extended_end_line(child, source)
            }
            _ => in_header = false,
        }
    }
    after_use.unwrap_or(header_end)
}

fn extended_end_line(node: Node<'_>, source: &str) -> usize {
    let end = node.end_byte();
    source[end..]
        .find('\n')
        .map_or(source.len(), |i| end + i + 1)
}

fn parse(source: &str, what: &str) -> Result<tree_sitter::Tree, String> {
    resolve_pr_syntax::parse_tree(resolve_pr_syntax::Dialect::Rust, source)
        .map_err(|e| format!("{what} does not parse: {e}"))
}

/// Moves the top-level item at byte `at` of `source` (the file `file`, module
/// `source_module`) to the end of `dest` (the file `dest_file`, module `dest_module`).
pub fn plan(
    file: &std::path::Path,
    source: &str,
    at: usize,
    source_module: &[String],
    dest_file: &std::path::Path,
    dest: &str,
    dest_module: &[String],
) -> Result<Moved, String> {
    if source_module == dest_module {
        return Err("the destination is the same module".to_owned());
    }
    let tree = parse(source, "the file")?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let top: Vec<Node<'_>> = root.children(&mut cursor).collect();
    // The item at `at`: or the first one after the attributes and doc comments it is on.
    let index = top
        .iter()
        .position(|n| n.start_byte() <= at && at < n.end_byte().max(n.start_byte() + 1))
        .ok_or("no top-level item is at that position")?;
    let index = (index..top.len())
        .find(|&i| {
            !matches!(
                top[i].kind(),
                "attribute_item" | "line_comment" | "block_comment"
            )
        })
        .ok_or("no item follows the attributes at that position")?;
    let item = top[index];
    if !MOVABLE.contains(&item.kind()) {
        return Err(format!(
            "the item there is a {}; move takes a function, struct, enum, union, trait, constant, static or type alias",
            item.kind().trim_end_matches("_item")
        ));
    }
    let name = item_name(item, source).ok_or("the item has no name")?;
    // A type takes its own impl blocks along.
    let mut nodes = vec![item];
    let mut items = vec![name.clone()];
    if matches!(item.kind(), "struct_item" | "enum_item" | "union_item") {
        for n in &top {
            if n.kind() == "impl_item" && impl_for(*n, source).as_deref() == Some(&name) {
                nodes.push(*n);
                let head = text(*n, source);
                let head = head.split('{').next().unwrap_or(head).trim();
                items.push(head.to_owned());
            }
        }
    }
    nodes.sort_by_key(|n| n.start_byte());

    // The moved text, the item itself made visible to the crate if it was private.
    let visibility = visibility_of(item, source);
    let mut moved = String::new();
    let mut used = BTreeSet::new();
    let mut traits = BTreeSet::new();
    let mut methods = false;
    for n in &nodes {
        let start = extended_start(*n, source);
        let mut piece = source[start..n.end_byte()].to_owned();
        if n.id() == item.id() && visibility.is_none() {
            let at = item.start_byte() - start;
            piece.insert_str(at, "pub(crate) ");
        }
        if !moved.is_empty() {
            moved.push_str("\n\n");
        }
        moved.push_str(&piece);
        identifiers(*n, source, &mut used);
        trait_names(*n, source, &mut traits);
        methods |= calls_methods(*n);
    }
    // What the rest of the old module names (its `use` lines aside).
    let mut rest = BTreeSet::new();
    let mut rest_methods = false;
    for n in &top {
        if n.kind() != "use_declaration" && !nodes.iter().any(|m| m.id() == n.id()) {
            identifiers(*n, source, &mut rest);
            rest_methods |= calls_methods(*n);
        }
    }

    // The source: the nodes removed, the re-export where its imports are.
    let mut source_edits: Vec<TextEdit> = nodes
        .iter()
        .map(|n| {
            let (mut start, end) = (extended_start(*n, source), extended_end(*n, source));
            // At the end of the file, the blank line before it goes too.
            if end == source.len() && source[..start].ends_with("\n\n") {
                start -= 1;
            }
            TextEdit::replace(TextRange::new(start, end), "")
        })
        .collect();
    let reexport = format!(
        "{}use {}::{name};\n",
        visibility
            .as_deref()
            .map(|v| format!("{v} "))
            .unwrap_or_default(),
        absolute(dest_module)
    );
    let at_imports = imports_at(root, source);
    let reexport = if top.iter().any(|n| n.kind() == "use_declaration") {
        reexport
    } else {
        format!("{reexport}\n")
    };
    if source_edits
        .iter()
        .any(|e| e.range.start < at_imports && at_imports < e.range.end)
    {
        return Err("the item sits among the file's imports; move it below them first".to_owned());
    }
    source_edits.push(TextEdit::replace(TextRange::empty(at_imports), reexport));

    // The destination: the imports the moved text needs, then the text at the end.
    let dest_tree = parse(dest, "the destination")?;
    let dest_root = dest_tree.root_node();
    let mut dest_bound: BTreeSet<String> = BTreeSet::new();
    let mut c = dest_root.walk();
    for n in dest_root.children(&mut c) {
        if n.kind() == "use_declaration" {
            dest_bound.extend(use_binds(n, dest));
        } else if let Some(name) = item_name(n, dest) {
            dest_bound.insert(name);
        }
    }
    if dest_bound.contains(&name) {
        return Err(format!("the destination already has a {name}"));
    }
    let parent: Vec<String> = source_module
        .split_last()
        .map(|(_, p)| p.to_vec())
        .unwrap_or_default();
    let mut imports = String::new();
    let mut own_items = Vec::new();
    for n in &top {
        if nodes.iter().any(|m| m.id() == n.id()) {
            continue;
        }
        if n.kind() == "use_declaration" {
            let binds = use_binds(*n, source);
            // A name the file never names outside its `use` lines may be a trait imported
            // for its methods: it goes along when the moved code calls methods or macros.
            let for_methods = methods
                && binds
                    .iter()
                    .all(|b| b != "*" && !used.contains(b) && !rest.contains(b));
            let needed = for_methods
                || binds
                    .iter()
                    .any(|b| used.contains(b) && !dest_bound.contains(b));
            // A private `use` only the moved code named leaves with it (unless it may be a
            // trait the rest calls methods of).
            let only_moved = visibility_of(*n, source).is_none()
                && !binds.is_empty()
                && (binds.iter().all(|b| {
                    b != "*" && used.contains(b) && !rest.contains(b) && !traits.contains(b)
                }) || (for_methods && !rest_methods));
            if only_moved {
                source_edits.push(TextEdit::replace(
                    TextRange::new(extended_start(*n, source), extended_end_line(*n, source)),
                    "",
                ));
            }
            if !needed || binds.iter().all(|b| dest_bound.contains(b)) {
                continue;
            }
            let Some(arg) = n.child_by_field_name("argument") else {
                continue;
            };
            let path = text(arg, source);
            let path = if let Some(rest) = path.strip_prefix("self::") {
                format!("{}::{rest}", absolute(source_module))
            } else if let Some(rest) = path.strip_prefix("super::") {
                format!("{}::{rest}", absolute(&parent))
            } else {
                path.to_owned()
            };
            imports.push_str(&format!("use {path};\n"));
        } else if n.kind() != "impl_item"
            && let Some(item) = item_name(*n, source)
            && used.contains(&item)
            && !dest_bound.contains(&item)
            && item != name
        {
            // A private item of the old module the moved one uses is made visible to the
            // crate, as the new module could not name it otherwise.
            if MOVABLE.contains(&n.kind()) && visibility_of(*n, source).is_none() {
                source_edits.push(TextEdit::replace(
                    TextRange::empty(n.start_byte()),
                    "pub(crate) ",
                ));
            }
            own_items.push(item);
        }
    }
    if !own_items.is_empty() {
        own_items.sort();
        own_items.dedup();
        let list = if own_items.len() == 1 {
            own_items[0].clone()
        } else {
            format!("{{{}}}", own_items.join(", "))
        };
        imports.push_str(&format!("use {}::{list};\n", absolute(source_module)));
    }
    let mut dest_edits = Vec::new();
    if !imports.is_empty() {
        let at = imports_at(dest_root, dest);
        dest_edits.push(TextEdit::replace(
            TextRange::empty(at),
            format!("{imports}{}", if at == 0 { "\n" } else { "" }),
        ));
    }
    let tail = if dest.is_empty() || dest.ends_with("\n\n") {
        String::new()
    } else if dest.ends_with('\n') {
        "\n".to_owned()
    } else {
        "\n\n".to_owned()
    };
    dest_edits.push(TextEdit::replace(
        TextRange::empty(dest.len()),
        format!("{tail}{moved}\n"),
    ));
    Ok(Moved {
        change: WorkspaceChange {
            changes: vec![
                FileChange::Edit {
                    path: file.to_owned(),
                    edits: source_edits,
                },
                FileChange::Edit {
                    path: dest_file.to_owned(),
                    edits: dest_edits,
                },
            ],
        },
        items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn apply(text: &str, change: &WorkspaceChange, file: &str) -> String {
        let edits = change
            .changes
            .iter()
            .find_map(|c| match c {
                FileChange::Edit { path, edits } if path == Path::new(file) => Some(edits.clone()),
                _ => None,
            })
            .unwrap();
        resolve_pr_source::apply_edits(text, &edits).unwrap()
    }

    #[test]
    fn module_paths_follow_the_files_under_src() {
        let m = |p: &str| module_path(Path::new(p));
        assert_eq!(m("lib.rs"), Some(vec![]));
        assert_eq!(m("main.rs"), Some(vec![]));
        assert_eq!(m("util.rs"), Some(vec!["util".to_owned()]));
        assert_eq!(m("a/mod.rs"), Some(vec!["a".to_owned()]));
        assert_eq!(m("a/b.rs"), Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(m("a/lib.rs"), Some(vec!["a".to_owned(), "lib".to_owned()]));
        assert_eq!(m("bin/tool.rs"), None);
        assert_eq!(m("notes.txt"), None);
    }

    const SHAPES: &str = "use std::fmt;\nuse super::units::{Metres, Feet as F};\n\nconst SCALE: f64 = 2.0;\n\n/// A square.\n#[derive(Debug)]\nstruct Square {\n    side: Metres,\n}\n\nimpl Square {\n    fn area(&self) -> f64 {\n        self.side.0 * SCALE\n    }\n}\n\nimpl fmt::Display for Square {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"square\")\n    }\n}\n\npub fn total(s: &Square) -> f64 {\n    s.area()\n}\n";

    #[test]
    fn a_type_moves_with_its_impls_docs_and_the_imports_it_needs() {
        let at = SHAPES.find("struct Square").unwrap() + 7;
        let module = vec!["geo".to_owned(), "shapes".to_owned()];
        let dest_module = vec!["geo".to_owned(), "square".to_owned()];
        let dest = "//! Squares.\n";
        let moved = plan(
            Path::new("src/geo/shapes.rs"),
            SHAPES,
            at,
            &module,
            Path::new("src/geo/square.rs"),
            dest,
            &dest_module,
        )
        .unwrap();
        assert_eq!(
            moved.items,
            ["Square", "impl Square", "impl fmt::Display for Square"]
        );
        let source = apply(SHAPES, &moved.change, "src/geo/shapes.rs");
        assert_eq!(
            source,
            "use std::fmt;\nuse super::units::{Metres, Feet as F};\nuse crate::geo::square::Square;\n\npub(crate) const SCALE: f64 = 2.0;\n\npub fn total(s: &Square) -> f64 {\n    s.area()\n}\n"
        );
        let dest_after = apply(dest, &moved.change, "src/geo/square.rs");
        assert_eq!(
            dest_after,
            "//! Squares.\nuse std::fmt;\nuse crate::geo::units::{Metres, Feet as F};\nuse crate::geo::shapes::SCALE;\n\n/// A square.\n#[derive(Debug)]\npub(crate) struct Square {\n    side: Metres,\n}\n\nimpl Square {\n    fn area(&self) -> f64 {\n        self.side.0 * SCALE\n    }\n}\n\nimpl fmt::Display for Square {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"square\")\n    }\n}\n"
        );
    }

    #[test]
    fn a_public_function_keeps_its_path_by_a_public_reexport() {
        let at = SHAPES.find("pub fn total").unwrap();
        let moved = plan(
            Path::new("src/lib.rs"),
            SHAPES,
            at,
            &[],
            Path::new("src/sums.rs"),
            "use std::fmt;\n\npub fn other() {}\n",
            &["sums".to_owned()],
        )
        .unwrap();
        let source = apply(SHAPES, &moved.change, "src/lib.rs");
        assert!(
            source
                .contains("use super::units::{Metres, Feet as F};\npub use crate::sums::total;\n"),
            "{source}"
        );
        assert!(!source.contains("fn total"));
        let dest = apply(
            "use std::fmt;\n\npub fn other() {}\n",
            &moved.change,
            "src/sums.rs",
        );
        // std::fmt is bound already; Square is the old module's own item.
        assert_eq!(
            dest,
            "use std::fmt;\nuse crate::Square;\n\npub fn other() {}\n\npub fn total(s: &Square) -> f64 {\n    s.area()\n}\n"
        );
    }

    #[test]
    fn a_private_helper_the_item_calls_is_made_visible_to_the_crate() {
        let source =
            "fn helper() -> u8 {\n    1\n}\n\npub fn main_one() -> u8 {\n    helper()\n}\n";
        let moved = plan(
            Path::new("src/a.rs"),
            source,
            source.find("pub fn main_one").unwrap(),
            &["a".to_owned()],
            Path::new("src/b.rs"),
            "",
            &["b".to_owned()],
        )
        .unwrap();
        assert_eq!(
            apply(source, &moved.change, "src/a.rs"),
            "pub use crate::b::main_one;\n\npub(crate) fn helper() -> u8 {\n    1\n}\n"
        );
        assert_eq!(
            apply("", &moved.change, "src/b.rs"),
            "use crate::a::helper;\n\npub fn main_one() -> u8 {\n    helper()\n}\n"
        );
    }

    #[test]
    fn a_use_only_the_moved_item_named_leaves_with_it() {
        let source = "use std::collections::HashMap;\nuse std::fmt;\n\npub fn table() -> HashMap<u8, u8> {\n    HashMap::new()\n}\n\npub fn shown() -> fmt::Result {\n    Ok(())\n}\n";
        let moved = plan(
            Path::new("src/a.rs"),
            source,
            source.find("pub fn table").unwrap(),
            &["a".to_owned()],
            Path::new("src/b.rs"),
            "",
            &["b".to_owned()],
        )
        .unwrap();
        assert_eq!(
            apply(source, &moved.change, "src/a.rs"),
            "use std::fmt;\npub use crate::b::table;\n\npub fn shown() -> fmt::Result {\n    Ok(())\n}\n"
        );
        assert!(
            apply("", &moved.change, "src/b.rs").starts_with("use std::collections::HashMap;\n")
        );
    }

    #[test]
    fn a_trait_imported_for_its_methods_goes_along_and_a_named_trait_stays() {
        let source = "use std::io::Write;\n\npub fn put(out: &mut Vec<u8>) {\n    out.write_all(b\"x\").unwrap();\n}\n\npub fn other() -> u8 {\n    1\n}\n";
        let moved = plan(
            Path::new("src/a.rs"),
            source,
            source.find("pub fn put").unwrap(),
            &["a".to_owned()],
            Path::new("src/b.rs"),
            "",
            &["b".to_owned()],
        )
        .unwrap();
        let old = apply(source, &moved.change, "src/a.rs");
        assert!(!old.contains("use std::io::Write;"), "{old}");
        let new = apply("", &moved.change, "src/b.rs");
        assert!(new.starts_with("use std::io::Write;\n"), "{new}");

        // The rest calls methods: the import may serve it, so it stays too.
        let source = source.replace("    1\n", "    b\"1\".len() as u8\n");
        let moved = plan(
            Path::new("src/a.rs"),
            &source,
            source.find("pub fn put").unwrap(),
            &["a".to_owned()],
            Path::new("src/b.rs"),
            "",
            &["b".to_owned()],
        )
        .unwrap();
        assert!(apply(&source, &moved.change, "src/a.rs").contains("use std::io::Write;"));

        // A trait the moved impl names is kept where it was: the rest may call its methods.
        let source = "use std::fmt::Write;\n\npub struct Buf(String);\n\nimpl Write for Buf {\n    fn write_str(&mut self, s: &str) -> std::fmt::Result {\n        self.0.push_str(s);\n        Ok(())\n    }\n}\n\npub fn fill(b: &mut Buf) {\n    let _ = write!(b, \"x\");\n}\n";
        let moved = plan(
            Path::new("src/a.rs"),
            source,
            source.find("pub struct Buf").unwrap(),
            &["a".to_owned()],
            Path::new("src/b.rs"),
            "",
            &["b".to_owned()],
        )
        .unwrap();
        assert!(apply(source, &moved.change, "src/a.rs").starts_with("use std::fmt::Write;\n"));
        assert!(apply("", &moved.change, "src/b.rs").starts_with("use std::fmt::Write;\n"));
    }

    #[test]
    fn what_cannot_move_is_said() {
        let impl_at = SHAPES.find("impl Square").unwrap();
        let err = plan(
            Path::new("a.rs"),
            SHAPES,
            impl_at,
            &["a".into()],
            Path::new("b.rs"),
            "",
            &["b".into()],
        )
        .unwrap_err();
        assert!(err.contains("the item there is a impl"), "{err}");
        let err = plan(
            Path::new("a.rs"),
            SHAPES,
            0,
            &["a".into()],
            Path::new("b.rs"),
            "",
            &["b".into()],
        )
        .unwrap_err();
        assert!(
            err.contains("use_declaration") || err.contains("the item there is a use"),
            "{err}"
        );
        let at = SHAPES.find("pub fn total").unwrap();
        let err = plan(
            Path::new("a.rs"),
            SHAPES,
            at,
            &["a".into()],
            Path::new("b.rs"),
            "fn total() {}\n",
            &["b".into()],
        )
        .unwrap_err();
        assert!(err.contains("already has a total"), "{err}");
        let err = plan(
            Path::new("a.rs"),
            SHAPES,
            at,
            &["a".into()],
            Path::new("a.rs"),
            "",
            &["a".into()],
        )
        .unwrap_err();
        assert!(err.contains("same module"), "{err}");
    }
}
