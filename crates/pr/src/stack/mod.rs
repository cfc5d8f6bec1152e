//! Stacked pull requests: which PRs form the stack around a pair (walked on the forge, both
//! ways), whether and how the base PR landed in trunk (merge, squash, rebase), where each
//! dependent branch's own commits start (its old parent tip, checked to be an ancestor), and
//! what replaying them would do, predicted commit by commit before anything moves.
//!
//! [`walk`] reads the forge; [`plan`] reads the local repository (commits fetched by the
//! caller into `refs/resolve-pr/…`) and writes nothing to it. [`restack`] plans and, when
//! asked, restacks, pushes or rolls back (`execute`); [`choose`] picks `--onto` or a plain
//! rebase (`strategy`); [`commands()`] gives the steps to do it by hand (`commands`); and
//! [`report()`] words the answer (`report`).

use resolve_pr_core::{PrRef, RepoRef};
use resolve_pr_forge::{Forge, ForgeKind, PullFilter, PullListState, PullRequest};
use resolve_pr_git::{CommitInfo, Landed, ReplayPrediction, Repository};

mod commands;
mod execute;
mod pair;
mod report;
mod strategy;

pub use commands::{Command, CommandType, commands};
pub use execute::{
    Action, Checkout, Progress, StepReport, Work, checked_prs, now, restack, retarget,
};
pub use pair::{Pair, pair, prepare};
pub use report::{PredictedConflict, Report, Risk, Role, levels, report, state_name};
pub use strategy::{Choice, Fork, Strategy, choose, merge_method};

/// A commit's abbreviated id, as commands and notes show it.
fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// Levels walked at most in each direction.
pub const MAX_LEVELS: usize = 8;

/// The PRs around a pair, as the forge links them by branch names.
#[derive(Debug, Clone)]
pub struct Walked {
    /// Open PRs below the base PR (nearest trunk first): each one's head branch is the base
    /// branch of the next.
    pub below: Vec<PullRequest>,
    /// Open PRs above the dependent (nearest first): each one is based on the head branch of
    /// the one before.
    pub above: Vec<PullRequest>,
    /// Other open PRs based on the same branch as one of `above` or the dependent, which the
    /// walk did not follow (a stack that forks).
    pub siblings: Vec<u64>,
    /// Forge requests the walk made.
    pub requests: usize,
}

/// Open pull requests read at most, when the whole open list is read at once.
const OPEN_LIST_LIMIT: usize = 5000;

/// Walks down from `base` (open PRs whose head branch is its base branch) and up
/// from `dependent` (open PRs based on its head branch), at most [`MAX_LEVELS`] each way.
/// GitHub filters its list by branch: one list request per level and one more at each end.
/// Forgejo and Gitea (before Forgejo 16) ignore those filters, so each level would page
/// through every open PR: there the open list is read once and every level is found in it.
pub async fn walk(
    forge: &dyn Forge,
    repo: &RepoRef,
    base: &PullRequest,
    dependent: &PullRequest,
) -> resolve_pr_forge::Result<Walked> {
    let mut open = OpenPulls {
        forge,
        repo,
        listed: None,
        requests: 0,
    };
    if forge.kind() != ForgeKind::GitHub {
        open.read_all().await?;
    }
    let mut below: Vec<PullRequest> = Vec::new();
    let mut seen = vec![base.number, dependent.number];
    let mut branch = base.base_ref.clone();
    for _ in 0..MAX_LEVELS {
        // Open PRs only: a lower PR that merged is trunk's business now.
        let found = open.with_head(&branch).await?;
        // The most recent PR of that branch that is not a fork's (a fork's head branch of the
        // same name is another branch).
        let Some(next) = found
            .into_iter()
            .filter(|p| !p.is_from_fork() && !seen.contains(&p.number) && p.head_ref == branch)
            .max_by_key(|p| p.number)
        else {
            break;
        };
        seen.push(next.number);
        branch = next.base_ref.clone();
        below.insert(0, next);
    }
    let mut above: Vec<PullRequest> = Vec::new();
    let mut siblings = Vec::new();
    let mut branch = dependent.head_ref.clone();
    for _ in 0..MAX_LEVELS {
        let mut found: Vec<PullRequest> = open
            .with_base(&branch)
            .await?
            .into_iter()
            .filter(|p| !seen.contains(&p.number) && p.base_ref == branch)
            .collect();
        found.sort_by_key(|p| p.number);
        let mut found = found.into_iter();
        let Some(next) = found.next() else { break };
        siblings.extend(found.map(|p| p.number));
        seen.push(next.number);
        branch = next.head_ref.clone();
        above.push(next);
    }
    Ok(Walked {
        below,
        above,
        siblings,
        requests: open.requests,
    })
}

