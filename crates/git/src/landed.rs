//! Has a branch landed in trunk? By ancestry (a merge or fast-forward), by patch-id (a squash
//! merge: one trunk commit carries the whole range; a rebase merge: each commit has a twin),
//! or by content (merging the branch would not change trunk). Nothing is written to the
//! repository: patch-ids are computed from `git diff-tree -p` piped (in Rust, no shell) into
//! `git patch-id --stable`, and the content check merges into a scratch object directory.

use crate::error::{Error, Result};
use crate::repo::Repository;

/// How (whether) a branch's work reached trunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Landed {
    /// `head` is an ancestor of trunk (merge commit, fast-forward).
    Ancestor,
    /// One trunk commit carries the whole range `base..head` as one patch (a squash merge):
    /// the aggregate patch-id of the range equals that commit's patch-id. A one-commit
    /// branch that landed by rebase is this too (the two are the same patch).
    Squashed {
        commit: String,
    },
    /// Every commit of the range has a patch-id-equal commit in trunk (a rebase merge): their
    /// oids, in range order.
    Rebased {
        commits: Vec<String>,
    },
    /// Merging head into trunk leaves trunk's tree unchanged: trunk already has every change,
    /// some other way (a squash that also carries a conflict resolution, say, when the
    /// resolution kept the branch's side).
    ContentInTrunk,
    NotLanded,
}

/// `diff-tree` options that make the patch independent of the user's configuration (it is
/// plumbing: no colour, external diff or textconv; renames off explicitly, fixed context).
const PATCH: &[&str] = &[
    "diff-tree",
    "-p",
    "-r",
    "--no-renames",
    "--no-ext-diff",
    "--no-textconv",
    "--full-index",
    "--unified=3",
    "--src-prefix=a/",
    "--dst-prefix=b/",
];

const PATCH_ID: &[&str] = &["patch-id", "--stable"];

impl Repository {
    /// Whether the work of `base..head` is in `trunk`, looking at most `limit` trunk commits
    /// since the merge base of head and trunk (every commit there, merged side branches too).
    /// Checks in order: ancestry, squash, rebase, content. An unrelated trunk is `NotLanded`.
    pub fn landed(&self, base: &str, head: &str, trunk: &str, limit: usize) -> Result<Landed> {
        let base = self.resolve_commit(base)?;
        let head = self.resolve_commit(head)?;
        let trunk = self.resolve_commit(trunk)?;
        if self.is_ancestor(&head, &trunk)? {
            return Ok(Landed::Ancestor);
        }
        let Some(fork) = self.merge_base(&head, &trunk)? else {
            return Ok(Landed::NotLanded);
        };
        let trunk_ids = self.trunk_patch_ids(&fork, &trunk, limit)?;
        if let Some(range_id) = self.range_patch_id(&base, &head)?
            && let Some((_, commit)) = trunk_ids.iter().find(|(id, _)| *id == range_id)
        {
            return Ok(Landed::Squashed {
                commit: commit.clone(),
            });
        }
        let own = self.commit_patch_ids(&self.range_oids(&base, &head)?)?;
        if !own.is_empty() {
            let twins: Option<Vec<String>> = own
                .iter()
                .map(|(id, _)| {
                    trunk_ids
                        .iter()
                        .find(|(trunk_id, _)| trunk_id == id)
                        .map(|(_, commit)| commit.clone())
                })
                .collect();
            if let Some(commits) = twins {
                return Ok(Landed::Rebased { commits });
            }
        }
        let merge = self.merge_tree(&trunk, &head)?;
        let trunk_tree = self.tree_of(&trunk)?;
        if merge.outcome.clean && merge.outcome.tree == trunk_tree {
            return Ok(Landed::ContentInTrunk);
        }
        Ok(Landed::NotLanded)
    }

    /// The patch-id (`git patch-id --stable`) of the whole diff from the merge base of `base`
    /// and `head` to `head`, as a squash of the range would have it; `None` when the range
    /// changes nothing.
    pub fn range_patch_id(&self, base: &str, head: &str) -> Result<Option<String>> {
        let base = self.resolve_commit(base)?;
        let head = self.resolve_commit(head)?;
        let from = self.merge_base(&base, &head)?.unwrap_or(base);
        let mut first: Vec<&str> = PATCH.to_vec();
        first.extend(["--end-of-options", &from, &head]);
        let output = self.git().pipe(self.dir(), &first, None, PATCH_ID, &[])?;
        let text = String::from_utf8_lossy(&output.stdout);
        Ok(text.split_whitespace().next().map(str::to_string))
    }

    /// `(patch-id, commit)` of each non-merge commit of `fork..trunk`, newest first, at most
    /// `limit` commits looked at.
    fn trunk_patch_ids(
        &self,
        fork: &str,
        trunk: &str,
        limit: usize,
    ) -> Result<Vec<(String, String)>> {
        let max = format!("--max-count={limit}");
        let exclude = format!("^{fork}");
        let output = self.run(
            [
                "rev-list",
                "--no-merges",
                &max,
                "--end-of-options",
                trunk,
                &exclude,
            ],
            &[],
            &[0],
        )?;
        let oids: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        self.commit_patch_ids(&oids)
    }

    /// `(patch-id, commit)` of each of `oids` that has a non-empty patch (merges and empty
    /// commits have none), in the order given.
    pub(crate) fn commit_patch_ids(&self, oids: &[String]) -> Result<Vec<(String, String)>> {
        if oids.is_empty() {
            return Ok(Vec::new());
        }
        let input = oids.join("\n") + "\n";
        let mut first: Vec<&str> = PATCH.to_vec();
        first.extend(["--root", "--stdin"]);
        let output = self
            .git()
            .pipe(self.dir(), &first, Some(input.as_bytes()), PATCH_ID, &[])?;
        let text = String::from_utf8_lossy(&output.stdout);
        let mut ids: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            let mut parts = line.split_whitespace();
            let (Some(id), Some(commit)) = (parts.next(), parts.next()) else {
                return Err(Error::UnexpectedOutput {
                    command: PATCH_ID.join(" "),
                    what: format!("{line:?} is not `<patch-id> <commit>`"),
                });
            };
            ids.push((id.to_string(), commit.to_string()));
        }
        // patch-id prints in diff-tree's order, which is the order given.
        Ok(ids)
    }

    /// The tree of a commit.
    pub(crate) fn tree_of(&self, commit: &str) -> Result<String> {
        let spec = format!("{commit}^{{tree}}");
        let output = self.run(
            ["rev-parse", "--verify", "--end-of-options", &spec],
            &[],
            &[0],
        )?;
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }
}
