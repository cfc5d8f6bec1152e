//! `get_diagnostics`: errors and warnings for a file or the whole workspace. Rust's come from
//! `cargo check` in a trusted checkout (rust-analyzer's own check is off, so it is run only
//! when asked) and from rust-analyzer's own diagnostics in an untrusted one (cargo check
//! would run its build scripts, and when cargo cannot run, e.g. a toolchain older than the
//! checkout's `rust-version`, with a note saying why); other languages' from their server, asked for or waited for after the file is opened. A whole
//! workspace of another language is checked file by file, up to a bound.

use std::path::Path;
use std::time::Duration;

use resolve_pr_core::{Error, ErrorCode, Result};
use resolve_pr_lsp::{Language, Projects, Trust};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::checkout::workspace;
use crate::code::{
    Location, MAX_PROJECTS, Texts, check_cursor, display_path, file_in, language_of, languages,
    lsp_error, page, project_roots, projects_not_asked, source_files,
};
use crate::registry::Tool;

/// Files whose diagnostics are asked for at once, in a check of the whole checkout.
const CONCURRENT_FILES: usize = 16;
/// Files of one language checked in a workspace-wide call.
const MAX_FILES: usize = 200;
/// How long a server may take to publish a file's diagnostics.
const PUBLISH_WAIT: Duration = Duration::from_secs(20);
/// How long `cargo check` may run.
const CARGO_CHECK_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MinSeverity {
    Error,
    #[default]
    Warning,
    /// Also information and hints.
    All,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout (workspace root). Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// One file, relative to the workspace. Default: the whole workspace.
    #[serde(default)]
    pub file_path: Option<String>,
    /// Without file_path: only this language (rust, typescript, python, c, go).
    #[serde(default)]
    pub language: Option<String>,
    /// error, warning (errors and warnings) or all. Default: warning.
    #[serde(default)]
    pub severity: Option<MinSeverity>,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Diagnostic {
    pub location: Location,
    /// error, warning, information or hint.
    pub severity: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    pub diagnostics: Vec<Diagnostic>,
    pub total: usize,
    pub errors: usize,
    pub warnings: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    pub files_checked: usize,
    pub checked_by: Vec<String>,
    /// What was not checked, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_checked: Vec<String>,
}

pub struct GetDiagnostics;

impl Tool for GetDiagnostics {
    const NAME: &'static str = "get_diagnostics";
    const TITLE: &'static str = "Get diagnostics";
    const DESCRIPTION: &'static str = "Compiler and type-checker errors and warnings for a file or \
the whole workspace: Rust by cargo check (rust-analyzer in an untrusted checkout), other \
languages by their language server. Errors first, 50 a page.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        check_cursor(ctx, Self::NAME, raw, input.cursor.as_deref())?;
        let ws = workspace(ctx, input.directory.as_deref())?;
        let mut found: Vec<resolve_pr_lsp::Diag> = Vec::new();
        let (mut checked_by, mut not_checked, mut files_checked) = (Vec::new(), Vec::new(), 0usize);
        match input.file_path.as_deref() {
            Some(file) => {
                let path = file_in(&ws, file, "file_path")?;
                let language = language_of(&path, "file_path")?;
                let root = language.project_root(&path, &ws);
                files_checked = 1;
                // An untrusted checkout's build scripts must not run: rust-analyzer's own
                // diagnostics instead of cargo check.
                let checked = if language == Language::Rust
                    && ctx.lsp.trust_of(&root) == Trust::Trusted
                {
                    let package = resolve_pr_lsp::cargo::package_of(&path, &root);
                    match resolve_pr_lsp::cargo::check(
                        &root,
                        package.as_deref(),
                        CARGO_CHECK_TIMEOUT,
                    )
                    .await
                    {
                        Ok(all) => Some(all),
                        // cargo could not run (a toolchain older than the checkout's
                        // rust-version or edition, a broken manifest): rust-analyzer's own
                        // diagnostics instead, saying why.
                        // Or did not finish within the call's time: the same, saying so.
                        Err(
                            e @ (resolve_pr_lsp::Error::Io(_) | resolve_pr_lsp::Error::Timeout(_)),
                        ) => {
                            not_checked.push(cargo_fallback(&e));
                            None
                        }
                        Err(e) => return Err(lsp_error(e)),
                    }
                } else {
                    None
                };
                if let Some(all) = checked {
                    let elsewhere: Option<String> = all
                        .diags
                        .iter()
                        .find(|d| d.severity == "error" && d.location.path != path)
                        .map(|d| display_path(&ws, &d.location.path));
                    let compiled = all.compiled_file(&path);
                    let own: Vec<_> = all
                        .diags
                        .into_iter()
                        .filter(|d| d.location.path == path)
                        .collect();
                    if let Some(elsewhere) = elsewhere.filter(|_| own.is_empty() && !compiled) {
                        // A target that fails stops those that depend on it: when no target
                        // holding this file compiled, "no errors here" is not known.
                        not_checked.push(format!(
                            "{file}: cargo check stopped at errors in {elsewhere} before a target holding it compiled"
                        ));
                    }
                    found.extend(own);
                    checked_by.push("cargo check".to_owned());
                } else {
                    let server = ctx.lsp.server(language, &root).await.map_err(lsp_error)?;
                    checked_by.push(server.installed.spec.name.to_owned());
                    match server
                        .file_diagnostics(&path, PUBLISH_WAIT)
                        .await
                        .map_err(lsp_error)?
                    {
                        Some(d) => found.extend(d),
                        None => not_checked.push(format!(
                            "{file}: {} published nothing in {} s",
                            server.installed.spec.name,
                            PUBLISH_WAIT.as_secs()
                        )),
                    }
                }
            }
            None => {
                for language in languages(&ws, input.language.as_deref()).await? {
                    // Rust projects that cargo check could not check, for their server.
                    let mut by_server: Vec<std::path::PathBuf> = Vec::new();
                    if language == Language::Rust && ctx.lsp.trust_of(&ws) == Trust::Trusted {
                        let (roots, left_out) = project_roots(language, &ws);
                        not_checked.extend(left_out);
                        for root in roots {
                            match resolve_pr_lsp::cargo::check(&root, None, CARGO_CHECK_TIMEOUT)
                                .await
                            {
                                Ok(all) => {
                                    files_checked += rust_files(&root);
                                    found.extend(all.diags);
                                    if !checked_by.iter().any(|c| c == "cargo check") {
                                        checked_by.push("cargo check".to_owned());
                                    }
                                }
                                // rust-analyzer's own diagnostics for this project instead.
                                Err(
                                    e @ (resolve_pr_lsp::Error::Io(_)
                                    | resolve_pr_lsp::Error::Timeout(_)),
                                ) => {
                                    not_checked.push(format!(
                                        "rust ({}): {}",
                                        display_path(&ws, &root),
                                        cargo_fallback(&e)
                                    ));
                                    by_server.push(root);
                                }
                                Err(e) => not_checked
                                    .push(format!("rust ({}): {e}", display_path(&ws, &root))),
                            }
                        }
                        if by_server.is_empty() {
                            continue;
                        }
                    }
                    let (mut by_root, more) = language.files_by_project(&ws, MAX_FILES);
                    if !by_server.is_empty() {
                        by_root.retain(|(root, _)| by_server.contains(root));
                    }
                    if more {
                        not_checked.push(format!(
                            "{language}: only the first {MAX_FILES} files were checked; give file_path for others"
                        ));
                    }
                    // Each file by the server of its own project (a checkout may hold several).
                    let left_out: Vec<_> = by_root
                        .split_off(by_root.len().min(MAX_PROJECTS))
                        .into_iter()
                        .map(|(root, _)| root)
                        .collect();
                    not_checked.extend(projects_not_asked(language, &ws, &left_out));
                    for (root, files) in by_root {
                        let server = match ctx.lsp.server(language, &root).await {
                            Ok(s) => s,
                            Err(e) => {
                                let said = format!("{language}: {e}");
                                if !not_checked.contains(&said) {
                                    not_checked.push(said);
                                }
                                continue;
                            }
                        };
                        let name = server.installed.spec.name.to_owned();
                        if !checked_by.contains(&name) {
                            checked_by.push(name);
                        }
                        // Several at once: a server that pushes its diagnostics is waited on
                        // until each report settles, which in turn would add up.
                        for chunk in files.chunks(CONCURRENT_FILES) {
                            let answers = futures::future::join_all(
                                chunk
                                    .iter()
                                    .map(|file| server.file_diagnostics(file, PUBLISH_WAIT)),
                            )
                            .await;
                            for (file, answer) in chunk.iter().zip(answers) {
                                match answer {
                                    Ok(Some(d)) => {
                                        files_checked += 1;
                                        found.extend(d);
                                    }
                                    Ok(None) => not_checked.push(format!(
                                        "{}: nothing published in time",
                                        display_path(&ws, file)
                                    )),
                                    Err(e) => not_checked
                                        .push(format!("{}: {e}", display_path(&ws, file))),
                                }
                            }
                        }
                    }
                }
            }
        }
        let min = input.severity.unwrap_or_default();
        let keep = |s: &str| match min {
            MinSeverity::Error => s == "error",
            MinSeverity::Warning => s == "error" || s == "warning",
            MinSeverity::All => true,
        };
        // Sorted and paged before any file is read for the context lines of the page shown.
        let mut kept: Vec<(bool, String, &resolve_pr_lsp::Diag)> = found
            .iter()
            .filter(|d| keep(d.severity))
            .map(|d| {
                (
                    d.severity != "error",
                    display_path(&ws, &d.location.path),
                    d,
                )
            })
            .collect();
        kept.sort_by(|a, b| {
            (a.0, &a.1, a.2.location.range.start).cmp(&(b.0, &b.1, b.2.location.range.start))
        });
        let errors = kept.iter().filter(|d| d.2.severity == "error").count();
        let warnings = kept.iter().filter(|d| d.2.severity == "warning").count();
        let total = kept.len();
        let (shown, next_cursor) = page(ctx, Self::NAME, raw, input.cursor.as_deref(), kept)?;
        let mut texts = Texts::default();
        let diagnostics: Vec<Diagnostic> = shown
            .into_iter()
            .map(|(_, _, d)| Diagnostic {
                location: texts.location(&ws, &d.location),
                severity: d.severity.to_owned(),
                code: d.code.clone(),
                source: d.source.clone(),
                message: d.message.clone(),
            })
            .collect();
        if checked_by.is_empty() && !not_checked.is_empty() {
            return Err(Error::logical(format!(
                "nothing could be checked: {}",
                not_checked.join("; ")
            ))
            .with_code(ErrorCode::ServerNotInstalled)
            .with_suggestion("health_check lists the servers and how to install each."));
        }
        Ok(Output {
            diagnostics,
            total,
            errors,
            warnings,
            next_cursor,
            files_checked,
            checked_by,
            not_checked,
        })
    }

    fn shown(out: &Output) -> Option<(usize, Option<usize>)> {
        Some((out.diagnostics.len(), Some(out.total)))
    }

    fn render(out: &Output) -> String {
        let mut text = format!(
            "{} errors, {} warnings in {} files checked by {} {}",
            out.errors,
            out.warnings,
            out.files_checked,
            out.checked_by.join(", "),
            crate::code::ONE_BASED
        );
        for d in &out.diagnostics {
            text.push_str(&format!(
                "\n{} {}{}: {}",
                d.severity,
                crate::code::shown_at(
                    &d.location.file_path,
                    d.location.range.start.line,
                    d.location.range.start.character
                ),
                d.code
                    .as_deref()
                    .map(|c| format!(" [{c}]"))
                    .unwrap_or_default(),
                d.message.lines().next().unwrap_or("")
            ));
        }
        for n in &out.not_checked {
            text.push_str(&format!("\nnot checked: {n}"));
        }
        text
    }
}

/// Why a file's Rust diagnostics are rust-analyzer's own, not cargo check's.
fn cargo_fallback(e: &resolve_pr_lsp::Error) -> String {
    format!(
        "{e}; rust-analyzer's own diagnostics (syntax, names, some type errors) are shown instead"
    )
}

fn rust_files(root: &Path) -> usize {
    let (files, _) = source_files(root, Language::Rust, MAX_FILES * 50);
    files.len()
}