/// The repository's open pull requests by branch: asked of the forge per branch, or found in
/// the whole open list once it was read.
struct OpenPulls<'a> {
    forge: &'a dyn Forge,
    repo: &'a RepoRef,
    listed: Option<Vec<PullRequest>>,
    requests: usize,
}

impl OpenPulls<'_> {
    async fn read_all(&mut self) -> resolve_pr_forge::Result<()> {
        let filter = PullFilter {
            state: PullListState::Open,
            limit: OPEN_LIST_LIMIT,
            ..PullFilter::default()
        };
        self.requests += 1;
        let all = self
            .forge
            .pull_requests()
            .list_pull_requests(self.repo, &filter)
            .await?;
        self.listed = Some(all);
        Ok(())
    }

    async fn with_head(&mut self, branch: &str) -> resolve_pr_forge::Result<Vec<PullRequest>> {
        self.matching(Some(branch), None).await
    }

    async fn with_base(&mut self, branch: &str) -> resolve_pr_forge::Result<Vec<PullRequest>> {
        self.matching(None, Some(branch)).await
    }

    async fn matching(
        &mut self,
        head: Option<&str>,
        base: Option<&str>,
    ) -> resolve_pr_forge::Result<Vec<PullRequest>> {
        if let Some(all) = &self.listed {
            return Ok(all
                .iter()
                .filter(|p| head.is_none_or(|h| p.head_ref == h && !p.is_from_fork()))
                .filter(|p| base.is_none_or(|b| p.base_ref == b))
                .cloned()
                .collect());
        }
        let filter = PullFilter {
            state: PullListState::Open,
            head: head.map(str::to_owned),
            base: base.map(str::to_owned),
            limit: 10,
            ..PullFilter::default()
        };
        self.requests += 1;
        self.forge
            .pull_requests()
            .list_pull_requests(self.repo, &filter)
            .await
    }
}

/// What the base PR's timeline records of its head branch (one request): every commit it
/// was pushed to or from, and its force-pushes. A timeline that cannot be read (an older
/// Gitea, a token without access) leaves the force-pushes unknown, and says why.
pub async fn base_history(forge: &dyn Forge, base: &PrRef) -> (BaseHistory, Option<String>) {
    match forge.pull_requests().head_pushes(base).await {
        Ok(read) => {
            let mut tips = Vec::new();
            let mut force_pushes = Vec::new();
            for push in read.pushes {
                if push.forced {
                    force_pushes.push((push.before.clone(), push.after.clone()));
                }
                for oid in push
                    .before
                    .into_iter()
                    .chain(push.after)
                    .chain(push.commits)
                {
                    tips.push((oid, TipSource::Timeline));
                }
            }
            let history = BaseHistory {
                tips,
                force_pushes: read.complete.then_some(force_pushes),
            };
            let why = (!read.complete)
                .then(|| format!("#{}'s timeline is longer than was read", base.number));
            (history, why)
        }
        Err(e) => (
            BaseHistory::default(),
            Some(format!(
                "#{}'s timeline could not be read: {e}",
                base.number
            )),
        ),
    }
}

