//! Go's imports name packages by directory (`"example.com/shapes/util"`), never by file,
//! and gopls rewrites none when a directory moves. A directory rename of a Go module's
//! package rewrites every import path of it, and of the packages under it, in the module's
//! files, read from their syntax trees (`import_spec` paths only, not other strings).

use std::path::{Path, PathBuf};

use resolve_pr_source::{FileChange, TextEdit, TextRange, WorkspaceChange};

/// The module a directory belongs to: the nearest `go.mod` at or above it, inside `root`;
/// its directory and module path.
pub fn module_of(root: &Path, dir: &Path) -> Option<(PathBuf, String)> {
    for d in dir.ancestors().take_while(|d| d.starts_with(root)) {
        let Ok(text) = std::fs::read_to_string(d.join("go.mod")) else {
            continue;
        };
        let path = text.lines().find_map(|l| {
            let rest = l.trim().strip_prefix("module")?;
            rest.starts_with([' ', '\t'])
                .then(|| rest.trim().trim_matches('"').to_owned())
        })?;
        return Some((d.to_owned(), path));
    }
    None
}

/// The import path of `dir` in a module at `module_dir` named `module`.
fn import_path(module_dir: &Path, module: &str, dir: &Path) -> Option<String> {
    let rel = dir.strip_prefix(module_dir).ok()?;
    let mut path = module.to_owned();
    for part in rel.components() {
        path.push('/');
        path.push_str(&part.as_os_str().to_string_lossy());
    }
    Some(path)
}

/// The edits that make the Go files of the module holding `from` import `to` instead
/// (both directories, absolute, inside `root`), with the files' paths relative to `root`.
/// `None` when `from` is in no Go module or `to` leaves it.
pub fn directory_renamed(root: &Path, from: &Path, to: &Path) -> Option<WorkspaceChange> {
    let (module_dir, module) = module_of(root, from)?;
    let old = import_path(&module_dir, &module, from)?;
    let new = import_path(&module_dir, &module, to)?;
    let mut changes = Vec::new();
    // The module's files as git sees them (the walk verification copies), vendored
    // packages left alone.
    for rel in crate::verify::checkout_files(&module_dir) {
        if rel.extension().is_none_or(|e| e != "go") || rel.starts_with("vendor") {
            continue;
        }
        let path = module_dir.join(&rel);
        let path = path.as_path();
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if !text.contains(&old) {
            continue;
        }
        let edits = rewrite(&text, &old, &new);
        if !edits.is_empty()
            && let Ok(rel) = path.strip_prefix(root)
        {
            changes.push(FileChange::Edit {
                path: rel.to_owned(),
                edits,
            });
        }
    }
    changes.sort_by(|a, b| a.paths().cmp(&b.paths()));
    Some(WorkspaceChange { changes })
}

/// The edits of one file's import paths: `old` and every path under it.
fn rewrite(text: &str, old: &str, new: &str) -> Vec<TextEdit> {
    let Ok(tree) = resolve_pr_syntax::parse_tree(resolve_pr_syntax::Dialect::Go, text) else {
        return Vec::new();
    };
    let mut edits = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "import_spec" {
            if let Some(path) = node.child_by_field_name("path") {
                let quoted = &text[path.byte_range()];
                let inner = quoted.trim_matches(|c| c == '"' || c == '`');
                let under = inner
                    .strip_prefix(old)
                    .filter(|rest| rest.is_empty() || rest.starts_with('/'));
                if let Some(rest) = under {
                    // The path's text inside its quotes.
                    let start = path.start_byte() + 1;
                    edits.push(TextEdit::replace(
                        TextRange::new(start, start + inner.len()),
                        format!("{new}{rest}"),
                    ));
                }
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_of_the_package_and_those_under_it_are_rewritten_and_nothing_else() {
        let text = "package main\n\nimport (\n\t\"fmt\"\n\n\tu \"example.com/shapes/util\"\n\t\"example.com/shapes/util/deep\"\n\t\"example.com/shapes/utility\"\n)\n\nconst s = \"example.com/shapes/util\"\n";
        let edits = rewrite(
            text,
            "example.com/shapes/util",
            "example.com/shapes/helpers",
        );
        let after = resolve_pr_source::apply_edits(text, &edits).unwrap();
        assert_eq!(
            after,
            "package main\n\nimport (\n\t\"fmt\"\n\n\tu \"example.com/shapes/helpers\"\n\t\"example.com/shapes/helpers/deep\"\n\t\"example.com/shapes/utility\"\n)\n\nconst s = \"example.com/shapes/util\"\n"
        );
    }

    #[test]
    fn a_directory_rename_rewrites_the_modules_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(
            root.join("go.mod"),
            "module example.com/shapes\n\ngo 1.19\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join("util")).unwrap();
        std::fs::write(root.join("util/util.go"), "package util\n").unwrap();
        std::fs::write(
            root.join("main.go"),
            "package main\n\nimport \"example.com/shapes/util\"\n\nfunc main() { util.F() }\n",
        )
        .unwrap();
        let change =
            directory_renamed(&root, &root.join("util"), &root.join("pkg/helpers")).unwrap();
        let paths: Vec<_> = change.changes.iter().flat_map(|c| c.paths()).collect();
        assert_eq!(paths, vec![Path::new("main.go")]);
        let FileChange::Edit { edits, .. } = &change.changes[0] else {
            panic!()
        };
        assert_eq!(edits[0].new_text, "example.com/shapes/pkg/helpers");
        assert!(directory_renamed(&root, &root.join("util"), Path::new("/elsewhere")).is_none());
    }
}
