//! `rename_symbol_with_imports` (seed 002's internal name): `rename` of a symbol, with the
//! imports that name it; the same plan type, so a plan applies by either tool.

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::code::target_input;
use crate::refactor::{RefactorOutput, WRITES_LOCAL, render};
use crate::registry::Tool;
use crate::rename::{Input as RenameInput, RenameKind};

target_input! {
    pub struct Input {
        #[serde(default)]
        pub new_name: Option<String>,
        /// Plan only; write nothing.
        #[serde(default = "crate::refactor::yes")]
        pub dry_run: bool,
        /// With dry_run: false, the plan to apply exactly.
        #[serde(default)]
        pub plan_id: Option<String>,
        /// Apply without verification. Default: false.
        #[serde(default)]
        pub force: bool,
    }
}

pub struct RenameSymbolWithImports;

impl Tool for RenameSymbolWithImports {
    const NAME: &'static str = "rename_symbol_with_imports";
    const TITLE: &'static str = "Rename a symbol and its imports";
    const DESCRIPTION: &'static str = "rename of a symbol (its uses and the imports naming it, by the language server) as a RenamePlan: a plan applies by either tool.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = WRITES_LOCAL;
    const WRITES_ONLY_WHEN_ASKED: bool = true;
    type Input = Input;
    type Output = RefactorOutput;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<RefactorOutput> {
        let target = input.target();
        let owned = |s: Option<&str>| s.map(str::to_owned);
        let rename = RenameInput {
            directory: owned(target.directory),
            file_path: owned(target.file_path),
            position: target.position,
            symbol: owned(target.symbol),
            symbol_kind: owned(target.symbol_kind),
            language: owned(target.language),
            from_failure: owned(target.from_failure),
            kind: RenameKind::Symbol,
            new_name: input.new_name.clone(),
            dry_run: input.dry_run,
            plan_id: input.plan_id.clone(),
            force: input.force,
        };
        crate::rename::run_as(ctx, Self::NAME, rename).await
    }

    fn render(output: &RefactorOutput) -> String {
        render(Self::NAME, output)
    }
}
