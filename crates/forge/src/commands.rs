//! The shell commands agents run against a forge: reply to and resolve a review thread, reply
//! in the conversation, view an item, print a failed job's log, retarget a pull request. Each client knows its own
//! (`github/commands.rs`: `gh`; `forgejo/commands.rs`: `curl`), so routes, GraphQL
//! mutations and token variable names stay in this crate; the tools only assemble them.
//!
//! Every command is built by `ShellCommand` from an argument vector. Reply commands read
//! their JSON body (`{"body": "..."}`) from standard input, so reply text is never part of a
//! command line, and a token appears only as a variable the shell expands when it runs.

use resolve_pr_core::{PrRef, RepoRef, ShellCommand};

use crate::{ActionsJobRef, ReviewThread, ThreadCapabilities};

/// The commands of one forge. `capabilities` are what the instance supports for threads (see
/// `ReviewThreads::thread_capabilities`); a forge with per-thread permissions reads the
/// thread's own flags instead.
pub trait CommandRecipes: Send + Sync {
    /// Posts a reply at the end of `thread`, or None when this forge, instance or token cannot
    /// reply there (the caller then replies in the conversation).
    fn reply_in_thread(
        &self,
        pr: &PrRef,
        thread: &ReviewThread,
        capabilities: &ThreadCapabilities,
    ) -> Option<ShellCommand>;

    /// Posts a new conversation comment on the pull request.
    fn reply_in_conversation(&self, pr: &PrRef) -> ShellCommand;

    /// Resolves `thread`; when it cannot be resolved this way, why not and what to do instead
    /// (a clause the caller ends with the comment it quotes).
    fn resolve_thread(
        &self,
        pr: &PrRef,
        thread: &ReviewThread,
        capabilities: &ThreadCapabilities,
    ) -> Result<ShellCommand, String>;

    /// Opens `thread` in the browser.
    fn view_thread(&self, pr: &PrRef, thread: &ReviewThread) -> ShellCommand;

    /// Opens a review summary or conversation comment (at `html_url`) in the browser.
    fn view_conversation_item(&self, pr: &PrRef, html_url: &str) -> ShellCommand;

    /// Prints the log of an Actions job's failed steps, from the ids alone; None where no
    /// command-line client reads this forge's job logs.
    fn job_log(&self, repo: &RepoRef, job: &ActionsJobRef) -> Option<ShellCommand>;

    /// Retargets the pull request onto the branch `base` (what `PullRequests::set_base`
    /// does). The branch name is one whole argument, never read as an option or by a shell.
    fn set_base(&self, pr: &PrRef, base: &str) -> ShellCommand;

    /// Merges the base branch into the pull request's head on the forge (GitHub's "Update
    /// branch", Forgejo/Gitea's `pulls/{n}/update`): no local checkout needed.
    fn update_branch(&self, pr: &PrRef) -> ShellCommand;

    /// Marks a draft ready for review; None where the forge has no command for it
    /// (Forgejo/Gitea drafts are a `WIP:` prefix of the title, edited by hand).
    fn mark_ready(&self, pr: &PrRef) -> Option<ShellCommand>;

    /// Prints the pull request's whole diff.
    fn view_diff(&self, pr: &PrRef) -> ShellCommand;

    /// Requests reviews from these accounts (teams as `org/team` on GitHub).
    fn request_reviewers(&self, pr: &PrRef, reviewers: &[String]) -> ShellCommand;
}

/// Opens a URL in the default browser wherever Python is installed (Linux, macOS, Windows).
pub(crate) fn browser(url: &str) -> ShellCommand {
    ShellCommand::new("python3")
        .args(["-m", "webbrowser"])
        .arg(url)
}
