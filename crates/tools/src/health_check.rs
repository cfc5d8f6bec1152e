//! `health_check`: which language servers are installed (where, which version, or the exact
//! command that installs them), which are running (root, state, memory, open documents), the
//! languages of the workspace, whether it is trusted (what reading it runs of its code), what
//! could outlive the server, and the memory of the whole process tree.

use resolve_pr_core::Result;
use resolve_pr_lsp::{Language, Projects, Trust};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::code::display_path;
use crate::registry::Tool;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// A checkout whose languages to name. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ServerOut {
    pub language: String,
    pub server: String,
    pub installed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Why it cannot be used, when not installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub install: String,
    /// The one used for its language.
    pub preferred: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunningOut {
    pub language: String,
    pub server: String,
    pub root: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// ready or indexing.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexing: Option<String>,
    pub memory_mib: u64,
    pub open_documents: usize,
    pub uptime_seconds: u64,
    pub idle_seconds: u64,
    pub trusted: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    /// healthy, or degraded: a language lacks a server.
    pub status: String,
    pub servers: Vec<ServerOut>,
    pub running: Vec<RunningOut>,
    pub languages: Vec<String>,
    /// Of languages, those with no server installed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    pub idle_timeout_seconds: u64,
    pub memory_cap_mib: u64,
    // Whether the workspace may run its own code (the server's working directory and
    // RESOLVE_PR_TRUST's directories may), what reading it runs of its code per language,
    // what a killed server could leave running, and the resident memory of this server and
    // everything it started: the names say it, so the schema carries no descriptions.
    pub trusted: bool,
    pub runs: Vec<String>,
    pub escapes: String,
    pub total_memory_mib: u64,
}

pub struct HealthCheck;

