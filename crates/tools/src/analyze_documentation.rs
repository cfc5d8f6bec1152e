//! `analyze_documentation`: how much of the checkout's API is documented (coverage as
//! interrogate and rustc's `missing_docs` count it), what lacks docs, docs whose parameter
//! names are gone, thin docs, and TODO comments.

use std::collections::BTreeMap;
use std::time::Instant;

use resolve_pr_analysis::SourceFile;
use resolve_pr_analysis::docs::{DocItem, coverage, doc_items_of, doc_quality, outdated, todos};
use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Context;
use crate::analyze::{self, AnalysisResult, Draft, Outcome, Page, Scope, Severity};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    #[default]
    Coverage,
    Quality,
    Missing,
    Outdated,
    Todos,
}

impl DocKind {
    fn as_str(self) -> &'static str {
        match self {
            DocKind::Coverage => "coverage",
            DocKind::Quality => "quality",
            DocKind::Missing => "missing",
            DocKind::Outdated => "outdated",
            DocKind::Todos => "todos",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    #[default]
    Public,
    All,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default)]
    pub require_examples: bool,
    #[serde(default = "crate::analyze::default_limit")]
    pub limit: usize,
    #[serde(default)]
    pub offset: usize,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[serde(default)]
    pub kind: DocKind,
    /// {type: workspace|directory|file|symbol, path, symbol_name, include, exclude}.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeDocumentation;

impl Tool for AnalyzeDocumentation {
    const NAME: &'static str = "analyze_documentation";
    const TITLE: &'static str = "Documentation: coverage, missing, outdated, TODOs";
    const DESCRIPTION: &'static str = "Documentation coverage per file (Python as interrogate counts it, Rust as missing_docs), undocumented public items, docs naming parameters that no longer exist, thin docs, TODO/FIXME comments.";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), input.scope.clone())?;
        // Rust's public items are decided across the crate's files: read them all.
        let read = analyze::read(&resolved, true).await?;
        let options = input.options.clone().unwrap_or_else(analyze::no_options);
        let page = Page {
            limit: options.limit,
            offset: options.offset,
        };
        let mut outcome = documentation(&read.loaded.files, input.kind, &options, &|p| {
            resolved.holds(p)
        });
        outcome
            .drafts
            .retain(|d| resolved.names(d.symbol.as_ref().map(|s| s.0.as_str())));
        outcome.warnings.extend(read.warnings);
        analyze::finish(&resolved, outcome, page, started)
    }

    fn render(output: &AnalysisResult) -> String {
        analyze::render(Self::NAME, output)
    }

    fn shown(output: &AnalysisResult) -> Option<(usize, Option<usize>)> {
        analyze::shown(output)
    }

    fn next_offset(output: &AnalysisResult) -> Option<usize> {
        analyze::next_offset(output)
    }
}

