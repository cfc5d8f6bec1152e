//! The commands that restack a stack by hand, in order and numbered, each built from an
//! argument vector ([`ShellCommand`]): fetch, check each local branch holds its PR's head,
//! rebase, push with a lease, retarget, wait for CI; or, after an execute, what brings the
//! user's local branches to its result.

use resolve_pr_core::{PrRef, ShellCommand};
use resolve_pr_forge::{Forge, PrState};

use super::strategy::{Fork, Strategy, fork_of, kept, local_branch, nothing_left};
use super::{LevelPlan, Pair, Work, short};

/// What kind of step a command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandType {
    Git,
    CiWait,
    Test,
    Fix,
    Verification,
    GithubApi,
}

/// One step of a restack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub step: u32,
    pub kind: CommandType,
    /// POSIX shell quoting; a ci_wait step is a tool call, a fix step starts with #.
    pub command: String,
    pub description: String,
    pub estimated_duration: Option<String>,
    pub can_automate: bool,
    pub is_idempotent: bool,
    pub skip_if: Option<String>,
    pub retry_on_failure: Option<bool>,
    pub max_retries: Option<u32>,
    pub depends_on: Vec<u32>,
    pub expect_output: Option<String>,
    pub on_failure: Option<String>,
}

impl Command {
    /// A step that can be automated and repeated, numbered when it is added to a plan.
    fn new(kind: CommandType, command: String, description: String) -> Command {
        Command {
            step: 0,
            kind,
            command,
            description,
            estimated_duration: None,
            can_automate: true,
            is_idempotent: true,
            skip_if: None,
            retry_on_failure: None,
            max_retries: None,
            depends_on: Vec::new(),
            expect_output: None,
            on_failure: None,
        }
    }
}

/// Steps in order, each numbered as it is added.
#[derive(Default)]
struct Steps(Vec<Command>);

impl Steps {
    /// Adds `c` after the steps it depends on; returns its number.
    fn add(&mut self, mut c: Command, depends_on: Option<u32>) -> u32 {
        c.step = self.0.len() as u32 + 1;
        c.depends_on = depends_on.into_iter().collect();
        self.0.push(c);
        self.0.len() as u32
    }

    /// Switches to a level's branch and checks that it holds the PR's head: a stale or
    /// missing local branch would otherwise be rebased and pushed over the PR's commits.
    /// Returns the check's number.
    /// A level from a fork has no branch on `remote`: its head (`refs/pull/N/head`) is
    /// fetched into the local branch `pr-N` first (never over a branch with other commits).
    fn switch_and_check(
        &mut self,
        number: u64,
        branch: &str,
        head: &str,
        after: u32,
        fork_from: Option<&str>,
    ) -> u32 {
        let after = match fork_from {
            Some(remote) => self.add(
                Command::new(
                    CommandType::Git,
                    render_cmd(ShellCommand::new("git").args([
                        "fetch",
                        "--end-of-options",
                        remote,
                        &format!("refs/pull/{number}/head:refs/heads/{branch}"),
                    ])),
                    format!(
                        "#{number} is from a fork: fetch its head from {remote}'s \
                         refs/pull/{number}/head into {branch}."
                    ),
                ),
                Some(after),
            ),
            None => after,
        };
        let switch = self.add(
            Command::new(
                CommandType::Git,
                render_cmd(ShellCommand::new("git").args(["switch", "--end-of-options", branch])),
                format!("Switch to #{number}'s branch."),
            ),
            Some(after),
        );
        self.add(contains_head(branch, head), Some(switch))
    }
}

/// What to do when a rebase the plan predicted to conflict stops.
const REBASE_ON_FAILURE: &str = "Resolve the conflicted files (predicted_conflicts), `git add` \
    them and `git rebase --continue`; `git rebase --abort` puts the branch back.";

