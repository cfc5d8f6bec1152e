//! Whether a pull request's head merges cleanly into its target, computed locally as git
//! itself merges (`git merge-tree --write-tree`, through `resolve-pr-git`), with each
//! conflicted file's kind, its conflict regions and what can be said of them as a fact.
//!
//! Nothing here writes to the repository: the merge lives in a scratch object directory.
//! Which commits to merge (fetched into `refs/resolve-pr/…`) is the caller's business.

use resolve_pr_git::{ConflictKind, Hunks, Limits, Repository};

/// The merge of a PR's head into its target, as git would make it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictReport {
    pub target: String,
    pub head: String,
    /// `None`: the two histories share no commit.
    pub merge_base: Option<String>,
    /// git's verdict.
    pub clean: bool,
    pub files: Vec<FileConflict>,
}

/// One conflicted path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileConflict {
    pub path: String,
    pub kind: ConflictKind,
    /// git's own words about it.
    pub message: Option<String>,
    /// The target's, the merge base's and the head's mode (`100644`, …) where present.
    pub target_mode: Option<String>,
    pub base_mode: Option<String>,
    pub head_mode: Option<String>,
    /// The conflict regions (target = ours, head = theirs), cut to the limits; `None` when
    /// the merged file has no regions (a deletion, a binary file, a mode or type clash).
    pub hunks: Option<Hunks>,
    /// What is known for certain about how to resolve it, if anything.
    pub fact: Option<Fact>,
    /// When the fact keeps one side: names its text uses that the other side removed from
    /// the file (in the base's file, in none of the other side's), which keeping it would
    /// bring back. Sorted.
    pub reintroduced: Vec<String>,
}

/// A resolution that follows from the contents alone, never a guess.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    /// In every region both sides hold the same text but for whitespace.
    SameChangeButWhitespace,
    /// In every region the head's text is the base's, byte for byte: the PR changed nothing
    /// there, and the target's side loses nothing of the PR's.
    HeadUnchanged,
    /// In every region the target's text is the base's, byte for byte.
    TargetUnchanged,
    /// In every region the head's text is the base's but for whitespace: the target's side
    /// loses nothing of the PR's but whitespace.
    HeadOnlyWhitespace,
    /// In every region the target's text is the base's but for whitespace: the head's side
    /// loses nothing of the target's but whitespace.
    TargetOnlyWhitespace,
    /// The head deleted the file and the target changed it.
    HeadDeleted,
    /// The target deleted the file and the head changed it.
    TargetDeleted,
}

/// Merges `head` into `target` (revisions or object ids present in `repo`) and reads every
/// conflicted file's regions within `limits`.
pub fn check(
    repo: &Repository,
    target: &str,
    head: &str,
    limits: Limits,
) -> resolve_pr_git::Result<ConflictReport> {
    // The merge bases (which also say whether both commits are here) and the merge, side
    // by side: a call takes about as long as the merge alone.
    let (bases, merge) = std::thread::scope(|scope| {
        let bases = scope.spawn(|| repo.merge_bases(target, head));
        let merge = repo.merge_tree_on(target, head, &[]);
        let bases = bases.join().unwrap_or_else(|_| {
            Err(resolve_pr_git::Error::UnexpectedOutput {
                command: "merge-base --all".to_owned(),
                what: "the thread reading it stopped".to_owned(),
            })
        });
        (bases, merge)
    });
    // A missing commit is said as such, whatever the merge made of it.
    let bases = bases?;
    let merge = merge?;
    let target = repo.resolve_commit(target)?;
    let head = repo.resolve_commit(head)?;
    let merge_base = bases.first().cloned();
    // Every file's texts with one read of the merge's objects.
    let texts = merge.conflict_texts(limits)?;
    let mut files = Vec::with_capacity(merge.outcome.conflicts.len());
    for (file, text) in merge.outcome.conflicts.iter().zip(texts) {
        let hunks = text.hunks.filter(|h| h.total > 0);
        let fact = fact(
            file.kind.clone(),
            file.ours.is_some(),
            file.theirs.is_some(),
            hunks.as_ref(),
        );
        let reintroduced = match (fact, &hunks) {
            (Some(Fact::HeadOnlyWhitespace | Fact::HeadUnchanged), Some(hunks)) => reintroduced(
                hunks.hunks.iter().map(|h| h.ours.as_str()),
                text.base.as_deref(),
                text.theirs.as_deref(),
            ),
            (Some(Fact::TargetOnlyWhitespace | Fact::TargetUnchanged), Some(hunks)) => {
                reintroduced(
                    hunks.hunks.iter().map(|h| h.theirs.as_str()),
                    text.base.as_deref(),
                    text.ours.as_deref(),
                )
            }
            _ => Vec::new(),
        };
        files.push(FileConflict {
            path: file.path.clone(),
            kind: file.kind.clone(),
            message: file.message.clone(),
            target_mode: file.ours.as_ref().map(|s| s.mode.clone()),
            base_mode: file.base.as_ref().map(|s| s.mode.clone()),
            head_mode: file.theirs.as_ref().map(|s| s.mode.clone()),
            hunks,
            fact,
            reintroduced,
        });
    }
    Ok(ConflictReport {
        target,
        head,
        merge_base,
        clean: merge.outcome.clean,
        files,
    })
}

