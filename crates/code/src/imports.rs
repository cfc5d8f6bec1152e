//! Imports removed or sorted by the tools their languages trust, as edits (data; nothing
//! is written here):
//!
//! - Rust, unused imports: rustc's own machine-applicable suggestions for `unused_imports`
//!   from `cargo check --message-format=json` (what `cargo fix` applies), in byte offsets.
//! - Python, unused imports (F401) and sorting (I001): ruff, fed each file on stdin, its
//!   fixed text read back; the difference becomes line edits.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use resolve_pr_source::{FileChange, TextEdit, TextRange, WorkspaceChange};
use serde_json::Value;

/// What a fixer changed, and what it found but could not change.
#[derive(Debug, Clone, Default)]
pub struct Fixes {
    pub change: WorkspaceChange,
    /// How many findings the edits fix.
    pub fixed: usize,
    /// The tool that made the edits, e.g. `ruff 0.14.0 (F401)`.
    pub by: String,
}

/// The edits that turn `old` into `new`, a run of changed lines each.
pub fn line_edits(old: &str, new: &str) -> Vec<TextEdit> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut edits = Vec::new();
    let old_starts: Vec<usize> = std::iter::once(0)
        .chain(old.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |line: usize| {
        old_starts
            .get(line)
            .copied()
            .unwrap_or(old.len())
            .min(old.len())
    };
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        let replacement: String = diff.new_slices()[new_range].concat();
        edits.push(TextEdit::replace(
            TextRange::new(offset(old_range.start), offset(old_range.end)),
            replacement,
        ));
    }
    edits
}

async fn run(
    program: &Path,
    args: &[&str],
    dir: &Path,
    stdin: Option<&str>,
    timeout: Duration,
) -> Result<(String, String, bool), String> {
    use tokio::io::AsyncWriteExt as _;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        })
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{} could not run: {e}", program.display()))?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let text = text.to_owned();
        tokio::spawn(async move {
            let _ = pipe.write_all(text.as_bytes()).await;
        });
    }
    match tokio::time::timeout(timeout, child.wait_with_output()).await {
        Ok(Ok(out)) => Ok((
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.success(),
        )),
        Ok(Err(e)) => Err(format!("{} failed: {e}", program.display())),
        Err(_) => Err(format!(
            "{} did not finish within {} s",
            program.display(),
            timeout.as_secs()
        )),
    }
}

/// `ruff`, where the code tools find programs (`RESOLVE_PR_LSP_PATH`, then `PATH`).
pub fn ruff() -> Option<PathBuf> {
    crate::verify::find_program("ruff")
}

/// ruff's fixes of `rule` (`F401` unused imports, `I001` import order) in `files`
/// (relative to `root`).
pub async fn ruff_fixes(
    root: &Path,
    files: &[PathBuf],
    rule: &str,
    timeout: Duration,
) -> Result<Fixes, String> {
    let ruff = ruff().ok_or("ruff is not installed (pip install ruff)")?;
    let (version, _, _) = run(&ruff, &["--version"], root, None, timeout).await?;
    let mut fixes = Fixes {
        by: format!("{} ({rule})", version.trim()),
        ..Fixes::default()
    };
    for file in files {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        let name = file.to_string_lossy();
        let args = [
            "check",
            "--select",
            rule,
            "--fix-only",
            "--exit-zero",
            "--no-cache",
            "--stdin-filename",
            &name,
            "-",
        ];
        let (fixed, stderr, ok) = run(&ruff, &args, root, Some(&text), timeout).await?;
        if !ok {
            return Err(format!(
                "ruff failed on {name}: {}",
                stderr.lines().next().unwrap_or_default()
            ));
        }
        if fixed == text || fixed.is_empty() {
            continue;
        }
        // "Fixed 3 errors."
        fixes.fixed += stderr
            .split_whitespace()
            .skip_while(|w| *w != "Fixed")
            .nth(1)
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(1);
        fixes.change.changes.push(FileChange::Edit {
            path: file.clone(),
            edits: line_edits(&text, &fixed),
        });
    }
    Ok(fixes)
}

/// A byte range and its replacement, as rustc suggests it.
type Replacement = (usize, usize, String);

