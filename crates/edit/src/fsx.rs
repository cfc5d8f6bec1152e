//! The file-system steps, each durable before it returns: writes go to a temporary file
//! beside the target, synced, renamed over it, and the directory synced.

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path, PathBuf};

use resolve_pr_source::Tree;

use crate::{Error, Result};

/// Temporary files of an unfinished write start with this; recovery removes them.
pub(crate) const TEMP_PREFIX: &str = ".resolve-pr-";
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// The mode of a file that did not exist before (its directory's umask is not consulted).
pub(crate) const NEW_FILE_MODE: u32 = 0o644;

/// Refuses a path that leaves the root or passes through a symbolic link.
pub(crate) fn check_inside(root: &Path, rel: &Path) -> Result<()> {
    let shown = rel.display().to_string();
    if rel.as_os_str().is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(Error::Outside {
            path: shown,
            root: root.to_owned(),
        });
    }
    let mut at = root.to_owned();
    for part in rel.components() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Error::Symlink { path: shown });
            }
            Ok(_) => {}
            // Nothing further exists, so nothing further is a link.
            Err(_) => break,
        }
    }
    Ok(())
}

/// The checkout on disk, as [`Tree`] reads it: regular files only, no link followed.
pub(crate) struct Disk<'a> {
    pub root: &'a Path,
}

impl Tree for Disk<'_> {
    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        let full = self.root.join(path);
        let meta = fs::symlink_metadata(&full).ok()?;
        if !meta.is_file() {
            return None;
        }
        fs::read(full).ok()
    }

    fn files_under(&self, dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_owned()];
        while let Some(rel) = stack.pop() {
            let Ok(entries) = fs::read_dir(self.root.join(&rel)) else {
                continue;
            };
            for entry in entries.flatten() {
                let child = rel.join(entry.file_name());
                match entry.file_type() {
                    Ok(t) if t.is_dir() => stack.push(child),
                    // Links are listed so that the path check refuses them.
                    Ok(_) => out.push(child),
                    Err(_) => {}
                }
            }
        }
        out.sort();
        out
    }
}

pub(crate) fn mode_of(path: &Path) -> Option<u32> {
    fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.permissions().mode() & 0o7777)
}

pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// Writes `bytes` with `mode` to `path` atomically and durably.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file()
        .set_permissions(fs::Permissions::from_mode(mode))?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

pub(crate) fn remove_file(path: &Path) -> std::io::Result<()> {
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Writes a state file (JSON) atomically and durably, creating its directory.
pub(crate) fn write_state(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io("creating", dir, e))?;
    write_atomic(path, bytes, 0o600).map_err(|e| Error::io("writing", path, e))
}

/// Leftover temporary files of writes that never finished, in `dir`.
pub(crate) fn remove_temporaries(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX) {
            let _ = fs::remove_file(entry.path());
        }
    }
}
