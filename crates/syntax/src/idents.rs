//! Where an identifier occurs, token by token: the textual side of a reference search.
//!
//! A language server's references miss what it cannot resolve, notably rust-analyzer inside
//! macro arguments. Here every identifier token whose text is the name counts, whatever it
//! refers to, so a caller can compare the two lists and name what the server did not cover.

use resolve_pr_source::{LineIndex, utf16_len};
use tree_sitter::{Node, TreeCursor};

use crate::{Dialect, MAX_SOURCE_BYTES, SyntaxError, parse};

/// One occurrence of an identifier: an LSP-style range on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Occurrence {
    /// Zero-based line; lines end at `\n`, `\r\n` or a lone `\r`, as in LSP.
    pub line: u32,
    /// Zero-based column of the token's first character, in UTF-16 code units (LSP's default
    /// position encoding).
    pub character: u32,
    /// Zero-based column just after the token, in UTF-16 code units.
    pub end_character: u32,
    /// Inside a token tree that tree-sitter does not parse as code: a Rust macro
    /// invocation's or attribute's arguments, a `macro_rules!` body, a C `#define` body.
    /// A language server often does not resolve these.
    pub in_macro: bool,
}

/// Where the identifier `name` occurs in `source` as a whole identifier token, in source
/// order: never inside a comment or a string or character literal, never as part of a longer
/// identifier. Code inside a string does count: the expressions of a Python f-string or a
/// JavaScript template substitution. (A Rust format string's inline argument, `"{name}"`,
/// does not: it is string text to tree-sitter.)
///
/// Which tokens count, by language:
/// - **Rust**: `identifier`, `field_identifier`, `type_identifier` and shorthand field
///   patterns; in a token tree (macro arguments, attribute arguments, a `macro_rules!`
///   body) every identifier token, with [`Occurrence::in_macro`] set, except lifetimes
///   (`'a`) and metavariables (`$x`). A `macro_rules!` matcher is left out: its tokens are
///   literals to match, not uses. A raw identifier `r#name` matches `name` (and `r#name`);
///   its range covers the whole token.
/// - **TypeScript, TSX, JavaScript**: identifiers, property names, shorthand properties
///   (also in patterns), type names and `#private` names (which match only `#name`).
///   JSX text is text.
/// - **Python**: identifiers, soft keywords used as names (`match`, `type`) included.
/// - **Go**: identifiers, field, type and package names.
/// - **C**: identifiers, field and type names, and the identifier tokens of a `#define`
///   body (lexed here, as tree-sitter keeps the body as text), those with `in_macro`.
///
/// Labels (Rust loop labels, `goto` and `break` labels) are a namespace of their own and
/// never match. A source with syntax errors is scanned as far as tree-sitter recovers.
/// An empty name matches nothing. The error is for a source over [`MAX_SOURCE_BYTES`] or
/// a grammar that does not load.
pub fn identifier_occurrences(
    language: Dialect,
    source: &str,
    name: &str,
) -> Result<Vec<Occurrence>, SyntaxError> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(SyntaxError::TooLarge {
            bytes: source.len(),
            limit: MAX_SOURCE_BYTES,
        });
    }
    let wanted = bare(language, name);
    // A name absent from the text cannot be a token: no parse needed.
    if wanted.is_empty() || !source.contains(wanted) {
        return Ok(Vec::new());
    }
    let tree = parse(language, source)?;
    let scan = Scan {
        language,
        rules: Rules::of(language),
        source,
        wanted,
        lines: LineIndex::new(source),
    };
    let mut out = Vec::new();
    scan.walk(tree.walk(), &mut out);
    out.sort_unstable();
    Ok(out)
}

/// A Rust name without its raw prefix: `r#type` is the identifier `type`.
fn bare(language: Dialect, name: &str) -> &str {
    if language == Dialect::Rust {
        name.strip_prefix("r#").unwrap_or(name)
    } else {
        name
    }
}

/// The node kinds a language's identifiers have, and the subtrees whose identifiers are not
/// names.
struct Rules {
    identifiers: &'static [&'static str],
    skipped: &'static [&'static str],
}

impl Rules {
    fn of(language: Dialect) -> Rules {
        match language {
            Dialect::Rust => Rules {
                identifiers: &[
                    "identifier",
                    "field_identifier",
                    "type_identifier",
                    "shorthand_field_identifier",
                ],
                skipped: &["lifetime", "label", "token_tree_pattern"],
            },
            Dialect::TypeScript | Dialect::Tsx | Dialect::JavaScript | Dialect::Jsx => Rules {
                identifiers: &[
                    "identifier",
                    "property_identifier",
                    "shorthand_property_identifier",
                    "shorthand_property_identifier_pattern",
                    "type_identifier",
                    "private_property_identifier",
                ],
                skipped: &[],
            },
            Dialect::Python => Rules {
                identifiers: &["identifier"],
                skipped: &[],
            },
            Dialect::Go => Rules {
                identifiers: &[
                    "identifier",
                    "field_identifier",
                    "type_identifier",
                    "package_identifier",
                ],
                skipped: &[],
            },
            Dialect::C | Dialect::Cpp => Rules {
                identifiers: &["identifier", "field_identifier", "type_identifier"],
                skipped: &[],
            },
        }
    }
}

/// What the ancestors of a node say about it.
#[derive(Debug, Clone, Copy, Default)]
struct Context {
    /// Inside a Rust token tree.
    in_macro: bool,
    /// Inside a C `#define`.
    in_define: bool,
}

