//! `get_symbol_info`: what the language server says about the symbol at a position (or
//! named): its hover text (signature and documentation) and where it is defined.

use resolve_pr_core::{Result, budget};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{Location, SymbolInfo, Texts, aim, lsp_error, symbol_info, target_input, target_warnings};
use crate::registry::Tool;

/// Bytes of hover text shown.
const HOVER_BYTES: usize = 4000;

target_input! {
    pub struct Input {}
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// The symbol, when it was named by symbol or from_failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SymbolInfo>,
    /// Signature and documentation, markdown as the server wrote it; absent when it had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<String>,
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
    const DESCRIPTION: &'static str = "The signature, type and documentation of the symbol at a \
position (or named, or the function holding a failure's line), and where it is defined, by \
the language server.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let aimed = aim(ctx, &input.target()).await?;
        let (path, pos) = (&aimed.resolved.path, aimed.resolved.pos);
        let server = &aimed.server;
        let (hover, definition) = tokio::join!(server.hover(path, pos), server.definition(path, pos));
        let hover = hover.map_err(lsp_error)?;
        // A server without go-to-definition still has hover text worth giving.
        let definition = definition.ok();
        let mut texts = Texts::default();
        let info = hover.value.map(|h| cut_markdown(&h, HOVER_BYTES));
        Ok(Output {
            target: aimed
                .resolved
                .symbol
                .as_ref()
                .map(|s| symbol_info(&mut texts, &aimed.workspace, server.language, s)),
            info,
            definitions: definition
                .as_ref()
                .map(|d| d.value.iter().map(|l| texts.location(&aimed.workspace, l)).collect())
                .unwrap_or_default(),
            partial: hover.indexing.is_some(),
            server: server.installed.spec.name.to_owned(),
            warnings: target_warnings(&mut texts, &aimed),
        })
    }

    fn render(out: &Output) -> String {
        let mut text = match &out.target {
            Some(t) => format!("{} {} ({} {}:{})", t.symbol_kind, t.name, t.location.file_path, t.location.range.start.line, t.location.range.start.character),
            None => "Symbol".to_owned(),
        };
        if out.partial {
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
            text.push_str(&format!("\ndefined at {} {}:{}", d.file_path, d.range.start.line, d.range.start.character));
        }
        for w in &out.warnings {
            text.push('\n');
            text.push_str(w);
        }
        text
    }
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
        let text = format!("```rust\npub fn f()\n{}\n```\n\nDocs.", "let x = 1;\n".repeat(50));
        let cut = cut_markdown(&text, 100);
        assert_eq!(cut.matches("```").count(), 2, "{cut}");
        let body = cut.split("\n…[cut").next().unwrap();
        assert!(body.ends_with("\n```"), "{cut}");
        assert!(body.lines().all(|l| l == "```rust" || l == "```" || l == "pub fn f()" || l == "let x = 1;"), "{cut}");
        assert!(cut.contains(&format!("of {} bytes", text.len())), "{cut}");
    }

    #[test]
    fn a_partial_answer_says_so_in_its_text() {
        use crate::registry::Tool;
        let out = |partial| super::Output {
            target: None,
            info: Some("fn f()".into()),
            definitions: Vec::new(),
            partial,
            server: "rust-analyzer".into(),
            warnings: Vec::new(),
        };
        assert!(super::GetSymbolInfo::render(&out(true)).contains("still indexing"));
        assert!(!super::GetSymbolInfo::render(&out(false)).contains("indexing"));
    }

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(cut_markdown("```rust\nfn f()\n```", 100), "```rust\nfn f()\n```");
    }
}
