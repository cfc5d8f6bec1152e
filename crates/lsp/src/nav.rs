//! Navigation questions to a running server, answered in our own types (absolute paths,
//! zero-based UTF-16 positions as LSP counts them), each with what the server was still
//! indexing when it answered.
//!
//! Readiness is observed, never guessed: a question about the whole workspace (references,
//! implementations, callers, symbols) waits for the server to say indexing ended, up to
//! `ready_wait`; any question answered empty while the server indexes is asked again once
//! it is done. An answer given while indexing still runs says so (`indexing`).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_types::{
    CallHierarchyIncomingCall, CallHierarchyItem, CallHierarchyOutgoingCall,
    DocumentSymbolResponse, GotoDefinitionResponse, Hover, HoverContents, MarkedString, SymbolKind,
    WorkspaceSymbolResponse,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::pool::Server;
use resolve_pr_source::{LineIndex, utf16_len};

use crate::servers::Projects;
use crate::uri;

/// A zero-based position; `character` counts UTF-16 code units, as LSP does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u32,
    pub character: u32,
}

/// A range; its end is exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    pub path: PathBuf,
    pub range: Span,
}

/// A named symbol where it is declared.
#[derive(Debug, Clone, PartialEq)]
pub struct Symbol {
    pub name: String,
    /// LSP's kind, lower case (`function`, `struct`, `enum_member`).
    pub kind: &'static str,
    /// What it is declared in (a type, module or class), when the server says.
    pub container: Option<String>,
    pub detail: Option<String>,
    /// Where its name is (or its whole declaration, when the server gives only that).
    pub location: Loc,
    /// Its whole declaration, when known.
    pub full_range: Option<Span>,
}

/// A server's answer and what it was still indexing when it gave it.
#[derive(Debug, Clone)]
pub struct Answer<T> {
    pub value: T,
    pub indexing: Option<String>,
}

/// A call into or out of a function: the other function, and where the calls are.
#[derive(Debug, Clone)]
pub struct Call {
    pub other: Symbol,
    /// Incoming: in the caller's file; outgoing: in the function asked about.
    pub sites: Vec<Loc>,
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq)]
pub struct Diag {
    pub location: Loc,
    /// `error`, `warning`, `information`, `hint`.
    pub severity: &'static str,
    pub code: Option<String>,
    pub source: Option<String>,
    pub message: String,
}

/// What a call asks about: a position in a file, a symbol by name, or the function a
/// failure's `file:line` is in.
#[derive(Debug, Clone)]
pub enum Target {
    Position { path: PathBuf, pos: Pos },
    Symbol { name: String, kind: Option<String> },
    Failure { path: PathBuf, line: u32 },
}

/// A target made concrete: the position asked about, and the symbol there when the target
/// named one.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub path: PathBuf,
    pub pos: Pos,
    pub symbol: Option<Symbol>,
    /// Other symbols the name matched (the first was taken).
    pub others: Vec<Symbol>,
}

pub fn kind_name(kind: SymbolKind) -> &'static str {
    const NAMES: [&str; 26] = [
        "file",
        "module",
        "namespace",
        "package",
        "class",
        "method",
        "property",
        "field",
        "constructor",
        "enum",
        "interface",
        "function",
        "variable",
        "constant",
        "string",
        "number",
        "boolean",
        "array",
        "object",
        "key",
        "null",
        "enum_member",
        "struct",
        "event",
        "operator",
        "type_parameter",
    ];
    let n: i32 = serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_i64())
        .and_then(|v| i32::try_from(v).ok())
        .unwrap_or(0);
    usize::try_from(n - 1)
        .ok()
        .and_then(|i| NAMES.get(i))
        .copied()
        .unwrap_or("unknown")
}

fn pos_of(p: lsp_types::Position) -> Pos {
    Pos {
        line: p.line,
        character: p.character,
    }
}

fn span_of(r: lsp_types::Range) -> Span {
    Span {
        start: pos_of(r.start),
        end: pos_of(r.end),
    }
}

fn loc_of(uri: &lsp_types::Uri, range: lsp_types::Range) -> Option<Loc> {
    Some(Loc {
        path: uri::to_path(uri)?,
        range: span_of(range),
    })
}

