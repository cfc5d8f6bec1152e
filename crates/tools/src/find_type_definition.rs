//! `find_type_definition`: Where the type of the symbol at a position (or named) is defined, by the language server: for a variable, its type's declaration.

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

pub struct FindTypeDefinition;

impl Tool for FindTypeDefinition {
    const NAME: &'static str = "find_type_definition";
    const TITLE: &'static str = "Find a type definition";
    const DESCRIPTION: &'static str = "Where the type of the symbol at a position (or named) is defined, by the language server: for a variable, its type's declaration.";
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
            Goto::TypeDefinition,
        )
        .await
        .map(|o| o.plain())
    }

    fn render(output: &LocationsOutput) -> String {
        render_locations_output("Type definitions", output)
    }

    fn shown(output: &LocationsOutput) -> Option<(usize, Option<usize>)> {
        Some((output.locations.len(), Some(output.total)))
    }
}
