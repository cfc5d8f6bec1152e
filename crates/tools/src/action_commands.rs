//! The shell commands the review tools hand to agents: reply to, resolve and view a review
//! thread, a review or a conversation comment, on GitHub (`gh`) and Forgejo/Gitea (`curl`).
//! Every command is built by `ShellCommand` from an argument vector; reply text is never part
//! of a command line: reply commands read their request body from standard input.

use resolve_pr_core::{PrRef, RepoRef, Result, ShellCommand};
use resolve_pr_forge::config::Endpoint;
use resolve_pr_forge::{
    ActionsJobRef, Config, ForgeKind, ReviewComment, ReviewThread, ThreadCapabilities,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::shared::excerpt;

/// The GraphQL mutation `gh api graphql` runs to resolve a thread; `$id` is passed with
/// `-f id=…`, so the thread id is a variable, never spliced into the document.
pub const GITHUB_RESOLVE_MUTATION: &str = "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } } }";

/// How many characters of the comment `resolve_condition` quotes.
const CONDITION_EXCERPT: usize = 80;

/// Ready-to-run commands for one thread, review or conversation comment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActionCommands {
    /// Reads `{"body": "<Markdown>"}` from standard input. In a quoted heredoc (`<<'EOF'`)
    /// the shell expands nothing, so the reply needs JSON escaping only.
    pub reply_command: String,
    /// conversation: a new comment on the pull request, not in the thread.
    pub reply_target: ReplyTarget,
    /// Absent when there is nothing to resolve, or the forge or token cannot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolve_command: Option<String>,
    /// When resolve_command may run, or why there is none.
    pub resolve_condition: String,
    pub view_in_browser: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplyTarget {
    Thread,
    Conversation,
}

/// What a conversation-level item is, for the sentence explaining why it has no resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConversationItem {
    Review,
    IssueComment,
}

/// Builds the commands for one pull request on one forge.
pub struct CommandBuilder {
    pr: PrRef,
    forge: ForgeCommands,
}

enum ForgeCommands {
    GitHub {
        /// `--hostname` for `gh api` and the `HOST/` prefix of `--repo`, on Enterprise only.
        hostname: Option<String>,
    },
    Forgejo {
        kind: ForgeKind,
        api_url: String,
        /// The environment variable the shell expands to the token; the token itself never
        /// appears in a command.
        token_env: String,
        capabilities: ThreadCapabilities,
    },
}

impl CommandBuilder {
    /// `kind` is the forge family as the client detected it; `capabilities` what the instance
    /// supports for threads.
    pub fn new(
        config: &Config,
        pr: &PrRef,
        kind: ForgeKind,
        capabilities: ThreadCapabilities,
    ) -> Result<CommandBuilder> {
        let forge = match config.endpoint_for(pr.repo.host().as_deref())? {
            Endpoint::GitHub(e) => ForgeCommands::GitHub {
                hostname: (e.web_host != "github.com").then_some(e.web_host),
            },
            Endpoint::Forgejo(e) => {
                let default_env = match e.configured_kind {
                    ForgeKind::Gitea => "GITEA_TOKEN",
                    _ => "FORGEJO_TOKEN",
                };
                // The name goes into a fixed `sh -c` script, so only a plain variable name
                // from the config is used; anything else falls back to the documented one.
                let token_env = config
                    .hosts
                    .get(&e.host)
                    .and_then(|h| h.token_env.clone())
                    .filter(|name| is_env_name(name))
                    .unwrap_or_else(|| default_env.to_owned());
                ForgeCommands::Forgejo {
                    kind,
                    api_url: e.api_url,
                    token_env,
                    capabilities,
                }
            }
        };
        Ok(CommandBuilder {
            pr: pr.clone(),
            forge,
        })
    }

