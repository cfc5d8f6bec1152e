//! `update_dependency` (seed 002's internal API): a dependency's version requirement
//! changed in one manifest (Cargo.toml in any table including `[workspace.dependencies]`,
//! package.json, go.mod, pyproject.toml), as a plan. Refused where it is not a dependency.

use std::path::{Path, PathBuf};

use resolve_pr_code::manifests::{self, Ecosystem, Refusal, cargo, go, npm, python};
use resolve_pr_core::Result;
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_source::{FileChange, WorkspaceChange};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::Context;
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;
use crate::workspace::{meta, needs, note, read, refused};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// The manifest, relative.
    #[serde(default)]
    #[schemars(example = &"crates/core/Cargo.toml")]
    pub manifest: Option<String>,
    /// The dependency's name.
    #[serde(default)]
    pub name: Option<String>,
    /// The new requirement, as the manifest writes it.
    #[serde(default)]
    #[schemars(example = &"1.2")]
    pub version: Option<String>,
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

pub struct UpdateDependency;

impl Tool for UpdateDependency {
    const NAME: &'static str = "update_dependency";
    const TITLE: &'static str = "Change a dependency's version requirement";
    const DESCRIPTION: &'static str = "Changes a dependency's version requirement in a manifest (Cargo.toml, package.json, go.mod, pyproject.toml), in every table listing it. Refused if absent. Plans first.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
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
        let make = async {
            let manifest = input
                .manifest
                .as_deref()
                .ok_or_else(|| needs(Self::NAME, "manifest"))?;
            let name = input
                .name
                .as_deref()
                .ok_or_else(|| needs(Self::NAME, "name"))?;
            let version = input
                .version
                .as_deref()
                .ok_or_else(|| needs(Self::NAME, "version"))?;
            plan(&root, &[(manifest, name, version)], "update_dependency")
        };
        plan_or_apply(ctx, Self::NAME, &root, "UpdateDependencyPlan", mode, make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

/// The ecosystem a manifest file belongs to, by its name.
fn ecosystem_of(rel: &Path) -> Option<Ecosystem> {
    match rel.file_name()?.to_str()? {
        "Cargo.toml" => Some(Ecosystem::Cargo),
        "package.json" => Some(Ecosystem::Npm),
        "go.mod" => Some(Ecosystem::Go),
        "pyproject.toml" => Some(Ecosystem::Uv),
        _ => None,
    }
}

/// One plan for every `(manifest, name, version)`, a manifest's updates applied in turn.
pub(crate) fn plan(
    root: &Path,
    updates: &[(&str, &str, &str)],
    kind: &str,
) -> Result<(WorkspaceChange, PlanMeta)> {
    let mut texts: Vec<(PathBuf, String, String)> = Vec::new();
    let mut warnings: Vec<Warning> = Vec::new();
    let mut first = None;
    for (manifest, name, version) in updates {
        let rel = manifests::inside(root, manifest, "manifest").map_err(refused)?;
        let eco = ecosystem_of(&rel).ok_or_else(|| {
            refused(Refusal::new(
                "manifest",
                format!("{manifest} is not a Cargo.toml, package.json, go.mod or pyproject.toml"),
            ))
        })?;
        if version.trim().is_empty() {
            return Err(refused(Refusal::new("version", "version is empty")));
        }
        first.get_or_insert(eco);
        let i = match texts.iter().position(|(p, _, _)| *p == rel) {
            Some(i) => i,
            None => {
                let text = read(root, &rel, "manifest")?;
                texts.push((rel.clone(), text.clone(), text));
                texts.len() - 1
            }
        };
        let current = &texts[i].2;
        let (new, tables) = match eco {
            Ecosystem::Cargo => cargo::set_version(current, name, version),
            Ecosystem::Npm => npm::set_version(current, name, version),
            Ecosystem::Go => go::set_version(current, name, version),
            _ => python::set_version(current, name, version),
        }
        .map_err(|r| {
            refused(Refusal {
                message: format!("{}: {}", rel.display(), r.message),
                ..r
            })
        })?;
        texts[i].2 = new;
        warnings.push(note(
            "UPDATED",
            format!(
                "{name} → {version} in {} ({})",
                rel.display(),
                tables.join(", ")
            ),
        ));
    }
    let changes: Vec<FileChange> = texts
        .iter()
        .filter_map(|(p, old, new)| manifests::edit_between(p, old, new))
        .collect();
    let eco = first.ok_or_else(|| needs(kind, "updates"))?;
    Ok((
        WorkspaceChange { changes },
        meta("UpdateDependencyPlan", kind, eco, warnings),
    ))
}