/// The fact that holds for a file, when one does. Whitespace facts need every region, and
/// every region whole: a cut region proves nothing.
fn fact(
    kind: ConflictKind,
    target_has: bool,
    head_has: bool,
    hunks: Option<&Hunks>,
) -> Option<Fact> {
    match kind {
        ConflictKind::ModifyDelete => match (target_has, head_has) {
            (true, false) => Some(Fact::HeadDeleted),
            (false, true) => Some(Fact::TargetDeleted),
            _ => None,
        },
        ConflictKind::Content | ConflictKind::AddAdd => {
            let hunks = hunks?;
            if hunks.cut || hunks.hunks.is_empty() || hunks.hunks.len() != hunks.total {
                return None;
            }
            let all = |f: &dyn Fn(&resolve_pr_git::Hunk) -> bool| hunks.hunks.iter().all(f);
            if all(&|h| same_but_whitespace(&h.ours, &h.theirs)) {
                return Some(Fact::SameChangeButWhitespace);
            }
            if all(&|h| h.base.as_deref() == Some(h.theirs.as_str())) {
                return Some(Fact::HeadUnchanged);
            }
            if all(&|h| h.base.as_deref() == Some(h.ours.as_str())) {
                return Some(Fact::TargetUnchanged);
            }
            if all(&|h| {
                h.base
                    .as_deref()
                    .is_some_and(|b| same_but_whitespace(b, &h.theirs))
            }) {
                return Some(Fact::HeadOnlyWhitespace);
            }
            if all(&|h| {
                h.base
                    .as_deref()
                    .is_some_and(|b| same_but_whitespace(b, &h.ours))
            }) {
                return Some(Fact::TargetOnlyWhitespace);
            }
            None
        }
        _ => None,
    }
}

