//! `notify_file_opened`: a file was opened: the running servers that hold it get didOpen with its text on disk (didChange when
//! already open with other text). Changes no file.

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::code::notify::{Event, NotifyInput, NotifyOutput, notify, render_notify};
use crate::registry::Tool;

pub struct NotifyFileOpened;

impl Tool for NotifyFileOpened {
    const NAME: &'static str = "notify_file_opened";
    const TITLE: &'static str = "Notify file opened";
    const DESCRIPTION: &'static str = "Tells the running language servers that hold a file it was opened (didOpen with its text on disk); start: true starts its server if none runs.";
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
            Event::Opened,
            input.start.unwrap_or(false),
        )
        .await
    }

    fn render(output: &NotifyOutput) -> String {
        render_notify(output)
    }
}
