//! `analyze_module_dependencies`: for a Rust module, what it uses of the rest of its crate
//! and of other crates, what the rest of the crate uses of it, and what would have to
//! become public if it were extracted into a crate of its own.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use resolve_pr_analysis::rust_modules::{Item, module_dependencies};
use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::Context;
use crate::analyze::{self, AnalysisResult, Draft, Outcome, Page, Scope, ScopeType, Severity};
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
    /// The module: its file ("src/parse.rs") or path ("crate::parse").
    #[schemars(example = &"src/parse.rs")]
    pub module: String,
    /// The crate's directory (its Cargo.toml's). Default: found above the module's file, else the checkout.
    #[serde(default)]
    pub crate_dir: Option<String>,
    #[serde(default)]
    pub options: Option<Options>,
}

pub struct AnalyzeModuleDependencies;

impl Tool for AnalyzeModuleDependencies {
    const NAME: &'static str = "analyze_module_dependencies";
    const TITLE: &'static str = "What a Rust module depends on, for extracting it into a crate";
    const DESCRIPTION: &'static str = "For a Rust module: the items of its crate it uses, the crates and std paths it names, what the rest of the crate uses of it, and what must become pub for it to live in a crate of its own.";
    const TOOLSET: crate::Toolset = crate::Toolset::Analysis;
    const ANNOTATIONS: crate::registry::Annotations = analyze::READS_LOCAL;
    type Input = Input;
    type Output = AnalysisResult;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<AnalysisResult> {
        let started = Instant::now();
        let options: Options = input.options.clone().unwrap_or_else(analyze::no_options);
        let resolved = analyze::resolve(ctx, input.directory.as_deref(), None)?;
        let crate_dir = match &input.crate_dir {
            Some(d) => {
                let full = resolve_pr_code::target::path_in(&resolved.root, d, "crate_dir")?;
                analyze::rel(&resolved.root, &full)
            }
            None => crate_of(&resolved.root, &input.module),
        };
        let mut scoped = analyze::Resolved {
            root: resolved.root.clone(),
            scope: Scope::default(),
            prefix: String::new(),
        };
        if !crate_dir.is_empty() {
            scoped.scope.kind = ScopeType::Directory;
            scoped.scope.path = Some(crate_dir.clone());
            scoped.prefix = crate_dir.clone();
        }
        let read = analyze::read(&scoped, false).await?;
        let deps = module_dependencies(&read.loaded.files, &crate_dir, &input.module).map_err(|e| {
            Error::user(e.to_string())
                .with_code(ErrorCode::InvalidTarget)
                .with_detail("field", "module")
                .with_suggestion("Name the module by its file relative to the checkout (src/a/b.rs) or as crate::a::b, with crate_dir for a workspace member.")
        })?;
        let mut drafts = Vec::new();
        for u in &deps.crate_uses {
            let (file, line) = match &u.file {
                Some(f) => (f.clone(), u.line),
                None => u.used_at.first().cloned().unwrap_or_default(),
            };
            drafts.push(Draft {
                kind: "crate_use",
                severity: if u.public {
                    Severity::Low
                } else {
                    Severity::Medium
                },
                file,
                span: line_span(line),
                symbol: Some((u.path.clone(), "object".to_owned())),
                language: "rust",
                metrics: BTreeMap::from([
                    ("public_path".to_owned(), json!(u.public_path)),
                    ("uses".to_owned(), json!(u.used_at.len())),
                ]),
                message: match &u.public_path {
                    Some(p) => format!("uses {} (public as {p})", u.path),
                    None => format!("uses {}, which no public path reaches", u.path),
                },
                suggestions: Vec::new(),
                weight: 0.0,
            });
        }
        for item in &deps.must_become_public {
            drafts.push(item_draft(
                "must_become_public",
                Severity::High,
                item,
                format!(
                    "{} {} is {}: a crate of its own could not use it",
                    item.kind,
                    item.path,
                    if item.visibility.is_empty() {
                        "private"
                    } else {
                        item.visibility.as_str()
                    }
                ),
            ));
        }
        for item in &deps.used_by_rest {
            drafts.push(item_draft(
                "used_by_rest",
                Severity::Medium,
                item,
                format!(
                    "the rest of the crate uses {} {}: the new crate must export it",
                    item.kind, item.path
                ),
            ));
        }
        let module_file = deps.files.first().cloned().unwrap_or_default();
        for c in &deps.external_crates {
            drafts.push(Draft {
                kind: "external_crate",
                severity: Severity::Low,
                file: module_file.clone(),
                span: resolve_pr_analysis::Span::default(),
                symbol: Some((c.clone(), "package".to_owned())),
                language: "rust",
                metrics: BTreeMap::new(),
                message: format!("names the crate {c}: the new crate's manifest needs it"),
                suggestions: Vec::new(),
                weight: 0.0,
            });
        }
        for p in &deps.std_uses {
            drafts.push(Draft {
                kind: "std_use",
                severity: Severity::Low,
                file: module_file.clone(),
                span: resolve_pr_analysis::Span::default(),
                symbol: Some((p.clone(), "object".to_owned())),
                language: "rust",
                metrics: BTreeMap::new(),
                message: format!("{} names {p}", deps.module),
                suggestions: Vec::new(),
                weight: -1.0,
            });
        }
        let outcome = Outcome {
            category: "dependencies",
            kind: "module_dependencies".into(),
            files_analyzed: deps.files.len(),
            symbols_analyzed: deps.crate_uses.len() + deps.used_by_rest.len(),
            drafts,
            thresholds: BTreeMap::new(),
            language: Some("rust".into()),
            graph: None,
            warnings: read.warnings,
        };
        let page = Page {
            limit: options.limit,
            offset: options.offset,
        };
        analyze::finish(&scoped, outcome, page, started)
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

fn item_draft(kind: &'static str, severity: Severity, item: &Item, message: String) -> Draft {
    let mut metrics = BTreeMap::from([("visibility".to_owned(), json!(item.visibility))]);
    if !item.private_fields.is_empty() {
        metrics.insert("private_fields".to_owned(), json!(item.private_fields));
    }
    if !item.members.is_empty() {
        metrics.insert("members".to_owned(), json!(item.members));
    }
    Draft {
        kind,
        severity,
        file: item.file.clone(),
        span: line_span(item.line),
        symbol: Some((item.path.clone(), item.kind.clone())),
        language: "rust",
        metrics,
        message,
        suggestions: Vec::new(),
        weight: 0.0,
    }
}

fn line_span(line: u32) -> resolve_pr_analysis::Span {
    crate::analyze_documentation::line_span(line)
}

/// The directory of the nearest Cargo.toml above a module's file (relative to the
/// checkout); the checkout itself for a `crate::` path or when none is found.
fn crate_of(root: &Path, module: &str) -> String {
    if module.starts_with("crate") && !module.ends_with(".rs") {
        return String::new();
    }
    let mut dir = root.join(module);
    while dir.pop() {
        if !dir.starts_with(root) {
            break;
        }
        if dir.join("Cargo.toml").is_file() {
            return analyze::rel(root, &dir);
        }
    }
    String::new()
}
