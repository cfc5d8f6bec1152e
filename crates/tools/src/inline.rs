//! `inline`: Inlines the variable, function or constant at the position into its uses, as the language server does it. Plans by default.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{Position, Range};
use crate::refactor::{Mode, RefactorOutput, WRITES_LOCAL, actions, render};
use crate::registry::Tool;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InlineKind {
    Variable,
    Function,
    Constant,
    TypeAlias,
}

impl InlineKind {
    fn as_str(self) -> &'static str {
        match self {
            InlineKind::Variable => "variable",
            InlineKind::Function => "function",
            InlineKind::Constant => "constant",
            InlineKind::TypeAlias => "type_alias",
        }
    }
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[serde(default = "default_kind")]
    pub kind: InlineKind,
    #[serde(default)]
    #[schemars(example = &"src/lib.rs")]
    pub file_path: Option<String>,
    /// Instead of position: a range.
    #[serde(default)]
    pub range: Option<Range>,
    /// The name to inline.
    #[serde(default)]
    pub position: Option<Position>,
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

fn default_kind() -> InlineKind {
    InlineKind::Variable
}

pub struct Inline;

impl Tool for Inline {
    const NAME: &'static str = "inline";
    const TITLE: &'static str = "Inline a variable or function";
    const DESCRIPTION: &'static str = "Inlines the variable, function or constant at the position into its uses, as the language server does it.";
    const TOOLSET: crate::Toolset = crate::Toolset::Refactor;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let mode = Mode {
            dry_run: input.dry_run,
            plan_id: input.plan_id.as_deref(),
            force: input.force,
        };
        // tsserver has no inline function: resolve-pr inlines what it can by the syntax tree.
        let typescript = input
            .file_path
            .as_deref()
            .and_then(|f| resolve_pr_lsp::Language::of_path(std::path::Path::new(f)))
            == Some(resolve_pr_lsp::Language::TypeScript);
        if input.kind == InlineKind::Function && typescript {
            let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
            let make = ts_function(ctx, &root, &input);
            return crate::refactor::plan_or_apply(
                ctx,
                Self::NAME,
                &root,
                "InlinePlan",
                mode,
                make,
            )
            .await;
        }
        actions::run_action_tool(
            ctx,
            Self::NAME,
            "InlinePlan",
            format!("inline.{}", input.kind.as_str()),
            input.directory.as_deref(),
            input.file_path.as_deref(),
            input.range,
            input.position,
            None,
            mode,
        )
        .await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}

/// A TypeScript/JavaScript function inlined into every call by the syntax tree
/// (`code::ts_inline`), its declaration and its imports removed; the calls are found by the
/// server's references.
async fn ts_function(
    ctx: &Context,
    root: &std::path::Path,
    input: &Input,
) -> Result<(
    resolve_pr_source::WorkspaceChange,
    resolve_pr_edit::PlanMeta,
)> {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use resolve_pr_core::{Error, ErrorCode};
    use resolve_pr_source::{Dialect, FileChange, LineCol, LineIndex, TextEdit, WorkspaceChange};

    let refused = |why: String| {
        Error::user(format!("inline function: {why}"))
            .with_code(ErrorCode::NotSupported)
            .with_suggestion("Only a function whose body returns one expression, called with one argument per parameter, is inlined here (tsserver has no inline function).")
    };
    let file = input.file_path.as_deref().unwrap_or_default();
    let path = crate::code::file_in(root, file, "file_path")?;
    let at = input
        .position
        .or(input.range.map(|r| r.start))
        .ok_or_else(|| {
            Error::user("inline needs position: the function's name")
                .with_code(ErrorCode::InvalidArgument)
                .with_detail("field", "position")
        })?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::user(format!("{file} cannot be read: {e}")))?;
    let dialect = Dialect::of_path(&path).unwrap_or(Dialect::TypeScript);
    let offset = LineIndex::new(&text)
        .offset_utf16(LineCol {
            line: at.line,
            col: at.character,
        })
        .map_err(|e| {
            Error::user(format!("position: {e}"))
                .with_code(ErrorCode::InvalidPosition)
                .with_detail("field", "position")
        })?;
    let f = resolve_pr_code::ts_inline::function_at(dialect, &text, offset).map_err(refused)?;
    let name_pos = LineIndex::new(&text)
        .position_utf16(f.name_at)
        .map_err(|e| Error::unknown(e.to_string()))?;
    let server = crate::code::server_for_file(ctx, root, &path, "file_path").await?;
    let refs = server
        .references(
            &path,
            resolve_pr_lsp::Pos {
                line: name_pos.line,
                character: name_pos.col,
            },
            false,
        )
        .await
        .map_err(|e| crate::code::relative_error(crate::code::lsp_error(e), root))?
        .value;
    let mut edits: BTreeMap<PathBuf, Vec<TextEdit>> = BTreeMap::new();
    edits
        .entry(path.clone())
        .or_default()
        .push(TextEdit::replace(f.declaration, ""));
    let mut texts: BTreeMap<PathBuf, String> = BTreeMap::from([(path.clone(), text.clone())]);
    let mut calls = 0;
    for r in &refs {
        if !texts.contains_key(&r.path) {
            let t = std::fs::read_to_string(&r.path)
                .map_err(|e| Error::unknown(format!("{} cannot be read: {e}", r.path.display())))?;
            texts.insert(r.path.clone(), t);
        }
        let t = &texts[&r.path];
        let Ok(o) = LineIndex::new(t).offset_utf16(LineCol {
            line: r.range.start.line,
            col: r.range.start.character,
        }) else {
            continue;
        };
        if r.path == path && o == f.name_at {
            continue;
        }
        let d = Dialect::of_path(&r.path).unwrap_or(dialect);
        let where_ = format!(
            "{}:{}",
            crate::code::display_path(root, &r.path),
            r.range.start.line + 1
        );
        let edit = resolve_pr_code::ts_inline::inline_use(d, t, o, &f)
            .map_err(|why| refused(format!("{where_}: {why}")))?;
        if edit.new_text.is_empty() {
            // An import taken out: no call.
        } else {
            calls += 1;
        }
        edits.entry(r.path.clone()).or_default().push(edit);
    }
    if calls == 0 {
        return Err(refused(format!("{} is never called", f.name)));
    }
    let changes = edits
        .into_iter()
        .map(|(p, edits)| FileChange::Edit {
            path: p.strip_prefix(root).map(|r| r.to_owned()).unwrap_or(p),
            edits,
        })
        .collect();
    Ok((
        WorkspaceChange { changes },
        resolve_pr_edit::PlanMeta {
            plan_type: "InlinePlan".into(),
            kind: "inline.function".into(),
            language: Some("typescript".into()),
            warnings: vec![resolve_pr_edit::Warning {
                code: "PERFORMED_BY".into(),
                message: format!(
                    "resolve-pr's syntax tree: {} inlined into {calls} call(s), its declaration removed (tsserver has no inline function)",
                    f.name
                ),
            }],
        },
    ))
}
