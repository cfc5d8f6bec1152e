//! JavaScript and TypeScript module specifiers rewritten when files move, by the import
//! graph (`resolve_pr_analysis::graph`, which resolves specifiers as node and TypeScript
//! do): typescript-language-server rewrites ES imports of the files it has in a project,
//! but not CommonJS `require` calls, nor files outside a project. Every relative
//! specifier that resolves to a moved file is rewritten, and so are the moved files' own
//! relative specifiers. A file that lands on another workspace package's entry point
//! (`main` of its package.json, else `index.js`) is imported by that package's name, as a
//! workspace package is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use resolve_pr_analysis::SourceFile;
use resolve_pr_source::{FileChange, LineCol, LineIndex, TextEdit, TextRange, Walk};

/// A package.json's directory (relative), name and entry file (relative to the root).
#[derive(Debug, Clone, PartialEq)]
struct Package {
    dir: PathBuf,
    name: Option<String>,
    entry: PathBuf,
}

/// The nearest package.json at or above `file`'s directory, inside the checkout.
fn package_of(root: &Path, file: &Path) -> Option<Package> {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if let Ok(text) = std::fs::read_to_string(root.join(d).join("package.json")) {
            let value: serde_json::Value = serde_json::from_str(&text).ok()?;
            let name = value
                .get("name")
                .and_then(|n| n.as_str())
                .map(str::to_owned);
            let main = value
                .get("main")
                .and_then(|m| m.as_str())
                .unwrap_or("index.js");
            let main = main.trim_start_matches("./");
            let mut entry = d.join(main);
            if Path::new(main).extension().is_none() {
                entry.set_extension("js");
            }
            return Some(Package {
                dir: d.to_owned(),
                name,
                entry,
            });
        }
        if d.as_os_str().is_empty() {
            break;
        }
        dir = d.parent();
    }
    None
}

/// `to` relative to the directory `from_dir`, as a specifier (`./x`, `../a/b`).
fn relative(from_dir: &Path, to: &Path) -> String {
    let f: Vec<_> = from_dir.components().collect();
    let t: Vec<_> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), f.len() - common).collect();
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    let joined = parts.join("/");
    if joined.starts_with("..") {
        joined
    } else {
        format!("./{joined}")
    }
}

/// Where `path` is after the moves (`(from, to)`, files or directories).
fn after(path: &Path, moves: &[(PathBuf, PathBuf)]) -> PathBuf {
    for (from, to) in moves {
        if let Ok(rest) = path.strip_prefix(from) {
            return if rest.as_os_str().is_empty() {
                to.clone()
            } else {
                to.join(rest)
            };
        }
    }
    path.to_owned()
}

/// The specifier for `target` (its new place) as `importer` (at its new place) writes it,
/// in the style of `written`: an extension only where it had one, a directory's index by
/// the directory.
fn specifier(root: &Path, importer: &Path, target: &Path, written: &str) -> String {
    if let (Some(theirs), Some(ours)) = (package_of(root, target), package_of(root, importer))
        && theirs.dir != ours.dir
        && theirs.entry == target
        && let Some(name) = theirs.name
    {
        return name;
    }
    let mut to = target.to_owned();
    let had_extension = Path::new(written.rsplit('/').next().unwrap_or(written))
        .extension()
        .is_some();
    let names_index = !written
        .rsplit('/')
        .next()
        .unwrap_or("")
        .starts_with("index")
        && target.file_stem().is_some_and(|s| s == "index");
    if names_index {
        to = target.parent().map(Path::to_owned).unwrap_or_default();
    } else if !had_extension {
        to.set_extension("");
    }
    relative(importer.parent().unwrap_or(Path::new("")), &to)
}

