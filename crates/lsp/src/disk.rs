//! Files changed on disk, for a server that does not watch them itself (gopls, clangd): the
//! times and sizes of the project's source files, compared before a question with what they
//! were at the last one, become `workspace/didChangeWatchedFiles`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use crate::client::FileChange;
use crate::servers::{Language, source_files};

/// Files looked at, at most; a bigger project is watched in its first this many.
const MAX_FILES: usize = 20_000;
/// Questions closer together than this share one look (a tool call asks several).
const MIN_INTERVAL: Duration = Duration::from_millis(200);

type Stamp = (SystemTime, u64);

pub struct DiskWatch {
    root: PathBuf,
    language: Language,
    state: Mutex<(Instant, HashMap<PathBuf, Stamp>)>,
}

fn stamps(root: &Path, language: Language) -> HashMap<PathBuf, Stamp> {
    let (files, _) = source_files(root, language, MAX_FILES);
    files
        .into_iter()
        .filter_map(|f| {
            let m = std::fs::metadata(&f).ok()?;
            Some((f, (m.modified().ok()?, m.len())))
        })
        .collect()
}

impl DiskWatch {
    /// The files as they are now.
    pub fn new(root: &Path, language: Language) -> DiskWatch {
        DiskWatch {
            root: root.to_owned(),
            language,
            state: Mutex::new((Instant::now(), stamps(root, language))),
        }
    }

    /// What changed since the last look (nothing when it was a moment ago).
    pub fn changes(&self) -> Vec<(PathBuf, FileChange)> {
        {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if state.0.elapsed() < MIN_INTERVAL {
                return Vec::new();
            }
        }
        let now = stamps(&self.root, self.language);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut changes = Vec::new();
        for (path, stamp) in &now {
            match state.1.get(path) {
                None => changes.push((path.clone(), FileChange::Created)),
                Some(old) if old != stamp => changes.push((path.clone(), FileChange::Changed)),
                Some(_) => {}
            }
        }
        for path in state.1.keys() {
            if !now.contains_key(path) {
                changes.push((path.clone(), FileChange::Deleted));
            }
        }
        changes.sort_by(|a, b| a.0.cmp(&b.0));
        *state = (Instant::now(), now);
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_changed_and_deleted_files_are_reported_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.go"), "package a\n").unwrap();
        std::fs::write(root.join("b.go"), "package a\n").unwrap();
        std::fs::create_dir(root.join("vendor")).unwrap();
        std::fs::write(root.join("vendor/v.go"), "package v\n").unwrap();
        let watch = DiskWatch::new(root, Language::Go);
        std::thread::sleep(MIN_INTERVAL);
        assert!(watch.changes().is_empty());
        std::thread::sleep(MIN_INTERVAL);
        std::fs::write(root.join("a.go"), "package a\n\nfunc F() {}\n").unwrap();
        std::fs::remove_file(root.join("b.go")).unwrap();
        std::fs::write(root.join("c.go"), "package a\n").unwrap();
        std::fs::write(root.join("vendor/v.go"), "package v // changed\n").unwrap();
        std::fs::write(root.join("notes.txt"), "not Go").unwrap();
        let got: Vec<(String, FileChange)> = watch
            .changes()
            .into_iter()
            .map(|(p, c)| (p.file_name().unwrap().to_string_lossy().into_owned(), c))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a.go".into(), FileChange::Changed),
                ("b.go".into(), FileChange::Deleted),
                ("c.go".into(), FileChange::Created),
            ]
        );
        // Asked again at once: one look serves both.
        assert!(watch.changes().is_empty());
    }
}
