//! The journal of one apply: every touched file's contents and mode before and after (the
//! bytes kept as content-addressed blobs), written and synced before the first write. The
//! journal of a finished apply is its undo snapshot.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use resolve_pr_source::checksum;
use serde::{Deserialize, Serialize};

use crate::fsx;
use crate::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum State {
    /// Written before the first write of the checkout; still so only if the apply died.
    Applying,
    /// Every write done: an undo snapshot.
    Applied,
    /// Rolled back by an undo (whose own journal is another snapshot).
    Undone,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Blob {
    pub checksum: String,
    pub mode: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub path: String,
    pub before: Option<Blob>,
    pub after: Option<Blob>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Journal {
    pub snapshot_id: String,
    pub plan_id: Option<String>,
    pub kind: String,
    pub root: PathBuf,
    pub state: State,
    pub created_at: String,
    /// Written first, removed last (a file's removal comes after every write).
    pub entries: Vec<Entry>,
    /// Directories the apply creates, shallowest first.
    pub created_dirs: Vec<String>,
    /// Directories the apply empties and removes, deepest first.
    pub removed_dirs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_of: Option<String>,
}

/// Where a checkout's state lives: plans, journals, blobs.
#[derive(Debug, Clone)]
pub(crate) struct Store {
    pub dir: PathBuf,
}

impl Store {
    pub fn journals(&self) -> PathBuf {
        self.dir.join("journal")
    }

    pub fn journal_path(&self, id: &str) -> PathBuf {
        self.journals().join(format!("{id}.json"))
    }

    fn blob_path(&self, sum: &str) -> PathBuf {
        let hex = sum.strip_prefix("sha256:").unwrap_or(sum);
        self.dir.join("blobs").join(hex)
    }

    /// Keeps `bytes`; their checksum names them.
    pub fn put_blob(&self, bytes: &[u8]) -> Result<String> {
        let sum = checksum(bytes);
        let path = self.blob_path(&sum);
        if fs::metadata(&path).is_err() {
            fsx::write_state(&path, bytes)?;
        }
        Ok(sum)
    }

    pub fn blob(&self, sum: &str) -> Result<Vec<u8>> {
        let path = self.blob_path(sum);
        let bytes =
            fs::read(&path).map_err(|e| Error::io("reading the kept contents", &path, e))?;
        if checksum(&bytes) != sum {
            return Err(Error::Damaged {
                path,
                message: "its contents do not match its checksum".to_owned(),
            });
        }
        Ok(bytes)
    }

    pub fn save(&self, journal: &Journal) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(journal).unwrap_or_default();
        fsx::write_state(&self.journal_path(&journal.snapshot_id), &bytes)
    }

    pub fn load(&self, id: &str) -> Result<Option<Journal>> {
        let path = self.journal_path(id);
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| Error::Damaged {
                    path,
                    message: e.to_string(),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io("reading", path, e)),
        }
    }

    /// Every journal, oldest first.
    pub fn all(&self) -> Vec<Journal> {
        let mut out: Vec<Journal> = fs::read_dir(self.journals())
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let id = name.strip_suffix(".json")?;
                self.load(id).ok().flatten()
            })
            .collect();
        out.sort_by(|a, b| (&a.created_at, &a.snapshot_id).cmp(&(&b.created_at, &b.snapshot_id)));
        out
    }

    /// Keeps the newest `keep` snapshots and the blobs they name.
    pub fn prune(&self, keep: usize) {
        let all = self.all();
        let drop = all.len().saturating_sub(keep);
        for old in all.iter().take(drop).filter(|j| j.state != State::Applying) {
            let _ = fs::remove_file(self.journal_path(&old.snapshot_id));
        }
        let live: BTreeSet<String> = self
            .all()
            .iter()
            .flat_map(|j| j.entries.iter())
            .flat_map(|e| [&e.before, &e.after])
            .flatten()
            .map(|b| b.checksum.trim_start_matches("sha256:").to_owned())
            .collect();
        for entry in fs::read_dir(self.dir.join("blobs"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if !live.contains(entry.file_name().to_string_lossy().as_ref()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// The state of a path now: its checksum and mode, or `None` if there is no file.
pub(crate) fn current(root: &Path, rel: &str) -> Option<Blob> {
    let full = root.join(rel);
    let mode = fsx::mode_of(&full)?;
    let bytes = fs::read(&full).ok()?;
    Some(Blob {
        checksum: checksum(&bytes),
        mode,
    })
}

fn same(now: &Option<Blob>, want: &Option<Blob>) -> bool {
    match (now, want) {
        (None, None) => true,
        (Some(a), Some(b)) => a.checksum == b.checksum,
        _ => false,
    }
}

/// What a rollback did.
#[derive(Debug, Default)]
pub(crate) struct Restored {
    /// Put back as they were.
    pub restored: Vec<String>,
    /// Never written by the apply, or already as before.
    pub unchanged: Vec<String>,
    /// Changed by something else since: left as they are.
    pub conflicts: Vec<String>,
}

/// Puts every entry back as it was before, if it is as the apply left it (or as before).
pub(crate) fn roll_back(
    store: &Store,
    journal: &Journal,
) -> Result<Restored, (String, std::io::Error)> {
    let root = &journal.root;
    let mut done = Restored::default();
    for dir in journal.removed_dirs.iter().rev() {
        fs::create_dir_all(root.join(dir)).map_err(|e| (dir.clone(), e))?;
    }
    for entry in &journal.entries {
        let now = current(root, &entry.path);
        if same(&now, &entry.before) {
            done.unchanged.push(entry.path.clone());
            continue;
        }
        if !same(&now, &entry.after) {
            done.conflicts.push(entry.path.clone());
            continue;
        }
        let full = root.join(&entry.path);
        match &entry.before {
            Some(blob) => {
                let bytes = store
                    .blob(&blob.checksum)
                    .map_err(|e| (entry.path.clone(), std::io::Error::other(e.to_string())))?;
                if let Some(dir) = full.parent() {
                    fs::create_dir_all(dir).map_err(|e| (entry.path.clone(), e))?;
                }
                fsx::write_atomic(&full, &bytes, blob.mode).map_err(|e| (entry.path.clone(), e))?;
            }
            None => fsx::remove_file(&full).map_err(|e| (entry.path.clone(), e))?,
        }
        done.restored.push(entry.path.clone());
    }
    for entry in &journal.entries {
        if let Some(dir) = root.join(&entry.path).parent() {
            fsx::remove_temporaries(dir);
        }
    }
    for dir in journal.created_dirs.iter().rev() {
        // Only if empty: anything else put there is not ours to remove.
        let _ = fs::remove_dir(root.join(dir));
    }
    Ok(done)
}
