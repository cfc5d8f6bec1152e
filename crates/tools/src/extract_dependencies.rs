//! `extract_dependencies`: the dependencies a module's files really use, copied from its
//! package's manifest into a new package's as written (versions, features, optional,
//! renames, workspace inheritance). Names used but not listed are warnings, never invented.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use resolve_pr_code::manifests::{self, Ecosystem, Extracted, Refusal, cargo, go, npm, python};
use resolve_pr_core::Result;
use resolve_pr_edit::PlanMeta;
use resolve_pr_source::WorkspaceChange;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::Context;
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;
use crate::workspace::{meta, needs, note, nothing, read, refused};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// A module file or directory, relative.
    #[serde(default)]
    #[schemars(example = &"crates/old/src/util.rs")]
    pub source: Option<String>,
    /// The new package's directory (its manifest gets the dependencies).
    #[serde(default)]
    #[schemars(example = &"crates/util")]
    pub target: Option<String>,
    /// Plan only; write nothing.
    #[serde(default = "crate::refactor::yes")]
    pub dry_run: bool,
    /// With dry_run: false, the plan to apply exactly.
    #[serde(default)]
    pub plan_id: Option<String>,
    /// Apply without verification.
    #[serde(default)]
    pub force: bool,
}

pub struct ExtractDependencies;

impl Tool for ExtractDependencies {
    const NAME: &'static str = "extract_dependencies";
    const TITLE: &'static str = "Copy a module's dependencies to a new package";
    const DESCRIPTION: &'static str = "Copies the dependencies a module's files really use from its package's manifest into a target package's, as written (versions, features, renames, workspace = true). Names not in the manifest are warned of. Plans first.";
    const TOOLSET: crate::Toolset = crate::Toolset::Workspace;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let mode = Mode {
            dry_run: input.dry_run,
            plan_id: input.plan_id.as_deref(),
            force: input.force,
        };
        let make = async { plan(&root, &input) };
        plan_or_apply(
            ctx,
            Self::NAME,
            &root,
            "ExtractDependenciesPlan",
            mode,
            make,
        )
        .await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

/// The source files of `rel` (a file, or every file under a directory), relative.
fn files_of(root: &Path, rel: &Path) -> Vec<PathBuf> {
    if root.join(rel).is_file() {
        return vec![rel.to_owned()];
    }
    let walked = resolve_pr_source::Walk::checkout(&root.join(rel))
        .files(20_000, |_| true)
        .unwrap_or_default();
    walked
        .files
        .into_iter()
        .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_owned))
        .collect()
}

fn ecosystem_of(file: &Path) -> Option<Ecosystem> {
    match file.extension()?.to_str()? {
        "rs" => Some(Ecosystem::Cargo),
        "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => Some(Ecosystem::Npm),
        "go" => Some(Ecosystem::Go),
        "py" | "pyi" => Some(Ecosystem::Uv),
        _ => None,
    }
}

fn marker(eco: Ecosystem) -> &'static str {
    manifests::member_marker(eco)
}

/// The nearest manifest of `eco` at or above `from` (inside the checkout) that is a package's.
fn package_manifest(root: &Path, from: &Path, eco: Ecosystem) -> Option<PathBuf> {
    let mut dir = Some(from.to_owned());
    while let Some(d) = dir {
        let m = d.join(marker(eco));
        if let Ok(text) = std::fs::read_to_string(root.join(&m)) {
            let is_package = match eco {
                Ecosystem::Cargo => text.contains("[package]"),
                Ecosystem::Uv => text.contains("[project]"),
                _ => true,
            };
            if is_package {
                return Some(m);
            }
        }
        dir = d.parent().map(Path::to_owned);
    }
    None
}

fn is_test_path(p: &Path) -> bool {
    let s = p.to_string_lossy();
    s.contains("/tests/")
        || s.starts_with("tests/")
        || s.contains("/benches/")
        || s.contains("/examples/")
        || s.contains("__tests__")
        || s.contains(".test.")
        || s.contains(".spec.")
        || s.ends_with("_test.go")
        || p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("test_"))
}

