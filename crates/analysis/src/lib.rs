//! Code analysis of a checkout by tree-sitter, one parse per file for every analysis.
//!
//! [`load`] walks a checkout (its ignore files honoured, by [`Walk`]) and parses each
//! source file once into a [`SourceFile`]; the analyses read those: [`functions`] (every
//! function's cyclomatic and cognitive complexity, nesting, parameters and length, counted
//! as lizard counts them), [`maintainability`] (the maintainability index as radon computes
//! it), [`structure`] (each file's outline of symbols, type relations, the inheritance
//! hierarchy across files, modules), [`imports`] (every import of a file as data),
//! [`graph`] (the file dependency graph, its cycles, depths, coupling and cohesion),
//! [`rust_modules`] (what a Rust module uses of its crate and the crate of it, for
//! extracting it into a crate), [`docs`] (documentation coverage as interrogate and
//! rustc's `missing_docs` count it, outdated parameter docs, TODOs), [`testing`] (test
//! functions, their assertions and smells, untested public functions), [`coverage`] (lcov,
//! Cobertura and JaCoCo reports), [`unused`] (unused imports, variables and parameters of a
//! file, and unreachable code, as the compilers and linters report them), [`dead`]
//! (symbols no file references).
//!
//! Pure but for [`load`], which reads files: no language server, no network, no writes.
//! Positions are zero-based lines and UTF-16 columns, as LSP's.

pub mod coverage;
pub mod dead;
pub mod docs;
pub mod functions;
pub mod graph;
pub mod imports;
pub mod maintainability;
pub mod rust_modules;
pub mod structure;
pub mod testing;
pub mod unused;

use std::path::{Path, PathBuf};

use resolve_pr_source::LineIndex;
pub use resolve_pr_source::{Dialect, GlobError, Walk};
use tree_sitter::{Node, Tree};

/// The largest file parsed; larger ones are generated code or data.
pub const MAX_FILE_BYTES: usize = resolve_pr_syntax::MAX_SOURCE_BYTES;

/// A position: zero-based line, and column in UTF-16 code units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub character: u32,
}

/// A range of a file; `end` is exclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

/// One source file of the checkout, read and parsed.
pub struct SourceFile {
    /// Relative to the checkout's root, with `/` separators.
    pub path: String,
    pub dialect: Dialect,
    pub text: String,
    /// The syntax tree (with error nodes where the source does not parse).
    pub tree: Tree,
    /// Byte offset where each line starts.
    line_starts: Vec<usize>,
}

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceFile")
            .field("path", &self.path)
            .field("dialect", &self.dialect)
            .field("bytes", &self.text.len())
            .finish_non_exhaustive()
    }
}

/// Why a file was not analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Skipped {
    #[error("{path}: not UTF-8 text")]
    NotText { path: String },
    #[error("{path}: {bytes} bytes, over the {limit}-byte limit")]
    TooLarge {
        path: String,
        bytes: usize,
        limit: usize,
    },
    #[error("{path}: {why}")]
    Unreadable { path: String, why: String },
    #[error("{path}: no grammar reads {dialect} here")]
    NoGrammar { path: String, dialect: &'static str },
}

