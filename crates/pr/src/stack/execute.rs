//! Restacking for real ([`restack`]): the plan made in the caller's repository, then, when
//! asked, the new commits made under `refs/resolve-pr/restack/` (old heads kept under
//! `refs/resolve-pr/backup/`), pushed with a lease on the old heads, or a push rolled back;
//! and the retarget of the dependent on the forge ([`retarget`]).

use resolve_pr_core::{Error, PrRef, Result};
use resolve_pr_forge::{Forge, PrState, PullRequest};
use resolve_pr_git::{PushUpdate, Repository, RestackBranch, RestackResult};

use super::strategy::{Choice, Fork, Strategy, choose, fork_of, trust_forge_merge};
use super::{Pair, PlanInput, StackPlan, TipSource, plan, short};

/// The repository the stack is restacked in, as the caller found it.
pub struct Checkout<'a> {
    pub repo: &'a Repository,
    /// The remote the stack's branches were fetched from and are pushed to.
    pub remote: &'a str,
    /// The user's checkout (`false`: a managed clone, whose remote is not the user's).
    pub is_checkout: bool,
    /// The ref a branch of the PR's repository was fetched into.
    pub fetched_branch: fn(&str) -> String,
    /// The ref a pull request's head was fetched into.
    pub fetched_pull: fn(u64) -> String,
}

impl Checkout<'_> {
    /// The base's head as earlier calls fetched it: read before this call's fetch moves the
    /// refs, for [`restack`].
    pub fn earlier_base_tips(&self, base: &PullRequest) -> Result<Vec<String>> {
        let mut tips = Vec::new();
        for r in [
            (self.fetched_branch)(&base.head_ref),
            (self.fetched_pull)(base.number),
        ] {
            tips.extend(self.repo.read_ref(&r)?);
        }
        Ok(tips)
    }
}

/// What the caller asked to be done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Plan only: nothing is written.
    Plan,
    /// Restack, and push when `push`.
    Execute { push: bool },
    /// Push the backed-up heads of the last execute back.
    Rollback,
}

impl Action {
    /// The action a call's flags ask for, or what is wrong with them: `push` and `retarget`
    /// go with `execute`, which `rollback` excludes.
    pub fn asked(
        execute: bool,
        push: bool,
        retarget: bool,
        rollback: bool,
    ) -> std::result::Result<Action, Vec<String>> {
        let mut problems = Vec::new();
        if (push || retarget) && !execute {
            problems.push("push and retarget need execute: true".to_owned());
        }
        if rollback && execute {
            problems.push("rollback and execute cannot be asked together".to_owned());
        }
        match (execute, rollback) {
            _ if !problems.is_empty() => Err(problems),
            (_, true) => Ok(Action::Rollback),
            (true, _) => Ok(Action::Execute { push }),
            _ => Ok(Action::Plan),
        }
    }
}

/// What one step of an execute or a rollback did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepReport {
    pub step: String,
    /// done, failed or skipped.
    pub status: String,
    pub detail: String,
}

/// What [`restack`] found and did.
#[derive(Debug, Clone)]
pub struct Work {
    pub plan: StackPlan,
    pub choice: Choice,
    pub steps: Vec<StepReport>,
    /// `None`: nothing was asked to run. `Err`: the error of the failed step.
    pub outcome: Option<std::result::Result<(), String>>,
    pub started: chrono::DateTime<chrono::Utc>,
    /// The remote named in commands: the checkout's, or `origin` for a managed clone.
    pub remote: String,
    /// What the remote's branches said beside the forge's heads (ahead, moved).
    pub notes: Vec<String>,
    pub trunk: String,
    pub forks: Vec<Fork>,
    /// The base PR was squash-merged with edits: the forge's merge commit, in trunk, matches
    /// neither its commits nor its changes.
    pub edited_squash: bool,
}

/// How far an execute or a rollback got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub completed: u32,
    pub total: u32,
    pub failed: u32,
    /// The first failed step's number, from 1.
    pub failed_step: Option<u32>,
}

impl Work {
    /// How far the steps got.
    pub fn progress(&self) -> Progress {
        let count = |status: &str| self.steps.iter().filter(|s| s.status == status).count() as u32;
        Progress {
            completed: count("done"),
            total: self.steps.len() as u32,
            failed: count("failed"),
            failed_step: self
                .steps
                .iter()
                .position(|s| s.status == "failed")
                .map(|i| i as u32 + 1),
        }
    }
}

