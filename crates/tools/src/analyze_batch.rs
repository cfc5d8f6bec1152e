//! `analyze_batch`: several analyses over one read and one parse of each file (and one
//! file graph), their findings in one result.

use std::collections::BTreeMap;
use std::time::Instant;

use resolve_pr_analysis::SourceFile;
use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::analyze::{self, AnalysisResult, Outcome, Page, Scope};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Quality,
    DeadCode,
    Dependencies,
    Structure,
    Documentation,
    Tests,
}

impl Category {
    fn as_str(self) -> &'static str {
        match self {
            Category::Quality => "quality",
            Category::DeadCode => "dead_code",
            Category::Dependencies => "dependencies",
            Category::Structure => "structure",
            Category::Documentation => "documentation",
            Category::Tests => "tests",
        }
    }
}

/// One analysis: a category with the kind and options its own tool takes.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Analysis {
    pub category: Category,
    /// As the category's tool takes it; default its default.
    #[serde(default)]
    pub kind: Option<String>,
    /// As the category's tool takes them (limit and offset are the batch's).
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub options: Option<Value>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
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
    /// 1 to 10, e.g. [{"category": "quality"}, {"category": "dependencies", "kind": "circular"}].
    #[schemars(length(min = 1, max = 10))]
    pub analyses: Vec<Analysis>,
    /// {type: workspace|directory|file|symbol, path, symbol_name, include, exclude}.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeBatch;

impl Tool for AnalyzeBatch {
    const NAME: &'static str = "analyze_batch";
    const TITLE: &'static str = "Several analyses over one parse";
    const DESCRIPTION: &'static str = "Runs several analyses (quality, dead_code, dependencies, structure, documentation, tests) over one read and parse of each file, their findings in one list.";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        if input.analyses.is_empty() || input.analyses.len() > 10 {
            return Err(Error::user(format!(
                "analyses takes 1 to 10 analyses, not {}",
                input.analyses.len()
            ))
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", "analyses"));
        }
        let options: Options = input.options.clone().unwrap_or_else(analyze::no_options);
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), input.scope.clone())?;
        let read = analyze::read(&resolved, true).await?;
        let files = &read.loaded.files;
        let in_scope = |p: &str| resolved.holds(p);
        let scoped: Vec<&SourceFile> = files.iter().filter(|f| resolved.holds(&f.path)).collect();
        let mut graph = None;
        let mut drafts = Vec::new();
        let mut kinds = Vec::new();
        let mut thresholds = BTreeMap::new();
        let mut symbols = 0;
        let mut export = None;
        let mut warnings = read.warnings.clone();
        for (i, a) in input.analyses.iter().enumerate() {
            let field = |name: &str| format!("analyses[{i}].{name}");
            let outcome: Outcome = match a.category {
                Category::Quality => {
                    let o: crate::analyze_quality::Options = sub_options(a, &field("options"))?;
                    crate::analyze_quality::quality(
                        &scoped,
                        sub_kind(a, &field("kind"))?,
                        &o.thresholds,
                        input.directory.as_deref(),
                    )
                }
                Category::Documentation => {
                    let o: crate::analyze_documentation::Options =
                        sub_options(a, &field("options"))?;
                    crate::analyze_documentation::documentation(
                        files,
                        sub_kind(a, &field("kind"))?,
                        &o,
                        &in_scope,
                    )
                }
                Category::Tests => {
                    let o: crate::analyze_tests::Options = sub_options(a, &field("options"))?;
                    let kind: crate::analyze_tests::TestsKind = sub_kind(a, &field("kind"))?;
                    if kind == crate::analyze_tests::TestsKind::Coverage {
                        crate::analyze_tests::coverage_outcome(&resolved, &o)?
                    } else {
                        crate::analyze_tests::tests(files, kind, &in_scope)
                    }
                }
                Category::Structure => {
                    let o: crate::analyze_structure::Options = sub_options(a, &field("options"))?;
                    crate::analyze_structure::structure(
                        files,
                        sub_kind(a, &field("kind"))?,
                        &o,
                        &in_scope,
                    )
                }
                Category::Dependencies => {
                    let o: crate::analyze_dependencies::Options =
                        sub_options(a, &field("options"))?;
                    let g = graph.get_or_insert_with(|| {
                        let go = resolve_pr_analysis::graph::go_module_path(&resolved.root);
                        resolve_pr_analysis::graph::graph(files, go.as_deref())
                    });
                    crate::analyze_dependencies::dependencies(
                        files,
                        g,
                        sub_kind(a, &field("kind"))?,
                        &o,
                    )
                }
                Category::DeadCode => {
                    let o: crate::analyze_dead_code::Options = sub_options(a, &field("options"))?;
                    crate::analyze_dead_code::dead_code(
                        files,
                        sub_kind(a, &field("kind"))?,
                        &o,
                        &in_scope,
                        input.directory.as_deref(),
                    )
                }
            };
            let name = format!("{}.{}", a.category.as_str(), outcome.kind);
            for (k, v) in outcome.thresholds {
                thresholds.insert(format!("{name}.{k}"), v);
            }
            symbols += outcome.symbols_analyzed;
            export = export.or(outcome.graph);
            warnings.extend(outcome.warnings);
            drafts.extend(outcome.drafts.into_iter().filter(|d| in_scope(&d.file)));
            kinds.push(name);
        }
        drafts.retain(|d| resolved.names(d.symbol.as_ref().map(|s| s.0.as_str())));
        let outcome = Outcome {
            category: "batch",
            kind: kinds.join("+"),
            drafts,
            files_analyzed: scoped.len(),
            symbols_analyzed: symbols,
            thresholds,
            language: analyze::language_of(&scoped),
            graph: export,
            warnings,
        };
        let page = Page {
            limit: options.limit,
            offset: options.offset,
        };
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

fn bad(field: &str, e: &serde_json::Error) -> Error {
    Error::user(format!("{field}: {e}"))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", field.to_owned())
}

/// An analysis's options as its category's tool reads them.
fn sub_options<T: DeserializeOwned>(a: &Analysis, field: &str) -> Result<T> {
    let value = a
        .options
        .clone()
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    if let Value::Object(map) = &value
        && (map.contains_key("limit") || map.contains_key("offset"))
    {
        return Err(Error::user(format!(
            "{field}: limit and offset are the batch's (options.limit, options.offset)"
        ))
        .with_code(ErrorCode::InvalidArgument)
        .with_detail("field", field.to_owned()));
    }
    serde_json::from_value(value).map_err(|e| bad(field, &e))
}

/// An analysis's kind as its category's tool reads it (its default when left out).
fn sub_kind<T: DeserializeOwned + Default>(a: &Analysis, field: &str) -> Result<T> {
    match &a.kind {
        None => Ok(T::default()),
        Some(k) => serde_json::from_value(Value::String(k.clone())).map_err(|e| bad(field, &e)),
    }
}
