//! `analyze_quality`: complexity hotspots, smells, maintainability and readability of the
//! checkout's functions and files, by tree-sitter (cyclomatic complexity as lizard counts
//! it, the maintainability index as radon computes it).

use std::collections::BTreeMap;
use std::time::Instant;

use resolve_pr_analysis::functions::{Function, functions};
use resolve_pr_analysis::maintainability::maintainability;
use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Context;
use crate::analyze::{
    self, AnalysisResult, Draft, Outcome, Page, RefactorCall, Scope, Severity, Suggestion,
};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QualityKind {
    #[default]
    Complexity,
    Smells,
    Maintainability,
    Readability,
}

impl QualityKind {
    fn as_str(self) -> &'static str {
        match self {
            QualityKind::Complexity => "complexity",
            QualityKind::Smells => "smells",
            QualityKind::Maintainability => "maintainability",
            QualityKind::Readability => "readability",
        }
    }
}

/// A finding is a metric over its threshold (maintainability_index: under it).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    /// Default 10.
    #[serde(default)]
    pub cyclomatic_complexity: Option<f64>,
    /// Default 15.
    #[serde(default)]
    pub cognitive_complexity: Option<f64>,
    /// Default 20 (0–100).
    #[serde(default)]
    pub maintainability_index: Option<f64>,
    /// Default 4.
    #[serde(default)]
    pub nesting_depth: Option<f64>,
    /// Default 5.
    #[serde(default)]
    pub parameter_count: Option<f64>,
    /// Lines; default 60.
    #[serde(default)]
    pub function_length: Option<f64>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub thresholds: Thresholds,
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
    pub kind: QualityKind,
    /// {type: workspace|directory|file|symbol, path, symbol_name, include, exclude}.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeQuality;