/// The PRs whose branches move (and an open base's, which they move onto), whose remote
/// branches [`restack`] compares with the heads the forge reported.
pub fn checked_prs(input: &PlanInput) -> Vec<&PullRequest> {
    std::iter::once(&input.dependent)
        .chain(input.above.iter())
        .chain((input.base.state == PrState::Open).then_some(&input.base))
        .filter(|p| !p.is_from_fork())
        .collect()
}

/// Plans the restack of `input` (its `trunk` fetched) in `checkout`, and does what `action`
/// asks. `tips`: the remote branches of [`checked_prs`], in that order, as just fetched
/// (`None`: gone); `earlier_base_tips`: the base's head as earlier calls fetched it.
pub fn restack(
    checkout: &Checkout<'_>,
    input: PlanInput,
    tips: Vec<Option<String>>,
    earlier_base_tips: Vec<String>,
    action: Action,
    use_onto: Option<bool>,
) -> Result<Work> {
    let forks = super::strategy::forks(std::iter::once(&input.dependent).chain(input.above.iter()));
    let tips: Vec<(u64, BranchTip)> = checked_prs(&input)
        .iter()
        .zip(tips)
        .map(|(pr, tip)| {
            Ok((
                pr.number,
                branch_tip(checkout.repo, pr, tip, checkout.remote)?,
            ))
        })
        .collect::<Result<_>>()?;
    let mut stack_notes = Vec::new();
    let mut moved = Vec::new();
    let mut input = input;
    for (number, tip) in tips {
        match tip {
            BranchTip::AsReported => {}
            BranchTip::Ahead { tip, note } => {
                stack_notes.push(note);
                for pr in std::iter::once(&mut input.dependent)
                    .chain(input.above.iter_mut())
                    .chain(std::iter::once(&mut input.base))
                {
                    if pr.number == number {
                        pr.head_sha = tip.clone();
                    }
                }
            }
            BranchTip::Moved(why) => moved.push(why),
        }
    }
    add_base_tips(checkout, &mut input, earlier_base_tips)?;
    let mut plan = match plan(checkout.repo, &input)? {
        Ok(plan) => plan,
        Err(not) => {
            return Err(Error::logical(format!(
                "PR #{}'s base is {:?}, not PR #{}'s head {:?}, and it does not carry #{}'s \
                 commits: they are not stacked",
                input.dependent.number,
                not.dependent_base,
                input.base.number,
                not.base_head_branch,
                input.base.number
            ))
            .with_detail("dependent_base", not.dependent_base)
            .with_detail("base_head_branch", not.base_head_branch)
            .with_suggestion("Check which PR the dependent was built on."));
        }
    };
    if action == (Action::Execute { push: true }) && plan.levels[0].guess {
        return Err(guessed_boundary(&input, &plan.levels[0].old_base));
    }
    let edited_squash = trust_forge_merge(checkout.repo, &mut plan, &input.trunk)?;
    let choice = choose(&plan, use_onto, edited_squash);
    let mut steps = Vec::new();
    let started = now();
    if !matches!(action, Action::Execute { .. }) {
        stack_notes.extend(
            moved
                .iter()
                .map(|m| format!("The plan is the forge's view, but {m}.")),
        );
    }
    let outcome = match action {
        Action::Plan => None,
        Action::Rollback => Some(rollback(checkout, &plan, &forks, &mut steps)),
        Action::Execute { .. } if !moved.is_empty() => {
            // Restacked from the forge's old view, a rewritten branch would get the commits
            // it no longer has (or trunk's) replayed back onto it and pushed.
            let detail = format!(
                "nothing was changed: {}. Call again once the forge shows the new head(s).",
                moved.join("; ")
            );
            steps.push(StepReport {
                step: "restack".to_owned(),
                status: "failed".to_owned(),
                detail: detail.clone(),
            });
            Some(Err(detail))
        }
        Action::Execute { push } => Some(execute(
            checkout,
            &plan,
            choice.strategy,
            push,
            &forks,
            &mut steps,
        )),
    };
    let remote = if checkout.is_checkout {
        checkout.remote.to_owned()
    } else {
        "origin".to_owned()
    };
    Ok(Work {
        plan,
        choice,
        steps,
        outcome,
        started,
        remote,
        notes: stack_notes,
        trunk: input.trunk,
        forks,
        edited_squash,
    })
}

