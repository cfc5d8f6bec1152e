//! `notify_file_closed`: a file was closed: the running servers that have it open get didClose. Changes no file.

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::code::notify::{CloseInput, Event, NotifyOutput, notify, render_notify};
use crate::registry::Tool;

pub struct NotifyFileClosed;

impl Tool for NotifyFileClosed {
    const NAME: &'static str = "notify_file_closed";
    const TITLE: &'static str = "Notify file closed";
    const DESCRIPTION: &'static str =
        "Tells the running language servers that have a file open that it was closed (didClose).";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    // Changes the servers' state only, never a file.
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = CloseInput;
    type Output = NotifyOutput;

    async fn run(ctx: &Context, input: CloseInput, _raw: &Value) -> Result<NotifyOutput> {
        notify(
            ctx,
            input.directory.as_deref(),
            &input.file_path,
            Event::Closed,
            false,
        )
        .await
    }

    fn render(output: &NotifyOutput) -> String {
        render_notify(output)
    }
}