/// The push of a fork's level to the fork (`source`: the restacked commit's ref), with a
/// lease on its old head; what its author does instead when the fork refuses it. `None`
/// when the fork is gone.
fn fork_push(l: &LevelPlan, fork: &Fork, source: &str, parent: (&str, &str)) -> Option<Command> {
    let url = fork.url.as_deref()?;
    let mut c = Command::new(
        CommandType::Git,
        render_cmd(
            ShellCommand::new("git")
                .arg("push")
                .arg(format!(
                    "--force-with-lease=refs/heads/{}:{}",
                    l.branch, l.head
                ))
                .args(["--end-of-options", url])
                .arg(format!("{source}:refs/heads/{}", l.branch)),
        ),
        format!(
            "#{} is from a fork ({}): push its restacked branch there (works when its author \
             lets maintainers edit the PR).",
            l.number,
            fork.repo.as_deref().unwrap_or("deleted")
        ),
    );
    c.can_automate = false;
    let (parent_branch, parent_old) = parent;
    c.on_failure = Some(format!(
        "The fork refuses your push: ask @{} to run `{}` (upstream: their remote for this \
         repository) and push.",
        fork.author,
        render_cmd(ShellCommand::new("git").args([
            "rebase",
            "--onto",
            &format!("upstream/{parent_branch}"),
            parent_old,
            "--end-of-options",
            &l.branch,
        ]))
    ));
    Some(c)
}

/// A level with nothing left: a note to close its PR (pushing the empty branch would empty
/// it, or close it, without a word).
fn close_note(l: &LevelPlan, trunk: &str) -> Command {
    let mut c = Command::new(
        CommandType::Fix,
        format!("# close #{}: nothing of it is left to merge", l.number),
        format!(
            "All {} commit(s) of #{} are in {trunk} already (cherry-picked, or squashed with \
             its base): close it instead of pushing an empty branch.",
            l.onto.emptied.len(),
            l.number
        ),
    );
    c.can_automate = false;
    c
}

/// A step that fails (exit 1) unless the checked-out branch contains the PR's head: a local
/// branch that is stale or another commit stops the sequence before it is rebased and pushed.
fn contains_head(branch: &str, head: &str) -> Command {
    let mut c = Command::new(
        CommandType::Verification,
        render_cmd(ShellCommand::new("git").args(["merge-base", "--is-ancestor", head, "HEAD"])),
        format!(
            "Check the local {branch} contains the PR's head {} before moving it (exit status 0).",
            short(head)
        ),
    );
    c.on_failure = Some(format!(
        "Your local {branch} lacks the PR's head {}: `git merge --ff-only` it from the remote \
         (or start the branch again from it), then ask for a new plan.",
        short(head)
    ));
    c
}

fn render_cmd(c: ShellCommand) -> String {
    c.render().unwrap_or_default()
}

/// The onto and regular rebase commands for the dependent.
pub fn rebase_commands(
    remote: &str,
    new_base_branch: &str,
    old_base: &str,
    branch: &str,
) -> (String, String) {
    let target = format!("{remote}/{new_base_branch}");
    let onto = render_cmd(ShellCommand::new("git").args([
        "rebase",
        "--onto",
        &target,
        old_base,
        "--end-of-options",
        branch,
    ]));
    let regular =
        render_cmd(ShellCommand::new("git").args(["rebase", &target, "--end-of-options", branch]));
    (onto, regular)
}

/// After a restack, a push or a rollback that ran: what brings the user's local branches to
/// the result (`reset --keep` refuses to drop uncommitted changes).
fn after_execute(work: &Work, undo_retarget: Option<Command>) -> Vec<Command> {
    let remote = work.remote.as_str();
    let rolled_back = work
        .steps
        .iter()
        .any(|s| s.step.starts_with("rollback") && s.status == "done");
    let pushed = rolled_back
        || work
            .steps
            .iter()
            .any(|s| s.step == "push" && s.status == "done");
    let mut steps = Steps::default();
    let mut last = None;
    if pushed {
        last = Some(steps.add(
            Command::new(
                CommandType::Git,
                render_cmd(ShellCommand::new("git").args(["fetch", "--end-of-options", remote])),
                format!("Fetch the branches as they are on {remote} now."),
            ),
            last,
        ));
    }
    let levels = &work.plan.levels;
    for (i, l) in levels.iter().enumerate() {
        let result = format!("refs/resolve-pr/restack/{}", l.branch);
        if let Some(fork) = fork_of(&work.forks, l.number) {
            let parent = match i.checked_sub(1).map(|p| &levels[p]) {
                Some(below) => (below.branch.as_str(), below.head.as_str()),
                None => (work.plan.new_base_branch.as_str(), l.old_base.as_str()),
            };
            if !rolled_back && let Some(c) = fork_push(l, fork, &result, parent) {
                last = Some(steps.add(c, last));
            }
            continue;
        }
        if !rolled_back && nothing_left(l) {
            last = Some(steps.add(close_note(l, &work.plan.new_base_branch), last));
            continue;
        }
        let target = if pushed {
            format!("{remote}/{}", l.branch)
        } else {
            result
        };
        let switch = steps.add(
            Command::new(
                CommandType::Git,
                render_cmd(ShellCommand::new("git").args([
                    "switch",
                    "--end-of-options",
                    &l.branch,
                ])),
                format!("Switch to {}.", l.branch),
            ),
            last,
        );
        last = Some(steps.add(
            Command::new(
                CommandType::Git,
                render_cmd(ShellCommand::new("git").args(["reset", "--keep", &target])),
                format!(
                    "Move your local {} to {target} (a plain `git pull` would merge the old \
                     commits back in).",
                    l.branch
                ),
            ),
            Some(switch),
        ));
    }
    if let Some(undo) = undo_retarget {
        steps.add(undo, last);
    }
    steps.0
}