/// After a push that went through: retargets the dependent onto `trunk_branch` once its
/// base merged (before anything deletes the base's branch), and reports it in `work`.
pub async fn retarget(
    forge: &dyn Forge,
    dependent_ref: &PrRef,
    pair: &Pair,
    trunk_branch: &str,
    work: &mut Work,
) {
    let (base, dependent) = (&pair.base, &pair.dependent);
    if !matches!(work.outcome, Some(Ok(()))) {
        return;
    }
    let merged = base.state == PrState::Merged;
    if merged && dependent.base_ref == base.head_ref {
        match forge
            .pull_requests()
            .set_base(dependent_ref, trunk_branch)
            .await
        {
            Ok(_) => work.steps.push(StepReport {
                step: "retarget".to_owned(),
                status: "done".to_owned(),
                detail: format!("#{} now targets {trunk_branch}", dependent.number),
            }),
            Err(e) => {
                let e = Error::from(e);
                work.steps.push(StepReport {
                    step: "retarget".to_owned(),
                    status: "failed".to_owned(),
                    detail: e.error.clone(),
                });
                work.outcome = Some(Err(e.error));
            }
        }
    } else {
        work.steps.push(StepReport {
            step: "retarget".to_owned(),
            status: "skipped".to_owned(),
            detail: if merged {
                format!("#{} does not target {:?}", dependent.number, base.head_ref)
            } else {
                format!(
                    "#{} is not merged: #{} stays on its branch",
                    base.number, dependent.number
                )
            },
        });
    }
}

/// A stack branch on the remote, beside the head its pull request reports.
enum BranchTip {
    AsReported,
    /// Pushed to after the forge's answer (it contains the reported head): planned at `tip`.
    Ahead {
        tip: String,
        note: String,
    },
    /// Rewritten (it no longer contains the reported head) or gone: never restacked.
    Moved(String),
}

/// How the branch of `pr` on the remote (`tip`, just fetched; `None`: gone) stands to the
/// head the forge reported for it.
fn branch_tip(
    repo: &Repository,
    pr: &PullRequest,
    tip: Option<String>,
    remote: &str,
) -> Result<BranchTip> {
    Ok(match tip {
        Some(tip) if tip == pr.head_sha => BranchTip::AsReported,
        Some(tip) if repo.is_ancestor(&pr.head_sha, &tip)? => BranchTip::Ahead {
            note: format!(
                "{} (#{}) is at {} on {remote}, ahead of the head {} the forge reports (a push                  it has not shown yet): planned from {}.",
                pr.head_ref,
                pr.number,
                short(&tip),
                short(&pr.head_sha),
                short(&tip)
            ),
            tip,
        },
        Some(tip) => BranchTip::Moved(format!(
            "{} (#{}) moved: it is at {} on {remote}, which does not contain {}, the head the              forge reports (force-pushed since)",
            pr.head_ref,
            pr.number,
            short(&tip),
            short(&pr.head_sha)
        )),
        None => BranchTip::Moved(format!(
            "{} (#{}) no longer exists on {remote}",
            pr.head_ref, pr.number
        )),
    })
}

/// Adds to the plan's record of the base's branch what this repository knows of it: the
/// tips earlier calls fetched, and the reflog of the checkout's remote-tracking branch; and
/// checks a given `old_base` (a commit of the dependent's history).
fn add_base_tips(checkout: &Checkout<'_>, input: &mut PlanInput, kept: Vec<String>) -> Result<()> {
    let history = &mut input.base_history;
    history
        .tips
        .extend(kept.into_iter().map(|t| (t, TipSource::EarlierCall)));
    let head = input.dependent.head_sha.clone();
    if checkout.is_checkout && !input.base.is_from_fork() {
        let upstream = format!("refs/remotes/{}/{}", checkout.remote, input.base.head_ref);
        if let Ok(Some(point)) = checkout.repo.fork_point(&upstream, &head) {
            history.tips.push((point, TipSource::Reflog));
        }
    }
    if let Some(given) = input.old_base.take() {
        let found = checkout.repo.resolve_commit(&given).ok();
        let Some(oid) = found.filter(|o| checkout.repo.is_ancestor(o, &head).unwrap_or(false))
        else {
            return Err(Error::user(format!(
                "old_base {given:?} is not a commit of #{}'s history",
                input.dependent.number
            ))
            .with_suggestion(format!(
                "Give the commit #{}'s branch was at when #{} branched from it (a full or \
                 abbreviated id that #{}'s history holds).",
                input.base.number, input.dependent.number, input.dependent.number
            )));
        };
        input.old_base = Some(oid);
    }
    Ok(())
}