fn flatten_definition(answer: Option<GotoDefinitionResponse>) -> Vec<Loc> {
    let mut out: Vec<Loc> = match answer {
        None => Vec::new(),
        Some(GotoDefinitionResponse::Scalar(l)) => loc_of(&l.uri, l.range).into_iter().collect(),
        Some(GotoDefinitionResponse::Array(ls)) => {
            ls.iter().filter_map(|l| loc_of(&l.uri, l.range)).collect()
        }
        Some(GotoDefinitionResponse::Link(links)) => links
            .iter()
            .filter_map(|l| loc_of(&l.target_uri, l.target_selection_range))
            .collect(),
    };
    out.sort();
    out.dedup();
    out
}

/// The UTF-16 length of a line of a text, for checking positions.
fn line_utf16_len(text: &str, line: u32) -> Option<u32> {
    LineIndex::new(text).line_len_utf16(line)
}

/// The UTF-16 column of the first whole-word occurrence of `name` on `line` at or after
/// `from`.
fn find_name(text: &str, line: u32, from: u32, name: &str) -> Option<u32> {
    let l = LineIndex::new(text).line(line)?;
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    l.match_indices(name).find_map(|(byte, _)| {
        let col = utf16_len(&l[..byte]);
        let whole = !l[..byte].chars().next_back().is_some_and(is_word)
            && !l[byte + name.len()..].chars().next().is_some_and(is_word);
        (col >= from && whole).then_some(col)
    })
}

pub(crate) trait Emptiness {
    fn empty(&self) -> bool;
}
impl<T> Emptiness for Vec<T> {
    fn empty(&self) -> bool {
        self.is_empty()
    }
}
impl<T> Emptiness for Option<T> {
    fn empty(&self) -> bool {
        self.is_none()
    }
}

