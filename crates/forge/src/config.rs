//! Which forges exist and how to reach them: the config file
//! (`$RESOLVE_PR_CONFIG`, else `$XDG_CONFIG_HOME/resolve-pr/config.toml`, else
//! `~/.config/resolve-pr/config.toml`) merged with the environment. Reading them is the only
//! I/O here; everything else is a pure function of the text and the variables, for tests.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The forge families resolve-pr speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ForgeKind {
    #[serde(rename = "github")]
    GitHub,
    Forgejo,
    Gitea,
}

impl ForgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ForgeKind::GitHub => "github",
            ForgeKind::Forgejo => "forgejo",
            ForgeKind::Gitea => "gitea",
        }
    }
}

impl fmt::Display for ForgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ForgeKind::GitHub => "GitHub",
            ForgeKind::Forgejo => "Forgejo",
            ForgeKind::Gitea => "Gitea",
        })
    }
}

/// A token. Its `Debug` and `Display` never show the value, so it cannot leak into logs or
/// errors by accident.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The token itself, for an `Authorization` header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// One forge host in the config file:
///
/// ```toml
/// [hosts."codeberg.org"]
/// kind = "forgejo"                       # github | forgejo | gitea
/// api_url = "https://codeberg.org/api/v1" # optional; derived from the host
/// token_env = "CODEBERG_TOKEN"           # or: token = "..."
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    pub kind: ForgeKind,
    #[serde(default)]
    pub api_url: Option<String>,
    /// GitHub only: the GraphQL endpoint, if not derivable from `api_url`.
    #[serde(default)]
    pub graphql_url: Option<String>,
    #[serde(default)]
    pub token: Option<Secret>,
    #[serde(default)]
    pub token_env: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    default_host: Option<String>,
    #[serde(default)]
    hosts: BTreeMap<String, HostConfig>,
    #[serde(default)]
    impact: ImpactSection,
    #[serde(default)]
    server: ServerSection,
}

/// `[server]`: how `resolve-pr serve` offers its tools when its command line does not say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerSection {
    #[serde(default)]
    toolsets: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImpactSection {
    #[serde(default)]
    areas: Vec<AreaRule>,
}

/// A path rule of the config file's `[[impact.areas]]` list: files matching any of `paths`
/// belong to `area` (before the built-in rules; the first matching rule wins), and the area
/// is at least at `risk` when such a file changes.
///
/// ```toml
/// [[impact.areas]]
/// area = "database"                  # one of AREA_NAMES
/// paths = ["schema/**", "*.prisma"]  # gitignore-like globs (see area_globs)
/// risk = "high"                      # optional: one of RISK_NAMES
/// ```
///
/// [`Config`] holds only rules that passed [`AreaRule::validate`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AreaRule {
    pub area: String,
    pub paths: Vec<String>,
    #[serde(default)]
    pub risk: Option<String>,
}

/// The areas an `[[impact.areas]]` rule may name (`resolve_pr_pr::impact::Area::as_str`).
pub const AREA_NAMES: &[&str] = &[
    "frontend",
    "backend",
    "database",
    "infrastructure",
    "tests",
    "docs",
    "config",
    "dependencies",
    "other",
];

/// The risk levels an `[[impact.areas]]` rule may name (`resolve_pr_pr::impact::Risk`).
pub const RISK_NAMES: &[&str] = &["low", "medium", "high"];

impl AreaRule {
    /// Why the rule cannot be used, if it cannot: an area or risk not in [`AREA_NAMES`] /
    /// [`RISK_NAMES`], no paths, or a path that is not a glob ([`area_globs`]).
    pub fn validate(&self) -> std::result::Result<(), String> {
        if !AREA_NAMES.contains(&self.area.as_str()) {
            return Err(format!(
                "area {:?} is not one of {}",
                self.area,
                AREA_NAMES.join(", ")
            ));
        }
        if let Some(risk) = &self.risk
            && !RISK_NAMES.contains(&risk.as_str())
        {
            return Err(format!(
                "risk {risk:?} is not one of {}",
                RISK_NAMES.join(", ")
            ));
        }
        if self.paths.is_empty() {
            return Err("paths is empty: give at least one glob, like \"schema/**\"".into());
        }
        for path in &self.paths {
            area_globs(path)?;
        }
        Ok(())
    }
}

/// A gitignore-like path glob as a matcher over repository paths (`/`-separated, no leading
/// `/`): `*` and `?` stay within one path segment and `**` crosses them; a leading `/`
/// anchors the glob at the root, and so does a `/` inside it, while a glob without one
/// matches at any depth (`*.prisma` is `**/*.prisma`); a trailing `/` matches only what is
/// under that directory, and any other glob also matches everything under what it names
/// (`schema` matches `schema/a.sql`). `{a,b}` alternates and `[ab]` is a class, as in
/// globset. An empty glob, or one globset rejects, is an error that says why.
pub fn area_globs(pattern: &str) -> std::result::Result<globset::GlobSet, String> {
    let mut set = globset::GlobSetBuilder::new();
    for glob in area_glob_list(pattern)? {
        set.add(glob);
    }
    set.build()
        .map_err(|e| format!("path {pattern:?} is not a glob: {}", e.kind()))
}