/// The error for `push` on a guessed boundary: never push on a guess.
fn guessed_boundary(input: &PlanInput, start: &str) -> Error {
    Error::logical(format!(
        "not pushed: where #{}'s own commits start is a guess ({}, its merge base with #{}: \
         nothing records where #{}'s branch was when #{} left it), and a restack from a guess \
         can put back a commit #{} dropped",
        input.dependent.number,
        short(start),
        input.base.number,
        input.base.number,
        input.dependent.number,
        input.base.number
    ))
    .with_detail("old_base", start.to_owned())
    .with_suggestion(format!(
        "Call again with old_base: the commit #{}'s branch was at when #{} branched from it (see \
         `git reflog` of the branch, or `git log {}..{}`), or without push to plan first.",
        input.base.number,
        input.dependent.number,
        short(start),
        short(&input.dependent.head_sha)
    ))
}

/// Performs the restack and, when asked, the push.
fn execute(
    checkout: &Checkout<'_>,
    plan: &StackPlan,
    strategy: Strategy,
    push: bool,
    forks: &[Fork],
    steps: &mut Vec<StepReport>,
) -> std::result::Result<(), String> {
    if plan.up_to_date {
        steps.push(StepReport {
            step: "restack".to_owned(),
            status: "skipped".to_owned(),
            detail: "the dependent already sits on its new base".to_owned(),
        });
        return Ok(());
    }
    if let Some(l) = plan.levels.iter().find(|l| !l.onto.clean) {
        let at = l.onto.conflicts.first();
        let detail = match at {
            Some(c) => format!(
                "predicted conflict replaying {} ({}) in {}: nothing was changed",
                short(&c.commit),
                c.summary,
                c.files.join(", ")
            ),
            None => format!("predicted conflicts in {}: nothing was changed", l.branch),
        };
        steps.push(StepReport {
            step: "restack".to_owned(),
            status: "failed".to_owned(),
            detail: detail.clone(),
        });
        return Err(detail);
    }
    let branches: Vec<RestackBranch> = plan
        .levels
        .iter()
        .enumerate()
        .map(|(i, l)| RestackBranch {
            name: l.branch.clone(),
            head: l.head.clone(),
            old_base: if i == 0 && strategy == Strategy::Regular {
                checkout
                    .repo
                    .merge_base(&plan.new_base, &l.head)
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| l.old_base.clone())
            } else {
                l.old_base.clone()
            },
        })
        .collect();
    let results: Vec<RestackResult> = match checkout.repo.restack(&plan.new_base, &branches) {
        Ok(r) => r,
        Err(e) => {
            let detail = Error::from(e).error;
            steps.push(StepReport {
                step: "restack".to_owned(),
                status: "failed".to_owned(),
                detail: detail.clone(),
            });
            return Err(detail);
        }
    };
    for r in &results {
        steps.push(StepReport {
            step: format!("restack {}", r.name),
            status: "done".to_owned(),
            detail: format!(
                "{} → {} ({} commit(s){}); result in {}, old head kept in {}",
                short(&r.old_head),
                short(&r.new_head),
                r.commits,
                if r.dropped > 0 {
                    format!(
                        ", {} dropped: already in {}",
                        r.dropped, plan.new_base_branch
                    )
                } else {
                    String::new()
                },
                r.result_ref,
                r.backup_ref
            ),
        });
    }
    if !push {
        steps.push(StepReport {
            step: "push".to_owned(),
            status: "skipped".to_owned(),
            detail: "not asked (push: true pushes with a lease on the old heads)".to_owned(),
        });
        return Ok(());
    }
    // A fork's level goes to the fork, and a level with nothing left is not emptied on the
    // forge: both are left out of the one atomic push (which would otherwise fail, or empty
    // a PR, as a whole) and said so.
    let mut pushed = Vec::new();
    for (r, l) in results.iter().zip(&plan.levels) {
        let left_out = if let Some(f) = fork_of(forks, l.number) {
            Some(format!(
                "#{} is from a fork ({}): not pushed to {}; the commands push it to the fork",
                l.number,
                f.repo.as_deref().unwrap_or("deleted"),
                checkout.remote
            ))
        } else if r.commits == 0 && r.dropped > 0 {
            Some(format!(
                "#{} has nothing left (all {} commit(s) are in {}): not pushed; close it",
                l.number, r.dropped, plan.new_base_branch
            ))
        } else {
            None
        };
        match left_out {
            Some(detail) => steps.push(StepReport {
                step: format!("push {}", r.name),
                status: "skipped".to_owned(),
                detail,
            }),
            None => pushed.push(r),
        }
    }
    if pushed.is_empty() {
        return Ok(());
    }
    let updates: Vec<PushUpdate> = pushed
        .iter()
        .map(|r| PushUpdate {
            branch: r.name.clone(),
            expected_old: r.old_head.clone(),
            new: r.new_head.clone(),
        })
        .collect();
    match checkout.repo.push_with_lease(checkout.remote, &updates) {
        Ok(()) => {
            steps.push(StepReport {
                step: "push".to_owned(),
                status: "done".to_owned(),
                detail: format!(
                    "pushed {} to {} with --force-with-lease",
                    pushed
                        .iter()
                        .map(|r| r.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    checkout.remote
                ),
            });
            Ok(())
        }
        Err(e) => {
            let detail = Error::from(e).error;
            steps.push(StepReport {
                step: "push".to_owned(),
                status: "failed".to_owned(),
                detail: detail.clone(),
            });
            Err(detail)
        }
    }
}

