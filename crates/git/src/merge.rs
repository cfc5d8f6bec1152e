//! `git merge-tree --write-tree`: the merge git itself would make (merge-ort, renames,
//! recursive merge bases), computed without touching the worktree, the index, the refs or
//! the object store of the user's repository. Objects it writes (the result tree, blobs with
//! conflict markers) go to a scratch object directory that borrows the repository's objects
//! as an alternate, and disappear with the [`Merge`].
//!
//! The answer depends on the merged commits, not on the user's checkout: every merge runs
//! with a neutral configuration and the attributes of the merge's own trees, as a forge's
//! merge does (see [`Repository::neutral_merge`]).

use std::ffi::{OsStr, OsString};
use std::path::Path;

use crate::error::{Error, Result};
use crate::repo::Repository;

/// What kind of conflict a file is in, from git's stable conflict type strings (merge-ort's
/// `type_short_descriptions`, which git promises not to change) and the file's stages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConflictKind {
    /// Both sides changed the same lines (`CONFLICT (contents)` with a base).
    Content,
    /// Both sides added the file with different contents (`CONFLICT (contents)`, no base).
    AddAdd,
    /// One side changed the file, the other deleted it.
    ModifyDelete,
    /// Both sides renamed the file, to different names.
    RenameRename,
    /// One side renamed the file, the other deleted it.
    RenameDelete,
    /// A rename collided with another file or rename at its destination.
    RenameCollision,
    /// A file on one side is a directory on the other.
    FileDirectory,
    /// The sides hold different kinds of entry (file, symlink, submodule) at the path.
    DistinctModes,
    /// Both sides changed a binary file.
    Binary,
    /// A submodule's commits cannot be merged.
    Submodule,
    /// A directory rename moved the file somewhere that conflicts.
    DirectoryRename,
    /// A conflict type this crate does not know (a newer git's): git's type string.
    Other(String),
}

/// One stage of a conflicted path: its mode and object id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// Octal, as git prints it: `100644`, `100755`, `120000`, `160000`.
    pub mode: String,
    pub oid: String,
}

/// A path the merge left conflicted, with what each side has there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictedFile {
    /// The path in the merged tree (git's bytes, read as UTF-8; other bytes become U+FFFD).
    pub path: String,
    pub kind: ConflictKind,
    /// Stage 1: the merge base's version (none when both sides added the file).
    pub base: Option<Stage>,
    /// Stage 2: the first commit's (ours).
    pub ours: Option<Stage>,
    /// Stage 3: the second commit's (theirs).
    pub theirs: Option<Stage>,
    /// git's human text for the conflict that decided `kind`.
    pub message: Option<String>,
}

impl ConflictedFile {
    /// Whether the stages present carry different modes (an executable bit changed on one
    /// side while the contents conflict, say).
    pub fn modes_differ(&self) -> bool {
        let mut modes = [&self.base, &self.ours, &self.theirs]
            .into_iter()
            .flatten()
            .map(|s| s.mode.as_str());
        let first = modes.next();
        modes.any(|m| Some(m) != first)
    }
}

/// One of git's messages about the merge: the paths it names, its stable type string
/// (`Auto-merging`, `CONFLICT (contents)`, ...) and its human text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub paths: Vec<String>,
    pub kind: String,
    pub text: String,
}

/// The result of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeOutcome {
    /// git's verdict: exit status 0.
    pub clean: bool,
    /// The merged tree (with conflict markers in conflicted files), in the scratch store.
    pub tree: String,
    /// Conflicted paths, in git's order.
    pub conflicts: Vec<ConflictedFile>,
    pub messages: Vec<Message>,
}

/// A merge and the scratch object directory its objects live in (removed on drop).
#[derive(Debug)]
pub struct Merge {
    pub outcome: MergeOutcome,
    pub(crate) repo: Repository,
    scratch: crate::scratch::Scratch,
}