    /// Commands for a review thread; `thread.comments[0]` is its first comment.
    pub fn thread(&self, thread: &ReviewThread) -> Result<ActionCommands> {
        let root = thread.comments.first();
        let quoted = excerpt(root.map_or("", |c| c.body.as_str()), CONDITION_EXCERPT);
        let verified = format!(
            "Run only after the fix for this thread is verified (tests pass / code changed as \
             asked): '{quoted}'"
        );
        let view_url = root.map_or("", |c| c.html_url.as_str());
        match &self.forge {
            ForgeCommands::GitHub { .. } => {
                // A token GitHub does not let reply in the thread (viewerCanReply false, e.g.
                // a locked conversation) gets the conversation instead of a command that fails.
                let in_thread = root.filter(|_| thread.viewer_can_reply);
                let reply = match in_thread {
                    Some(root) => self.github_api("POST", &self.github_thread_reply_path(root)),
                    None => self.github_api("POST", &self.github_issue_comments_path()),
                };
                let reply_target = if in_thread.is_some() {
                    ReplyTarget::Thread
                } else {
                    ReplyTarget::Conversation
                };
                let (resolve_command, resolve_condition) = if thread.viewer_can_resolve {
                    let resolve = self
                        .github_gh_api()
                        .args(["graphql", "-f"])
                        .arg(format!("query={GITHUB_RESOLVE_MUTATION}"))
                        .arg("-f")
                        .arg(format!("id={}", thread.id));
                    (Some(resolve.render()?), verified)
                } else {
                    (
                        None,
                        format!(
                            "GitHub reports that this token cannot resolve this thread \
                             (viewerCanResolve is false); after the fix is verified, ask someone \
                             with write access to resolve it: '{quoted}'"
                        ),
                    )
                };
                Ok(ActionCommands {
                    reply_command: reply.render()?,
                    reply_target,
                    resolve_command,
                    resolve_condition,
                    view_in_browser: self.github_view().render()?,
                })
            }
            ForgeCommands::Forgejo {
                kind, capabilities, ..
            } => {
                // On Forgejo/Gitea the instance's probed capabilities decide: the API has no
                // per-thread permission flags, and a thread listed while the probe was still
                // running carries `false` for both.
                let thread_reply = match root {
                    Some(root) if capabilities.can_reply => {
                        Some(self.forgejo_thread_reply_path(root))
                    }
                    _ => None,
                };
                let (reply, reply_target) = match thread_reply {
                    Some(path) => (self.forgejo_post_json(&path), ReplyTarget::Thread),
                    None => (
                        self.forgejo_post_json(&self.forgejo_issue_comments_path()),
                        ReplyTarget::Conversation,
                    ),
                };
                let (resolve_command, resolve_condition) = match root {
                    Some(root) if capabilities.can_resolve => {
                        // Gitea 1.26 (go-gitea/gitea#36441) resolves by the conversation's
                        // first comment, without the pull request number in the path.
                        let path = format!(
                            "{}/pulls/comments/{}/resolve",
                            self.forgejo_repo_url(),
                            root.id
                        );
                        (
                            Some(self.forgejo_curl(["-X", "POST"], &path).render()?),
                            verified,
                        )
                    }
                    _ => (
                        None,
                        format!(
                            "This {kind} instance has no API to resolve review threads (see \
                             `limitations`); after the fix is verified, resolve it in the web \
                             page ({view_url}): '{quoted}'"
                        ),
                    ),
                };
                Ok(ActionCommands {
                    reply_command: reply.render()?,
                    reply_target,
                    resolve_command,
                    resolve_condition,
                    view_in_browser: browser(view_url).render()?,
                })
            }
        }
    }

    /// Commands for a review summary or a conversation comment: reply in the conversation;
    /// nothing to resolve.
    pub fn conversation(
        &self,
        item: ConversationItem,
        body: &str,
        html_url: &str,
    ) -> Result<ActionCommands> {
        let what = match item {
            ConversationItem::Review => "Review summaries",
            ConversationItem::IssueComment => "Conversation comments",
        };
        let (forge, reply, view) = match &self.forge {
            ForgeCommands::GitHub { .. } => (
                "GitHub".to_owned(),
                self.github_api("POST", &self.github_issue_comments_path()),
                self.github_view(),
            ),
            ForgeCommands::Forgejo { kind, .. } => (
                kind.to_string(),
                self.forgejo_post_json(&self.forgejo_issue_comments_path()),
                browser(html_url),
            ),
        };
        Ok(ActionCommands {
            reply_command: reply.render()?,
            reply_target: ReplyTarget::Conversation,
            resolve_command: None,
            resolve_condition: format!(
                "{what} have no resolved state on {forge}: there is nothing to resolve. Address \
                 it, then reply: '{}'",
                excerpt(body, CONDITION_EXCERPT)
            ),
            view_in_browser: view.render()?,
        })
    }

    fn github_gh_api(&self) -> ShellCommand {
        let cmd = ShellCommand::new("gh").arg("api");
        match &self.forge {
            ForgeCommands::GitHub {
                hostname: Some(host),
            } => cmd.arg("--hostname").arg(host.clone()),
            _ => cmd,
        }
    }

    /// `gh api --method M PATH --input -`: the JSON body comes from standard input.
    fn github_api(&self, method: &str, path: &str) -> ShellCommand {
        self.github_gh_api()
            .args(["--method", method, path, "--input", "-"])
    }

