//! What a restack plan or its execution comes to, in words: the stack drawn from trunk up,
//! what is off about it, where the rebase stops, the risk, and what to do next.

use resolve_pr_forge::{PrState, PullRequest};
use resolve_pr_git::CommitInfo;

use super::strategy::{Strategy, local_branch, merge_method, nothing_left};
use super::{
    BaseState, Boundary, MergeHow, Pair, StackPlan, TipSource, Walked, Work, commands, short,
};

/// A PR's place in the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Below,
    Base,
    Dependent,
    Above,
}

/// Every PR of the stack, bottom first, with its role.
pub fn levels<'a>(
    walked: &'a Walked,
    base: &'a PullRequest,
    dependent: &'a PullRequest,
) -> Vec<(&'a PullRequest, Role)> {
    let mut stack: Vec<(&PullRequest, Role)> =
        walked.below.iter().map(|p| (p, Role::Below)).collect();
    stack.push((base, Role::Base));
    stack.push((dependent, Role::Dependent));
    stack.extend(walked.above.iter().map(|p| (p, Role::Above)));
    stack
}

/// open, closed or merged.
pub fn state_name(s: PrState) -> &'static str {
    match s {
        PrState::Open => "open",
        PrState::Closed => "closed",
        PrState::Merged => "merged",
    }
}

/// A commit the rebase would stop at, with the files in conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredictedConflict {
    pub pr: String,
    pub branch: String,
    pub commit: String,
    pub summary: String,
    pub files: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Risk {
    Low,
    Medium,
    High,
}

/// The words of an answer about a stack.
#[derive(Debug, Clone)]
pub struct Report {
    /// The whole stack, trunk at the top.
    pub visualization: String,
    /// The dependent's base is the base PR's head branch.
    pub matches: bool,
    /// What is off about the stack (valid when empty).
    pub issues: Vec<String>,
    pub merged: bool,
    pub how: Option<MergeHow>,
    pub merge_commit: Option<String>,
    /// Commits in the base's head that the dependent lacks (0 once merged), and some of them.
    pub new_in_base: u64,
    pub base_commits: Vec<CommitInfo>,
    /// Where the recommended rebase first stops, per branch.
    pub predicted: Vec<PredictedConflict>,
    /// Files the predicted rebase conflicts in.
    pub potential: Vec<String>,
    pub onto_command: String,
    pub regular_command: String,
    pub risk: Risk,
    pub risk_factors: Vec<String>,
    /// What happened, or what is to be done, in a sentence or two.
    pub reason: String,
    pub recommendations: Vec<String>,
    pub action_required: bool,
    pub estimated_total_time: String,
}

