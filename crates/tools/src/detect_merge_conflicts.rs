//! `detect_merge_conflicts` (seed 000 tool 4; seed 003's `MergeConflict`, `MergeableState`):
//! whether a PR's head merges cleanly into its target, computed locally as git itself merges
//! (`resolve_pr_pr::conflicts`, over `git merge-tree --write-tree` in a scratch object store),
//! beside the forge's own mergeability. When the forge has not computed it yet (GitHub
//! computes lazily), ours is the answer.

use resolve_pr_core::{Error, Result, ShellCommand};
use resolve_pr_forge::PullRequest;
use resolve_pr_git::{ConflictKind, Hunk, Limits};
use resolve_pr_pr::conflicts::{self, ConflictReport, Fact, FileConflict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::checkout::{self as local, blocking};
use crate::registry::{Annotations, Tool};

mod report;
use report::{conflict, instructions, state_str, type_str};

/// Conflicted files per page.
const PAGE_SIZE: usize = 20;
/// Lines of each side shown per conflict.
const PREVIEW_LINES: usize = 10;
/// Bytes of each side's preview at most.
const PREVIEW_BYTES: usize = 1200;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// Default: the open PR of the checkout's current branch.
    #[serde(default)]
    #[schemars(example = &"owner/repo#123")]
    pub pr: Option<String>,
    /// Merge into this branch instead of the PR's base.
    #[serde(default)]
    pub target_branch: Option<String>,
    /// A clone of the PR's repository. Default: the server's working directory if it is
    /// one, else a managed clone in the cache directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// `nextCursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MergeableState {
    /// Merges without conflicts.
    Clean,
    /// Merges, but a check is failing or pending.
    Unstable,
    /// Conflicts.
    Dirty,
    /// Not computed yet.
    Unknown,
    /// Merges, but branch protection blocks it.
    Blocked,
    /// Merges, but the head is behind its base and the base requires it up to date.
    Behind,
    /// A draft.
    Draft,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StateSource {
    /// The forge's state (it agrees with the local merge, or the local one is beside it).
    Forge,
    /// The local merge: the forge has not computed it, or target_branch is not the PR's base.
    Local,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ConflictType {
    #[serde(rename = "content")]
    Content,
    #[serde(rename = "add/add")]
    AddAdd,
    #[serde(rename = "modify/delete")]
    ModifyDelete,
    #[serde(rename = "rename/rename")]
    RenameRename,
    #[serde(rename = "rename/delete")]
    RenameDelete,
    #[serde(rename = "rename/collision")]
    RenameCollision,
    #[serde(rename = "file/directory")]
    FileDirectory,
    /// File, symlink and submodule at one path (git's distinct modes).
    #[serde(rename = "mode")]
    Mode,
    #[serde(rename = "binary")]
    Binary,
    #[serde(rename = "submodule")]
    Submodule,
    #[serde(rename = "directory_rename")]
    DirectoryRename,
    /// A kind this version does not know: see message.
    #[serde(rename = "other")]
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    High,
    Medium,
    Low,
}

/// A conflicted file (seed 003's `MergeConflict`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Conflict {
    pub file_path: String,
    pub conflict_type: ConflictType,
    /// git's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The first region, "N| line" per line: the merge base's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_content_preview: Option<String>,
    /// The PR's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_content_preview: Option<String>,
    /// The target branch's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_content_preview: Option<String>,
    /// First region's `<<<<<<<` and `>>>>>>>` lines in the merged file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    /// Conflict regions in the file.
    pub regions: u64,
    /// Only what follows from the contents (e.g. a side that changed only whitespace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_resolution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution_confidence: Option<Confidence>,
    pub can_auto_resolve: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Instructions {
    /// Commands in order (POSIX shell quoting); lines starting with # are what to do by hand.
    pub resolution_steps: Vec<String>,
    /// A rough guess from the number of regions.
    pub estimated_time: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    pub has_conflicts: bool,
    /// The answer: the forge's when it has one (and target_branch is the base), else ours.
    pub mergeable_state: MergeableState,
    pub state_source: StateSource,
    /// As the forge reports it, lower case (GitHub's mergeable_state; Forgejo/Gitea:
    /// "mergeable", or "not_mergeable", which they also say while checking and for drafts).
    pub forge_state: String,
    /// Whether the forge's verdict on conflicts matches the local merge; absent when the
    /// forge has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forge_agrees: Option<bool>,
    pub target_branch: String,
    pub target_sha: String,
    pub head_sha: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge_base: Option<String>,
    /// Conflicted files in all.
    pub conflict_count: u64,
    pub conflicts: Vec<Conflict>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<Instructions>,
    /// Where the merge was computed (a checkout and its remote, or a managed clone).
    pub computed_in: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One merge as computed, and where.
#[derive(Debug)]
pub(crate) struct Computed {
    report: ConflictReport,
    place: String,
    note: Option<String>,
    remote: String,
}

/// The latest merges computed, by repository, target and head commit: a merge of two
/// commits never changes, so a later page reads it here instead of running git again.
#[derive(Debug, Clone, Default)]
pub(crate) struct MergeCache(std::sync::Arc<std::sync::Mutex<Cached>>);

type Cached = std::collections::VecDeque<(MergeKey, std::sync::Arc<Computed>)>;

type MergeKey = (String, String, String);

/// Merges kept.
const CACHED_MERGES: usize = 8;

impl MergeCache {
    fn get(&self, key: &MergeKey) -> Option<std::sync::Arc<Computed>> {
        let list = self.0.lock().unwrap_or_else(|p| p.into_inner());
        list.iter().find(|(k, _)| k == key).map(|(_, c)| c.clone())
    }

    fn put(&self, key: MergeKey, computed: std::sync::Arc<Computed>) {
        let mut list = self.0.lock().unwrap_or_else(|p| p.into_inner());
        list.retain(|(k, _)| *k != key);
        if list.len() >= CACHED_MERGES {
            list.pop_front();
        }
        list.push_back((key, computed));
    }
}

pub struct DetectMergeConflicts;

/// Where the next page starts: after this path, for these two commits.
#[derive(Debug, Serialize, Deserialize)]
struct Position {
    head: String,
    target: String,
    after: String,
}

impl Tool for DetectMergeConflicts {
    const NAME: &'static str = "detect_merge_conflicts";
    const TITLE: &'static str = "Detect merge conflicts";
    const DESCRIPTION: &'static str = "Whether a PR merges cleanly into its base (or \
target_branch), computed locally exactly as git merges (merge-ort), beside the forge's own state, \
which GitHub often has not computed yet. Per conflicted file: kind, the base/PR/target text of the \
first region with line numbers, and a resolution only where the contents prove one. Fetches into \
refs/resolve-pr/ only: never touches your branches, index or worktree.";
    const TOOLSET: crate::Toolset = crate::Toolset::Git;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        if let Some(t) = &input.target_branch {
            check_branch_name("target_branch", t)?;
        }
        let (pr_ref, chosen) =
            local::resolve_pr(ctx, input.pr.as_deref(), input.directory.as_deref()).await?;
        let position = match &input.cursor {
            Some(c) => Some(ctx.cursors.decode::<Position>(Self::NAME, raw, c)?),
            None => None,
        };
        let forge = ctx.forge(&pr_ref.repo)?;
        let pr = forge.pull_requests().pull_request(&pr_ref).await?;
        if pr.state == resolve_pr_forge::PrState::Merged {
            // Merging its head again says nothing: after a squash or rebase merge it would
            // even report conflicts with its own merged changes.
            return Err(Error::logical(format!(
                "{pr_ref} is already merged into {}{}: there is nothing left to merge",
                pr.base_ref,
                pr.merge_commit_sha
                    .as_deref()
                    .map(|c| format!(" (as {})", crate::shared::short(c)))
                    .unwrap_or_default()
            ))
            .with_suggestion(
                "For PRs built on it, manage_stacked_prs moves them onto the target branch.",
            ));
        }
        let target_branch = input
            .target_branch
            .clone()
            .unwrap_or_else(|| pr.base_ref.clone());
        // Where the target is now, from the forge (a PR's base.sha is not that on GitHub):
        // when both commits are here already, no git talks to the remote.
        let target_tip = forge
            .repository()
            .branch_tip(&pr_ref.repo, &target_branch)
            .await?;
        if let Some(p) = &position
            && (p.head != pr.head_sha || target_tip.as_deref().is_some_and(|t| t != p.target))
        {
            return Err(moved_since_cursor());
        }
        let key = position
            .as_ref()
            .map(|p| (pr_ref.repo.full_name(), p.target.clone(), p.head.clone()));
        let cached = key.and_then(|k| ctx.merges.get(&k));
        let computed = match cached {
            Some(found) => found,
            None => {
                let git = local::git(ctx)?;
                let settings = ctx.local.clone();
                let directory = input.directory.clone();
                let repo_ref = pr_ref.repo.clone();
                let pr_for_git = pr.clone();
                let branch = target_branch.clone();
                let what = "fetching and merging the PR's commits";
                let computed = blocking(ctx, what, move || {
                    let local = local::locate(
                        &git,
                        &settings,
                        directory.as_deref(),
                        &pr_for_git,
                        &repo_ref,
                    )?;
                    let head = pr_for_git.head_sha.as_str();
                    // Both commits are usually here: merged straight away, and fetched only
                    // when one is missing.
                    let here = match target_tip.as_deref() {
                        Some(tip) => {
                            match conflicts::check(&local.repo, tip, head, Limits::default()) {
                                Err(resolve_pr_git::Error::BadRevision { .. }) => None,
                                other => Some(other?),
                            }
                        }
                        None => None,
                    };
                    let report = match here {
                        Some(report) => report,
                        None => {
                            let target = local::fetch_missing(
                                &local,
                                &[&pr_for_git],
                                &[(&branch, target_tip.as_deref())],
                            )?
                            .remove(0);
                            conflicts::check(&local.repo, &target, head, Limits::default())?
                        }
                    };
                    let remote = if local.place.is_checkout() {
                        local.remote.clone()
                    } else {
                        "origin".to_owned()
                    };
                    Ok(Computed {
                        report,
                        place: local.place.describe(),
                        note: local.note,
                        remote,
                    })
                })
                .await?;
                let computed = std::sync::Arc::new(computed);
                ctx.merges.put(
                    (
                        pr_ref.repo.full_name(),
                        computed.report.target.clone(),
                        computed.report.head.clone(),
                    ),
                    computed.clone(),
                );
                computed
            }
        };
        let Computed {
            report,
            place,
            note,
            remote,
        } = &*computed;
        let place = place.clone();
        if let Some(p) = &position
            && (p.head != report.head || p.target != report.target)
        {
            return Err(moved_since_cursor());
        }
        let note = note.clone();
        let note = [chosen, note]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        let output = build(
            ctx,
            raw,
            &pr_ref.to_string(),
            &pr,
            &target_branch,
            report,
            position.as_ref().map(|p| p.after.as_str()),
            place,
            remote,
        )?;
        Ok(Output {
            note: (!note.is_empty()).then_some(note),
            ..output
        })
    }

    fn shown(out: &Output) -> Option<(usize, Option<usize>)> {
        Some((
            out.conflicts.len(),
            usize::try_from(out.conflict_count).ok(),
        ))
    }

    fn render(out: &Output) -> String {
        let mut text = if out.has_conflicts {
            format!(
                "{} conflicts with {} ({} file{}; {} {}, forge: {})",
                out.pr,
                out.target_branch,
                out.conflict_count,
                if out.conflict_count == 1 { "" } else { "s" },
                state_str(out.mergeable_state),
                match out.state_source {
                    StateSource::Forge => "from the forge",
                    StateSource::Local => "computed locally",
                },
                out.forge_state
            )
        } else {
            format!(
                "{} merges cleanly into {} ({}, forge: {})",
                out.pr,
                out.target_branch,
                state_str(out.mergeable_state),
                out.forge_state
            )
        };
        if let Some(n) = &out.note {
            text.push_str(&format!("\n{n}"));
        }
        for c in &out.conflicts {
            let at = c
                .start_line
                .map(|l| format!(" at line {l}"))
                .unwrap_or_default();
            text.push_str(&format!(
                "\n- {} ({}){at}",
                c.file_path,
                type_str(c.conflict_type)
            ));
            if let Some(s) = &c.suggested_resolution {
                text.push_str(&format!(": {s}"));
            }
        }
        if let Some(i) = &out.instructions {
            text.push_str("\nTo resolve:");
            for step in &i.resolution_steps {
                text.push_str(&format!("\n  {step}"));
            }
        }
        text
    }
}

/// A cursor of a merge whose PR head or target moved since the page it came from.
fn moved_since_cursor() -> Error {
    Error::user("the cursor belongs to another merge: the PR or its target branch moved since")
        .with_suggestion("Call again without cursor.")
}

/// A branch name git would accept, checked before anything runs.
pub(crate) fn check_branch_name(field: &str, name: &str) -> Result<()> {
    let bad = name.is_empty()
        || name.starts_with('-')
        || name.starts_with('/')
        || name.ends_with('/')
        || name.ends_with(".lock")
        || name.ends_with('.')
        || name.contains("..")
        || name.contains("@{")
        || name.contains("//")
        || name
            .chars()
            .any(|c| c.is_control() || matches!(c, ' ' | '~' | '^' | ':' | '?' | '*' | '[' | '\\'));
    if bad {
        return Err(
            Error::user(format!("{field}: {name:?} is not a valid branch name"))
                .with_detail("field", field)
                .with_suggestion("Give the branch's name as the forge shows it, e.g. 'main'."),
        );
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn build(
    ctx: &Context,
    raw: &Value,
    pr_name: &str,
    pr: &PullRequest,
    target_branch: &str,
    report: &ConflictReport,
    after: Option<&str>,
    computed_in: String,
    remote: &str,
) -> Result<Output> {
    let local_dirty = !report.clean;
    let own_base = target_branch == pr.base_ref;
    let forge_state = forge_state(pr);
    let forge_known = forge_verdict(pr);
    let (mergeable_state, state_source) = match (own_base, forge_known) {
        (true, Some(_)) => (forge_mergeable(pr), StateSource::Forge),
        _ => (
            if local_dirty {
                MergeableState::Dirty
            } else {
                MergeableState::Clean
            },
            StateSource::Local,
        ),
    };
    let forge_agrees = if own_base {
        forge_known.map(|forge_dirty| forge_dirty == local_dirty)
    } else {
        None
    };
    let mut files: Vec<&FileConflict> = report.files.iter().collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let start = match after {
        Some(after) => files.partition_point(|f| f.path.as_str() <= after),
        None => 0,
    };
    let end = (start + PAGE_SIZE).min(files.len());
    let page = &files[start..end];
    let next_cursor = (end < files.len()).then(|| {
        ctx.cursors.encode(
            DetectMergeConflicts::NAME,
            raw,
            &Position {
                head: report.head.clone(),
                target: report.target.clone(),
                after: page.last().map(|f| f.path.clone()).unwrap_or_default(),
            },
        )
    });
    let conflicts = page.iter().map(|f| conflict(f)).collect();
    // The steps cover every file; later pages do not repeat them.
    let instructions = (local_dirty && after.is_none())
        .then(|| instructions(pr, remote, target_branch, &report.files));
    Ok(Output {
        pr: pr_name.to_owned(),
        has_conflicts: local_dirty,
        mergeable_state,
        state_source,
        forge_state,
        forge_agrees,
        target_branch: target_branch.to_owned(),
        target_sha: report.target.clone(),
        head_sha: report.head.clone(),
        merge_base: report.merge_base.clone(),
        conflict_count: report.files.len() as u64,
        conflicts,
        instructions,
        computed_in,
        note: None,
        next_cursor,
    })
}

/// Whether the forge says the PR conflicts; `None` when it has not computed it or cannot
/// say. Forgejo/Gitea (no `mergeable_state`) also answer `mergeable: false` while checking and
/// for drafts, so only their `true` is conclusive.
fn forge_verdict(pr: &PullRequest) -> Option<bool> {
    match (pr.mergeable_state.as_deref(), pr.mergeable) {
        (Some("unknown"), _) => None,
        (Some("dirty"), _) => Some(true),
        (Some(_), m) => m.map(|m| !m),
        (None, Some(true)) => Some(false),
        (None, _) => None,
    }
}

fn forge_state(pr: &PullRequest) -> String {
    match (&pr.mergeable_state, pr.mergeable) {
        (Some(s), _) => s.to_ascii_lowercase(),
        (None, Some(true)) => "mergeable".to_owned(),
        (None, Some(false)) => "not_mergeable".to_owned(),
        (None, None) => "unknown".to_owned(),
    }
}

fn forge_mergeable(pr: &PullRequest) -> MergeableState {
    match pr.mergeable_state.as_deref() {
        Some("clean") | Some("has_hooks") => MergeableState::Clean,
        Some("unstable") => MergeableState::Unstable,
        Some("dirty") => MergeableState::Dirty,
        Some("blocked") => MergeableState::Blocked,
        Some("behind") => MergeableState::Behind,
        Some("draft") => MergeableState::Draft,
        _ => match pr.mergeable {
            Some(true) => MergeableState::Clean,
            Some(false) => MergeableState::Dirty,
            None => MergeableState::Unknown,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_names_that_could_be_options_or_worse_are_refused() {
        for bad in [
            "-x",
            "--upload-pack=evil",
            "a b",
            "a..b",
            "x.lock",
            "a~1",
            "",
            "a:b",
        ] {
            assert!(check_branch_name("target_branch", bad).is_err(), "{bad}");
        }
        for good in ["main", "feature/x", "a;rm-rf", "release-1.2", "$(id)"] {
            assert!(check_branch_name("target_branch", good).is_ok(), "{good}");
        }
    }
}