/// How the base PR's changes reached trunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseState {
    /// Merged; `how` from the local history, `commit` the forge's merge commit.
    Merged {
        how: MergeHow,
        commit: Option<String>,
    },
    /// Not merged: `new_commits` are in the base PR's head and not in the dependent.
    Open {
        new_commits: Vec<CommitInfo>,
        new_commits_total: usize,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeHow {
    /// Its head is in trunk's history (a merge commit or a fast-forward).
    MergeCommit,
    /// One trunk commit carries all of it.
    Squash { commit: String },
    /// Each commit was re-applied on trunk.
    Rebase { commits: Vec<String> },
    /// Trunk has every change, but no commit matches: squashed with edits, or merged
    /// another way.
    ContentInTrunk,
    /// The forge says merged, and trunk's recent history shows neither its commits nor its
    /// changes (trunk not fetched far enough, or reverted since).
    Unknown,
}

impl MergeHow {
    /// Whether trunk holds the base's changes as other commits than the dependent has.
    pub fn rewrote(&self) -> bool {
        !matches!(self, MergeHow::MergeCommit)
    }
}

/// Where a branch's own commits start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boundary {
    /// The parent PR's head commit: an ancestor of the branch.
    ParentHead,
    /// The parent moved on (or was rewritten) after the branch left it: the merge base of
    /// the two.
    MergeBase,
    /// The parent was rewritten after the branch left it: the commit the forge last
    /// recorded as the branch's base, which the branch still contains.
    RecordedBase,
    /// The branch holds trunk commits newer than where it left its parent (it was rebased
    /// onto trunk, or trunk merged into it): its own commits start after its merge base with
    /// trunk, so trunk's commits are never replayed as its own.
    Trunk,
    /// The parent was rewritten after the branch left it: the newest earlier tip of the
    /// parent's branch that the branch holds (its merge base with one), read from `source`.
    PreviousTip(TipSource),
    /// Given by the caller (`PlanInput::old_base`).
    Given,
}

/// Where an earlier tip of the base PR's head branch was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TipSource {
    /// The base PR's timeline on the forge (its force-pushes and pushes).
    Timeline,
    /// The reflog of the checkout's remote-tracking branch (`git merge-base --fork-point`).
    Reflog,
    /// A ref an earlier call fetched the branch into.
    EarlierCall,
}

/// What is recorded of the base PR's head branch before it was where it is now.
#[derive(Debug, Clone, Default)]
pub struct BaseHistory {
    /// Commits the branch pointed at, or that were pushed to it, with where each was read.
    pub tips: Vec<(String, TipSource)>,
    /// The force-pushes the base PR's timeline records, oldest first (head before, head
    /// after); `None` when the timeline could not be read whole.
    pub force_pushes: Option<Vec<(Option<String>, Option<String>)>>,
}

/// One branch of the stack that moves.
#[derive(Debug, Clone)]
pub struct LevelPlan {
    pub number: u64,
    pub branch: String,
    pub head: String,
    /// The old parent tip its own commits start after, recorded before anything moves.
    pub old_base: String,
    pub boundary: Boundary,
    pub own_commits: Vec<CommitInfo>,
    pub own_commits_total: usize,
    /// Of them, the commits a rebase onto the new base replays (no merge commits, none the
    /// new base already has).
    pub own_replayed: usize,
    pub files: Vec<String>,
    pub additions: u64,
    pub deletions: u64,
    /// Replaying the stack from the dependent's old parent tip through this level onto the
    /// new base (the levels below first, as a restack does).
    pub onto: ReplayPrediction,
    /// `onto` stops on a commit of a level below (reported there), not on one of this one.
    pub conflict_in_lower: bool,
    /// No record says where its own commits start: `old_base` is their merge base, and a
    /// commit its parent dropped by a force-push may be counted as its own. Never pushed.
    pub guess: bool,
}

