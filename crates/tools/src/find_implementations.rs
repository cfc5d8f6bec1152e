//! `find_implementations`: The implementations of an interface, trait, abstract method or protocol at a position (or named), by the language server, 50 a page.

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

pub struct FindImplementations;

impl Tool for FindImplementations {
    const NAME: &'static str = "find_implementations";
    const TITLE: &'static str = "Find implementations";
    const DESCRIPTION: &'static str = "The implementations of an interface, trait, abstract method or protocol at a position (or named), by the language server, 50 a page.";
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
            Goto::Implementations,
        )
        .await
        .map(|o| o.plain())
    }

    fn render(output: &LocationsOutput) -> String {
        render_locations_output("Implementations", output)
    }

    fn shown(output: &LocationsOutput) -> Option<(usize, Option<usize>)> {
        Some((output.locations.len(), Some(output.total)))
    }
}
