use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::edit::{EditError, TextEdit, apply_edits};

/// One step of a [`WorkspaceChange`]. Paths are relative to the checkout's root, with no
/// `..` and no root: [`WorkspaceChange::simulate`] refuses any other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileChange {
    /// Text edits to a file as it is at this point of the change.
    Edit { path: PathBuf, edits: Vec<TextEdit> },
    /// A new file with `contents` (LSP creates empty files and edits them after).
    Create {
        path: PathBuf,
        #[serde(default)]
        contents: String,
        #[serde(default)]
        overwrite: bool,
        #[serde(default)]
        ignore_if_exists: bool,
    },
    /// A file, or a directory and everything in it, under a new name.
    Rename {
        from: PathBuf,
        to: PathBuf,
        #[serde(default)]
        overwrite: bool,
        #[serde(default)]
        ignore_if_exists: bool,
    },
    /// A file, or a directory (only if `recursive` or empty).
    Delete {
        path: PathBuf,
        #[serde(default)]
        recursive: bool,
        #[serde(default)]
        ignore_if_not_exists: bool,
    },
}

impl FileChange {
    /// The paths this step names.
    pub fn paths(&self) -> Vec<&Path> {
        match self {
            FileChange::Edit { path, .. }
            | FileChange::Create { path, .. }
            | FileChange::Delete { path, .. } => vec![path],
            FileChange::Rename { from, to, .. } => vec![from, to],
        }
    }
}

/// Text edits plus create, rename and delete, applied in order: an LSP `WorkspaceEdit`
/// with `documentChanges`, in this crate's byte offsets and relative paths.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceChange {
    pub changes: Vec<FileChange>,
}

/// What the checkout holds before a change: the files, read on demand.
pub trait Tree {
    /// A regular file's bytes, or `None` if there is no regular file at `path`.
    fn read(&self, path: &Path) -> Option<Vec<u8>>;
    /// Every regular file strictly under the directory `dir` (relative to the root),
    /// empty if `dir` is not a directory.
    fn files_under(&self, dir: &Path) -> Vec<PathBuf>;
}

/// What a touched path holds after a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct After {
    /// `None`: nothing is there afterwards.
    pub contents: Option<Vec<u8>>,
    /// The path whose file this was before the change (itself, or a rename's source), so
    /// that its mode can go with it; `None` for a new file.
    pub origin: Option<PathBuf>,
}

/// Every path a change touches, and what it holds afterwards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub files: BTreeMap<PathBuf, After>,
}

/// A change that cannot apply to the tree it was simulated on.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChangeError {
    #[error("step {step}: `{path}` is not a relative path inside the checkout")]
    NotInside { step: usize, path: String },
    #[error("step {step}: there is no file `{path}` to {what}")]
    Missing {
        step: usize,
        path: String,
        what: &'static str,
    },
    #[error("step {step}: `{path}` exists already (the step neither overwrites nor ignores it)")]
    Exists { step: usize, path: String },
    #[error("step {step}: `{path}` is not UTF-8 text, so it cannot take text edits")]
    NotText { step: usize, path: String },
    #[error("step {step}: `{path}` is a directory with files; deleting it needs `recursive`")]
    NotEmpty { step: usize, path: String },
    #[error("step {step}: `{path}`: {source}")]
    Edit {
        step: usize,
        path: String,
        source: EditError,
    },
}

fn show(path: &Path) -> String {
    path.display().to_string()
}

fn inside(path: &Path) -> bool {
    !path.as_os_str().is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// A file's bytes and the path it came from (`None`: new).
type File = (Vec<u8>, Option<PathBuf>);

struct Overlay<'t> {
    tree: &'t dyn Tree,
    /// Paths whose state this change decided: `None` is gone.
    state: BTreeMap<PathBuf, Option<File>>,
}

impl Overlay<'_> {
    fn get(&self, path: &Path) -> Option<File> {
        match self.state.get(path) {
            Some(state) => state.clone(),
            None => self
                .tree
                .read(path)
                .map(|bytes| (bytes, Some(path.to_owned()))),
        }
    }

    fn exists(&self, path: &Path) -> bool {
        match self.state.get(path) {
            Some(state) => state.is_some(),
            None => self.tree.read(path).is_some(),
        }
    }

    /// Files strictly under `dir`, as the change has left them so far.
    fn under(&self, dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self
            .tree
            .files_under(dir)
            .into_iter()
            .filter(|p| !matches!(self.state.get(p), Some(None)))
            .collect();
        for (path, state) in &self.state {
            if state.is_some() && path.starts_with(dir) && path != dir && !files.contains(path) {
                files.push(path.clone());
            }
        }
        files.sort();
        files
    }
}