impl Server {
    fn name(&self) -> &'static str {
        self.installed.spec.name
    }

    /// Opens (or refreshes) the file in the server; its text.
    pub async fn open(&self, path: &Path) -> Result<Arc<str>> {
        if !path.is_file() {
            return Err(Error::InvalidPath {
                path: path.to_owned(),
                message: format!("{} is not a file", path.display()),
            });
        }
        self.report_disk_changes().await;
        Ok(self
            .client
            .sync_document(path, resolve_pr_source::language_id(path))
            .await?
            .0)
    }

    /// Once per server: a project file is opened if none is yet, and the server is given a
    /// moment to say it starts indexing. tsserver has no project and clangd no compile
    /// database until a file is open, so `workspace/symbol` would find nothing; clangd starts
    /// its background index (and reports it) only then. The moment is up to a second, and
    /// ends as soon as the server reports progress.
    pub(crate) async fn warm_up(&self) {
        self.warmed
            .get_or_init(|| async {
                if self.client.open_documents().await == 0 {
                    let (root, language) = (self.root.clone(), self.language);
                    let limit = self.max_file_bytes;
                    // A file of this root's own project, not of a project nested in it
                    // (tsserver would load that one instead).
                    let first = tokio::task::spawn_blocking(move || {
                        let (files, _) = crate::servers::source_files(&root, language, 2000);
                        let fits =
                            |f: &PathBuf| std::fs::metadata(f).is_ok_and(|m| m.len() <= limit);
                        files
                            .iter()
                            .find(|f| fits(f) && language.project_root(f, &root) == root)
                            .or_else(|| files.iter().find(|f| fits(f)))
                            .cloned()
                    })
                    .await
                    .ok()
                    .flatten();
                    if let Some(file) = first {
                        let _ = self
                            .client
                            .sync_document(&file, resolve_pr_source::language_id(&file))
                            .await;
                        if self.client.status().indexing().is_none() {
                            let mut status = self.client.subscribe_status();
                            let _ = tokio::time::timeout(Duration::from_secs(1), status.changed())
                                .await;
                        }
                    }
                }
            })
            .await;
    }

    /// Tells a server that does not watch files which changed on disk since its last question.
    /// clangd's index takes no notice of `didChangeWatchedFiles` for sources, so changed
    /// files (the first `REOPEN` of them) are also opened: a parsed open file's symbols take
    /// precedence over the stale index.
    async fn report_disk_changes(&self) {
        const REOPEN: usize = 20;
        let Some(disk) = self.disk.clone() else {
            return;
        };
        let changes = tokio::task::spawn_blocking(move || disk.changes())
            .await
            .unwrap_or_default();
        if changes.is_empty() {
            return;
        }
        self.client.files_changed(&changes);
        let changed = changes
            .iter()
            .filter(|(_, kind)| *kind != crate::client::FileChange::Deleted)
            .take(REOPEN);
        for (path, _) in changed {
            let _ = self
                .client
                .sync_document(path, resolve_pr_source::language_id(path))
                .await;
        }
    }

    pub(crate) async fn ask<T: DeserializeOwned>(&self, method: &str, params: Value) -> Result<T> {
        let answer = self.client.request_raw(method, params).await?;
        serde_json::from_value(answer).map_err(|e| Error::Protocol {
            server: self.name(),
            method: method.to_owned(),
            code: 0,
            message: format!("the answer is not LSP: {e}"),
        })
    }

    /// Asks, waiting for indexing to end first when `wide`, and asking again while the
    /// answer is empty and the server still indexes.
    pub(crate) async fn answered<T, F, Fut>(&self, wide: bool, f: F) -> Result<Answer<T>>
    where
        T: Emptiness,
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let deadline = crate::deadline::wait_until(self.ready_wait);
        self.warm_up().await;
        if wide || !self.installed.spec.answers_while_indexing {
            self.client.wait_ready(deadline).await;
        }
        let mut value = f().await?;
        // A server whose answers while indexing are not worth giving may have begun indexing
        // only as it was asked (tsserver loads its project on the first question): asked
        // again once it is done.
        if !self.installed.spec.answers_while_indexing && self.client.status().indexing().is_some()
        {
            self.client.wait_ready(deadline).await;
            value = f().await?;
        }
        // Empty while the server indexes: asked again as it reports progress (or every
        // RETRY while it says nothing), so an answer comes as soon as the server has it,
        // not only once all indexing ended; the last answer stands at the deadline.
        const RETRY: Duration = Duration::from_millis(150);
        while value.empty()
            && self.client.status().indexing().is_some()
            && Instant::now() < deadline
        {
            let mut status = self.client.subscribe_status();
            let _ = tokio::time::timeout(RETRY, status.changed()).await;
            value = f().await?;
        }
        // A server that reports no indexing (pyright) answers a workspace-wide question
        // with nothing until it has found the project's files, which on a loaded machine
        // takes seconds after its start: a fresh server's empty answer is asked again, with
        // pauses doubling to a second, until it is FRESH old.
        const FRESH: Duration = Duration::from_secs(10);
        let mut pause = Duration::from_millis(200);
        while wide
            && value.empty()
            && !self.installed.spec.reports_status
            && self.client.age() < FRESH
            && Instant::now() < deadline
        {
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
            value = f().await?;
        }
        Ok(Answer {
            value,
            indexing: self.client.status().indexing(),
        })
    }

    pub(crate) fn require(&self, offered: bool, feature: &'static str) -> Result<()> {
        if offered {
            Ok(())
        } else {
            Err(Error::Unsupported {
                server: self.name(),
                feature,
            })
        }
    }

    /// Opens the file and checks the position is in it; the request's parameters.
    pub(crate) async fn at(&self, path: &Path, pos: Pos) -> Result<Value> {
        let text = self.open(path).await?;
        let Some(len) = line_utf16_len(&text, pos.line) else {
            return Err(Error::InvalidPosition(format!(
                "line {} is past the end of {} ({} lines; lines count from 0)",
                pos.line,
                path.display(),
                text.split('\n').count()
            )));
        };
        if pos.character > len {
            return Err(Error::InvalidPosition(format!(
                "character {} is past the end of line {} of {} ({len} characters; both count from 0)",
                pos.character,
                pos.line,
                path.display()
            )));
        }
        let uri = uri::from_path(path)?;
        Ok(json!({
            "textDocument": {"uri": uri.as_str()},
            "position": {"line": pos.line, "character": pos.character},
        }))
    }

    async fn goto(
        &self,
        method: &str,
        path: &Path,
        pos: Pos,
        wide: bool,
    ) -> Result<Answer<Vec<Loc>>> {
        let params = self.at(path, pos).await?;
        self.answered(wide, || async {
            Ok(flatten_definition(
                self.ask::<Option<GotoDefinitionResponse>>(method, params.clone())
                    .await?,
            ))
        })
        .await
    }

    pub async fn definition(&self, path: &Path, pos: Pos) -> Result<Answer<Vec<Loc>>> {
        self.require(
            self.client.capabilities().definition_provider.is_some(),
            "find_definition",
        )?;
        self.goto("textDocument/definition", path, pos, false).await
    }

    pub async fn type_definition(&self, path: &Path, pos: Pos) -> Result<Answer<Vec<Loc>>> {
        self.require(
            self.client
                .capabilities()
                .type_definition_provider
                .is_some(),
            "find_type_definition",
        )?;
        self.goto("textDocument/typeDefinition", path, pos, false)
            .await
    }

    pub async fn implementations(&self, path: &Path, pos: Pos) -> Result<Answer<Vec<Loc>>> {
        self.require(
            self.client.capabilities().implementation_provider.is_some(),
            "find_implementations",
        )?;
        self.goto("textDocument/implementation", path, pos, true)
            .await
    }

    pub async fn references(
        &self,
        path: &Path,
        pos: Pos,
        include_declaration: bool,
    ) -> Result<Answer<Vec<Loc>>> {
        self.require(
            self.client.capabilities().references_provider.is_some(),
            "find_references",
        )?;
        let mut params = self.at(path, pos).await?;
        // Servers differ on includeDeclaration: false (tsserver keeps the declaration,
        // pyright drops the reference asked at instead), so the declaration is always asked
        // for and, when not wanted, left out here by where the definition is.
        params["context"] = json!({"includeDeclaration": true});
        let declarations: Vec<Loc> = if include_declaration {
            Vec::new()
        } else {
            // The definition, and in C the prototypes too (`textDocument/declaration`); then
            // the same asked from each of those, as clangd asked at a definition answers with
            // the prototype only (and at the prototype, with the definition).
            let at =
                json!({"textDocument": params["textDocument"], "position": params["position"]});
            let mut places = self.declarations_at(at).await;
            let first: Vec<Loc> = places.iter().take(4).cloned().collect();
            for place in first {
                // A server answers about open documents only.
                if self.open(&place.path).await.is_err() {
                    continue;
                }
                let Ok(uri) = uri::from_path(&place.path) else {
                    continue;
                };
                let at = json!({
                    "textDocument": {"uri": uri.as_str()},
                    "position": {"line": place.range.start.line, "character": place.range.start.character},
                });
                places.extend(self.declarations_at(at).await);
            }
            places
        };
        let mut answer = self
            .answered(true, || async {
                let found: Option<Vec<lsp_types::Location>> =
                    self.ask("textDocument/references", params.clone()).await?;
                let mut locs: Vec<Loc> = found
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|l| loc_of(&l.uri, l.range))
                    .collect();
                locs.sort();
                locs.dedup();
                Ok(locs)
            })
            .await?;
        answer.value.retain(|l| {
            !declarations
                .iter()
                .any(|d| d.path == l.path && d.range.start == l.range.start)
        });
        Ok(answer)
    }

    /// Where the definition and the declarations of what is at a position are (none when
    /// the server cannot say).
    async fn declarations_at(&self, at: Value) -> Vec<Loc> {
        let mut places = self
            .ask::<Option<GotoDefinitionResponse>>("textDocument/definition", at.clone())
            .await
            .map(flatten_definition)
            .unwrap_or_default();
        if self.client.capabilities().declaration_provider.is_some() {
            places.extend(
                self.ask::<Option<GotoDefinitionResponse>>("textDocument/declaration", at)
                    .await
                    .map(flatten_definition)
                    .unwrap_or_default(),
            );
        }
        places
    }

    /// Hover text at a position (markdown as the server wrote it).
    pub async fn hover(&self, path: &Path, pos: Pos) -> Result<Answer<Option<String>>> {
        self.require(
            self.client.capabilities().hover_provider.is_some(),
            "get_symbol_info",
        )?;
        let params = self.at(path, pos).await?;
        self.answered(false, || async {
            let hover: Option<Hover> = self.ask("textDocument/hover", params.clone()).await?;
            Ok(hover
                .map(|h| hover_text(h.contents))
                .filter(|t| !t.trim().is_empty()))
        })
        .await
    }

    /// A file's symbols, nested ones with their container's name, in order of position.
    pub async fn document_symbols(&self, path: &Path) -> Result<Vec<Symbol>> {
        self.require(
            self.client
                .capabilities()
                .document_symbol_provider
                .is_some(),
            "document symbols",
        )?;
        self.open(path).await?;
        let uri = uri::from_path(path)?;
        let answer = self
            .answered(false, || async {
                let r: Option<DocumentSymbolResponse> = self
                    .ask(
                        "textDocument/documentSymbol",
                        json!({"textDocument": {"uri": uri.as_str()}}),
                    )
                    .await?;
                Ok(r)
            })
            .await?;
        let mut out = Vec::new();
        match answer.value {
            None => {}
            Some(DocumentSymbolResponse::Flat(flat)) => {
                for s in flat {
                    if let Some(location) = loc_of(&s.location.uri, s.location.range) {
                        out.push(Symbol {
                            name: s.name,
                            kind: kind_name(s.kind),
                            container: s.container_name,
                            detail: None,
                            full_range: Some(location.range),
                            location,
                        });
                    }
                }
            }
            Some(DocumentSymbolResponse::Nested(nested)) => {
                fn walk(
                    path: &Path,
                    syms: Vec<lsp_types::DocumentSymbol>,
                    parent: Option<&str>,
                    out: &mut Vec<Symbol>,
                ) {
                    for s in syms {
                        out.push(Symbol {
                            name: s.name.clone(),
                            kind: kind_name(s.kind),
                            container: parent.map(str::to_owned),
                            detail: s.detail.clone(),
                            location: Loc {
                                path: path.to_owned(),
                                range: span_of(s.selection_range),
                            },
                            full_range: Some(span_of(s.range)),
                        });
                        if let Some(children) = s.children {
                            walk(path, children, Some(&s.name), out);
                        }
                    }
                }
                walk(path, nested, None, &mut out);
            }
        }
        out.sort_by_key(|s| s.location.range.start);
        Ok(out)
    }

    /// Symbols whose name matches `query`, the way the server matches (often fuzzily).
    pub async fn workspace_symbols(&self, query: &str) -> Result<Answer<Vec<Symbol>>> {
        self.require(
            self.client
                .capabilities()
                .workspace_symbol_provider
                .is_some(),
            "search_symbols",
        )?;
        self.answered(true, || async {
            let r: Option<WorkspaceSymbolResponse> = self
                .ask("workspace/symbol", json!({"query": query}))
                .await?;
            // Both shapes of the answer as (name, kind, container, location).
            let found: Vec<(String, SymbolKind, Option<String>, Option<Loc>)> = match r {
                None => Vec::new(),
                Some(WorkspaceSymbolResponse::Flat(flat)) => flat
                    .into_iter()
                    .map(|s| {
                        let location = loc_of(&s.location.uri, s.location.range);
                        (s.name, s.kind, s.container_name, location)
                    })
                    .collect(),
                Some(WorkspaceSymbolResponse::Nested(nested)) => nested
                    .into_iter()
                    .map(|s| {
                        let location = match s.location {
                            lsp_types::OneOf::Left(l) => loc_of(&l.uri, l.range),
                            lsp_types::OneOf::Right(w) => {
                                loc_of(&w.uri, lsp_types::Range::default())
                            }
                        };
                        (s.name, s.kind, s.container_name, location)
                    })
                    .collect(),
            };
            let out: Vec<Symbol> = found
                .into_iter()
                .filter_map(|(name, kind, container, location)| {
                    Some(Symbol {
                        name,
                        kind: kind_name(kind),
                        container: container.filter(|c| !c.is_empty()),
                        detail: None,
                        location: location?,
                        full_range: None,
                    })
                })
                .collect();
            Ok(out)
        })
        .await
    }

    /// The function at a position, as call hierarchy knows it.
    pub async fn call_items(&self, path: &Path, pos: Pos) -> Result<Vec<CallHierarchyItem>> {
        self.require(
            self.client.capabilities().call_hierarchy_provider.is_some(),
            "get_call_hierarchy",
        )?;
        let params = self.at(path, pos).await?;
        Ok(self
            .answered(false, || async {
                let items: Option<Vec<CallHierarchyItem>> = self
                    .ask("textDocument/prepareCallHierarchy", params.clone())
                    .await?;
                Ok(items.unwrap_or_default())
            })
            .await?
            .value)
    }

    pub async fn incoming_calls(&self, item: &CallHierarchyItem) -> Result<Answer<Vec<Call>>> {
        let item = serde_json::to_value(item).map_err(|e| Error::Io(e.to_string()))?;
        self.answered(true, || async {
            let calls: Option<Vec<CallHierarchyIncomingCall>> = self
                .ask("callHierarchy/incomingCalls", json!({"item": item.clone()}))
                .await?;
            Ok(calls
                .unwrap_or_default()
                .into_iter()
                .filter_map(|c| call_of(&c.from, &c.from_ranges, None))
                .collect::<Vec<_>>())
        })
        .await
    }

    pub async fn outgoing_calls(&self, item: &CallHierarchyItem) -> Result<Answer<Vec<Call>>> {
        let Some(here) = uri::to_path(&item.uri) else {
            return Ok(Answer {
                value: Vec::new(),
                indexing: None,
            });
        };
        // Some servers (clangd) answer only about documents they have open.
        self.open(&here).await?;
        let item = serde_json::to_value(item).map_err(|e| Error::Io(e.to_string()))?;
        self.answered(false, || async {
            let calls: Option<Vec<CallHierarchyOutgoingCall>> = self
                .ask("callHierarchy/outgoingCalls", json!({"item": item.clone()}))
                .await?;
            Ok(calls
                .unwrap_or_default()
                .into_iter()
                .filter_map(|c| call_of(&c.to, &c.from_ranges, Some(&here)))
                .collect::<Vec<_>>())
        })
        .await
    }

    /// A file's diagnostics from the server: asked for (`textDocument/diagnostic`) where the
    /// server offers that, else the ones it publishes after the file is opened or changed,
    /// waited for up to `wait`. `None`: none came in time.
    pub async fn file_diagnostics(&self, path: &Path, wait: Duration) -> Result<Option<Vec<Diag>>> {
        Ok(self
            .raw_diagnostics(path, wait)
            .await?
            .map(|all| all.into_iter().map(|d| diag_of(path, d)).collect()))
    }

    /// A file's diagnostics as the server sent them (what a code action's context gives
    /// back), found as [`Server::file_diagnostics`] finds them.
    pub(crate) async fn raw_diagnostics(
        &self,
        path: &Path,
        wait: Duration,
    ) -> Result<Option<Vec<lsp_types::Diagnostic>>> {
        if !path.is_file() {
            return Err(Error::InvalidPath {
                path: path.to_owned(),
                message: format!("{} is not a file", path.display()),
            });
        }
        self.report_disk_changes().await;
        let (_, version) = self
            .client
            .sync_document(path, resolve_pr_source::language_id(path))
            .await?;
        let uri = uri::from_path(path)?;
        if self.client.capabilities().diagnostic_provider.is_some() {
            // A file's errors depend on the project around it: asked while the server still
            // loads it (rust-analyzer does for seconds), the answer is an empty list.
            self.warm_up().await;
            self.client
                .wait_ready(crate::deadline::wait_until(self.ready_wait))
                .await;
            let report: Value = self
                .ask(
                    "textDocument/diagnostic",
                    json!({"textDocument": {"uri": uri.as_str()}}),
                )
                .await?;
            let items: Vec<lsp_types::Diagnostic> = report
                .get("items")
                .cloned()
                .and_then(|v| serde_json::from_value(v).ok())
                .unwrap_or_default();
            return Ok(Some(items));
        }
        let published = self
            .client
            .published_diagnostics(path, version, crate::deadline::wait_until(wait))
            .await;
        Ok(published.map(|p| p.diagnostics))
    }

    /// Turns a target into a position to ask at.
    pub async fn resolve(&self, target: &Target) -> Result<Resolved> {
        match target {
            Target::Position { path, pos } => Ok(Resolved {
                path: path.clone(),
                pos: *pos,
                symbol: None,
                others: Vec::new(),
            }),
            Target::Failure { path, line } => {
                let symbols = self.document_symbols(path).await?;
                let callable = ["function", "method", "constructor"];
                let enclosing = symbols
                    .iter()
                    .filter(|s| callable.contains(&s.kind))
                    .filter(|s| {
                        let r = s.full_range.unwrap_or(s.location.range);
                        r.start.line <= *line && *line <= r.end.line
                    })
                    // The innermost: the one that starts last.
                    .max_by_key(|s| s.full_range.unwrap_or(s.location.range).start)
                    .cloned();
                let Some(symbol) = enclosing else {
                    return Err(Error::SymbolNotFound(format!(
                        "no function or method of {} contains line {} (lines count from 1 here)",
                        path.display(),
                        line + 1
                    )));
                };
                Ok(Resolved {
                    path: path.clone(),
                    pos: symbol.location.range.start,
                    symbol: Some(symbol),
                    others: Vec::new(),
                })
            }
            Target::Symbol { name, kind } => self.resolve_name(name, kind.as_deref()).await,
        }
    }

    /// A symbol by name: `add_numbers`, or qualified by what it is declared in
    /// (`Circle::area`, `Circle.area`, `shapes::Circle::area`).
    async fn resolve_name(&self, name: &str, kind: Option<&str>) -> Result<Resolved> {
        let parts: Vec<&str> = name
            .split("::")
            .flat_map(|p| p.split('.'))
            .filter(|p| !p.is_empty())
            .collect();
        let Some((&last, qualifiers)) = parts.split_last() else {
            return Err(Error::InvalidPosition(format!("{name:?} names no symbol")));
        };
        let answer = self.workspace_symbols(last).await?;
        let still_indexing = answer.indexing.clone();
        let found = answer.value;
        let mut matches: Vec<Symbol> = Vec::new();
        for s in found.into_iter().filter(|s| bare_name(&s.name) == last) {
            // gopls names a method with its receiver ("Circle.Area"), which qualifies it.
            let owner = s
                .name
                .split('(')
                .next()
                .and_then(|n| n.rsplit_once("::").or_else(|| n.rsplit_once('.')))
                .map(|(owner, _)| owner.to_owned());
            if kind.is_some_and(|k| k != s.kind) {
                continue;
            }
            // The name's own position and container from the file's outline, which is
            // precise where a workspace symbol's range may be the whole declaration.
            let refined = self.refine(&s).await.unwrap_or_else(|| s.clone());
            if let Some(parent) = qualifiers.last() {
                let container = refined
                    .container
                    .as_deref()
                    .or(s.container.as_deref())
                    .unwrap_or("");
                let by_owner = owner
                    .as_deref()
                    .is_some_and(|o| container_matches(o, parent));
                // A module path (budget::cut): the qualifier names the file or a directory.
                let by_module = refined
                    .location
                    .path
                    .strip_prefix(&self.root)
                    .ok()
                    .is_some_and(|rel| {
                        rel.with_extension("")
                            .components()
                            .any(|c| c.as_os_str() == std::ffi::OsStr::new(parent))
                    });
                if !container_matches(container, parent) && !by_owner && !by_module {
                    continue;
                }
            }
            if !matches.contains(&refined) {
                matches.push(refined);
            }
        }
        // Declarations in the workspace's own files before those in dependencies; types and
        // functions before methods, and those before fields, variants and variables.
        let rank = |kind: &str| match kind {
            "class" | "struct" | "interface" | "enum" | "function" => 0,
            "method" | "constructor" => 1,
            _ => 2,
        };
        matches.sort_by_key(|s| {
            (
                !s.location.path.starts_with(&self.root),
                rank(s.kind),
                s.location.path.clone(),
                s.location.range.start,
            )
        });
        let mut matches = matches.into_iter();
        let Some(first) = matches.next() else {
            if let Some(busy) = still_indexing {
                return Err(Error::Indexing(format!(
                    "{} is still indexing ({busy}) and has not found {name} yet",
                    self.name()
                )));
            }
            return Err(Error::SymbolNotFound(format!(
                "no symbol named {name}{} was found by {}",
                kind.map(|k| format!(" of kind {k}")).unwrap_or_default(),
                self.name()
            )));
        };
        Ok(Resolved {
            path: first.location.path.clone(),
            pos: first.location.range.start,
            symbol: Some(first),
            others: matches.collect(),
        })
    }

    /// The outline entry for a workspace symbol: its name's exact position and its parent.
    async fn refine(&self, s: &Symbol) -> Option<Symbol> {
        let outline = self.document_symbols(&s.location.path).await.ok()?;
        let r = s.location.range;
        let bare = bare_name(&s.name);
        let hit = outline.iter().find(|o| {
            bare_name(&o.name) == bare
                && (o.location.range == r
                    || o.full_range == Some(r)
                    || o.full_range
                        .is_some_and(|f| f.start <= r.start && r.start <= f.end))
        });
        if let Some(hit) = hit {
            return Some(Symbol {
                container: hit.container.clone().or_else(|| s.container.clone()),
                ..hit.clone()
            });
        }
        // No outline entry: the name's first occurrence in the range the server gave.
        let text = std::fs::read_to_string(&s.location.path).ok()?;
        let col = find_name(&text, r.start.line, r.start.character, bare)?;
        let mut at = s.clone();
        at.location.range = Span {
            start: Pos {
                line: r.start.line,
                character: col,
            },
            end: Pos {
                line: r.start.line,
                character: col + u32::try_from(bare.encode_utf16().count()).unwrap_or(0),
            },
        };
        Some(at)
    }
}

