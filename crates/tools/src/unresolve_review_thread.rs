//! `unresolve_review_thread`: reopens a resolved review thread of a pull request, the mirror
//! of `resolve_review_thread` (same input, output and checks). Idempotent.

use resolve_pr_core::Result;
use serde_json::Value;

use crate::Context;
use crate::registry::{Annotations, Tool};
use crate::resolve_review_thread::{ANNOTATIONS, Input, Output, render, set_resolved};

pub struct UnresolveReviewThread;

impl Tool for UnresolveReviewThread {
    const NAME: &'static str = "unresolve_review_thread";
    const TITLE: &'static str = "Unresolve a review thread";
    const DESCRIPTION: &'static str = "Reopen (unresolve) a resolved review thread of a pull \
request (GitHub, GitHub Enterprise, Gitea and Forgejo instances that offer it), e.g. when a fix \
turned out incomplete. Arguments: pr ('owner/repo#123', 'host/owner/repo#123' or a PR URL), \
thread_id OR comment_id (the numeric id of any comment in the thread). Returns was_resolved and \
is_resolved (before and after) and changed; a thread that is not resolved is a success with \
changed: false. A thread of another pull request is a 'user' error; a forge without the endpoint \
is a 'logical' error.";
    const TOOLSET: &'static str = "reviews";
    const ANNOTATIONS: Annotations = ANNOTATIONS;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        set_resolved(ctx, input, false).await
    }

    fn render(out: &Output) -> String {
        render(out)
    }
}
