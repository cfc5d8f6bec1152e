//! The texts an answer reads from a checkout: the lines of context a page of locations
//! shows, whole files for a syntax question, and the declarations holding positions.

use std::path::{Path, PathBuf};
/// Characters of a context line shown.
const CONTEXT_CHARS: usize = 160;
/// Files bigger than this give no context line (a generated or minified file).
const CONTEXT_FILE_BYTES: u64 = 4 << 20;

/// The lines of context a page of locations shows, read from the files: never more than
/// [`CACHED_FILES`] files held at once (each at most `CONTEXT_FILE_BYTES`), so an answer never
/// holds a checkout in memory, however many locations it pages through; tools ask for the
/// lines of the page they show only.
#[derive(Default)]
pub struct Texts {
    /// Most recently used first.
    files: std::collections::VecDeque<(PathBuf, Option<Vec<String>>)>,
    /// Files read, for tests.
    read: usize,
}

/// How many files' lines a [`Texts`] keeps.
pub const CACHED_FILES: usize = 8;

impl Texts {
    /// A line of a file, trimmed and cut to `CONTEXT_CHARS` characters (`…` saying so):
    /// none when it is blank, past the end, or the file is unreadable or too big.
    pub fn line(&mut self, path: &Path, line: u32) -> Option<String> {
        let at = match self.files.iter().position(|(p, _)| p == path) {
            Some(at) => at,
            None => {
                self.read += 1;
                let small = std::fs::metadata(path)
                    .map(|m| m.len() <= CONTEXT_FILE_BYTES)
                    .unwrap_or(false);
                let lines = small.then(|| std::fs::read(path).ok()).flatten().map(|b| {
                    String::from_utf8_lossy(&b)
                        .split('\n')
                        .map(str::to_owned)
                        .collect()
                });
                self.files.push_front((path.to_owned(), lines));
                self.files.truncate(CACHED_FILES);
                0
            }
        };
        if at > 0
            && let Some(entry) = self.files.remove(at)
        {
            self.files.push_front(entry);
        }
        let text = self.files.front()?.1.as_ref()?.get(line as usize)?.trim();
        if text.is_empty() {
            return None;
        }
        let mut out: String = text.chars().take(CONTEXT_CHARS).collect();
        if text.chars().count() > CONTEXT_CHARS {
            out.push('…');
        }
        Some(out)
    }

    /// How many files it has read (each file held is read once).
    pub fn files_read(&self) -> usize {
        self.read
    }

    /// How many files' lines it holds (never more than [`CACHED_FILES`]).
    pub fn held(&self) -> usize {
        self.files.len()
    }

    /// The whole text of a file (as far as it is small enough to read), from the lines held.
    pub fn source(&mut self, path: &Path) -> Option<String> {
        self.line(path, 0);
        let (held, lines) = self.files.front()?;
        (held == path).then(|| lines.as_ref().map(|l| l.join("\n")))?
    }
}

/// The tree-sitter grammar of a file, when the syntax crate reads its language.
pub(crate) fn grammar_of(path: &Path) -> Option<resolve_pr_syntax::Dialect> {
    resolve_pr_syntax::dialect_of(&path.to_string_lossy())
}

/// The declaration (function, method, type) holding each position of one file, read with
/// tree-sitter: one parse for the file, one lookup per position.
pub fn containers_in(
    texts: &mut Texts,
    path: &Path,
    positions: &[resolve_pr_lsp::Pos],
) -> Vec<Option<String>> {
    let found = grammar_of(path)
        .zip(texts.source(path))
        .map(|(language, source)| {
            resolve_pr_syntax::enclosing_declarations(
                language,
                &source,
                &positions
                    .iter()
                    .map(|p| (p.line, p.character))
                    .collect::<Vec<_>>(),
            )
            .unwrap_or_default()
        });
    match found {
        Some(found) if found.len() == positions.len() => {
            found.into_iter().map(|e| e.map(|e| e.name)).collect()
        }
        _ => vec![None; positions.len()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file is read once while it is held, at most [`CACHED_FILES`] are held, and a
    /// file pushed out is read again when asked for.
    #[test]
    fn files_are_read_once_while_held() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<PathBuf> = (0..CACHED_FILES + 2)
            .map(|i| {
                let path = dir.path().join(format!("f{i}.rs"));
                std::fs::write(&path, format!("// file {i}\n\n   fn f() {{}}   \n")).unwrap();
                path
            })
            .collect();
        let mut texts = Texts::default();
        assert_eq!(texts.line(&files[0], 0).as_deref(), Some("// file 0"));
        assert_eq!(texts.line(&files[0], 1), None, "a blank line");
        assert_eq!(texts.line(&files[0], 2).as_deref(), Some("fn f() {}"));
        assert_eq!(texts.line(&files[0], 9), None, "past the end");
        assert_eq!(
            texts.source(&files[0]).as_deref(),
            Some("// file 0\n\n   fn f() {}   \n")
        );
        assert_eq!(texts.files_read(), 1);
        for f in &files {
            texts.line(f, 0);
        }
        assert_eq!(texts.files_read(), files.len());
        assert_eq!(texts.held(), CACHED_FILES);
        // The most recent are held; the first was pushed out.
        texts.line(&files[files.len() - 1], 2);
        assert_eq!(texts.files_read(), files.len());
        texts.line(&files[0], 0);
        assert_eq!(texts.files_read(), files.len() + 1);
    }

    #[test]
    fn a_long_line_is_cut_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.ts");
        std::fs::write(&path, "é".repeat(CONTEXT_CHARS + 1)).unwrap();
        let line = Texts::default().line(&path, 0).unwrap();
        assert_eq!(line.chars().count(), CONTEXT_CHARS + 1);
        assert!(line.ends_with("é…"), "{line}");
    }
}