/// Whether a container as a server names it (`Circle`, `impl Shape for Circle`,
/// `shapes.Circle`, `Circle<T>`) is the qualifier an agent wrote.
fn container_matches(container: &str, qualifier: &str) -> bool {
    let words: Vec<&str> = container
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect();
    words.contains(&qualifier)
}

/// The bare name of a symbol as servers name it: pyright and others add the signature
/// (`area(self)`), gopls the receiver (`Circle.Area`, `(*Circle).Area` in outlines).
fn bare_name(name: &str) -> &str {
    let name = match name.rsplit_once(')') {
        // "(*Circle).Area": the receiver first.
        Some((head, tail)) if head.starts_with('(') => tail.trim_start_matches(['.', ' ']),
        _ => name.split('(').next().unwrap_or(name),
    }
    .trim();
    name.rsplit_once("::")
        .or_else(|| name.rsplit_once('.'))
        .map(|(_, last)| last)
        .unwrap_or(name)
}

/// A call to or from `other`, its sites in `sites_in` (outgoing: the function asked about)
/// or else in `other`'s own file (incoming: the caller's).
fn call_of(
    other: &CallHierarchyItem,
    ranges: &[lsp_types::Range],
    sites_in: Option<&Path>,
) -> Option<Call> {
    let other = item_symbol(other)?;
    let path = sites_in.unwrap_or(&other.location.path).to_owned();
    let sites = ranges
        .iter()
        .map(|r| Loc {
            path: path.clone(),
            range: span_of(*r),
        })
        .collect();
    Some(Call { other, sites })
}

