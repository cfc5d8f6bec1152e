//! `get_symbol_info`: what the language server says about the symbol at a position (or
//! named): its hover text (signature and documentation) and where it is defined.

use resolve_pr_core::{Result, budget};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{
    Location, SymbolInfo, Texts, aim, guessed_flags, lsp_error, relative_error, symbol_at,
    symbol_info, target_input, target_warnings,
};
use crate::registry::Tool;

/// Bytes of hover text shown.
const HOVER_BYTES: usize = 4000;
/// Bytes of a symbol's source shown.
const BODY_BYTES: usize = 8000;

target_input! {
    pub struct Input {
        /// Also its source, cut to 8 kB.
        #[serde(default)]
        pub include_body: Option<bool>,
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SymbolInfo>,
    /// Signature and docs (markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Where it is defined.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<Location>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    pub server: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

pub struct GetSymbolInfo;

impl Tool for GetSymbolInfo {
    const NAME: &'static str = "get_symbol_info";
    const TITLE: &'static str = "Get symbol information";
    const DESCRIPTION: &'static str = "The signature, type and docs of the symbol at a position \
(or named, or the function holding a failure's line), and where it is defined.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let aimed = aim(ctx, &input.target()).await?;
        let (path, pos) = (&aimed.resolved.path, aimed.resolved.pos);
        let server = &aimed.server;
        let (hover, definition) =
            tokio::join!(server.hover(path, pos), server.definition(path, pos));
        let hover = hover.map_err(|e| relative_error(lsp_error(e), &aimed.workspace))?;
        // A server without go-to-definition still has hover text worth giving.
        let definition = definition.ok();
        let mut texts = Texts::default();
        let info = hover
            .value
            .map(|h| cut_markdown(&clean_hover(&h), HOVER_BYTES));
        let symbol = match &aimed.resolved.symbol {
            Some(s) => Some(s.clone()),
            None => {
                symbol_at(
                    server,
                    path,
                    pos,
                    definition.as_ref().map(|d| d.value.as_slice()),
                )
                .await
            }
        };
        let body = match (&symbol, input.include_body) {
            (Some(s), Some(true)) => Some(body_of(s).await),
            (None, Some(true)) => {
                Some("(no declaration was found to show the source of)".to_owned())
            }
            _ => None,
        };
        let mut warnings = target_warnings(&mut texts, &aimed);
        let guessed = guessed_flags(server, path);
        let partial = hover.indexing.is_some() || guessed.is_some();
        warnings.extend(guessed);
        Ok(Output {
            target: symbol
                .as_ref()
                .map(|s| symbol_info(&mut texts, &aimed.workspace, server.language, s)),
            info,
            body,
            definitions: definition
                .as_ref()
                .map(|d| {
                    d.value
                        .iter()
                        .map(|l| texts.location(&aimed.workspace, l))
                        .collect()
                })
                .unwrap_or_default(),
            partial,
            server: server.installed.spec.name.to_owned(),
            warnings,
        })
    }

    fn render(out: &Output) -> String {
        let mut text = match &out.target {
            Some(t) => format!(
                "{} {} ({}) {}",
                t.symbol_kind,
                t.name,
                crate::code::shown_at(
                    &t.location.file_path,
                    t.location.range.start.line,
                    t.location.range.start.character
                ),
                crate::code::ONE_BASED
            ),
            None => "Symbol".to_owned(),
        };
        if out.partial
            && !out
                .warnings
                .iter()
                .any(|w| w.starts_with("NO_COMPILE_DATABASE"))
        {
            text.push_str(" (the server is still indexing; this may be incomplete)");
        }
        match &out.info {
            Some(i) => {
                text.push('\n');
                text.push_str(i);
            }
            None => text.push_str(": the server has no information about it"),
        }
        for d in &out.definitions {
            text.push_str(&format!(
                "\ndefined at {}",
                crate::code::shown_at(&d.file_path, d.range.start.line, d.range.start.character)
            ));
        }
        if let Some(b) = &out.body {
            text.push_str("\nsource:\n");
            text.push_str(b);
        }
        for w in &out.warnings {
            text.push('\n');
            text.push_str(w);
        }
        text
    }
}

/// The symbol's whole declaration as the file has it (its full range from the server's
/// outline, else the declaration tree-sitter finds around its name), cut to [`BODY_BYTES`]
/// at a line's end with what was cut said.
async fn body_of(symbol: &resolve_pr_lsp::Symbol) -> String {
    let symbol = symbol.clone();
    tokio::task::spawn_blocking(move || {
        let path = &symbol.location.path;
        let Ok(source) = std::fs::read_to_string(path) else {
            return format!("({} cannot be read)", path.file_name().unwrap_or_default().to_string_lossy());
        };
        let lines: Vec<&str> = source.split('\n').collect();
        let name_at = symbol.location.range.start;
        let from_outline = symbol.full_range.filter(|r| r.end.line > r.start.line || r != &symbol.location.range).map(|r| (r.start.line, r.end.line));
        let from_syntax = || {
            let language = resolve_pr_syntax::dialect_of(&path.to_string_lossy())?;
            let e = resolve_pr_syntax::enclosing_declaration(language, &source, name_at.line, name_at.character).ok()??;
            Some((e.start_line, e.end_line))
        };
        let Some((start, end)) = from_outline.or_else(from_syntax) else {
            return lines.get(name_at.line as usize).map(|l| (*l).to_owned()).unwrap_or_default();
        };
        let end = (end as usize).min(lines.len().saturating_sub(1));
        let whole = lines.get(start as usize..=end).map(|l| l.join("\n")).unwrap_or_default();
        if whole.len() <= BODY_BYTES {
            return whole;
        }
        let mut kept = String::new();
        let mut shown = 0;
        for l in &lines[start as usize..=end] {
            if kept.len() + l.len() + 1 > BODY_BYTES {
                break;
            }
            kept.push_str(l);
            kept.push('\n');
            shown += 1;
        }
        format!(
            "{kept}…[cut: showing lines {}-{} of {}-{} (from 1); the rest: read the file from line {}]",
            start as usize + 1,
            start as usize + shown.max(1),
            start as usize + 1,
            end + 1,
            start as usize + shown + 1
        )
    })
    .await
    .unwrap_or_default()
}

