//! `find_definition`: Where the symbol at a position (or named, or the function holding a failure's line) is defined, by the language server: file, range and the line, 50 a page.

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::code::{Goto, LocationsOutput, locate, render_locations_output, target_input};
use crate::registry::Tool;

target_input! {
    pub struct Input {
        #[serde(default)]
        pub cursor: Option<String>,
    }
}

pub struct FindDefinition;

impl Tool for FindDefinition {
    const NAME: &'static str = "find_definition";
    const TITLE: &'static str = "Find a definition";
    const DESCRIPTION: &'static str = "Where the symbol at a position (or named, or the function holding a failure's line) is defined, by the language server: file, range and the line, 50 a page.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = LocationsOutput;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<LocationsOutput> {
        locate(
            ctx,
            Self::NAME,
            &input.target(),
            input.cursor.as_deref(),
            raw,
            Goto::Definition,
        )
        .await
        .map(|o| o.plain())
    }

    fn render(output: &LocationsOutput) -> String {
        render_locations_output("Definitions", output)
    }

    fn shown(output: &LocationsOutput) -> Option<(usize, Option<usize>)> {
        Some((output.locations.len(), Some(output.total)))
    }
}
