//! The syntax scan find_references adds to a server's answer: uses of a name inside macro
//! arguments that rust-analyzer misses.

use std::path::{Path, PathBuf};

use resolve_pr_lsp::Loc;
use resolve_pr_source::{LineCol, LineIndex};

use super::Aimed;
/// The largest file a syntax scan reads.
const SCAN_FILE_BYTES: u64 = 4 << 20;

/// Uses of the target's name inside macro arguments that the server did not return:
/// rust-analyzer misses calls written in some macros' arguments (`assert_eq!(f(..), ..)`,
/// `proptest! { .. }`). A syntax scan finds the name as an identifier token inside macro
/// token trees of the files where the symbol is already known to be used (those of the
/// server's answer and the one asked about: in Rust a file that calls an item imports or
/// names it, and that is a reference the server finds), so a different item of the same
/// name elsewhere is not taken for it. Each is a candidate, marked as found by text.
pub async fn macro_references(aimed: &Aimed, found: &[Loc]) -> Vec<Loc> {
    // The declaring module's name, as a path names it (`budget` for budget.rs).
    let module = aimed
        .resolved
        .symbol
        .as_ref()
        .map(|s| s.location.path.clone())
        .or_else(|| found.first().map(|l| l.path.clone()))
        .and_then(|p| {
            let stem = p.file_stem()?.to_string_lossy().into_owned();
            if stem == "mod" || stem == "lib" || stem == "main" {
                p.parent()?
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            } else {
                Some(stem)
            }
        });
    let asked = (aimed.resolved.path.clone(), aimed.resolved.pos);
    let found = found.to_vec();
    // Every file is read here, off the async runtime, once, and none is held past its scan.
    tokio::task::spawn_blocking(move || {
        scan_macro_calls(&asked, module.as_deref(), &found, &mut |p| read_scanned(p))
    })
    .await
    .unwrap_or_default()
}