impl Repository {
    /// Merges `theirs` into `ours` (a PR's head into its target branch, say) as git would,
    /// writing nothing to this repository. Revisions are resolved to commits first
    /// ([`Error::BadRevision`] when one names none); neither is ever read as an option.
    pub fn merge_tree(&self, ours: &str, theirs: &str) -> Result<Merge> {
        self.merge_tree_on(ours, theirs, &[])
    }

    /// [`Repository::merge_tree`], given the merge bases of the two commits
    /// ([`Repository::merge_bases`]): with exactly one, git is handed it instead of finding
    /// it again (the same merge, one history walk fewer); with several (a criss-cross) or
    /// none, git finds them itself.
    /// Full object ids are handed to git as they are (it refuses what is not a commit, and
    /// `--end-of-options` keeps them from reading as options); other revisions are resolved
    /// first.
    pub fn merge_tree_on(&self, ours: &str, theirs: &str, bases: &[String]) -> Result<Merge> {
        let resolve = |revision: &str| -> Result<String> {
            let full = (revision.len() == 40 || revision.len() == 64)
                && revision.bytes().all(|b| b.is_ascii_hexdigit());
            if full {
                Ok(revision.to_ascii_lowercase())
            } else {
                self.resolve_commit(revision)
            }
        };
        let ours = resolve(ours)?;
        let theirs = resolve(theirs)?;
        let scratch = scratch_dir()?;
        let base = match bases {
            [one] => Some(one.as_str()),
            _ => None,
        };
        let outcome = self
            .merge_in(scratch.path(), base, &ours, &theirs)
            .map_err(|e| unrelated(e, &ours, &theirs))?;
        Ok(Merge {
            outcome,
            repo: self.clone(),
            scratch,
        })
    }
}

impl Repository {
    /// `merge-tree --write-tree` of the commits `ours` and `theirs` (object ids, which may
    /// live in `scratch` only), with `merge_base` as the base when given, writing into the
    /// object directory `scratch`.
    pub(crate) fn merge_in(
        &self,
        scratch: &Path,
        merge_base: Option<&str>,
        ours: &str,
        theirs: &str,
    ) -> Result<MergeOutcome> {
        let neutral = self.neutral_merge(ours);
        let mut env = scratch_env(scratch, self.objects_dir());
        env.extend(neutral.env);
        let base_option = merge_base.map(|base| format!("--merge-base={base}"));
        let mut command = vec!["merge-tree", "--write-tree", "-z", "--messages"];
        command.extend(base_option.as_deref());
        command.extend(["--end-of-options", ours, theirs]);
        let mut args = neutral.args;
        args.extend(&command);
        let output = self.run(&args, &env_refs(&env), &[0, 1])?;
        let clean = output.status.code() == Some(0);
        parse_merge_tree(&output.stdout, clean).map_err(|what| Error::UnexpectedOutput {
            command: command.join(" "),
            what,
        })
    }

