//! `find_references`: Every reference to the symbol at a position (or named), by the language server, 50 a page; in Rust, calls inside macros the server misses are added from a syntax scan, marked source: text.

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::code::{
    Goto, LocationsOutput, Reference, locate, render_locations_output, target_input,
};
use crate::registry::Tool;

target_input! {
    pub struct Input {
        #[serde(default)]
        pub cursor: Option<String>,
        /// Count the declaration itself. Default: true.
        #[serde(default)]
        pub include_declaration: Option<bool>,
    }
}

pub struct FindReferences;

impl Tool for FindReferences {
    const NAME: &'static str = "find_references";
    const TITLE: &'static str = "Find references";
    const DESCRIPTION: &'static str = "Every reference to the symbol at a position (or named), by the language server, 50 a page; in Rust, calls inside macros the server misses are added from a syntax scan, marked source: text.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = LocationsOutput<Reference>;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<LocationsOutput<Reference>> {
        locate(
            ctx,
            Self::NAME,
            &input.target(),
            input.cursor.as_deref(),
            raw,
            Goto::References {
                include_declaration: input.include_declaration.unwrap_or(true),
            },
        )
        .await
    }

    fn render(output: &LocationsOutput<Reference>) -> String {
        render_locations_output("References", output)
    }

    fn shown(output: &LocationsOutput<Reference>) -> Option<(usize, Option<usize>)> {
        Some((output.locations.len(), Some(output.total)))
    }
}