/// What restacking the dependent (and the PRs above it) onto the new base means.
#[derive(Debug, Clone)]
pub struct StackPlan {
    /// The dependent builds on the base's branch or carries its commits. `false`: the base
    /// merged and the dependent already sits on its merge commit (restacked before).
    pub stacked: bool,
    pub base_state: BaseState,
    /// Where the dependent goes: trunk's tip after the base merged, else the base's head.
    pub new_base: String,
    /// The branch `new_base` is the tip of.
    pub new_base_branch: String,
    pub base_head: String,
    /// The dependent first, then each PR above it.
    pub levels: Vec<LevelPlan>,
    /// A plain `git rebase <new base>` of the dependent: what it would replay and do.
    pub regular: ReplayPrediction,
    pub regular_commits: usize,
    /// Whether the dependent already sits on the new base (nothing to do).
    pub up_to_date: bool,
    pub common_ancestor: Option<String>,
    pub base_files: Vec<String>,
    pub base_additions: u64,
    pub base_deletions: u64,
    pub overlapping_files: Vec<String>,
}

/// The commits of the pair as fetched: object ids present in `repo`.
#[derive(Debug, Clone)]
pub struct PlanInput {
    /// Trunk's tip (the base PR's target branch).
    pub trunk: String,
    pub trunk_branch: String,
    pub base: PullRequest,
    pub dependent: PullRequest,
    /// Open PRs above the dependent, nearest first.
    pub above: Vec<PullRequest>,
    /// Commits listed per level at most.
    pub commit_limit: usize,
    /// Earlier tips of the base PR's head branch, where the dependent may have left it.
    pub base_history: BaseHistory,
    /// Where the dependent's own commits start, as the caller knows it (checked to be an
    /// ancestor of its head): taken as it is.
    pub old_base: Option<String>,
}

/// Why the two PRs do not form a stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotStacked {
    pub dependent_base: String,
    pub base_head_branch: String,
}

