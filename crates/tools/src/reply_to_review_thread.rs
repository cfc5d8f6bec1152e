//! `reply_to_review_thread`: posts a reply at the end of a review thread, named by its
//! thread id or by the id of one of its comments. The thread is looked up on the PR first, so
//! a thread of another pull request is refused before anything is written.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::find_unresolved_comments::{Comment, review_comment};
use crate::registry::{Annotations, Tool};
use crate::shared::{find_thread, first_line, pr_from_ref, thread_selector};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    #[schemars(example = &"owner/repo#123")]
    pub pr: String,
    /// From find_unresolved_comments. Give this or comment_id.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// The id of any comment in the thread. Give this or thread_id.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub comment_id: Option<i64>,
    /// Markdown, not empty.
    pub body: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// Normalized: "owner/repo#123".
    pub pr: String,
    pub thread_id: String,
    /// As the forge stored it.
    #[schemars(transform = reply_schema)]
    pub comment: Comment,
}

/// A reply is a new review comment: it carries neither a review's state nor the commands
/// that find_unresolved_comments puts on a thread's first comment, is not minimized and is on
/// the current diff, so the schema leaves those fields out instead of describing them to
/// every agent.
fn reply_schema(schema: &mut schemars::Schema) {
    if let Some(serde_json::Value::Object(properties)) = schema.get_mut("properties") {
        for never in [
            "action_commands",
            "review_state",
            "is_minimized",
            "minimized_reason",
            "line_is_original",
        ] {
            properties.remove(never);
        }
    }
}

pub struct ReplyToReviewThread;

impl Tool for ReplyToReviewThread {
    const NAME: &'static str = "reply_to_review_thread";
    const TITLE: &'static str = "Reply in a review thread";
    const DESCRIPTION: &'static str = "Reply at the end of a review thread of a pull request \
(GitHub, GitHub Enterprise, Gitea 1.27+). It does not resolve the thread: call \
resolve_review_thread once the fix is verified, and never reply just to mark a thread done. \
Nothing is written unless the thread belongs to this pull request.";
    const TOOLSET: crate::Toolset = crate::Toolset::Reviews;
    const ANNOTATIONS: Annotations = Annotations {
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: true,
    };
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let mut problems = Vec::new();
        let selector = thread_selector(input.thread_id.as_deref(), input.comment_id, &mut problems);
        if input.body.trim().is_empty() {
            problems.push("body must not be empty or only whitespace".to_owned());
        }
        let pr = pr_from_ref(&input.pr, problems)?;
        let Some(selector) = selector else {
            // pr_from_ref reported the selector's problem; this is only for the type checker.
            return Err(resolve_pr_core::Error::user("give thread_id or comment_id"));
        };
        let forge = ctx.forge(&pr.repo)?;
        // Looking the thread up on this PR first means a thread id of another PR writes nothing.
        let thread = find_thread(forge.as_ref(), &pr, &selector).await?;
        let posted = forge
            .threads()
            .reply_to_review_thread(&pr, &thread.id, &input.body)
            .await?;
        Ok(Output {
            pr: pr.to_string(),
            thread_id: thread.id.clone(),
            comment: review_comment(&thread, &posted),
        })
    }

    fn render(out: &Output) -> String {
        format!(
            "Replied in review thread {} on {}. Comment ID: {}, Created: {}\n{}\nReply: {}",
            out.thread_id,
            out.pr,
            out.comment.id,
            out.comment.created_at,
            out.comment.html_url,
            first_line(&out.comment.body, 200)
        )
    }
}
