//! Which two pull requests a call restacks: the dependent, and its base as given or found
//! on the forge (the PR whose head branch the dependent is based on), checked to form a pair
//! that can be restacked.

use resolve_pr_core::{Error, PrRef, Result};
use resolve_pr_forge::{Forge, PrState, PullFilter, PullListState, PullRequest};

use super::{PlanInput, Walked, base_history, state_name, walk};

/// The base and dependent pull requests of a call.
#[derive(Debug, Clone)]
pub struct Pair {
    pub base_ref: PrRef,
    pub dependent_ref: PrRef,
    pub base: PullRequest,
    pub dependent: PullRequest,
    /// Said to the agent when the base was chosen here.
    pub note: Option<String>,
}

/// Reads `dependent_ref` and `base_ref` (default: the PR whose head branch is the
/// dependent's base, open or merged) and checks they can be restacked: one repository, two
/// PRs, the dependent open, the base not closed unmerged.
pub async fn pair(
    forge: &dyn Forge,
    base_ref: Option<PrRef>,
    dependent_ref: &PrRef,
) -> Result<Pair> {
    let mut note = None;
    let dependent = forge.pull_requests().pull_request(dependent_ref).await?;
    let (base_ref, base) = match base_ref {
        Some(b) => {
            if !same_repo(&b, dependent_ref) {
                return Err(Error::user(format!(
                    "base_pr {b} and dependent_pr {dependent_ref} are in different repositories: a \
                     stack lives in one repository"
                ))
                .with_suggestion("Give two pull requests of the same repository."));
            }
            let base = forge.pull_requests().pull_request(&b).await?;
            (b, base)
        }
        None => {
            let filter = PullFilter {
                state: PullListState::All,
                head: Some(dependent.base_ref.clone()),
                base: None,
                limit: 10,
                ..PullFilter::default()
            };
            let found = forge
                .pull_requests()
                .list_pull_requests(&dependent_ref.repo, &filter)
                .await?
                .into_iter()
                .filter(|p| {
                    !p.is_from_fork()
                        && p.head_ref == dependent.base_ref
                        && p.number != dependent.number
                })
                .max_by_key(|p| p.number);
            let Some(base) = found else {
                // Retargeted by hand after its base merged: the merged PR whose head commit is
                // one of the dependent's own is the one it was stacked on.
                let stacked_on = merged_base_of(forge, dependent_ref, &dependent).await;
                let suggestion = match stacked_on {
                    Some(n) => format!(
                        "#{} carries #{n}'s head commit: #{n} merged into {:?}, and #{} was \
                         probably retargeted by hand since. Call again with base_pr: #{n} to \
                         restack it.",
                        dependent.number, dependent.base_ref, dependent.number
                    ),
                    None => "Give base_pr if the PR was stacked on one that merged and was \
                             retargeted."
                        .to_owned(),
                };
                return Err(Error::logical(format!(
                    "PR #{}'s base is {:?}, which is no pull request's head branch: it is not \
                     stacked on another PR",
                    dependent.number, dependent.base_ref
                ))
                .with_suggestion(suggestion));
            };
            note = Some(format!(
                "No base_pr was given: chose #{}, whose head branch {:?} is #{}'s base.",
                base.number, base.head_ref, dependent.number
            ));
            let b = PrRef {
                repo: dependent_ref.repo.clone(),
                number: base.number,
            };
            (b, base)
        }
    };
    if base.number == dependent.number {
        return Err(
            Error::user("base_pr and dependent_pr are the same pull request").with_suggestion(
                "Give the earlier PR as base_pr and the later one as dependent_pr.",
            ),
        );
    }
    if dependent.state != PrState::Open {
        return Err(Error::logical(format!(
            "PR #{} is {}: only an open PR can be restacked",
            dependent.number,
            state_name(dependent.state)
        )));
    }
    if base.state == PrState::Closed {
        return Err(Error::logical(format!(
            "base PR #{} was closed without merging: its commits will not reach {}",
            base.number, base.base_ref
        ))
        .with_suggestion(
            "Rebase the dependent onto the base PR's target yourself, or reopen the base PR.",
        ));
    }
    Ok(Pair {
        base_ref,
        dependent_ref: dependent_ref.clone(),
        base,
        dependent,
        note,
    })
}

/// The stack around `pair` on the forge, what is recorded of the base's branch (and a note
/// when the timeline could not be read), and the plan's input to fetch: trunk is
/// `onto_base`, else the base PR's base branch.
pub async fn prepare(
    forge: &dyn Forge,
    pair: &Pair,
    onto_base: Option<String>,
    old_base: Option<String>,
    commit_limit: usize,
) -> Result<(Walked, PlanInput, Option<String>)> {
    let (base, dependent) = (&pair.base, &pair.dependent);
    let walked = walk(forge, &pair.dependent_ref.repo, base, dependent).await?;
    let (base_history, unread) = base_history(forge, &pair.base_ref).await;
    let input = PlanInput {
        trunk: String::new(),
        trunk_branch: onto_base.unwrap_or_else(|| base.base_ref.clone()),
        base: base.clone(),
        dependent: dependent.clone(),
        above: walked.above.clone(),
        commit_limit,
        base_history,
        old_base,
    };
    Ok((walked, input, unread))
}

/// The merged PR into `dependent`'s base whose head commit is one of `dependent`'s own
/// commits (the PR it was stacked on, before a retarget by hand); `None` when none is, or the
/// forge cannot say. Two requests, on the error path only.
async fn merged_base_of(
    forge: &dyn Forge,
    dependent_ref: &PrRef,
    dependent: &PullRequest,
) -> Option<u64> {
    let filter = PullFilter {
        state: PullListState::Merged,
        head: None,
        base: Some(dependent.base_ref.clone()),
        limit: 30,
        ..PullFilter::default()
    };
    let merged = forge
        .pull_requests()
        .list_pull_requests(&dependent_ref.repo, &filter)
        .await
        .ok()?;
    let own = forge.repository().pull_commits(dependent_ref).await.ok()?;
    merged
        .into_iter()
        .filter(|p| p.number != dependent.number && p.state == PrState::Merged)
        .find(|p| own.iter().any(|c| c.sha == p.head_sha))
        .map(|p| p.number)
}

fn same_repo(a: &PrRef, b: &PrRef) -> bool {
    a.repo.host() == b.repo.host()
        && a.repo.owner.eq_ignore_ascii_case(&b.repo.owner)
        && a.repo.repo.eq_ignore_ascii_case(&b.repo.repo)
}