/// The globs [`area_globs`] unites (one or two), for a caller that builds one set of many
/// patterns.
pub fn area_glob_list(pattern: &str) -> std::result::Result<Vec<globset::Glob>, String> {
    let trimmed = pattern.trim();
    let (anchored, rest) = match trimmed.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, trimmed),
    };
    let (dir_only, body) = match rest.strip_suffix('/') {
        Some(body) => (true, body),
        None => (false, rest),
    };
    if body.is_empty() {
        return Err(format!("path {pattern:?} is empty"));
    }
    let prefix = if anchored || body.contains('/') || body.starts_with("**") {
        ""
    } else {
        "**/"
    };
    let mut globs = Vec::new();
    if !dir_only {
        globs.push(format!("{prefix}{body}"));
    }
    if !body.ends_with("**") {
        globs.push(format!("{prefix}{body}/**"));
    } else if dir_only {
        globs.push(format!("{prefix}{body}"));
    }
    globs
        .iter()
        .map(|glob| {
            globset::GlobBuilder::new(glob)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .map_err(|e| format!("path {pattern:?} is not a glob: {}", e.kind()))
        })
        .collect()
}

/// Where GitHub (github.com, or the Enterprise server named by `GITHUB_API_URL`) lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitHubEndpoint {
    /// Web host the PR URLs use (`github.com`, `ghe.example.com`, `127.0.0.1:1234`).
    pub web_host: String,
    pub api_url: String,
    pub graphql_url: String,
    /// A token from the config file; otherwise the client looks at `token_vars`, then
    /// `gh auth token --hostname web_host`.
    pub token: Option<Secret>,
    /// Environment variables that may hold this server's token, in order. `GITHUB_TOKEN` and
    /// `GH_TOKEN` belong to the server `GITHUB_API_URL` names; Enterprise hosts from the
    /// config file use gh's `GH_ENTERPRISE_TOKEN`, so a github.com token never goes to
    /// another server.
    pub token_vars: &'static [&'static str],
}

const DEFAULT_TOKEN_VARS: &[&str] = &["GITHUB_TOKEN", "GH_TOKEN"];
const ENTERPRISE_TOKEN_VARS: &[&str] = &["GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"];

/// Where a Forgejo or Gitea instance lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForgejoEndpoint {
    pub host: String,
    /// What the config said (`forgejo` or `gitea`); the client detects the truth from
    /// `/api/v1/version`.
    pub configured_kind: ForgeKind,
    /// `https://host/api/v1`, or what the config gave.
    pub api_url: String,
    /// The web root, for building links.
    pub web_url: String,
    pub token: Option<Secret>,
    /// The environment variable the config file names for this host's token, for the
    /// commands agents run (`forgejo::commands`).
    pub token_env: Option<String>,
}

/// A forge a host resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    GitHub(GitHubEndpoint),
    Forgejo(ForgejoEndpoint),
}

/// Where a short reference (`owner/repo#N`, no host) goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShortReferences {
    /// To GitHub (`GITHUB_API_URL`'s server): a GitHub token exists, or nothing else is
    /// configured.
    GitHub,
    /// To this host: `default_host` (or `RESOLVE_PR_DEFAULT_HOST`) names it, or it is the one
    /// forge configured and no GitHub token exists.
    Host(String),
    /// Nowhere: several forges are configured, none is the default, and no GitHub token
    /// exists. Listed, for the error that says how to choose.
    Ambiguous(Vec<String>),
}

/// The merged configuration: every known host, and the default for short references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Host named as the default for `owner/repo#N` references (`default_host`,
    /// `RESOLVE_PR_DEFAULT_HOST`); `None` lets `short_references` decide.
    pub default_host: Option<String>,
    /// Where `owner/repo#N` goes (see [`ShortReferences`]).
    pub short_references: ShortReferences,
    pub github: GitHubEndpoint,
    pub hosts: BTreeMap<String, HostConfig>,
    /// Where the config file was looked for, for error messages.
    pub path: Option<PathBuf>,
    /// The file's `[[impact.areas]]` rules, in order, each one valid
    /// ([`AreaRule::validate`]).
    pub impact_areas: Vec<AreaRule>,
    /// The file's `[server] toolsets`: the toolsets `serve` offers when `--toolsets` is not
    /// given (names are checked where the toolsets are known, when the server starts).
    pub toolsets: Option<Vec<String>>,
    env_tokens: BTreeMap<String, Secret>,
}

/// The file's default location.
pub fn default_path(var: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(p) = var("RESOLVE_PR_CONFIG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if let Some(x) = var("XDG_CONFIG_HOME").filter(|p| !p.is_empty()) {
        return Some(Path::new(&x).join("resolve-pr/config.toml"));
    }
    var("HOME").map(|h| Path::new(&h).join(".config/resolve-pr/config.toml"))
}

