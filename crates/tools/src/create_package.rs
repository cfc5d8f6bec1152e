//! `create_package`: a new workspace member with its manifest and entry file (Cargo, npm,
//! pnpm, yarn, uv, Go), registered in the workspace's manifest. Plans by default.

use std::path::{Path, PathBuf};

use resolve_pr_code::manifests::{self, Ecosystem, cargo, go, npm, python};
use resolve_pr_core::Result;
use resolve_pr_edit::PlanMeta;
use resolve_pr_source::{FileChange, WorkspaceChange};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;
use crate::workspace::{meta, needs, note, read, refused};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PackageKind {
    Lib,
    Bin,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// The new package's directory, relative.
    #[serde(default)]
    #[schemars(example = &"crates/util")]
    pub path: Option<String>,
    /// The package's name.
    #[serde(default)]
    pub name: Option<String>,
    /// cargo, npm, pnpm, yarn, uv or go. Default: the checkout's one workspace.
    #[serde(default)]
    pub ecosystem: Option<String>,
    /// lib (default) or bin.
    #[serde(default)]
    pub kind: Option<PackageKind>,
    /// Add it to the workspace's members. Default: true.
    #[serde(default = "crate::refactor::yes")]
    pub register: bool,
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

pub struct CreatePackage;

impl Tool for CreatePackage {
    const NAME: &'static str = "create_package";
    const TITLE: &'static str = "Create a workspace package";
    const DESCRIPTION: &'static str = "Creates a workspace member (cargo, npm, pnpm, yarn, uv, go) with its manifest and entry file, inheriting the workspace's shared settings, and registers it in the workspace manifest. Plans first.";
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
        plan_or_apply(ctx, Self::NAME, &root, "CreatePackagePlan", mode, make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

fn plan(root: &Path, input: &Input) -> Result<(WorkspaceChange, PlanMeta)> {
    let path = input
        .path
        .as_deref()
        .ok_or_else(|| needs(CreatePackage::NAME, "path"))?;
    let name = input
        .name
        .as_deref()
        .ok_or_else(|| needs(CreatePackage::NAME, "name"))?;
    let eco = manifests::choose(root, input.ecosystem.as_deref()).map_err(refused)?;
    let rel = manifests::inside(root, path, "path").map_err(refused)?;
    if root.join(&rel).exists() {
        return Err(refused(
            manifests::Refusal::new("path", format!("{} already exists", rel.display()))
                .suggest("Choose a path that does not exist yet."),
        ));
    }
    let valid = match eco {
        Ecosystem::Cargo => cargo::valid_name(name),
        Ecosystem::Npm | Ecosystem::Pnpm | Ecosystem::Yarn => npm::valid_name(name),
        Ecosystem::Uv => python::valid_name(name),
        Ecosystem::Go => go::valid_name(name),
    };
    valid.map_err(|why| refused(manifests::Refusal::new("name", why)))?;
    let bin = input.kind == Some(PackageKind::Bin);
    let ws_file = PathBuf::from(eco.workspace_file());
    let ws_text = read(root, &ws_file, "directory")?;
    let mut files: Vec<(String, String)> = Vec::new();
    match eco {
        Ecosystem::Cargo => {
            files.push((
                "Cargo.toml".into(),
                cargo::new_manifest(&ws_text, name, bin),
            ));
            let (entry, text) = cargo::entry_file(name, bin);
            files.push((entry.into(), text));
        }
        Ecosystem::Npm | Ecosystem::Pnpm | Ecosystem::Yarn => {
            let root_json = std::fs::read_to_string(root.join("package.json")).unwrap_or_default();
            let typescript =
                root.join("tsconfig.json").is_file() || root_json.contains("\"typescript\"");
            let (manifest, entry, code) = npm::new_package(name, typescript, bin);
            files.push(("package.json".into(), manifest));
            files.push((entry.into(), code));
        }
        Ecosystem::Uv => {
            let (manifest, init, code) = python::new_project(&ws_text, name, bin);
            files.push(("pyproject.toml".into(), manifest));
            files.push((init, code));
        }
        Ecosystem::Go => {
            let module = go_root_module(root, &ws_text)?;
            let module = format!("{module}/{}", manifests::normal(&rel.to_string_lossy()));
            let (gomod, file, code) =
                go::new_module(&module, go::go_version(&ws_text).as_deref(), name, bin);
            files.push(("go.mod".into(), gomod));
            files.push((file, code));
        }
    }
    let mut change = WorkspaceChange::default();
    for (file, contents) in files {
        change.changes.push(FileChange::Create {
            path: rel.join(file),
            contents,
            overwrite: false,
            ignore_if_exists: false,
        });
    }
    let mut warnings = Vec::new();
    if input.register {
        let member = manifests::normal(&rel.to_string_lossy());
        let edit = manifests::add_members(eco, &ws_text, &[member]).map_err(refused)?;
        warnings.extend(
            edit.notes
                .iter()
                .filter(|n| !n.ends_with(" added"))
                .map(|n| note("ALREADY_MEMBER", n.clone())),
        );
        if let Some(c) = manifests::edit_between(&ws_file, &ws_text, &edit.text) {
            change.changes.push(c);
        }
    } else {
        warnings.push(note(
            "NOT_REGISTERED",
            format!("register: false: {} does not list it", ws_file.display()),
        ));
    }
    Ok((
        change,
        meta(
            "CreatePackagePlan",
            &format!("create_package.{}", eco.as_str()),
            eco,
            warnings,
        ),
    ))
}

/// The module path new Go modules go under: the root go.mod's, else one a used module's
/// path shows (`example.com/x/api` at `./api` → `example.com/x`).
fn go_root_module(root: &Path, work: &str) -> Result<String> {
    if let Some(m) = std::fs::read_to_string(root.join("go.mod"))
        .ok()
        .and_then(|t| go::module_path(&t))
    {
        return Ok(m);
    }
    for u in go::uses(work) {
        let dir = manifests::normal(&u);
        let Some(m) = std::fs::read_to_string(root.join(&dir).join("go.mod"))
            .ok()
            .and_then(|t| go::module_path(&t))
        else {
            continue;
        };
        if let Some(prefix) = m.strip_suffix(&format!("/{dir}")) {
            return Ok(prefix.to_owned());
        }
    }
    Err(refused(
        manifests::Refusal::new("directory", "no module path to put the new module under: no go.mod at the root, and no used module's path ends in its directory")
            .suggest("Add a go.mod at the root (go mod init <path>)."),
    ))
}
