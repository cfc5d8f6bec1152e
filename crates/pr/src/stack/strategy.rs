//! The restack strategy: `--onto` or a plain rebase, why, and what to weigh ([`choose`]);
//! how the base PR reached trunk when only the forge can tell ([`trust_forge_merge`]); and
//! the levels whose branch lives in a fork ([`Fork`]).

use resolve_pr_core::Result;
use resolve_pr_forge::PullRequest;
use resolve_pr_git::Repository;

use super::{BaseState, Boundary, LevelPlan, MergeHow, StackPlan, short};

/// How the dependent moves onto its new base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// `git rebase <new base>`.
    Regular,
    /// `git rebase --onto <new base> <old parent tip>`.
    Onto,
}

/// The strategy, why, whether the agent should choose, and what to weigh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub strategy: Strategy,
    pub reason: String,
    /// Both are sound; the choice is about history.
    pub ai_should_decide: bool,
    pub considerations: Vec<String>,
}

/// A PR of the stack whose head branch lives in another repository (a fork): never in the
/// push to this repository's remote.
#[derive(Debug, Clone)]
pub struct Fork {
    pub number: u64,
    /// The fork's `owner/name`; `None` when it was deleted.
    pub repo: Option<String>,
    /// Its clone URL, when it is one git may follow (https, http, ssh).
    pub url: Option<String>,
    pub author: String,
}

/// The PRs of `prs` from forks.
pub fn forks<'a>(prs: impl Iterator<Item = &'a PullRequest>) -> Vec<Fork> {
    prs.filter(|p| p.is_from_fork())
        .map(|p| Fork {
            number: p.number,
            repo: p.head_repo.clone(),
            url: p.head_clone_url.clone().filter(|u| {
                ["https://", "http://", "ssh://"]
                    .iter()
                    .any(|scheme| u.starts_with(scheme))
            }),
            author: p.author.login.clone(),
        })
        .collect()
}

pub(super) fn fork_of(forks: &[Fork], number: u64) -> Option<&Fork> {
    forks.iter().find(|f| f.number == number)
}

/// The local branch a level is restacked in: its own name, or `pr-N` for a fork's (whose
/// name may be any of this repository's branches).
pub fn local_branch(l: &LevelPlan, forks: &[Fork]) -> String {
    match fork_of(forks, l.number) {
        Some(_) => format!("pr-{}", l.number),
        None => l.branch.clone(),
    }
}

/// The commits a restack of `l` leaves: its own replayed ones but those whose change the new
/// base already has (dropped).
pub(super) fn kept(l: &LevelPlan) -> usize {
    l.own_replayed.saturating_sub(l.onto.emptied.len())
}

/// Every commit of `l` is in the new base already: the restacked branch is empty.
pub fn nothing_left(l: &LevelPlan) -> bool {
    l.onto.clean && !l.onto.emptied.is_empty() && kept(l) == 0
}

/// How the base PR merged, in a word: merge, squash, rebase, content or unknown.
pub fn merge_method(how: &MergeHow) -> &'static str {
    match how {
        MergeHow::MergeCommit => "merge",
        MergeHow::Squash { .. } => "squash",
        MergeHow::Rebase { .. } => "rebase",
        MergeHow::ContentInTrunk => "content",
        MergeHow::Unknown => "unknown",
    }
}

/// When trunk's history matched neither the base PR's commits nor its changes, but the forge
/// says it merged as a commit that trunk has with one parent: it was squash-merged, with
/// edits (a line changed while squashing). Returns whether that was read so.
pub(super) fn trust_forge_merge(
    repo: &Repository,
    plan: &mut StackPlan,
    trunk: &str,
) -> Result<bool> {
    let BaseState::Merged {
        how: how @ MergeHow::Unknown,
        commit: Some(commit),
    } = &mut plan.base_state
    else {
        return Ok(false);
    };
    if !repo.has_commit(commit)? || !repo.is_ancestor(commit, trunk)? {
        return Ok(false);
    }
    let Ok((listed, _)) = repo.commits_between(&format!("{commit}~"), commit, 50) else {
        return Ok(false);
    };
    let squash = listed
        .iter()
        .any(|c| c.oid == *commit && c.parents.len() == 1);
    if squash {
        *how = MergeHow::Squash {
            commit: commit.clone(),
        };
    }
    Ok(squash)
}

