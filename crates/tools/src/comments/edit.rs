//! Editing a comment: checking, before anything is written, that the comment is on the issue
//! or pull request named, that the token's account wrote it, and that the body changes; then
//! the one edit.

use resolve_pr_core::{Error, PrRef, Result};
use resolve_pr_forge::{IssueComment, not_an_issue};

use super::On;
use crate::Context;
use crate::checkout::pr_target;

/// The edit tools' arguments.
pub(crate) struct EditRequest<'a> {
    pub repository: Option<&'a str>,
    pub directory: Option<&'a str>,
    pub number: i64,
    pub number_field: &'a str,
    pub comment_id: i64,
    pub body: &'a str,
}

/// The comment after the call, and whether it was left as it was (its body already the one
/// asked for).
pub(crate) struct Edited {
    pub target: PrRef,
    pub comment: IssueComment,
    pub unchanged: bool,
}

/// Checks every argument, then reads the comment, the issue or pull request and who the token
/// is (concurrently; the account once per client), and writes only when all agree.
pub(crate) async fn edit(ctx: &Context, on: On, request: EditRequest<'_>) -> Result<Edited> {
    let mut problems = Vec::new();
    if request.comment_id <= 0 {
        problems.push(format!(
            "comment_id must be positive (got {})",
            request.comment_id
        ));
    }
    if request.body.trim().is_empty() {
        problems.push("body must not be empty or only whitespace".to_owned());
    }
    let target = pr_target(
        ctx,
        request.repository,
        request.directory,
        request.number,
        request.number_field,
        problems,
    )
    .await?;
    let id = request.comment_id as u64;
    let shown = on.shown(&target);
    let forge = ctx.forge(&target.repo)?;
    let issues = forge.issues();
    let conversation = async {
        match on {
            On::Issue => {
                let issue = issues.issue(&target).await?;
                if issue.is_pull_request {
                    return Err(not_an_issue(&target));
                }
                Ok(())
            }
            // "Not found" for an issue's number.
            On::PullRequest => forge
                .pull_requests()
                .pull_request(&target)
                .await
                .map(|_| ()),
        }
    };
    let (found, viewer, ()) = tokio::try_join!(
        issues.comment(&target.repo, id),
        issues.viewer(),
        conversation
    )?;
    if found.number != target.number {
        let what = on.noun();
        return Err(Error::user(format!(
            "comment {id} is on #{} of {}, not on {what} {shown}",
            found.number,
            target.repo.full_name()
        ))
        .with_detail("comment_id", id)
        .with_detail("number", found.number)
        .with_suggestion(format!(
            "Pass the number the comment is on ({n}) — to issue_comment_edit if #{n} is an \
             issue, to pr_comment_edit if it is a pull request — or the id of a comment on \
             {shown}. Both edit conversation comments only (not review comments on code lines).",
            n = found.number
        )));
    }
    let author = &found.comment.author.login;
    if !author.eq_ignore_ascii_case(&viewer.login) {
        return Err(Error::user(format!(
            "comment {id} on {shown} was written by {author}, not by {}: only your own \
             comments can be edited",
            viewer.login
        ))
        .with_detail("comment_id", id)
        .with_detail("author", author.clone())
        .with_detail("viewer", viewer.login.clone())
        .with_suggestion(
            "Reply with a new comment instead (issue_comment_create or pr_comment_create).",
        ));
    }
    if found.comment.body == request.body {
        return Ok(Edited {
            target,
            comment: found.comment,
            unchanged: true,
        });
    }
    let edited = issues.edit_comment(&target.repo, id, request.body).await?;
    Ok(Edited {
        target,
        comment: edited.comment,
        unchanged: false,
    })
}
