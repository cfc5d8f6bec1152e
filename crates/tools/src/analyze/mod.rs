//! What seed 002's nine analysis tools share: the request's scope and paging, the
//! `AnalysisResult` every one answers (findings, summary with all three severities,
//! metadata echoing what was applied), finding ids, the suggestions' refactoring calls,
//! and the text. The analyses themselves are `resolve_pr_analysis`'s; a tool module says
//! which files it reads, turns the crate's answers into findings and hands them here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use resolve_pr_analysis::{Loaded, SourceFile, Walk};
use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{Position, Range};

/// Reads the checkout, writes nothing, asks no one.
pub(crate) const READS_LOCAL: crate::registry::Annotations = crate::code::READ_LOCAL;

/// Files one analysis reads at most; the rest are said in a warning.
pub(crate) const MAX_FILES: usize = 50_000;
/// Bytes of an exported graph the text shows.
const GRAPH_TEXT_BYTES: usize = 4_000;
/// Findings the text lists; the structured output has the whole page.
const TEXT_FINDINGS: usize = 40;

/// Which files to analyse. Paths are relative to the checkout; globs choose among the
/// files `.gitignore` keeps.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// workspace (default), directory or file (with path), symbol (with symbol_name).
    #[serde(rename = "type", default)]
    pub kind: ScopeType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol_name: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(example = &["src/**/*.rs"])]
    pub include: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScopeType {
    #[default]
    Workspace,
    Directory,
    File,
    Symbol,
}

/// A tool's options when the call gives none: every field at its serde default (the
/// page's limit 1000, not 0).
pub(crate) fn no_options<T: serde::de::DeserializeOwned>() -> T {
    serde_json::from_value(Value::Object(serde_json::Map::new()))
        .unwrap_or_else(|e| unreachable!("every option has a default: {e}"))
}

pub(crate) fn default_limit() -> usize {
    1000
}

/// The page of findings: `limit` 1–5000 from `offset`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub struct Page {
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 5000))]
    pub limit: usize,
    #[serde(default)]
    pub offset: usize,
}

impl Default for Page {
    fn default() -> Self {
        Page {
            limit: default_limit(),
            offset: 0,
        }
    }
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
}

/// Findings by severity: every key always present.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct BySeverity {
    pub high: usize,
    pub medium: usize,
    pub low: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    pub file_path: String,
    pub range: Range,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SymbolIdentifier {
    pub symbol: String,
    pub symbol_kind: String,
    pub language: String,
}

/// A refactoring tool's call that acts on the finding, with arguments its schema takes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RefactorCall {
    pub command: String,
    pub arguments: Value,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Suggestion {
    pub action: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_impact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refactor_call: Option<RefactorCall>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    // Stable: the same finding has the same id on every call and page.
    pub id: String,
    pub kind: String,
    pub severity: Severity,
    // {file_path, range}; the schema leaves the shapes of what follows to the text of the
    // toolset's conventions (tokens: nine tools list this schema).
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub location: Location,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub symbol: Option<SymbolIdentifier>,
    pub metrics: BTreeMap<String, Value>,
    pub message: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub suggestions: Vec<Suggestion>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub total_findings: usize,
    pub returned_findings: usize,
    pub has_more: bool,
    // Of all findings, not only this page's.
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub by_severity: BySeverity,
    pub files_analyzed: usize,
    pub symbols_analyzed: usize,
    pub analysis_time_ms: u64,
}

/// A graph export (`format: graph`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GraphExport {
    /// mermaid, graphviz or json.
    pub format: String,
    pub payload: String,
    pub encoding: String,
    pub size_bytes: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Metadata {
    pub category: String,
    pub kind: String,
    pub scope: Scope,
    /// Omitted when the files are in several languages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    pub timestamp: String,
    /// The thresholds applied.
    pub thresholds: BTreeMap<String, f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphExport>,
}

/// Seed 002's `AnalysisResult`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AnalysisResult {
    pub findings: Vec<Finding>,
    pub summary: Summary,
    // category, kind, scope, language, timestamp, thresholds, graph.
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub metadata: Metadata,
    // What was not read or not decided (files skipped, a walk cut at its limit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Where this page started (`options.offset`).
    #[serde(skip)]
    pub offset: usize,
}

/// A scope checked against the checkout.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub root: PathBuf,
    pub scope: Scope,
    /// The directory or file the scope names, relative, `/`-separated ("" for all).
    pub prefix: String,
}