/// The strategy, why, whether the agent should choose, and what to weigh.
pub fn choose(plan: &StackPlan, use_onto: Option<bool>, edited_squash: bool) -> Choice {
    let dep = &plan.levels[0];
    let own = kept(dep);
    let onto_clean = plan.levels.iter().all(|l| l.onto.clean);
    let regular_clean = plan.regular.clean;
    let mut considerations = Vec::new();
    let regular_extra = plan.regular_commits.saturating_sub(own);
    match &plan.base_state {
        BaseState::Merged { how, commit } => {
            let commit = commit.as_deref().map(short).unwrap_or("?");
            match how {
                MergeHow::MergeCommit => considerations.push(format!(
                    "The base PR was merged with a merge commit ({commit}): its commits are in \
                     trunk as they are, so a plain rebase skips them."
                )),
                MergeHow::Squash { commit: sq } if edited_squash => considerations.push(format!(
                    "The base PR was squash-merged as {} (the forge's merge commit); its changes \
                     differ slightly from the PR's (edited while squashing), so no commit or \
                     patch of it matches.",
                    short(sq)
                )),
                MergeHow::Squash { commit: sq } => considerations.push(format!(
                    "The base PR was squash-merged as {}: its commits are not in trunk's history.",
                    short(sq)
                )),
                MergeHow::Rebase { commits } => considerations.push(format!(
                    "The base PR was rebase-merged: {} commit(s) re-applied on trunk with new ids.",
                    commits.len()
                )),
                MergeHow::ContentInTrunk => considerations.push(
                    "Trunk has all of the base PR's changes but no commit of it matches: squashed \
                     with edits, or merged another way."
                        .to_owned(),
                ),
                MergeHow::Unknown => considerations.push(format!(
                    "The forge says the base PR merged ({commit}), but trunk's recent history \
                     shows neither its commits nor its changes."
                )),
            }
        }
        BaseState::Open {
            new_commits_total, ..
        } => {
            if *new_commits_total > 0 {
                considerations.push(format!(
                    "The base PR has {new_commits_total} commit(s) the dependent lacks."
                ));
            }
        }
    }
    considerations.push(format!(
        "--onto replays only the dependent's own {own} commit(s){}{}.",
        if dep.onto.emptied.is_empty() {
            String::new()
        } else {
            format!(
                " ({} more already in trunk are dropped)",
                dep.onto.emptied.len()
            )
        },
        if onto_clean {
            " without conflicts"
        } else {
            " and stops at a conflict (predicted_conflicts)"
        }
    ));
    considerations.push(format!(
        "A plain rebase replays {} commit(s){}{}.",
        plan.regular_commits,
        if regular_extra > 0 {
            format!(", {regular_extra} of them not the dependent's own")
        } else {
            String::new()
        },
        if regular_clean {
            " without conflicts"
        } else {
            " and stops at a conflict"
        }
    ));
    if plan.levels.len() > 1 {
        considerations.push(format!(
            "{} more PR(s) sit on the dependent and move with it.",
            plan.levels.len() - 1
        ));
    }
    if let Some(force) = use_onto {
        let s = if force {
            Strategy::Onto
        } else {
            Strategy::Regular
        };
        return choice(s, "As asked (use_onto).".to_owned(), false, considerations);
    }
    let rewritten = matches!(&plan.base_state, BaseState::Merged { how, .. } if how.rewrote());
    if rewritten {
        let reason = format!(
            "The base PR's commits reached trunk as other commits ({}): --onto skips them and \
             replays only the dependent's {own} commit(s); a plain rebase would replay them again{}.",
            match &plan.base_state {
                BaseState::Merged { how, .. } => merge_method(how),
                _ => "",
            },
            if regular_clean { "" } else { " and conflict" }
        );
        return choice(Strategy::Onto, reason, false, considerations);
    }
    if dep.boundary == Boundary::Trunk && regular_extra > 0 {
        return choice(
            Strategy::Onto,
            format!(
                "The dependent holds trunk's commits newer than where it left its base (rebased \
                 onto trunk, or trunk merged in): a plain rebase would replay {regular_extra} of \
                 them as its own; --onto replays only its {own} commit(s)."
            ),
            false,
            considerations,
        );
    }
    if dep.boundary != Boundary::ParentHead && !regular_clean && onto_clean {
        return choice(
            Strategy::Onto,
            "A plain rebase is predicted to conflict and --onto is not: the base branch was \
             rewritten after the dependent left it, so a plain rebase would replay its old \
             commits."
                .to_owned(),
            false,
            considerations,
        );
    }
    choice(
        Strategy::Regular,
        "The base PR's commits are in the history the dependent moves onto, so a plain rebase \
         works; --onto gives the same result."
            .to_owned(),
        true,
        considerations,
    )
}

fn choice(
    strategy: Strategy,
    reason: String,
    ai_should_decide: bool,
    considerations: Vec<String>,
) -> Choice {
    Choice {
        strategy,
        reason,
        ai_should_decide,
        considerations,
    }
}
