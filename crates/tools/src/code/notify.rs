//! What the lifecycle tools share (`notify_file_opened`, `notify_file_saved`,
//! `notify_file_closed`): the file made a path of the checkout, the running servers that
//! hold it told (`resolve_pr_lsp::lifecycle`), and the answer naming each server and what it
//! was sent. No server is started unless asked (`start`), and no file is changed.

use std::path::{Path, PathBuf};

use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{display_path, language_of, lsp_error, path_in, relative_error, server_for_file};
use crate::Context;
use crate::checkout::workspace;

/// The arguments of `notify_file_opened` and `notify_file_saved`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotifyInput {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[schemars(example = &"src/lib.rs")]
    pub file_path: String,
    /// Start the file's language server when none that holds it runs. Default: false.
    #[serde(default)]
    pub start: Option<bool>,
}

/// The arguments of `notify_file_closed`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseInput {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[schemars(example = &"src/lib.rs")]
    pub file_path: String,
}

/// One server told of the file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ToldServer {
    pub server: String,
    pub language: String,
    /// Its project root, relative to the checkout ("." for the checkout itself).
    pub root: String,
    /// The LSP notifications sent; empty when there was nothing to say.
    pub notifications: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct NotifyOutput {
    pub file_path: String,
    /// opened, saved or closed.
    pub event: String,
    /// Empty: no running server holds the file.
    pub servers: Vec<ToldServer>,
    /// The server started for this call (start: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    Opened,
    Saved,
    Closed,
}

impl Event {
    fn as_str(self) -> &'static str {
        match self {
            Event::Opened => "opened",
            Event::Saved => "saved",
            Event::Closed => "closed",
        }
    }
}

/// The file a notification is about: inside the checkout, canonical. A file that is gone
/// (saved as deleted, or closed after it was removed) is its canonical directory and name.
fn notified_path(workspace: &Path, file_path: &str, must_exist: bool) -> Result<PathBuf> {
    match path_in(workspace, file_path, "file_path") {
        Ok(p) if p.is_file() => Ok(p),
        Ok(_) => Err(Error::user(format!("{file_path} is not a file"))
            .with_code(ErrorCode::InvalidPath)
            .with_detail("field", "file_path")),
        Err(e) if must_exist => Err(e),
        Err(e) => {
            let joined = workspace.join(file_path);
            let (Some(parent), Some(name)) = (joined.parent(), joined.file_name()) else {
                return Err(e);
            };
            match parent.canonicalize() {
                Ok(dir) if dir.starts_with(workspace) => Ok(dir.join(name)),
                _ => Err(e),
            }
        }
    }
}

/// Tells the running servers that hold the file of `event`; with `start`, starts the
/// file's server when none runs.
pub(crate) async fn notify(
    ctx: &Context,
    directory: Option<&str>,
    file_path: &str,
    event: Event,
    start: bool,
) -> Result<NotifyOutput> {
    let workspace = workspace(ctx, directory)?;
    let path = notified_path(&workspace, file_path, event == Event::Opened)?;
    let mut servers = ctx.lsp.servers_holding(&path).await;
    let mut started = None;
    if servers.is_empty() && start {
        language_of(&path, "file_path").map_err(|e| relative_error(e, &workspace))?;
        let server = server_for_file(ctx, &workspace, &path, "file_path").await?;
        started = Some(server.installed.spec.name.to_owned());
        servers.push(server);
    }
    let mut told = Vec::new();
    for server in &servers {
        let said = match event {
            Event::Opened => server
                .file_opened(&path)
                .await
                .map_err(|e| relative_error(lsp_error(e), &workspace))?,
            Event::Saved => server.file_saved(&path).await,
            Event::Closed => server.file_closed(&path).await,
        };
        let root = display_path(&workspace, &said.root);
        told.push(ToldServer {
            server: said.server.to_owned(),
            language: said.language.as_str().to_owned(),
            root: if root.is_empty() {
                ".".to_owned()
            } else {
                root
            },
            notifications: said.notifications.iter().map(|n| (*n).to_owned()).collect(),
        });
    }
    Ok(NotifyOutput {
        file_path: display_path(&workspace, &path),
        event: event.as_str().to_owned(),
        servers: told,
        started,
    })
}

/// The text of a lifecycle answer.
pub(crate) fn render_notify(output: &NotifyOutput) -> String {
    if output.servers.is_empty() {
        return format!(
            "No running language server holds {}: none was told it was {} (start: true starts \
             its server).",
            output.file_path, output.event
        );
    }
    let mut text = format!(
        "{} was {}; {} running {} it:",
        output.file_path,
        output.event,
        output.servers.len(),
        if output.servers.len() == 1 {
            "server holds"
        } else {
            "servers hold"
        }
    );
    if let Some(s) = &output.started {
        text = format!("Started {s}. {text}");
    }
    for s in &output.servers {
        let sent = if s.notifications.is_empty() {
            "nothing to send (it already had the file so)".to_owned()
        } else {
            s.notifications.join(", ")
        };
        text.push_str(&format!(
            "\n{} ({}, root {}): {sent}",
            s.server, s.language, s.root
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_each_server_and_what_it_was_sent_or_that_none_runs() {
        let mut output = NotifyOutput {
            file_path: "a.py".to_owned(),
            event: "saved".to_owned(),
            servers: Vec::new(),
            started: None,
        };
        assert!(
            render_notify(&output).starts_with("No running language server holds a.py"),
            "{}",
            render_notify(&output)
        );
        output.servers.push(ToldServer {
            server: "basedpyright".to_owned(),
            language: "python".to_owned(),
            root: ".".to_owned(),
            notifications: vec!["textDocument/didChange".to_owned()],
        });
        output.started = Some("basedpyright".to_owned());
        assert_eq!(
            render_notify(&output),
            "Started basedpyright. a.py was saved; 1 running server holds it:\n\
             basedpyright (python, root .): textDocument/didChange"
        );
    }

    #[test]
    fn a_file_outside_the_checkout_is_refused_and_a_gone_one_is_named_by_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        let gone = notified_path(&root, "src/gone.py", false).unwrap();
        assert_eq!(gone, root.join("src/gone.py"));
        let e = notified_path(&root, "src/gone.py", true).unwrap_err();
        assert_eq!(e.code, Some(ErrorCode::InvalidPath));
        let e = notified_path(&root, "../elsewhere.py", false).unwrap_err();
        assert_eq!(e.code, Some(ErrorCode::InvalidPath));
        assert_eq!(e.details.unwrap()["field"], "file_path");
        let e = notified_path(&root, "src", false).unwrap_err();
        assert_eq!(e.code, Some(ErrorCode::InvalidPath));
    }
}