impl Resolved {
    /// Whether a file (relative path) is in the scope's directory or is its file.
    pub fn holds(&self, path: &str) -> bool {
        self.prefix.is_empty()
            || path == self.prefix
            || path
                .strip_prefix(self.prefix.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    }

    /// Whether a finding about `symbol` is in a symbol scope (every finding is otherwise).
    pub fn names(&self, symbol: Option<&str>) -> bool {
        match (self.scope.kind, self.scope.symbol_name.as_deref()) {
            (ScopeType::Symbol, Some(want)) => {
                symbol.is_some_and(|s| s == want || s.rsplit(['.', ':']).next() == Some(want))
            }
            _ => true,
        }
    }
}

fn invalid_scope(message: impl Into<String>, field: &str) -> Error {
    Error::user(message)
        .with_code(ErrorCode::InvalidScope)
        .with_detail("field", field)
}

/// Checks the scope: `path` for directory and file, `symbol_name` for symbol, globs that
/// parse, a path inside the checkout of the right kind.
pub(crate) fn resolve(
    ctx: &Context,
    directory: Option<&str>,
    scope: Option<Scope>,
) -> Result<Resolved> {
    let root = crate::checkout::workspace(ctx, directory)?;
    let scope = scope.unwrap_or_default();
    let mut prefix = String::new();
    match scope.kind {
        ScopeType::Directory | ScopeType::File => {
            let kind = if scope.kind == ScopeType::File {
                "file"
            } else {
                "directory"
            };
            let Some(path) = scope.path.as_deref().filter(|p| !p.is_empty()) else {
                return Err(invalid_scope(
                    format!("Scope path must be provided for type '{kind}'"),
                    "scope.path",
                )
                .with_suggestion(
                    "Give scope.path, relative to the checkout, or scope.type 'workspace'.",
                ));
            };
            let full = resolve_pr_code::target::path_in(&root, path, "scope.path")
                .map_err(|e| invalid_scope(e.error.clone(), "scope.path"))?;
            let ok = if scope.kind == ScopeType::File {
                full.is_file()
            } else {
                full.is_dir()
            };
            if !ok {
                return Err(invalid_scope(
                    format!("{path} is not a {kind} of the checkout"),
                    "scope.path",
                ));
            }
            prefix = resolve_pr_analysis::relative(&root, &full);
        }
        ScopeType::Symbol => {
            if scope.symbol_name.as_deref().is_none_or(str::is_empty) {
                return Err(invalid_scope(
                    "Scope symbol_name must be provided for type 'symbol'",
                    "scope.symbol_name",
                ));
            }
        }
        ScopeType::Workspace => {}
    }
    Ok(Resolved {
        root,
        scope,
        prefix,
    })
}

/// Keeps the findings about the scope's files: a finding's file, or for a cycle any file of
/// its component. (An analysis that reads the whole checkout to resolve references.)
pub(crate) fn keep_in_scope(resolved: &Resolved, files: &[SourceFile], outcome: &mut Outcome) {
    if resolved.prefix.is_empty() {
        return;
    }
    outcome.files_analyzed = files.iter().filter(|f| resolved.holds(&f.path)).count();
    outcome.drafts.retain(|d| {
        resolved.holds(&d.file)
            || d.metrics
                .get("files")
                .and_then(Value::as_array)
                .is_some_and(|fs| {
                    fs.iter()
                        .filter_map(Value::as_str)
                        .any(|f| resolved.holds(f))
                })
    });
}

/// What an analysis read.
pub(crate) struct Read {
    pub loaded: Loaded,
    pub warnings: Vec<String>,
}

/// Reads and parses the scope's files (`whole`: every file of the checkout, for an analysis
/// that needs references from outside the scope), on the blocking pool.
pub(crate) async fn read(resolved: &Resolved, whole: bool) -> Result<Read> {
    let root = resolved.root.clone();
    let mut walk = Walk::sources(&root).globs(&resolved.scope.include, &resolved.scope.exclude);
    let single_file = resolved.scope.kind == ScopeType::File && !whole;
    if !whole && resolved.scope.kind == ScopeType::Directory {
        walk = walk.under(&root.join(&resolved.prefix));
    }
    let prefix = resolved.prefix.clone();
    let loaded = tokio::task::spawn_blocking(move || -> Result<Loaded> {
        if single_file {
            let full = root.join(&prefix);
            let text = std::fs::read_to_string(&full).map_err(|e| {
                invalid_scope(format!("{prefix} cannot be read as text: {e}"), "scope.path")
            })?;
            let Some(dialect) = resolve_pr_syntax::dialect_of(&prefix) else {
                return Err(invalid_scope(
                    format!("{prefix} is not a source file the analyses read (Rust, TypeScript/JavaScript, Python, Go, C)"),
                    "scope.path",
                ));
            };
            let file = SourceFile::parse(prefix.clone(), dialect, text)
                .map_err(|e| invalid_scope(e.to_string(), "scope.path"))?;
            return Ok(Loaded { files: vec![file], ..Loaded::default() });
        }
        resolve_pr_analysis::load(&root, &walk, MAX_FILES).map_err(|e| {
            Error::user(e.to_string())
                .with_code(ErrorCode::InvalidScope)
                .with_detail("field", "scope.include")
        })
    })
    .await
    .map_err(|e| Error::unknown(format!("the analysis stopped: {e}")).with_code(ErrorCode::InternalError))??;
    let mut warnings = Vec::new();
    if loaded.more {
        warnings.push(format!(
            "only the first {MAX_FILES} source files were read: narrow the scope (scope.path, scope.include)"
        ));
    }
    if !loaded.skipped.is_empty() {
        let shown: Vec<String> = loaded
            .skipped
            .iter()
            .take(3)
            .map(ToString::to_string)
            .collect();
        warnings.push(format!(
            "{} file(s) not analysed: {}{}",
            loaded.skipped.len(),
            shown.join("; "),
            if loaded.skipped.len() > 3 {
                "; ..."
            } else {
                ""
            }
        ));
    }
    Ok(Read { loaded, warnings })
}

/// The language of the files, when they share one.
pub(crate) fn language_of(files: &[&SourceFile]) -> Option<String> {
    let mut langs = files.iter().map(|f| f.dialect.language());
    let first = langs.next()?;
    langs.all(|l| l == first).then(|| first.as_str().to_owned())
}

/// A finding being built: what every tool fills in; the id is given by [`finish`].
pub(crate) struct Draft {
    pub kind: &'static str,
    pub severity: Severity,
    pub file: String,
    pub span: resolve_pr_analysis::Span,
    pub symbol: Option<(String, String)>,
    pub language: &'static str,
    pub metrics: BTreeMap<String, Value>,
    pub message: String,
    pub suggestions: Vec<Suggestion>,
    /// Orders findings within a severity: larger first (a metric), then file and line.
    pub weight: f64,
}

pub(crate) fn range(span: resolve_pr_analysis::Span) -> Range {
    Range {
        start: Position {
            line: span.start.line,
            character: span.start.character,
        },
        end: Position {
            line: span.end.line,
            character: span.end.character,
        },
    }
}

/// A stable id: the kind's prefix and a hash of what the finding is about (kind, file,
/// symbol, position), so a page never repeats or skips one however the call is paged.
fn id_of(d: &Draft) -> String {
    let key = format!(
        "{}\u{0}{}\u{0}{}\u{0}{}:{}",
        d.kind,
        d.file,
        d.symbol.as_ref().map_or("", |s| s.0.as_str()),
        d.span.start.line,
        d.span.start.character
    );
    // FNV-1a: stable across runs and machines (std's hasher is seeded per process).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{}-{:012x}", d.kind.replace('_', "-"), h & 0xffff_ffff_ffff)
}

/// What a tool hands over to become its answer.
pub(crate) struct Outcome {
    pub category: &'static str,
    pub kind: String,
    pub drafts: Vec<Draft>,
    pub files_analyzed: usize,
    pub symbols_analyzed: usize,
    pub thresholds: BTreeMap<String, f64>,
    pub language: Option<String>,
    pub graph: Option<GraphExport>,
    pub warnings: Vec<String>,
}

/// Orders the findings (severity, then weight, then file and line: the same on every
/// call), pages them and builds the result.
pub(crate) fn finish(
    resolved: &Resolved,
    outcome: Outcome,
    page: Page,
    started: Instant,
) -> Result<AnalysisResult> {
    if !(1..=5000).contains(&page.limit) {
        return Err(Error::user(format!(
            "options.limit must be 1 to 5000, not {}",
            page.limit
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", "options.limit"));
    }
    let mut drafts = outcome.drafts;
    drafts.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(b.weight.total_cmp(&a.weight))
            .then_with(|| a.file.cmp(&b.file))
            .then(a.span.start.cmp(&b.span.start))
            .then_with(|| a.kind.cmp(b.kind))
    });
    let mut by = BySeverity::default();
    for d in &drafts {
        match d.severity {
            Severity::High => by.high += 1,
            Severity::Medium => by.medium += 1,
            Severity::Low => by.low += 1,
        }
    }
    let total = drafts.len();
    let findings: Vec<Finding> = drafts
        .into_iter()
        .skip(page.offset)
        .take(page.limit)
        .map(|d| Finding {
            id: id_of(&d),
            kind: d.kind.to_owned(),
            severity: d.severity,
            location: Location {
                file_path: d.file.clone(),
                range: range(d.span),
            },
            symbol: d.symbol.map(|(symbol, symbol_kind)| SymbolIdentifier {
                symbol,
                symbol_kind,
                language: d.language.to_owned(),
            }),
            metrics: d.metrics,
            message: d.message,
            suggestions: d.suggestions,
        })
        .collect();
    let returned = findings.len();
    Ok(AnalysisResult {
        summary: Summary {
            total_findings: total,
            returned_findings: returned,
            has_more: page.offset + returned < total,
            by_severity: by,
            files_analyzed: outcome.files_analyzed,
            symbols_analyzed: outcome.symbols_analyzed,
            analysis_time_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        },
        findings,
        metadata: Metadata {
            category: outcome.category.to_owned(),
            kind: outcome.kind,
            scope: resolved.scope.clone(),
            language: outcome.language,
            timestamp: now(),
            thresholds: outcome.thresholds,
            graph: outcome.graph,
        },
        warnings: outcome.warnings,
        offset: page.offset,
    })
}

fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    chrono::DateTime::from_timestamp(i64::try_from(secs).unwrap_or(0), 0)
        .map_or_else(String::new, |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// The text: counts, then one line per finding (at most [`TEXT_FINDINGS`]); the registry
/// adds how many it showed and the next call ([`shown`], [`next_offset`]).
pub(crate) fn render(tool: &str, out: &AnalysisResult) -> String {
    let s = &out.summary;
    let b = &s.by_severity;
    let mut text = format!(
        "{tool} {}: {} finding(s) ({} high, {} medium, {} low) in {} file(s), {} symbol(s)",
        out.metadata.kind,
        s.total_findings,
        b.high,
        b.medium,
        b.low,
        s.files_analyzed,
        s.symbols_analyzed
    );
    for w in &out.warnings {
        text.push_str(&format!("\nwarning: {w}"));
    }
    if let Some(g) = &out.metadata.graph {
        let shown = resolve_pr_core::budget::cut(
            &g.payload,
            GRAPH_TEXT_BYTES,
            "metadata.graph.payload of the structured output",
        );
        text.push_str(&format!(
            "\n{} graph ({} bytes):\n{}",
            g.format, g.size_bytes, shown.text
        ));
    }
    for f in out.findings.iter().take(TEXT_FINDINGS) {
        let r = &f.location.range;
        text.push_str(&format!(
            "\n{} {}:{}:{} {} {}",
            severity_word(f.severity),
            f.location.file_path,
            r.start.line + 1,
            r.start.character + 1,
            f.id,
            f.message
        ));
        if let Some(call) = f.suggestions.iter().find_map(|s| s.refactor_call.as_ref()) {
            text.push_str(&format!(" → {} {}", call.command, call.arguments));
        }
    }
    text
}

/// The findings the text shows, of how many: the registry's paging line.
pub(crate) fn shown(out: &AnalysisResult) -> Option<(usize, Option<usize>)> {
    Some((
        out.findings.len().min(TEXT_FINDINGS),
        Some(out.summary.total_findings),
    ))
}

/// Where the findings after those the text shows start, when any are left: a reader of
/// the text goes on from there (a reader of the structured page, from `offset + limit`).
pub(crate) fn next_offset(out: &AnalysisResult) -> Option<usize> {
    let next = out.offset + out.findings.len().min(TEXT_FINDINGS);
    (next < out.summary.total_findings).then_some(next)
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Low => "low",
    }
}

/// The language name of a file, as the contracts spell it.
pub(crate) fn language_name(file: &SourceFile) -> &'static str {
    file.dialect.language().as_str()
}

/// The `directory` argument a refactoring call needs to act on the same checkout.
pub(crate) fn with_directory(
    directory: Option<&str>,
    mut arguments: serde_json::Map<String, Value>,
) -> Value {
    if let Some(d) = directory {
        arguments.insert("directory".into(), Value::String(d.to_owned()));
    }
    Value::Object(arguments)
}

pub(crate) fn rel(root: &Path, p: &Path) -> String {
    resolve_pr_analysis::relative(root, p)
}
