//! `get_signature_help`: the signatures of the call at a position and which parameter the
//! position is at (`textDocument/signatureHelp`). A position in no call is an empty answer.

use resolve_pr_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::{
    ONE_BASED, Position, TargetArgs, aim, display_path, guessed_flags, lsp_error, relative_error,
    shown_at,
};
use crate::registry::Tool;

/// Characters of a signature's documentation kept.
const DOC_CHARS: usize = 1000;
/// Signatures an answer lists at most (overloads).
const MAX_SIGNATURES: usize = 20;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[schemars(example = &"src/lib.rs")]
    pub file_path: String,
    pub position: Position,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Signature {
    pub label: String,
    /// Plain text, cut to 1,000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
    /// Each parameter's label.
    pub parameters: Vec<String>,
    /// The parameter the position is at, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_parameter: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    pub file_path: String,
    pub position: Position,
    /// Empty: the position is in no call.
    pub signatures: Vec<Signature>,
    /// Which signature (overload) applies, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_signature: Option<u32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexing: Option<String>,
    pub server: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

pub struct GetSignatureHelp;

impl Tool for GetSignatureHelp {
    const NAME: &'static str = "get_signature_help";
    const TITLE: &'static str = "Get signature help";
    const DESCRIPTION: &'static str = "The signatures of the call at a position, their \
parameters and docs, and which parameter the position is at; empty when it is in no call.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
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
            .signature_help(path, pos)
            .await
            .map_err(|e| relative_error(lsp_error(e), &aimed.workspace))?;
        let (signatures, active_signature) = match answer.value {
            Some(s) => (
                s.signatures
                    .into_iter()
                    .take(MAX_SIGNATURES)
                    .map(|s| Signature {
                        label: s.label,
                        documentation: s.documentation.map(|d| plain(&d)),
                        parameters: s.parameters,
                        active_parameter: s.active_parameter,
                    })
                    .collect(),
                s.active_signature,
            ),
            None => (Vec::new(), None),
        };
        let mut warnings = Vec::new();
        let guessed = guessed_flags(server, path);
        let partial = answer.indexing.is_some() || guessed.is_some();
        warnings.extend(guessed);
        Ok(Output {
            file_path: display_path(&aimed.workspace, path),
            position: input.position,
            signatures,
            active_signature,
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
        if output.signatures.is_empty() {
            let mut text = format!(
                "No call at {at} {ONE_BASED}: {} has no signature to show there",
                output.server
            );
            if let Some(i) = &output.indexing {
                text.push_str(&format!(" (still indexing: {i})"));
            }
            return text;
        }
        let mut text = format!("Signature help at {at} {ONE_BASED} from {}", output.server);
        let active = output.active_signature.unwrap_or(0) as usize;
        for (i, s) in output.signatures.iter().enumerate() {
            let mark = if i == active && output.signatures.len() > 1 {
                "* "
            } else {
                ""
            };
            text.push_str(&format!("\n{mark}{}", s.label));
            if let Some(p) = s
                .active_parameter
                .and_then(|a| s.parameters.get(a as usize))
            {
                text.push_str(&format!("\n  active parameter: {p}"));
            }
            if let Some(d) = &s.documentation {
                let first = d.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                text.push_str(&format!("\n  {first}"));
            }
        }
        for w in &output.warnings {
            text.push('\n');
            text.push_str(w);
        }
        text
    }
}

/// Documentation as plain text: markdown's code fences dropped, cut to DOC_CHARS.
fn plain(doc: &str) -> String {
    let text: Vec<&str> = doc
        .lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect();
    let text = text.join("\n").trim().to_owned();
    if text.chars().count() <= DOC_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(DOC_CHARS).collect();
    cut.push('…');
    cut
}
