use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use resolve_pr_source::{Outcome, Tree, WorkspaceChange, checksum};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What the operation that made a change says of it.
#[derive(Debug, Clone, Default)]
pub struct PlanMeta {
    /// Seed 002's `plan_type`: `RenamePlan`, `ExtractPlan`, … `DeletePlan`.
    pub plan_type: String,
    /// `rename.symbol`, `extract.function`, …
    pub kind: String,
    pub language: Option<String>,
    pub warnings: Vec<Warning>,
}

/// A warning with one of seed 002's codes (`AMBIGUOUS_TARGET`, `POTENTIAL_BEHAVIOR_CHANGE`,
/// `PARTIAL_APPLY`, `VALIDATION_SKIPPED`) or one of ours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub code: String,
    pub message: String,
}

/// How a plan's outcome was checked before it was applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    /// Whether a checker ran over the outcome and found no new errors.
    pub verified: bool,
    /// The checker, e.g. `cargo check on a scratch copy`.
    pub how: String,
    /// Errors in the outcome that the checkout had not before.
    pub new_errors: Vec<String>,
    /// How many errors the checkout had before the change.
    pub baseline_errors: usize,
    /// The checker ran out of time: calling again continues where it stopped.
    #[serde(default)]
    pub timed_out: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Modified,
    Created,
    Deleted,
    Renamed,
}

/// One file a plan changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanFile {
    pub path: String,
    pub status: FileStatus,
    /// A renamed file's former path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub added_lines: usize,
    pub removed_lines: usize,
}

/// Counts of the files a plan changes (seed 002's `summary`, plus renames).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub affected_files: usize,
    pub created_files: usize,
    pub deleted_files: usize,
    pub renamed_files: usize,
}

/// A change checked against the files as they were, ready to apply exactly as shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Derived from the plan's content: the same change on the same files has the same id.
    pub id: String,
    pub plan_type: String,
    pub plan_version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The checkout's canonical root.
    pub root: PathBuf,
    pub change: WorkspaceChange,
    /// `sha256:<hex>` of every existing file the plan reads, by relative path.
    pub file_checksums: BTreeMap<String, String>,
    /// Paths the plan creates, which must still not exist when it is applied.
    pub absent: Vec<String>,
    pub summary: Summary,
    pub files: Vec<PlanFile>,
    /// The whole unified diff (`a/` and `b/` paths, 3 lines of context).
    pub diff: String,
    pub warnings: Vec<Warning>,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
}