/// Plans the restack. `Ok(Err(..))`: the pair is not a stack.
pub fn plan(
    repo: &Repository,
    input: &PlanInput,
) -> resolve_pr_git::Result<Result<StackPlan, NotStacked>> {
    let base = &input.base;
    let dep = &input.dependent;
    let base_head = base.head_sha.clone();
    let dep_head = dep.head_sha.clone();
    let merged = base.state == resolve_pr_forge::PrState::Merged;
    let branch_stacked = dep.base_ref == base.head_ref;
    let carries = repo.is_ancestor(&base_head, &dep_head)?;
    let common_ancestor = repo.merge_base(&base_head, &dep_head)?;
    // Restacked already: the base merged and the dependent sits on its merge commit.
    let restacked = merged
        && !branch_stacked
        && !carries
        && match base.merge_commit_sha.as_deref() {
            Some(m) => repo.has_commit(m)? && repo.is_ancestor(m, &dep_head)?,
            None => false,
        };
    let stacked = branch_stacked
        || carries
        || (merged && shares_own_commits(repo, input, common_ancestor.as_deref())?);
    if !stacked && !restacked {
        return Ok(Err(NotStacked {
            dependent_base: dep.base_ref.clone(),
            base_head_branch: base.head_ref.clone(),
        }));
    }
    let base_state = if merged {
        let fork_point = base_fork_point(repo, input)?;
        let landed = repo.landed(&fork_point, &base_head, &input.trunk, 2000)?;
        let how = match landed {
            Landed::Ancestor => MergeHow::MergeCommit,
            Landed::Squashed { commit } => MergeHow::Squash { commit },
            Landed::Rebased { commits } => MergeHow::Rebase { commits },
            Landed::ContentInTrunk => MergeHow::ContentInTrunk,
            Landed::NotLanded => MergeHow::Unknown,
        };
        BaseState::Merged {
            how,
            commit: base.merge_commit_sha.clone(),
        }
    } else {
        let (new_commits, total) =
            repo.commits_between(&dep_head, &base_head, input.commit_limit)?;
        BaseState::Open {
            new_commits,
            new_commits_total: total,
        }
    };
    let (new_base, new_base_branch) = if merged {
        (input.trunk.clone(), input.trunk_branch.clone())
    } else {
        (base_head.clone(), base.head_ref.clone())
    };

    // The dependent's own commits start after the base's head when it carries it; after the
    // point it left the base otherwise.
    let mut guess = false;
    let (old_base, boundary) = if let Some(given) = &input.old_base {
        (given.clone(), Boundary::Given)
    } else if restacked {
        let mb = repo
            .merge_base(&input.trunk, &dep_head)?
            .unwrap_or_else(|| dep_head.clone());
        (mb, Boundary::MergeBase)
    } else {
        // A base that dropped its last commits is still in the dependent: an earlier tip
        // may be newer than its head there too.
        let (start, boundary) = if carries {
            (base_head.clone(), Boundary::ParentHead)
        } else {
            left_parent(repo, common_ancestor.clone(), dep)?
        };
        let (start, boundary) = newest_previous_tip(repo, input, start, boundary)?;
        guess = is_guess(repo, &input.base_history, &start, boundary)?;
        (start, boundary)
    };
    let (old_base, boundary) = if boundary == Boundary::Given {
        (old_base, boundary)
    } else {
        past_trunk(repo, &input.trunk, &dep_head, old_base, boundary)?
    };
    let mut levels = Vec::new();
    let mut parent_old_head = dep_head.clone();
    let mut level_base = old_base.clone();
    let mut level_boundary = boundary;
    for (i, pr) in std::iter::once(dep).chain(input.above.iter()).enumerate() {
        if i > 0 {
            let above_carries = repo.is_ancestor(&parent_old_head, &pr.head_sha)?;
            if above_carries {
                level_base = parent_old_head.clone();
                level_boundary = Boundary::ParentHead;
            } else {
                let mb = repo.merge_base(&parent_old_head, &pr.head_sha)?;
                (level_base, level_boundary) = left_parent(repo, mb, pr)?;
            }
            (level_base, level_boundary) =
                past_trunk(repo, &input.trunk, &pr.head_sha, level_base, level_boundary)?;
        }
        let (own_commits, own_total) =
            repo.commits_between(&level_base, &pr.head_sha, input.commit_limit)?;
        let stat = repo.diff_stat(&level_base, &pr.head_sha)?;
        // What a rebase replays of them: no merge commit, nothing the new base has already
        // (commits of trunk merged into the branch). Commits past the listed ones count as
        // replayed.
        let mut own_replayed = own_total.saturating_sub(own_commits.len());
        for c in &own_commits {
            if c.parents.len() <= 1 && !repo.is_ancestor(&c.oid, &new_base)? {
                own_replayed += 1;
            }
        }
        levels.push(LevelPlan {
            conflict_in_lower: false,
            guess: i == 0 && guess,
            number: pr.number,
            branch: pr.head_ref.clone(),
            head: pr.head_sha.clone(),
            old_base: level_base.clone(),
            boundary: level_boundary,
            own_commits,
            own_commits_total: own_total,
            own_replayed,
            files: stat.files,
            additions: stat.additions,
            deletions: stat.deletions,
            onto: ReplayPrediction {
                commits: 0,
                clean: true,
                conflicts: Vec::new(),
                final_conflicts: Vec::new(),
                emptied: Vec::new(),
            },
        });
        parent_old_head = pr.head_sha.clone();
    }
    // Replaying the stack level by level, as a restack does: the levels below first.
    let ranges: Vec<(String, String)> = levels
        .iter()
        .map(|l| (l.old_base.clone(), l.head.clone()))
        .collect();
    let mut first_stop: Option<usize> = None;
    for (i, (level, onto)) in levels
        .iter_mut()
        .zip(repo.predict_stack(&new_base, &ranges)?)
        .enumerate()
    {
        if !onto.clean && first_stop.is_none() {
            first_stop = Some(i);
        }
        // A stop on a lower level's commit is that level's, reported there.
        level.conflict_in_lower = first_stop.is_some_and(|at| at < i);
        level.onto = onto;
    }
    let regular_from = repo
        .merge_base(&new_base, &dep_head)?
        .unwrap_or_else(|| old_base.clone());
    let regular = repo.predict_replay(&new_base, &regular_from, &dep_head)?;
    let (_, regular_commits) = repo.commits_between(&regular_from, &dep_head, 0)?;
    // On the new base, and carrying no commit of the base's that trunk has as other commits.
    let up_to_date = repo.is_ancestor(&new_base, &dep_head)?
        && !(carries && matches!(&base_state, BaseState::Merged { how, .. } if how.rewrote()));
    let base_from = base_fork_point(repo, input)?;
    let base_stat = repo.diff_stat(&base_from, &base_head)?;
    let dep_files = &levels[0].files;
    let overlapping_files = base_stat
        .files
        .iter()
        .filter(|f| dep_files.contains(f))
        .cloned()
        .collect();
    Ok(Ok(StackPlan {
        stacked,
        base_state,
        new_base,
        new_base_branch,
        base_head,
        levels,
        regular,
        regular_commits,
        up_to_date,
        common_ancestor,
        base_files: base_stat.files,
        base_additions: base_stat.additions,
        base_deletions: base_stat.deletions,
        overlapping_files,
    }))
}

