//! Areas of a change and their risk: the path rules, the built-in table (in the module doc of
//! [`super`]), the sensitive-path checks and the size thresholds.

use std::collections::BTreeMap;
use std::fmt;

use resolve_pr_forge::repository::ChangedFile;
use resolve_pr_forge::{AreaRule, area_glob_list};

/// Where a changed file belongs. The order is the order of [`impact_areas`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Area {
    Frontend,
    Backend,
    Database,
    Infrastructure,
    Tests,
    Docs,
    Config,
    Dependencies,
    Other,
}

impl Area {
    /// Every area, in order.
    pub const ALL: [Area; 9] = [
        Area::Frontend,
        Area::Backend,
        Area::Database,
        Area::Infrastructure,
        Area::Tests,
        Area::Docs,
        Area::Config,
        Area::Dependencies,
        Area::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Area::Frontend => "frontend",
            Area::Backend => "backend",
            Area::Database => "database",
            Area::Infrastructure => "infrastructure",
            Area::Tests => "tests",
            Area::Docs => "docs",
            Area::Config => "config",
            Area::Dependencies => "dependencies",
            Area::Other => "other",
        }
    }

    /// The area [`Area::as_str`] names (the config file's `area = "…"`).
    pub fn parse(name: &str) -> Option<Area> {
        Area::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How risky a change is; `Low < Medium < High`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Risk {
    Low,
    Medium,
    High,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }

    /// The level [`Risk::as_str`] names (the config file's `risk = "…"`).
    pub fn parse(name: &str) -> Option<Risk> {
        [Risk::Low, Risk::Medium, Risk::High]
            .into_iter()
            .find(|r| r.as_str() == name)
    }
}

impl fmt::Display for Risk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The built-in rules, in order: the first whose glob matches a path decides its area. Globs
/// are gitignore-like (`resolve_pr_forge::area_globs`). The module doc of [`super`] shows this table.
const BUILTIN: &[(Area, &[&str])] = &[
    // Vendored and minified code is someone else's: it is not this project's frontend or
    // backend, whatever its extension.
    (
        Area::Other,
        &[
            "vendor/",
            "third_party/",
            "node_modules/",
            "*.min.js",
            "*.min.css",
        ],
    ),
    (
        Area::Dependencies,
        &[
            "Cargo.toml",
            "Cargo.lock",
            "package.json",
            "package-lock.json",
            "npm-shrinkwrap.json",
            "yarn.lock",
            "pnpm-lock.yaml",
            "requirements*.txt",
            "pyproject.toml",
            "poetry.lock",
            "uv.lock",
            "Pipfile",
            "Pipfile.lock",
            "go.mod",
            "go.sum",
            "Gemfile",
            "Gemfile.lock",
            "composer.json",
            "composer.lock",
        ],
    ),
    (
        Area::Tests,
        &[
            "tests/",
            "test/",
            "__tests__/",
            "spec/",
            "testdata/",
            "fixtures/",
            "*_test.go",
            "*_test.rs",
            "test_*.py",
            "*_test.py",
            "conftest.py",
            "*.test.*",
            "*.spec.*",
        ],
    ),
    (
        Area::Infrastructure,
        &[
            ".github/workflows/",
            ".gitea/workflows/",
            ".forgejo/workflows/",
            ".circleci/",
            ".gitlab-ci.yml",
            "Jenkinsfile",
            "Dockerfile*",
            "*.dockerfile",
            "docker-compose*.yml",
            "docker-compose*.yaml",
            "compose.yml",
            "compose.yaml",
            "*.tf",
            "*.tfvars",
            "terraform/",
            "k8s/",
            "kubernetes/",
            "helm/",
            "charts/",
            "deploy/",
            "infra/",
            "ansible/",
        ],
    ),
    (
        Area::Database,
        &[
            "migrations/",
            "migrate/",
            "alembic/",
            "*.sql",
            "*.prisma",
            "db/schema.rb",
        ],
    ),
    (
        Area::Docs,
        &[
            "docs/",
            "doc/",
            "*.md",
            "*.mdx",
            "*.rst",
            "*.adoc",
            "LICENSE*",
            "CHANGELOG*",
        ],
    ),
    (
        Area::Config,
        &[
            "*.config.js",
            "*.config.ts",
            "*.config.mjs",
            "*.config.cjs",
            "*.toml",
            "*.yaml",
            "*.yml",
            "*.ini",
            "*.cfg",
            "*.conf",
            ".env*",
            ".*rc",
            ".editorconfig",
            ".gitignore",
            ".gitattributes",
            "tsconfig*.json",
            "Makefile",
        ],
    ),
    // By language before by directory: Go code under `web/` is backend, never frontend.
    (
        Area::Frontend,
        &[
            "*.tsx", "*.jsx", "*.ts", "*.js", "*.mjs", "*.cjs", "*.vue", "*.svelte", "*.css",
            "*.scss", "*.sass", "*.less", "*.html",
        ],
    ),
    (
        Area::Backend,
        &[
            "*.rs", "*.go", "*.py", "*.java", "*.kt", "*.scala", "*.rb", "*.php", "*.cs", "*.c",
            "*.h", "*.cc", "*.cpp", "*.hpp", "*.ex", "*.exs", "*.erl", "*.hs", "*.swift",
            "*.proto",
        ],
    ),
    // A file no language rule placed, under a frontend's directory (assets, templates).
    (Area::Frontend, &["frontend/", "web/", "ui/"]),
];

