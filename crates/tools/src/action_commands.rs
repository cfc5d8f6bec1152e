//! The shell commands the review tools hand to agents for a review thread, a review or a
//! conversation comment: which command is the reply, whether there is a resolve command and
//! when it may run, and how to view the item. The commands themselves come from the forge
//! (`resolve_pr_forge::CommandRecipes`); this module knows no route, mutation or token
//! variable. Reply commands read their request body from standard input.

use resolve_pr_core::{PrRef, Result};
use resolve_pr_forge::{CommandRecipes, ForgeKind, ReviewThread, ThreadCapabilities};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::shared::excerpt;

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
pub struct CommandBuilder<'a> {
    pr: PrRef,
    recipes: &'a dyn CommandRecipes,
    kind: ForgeKind,
    capabilities: ThreadCapabilities,
}

impl<'a> CommandBuilder<'a> {
    /// `recipes` and `kind` are the forge's (`Forge::commands`, `Forge::kind` as the client
    /// detected it); `capabilities` what the instance supports for threads.
    pub fn new(
        recipes: &'a dyn CommandRecipes,
        pr: &PrRef,
        kind: ForgeKind,
        capabilities: ThreadCapabilities,
    ) -> CommandBuilder<'a> {
        CommandBuilder {
            pr: pr.clone(),
            recipes,
            kind,
            capabilities,
        }
    }

    /// Commands for a review thread; `thread.comments[0]` is its first comment. The reply
    /// goes into the thread where the forge lets this token reply there, else into the
    /// conversation.
    pub fn thread(&self, thread: &ReviewThread) -> Result<ActionCommands> {
        let root = thread.comments.first();
        let quoted = excerpt(root.map_or("", |c| c.body.as_str()), CONDITION_EXCERPT);
        let (resolve_command, resolve_condition) =
            match self
                .recipes
                .resolve_thread(&self.pr, thread, &self.capabilities)
            {
                Ok(resolve) => (
                    Some(resolve.render()?),
                    format!(
                        "Run only after the fix for this thread is verified (tests pass / code \
                         changed as asked): '{quoted}'"
                    ),
                ),
                Err(instead) => (None, format!("{instead}: '{quoted}'")),
            };
        let (reply, reply_target) =
            match self
                .recipes
                .reply_in_thread(&self.pr, thread, &self.capabilities)
            {
                Some(reply) => (reply, ReplyTarget::Thread),
                None => (
                    self.recipes.reply_in_conversation(&self.pr),
                    ReplyTarget::Conversation,
                ),
            };
        Ok(ActionCommands {
            reply_command: reply.render()?,
            reply_target,
            resolve_command,
            resolve_condition,
            view_in_browser: self.recipes.view_thread(&self.pr, thread).render()?,
        })
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
        Ok(ActionCommands {
            reply_command: self.recipes.reply_in_conversation(&self.pr).render()?,
            reply_target: ReplyTarget::Conversation,
            resolve_command: None,
            resolve_condition: format!(
                "{what} have no resolved state on {}: there is nothing to resolve. Address \
                 it, then reply: '{}'",
                self.kind,
                excerpt(body, CONDITION_EXCERPT)
            ),
            view_in_browser: self
                .recipes
                .view_conversation_item(&self.pr, html_url)
                .render()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use resolve_pr_forge::github::queries::RESOLVE_REVIEW_THREAD_COMMAND as GITHUB_RESOLVE_MUTATION;
    use resolve_pr_forge::{Actor, Config, Forge, Forges, ReviewComment};
    use std::collections::HashMap;
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::sync::Arc;

    fn config(vars: &[(&str, &str)]) -> Config {
        let env: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_parts(None, None, &|k| env.get(k).cloned()).unwrap()
    }

    /// The client the router hands out for the pull request's host; building it sends nothing.
    fn forge(config: Config, pr: &PrRef) -> Arc<dyn Forge> {
        Forges::new(config).for_repo(&pr.repo).unwrap()
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
                created_at: resolve_pr_forge::parse_time("2024-01-01T00:00:00Z").unwrap(),
                updated_at: resolve_pr_forge::parse_time("2024-01-01T00:00:00Z").unwrap(),
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
        let f = forge(config(&[]), &pr);
        let b = CommandBuilder::new(f.commands(), &pr, ForgeKind::GitHub, caps(true));
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
        let f = forge(cfg, &pr);
        let b = CommandBuilder::new(f.commands(), &pr, ForgeKind::GitHub, caps(true));
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
        let f = forge(config(&[]), &pr);
        let b = CommandBuilder::new(f.commands(), &pr, ForgeKind::GitHub, caps(true));
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
        let f = forge(config(&[]), &pr);
        let b = CommandBuilder::new(f.commands(), &pr, ForgeKind::GitHub, caps(true));
        let mut t = thread();
        t.viewer_can_resolve = false;
        let c = b.thread(&t).unwrap();
        assert_eq!(c.resolve_command, None);
        assert!(c.resolve_condition.contains("viewerCanResolve is false"));
    }

    #[test]
    fn conversation_items_reply_in_the_conversation() {
        let pr = PrRef::parse("acme/widgets#7").unwrap();
        let f = forge(config(&[]), &pr);
        let b = CommandBuilder::new(f.commands(), &pr, ForgeKind::GitHub, caps(true));
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
        let f = forge(cfg, &pr);
        let b = CommandBuilder::new(f.commands(), &pr, ForgeKind::Gitea, caps(true));
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
        let b = CommandBuilder::new(f.commands(), &pr, ForgeKind::Forgejo, caps(false));
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

    /// Bots open their comments with markers the forge does not show; the condition quotes
    /// what a reader sees.
    #[test]
    fn the_condition_quotes_the_visible_text_not_html_comments() {
        let pr = PrRef::parse("acme/widgets#7").unwrap();
        let f = forge(config(&[]), &pr);
        let b = CommandBuilder::new(f.commands(), &pr, ForgeKind::GitHub, caps(true));
        let mut t = thread();
        t.comments[0].body = "<!-- This is an auto-generated comment by CodeRabbit -->\n\
            <!-- suggestion_start -->\n[//]: # (fingerprint: 42)\n\
            _Potential issue_ <sub>critical</sub>\n\n**Off by one: `Vec<u8>` ends \
            early**\n<details>\n<summary>Fix</summary>\n\n<!-- fix -->len - 1\n</details>"
            .into();
        let c = b.thread(&t).unwrap();
        assert!(
            c.resolve_condition.ends_with(
                ": '_Potential issue_ critical **Off by one: `Vec<u8>` ends early** Fix len - 1'"
            ),
            "{}",
            c.resolve_condition
        );
        let c = b
            .conversation(
                ConversationItem::IssueComment,
                "<!-- walkthrough_start -->\nLooks good <!-- -->overall",
                "https://example.com/c/1",
            )
            .unwrap();
        assert!(
            c.resolve_condition.ends_with(": 'Looks good overall'"),
            "{}",
            c.resolve_condition
        );
    }
}