/// The edits that keep every relative specifier of the checkout's scripts pointing where it
/// did after `moves` (paths relative to `root`). Edits name files at their places before
/// the moves (put them before the renames in a change).
pub fn rewrites(root: &Path, moves: &[(PathBuf, PathBuf)]) -> Result<Vec<FileChange>, String> {
    let walk = Walk::sources(root);
    let loaded = resolve_pr_analysis::load(root, &walk, 20_000).map_err(|e| e.to_string())?;
    let scripts: Vec<SourceFile> = loaded
        .files
        .into_iter()
        .filter(|f| {
            matches!(
                f.dialect,
                resolve_pr_syntax::Dialect::TypeScript
                    | resolve_pr_syntax::Dialect::Tsx
                    | resolve_pr_syntax::Dialect::JavaScript
                    | resolve_pr_syntax::Dialect::Jsx
            )
        })
        .collect();
    let graph = resolve_pr_analysis::graph::graph(&scripts, None);
    let texts: BTreeMap<&str, &SourceFile> = scripts.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut edits: BTreeMap<PathBuf, Vec<TextEdit>> = BTreeMap::new();
    for import in &graph.imports {
        let Some(resolved) = &import.resolved else {
            continue;
        };
        let importer = PathBuf::from(&import.file);
        let target = PathBuf::from(resolved);
        let (importer_after, target_after) = (after(&importer, moves), after(&target, moves));
        if importer_after == importer && target_after == target {
            continue;
        }
        let new = specifier(root, &importer_after, &target_after, &import.specifier);
        if new == import.specifier {
            continue;
        }
        let Some(file) = texts.get(import.file.as_str()) else {
            continue;
        };
        let index = LineIndex::new(&file.text);
        let at = |p: resolve_pr_analysis::Pos| {
            index
                .offset_utf16_clamped(LineCol {
                    line: p.line,
                    col: p.character,
                })
                .ok()
        };
        let (Some(start), Some(end)) = (at(import.span.start), at(import.span.end)) else {
            continue;
        };
        let statement = &file.text[start..end];
        let Some(found) = ['\'', '"', '`']
            .iter()
            .find_map(|q| statement.find(&format!("{q}{}{q}", import.specifier)))
        else {
            continue;
        };
        let from = start + found + 1;
        edits.entry(importer).or_default().push(TextEdit::replace(
            TextRange::new(from, from + import.specifier.len()),
            new,
        ));
    }
    Ok(edits
        .into_iter()
        .map(|(path, mut edits)| {
            edits.sort_by_key(|e| e.range.start);
            edits.dedup_by_key(|e| e.range.start);
            FileChange::Edit { path, edits }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifiers_follow_a_file_into_another_package_by_its_name_or_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |p: &str, t: &str| {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), t).unwrap();
        };
        write(
            "package.json",
            r#"{"private": true, "workspaces": ["packages/*"]}"#,
        );
        write(
            "packages/a/package.json",
            r#"{"name": "a", "main": "src/index.js"}"#,
        );
        write(
            "packages/a/src/index.js",
            "const c = require('./common');\nimport u from \"./util.js\";\n// require('./common') in a comment stays\n",
        );
        write(
            "packages/a/src/common.js",
            "const u = require('./util.js');\nmodule.exports = 1;\n",
        );
        write("packages/a/src/util.js", "module.exports = 2;\n");
        write(
            "packages/b/package.json",
            r#"{"name": "@s/b", "version": "1.0.0"}"#,
        );
        write("packages/b/index.js", "module.exports = {};\n");
        let moves = vec![(
            PathBuf::from("packages/a/src/common.js"),
            PathBuf::from("packages/b/index.js"),
        )];
        let changes = rewrites(root, &moves).unwrap();
        let text_of = |p: &str| {
            let edits = changes
                .iter()
                .find_map(|c| match c {
                    FileChange::Edit { path, edits } if path == Path::new(p) => Some(edits.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            resolve_pr_source::apply_edits(&std::fs::read_to_string(root.join(p)).unwrap(), &edits)
                .unwrap()
        };
        assert_eq!(
            text_of("packages/a/src/index.js"),
            "const c = require('@s/b');\nimport u from \"./util.js\";\n// require('./common') in a comment stays\n"
        );
        assert_eq!(
            text_of("packages/a/src/common.js"),
            "const u = require('../a/src/util.js');\nmodule.exports = 1;\n"
        );
        // Not an entry point: a relative path, without the extension it was written without.
        let moves = vec![(
            PathBuf::from("packages/a/src/common.js"),
            PathBuf::from("packages/b/lib/common.js"),
        )];
        let changes = rewrites(root, &moves).unwrap();
        let show = format!("{changes:?}");
        assert!(show.contains("new_text: \"../../b/lib/common\""), "{show}");
    }
}
