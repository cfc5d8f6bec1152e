//! `find_replace`: finds text or a regex across the checkout (as git sees it) and replaces it, literal or with captures, optionally keeping each match's case style. Plans by default.

use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_edit::{PlanMeta, Warning};
use resolve_pr_source::WorkspaceChange;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, plan_or_apply, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FindMode {
    #[default]
    Literal,
    Regex,
}

fn default_limit() -> usize {
    500
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// What to find (needed unless plan_id is given).
    #[serde(default)]
    pub pattern: String,
    /// In regex mode, $1 and ${name} insert captures.
    #[serde(default)]
    pub replacement: String,
    #[serde(default)]
    pub mode: FindMode,
    #[serde(default = "crate::refactor::yes")]
    pub case_sensitive: bool,
    #[serde(default)]
    pub whole_word: bool,
    /// Keep each match's case; an identifier's spellings (foo_bar, FooBar, fooBar, FOO_BAR) each become the replacement's.
    #[serde(default)]
    pub preserve_case: bool,
    /// A file or directory of the checkout to search. Default: all of it.
    #[serde(default)]
    pub path: Option<String>,
    /// Globs from the checkout's root, e.g. "src/**/*.rs".
    #[serde(default)]
    pub include: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Matches replaced at most (default 500); the rest are counted.
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// Plan only; write nothing.
    #[serde(default = "crate::refactor::yes")]
    pub dry_run: bool,
    /// With dry_run: false, the plan to apply exactly.
    #[serde(default)]
    pub plan_id: Option<String>,
    /// Apply even if verification finds new errors.
    #[serde(default)]
    pub force: bool,
}

pub struct FindReplace;

impl Tool for FindReplace {
    const NAME: &'static str = "find_replace";
    const TITLE: &'static str = "Find and replace";
    const DESCRIPTION: &'static str = "Finds text or a regex across the checkout (.gitignore honoured) and replaces it: literal, with captures, or keeping each match's case.";
    const TOOLSET: crate::Toolset = crate::Toolset::Refactor;
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
        let make = plan(root.clone(), input.clone());
        plan_or_apply(ctx, Self::NAME, &root, "TransformPlan", mode, make).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

async fn plan(root: PathBuf, input: Input) -> Result<(WorkspaceChange, PlanMeta)> {
    let scope = match input.path.as_deref() {
        None | Some("") | Some(".") => PathBuf::new(),
        Some(p) => {
            let full = crate::code::file_in(&root, p, "path")?;
            full.strip_prefix(&root).unwrap_or(&full).to_owned()
        }
    };
    let options = resolve_pr_code::find_replace::Options {
        pattern: input.pattern.clone(),
        replacement: input.replacement.clone(),
        regex: input.mode == FindMode::Regex,
        case_sensitive: input.case_sensitive,
        whole_word: input.whole_word,
        preserve_case: input.preserve_case,
        include: input.include.clone(),
        exclude: input.exclude.clone(),
        limit: input.limit.max(1),
    };
    let found = tokio::task::spawn_blocking(move || {
        resolve_pr_code::find_replace::find_replace(&root, &scope, &options)
    })
    .await
    .map_err(|e| {
        Error::unknown(format!("the search stopped: {e}")).with_code(ErrorCode::InternalError)
    })?
    .map_err(|e| {
        let field = match e {
            resolve_pr_code::find_replace::FindError::BadGlob(_) => "include",
            resolve_pr_code::find_replace::FindError::Outside(_) => "path",
            _ => "pattern",
        };
        Error::user(e.to_string())
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", field)
    })?;
    let files: std::collections::BTreeSet<&Path> =
        found.matches.iter().map(|m| m.path.as_path()).collect();
    let mut warnings = vec![Warning {
        code: "FOUND".into(),
        message: format!(
            "{} match(es) in {} file(s) of {} searched",
            found.total,
            files.len(),
            found.files_searched
        ),
    }];
    if found.total > found.matches.len() {
        warnings.push(Warning {
            code: "LIMIT_REACHED".into(),
            message: format!(
                "only the first {} of {} matches are in the plan: apply it, then call again for the rest (or raise limit)",
                found.matches.len(),
                found.total
            ),
        });
    }
    if found.skipped_binary + found.skipped_large > 0 || found.files_cut {
        warnings.push(Warning {
            code: "FILES_SKIPPED".into(),
            message: format!(
                "not searched: {} binary or non-UTF-8 file(s), {} over 4 MiB{}",
                found.skipped_binary,
                found.skipped_large,
                if found.files_cut {
                    ", and every file past the first 50,000"
                } else {
                    ""
                }
            ),
        });
    }
    // Verified by the checker of the one language every changed file is in, if there is one.
    let languages: std::collections::BTreeSet<&str> = found
        .change
        .changes
        .iter()
        .flat_map(|c| c.paths())
        .map(|p| resolve_pr_lsp::Language::of_path(p).map_or("", |l| l.as_str()))
        .collect();
    let language = match languages.into_iter().collect::<Vec<_>>().as_slice() {
        [one] if !one.is_empty() => Some((*one).to_owned()),
        _ => None,
    };
    Ok((
        found.change,
        PlanMeta {
            plan_type: "TransformPlan".into(),
            kind: "workspace.find_replace".into(),
            language,
            warnings,
        },
    ))
}