    fn github_repo(&self) -> String {
        match &self.forge {
            ForgeCommands::GitHub {
                hostname: Some(host),
            } => format!("{host}/{}", self.pr.repo.full_name()),
            _ => self.pr.repo.full_name(),
        }
    }

    fn github_thread_reply_path(&self, root: &ReviewComment) -> String {
        format!(
            "repos/{}/pulls/{}/comments/{}/replies",
            self.pr.repo.full_name(),
            self.pr.number,
            root.id
        )
    }

    fn github_issue_comments_path(&self) -> String {
        format!(
            "repos/{}/issues/{}/comments",
            self.pr.repo.full_name(),
            self.pr.number
        )
    }

    fn github_view(&self) -> ShellCommand {
        ShellCommand::new("gh").args([
            "pr".to_owned(),
            "view".to_owned(),
            self.pr.number.to_string(),
            "--repo".to_owned(),
            self.github_repo(),
            "--web".to_owned(),
        ])
    }

    fn forgejo_repo_url(&self) -> String {
        let api = match &self.forge {
            ForgeCommands::Forgejo { api_url, .. } => api_url.as_str(),
            ForgeCommands::GitHub { .. } => "",
        };
        format!("{api}/repos/{}", self.pr.repo.full_name())
    }

    fn forgejo_pull_path(&self) -> String {
        format!("{}/pulls/{}", self.forgejo_repo_url(), self.pr.number)
    }

    fn forgejo_issue_comments_path(&self) -> String {
        format!(
            "{}/issues/{}/comments",
            self.forgejo_repo_url(),
            self.pr.number
        )
    }

    /// Gitea 1.27 (go-gitea/gitea#36683); Forgejo has no such endpoint.
    fn forgejo_thread_reply_path(&self, root: &ReviewComment) -> String {
        format!("{}/comments/{}/replies", self.forgejo_pull_path(), root.id)
    }