/// Hover markdown without what rust-analyzer adds for editors: the "Implements notable
/// traits" comment, the memory layout line (`size = 8, align = 0x8`), and links (kept as
/// their text: their targets are editor commands, local files or web pages).
fn clean_hover(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("// Implements notable traits:")
            || t.starts_with("// Implements notable trait:")
            || (t.starts_with("size = ") && t.contains("align = "))
        {
            continue;
        }
        out.push(unlink(line));
    }
    // Separators left with nothing between them, or at the end; blank lines left in a run.
    let mut kept: Vec<String> = Vec::new();
    for line in out {
        if line.trim().is_empty() && kept.last().is_some_and(|l| l.trim().is_empty()) {
            continue;
        }
        if line.trim() == "---"
            && kept
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_none_or(|l| l.trim() == "---")
        {
            continue;
        }
        kept.push(line);
    }
    while kept
        .last()
        .is_some_and(|l| l.trim().is_empty() || l.trim() == "---")
    {
        kept.pop();
    }
    kept.join("\n")
}

/// `[text](target)` as `text`.
fn unlink(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else { break };
        let target = &after[close + 2..];
        let Some(end) = target.find(')') else { break };
        let label = &after[..close];
        let url = &target[..end];
        if label.contains('[') || !(url.contains("://") || url.starts_with('#')) {
            out.push_str(&rest[..=open]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..open]);
        out.push_str(label);
        rest = &target[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Hover markdown cut to `max_bytes` at a line's end, with a code fence the cut left open
/// closed again, so what follows the cut does not read as code.
fn cut_markdown(text: &str, max_bytes: usize) -> String {
    let cut = budget::cut(text, max_bytes, "the source at definitions");
    let Some(original) = cut.original_bytes else {
        return cut.text;
    };
    let mut end = max_bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let kept = match text[..end].rfind('\n') {
        Some(newline) => &text[..newline],
        None => &text[..end],
    };
    let open_fence = kept
        .lines()
        .filter(|l| l.trim_start().starts_with("```"))
        .count()
        % 2
        == 1;
    format!(
        "{kept}{}\n…[cut: showing {} of {original} bytes; full text: the source at definitions]",
        if open_fence { "\n```" } else { "" },
        kept.len()
    )
}

#[cfg(test)]
mod tests {
    use super::cut_markdown;

    #[test]
    fn a_cut_inside_a_code_fence_closes_it_at_a_line_end() {
        let text = format!(
            "```rust\npub fn f()\n{}\n```\n\nDocs.",
            "let x = 1;\n".repeat(50)
        );
        let cut = cut_markdown(&text, 100);
        assert_eq!(cut.matches("```").count(), 2, "{cut}");
        let body = cut.split("\n…[cut").next().unwrap();
        assert!(body.ends_with("\n```"), "{cut}");
        assert!(
            body.lines()
                .all(|l| l == "```rust" || l == "```" || l == "pub fn f()" || l == "let x = 1;"),
            "{cut}"
        );
        assert!(cut.contains(&format!("of {} bytes", text.len())), "{cut}");
    }

    #[test]
    fn a_partial_answer_says_so_in_its_text() {
        use crate::registry::Tool;
        let out = |partial| super::Output {
            target: None,
            info: Some("fn f()".into()),
            body: None,
            definitions: Vec::new(),
            partial,
            server: "rust-analyzer".into(),
            warnings: Vec::new(),
        };
        assert!(super::GetSymbolInfo::render(&out(true)).contains("still indexing"));
        assert!(!super::GetSymbolInfo::render(&out(false)).contains("indexing"));
    }

    #[test]
    fn rust_analyzer_editor_artefacts_are_left_out_of_hover_text() {
        let hover = "```rust\nmy_crate::stream\n```\n\n```rust\npub fn numbers() -> Numbers\n// Implements notable traits: Iterator<Item = u32>, Future<Output = ()>\n```\n\n---\n\nsize = 8, align = 0x4\n\n---\n\nThe numbers, see [`Numbers`](file:///home/me/src/lib.rs#L3) and [docs](https://docs.rs/x).";
        let clean = super::clean_hover(hover);
        assert!(!clean.contains("notable"), "{clean}");
        assert!(!clean.contains("align"), "{clean}");
        assert!(!clean.contains("file://"), "{clean}");
        assert!(!clean.contains("https://"), "{clean}");
        assert!(
            clean.contains("pub fn numbers() -> Numbers\n```"),
            "{clean}"
        );
        assert!(
            clean.ends_with("The numbers, see `Numbers` and docs."),
            "{clean}"
        );
        assert_eq!(clean.matches("---").count(), 1, "{clean}");
        assert!(!clean.contains("\n\n\n"), "{clean}");
        // Square brackets that are not links stay.
        assert_eq!(super::clean_hover("let a = v[0](x);"), "let a = v[0](x);");
    }

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(
            cut_markdown("```rust\nfn f()\n```", 100),
            "```rust\nfn f()\n```"
        );
    }
}
