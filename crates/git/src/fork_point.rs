//! Where a branch forked from another as the user's own repository remembers it: the
//! reflog of a remote-tracking branch holds the tips it had before it was force-pushed.

use crate::error::{Error, Result};
use crate::repo::Repository;

impl Repository {
    /// `git merge-base --fork-point <upstream> <commit>`: the newest commit that `upstream`
    /// (a full ref name under `refs/remotes/`) pointed at, by its reflog, and `commit` holds;
    /// `None` when the ref does not exist or no entry of its reflog is in `commit`'s history.
    pub fn fork_point(&self, upstream: &str, commit: &str) -> Result<Option<String>> {
        if !upstream.starts_with("refs/remotes/") {
            return Err(Error::usage(format!(
                "{upstream:?} is not a remote-tracking ref (refs/remotes/...)"
            )));
        }
        if self.read_ref(upstream)?.is_none() {
            return Ok(None);
        }
        let commit = self.resolve_commit(commit)?;
        let output = self.run(
            [
                "merge-base",
                "--fork-point",
                "--end-of-options",
                upstream,
                &commit,
            ],
            &[],
            &[0, 1],
        )?;
        let oid = String::from_utf8_lossy(&output.stdout).trim().to_string();
        Ok((output.status.success() && !oid.is_empty()).then_some(oid))
    }
}
