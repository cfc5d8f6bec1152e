//! Editing help a server gives at a position: completions (`textDocument/completion`,
//! never resolved item by item) and signature help (`textDocument/signatureHelp`), in our
//! own types.

use std::path::Path;

use lsp_types::{
    CompletionItem, CompletionResponse, CompletionTextEdit, Documentation, ParameterLabel,
    SignatureHelp,
};
use serde_json::json;

use crate::error::Result;
use crate::nav::{Answer, Emptiness, Pos, Span};
use crate::pool::Server;

/// One completion the server offers.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub label: String,
    /// LSP's completion kind in lower case (`function`, `method`, `enum_member`).
    pub kind: Option<&'static str>,
    /// The type or signature the server shows beside it.
    pub detail: Option<String>,
    /// What accepting it inserts: its text edit's text, else its `insertText`, else its label.
    pub insert_text: String,
    /// What `insert_text` replaces, when the server said (its text edit's range: a member
    /// completion may replace the `.` before it); else the word at the position.
    pub range: Option<Span>,
    pub sort_text: Option<String>,
}

/// The completions at a position, in the server's order (`sortText`, then label).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completions {
    pub items: Vec<Completion>,
    /// The server says typing further changes the list (`isIncomplete`).
    pub incomplete: bool,
}

impl Emptiness for Completions {
    fn empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// One signature of the call at a position.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    pub label: String,
    /// Plain text or markdown, as the server gave it.
    pub documentation: Option<String>,
    /// Each parameter's label (offsets into the signature's label made text).
    pub parameters: Vec<String>,
    pub active_parameter: Option<u32>,
}

/// The signatures of the call at a position.
#[derive(Debug, Clone, PartialEq)]
pub struct Signatures {
    pub signatures: Vec<Signature>,
    pub active_signature: Option<u32>,
}

/// LSP's `CompletionItemKind` in lower snake case.
pub fn completion_kind_name(kind: lsp_types::CompletionItemKind) -> &'static str {
    const NAMES: [&str; 25] = [
        "text",
        "method",
        "function",
        "constructor",
        "field",
        "variable",
        "class",
        "interface",
        "module",
        "property",
        "unit",
        "value",
        "enum",
        "keyword",
        "snippet",
        "color",
        "file",
        "reference",
        "folder",
        "enum_member",
        "constant",
        "struct",
        "event",
        "operator",
        "type_parameter",
    ];
    let n = serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_i64())
        .unwrap_or(0);
    usize::try_from(n - 1)
        .ok()
        .and_then(|i| NAMES.get(i))
        .copied()
        .unwrap_or("unknown")
}

fn completion_of(item: CompletionItem) -> Completion {
    let span = |r: lsp_types::Range| Span {
        start: Pos {
            line: r.start.line,
            character: r.start.character,
        },
        end: Pos {
            line: r.end.line,
            character: r.end.character,
        },
    };
    let (insert_text, range) = match item.text_edit {
        Some(CompletionTextEdit::Edit(e)) => (e.new_text, Some(span(e.range))),
        Some(CompletionTextEdit::InsertAndReplace(e)) => (e.new_text, Some(span(e.insert))),
        None => (item.insert_text.unwrap_or_else(|| item.label.clone()), None),
    };
    let detail = item.detail.filter(|d| !d.trim().is_empty()).or_else(|| {
        item.label_details
            .and_then(|l| l.detail.or(l.description))
            .filter(|d| !d.trim().is_empty())
    });
    Completion {
        kind: item.kind.map(completion_kind_name),
        detail,
        insert_text,
        range,
        sort_text: item.sort_text,
        label: item.label,
    }
}

/// A completion answer in the server's order: by `sortText` (the label where it has none),
/// ties kept as the server listed them.
pub(crate) fn completions_of(answer: Option<CompletionResponse>) -> Completions {
    let (items, incomplete) = match answer {
        None => (Vec::new(), false),
        Some(CompletionResponse::Array(items)) => (items, false),
        Some(CompletionResponse::List(list)) => (list.items, list.is_incomplete),
    };
    let mut items: Vec<Completion> = items.into_iter().map(completion_of).collect();
    items.sort_by(|a, b| {
        let key = |c: &Completion| c.sort_text.clone().unwrap_or_else(|| c.label.clone());
        key(a).cmp(&key(b))
    });
    Completions { items, incomplete }
}

/// The part of `label` between two UTF-16 offsets (clamped to it).
fn utf16_slice(label: &str, start: u32, end: u32) -> String {
    let mut at = 0u32;
    let mut out = String::new();
    for c in label.chars() {
        if at >= start && at < end {
            out.push(c);
        }
        at += u32::try_from(c.len_utf16()).unwrap_or(2);
    }
    out
}

fn documentation_text(d: Documentation) -> String {
    match d {
        Documentation::String(s) => s,
        Documentation::MarkupContent(m) => m.value,
    }
}

