//! A TypeScript/JavaScript move given its destination. typescript-language-server's "Move
//! to a new file" names the file itself (after the first declaration moved); the agent's
//! name is given to it in the same change: the created file takes the destination's path,
//! and every module specifier the change writes for it (`'./_clamp'`, `"./_clamp.js"`)
//! names the destination instead. Only a destination in the directory of the server's file
//! is taken: the moved code's own relative imports were written for that directory.

use std::path::{Component, Path, PathBuf};

use resolve_pr_source::{FileChange, WorkspaceChange};

/// The file the server's change creates.
fn created(change: &WorkspaceChange) -> Result<PathBuf, String> {
    let mut made = change.changes.iter().filter_map(|c| match c {
        FileChange::Create { path, .. } => Some(path.clone()),
        _ => None,
    });
    match (made.next(), made.next()) {
        (Some(path), None) => Ok(path),
        (None, _) => Err("the server's move creates no file".to_owned()),
        (Some(_), Some(_)) => Err("the server's move creates several files".to_owned()),
    }
}

/// The module specifier a file in `from_dir` writes for `target` (no extension): `./x`,
/// `../lib/x`.
fn specifier(from_dir: &Path, target: &Path) -> String {
    let from: Vec<Component<'_>> = from_dir.components().collect();
    let bare = target.with_extension("");
    let to: Vec<Component<'_>> = bare.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
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

/// Gives the file `change` creates the path `destination` (relative to the checkout, as the
/// change's paths are), rewriting the specifiers that name it.
pub fn retarget(change: &mut WorkspaceChange, destination: &Path) -> Result<(), String> {
    let made = created(change)?;
    if made.parent() != destination.parent() {
        return Err(format!(
            "the server writes the moved code for {}, so the destination must be in that directory",
            made.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(
                    || "the checkout's top".to_owned(),
                    |p| p.display().to_string()
                )
        ));
    }
    if made == destination {
        return Ok(());
    }
    let ext = |p: &Path| p.extension().map(|e| e.to_string_lossy().into_owned());
    if ext(&made) != ext(destination) {
        return Err(format!(
            "the moved code is {} (.{}), so the destination needs that extension",
            made.display(),
            ext(&made).unwrap_or_default()
        ));
    }
    for c in &mut change.changes {
        match c {
            FileChange::Create { path, .. } if *path == made => *path = destination.to_owned(),
            FileChange::Edit { path, edits } => {
                if *path == made {
                    *path = destination.to_owned();
                    continue;
                }
                let dir = path.parent().unwrap_or(Path::new(""));
                let (old, new) = (specifier(dir, &made), specifier(dir, destination));
                for edit in edits.iter_mut() {
                    for q in ['\'', '"', '`'] {
                        for suffix in [
                            "", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx",
                        ] {
                            edit.new_text = edit.new_text.replace(
                                &format!("{q}{old}{suffix}{q}"),
                                &format!("{q}{new}{suffix}{q}"),
                            );
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use resolve_pr_source::{TextEdit, TextRange};

    use super::*;

    fn server_move() -> WorkspaceChange {
        WorkspaceChange {
            changes: vec![
                FileChange::Create {
                    path: PathBuf::from("src/_clamp.ts"),
                    contents: "export function _clamp() {}\n".to_owned(),
                    overwrite: false,
                    ignore_if_exists: false,
                },
                FileChange::Edit {
                    path: PathBuf::from("src/clamp.ts"),
                    edits: vec![TextEdit::replace(
                        TextRange::empty(0),
                        "import { _clamp } from './_clamp';\n",
                    )],
                },
                FileChange::Edit {
                    path: PathBuf::from("test/clamp.test.ts"),
                    edits: vec![TextEdit::replace(
                        TextRange::empty(0),
                        "import { _clamp } from \"../src/_clamp.js\";\nconst _clampy = 1;\n",
                    )],
                },
            ],
        }
    }

    fn texts(change: &WorkspaceChange) -> Vec<String> {
        change
            .changes
            .iter()
            .map(|c| match c {
                FileChange::Create { path, .. } => format!("create {}", path.display()),
                FileChange::Edit { path, edits } => {
                    format!("{}: {}", path.display(), edits[0].new_text)
                }
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn the_new_file_takes_the_destination_and_its_importers_follow() {
        let mut change = server_move();
        retarget(&mut change, Path::new("src/clampValue.ts")).unwrap();
        assert_eq!(
            texts(&change),
            [
                "create src/clampValue.ts",
                "src/clamp.ts: import { _clamp } from './clampValue';\n",
                "test/clamp.test.ts: import { _clamp } from \"../src/clampValue.js\";\nconst _clampy = 1;\n",
            ]
        );
    }

    #[test]
    fn another_directory_or_extension_is_refused_and_the_same_path_changes_nothing() {
        let mut change = server_move();
        let err = retarget(&mut change, Path::new("lib/clampValue.ts")).unwrap_err();
        assert!(err.contains("must be in that directory"), "{err}");
        let err = retarget(&mut change, Path::new("src/clampValue.js")).unwrap_err();
        assert!(err.contains("extension"), "{err}");
        retarget(&mut change, Path::new("src/_clamp.ts")).unwrap();
        assert_eq!(change, server_move());
        assert_eq!(specifier(Path::new(""), Path::new("a/b.ts")), "./a/b");
        assert_eq!(specifier(Path::new("x/y"), Path::new("a.ts")), "../../a");
    }
}
