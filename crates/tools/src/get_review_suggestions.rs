//! `get_review_suggestions` (seed 000 tool 7; seed 003's `ReviewContext`): what a reviewer
//! (an agent) needs to review a PR in one call, within a token budget: metadata, every file
//! with its stats, the diff cut to `max_diff_lines` by a stated priority, focus points from
//! deterministic patterns naming their lines, exported symbols removed or changed (compared
//! with tree-sitter before and after), a checklist per file category and focus area, and the
//! issues and PRs the description and commits refer to. The patterns and priorities live in
//! `resolve_pr_pr::review`; the checklist's wording here.

use resolve_pr_core::{Error, PrRef, Result, budget};
use resolve_pr_forge::{ChangedFile, CommitInfo, FileStatus, Forge, PullRequest};
use resolve_pr_pr::patch::reverse_apply;
use resolve_pr_pr::review::{self, FileCategory, FocusKind};
use resolve_pr_syntax::{ApiChange, dialect_of, reads_exports};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::registry::{Annotations, Tool};

mod api;
mod checklist;
use api::{api_change, api_changes};
use checklist::{checklist, is_security_path};

/// Default and ceiling of `max_diff_lines`.
const DEFAULT_DIFF_LINES: u32 = 500;
const MAX_DIFF_LINES: u32 = 5000;
/// Files listed at most (the highest-priority ones); the rest are counted.
const MAX_FILES: usize = 100;
/// Files named in diff_omitted at most.
const MAX_OMITTED: usize = 20;
/// Focus points per file at most.
const FOCUS_PER_FILE: usize = 10;
/// Source files compared for exported symbols at most, and their size limit.
const API_FILES: usize = 30;
const API_FILE_BYTES: u64 = 512 * 1024;
/// Bytes of the PR's description shown.
const DESCRIPTION_BYTES: usize = 4000;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    #[schemars(example = &"owner/repo#123")]
    pub pr: String,
    /// security, performance, testing, documentation, compatibility, accessibility,
    /// concurrency, error_handling.
    #[serde(default)]
    pub focus_areas: Vec<String>,
    #[serde(default)]
    pub include_diff: Option<bool>,
    /// Across all files (default 500).
    #[serde(default)]
    #[schemars(range(max = 5000))]
    pub max_diff_lines: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Metadata {
    pub title: String,
    pub description: String,
    pub author: String,
    pub labels: Vec<String>,
    pub draft: bool,
    pub base_branch: String,
    pub head_branch: String,
    pub head_sha: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FocusPoint {
    #[serde(rename = "type")]
    pub kind: String,
    /// In the old file when removed.
    pub line: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
    pub description: String,
    pub code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApiChangeOut {
    pub change: String,
    pub name: String,
    pub kind: String,
    pub before: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewFile {
    pub path: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_path: Option<String>,
    pub additions: u64,
    pub deletions: u64,
    pub category: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_excerpt: Option<String>,
    pub focus_points: Vec<FocusPoint>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub api_changes: Vec<ApiChangeOut>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChecklistItem {
    pub question: String,
    pub guidance: String,
    pub applies_to: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChecklistSection {
    pub category: String,
    pub items: Vec<ChecklistItem>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewContext {
    pub related_issues: Vec<u64>,
    pub mentioned_prs: Vec<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cross_repo_references: Vec<String>,
    pub breaking_changes_detected: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub security_sensitive_files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiffOmitted {
    pub path: String,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    pub metadata: Metadata,
    pub files: Vec<ReviewFile>,
    /// Beyond the first 100 by priority.
    #[serde(skip_serializing_if = "is_zero")]
    pub files_not_listed: u64,
    pub review_checklist: Vec<ChecklistSection>,
    pub context: ReviewContext,
    pub diff_lines_shown: u64,
    pub diff_lines_total: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diff_omitted: Vec<DiffOmitted>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how_to_get_full_diff: Option<String>,
    /// Of this response (JSON bytes / 4).
    pub token_estimate: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub struct GetReviewSuggestions;

impl Tool for GetReviewSuggestions {
    const NAME: &'static str = "get_review_suggestions";
    const TITLE: &'static str = "Get review suggestions";
    const DESCRIPTION: &'static str = "Everything to review a PR in one call, within a token \
budget: metadata, every file's status and stats, diff excerpts within max_diff_lines (source \
and tests first, lockfiles last; what was cut is listed), focus points from fixed patterns \
(unsafe, eval/exec, SQL built by concatenation, secret-like strings, removed tests, TODOs, \
changed public signatures) with their lines, exported symbols removed or changed (tree-sitter: \
Rust, TypeScript/JavaScript, Python, Go), a checklist per file category and focus area, and \
referenced issues and PRs.";
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
        let mut problems = Vec::new();
        let max_lines = input.max_diff_lines.unwrap_or(DEFAULT_DIFF_LINES);
        if max_lines > MAX_DIFF_LINES {
            problems.push(format!(
                "max_diff_lines: {max_lines} is more than {MAX_DIFF_LINES}; give at most \
                 {MAX_DIFF_LINES}, or 0 for no diff"
            ));
        }
        let mut focus_areas = Vec::new();
        for area in &input.focus_areas {
            match focus_area(area) {
                Some(a) => focus_areas.push(a),
                None => problems.push(format!(
                    "focus_areas: {area:?} is not one of {}",
                    FOCUS_AREAS.join(", ")
                )),
            }
        }
        let pr_ref = crate::shared::pr_from_ref(&input.pr, problems)?;
        let forge = ctx.forge(&pr_ref.repo)?;
        let repo = forge.repository();
        let (pull, files, commits) = tokio::join!(
            forge.pull_requests().pull_request(&pr_ref),
            repo.pull_files(&pr_ref, true),
            repo.pull_commits(&pr_ref),
        );
        let pull = pull?;
        let files = files?;
        let mut notes = Vec::new();
        let commits = commits.unwrap_or_else(|e| {
            notes.push(format!(
                "commits could not be read, so their messages were not searched for references: {}",
                Error::from(e).error
            ));
            Vec::new()
        });
        let api = api_changes(forge.as_ref(), &pr_ref, &pull, &files, &mut notes).await;
        let include_diff = input.include_diff.unwrap_or(true) && max_lines > 0;
        let mut out = build(
            forge.as_ref(),
            &pr_ref,
            &pull,
            &files,
            &commits,
            &api,
            include_diff.then_some(max_lines as usize),
            &focus_areas,
            notes,
        );
        out.token_estimate = estimate(&out);
        Ok(out)
    }

    /// The whole review context as text, for clients that show the model only the text:
    /// files with their diff, focus points and API changes, then the checklist.
    fn render(out: &Output) -> String {
        let m = &out.metadata;
        let files = out.files.len() as u64 + out.files_not_listed;
        let mut text = format!(
            "{} \"{}\" by {} ({} ← {}{}{}): {} file{}, {} of {} diff lines shown, ~{} tokens.",
            out.pr,
            m.title,
            m.author,
            m.base_branch,
            m.head_branch,
            if m.draft { ", draft" } else { "" },
            if m.labels.is_empty() {
                String::new()
            } else {
                format!(", labels: {}", m.labels.join(", "))
            },
            files,
            if files == 1 { "" } else { "s" },
            out.diff_lines_shown,
            out.diff_lines_total,
            out.token_estimate
        );
        if !m.description.trim().is_empty() {
            text.push_str(&format!("\n\n{}", m.description.trim()));
        }
        let c = &out.context;
        let mut refs = Vec::new();
        if !c.related_issues.is_empty() {
            let n: Vec<String> = c.related_issues.iter().map(|n| format!("#{n}")).collect();
            refs.push(format!("issues {}", n.join(", ")));
        }
        if !c.mentioned_prs.is_empty() {
            let n: Vec<String> = c.mentioned_prs.iter().map(|n| format!("#{n}")).collect();
            refs.push(format!("PRs {}", n.join(", ")));
        }
        if !c.cross_repo_references.is_empty() {
            refs.push(c.cross_repo_references.join(", "));
        }
        if !refs.is_empty() {
            text.push_str(&format!("\n\nReferences: {}.", refs.join("; ")));
        }
        for f in &out.files {
            text.push_str(&format!(
                "\n\n## {} ({}{}, +{} -{}, {})",
                f.path,
                f.status,
                f.previous_path
                    .as_deref()
                    .map(|p| format!(" from {p}"))
                    .unwrap_or_default(),
                f.additions,
                f.deletions,
                f.category
            ));
            for a in &f.api_changes {
                match &a.after {
                    Some(after) => text.push_str(&format!(
                        "\nAPI changed: {} (line {}): `{}` → `{}`",
                        a.name, a.line, a.before, after
                    )),
                    None => text.push_str(&format!(
                        "\nAPI removed: {} (line {}): `{}`",
                        a.name, a.line, a.before
                    )),
                }
            }
            for p in &f.focus_points {
                text.push_str(&format!(
                    "\nFocus line {}{} ({}): {} — `{}`",
                    p.line,
                    if p.removed { ", removed" } else { "" },
                    p.kind,
                    p.description,
                    p.code
                ));
            }
            if let Some(d) = &f.diff_excerpt {
                text.push_str(&format!("\n```diff\n{d}\n```"));
            }
        }
        if out.files_not_listed > 0 {
            text.push_str(&format!(
                "\n\n{} more files not listed.",
                out.files_not_listed
            ));
        }
        if !out.diff_omitted.is_empty() {
            let omitted: Vec<String> = out
                .diff_omitted
                .iter()
                .map(|o| format!("{} ({})", o.path, o.why))
                .collect();
            text.push_str(&format!("\n\nDiff not shown: {}.", omitted.join("; ")));
        }
        if let Some(cmd) = &out.how_to_get_full_diff {
            text.push_str(&format!("\nWhole diff: {cmd}"));
        }
        for section in &out.review_checklist {
            text.push_str(&format!("\n\n{}:", section.category));
            for item in &section.items {
                text.push_str(&format!(
                    "\n- {} {} ({})",
                    item.question, item.guidance, item.applies_to
                ));
            }
        }
        for n in &out.notes {
            text.push_str(&format!("\nNote: {n}"));
        }
        text
    }
}

/// The focus areas the checklist has sections for.
const FOCUS_AREAS: [&str; 8] = [
    "security",
    "performance",
    "testing",
    "documentation",
    "compatibility",
    "accessibility",
    "concurrency",
    "error_handling",
];

fn focus_area(name: &str) -> Option<&'static str> {
    let n = name.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    let n = match n.as_str() {
        "tests" | "test" => "testing",
        "docs" | "doc" => "documentation",
        "perf" => "performance",
        "a11y" => "accessibility",
        "errors" => "error_handling",
        "breaking_changes" | "api" => "compatibility",
        other => other,
    }
    .to_owned();
    FOCUS_AREAS.iter().copied().find(|a| *a == n)
}

#[allow(clippy::too_many_arguments)]
fn build(
    forge: &dyn Forge,
    pr: &PrRef,
    pull: &PullRequest,
    files: &[ChangedFile],
    commits: &[CommitInfo],
    api: &[Vec<ApiChange>],
    max_lines: Option<usize>,
    focus_areas: &[&str],
    notes: Vec<String>,
) -> Output {
    let plan = max_lines.map(|m| review::plan_excerpts(files, m));
    let categories: Vec<FileCategory> = files
        .iter()
        .map(|f| review::file_category(&f.path))
        .collect();
    let focus: Vec<Vec<review::FocusPoint>> = files
        .iter()
        .map(|f| {
            let mut points = f
                .patch
                .as_deref()
                .map(|p| review::focus_points(&f.path, p))
                .unwrap_or_default();
            // A new file's public declarations are all new; where tree-sitter compares the
            // exported symbols, api_changes says exactly which changed.
            if f.status == FileStatus::Added || dialect_of(&f.path).is_some_and(reads_exports) {
                points.retain(|p| p.kind != FocusKind::PublicSignature);
            }
            points
        })
        .collect();
    // Files in priority order: what the excerpt plan shows first, then the rest by size.
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| {
        (
            category_rank(categories[i]),
            std::cmp::Reverse(focus[i].len() + api[i].len()),
            std::cmp::Reverse(files[i].additions + files[i].deletions),
        )
    });
    let listed: Vec<usize> = order.iter().copied().take(MAX_FILES).collect();
    let files_out = listed
        .iter()
        .map(|&i| {
            let f = &files[i];
            ReviewFile {
                path: f.path.clone(),
                status: crate::analyze_pr_impact::status_str(f.status).to_owned(),
                previous_path: f.previous_path.clone(),
                additions: f.additions,
                deletions: f.deletions,
                category: category_str(categories[i]).to_owned(),
                language: dialect_of(&f.path).map(|l| l.as_str().to_owned()),
                diff_excerpt: plan
                    .as_ref()
                    .and_then(|p| p.per_file.get(i).cloned().flatten())
                    .map(|e| e.text),
                focus_points: focus[i]
                    .iter()
                    .take(FOCUS_PER_FILE)
                    .map(|p| FocusPoint {
                        kind: focus_kind_str(p.kind).to_owned(),
                        line: p.line,
                        removed: p.removed,
                        description: p.reason.clone(),
                        code: p.excerpt.clone(),
                    })
                    .collect(),
                api_changes: api[i].iter().filter_map(api_change).collect(),
            }
        })
        .collect();

    let mut texts: Vec<&str> = vec![pull.title.as_str(), pull.body.as_str()];
    texts.extend(commits.iter().map(|c| c.message.as_str()));
    let this_repo = pr.repo.full_name();
    let refs = review::references(&texts, &this_repo);
    let mut related_issues = Vec::new();
    let mut mentioned_prs = Vec::new();
    let mut cross = Vec::new();
    for r in refs.closes.iter().chain(&refs.mentions) {
        match &r.repo {
            None if r.number != pull.number && !related_issues.contains(&r.number) => {
                related_issues.push(r.number)
            }
            None => {}
            Some(repo) => cross.push(format!("{repo}#{}", r.number)),
        }
    }
    for r in &refs.pulls {
        match &r.repo {
            None if r.number != pull.number => {
                if !mentioned_prs.contains(&r.number) {
                    mentioned_prs.push(r.number);
                }
                related_issues.retain(|n| *n != r.number);
            }
            None => {}
            Some(repo) => cross.push(format!("{repo}#{}", r.number)),
        }
    }
    let mut seen = std::collections::HashSet::new();
    cross.retain(|c| seen.insert(c.clone()));
    let breaking = api.iter().any(|c| !c.is_empty());
    let security_sensitive_files: Vec<String> = files
        .iter()
        .zip(&focus)
        .filter(|(f, points)| {
            is_security_path(&f.path)
                || points.iter().any(|p| {
                    matches!(
                        p.kind,
                        FocusKind::Unsafe
                            | FocusKind::DynamicCode
                            | FocusKind::SqlConcatenation
                            | FocusKind::SecretLike
                    )
                })
        })
        .map(|(f, _)| f.path.clone())
        .take(MAX_FILES)
        .collect();
    let review_checklist = checklist(files, &categories, &focus, breaking, focus_areas);

    // Lines of every file's diff (hunk headers included), with or without excerpts.
    let patch_lines: u64 = files
        .iter()
        .map(|f| match &f.patch {
            Some(p) => p.lines().count() as u64,
            None => f.additions + f.deletions,
        })
        .sum();
    let (diff_lines_shown, diff_lines_total, mut diff_omitted) = match &plan {
        Some(p) => (
            p.lines_shown as u64,
            patch_lines,
            p.omitted
                .iter()
                .map(|o| DiffOmitted {
                    path: o.path.clone(),
                    why: if o.reason == review::OmissionReason::Binary {
                        "binary".to_owned()
                    } else if o.reason == review::OmissionReason::NoPatch {
                        format!("no diff from the forge: {} changed lines", o.lines)
                    } else if o.hunks == 0 {
                        format!(
                            "{}: the last {} lines of a hunk cut",
                            o.reason.as_str(),
                            o.lines
                        )
                    } else {
                        format!(
                            "{}: {} line{} in {} hunk{}",
                            o.reason.as_str(),
                            o.lines,
                            if o.lines == 1 { "" } else { "s" },
                            o.hunks,
                            if o.hunks == 1 { "" } else { "s" }
                        )
                    },
                })
                .collect(),
        ),
        None => (0, patch_lines, Vec::new()),
    };
    if diff_omitted.len() > MAX_OMITTED {
        let more = diff_omitted.len() - MAX_OMITTED;
        diff_omitted.truncate(MAX_OMITTED);
        diff_omitted.push(DiffOmitted {
            path: format!("({more} more files)"),
            why: "not shown either".to_owned(),
        });
    }
    let how_to_get_full_diff = (diff_lines_shown < diff_lines_total)
        .then(|| forge.commands().view_diff(pr).render().ok())
        .flatten();
    Output {
        pr: pr.to_string(),
        metadata: Metadata {
            title: pull.title.clone(),
            description: budget::cut(&pull.body, DESCRIPTION_BYTES, "the PR's page").text,
            author: pull.author.login.clone(),
            labels: pull.labels.clone(),
            draft: pull.draft,
            base_branch: pull.base_ref.clone(),
            head_branch: pull.head_ref.clone(),
            head_sha: pull.head_sha.clone(),
        },
        files: files_out,
        files_not_listed: files.len().saturating_sub(MAX_FILES) as u64,
        review_checklist,
        context: ReviewContext {
            related_issues,
            mentioned_prs,
            cross_repo_references: cross,
            breaking_changes_detected: breaking,
            security_sensitive_files,
        },
        diff_lines_shown,
        diff_lines_total,
        diff_omitted,
        how_to_get_full_diff,
        token_estimate: 0,
        notes,
    }
}

/// Bytes of the response's JSON / 4: the usual estimate for English and code, and what a
/// caller can check.
fn estimate(out: &Output) -> u64 {
    let bytes = serde_json::to_vec(out).map(|v| v.len()).unwrap_or(0) as u64;
    // The estimate itself adds a few digits.
    (bytes + 8).div_ceil(4)
}

fn category_rank(c: FileCategory) -> u8 {
    match c {
        FileCategory::Source => 0,
        FileCategory::Test => 1,
        FileCategory::Config | FileCategory::Build => 2,
        FileCategory::Docs => 3,
        FileCategory::Generated | FileCategory::Lock | FileCategory::Vendored => 4,
    }
}

fn category_str(c: FileCategory) -> &'static str {
    match c {
        FileCategory::Source => "source",
        FileCategory::Test => "test",
        FileCategory::Config => "config",
        FileCategory::Docs => "docs",
        FileCategory::Build => "build",
        FileCategory::Generated => "generated",
        FileCategory::Lock => "lock",
        FileCategory::Vendored => "vendored",
    }
}

fn focus_kind_str(k: FocusKind) -> &'static str {
    match k {
        FocusKind::Unsafe => "unsafe",
        FocusKind::DynamicCode => "dynamic_code",
        FocusKind::SqlConcatenation => "sql_concatenation",
        FocusKind::SecretLike => "secret_like",
        FocusKind::RemovedTest => "removed_test",
        FocusKind::TodoAdded => "todo_added",
        FocusKind::PublicSignature => "public_signature",
        FocusKind::Panic => "panic",
    }
}
