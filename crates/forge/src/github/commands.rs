//! The `gh` commands agents run against GitHub (github.com, or Enterprise with `--hostname`):
//! REST routes through `gh api`, the resolve mutation through `gh api graphql`, `gh pr view`
//! and `gh run view --log-failed`. `gh` finds the token itself.

use resolve_pr_core::{PrRef, RepoRef, ShellCommand};

use super::{GitHub, queries};
use crate::{ActionsJobRef, CommandRecipes, ReviewComment, ReviewThread, ThreadCapabilities};

impl GitHub {
    /// `--hostname` for `gh api` and the `HOST/` prefix of `--repo`, on Enterprise only.
    fn enterprise_host(&self) -> Option<&str> {
        let host = self.endpoint.web_host.as_str();
        (host != "github.com").then_some(host)
    }

    fn gh_api(&self) -> ShellCommand {
        let cmd = ShellCommand::new("gh").arg("api");
        match self.enterprise_host() {
            Some(host) => cmd.arg("--hostname").arg(host),
            None => cmd,
        }
    }

    /// `gh api --method M PATH --input -`: the JSON body comes from standard input.
    fn gh_api_input(&self, method: &str, path: &str) -> ShellCommand {
        self.gh_api()
            .args(["--method", method, path, "--input", "-"])
    }

    /// `--repo` as gh wants it: `OWNER/REPO`, or `HOST/OWNER/REPO` on Enterprise.
    fn gh_repo(&self, repo: &RepoRef) -> String {
        match self.enterprise_host() {
            Some(host) => format!("{host}/{}", repo.full_name()),
            None => repo.full_name(),
        }
    }

    fn pr_view(&self, pr: &PrRef) -> ShellCommand {
        ShellCommand::new("gh").args([
            "pr".to_owned(),
            "view".to_owned(),
            pr.number.to_string(),
            "--repo".to_owned(),
            self.gh_repo(&pr.repo),
            "--web".to_owned(),
        ])
    }
}

fn thread_reply_path(pr: &PrRef, root: &ReviewComment) -> String {
    format!(
        "repos/{}/pulls/{}/comments/{}/replies",
        pr.repo.full_name(),
        pr.number,
        root.id
    )
}

fn issue_comments_path(pr: &PrRef) -> String {
    format!(
        "repos/{}/issues/{}/comments",
        pr.repo.full_name(),
        pr.number
    )
}

/// Every GitHub has both thread mutations, so `capabilities` say nothing here; whether this
/// token may use them is each thread's `viewer_can_reply` / `viewer_can_resolve`.
impl CommandRecipes for GitHub {
    fn reply_in_thread(
        &self,
        pr: &PrRef,
        thread: &ReviewThread,
        _capabilities: &ThreadCapabilities,
    ) -> Option<ShellCommand> {
        // A token GitHub does not let reply in the thread (viewerCanReply false, e.g. a
        // locked conversation) gets the conversation instead of a command that fails.
        let root = thread
            .comments
            .first()
            .filter(|_| thread.viewer_can_reply)?;
        Some(self.gh_api_input("POST", &thread_reply_path(pr, root)))
    }

    fn reply_in_conversation(&self, pr: &PrRef) -> ShellCommand {
        self.gh_api_input("POST", &issue_comments_path(pr))
    }

    fn resolve_thread(
        &self,
        _pr: &PrRef,
        thread: &ReviewThread,
        _capabilities: &ThreadCapabilities,
    ) -> Result<ShellCommand, String> {
        if !thread.viewer_can_resolve {
            return Err("GitHub reports that this token cannot resolve this thread \
                        (viewerCanResolve is false); after the fix is verified, ask someone \
                        with write access to resolve it"
                .to_owned());
        }
        // The thread id is a variable (`-f id=…`), never spliced into the document.
        Ok(self
            .gh_api()
            .args(["graphql", "-f"])
            .arg(format!("query={}", queries::RESOLVE_REVIEW_THREAD_COMMAND))
            .arg("-f")
            .arg(format!("id={}", thread.id)))
    }

    fn view_thread(&self, pr: &PrRef, _thread: &ReviewThread) -> ShellCommand {
        self.pr_view(pr)
    }

    fn view_conversation_item(&self, pr: &PrRef, _html_url: &str) -> ShellCommand {
        self.pr_view(pr)
    }

    /// `gh api --method PATCH repos/O/R/pulls/N -f base=BRANCH`: `-f` sends the value as a
    /// string, whatever it starts with (`-F` would read `@file`).
    fn set_base(&self, pr: &PrRef, base: &str) -> ShellCommand {
        self.gh_api()
            .args(["--method", "PATCH"])
            .arg(format!("repos/{}/pulls/{}", pr.repo.full_name(), pr.number))
            .arg("-f")
            .arg(format!("base={base}"))
    }

    /// `gh api --method PUT repos/O/R/pulls/N/update-branch`.
    fn update_branch(&self, pr: &PrRef) -> ShellCommand {
        self.gh_api().args(["--method", "PUT"]).arg(format!(
            "repos/{}/pulls/{}/update-branch",
            pr.repo.full_name(),
            pr.number
        ))
    }

    /// `gh pr ready N --repo [HOST/]OWNER/REPO`.
    fn mark_ready(&self, pr: &PrRef) -> Option<ShellCommand> {
        Some(
            ShellCommand::new("gh")
                .args(["pr", "ready"])
                .arg(pr.number.to_string())
                .arg("--repo")
                .arg(self.gh_repo(&pr.repo)),
        )
    }

    /// `gh pr diff N --repo [HOST/]OWNER/REPO`.
    fn view_diff(&self, pr: &PrRef) -> ShellCommand {
        ShellCommand::new("gh")
            .args(["pr", "diff"])
            .arg(pr.number.to_string())
            .arg("--repo")
            .arg(self.gh_repo(&pr.repo))
    }

    /// `gh pr edit N --repo [HOST/]OWNER/REPO --add-reviewer a,org/team`.
    fn request_reviewers(&self, pr: &PrRef, reviewers: &[String]) -> ShellCommand {
        let names: Vec<&str> = reviewers
            .iter()
            .map(|r| r.trim_start_matches('@'))
            .collect();
        ShellCommand::new("gh")
            .args(["pr", "edit"])
            .arg(pr.number.to_string())
            .arg("--repo")
            .arg(self.gh_repo(&pr.repo))
            .arg(format!("--add-reviewer={}", names.join(",")))
    }

    /// `gh run view RUN --job JOB --log-failed --repo [HOST/]OWNER/REPO`.
    fn job_log(&self, repo: &RepoRef, job: &ActionsJobRef) -> Option<ShellCommand> {
        Some(
            ShellCommand::new("gh")
                .args(["run", "view"])
                .arg(job.run_id.to_string())
                .arg("--job")
                .arg(job.job_id.to_string())
                .args(["--log-failed", "--repo"])
                .arg(self.gh_repo(repo)),
        )
    }
}
