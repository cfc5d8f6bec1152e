//! `notify_file_saved`: a file was written outside the edit layer: the running servers that hold it get its new text
//! (didChange when open), didSave where they asked for saves, and a watched-files change. Changes no file.

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::code::notify::{Event, NotifyInput, NotifyOutput, notify, render_notify};
use crate::registry::Tool;

pub struct NotifyFileSaved;

impl Tool for NotifyFileSaved {
    const NAME: &'static str = "notify_file_saved";
    const TITLE: &'static str = "Notify file saved";
    const DESCRIPTION: &'static str = "Tells the running language servers that hold a file it changed on disk (written outside the edit layer): its new text, didSave, a watched-files change.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    // Changes the servers' state only, never a file.
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = NotifyInput;
    type Output = NotifyOutput;

    async fn run(ctx: &Context, input: NotifyInput, _raw: &Value) -> Result<NotifyOutput> {
        notify(
            ctx,
            input.directory.as_deref(),
            &input.file_path,
            Event::Saved,
            input.start.unwrap_or(false),
        )
        .await
    }

    fn render(output: &NotifyOutput) -> String {
        render_notify(output)
    }
}