/// The names `kept` uses that are in `base` but not in `other`: what the other side removed
/// from the file and keeping `kept` would bring back. Names are identifiers of three
/// characters or more (shorter ones are too common to mean a removal).
fn reintroduced<'a>(
    kept: impl Iterator<Item = &'a str>,
    base: Option<&[u8]>,
    other: Option<&[u8]>,
) -> Vec<String> {
    let (Some(base), Some(other)) = (base, other) else {
        return Vec::new();
    };
    let in_base = identifiers(base);
    let in_other = identifiers(other);
    let mut names: Vec<String> = kept
        .flat_map(|text| identifiers(text.as_bytes()))
        .filter(|name| in_base.contains(name) && !in_other.contains(name))
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The identifiers of a text: ASCII letters, digits and `_`, not starting with a digit,
/// three characters or more.
fn identifiers(text: &[u8]) -> std::collections::HashSet<&[u8]> {
    text.split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .filter(|word| word.len() >= 3 && !word[0].is_ascii_digit())
        .collect()
}

/// Equal once all whitespace is removed.
fn same_but_whitespace(a: &str, b: &str) -> bool {
    a.chars()
        .filter(|c| !c.is_whitespace())
        .eq(b.chars().filter(|c| !c.is_whitespace()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_equality_ignores_every_kind_of_space() {
        assert!(same_but_whitespace("a b\tc\n", "abc"));
        assert!(same_but_whitespace("fn x() {\n}\n", "fn x(){}"));
        assert!(!same_but_whitespace("a b", "a c"));
    }

    fn hunk(ours: &str, base: Option<&str>, theirs: &str) -> resolve_pr_git::Hunk {
        resolve_pr_git::Hunk {
            ours: ours.into(),
            base: base.map(Into::into),
            theirs: theirs.into(),
            ..Default::default()
        }
    }

    fn hunks(list: Vec<resolve_pr_git::Hunk>) -> Hunks {
        Hunks {
            total: list.len(),
            hunks: list,
            cut: false,
        }
    }

    #[test]
    fn whitespace_facts_need_every_region() {
        let head_ws = hunks(vec![
            hunk("x = 2\n", Some("x = 1\n"), "x  =  1\n"),
            hunk("y = 3\n", Some("y = 1\n"), "y = 1 \n"),
        ]);
        assert_eq!(
            fact(ConflictKind::Content, true, true, Some(&head_ws)),
            Some(Fact::HeadOnlyWhitespace)
        );
        let mixed = hunks(vec![
            hunk("x = 2\n", Some("x = 1\n"), "x  =  1\n"),
            hunk("y = 3\n", Some("y = 1\n"), "y = 4\n"),
        ]);
        assert_eq!(fact(ConflictKind::Content, true, true, Some(&mixed)), None);
        let mut cut = head_ws.clone();
        cut.cut = true;
        assert_eq!(fact(ConflictKind::Content, true, true, Some(&cut)), None);
        let same = hunks(vec![hunk("a(1, 2)\n", Some("a(1)\n"), "a(1,2)\n")]);
        assert_eq!(
            fact(ConflictKind::AddAdd, true, true, Some(&same)),
            Some(Fact::SameChangeButWhitespace)
        );
        let target_ws = hunks(vec![hunk("a(1) \n", Some("a(1)\n"), "b(2)\n")]);
        assert_eq!(
            fact(ConflictKind::Content, true, true, Some(&target_ws)),
            Some(Fact::TargetOnlyWhitespace)
        );
    }

    #[test]
    fn a_side_identical_to_the_base_changed_nothing() {
        let head_same = hunks(vec![hunk("x = 2\n", Some("x = 1\n"), "x = 1\n")]);
        assert_eq!(
            fact(ConflictKind::Content, true, true, Some(&head_same)),
            Some(Fact::HeadUnchanged)
        );
        let target_same = hunks(vec![hunk("x = 1\n", Some("x = 1\n"), "x = 3\n")]);
        assert_eq!(
            fact(ConflictKind::Content, true, true, Some(&target_same)),
            Some(Fact::TargetUnchanged)
        );
    }

    #[test]
    fn names_the_other_side_removed_are_found() {
        let base = b"def old_name():\n    pass\n\nuse(old_name, kept_name)\n";
        let head = b"def new_name():\n    pass\n\nuse(new_name, kept_name)\n";
        let target_text = ["    old_name(kept_name)  # called here\n"];
        assert_eq!(
            reintroduced(target_text.into_iter(), Some(base), Some(head)),
            ["old_name"]
        );
        assert!(reintroduced(target_text.into_iter(), Some(base), Some(base)).is_empty());
        assert!(reintroduced(target_text.into_iter(), None, Some(head)).is_empty());
    }

    #[test]
    fn deletions_say_which_side_deleted() {
        assert_eq!(
            fact(ConflictKind::ModifyDelete, true, false, None),
            Some(Fact::HeadDeleted)
        );
        assert_eq!(
            fact(ConflictKind::ModifyDelete, false, true, None),
            Some(Fact::TargetDeleted)
        );
        assert_eq!(fact(ConflictKind::RenameRename, true, true, None), None);
    }
}