/// Where a path rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The config file's `[[impact.areas]]` rule of this index (from 1).
    Config(usize),
    Builtin,
}

#[derive(Debug, Clone)]
struct Rule {
    area: Area,
    source: Source,
    min_risk: Option<Risk>,
    /// The globs as written.
    patterns: Vec<String>,
}

/// Ordered path rules: the first rule with a glob matching a path decides its area; a path
/// no rule matches is [`Area::Other`].
#[derive(Debug, Clone)]
pub struct AreaRules {
    rules: Vec<Rule>,
    /// Every rule's compiled globs in one set, matched at once.
    set: globset::GlobSet,
    /// For each glob of `set`: its rule and pattern (indices), in rule order.
    owner: Vec<(usize, usize)>,
}

/// Why a path is in its area.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Classified {
    pub area: Area,
    /// `config rule 2` or `built-in rule`, and the glob as written; `None` for
    /// [`Area::Other`] by default.
    pub by: Option<(String, String)>,
    /// The config rule's minimum risk.
    pub min_risk: Option<Risk>,
}

impl AreaRules {
    /// The built-in table alone (compiled once per process).
    pub fn builtin() -> AreaRules {
        static COMPILED: std::sync::LazyLock<AreaRules> = std::sync::LazyLock::new(|| {
            AreaRules::build(
                BUILTIN
                    .iter()
                    .map(|(area, globs)| Rule {
                        area: *area,
                        source: Source::Builtin,
                        min_risk: None,
                        patterns: globs.iter().map(|g| (*g).to_owned()).collect(),
                    })
                    .collect(),
            )
        });
        COMPILED.clone()
    }

    /// The config file's rules first, in their order, then the built-in table. A rule that
    /// does not validate ([`AreaRule::validate`]; `Config` holds none) is left out.
    pub fn with_overrides(overrides: &[AreaRule]) -> AreaRules {
        let mut rules: Vec<Rule> = overrides
            .iter()
            .enumerate()
            .filter(|(_, r)| r.validate().is_ok())
            .filter_map(|(i, r)| {
                Some(Rule {
                    area: Area::parse(&r.area)?,
                    source: Source::Config(i + 1),
                    min_risk: r.risk.as_deref().and_then(Risk::parse),
                    patterns: r.paths.clone(),
                })
            })
            .collect();
        rules.extend(AreaRules::builtin().rules);
        AreaRules::build(rules)
    }

    /// Compiles the rules' globs into one set; a glob that does not compile is left out
    /// (config rules are validated at load, and a test holds the built-in ones).
    fn build(rules: Vec<Rule>) -> AreaRules {
        let mut builder = globset::GlobSetBuilder::new();
        let mut owner = Vec::new();
        for (r, rule) in rules.iter().enumerate() {
            for (p, pattern) in rule.patterns.iter().enumerate() {
                for glob in area_glob_list(pattern).unwrap_or_default() {
                    builder.add(glob);
                    owner.push((r, p));
                }
            }
        }
        let set = builder.build().unwrap_or_else(|_| {
            owner.clear();
            globset::GlobSet::empty()
        });
        AreaRules { rules, set, owner }
    }

