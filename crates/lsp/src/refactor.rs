//! Refactoring requests: rename, file renames (`workspace/willRenameFiles`) and code
//! actions, answered as [`WorkspaceChange`]s (byte offsets, paths relative to the server's
//! root). Nothing is written: an edit a server pushes while a command runs
//! (`workspace/applyEdit`) is captured as data, and the server keeps the old text until it
//! is told of the new one ([`Server::written`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use resolve_pr_source::{
    FileChange, LineCol, LineIndex, TextEdit, TextRange, WorkspaceChange, apply_edits,
};
use serde_json::{Value, json};

use crate::client::FileChange as Watched;
use crate::error::{Error, Result};
use crate::nav::{Pos, Span};
use crate::pool::Server;
use crate::uri;

/// One edit captured at a time in this process: a command's `workspace/applyEdit` is kept
/// by the client, and two commands at once would mix their edits.
static CAPTURE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A code action a server offers.
#[derive(Debug, Clone)]
pub struct Action {
    pub title: String,
    /// `refactor.extract.function`, `source.organizeImports`, …
    pub kind: Option<String>,
    /// Why it is offered but cannot run here.
    pub disabled: Option<String>,
    raw: Value,
}

/// The actions of a `textDocument/codeAction` answer (commands without an edit included).
fn actions_of(answer: &Value) -> Vec<Action> {
    answer
        .as_array()
        .into_iter()
        .flatten()
        .map(|raw| Action {
            title: raw["title"].as_str().unwrap_or_default().to_owned(),
            kind: raw["kind"].as_str().map(str::to_owned),
            disabled: raw["disabled"]["reason"].as_str().map(str::to_owned),
            raw: raw.clone(),
        })
        .collect()
}

fn bad(message: String) -> Error {
    Error::Io(message)
}

fn path_of(uri: &str) -> Result<PathBuf> {
    url::Url::parse(uri)
        .ok()
        .and_then(|u| u.to_file_path().ok())
        .ok_or_else(|| bad(format!("the server named {uri}, which is not a file")))
}

