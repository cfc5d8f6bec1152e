//! `update_dependencies` (seed 002's internal API): several version requirements changed
//! at once, across manifests, as one plan.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::Context;
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;
use crate::workspace::needs;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Update {
    /// The manifest, relative.
    pub manifest: String,
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// Each {manifest, name, version}.
    #[serde(default)]
    pub updates: Vec<Update>,
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

pub struct UpdateDependencies;

impl Tool for UpdateDependencies {
    const NAME: &'static str = "update_dependencies";
    const TITLE: &'static str = "Change several dependencies' version requirements";
    const DESCRIPTION: &'static str = "Changes several dependencies' version requirements across manifests (Cargo.toml, package.json, go.mod, pyproject.toml) as one plan. Refused if one is absent.";
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
            if input.updates.is_empty() {
                return Err(needs(Self::NAME, "updates"));
            }
            let updates: Vec<(&str, &str, &str)> = input
                .updates
                .iter()
                .map(|u| (u.manifest.as_str(), u.name.as_str(), u.version.as_str()))
                .collect();
            crate::update_dependency::plan(&root, &updates, "update_dependencies")
        };
        plan_or_apply(ctx, Self::NAME, &root, "UpdateDependencyPlan", mode, make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