impl Config {
    /// Reads the config file (a missing file at the default place is an empty config; one
    /// `RESOLVE_PR_CONFIG` names must exist) and the process environment.
    /// Whether a GitHub token exists is also asked of `gh auth token`, but only when the
    /// answer decides where short references go (another forge is configured, no default
    /// is named and no GitHub token is in the environment).
    pub fn load() -> Result<Config> {
        let var = |k: &str| std::env::var(k).ok();
        let path = default_path(&var);
        let text = match &path {
            Some(p) => match std::fs::read_to_string(p) {
                Ok(t) => Some(t),
                // A path someone named and mistyped must not silently mean "no config".
                Err(e)
                    if e.kind() == std::io::ErrorKind::NotFound
                        && var("RESOLVE_PR_CONFIG").is_some_and(|p| !p.is_empty()) =>
                {
                    return Err(Error::config(format!(
                        "the config file {} (named by RESOLVE_PR_CONFIG) does not exist",
                        p.display()
                    ))
                    .with_suggestion(
                        "Create the file, correct the path in RESOLVE_PR_CONFIG, or unset it to \
                         use $XDG_CONFIG_HOME/resolve-pr/config.toml (a missing file there is an \
                         empty config).",
                    ));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => {
                    return Err(Error::config(format!(
                        "cannot read the config file {}: {e}",
                        p.display()
                    ))
                    .caused_by(&e)
                    .with_suggestion(
                        "Fix its permissions, or point RESOLVE_PR_CONFIG at another file.",
                    ));
                }
            },
            None => None,
        };
        Config::from_parts_with(text.as_deref(), path, &var, &gh_has_token)
    }

    /// The configuration from a config file's text (if any) and an environment, with no
    /// GitHub token from the `gh` CLI.
    pub fn from_parts(
        text: Option<&str>,
        path: Option<PathBuf>,
        var: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config> {
        Config::from_parts_with(text, path, var, &|_| false)
    }

    /// The configuration from a config file's text (if any) and an environment;
    /// `gh_token(host)` says whether the `gh` CLI has a token for a GitHub web host.
    pub fn from_parts_with(
        text: Option<&str>,
        path: Option<PathBuf>,
        var: &dyn Fn(&str) -> Option<String>,
        gh_token: &dyn Fn(&str) -> bool,
    ) -> Result<Config> {
        let file: ConfigFile = match text {
            None => ConfigFile::default(),
            Some(t) => toml::from_str(t).map_err(|e| {
                let where_ = path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                Error::config(format!(
                    "the config file {where_} is not valid: {}",
                    e.message()
                ))
                .with_suggestion(
                    "See the README's Configuration section for the format: \
                         [hosts.\"host\"] with kind = \"github\" | \"forgejo\" | \"gitea\".",
                )
            })?,
        };
        for (index, rule) in file.impact.areas.iter().enumerate() {
            if let Err(why) = rule.validate() {
                let where_ = path
                    .as_ref()
                    .map(|p| format!("the config file {}", p.display()))
                    .unwrap_or_else(|| "the config file".to_owned());
                return Err(Error::config(format!(
                    "{where_}: [[impact.areas]] rule {} (area {:?}): {why}",
                    index + 1,
                    rule.area
                ))
                .with_detail("rule_index", index + 1)
                .with_suggestion(format!(
                    "Each [[impact.areas]] rule takes area = one of {}, paths = a list of \
                     gitignore-like globs (\"schema/**\", \"*.prisma\") and optionally risk = \
                     one of {}.",
                    AREA_NAMES.join(" | "),
                    RISK_NAMES.join(" | ")
                )));
            }
        }
        let mut hosts: BTreeMap<String, HostConfig> = BTreeMap::new();
        for (host, cfg) in file.hosts {
            hosts.insert(host.to_ascii_lowercase(), cfg);
        }

        let var_nonempty = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        let api_url = var_nonempty("GITHUB_API_URL")
            .map(|u| u.trim_end_matches('/').to_owned())
            .unwrap_or_else(|| "https://api.github.com".to_owned());
        let graphql_url =
            var_nonempty("GITHUB_GRAPHQL_URL").unwrap_or_else(|| derive_graphql_url(&api_url));
        let web_host = web_host_of(&api_url);
        let github = GitHubEndpoint {
            web_host,
            api_url,
            graphql_url,
            token: None,
            token_vars: DEFAULT_TOKEN_VARS,
        };

        // FORGEJO_HOST / GITEA_HOST name an instance (host or URL) for FORGEJO_TOKEN / GITEA_TOKEN.
        let mut env_tokens = BTreeMap::new();
        for (kind, host_var, token_var) in [
            (ForgeKind::Forgejo, "FORGEJO_HOST", "FORGEJO_TOKEN"),
            (ForgeKind::Gitea, "GITEA_HOST", "GITEA_TOKEN"),
        ] {
            let Some(given) = var_nonempty(host_var) else {
                continue;
            };
            let url = if given.contains("://") {
                given.clone()
            } else {
                format!("https://{given}")
            };
            let url = url.trim_end_matches('/').to_owned();
            let Some(host) = host_of(&url) else {
                return Err(Error::config(format!("{host_var}={given:?} is not a host name or URL"))
                    .with_suggestion(format!("Set {host_var} to a host like codeberg.org or a URL like https://git.example.com")));
            };
            let entry = hosts.entry(host.clone()).or_insert_with(|| HostConfig {
                kind,
                api_url: None,
                graphql_url: None,
                token: None,
                token_env: None,
            });
            if entry.api_url.is_none() {
                entry.api_url = Some(format!("{url}/api/v1"));
            }
            if let Some(t) = var_nonempty(token_var) {
                env_tokens.insert(host, Secret::new(t.trim()));
            }
        }
        // Tokens named by `token_env` in the file.
        for (host, cfg) in &hosts {
            if let Some(name) = &cfg.token_env
                && let Some(t) = var_nonempty(name)
            {
                env_tokens
                    .entry(host.clone())
                    .or_insert_with(|| Secret::new(t.trim()));
            }
        }

        let default_host = var_nonempty("RESOLVE_PR_DEFAULT_HOST")
            .or(file.default_host)
            .map(|h| h.to_ascii_lowercase());
        // A Forgejo- or Gitea-only user (FORGEJO_HOST/GITEA_HOST, or one host in the file)
        // means that forge by `owner/repo#N`; GitHub stays the default for anyone with a
        // GitHub token, as documented.
        let others = other_hosts(&hosts, &github);
        let short_references = match &default_host {
            Some(host) => ShortReferences::Host(host.clone()),
            None if others.is_empty() => ShortReferences::GitHub,
            None => {
                let github_token = DEFAULT_TOKEN_VARS
                    .iter()
                    .any(|name| var_nonempty(name).is_some())
                    || env_tokens.contains_key(&github.web_host)
                    || hosts
                        .get(&github.web_host)
                        .is_some_and(|h| h.token.is_some())
                    || gh_token(&github.web_host);
                match others.as_slice() {
                    _ if github_token => ShortReferences::GitHub,
                    [only] => ShortReferences::Host(only.clone()),
                    _ => ShortReferences::Ambiguous(others),
                }
            }
        };
        Ok(Config {
            default_host,
            short_references,
            github,
            hosts,
            path,
            impact_areas: file.impact.areas,
            toolsets: file.server.toolsets,
            env_tokens,
        })
    }

    /// The forge a host (`None`: a short reference) belongs to.
    pub fn endpoint_for(&self, host: Option<&str>) -> Result<Endpoint> {
        let host = match (host, &self.short_references) {
            (Some(h), _) => h.to_ascii_lowercase(),
            (None, ShortReferences::Host(h)) => h.clone(),
            (None, ShortReferences::GitHub) => return Ok(Endpoint::GitHub(self.github.clone())),
            (None, ShortReferences::Ambiguous(hosts)) => {
                return Err(self.ambiguous_short_reference(hosts));
            }
        };
        if let Some(cfg) = self.hosts.get(&host) {
            let token = self
                .env_tokens
                .get(&host)
                .cloned()
                .or_else(|| cfg.token.clone());
            return Ok(match cfg.kind {
                ForgeKind::GitHub => {
                    let api_url = cfg
                        .api_url
                        .clone()
                        .unwrap_or_else(|| format!("https://{host}/api/v3"));
                    let graphql_url = cfg
                        .graphql_url
                        .clone()
                        .unwrap_or_else(|| derive_graphql_url(&api_url));
                    // github.com itself may be listed (to give it a token of its own).
                    let token_vars = if host == "github.com" {
                        &[][..]
                    } else {
                        ENTERPRISE_TOKEN_VARS
                    };
                    Endpoint::GitHub(GitHubEndpoint {
                        web_host: host,
                        api_url,
                        graphql_url,
                        token,
                        token_vars,
                    })
                }
                kind => {
                    let api_url = cfg
                        .api_url
                        .clone()
                        .unwrap_or_else(|| format!("https://{host}/api/v1"))
                        .trim_end_matches('/')
                        .to_owned();
                    let web_url = api_url.trim_end_matches("/api/v1").to_owned();
                    Endpoint::Forgejo(ForgejoEndpoint {
                        host,
                        configured_kind: kind,
                        api_url,
                        web_url,
                        token,
                        token_env: cfg.token_env.clone(),
                    })
                }
            });
        }
        let host = if host == "www.github.com" {
            "github.com".to_owned()
        } else {
            host
        };
        if host == self.github.web_host {
            return Ok(Endpoint::GitHub(self.github.clone()));
        }
        if host == "github.com" {
            // GITHUB_API_URL names an Enterprise server, whose token must not go to
            // github.com: use `gh auth token --hostname github.com` (or a [hosts."github.com"]
            // entry with its own token).
            return Ok(Endpoint::GitHub(GitHubEndpoint {
                web_host: host,
                api_url: "https://api.github.com".to_owned(),
                graphql_url: "https://api.github.com/graphql".to_owned(),
                token: None,
                token_vars: &[],
            }));
        }
        let file = self
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "~/.config/resolve-pr/config.toml".into());
        Err(Error::config(format!("the forge host {host} is not configured"))
            .with_detail("host", host.clone())
            .with_suggestion(format!(
                "Add it to {file}:\n[hosts.\"{host}\"]\nkind = \"forgejo\"  # or \"gitea\", or \"github\" for GitHub Enterprise\ntoken_env = \"FORGEJO_TOKEN\"\n\
                 or set FORGEJO_HOST={host} and FORGEJO_TOKEN (GITEA_HOST/GITEA_TOKEN for Gitea); \
                 for GitHub Enterprise set GITHUB_API_URL=https://{host}/api/v3."
            )))
    }
}

impl Config {
    /// Where each configured forge's web pages live (`https://github.com`,
    /// `http://forgejo.lan:3000`): every host of the config file and the environment, and
    /// GitHub's. The scheme is the API URL's. For matching a checkout's remotes, whose SSH
    /// form names the host but not the web port or scheme.
    pub fn web_bases(&self) -> Vec<String> {
        let scheme_of = |api: Option<&str>| {
            if api.is_some_and(|a| a.starts_with("http://")) {
                "http"
            } else {
                "https"
            }
        };
        let mut bases = vec![format!(
            "{}://{}",
            scheme_of(Some(&self.github.api_url)),
            self.github.web_host
        )];
        for (host, cfg) in &self.hosts {
            let base = format!("{}://{host}", scheme_of(cfg.api_url.as_deref()));
            if !bases.contains(&base) {
                bases.push(base);
            }
        }
        bases
    }