/// An LSP `WorkspaceEdit` as a [`WorkspaceChange`] relative to `root`. Positions (UTF-16)
/// are read against each file's text as it is at that point of the edit: `read` gives the
/// text on disk of an absolute path, and files created or edited earlier in the edit are
/// followed. A column past a line's end means its end, as LSP says.
pub fn to_change(
    root: &Path,
    edit: &Value,
    read: &dyn Fn(&Path) -> Option<String>,
) -> Result<WorkspaceChange> {
    let relative = |uri: &str| -> Result<PathBuf> {
        let path = path_of(uri)?;
        path.strip_prefix(root)
            .map(Path::to_owned)
            .map_err(|_| Error::InvalidPath {
                path: path.clone(),
                message: format!(
                    "the server's edit touches {uri}, outside {}",
                    root.display()
                ),
            })
    };
    // The text of each file as the edit has left it so far; renamed directories, to read
    // a file under its new name from where it still is on disk.
    let mut texts: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut moved_dirs: Vec<(PathBuf, PathBuf)> = Vec::new();
    let current = |texts: &BTreeMap<PathBuf, String>,
                   moved: &[(PathBuf, PathBuf)],
                   rel: &Path|
     -> Option<String> {
        if let Some(t) = texts.get(rel) {
            return Some(t.clone());
        }
        let mut on_disk = rel.to_owned();
        for (from, to) in moved.iter().rev() {
            if let Ok(rest) = on_disk.strip_prefix(to) {
                on_disk = from.join(rest);
            }
        }
        read(&root.join(on_disk))
    };
    let mut changes = Vec::new();
    let text_edit = |texts: &mut BTreeMap<PathBuf, String>,
                     moved: &[(PathBuf, PathBuf)],
                     uri: &str,
                     edits: &[Value]|
     -> Result<FileChange> {
        let rel = relative(uri)?;
        let text = current(texts, moved, &rel).ok_or_else(|| {
            bad(format!(
                "the server edits {}, which cannot be read",
                rel.display()
            ))
        })?;
        let index = LineIndex::new(&text);
        let at = |p: &Value| -> Result<usize> {
            let line = p["line"].as_u64().unwrap_or(0) as u32;
            let col = p["character"].as_u64().unwrap_or(0) as u32;
            index
                .offset_utf16_clamped(LineCol { line, col })
                .map_err(|e| {
                    bad(format!(
                        "the server's edit of {} is not in its text: {e}",
                        rel.display()
                    ))
                })
        };
        let mut out = Vec::new();
        for e in edits {
            let range = &e["range"];
            let new_text = e["newText"]
                .as_str()
                .or_else(|| e["snippet"]["value"].as_str())
                .unwrap_or_default();
            out.push(TextEdit::replace(
                TextRange::new(at(&range["start"])?, at(&range["end"])?),
                new_text,
            ));
        }
        let edited = apply_edits(&text, &out).map_err(|e| {
            bad(format!(
                "the server's edits of {} do not apply: {e}",
                rel.display()
            ))
        })?;
        texts.insert(rel.clone(), edited);
        Ok(FileChange::Edit {
            path: rel,
            edits: out,
        })
    };
    if let Some(steps) = edit["documentChanges"].as_array() {
        for step in steps {
            let options = &step["options"];
            let flag = |name: &str| options[name].as_bool().unwrap_or(false);
            match step["kind"].as_str() {
                None => {
                    let uri = step["textDocument"]["uri"].as_str().unwrap_or_default();
                    let edits = step["edits"].as_array().cloned().unwrap_or_default();
                    changes.push(text_edit(&mut texts, &moved_dirs, uri, &edits)?);
                }
                Some("create") => {
                    let path = relative(step["uri"].as_str().unwrap_or_default())?;
                    texts.insert(path.clone(), String::new());
                    changes.push(FileChange::Create {
                        path,
                        contents: String::new(),
                        overwrite: flag("overwrite"),
                        ignore_if_exists: flag("ignoreIfExists"),
                    });
                }
                Some("rename") => {
                    let from = relative(step["oldUri"].as_str().unwrap_or_default())?;
                    let to = relative(step["newUri"].as_str().unwrap_or_default())?;
                    match current(&texts, &moved_dirs, &from) {
                        Some(text) => {
                            texts.remove(&from);
                            texts.insert(to.clone(), text);
                        }
                        None => {
                            let inside: Vec<(PathBuf, String)> = texts
                                .iter()
                                .filter(|(p, _)| p.starts_with(&from))
                                .map(|(p, t)| {
                                    (to.join(p.strip_prefix(&from).unwrap_or(p)), t.clone())
                                })
                                .collect();
                            texts.retain(|p, _| !p.starts_with(&from));
                            texts.extend(inside);
                            moved_dirs.push((from.clone(), to.clone()));
                        }
                    }
                    changes.push(FileChange::Rename {
                        from,
                        to,
                        overwrite: flag("overwrite"),
                        ignore_if_exists: flag("ignoreIfExists"),
                    });
                }
                Some("delete") => {
                    let path = relative(step["uri"].as_str().unwrap_or_default())?;
                    texts.retain(|p, _| !p.starts_with(&path));
                    changes.push(FileChange::Delete {
                        path,
                        recursive: flag("recursive"),
                        ignore_if_not_exists: flag("ignoreIfNotExists"),
                    });
                }
                Some(other) => {
                    return Err(bad(format!("the server's edit has a step of kind {other}")));
                }
            }
        }
    } else if let Some(map) = edit["changes"].as_object() {
        let mut uris: Vec<&String> = map.keys().collect();
        uris.sort();
        for uri in uris {
            let edits = map[uri].as_array().cloned().unwrap_or_default();
            changes.push(text_edit(&mut texts, &moved_dirs, uri, &edits)?);
        }
    }
    Ok(WorkspaceChange { changes })
}

/// An empty file that appeared after `since`: one a server's command wrote itself.
fn made_by_the_server(path: &Path, since: std::time::SystemTime) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| {
        m.is_file()
            && m.len() == 0
            && m.created()
                .or_else(|_| m.modified())
                .is_ok_and(|t| t >= since)
    })
}