pub(crate) fn rel_string(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn unified(old: Option<&[u8]>, new: Option<&[u8]>, a: &str, b: &str) -> (String, usize, usize) {
    let (old_text, new_text) = (
        old.map(String::from_utf8_lossy).unwrap_or_default(),
        new.map(String::from_utf8_lossy).unwrap_or_default(),
    );
    let binary = old.is_some_and(|o| o.contains(&0)) || new.is_some_and(|n| n.contains(&0));
    if binary {
        return (format!("Binary files {a} and {b} differ\n"), 0, 0);
    }
    let diff = similar::TextDiff::from_lines(old_text.as_ref(), new_text.as_ref());
    let mut added = 0;
    let mut removed = 0;
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string();
    (text, added, removed)
}

impl Plan {
    /// A plan of `change` over `tree` (the checkout as it is), whose simulated outcome is
    /// `outcome`.
    pub(crate) fn build(
        root: &Path,
        change: WorkspaceChange,
        outcome: &Outcome,
        tree: &dyn Tree,
        meta: PlanMeta,
    ) -> Plan {
        let mut file_checksums = BTreeMap::new();
        let mut absent = Vec::new();
        let mut befores: BTreeMap<&Path, Option<Vec<u8>>> = BTreeMap::new();
        for path in outcome.files.keys() {
            let before = tree.read(path);
            match &before {
                Some(bytes) => {
                    file_checksums.insert(rel_string(path), checksum(bytes));
                }
                None => absent.push(rel_string(path)),
            }
            befores.insert(path, before);
        }
        // A renamed file is listed once, under its new path; its old path is its `from`.
        let renamed_from: BTreeMap<&Path, &Path> = outcome
            .files
            .iter()
            .filter_map(|(path, after)| {
                let origin = after.origin.as_deref()?;
                let moved = origin != path.as_path()
                    && outcome
                        .files
                        .get(origin)
                        .is_some_and(|o| o.contents.is_none());
                moved.then_some((origin, path.as_path()))
            })
            .collect();
        let mut files = Vec::new();
        let mut diff = String::new();
        let mut summary = Summary::default();
        for (path, after) in &outcome.files {
            if renamed_from.contains_key(path.as_path()) {
                continue;
            }
            let rel = rel_string(path);
            let origin = after.origin.as_deref().filter(|o| *o != path.as_path());
            let before = match origin {
                Some(o) if renamed_from.get(o) == Some(&path.as_path()) => {
                    befores.get(o).cloned().flatten().or_else(|| tree.read(o))
                }
                _ => befores.get(path.as_path()).cloned().flatten(),
            };
            let status = match (&before, &after.contents) {
                (None, None) => continue,
                (Some(_), None) => FileStatus::Deleted,
                (None, Some(_)) => FileStatus::Created,
                (Some(old), Some(new)) => {
                    if origin.is_some() {
                        FileStatus::Renamed
                    } else if old == new {
                        continue;
                    } else {
                        FileStatus::Modified
                    }
                }
            };
            let from = (status == FileStatus::Renamed).then(|| rel_string(origin.unwrap_or(path)));
            let a = match (&status, &from) {
                (FileStatus::Created, _) => "/dev/null".to_owned(),
                (_, Some(from)) => format!("a/{from}"),
                _ => format!("a/{rel}"),
            };
            let b = match status {
                FileStatus::Deleted => "/dev/null".to_owned(),
                _ => format!("b/{rel}"),
            };
            let (text, added, removed) =
                unified(before.as_deref(), after.contents.as_deref(), &a, &b);
            if status == FileStatus::Renamed && added + removed == 0 {
                diff.push_str(&format!("rename {a} → {b}\n"));
            } else {
                diff.push_str(&text);
            }
            match status {
                FileStatus::Created => summary.created_files += 1,
                FileStatus::Deleted => summary.deleted_files += 1,
                FileStatus::Renamed => summary.renamed_files += 1,
                FileStatus::Modified => {}
            }
            files.push(PlanFile {
                path: rel,
                status,
                from,
                added_lines: added,
                removed_lines: removed,
            });
        }
        summary.affected_files = files.len();
        let mut hasher = Sha256::new();
        hasher.update(root.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update(meta.kind.as_bytes());
        hasher.update([0]);
        hasher.update(serde_json::to_vec(&change).unwrap_or_default());
        hasher.update(serde_json::to_vec(&file_checksums).unwrap_or_default());
        let digest = hasher.finalize();
        let id = format!(
            "plan-{}",
            digest[..12]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
        Plan {
            id,
            plan_type: meta.plan_type,
            plan_version: "1.0".to_owned(),
            kind: meta.kind,
            language: meta.language,
            root: root.to_owned(),
            change,
            file_checksums,
            absent,
            summary,
            files,
            diff,
            warnings: meta.warnings,
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            verification: None,
        }
    }

    /// How big the change is: `low` (one file, ≤ 20 lines), `high` (> 10 files or > 500
    /// lines, or any deletion of a file), else `medium`.
    pub fn estimated_impact(&self) -> &'static str {
        let lines: usize = self
            .files
            .iter()
            .map(|f| f.added_lines + f.removed_lines)
            .sum();
        if self.files.len() > 10 || lines > 500 || self.summary.deleted_files > 0 {
            "high"
        } else if self.files.len() <= 1 && lines <= 20 {
            "low"
        } else {
            "medium"
        }
    }
}