    /// The forge a host belongs to for a caller who brings their own token (the HTTP
    /// transport). A short reference goes to `default_host`, or to GitHub when no other forge
    /// is configured; never to "the one other forge" because the server has no GitHub token:
    /// that says nothing about the caller's token, which would be sent to the wrong forge.
    pub fn endpoint_for_caller(&self, host: Option<&str>) -> Result<Endpoint> {
        if host.is_some() || self.default_host.is_some() {
            return self.endpoint_for(host);
        }
        let mut others = other_hosts(&self.hosts, &self.github);
        if others.is_empty() {
            return Ok(Endpoint::GitHub(self.github.clone()));
        }
        others.sort();
        others.insert(0, self.github.web_host.clone());
        Err(Error::config(format!(
            "a reference without a host (owner/repo) could mean any of the forges this server \
             serves ({}), and the caller's token does not say which",
            others.join(", ")
        ))
        .with_detail("configured_hosts", others.clone())
        .with_suggestion(format!(
            "Name the host in the reference ({}/owner/repo, or the pull request's URL), or the \
             server's operator sets default_host (RESOLVE_PR_DEFAULT_HOST).",
            others[1]
        )))
    }

    fn ambiguous_short_reference(&self, hosts: &[String]) -> Error {
        let file = self
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "~/.config/resolve-pr/config.toml".into());
        let first = hosts.first().map_or("codeberg.org", String::as_str);
        Error::config(format!(
            "a reference without a host (owner/repo#N) could mean any of the configured forges \
             ({}), and no GitHub token was found to make it GitHub",
            hosts.join(", ")
        ))
        .with_detail("configured_hosts", hosts.to_vec())
        .with_suggestion(format!(
            "Name the host in the reference ({first}/owner/repo#N, or the pull request's URL), \
             or choose a default: default_host = \"{first}\" in {file}, or \
             RESOLVE_PR_DEFAULT_HOST={first}. For GitHub, set GITHUB_TOKEN or run `gh auth login`."
        ))
    }
}