/// A file's text for a syntax scan: none for a file too big (generated) or unreadable.
fn read_scanned(path: &Path) -> Option<String> {
    if std::fs::metadata(path)
        .map(|m| m.len() > SCAN_FILE_BYTES)
        .unwrap_or(true)
    {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The scan of [`macro_references`]: the name at `asked`, looked for in the file asked about
/// (first, where the name is read) and those of the server's references, each file read once
/// by `read` and dropped after its scan.
fn scan_macro_calls(
    asked: &(PathBuf, resolve_pr_lsp::Pos),
    module: Option<&str>,
    found: &[Loc],
    read: &mut dyn FnMut(&Path) -> Option<String>,
) -> Vec<Loc> {
    let mut files: Vec<PathBuf> = found.iter().map(|l| l.path.clone()).collect();
    files.sort();
    files.dedup();
    files.retain(|f| *f != asked.0);
    files.insert(0, asked.0.clone());
    let found_at: std::collections::HashSet<(&Path, u32, u32)> = found
        .iter()
        .map(|l| {
            (
                l.path.as_path(),
                l.range.start.line,
                l.range.start.character,
            )
        })
        .collect();
    let mut name: Option<String> = None;
    // How the server's references use the name: the character after it (`(` for calls,
    // `,` or `;` in imports, `::` for a path). A macro token followed by something else
    // (`cut.len()` where a local variable shares a function's name) is not taken.
    let mut follows = std::collections::HashSet::new();
    let mut out = Vec::new();
    for file in files {
        let Some(text) = read(&file) else {
            if name.is_none() {
                return Vec::new();
            }
            continue;
        };
        let index = LineIndex::new(&text);
        if name.is_none() {
            name = identifier_in(&index, asked.1);
        }
        let Some(name) = name.as_deref() else {
            return Vec::new();
        };
        for l in found.iter().filter(|l| l.path == file) {
            if let Some(c) = char_after(&index, l.range.end) {
                follows.insert(c);
            }
        }
        let Ok(hits) = resolve_pr_syntax::identifier_occurrences(
            resolve_pr_syntax::Dialect::Rust,
            &text,
            name,
        ) else {
            continue;
        };
        for hit in hits.into_iter().filter(|h| h.in_macro) {
            if found_at.contains(&(file.as_path(), hit.line, hit.character)) {
                continue;
            }
            let end = resolve_pr_lsp::Pos {
                line: hit.line,
                character: hit.end_character,
            };
            // Calls only (what the server misses in macros).
            if char_after(&index, end) != Some('(') {
                continue;
            }
            // A path names another item (`thiserror::Error`, `forge::Error::new`) unless
            // its last segment is the declaring module.
            if let Some(segment) = path_segment_before(&index, hit.line, hit.character)
                && Some(segment.as_str()) != module
            {
                continue;
            }
            out.push(Loc {
                path: file.clone(),
                range: resolve_pr_lsp::Span {
                    start: resolve_pr_lsp::Pos {
                        line: hit.line,
                        character: hit.character,
                    },
                    end,
                },
            });
        }
    }
    // Only of a name the server's references also call.
    if !follows.is_empty() && !follows.contains(&'(') {
        return Vec::new();
    }
    out
}

/// The path segment right before an identifier (`budget` in `budget::cut`), if a `::` is
/// there.
fn path_segment_before(index: &LineIndex<'_>, line: u32, character: u32) -> Option<String> {
    let (before, _) = index.split_line_utf16(LineCol {
        line,
        col: character,
    })?;
    let before = before.trim_end().strip_suffix("::")?.trim_end();
    let start = word_start(before, |c| c.is_alphanumeric() || c == '_');
    Some(before[start..].to_owned())
}

/// The byte offset where the run of `is_word` characters that ends `text` starts: just past
/// the last other character, whatever its width in bytes.
fn word_start(text: &str, is_word: impl Fn(char) -> bool) -> usize {
    text.char_indices()
        .rev()
        .find(|&(_, c)| !is_word(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// The first character after a position that is not a space (on its line).
fn char_after(index: &LineIndex<'_>, pos: resolve_pr_lsp::Pos) -> Option<char> {
    let (_, rest) = index.split_line_utf16(LineCol {
        line: pos.line,
        col: pos.character,
    })?;
    rest.chars().find(|c| !c.is_whitespace())
}

/// The identifier at a position of a file (the name a reference search is about).
pub fn identifier_at(path: &Path, pos: resolve_pr_lsp::Pos) -> Option<String> {
    identifier_in(&LineIndex::new(&std::fs::read_to_string(path).ok()?), pos)
}

/// The identifier at a position of a text: the whole word the position is in or at the
/// start of (a column inside a character counts from that character's end).
fn identifier_in(index: &LineIndex<'_>, pos: resolve_pr_lsp::Pos) -> Option<String> {
    let (before, after) = index.split_line_utf16(LineCol {
        line: pos.line,
        col: pos.character,
    })?;
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let head = &before[word_start(before, is_word)..];
    let tail = &after[..after.find(|c: char| !is_word(c)).unwrap_or(after.len())];
    let word = format!("{head}{tail}");
    (!word.is_empty() && !word.starts_with(|c: char| c.is_ascii_digit())).then_some(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The macro scan of find_references reads each file once, the one asked about first
    /// (where the name is read), and keeps only calls of the name.
    #[test]
    fn the_macro_scan_reads_each_file_once() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let p = |line, character| resolve_pr_lsp::Pos { line, character };
        let file = |name: &str, text: &str| {
            let path = ws.join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let lib = file("lib.rs", "pub fn cut(a: i32) -> i32 { a }\n");
        let a = file("a.rs", "fn f() { cut(1); assert!(cut(2) > 0); }\n");
        let b = file("b.rs", "fn g() { cut(3); dbg!(cut.len()); }\n");
        let at = |path: &PathBuf, line, character| Loc {
            path: path.clone(),
            range: resolve_pr_lsp::Span {
                start: p(line, character),
                end: p(line, character + 3),
            },
        };
        let found = vec![at(&a, 0, 9), at(&b, 0, 9), at(&a, 0, 9)];
        let mut reads: Vec<PathBuf> = Vec::new();
        let out = scan_macro_calls(&(lib.clone(), p(0, 7)), Some("lib"), &found, &mut |f| {
            reads.push(f.to_owned());
            read_scanned(f)
        });
        assert_eq!(reads, vec![lib, a.clone(), b]);
        assert_eq!(out, vec![at(&a, 0, 25)]);
    }

    #[test]
    fn the_identifier_at_a_position_is_the_whole_word() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.rs");
        std::fs::write(&f, "let 😀 = add_numbers(1, 2);\n").unwrap();
        let at = |c| {
            identifier_at(
                &f,
                resolve_pr_lsp::Pos {
                    line: 0,
                    character: c,
                },
            )
        };
        assert_eq!(at(9).as_deref(), Some("add_numbers"));
        assert_eq!(at(15).as_deref(), Some("add_numbers"));
        assert_eq!(at(20).as_deref(), Some("add_numbers"));
        assert_eq!(at(22), None);
        std::fs::write(&f, "x(«add_numbers»)\n").unwrap();
        assert_eq!(at(5).as_deref(), Some("add_numbers"));
        // Lines end where the server's do (a lone `\r` too); a column past a line's end is
        // its end.
        std::fs::write(&f, "a\rb\r\nx = add_numbers\r\n").unwrap();
        let at = |line, c| identifier_at(&f, resolve_pr_lsp::Pos { line, character: c });
        assert_eq!(at(2, 6).as_deref(), Some("add_numbers"));
        assert_eq!(at(2, 40).as_deref(), Some("add_numbers"));
        assert_eq!(at(1, 0).as_deref(), Some("b"));
    }

    #[test]
    fn the_path_segment_before_a_name() {
        assert_eq!(
            path_segment_before(&LineIndex::new("x(budget::cut(a))"), 0, 10).as_deref(),
            Some("budget")
        );
        assert_eq!(
            path_segment_before(&LineIndex::new("thiserror::Error"), 0, 11).as_deref(),
            Some("thiserror")
        );
        assert_eq!(path_segment_before(&LineIndex::new("cut(a)"), 0, 0), None);
        // A multi-byte character right before the path (columns in UTF-16 units).
        assert_eq!(
            path_segment_before(&LineIndex::new("«budget::cut(a)»"), 0, 9).as_deref(),
            Some("budget")
        );
        assert_eq!(
            path_segment_before(&LineIndex::new("😀budget::cut"), 0, 10).as_deref(),
            Some("budget")
        );
    }

    #[test]
    fn the_character_after_a_position_skips_spaces() {
        let p = |line, character| resolve_pr_lsp::Pos { line, character };
        let after = |text, pos| char_after(&LineIndex::new(text), pos);
        assert_eq!(after("cut (x)\nab", p(0, 3)), Some('('));
        assert_eq!(after("😀cut.len()", p(0, 5)), Some('.'));
        assert_eq!(after("cut", p(0, 3)), None);
        assert_eq!(after("a", p(3, 0)), None);
    }
}