    /// `curl` with the token header, through a fixed `sh -c` script so that the shell expands
    /// `$TOKEN_ENV` at run time: ShellCommand quotes every argument, which would otherwise send
    /// the variable's name instead of its value. Only constant text is in the script; URLs and
    /// ids travel as positional arguments.
    fn forgejo_curl<I, S>(&self, args: I, url: &str) -> ShellCommand
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let token_env = match &self.forge {
            ForgeCommands::Forgejo { token_env, .. } => token_env.as_str(),
            ForgeCommands::GitHub { .. } => "FORGEJO_TOKEN",
        };
        let script =
            format!("curl -sS --fail-with-body -H \"Authorization: token ${token_env}\" \"$@\"");
        ShellCommand::new("sh")
            .arg("-c")
            .arg(script)
            .arg("curl")
            .args(args)
            .arg(url)
    }

    /// POST with the JSON body from standard input.
    fn forgejo_post_json(&self, url: &str) -> ShellCommand {
        self.forgejo_curl(
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

/// Prints the log of an Actions job's failed steps on GitHub: `gh run view RUN --job JOB
/// --log-failed --repo [HOST/]OWNER/REPO`, from the ids alone. None on other forges (no
/// command-line client reads their job logs) or when the repository's forge is unknown.
pub fn github_job_log(
    config: &Config,
    kind: ForgeKind,
    repo: &RepoRef,
    job: &ActionsJobRef,
) -> Option<String> {
    if kind != ForgeKind::GitHub {
        return None;
    }
    let Ok(Endpoint::GitHub(e)) = config.endpoint_for(repo.host().as_deref()) else {
        return None;
    };
    let repo_arg = if e.web_host == "github.com" {
        repo.full_name()
    } else {
        format!("{}/{}", e.web_host, repo.full_name())
    };
    ShellCommand::new("gh")
        .args(["run", "view"])
        .arg(job.run_id.to_string())
        .arg("--job")
        .arg(job.job_id.to_string())
        .args(["--log-failed", "--repo"])
        .arg(repo_arg)
        .render()
        .ok()
}

/// Opens a URL in the default browser wherever Python is installed (Linux, macOS, Windows).
fn browser(url: &str) -> ShellCommand {
    ShellCommand::new("python3")
        .args(["-m", "webbrowser"])
        .arg(url)
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
    use resolve_pr_forge::Actor;
    use std::collections::HashMap;
    use std::io::Write;
    use std::process::{Command, Stdio};

    fn config(vars: &[(&str, &str)]) -> Config {
        let env: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_parts(None, None, &|k| env.get(k).cloned()).unwrap()
    }

    fn caps(can: bool) -> ThreadCapabilities {
        ThreadCapabilities {
            can_reply: can,
            can_resolve: can,
            missing: (!can).then(|| "needs Gitea 1.26".to_owned()),
        }
    }

    /// A thread whose ids and text are hostile to shells.
    fn thread() -> ReviewThread {
        ReviewThread {
            id: "PRRT_a'b $(touch /tmp/x)".into(),
            is_resolved: false,
            is_outdated: false,
            path: Some("src/a b.rs".into()),
            line: Some(3),
            start_line: None,
            original_line: Some(3),
            original_start_line: None,
            diff_side: Some("RIGHT".into()),
            subject_type: Some("LINE".into()),
            viewer_can_resolve: true,
            viewer_can_reply: true,
            resolved_by: None,
            comments: vec![ReviewComment {
                id: 123,
                node_id: None,
                author: Actor {
                    login: "rev".into(),
                    is_bot: false,
                },
                author_association: None,
                body: "It's   `unsafe`;\n$(rm -rf ~) and a very long tail that goes on and on past eighty characters".into(),
                created_at: "2024-01-01T00:00:00Z".into(),
                updated_at: "2024-01-01T00:00:00Z".into(),
                html_url: "https://example.com/c/123".into(),
                diff_hunk: None,
                commit_id: None,
                in_reply_to_id: None,
                reactions: None,
                minimized: None,
            }],
        }
    }

    fn words(line: &str) -> Vec<String> {
        shlex::split(line).expect("a POSIX command line")
    }

    /// Runs `line` in bash with `gh`, `curl`, `sh` and `python3` replaced by a function that
    /// prints its arguments and its standard input, NUL-separated.
    fn through_bash(line: &str, stdin: &str) -> Vec<String> {
        let script = format!(
            "show() {{ printf '%s\\0' \"$@\"; cat; }}\n\
             gh() {{ show gh \"$@\"; }}\nsh() {{ show sh \"$@\"; }}\n\
             python3() {{ show python3 \"$@\"; }}\n{line}\n"
        );
        let mut child = Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &script])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{line}");
        let mut parts: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .split('\0')
            .map(str::to_owned)
            .collect();
        let rest = parts.pop().unwrap_or_default();
        parts.push(rest);
        parts
    }

    #[test]
    fn github_thread_commands() {
        let pr = PrRef::parse("acme/widgets#7").unwrap();
        let b = CommandBuilder::new(&config(&[]), &pr, ForgeKind::GitHub, caps(true)).unwrap();
        let c = b.thread(&thread()).unwrap();
        assert_eq!(
            words(&c.reply_command),
            [
                "gh",
                "api",
                "--method",
                "POST",
                "repos/acme/widgets/pulls/7/comments/123/replies",
                "--input",
                "-"
            ]
        );
        assert_eq!(c.reply_target, ReplyTarget::Thread);
        let resolve = c.resolve_command.clone().unwrap();
        assert_eq!(
            words(&resolve),
            [
                "gh",
                "api",
                "graphql",
                "-f",
                &format!("query={GITHUB_RESOLVE_MUTATION}"),
                "-f",
                "id=PRRT_a'b $(touch /tmp/x)"
            ]
        );
        assert_eq!(
            c.resolve_condition,
            "Run only after the fix for this thread is verified (tests pass / code changed as \
             asked): 'It's `unsafe`; $(rm -rf ~) and a very long tail that goes on and on past \
             eighty…'"
        );
        assert_eq!(
            words(&c.view_in_browser),
            ["gh", "pr", "view", "7", "--repo", "acme/widgets", "--web"]
        );
        // A real bash passes every argument through unchanged, and the reply on stdin.
        let body = "{\"body\": \"it's $(done)\"}\n";
        let mut want = words(&c.reply_command);
        want.push(body.to_owned());
        assert_eq!(
            through_bash(&format!("{} <<'EOF'\n{body}EOF", c.reply_command), ""),
            want
        );
        let mut want = words(&resolve);
        want.push(String::new());
        assert_eq!(through_bash(&resolve, ""), want);
    }

    #[test]
    fn github_enterprise_names_the_host() {
        let cfg = config(&[("GITHUB_API_URL", "https://ghe.example.com/api/v3")]);
        let pr = PrRef::parse("https://ghe.example.com/acme/widgets/pull/7").unwrap();
        let b = CommandBuilder::new(&cfg, &pr, ForgeKind::GitHub, caps(true)).unwrap();
        let c = b.thread(&thread()).unwrap();
        assert_eq!(
            &words(&c.reply_command)[..4],
            ["gh", "api", "--hostname", "ghe.example.com"]
        );
        assert_eq!(
            &words(c.resolve_command.as_deref().unwrap())[..5],
            ["gh", "api", "--hostname", "ghe.example.com", "graphql"]
        );
        assert_eq!(
            words(&c.view_in_browser),
            [
                "gh",
                "pr",
                "view",
                "7",
                "--repo",
                "ghe.example.com/acme/widgets",
                "--web"
            ]
        );
    }

    #[test]
    fn github_reply_goes_to_the_conversation_when_the_thread_refuses_replies() {
        let mut t = thread();
        t.viewer_can_reply = false;
        let pr = PrRef::parse("acme/widgets#7").unwrap();
        let b = CommandBuilder::new(&config(&[]), &pr, ForgeKind::GitHub, caps(true)).unwrap();
        let commands = b.thread(&t).expect("commands");
        assert_eq!(commands.reply_target, ReplyTarget::Conversation);
        assert!(
            commands.reply_command.contains("/issues/"),
            "{}",
            commands.reply_command
        );
        t.viewer_can_reply = true;
        let commands = b.thread(&t).expect("commands");
        assert_eq!(commands.reply_target, ReplyTarget::Thread);
        assert!(
            commands.reply_command.ends_with("/replies --input -"),
            "{}",
            commands.reply_command
        );
    }

    #[test]
    fn github_without_permission_has_no_resolve_command() {
        let pr = PrRef::parse("acme/widgets#7").unwrap();
        let b = CommandBuilder::new(&config(&[]), &pr, ForgeKind::GitHub, caps(true)).unwrap();
        let mut t = thread();
        t.viewer_can_resolve = false;
        let c = b.thread(&t).unwrap();
        assert_eq!(c.resolve_command, None);
        assert!(c.resolve_condition.contains("viewerCanResolve is false"));
    }

    #[test]
    fn conversation_items_reply_in_the_conversation() {
        let pr = PrRef::parse("acme/widgets#7").unwrap();
        let b = CommandBuilder::new(&config(&[]), &pr, ForgeKind::GitHub, caps(true)).unwrap();
        let c = b
            .conversation(ConversationItem::Review, "Please fix.", "https://x/r/1")
            .unwrap();
        assert_eq!(
            words(&c.reply_command),
            [
                "gh",
                "api",
                "--method",
                "POST",
                "repos/acme/widgets/issues/7/comments",
                "--input",
                "-"
            ]
        );
        assert_eq!(c.resolve_command, None);
        assert_eq!(
            c.resolve_condition,
            "Review summaries have no resolved state on GitHub: there is nothing to resolve. \
             Address it, then reply: 'Please fix.'"
        );
    }

    #[test]
    fn forgejo_commands_expand_the_token_variable_at_run_time() {
        let cfg = config(&[("FORGEJO_HOST", "https://codeberg.org")]);
        let pr = PrRef::parse("https://codeberg.org/acme/widgets/pulls/7").unwrap();
        let prefix = [
            "sh",
            "-c",
            "curl -sS --fail-with-body -H \"Authorization: token $FORGEJO_TOKEN\" \"$@\"",
            "curl",
        ];
        let b = CommandBuilder::new(&cfg, &pr, ForgeKind::Gitea, caps(true)).unwrap();
        let c = b.thread(&thread()).unwrap();
        let mut want: Vec<&str> = prefix.to_vec();
        want.extend([
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "--data-binary",
            "@-",
            "https://codeberg.org/api/v1/repos/acme/widgets/pulls/7/comments/123/replies",
        ]);
        assert_eq!(words(&c.reply_command), want);
        let mut want: Vec<&str> = prefix.to_vec();
        want.extend([
            "-X",
            "POST",
            "https://codeberg.org/api/v1/repos/acme/widgets/pulls/comments/123/resolve",
        ]);
        assert_eq!(words(c.resolve_command.as_deref().unwrap()), want);
        assert_eq!(
            words(&c.view_in_browser),
            ["python3", "-m", "webbrowser", "https://example.com/c/123"]
        );

        // Without the endpoints: reply in the conversation, resolve in the browser.
        let b = CommandBuilder::new(&cfg, &pr, ForgeKind::Forgejo, caps(false)).unwrap();
        let c = b.thread(&thread()).unwrap();
        assert_eq!(c.reply_target, ReplyTarget::Conversation);
        assert_eq!(
            words(&c.reply_command).last().map(String::as_str),
            Some("https://codeberg.org/api/v1/repos/acme/widgets/issues/7/comments")
        );
        assert_eq!(c.resolve_command, None);
        assert!(
            c.resolve_condition.starts_with(
                "This Forgejo instance has no API to resolve review threads (see `limitations`)"
            ),
            "{}",
            c.resolve_condition
        );
    }

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