/// The configured hosts that are not GitHub's (`GITHUB_API_URL`'s server or github.com): the
/// forges a reference without a host might also mean.
fn other_hosts(hosts: &BTreeMap<String, HostConfig>, github: &GitHubEndpoint) -> Vec<String> {
    hosts
        .keys()
        .filter(|h| *h != &github.web_host && *h != "github.com")
        .cloned()
        .collect()
}

/// Whether `gh auth token --hostname HOST` prints a token (the `gh` CLI is installed and
/// logged in there). Any failure, or no answer within two seconds, is "no".
fn gh_has_token(host: &str) -> bool {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let Ok(mut child) = Command::new("gh")
        .args(["auth", "token", "--hostname", host])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
        }
    }
}

/// GitHub's GraphQL endpoint for a REST base: `https://api.github.com/graphql`, and on
/// Enterprise `https://host/api/graphql` for `https://host/api/v3`.
pub fn derive_graphql_url(api_url: &str) -> String {
    let base = api_url.trim_end_matches('/');
    match base.strip_suffix("/v3") {
        Some(api) => format!("{api}/graphql"),
        None => format!("{base}/graphql"),
    }
}

/// The web host of a GitHub API URL: `github.com` for `https://api.github.com`, `octo.ghe.com`
/// for GHE.com's `https://api.octo.ghe.com`, and the host itself for Enterprise Server's
/// `https://ghe.example.com/api/v3`.
fn web_host_of(api_url: &str) -> String {
    let host = host_of(api_url).unwrap_or_else(|| "github.com".to_owned());
    match host.strip_prefix("api.") {
        Some(web) if web.contains('.') => web.to_owned(),
        _ => host,
    }
}