impl Tool for AnalyzeQuality {
    const NAME: &'static str = "analyze_quality";
    const TITLE: &'static str = "Code quality: complexity, smells, maintainability";
    const DESCRIPTION: &'static str = "Functions over complexity thresholds (cyclomatic as lizard counts it, cognitive), smells (long functions, many parameters, deep nesting), files' maintainability index (radon's), readability. Hotspots suggest an extract call.";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), input.scope.clone())?;
        let read = analyze::read(&resolved, false).await?;
        let options = input.options.clone().unwrap_or_else(analyze::no_options);
        let page = Page {
            limit: options.limit,
            offset: options.offset,
        };
        let files: Vec<&resolve_pr_analysis::SourceFile> = read.loaded.files.iter().collect();
        let mut outcome = quality(
            &files,
            input.kind,
            &options.thresholds,
            input.directory.as_deref(),
        );
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

/// The thresholds applied, defaults filled in.
struct Applied {
    cyclomatic: f64,
    cognitive: f64,
    maintainability: f64,
    nesting: f64,
    parameters: f64,
    length: f64,
}

impl Applied {
    fn of(t: &Thresholds) -> Applied {
        Applied {
            cyclomatic: t.cyclomatic_complexity.unwrap_or(10.0),
            cognitive: t.cognitive_complexity.unwrap_or(15.0),
            maintainability: t.maintainability_index.unwrap_or(20.0),
            nesting: t.nesting_depth.unwrap_or(4.0),
            parameters: t.parameter_count.unwrap_or(5.0),
            length: t.function_length.unwrap_or(60.0),
        }
    }
}

/// The quality findings of parsed files (also `analyze_batch`'s).
pub(crate) fn quality(
    files: &[&resolve_pr_analysis::SourceFile],
    kind: QualityKind,
    thresholds: &Thresholds,
    directory: Option<&str>,
) -> Outcome {
    let t = Applied::of(thresholds);
    let mut drafts = Vec::new();
    let mut symbols = 0;
    let mut echo = BTreeMap::new();
    match kind {
        QualityKind::Complexity => {
            echo.insert("cyclomatic_complexity".to_owned(), t.cyclomatic);
            echo.insert("cognitive_complexity".to_owned(), t.cognitive);
        }
        QualityKind::Smells => {
            echo.insert("function_length".to_owned(), t.length);
            echo.insert("parameter_count".to_owned(), t.parameters);
            echo.insert("nesting_depth".to_owned(), t.nesting);
        }
        QualityKind::Maintainability => {
            echo.insert("maintainability_index".to_owned(), t.maintainability);
        }
        QualityKind::Readability => {
            echo.insert("nesting_depth".to_owned(), t.nesting);
            echo.insert("cognitive_complexity".to_owned(), t.cognitive);
        }
    }
    for file in files {
        if kind == QualityKind::Maintainability {
            let m = maintainability(file);
            symbols += 1;
            if m.index < t.maintainability {
                let severity = if m.index < 10.0 {
                    Severity::High
                } else if m.index < 20.0 {
                    Severity::Medium
                } else {
                    Severity::Low
                };
                let mut metrics = BTreeMap::new();
                metrics.insert("maintainability_index".into(), json!(round2(m.index)));
                metrics.insert("halstead_volume".into(), json!(round2(m.halstead_volume)));
                metrics.insert("cyclomatic_complexity".into(), json!(m.complexity));
                metrics.insert("logical_lines".into(), json!(m.logical_lines));
                metrics.insert("comment_percent".into(), json!(round2(m.comment_percent)));
                drafts.push(Draft {
                    kind: "low_maintainability",
                    severity,
                    file: file.path.clone(),
                    span: resolve_pr_analysis::Span::default(),
                    symbol: None,
                    language: analyze::language_name(file),
                    metrics,
                    message: format!(
                        "maintainability index {:.2} (under {}): {} logical lines, complexity {}",
                        m.index, t.maintainability, m.logical_lines, m.complexity
                    ),
                    suggestions: Vec::new(),
                    weight: -m.index,
                });
            }
            continue;
        }
        for f in functions(file) {
            symbols += 1;
            if let Some(d) = function_finding(file, &f, kind, &t, directory) {
                drafts.push(d);
            }
        }
    }
    Outcome {
        category: "quality",
        kind: kind.as_str().to_owned(),
        drafts,
        files_analyzed: files.len(),
        symbols_analyzed: symbols,
        thresholds: echo,
        language: analyze::language_of(files),
        graph: None,
        warnings: Vec::new(),
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn metrics_of(f: &Function) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    m.insert("cyclomatic_complexity".into(), json!(f.cyclomatic));
    m.insert("cognitive_complexity".into(), json!(f.cognitive));
    m.insert("nesting_depth".into(), json!(f.nesting));
    m.insert("parameter_count".into(), json!(f.parameters));
    m.insert("function_length".into(), json!(f.lines));
    m
}

fn function_finding(
    file: &resolve_pr_analysis::SourceFile,
    f: &Function,
    kind: QualityKind,
    t: &Applied,
    directory: Option<&str>,
) -> Option<Draft> {
    let over = |value: u32, limit: f64| f64::from(value) > limit;
    let twice = |value: u32, limit: f64| f64::from(value) > 2.0 * limit.max(1.0);
    let (finding_kind, severity, message, weight) = match kind {
        QualityKind::Complexity => {
            if !over(f.cyclomatic, t.cyclomatic) && !over(f.cognitive, t.cognitive) {
                return None;
            }
            let high = twice(f.cyclomatic, t.cyclomatic) || twice(f.cognitive, t.cognitive);
            (
                "complexity_hotspot",
                if high {
                    Severity::High
                } else {
                    Severity::Medium
                },
                format!(
                    "{} has cyclomatic complexity {} and cognitive complexity {} (thresholds {}, {})",
                    f.qualified, f.cyclomatic, f.cognitive, t.cyclomatic, t.cognitive
                ),
                f64::from(f.cyclomatic),
            )
        }
        QualityKind::Smells => {
            let mut smells = Vec::new();
            if over(f.lines, t.length) {
                smells.push(format!("{} lines (over {})", f.lines, t.length));
            }
            if over(f.parameters, t.parameters) {
                smells.push(format!(
                    "{} parameters (over {})",
                    f.parameters, t.parameters
                ));
            }
            if over(f.nesting, t.nesting) {
                smells.push(format!("nesting depth {} (over {})", f.nesting, t.nesting));
            }
            if smells.is_empty() {
                return None;
            }
            let kind = if over(f.lines, t.length) {
                "long_function"
            } else if over(f.parameters, t.parameters) {
                "long_parameter_list"
            } else {
                "deep_nesting"
            };
            let high = twice(f.lines, t.length)
                || twice(f.parameters, t.parameters)
                || twice(f.nesting, t.nesting);
            (
                kind,
                if high {
                    Severity::High
                } else {
                    Severity::Medium
                },
                format!("{}: {}", f.qualified, smells.join(", ")),
                f64::from(f.lines),
            )
        }
        QualityKind::Readability => {
            if !over(f.nesting, t.nesting) && !over(f.cognitive, t.cognitive) {
                return None;
            }
            let high = twice(f.nesting, t.nesting) || twice(f.cognitive, t.cognitive);
            (
                "hard_to_read",
                if high {
                    Severity::High
                } else {
                    Severity::Medium
                },
                format!(
                    "{} nests {} deep with cognitive complexity {} (thresholds {}, {})",
                    f.qualified, f.nesting, f.cognitive, t.nesting, t.cognitive
                ),
                f64::from(f.cognitive),
            )
        }
        QualityKind::Maintainability => return None,
    };
    let mut suggestions = Vec::new();
    if let Some(h) = f.hotspot {
        let mut args = serde_json::Map::new();
        args.insert("kind".into(), json!("function"));
        args.insert("file_path".into(), json!(file.path));
        args.insert("range".into(), json!(analyze::range(h.span)));
        suggestions.push(Suggestion {
            action: "extract_function".into(),
            description: format!(
                "Extract the statement at line {} ({} decisions) into a function of its own",
                h.span.start.line + 1,
                h.decisions
            ),
            estimated_impact: Some(format!(
                "reduces {}'s cyclomatic complexity by about {}",
                f.name, h.decisions
            )),
            refactor_call: Some(RefactorCall {
                command: "extract".into(),
                arguments: analyze::with_directory(directory, args),
            }),
        });
    }
    Some(Draft {
        kind: finding_kind,
        severity,
        file: file.path.clone(),
        span: f.span,
        symbol: Some((f.qualified.clone(), f.symbol_kind.to_owned())),
        language: analyze::language_name(file),
        metrics: metrics_of(f),
        message,
        suggestions,
        weight,
    })
}
