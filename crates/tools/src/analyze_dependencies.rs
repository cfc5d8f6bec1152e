//! `analyze_dependencies`: the checkout's imports and its file graph: each file's imports
//! (resolved to a file or external), the graph exported as mermaid, graphviz or JSON,
//! cycles, coupling (instability), cohesion per directory, and dependency depth.

use std::collections::BTreeMap;
use std::time::Instant;

use resolve_pr_analysis::SourceFile;
use resolve_pr_analysis::graph::Graph;
use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Context;
use crate::analyze::{self, AnalysisResult, Draft, GraphExport, Outcome, Page, Scope, Severity};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DependencyKind {
    #[default]
    Imports,
    Graph,
    Circular,
    Coupling,
    Cohesion,
    Depth,
}

impl DependencyKind {
    fn as_str(self) -> &'static str {
        match self {
            DependencyKind::Imports => "imports",
            DependencyKind::Graph => "graph",
            DependencyKind::Circular => "circular",
            DependencyKind::Coupling => "coupling",
            DependencyKind::Cohesion => "cohesion",
            DependencyKind::Depth => "depth",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    #[default]
    Detailed,
    Summary,
    Graph,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    #[default]
    Json,
    Graphviz,
    Mermaid,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// summary: counts only; graph: the graph in metadata.graph too.
    #[serde(default)]
    pub format: Format,
    #[serde(default)]
    pub export_format: ExportFormat,
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
    pub kind: DependencyKind,
    /// {type: workspace|directory|file|symbol, path, symbol_name, include, exclude}.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeDependencies;

impl Tool for AnalyzeDependencies {
    const NAME: &'static str = "analyze_dependencies";
    const TITLE: &'static str = "Dependencies: imports, graph, coupling, cohesion, depth";
    const DESCRIPTION: &'static str = "Each file's imports resolved to checkout files or external packages, the file graph (mermaid, graphviz or JSON), cycles, coupling (instability), cohesion per directory and dependency depth.";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        let options: Options = input.options.clone().unwrap_or_else(analyze::no_options);
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), input.scope.clone())?;
        // Imports resolve among the whole checkout; the findings are the scope's.
        let read = analyze::read(&resolved, true).await?;
        let go = resolve_pr_analysis::graph::go_module_path(&resolved.root);
        let graph = resolve_pr_analysis::graph::graph(&read.loaded.files, go.as_deref());
        let mut outcome = dependencies(&read.loaded.files, &graph, input.kind, &options);
        analyze::keep_in_scope(&resolved, &read.loaded.files, &mut outcome);
        outcome.warnings.extend(read.warnings);
        let page = Page {
            limit: options.limit,
            offset: options.offset,
        };
        let mut result = analyze::finish(&resolved, outcome, page, started)?;
        if options.format == Format::Summary {
            result.summary.returned_findings = 0;
            result.summary.has_more = false;
            result.findings.clear();
        }
        Ok(result)
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

pub(crate) fn dependencies(
    files: &[SourceFile],
    graph: &Graph,
    kind: DependencyKind,
    options: &Options,
) -> Outcome {
    if kind == DependencyKind::Circular {
        return crate::analyze_cycles::cycles(files, graph);
    }
    let language_of: BTreeMap<&str, &'static str> = files
        .iter()
        .map(|f| (f.path.as_str(), analyze::language_name(f)))
        .collect();
    let lang = |p: &str| language_of.get(p).copied().unwrap_or("");
    let mut drafts = Vec::new();
    let node = |file: &str,
                kind: &'static str,
                metrics: BTreeMap<String, Value>,
                message: String,
                severity,
                weight| Draft {
        kind,
        severity,
        file: file.to_owned(),
        span: resolve_pr_analysis::Span::default(),
        symbol: None,
        language: lang(file),
        metrics,
        message,
        suggestions: Vec::new(),
        weight,
    };
    let mut thresholds = BTreeMap::new();
    match kind {
        DependencyKind::Imports => {
            for i in &graph.imports {
                let target = i.resolved.clone().unwrap_or_else(|| "external".to_owned());
                let names: Vec<&str> = i.names.iter().map(|n| n.local.as_str()).collect();
                drafts.push(Draft {
                    kind: "import",
                    severity: Severity::Low,
                    file: i.file.clone(),
                    span: i.span,
                    symbol: None,
                    language: lang(&i.file),
                    metrics: BTreeMap::from([
                        ("specifier".to_owned(), json!(i.specifier)),
                        ("resolved".to_owned(), json!(i.resolved)),
                        ("external".to_owned(), json!(i.resolved.is_none())),
                        ("names".to_owned(), json!(names)),
                    ]),
                    message: format!("imports {} ({target})", i.specifier),
                    suggestions: Vec::new(),
                    weight: 0.0,
                });
            }
        }
        DependencyKind::Graph | DependencyKind::Coupling => {
            for f in &graph.nodes {
                let (ins, outs) = (graph.in_degree(f), graph.out_degree(f));
                let instability = graph.instability(f);
                let many = outs > 20;
                drafts.push(node(
                    f,
                    if kind == DependencyKind::Graph {
                        "module_node"
                    } else {
                        "coupling"
                    },
                    BTreeMap::from([
                        ("in_degree".to_owned(), json!(ins)),
                        ("out_degree".to_owned(), json!(outs)),
                        (
                            "coupling_score".to_owned(),
                            json!((instability * 1000.0).round() / 1000.0),
                        ),
                    ]),
                    format!(
                        "imported by {ins} file(s), imports {outs}; instability {instability:.2}"
                    ),
                    if many {
                        Severity::Medium
                    } else {
                        Severity::Low
                    },
                    (ins + outs) as f64,
                ));
            }
            thresholds.insert("out_degree".to_owned(), 20.0);
        }
        DependencyKind::Cohesion => {
            for c in graph.cohesion() {
                let dir = if c.directory.is_empty() {
                    "."
                } else {
                    c.directory.as_str()
                };
                drafts.push(node(
                    dir,
                    "cohesion",
                    BTreeMap::from([
                        (
                            "cohesion_score".to_owned(),
                            json!((c.score * 1000.0).round() / 1000.0),
                        ),
                        ("files".to_owned(), json!(c.files)),
                        ("internal_edges".to_owned(), json!(c.internal)),
                        ("outgoing_edges".to_owned(), json!(c.outgoing)),
                    ]),
                    format!(
                        "{} of {} import(s) from {dir} stay in it",
                        c.internal, c.outgoing
                    ),
                    if c.score < 0.2 && c.outgoing >= 5 {
                        Severity::Medium
                    } else {
                        Severity::Low
                    },
                    -c.score,
                ));
            }
        }
        DependencyKind::Depth => {
            for (f, depth) in graph.depths() {
                drafts.push(node(
                    &f,
                    "dependency_depth",
                    BTreeMap::from([("dependency_depth".to_owned(), json!(depth))]),
                    format!("the longest chain of imports below it is {depth} deep"),
                    if depth > 10 {
                        Severity::Medium
                    } else {
                        Severity::Low
                    },
                    f64::from(depth),
                ));
            }
            thresholds.insert("dependency_depth".to_owned(), 10.0);
        }
        DependencyKind::Circular => {}
    }
    let export = (kind == DependencyKind::Graph || options.format == Format::Graph)
        .then(|| export(graph, options.export_format));
    let all: Vec<&SourceFile> = files.iter().collect();
    Outcome {
        category: "dependencies",
        kind: kind.as_str().to_owned(),
        drafts,
        files_analyzed: files.len(),
        symbols_analyzed: graph.edges.len(),
        thresholds,
        language: analyze::language_of(&all),
        graph: export,
        warnings: Vec::new(),
    }
}

fn export(graph: &Graph, format: ExportFormat) -> GraphExport {
    let (name, payload) = match format {
        ExportFormat::Mermaid => ("mermaid", graph.to_mermaid()),
        ExportFormat::Graphviz => ("graphviz", graph.to_dot()),
        ExportFormat::Json => {
            let edges: Vec<Value> = graph.edges.iter().map(|e| json!([e.from, e.to])).collect();
            (
                "json",
                json!({"nodes": graph.nodes, "edges": edges}).to_string(),
            )
        }
    };
    GraphExport {
        format: name.to_owned(),
        size_bytes: payload.len(),
        payload,
        encoding: "utf8".to_owned(),
    }
}
