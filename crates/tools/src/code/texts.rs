//! The contract's view of the texts an answer reads: locations with their line of
//! context, symbols, and a page of references with the declarations holding them (the
//! reading itself is `resolve_pr_code::target::Texts`).

use std::path::Path;

use resolve_pr_lsp::{Language, Loc};

use super::{Location, Reference, SymbolInfo, range};
use resolve_pr_code::target::containers_in;
pub(crate) use resolve_pr_code::target::display_path;

/// The code layer's text cache, making the contract's locations.
#[derive(Default)]
pub(crate) struct Texts(resolve_pr_code::target::Texts);

impl std::ops::Deref for Texts {
    type Target = resolve_pr_code::target::Texts;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Texts {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Texts {
    /// A location as the contract shows it.
    pub fn location(&mut self, workspace: &Path, loc: &Loc) -> Location {
        Location {
            file_path: display_path(workspace, &loc.path),
            range: range(loc.range),
            context: self.line(&loc.path, loc.range.start.line),
            source: None,
        }
    }
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
        assert!(texts.held() <= resolve_pr_code::target::CACHED_FILES);
        // The same file again is not read again while it is held.
        let again = texts.line(&locs[49].path, 0);
        assert_eq!(again.as_deref(), Some("// file 49"));
        assert_eq!(texts.files_read(), PAGE);
    }
}