impl WorkspaceChange {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Every path the change names, in order, once each.
    pub fn named_paths(&self) -> Vec<&Path> {
        let mut out: Vec<&Path> = Vec::new();
        for change in &self.changes {
            for path in change.paths() {
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
        out
    }

    /// What every touched path holds after the change, computed over `tree` without
    /// writing anything; the first step that cannot apply is an error.
    pub fn simulate(&self, tree: &dyn Tree) -> Result<Outcome, ChangeError> {
        let mut overlay = Overlay {
            tree,
            state: BTreeMap::new(),
        };
        for (step, change) in self.changes.iter().enumerate() {
            for path in change.paths() {
                if !inside(path) {
                    return Err(ChangeError::NotInside {
                        step,
                        path: show(path),
                    });
                }
            }
            match change {
                FileChange::Edit { path, edits } => {
                    let Some((bytes, origin)) = overlay.get(path) else {
                        return Err(ChangeError::Missing {
                            step,
                            path: show(path),
                            what: "edit",
                        });
                    };
                    let text = String::from_utf8(bytes).map_err(|_| ChangeError::NotText {
                        step,
                        path: show(path),
                    })?;
                    let edited = apply_edits(&text, edits).map_err(|source| ChangeError::Edit {
                        step,
                        path: show(path),
                        source,
                    })?;
                    overlay
                        .state
                        .insert(path.clone(), Some((edited.into_bytes(), origin)));
                }
                FileChange::Create {
                    path,
                    contents,
                    overwrite,
                    ignore_if_exists,
                } => {
                    if overlay.exists(path) || !overlay.under(path).is_empty() {
                        if *ignore_if_exists && !overwrite {
                            continue;
                        }
                        if !overwrite || !overlay.under(path).is_empty() {
                            return Err(ChangeError::Exists {
                                step,
                                path: show(path),
                            });
                        }
                    }
                    overlay
                        .state
                        .insert(path.clone(), Some((contents.clone().into_bytes(), None)));
                }
                FileChange::Rename {
                    from,
                    to,
                    overwrite,
                    ignore_if_exists,
                } => {
                    if from == to {
                        continue;
                    }
                    let target_taken = overlay.exists(to) || !overlay.under(to).is_empty();
                    if target_taken {
                        if *ignore_if_exists && !overwrite {
                            continue;
                        }
                        if !overwrite {
                            return Err(ChangeError::Exists {
                                step,
                                path: show(to),
                            });
                        }
                    }
                    if let Some(file) = overlay.get(from) {
                        overlay.state.insert(from.clone(), None);
                        for gone in overlay.under(to) {
                            overlay.state.insert(gone, None);
                        }
                        overlay.state.insert(to.clone(), Some(file));
                        continue;
                    }
                    let files = overlay.under(from);
                    if files.is_empty() {
                        return Err(ChangeError::Missing {
                            step,
                            path: show(from),
                            what: "rename",
                        });
                    }
                    if overlay.exists(to) {
                        overlay.state.insert(to.clone(), None);
                    }
                    for file in files {
                        let rel = file.strip_prefix(from).unwrap_or(&file).to_owned();
                        let moved = overlay.get(&file);
                        overlay.state.insert(file.clone(), None);
                        overlay.state.insert(to.join(rel), moved);
                    }
                }
                FileChange::Delete {
                    path,
                    recursive,
                    ignore_if_not_exists,
                } => {
                    if overlay.exists(path) {
                        overlay.state.insert(path.clone(), None);
                        continue;
                    }
                    let files = overlay.under(path);
                    if files.is_empty() {
                        if *ignore_if_not_exists {
                            continue;
                        }
                        return Err(ChangeError::Missing {
                            step,
                            path: show(path),
                            what: "delete",
                        });
                    }
                    if !recursive {
                        return Err(ChangeError::NotEmpty {
                            step,
                            path: show(path),
                        });
                    }
                    for file in files {
                        overlay.state.insert(file, None);
                    }
                }
            }
        }
        let files = overlay
            .state
            .into_iter()
            .map(|(path, state)| {
                let after = match state {
                    Some((bytes, origin)) => After {
                        contents: Some(bytes),
                        origin,
                    },
                    None => After {
                        contents: None,
                        origin: None,
                    },
                };
                (path, after)
            })
            .collect();
        Ok(Outcome { files })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::TextRange;

    struct Files(BTreeMap<PathBuf, Vec<u8>>);

    impl Tree for Files {
        fn read(&self, path: &Path) -> Option<Vec<u8>> {
            self.0.get(path).cloned()
        }
        fn files_under(&self, dir: &Path) -> Vec<PathBuf> {
            self.0
                .keys()
                .filter(|p| p.starts_with(dir) && p.as_path() != dir)
                .cloned()
                .collect()
        }
    }

    fn tree(files: &[(&str, &str)]) -> Files {
        Files(
            files
                .iter()
                .map(|(p, c)| (PathBuf::from(p), c.as_bytes().to_vec()))
                .collect(),
        )
    }

    fn text(outcome: &Outcome, path: &str) -> Option<String> {
        let after = outcome.files.get(Path::new(path))?;
        after
            .contents
            .as_ref()
            .map(|b| String::from_utf8(b.clone()).unwrap())
    }

    #[test]
    fn a_renamed_file_is_then_edited_under_its_new_name() {
        let change = WorkspaceChange {
            changes: vec![
                FileChange::Rename {
                    from: "a.rs".into(),
                    to: "b.rs".into(),
                    overwrite: false,
                    ignore_if_exists: false,
                },
                FileChange::Edit {
                    path: "b.rs".into(),
                    edits: vec![TextEdit::replace(TextRange::new(3, 4), "y")],
                },
            ],
        };
        let out = change.simulate(&tree(&[("a.rs", "fn x() {}")])).unwrap();
        assert_eq!(text(&out, "a.rs"), None);
        assert_eq!(text(&out, "b.rs").as_deref(), Some("fn y() {}"));
        assert_eq!(out.files[Path::new("b.rs")].origin, Some("a.rs".into()));
    }

    #[test]
    fn a_directory_rename_moves_every_file_under_it() {
        let change = WorkspaceChange {
            changes: vec![FileChange::Rename {
                from: "src/old".into(),
                to: "src/new".into(),
                overwrite: false,
                ignore_if_exists: false,
            }],
        };
        let out = change
            .simulate(&tree(&[
                ("src/old/a.py", "a"),
                ("src/old/b/c.py", "c"),
                ("src/oldx.py", "x"),
            ]))
            .unwrap();
        assert_eq!(text(&out, "src/new/b/c.py").as_deref(), Some("c"));
        assert_eq!(text(&out, "src/new/a.py").as_deref(), Some("a"));
        assert!(out.files.contains_key(Path::new("src/old/a.py")));
        assert!(!out.files.contains_key(Path::new("src/oldx.py")));
    }

    #[test]
    fn steps_that_cannot_apply_are_refused_with_the_step_and_path() {
        let t = tree(&[("a", "x"), ("d/f", "y"), ("bin", "")]);
        let create = FileChange::Create {
            path: "a".into(),
            contents: String::new(),
            overwrite: false,
            ignore_if_exists: false,
        };
        let err = WorkspaceChange {
            changes: vec![create],
        }
        .simulate(&t)
        .unwrap_err();
        assert_eq!(
            err,
            ChangeError::Exists {
                step: 0,
                path: "a".into()
            }
        );
        for bad in ["../x", "/etc/passwd", ""] {
            let change = WorkspaceChange {
                changes: vec![FileChange::Delete {
                    path: bad.into(),
                    recursive: false,
                    ignore_if_not_exists: true,
                }],
            };
            assert!(
                matches!(change.simulate(&t), Err(ChangeError::NotInside { .. })),
                "{bad}"
            );
        }
        let delete_dir = WorkspaceChange {
            changes: vec![FileChange::Delete {
                path: "d".into(),
                recursive: false,
                ignore_if_not_exists: false,
            }],
        };
        assert!(matches!(
            delete_dir.simulate(&t),
            Err(ChangeError::NotEmpty { .. })
        ));
        let mut binary = tree(&[]);
        binary.0.insert("b".into(), vec![0xff, 0xfe]);
        let edit = WorkspaceChange {
            changes: vec![FileChange::Edit {
                path: "b".into(),
                edits: vec![],
            }],
        };
        assert!(matches!(
            edit.simulate(&binary),
            Err(ChangeError::NotText { .. })
        ));
    }
}
