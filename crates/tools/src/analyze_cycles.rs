//! `analyze_cycles`: import cycles between the checkout's files, as strongly connected
//! components of the file graph, each with its shortest cycle and the shortest cycle
//! through each of its edges.

use std::collections::BTreeMap;
use std::time::Instant;

use resolve_pr_analysis::SourceFile;
use resolve_pr_analysis::graph::Graph;
use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::Context;
use crate::analyze::{self, AnalysisResult, Draft, Outcome, Page, Scope, Severity};
use crate::registry::Tool;

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
    /// {type: workspace|directory|file|symbol, path, symbol_name, include, exclude}.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeCycles;

impl Tool for AnalyzeCycles {
    const NAME: &'static str = "analyze_cycles";
    const TITLE: &'static str = "Import cycles between files";
    const DESCRIPTION: &'static str = "Every import cycle between the checkout's files (TypeScript/JavaScript, Python, Rust, Go, C): each strongly connected component with its shortest cycle, and the shortest cycle through each of its edges.";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        let options: Options = input.options.clone().unwrap_or_else(analyze::no_options);
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), input.scope.clone())?;
        let read = analyze::read(&resolved, true).await?;
        let go = resolve_pr_analysis::graph::go_module_path(&resolved.root);
        let graph = resolve_pr_analysis::graph::graph(&read.loaded.files, go.as_deref());
        let mut outcome = cycles(&read.loaded.files, &graph);
        analyze::keep_in_scope(&resolved, &read.loaded.files, &mut outcome);
        outcome.warnings.extend(read.warnings);
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

/// Edges of a component whose shortest cycles are listed at most.
const EDGES_LISTED: usize = 20;

pub(crate) fn cycles(files: &[SourceFile], graph: &Graph) -> Outcome {
    let language_of: BTreeMap<&str, &'static str> = files
        .iter()
        .map(|f| (f.path.as_str(), analyze::language_name(f)))
        .collect();
    let mut drafts = Vec::new();
    for component in graph.components() {
        let cycle = graph.shortest_cycle(&component);
        let first = cycle.first().cloned().unwrap_or_default();
        let members: std::collections::BTreeSet<&str> =
            component.iter().map(String::as_str).collect();
        let inner: Vec<&resolve_pr_analysis::graph::Edge> = graph
            .edges
            .iter()
            .filter(|e| members.contains(e.from.as_str()) && members.contains(e.to.as_str()))
            .collect();
        let through: Vec<Value> = inner
            .iter()
            .take(EDGES_LISTED)
            .map(|e| json!({"from": e.from, "to": e.to, "cycle": graph.shortest_cycle_through(&e.from, &e.to)}))
            .collect();
        // Where the cycle's first import is written.
        let span = graph
            .edges
            .iter()
            .find(|e| cycle.len() > 1 && e.from == cycle[0] && e.to == cycle[1])
            .and_then(|e| e.spans.first().copied())
            .unwrap_or_default();
        let size = component.len();
        drafts.push(Draft {
            kind: "circular_dependency",
            severity: if size >= 5 {
                Severity::High
            } else {
                Severity::Medium
            },
            file: first.clone(),
            span,
            symbol: None,
            language: language_of.get(first.as_str()).copied().unwrap_or(""),
            metrics: BTreeMap::from([
                ("circular_path".to_owned(), json!(cycle)),
                ("files".to_owned(), json!(component)),
                ("component_size".to_owned(), json!(size)),
                ("edges".to_owned(), json!(inner.len())),
                ("cycles_by_edge".to_owned(), Value::Array(through)),
            ]),
            message: format!("{size} file(s) import each other: {}", cycle.join(" → ")),
            suggestions: Vec::new(),
            weight: size as f64,
        });
    }
    let all: Vec<&SourceFile> = files.iter().collect();
    Outcome {
        category: "dependencies",
        kind: "circular".into(),
        drafts,
        files_analyzed: files.len(),
        symbols_analyzed: graph.edges.len(),
        thresholds: BTreeMap::new(),
        language: analyze::language_of(&all),
        graph: None,
        warnings: Vec::new(),
    }
}