    /// The global options and environment that make a merge (`merge-tree`, `replay`) an
    /// answer about the merged commits alone, whatever the user's checkout and
    /// configuration, as the forge's merge is; `attributes` is the commit whose tree's
    /// `.gitattributes` apply (the target side's: the result lands on the target branch).
    /// No extra git process.
    ///
    /// - Attributes: `GIT_ATTR_SOURCE=<attributes>` (git 2.41 or later; the env form of
    ///   `--attr-source`, which an older git ignores, where the worktree's `.gitattributes`
    ///   still apply, as before), not the worktree's or the index's; no system
    ///   (`GIT_ATTR_NOSYSTEM`) or global (`core.attributesFile=/dev/null`) attributes file.
    ///   `$GIT_DIR/info/attributes` cannot be switched off and still applies.
    /// - Configuration: no system or global file (`GIT_CONFIG_NOSYSTEM`,
    ///   `GIT_CONFIG_GLOBAL=/dev/null`; `safe.directory=*` on the command line, a protected
    ///   scope, so a repository the user's configuration let this crate discover is not
    ///   refused under the neutral one), except in a repository that fetches lazily (a
    ///   partial clone), whose fetches may need the user's credential helper. The
    ///   repository's own file cannot be switched off: [`MERGE_DEFAULTS`] sets every key
    ///   that changes merge-ort's result to git's default on the command line, which wins.
    /// - Left as it is: a merge driver (`merge.<name>.driver`) defined in the repository's
    ///   own configuration (or, in a partial clone, the user's) still runs for a path whose
    ///   attributes name it; a forge runs none.
    pub(crate) fn neutral_merge(&self, attributes: &str) -> NeutralMerge {
        let mut args = MERGE_DEFAULTS.to_vec();
        let mut env: Vec<(&'static str, OsString)> = vec![
            ("GIT_ATTR_SOURCE", OsString::from(attributes)),
            ("GIT_ATTR_NOSYSTEM", OsString::from("1")),
        ];
        if !self.git().fetches_lazily() {
            args.extend(["-c", "safe.directory=*"]);
            env.extend([
                ("GIT_CONFIG_NOSYSTEM", OsString::from("1")),
                ("GIT_CONFIG_GLOBAL", OsString::from(NULL_DEVICE)),
            ]);
        }
        NeutralMerge { args, env }
    }

    /// Runs git in this repository with `scratch` as its object directory (the repository's
    /// store as an alternate): reads see both, writes land in scratch.
    pub(crate) fn run_in_scratch(
        &self,
        scratch: &Path,
        args: &[&str],
        extra_env: &[(&str, &str)],
        input: Option<&[u8]>,
        ok_statuses: &[i32],
    ) -> Result<std::process::Output> {
        let env = scratch_env(scratch, self.objects_dir());
        let mut all = env_refs(&env);
        all.extend(extra_env.iter().map(|(k, v)| (*k, OsStr::new(*v))));
        self.git()
            .run_with_input(self.dir(), args, &all, input, ok_statuses)
    }
}

/// The empty file every platform's git can open (git for Windows maps `/dev/null` to `nul`).
const NULL_DEVICE: &str = "/dev/null";

/// git's default, on the command line (above every configuration file, the repository's own
/// included), for each setting that changes what merge-ort makes of two commits:
/// `merge.conflictStyle` is not the default but zdiff3, which the conflict reader needs;
/// `merge.renameLimit` wins over `diff.renameLimit`; `merge.renormalize` off also makes
/// `core.autocrlf`, `core.eol` and the `text`/`eol` attributes irrelevant to a merge;
/// `merge.default=text` undoes a default driver for paths without a `merge` attribute;
/// `core.attributesFile` also stands for the XDG default `~/.config/git/attributes`.
/// Not needed: merge-ort ignores `merge.renames`/`diff.renames` (it always detects
/// renames), and `merge.verbosity` and `diff.algorithm` do not reach `merge-tree` or
/// `replay` (both merge with histogram, and record every message).
pub(crate) const MERGE_DEFAULTS: &[&str] = &[
    "-c",
    "merge.conflictStyle=zdiff3",
    "-c",
    "merge.directoryRenames=conflict",
    "-c",
    "merge.renameLimit=7000",
    "-c",
    "merge.renormalize=false",
    "-c",
    "merge.default=text",
    "-c",
    "core.attributesFile=/dev/null",
];