/// Where the own commits of `pr` start when it does not contain its parent's head (the
/// parent moved on, or was rewritten, after `pr` left it; `merge_base` is theirs). The
/// commit the forge last recorded as `pr`'s base is the old parent tip when `pr` still
/// contains it and it is newer than the merge base: a rewritten parent's old commits are
/// then not taken for `pr`'s own.
fn left_parent(
    repo: &Repository,
    merge_base: Option<String>,
    pr: &PullRequest,
) -> resolve_pr_git::Result<(String, Boundary)> {
    let mb = merge_base.unwrap_or_else(|| pr.head_sha.clone());
    let recorded = pr.base_sha.as_str();
    if !recorded.is_empty()
        && recorded != mb
        && repo.has_commit(recorded)?
        && repo.is_ancestor(recorded, &pr.head_sha)?
        && repo.is_ancestor(&mb, recorded)?
    {
        Ok((recorded.to_owned(), Boundary::RecordedBase))
    } else {
        Ok((mb, Boundary::MergeBase))
    }
}

/// The dependent's own commits start after `start` (from [`left_parent`]) unless an
/// earlier tip of the base's branch says they start later: every commit reachable from a
/// tip the branch had is the base's, not the dependent's, so the newest merge base of the
/// dependent with such a tip is where its own commits start (a commit the base dropped by a
/// force-push after the dependent left it is then not taken for the dependent's own).
fn newest_previous_tip(
    repo: &Repository,
    input: &PlanInput,
    start: String,
    boundary: Boundary,
) -> resolve_pr_git::Result<(String, Boundary)> {
    let head = &input.dependent.head_sha;
    let (mut best, mut boundary) = (start, boundary);
    for (tip, source) in &input.base_history.tips {
        if !repo.has_commit(tip)? {
            continue;
        }
        let Some(point) = repo.merge_base(tip, head)? else {
            continue;
        };
        if point != best && repo.is_ancestor(&best, &point)? {
            best = point;
            boundary = Boundary::PreviousTip(*source);
        }
    }
    Ok((best, boundary))
}

