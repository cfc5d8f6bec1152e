//! `analyze_dead_code`: unused imports, variables and parameters (as ruff, tsc, rustc and
//! Go's compiler report them), unreachable statements, and symbols and types no file
//! references.

use std::collections::BTreeMap;
use std::time::Instant;

use resolve_pr_analysis::SourceFile;
use resolve_pr_analysis::dead::{DeadOptions, unused_symbols};
use resolve_pr_analysis::testing::is_test_file;
use resolve_pr_analysis::unused::{Unused, UnusedKind, unused_in_files};
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
pub enum DeadKind {
    UnusedSymbols,
    #[default]
    UnusedImports,
    UnreachableCode,
    UnusedParameters,
    UnusedTypes,
    UnusedVariables,
}

impl DeadKind {
    fn as_str(self) -> &'static str {
        match self {
            DeadKind::UnusedSymbols => "unused_symbols",
            DeadKind::UnusedImports => "unused_imports",
            DeadKind::UnreachableCode => "unreachable_code",
            DeadKind::UnusedParameters => "unused_parameters",
            DeadKind::UnusedTypes => "unused_types",
            DeadKind::UnusedVariables => "unused_variables",
        }
    }
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Exported API and methods too.
    #[serde(default)]
    pub aggressive: bool,
    #[serde(default)]
    pub include_tests: bool,
    #[serde(default = "yes")]
    pub include_private: bool,
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
    pub kind: DeadKind,
    /// {type: workspace|directory|file|symbol, path, symbol_name, include, exclude}.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeDeadCode;

impl Tool for AnalyzeDeadCode {
    const NAME: &'static str = "analyze_dead_code";
    const TITLE: &'static str = "Dead code: unused imports, variables, symbols";
    const DESCRIPTION: &'static str = "Unused imports, variables and parameters as ruff, tsc, rustc and Go report them; unreachable statements; symbols and types no file references (exported API counts as used unless aggressive). Unused imports suggest a delete call.";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        let options: Options = input.options.clone().unwrap_or_else(analyze::no_options);
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), input.scope.clone())?;
        // References to a symbol may be anywhere: read the whole checkout for those.
        // (and a Rust import of a trait another file declares is used).
        let whole = matches!(
            input.kind,
            DeadKind::UnusedSymbols | DeadKind::UnusedTypes | DeadKind::UnusedImports
        );
        let read = analyze::read(&resolved, whole).await?;
        let page = Page {
            limit: options.limit,
            offset: options.offset,
        };
        let files = read.loaded.files;
        let directory = input.directory.clone();
        let kind = input.kind;
        let prefix_holder = resolved.clone();
        // Per-file walks run a thread each: off the async workers.
        let mut outcome = tokio::task::spawn_blocking(move || {
            dead_code(
                &files,
                kind,
                &options,
                &|p| prefix_holder.holds(p),
                directory.as_deref(),
            )
        })
        .await
        .map_err(|e| {
            resolve_pr_core::Error::unknown(format!("the analysis stopped: {e}"))
                .with_code(resolve_pr_core::ErrorCode::InternalError)
        })?;
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

/// The dead-code findings of the files `in_scope` keeps, references read among all `files`.
pub(crate) fn dead_code(
    files: &[SourceFile],
    kind: DeadKind,
    options: &Options,
    in_scope: &dyn Fn(&str) -> bool,
    directory: Option<&str>,
) -> Outcome {
    let language_of: BTreeMap<&str, &'static str> = files
        .iter()
        .map(|f| (f.path.as_str(), analyze::language_name(f)))
        .collect();
    let found: Vec<Unused> = match kind {
        DeadKind::UnusedSymbols | DeadKind::UnusedTypes => {
            let dead = DeadOptions {
                aggressive: options.aggressive,
                include_tests: options.include_tests,
                include_private: options.include_private,
            };
            let want = if kind == DeadKind::UnusedTypes {
                UnusedKind::Type
            } else {
                UnusedKind::Symbol
            };
            unused_symbols(files, &dead)
                .into_iter()
                .filter(|u| u.kind == want)
                .collect()
        }
        _ => {
            let want = match kind {
                DeadKind::UnusedImports => UnusedKind::Import,
                DeadKind::UnusedVariables => UnusedKind::Variable,
                DeadKind::UnusedParameters => UnusedKind::Parameter,
                _ => UnusedKind::Unreachable,
            };
            unused_in_files(files)
                .into_iter()
                .filter(|u| u.kind == want)
                .collect()
        }
    };
    let mut drafts = Vec::new();
    for u in found {
        if !in_scope(&u.file) || (!options.include_tests && is_test_file(&u.file)) {
            continue;
        }
        let (finding, severity) = match u.kind {
            UnusedKind::Import => ("unused_import", Severity::Medium),
            UnusedKind::Variable => ("unused_variable", Severity::Medium),
            UnusedKind::Parameter => ("unused_parameter", Severity::Low),
            UnusedKind::Symbol => ("unused_symbol", Severity::Medium),
            UnusedKind::Type => ("unused_type", Severity::Medium),
            UnusedKind::Unreachable => ("unreachable_code", Severity::High),
        };
        let mut suggestions = Vec::new();
        let call = |mut args: serde_json::Map<String, Value>, what: &str| {
            args.insert("file_path".into(), json!(u.file));
            Suggestion {
                action: "delete".into(),
                description: what.to_owned(),
                estimated_impact: None,
                refactor_call: Some(RefactorCall {
                    command: "delete".into(),
                    arguments: analyze::with_directory(directory, args),
                }),
            }
        };
        match u.kind {
            UnusedKind::Import => {
                let mut a = serde_json::Map::new();
                a.insert("kind".into(), json!("unused_imports"));
                suggestions.push(call(
                    a,
                    "Delete the file's unused imports (the linter's own fix), planned and verified",
                ));
            }
            UnusedKind::Symbol | UnusedKind::Type => {
                let mut a = serde_json::Map::new();
                a.insert("kind".into(), json!("dead_code"));
                a.insert("position".into(), json!(analyze::range(u.span).start));
                suggestions.push(call(
                    a,
                    &format!("Delete {} (refused while anything references it)", u.name),
                ));
            }
            _ => {}
        }
        drafts.push(Draft {
            kind: finding,
            severity,
            language: language_of.get(u.file.as_str()).copied().unwrap_or(""),
            metrics: BTreeMap::from([("occurrences".to_owned(), json!(1))]),
            message: format!("{} {}: {}", u.symbol_kind, u.name, u.reason),
            symbol: Some((u.name.clone(), u.symbol_kind.to_owned())),
            span: u.span,
            file: u.file,
            suggestions,
            weight: 0.0,
        });
    }
    let scoped: Vec<&SourceFile> = files.iter().filter(|f| in_scope(&f.path)).collect();
    let mut thresholds = BTreeMap::new();
    thresholds.insert(
        "aggressive".to_owned(),
        f64::from(u8::from(options.aggressive)),
    );
    thresholds.insert(
        "include_tests".to_owned(),
        f64::from(u8::from(options.include_tests)),
    );
    thresholds.insert(
        "include_private".to_owned(),
        f64::from(u8::from(options.include_private)),
    );
    Outcome {
        category: "dead_code",
        kind: kind.as_str().to_owned(),
        symbols_analyzed: drafts.len(),
        drafts,
        files_analyzed: scoped.len(),
        thresholds,
        language: analyze::language_of(&scoped),
        graph: None,
        warnings: Vec::new(),
    }
}
