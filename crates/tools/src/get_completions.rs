//! `get_completions`: what the language server would complete at a position, as an editor
//! asks it (`textDocument/completion`, items never resolved one by one), in the server's
//! order, paged.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{
    ONE_BASED, Position, Range, TargetArgs, aim, check_cursor, display_path, guessed_flags,
    lsp_error, range, relative_error, shown_at,
};
use crate::registry::Tool;

/// Items a page shows by default, and at most.
const DEFAULT_LIMIT: usize = 50;
const MAX_LIMIT: usize = 500;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[schemars(example = &"src/lib.rs")]
    pub file_path: String,
    pub position: Position,
    /// The character just typed that asks for completions ("."). Default: asked as by a key.
    #[serde(default)]
    pub trigger_character: Option<String>,
    /// Items a page shows. Default: 50.
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    pub label: String,
    /// LSP's completion kind in lower case: function, method, field, variable, keyword, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Its type or signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What accepting it inserts.
    pub insert_text: String,
    /// What insert_text replaces, when the server said (a member's may take the `.`); else
    /// the word at the position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<Range>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_text: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    pub file_path: String,
    pub position: Position,
    /// This page, in the server's order.
    pub items: Vec<Item>,
    /// On every page.
    pub total: usize,
    /// The server says typing more changes the list.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexing: Option<String>,
    pub server: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

pub struct GetCompletions;

impl Tool for GetCompletions {
    const NAME: &'static str = "get_completions";
    const TITLE: &'static str = "Get completions";
    const DESCRIPTION: &'static str = "What the language server completes at a position (after \
`obj.`: its members), in the server's order, paged by cursor; each item's label, kind, detail and insert text.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        check_cursor(ctx, Self::NAME, raw, input.cursor.as_deref())?;
        let limit = input.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
        let args = TargetArgs {
            directory: input.directory.as_deref(),
            file_path: Some(&input.file_path),
            position: Some(input.position),
            symbol: None,
            symbol_kind: None,
            language: None,
            from_failure: None,
        };
        let aimed = aim(ctx, &args).await?;
        let (path, pos) = (&aimed.resolved.path, aimed.resolved.pos);
        let server = &aimed.server;
        let answer = server
            .completions(path, pos, input.trigger_character.as_deref())
            .await
            .map_err(|e| relative_error(lsp_error(e), &aimed.workspace))?;
        let total = answer.value.items.len();
        let start = match input.cursor.as_deref() {
            Some(c) => {
                ctx.cursors
                    .decode::<crate::code::Offset>(Self::NAME, raw, c)?
                    .offset
            }
            None => 0,
        };
        let items: Vec<Item> = answer
            .value
            .items
            .into_iter()
            .skip(start)
            .take(limit)
            .map(|c| Item {
                label: c.label,
                kind: c.kind.map(str::to_owned),
                detail: c.detail.map(|d| cut(&d, DETAIL_CHARS)),
                insert_text: c.insert_text,
                range: c.range.map(range),
                sort_text: c.sort_text,
            })
            .collect();
        let next_cursor = (start + limit < total).then(|| {
            ctx.cursors.encode(
                Self::NAME,
                raw,
                &crate::code::Offset {
                    offset: start + limit,
                },
            )
        });
        let mut warnings = Vec::new();
        let guessed = guessed_flags(server, path);
        let partial = answer.indexing.is_some() || guessed.is_some();
        warnings.extend(guessed);
        Ok(Output {
            file_path: display_path(&aimed.workspace, path),
            position: input.position,
            items,
            total,
            incomplete: answer.value.incomplete,
            next_cursor,
            partial,
            indexing: answer.indexing,
            server: server.installed.spec.name.to_owned(),
            warnings,
        })
    }

    fn render(output: &Output) -> String {
        let at = shown_at(
            &output.file_path,
            output.position.line,
            output.position.character,
        );
        let mut text = format!(
            "{} completions at {at} {ONE_BASED} from {}",
            output.total, output.server
        );
        if output.incomplete {
            text.push_str("; the server says typing more changes the list");
        }
        if let Some(i) = &output.indexing {
            text.push_str(&format!(
                "; still indexing ({i}), so this may be incomplete"
            ));
        }
        for item in &output.items {
            text.push_str(&format!("\n{}", item.label));
            if let Some(k) = &item.kind {
                text.push_str(&format!(" ({k})"));
            }
            if let Some(d) = &item.detail {
                text.push_str(&format!(": {d}"));
            }
            if item.insert_text != item.label {
                text.push_str(&format!("  inserts {:?}", item.insert_text));
            }
            // Said only when it replaces something (an empty range at the position is
            // what inserting means anyway).
            if let Some(r) = item.range.filter(|r| r.start != r.end) {
                let at = |p: Position| {
                    format!("{}:{}", u64::from(p.line) + 1, u64::from(p.character) + 1)
                };
                text.push_str(&format!(" replacing {}-{}", at(r.start), at(r.end)));
            }
        }
        for w in &output.warnings {
            text.push('\n');
            text.push_str(w);
        }
        text
    }

    fn shown(output: &Output) -> Option<(usize, Option<usize>)> {
        Some((output.items.len(), Some(output.total)))
    }
}

/// Characters of an item's detail kept (a long signature is cut, with `…`).
const DETAIL_CHARS: usize = 200;

fn cut(s: &str, chars: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= chars {
        return one_line;
    }
    let mut out: String = one_line.chars().take(chars).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(label: &str, insert: &str, range: Option<((u32, u32), (u32, u32))>) -> Item {
        let p = |(line, character)| Position { line, character };
        Item {
            label: label.to_owned(),
            kind: Some("method".to_owned()),
            detail: None,
            insert_text: insert.to_owned(),
            range: range.map(|(a, b)| Range {
                start: p(a),
                end: p(b),
            }),
            sort_text: None,
        }
    }

    #[test]
    fn the_text_says_what_an_item_inserts_and_replaces_when_not_just_its_label() {
        let output = Output {
            file_path: "src/a.ts".to_owned(),
            position: Position {
                line: 3,
                character: 2,
            },
            items: vec![
                item("plain", "plain", Some(((3, 2), (3, 2)))),
                item("alphaOne", ".alphaOne", Some(((3, 1), (3, 2)))),
            ],
            total: 7,
            incomplete: true,
            next_cursor: None,
            partial: false,
            indexing: None,
            server: "tsls".to_owned(),
            warnings: Vec::new(),
        };
        let text = GetCompletions::render(&output);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("7 completions at src/a.ts:4:3 "),
            "{text}"
        );
        assert!(lines[0].contains("typing more changes the list"), "{text}");
        assert_eq!(lines[1], "plain (method)");
        assert_eq!(
            lines[2],
            "alphaOne (method)  inserts \".alphaOne\" replacing 4:2-4:3"
        );
        assert_eq!(cut("a\n   b", 10), "a b");
        assert_eq!(cut(&"x".repeat(300), DETAIL_CHARS).chars().count(), 201);
    }
}
