//! Fetching what a call needs into refs of its own (`refs/resolve-pr/…`), only what is
//! missing.

use resolve_pr_core::{Error, Result};
use resolve_pr_forge::PullRequest;

use super::Local;

/// The ref a PR's head is fetched into.
pub(crate) fn pull_ref(number: u64) -> String {
    format!("refs/resolve-pr/pull/{number}/head")
}

/// The ref a branch of the PR's repository is fetched into.
pub(crate) fn branch_ref(branch: &str) -> String {
    format!("refs/resolve-pr/heads/{branch}")
}

fn head_ids<'a>(prs: &[&'a PullRequest]) -> Vec<&'a str> {
    prs.iter().map(|p| p.head_sha.as_str()).collect()
}

/// Every head of `prs` is here after a fetch; else a `logical` error naming the first that
/// is not (one `git cat-file --batch-check`).
fn heads_fetched(local: &Local, prs: &[&PullRequest]) -> Result<()> {
    let present = local.repo.have_commits(&head_ids(prs))?;
    if let Some((pr, _)) = prs.iter().zip(present).find(|(_, present)| !present) {
        return Err(Error::logical(format!(
            "the head commit {} of pull request #{} could not be fetched from {}",
            pr.head_sha,
            pr.number,
            local.place.describe()
        ))
        .with_suggestion("The branch may have been force-pushed since; call again."));
    }
    Ok(())
}

/// The commit of each branch of `branches`, and every PR head of `prs` present, fetching only
/// what is missing: a branch comes with the commit the forge says it is at now (`None`:
/// unknown), and when that commit and every PR head are in the repository already, no git
/// talks to the remote. What is fetched goes into refs of this call only
/// (`refs/resolve-pr/fetch/<pid>-<n>/`), deleted once read, so calls leave no refs behind.
pub(crate) fn fetch_missing(
    local: &Local,
    prs: &[&PullRequest],
    branches: &[(&str, Option<&str>)],
) -> Result<Vec<String>> {
    let mut wanted = head_ids(prs);
    wanted.extend(branches.iter().filter_map(|(_, tip)| *tip));
    let present = local.repo.have_commits(&wanted)?;
    let heads_present = &present[..prs.len()];
    let mut tips_present = present[prs.len()..].iter();
    let known_tips: Vec<Option<String>> = branches
        .iter()
        .map(|(_, tip)| match tip {
            Some(tip) => tips_present
                .next()
                .copied()
                .unwrap_or(false)
                .then(|| (*tip).to_owned()),
            None => None,
        })
        .collect();
    if heads_present.iter().all(|p| *p) && known_tips.iter().all(Option::is_some) {
        return Ok(known_tips.into_iter().flatten().collect());
    }
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let folder = format!(
        "refs/resolve-pr/fetch/{}-{}/",
        std::process::id(),
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let mut refspecs = Vec::new();
    for (pr, present) in prs.iter().zip(heads_present) {
        if !present {
            refspecs.push((
                format!("refs/pull/{}/head", pr.number),
                format!("{folder}pull/{}", pr.number),
            ));
        }
    }
    for ((branch, _), known) in branches.iter().zip(&known_tips) {
        if known.is_none() {
            refspecs.push((
                format!("refs/heads/{branch}"),
                format!("{folder}heads/{branch}"),
            ));
        }
    }
    refspecs.sort();
    refspecs.dedup();
    let fetched = local.repo.fetch(&local.remote, &refspecs);
    // Read and delete what the fetch wrote, whether it succeeded or not.
    let written = local.repo.refs_under(&folder)?;
    local.repo.delete_refs(
        &written
            .iter()
            .map(|(name, _)| name.clone())
            .collect::<Vec<_>>(),
    )?;
    fetched?;
    heads_fetched(local, prs)?;
    branches
        .iter()
        .zip(known_tips)
        .map(|((branch, _), known)| match known {
            Some(tip) => Ok(tip),
            None => {
                let name = format!("{folder}heads/{branch}");
                written
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, oid)| oid.clone())
                    .ok_or_else(|| {
                        Error::user(format!(
                            "the branch {branch:?} does not exist on the remote"
                        ))
                        .with_suggestion("Check the branch name (target_branch, onto_base).")
                    })
            }
        })
        .collect()
}

/// The heads of `prs` (`refs/pull/N/head`, which GitHub, Forgejo and Gitea all have, also for
/// PRs from forks) that are not present yet, `branches` always (a branch moves), and the head
/// branches `heads` (of pull requests whose head is in this repository), which may be gone,
/// in one `git fetch` into `refs/resolve-pr/heads/…` and `pull/…`, kept: a later stack call
/// reads where a base branch was from them. Returns the commit each branch is at, and each
/// head's on the remote now (`None`: the remote has no such branch).
pub(crate) fn fetch_with_heads(
    local: &Local,
    prs: &[&PullRequest],
    branches: &[&str],
    heads: &[&str],
) -> Result<(Vec<String>, Vec<Option<String>>)> {
    match fetch_refs(local, prs, branches, heads) {
        Ok(()) => {}
        // A head branch deleted since the forge listed it: fetch without the heads, and say
        // of each one that it is gone (read below as `None`).
        Err(resolve_pr_git::Error::MissingRemoteRef { .. }) if !heads.is_empty() => {
            for head in heads {
                local.repo.delete_ref(&branch_ref(head))?;
            }
            fetch_refs(local, prs, branches, &[])?;
        }
        Err(e) => return Err(e.into()),
    }
    heads_fetched(local, prs)?;
    let tips = branches
        .iter()
        .map(|b| {
            local.repo.read_ref(&branch_ref(b))?.ok_or_else(|| {
                Error::user(format!("the branch {b:?} does not exist on the remote"))
                    .with_suggestion("Check the branch name (target_branch, onto_base).")
            })
        })
        .collect::<Result<Vec<String>>>()?;
    let heads = heads
        .iter()
        .map(|h| Ok(local.repo.read_ref(&branch_ref(h))?))
        .collect::<Result<Vec<Option<String>>>>()?;
    Ok((tips, heads))
}

/// One `git fetch` of the PR heads `prs` that are missing, and of `branches` and `heads`.
fn fetch_refs(
    local: &Local,
    prs: &[&PullRequest],
    branches: &[&str],
    heads: &[&str],
) -> resolve_pr_git::Result<()> {
    let mut refspecs = Vec::new();
    let present = local.repo.have_commits(&head_ids(prs))?;
    for (pr, present) in prs.iter().zip(present) {
        if !present {
            refspecs.push((format!("refs/pull/{}/head", pr.number), pull_ref(pr.number)));
        }
    }
    for branch in branches.iter().chain(heads) {
        refspecs.push((format!("refs/heads/{branch}"), branch_ref(branch)));
    }
    refspecs.sort();
    refspecs.dedup();
    if !refspecs.is_empty() {
        local.repo.fetch(&local.remote, &refspecs)?;
    }
    Ok(())
}