/// Pushes the backed-up heads of the last execute back.
fn rollback(
    checkout: &Checkout<'_>,
    plan: &StackPlan,
    forks: &[Fork],
    steps: &mut Vec<StepReport>,
) -> std::result::Result<(), String> {
    let mut results = Vec::new();
    // A fork's level was never pushed to this remote.
    for l in plan
        .levels
        .iter()
        .filter(|l| fork_of(forks, l.number).is_none())
    {
        let backup_ref = format!("refs/resolve-pr/backup/{}", l.branch);
        let result_ref = format!("refs/resolve-pr/restack/{}", l.branch);
        let backup = checkout
            .repo
            .read_ref(&backup_ref)
            .map_err(|e| Error::from(e).error)?;
        let result = checkout
            .repo
            .read_ref(&result_ref)
            .map_err(|e| Error::from(e).error)?;
        // A level that was not pushed (nothing left in it) is at its old head still.
        let tip = checkout
            .repo
            .read_ref(&(checkout.fetched_branch)(&l.branch))
            .map_err(|e| Error::from(e).error)?;
        if tip.is_some() && tip == backup {
            continue;
        }
        if let (Some(old_head), Some(new_head)) = (backup, result) {
            results.push(RestackResult {
                name: l.branch.clone(),
                old_head,
                new_head,
                commits: 0,
                dropped: 0,
                backup_ref,
                result_ref,
            });
        }
    }
    if results.is_empty() {
        let detail = "no restack of these branches was found to roll back (no \
                      refs/resolve-pr/backup/<branch> in this repository)"
            .to_owned();
        steps.push(StepReport {
            step: "rollback".to_owned(),
            status: "failed".to_owned(),
            detail: detail.clone(),
        });
        return Err(detail);
    }
    match checkout.repo.rollback(checkout.remote, &results) {
        Ok(()) => {
            for r in &results {
                steps.push(StepReport {
                    step: format!("rollback {}", r.name),
                    status: "done".to_owned(),
                    detail: format!("{} is back at {}", r.name, short(&r.old_head)),
                });
            }
            Ok(())
        }
        Err(e) => {
            let detail = Error::from(e).error;
            steps.push(StepReport {
                step: "rollback".to_owned(),
                status: "failed".to_owned(),
                detail: detail.clone(),
            });
            Err(detail)
        }
    }
}

/// The current time (whole seconds).
pub fn now() -> chrono::DateTime<chrono::Utc> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
    chrono::DateTime::from_timestamp(secs, 0).unwrap_or_default()
}
