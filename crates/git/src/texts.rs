//! The texts of a merge's conflicted files: the merged file git wrote and each side's own
//! file (stages 1-3), read with one `git cat-file --batch` per merge, and the conflict
//! regions read from them with each side's line numbers. A file whose sides hold a line
//! that reads like a conflict marker (a heading underlined with `=======`) is merged again
//! on its own with markers longer than any such line, so no content line is ever taken for a
//! marker.

use crate::error::{Error, Result};
use crate::hunks::{self, Hunks, Limits, MARKER_SIZE, SideFiles};
use crate::merge::{ConflictKind, ConflictedFile, Merge};
use crate::runner::Version;

/// `git merge-file --diff-algorithm` came in git 2.44.
const MERGE_FILE_DIFF_ALGORITHM: Version = Version {
    major: 2,
    minor: 44,
    patch: 0,
};

/// The diff merge-ort uses for content merges (its default since git 2.34), so a file merged
/// again alone gets git's regions.
const MERGE_ORT_DIFF: &str = "--diff-algorithm=histogram";

/// A conflicted file's texts and regions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictText {
    pub path: String,
    /// The regions, cut to the limits; `None` when the merged tree has no text at the path
    /// (a deletion, a submodule).
    pub hunks: Option<Hunks>,
    /// Each stage's contents, where the stage is a blob.
    pub base: Option<Vec<u8>>,
    pub ours: Option<Vec<u8>>,
    pub theirs: Option<Vec<u8>>,
}

impl Merge {
    /// Every conflicted file's texts and regions (in the order of
    /// [`crate::MergeOutcome::conflicts`]), each side numbered in its own file, within `limits`
    /// per file.
    pub fn conflict_texts(&self, limits: Limits) -> Result<Vec<ConflictText>> {
        let files: Vec<&ConflictedFile> = self.outcome.conflicts.iter().collect();
        self.texts_of(&files, limits)
    }

    /// The conflict regions of one conflicted file (see [`Merge::conflict_texts`]); `None`
    /// when the merged tree has no text there to read (a deleted file, a submodule).
    pub fn conflict_hunks(&self, path: &str, limits: Limits) -> Result<Option<Hunks>> {
        let file = self
            .outcome
            .conflicts
            .iter()
            .find(|f| f.path == path)
            .ok_or_else(|| Error::NotConflicted {
                path: path.to_string(),
            })?;
        let mut texts = self.texts_of(&[file], limits)?;
        Ok(texts.pop().and_then(|t| t.hunks))
    }

    fn texts_of(&self, files: &[&ConflictedFile], limits: Limits) -> Result<Vec<ConflictText>> {
        // One name per line: `<tree>:<path>` for the merged file, then the stages' ids. A
        // path with a line break cannot be a line of the batch: read alone.
        let mut names: Vec<String> = Vec::new();
        for file in files {
            if file.kind == ConflictKind::Submodule {
                continue;
            }
            if !file.path.contains('\n') {
                names.push(self.merged_name(&file.path));
            }
            for stage in [&file.base, &file.ours, &file.theirs].into_iter().flatten() {
                if stage.mode != "160000" {
                    names.push(stage.oid.clone());
                }
            }
        }
        names.sort();
        names.dedup();
        let objects = self.read_blobs(&names)?;
        let blob = |name: &str| -> Option<Vec<u8>> {
            names
                .binary_search_by(|n| n.as_str().cmp(name))
                .ok()
                .and_then(|i| objects[i].clone())
        };
        let mut texts = Vec::with_capacity(files.len());
        for file in files {
            if file.kind == ConflictKind::Submodule {
                texts.push(ConflictText {
                    path: file.path.clone(),
                    hunks: None,
                    base: None,
                    ours: None,
                    theirs: None,
                });
                continue;
            }
            let stage = |s: &Option<crate::merge::Stage>| s.as_ref().and_then(|s| blob(&s.oid));
            let (base, ours, theirs) = (stage(&file.base), stage(&file.ours), stage(&file.theirs));
            let merged = if file.path.contains('\n') {
                self.read_alone(&file.path)?
            } else {
                blob(&self.merged_name(&file.path))
            };
            let hunks = match merged {
                None => None,
                Some(merged) => {
                    let sides = SideFiles {
                        ours: ours.as_deref(),
                        base: base.as_deref(),
                        theirs: theirs.as_deref(),
                    };
                    let longest = [&base, &ours, &theirs]
                        .into_iter()
                        .flatten()
                        .filter_map(|b| hunks::marker_like_run(b))
                        .max();
                    let again = match longest {
                        Some(run) => self.merge_file_alone(file, run + 1)?,
                        None => None,
                    };
                    Some(match again {
                        Some((text, size)) => hunks::hunks(&text, size, sides, limits),
                        None => hunks::hunks(&merged, MARKER_SIZE, sides, limits),
                    })
                }
            };
            texts.push(ConflictText {
                path: file.path.clone(),
                hunks,
                base,
                ours,
                theirs,
            });
        }
        Ok(texts)
    }