/// The documentation findings of the files `in_scope` keeps, read among all `files`.
pub(crate) fn documentation(
    files: &[SourceFile],
    kind: DocKind,
    options: &Options,
    in_scope: &dyn Fn(&str) -> bool,
) -> Outcome {
    let public_only = options.visibility == Visibility::Public;
    let scoped: Vec<&SourceFile> = files.iter().filter(|f| in_scope(&f.path)).collect();
    let language_of: BTreeMap<&str, &'static str> = scoped
        .iter()
        .map(|f| (f.path.as_str(), analyze::language_name(f)))
        .collect();
    let mut drafts = Vec::new();
    let mut symbols = 0;
    if kind == DocKind::Todos {
        for f in &scoped {
            for t in todos(f) {
                drafts.push(Draft {
                    kind: "todo",
                    severity: if matches!(t.tag.as_str(), "FIXME" | "BUG" | "XXX") {
                        Severity::Medium
                    } else {
                        Severity::Low
                    },
                    file: t.file.clone(),
                    span: line_span(t.line),
                    symbol: None,
                    language: language_of.get(t.file.as_str()).copied().unwrap_or(""),
                    metrics: BTreeMap::from([("todo_count".to_owned(), json!(1))]),
                    message: format!("{}: {}", t.tag, t.text),
                    suggestions: Vec::new(),
                    weight: 0.0,
                });
            }
        }
    } else {
        let items: Vec<DocItem> = doc_items_of(files)
            .into_iter()
            .filter(|i| language_of.contains_key(i.file.as_str()))
            .filter(|i| i.public || !public_only)
            .collect();
        symbols = items.len();
        match kind {
            DocKind::Coverage => {
                let mut per_file: BTreeMap<&str, Vec<&DocItem>> = BTreeMap::new();
                for i in &items {
                    per_file.entry(i.file.as_str()).or_default().push(i);
                }
                for (file, its) in per_file {
                    let owned: Vec<DocItem> = its.iter().map(|i| (*i).clone()).collect();
                    let (documented, total) = coverage(&owned, public_only);
                    if total == 0 {
                        continue;
                    }
                    let ratio = f64::from(documented) / f64::from(total);
                    drafts.push(Draft {
                        kind: "documentation_coverage",
                        severity: if ratio < 0.5 {
                            Severity::High
                        } else if ratio < 0.8 {
                            Severity::Medium
                        } else {
                            Severity::Low
                        },
                        file: file.to_owned(),
                        span: resolve_pr_analysis::Span::default(),
                        symbol: None,
                        language: language_of.get(file).copied().unwrap_or(""),
                        metrics: BTreeMap::from([
                            (
                                "coverage_ratio".to_owned(),
                                json!((ratio * 10_000.0).round() / 10_000.0),
                            ),
                            ("documented".to_owned(), json!(documented)),
                            ("total".to_owned(), json!(total)),
                        ]),
                        message: format!("{documented} of {total} item(s) documented"),
                        suggestions: Vec::new(),
                        weight: -ratio,
                    });
                }
            }
            DocKind::Missing => {
                for i in items.iter().filter(|i| !i.documented) {
                    drafts.push(item_draft(
                        i,
                        &language_of,
                        "missing_documentation",
                        Severity::Medium,
                        format!("{} {} has no documentation", i.symbol_kind, i.name),
                        BTreeMap::new(),
                    ));
                }
            }
            DocKind::Outdated => {
                for i in &items {
                    let gone = outdated(i);
                    if gone.is_empty() {
                        continue;
                    }
                    let message = format!(
                        "the docs of {} name parameter(s) it no longer has: {}",
                        i.name,
                        gone.join(", ")
                    );
                    drafts.push(item_draft(
                        i,
                        &language_of,
                        "outdated_documentation",
                        Severity::Medium,
                        message,
                        BTreeMap::from([("stale_parameters".to_owned(), json!(gone))]),
                    ));
                }
            }
            DocKind::Quality => {
                for i in items.iter().filter(|i| i.documented) {
                    let labels = doc_quality(i, options.require_examples);
                    if labels.is_empty() {
                        continue;
                    }
                    let message = format!(
                        "the docs of {} {}: {}",
                        i.symbol_kind,
                        i.name,
                        labels.join(", ")
                    );
                    drafts.push(item_draft(
                        i,
                        &language_of,
                        "poor_documentation",
                        Severity::Low,
                        message,
                        BTreeMap::from([("labels".to_owned(), json!(labels))]),
                    ));
                }
            }
            DocKind::Todos => {}
        }
    }
    let mut thresholds = BTreeMap::new();
    if kind != DocKind::Todos {
        thresholds.insert(
            "public_only".to_owned(),
            if public_only { 1.0 } else { 0.0 },
        );
    }
    Outcome {
        category: "documentation",
        kind: kind.as_str().to_owned(),
        drafts,
        files_analyzed: scoped.len(),
        symbols_analyzed: symbols,
        thresholds,
        language: analyze::language_of(&scoped),
        graph: None,
        warnings: Vec::new(),
    }
}

fn item_draft(
    i: &DocItem,
    language_of: &BTreeMap<&str, &'static str>,
    kind: &'static str,
    severity: Severity,
    message: String,
    metrics: BTreeMap<String, Value>,
) -> Draft {
    Draft {
        kind,
        severity,
        file: i.file.clone(),
        span: i.span,
        symbol: Some((i.name.clone(), i.symbol_kind.to_owned())),
        language: language_of.get(i.file.as_str()).copied().unwrap_or(""),
        metrics,
        message,
        suggestions: Vec::new(),
        weight: 0.0,
    }
}

/// The start of a line (zero-based) as a span.
pub(crate) fn line_span(line: u32) -> resolve_pr_analysis::Span {
    let p = resolve_pr_analysis::Pos { line, character: 0 };
    resolve_pr_analysis::Span { start: p, end: p }
}