struct Scan<'s> {
    language: Dialect,
    rules: Rules,
    source: &'s str,
    wanted: &'s str,
    lines: LineIndex<'s>,
}

impl Scan<'_> {
    /// Every node in document order, without recursion (nesting depth is the input's).
    fn walk(&self, mut cursor: TreeCursor<'_>, out: &mut Vec<Occurrence>) {
        // The context of the cursor's node, one entry per level.
        let mut contexts = vec![Context::default()];
        loop {
            let here = contexts.last().copied().unwrap_or_default();
            if let Some(inner) = self.visit(cursor.node(), here, out)
                && cursor.goto_first_child()
            {
                contexts.push(inner);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                contexts.pop();
            }
        }
    }

    /// Records the node if it is an occurrence; the context for its children, or `None`
    /// when they are not read.
    fn visit(&self, node: Node<'_>, here: Context, out: &mut Vec<Occurrence>) -> Option<Context> {
        if !node.is_named() {
            return None;
        }
        let kind = node.kind();
        if self.rules.skipped.contains(&kind) {
            return None;
        }
        if self.rules.identifiers.contains(&kind) {
            self.identifier(node, here, out);
            return None;
        }
        let mut inner = here;
        match (self.language, kind) {
            (Dialect::Rust, "token_tree") => inner.in_macro = true,
            (Dialect::C | Dialect::Cpp, "preproc_def" | "preproc_function_def") => {
                inner.in_define = true
            }
            (Dialect::C | Dialect::Cpp, "preproc_arg") => {
                if here.in_define {
                    let start = node.start_byte();
                    let body = self.source.get(node.byte_range()).unwrap_or("");
                    c_identifiers(body, |from, to| {
                        if body.get(from..to) == Some(self.wanted) {
                            out.push(self.occurrence(start + from, start + to, true));
                        }
                    });
                }
                return None;
            }
            _ => {}
        }
        Some(inner)
    }

    fn identifier(&self, node: Node<'_>, here: Context, out: &mut Vec<Occurrence>) {
        let range = node.byte_range();
        let Some(text) = self.source.get(range.clone()) else {
            return;
        };
        if bare(self.language, text) != self.wanted {
            return;
        }
        // In a token tree a lifetime is `'` then an identifier, a metavariable `$` then one.
        if here.in_macro
            && matches!(
                self.source.as_bytes().get(range.start.wrapping_sub(1)),
                Some(b'\'' | b'$')
            )
        {
            return;
        }
        out.push(self.occurrence(range.start, range.end, here.in_macro));
    }

    fn occurrence(&self, start: usize, end: usize, in_macro: bool) -> Occurrence {
        let (line, character) = position(&self.lines, start);
        let width = self.source.get(start..end).map_or(0, utf16_len);
        Occurrence {
            line,
            character,
            end_character: character.saturating_add(width),
            in_macro,
        }
    }
}

/// The line and UTF-16 column of a byte offset on a character boundary (a node's).
pub(crate) fn position(lines: &LineIndex<'_>, offset: usize) -> (u32, u32) {
    lines
        .position_utf16(offset)
        .map_or((0, 0), |at| (at.line, at.col))
}

/// Calls `hit(start, end)` with the byte range of each identifier token in C source text (a
/// `#define` body), skipping comments, string and character literals and numbers.
fn c_identifiers(text: &str, mut hit: impl FnMut(usize, usize)) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let offset = |i: usize| chars.get(i).map_or(text.len(), |&(o, _)| o);
    let mut i = 0;
    while let Some(c) = at(i) {
        match c {
            '/' if at(i + 1) == Some('/') => {
                // To the end of the line; a backslash before the newline continues it.
                i += 2;
                while let Some(c) = at(i) {
                    if c == '\n' && at(i.wrapping_sub(1)) != Some('\\') {
                        break;
                    }
                    i += 1;
                }
            }
            '/' if at(i + 1) == Some('*') => {
                i += 2;
                while at(i).is_some() && !(at(i) == Some('*') && at(i + 1) == Some('/')) {
                    i += 1;
                }
                i += 2;
            }
            '"' | '\'' => {
                i += 1;
                while let Some(d) = at(i) {
                    if d == '\\' {
                        i += 2;
                        continue;
                    }
                    i += 1;
                    if d == c || d == '\n' {
                        break;
                    }
                }
            }
            c if c.is_ascii_digit()
                || (c == '.' && at(i + 1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                // A preprocessing number: `0x1Fu`, `1e+5`, `1'000` (C23).
                i += 1;
                while let Some(d) = at(i) {
                    let exponent_sign =
                        matches!(d, '+' | '-') && matches!(at(i - 1), Some('e' | 'E' | 'p' | 'P'));
                    let separator = d == '\'' && at(i + 1).is_some_and(is_c_identifier_part);
                    if is_c_identifier_part(d) || d == '.' || exponent_sign || separator {
                        i += 1;
                    } else {
                        break;
                    }
                }
            }
            c if c == '_' || c == '$' || c.is_alphabetic() => {
                let from = i;
                while at(i).is_some_and(is_c_identifier_part) {
                    i += 1;
                }
                let word = text.get(offset(from)..offset(i)).unwrap_or("");
                // `L"…"`, `u8'…'`: an encoding prefix, not a name.
                let prefix =
                    matches!(word, "L" | "u" | "U" | "u8") && matches!(at(i), Some('"' | '\''));
                if !prefix {
                    hit(offset(from), offset(i));
                }
            }
            _ => i += 1,
        }
    }
}

fn is_c_identifier_part(c: char) -> bool {
    c == '_' || c == '$' || c.is_alphanumeric()
}
