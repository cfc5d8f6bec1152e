//! `analyze_tests`: line coverage from an lcov, Cobertura or JaCoCo report, public
//! functions no test calls, and each test's assertions and smells.

use std::collections::BTreeMap;
use std::time::Instant;

use resolve_pr_analysis::SourceFile;
use resolve_pr_analysis::coverage::{CoverageFormat, parse_coverage};
use resolve_pr_analysis::testing::{is_test_file, test_functions, untested};
use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Context;
use crate::analyze::{self, AnalysisResult, Draft, Outcome, Page, Scope, Severity};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TestsKind {
    Coverage,
    #[default]
    Untested,
    Quality,
    Smells,
}

impl TestsKind {
    fn as_str(self) -> &'static str {
        match self {
            TestsKind::Coverage => "coverage",
            TestsKind::Untested => "untested",
            TestsKind::Quality => "quality",
            TestsKind::Smells => "smells",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Lcov,
    Cobertura,
    Jacoco,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// For kind coverage, with coverage_file.
    #[serde(default)]
    pub coverage_format: Option<Format>,
    /// A report in the checkout, e.g. "coverage.lcov".
    #[serde(default)]
    pub coverage_file: Option<String>,
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
    pub kind: TestsKind,
    /// {type: workspace|directory|file|symbol, path, symbol_name, include, exclude}.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeTests;

impl Tool for AnalyzeTests {
    const NAME: &'static str = "analyze_tests";
    const TITLE: &'static str = "Tests: coverage, untested functions, assertions, smells";
    const DESCRIPTION: &'static str = "Line coverage per file from an lcov, Cobertura or JaCoCo report; public functions no test calls (by name); tests' assertion counts and smells (no assertion, sleep, skipped).";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), input.scope.clone())?;
        let options = input.options.clone().unwrap_or_else(analyze::no_options);
        let page = Page {
            limit: options.limit,
            offset: options.offset,
        };
        let mut outcome = if input.kind == TestsKind::Coverage {
            coverage_outcome(&resolved, &options)?
        } else {
            // Tests anywhere in the checkout count for the functions of the scope.
            let read = analyze::read(&resolved, true).await?;
            let mut o = tests(&read.loaded.files, input.kind, &|p| resolved.holds(p));
            o.warnings.extend(read.warnings);
            o
        };
        outcome
            .drafts
            .retain(|d| resolved.names(d.symbol.as_ref().map(|s| s.0.as_str())));
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

pub(crate) fn coverage_outcome(resolved: &analyze::Resolved, options: &Options) -> Result<Outcome> {
    let missing = |field: &str, what: &str| {
        Error::user(format!(
            "kind coverage reads a coverage report: give options.{field} ({what})"
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", format!("options.{field}"))
    };
    let format = options
        .coverage_format
        .ok_or_else(|| missing("coverage_format", "lcov, cobertura or jacoco"))?;
    let file = options
        .coverage_file
        .as_deref()
        .ok_or_else(|| missing("coverage_file", "the report's path in the checkout"))?;
    let path = resolve_pr_code::target::file_in(&resolved.root, file, "options.coverage_file")?;
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::user(format!("{file} cannot be read as text: {e}"))
            .with_code(ErrorCode::IoError)
            .with_detail("field", "options.coverage_file")
    })?;
    let format = match format {
        Format::Lcov => CoverageFormat::Lcov,
        Format::Cobertura => CoverageFormat::Cobertura,
        Format::Jacoco => CoverageFormat::Jacoco,
    };
    let report = parse_coverage(format, &text).map_err(|e| {
        Error::user(format!("{file}: {e}"))
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", "options.coverage_file")
    })?;
    let mut drafts = Vec::new();
    // lcov names files absolutely; the findings name them as the checkout does.
    let relative = |p: &str| {
        let path = std::path::Path::new(p);
        if path.is_absolute() {
            analyze::rel(&resolved.root, path)
        } else {
            p.to_owned()
        }
    };
    for f in report.files.iter() {
        let file = relative(&f.path);
        if !resolved.holds(&file) {
            continue;
        }
        let ratio = if f.lines_found == 0 {
            1.0
        } else {
            f64::from(f.lines_hit) / f64::from(f.lines_found)
        };
        let uncovered: Vec<u32> = f.uncovered_lines.iter().take(50).copied().collect();
        drafts.push(Draft {
            kind: "coverage",
            severity: if ratio < 0.5 {
                Severity::High
            } else if ratio < 0.8 {
                Severity::Medium
            } else {
                Severity::Low
            },
            language: resolve_pr_source::Language::of_path(std::path::Path::new(&file))
                .map_or("", |l| l.as_str()),
            file,
            span: resolve_pr_analysis::Span::default(),
            symbol: None,
            metrics: BTreeMap::from([
                (
                    "coverage_ratio".to_owned(),
                    json!((ratio * 10_000.0).round() / 10_000.0),
                ),
                ("lines_found".to_owned(), json!(f.lines_found)),
                ("lines_hit".to_owned(), json!(f.lines_hit)),
                ("uncovered_lines".to_owned(), json!(uncovered)),
            ]),
            message: format!("{} of {} line(s) covered", f.lines_hit, f.lines_found),
            suggestions: Vec::new(),
            weight: -ratio,
        });
    }
    let mut thresholds = BTreeMap::new();
    thresholds.insert(
        "coverage_ratio".to_owned(),
        (report.ratio() * 10_000.0).round() / 10_000.0,
    );
    Ok(Outcome {
        category: "tests",
        kind: "coverage".into(),
        files_analyzed: drafts.len(),
        symbols_analyzed: 0,
        drafts,
        thresholds,
        language: None,
        graph: None,
        warnings: Vec::new(),
    })
}

/// Untested functions, or tests' quality and smells, of the files `in_scope` keeps.
pub(crate) fn tests(
    files: &[SourceFile],
    kind: TestsKind,
    in_scope: &dyn Fn(&str) -> bool,
) -> Outcome {
    let scoped: Vec<&SourceFile> = files.iter().filter(|f| in_scope(&f.path)).collect();
    let language_of: BTreeMap<&str, &'static str> = scoped
        .iter()
        .map(|f| (f.path.as_str(), analyze::language_name(f)))
        .collect();
    let lang = |p: &str| language_of.get(p).copied().unwrap_or("");
    let mut drafts = Vec::new();
    let mut symbols = 0;
    match kind {
        TestsKind::Untested => {
            let found: Vec<_> = untested(files)
                .into_iter()
                .filter(|u| in_scope(&u.file))
                .collect();
            let public_functions: usize = scoped
                .iter()
                .filter(|f| !is_test_file(&f.path))
                .map(|f| {
                    resolve_pr_analysis::functions::functions(f)
                        .iter()
                        .filter(|x| x.public)
                        .count()
                })
                .sum();
            symbols = public_functions;
            for u in found {
                drafts.push(Draft {
                    kind: "untested_function",
                    severity: Severity::Medium,
                    file: u.file.clone(),
                    span: u.span,
                    symbol: Some((u.name.clone(), u.symbol_kind.to_owned())),
                    language: lang(&u.file),
                    metrics: BTreeMap::from([("missing_tests".to_owned(), json!(1))]),
                    message: format!("no test calls or names {}", u.name),
                    suggestions: Vec::new(),
                    weight: 0.0,
                });
            }
        }
        TestsKind::Quality | TestsKind::Smells => {
            for f in &scoped {
                for t in test_functions(f) {
                    symbols += 1;
                    if kind == TestsKind::Smells && t.smells.is_empty() {
                        continue;
                    }
                    let severity =
                        if t.smells.contains(&"no_assertion") || t.smells.contains(&"empty") {
                            Severity::High
                        } else if t.smells.is_empty() {
                            Severity::Low
                        } else {
                            Severity::Medium
                        };
                    let message = if t.smells.is_empty() {
                        format!("{}: {} assertion(s)", t.name, t.assertions)
                    } else {
                        format!(
                            "{}: {} assertion(s); {}",
                            t.name,
                            t.assertions,
                            t.smells.join(", ")
                        )
                    };
                    drafts.push(Draft {
                        kind: if kind == TestsKind::Smells {
                            "test_smell"
                        } else {
                            "test_quality"
                        },
                        severity,
                        file: t.file.clone(),
                        span: t.span,
                        symbol: Some((t.name.clone(), "function".to_owned())),
                        language: lang(&t.file),
                        metrics: BTreeMap::from([
                            ("assertion_count".to_owned(), json!(t.assertions)),
                            ("smell_labels".to_owned(), json!(t.smells)),
                        ]),
                        message,
                        suggestions: Vec::new(),
                        weight: -f64::from(t.assertions),
                    });
                }
            }
        }
        TestsKind::Coverage => {}
    }
    Outcome {
        category: "tests",
        kind: kind.as_str().to_owned(),
        drafts,
        files_analyzed: scoped.len(),
        symbols_analyzed: symbols,
        thresholds: BTreeMap::new(),
        language: analyze::language_of(&scoped),
        graph: None,
        warnings: Vec::new(),
    }
}
