//! What an editor tells its servers about a file, told on a caller's word: the file was
//! opened, saved (written by someone else than the edit layer) or closed. The running
//! servers that hold the file hear of it; none is started here.

use std::path::{Path, PathBuf};

use crate::client::FileChange;
use crate::pool::{Pool, Server};
use crate::servers::Language;

/// What one server was told, as the LSP notifications sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Told {
    pub server: &'static str,
    pub language: Language,
    pub root: PathBuf,
    /// `textDocument/didOpen`, `textDocument/didChange`, `textDocument/didSave`,
    /// `textDocument/didClose`, `workspace/didChangeWatchedFiles`; empty when there was
    /// nothing to say (the file already open with that text, or not open to close).
    pub notifications: Vec<&'static str>,
}

impl Pool {
    /// The running servers (every role) whose root holds `path`: of `path`'s language, or
    /// of every language when it has none (a configuration file).
    pub async fn servers_holding(&self, path: &Path) -> Vec<Server> {
        let language = Language::of_path(path);
        let mut found: Vec<Server> = self
            .running_servers()
            .await
            .into_iter()
            .filter(|s| path.starts_with(&s.root))
            .filter(|s| language.is_none_or(|l| l == s.language))
            .collect();
        found.sort_by(|a, b| {
            (a.language, &a.root, a.installed.spec.name).cmp(&(
                b.language,
                &b.root,
                b.installed.spec.name,
            ))
        });
        found
    }
}

impl Server {
    fn told(&self, notifications: Vec<&'static str>) -> Told {
        Told {
            server: self.installed.spec.name,
            language: self.language,
            root: self.root.clone(),
            notifications,
        }
    }

    /// The file was opened: `didOpen` with its text on disk, or `didChange` when the server
    /// has it open with other text. A file of no language it reads is not opened.
    pub async fn file_opened(&self, path: &Path) -> crate::Result<Told> {
        if Language::of_path(path) != Some(self.language) {
            return Ok(self.told(Vec::new()));
        }
        let before = self.client.document_version(path).await;
        let (_, version) = self
            .client
            .sync_document(path, resolve_pr_source::language_id(path))
            .await?;
        let sent = match before {
            None => vec!["textDocument/didOpen"],
            Some(v) if v != version => vec!["textDocument/didChange"],
            Some(_) => Vec::new(),
        };
        Ok(self.told(sent))
    }

    /// The file was written on disk by someone else: the new text of an open document
    /// (`didChange`, or `didClose` when it is gone), `didSave` where the server asked for
    /// saves, and a watched-files change (created, changed or deleted) for all.
    pub async fn file_saved(&self, path: &Path) -> Told {
        let mut sent = Vec::new();
        let exists = path.is_file();
        if self.client.is_open(path).await {
            let before = self.client.document_version(path).await;
            match self
                .client
                .sync_document(path, resolve_pr_source::language_id(path))
                .await
            {
                Ok((text, version)) => {
                    if Some(version) != before {
                        sent.push("textDocument/didChange");
                    }
                    if let Some(with_text) = self.client.save_wanted() {
                        self.client.saved(path, with_text.then_some(&*text));
                        sent.push("textDocument/didSave");
                    }
                }
                // Unreadable or gone: the client closed it.
                Err(_) => sent.push("textDocument/didClose"),
            }
        }
        let change = if exists {
            FileChange::Changed
        } else {
            FileChange::Deleted
        };
        self.client.files_changed(&[(path.to_owned(), change)]);
        sent.push("workspace/didChangeWatchedFiles");
        self.told(sent)
    }

    /// The file was closed: `didClose` when the server has it open.
    pub async fn file_closed(&self, path: &Path) -> Told {
        let closed = self.client.close_document(path).await;
        self.told(if closed {
            vec!["textDocument/didClose"]
        } else {
            Vec::new()
        })
    }
}
