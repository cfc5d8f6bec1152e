//! The key pagination cursors are signed with. A cursor must still verify in the next
//! `resolve-pr tool` invocation and after a server restart, so the key is stable: taken from
//! `RESOLVE_PR_CURSOR_KEY`, else from a file created once, else (no writable place) random for
//! this process only, with a warning.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const KEY_LEN: usize = 32;

/// Where the key came from, for the one warning and for tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Environment,
    File(PathBuf),
    /// Cursors will not survive this process.
    Ephemeral {
        reason: String,
    },
}

/// The cursor key for this process. Never fails: the worst case is a key that lives as long
/// as the process, which only costs cursors across restarts.
pub fn load(var: &dyn Fn(&str) -> Option<String>) -> ([u8; KEY_LEN], KeySource) {
    if let Some(secret) = var("RESOLVE_PR_CURSOR_KEY").filter(|s| !s.is_empty()) {
        return (
            Sha256::digest(secret.as_bytes()).into(),
            KeySource::Environment,
        );
    }
    let reason = match key_path(var) {
        None => "neither XDG_STATE_HOME nor HOME is set".to_owned(),
        Some(path) => match from_file(&path) {
            Ok(key) => return (key, KeySource::File(path)),
            Err(e) => format!("cannot use {}: {e}", path.display()),
        },
    };
    (ephemeral_key(), KeySource::Ephemeral { reason })
}

/// `$XDG_STATE_HOME/resolve-pr/cursor.key`, else `~/.local/state/resolve-pr/cursor.key`.
/// The XDG spec says a relative `XDG_STATE_HOME` is invalid and must be ignored.
pub fn key_path(var: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let state = match var("XDG_STATE_HOME").filter(|p| Path::new(p).is_absolute()) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(&var("HOME").filter(|h| !h.is_empty())?).join(".local/state"),
    };
    Some(state.join("resolve-pr").join("cursor.key"))
}

/// Reads the key file, creating it on first use. The new key is written to a private
/// temporary file and hard-linked into place, so a concurrent reader never sees a half-written
/// key and two processes racing to create it agree on the one that won.
fn from_file(path: &Path) -> io::Result<[u8; KEY_LEN]> {
    match fs::read(path) {
        Ok(bytes) => match <[u8; KEY_LEN]>::try_from(bytes.as_slice()) {
            Ok(key) => return Ok(key),
            Err(_) => {
                // Not a key we wrote (truncated, edited): cursors signed with it cannot exist,
                // so replacing it loses nothing.
                tracing::warn!(path = %path.display(), "the cursor key file is not {KEY_LEN} bytes; replacing it");
                fs::remove_file(path)?;
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("the key path has no directory"))?;
    create_private_dir(dir)?;
    let key = random_key()?;
    let tmp = dir.join(format!(".cursor.key.{}.tmp", std::process::id()));
    write_private(&tmp, &key)?;
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(key),
        // Another process created it first: use theirs.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let bytes = fs::read(path)?;
            <[u8; KEY_LEN]>::try_from(bytes.as_slice()).map_err(|_| {
                io::Error::other("another process wrote a cursor key of the wrong length")
            })
        }
        Err(e) => Err(e),
    }
}

fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

fn write_private(path: &Path, key: &[u8]) -> io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(key)?;
    file.sync_all()
}

fn random_key() -> io::Result<[u8; KEY_LEN]> {
    let mut key = [0u8; KEY_LEN];
    getrandom::fill(&mut key)
        .map_err(|e| io::Error::other(format!("no system randomness: {e}")))?;
    Ok(key)
}

/// A key for this process only. Should the system have no randomness at all, a hash of the
/// time and process id still keeps cursors from one process apart from another's.
fn ephemeral_key() -> [u8; KEY_LEN] {
    random_key().unwrap_or_else(|_| {
        let mut h = Sha256::new();
        h.update(format!(
            "{:?}{}",
            std::time::SystemTime::now(),
            std::process::id()
        ));
        h.finalize().into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: Vec<(&'static str, String)>) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn environment_key_is_hashed() {
        let (key, source) = load(&env(vec![("RESOLVE_PR_CURSOR_KEY", "s3cret".into())]));
        assert_eq!(source, KeySource::Environment);
        assert_eq!(key, <[u8; 32]>::from(Sha256::digest(b"s3cret")));
    }

    #[test]
    fn file_key_is_created_private_once_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let vars = env(vec![("XDG_STATE_HOME", dir.path().display().to_string())]);
        let (first, source) = load(&vars);
        let path = dir.path().join("resolve-pr/cursor.key");
        assert_eq!(source, KeySource::File(path.clone()));
        let (second, _) = load(&vars);
        assert_eq!(first, second);
        assert_eq!(fs::read(&path).unwrap(), first);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn home_is_the_fallback_and_relative_xdg_is_ignored() {
        let vars = env(vec![
            ("XDG_STATE_HOME", "relative".into()),
            ("HOME", "/home/u".into()),
        ]);
        assert_eq!(
            key_path(&vars),
            Some(PathBuf::from("/home/u/.local/state/resolve-pr/cursor.key"))
        );
        assert_eq!(key_path(&env(vec![])), None);
    }

    #[test]
    fn a_corrupt_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("resolve-pr/cursor.key");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, b"short").unwrap();
        let (key, _) = load(&env(vec![(
            "XDG_STATE_HOME",
            dir.path().display().to_string(),
        )]));
        assert_eq!(fs::read(&path).unwrap(), key);
    }

    #[cfg(unix)]
    #[test]
    fn an_unwritable_place_gives_a_per_process_key() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the directory should be: creating it fails even for root.
        fs::write(dir.path().join("resolve-pr"), b"").unwrap();
        let (_, source) = load(&env(vec![(
            "XDG_STATE_HOME",
            dir.path().display().to_string(),
        )]));
        assert!(matches!(source, KeySource::Ephemeral { .. }), "{source:?}");
    }
}