pub(crate) fn signatures_of(help: Option<SignatureHelp>) -> Option<Signatures> {
    let help = help?;
    if help.signatures.is_empty() {
        return None;
    }
    let signatures = help
        .signatures
        .into_iter()
        .map(|s| {
            let parameters = s
                .parameters
                .unwrap_or_default()
                .into_iter()
                .map(|p| match p.label {
                    ParameterLabel::Simple(l) => l,
                    ParameterLabel::LabelOffsets([a, b]) => utf16_slice(&s.label, a, b),
                })
                .collect();
            Signature {
                documentation: s
                    .documentation
                    .map(documentation_text)
                    .filter(|d| !d.trim().is_empty()),
                parameters,
                // A signature's own active parameter wins over the help's (LSP 3.16).
                active_parameter: s.active_parameter.or(help.active_parameter),
                label: s.label,
            }
        })
        .collect();
    Some(Signatures {
        signatures,
        active_signature: help.active_signature,
    })
}

impl Server {
    /// The completions at a position. `trigger`: the character just typed that asks for them
    /// (`.`), else they are asked for as by a key press. Items are not resolved.
    pub async fn completions(
        &self,
        path: &Path,
        pos: Pos,
        trigger: Option<&str>,
    ) -> Result<Answer<Completions>> {
        self.require(
            self.client.capabilities().completion_provider.is_some(),
            "get_completions",
        )?;
        let mut params = self.at(path, pos).await?;
        params["context"] = match trigger {
            Some(c) => json!({"triggerKind": 2, "triggerCharacter": c}),
            None => json!({"triggerKind": 1}),
        };
        self.answered(false, || async {
            let answer: Option<CompletionResponse> =
                self.ask("textDocument/completion", params.clone()).await?;
            Ok(completions_of(answer))
        })
        .await
    }

    /// The signatures of the call at a position; `None` when it is in no call.
    pub async fn signature_help(
        &self,
        path: &Path,
        pos: Pos,
    ) -> Result<Answer<Option<Signatures>>> {
        self.require(
            self.client.capabilities().signature_help_provider.is_some(),
            "get_signature_help",
        )?;
        let mut params = self.at(path, pos).await?;
        params["context"] = json!({"triggerKind": 1, "isRetrigger": false});
        self.answered(false, || async {
            let help: Option<SignatureHelp> = self
                .ask("textDocument/signatureHelp", params.clone())
                .await?;
            Ok(signatures_of(help))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn parse<T: serde::de::DeserializeOwned>(v: Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn completions_come_in_sort_text_order_with_what_they_insert() {
        let list = json!({"isIncomplete": true, "items": [
            {"label": "zeta", "kind": 2, "sortText": "0"},
            {"label": "alpha", "kind": 3, "insertText": "alpha()", "sortText": "1"},
            {"label": "beta", "kind": 20, "detail": "int",
             "textEdit": {"range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 4}}, "newText": "beta_"}},
            {"label": "gamma", "labelDetails": {"description": "module x"},
             "textEdit": {"insert": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 4}},
                          "replace": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 5}}, "newText": "gam"}},
        ]});
        let got = completions_of(parse(list));
        assert!(got.incomplete);
        let labels: Vec<&str> = got.items.iter().map(|c| c.label.as_str()).collect();
        // sortText "0" < "1" < labels "beta" < "gamma".
        assert_eq!(labels, ["zeta", "alpha", "beta", "gamma"]);
        assert_eq!(got.items[0].kind, Some("method"));
        assert_eq!(got.items[0].insert_text, "zeta");
        assert_eq!(got.items[1].insert_text, "alpha()");
        assert_eq!(got.items[2].insert_text, "beta_");
        assert_eq!(got.items[2].range.map(|r| r.start.character), Some(4));
        assert_eq!(got.items[1].range, None);
        assert_eq!(got.items[2].kind, Some("enum_member"));
        assert_eq!(got.items[2].detail.as_deref(), Some("int"));
        assert_eq!(got.items[3].insert_text, "gam");
        assert_eq!(got.items[3].detail.as_deref(), Some("module x"));
        let array = completions_of(parse(json!([{"label": "x"}])));
        assert!(!array.incomplete);
        assert_eq!(array.items.len(), 1);
        assert_eq!(completions_of(None), Completions::default());
    }

    #[test]
    fn parameter_offsets_become_their_text_in_utf16_units() {
        let help = json!({"signatures": [
            {"label": "f(😀: int, b: str)", "documentation": {"kind": "markdown", "value": "Does f."},
             "parameters": [{"label": [2, 9]}, {"label": "b: str"}]},
            {"label": "f()", "activeParameter": 0},
        ], "activeSignature": 0, "activeParameter": 1});
        let got = signatures_of(parse(help)).unwrap();
        assert_eq!(got.active_signature, Some(0));
        let first = &got.signatures[0];
        assert_eq!(first.parameters, ["😀: int", "b: str"]);
        assert_eq!(first.active_parameter, Some(1));
        assert_eq!(first.documentation.as_deref(), Some("Does f."));
        assert_eq!(got.signatures[1].active_parameter, Some(0));
        assert_eq!(signatures_of(parse(json!({"signatures": []}))), None);
        assert_eq!(signatures_of(None), None);
    }

    #[test]
    fn completion_kinds_are_named() {
        assert_eq!(
            completion_kind_name(lsp_types::CompletionItemKind::FUNCTION),
            "function"
        );
        assert_eq!(
            completion_kind_name(lsp_types::CompletionItemKind::TYPE_PARAMETER),
            "type_parameter"
        );
    }
}