fn disk_text(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

impl Server {
    /// A workspace-wide edit from a server still indexing would miss what it has not read
    /// yet: it is asked only once the server is ready, and refused if it is not in time.
    async fn ready_for_edits(&self, what: &str) -> Result<()> {
        self.warm_up().await;
        let deadline = crate::deadline::wait_until(self.ready_wait);
        if let Some(busy) = self.client.wait_ready(deadline).await {
            return Err(Error::Indexing(format!(
                "{} is still indexing ({busy}); a {what} now could miss files it has not read: call again shortly",
                self.installed.spec.name
            )));
        }
        Ok(())
    }

    fn change_of(&self, edit: &Value) -> Result<WorkspaceChange> {
        if edit.is_null() {
            return Ok(WorkspaceChange::default());
        }
        to_change(&self.root, edit, &disk_text)
    }

    /// `textDocument/rename` of the symbol at `pos`: every edit the server makes.
    pub async fn rename(&self, path: &Path, pos: Pos, new_name: &str) -> Result<WorkspaceChange> {
        self.require(
            self.client.capabilities().rename_provider.is_some(),
            "rename",
        )?;
        let mut params = self.at(path, pos).await?;
        self.ready_for_edits("rename").await?;
        params["newName"] = json!(new_name);
        let nothing = |why: &str| {
            Error::SymbolNotFound(format!(
                "{} has nothing to rename at line {}, character {} of {}{why}",
                self.installed.spec.name,
                pos.line,
                pos.character,
                path.display()
            ))
        };
        // A server refuses a position it cannot rename with an error of its own
        // (rust-analyzer: -32602 "No references found at position"): the agent's position,
        // not a failing server.
        let answer = match self.client.request_raw("textDocument/rename", params).await {
            // Not: method not found, cancelled, content modified, server cancelled, internal.
            Err(Error::Protocol { code, message, .. })
                if ![-32601, -32800, -32801, -32802, -32603].contains(&code) =>
            {
                return Err(nothing(&format!(": {message}")));
            }
            other => other?,
        };
        if answer.is_null() {
            return Err(nothing(""));
        }
        self.change_of(&answer)
    }

    /// What the server rewrites (imports, module declarations) when files or directories
    /// move from the first path to the second (absolute paths). `None`: the server does not
    /// say (it does not offer `workspace/willRenameFiles`).
    pub async fn will_rename_files(
        &self,
        renames: &[(PathBuf, PathBuf)],
    ) -> Result<Option<WorkspaceChange>> {
        let offered = self
            .client
            .capabilities()
            .workspace
            .as_ref()
            .and_then(|w| w.file_operations.as_ref())
            .is_some_and(|f| f.will_rename.is_some());
        if !offered {
            return Ok(None);
        }
        for (from, _) in renames {
            if from.is_file() {
                let _ = self.open(from).await;
            }
        }
        self.ready_for_edits("file rename").await?;
        let files: Vec<Value> = renames
            .iter()
            .map(|(from, to)| {
                Ok(json!({
                    "oldUri": uri::from_path(from)?.as_str(),
                    "newUri": uri::from_path(to)?.as_str(),
                }))
            })
            .collect::<Result<_>>()?;
        match self
            .client
            .request_raw("workspace/willRenameFiles", json!({"files": files}))
            .await
        {
            Ok(answer) if answer.is_null() => Ok(Some(WorkspaceChange::default())),
            // A server may address a renamed file by its new name (basedpyright was seen
            // to): those edits are read from, and made to, the file where it still is, as
            // the rename itself comes after them.
            Ok(answer) => {
                let origin = |path: &Path| -> Option<PathBuf> {
                    renames.iter().find_map(|(from, to)| {
                        let rest = path.strip_prefix(to).ok()?;
                        (!path.exists()).then(|| {
                            if rest.as_os_str().is_empty() {
                                from.clone()
                            } else {
                                from.join(rest)
                            }
                        })
                    })
                };
                let read =
                    |path: &Path| disk_text(&origin(path).unwrap_or_else(|| path.to_owned()));
                let mut change = to_change(&self.root, &answer, &read)?;
                for step in &mut change.changes {
                    if let FileChange::Edit { path, .. } = step
                        && let Some(from) = origin(&self.root.join(&*path))
                        && let Ok(rel) = from.strip_prefix(&self.root)
                    {
                        *path = rel.to_owned();
                    }
                }
                Ok(Some(change))
            }
            Err(Error::Protocol { code: -32601, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The quick fixes the server offers for its own diagnostics of `path` whose code is one
    /// of `codes` (clangd's `unused-includes`): those diagnostics are given back in the
    /// request's context over the whole file, as an editor does when asked to fix them.
    /// Empty when the file has none of them (waited for up to `wait`).
    pub async fn quick_fixes(
        &self,
        path: &Path,
        codes: &[&str],
        wait: Duration,
    ) -> Result<Vec<Action>> {
        self.require(
            self.client.capabilities().code_action_provider.is_some(),
            "code actions",
        )?;
        let text = self.open(path).await?;
        let found = self.raw_diagnostics(path, wait).await?.unwrap_or_default();
        let wanted: Vec<&lsp_types::Diagnostic> = found
            .iter()
            .filter(|d| {
                d.code.as_ref().is_some_and(|code| match code {
                    lsp_types::NumberOrString::String(c) => codes.contains(&c.as_str()),
                    lsp_types::NumberOrString::Number(n) => codes.contains(&n.to_string().as_str()),
                })
            })
            .collect();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let lines = resolve_pr_source::LineIndex::new(&text);
        let last = lines.lines().saturating_sub(1);
        let end = Pos {
            line: last,
            character: lines.line_len_utf16(last).unwrap_or(0),
        };
        let mut params = self
            .at(
                path,
                Pos {
                    line: 0,
                    character: 0,
                },
            )
            .await?;
        if let Some(o) = params.as_object_mut() {
            o.remove("position");
        }
        params["range"] = json!({
            "start": {"line": 0, "character": 0},
            "end": {"line": end.line, "character": end.character},
        });
        params["context"] = json!({"diagnostics": wanted, "only": ["quickfix"], "triggerKind": 1});
        let answer = self
            .client
            .request_raw("textDocument/codeAction", params)
            .await?;
        Ok(actions_of(&answer))
    }

    /// The code actions offered for `range` of `path`, of the kinds in `only` (all when
    /// empty). The context holds no diagnostics: a quick fix is asked for with
    /// [`Server::quick_fixes`].
    pub async fn code_actions(
        &self,
        path: &Path,
        range: Span,
        only: &[&str],
    ) -> Result<Vec<Action>> {
        self.require(
            self.client.capabilities().code_action_provider.is_some(),
            "code actions",
        )?;
        let mut params = self.at(path, range.start).await?;
        self.ready_for_edits("code action").await?;
        if let Some(o) = params.as_object_mut() {
            o.remove("position");
        }
        params["range"] = json!({
            "start": {"line": range.start.line, "character": range.start.character},
            "end": {"line": range.end.line, "character": range.end.character},
        });
        let mut context = json!({"diagnostics": [], "triggerKind": 1});
        if !only.is_empty() {
            context["only"] = json!(only);
        }
        params["context"] = context;
        let answer = self
            .client
            .request_raw("textDocument/codeAction", params)
            .await?;
        Ok(actions_of(&answer))
    }

    /// What an action changes: its edit, resolved if need be, and the edits the server
    /// pushes while its command runs (captured, never written).
    pub async fn action_change(&self, action: &Action) -> Result<WorkspaceChange> {
        let mut raw = action.raw.clone();
        let is_command = raw["command"].is_string();
        let resolvable = self
            .client
            .capabilities()
            .code_action_provider
            .as_ref()
            .is_some_and(|p| matches!(p, lsp_types::CodeActionProviderCapability::Options(o) if o.resolve_provider == Some(true)));
        if !is_command && raw["edit"].is_null() && resolvable {
            raw = self.client.request_raw("codeAction/resolve", raw).await?;
        }
        let mut change = if is_command {
            WorkspaceChange::default()
        } else {
            self.change_of(&raw["edit"])?
        };
        let command = if is_command {
            raw.clone()
        } else {
            raw["command"].clone()
        };
        if let Some(name) = command["command"].as_str() {
            let _one = CAPTURE.lock().await;
            // Files the server makes on disk while its command runs (typescript-language-server
            // writes the empty file "Move to a new file" then fills by an edit) are found by
            // their time and taken back: a plan writes nothing.
            let started = std::time::SystemTime::now() - std::time::Duration::from_millis(5);
            self.client.capture_edits();
            let ran = self
                .client
                .request_raw(
                    "workspace/executeCommand",
                    json!({"command": name, "arguments": command["arguments"].clone()}),
                )
                .await;
            let captured = self.client.take_captured_edits();
            let shown = self.client.take_captured_messages();
            ran?;
            if captured.is_empty() && !shown.is_empty() {
                return Err(Error::Declined {
                    server: self.installed.spec.name,
                    message: shown.join("; "),
                });
            }
            let mut made = Vec::new();
            for edit in captured {
                for step in self.change_of(&edit)?.changes {
                    if let FileChange::Edit { path, .. } = &step
                        && !made.contains(path)
                        && made_by_the_server(&self.root.join(path), started)
                    {
                        let _ = std::fs::remove_file(self.root.join(path));
                        made.push(path.clone());
                        change.changes.push(FileChange::Create {
                            path: path.clone(),
                            contents: String::new(),
                            overwrite: false,
                            ignore_if_exists: false,
                        });
                    }
                    change.changes.push(step);
                }
            }
        }
        Ok(change)
    }

    /// Tells the server that files were written (absolute paths): the new text of those it
    /// has open, and a watched-files change for all, so the next answer is current.
    pub async fn written(&self, paths: &[PathBuf]) {
        let mut watched = Vec::new();
        for path in paths {
            let exists = path.is_file();
            if self.client.is_open(path).await {
                // Re-reads the file: didChange when it changed, didClose when it is gone.
                let _ = self
                    .client
                    .sync_document(path, resolve_pr_source::language_id(path))
                    .await;
            }
            watched.push((
                path.clone(),
                if exists {
                    Watched::Changed
                } else {
                    Watched::Deleted
                },
            ));
        }
        self.client.files_changed(&watched);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_map(
        files: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&Path) -> Option<String> {
        move |p: &Path| {
            files
                .iter()
                .find(|(name, _)| Path::new("/r").join(name) == p)
                .map(|(_, t)| (*t).to_owned())
        }
    }

    #[test]
    fn utf16_positions_become_byte_offsets_in_the_text_of_the_moment() {
        let read = read_map(&[("a.rs", "let 😀 = x;\nx\n")]);
        let edit = json!({"documentChanges": [
            {"textDocument": {"uri": "file:///r/a.rs", "version": 1},
             "edits": [{"range": {"start": {"line": 0, "character": 9}, "end": {"line": 0, "character": 10}}, "newText": "yy"}]},
            {"kind": "create", "uri": "file:///r/new.rs"},
            {"textDocument": {"uri": "file:///r/new.rs", "version": null},
             "edits": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "newText": "fn n() {}\n"}]},
            {"textDocument": {"uri": "file:///r/new.rs", "version": null},
             "edits": [{"range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 4}}, "newText": "m"}]},
        ]});
        let change = to_change(Path::new("/r"), &edit, &read).unwrap();
        let FileChange::Edit { edits, .. } = &change.changes[0] else {
            panic!()
        };
        // "let " (4) + 😀 (4 bytes, 2 units) + " = " (3): x is at byte 11, unit 9.
        assert_eq!(edits[0].range, TextRange::new(11, 12));
        let FileChange::Edit { edits, .. } = &change.changes[3] else {
            panic!()
        };
        assert_eq!(
            edits[0].range,
            TextRange::new(3, 4),
            "read against the created text"
        );
    }

    #[test]
    fn edits_outside_the_root_and_positions_past_the_end_are_refused() {
        let read = read_map(&[("a.rs", "x\n")]);
        let outside = json!({"changes": {"file:///etc/passwd": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "newText": "x"}]}});
        assert!(matches!(
            to_change(Path::new("/r"), &outside, &read),
            Err(Error::InvalidPath { .. })
        ));
        let past = json!({"changes": {"file:///r/a.rs": [{"range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 0}}, "newText": "x"}]}});
        assert!(to_change(Path::new("/r"), &past, &read).is_err());
        let clamped = json!({"changes": {"file:///r/a.rs": [{"range": {"start": {"line": 0, "character": 99}, "end": {"line": 0, "character": 99}}, "newText": "y"}]}});
        let change = to_change(Path::new("/r"), &clamped, &read).unwrap();
        let FileChange::Edit { edits, .. } = &change.changes[0] else {
            panic!()
        };
        assert_eq!(edits[0].range, TextRange::new(1, 1));
    }

    #[test]
    fn a_file_in_a_renamed_directory_is_read_from_where_it_was() {
        let read = read_map(&[("old/m.py", "import x\n")]);
        let edit = json!({"documentChanges": [
            {"kind": "rename", "oldUri": "file:///r/old", "newUri": "file:///r/new"},
            {"textDocument": {"uri": "file:///r/new/m.py", "version": null},
             "edits": [{"range": {"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 8}}, "newText": "y"}]},
        ]});
        let change = to_change(Path::new("/r"), &edit, &read).unwrap();
        assert_eq!(change.changes.len(), 2);
    }
}