/// See [`Repository::neutral_merge`]: global options to put before the subcommand, and
/// variables to add to the command's environment.
pub(crate) struct NeutralMerge {
    pub(crate) args: Vec<&'static str>,
    pub(crate) env: Vec<(&'static str, OsString)>,
}

/// git's refusal of two commits without a common ancestor, as [`Error::UnrelatedHistories`]
/// (its only words for it: `fatal: refusing to merge unrelated histories`); any other error
/// unchanged.
fn unrelated(error: Error, ours: &str, theirs: &str) -> Error {
    match error {
        Error::Failed { ref stderr, .. }
            if stderr.contains("refusing to merge unrelated histories") =>
        {
            Error::UnrelatedHistories {
                ours: ours.to_string(),
                theirs: theirs.to_string(),
            }
        }
        other => other,
    }
}

/// A scratch object directory, removed when dropped.
pub(crate) fn scratch_dir() -> Result<crate::scratch::Scratch> {
    crate::scratch::Scratch::new("merge")
}

impl Merge {
    pub(crate) fn new(
        outcome: MergeOutcome,
        repo: &Repository,
        scratch: crate::scratch::Scratch,
    ) -> Merge {
        Merge {
            outcome,
            repo: repo.clone(),
            scratch,
        }
    }

    /// Where this merge's objects are (only while the `Merge` lives).
    pub fn scratch_dir(&self) -> &Path {
        self.scratch.path()
    }
}

/// `GIT_OBJECT_DIRECTORY` the scratch directory, `GIT_ALTERNATE_OBJECT_DIRECTORIES` the
/// repository's store: reads find the repository's objects, writes land in scratch.
pub(crate) fn scratch_env(scratch: &Path, objects: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("GIT_OBJECT_DIRECTORY", scratch.as_os_str().to_owned()),
        ("GIT_ALTERNATE_OBJECT_DIRECTORIES", alternate_entry(objects)),
    ]
}

fn env_refs<'a>(env: &'a [(&'static str, OsString)]) -> Vec<(&'static str, &'a OsStr)> {
    env.iter().map(|(k, v)| (*k, v.as_os_str())).collect()
}

/// One entry of git's alternates list: as is, or C-quoted when it holds the list separator
/// or a quote (git unquotes an entry that starts with `"`).
fn alternate_entry(path: &Path) -> OsString {
    let text = path.to_string_lossy();
    let separator = if cfg!(windows) { ';' } else { ':' };
    if !text.contains(separator) && !text.starts_with('"') && path.to_str().is_some() {
        return path.as_os_str().to_owned();
    }
    let mut quoted = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    OsString::from(quoted)
}

/// Reads `merge-tree --write-tree -z --messages` output: the tree id; conflicted-file
/// records `<mode> <oid> <stage>\t<path>`; an empty record; messages
/// `<N>\0<path>…\0<type>\0<text>\n\0`.
pub(crate) fn parse_merge_tree(
    stdout: &[u8],
    clean: bool,
) -> std::result::Result<MergeOutcome, String> {
    let mut fields = stdout
        .split(|&b| b == 0)
        .map(|f| String::from_utf8_lossy(f));
    let tree = fields.next().ok_or("no output")?.into_owned();
    if !(tree.len() == 40 || tree.len() == 64) || !tree.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{tree:?} is not a tree id"));
    }
    let mut conflicts: Vec<ConflictedFile> = Vec::new();
    // Until the empty record (or the end: no messages section at all).
    for record in fields.by_ref() {
        if record.is_empty() {
            break;
        }
        let (info, path) = record
            .split_once('\t')
            .ok_or_else(|| format!("conflict record {record:?} has no tab"))?;
        let mut parts = info.split(' ');
        let (Some(mode), Some(oid), Some(stage), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(format!(
                "conflict record {record:?} is not <mode> <oid> <stage>"
            ));
        };
        let entry = Stage {
            mode: mode.to_string(),
            oid: oid.to_string(),
        };
        let index = match conflicts.iter().position(|f| f.path == path) {
            Some(index) => index,
            None => {
                conflicts.push(ConflictedFile {
                    path: path.to_string(),
                    kind: ConflictKind::Content,
                    base: None,
                    ours: None,
                    theirs: None,
                    message: None,
                });
                conflicts.len() - 1
            }
        };
        let file = &mut conflicts[index];
        match stage {
            "1" => file.base = Some(entry),
            "2" => file.ours = Some(entry),
            "3" => file.theirs = Some(entry),
            other => return Err(format!("stage {other:?} in {record:?}")),
        }
    }
    let mut messages = Vec::new();
    while let Some(count) = fields.next() {
        if count.is_empty() {
            // The record after the last message's text.
            continue;
        }
        let count: usize = count
            .parse()
            .map_err(|_| format!("message path count {count:?} is not a number"))?;
        let mut paths = Vec::with_capacity(count);
        for _ in 0..count {
            paths.push(
                fields
                    .next()
                    .ok_or("message ends in its paths")?
                    .into_owned(),
            );
        }
        let kind = fields.next().ok_or("message without a type")?.into_owned();
        let text = fields.next().ok_or("message without text")?;
        messages.push(Message {
            paths,
            kind,
            text: text.strip_suffix('\n').unwrap_or(&text).to_string(),
        });
    }
    for file in &mut conflicts {
        let (kind, message) = classify(file, &messages);
        file.kind = kind;
        file.message = message;
    }
    Ok(MergeOutcome {
        clean,
        tree,
        conflicts,
        messages,
    })
}