/// rustc's suggestions for its `unused_imports` lint across the workspace at `root` (every
/// target, so an import used only by tests is not removed), limited to `only` when given.
pub async fn rust_unused_imports(
    root: &Path,
    only: Option<&[PathBuf]>,
    timeout: Duration,
) -> Result<Fixes, String> {
    let cargo = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .or_else(|| crate::verify::find_program("cargo"))
        .ok_or("cargo is not installed")?;
    let args = [
        "check",
        "--workspace",
        "--all-targets",
        "--keep-going",
        "--message-format=json",
        "--quiet",
    ];
    let (out, stderr, _) = run(&cargo, &args, root, None, timeout).await?;
    if out.trim().is_empty() {
        return Err(format!(
            "cargo check said nothing: {}",
            stderr.lines().next().unwrap_or_default()
        ));
    }
    // A diagnostic's suggestion is one set of edits; the same set comes once per target.
    let mut sets: BTreeSet<(PathBuf, Vec<Replacement>)> = BTreeSet::new();
    for line in out.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let message = &v["message"];
        if v["reason"] != "compiler-message" || message["code"]["code"] != "unused_imports" {
            continue;
        }
        let mut file = None;
        let mut set = Vec::new();
        for child in message["children"].as_array().into_iter().flatten() {
            for span in child["spans"].as_array().into_iter().flatten() {
                if span["suggestion_applicability"] != "MachineApplicable" {
                    continue;
                }
                let (Some(start), Some(end), Some(name)) = (
                    span["byte_start"].as_u64(),
                    span["byte_end"].as_u64(),
                    span["file_name"].as_str(),
                ) else {
                    continue;
                };
                file = Some(PathBuf::from(name));
                set.push((
                    start as usize,
                    end as usize,
                    span["suggested_replacement"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                ));
            }
        }
        if let Some(file) = file
            && !set.is_empty()
            && only.is_none_or(|o| o.contains(&file))
            && !file.is_absolute()
        {
            set.sort();
            sets.insert((file, set));
        }
    }
    let mut by_file: BTreeMap<PathBuf, Vec<Replacement>> = BTreeMap::new();
    let mut fixed = 0;
    for (file, set) in sets {
        let edits = by_file.entry(file).or_default();
        // Two targets may suggest overlapping removals; the first set taken wins.
        let overlaps = set.iter().any(|(s, e, _)| {
            edits
                .iter()
                .any(|(s2, e2, _)| s < e2 && s2 < e || (s == s2 && e == e2))
        });
        if !overlaps {
            edits.extend(set);
            fixed += 1;
        }
    }
    let changes = by_file
        .into_iter()
        .map(|(path, edits)| FileChange::Edit {
            path,
            edits: edits
                .into_iter()
                .map(|(s, e, t)| TextEdit::replace(TextRange::new(s, e), t))
                .collect(),
        })
        .collect();
    Ok(Fixes {
        change: WorkspaceChange { changes },
        fixed,
        by: "rustc's unused_imports suggestions (cargo check)".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_source::apply_edits;

    #[test]
    fn line_edits_turn_one_text_into_the_other() {
        for (old, new) in [
            ("a\nb\nc\n", "a\nc\n"),
            ("a\nb\nc", "x\nb\ny"),
            ("", "new\n"),
            ("gone\n", ""),
            ("import os\nimport sys\n\nx = 1\n", "import sys\n\nx = 1\n"),
        ] {
            assert_eq!(
                apply_edits(old, &line_edits(old, new)).unwrap(),
                new,
                "{old:?} → {new:?}"
            );
        }
    }

    #[tokio::test]
    async fn rustc_suggestions_remove_exactly_the_unused_imports() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"u\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        let text = "use std::collections::{BTreeMap, HashMap};\nuse std::fmt;\n\nfn main() {\n    let _m: HashMap<u8, u8> = HashMap::new();\n}\n\n#[cfg(test)]\nmod tests {\n    use std::fmt::Write;\n}\n";
        std::fs::write(root.join("src/main.rs"), text).unwrap();
        let fixes = rust_unused_imports(root, None, Duration::from_secs(300))
            .await
            .unwrap();
        assert_eq!(fixes.fixed, 3, "{fixes:?}");
        let FileChange::Edit { edits, .. } = &fixes.change.changes[0] else {
            panic!()
        };
        let after = apply_edits(text, edits).unwrap();
        assert_eq!(
            after,
            "use std::collections::HashMap;\n\nfn main() {\n    let _m: HashMap<u8, u8> = HashMap::new();\n}\n\n#[cfg(test)]\nmod tests {\n    \n}\n",
            "as cargo fix leaves it"
        );
    }

    #[tokio::test]
    async fn ruff_removes_unused_imports_and_sorts_them() {
        if ruff().is_none() {
            assert!(
                std::env::var("RESOLVE_PR_LSP_PATH").is_err(),
                "ruff is installed with the language servers (tests/lsp/requirements.txt)"
            );
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let text = "import sys\nimport os, json\nfrom typing import List, Dict\n\nprint(sys.argv, Dict, json)\n";
        std::fs::write(dir.path().join("a.py"), text).unwrap();
        let files = [PathBuf::from("a.py")];
        let unused = ruff_fixes(dir.path(), &files, "F401", Duration::from_secs(60))
            .await
            .unwrap();
        assert_eq!(unused.fixed, 2, "{unused:?}");
        assert!(unused.by.starts_with("ruff 0."), "{}", unused.by);
        let FileChange::Edit { edits, .. } = &unused.change.changes[0] else {
            panic!()
        };
        let after = apply_edits(text, edits).unwrap();
        assert_eq!(
            after,
            "import sys\nimport json\nfrom typing import Dict\n\nprint(sys.argv, Dict, json)\n"
        );
        let sorted = ruff_fixes(dir.path(), &files, "I001", Duration::from_secs(60))
            .await
            .unwrap();
        let FileChange::Edit { edits, .. } = &sorted.change.changes[0] else {
            panic!()
        };
        assert!(
            apply_edits(text, edits)
                .unwrap()
                .starts_with("import json\nimport os\nimport sys\n")
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            text,
            "nothing written"
        );
    }
}

/// The runs of top-level `use` declarations of a Rust file (a blank line, a comment or any
/// other item ends one), as byte ranges from the start of the first's line to the end of the
/// last's.
fn rust_use_groups(text: &str) -> Vec<(usize, usize)> {
    let Ok(tree) = resolve_pr_syntax::parse_tree(resolve_pr_syntax::Dialect::Rust, text) else {
        return Vec::new();
    };
    let root = tree.root_node();
    let mut cursor = root.walk();
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut open = false;
    for node in root.children(&mut cursor) {
        if node.kind() != "use_declaration" {
            open = false;
            continue;
        }
        let start = text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
        let end = text[node.end_byte()..]
            .find('\n')
            .map_or(text.len(), |i| node.end_byte() + i + 1);
        match groups.last_mut() {
            Some(last) if open && text[last.1..start].trim().is_empty() && last.1 == start => {
                last.1 = end;
            }
            _ => groups.push((start, end)),
        }
        open = true;
    }
    groups
}

/// A Rust file's imports sorted by rustfmt (the order `cargo fmt` gives, the checkout's
/// rustfmt.toml honoured), each run of `use` declarations formatted alone: nothing else in
/// the file changes.
pub async fn rust_sorted_imports(
    root: &Path,
    file: &Path,
    timeout: Duration,
) -> Result<Fixes, String> {
    let rustfmt = crate::verify::find_program("rustfmt")
        .ok_or("rustfmt is not installed (rustup component add rustfmt)")?;
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", file.display()))?;
    let dir = path.parent().unwrap_or(root);
    let mut edits = Vec::new();
    for (start, end) in rust_use_groups(&text) {
        let group = &text[start..end];
        let (out, err, ok) = run(
            &rustfmt,
            &["--edition", "2021", "--emit", "stdout"],
            dir,
            Some(group),
            timeout,
        )
        .await?;
        if !ok {
            return Err(format!(
                "rustfmt: {}",
                err.lines().next().unwrap_or_default()
            ));
        }
        if out != group {
            edits.push(resolve_pr_source::TextEdit::replace(
                resolve_pr_source::TextRange::new(start, end),
                out,
            ));
        }
    }
    let fixed = edits.len();
    let change = if edits.is_empty() {
        WorkspaceChange::default()
    } else {
        WorkspaceChange {
            changes: vec![resolve_pr_source::FileChange::Edit {
                path: file.to_owned(),
                edits,
            }],
        }
    };
    Ok(Fixes {
        change,
        fixed,
        by: "rustfmt, on the file's use declarations only".to_owned(),
    })
}

#[cfg(test)]
mod rust_import_tests {
    use super::*;

    #[test]
    fn runs_of_use_declarations_are_the_groups() {
        let text = "//! Doc.\nuse b::X;\nuse a::{d, c};\n\nuse z::Y;\n// note\nuse y::W;\nfn f() {}\nuse late::L;\n";
        let groups: Vec<&str> = rust_use_groups(text)
            .iter()
            .map(|&(s, e)| &text[s..e])
            .collect();
        assert_eq!(
            groups,
            vec![
                "use b::X;\nuse a::{d, c};\n",
                "use z::Y;\n",
                "use y::W;\n",
                "use late::L;\n"
            ]
        );
    }

    #[tokio::test]
    async fn rustfmt_sorts_each_group_and_nothing_else() {
        if crate::verify::find_program("rustfmt").is_none() {
            eprintln!("skipped: rustfmt is not installed");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let text = "use std::fmt;\nuse crate::b::{Zed, Alpha};\nuse std::collections::HashMap;\n\nfn   keep_me( ) {}\n";
        std::fs::write(dir.path().join("lib.rs"), text).unwrap();
        let fixes = rust_sorted_imports(dir.path(), Path::new("lib.rs"), Duration::from_secs(60))
            .await
            .unwrap();
        let resolve_pr_source::FileChange::Edit { edits, .. } = &fixes.change.changes[0] else {
            panic!()
        };
        let after = resolve_pr_source::apply_edits(text, edits).unwrap();
        assert_eq!(
            after,
            "use crate::b::{Alpha, Zed};\nuse std::collections::HashMap;\nuse std::fmt;\n\nfn   keep_me( ) {}\n"
        );
    }
}