    pub fn area_of(&self, path: &str) -> Area {
        self.classify(path).area
    }

    pub(crate) fn classify(&self, path: &str) -> Classified {
        let path = path.trim_start_matches('/');
        let first = self
            .set
            .matches(path)
            .into_iter()
            .filter_map(|i| self.owner.get(i).copied())
            .min();
        let Some((r, p)) = first else {
            return Classified {
                area: Area::Other,
                by: None,
                min_risk: None,
            };
        };
        let rule = &self.rules[r];
        let by = match rule.source {
            Source::Config(i) => format!("config rule {i}"),
            Source::Builtin => "built-in rule".to_owned(),
        };
        Classified {
            area: rule.area,
            by: Some((by, rule.patterns[p].clone())),
            min_risk: rule.min_risk,
        }
    }
}

/// The files of one area and what makes it risky.
#[derive(Debug, Clone, PartialEq)]
pub struct ImpactArea {
    pub area: Area,
    /// Paths, in the order the files were given.
    pub files: Vec<String>,
    pub additions: u64,
    pub deletions: u64,
    pub risk: Risk,
    /// Why the files are here and why the risk is what it is, one line each.
    pub reasons: Vec<String>,
}

/// A size (lines added and deleted, files) at or above these is medium, then high risk.
pub const MEDIUM_LINES: u64 = 300;
pub const HIGH_LINES: u64 = 1000;
pub const MEDIUM_FILES: usize = 10;
pub const HIGH_FILES: usize = 30;

fn size_risk(lines: u64, files: usize) -> Risk {
    if lines >= HIGH_LINES || files >= HIGH_FILES {
        Risk::High
    } else if lines >= MEDIUM_LINES || files >= MEDIUM_FILES {
        Risk::Medium
    } else {
        Risk::Low
    }
}

/// What size a file adds to a risk: (lines, files). Tests added make a change no riskier, so
/// a test file counts only its deleted lines (tests removed), and as a file only with some.
fn counted_size(file: &ChangedFile, area: Area) -> (u64, usize) {
    if area == Area::Tests {
        (file.deletions, usize::from(file.deletions > 0))
    } else {
        (file.additions + file.deletions, 1)
    }
}