/// The kind of a conflicted file: the most specific conflict message naming it, then its
/// stages (add/add is `CONFLICT (contents)` without a base).
fn classify(file: &ConflictedFile, messages: &[Message]) -> (ConflictKind, Option<String>) {
    let naming: Vec<&Message> = messages
        .iter()
        .filter(|m| m.paths.contains(&file.path))
        .filter(|m| m.kind.starts_with("CONFLICT") || m.kind.starts_with("ERROR"))
        .collect();
    let submodule_stage = [&file.base, &file.ours, &file.theirs]
        .into_iter()
        .flatten()
        .any(|s| s.mode == "160000");
    let specific = naming
        .iter()
        .filter_map(|m| specific_kind(&m.kind).map(|(rank, kind)| (rank, kind, m)))
        .min_by_key(|(rank, _, _)| *rank);
    if let Some((_, kind, message)) = specific {
        return (kind, Some(message.text.clone()));
    }
    if submodule_stage {
        return (
            ConflictKind::Submodule,
            naming.first().map(|m| m.text.clone()),
        );
    }
    let by_stages = if file.base.is_none() {
        ConflictKind::AddAdd
    } else if file.ours.is_none() || file.theirs.is_none() {
        ConflictKind::ModifyDelete
    } else {
        ConflictKind::Content
    };
    if let Some(message) = naming.iter().find(|m| m.kind == "CONFLICT (contents)") {
        return (by_stages, Some(message.text.clone()));
    }
    match naming.first() {
        Some(message) => (
            ConflictKind::Other(message.kind.clone()),
            Some(message.text.clone()),
        ),
        None => (by_stages, None),
    }
}