impl SourceFile {
    /// Parses `text` as `dialect`. `None` when no grammar reads the dialect (C++) or the
    /// text is over [`MAX_FILE_BYTES`].
    pub fn parse(
        path: impl Into<String>,
        dialect: Dialect,
        text: String,
    ) -> Result<SourceFile, Skipped> {
        let path = path.into();
        let masked;
        let parsed = if dialect == Dialect::C {
            masked = mask_conditionals(&text);
            &masked
        } else {
            &text
        };
        let tree = resolve_pr_syntax::parse_tree(dialect, parsed).map_err(|e| match e {
            resolve_pr_syntax::SyntaxError::TooLarge { bytes, limit } => Skipped::TooLarge {
                path: path.clone(),
                bytes,
                limit,
            },
            _ => Skipped::NoGrammar {
                path: path.clone(),
                dialect: dialect.as_str(),
            },
        })?;
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Ok(SourceFile {
            path,
            dialect,
            text,
            tree,
            line_starts,
        })
    }

    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The text of a node.
    pub fn text_of(&self, node: Node<'_>) -> &str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    /// Lines in the file (a last line without a newline counts).
    pub fn line_count(&self) -> u32 {
        let n =
            self.line_starts.len() - usize::from(self.text.ends_with('\n') || self.text.is_empty());
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// The text of line `line` (zero-based), without its terminator.
    pub fn line(&self, line: u32) -> &str {
        let Some(&start) = self.line_starts.get(line as usize) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line as usize + 1)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// A byte offset as a position (UTF-16 column).
    pub fn pos(&self, offset: usize) -> Pos {
        let line = self
            .line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.line_starts[line];
        let end = offset.min(self.text.len()).max(start);
        let col = self
            .text
            .get(start..end)
            .map_or(0, resolve_pr_source::utf16_len);
        Pos {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            character: col,
        }
    }

    /// The range a node covers.
    pub fn span(&self, node: Node<'_>) -> Span {
        Span {
            start: self.pos(node.start_byte()),
            end: self.pos(node.end_byte()),
        }
    }

    /// A line index over the text, for callers that convert many positions.
    pub fn line_index(&self) -> LineIndex<'_> {
        LineIndex::new(&self.text)
    }
}

/// The files of a checkout an analysis reads, parsed once.
#[derive(Debug, Default)]
pub struct Loaded {
    pub files: Vec<SourceFile>,
    /// Files found but not analysed, and why.
    pub skipped: Vec<Skipped>,
    /// The walk stopped at its limit: more files are there.
    pub more: bool,
}

/// Reads and parses every source file `walk` keeps (at most `limit`), in parallel, in
/// path order. A file no grammar reads, that is not UTF-8 or is too large is skipped and
/// said in [`Loaded::skipped`].
pub fn load(root: &Path, walk: &Walk, limit: usize) -> Result<Loaded, GlobError> {
    let walked = walk.files(limit, |p| {
        resolve_pr_syntax::dialect_of(&p.to_string_lossy()).is_some()
    })?;
    let paths: Vec<PathBuf> = walked.files;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = paths.len().div_ceil(threads.max(1)).max(1);
    let mut results: Vec<Result<SourceFile, Skipped>> = Vec::with_capacity(paths.len());
    std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || part.iter().map(|p| read_one(root, p)).collect::<Vec<_>>())
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(part) => results.extend(part),
                Err(_) => results.push(Err(Skipped::Unreadable {
                    path: String::new(),
                    why: "the parser stopped".into(),
                })),
            }
        }
    });
    let mut loaded = Loaded {
        more: walked.more,
        ..Loaded::default()
    };
    for r in results {
        match r {
            Ok(f) => loaded.files.push(f),
            Err(s) => loaded.skipped.push(s),
        }
    }
    Ok(loaded)
}

/// C's conditional directives (`#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif`)
/// blanked out, byte for byte, so that an `if … else if` chain split by them parses as one
/// statement (tree-sitter's C grammar gives up on an `else` after an `#endif`); both
/// branches stay, as a reader of the tokens (lizard) sees them. Positions do not move.
fn mask_conditionals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut continued = false;
    for line in text.split_inclusive('\n') {
        let directive = line.trim_start().strip_prefix('#').map(str::trim_start);
        let conditional = continued
            || directive.is_some_and(|d| {
                ["if", "ifdef", "ifndef", "elif", "else", "endif"]
                    .iter()
                    .any(|k| {
                        d.strip_prefix(k).is_some_and(|rest| {
                            rest.is_empty()
                                || !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                        })
                    })
            });
        if conditional {
            // A directive continued with a backslash continues on the next line.
            continued = line.trim_end_matches(['\n', '\r']).ends_with('\\');
            // Byte for byte (a character of several bytes becomes as many spaces).
            out.extend(line.bytes().map(|b| {
                if b == b'\n' || b == b'\r' {
                    char::from(b)
                } else {
                    ' '
                }
            }));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// A path relative to `root` with `/` separators.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn read_one(root: &Path, path: &Path) -> Result<SourceFile, Skipped> {
    let rel = relative(root, path);
    let Some(dialect) = resolve_pr_syntax::dialect_of(&rel) else {
        return Err(Skipped::NoGrammar {
            path: rel,
            dialect: "unknown",
        });
    };
    let bytes = std::fs::read(path).map_err(|e| Skipped::Unreadable {
        path: rel.clone(),
        why: e.to_string(),
    })?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(Skipped::TooLarge {
            path: rel,
            bytes: bytes.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    let text = String::from_utf8(bytes).map_err(|_| Skipped::NotText { path: rel.clone() })?;
    SourceFile::parse(rel, dialect, text)
}

/// The tokens (leaves) under `node`, in order, not entering nodes `skip` takes (nested
/// functions counted on their own) and not entering comments or string literals.
pub fn leaves<'t>(node: Node<'t>, skip: &dyn Fn(Node<'t>) -> bool, out: &mut Vec<Node<'t>>) {
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.id() != node.id() && skip(n) {
            continue;
        }
        if n.child_count() == 0 {
            out.push(n);
            continue;
        }
        let children: Vec<Node<'t>> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
}
