//! `analyze_pr_impact` (seed 000 tool 6; seed 003's `PRImpact`): what a pull request
//! touches and who should look at it. The forge gives the PR, its files and commits, the code
//! owners file, the changed files' recent history, recently closed PRs and the manifests'
//! contents; `resolve_pr_pr::impact` turns them into areas with risk and its reasons,
//! reviewers with the reason for each, dependency updates and similar PRs. Everything past
//! the PR and its files is optional: what cannot be read becomes a note, not a failure.

use std::collections::BTreeMap;

use resolve_pr_core::{Error, PrRef, Result};
use resolve_pr_forge::{ChangedFile, ClosedPull, CodeOwnersFile, CommitInfo, Forge, PullRequest};
use resolve_pr_pr::impact::{self, AreaRules, CodeOwners};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::registry::{Annotations, Tool};

/// Files whose history is read for reviewers: the most changed ones.
const HISTORY_FILES: usize = 20;
/// Commits per file read for reviewers.
const HISTORY_PER_FILE: usize = 10;
/// Recently closed PRs compared for similarity.
const CLOSED_PRS: usize = 30;
/// Reviewers suggested at most.
const REVIEWERS: usize = 5;
/// Similar PRs listed at most, and the least score listed: below it only a shared directory
/// such as the root links them.
const SIMILAR: usize = 5;
const MIN_SIMILARITY: f64 = 0.1;
/// Files named per area at most; `file_count` has all.
const FILES_PER_AREA: usize = 20;
/// A manifest or lockfile larger than this is not read.
const MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Depth {
    #[default]
    Summary,
    /// Adds every file.
    Detailed,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    #[schemars(example = &"owner/repo#123")]
    pub pr: String,
    /// summary, or detailed: every file with its area.
    #[serde(default)]
    pub depth: Depth,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Changes {
    pub files_changed: u64,
    pub additions: u64,
    pub deletions: u64,
    pub commits: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RiskLevel {
    Low,
    Medium,
    High,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ImpactArea {
    pub category: String,
    pub files: Vec<String>,
    pub file_count: u64,
    pub lines_changed: u64,
    pub risk_level: RiskLevel,
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RiskFactor {
    pub factor: String,
    pub severity: RiskLevel,
    pub description: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reviewer {
    pub username: String,
    pub reason: String,
    pub confidence: f64,
    pub is_code_owner: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Merged,
    Closed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SimilarPr {
    pub number: u64,
    pub title: String,
    pub similarity_score: f64,
    pub outcome: Outcome,
    pub shared_files: Vec<String>,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DependencyUpdate {
    #[serde(rename = "type")]
    pub ecosystem: String,
    pub package: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_version: Option<String>,
    /// A new major version.
    pub is_breaking: bool,
    pub change: String,
    pub file: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileImpact {
    pub path: String,
    pub category: String,
    pub additions: u64,
    pub deletions: u64,
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    pub changes: Changes,
    pub impact_areas: Vec<ImpactArea>,
    pub overall_risk: RiskLevel,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub risk_factors: Vec<RiskFactor>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggested_reviewers: Vec<Reviewer>,
    /// Code owners of the changed files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required_reviewers: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub similar_prs: Vec<SimilarPr>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dependency_updates: Vec<DependencyUpdate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileImpact>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

pub struct AnalyzePrImpact;

impl Tool for AnalyzePrImpact {
    const NAME: &'static str = "analyze_pr_impact";
    const TITLE: &'static str = "Analyze PR impact";
    const DESCRIPTION: &'static str = "What a PR touches and who should review it: areas \
(frontend, backend, database, infrastructure, tests, docs, config, dependencies; path rules \
overridable in the config file) with a risk level and the reasons for it, suggested reviewers \
from CODEOWNERS and the files' recent committers (each with its reason and confidence), \
dependency updates from manifests and lockfiles (semver majors flagged), and similar closed PRs \
by shared files. Deterministic rules, every score explained. Read-only.";
    const TOOLSET: crate::Toolset = crate::Toolset::Impact;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let pr_ref = crate::shared::pr_from_ref(&input.pr, Vec::new())?;
        let rules = area_rules(ctx)?;
        let forge = ctx.forge(&pr_ref.repo)?;
        let repo = forge.repository();
        let (pull, files, commits) = tokio::join!(
            forge.pull_requests().pull_request(&pr_ref),
            // No patches: areas, owners and dependency updates need only paths and counts.
            repo.pull_files(&pr_ref, false),
            repo.pull_commits(&pr_ref),
        );
        let pull = pull?;
        let files = files?;
        let mut notes = Vec::new();
        let commits = match commits {
            Ok(c) => Some(c),
            Err(e) => {
                notes.push(format!(
                    "commits could not be read: {}",
                    Error::from(e).error
                ));
                None
            }
        };
        let extra = read_extras(forge.as_ref(), &pr_ref, &pull, &files, &mut notes).await;
        Ok(build(
            &pr_ref,
            &pull,
            &files,
            commits.as_deref(),
            &extra,
            &rules,
            input.depth,
            notes,
        ))
    }

    fn render(out: &Output) -> String {
        let c = &out.changes;
        let mut text = format!(
            "{}: {} file{} (+{} -{}), {} commit{}; overall risk {}.",
            out.pr,
            c.files_changed,
            if c.files_changed == 1 { "" } else { "s" },
            c.additions,
            c.deletions,
            c.commits,
            if c.commits == 1 { "" } else { "s" },
            risk_str(out.overall_risk)
        );
        for a in &out.impact_areas {
            text.push_str(&format!(
                "\n- {} ({} files, {} lines): {} risk{}",
                a.category,
                a.file_count,
                a.lines_changed,
                risk_str(a.risk_level),
                if a.reasons.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", a.reasons.join("; "))
                }
            ));
        }
        if !out.suggested_reviewers.is_empty() {
            let names: Vec<String> = out
                .suggested_reviewers
                .iter()
                .map(|r| format!("{} ({:.2})", r.username, r.confidence))
                .collect();
            text.push_str(&format!("\nReviewers: {}", names.join(", ")));
        }
        for d in &out.dependency_updates {
            text.push_str(&format!(
                "\n- {} {} {} → {}{}",
                d.ecosystem,
                d.package,
                d.from_version.as_deref().unwrap_or("(none)"),
                d.to_version.as_deref().unwrap_or("(removed)"),
                if d.is_breaking { " (major)" } else { "" }
            ));
        }
        for s in &out.similar_prs {
            text.push_str(&format!(
                "\nSimilar: #{} {} ({:.2}, {})",
                s.number,
                s.title,
                s.similarity_score,
                match s.outcome {
                    Outcome::Merged => "merged",
                    Outcome::Closed => "closed",
                }
            ));
        }
        for n in &out.notes {
            text.push_str(&format!("\nNote: {n}"));
        }
        text
    }
}

/// The built-in path rules, with the config file's first.
fn area_rules(ctx: &Context) -> Result<AreaRules> {
    Ok(AreaRules::with_overrides(&ctx.forges.config().impact_areas))
}

/// What the optional reads gave.
#[derive(Default)]
struct Extras {
    owners: Option<CodeOwnersFile>,
    /// Per file of `history_paths`.
    history: Vec<Vec<CommitInfo>>,
    history_paths: Vec<String>,
    closed: Vec<ClosedPull>,
    /// Manifest path → (before, after).
    manifests: BTreeMap<String, (Option<String>, Option<String>)>,
}

async fn read_extras(
    forge: &dyn Forge,
    pr: &PrRef,
    pull: &PullRequest,
    files: &[ChangedFile],
    notes: &mut Vec<String>,
) -> Extras {
    let repo = forge.repository();
    let mut by_size: Vec<&ChangedFile> = files
        .iter()
        .filter(|f| f.status != resolve_pr_forge::FileStatus::Added)
        .collect();
    by_size.sort_by_key(|f| std::cmp::Reverse(f.additions + f.deletions));
    let history_paths: Vec<String> = by_size
        .iter()
        .take(HISTORY_FILES)
        .map(|f| f.previous_path.clone().unwrap_or_else(|| f.path.clone()))
        .collect();
    let manifest_paths = impact::dependency_files(files);
    let before_paths: Vec<String> = manifest_paths
        .iter()
        .map(|p| {
            files
                .iter()
                .find(|f| &f.path == p)
                .and_then(|f| f.previous_path.clone())
                .unwrap_or_else(|| p.clone())
        })
        .collect();
    let no_paths = Vec::new();
    let (owners, history, closed, before, after) = tokio::join!(
        repo.code_owners(&pr.repo, &pull.base_sha),
        async {
            if history_paths.is_empty() {
                Ok(Vec::new())
            } else {
                repo.recent_commits(&pr.repo, &pull.base_sha, &history_paths, HISTORY_PER_FILE)
                    .await
            }
        },
        repo.recent_closed_pulls(&pr.repo, CLOSED_PRS),
        async {
            if manifest_paths.is_empty() {
                Ok(Vec::new())
            } else {
                repo.file_texts(&pr.repo, &pull.base_sha, &before_paths, MANIFEST_BYTES)
                    .await
            }
        },
        async {
            if manifest_paths.is_empty() {
                Ok(no_paths.clone())
            } else {
                repo.file_texts(&pr.repo, &pull.head_sha, &manifest_paths, MANIFEST_BYTES)
                    .await
            }
        },
    );
    let mut extras = Extras {
        history_paths,
        ..Extras::default()
    };
    let mut note = |what: &str, e: resolve_pr_forge::Error| {
        notes.push(format!(
            "{what} could not be read: {}",
            Error::from(e).error
        ));
    };
    match owners {
        Ok(o) => extras.owners = o,
        Err(e) => note("the code owners file", e),
    }
    match history {
        Ok(h) => extras.history = h,
        Err(e) => {
            note("the files' history (for reviewers)", e);
            extras.history_paths.clear();
        }
    }
    match closed {
        Ok(c) => extras.closed = c,
        Err(e) => note("recently closed pull requests", e),
    }
    match (before, after) {
        (Ok(before), Ok(after)) => {
            for ((path, b), a) in manifest_paths.iter().zip(before).zip(after) {
                extras.manifests.insert(path.clone(), (b, a));
            }
        }
        (Err(e), _) | (_, Err(e)) => note("manifests and lockfiles", e),
    }
    extras
}

#[allow(clippy::too_many_arguments)]
fn build(
    pr: &PrRef,
    pull: &PullRequest,
    files: &[ChangedFile],
    commits: Option<&[CommitInfo]>,
    extra: &Extras,
    rules: &AreaRules,
    depth: Depth,
    mut notes: Vec<String>,
) -> Output {
    let changes = Changes {
        files_changed: files.len() as u64,
        additions: files.iter().map(|f| f.additions).sum(),
        deletions: files.iter().map(|f| f.deletions).sum(),
        commits: commits.map(|c| c.len() as u64).unwrap_or(0),
    };
    let impact_areas = impact::impact_areas(files, rules)
        .into_iter()
        .map(|a| ImpactArea {
            category: a.area.as_str().to_owned(),
            file_count: a.files.len() as u64,
            files: a.files.iter().take(FILES_PER_AREA).cloned().collect(),
            lines_changed: a.additions + a.deletions,
            risk_level: level(a.risk),
            reasons: a.reasons,
        })
        .collect();
    let (overall, factors) = impact::risk_factors(files, rules);
    let risk_factors = factors
        .into_iter()
        .map(|f| RiskFactor {
            factor: f.factor,
            severity: level(f.severity),
            description: f.description,
            files: f.files.into_iter().take(FILES_PER_AREA).collect(),
        })
        .collect();

    let owners = extra.owners.as_ref().map(CodeOwners::parse);
    if let (Some(o), Some(file)) = (&owners, &extra.owners)
        && !o.errors().is_empty()
    {
        notes.push(format!(
            "{} has {} line(s) the forge would not accept; they were left out",
            file.path,
            o.errors().len()
        ));
    }
    // History per changed file, in the order of `files`.
    let history: Vec<Vec<CommitInfo>> = files
        .iter()
        .map(|f| {
            let key = f.previous_path.as_ref().unwrap_or(&f.path);
            extra
                .history_paths
                .iter()
                .position(|p| p == key)
                .and_then(|i| extra.history.get(i).cloned())
                .unwrap_or_default()
        })
        .collect();
    let reviewers = impact::suggest_reviewers(
        files,
        owners.as_ref(),
        &history,
        &pull.author.login,
        REVIEWERS,
    );
    let mut required_reviewers: Vec<String> = Vec::new();
    if let Some(o) = &owners {
        for f in files {
            if let Some(m) = o.owners_of(&f.path) {
                for owner in m.owners {
                    // As the forge's reviewer lists name them: `bob`, `org/team`.
                    let owner = owner.trim_start_matches('@').to_owned();
                    // The author cannot be asked to review their own PR.
                    if owner.eq_ignore_ascii_case(&pull.author.login) {
                        continue;
                    }
                    if !required_reviewers.contains(&owner) {
                        required_reviewers.push(owner);
                    }
                }
            }
        }
    }
    let suggested_reviewers = reviewers
        .into_iter()
        .map(|r| Reviewer {
            // As the forges' reviewer lists name them: `bob`, `org/team`.
            username: r.login.trim_start_matches('@').to_owned(),
            reason: r.reasons.join("; "),
            confidence: round2(r.confidence),
            is_code_owner: r.is_code_owner,
        })
        .collect();
    let similar_prs = impact::similar_prs(files, &extra.closed, SIMILAR)
        .into_iter()
        .filter(|s| s.number != pull.number && s.score >= MIN_SIMILARITY)
        .map(|s| SimilarPr {
            number: s.number,
            title: s.title,
            similarity_score: round2(s.score),
            outcome: if s.merged {
                Outcome::Merged
            } else {
                Outcome::Closed
            },
            shared_files: s.shared_paths.into_iter().take(FILES_PER_AREA).collect(),
            reason: s.reasons.join("; "),
        })
        .collect();
    let mut updates = Vec::new();
    for (path, (before, after)) in &extra.manifests {
        match impact::try_dependency_updates(path, before.as_deref(), after.as_deref()) {
            Ok(u) => updates.extend(u),
            Err(why) => notes.push(format!("{path} could not be read: {why}")),
        }
    }
    // A lockfile's resolved versions stand for its manifest's requirements.
    let dependency_updates = impact::prefer_lockfiles(updates)
        .into_iter()
        .map(|d| DependencyUpdate {
            ecosystem: ecosystem_str(d.ecosystem).to_owned(),
            package: d.package,
            from_version: d.from,
            to_version: d.to,
            is_breaking: d.major,
            change: update_kind_str(d.kind).to_owned(),
            file: d.file,
        })
        .collect();
    let files_out = (depth == Depth::Detailed).then(|| {
        files
            .iter()
            .map(|f| FileImpact {
                path: f.path.clone(),
                category: rules.area_of(&f.path).as_str().to_owned(),
                additions: f.additions,
                deletions: f.deletions,
                status: status_str(f.status).to_owned(),
            })
            .collect()
    });
    Output {
        pr: pr.to_string(),
        changes,
        impact_areas,
        overall_risk: level(overall),
        risk_factors,
        suggested_reviewers,
        required_reviewers,
        similar_prs,
        dependency_updates,
        files: files_out,
        notes,
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn level(r: impact::Risk) -> RiskLevel {
    match r {
        impact::Risk::Low => RiskLevel::Low,
        impact::Risk::Medium => RiskLevel::Medium,
        impact::Risk::High => RiskLevel::High,
    }
}

fn risk_str(r: RiskLevel) -> &'static str {
    match r {
        RiskLevel::Low => "low",
        RiskLevel::Medium => "medium",
        RiskLevel::High => "high",
    }
}

fn ecosystem_str(e: impact::Ecosystem) -> &'static str {
    match e {
        impact::Ecosystem::Cargo => "cargo",
        impact::Ecosystem::Npm => "npm",
        impact::Ecosystem::PyPI => "pip",
        impact::Ecosystem::Go => "go",
    }
}

fn update_kind_str(k: impact::UpdateKind) -> &'static str {
    match k {
        impact::UpdateKind::Added => "added",
        impact::UpdateKind::Removed => "removed",
        impact::UpdateKind::Upgraded => "upgraded",
        impact::UpdateKind::Downgraded => "downgraded",
        impact::UpdateKind::Changed => "changed",
    }
}

pub(crate) fn status_str(s: resolve_pr_forge::FileStatus) -> &'static str {
    match s {
        resolve_pr_forge::FileStatus::Added => "added",
        resolve_pr_forge::FileStatus::Modified => "modified",
        resolve_pr_forge::FileStatus::Deleted => "deleted",
        resolve_pr_forge::FileStatus::Renamed => "renamed",
    }
}