fn item_symbol(item: &CallHierarchyItem) -> Option<Symbol> {
    Some(Symbol {
        name: item.name.clone(),
        kind: kind_name(item.kind),
        container: item.detail.clone().filter(|d| !d.is_empty()),
        detail: item.detail.clone(),
        location: loc_of(&item.uri, item.selection_range)?,
        full_range: Some(span_of(item.range)),
    })
}

fn diag_of(path: &Path, d: lsp_types::Diagnostic) -> Diag {
    let severity = match d.severity {
        Some(lsp_types::DiagnosticSeverity::WARNING) => "warning",
        Some(lsp_types::DiagnosticSeverity::INFORMATION) => "information",
        Some(lsp_types::DiagnosticSeverity::HINT) => "hint",
        // The protocol says a missing severity is the client's to interpret: an error.
        _ => "error",
    };
    Diag {
        location: Loc {
            path: path.to_owned(),
            range: span_of(d.range),
        },
        severity,
        code: d.code.map(|c| match c {
            lsp_types::NumberOrString::Number(n) => n.to_string(),
            lsp_types::NumberOrString::String(s) => s,
        }),
        source: d.source,
        message: d.message,
    }
}

fn hover_text(contents: HoverContents) -> String {
    fn marked(m: MarkedString) -> String {
        match m {
            MarkedString::String(s) => s,
            MarkedString::LanguageString(ls) => format!("```{}\n{}\n```", ls.language, ls.value),
        }
    }
    match contents {
        HoverContents::Scalar(m) => marked(m),
        HoverContents::Array(ms) => ms.into_iter().map(marked).collect::<Vec<_>>().join("\n\n"),
        HoverContents::Markup(m) => m.value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_named_in_lower_snake_case() {
        assert_eq!(kind_name(SymbolKind::FUNCTION), "function");
        assert_eq!(kind_name(SymbolKind::ENUM_MEMBER), "enum_member");
        assert_eq!(kind_name(SymbolKind::TYPE_PARAMETER), "type_parameter");
    }

    #[test]
    fn names_are_found_as_whole_words_in_utf16_columns() {
        let text = "let 😀 = add_numbers(add, x_add);\n";
        assert_eq!(find_name(text, 0, 0, "add"), Some(21));
        assert_eq!(find_name(text, 0, 0, "add_numbers"), Some(9));
        assert_eq!(find_name(text, 1, 0, "add"), None);
        assert_eq!(line_utf16_len("a😀b\r\nxy", 0), Some(4));
        assert_eq!(line_utf16_len("a\n", 2), None);
    }

    #[test]
    fn containers_match_a_qualifier_as_a_word() {
        assert!(container_matches("impl Shape for Circle", "Circle"));
        assert!(container_matches("shapes.Circle", "Circle"));
        assert!(!container_matches("Circles", "Circle"));
        assert_eq!(bare_name("area(self)"), "area");
        assert_eq!(bare_name("Circle.Area"), "Area");
        assert_eq!(bare_name("(*Circle).Area"), "Area");
        assert_eq!(bare_name("shapes::Circle::area"), "area");
    }
}
