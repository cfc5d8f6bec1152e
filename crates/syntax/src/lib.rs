//! The public API of one source file, read with tree-sitter, and how it changed between two
//! versions of the file.
//!
//! [`exports`] lists what a file makes visible to other code, in source order; [`compare`]
//! matches two lists by name and says what was removed, changed or added. What counts as
//! exported is decided per language (each rule is on [`exports`]); a declaration's
//! [`Export::signature`] is its head (the tokens before the body), so a body or a doc
//! comment that changes does not change the signature, and neither do layout, comments or a
//! trailing comma.
//!
//! A source that does not parse cleanly is an error for [`exports`] and [`compare`]: a
//! declaration tree-sitter could not read would otherwise show up as removed.
//! [`exports_recovered`] gives what parsed around the errors, with their lines.
//!
//! [`identifier_occurrences`] says where a name occurs as a whole identifier token (not in
//! comments or string literals, not inside a longer name), with LSP positions (UTF-16
//! columns), flagging those inside macro token trees: a textual cross-check of a language
//! server's references, which can miss uses inside macro arguments. It also reads C, whose
//! exports are not read.

mod calls;
mod compare;
mod ecma;
mod enclosing;
mod go;
mod idents;
mod python;
mod render;
mod rust;

use tree_sitter::{Node, Parser, Tree};

pub use calls::{TestCall, calls_in, test_at};
pub use compare::{ApiChange, compare};
pub use enclosing::{Enclosing, enclosing_declaration, enclosing_declarations, in_import};
pub use idents::{Occurrence, identifier_occurrences};

/// The largest source read (8 MiB): larger files are generated or data, not API.
pub const MAX_SOURCE_BYTES: usize = 8 * 1024 * 1024;

pub use resolve_pr_source::Dialect;

/// The dialect of a path, by its extension, if this crate has its grammar: Rust,
/// TypeScript, TSX, JavaScript and JSX, Python, Go, C (`.c`, `.h`). C++ is not read (the C
/// grammar reads it only in part).
pub fn dialect_of(path: &str) -> Option<Dialect> {
    Dialect::of_path(std::path::Path::new(path)).filter(|d| grammar(*d).is_some())
}

/// Whether [`exports`] (and so [`compare`]) has a rule for this dialect; it refuses the
/// others with [`SyntaxError::Unsupported`].
pub fn reads_exports(dialect: Dialect) -> bool {
    !matches!(dialect, Dialect::C | Dialect::Cpp)
}

fn grammar(dialect: Dialect) -> Option<tree_sitter::Language> {
    Some(match dialect {
        Dialect::Rust => tree_sitter_rust::LANGUAGE.into(),
        Dialect::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Dialect::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Dialect::JavaScript | Dialect::Jsx => tree_sitter_javascript::LANGUAGE.into(),
        Dialect::Python => tree_sitter_python::LANGUAGE.into(),
        Dialect::Go => tree_sitter_go::LANGUAGE.into(),
        Dialect::C => tree_sitter_c::LANGUAGE.into(),
        Dialect::Cpp => return None,
    })
}

/// What kind of declaration an export is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportKind {
    Function,
    Method,
    Struct,
    Enum,
    Trait,
    Type,
    Interface,
    Class,
    Const,
    Static,
    Module,
    Variable,
    Macro,
    /// A name made visible from elsewhere: Rust `pub use`, TypeScript/JavaScript
    /// `export … from` and `export { x }` of an imported `x`, a Python `__all__` entry that
    /// is imported. (Added to the list the contract named.)
    Reexport,
}

impl ExportKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ExportKind::Function => "function",
            ExportKind::Method => "method",
            ExportKind::Struct => "struct",
            ExportKind::Enum => "enum",
            ExportKind::Trait => "trait",
            ExportKind::Type => "type",
            ExportKind::Interface => "interface",
            ExportKind::Class => "class",
            ExportKind::Const => "const",
            ExportKind::Static => "static",
            ExportKind::Module => "module",
            ExportKind::Variable => "variable",
            ExportKind::Macro => "macro",
            ExportKind::Reexport => "reexport",
        }
    }
}

/// One exported declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// The name other code uses: `Type::method` and `module::item` in Rust, `Class.member`
    /// in TypeScript/JavaScript and Python, `Type.Method` in Go; `default` for a default
    /// export.
    pub name: String,
    pub kind: ExportKind,
    /// The declaration's head, canonical: tokens joined by fixed spacing, comments,
    /// attributes, bodies and values left out (a constant's value is not its signature).
    pub signature: String,
    /// The declaration's first line, 1-based.
    pub line: u32,
}

/// Why a source could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    #[error("{language} source has a syntax error at line {line}, column {column}")]
    Invalid {
        language: &'static str,
        /// 1-based, of the first error.
        line: u32,
        /// 1-based, in bytes.
        column: u32,
    },
    #[error("source is {bytes} bytes, more than the {limit} read")]
    TooLarge { bytes: usize, limit: usize },
    #[error("the exports of {language} sources are not read")]
    Unsupported { language: &'static str },
    #[error("the {language} grammar could not be loaded: {detail}")]
    Grammar {
        language: &'static str,
        detail: String,
    },
}

/// What parsed of a source with syntax errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// The exports whose declarations hold no error.
    pub exports: Vec<Export>,
    /// The 1-based lines where errors start, ascending, without repeats.
    pub error_lines: Vec<u32>,
}

