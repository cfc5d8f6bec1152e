//! The `curl` commands agents run against Forgejo and Gitea: REST routes under the instance's
//! API URL, with the token read from an environment variable when the command runs. No
//! command-line client reads their job logs.

use resolve_pr_core::{PrRef, RepoRef, ShellCommand};

use super::Forgejo;
use crate::commands::browser;
use crate::{
    ActionsJobRef, CommandRecipes, Forge, ForgeKind, ReviewComment, ReviewThread,
    ThreadCapabilities,
};

impl Forgejo {
    /// The environment variable the shell expands to the token; the token itself never
    /// appears in a command. The name goes into a fixed `sh -c` script, so only a plain
    /// variable name from the config is used; anything else falls back to the documented one.
    fn token_env(&self) -> &str {
        let default_env = match self.endpoint.configured_kind {
            ForgeKind::Gitea => "GITEA_TOKEN",
            _ => "FORGEJO_TOKEN",
        };
        self.endpoint
            .token_env
            .as_deref()
            .filter(|name| is_env_name(name))
            .unwrap_or(default_env)
    }

    fn command_repo_url(&self, pr: &PrRef) -> String {
        format!("{}/repos/{}", self.endpoint.api_url, pr.repo.full_name())
    }

    fn pull_url(&self, pr: &PrRef) -> String {
        format!("{}/pulls/{}", self.command_repo_url(pr), pr.number)
    }

    fn issue_comments_url(&self, pr: &PrRef) -> String {
        format!(
            "{}/issues/{}/comments",
            self.command_repo_url(pr),
            pr.number
        )
    }

    /// Gitea 1.27 (go-gitea/gitea#36683); Forgejo has no such endpoint.
    fn thread_reply_url(&self, pr: &PrRef, root: &ReviewComment) -> String {
        format!("{}/comments/{}/replies", self.pull_url(pr), root.id)
    }

    /// `curl` with the token header, through a fixed `sh -c` script so that the shell expands
    /// `$TOKEN_ENV` at run time: ShellCommand quotes every argument, which would otherwise send
    /// the variable's name instead of its value. Only constant text is in the script; URLs and
    /// ids travel as positional arguments.
    fn curl<I, S>(&self, args: I, url: &str) -> ShellCommand
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let script = format!(
            "curl -sS --fail-with-body -H \"Authorization: token ${}\" \"$@\"",
            self.token_env()
        );
        ShellCommand::new("sh")
            .arg("-c")
            .arg(script)
            .arg("curl")
            .args(args)
            .arg(url)
    }

    /// POST with the JSON body from standard input.
    fn curl_post_json(&self, url: &str) -> ShellCommand {
        self.curl(
            [
                "-X",
                "POST",
                "-H",
                "Content-Type: application/json",
                "--data-binary",
                "@-",
            ],
            url,
        )
    }
}

/// The instance's probed `capabilities` decide: the API has no per-thread permission flags,
/// and a thread listed while the probe was still running carries `false` for both.
impl CommandRecipes for Forgejo {
    fn reply_in_thread(
        &self,
        pr: &PrRef,
        thread: &ReviewThread,
        capabilities: &ThreadCapabilities,
    ) -> Option<ShellCommand> {
        let root = thread.comments.first().filter(|_| capabilities.can_reply)?;
        Some(self.curl_post_json(&self.thread_reply_url(pr, root)))
    }

    fn reply_in_conversation(&self, pr: &PrRef) -> ShellCommand {
        self.curl_post_json(&self.issue_comments_url(pr))
    }

    fn resolve_thread(
        &self,
        pr: &PrRef,
        thread: &ReviewThread,
        capabilities: &ThreadCapabilities,
    ) -> Result<ShellCommand, String> {
        match thread.comments.first() {
            Some(root) if capabilities.can_resolve => {
                // Gitea 1.26 (go-gitea/gitea#36441) resolves by the conversation's first
                // comment, without the pull request number in the path.
                let url = format!(
                    "{}/pulls/comments/{}/resolve",
                    self.command_repo_url(pr),
                    root.id
                );
                Ok(self.curl(["-X", "POST"], &url))
            }
            root => Err(format!(
                "This {} instance has no API to resolve review threads (see `limitations`); \
                 after the fix is verified, resolve it in the web page ({})",
                self.kind(),
                root.map_or("", |c| c.html_url.as_str())
            )),
        }
    }

    fn view_thread(&self, _pr: &PrRef, thread: &ReviewThread) -> ShellCommand {
        browser(thread.comments.first().map_or("", |c| c.html_url.as_str()))
    }

    fn view_conversation_item(&self, _pr: &PrRef, html_url: &str) -> ShellCommand {
        browser(html_url)
    }

    fn job_log(&self, _repo: &RepoRef, _job: &ActionsJobRef) -> Option<ShellCommand> {
        None
    }

    /// `curl -X PATCH … --data-binary '{"base":"BRANCH"}' URL`: the JSON is built here (so
    /// quotes in the name are escaped) and starts with `{`, so curl never reads it as `@file`.
    fn set_base(&self, pr: &PrRef, base: &str) -> ShellCommand {
        let body = serde_json::json!({ "base": base }).to_string();
        self.curl(
            [
                "-X",
                "PATCH",
                "-H",
                "Content-Type: application/json",
                "--data-binary",
                body.as_str(),
            ],
            &self.pull_url(pr),
        )
    }

    /// `POST /repos/O/R/pulls/N/update` (a merge of the base into the head).
    fn update_branch(&self, pr: &PrRef) -> ShellCommand {
        self.curl(["-X", "POST"], &format!("{}/update", self.pull_url(pr)))
    }

    fn mark_ready(&self, _pr: &PrRef) -> Option<ShellCommand> {
        None
    }

    /// `GET /repos/O/R/pulls/N.diff`.
    fn view_diff(&self, pr: &PrRef) -> ShellCommand {
        self.curl(Vec::<String>::new(), &format!("{}.diff", self.pull_url(pr)))
    }

    /// `POST /repos/O/R/pulls/N/requested_reviewers` with `{"reviewers": [...]}`.
    fn request_reviewers(&self, pr: &PrRef, reviewers: &[String]) -> ShellCommand {
        let names: Vec<&str> = reviewers
            .iter()
            .map(|r| r.trim_start_matches('@'))
            .collect();
        let body = serde_json::json!({ "reviewers": names }).to_string();
        self.curl(
            [
                "-X",
                "POST",
                "-H",
                "Content-Type: application/json",
                "--data-binary",
                body.as_str(),
            ],
            &format!("{}/requested_reviewers", self.pull_url(pr)),
        )
    }
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names() {
        assert!(is_env_name("FORGEJO_TOKEN"));
        assert!(is_env_name("_x1"));
        assert!(!is_env_name("1X"));
        assert!(!is_env_name("A B"));
        assert!(!is_env_name("A$(x)"));
        assert!(!is_env_name(""));
    }
}
