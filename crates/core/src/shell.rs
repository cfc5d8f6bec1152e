//! The one way resolve-pr builds shell commands: from an argument vector, each argument
//! quoted for POSIX shells. Values come from untrusted PR data (`a;rm -rf ~` is a legal
//! branch name), so nothing is ever spliced into a command line as text.

use std::fmt;

use crate::error::{Error, Result};

/// A command built from its argument vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellCommand {
    argv: Vec<String>,
}

impl ShellCommand {
    pub fn new(program: impl Into<String>) -> Self {
        ShellCommand {
            argv: vec![program.into()],
        }
    }

    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.argv.push(arg.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.argv.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The command line for a POSIX shell. Fails only for arguments containing NUL, which no
    /// process can receive.
    pub fn render(&self) -> Result<String> {
        let mut out = String::new();
        for (i, arg) in self.argv.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&quote(arg)?);
        }
        Ok(out)
    }

    /// Several commands run in order, each only if the one before succeeded.
    pub fn render_all(commands: &[ShellCommand]) -> Result<String> {
        let parts = commands
            .iter()
            .map(ShellCommand::render)
            .collect::<Result<Vec<_>>>()?;
        Ok(parts.join(" && "))
    }
}

impl fmt::Display for ShellCommand {
    /// Like `render`, with NUL bytes (which cannot reach a process) shown as `\0` text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cleaned = ShellCommand {
            argv: self.argv.iter().map(|a| a.replace('\0', "\\0")).collect(),
        };
        match cleaned.render() {
            Ok(s) => f.write_str(&s),
            Err(_) => Err(fmt::Error),
        }
    }
}

/// One argument quoted for a POSIX shell (`sh`, `bash`, `zsh`, `dash`).
pub fn quote(arg: &str) -> Result<std::borrow::Cow<'_, str>> {
    shlex::try_quote(arg).map_err(|_| {
        Error::user("a command argument contains a NUL byte, which no process can receive")
            .with_detail("argument", arg.replace('\0', "\\0"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::process::Command;

    /// Runs `line` in a real bash whose `$@` is printed NUL-separated by a helper function,
    /// and returns the arguments that arrived.
    fn argv_through_bash(program_args: &[String]) -> Vec<String> {
        let cmd = ShellCommand::new("printargs").args(program_args.iter().cloned());
        let line = cmd.render().unwrap();
        let script =
            format!("printargs() {{ for a in \"$@\"; do printf '%s\\0' \"$a\"; done; }}\n{line}\n");
        let out = Command::new("bash")
            .arg("--noprofile")
            .arg("--norc")
            .arg("-c")
            .arg(&script)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .output()
            .expect("bash runs");
        assert!(
            out.status.success(),
            "bash failed for {line:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut args: Vec<String> = out
            .stdout
            .split(|&b| b == 0)
            .map(|s| String::from_utf8(s.to_vec()).expect("utf-8 in, utf-8 out"))
            .collect();
        args.pop(); // the terminator after the last argument
        args
    }

    #[test]
    fn hostile_values_arrive_intact() {
        let hostile: Vec<String> = [
            "$(touch /tmp/pwned)",
            "`id`",
            "a;rm -rf ~",
            "it's",
            "say \"hi\"",
            "line1\nline2",
            "-rf",
            "--force",
            "",
            "ünïcødé ✓ 🚀",
            "$HOME",
            "*",
            "a b\tc",
            "\\",
            "!!",
            "#comment",
            "~",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(argv_through_bash(&hostile), hostile);
    }

    #[test]
    fn nul_is_a_user_error() {
        let err = ShellCommand::new("echo").arg("a\0b").render().unwrap_err();
        assert_eq!(err.category, crate::Category::User);
    }

    #[test]
    fn plain_words_stay_readable() {
        let c = ShellCommand::new("gh").args(["pr", "comment", "12", "--repo", "o/r"]);
        assert_eq!(c.render().unwrap(), "gh pr comment 12 --repo o/r");
        let both =
            ShellCommand::render_all(&[c.clone(), ShellCommand::new("echo").arg("a b")]).unwrap();
        assert_eq!(both, "gh pr comment 12 --repo o/r && echo 'a b'");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_arguments_arrive_intact(args in prop::collection::vec("[^\\x00]{0,24}", 0..6)) {
            prop_assert_eq!(argv_through_bash(&args), args);
        }

        #[test]
        fn shell_metacharacters_arrive_intact(args in prop::collection::vec(
            prop::collection::vec(prop::sample::select(vec![
                "$", "(", ")", "`", ";", "'", "\"", "\n", "-", "\\", "|", "&", "<", ">", "*", "?",
                "[", "]", "{", "}", "~", "#", "!", " ", "\t", "é", "🚀", "a", "=", "%",
            ]), 0..12).prop_map(|parts| parts.concat()), 1..5)) {
            prop_assert_eq!(argv_through_bash(&args), args);
        }
    }
}