/// The exports of `source`, in source order. An error when the source has any syntax error.
///
/// What is exported:
/// - **Rust**: items declared `pub` (not `pub(crate)`, `pub(super)`, `pub(in …)`); the `pub`
///   functions and constants of an inherent `impl` as `Type::name` unless the type is
///   declared in the file without `pub`; the items of a `pub trait` as `Trait::name`;
///   the `pub` items of an inline `pub mod m { … }` as `m::name`; `pub use` names;
///   `macro_rules!` marked `#[macro_export]`. A struct's signature lists its `pub` fields,
///   with `..` when it has others.
/// - **TypeScript / JavaScript**: `export` declarations, `export default` (named
///   `default`), `export { a, b as c }` (by the exported name, with the local declaration's
///   signature when it is declared in the file), `export … from` re-exports; the members of
///   an exported class as `Class.member` unless `private`, `protected` or `#private`.
///   CommonJS at the top level too: `exports.x = …` and `module.exports.x = …` as `x`,
///   `module.exports = { a, b: c, m() {} }` as `a`, `b`, `m`, and `module.exports = <other>`
///   as `module.exports`.
/// - **Python**: module-level `def`, `class` and assignments (also inside module-level
///   `if`/`try`) whose name does not start with `_`, and class methods as `Class.method`
///   (those not starting with `_`, and `__init__`). When `__all__` is assigned once, to a
///   literal list or tuple of strings, and never changed, exactly the names it lists.
///   UPPER_CASE assignments are `Const`, others `Variable`.
/// - **Go**: package-level functions, types, constants and variables whose name starts
///   with an upper-case letter; methods as `Type.Method` when both are; a struct's signature
///   lists its exported fields, with `..` when it has others.
pub fn exports(language: Dialect, source: &str) -> Result<Vec<Export>, SyntaxError> {
    supported(language)?;
    let tree = parse(language, source)?;
    if let Some((line, column)) = first_error(tree.root_node()) {
        return Err(SyntaxError::Invalid {
            language: language.as_str(),
            line,
            column,
        });
    }
    Ok(extract(language, tree.root_node(), source))
}

/// The exports of `source` whose declarations parsed, and where the syntax errors are. A
/// declaration holding an error is left out (its name may still be exported).
pub fn exports_recovered(language: Dialect, source: &str) -> Result<Recovered, SyntaxError> {
    supported(language)?;
    let tree = parse(language, source)?;
    let root = tree.root_node();
    let mut error_lines = Vec::new();
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = stack.pop() {
        // A missing leaf need not report `has_error` itself; its parent does.
        if node.is_error() || node.is_missing() {
            error_lines.push(line_of(node));
            continue;
        }
        if !node.has_error() {
            continue;
        }
        let before = stack.len();
        stack.extend(
            node.children(&mut cursor)
                .filter(|c| c.has_error() || c.is_error() || c.is_missing()),
        );
        if stack.len() == before {
            error_lines.push(line_of(node));
        }
    }
    error_lines.sort_unstable();
    error_lines.dedup();
    Ok(Recovered {
        exports: extract(language, root, source),
        error_lines,
    })
}

fn supported(language: Dialect) -> Result<(), SyntaxError> {
    if reads_exports(language) {
        Ok(())
    } else {
        Err(SyntaxError::Unsupported {
            language: language.as_str(),
        })
    }
}

fn extract(language: Dialect, root: Node<'_>, source: &str) -> Vec<Export> {
    match language {
        Dialect::Rust => rust::exports(root, source),
        Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => {
            ecma::exports(root, source)
        }
        Dialect::Python => python::exports(root, source),
        Dialect::Go => go::exports(root, source),
        // Refused by `supported` before parsing.
        Dialect::C | Dialect::Cpp => Vec::new(),
    }
}

/// The syntax tree of `source` (for a caller that reads the nodes itself: the `code`
/// layer's Rust move).
pub fn parse_tree(language: Dialect, source: &str) -> Result<Tree, SyntaxError> {
    parse(language, source)
}

fn parse(language: Dialect, source: &str) -> Result<Tree, SyntaxError> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(SyntaxError::TooLarge {
            bytes: source.len(),
            limit: MAX_SOURCE_BYTES,
        });
    }
    let grammar_error = |detail: String| SyntaxError::Grammar {
        language: language.as_str(),
        detail,
    };
    let mut parser = Parser::new();
    let grammar =
        grammar(language).ok_or_else(|| grammar_error("no grammar is built in".to_owned()))?;
    parser
        .set_language(&grammar)
        .map_err(|e| grammar_error(e.to_string()))?;
    parser
        .parse(source, None)
        .ok_or_else(|| grammar_error("the parser gave no tree".to_owned()))
}

/// The line and column (1-based) of the first error or missing node, in source order.
fn first_error(root: Node<'_>) -> Option<(u32, u32)> {
    if !root.has_error() {
        return None;
    }
    let mut node = root;
    let mut cursor = root.walk();
    'descend: loop {
        if node.is_error() || node.is_missing() {
            let p = node.start_position();
            return Some((to_u32(p.row) + 1, to_u32(p.column) + 1));
        }
        for child in node.children(&mut cursor) {
            if child.has_error() || child.is_error() || child.is_missing() {
                node = child;
                continue 'descend;
            }
        }
        let p = node.start_position();
        return Some((to_u32(p.row) + 1, to_u32(p.column) + 1));
    }
}

pub(crate) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub(crate) fn line_of(node: Node<'_>) -> u32 {
    to_u32(node.start_position().row).saturating_add(1)
}

pub(crate) fn text<'s>(node: Node<'_>, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

pub(crate) fn export(name: String, kind: ExportKind, signature: String, node: Node<'_>) -> Export {
    Export {
        name,
        kind,
        signature,
        line: line_of(node),
    }
}