/// Whether where the dependent's own commits start (`start`, found as `boundary`) is a
/// guess: no timeline of the base could be read and nothing newer than the merge base was
/// recorded; or the timeline has a force-push that may have dropped the dependent's
/// starting point (its head after is not strictly older than `start`) whose head before is
/// not in the repository to check. A timeline without such a push says the base's branch
/// only moved forward since `start` was on it (a rewrite before the PR was opened is not
/// on any timeline).
fn is_guess(
    repo: &Repository,
    history: &BaseHistory,
    start: &str,
    boundary: Boundary,
) -> resolve_pr_git::Result<bool> {
    let Some(force_pushes) = &history.force_pushes else {
        return Ok(boundary == Boundary::MergeBase);
    };
    if boundary == Boundary::Given {
        return Ok(false);
    }
    for (before, after) in force_pushes {
        let before_start = match after {
            Some(after) if after != start && repo.has_commit(after)? => {
                repo.is_ancestor(after, start)?
            }
            _ => false,
        };
        if before_start {
            continue;
        }
        let checkable = match before {
            Some(before) => repo.has_commit(before)?,
            None => false,
        };
        if !checkable {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `boundary` moved past trunk's commits: when `head`'s merge base with trunk is newer than
/// `start` (the branch was rebased onto a newer trunk, by a force-push say, or trunk was
/// merged into it), the branch's own commits start there, so no commit of trunk's is
/// replayed as the branch's own.
fn past_trunk(
    repo: &Repository,
    trunk: &str,
    head: &str,
    start: String,
    boundary: Boundary,
) -> resolve_pr_git::Result<(String, Boundary)> {
    match repo.merge_base(trunk, head)? {
        Some(with_trunk) if with_trunk != start && repo.is_ancestor(&start, &with_trunk)? => {
            Ok((with_trunk, Boundary::Trunk))
        }
        _ => Ok((start, boundary)),
    }
}

/// Where the base PR's own commits start: its merge base with the commit its target branch
/// was at as the forge last reported it, when that does not already hold the head; else,
/// for a PR merged with a merge commit, with that commit's first parent (trunk just before
/// the merge); else with trunk. Its head when the histories are unrelated.
///
/// Forgejo and Gitea report a branch's current tip as `base.sha`: once a PR merged with a
/// merge commit it holds the head, whose merge base with it is the head itself (no own
/// commits, no changed files), so history says where the target was instead.
fn base_fork_point(repo: &Repository, input: &PlanInput) -> resolve_pr_git::Result<String> {
    let head = &input.base.head_sha;
    let recorded = input.base.base_sha.as_str();
    let target = if !recorded.is_empty()
        && repo.has_commit(recorded)?
        && !repo.is_ancestor(head, recorded)?
    {
        recorded.to_owned()
    } else if let Some(before) = before_merge_commit(repo, &input.base)? {
        before
    } else {
        input.trunk.clone()
    };
    Ok(repo
        .merge_base(head, &target)?
        .unwrap_or_else(|| head.clone()))
}

/// The first parent of the base PR's merge commit when it is a merge of the head (two
/// parents, not the head itself): the target branch just before the merge.
fn before_merge_commit(
    repo: &Repository,
    base: &PullRequest,
) -> resolve_pr_git::Result<Option<String>> {
    let Some(merge) = base.merge_commit_sha.as_deref() else {
        return Ok(None);
    };
    if merge == base.head_sha || !repo.has_commit(merge)? {
        return Ok(None);
    }
    let second = repo.resolve_commit(&format!("{merge}^2")).ok();
    if second.is_none() || !repo.is_ancestor(&base.head_sha, merge)? {
        return Ok(None);
    }
    Ok(repo.resolve_commit(&format!("{merge}^1")).ok())
}

/// Whether the dependent carries some of the base PR's own commits (an older version of the
/// base): their common ancestor is past the base's fork point from trunk.
fn shares_own_commits(
    repo: &Repository,
    input: &PlanInput,
    common: Option<&str>,
) -> resolve_pr_git::Result<bool> {
    let Some(common) = common else {
        return Ok(false);
    };
    let base_fork = base_fork_point(repo, input)?;
    Ok(common != base_fork && repo.is_ancestor(&base_fork, common)?)
}
