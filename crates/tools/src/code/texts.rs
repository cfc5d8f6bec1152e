//! The lines of context a page of locations shows, the declarations holding them, and the
//! paths an answer names.

use std::path::{Path, PathBuf};

use resolve_pr_lsp::{Language, Loc};

use super::{Location, Reference, SymbolInfo, range};
/// Characters of a context line shown.
const CONTEXT_CHARS: usize = 160;
/// Files bigger than this give no context line (a generated or minified file).
const CONTEXT_FILE_BYTES: u64 = 4 << 20;

/// The lines of context a page of locations shows, read from the files: never more than
/// [`CACHED_FILES`] files held at once (each at most `CONTEXT_FILE_BYTES`), so an answer never
/// holds a checkout in memory, however many locations it pages through; tools ask for the
/// lines of the page they show only.
#[derive(Default)]
pub(crate) struct Texts {
    /// Most recently used first.
    files: std::collections::VecDeque<(PathBuf, Option<Vec<String>>)>,
    /// Files read, for tests.
    read: usize,
}

/// How many files' lines a [`Texts`] keeps.
const CACHED_FILES: usize = 8;

impl Texts {
    fn line(&mut self, path: &Path, line: u32) -> Option<String> {
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

    /// How many files it has read.
    #[cfg(test)]
    fn files_read(&self) -> usize {
        self.read
    }

    /// A location as the contract shows it.
    pub fn location(&mut self, workspace: &Path, loc: &Loc) -> Location {
        Location {
            file_path: display_path(workspace, &loc.path),
            range: range(loc.range),
            context: self.line(&loc.path, loc.range.start.line),
            source: None,
        }
    }

    /// The whole text of a file (as far as it is small enough to read), from the lines held.
    pub(super) fn source(&mut self, path: &Path) -> Option<String> {
        self.line(path, 0);
        let (held, lines) = self.files.front()?;
        (held == path).then(|| lines.as_ref().map(|l| l.join("\n")))?
    }
}

/// The tree-sitter grammar of a file, when the syntax crate reads its language.
pub(super) fn grammar_of(path: &Path) -> Option<resolve_pr_syntax::Dialect> {
    resolve_pr_syntax::dialect_of(&path.to_string_lossy())
}

/// The declaration (function, method, type) holding each position of one file, read with
/// tree-sitter: one parse for the file, one lookup per position.
fn containers_in(
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

/// Relative to the workspace with `/`, or absolute when outside it.
pub(crate) fn display_path(workspace: &Path, path: &Path) -> String {
    match path.strip_prefix(workspace) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => outside_path(path),
    }
}

/// A path outside the checkout (a toolchain's or a dependency's source, where a definition
/// or a callee may be), shortened to what names it: the standard library or package
/// directory it is in and the path below, not the machine's home and install layout.
fn outside_path(path: &Path) -> String {
    let full = path.to_string_lossy();
    const PLACES: [(&str, &str); 6] = [
        ("/lib/rustlib/src/rust/library/", "<rust std>/"),
        ("/registry/src/", "<cargo registry>/"),
        ("/node_modules/", "<node_modules>/"),
        ("/site-packages/", "<site-packages>/"),
        ("/typeshed-fallback/", "<typeshed>/"),
        ("/pkg/mod/", "<go modules>/"),
    ];
    for (marker, name) in PLACES {
        if let Some(at) = full.rfind(marker) {
            let mut rest = &full[at + marker.len()..];
            // The registry's index directory (`index.crates.io-…/`) says nothing.
            if marker == "/registry/src/" {
                rest = rest.split_once('/').map_or(rest, |(_, r)| r);
            }
            return format!("{name}{rest}");
        }
    }
    full.into_owned()
}

/// The symbol as the contract shows it.
pub(crate) fn symbol_info(
    texts: &mut Texts,
    workspace: &Path,
    language: Language,
    s: &resolve_pr_lsp::Symbol,
) -> SymbolInfo {
    SymbolInfo {
        name: s.name.clone(),
        symbol_kind: s.kind.to_owned(),
        language: language.as_str().to_owned(),
        container: s.container.clone(),
        location: texts.location(workspace, &s.location),
    }
}

/// The page's locations, with their context lines.
pub(super) fn locations_of(
    texts: &mut Texts,
    workspace: &Path,
    shown: Vec<(String, resolve_pr_lsp::Pos, &resolve_pr_lsp::Loc, bool)>,
    with_containers: bool,
) -> Vec<Reference> {
    let mut out: Vec<Reference> = Vec::with_capacity(shown.len());
    // Sorted by file: each file's locations are looked up in one parse.
    let mut at = 0;
    while at < shown.len() {
        let path = &shown[at].2.path;
        let end = at + shown[at..].iter().take_while(|s| &s.2.path == path).count();
        let positions: Vec<resolve_pr_lsp::Pos> =
            shown[at..end].iter().map(|s| s.2.range.start).collect();
        let containers = if with_containers {
            containers_in(texts, path, &positions)
        } else {
            vec![None; positions.len()]
        };
        for ((_, _, l, text), container) in shown[at..end].iter().zip(containers) {
            out.push(Reference {
                location: Location {
                    source: text.then(|| "text".to_owned()),
                    ..texts.location(workspace, l)
                },
                container,
            });
        }
        at = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::PAGE;

    /// 120 locations in 120 files, paged: only the page's 50 files are read for context,
    /// and at most `CACHED_FILES` are held at a time, whatever the number of locations.
    #[test]
    fn only_the_page_shown_is_read_for_context() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        let locs: Vec<resolve_pr_lsp::Loc> = (0..120)
            .map(|i| {
                let path = ws.join(format!("f{i:03}.rs"));
                std::fs::write(&path, format!("// file {i}\nfn target_{i}() {{}}\n")).unwrap();
                let at = resolve_pr_lsp::Pos {
                    line: 1,
                    character: 3,
                };
                resolve_pr_lsp::Loc {
                    path,
                    range: resolve_pr_lsp::Span { start: at, end: at },
                }
            })
            .collect();
        let mut keyed: Vec<_> = locs
            .iter()
            .rev()
            .map(|l| (display_path(ws, &l.path), l.range.start, l, false))
            .collect();
        keyed.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        let shown: Vec<_> = keyed.into_iter().take(PAGE).collect();
        let mut texts = Texts::default();
        let page: Vec<Location> = locations_of(&mut texts, ws, shown, false)
            .into_iter()
            .map(|r| r.location)
            .collect();
        assert_eq!(page.len(), PAGE);
        assert_eq!(page[0].file_path, "f000.rs");
        assert_eq!(page[0].context.as_deref(), Some("fn target_0() {}"));
        assert_eq!(texts.files_read(), PAGE);
        assert!(texts.files.len() <= CACHED_FILES);
        // The same file again is not read again while it is held.
        let again = texts.line(&locs[49].path, 0);
        assert_eq!(again.as_deref(), Some("// file 49"));
        assert_eq!(texts.files_read(), PAGE);
    }

    #[test]
    fn a_path_outside_the_checkout_is_named_by_where_it_lives() {
        let ws = Path::new("/work/checkout");
        let cases = [
            (
                "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/core/src/result.rs",
                "<rust std>/core/src/result.rs",
            ),
            (
                "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serde-1.0.0/src/lib.rs",
                "<cargo registry>/serde-1.0.0/src/lib.rs",
            ),
            (
                "/work/checkout/node_modules/vitest/dist/index.d.ts",
                "node_modules/vitest/dist/index.d.ts",
            ),
            (
                "/home/u/.nvm/lib/node_modules/typescript/lib/lib.es5.d.ts",
                "<node_modules>/typescript/lib/lib.es5.d.ts",
            ),
            ("/usr/include/stdio.h", "/usr/include/stdio.h"),
        ];
        for (path, shown) in cases {
            assert_eq!(display_path(ws, Path::new(path)), shown);
        }
    }
}
