//! `update_members`: a workspace's members added, removed (globs respected: a path a
//! pattern matches is excluded, said) or listed with the directories they match. Cargo,
//! package.json workspaces, pnpm-workspace.yaml, go.work, uv. Plans by default.

use std::path::{Path, PathBuf};

use resolve_pr_code::manifests;
use resolve_pr_core::Result;
use resolve_pr_edit::PlanMeta;
use resolve_pr_source::WorkspaceChange;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;
use crate::workspace::{meta, needs, note, nothing, read, refused};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Add,
    Remove,
    List,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// add, remove or list.
    #[serde(default)]
    pub action: Option<Action>,
    /// Member paths, relative (add may take a glob).
    #[serde(default)]
    #[schemars(example = &["crates/util"])]
    pub members: Vec<String>,
    /// cargo, npm, pnpm, yarn, uv or go. Default: the checkout's one workspace.
    #[serde(default)]
    pub ecosystem: Option<String>,
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

// A member as written and the directories it matches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemberView {
    pub written: String,
    pub directories: Vec<String>,
}

// list's answer (members and exclusions), or add's and remove's plan or apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecosystem: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<MemberView>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    #[serde(flatten)]
    pub change: RefactorOutput,
}

pub struct UpdateMembers;

impl Tool for UpdateMembers {
    const NAME: &'static str = "update_members";
    const TITLE: &'static str = "Add, remove or list workspace members";
    const DESCRIPTION: &'static str = "Adds, removes or lists a workspace's members (Cargo.toml, package.json, pnpm-workspace.yaml, go.work, uv), comments and layout kept; globs respected (a globbed path removed is excluded). list is read-only.";
    const TOOLSET: crate::Toolset = crate::Toolset::Workspace;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        if input.action == Some(Action::List) {
            return list(&root, &input);
        }
        let mode = Mode {
            dry_run: input.dry_run,
            plan_id: input.plan_id.as_deref(),
            force: input.force,
        };
        let make = async { plan(&root, &input) };
        let change = plan_or_apply(ctx, Self::NAME, &root, "UpdateMembersPlan", mode, make).await?;
        Ok(Output {
            ecosystem: None,
            members: None,
            exclude: Vec::new(),
            change,
        })
    }

    fn render(output: &Output) -> String {
        match &output.members {
            Some(members) => {
                let mut out = format!(
                    "{} workspace: {} member pattern(s).\n",
                    output.ecosystem.as_deref().unwrap_or(""),
                    members.len()
                );
                for m in members {
                    out.push_str(&format!(
                        "{} → {}\n",
                        m.written,
                        if m.directories.is_empty() {
                            "(nothing)".to_owned()
                        } else {
                            m.directories.join(", ")
                        }
                    ));
                }
                if !output.exclude.is_empty() {
                    out.push_str(&format!("exclude: {}\n", output.exclude.join(", ")));
                }
                out
            }
            None => render(Self::NAME, &output.change),
        }
    }
}

fn list(root: &Path, input: &Input) -> Result<Output> {
    let eco = manifests::choose(root, input.ecosystem.as_deref()).map_err(refused)?;
    let text = read(root, Path::new(eco.workspace_file()), "directory")?;
    let have = manifests::members_of(eco, &text).map_err(refused)?;
    let marker = manifests::member_marker(eco);
    let members = have
        .members
        .iter()
        .map(|m| MemberView {
            written: m.clone(),
            directories: if m.starts_with('!') {
                Vec::new()
            } else {
                manifests::matched_dirs(root, m, marker)
            },
        })
        .collect();
    Ok(Output {
        ecosystem: Some(eco.as_str().to_owned()),
        members: Some(members),
        exclude: have.exclude,
        change: RefactorOutput {
            dry_run: true,
            plan: None,
            applied: None,
            warnings: Vec::new(),
            next: None,
        },
    })
}

fn plan(root: &Path, input: &Input) -> Result<(WorkspaceChange, PlanMeta)> {
    let action = input
        .action
        .ok_or_else(|| needs(UpdateMembers::NAME, "action"))?;
    if input.members.is_empty() {
        return Err(needs(UpdateMembers::NAME, "members"));
    }
    let eco = manifests::choose(root, input.ecosystem.as_deref()).map_err(refused)?;
    let file = PathBuf::from(eco.workspace_file());
    let text = read(root, &file, "directory")?;
    let mut paths = Vec::new();
    for m in &input.members {
        if manifests::is_glob(m) {
            if action == Action::Remove {
                return Err(refused(manifests::Refusal::new(
                    "members",
                    format!("{m:?} is a pattern: remove takes paths"),
                )));
            }
            paths.push(manifests::normal(m));
            continue;
        }
        let rel = manifests::inside(root, m, "members").map_err(refused)?;
        let rel = manifests::normal(&rel.to_string_lossy());
        if action == Action::Add
            && !root
                .join(&rel)
                .join(manifests::member_marker(eco))
                .is_file()
        {
            return Err(refused(
                manifests::Refusal::new(
                    "members",
                    format!(
                        "{rel} has no {}: not a package to add",
                        manifests::member_marker(eco)
                    ),
                )
                .suggest("create_package makes one."),
            ));
        }
        paths.push(rel);
    }
    let edit = match action {
        Action::Add => manifests::add_members(eco, &text, &paths),
        Action::Remove => manifests::remove_members(eco, &text, &paths),
        Action::List => unreachable!("list plans nothing"),
    }
    .map_err(refused)?;
    let Some(change) = manifests::edit_between(&file, &text, &edit.text) else {
        return Err(nothing(UpdateMembers::NAME, &edit.notes));
    };
    let warnings = edit
        .notes
        .iter()
        .map(|n| note("MEMBERS", n.clone()))
        .collect();
    let kind = match action {
        Action::Add => "update_members.add",
        _ => "update_members.remove",
    };
    Ok((
        WorkspaceChange {
            changes: vec![change],
        },
        meta("UpdateMembersPlan", kind, eco, warnings),
    ))
}
