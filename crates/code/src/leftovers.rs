//! What a server's rename may have left: a language server renames what its project holds,
//! and a project's configuration can leave files of the checkout out (pyright's `include`,
//! a `tsconfig.json`'s `files`). An import of the old name in a file the rename does not
//! touch is almost surely one of those: the cross-check finds them, and renames the name's
//! identifiers there, read with tree-sitter (comments and strings are not names).

use std::path::{Path, PathBuf};

use resolve_pr_source::{FileChange, Language, LineCol, LineIndex, TextEdit, TextRange, Walk};

/// Source files read at most.
const MAX_FILES: usize = 20_000;
/// Bytes of one file read at most.
const MAX_FILE_BYTES: u64 = 2 << 20;

/// An import of the old name that the rename leaves as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Left {
    /// Relative to the checkout.
    pub path: PathBuf,
    /// Zero-based.
    pub line: u32,
}

/// The imports of `name` in the `language` files of the checkout at `root` that `touched`
/// (relative paths) leaves out, in path order; and whether the scan was cut.
pub fn imports_left(
    root: &Path,
    language: Language,
    name: &str,
    touched: &[PathBuf],
) -> (Vec<Left>, bool) {
    let walked = Walk::sources(root)
        .files(MAX_FILES, |p| Language::of_path(p) == Some(language))
        .unwrap_or_default();
    let mut out = Vec::new();
    for path in walked.files {
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        if touched.iter().any(|t| t == rel)
            || std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_FILE_BYTES)
        {
            continue;
        }
        let Some(dialect) = resolve_pr_syntax::dialect_of(&rel.to_string_lossy()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if !text.contains(name) {
            continue;
        }
        let Ok(found) = resolve_pr_syntax::identifier_occurrences(dialect, &text, name) else {
            continue;
        };
        let mut lines: Vec<u32> = found
            .iter()
            .filter(|o| {
                resolve_pr_syntax::in_import(dialect, &text, o.line, o.character).unwrap_or(false)
            })
            .map(|o| o.line)
            .collect();
        lines.dedup();
        out.extend(lines.into_iter().map(|line| Left {
            path: rel.to_owned(),
            line,
        }));
    }
    (out, walked.more)
}

/// Edits renaming every occurrence of `name` as an identifier (not in comments or strings)
/// to `new_name` in each of `files` (relative to `root`): for the files that import the old
/// name and that the server left out.
pub fn renamed_by_text(
    root: &Path,
    files: &[PathBuf],
    name: &str,
    new_name: &str,
) -> Vec<FileChange> {
    let mut out = Vec::new();
    for rel in files {
        let Some(dialect) = resolve_pr_syntax::dialect_of(&rel.to_string_lossy()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(root.join(rel)) else {
            continue;
        };
        let Ok(found) = resolve_pr_syntax::identifier_occurrences(dialect, &text, name) else {
            continue;
        };
        let index = LineIndex::new(&text);
        let edits: Vec<TextEdit> = found
            .iter()
            .filter_map(|o| {
                let at = |col| index.offset_utf16(LineCol { line: o.line, col }).ok();
                Some(TextEdit::replace(
                    TextRange::new(at(o.character)?, at(o.end_character)?),
                    new_name,
                ))
            })
            .collect();
        if !edits.is_empty() {
            out.push(FileChange::Edit {
                path: rel.clone(),
                edits,
            });
        }
    }
    out
}

/// The byte ranges of `name` as a whole word in the code blocks of a Rust file's doc
/// comments (`///`, `//!`): doc tests, which rust-analyzer does not rename and `cargo check`
/// does not build, though `cargo test` runs them.
pub fn rust_doc_code(text: &str, name: &str) -> Vec<TextRange> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut in_code = false;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        let Some(doc) = trimmed
            .strip_prefix("///")
            .or_else(|| trimmed.strip_prefix("//!"))
        else {
            in_code = false;
            continue;
        };
        if doc.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            continue;
        }
        let doc_at = start + (line.len() - doc.len());
        for (i, _) in doc.match_indices(name) {
            let before = doc[..i].chars().next_back();
            let after = doc[i + name.len()..].chars().next();
            if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
                out.push(TextRange::new(doc_at + i, doc_at + i + name.len()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_doc_tests_are_found_and_nowhere_else_in_comments() {
        let text = "/// Flips it: see flip.\n///\n/// ```\n/// let x = e.flip();\n/// assert!(flipped(x.flip()));\n/// ```\n// ```\n// e.flip()\npub fn flip() {}\n//! ```\n//! flip\n";
        let found: Vec<&str> = rust_doc_code(text, "flip")
            .iter()
            .map(|r| &text[r.start..r.end])
            .collect();
        assert_eq!(found, ["flip", "flip", "flip"]);
        let lines: Vec<usize> = rust_doc_code(text, "flip")
            .iter()
            .map(|r| text[..r.start].matches('\n').count())
            .collect();
        assert_eq!(lines, [3, 4, 10]);
    }

    #[test]
    fn imports_in_untouched_files_are_found_and_the_rest_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |p: &str, t: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        write("src/pkg/encoding.py", "def want_bytes(s):\n    return s\n");
        write(
            "src/pkg/__init__.py",
            "from .encoding import want_bytes as want_bytes\n",
        );
        write(
            "tests/test_encoding.py",
            "import pytest\n\nfrom pkg.encoding import want_bytes\n\n# want_bytes in a comment\ndef test():\n    want_bytes('x')\n",
        );
        write("tests/other.py", "s = 'want_bytes'\nwant_bytes = 1\n");
        let touched = [
            PathBuf::from("src/pkg/encoding.py"),
            PathBuf::from("src/pkg/__init__.py"),
        ];
        let (left, cut) = imports_left(root, Language::Python, "want_bytes", &touched);
        assert!(!cut);
        assert_eq!(
            left,
            [Left {
                path: PathBuf::from("tests/test_encoding.py"),
                line: 2
            }]
        );
        let edits = renamed_by_text(root, &[left[0].path.clone()], "want_bytes", "as_bytes");
        let mut change = resolve_pr_source::WorkspaceChange { changes: edits };
        let text = std::fs::read_to_string(root.join("tests/test_encoding.py")).unwrap();
        let FileChange::Edit { edits, .. } = change.changes.remove(0) else {
            panic!("an edit");
        };
        assert_eq!(
            resolve_pr_source::apply_edits(&text, &edits).unwrap(),
            "import pytest\n\nfrom pkg.encoding import as_bytes\n\n# want_bytes in a comment\ndef test():\n    as_bytes('x')\n"
        );
    }
}