/// `files` and their lines as changed, the risk of the `counted` (lines, files) (see
/// [`counted_size`]), and what of tests was not counted.
fn size_reason(
    files: usize,
    additions: u64,
    deletions: u64,
    counted: (u64, usize),
    tests_added: u64,
) -> String {
    let lines = additions + deletions;
    let mut reason = format!(
        "{files} file{} and {lines} line{} changed (+{additions} -{deletions}): {} by size \
         (medium from {MEDIUM_LINES} lines or {MEDIUM_FILES} files, high from {HIGH_LINES} \
         lines or {HIGH_FILES} files)",
        plural(files),
        plural(lines as usize),
        size_risk(counted.0, counted.1)
    );
    if tests_added > 0 {
        reason.push_str(&format!(
            "; lines added to tests (+{tests_added}) are not counted, nor test files without \
             deletions"
        ));
    }
    reason
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A kind of path whose change is risky in itself.
struct Sensitive {
    factor: &'static str,
    severity: Risk,
    description: &'static str,
    test: fn(&str) -> bool,
}

const SENSITIVE: &[Sensitive] = &[
    Sensitive {
        factor: "database_migration",
        severity: Risk::High,
        description: "database migrations change stored data and are hard to roll back",
        test: is_migration,
    },
    Sensitive {
        factor: "security_sensitive",
        severity: Risk::High,
        description: "authentication, authorization, secrets or cryptography code",
        test: is_security,
    },
    Sensitive {
        factor: "ci_workflow",
        severity: Risk::Medium,
        description: "CI definitions decide what is checked and run with the repository's secrets",
        test: is_ci,
    },
    Sensitive {
        factor: "dependencies",
        severity: Risk::Medium,
        description: "dependency manifests and lockfiles bring in code from outside the repository",
        test: is_dependency_file,
    },
    Sensitive {
        factor: "public_api",
        severity: Risk::Medium,
        description: "entry points and interface definitions other code builds against",
        test: is_public_api,
    },
    Sensitive {
        factor: "infrastructure",
        severity: Risk::Medium,
        description: "container, deployment and provisioning definitions",
        test: is_infrastructure,
    },
];

fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn is_migration(path: &str) -> bool {
    let dirs: Vec<&str> = segments(path).collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    dirs.iter().any(|d| {
        matches!(
            d.to_ascii_lowercase().as_str(),
            "migrations" | "migration" | "migrate" | "alembic"
        )
    })
}

/// Words that mark security-sensitive code, matched against the path's words (split at
/// `/`, `.`, `_`, `-`, lower-cased).
pub const SECURITY_WORDS: &[&str] = &[
    "auth",
    "authn",
    "authz",
    "authentication",
    "authorization",
    "oauth",
    "oidc",
    "saml",
    "sso",
    "security",
    "crypto",
    "cryptography",
    "encryption",
    "permission",
    "permissions",
    "acl",
    "rbac",
    "session",
    "sessions",
    "password",
    "passwords",
    "secret",
    "secrets",
    "jwt",
    "tls",
    "csrf",
];

/// Security code by its path's words; a test of it is a test, not the code.
fn is_security(path: &str) -> bool {
    crate::review::file_category(path) != crate::review::FileCategory::Test
        && path
            .split(['/', '.', '_', '-'])
            .any(|w| SECURITY_WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

fn is_ci(path: &str) -> bool {
    [
        ".github/workflows/",
        ".gitea/workflows/",
        ".forgejo/workflows/",
        ".circleci/",
    ]
    .iter()
    .any(|p| path.starts_with(p))
        || matches!(
            path,
            ".gitlab-ci.yml" | "Jenkinsfile" | "azure-pipelines.yml" | ".travis.yml"
        )
}

fn is_dependency_file(path: &str) -> bool {
    super::deps::ecosystem_of(path).is_some()
        || matches!(
            file_name(path),
            "go.sum"
                | "pnpm-lock.yaml"
                | "Pipfile"
                | "Pipfile.lock"
                | "Gemfile"
                | "Gemfile.lock"
                | "composer.json"
                | "composer.lock"
                | "npm-shrinkwrap.json"
        )
}

fn is_public_api(path: &str) -> bool {
    let name = file_name(path);
    matches!(
        name,
        "lib.rs"
            | "index.ts"
            | "index.js"
            | "index.mjs"
            | "index.tsx"
            | "__init__.py"
            | "openapi.yaml"
            | "openapi.yml"
            | "openapi.json"
            | "swagger.yaml"
            | "swagger.json"
            | "schema.graphql"
    ) || name.ends_with(".proto")
        || name.ends_with(".d.ts")
}

fn is_infrastructure(path: &str) -> bool {
    let name = file_name(path);
    name.starts_with("Dockerfile")
        || name.ends_with(".dockerfile")
        || name.starts_with("docker-compose")
        || name == "compose.yml"
        || name == "compose.yaml"
        || name.ends_with(".tf")
        || name.ends_with(".tfvars")
        || segments(path).any(|d| {
            matches!(
                d,
                "terraform" | "k8s" | "kubernetes" | "helm" | "charts" | "ansible"
            )
        })
}

/// The sensitive kinds a file is of (its path, or its path before a rename).
fn sensitive_hits(file: &ChangedFile) -> impl Iterator<Item = &'static Sensitive> + '_ {
    SENSITIVE.iter().filter(move |s| {
        (s.test)(&file.path) || file.previous_path.as_deref().is_some_and(|p| (s.test)(p))
    })
}

/// Groups the files by area (in [`Area`] order; areas without files left out) and gives
/// each its risk: the highest of its size ([`MEDIUM_LINES`], [`HIGH_LINES`],
/// [`MEDIUM_FILES`], [`HIGH_FILES`] over the area's own files), the sensitive paths among
/// them (see the module doc) and the minimum risk of a config rule that placed a file there.
/// Every contribution is a reason.
pub fn impact_areas(files: &[ChangedFile], rules: &AreaRules) -> Vec<ImpactArea> {
    struct Acc<'a> {
        files: Vec<&'a ChangedFile>,
        by: BTreeMap<(String, String), usize>,
        min: Vec<(Risk, String, String)>,
    }
    let mut areas: BTreeMap<Area, Acc<'_>> = BTreeMap::new();
    for file in files {
        let c = rules.classify(&file.path);
        let acc = areas.entry(c.area).or_insert_with(|| Acc {
            files: Vec::new(),
            by: BTreeMap::new(),
            min: Vec::new(),
        });
        acc.files.push(file);
        if let Some(by) = &c.by {
            *acc.by.entry(by.clone()).or_default() += 1;
            if let Some(risk) = c.min_risk
                && !acc.min.iter().any(|(_, r, g)| (r, g) == (&by.0, &by.1))
            {
                acc.min.push((risk, by.0.clone(), by.1.clone()));
            }
        }
    }
    areas
        .into_iter()
        .map(|(area, acc)| {
            let additions: u64 = acc.files.iter().map(|f| f.additions).sum();
            let deletions: u64 = acc.files.iter().map(|f| f.deletions).sum();
            let counted = acc
                .files
                .iter()
                .map(|f| counted_size(f, area))
                .fold((0, 0), |(l, n), (fl, fn_)| (l + fl, n + fn_));
            let tests_added = if area == Area::Tests { additions } else { 0 };
            let mut reasons = Vec::new();
            for ((by, glob), n) in &acc.by {
                reasons.push(format!(
                    "{n} file{} match{} {by} `{glob}` ({area})",
                    plural(*n),
                    if *n == 1 { "es" } else { "" }
                ));
            }
            let unmatched = acc.files.len() - acc.by.values().sum::<usize>();
            if unmatched > 0 {
                reasons.push(format!(
                    "{unmatched} file{} match{} no rule (other)",
                    plural(unmatched),
                    if unmatched == 1 { "es" } else { "" }
                ));
            }
            let mut risk = size_risk(counted.0, counted.1);
            let mut parts = vec![format!("size {risk}")];
            reasons.push(size_reason(
                acc.files.len(),
                additions,
                deletions,
                counted,
                tests_added,
            ));
            for s in SENSITIVE {
                let hit: Vec<&str> = acc
                    .files
                    .iter()
                    .filter(|f| sensitive_hits(f).any(|h| h.factor == s.factor))
                    .map(|f| f.path.as_str())
                    .collect();
                if hit.is_empty() {
                    continue;
                }
                risk = risk.max(s.severity);
                parts.push(format!("{} {}", s.factor, s.severity));
                reasons.push(format!(
                    "{}: {} ({}: {})",
                    s.severity,
                    list_paths(&hit),
                    s.factor,
                    s.description
                ));
            }
            for (min, by, glob) in &acc.min {
                risk = risk.max(*min);
                parts.push(format!("{by} minimum {min}"));
                reasons.push(format!(
                    "{min}: {by} (`{glob}`) sets {area}'s minimum risk to {min}"
                ));
            }
            reasons.push(format!("risk {risk}: the highest of {}", parts.join(", ")));
            ImpactArea {
                area,
                files: acc.files.iter().map(|f| f.path.clone()).collect(),
                additions,
                deletions,
                risk,
                reasons,
            }
        })
        .collect()
}

/// Paths for a reason: all of them up to five, then how many more.
pub(crate) fn list_paths(paths: &[&str]) -> String {
    const SHOWN: usize = 5;
    let mut s = paths
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        s.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    s
}

/// Something that makes the whole change risky.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiskFactor {
    /// `change_size`, `file_count`, `database_migration`, `security_sensitive`,
    /// `ci_workflow`, `dependencies`, `public_api`, `infrastructure` or `area_rule`.
    pub factor: String,
    pub severity: Risk,
    /// What it is and why it matters, with its numbers.
    pub description: String,
    /// The files it concerns (empty for the change's size).
    pub files: Vec<String>,
}

/// The change's overall risk (the highest factor's, `Low` with none) and the factors that
/// raise it above low, most severe first (then in the order listed in [`RiskFactor`]):
/// the change's size (lines, then files, against the same thresholds as
/// [`impact_areas`]), each kind of sensitive path with the files that are of it, and each
/// config rule's minimum risk that a file met.
pub fn risk_factors(files: &[ChangedFile], rules: &AreaRules) -> (Risk, Vec<RiskFactor>) {
    let mut factors = Vec::new();
    // Tests added are not counted ([`counted_size`]): they make the change no riskier.
    let (mut additions, mut tests_added, mut counted_files) = (0, 0, 0);
    for file in files {
        let area = rules.area_of(&file.path);
        if area == Area::Tests {
            tests_added += file.additions;
        } else {
            additions += file.additions;
        }
        counted_files += counted_size(file, area).1;
    }
    let deletions: u64 = files.iter().map(|f| f.deletions).sum();
    let lines = additions + deletions;
    let by_lines = size_risk(lines, 0);
    if by_lines > Risk::Low {
        let mut description = format!(
            "{lines} lines changed (+{additions} -{deletions}); medium from {MEDIUM_LINES}, \
             high from {HIGH_LINES}"
        );
        if tests_added > 0 {
            description.push_str(&format!(
                "; lines added to tests (+{tests_added}) are not counted"
            ));
        }
        factors.push(RiskFactor {
            factor: "change_size".into(),
            severity: by_lines,
            description,
            files: Vec::new(),
        });
    }
    let by_files = size_risk(0, counted_files);
    if by_files > Risk::Low {
        let mut description = format!(
            "{counted_files} files changed; medium from {MEDIUM_FILES}, high from {HIGH_FILES}"
        );
        let uncounted = files.len() - counted_files;
        if uncounted > 0 {
            description.push_str(&format!(
                "; {uncounted} test file{} without deletions not counted",
                plural(uncounted)
            ));
        }
        factors.push(RiskFactor {
            factor: "file_count".into(),
            severity: by_files,
            description,
            files: Vec::new(),
        });
    }
    for s in SENSITIVE {
        let hit: Vec<String> = files
            .iter()
            .filter(|f| sensitive_hits(f).any(|h| h.factor == s.factor))
            .map(|f| f.path.clone())
            .collect();
        if !hit.is_empty() {
            factors.push(RiskFactor {
                factor: s.factor.into(),
                severity: s.severity,
                description: format!(
                    "{} of {} changed file{}: {}",
                    hit.len(),
                    files.len(),
                    plural(files.len()),
                    s.description
                ),
                files: hit,
            });
        }
    }
    let mut by_rule: Vec<(String, String, Area, Risk, Vec<String>)> = Vec::new();
    for file in files {
        let c = rules.classify(&file.path);
        if let (Some(min), Some((by, glob))) = (c.min_risk, c.by) {
            match by_rule.iter_mut().find(|(b, g, ..)| (b, g) == (&by, &glob)) {
                Some(entry) => entry.4.push(file.path.clone()),
                None => by_rule.push((by, glob, c.area, min, vec![file.path.clone()])),
            }
        }
    }
    for (by, glob, area, min, paths) in by_rule {
        if min > Risk::Low {
            factors.push(RiskFactor {
                factor: "area_rule".into(),
                severity: min,
                description: format!(
                    "{} file{} match {by} (`{glob}`), which sets {area}'s minimum risk to {min}",
                    paths.len(),
                    plural(paths.len())
                ),
                files: paths,
            });
        }
    }
    // Stable: most severe first, the listed order within a level.
    factors.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let overall = factors
        .iter()
        .map(|f| f.severity)
        .max()
        .unwrap_or(Risk::Low);
    (overall, factors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_glob_compiles() {
        // `builtin()` leaves out a glob that does not compile; none may be lost that way.
        for (_, globs) in BUILTIN {
            for glob in *globs {
                assert!(area_glob_list(glob).is_ok(), "{glob}");
            }
        }
        assert!(!AreaRules::builtin().owner.is_empty());
    }
}
