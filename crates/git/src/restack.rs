//! Performing a restack, and pushing it: the only code of this crate that writes to the
//! user's repository, and then only objects (the replayed commits) and refs under
//! `refs/resolve-pr/` (backups of the old heads, the new heads, and a transient ref a
//! `git replay` run needs as its tip). The user's branches, HEAD, index and worktree are
//! never touched, nor is their list of worktrees: both engines run in a throw-away side
//! repository of their own (bare for `git replay`; with a work tree of its own for the `git
//! rebase` fallback) that reads and writes the user's object store, so a kill at any point
//! leaves nothing registered in the user's repository, only a scratch directory the next
//! scratch sweeps away. No user hook, editor, autostash, rerere or `--update-refs` can act.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fetch::{REF_NAMESPACE, check_remote, transport_error};
use crate::repo::Repository;
use crate::runner::Version;
use crate::scratch::Scratch;

/// How commits are replayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestackEngine {
    /// `git replay --onto` (git 2.44 or later): no worktree at all. A branch whose range
    /// holds merge commits (which `git replay` does not replay) goes through `Rebase`.
    Replay,
    /// `git rebase --onto` in a side repository with a work tree of its own (never a
    /// worktree registered in the user's repository). It keeps commits that are empty from
    /// the start, drops those that become empty (their change is in the new base already)
    /// and does not sign commits. A `git replay` that kept a commit that became empty is
    /// done again this way, so both engines give the same history.
    Rebase,
}

/// A branch of a stack to restack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestackBranch {
    /// The branch name on the remote (`feature-b`).
    pub name: String,
    /// Its current tip.
    pub head: String,
    /// The old parent tip its own commits start after.
    pub old_base: String,
}

/// A restacked branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestackResult {
    pub name: String,
    pub old_head: String,
    pub new_head: String,
    /// Commits on the new head above its new base: every non-merge commit of the old range
    /// but the `dropped` ones.
    pub commits: usize,
    /// Commits of the old range that became empty, their change being in the new base
    /// already (cherry-picked there, or part of a squash): dropped, as a rebase drops them.
    /// All of them dropped: the new head is the new base, and the branch has nothing left.
    pub dropped: usize,
    /// `refs/resolve-pr/backup/<name>`: the old head.
    pub backup_ref: String,
    /// `refs/resolve-pr/restack/<name>`: the new head.
    pub result_ref: String,
}

/// One branch update of a push: `new` to `refs/heads/<branch>` if the remote still has
/// `expected_old` there (empty: if the branch does not exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushUpdate {
    pub branch: String,
    pub expected_old: String,
    pub new: String,
}

/// Configuration for every command of the rebase fallback: nothing of the user's may act.
const REBASE_CONFIG: &[&str] = &[
    "-c",
    "core.editor=true",
    "-c",
    "sequence.editor=true",
    "-c",
    "rebase.autoStash=false",
    "-c",
    "rebase.autoSquash=false",
    "-c",
    "rebase.updateRefs=false",
    "-c",
    "rebase.missingCommitsCheck=ignore",
    "-c",
    "rerere.enabled=false",
    "-c",
    "advice.detachedHead=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "submodule.recurse=false",
];

const EDITORS: &[(&str, &str)] = &[("GIT_EDITOR", "true"), ("GIT_SEQUENCE_EDITOR", "true")];

