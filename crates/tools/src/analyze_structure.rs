//! `analyze_structure`: the checkout's symbols (outlines as rust-analyzer gives them, by
//! tree-sitter), its type hierarchy and interfaces with their implementations, and its
//! modules.

use std::collections::BTreeMap;
use std::time::Instant;

use resolve_pr_analysis::SourceFile;
use resolve_pr_analysis::structure::{RelationKind, SYMBOL_KINDS, hierarchy, modules, symbols};
use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Context;
use crate::analyze::{self, AnalysisResult, Draft, Outcome, Page, Scope, Severity};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StructureKind {
    #[default]
    Symbols,
    Hierarchy,
    Interfaces,
    Inheritance,
    Modules,
}

impl StructureKind {
    fn as_str(self) -> &'static str {
        match self {
            StructureKind::Symbols => "symbols",
            StructureKind::Hierarchy => "hierarchy",
            StructureKind::Interfaces => "interfaces",
            StructureKind::Inheritance => "inheritance",
            StructureKind::Modules => "modules",
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// LSP kinds in lower case: function, class, struct, method, ...
    #[serde(default)]
    pub symbol_kinds: Vec<String>,
    #[serde(default)]
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
    pub kind: StructureKind,
    /// {type: workspace|directory|file|symbol, path, symbol_name, include, exclude}.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeStructure;

impl Tool for AnalyzeStructure {
    const NAME: &'static str = "analyze_structure";
    const TITLE: &'static str = "Structure: symbols, hierarchy, interfaces, modules";
    const DESCRIPTION: &'static str = "The checkout's symbols (public ones unless include_private), type hierarchy with inheritance depth, interfaces and traits with their implementations, and modules with their symbol counts.";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        let options: Options = input.options.clone().unwrap_or_else(analyze::no_options);
        if let Some(bad) = options
            .symbol_kinds
            .iter()
            .find(|k| !SYMBOL_KINDS.contains(&k.as_str()))
        {
            return Err(Error::user(format!("{bad:?} is not an LSP symbol kind"))
                .with_code(ErrorCode::InvalidArgument)
                .with_detail("field", "options.symbol_kinds")
                .with_suggestion(format!(
                    "Use lower-case LSP kinds: {}.",
                    SYMBOL_KINDS.join(", ")
                )));
        }
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), input.scope.clone())?;
        // Hierarchies cross files: read the whole checkout, report on the scope; modules are
        // the scope's own.
        let read = analyze::read(&resolved, input.kind != StructureKind::Modules).await?;
        let page = Page {
            limit: options.limit,
            offset: options.offset,
        };
        let mut outcome = structure(&read.loaded.files, input.kind, &options, &|p| {
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

/// Inheritance deeper than this is a medium finding.
const DEEP_INHERITANCE: u32 = 4;

pub(crate) fn structure(
    files: &[SourceFile],
    kind: StructureKind,
    options: &Options,
    in_scope: &dyn Fn(&str) -> bool,
) -> Outcome {
    let scoped: Vec<&SourceFile> = files.iter().filter(|f| in_scope(&f.path)).collect();
    let language_of: BTreeMap<&str, &'static str> = scoped
        .iter()
        .map(|f| (f.path.as_str(), analyze::language_name(f)))
        .collect();
    let lang = |p: &str| language_of.get(p).copied().unwrap_or("");
    let kind_wanted =
        |k: &str| options.symbol_kinds.is_empty() || options.symbol_kinds.iter().any(|w| w == k);
    let mut drafts = Vec::new();
    let mut symbols_seen = 0;
    let draft = |kind: &'static str,
                 file: &str,
                 span,
                 symbol: Option<(String, String)>,
                 metrics: BTreeMap<String, Value>,
                 message: String,
                 severity,
                 weight: f64| Draft {
        kind,
        severity,
        file: file.to_owned(),
        span,
        symbol,
        language: lang(file),
        metrics,
        message,
        suggestions: Vec::new(),
        weight,
    };
    match kind {
        StructureKind::Symbols => {
            for f in &scoped {
                for s in symbols(f) {
                    symbols_seen += 1;
                    if (!s.public && !options.include_private) || !kind_wanted(s.symbol_kind) {
                        continue;
                    }
                    drafts.push(draft(
                        "symbol",
                        &s.file,
                        s.span,
                        Some((s.qualified.clone(), s.symbol_kind.to_owned())),
                        BTreeMap::from([("child_count".to_owned(), json!(s.children))]),
                        format!("{} {}", s.symbol_kind, s.qualified),
                        Severity::Low,
                        0.0,
                    ));
                }
            }
            // Source order within a file: symbols are not ranked.
            for d in &mut drafts {
                d.weight = 0.0;
            }
        }
        StructureKind::Hierarchy | StructureKind::Interfaces | StructureKind::Inheritance => {
            let h = hierarchy(files);
            symbols_seen = h.types.iter().filter(|t| in_scope(&t.file)).count();
            match kind {
                StructureKind::Hierarchy => {
                    for t in h.types.iter().filter(|t| {
                        in_scope(&t.file)
                            && (t.public || options.include_private)
                            && kind_wanted(t.symbol_kind)
                    }) {
                        let depth = h.inheritance_depth(&t.name);
                        let children = h.children(&t.name).len();
                        let implementations = h.implementations(&t.name).len();
                        if depth == 0 && children == 0 && implementations == 0 {
                            continue;
                        }
                        drafts.push(draft(
                            "type_hierarchy",
                            &t.file,
                            t.name_span,
                            Some((t.qualified.clone(), t.symbol_kind.to_owned())),
                            BTreeMap::from([
                                ("inheritance_depth".to_owned(), json!(depth)),
                                ("child_count".to_owned(), json!(children)),
                                ("implementation_count".to_owned(), json!(implementations)),
                            ]),
                            format!("{} {}: depth {depth}, {children} subtype(s), {implementations} implementation(s)", t.symbol_kind, t.qualified),
                            if depth > DEEP_INHERITANCE { Severity::Medium } else { Severity::Low },
                            f64::from(depth),
                        ));
                    }
                }
                StructureKind::Interfaces => {
                    for t in h
                        .interfaces()
                        .into_iter()
                        .filter(|t| in_scope(&t.file) && (t.public || options.include_private))
                    {
                        let impls = h.implementations(&t.name);
                        let names: Vec<&str> = impls.iter().map(|r| r.child.as_str()).collect();
                        drafts.push(draft(
                            "interface",
                            &t.file,
                            t.name_span,
                            Some((t.qualified.clone(), t.symbol_kind.to_owned())),
                            BTreeMap::from([
                                ("implementation_count".to_owned(), json!(impls.len())),
                                (
                                    "implementations".to_owned(),
                                    json!(names.iter().take(50).collect::<Vec<_>>()),
                                ),
                            ]),
                            format!(
                                "{} {}: {} implementation(s)",
                                t.symbol_kind,
                                t.qualified,
                                impls.len()
                            ),
                            if impls.is_empty() {
                                Severity::Medium
                            } else {
                                Severity::Low
                            },
                            impls.len() as f64,
                        ));
                    }
                }
                _ => {
                    for r in h.relations.iter().filter(|r| in_scope(&r.file)) {
                        let depth = h.inheritance_depth(&r.child);
                        let verb = match r.kind {
                            RelationKind::Extends => "extends",
                            RelationKind::Implements => "implements",
                        };
                        drafts.push(draft(
                            "inheritance",
                            &r.file,
                            r.span,
                            Some((r.child.clone(), "class".to_owned())),
                            BTreeMap::from([
                                ("inheritance_depth".to_owned(), json!(depth)),
                                ("parent".to_owned(), json!(r.parent)),
                            ]),
                            format!("{} {verb} {}", r.child, r.parent),
                            if depth > DEEP_INHERITANCE {
                                Severity::Medium
                            } else {
                                Severity::Low
                            },
                            f64::from(depth),
                        ));
                    }
                }
            }
        }
        StructureKind::Modules => {
            // The files were read for the scope alone.
            for m in modules(files) {
                symbols_seen += m.symbols as usize;
                drafts.push(draft(
                    "module",
                    &m.path,
                    resolve_pr_analysis::Span::default(),
                    Some((m.path.clone(), "module".to_owned())),
                    BTreeMap::from([
                        ("files".to_owned(), json!(m.files)),
                        ("child_count".to_owned(), json!(m.symbols)),
                        ("public_symbols".to_owned(), json!(m.public_symbols)),
                    ]),
                    format!(
                        "module {}: {} file(s), {} symbol(s), {} public",
                        m.path, m.files, m.symbols, m.public_symbols
                    ),
                    Severity::Low,
                    f64::from(m.symbols),
                ));
            }
        }
    }
    Outcome {
        category: "structure",
        kind: kind.as_str().to_owned(),
        drafts,
        files_analyzed: scoped.len(),
        symbols_analyzed: symbols_seen,
        thresholds: BTreeMap::new(),
        language: analyze::language_of(&scoped),
        graph: None,
        warnings: Vec::new(),
    }
}