/// The steps that restack the stack by hand (the plan), or after an execute that ran, what
/// brings the local branches to its result.
pub fn commands(
    forge: &dyn Forge,
    dependent_ref: &PrRef,
    pair: &Pair,
    work: &Work,
    max_iterations: u32,
    trunk_branch: &str,
) -> Vec<Command> {
    let (base, dependent) = (&pair.base, &pair.dependent);
    let plan = &work.plan;
    if matches!(work.outcome, Some(Ok(()))) && work.steps.iter().any(|s| s.status == "done") {
        let rolled_back = work.steps.iter().any(|s| s.step.starts_with("rollback"));
        // Rollback moves branches, not the PR's target: a retarget (by this tool or by hand)
        // is undone by a command.
        let undo = (rolled_back
            && base.state == PrState::Merged
            && dependent.base_ref != base.head_ref
            && dependent.base_ref == trunk_branch)
            .then(|| {
                Command::new(
                    CommandType::GithubApi,
                    render_cmd(forge.commands().set_base(dependent_ref, &base.head_ref)),
                    format!(
                        "Retarget #{} back to {:?}: rollback does not undo the retarget (the \
                         branch must still exist).",
                        dependent.number, base.head_ref
                    ),
                )
            });
        return after_execute(work, undo);
    }
    if plan.up_to_date {
        return Vec::new();
    }
    let remote = work.remote.as_str();
    let mut steps = Steps::default();
    let fetch = steps.add(
        Command::new(
            CommandType::Git,
            render_cmd(ShellCommand::new("git").args(["fetch", "--end-of-options", remote])),
            format!(
                "Fetch {remote}'s branches ({} moved, the PR branches may have too).",
                plan.new_base_branch
            ),
        ),
        None,
    );
    let dep = &plan.levels[0];
    let forks = &work.forks;
    let fork_from = |l: &LevelPlan| fork_of(forks, l.number).map(|_| remote);
    let dep_local = local_branch(dep, forks);
    let verify = steps.switch_and_check(
        dependent.number,
        &dep_local,
        &dep.head,
        fetch,
        fork_from(dep),
    );
    let (onto, regular) = rebase_commands(remote, &plan.new_base_branch, &dep.old_base, &dep_local);
    let strategy = work.choice.strategy;
    let mut rebase = Command::new(
        CommandType::Git,
        if strategy == Strategy::Onto {
            onto
        } else {
            regular
        },
        match strategy {
            Strategy::Onto => format!(
                "Replay #{}'s own {} commit(s) after {} onto {remote}/{}{}.",
                dependent.number,
                kept(dep),
                short(&dep.old_base),
                plan.new_base_branch,
                if dep.onto.emptied.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} more are in {} already and dropped",
                        dep.onto.emptied.len(),
                        plan.new_base_branch
                    )
                }
            ),
            Strategy::Regular => format!(
                "Rebase #{} onto {remote}/{}.",
                dependent.number, plan.new_base_branch
            ),
        },
    );
    rebase.is_idempotent = false;
    rebase.retry_on_failure = Some(false);
    rebase.estimated_duration = Some("under a minute without conflicts".to_owned());
    if !dep.onto.clean {
        rebase.on_failure = Some(REBASE_ON_FAILURE.to_owned());
    }
    let mut last = steps.add(rebase, Some(verify));
    let mut prev_branch = dep_local.clone();
    let mut prev_old_head = dep.head.clone();
    for l in plan.levels.iter().skip(1) {
        let l_local = local_branch(l, forks);
        let check = steps.switch_and_check(l.number, &l_local, &l.head, last, fork_from(l));
        let mut c = Command::new(
            CommandType::Git,
            render_cmd(ShellCommand::new("git").args([
                "rebase",
                "--onto",
                &prev_branch,
                &prev_old_head,
                "--end-of-options",
                &l_local,
            ])),
            format!(
                "Move #{} ({} commit(s)) onto the restacked {prev_branch}: it started after {}.",
                l.number,
                kept(l),
                short(&prev_old_head)
            ),
        );
        c.is_idempotent = false;
        if !l.onto.clean && !l.conflict_in_lower {
            c.on_failure = Some(REBASE_ON_FAILURE.to_owned());
        }
        last = steps.add(c, Some(check));
        prev_branch = l_local;
        prev_old_head = l.head.clone();
    }
    // This repository's branches in one atomic push; a fork's each to its fork; a level with
    // nothing left is not pushed at all (its PR is closed instead).
    let own: Vec<&LevelPlan> = plan
        .levels
        .iter()
        .filter(|l| fork_of(forks, l.number).is_none() && !nothing_left(l))
        .collect();
    if !own.is_empty() {
        let mut push_cmd = ShellCommand::new("git").args(["push", "--atomic"]);
        for l in &own {
            push_cmd = push_cmd.arg(format!(
                "--force-with-lease=refs/heads/{}:{}",
                l.branch, l.head
            ));
        }
        push_cmd = push_cmd.args(["--end-of-options", remote]);
        for l in &own {
            push_cmd = push_cmd.arg(format!("refs/heads/{0}:refs/heads/{0}", l.branch));
        }
        last = steps.add(
            Command::new(
                CommandType::Git,
                render_cmd(push_cmd),
                "Push the restacked branches, only if nobody pushed to them since (a lease on \
                 each old head)."
                    .to_owned(),
            ),
            Some(last),
        );
    }
    for (i, l) in plan.levels.iter().enumerate() {
        if let Some(fork) = fork_of(forks, l.number) {
            let parent = match i.checked_sub(1).map(|p| &plan.levels[p]) {
                Some(below) => (below.branch.as_str(), below.head.as_str()),
                None => (plan.new_base_branch.as_str(), l.old_base.as_str()),
            };
            let source = format!("refs/heads/{}", local_branch(l, forks));
            if let Some(c) = fork_push(l, fork, &source, parent) {
                last = steps.add(c, Some(last));
            }
        } else if nothing_left(l) {
            last = steps.add(close_note(l, &plan.new_base_branch), Some(last));
        }
    }
    if base.state == PrState::Merged && dependent.base_ref == base.head_ref {
        last = steps.add(
            Command::new(
                CommandType::GithubApi,
                render_cmd(forge.commands().set_base(dependent_ref, trunk_branch)),
                format!(
                    "Retarget #{} to {trunk_branch} BEFORE deleting {:?}: deleting a PR's base \
                     branch closes the PR on GitHub instead of retargeting it.",
                    dependent.number, base.head_ref
                ),
            ),
            Some(last),
        );
    }
    let mut wait = Command::new(
        CommandType::CiWait,
        format!(
            "get_failing_tests(pr='{}', wait=true, bail_on_first=true)",
            dependent_ref.normalized()
        ),
        "Wait for CI on the pushed branch and read what failed.".to_owned(),
    );
    wait.estimated_duration = Some("5-15 minutes".to_owned());
    let wait = steps.add(wait, Some(last));
    let mut fix = Command::new(
        CommandType::Fix,
        "# fix what get_failing_tests reports, commit, push, and wait again".to_owned(),
        "Fix failures the rebase introduced.".to_owned(),
    );
    fix.skip_if = Some("get_failing_tests reports status passed".to_owned());
    fix.max_retries = Some(max_iterations);
    fix.retry_on_failure = Some(true);
    fix.can_automate = false;
    fix.is_idempotent = false;
    let fix = steps.add(fix, Some(wait));
    let mut check = Command::new(
        CommandType::Verification,
        render_cmd(ShellCommand::new("git").args([
            "log",
            "--oneline",
            &format!("{remote}/{}..{}", plan.new_base_branch, dep_local),
        ])),
        format!(
            "Only #{}'s own commits remain on top of {}.",
            dependent.number, plan.new_base_branch
        ),
    );
    check.expect_output = Some(format!("{} line(s)", kept(dep)));
    steps.add(check, Some(fix));
    steps.0
}