fn is_full_oid(text: &str) -> bool {
    (text.len() == 40 || text.len() == 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Repository {
    /// A branch name git accepts (`check-ref-format --branch`, the name unchanged: no
    /// `@{-1}` shorthand), else a usage error. Never read as an option.
    pub fn check_branch_name(&self, name: &str) -> Result<()> {
        let refused = || Error::usage(format!("{name:?} is not a valid branch name"));
        if name.is_empty() || name.starts_with('-') || name.contains("@{") || name.contains('\0') {
            return Err(refused());
        }
        let output = self.run(["check-ref-format", "--branch", name], &[], &[0, 128])?;
        let shown = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || shown.strip_suffix('\n').unwrap_or(&shown) != name {
            return Err(refused());
        }
        Ok(())
    }

    /// Replays each branch's `old_base..head` onto `onto` for the first branch, onto the
    /// previous branch's new head for each next one (a stack A←B←C). When every replay
    /// succeeded, writes `refs/resolve-pr/backup/<name>` = old head and
    /// `refs/resolve-pr/restack/<name>` = new head for all branches in one `update-ref
    /// --stdin` transaction. A commit that does not apply is [`Error::Conflict`] and no ref
    /// is written. Never moves the user's branches, HEAD, index or worktree.
    pub fn restack(&self, onto: &str, branches: &[RestackBranch]) -> Result<Vec<RestackResult>> {
        if branches.is_empty() {
            return Err(Error::usage("no branch to restack"));
        }
        // A restack of an earlier version ran `git rebase` in a worktree it registered here;
        // one it could not remove (killed) goes now.
        if let Some(common_dir) = self.objects_dir().parent() {
            crate::scratch::forget_stale_restack_worktrees(common_dir);
        }
        let engine = self.restack_engine();
        if engine == RestackEngine::Replay {
            self.git().require(Version::REPLAY, "replay")?;
        }
        let onto = self.resolve_commit(onto)?;
        let mut plan = Vec::with_capacity(branches.len());
        for (index, branch) in branches.iter().enumerate() {
            self.check_branch_name(&branch.name)?;
            if branches[..index].iter().any(|b| b.name == branch.name) {
                return Err(Error::usage(format!(
                    "branch {:?} is named twice",
                    branch.name
                )));
            }
            // `a` and `a/b` cannot both be refs (one would be a directory of the other).
            let nested = |outer: &str, inner: &str| {
                inner
                    .strip_prefix(outer)
                    .is_some_and(|rest| rest.starts_with('/'))
            };
            if let Some(other) = branches[..index]
                .iter()
                .find(|b| nested(&b.name, &branch.name) || nested(&branch.name, &b.name))
            {
                return Err(Error::usage(format!(
                    "branches {:?} and {:?} cannot both be restacked at once: one name is a \
                     directory of the other",
                    other.name, branch.name
                )));
            }
            let head = self.resolve_commit(&branch.head)?;
            let old_base = self.resolve_commit(&branch.old_base)?;
            if !self.is_ancestor(&old_base, &head)? {
                return Err(Error::usage(format!(
                    "the old base {old_base} of {:?} is not an ancestor of its head {head}",
                    branch.name
                )));
            }
            let (commits, has_merges) = self.replayable_commits(&old_base, &head)?;
            plan.push((branch, head, old_base, commits, has_merges));
        }
        let mut results = Vec::with_capacity(plan.len());
        let mut base = onto;
        for (branch, head, old_base, replayable, has_merges) in plan {
            let new_head = if replayable.is_empty() && !has_merges {
                // Nothing of its own (`git replay` fails on an empty range): the new base.
                base.clone()
            } else if engine == RestackEngine::Replay && !has_merges {
                let replayed = self.replay_branch(&branch.name, &base, &old_base, &head)?;
                // `git replay` keeps a commit that became empty; the rebase drops it.
                if self
                    .emptied(None, &base, &replayed, &replayable)?
                    .is_empty()
                {
                    replayed
                } else {
                    self.rebase_branch(&branch.name, &base, &old_base, &head)?
                }
            } else {
                self.rebase_branch(&branch.name, &base, &old_base, &head)?
            };
            let (_, commits) = self.commits_between(&base, &new_head, 0)?;
            results.push(RestackResult {
                name: branch.name.clone(),
                old_head: head,
                new_head: new_head.clone(),
                commits,
                dropped: replayable.len().saturating_sub(commits),
                backup_ref: format!("{REF_NAMESPACE}backup/{}", branch.name),
                result_ref: format!("{REF_NAMESPACE}restack/{}", branch.name),
            });
            base = new_head;
        }
        let mut transaction = Vec::new();
        for result in &results {
            for (name, value) in [
                (&result.backup_ref, &result.old_head),
                (&result.result_ref, &result.new_head),
            ] {
                transaction.extend_from_slice(format!("update {name}\0{value}\0\0").as_bytes());
            }
        }
        self.git().run_with_input(
            self.dir(),
            ["update-ref", "-m", "resolve-pr restack", "--stdin", "-z"],
            &[],
            Some(&transaction),
            &[0],
        )?;
        Ok(results)
    }

    /// `git replay --onto <onto> <old_base>..refs/heads/tip`. `git replay` computes and
    /// reports new tips only for branches, and no branch may be created in the user's
    /// repository: so it runs in a throw-away bare repository whose one branch `tip` is at
    /// `head`, with the user's object store as its object directory (the replayed commits
    /// land there, as a restack's objects should), the user's committer identity, and the
    /// user's partial-clone settings (so missing blobs are fetched lazily as in the
    /// repository itself). The new head, or [`Error::Conflict`] (named by a prediction).
    fn replay_branch(&self, name: &str, onto: &str, old_base: &str, head: &str) -> Result<String> {
        match self.git_replay(None, onto, old_base, head)? {
            Some(new_head) => Ok(new_head),
            None => Err(self.explain_conflict(name, onto, old_base, head)),
        }
    }

    /// `git replay --onto <onto> <old_base>..<head>` in a side repository, writing into the
    /// user's object store, or into `scratch` (with the user's store as an alternate) when
    /// given. The new head, or `None` when a commit does not apply.
    pub(crate) fn git_replay(
        &self,
        scratch: Option<&Path>,
        onto: &str,
        old_base: &str,
        head: &str,
    ) -> Result<Option<String>> {
        let side = self.side_repository(if scratch.is_some() {
            Side::Prediction
        } else {
            Side::Replay
        })?;
        let objects: Vec<(&'static str, std::ffi::OsString)> = match scratch {
            Some(scratch) => crate::merge::scratch_env(scratch, self.objects_dir()),
            None => vec![(
                "GIT_OBJECT_DIRECTORY",
                self.objects_dir().as_os_str().to_owned(),
            )],
        };
        let mut env: Vec<(&str, &OsStr)> = vec![("GIT_DIR", side.git_dir.as_os_str())];
        env.extend(objects.iter().map(|(k, v)| (*k, v.as_os_str())));
        env.extend(
            side.identity
                .iter()
                .map(|(k, v)| (*k, OsStr::new(v.as_str()))),
        );
        let dir = side.scratch.path();
        self.git().run(
            dir,
            ["update-ref", "--no-deref", "refs/heads/tip", head, ""],
            &env,
            &[0],
        )?;
        let range = format!("{old_base}..refs/heads/tip");
        let onto_option = format!("--onto={onto}");
        // The merges of a prediction, and so of the restack it predicts, as
        // `merge-tree` makes them: the attributes of the new base, a neutral configuration.
        let neutral = self.neutral_merge(onto);
        env.extend(neutral.env.iter().map(|(k, v)| (*k, v.as_os_str())));
        let mut args = neutral.args;
        args.extend(["replay", &onto_option, "--end-of-options", &range]);
        let output = self.git().run(dir, &args, &env, &[0, 1])?;
        if output.status.code() == Some(1) {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&output.stdout);
        let new_head = text.lines().find_map(|line| {
            let mut words = line.split(' ');
            match (words.next(), words.next(), words.next()) {
                (Some("update"), Some("refs/heads/tip"), Some(new)) if is_full_oid(new) => {
                    Some(new.to_string())
                }
                _ => None,
            }
        });
        match new_head {
            Some(new_head) => Ok(Some(new_head)),
            None => Err(Error::UnexpectedOutput {
                command: format!("replay {onto_option} {range}"),
                what: format!("no `update refs/heads/tip <new> <old>` line in {text:?}"),
            }),
        }
    }

    /// A throw-away repository in a scratch directory whose objects are the user's (see
    /// [`Repository::replay_branch`]): bare for `git replay`, with a work tree of its own
    /// (`<scratch>/wt`) for the rebase fallback. A prediction commits as a fixed identity,
    /// so it needs no user configuration; a restack commits as the user, and says how to set
    /// an identity when git has none.
    fn side_repository(&self, side: Side) -> Result<SideRepository> {
        let scratch = Scratch::new(match side {
            Side::Prediction | Side::Replay => "replay",
            Side::Rebase => "rebase",
        })?;
        let (path, git_dir, worktree) = match side {
            Side::Prediction | Side::Replay => {
                let path = scratch.path().join("side.git");
                (path.clone(), path, None)
            }
            Side::Rebase => {
                let path = scratch.path().join("wt");
                (path.clone(), path.join(".git"), Some(path))
            }
        };
        let format = self.run(["rev-parse", "--show-object-format"], &[], &[0])?;
        let format = String::from_utf8_lossy(&format.stdout).trim().to_string();
        let format_option = format!("--object-format={format}");
        let mut init: Vec<&OsStr> = vec![OsStr::new("init"), OsStr::new("--quiet")];
        if worktree.is_none() {
            init.push(OsStr::new("--bare"));
        }
        init.extend([
            OsStr::new(&format_option),
            OsStr::new("--end-of-options"),
            path.as_os_str(),
        ]);
        self.git().run(scratch.path(), &init, &[], &[0])?;
        let ident = if side == Side::Prediction {
            "resolve-pr <resolve-pr@localhost> 1700000000 +0000".to_string()
        } else {
            let out = self.run(["var", "GIT_COMMITTER_IDENT"], &[], &[0, 128])?;
            if !out.status.success() {
                return Err(Error::Usage {
                    what: "git has no committer identity to write the restacked commits with: \
                           set one with `git config --global user.name 'Your Name'` and \
                           `git config --global user.email you@example.com`"
                        .to_string(),
                });
            }
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        };
        let identity = match (ident.rfind('<'), ident.rfind('>')) {
            (Some(open), Some(close)) if open < close => vec![
                ("GIT_COMMITTER_NAME", ident[..open].trim().to_string()),
                ("GIT_COMMITTER_EMAIL", ident[open + 1..close].to_string()),
            ],
            _ => {
                return Err(Error::UnexpectedOutput {
                    command: "var GIT_COMMITTER_IDENT".to_string(),
                    what: format!("{ident:?} is not `name <email> date`"),
                });
            }
        };
        // A partial clone (`remote.<name>.promisor`, or `extensions.partialClone` of older
        // clones): the side repository gets the same promisor remotes, so blobs the merges
        // need are fetched lazily as in the repository itself.
        let mut promisors: Vec<String> = Vec::new();
        let extension = self.run(["config", "--get", "extensions.partialClone"], &[], &[0, 1])?;
        let extension = String::from_utf8_lossy(&extension.stdout)
            .trim()
            .to_string();
        if !extension.is_empty() {
            promisors.push(extension.clone());
        }
        let flags = self.run(
            [
                "config",
                "-z",
                "--bool",
                "--get-regexp",
                "^remote\\..*\\.promisor$",
            ],
            &[],
            &[0, 1],
        )?;
        for (key, value) in config_entries(&flags.stdout) {
            let name = key
                .strip_prefix("remote.")
                .and_then(|k| k.strip_suffix(".promisor"));
            if let Some(name) = name
                && value == "true"
                && !promisors.iter().any(|p| p == name)
            {
                promisors.push(name.to_string());
            }
        }
        let mut pairs: Vec<(String, String)> = Vec::new();
        if !promisors.is_empty() {
            pairs.push(("core.repositoryformatversion".into(), "1".into()));
        }
        if !extension.is_empty() {
            pairs.push(("extensions.partialClone".into(), extension));
        }
        for name in &promisors {
            let pattern = format!("^remote\\.{}\\.", regex_escape(name));
            let settings = self.run(["config", "-z", "--get-regexp", &pattern], &[], &[0, 1])?;
            pairs.extend(config_entries(&settings.stdout));
        }
        for (key, value) in &pairs {
            self.git().run(
                &path,
                ["config", "--add", key.as_str(), value.as_str()],
                &[("GIT_DIR", git_dir.as_os_str())],
                &[0],
            )?;
        }
        Ok(SideRepository {
            scratch,
            git_dir,
            worktree,
            identity,
        })
    }

    /// The conflict a replay of `old_base..head` onto `onto` stops at, found by predicting it.
    fn explain_conflict(&self, name: &str, onto: &str, old_base: &str, head: &str) -> Error {
        let found = self
            .replayable_commits(old_base, head)
            .and_then(|(commits, _)| {
                let scratch = crate::merge::scratch_dir()?;
                self.replay_in(scratch.path(), onto, &commits)
            });
        match found {
            Ok(Err(conflict)) => Error::Conflict {
                branch: name.to_string(),
                commit: conflict.commit,
                files: conflict.files,
            },
            Ok(Ok(_)) => Error::Conflict {
                branch: name.to_string(),
                commit: head.to_string(),
                files: Vec::new(),
            },
            Err(error) => error,
        }
    }

    /// `git rebase --onto <onto> <old_base>` of `head`, in a side repository with a work
    /// tree of its own: the user's repository gets the replayed commits and nothing else (no
    /// worktree record, so a kill leaves none behind).
    fn rebase_branch(&self, name: &str, onto: &str, old_base: &str, head: &str) -> Result<String> {
        let side = self.side_repository(Side::Rebase)?;
        let Some(dir) = side.worktree.as_deref() else {
            return Err(Error::UnexpectedOutput {
                command: "init".to_string(),
                what: "the side repository of a rebase has no work tree".to_string(),
            });
        };
        let hooks = side.scratch.path().join("hooks");
        std::fs::create_dir(&hooks).map_err(|source| Error::Io {
            what: "creating an empty hooks directory".to_string(),
            source,
        })?;
        let mut env: Vec<(&str, &OsStr)> = vec![
            ("GIT_DIR", side.git_dir.as_os_str()),
            ("GIT_WORK_TREE", dir.as_os_str()),
            ("GIT_OBJECT_DIRECTORY", self.objects_dir().as_os_str()),
        ];
        env.extend(EDITORS.iter().map(|(k, v)| (*k, OsStr::new(*v))));
        env.extend(
            side.identity
                .iter()
                .map(|(k, v)| (*k, OsStr::new(v.as_str()))),
        );
        let hooks_option = format!("core.hooksPath={}", hooks.display());
        let mut checkout: Vec<&str> = REBASE_CONFIG.to_vec();
        checkout.extend(["-c", &hooks_option]);
        checkout.extend(["checkout", "--quiet", "--detach", "--end-of-options", head]);
        self.git().run(dir, &checkout, &env, &[0])?;
        let mut args: Vec<&str> = REBASE_CONFIG.to_vec();
        args.extend(["-c", &hooks_option]);
        let onto_option = format!("--onto={onto}");
        args.extend([
            "rebase",
            "--quiet",
            "--no-autostash",
            "--no-autosquash",
            "--no-update-refs",
            "--no-rerere-autoupdate",
            // `git replay` does not sign either; a signing program could also prompt.
            "--no-gpg-sign",
            // A commit empty from the start is kept; one that becomes empty (its change
            // is in the new base already) is dropped, as a plain `git rebase` drops it.
            "--empty=drop",
            "--keep-empty",
            &onto_option,
            "--end-of-options",
            old_base,
        ]);
        let rebased = self.git().run(dir, &args, &env, &[0, 1])?;
        if rebased.status.success() {
            let output = self
                .git()
                .run(dir, ["rev-parse", "--verify", "HEAD"], &env, &[0])?;
            return Ok(String::from_utf8_lossy(&output.stdout).trim().to_string());
        }
        let stopped = self.git().run(
            dir,
            ["rev-parse", "--verify", "--quiet", "REBASE_HEAD"],
            &env,
            &[0, 1],
        )?;
        let commit = String::from_utf8_lossy(&stopped.stdout).trim().to_string();
        let unmerged = self.git().run(
            dir,
            [
                "diff",
                "--name-only",
                "-z",
                "--diff-filter=U",
                "--no-ext-diff",
            ],
            &env,
            &[0],
        )?;
        let files: Vec<String> = unmerged
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        if commit.is_empty() || files.is_empty() {
            // Not stopped on a conflict: some other failure (a commit that could not be
            // made, say).
            return Err(Error::Failed {
                command: format!("rebase {onto_option} {old_base}"),
                status: rebased.status.code(),
                stderr: String::from_utf8_lossy(&rebased.stderr).trim().to_string(),
            });
        }
        Err(Error::Conflict {
            branch: name.to_string(),
            commit,
            files,
        })
    }

    /// `git push --atomic --porcelain <remote> --force-with-lease=refs/heads/<b>:<old> ...
    /// <new>:refs/heads/<b> ...` (never `--force`): all updates or none. A lease that no
    /// longer holds (or any other refusal) is [`Error::PushRejected`] naming the branch; an
    /// unreachable remote is [`Error::Network`].
    pub fn push_with_lease(&self, remote: &str, updates: &[PushUpdate]) -> Result<()> {
        check_remote(remote)?;
        if updates.is_empty() {
            return Err(Error::usage("no branch to push"));
        }
        let mut leases = Vec::new();
        let mut refspecs = Vec::new();
        for update in updates {
            self.check_branch_name(&update.branch)?;
            if !is_full_oid(&update.new) {
                return Err(Error::usage(format!(
                    "{:?} is not a full commit id",
                    update.new
                )));
            }
            if !(update.expected_old.is_empty() || is_full_oid(&update.expected_old)) {
                return Err(Error::usage(format!(
                    "{:?} is not a full commit id",
                    update.expected_old
                )));
            }
            leases.push(format!(
                "--force-with-lease=refs/heads/{}:{}",
                update.branch, update.expected_old
            ));
            refspecs.push(format!("{}:refs/heads/{}", update.new, update.branch));
        }
        let mut args: Vec<&str> =
            vec!["push", "--atomic", "--porcelain", "--no-recurse-submodules"];
        args.extend(leases.iter().map(String::as_str));
        args.extend(["--end-of-options", remote]);
        args.extend(refspecs.iter().map(String::as_str));
        let output = match self.run(&args, &[], &[0, 1]) {
            Ok(output) => output,
            Err(error) => return Err(transport_error(error, remote)),
        };
        if output.status.success() {
            return Ok(());
        }
        let rejected = parse_porcelain_rejections(&String::from_utf8_lossy(&output.stdout));
        let chosen = rejected
            .iter()
            .find(|(_, reason)| !reason.contains("atomic push failed"))
            .or(rejected.first());
        match chosen {
            Some((branch, reason)) => Err(Error::PushRejected {
                branch: branch.clone(),
                reason: reason.clone(),
            }),
            None => Err(transport_error(
                Error::Failed {
                    command: crate::runner::describe(
                        &args
                            .iter()
                            .map(std::ffi::OsString::from)
                            .collect::<Vec<_>>(),
                    ),
                    status: output.status.code(),
                    stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
                },
                remote,
            )),
        }
    }

    /// Puts the remote branches back where they were before a restack was pushed: each
    /// backup (old head) pushed with a lease on the restacked head, all or none.
    pub fn rollback(&self, remote: &str, results: &[RestackResult]) -> Result<()> {
        let updates: Vec<PushUpdate> = results
            .iter()
            .map(|r| PushUpdate {
                branch: r.name.clone(),
                expected_old: r.new_head.clone(),
                new: r.old_head.clone(),
            })
            .collect();
        self.push_with_lease(remote, &updates)
    }
}

/// `(branch, reason)` of each `!` line of `push --porcelain` output
/// (`!\t<src>:refs/heads/<b>\t[rejected] (stale info)`).
fn parse_porcelain_rejections(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            let (Some("!"), Some(refs), summary) = (fields.next(), fields.next(), fields.next())
            else {
                return None;
            };
            let target = refs.rsplit_once(':').map_or(refs, |(_, to)| to);
            let branch = target.strip_prefix("refs/heads/").unwrap_or(target);
            Some((
                branch.to_string(),
                summary.unwrap_or("rejected").trim().to_string(),
            ))
        })
        .collect()
}

/// The `key\nvalue\0` entries of `git config -z --get-regexp` output.
fn config_entries(stdout: &[u8]) -> Vec<(String, String)> {
    stdout
        .split(|&b| b == 0)
        .filter(|e| !e.is_empty())
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (key, value) = entry.split_once('\n')?;
            Some((key.to_string(), value.to_string()))
        })
        .collect()
}

/// `text` with the characters special in a POSIX extended regular expression escaped.
fn regex_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// Which side repository: a prediction's (fixed identity, objects in a scratch store), a
/// restack's by `git replay` (bare), or by the rebase fallback (with a work tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Prediction,
    Replay,
    Rebase,
}

/// The throw-away repository a replay or rebase runs in, removed on drop.
struct SideRepository {
    scratch: Scratch,
    /// Its git directory.
    git_dir: PathBuf,
    /// Its own work tree, for a rebase.
    worktree: Option<PathBuf>,
    /// `GIT_COMMITTER_NAME` and `GIT_COMMITTER_EMAIL` of the user's repository.
    identity: Vec<(&'static str, String)>,
}