fn host_of(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    let h = u.host_str()?.to_ascii_lowercase();
    Some(match u.port() {
        Some(p) => format!("{h}:{p}"),
        None => h,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn github_defaults() {
        let c = Config::from_parts(None, None, &env(&[])).unwrap();
        assert_eq!(c.github.api_url, "https://api.github.com");
        assert_eq!(c.github.graphql_url, "https://api.github.com/graphql");
        assert_eq!(
            c.endpoint_for(None).unwrap(),
            Endpoint::GitHub(c.github.clone())
        );
        assert_eq!(
            c.endpoint_for(Some("github.com")).unwrap(),
            Endpoint::GitHub(c.github.clone())
        );
    }

    #[test]
    fn enterprise_from_environment() {
        let c = Config::from_parts(
            None,
            None,
            &env(&[("GITHUB_API_URL", "https://ghe.corp.com/api/v3/")]),
        )
        .unwrap();
        assert_eq!(c.github.graphql_url, "https://ghe.corp.com/api/graphql");
        assert!(matches!(
            c.endpoint_for(Some("GHE.corp.com")).unwrap(),
            Endpoint::GitHub(_)
        ));
        let c = Config::from_parts(
            None,
            None,
            &env(&[
                ("GITHUB_API_URL", "http://127.0.0.1:9"),
                ("GITHUB_GRAPHQL_URL", "http://127.0.0.1:9/gql"),
            ]),
        )
        .unwrap();
        assert_eq!(c.github.web_host, "127.0.0.1:9");
        assert_eq!(c.github.graphql_url, "http://127.0.0.1:9/gql");
    }

    #[test]
    fn forgejo_from_file_and_environment() {
        let text = r#"
default_host = "codeberg.org"
[hosts."codeberg.org"]
kind = "forgejo"
token_env = "CB_TOKEN"
[hosts."ghe.example.com"]
kind = "github"
token = "file-token"
"#;
        let c = Config::from_parts(
            Some(text),
            None,
            &env(&[
                ("CB_TOKEN", "cb"),
                ("GITEA_HOST", "http://127.0.0.1:3000/"),
                ("GITEA_TOKEN", "gt"),
            ]),
        )
        .unwrap();
        let Endpoint::Forgejo(cb) = c.endpoint_for(None).unwrap() else {
            panic!("default host")
        };
        assert_eq!(cb.api_url, "https://codeberg.org/api/v1");
        assert_eq!(cb.token, Some(Secret::new("cb")));
        let Endpoint::Forgejo(gt) = c.endpoint_for(Some("127.0.0.1:3000")).unwrap() else {
            panic!()
        };
        assert_eq!(
            (gt.configured_kind, gt.api_url.as_str(), gt.web_url.as_str()),
            (
                ForgeKind::Gitea,
                "http://127.0.0.1:3000/api/v1",
                "http://127.0.0.1:3000"
            )
        );
        assert_eq!(gt.token, Some(Secret::new("gt")));
        let Endpoint::GitHub(ghe) = c.endpoint_for(Some("ghe.example.com")).unwrap() else {
            panic!()
        };
        assert_eq!(ghe.api_url, "https://ghe.example.com/api/v3");
        assert_eq!(ghe.graphql_url, "https://ghe.example.com/api/graphql");
        assert_eq!(ghe.token, Some(Secret::new("file-token")));
    }

    #[test]
    fn tokens_stay_with_their_server() {
        let text = "[hosts.\"ghe.example.com\"]\nkind = \"github\"\n";
        let c = Config::from_parts(Some(text), None, &env(&[])).unwrap();
        let Endpoint::GitHub(ghe) = c.endpoint_for(Some("ghe.example.com")).unwrap() else {
            panic!()
        };
        assert!(
            !ghe.token_vars.contains(&"GITHUB_TOKEN"),
            "{:?}",
            ghe.token_vars
        );
        assert_eq!(c.github.token_vars, ["GITHUB_TOKEN", "GH_TOKEN"]);

        // With GITHUB_API_URL on an Enterprise server, github.com links still go to github.com,
        // and without that server's token.
        let c = Config::from_parts(
            None,
            None,
            &env(&[("GITHUB_API_URL", "https://ghe.corp/api/v3")]),
        )
        .unwrap();
        let Endpoint::GitHub(dotcom) = c.endpoint_for(Some("github.com")).unwrap() else {
            panic!()
        };
        assert_eq!(dotcom.api_url, "https://api.github.com");
        assert!(dotcom.token_vars.is_empty());
        let Endpoint::GitHub(corp) = c.endpoint_for(Some("ghe.corp")).unwrap() else {
            panic!()
        };
        assert_eq!(corp.api_url, "https://ghe.corp/api/v3");
    }

    #[test]
    fn ghe_com_web_host_drops_the_api_prefix() {
        let c = Config::from_parts(
            None,
            None,
            &env(&[("GITHUB_API_URL", "https://api.octo.ghe.com")]),
        )
        .unwrap();
        assert_eq!(c.github.web_host, "octo.ghe.com");
        assert!(
            matches!(c.endpoint_for(Some("octo.ghe.com")).unwrap(), Endpoint::GitHub(e) if e.api_url == "https://api.octo.ghe.com")
        );
    }

    #[test]
    fn unknown_host_says_how_to_configure_it() {
        let c = Config::from_parts(None, None, &env(&[])).unwrap();
        let e = resolve_pr_core::Error::from(c.endpoint_for(Some("git.example.org")).unwrap_err());
        assert_eq!(e.category, resolve_pr_core::Category::User);
        assert!(e.error.contains("git.example.org"));
        assert!(
            e.suggestion
                .unwrap()
                .contains("[hosts.\"git.example.org\"]")
        );
    }

    #[test]
    fn the_one_forge_of_a_forgejo_only_user_is_the_default() {
        for (host_var, token_var, kind) in [
            ("GITEA_HOST", "GITEA_TOKEN", ForgeKind::Gitea),
            ("FORGEJO_HOST", "FORGEJO_TOKEN", ForgeKind::Forgejo),
        ] {
            let vars = [(host_var, "https://git.example.com"), (token_var, "t")];
            let var = |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            };
            let c = Config::from_parts(None, None, &var).unwrap();
            assert_eq!(
                c.short_references,
                ShortReferences::Host("git.example.com".into())
            );
            let Endpoint::Forgejo(e) = c.endpoint_for(None).unwrap() else {
                panic!("owner/repo#N must go to the only forge configured")
            };
            assert_eq!(
                (e.host.as_str(), e.configured_kind),
                ("git.example.com", kind)
            );
            // github.com links still go to GitHub.
            assert!(matches!(
                c.endpoint_for(Some("github.com")).unwrap(),
                Endpoint::GitHub(_)
            ));
        }
    }

    #[test]
    fn a_github_token_keeps_github_the_default() {
        let forgejo = [("FORGEJO_HOST", "codeberg.org"), ("FORGEJO_TOKEN", "t")];
        for github in [("GITHUB_TOKEN", "ghp_x"), ("GH_TOKEN", "gho_x")] {
            let vars = [forgejo[0], forgejo[1], github];
            let var = |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            };
            let c = Config::from_parts(None, None, &var).unwrap();
            assert_eq!(c.short_references, ShortReferences::GitHub);
        }
        // A token only `gh auth token` knows counts too.
        let var = |k: &str| {
            forgejo
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        let c = Config::from_parts_with(None, None, &var, &|host| host == "github.com").unwrap();
        assert_eq!(c.short_references, ShortReferences::GitHub);
        // An explicit default wins over everything.
        let vars = [
            forgejo[0],
            forgejo[1],
            ("GITHUB_TOKEN", "x"),
            ("RESOLVE_PR_DEFAULT_HOST", "Codeberg.org"),
        ];
        let var = |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        };
        let c = Config::from_parts(None, None, &var).unwrap();
        assert_eq!(
            c.short_references,
            ShortReferences::Host("codeberg.org".into())
        );
    }

    #[test]
    fn several_forges_and_no_github_token_say_how_to_choose() {
        let text = "[hosts.\"codeberg.org\"]\nkind = \"forgejo\"\n[hosts.\"gitea.com\"]\nkind = \"gitea\"\n";
        let c = Config::from_parts(Some(text), None, &env(&[])).unwrap();
        let e = resolve_pr_core::Error::from(c.endpoint_for(None).unwrap_err());
        assert_eq!(e.category, resolve_pr_core::Category::User);
        assert!(e.error.contains("codeberg.org, gitea.com"), "{}", e.error);
        let suggestion = e.suggestion.unwrap();
        for way in [
            "codeberg.org/owner/repo#N",
            "default_host",
            "RESOLVE_PR_DEFAULT_HOST",
            "GITHUB_TOKEN",
        ] {
            assert!(suggestion.contains(way), "{suggestion}");
        }
        // Naming the host still works.
        assert!(matches!(
            c.endpoint_for(Some("gitea.com")).unwrap(),
            Endpoint::Forgejo(_)
        ));
    }

    #[test]
    fn bad_file_is_a_user_error() {
        let e = Config::from_parts(Some("[hosts.x]\nkind = \"svn\""), None, &env(&[])).unwrap_err();
        assert!(matches!(e, Error::Config { .. }), "{e:?}");
        assert_eq!(
            resolve_pr_core::Error::from(e).category,
            resolve_pr_core::Category::User
        );
    }

    #[test]
    fn the_server_section_names_the_toolsets() {
        let text = "[server]\ntoolsets = [\"default\", \"code\"]\n";
        let c = Config::from_parts(Some(text), None, &env(&[])).unwrap();
        assert_eq!(c.toolsets, Some(vec!["default".into(), "code".into()]));
        assert_eq!(
            Config::from_parts(None, None, &env(&[])).unwrap().toolsets,
            None
        );
        assert!(Config::from_parts(Some("[server]\ntoolset = []\n"), None, &env(&[])).is_err());
    }

    #[test]
    fn impact_area_rules_are_read_in_order() {
        let text = r#"
[[impact.areas]]
area = "database"
paths = ["schema/**", "*.prisma"]
risk = "high"

[[impact.areas]]
area = "frontend"
paths = ["/web/"]
"#;
        let c = Config::from_parts(Some(text), None, &env(&[])).unwrap();
        assert_eq!(
            c.impact_areas,
            [
                AreaRule {
                    area: "database".into(),
                    paths: vec!["schema/**".into(), "*.prisma".into()],
                    risk: Some("high".into()),
                },
                AreaRule {
                    area: "frontend".into(),
                    paths: vec!["/web/".into()],
                    risk: None,
                },
            ]
        );
        assert!(
            Config::from_parts(None, None, &env(&[]))
                .unwrap()
                .impact_areas
                .is_empty()
        );
    }

    #[test]
    fn a_bad_impact_area_rule_names_the_file_the_rule_and_what_is_accepted() {
        let path = PathBuf::from("/home/me/.config/resolve-pr/config.toml");
        for (rule, said) in [
            (
                "area = \"databse\"\npaths = [\"db/**\"]",
                "area \"databse\" is not one of frontend, backend",
            ),
            (
                "area = \"database\"\npaths = [\"db/**\"]\nrisk = \"severe\"",
                "risk \"severe\" is not one of low, medium, high",
            ),
            (
                "area = \"database\"\npaths = [\"db/[a\"]",
                "path \"db/[a\" is not a glob",
            ),
            ("area = \"database\"\npaths = []", "paths is empty"),
            (
                "area = \"database\"\npaths = [\"/\"]",
                "path \"/\" is empty",
            ),
        ] {
            let text = format!(
                "[[impact.areas]]\narea = \"docs\"\npaths = [\"docs/\"]\n[[impact.areas]]\n{rule}\n"
            );
            let e = Config::from_parts(Some(&text), Some(path.clone()), &env(&[])).unwrap_err();
            let e = resolve_pr_core::Error::from(e);
            assert_eq!(e.category, resolve_pr_core::Category::User);
            assert!(e.error.contains(&path.display().to_string()), "{}", e.error);
            assert!(e.error.contains("rule 2"), "{}", e.error);
            assert!(e.error.contains(said), "{} lacks {said}", e.error);
            let suggestion = e.suggestion.unwrap();
            assert!(
                suggestion.contains("frontend | backend | database")
                    && suggestion.contains("low | medium | high"),
                "{suggestion}"
            );
        }
        // An unknown key is refused too (a typo must not silently drop the rule's intent).
        let e = Config::from_parts(
            Some("[[impact.areas]]\narea = \"docs\"\npath = [\"docs/\"]\n"),
            None,
            &env(&[]),
        )
        .unwrap_err();
        assert!(matches!(e, Error::Config { .. }), "{e:?}");
    }

    #[test]
    fn area_globs_are_gitignore_like() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "*.prisma",
                &["schema.prisma", "db/prisma/schema.prisma"],
                &["schema.prisma.bak", "prisma"],
            ),
            (
                "schema/**",
                &["schema/a.sql", "schema/x/y.sql"],
                &["db/schema/a.sql", "schema"],
            ),
            (
                "/web/",
                &["web/a.ts", "web/x/y.ts"],
                &["web", "app/web/a.ts"],
            ),
            (
                "migrations",
                &["migrations", "migrations/001.sql", "db/migrations/001.sql"],
                &["migrations.rs"],
            ),
            (
                "src/*.rs",
                &["src/main.rs"],
                &["src/bin/x.rs", "crates/a/src/main.rs"],
            ),
            (
                "**/k8s/*.{yaml,yml}",
                &["k8s/a.yaml", "deploy/k8s/b.yml"],
                &["k8s/a.json"],
            ),
        ];
        for (glob, matching, not_matching) in cases {
            let set = area_globs(glob).unwrap();
            for path in *matching {
                assert!(set.is_match(path), "{glob} should match {path}");
            }
            for path in *not_matching {
                assert!(!set.is_match(path), "{glob} should not match {path}");
            }
        }
    }

    #[test]
    fn secrets_do_not_print() {
        assert_eq!(
            format!("{:?}", Secret::new("ghp_abc")),
            "Secret(<redacted>)"
        );
    }
}