fn plan(root: &Path, input: &Input) -> Result<(WorkspaceChange, PlanMeta)> {
    let source = input
        .source
        .as_deref()
        .ok_or_else(|| needs(ExtractDependencies::NAME, "source"))?;
    let target = input
        .target
        .as_deref()
        .ok_or_else(|| needs(ExtractDependencies::NAME, "target"))?;
    let src = manifests::inside(root, source, "source").map_err(refused)?;
    if !root.join(&src).exists() {
        return Err(refused(Refusal::new(
            "source",
            format!("{source} does not exist"),
        )));
    }
    let tgt = manifests::inside(root, target, "target").map_err(refused)?;
    let files = files_of(root, &src);
    let eco = files.iter().find_map(|f| ecosystem_of(f)).ok_or_else(|| {
        refused(Refusal::new(
            "source",
            format!("{source} holds no Rust, JavaScript, TypeScript, Go or Python file"),
        ))
    })?;
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| ecosystem_of(f) == Some(eco))
        .collect();
    let start = if root.join(&src).is_dir() {
        src.clone()
    } else {
        src.parent().map(Path::to_owned).unwrap_or_default()
    };
    let source_manifest = package_manifest(root, &start, eco).ok_or_else(|| {
        refused(Refusal::new(
            "source",
            format!("no {} of a package holds {source}", marker(eco)),
        ))
    })?;
    let target_manifest = tgt.join(marker(eco));
    if !root.join(&target_manifest).is_file() {
        return Err(refused(
            Refusal::new(
                "target",
                format!("{} has no {}", tgt.display(), marker(eco)),
            )
            .suggest("create_package makes the package first."),
        ));
    }
    if source_manifest == target_manifest {
        return Err(refused(Refusal::new(
            "target",
            "the target is the source's own package",
        )));
    }
    let source_text = read(root, &source_manifest, "source")?;
    let target_text = read(root, &target_manifest, "target")?;
    let text_of = |f: &Path| std::fs::read_to_string(root.join(f)).unwrap_or_default();
    let out: Extracted = match eco {
        Ecosystem::Cargo => {
            let mut uses: BTreeMap<String, cargo::Use> = BTreeMap::new();
            for f in &files {
                let whole = if f.file_name().is_some_and(|n| n == "build.rs") {
                    Some(cargo::Use::Build)
                } else if is_test_path(f) {
                    Some(cargo::Use::Test)
                } else {
                    None
                };
                for (name, kind) in cargo::rust_uses(&text_of(f)) {
                    let kind = whole.unwrap_or(kind);
                    let e = uses.entry(name).or_insert(kind);
                    *e = (*e).min(kind);
                }
            }
            // The source crate's own name is not a dependency.
            if let Some(own) = cargo::package_name(&source_text) {
                uses.remove(&own.replace('-', "_"));
            }
            let from = source_manifest.parent().unwrap_or(Path::new(""));
            cargo::copy_dependencies(&source_text, &target_text, &uses, Some((from, &tgt)))
        }
        Ecosystem::Npm => {
            let mut uses: BTreeMap<String, bool> = BTreeMap::new();
            for f in &files {
                let test = is_test_path(f);
                for name in npm::js_uses(&text_of(f)) {
                    let e = uses.entry(name).or_insert(test);
                    *e = *e && test;
                }
            }
            if let Some(own) = npm::package_name(&source_text) {
                uses.remove(&own);
            }
            npm::copy_dependencies(&source_text, &target_text, &uses)
        }
        Ecosystem::Go => {
            let imports: BTreeSet<String> = files
                .iter()
                .flat_map(|f| go::imports(&text_of(f)))
                .collect();
            go::copy_dependencies(&source_text, &target_text, &imports)
        }
        _ => {
            let mut modules: Vec<String> = Vec::new();
            for f in &files {
                for m in python::imports(&text_of(f)) {
                    if !modules.contains(&m) {
                        modules.push(m);
                    }
                }
            }
            let pkg_dir = source_manifest
                .parent()
                .map(Path::to_owned)
                .unwrap_or_default();
            let mut own: Vec<String> = Vec::new();
            for d in [root.join(&pkg_dir), root.join(&pkg_dir).join("src")] {
                if let Ok(entries) = std::fs::read_dir(d) {
                    own.extend(entries.flatten().map(|e| {
                        e.file_name()
                            .to_string_lossy()
                            .trim_end_matches(".py")
                            .to_owned()
                    }));
                }
            }
            python::copy_dependencies(&source_text, &target_text, &modules, &own)
        }
    }
    .map_err(refused)?;
    let mut warnings = Vec::new();
    if !out.missing.is_empty() {
        warnings.push(note(
            "NOT_IN_MANIFEST",
            format!(
                "used but not listed in {}, so not copied: {}",
                source_manifest.display(),
                out.missing.join(", ")
            ),
        ));
    }
    if !out.already.is_empty() {
        warnings.push(note(
            "ALREADY_PRESENT",
            format!(
                "already in {}: {}",
                target_manifest.display(),
                out.already.join(", ")
            ),
        ));
    }
    if !out.copied.is_empty() {
        warnings.push(note("COPIED", out.copied.join(", ")));
    }
    let Some(change) = manifests::edit_between(&target_manifest, &target_text, &out.text) else {
        return Err(nothing(
            ExtractDependencies::NAME,
            &warnings
                .iter()
                .map(|w| w.message.clone())
                .collect::<Vec<_>>(),
        ));
    };
    Ok((
        WorkspaceChange {
            changes: vec![change],
        },
        meta(
            "ExtractDependenciesPlan",
            "extract_dependencies",
            eco,
            warnings,
        ),
    ))
}