/// The report on `work` (the restack of `dependent` on `base` within `walked`).
pub fn report(pair: &Pair, walked: &Walked, work: &Work, trunk_branch: &str) -> Report {
    let (base, dependent) = (&pair.base, &pair.dependent);
    let plan = &work.plan;
    let pr_name = |n: u64| format!("#{n}");
    let stack = levels(walked, base, dependent);
    let (merged, how, merge_commit) = match &plan.base_state {
        BaseState::Merged { how, commit } => (true, Some(how.clone()), commit.clone()),
        BaseState::Open { .. } => (false, None, None),
    };
    let base_label = match &how {
        Some(h) => format!(
            "{}{}{}",
            merge_method(h),
            merge_commit
                .as_deref()
                .map(|c| format!(" → {}", short(c)))
                .unwrap_or_default(),
            if work.edited_squash { ", edited" } else { "" }
        ),
        None => String::new(),
    };
    let trunk_name = stack
        .first()
        .map(|(p, _)| p.base_ref.clone())
        .unwrap_or_else(|| trunk_branch.to_owned());
    let vis = visualization(&trunk_name, &stack, plan, &base_label);
    let dep = &plan.levels[0];
    let matches = dependent.base_ref == base.head_ref;
    let mut issues = Vec::new();
    if !matches && plan.stacked {
        issues.push(format!(
            "#{}'s base is {:?}, not #{}'s head {:?}{}",
            dependent.number,
            dependent.base_ref,
            base.number,
            base.head_ref,
            if merged && plan.stacked {
                " (retargeted after the merge; it still carries the base's commits)"
            } else {
                ""
            }
        ));
    }
    if !plan.stacked {
        issues.push(format!(
            "#{} no longer carries #{}'s commits: it already sits on #{}'s merge commit",
            dependent.number, base.number, base.number
        ));
    } else if dep.boundary == Boundary::RecordedBase {
        issues.push(format!(
            "#{} does not contain #{}'s head {}: the base was rewritten; #{}'s own commits are \
             taken to start at {}, the base the forge last recorded for it",
            dependent.number,
            base.number,
            short(&base.head_sha),
            dependent.number,
            short(&dep.old_base)
        ));
    } else if let Boundary::PreviousTip(source) = dep.boundary {
        issues.push(format!(
            "#{}'s branch was force-pushed after #{} left it (its head is {} now): #{}'s own \
             commits start at {}, where {} shows #{}'s branch was",
            base.number,
            dependent.number,
            short(&base.head_sha),
            dependent.number,
            short(&dep.old_base),
            match source {
                TipSource::Timeline => "the forge's timeline of the base PR",
                TipSource::Reflog => "your remote-tracking branch's reflog",
                TipSource::EarlierCall => "an earlier call's fetch",
            },
            base.number
        ));
    } else if dep.boundary == Boundary::Trunk {
        issues.push(format!(
            "#{} holds {}'s commits up to {}: its own commits are taken to start there, so              none of {}'s is replayed as its own",
            dependent.number,
            trunk_name,
            short(&dep.old_base),
            trunk_name
        ));
    } else if dep.boundary == Boundary::MergeBase {
        issues.push(format!(
            "#{} does not contain #{}'s head {}: its own commits are taken to start at their \
             merge base {}",
            dependent.number,
            base.number,
            short(&base.head_sha),
            short(&dep.old_base)
        ));
    }
    if dep.guess {
        issues.push(guess_issue(base, dependent, &dep.old_base));
    }
    if !walked.siblings.is_empty() {
        issues.push(format!(
            "The stack forks: {} also build on a branch of it and were not followed.",
            walked
                .siblings
                .iter()
                .map(|n| format!("#{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for f in &work.forks {
        issues.push(match &f.url {
            Some(_) => format!(
                "#{} is from a fork ({}): it is left out of the push to {}; the commands push \
                 it to the fork (when its author lets maintainers edit), or @{} restacks it.",
                f.number,
                f.repo.as_deref().unwrap_or("deleted"),
                work.remote,
                f.author
            ),
            None => format!(
                "#{} is from a fork that is gone: it is left out of the push; only @{} can \
                 move it.",
                f.number, f.author
            ),
        });
    }
    for l in plan.levels.iter().filter(|l| nothing_left(l)) {
        issues.push(format!(
            "#{} has nothing left: all {} of its commit(s) are in {} already (cherry-picked, \
             or squashed with its base); close it rather than push an empty branch.",
            l.number,
            l.onto.emptied.len(),
            plan.new_base_branch
        ));
    }
    if work.edited_squash
        && let Some(c) = &merge_commit
    {
        issues.push(format!(
            "#{} was squash-merged as {}, the forge says; its changes differ slightly from the \
             PR's (edited while squashing).",
            base.number,
            short(c)
        ));
    }
    let (new_in_base, base_commits) = match &plan.base_state {
        BaseState::Open {
            new_commits,
            new_commits_total,
        } => (*new_commits_total as u64, new_commits.clone()),
        BaseState::Merged { .. } => (0, Vec::new()),
    };
    let predicted: Vec<PredictedConflict> = plan
        .levels
        .iter()
        .filter(|l| !l.conflict_in_lower)
        .filter_map(|l| {
            let c = l.onto.conflicts.first()?;
            let pr = stack
                .iter()
                .find(|(p, _)| p.head_ref == l.branch)
                .map(|(p, _)| pr_name(p.number))
                .unwrap_or_default();
            Some(PredictedConflict {
                pr,
                branch: l.branch.clone(),
                commit: c.commit.clone(),
                summary: c.summary.clone(),
                files: c.files.clone(),
            })
        })
        .collect();
    let strategy = work.choice.strategy;
    let reason = &work.choice.reason;
    let predicted = if strategy == Strategy::Regular {
        plan.regular
            .conflicts
            .first()
            .map(|c| PredictedConflict {
                pr: pr_name(dependent.number),
                branch: dep.branch.clone(),
                commit: c.commit.clone(),
                summary: c.summary.clone(),
                files: c.files.clone(),
            })
            .into_iter()
            .collect()
    } else {
        predicted
    };
    let mut potential: Vec<String> = predicted.iter().flat_map(|p| p.files.clone()).collect();
    potential.extend(dep.onto.final_conflicts.iter().cloned());
    potential.sort();
    potential.dedup();
    let changes_detected = !plan.up_to_date;
    let (onto_command, regular_command) = commands::rebase_commands(
        &work.remote,
        &plan.new_base_branch,
        &dep.old_base,
        &local_branch(dep, &work.forks),
    );
    let mut risk_factors = Vec::new();
    if !predicted.is_empty() {
        risk_factors.push(format!(
            "The rebase is predicted to stop at a conflict in {}.",
            potential.join(", ")
        ));
    }
    if !plan.overlapping_files.is_empty() {
        risk_factors.push(format!(
            "{} file(s) changed by both PRs.",
            plan.overlapping_files.len()
        ));
    }
    if plan.levels.len() > 1 {
        risk_factors.push(format!("{} branches move.", plan.levels.len()));
    }
    if work.edited_squash
        || matches!(
            how,
            Some(MergeHow::Unknown) | Some(MergeHow::ContentInTrunk)
        )
    {
        risk_factors.push(
            "How the base PR reached trunk could not be matched commit for commit.".to_owned(),
        );
    }
    let risk_level = if !predicted.is_empty() {
        Risk::High
    } else if risk_factors.is_empty() {
        Risk::Low
    } else {
        Risk::Medium
    };
    let executed =
        matches!(work.outcome, Some(Ok(()))) && work.steps.iter().any(|s| s.status == "done");
    let pushed = work
        .steps
        .iter()
        .any(|s| s.step == "push" && s.status == "done");
    let rolled_back = work
        .steps
        .iter()
        .any(|s| s.step.starts_with("rollback") && s.status == "done");
    let left_out = work
        .steps
        .iter()
        .any(|s| s.step.starts_with("push ") && s.status == "skipped");
    let reason_summary = if executed && rolled_back {
        "Rolled back: the remote branches are at their old heads again; a retarget is not undone \
         (the commands say how). The commands move your local branches there."
            .to_owned()
    } else if executed && pushed {
        format!(
            "Restacked {} onto {}; {}.{} The commands bring your local branches to the result.",
            plan.levels
                .iter()
                .map(|l| l.branch.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            plan.new_base_branch,
            work.steps
                .iter()
                .find(|s| s.step == "push")
                .map_or("", |s| s.detail.as_str()),
            if left_out {
                " The others were left out (issues)."
            } else {
                ""
            }
        )
    } else if executed && left_out {
        format!(
            "Restacked {} onto {} into refs/resolve-pr/restack/; nothing was pushed (issues).",
            plan.levels
                .iter()
                .map(|l| l.branch.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            plan.new_base_branch
        )
    } else if executed {
        format!(
            "Restacked {} onto {} into refs/resolve-pr/restack/; nothing was pushed (push: true \
             pushes with a lease).",
            plan.levels
                .iter()
                .map(|l| l.branch.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            plan.new_base_branch
        )
    } else if plan.up_to_date {
        format!(
            "#{} already sits on {}: nothing to restack.",
            dependent.number, plan.new_base_branch
        )
    } else if merged {
        format!(
            "#{} merged into {}; #{} still carries its commits and must move onto {}.",
            base.number, base.base_ref, dependent.number, plan.new_base_branch
        )
    } else {
        format!(
            "#{} has {} commit(s) #{} lacks.",
            base.number, new_in_base, dependent.number
        )
    };
    let mut recommendations = Vec::new();
    if changes_detected {
        recommendations.push(format!(
            "Use the {} rebase: {reason}",
            match strategy {
                Strategy::Onto => "--onto",
                Strategy::Regular => "plain",
            }
        ));
        if merged && matches {
            recommendations.push(format!(
                "Retarget #{} to {} before deleting {:?}.",
                dependent.number, trunk_branch, base.head_ref
            ));
        }
    }
    let total_time = if plan.up_to_date {
        "none".to_owned()
    } else if predicted.is_empty() {
        "10-20 minutes (mostly CI)".to_owned()
    } else {
        "30-60 minutes (conflicts to resolve, then CI)".to_owned()
    };
    Report {
        visualization: vis,
        matches,
        issues,
        merged,
        how,
        merge_commit,
        new_in_base,
        base_commits,
        predicted,
        potential,
        onto_command,
        regular_command,
        risk: risk_level,
        risk_factors,
        reason: reason_summary,
        recommendations,
        action_required: if executed {
            (!pushed && !rolled_back) || left_out
        } else {
            changes_detected
        },
        estimated_total_time: total_time,
    }
}

/// Why a guessed boundary is in `issues`, and how to give it.
fn guess_issue(base: &PullRequest, dependent: &PullRequest, start: &str) -> String {
    format!(
        "Where #{}'s own commits start is a guess: nothing records where #{}'s branch was when \
         #{} left it ({}'s timeline shows a force-push whose old head is not here, or could not \
         be read), so they are taken to start at their merge base {}, and a commit #{} dropped \
         may be counted as #{}'s own. Check `git log {}..{}`; give old_base (the commit #{} \
         left #{}'s branch at) to restack, and push only then.",
        dependent.number,
        base.number,
        dependent.number,
        base.number,
        short(start),
        base.number,
        dependent.number,
        short(start),
        short(&dependent.head_sha),
        dependent.number,
        base.number
    )
}

fn visualization(
    trunk: &str,
    levels: &[(&PullRequest, Role)],
    plan: &StackPlan,
    base_state: &str,
) -> String {
    let mut out = format!("{trunk}\n");
    for (i, (p, role)) in levels.iter().enumerate() {
        let indent = "   ".repeat(i);
        let mut label = format!(
            "{indent}└─ #{} {} [{}",
            p.number,
            p.head_ref,
            state_name(p.state)
        );
        if *role == Role::Base && !base_state.is_empty() {
            label.push_str(&format!(": {base_state}"));
        }
        if let Some(l) = plan
            .levels
            .iter()
            .find(|l| l.branch == p.head_ref && l.head == p.head_sha)
        {
            label.push_str(&format!(", {} own commit(s)", l.own_commits_total));
        }
        label.push(']');
        match role {
            Role::Base => label.push_str("  ← base_pr"),
            Role::Dependent => label.push_str("  ← dependent_pr"),
            _ => {}
        }
        out.push_str(&label);
        out.push('\n');
    }
    out
}
