//! Python's `move` of a module-level function or class to another module, by rope (the
//! refactoring library under pylsp-rope, whose server does not offer a move): rope computes
//! every file's new text, imports included, and nothing is written; the texts come back as
//! a `WorkspaceChange` of line edits for the edit layer.
//!
//! The script runs isolated (`python -I`: no variables of the environment, no user site,
//! nothing of the working directory on `sys.path`, so a checkout's own `json.py` or
//! `rope.py` is never imported), from `/`, with rope's project folder off: rope would run
//! `.ropeproject/config.py`, a checkout's code.

use std::path::{Path, PathBuf};
use std::time::Duration;

use resolve_pr_source::{FileChange, WorkspaceChange};
use serde_json::Value;

const SCRIPT: &str = include_str!("python/rope_move.py");

/// The interpreter rope is installed for: pylsp's own (pipx keeps rope beside it), else
/// `python3`.
pub fn rope_python() -> Option<PathBuf> {
    let from_pylsp = crate::verify::find_program("pylsp").and_then(|pylsp| {
        let text = std::fs::read(&pylsp).ok()?;
        let first = text.split(|b| *b == b'\n').next()?;
        let line = std::str::from_utf8(first).ok()?.strip_prefix("#!")?.trim();
        let python = PathBuf::from(line.split_whitespace().next()?);
        python.is_file().then_some(python)
    });
    from_pylsp.or_else(|| crate::verify::find_program("python3"))
}

/// Whether rope can be imported by [`rope_python`].
pub async fn rope_installed() -> bool {
    let Some(python) = rope_python() else {
        return false;
    };
    tokio::process::Command::new(python)
        .args(["-I", "-c", "import rope"])
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .await
        .is_ok_and(|s| s.success())
}

/// Why a move was not planned: rope is missing, or it refused (its message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    NotInstalled(String),
    Refused(String),
    Failed(String),
}

/// rope's move of the global named at `offset` (in characters) of `file` into `dest`
/// (both relative to `root`; `dest` must exist): the change and rope's description.
pub async fn rope_move(
    root: &Path,
    file: &Path,
    offset: usize,
    dest: &Path,
    timeout: Duration,
) -> Result<(WorkspaceChange, String), MoveError> {
    let python = rope_python().ok_or_else(|| {
        MoveError::NotInstalled("no Python interpreter with rope (pip install rope)".to_owned())
    })?;
    let mut command = tokio::process::Command::new(&python);
    command
        .arg("-I")
        .arg("-c")
        .arg(SCRIPT)
        .arg(root)
        .arg(file)
        .arg(offset.to_string())
        .arg(dest)
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(timeout, command.output())
        .await
        .map_err(|_| MoveError::Failed(format!("rope did not finish within {timeout:?}")))?
        .map_err(|e| MoveError::Failed(format!("{}: {e}", python.display())))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("No module named 'rope'") {
        return Err(MoveError::NotInstalled(format!(
            "rope is not installed for {} (pip install rope)",
            python.display()
        )));
    }
    let answer: Value = serde_json::from_slice(&output.stdout).map_err(|_| {
        MoveError::Failed(format!(
            "rope said no JSON: {}",
            stderr.lines().last().unwrap_or_default()
        ))
    })?;
    if let Some(error) = answer["error"].as_str() {
        return Err(MoveError::Refused(error.to_owned()));
    }
    let mut changes = Vec::new();
    for item in answer["changes"].as_array().into_iter().flatten() {
        let path = |key: &str| PathBuf::from(item[key].as_str().unwrap_or_default());
        match item["kind"].as_str() {
            Some("edit") => {
                let rel = path("path");
                let old = std::fs::read_to_string(root.join(&rel))
                    .map_err(|e| MoveError::Failed(format!("{}: {e}", rel.display())))?;
                let new = item["contents"].as_str().unwrap_or_default();
                let edits = crate::imports::line_edits(&old, new);
                if !edits.is_empty() {
                    changes.push(FileChange::Edit { path: rel, edits });
                }
            }
            Some("create") => changes.push(FileChange::Create {
                path: path("path"),
                contents: String::new(),
                overwrite: false,
                ignore_if_exists: false,
            }),
            Some("rename") => changes.push(FileChange::Rename {
                from: path("from"),
                to: path("to"),
                overwrite: false,
                ignore_if_exists: false,
            }),
            Some("delete") => changes.push(FileChange::Delete {
                path: path("path"),
                recursive: false,
                ignore_if_not_exists: false,
            }),
            other => {
                return Err(MoveError::Failed(format!(
                    "rope made a change of an unknown kind: {other:?}"
                )));
            }
        }
    }
    let description = answer["description"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    Ok((WorkspaceChange { changes }, description))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rope moves a function into another module and rewrites the import of its caller;
    /// nothing on disk changes. Skipped (and said) where rope is not installed, unless
    /// RESOLVE_PR_REQUIRE_LSP names python.
    #[tokio::test]
    async fn rope_moves_a_function_and_its_imports_without_writing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("util.py"), "def helper(x):\n    return x + 1\n").unwrap();
        std::fs::write(root.join("other.py"), "VALUE = 1\n").unwrap();
        std::fs::write(
            root.join("main.py"),
            "from util import helper\n\nprint(helper(2))\n",
        )
        .unwrap();
        let moved = rope_move(
            &root,
            Path::new("util.py"),
            4,
            Path::new("other.py"),
            Duration::from_secs(120),
        )
        .await;
        let required = std::env::var("RESOLVE_PR_REQUIRE_LSP")
            .is_ok_and(|v| v.split(',').any(|l| l == "python"));
        let (change, description) = match moved {
            Err(MoveError::NotInstalled(why)) if !required => {
                eprintln!("skipped: {why}");
                return;
            }
            other => other.unwrap(),
        };
        assert!(description.contains("helper"), "{description}");
        let text = |p: &str| {
            let old = std::fs::read_to_string(root.join(p)).unwrap();
            let edits = change
                .changes
                .iter()
                .find_map(|c| match c {
                    FileChange::Edit { path, edits } if path == Path::new(p) => Some(edits.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            resolve_pr_source::apply_edits(&old, &edits).unwrap()
        };
        assert!(
            text("other.py").contains("def helper(x):"),
            "{}",
            text("other.py")
        );
        // rope's own import style: `import other` and `other.helper(2)`.
        let main = text("main.py");
        assert!(
            main.contains("import other") && !main.contains("util"),
            "{main}"
        );
        assert!(!text("util.py").contains("helper"));
        assert_eq!(
            std::fs::read_to_string(root.join("util.py")).unwrap(),
            "def helper(x):\n    return x + 1\n"
        );
        assert!(!root.join(".ropeproject").exists());
        // A name that is not a global: rope's refusal, as it said it.
        let refused = rope_move(
            &root,
            Path::new("main.py"),
            0,
            Path::new("other.py"),
            Duration::from_secs(120),
        )
        .await
        .unwrap_err();
        assert!(matches!(refused, MoveError::Refused(_)), "{refused:?}");
    }
}