impl Tool for HealthCheck {
    const NAME: &'static str = "health_check";
    const TITLE: &'static str = "Language server health";
    const DESCRIPTION: &'static str = "Which language servers are installed (version, or the \
command that installs each), which are running with their state (ready or indexing) and \
memory, and the languages of the workspace.";
    const TOOLSET: crate::Toolset = crate::Toolset::Code;
    const ANNOTATIONS: crate::registry::Annotations = crate::code::READ_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let ws = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let languages = Language::detect(&ws);
        let mut servers = Vec::new();
        let mut has_server: Vec<Language> = Vec::new();
        for a in ctx.lsp.availability().await {
            let (installed, version, path, reason, spec) = match &a.found {
                Ok(i) => (
                    true,
                    Some(i.version.clone()),
                    Some(i.path.display().to_string()),
                    None,
                    i.spec,
                ),
                Err(m) => (false, None, None, Some(m.reason.clone()), m.spec),
            };
            let preferred = installed && !has_server.contains(&a.language);
            if installed {
                has_server.push(a.language);
            }
            servers.push(ServerOut {
                language: a.language.as_str().to_owned(),
                server: spec.name.to_owned(),
                installed,
                version,
                path,
                reason,
                install: spec.install.to_owned(),
                preferred,
            });
        }
        let running = ctx
            .lsp
            .running()
            .await
            .into_iter()
            .map(|r| RunningOut {
                language: r.language.as_str().to_owned(),
                server: r.server.to_owned(),
                root: display_path(&ws, &r.root),
                pid: r.pid,
                state: if r.indexing.is_some() {
                    "indexing"
                } else {
                    "ready"
                }
                .to_owned(),
                indexing: r.indexing,
                memory_mib: r.resident_bytes >> 20,
                open_documents: r.open_documents,
                uptime_seconds: r.uptime.as_secs(),
                idle_seconds: r.idle.as_secs(),
                trusted: r.trust == Trust::Trusted,
            })
            .collect();
        let missing: Vec<String> = languages
            .iter()
            .filter(|l| !has_server.contains(l))
            .map(|l| l.as_str().to_owned())
            .collect();
        let config = ctx.lsp.config();
        let trust = ctx.lsp.trust_of(&ws);
        let runs = languages
            .iter()
            .map(|l| format!("{l}: {}", resolve_pr_lsp::trust::what_runs(*l, trust)))
            .collect();
        let total_memory =
            tokio::task::spawn_blocking(resolve_pr_lsp::contain::tree_resident_bytes)
                .await
                .unwrap_or(0);
        Ok(Output {
            status: if missing.is_empty() {
                "healthy"
            } else {
                "degraded"
            }
            .to_owned(),
            servers,
            running,
            languages: languages.iter().map(|l| l.as_str().to_owned()).collect(),
            missing,
            idle_timeout_seconds: config.idle_timeout.as_secs(),
            memory_cap_mib: config.memory_cap_bytes >> 20,
            trusted: trust == Trust::Trusted,
            runs,
            escapes: resolve_pr_lsp::contain::Mode::current().escapes(),
            total_memory_mib: total_memory >> 20,
        })
    }

    fn render(out: &Output) -> String {
        let mut text = format!("Code intelligence: {}", out.status);
        if !out.missing.is_empty() {
            text.push_str(&format!(
                " (no server installed for {})",
                out.missing.join(", ")
            ));
        }
        text.push_str(&format!(
            "; workspace languages: {}",
            out.languages.join(", ")
        ));
        for s in &out.servers {
            if s.installed {
                text.push_str(&format!(
                    "\n{} {}: {}{}",
                    s.language,
                    s.server,
                    s.version.as_deref().unwrap_or("installed"),
                    if s.preferred {
                        " (the one asked)"
                    } else {
                        " (not asked: another is preferred)"
                    }
                ));
            } else if let Some(used) = out
                .servers
                .iter()
                .find(|o| o.language == s.language && o.preferred)
            {
                text.push_str(&format!(
                    "\n{} {}: not installed, not needed ({} is asked)",
                    s.language, s.server, used.server
                ));
            } else if !out.languages.contains(&s.language) {
                text.push_str(&format!(
                    "\n{} {}: not installed, not needed here",
                    s.language, s.server
                ));
            } else {
                text.push_str(&format!(
                    "\n{} {}: not installed; install: {}",
                    s.language, s.server, s.install
                ));
            }
        }
        for r in &out.running {
            text.push_str(&format!(
                "\nrunning {} for {} ({}, {}, {} MiB, {} open documents)",
                r.server,
                if r.root.is_empty() { "." } else { &r.root },
                if r.trusted { "trusted" } else { "untrusted" },
                r.indexing
                    .as_deref()
                    .map(|i| format!("indexing: {i}"))
                    .unwrap_or_else(|| r.state.clone()),
                r.memory_mib,
                r.open_documents
            ));
        }
        text.push_str(&format!(
            "\nThis checkout is {}; reading it runs of its code: {}",
            if out.trusted {
                "trusted"
            } else {
                "untrusted (trust it with RESOLVE_PR_TRUST=<dir>)"
            },
            if out.runs.is_empty() {
                "nothing".to_owned()
            } else {
                out.runs.join("; ")
            }
        ));
        text.push_str(&format!(
            "\nMemory of resolve-pr and all it started: {} MiB. Could outlive a killed server: {}.",
            out.total_memory_mib, out.escapes
        ));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(language: &str, name: &str, installed: bool) -> ServerOut {
        ServerOut {
            language: language.into(),
            server: name.into(),
            installed,
            version: installed.then(|| "1.0".into()),
            path: None,
            reason: (!installed).then(|| format!("{name} is not on PATH")),
            install: format!("install {name}"),
            preferred: installed,
        }
    }

    /// A Python checkout: the missing Go server is not asked for, and a missing server of
    /// the checkout's own languages is named in the first line.
    #[test]
    fn only_the_checkouts_languages_ask_for_an_install() {
        let mut out = Output {
            status: "healthy".into(),
            servers: vec![
                server("python", "basedpyright", true),
                server("go", "gopls", false),
            ],
            running: Vec::new(),
            languages: vec!["python".into()],
            missing: Vec::new(),
            idle_timeout_seconds: 600,
            memory_cap_mib: 8192,
            trusted: true,
            runs: Vec::new(),
            escapes: "nothing".into(),
            total_memory_mib: 30,
        };
        let text = HealthCheck::render(&out);
        assert!(
            text.starts_with("Code intelligence: healthy; workspace languages: python"),
            "{text}"
        );
        assert!(
            text.contains("\ngo gopls: not installed, not needed here"),
            "{text}"
        );
        assert!(!text.contains("install gopls"), "{text}");
        out.status = "degraded".into();
        out.missing = vec!["c".into()];
        out.languages.push("c".into());
        out.servers.push(server("c", "clangd", false));
        let text = HealthCheck::render(&out);
        assert!(
            text.starts_with("Code intelligence: degraded (no server installed for c); workspace languages: python, c"),
            "{text}"
        );
        assert!(
            text.contains("\nc clangd: not installed; install: install clangd"),
            "{text}"
        );
    }
}