    /// `<tree>:<path>`: the tree's object id comes first, so it never reads as an option.
    fn merged_name(&self, path: &str) -> String {
        format!("{}:{}", self.outcome.tree, path)
    }

    /// The blobs `names` name, in their order (`None`: missing, or not a blob), read by one
    /// `git cat-file --batch` from the scratch store and the repository's.
    fn read_blobs(&self, names: &[String]) -> Result<Vec<Option<Vec<u8>>>> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut input = names.join("\n").into_bytes();
        input.push(b'\n');
        let args = ["cat-file", "--batch"];
        let output =
            self.repo
                .run_in_scratch(self.scratch_dir(), &args, &[], Some(&input), &[0])?;
        parse_batch(&output.stdout, names.len()).map_err(|what| Error::UnexpectedOutput {
            command: args.join(" "),
            what,
        })
    }

    /// The merged file at a path `cat-file --batch` cannot be given.
    fn read_alone(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let spec = self.merged_name(path);
        let output = self.repo.run_in_scratch(
            self.scratch_dir(),
            &["cat-file", "blob", &spec],
            &[],
            None,
            &[0, 128],
        )?;
        Ok(output.status.success().then_some(output.stdout))
    }

    /// The file's content merge made again alone with `marker_size` markers, as merge-ort
    /// makes it (zdiff3, histogram diff; `merge-file` reads no attribute and no setting
    /// these options leave open): the merged text and its marker size. `None` when git is
    /// too old to choose the diff (the regions are then read from git's own file), a side is
    /// not a blob, or merge-tree did not merge the contents as text (binary contents, or the
    /// merge's attributes say `binary` or `-merge`): its file is then the target's, which
    /// holds no region to read.
    fn merge_file_alone(
        &self,
        file: &ConflictedFile,
        marker_size: usize,
    ) -> Result<Option<(Vec<u8>, usize)>> {
        if self.repo.git().version() < MERGE_FILE_DIFF_ALGORITHM
            || file.kind == ConflictKind::Binary
        {
            return Ok(None);
        }
        let (Some(ours), Some(theirs)) = (&file.ours, &file.theirs) else {
            return Ok(None);
        };
        // Both sides added the file: merge-ort merges them over an empty base.
        let empty_blob = if ours.oid.len() == 64 {
            "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
        } else {
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        };
        let base = file.base.as_ref().map_or(empty_blob, |b| b.oid.as_str());
        let size = format!("--marker-size={marker_size}");
        let args = [
            "merge-file",
            "-p",
            "--zdiff3",
            "--object-id",
            &size,
            MERGE_ORT_DIFF,
            "-L",
            "ours",
            "-L",
            "base",
            "-L",
            "theirs",
            "--",
            &ours.oid,
            base,
            &theirs.oid,
        ];
        // The exit status is the number of conflicts (at most 127); above is an error.
        let ok: Vec<i32> = (0..=127).collect();
        let output = self
            .repo
            .run_in_scratch(self.scratch_dir(), &args, &[], None, &ok)?;
        Ok(Some((output.stdout, marker_size)))
    }
}

/// `cat-file --batch` output for `count` names: `<oid> <type> <size>\n<contents>\n` each,
/// or `<name> missing\n` (`ambiguous`, ...).
fn parse_batch(mut out: &[u8], count: usize) -> std::result::Result<Vec<Option<Vec<u8>>>, String> {
    let mut objects = Vec::with_capacity(count);
    for _ in 0..count {
        let end = out
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("output ends inside a header")?;
        let header = String::from_utf8_lossy(&out[..end]).into_owned();
        out = &out[end + 1..];
        let mut fields = header.rsplitn(3, ' ');
        let (Some(size), Some(kind), Some(_oid)) = (fields.next(), fields.next(), fields.next())
        else {
            // `<name> missing`: the name may hold spaces, the header has two fields or more.
            objects.push(None);
            continue;
        };
        let Ok(size) = size.parse::<usize>() else {
            objects.push(None);
            continue;
        };
        if out.len() < size + 1 {
            return Err(format!("{header:?}: the output ends inside the object"));
        }
        let contents = &out[..size];
        out = &out[size + 1..];
        objects.push((kind == "blob").then(|| contents.to_vec()));
    }
    Ok(objects)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_output_with_missing_names_and_other_types() {
        let out = b"aaaa blob 3\nab\n\n\
            x:a b missing\n\
            bbbb tree 2\nxy\n\
            cccc blob 0\n\n";
        let objects = parse_batch(out, 4).unwrap();
        assert_eq!(
            objects,
            [Some(b"ab\n".to_vec()), None, None, Some(Vec::new())]
        );
        assert!(parse_batch(b"aaaa blob 9\nab\n", 1).is_err());
        assert!(parse_batch(b"", 1).is_err());
    }
}