/// The kind a conflict type names beyond a content conflict, ranked: when several messages
/// name a path, the lowest rank decides (a binary file also gets `CONFLICT (contents)`).
fn specific_kind(kind: &str) -> Option<(u8, ConflictKind)> {
    let found = match kind {
        k if k.starts_with("CONFLICT (submodule") => (0, ConflictKind::Submodule),
        "CONFLICT (binary)" => (1, ConflictKind::Binary),
        "CONFLICT (rename/rename)" => (2, ConflictKind::RenameRename),
        "CONFLICT (rename/delete)" => (3, ConflictKind::RenameDelete),
        "CONFLICT (rename involved in collision)" => (4, ConflictKind::RenameCollision),
        "CONFLICT (modify/delete)" => (5, ConflictKind::ModifyDelete),
        "CONFLICT (file/directory)" => (6, ConflictKind::FileDirectory),
        "CONFLICT (distinct modes)" => (7, ConflictKind::DistinctModes),
        k if k.contains("dir rename") || k.contains("directory rename") => {
            (8, ConflictKind::DirectoryRename)
        }
        _ => return None,
    };
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &str = "384b02688b7be351534ec7a20bd22009b9638fcc";

    #[test]
    fn a_clean_merge_is_its_tree_and_an_empty_record() {
        let out = parse_merge_tree(format!("{TREE}\0\0").as_bytes(), true).unwrap();
        assert!(out.clean);
        assert_eq!(out.tree, TREE);
        assert!(out.conflicts.is_empty() && out.messages.is_empty());
        let with_message = format!("{TREE}\0\x001\0a b\0Auto-merging\0Auto-merging a b\n\0");
        let out = parse_merge_tree(with_message.as_bytes(), true).unwrap();
        assert_eq!(
            out.messages,
            [Message {
                paths: vec!["a b".into()],
                kind: "Auto-merging".into(),
                text: "Auto-merging a b".into()
            }]
        );
    }

    #[test]
    fn records_and_messages_as_git_writes_them() {
        let raw = format!(
            "{TREE}\0\
             100644 88768efdf77ec78c9a995f94881793be6a41752b 1\tb.bin\0\
             100644 fe92c4d1c1c3758a0742cd42fbf2fd6c1fc8d1c1 2\tb.bin\0\
             100644 aba3d8562401ba90e130071df196ecf8929faa95 3\tb.bin\0\
             100755 57ae7c2f74da19591847c63d68f2327b859636c4 2\tnew\tline\nfile\0\
             100644 5a80a2d9e928ae36c4d7f0c3a14fb744b4fa1e41 3\tnew\tline\nfile\0\
             \0\
             1\0b.bin\0CONFLICT (binary)\0warning: Cannot merge binary files: b.bin (a vs. b)\n\0\
             1\0b.bin\0CONFLICT (contents)\0CONFLICT (content): Merge conflict in b.bin\n\0\
             1\0new\tline\nfile\0CONFLICT (contents)\0CONFLICT (add/add): Merge conflict in new\tline\nfile\n\0"
        );
        let out = parse_merge_tree(raw.as_bytes(), false).unwrap();
        assert!(!out.clean);
        assert_eq!(out.conflicts.len(), 2);
        assert_eq!(out.conflicts[0].kind, ConflictKind::Binary);
        assert_eq!(out.conflicts[0].base.as_ref().unwrap().mode, "100644");
        assert_eq!(out.conflicts[1].path, "new\tline\nfile");
        assert_eq!(out.conflicts[1].kind, ConflictKind::AddAdd);
        assert!(out.conflicts[1].modes_differ());
        assert!(!out.conflicts[0].modes_differ());
        assert_eq!(out.messages.len(), 3);
        assert_eq!(
            out.messages[2].text,
            "CONFLICT (add/add): Merge conflict in new\tline\nfile"
        );
    }

    #[test]
    fn unknown_types_are_kept_and_bad_output_is_refused() {
        let raw = format!(
            "{TREE}\0100644 {TREE} 1\tx\0100644 {TREE} 2\tx\0100644 {TREE} 3\tx\0\0\
             1\0x\0CONFLICT (something new)\0new\n\0"
        );
        let out = parse_merge_tree(raw.as_bytes(), false).unwrap();
        assert_eq!(
            out.conflicts[0].kind,
            ConflictKind::Other("CONFLICT (something new)".into())
        );
        assert!(parse_merge_tree(b"", true).is_err());
        assert!(parse_merge_tree(b"fatal\0\0", true).is_err());
        assert!(parse_merge_tree(format!("{TREE}\0garbage\0\0").as_bytes(), false).is_err());
        assert!(parse_merge_tree(format!("{TREE}\0\0two\0").as_bytes(), false).is_err());
        assert!(parse_merge_tree(format!("{TREE}\0\x003\0a\0").as_bytes(), false).is_err());
    }

    #[test]
    fn alternates_with_separators_are_quoted() {
        assert_eq!(
            alternate_entry(Path::new("/r/.git/objects")),
            "/r/.git/objects"
        );
        if cfg!(unix) {
            assert_eq!(
                alternate_entry(Path::new("/a:b/\"q\"/objects")),
                "\"/a:b/\\\"q\\\"/objects\""
            );
        }
    }
}
