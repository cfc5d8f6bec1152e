use proptest::prelude::*;
use resolve_pr_forge::repository::{ChangedFile, FileStatus};
use resolve_pr_forge::{AREA_NAMES, AreaRule, RISK_NAMES};

use super::*;

fn file(path: &str, additions: u64, deletions: u64) -> ChangedFile {
    ChangedFile {
        path: path.into(),
        status: FileStatus::Modified,
        previous_path: None,
        additions,
        deletions,
        patch: None,
    }
}

#[test]
fn the_config_names_are_the_areas_and_risks() {
    let areas: Vec<&str> = Area::ALL.iter().map(|a| a.as_str()).collect();
    assert_eq!(areas, AREA_NAMES);
    for name in AREA_NAMES {
        assert_eq!(Area::parse(name).unwrap().as_str(), *name);
    }
    for name in RISK_NAMES {
        assert_eq!(Risk::parse(name).unwrap().as_str(), *name);
    }
    assert!(Risk::Low < Risk::Medium && Risk::Medium < Risk::High);
}

#[test]
fn builtin_table_golden() {
    let rules = AreaRules::builtin();
    let cases = [
        ("Cargo.toml", Area::Dependencies),
        ("crates/pr/Cargo.toml", Area::Dependencies),
        ("web/package-lock.json", Area::Dependencies),
        ("requirements-dev.txt", Area::Dependencies),
        ("go.sum", Area::Dependencies),
        ("tests/it.rs", Area::Tests),
        ("crates/pr/tests/it.rs", Area::Tests),
        ("src/app.test.tsx", Area::Tests),
        ("pkg/server_test.go", Area::Tests),
        ("test_api.py", Area::Tests),
        (".github/workflows/ci.yml", Area::Infrastructure),
        ("Dockerfile", Area::Infrastructure),
        ("deploy/k8s/app.yaml", Area::Infrastructure),
        ("infra/main.tf", Area::Infrastructure),
        ("db/migrations/001_init.sql", Area::Database),
        ("prisma/schema.prisma", Area::Database),
        ("docs/guide/setup.md", Area::Docs),
        ("README.md", Area::Docs),
        ("LICENSE-MIT", Area::Docs),
        ("rustfmt.toml", Area::Config),
        ("vite.config.ts", Area::Config),
        (".eslintrc", Area::Config),
        ("tsconfig.json", Area::Config),
        ("src/components/Button.tsx", Area::Frontend),
        ("static/site.css", Area::Frontend),
        ("src/main.rs", Area::Backend),
        ("api/handlers.go", Area::Backend),
        // The language decides before the directory: Go API code under `web/` is backend.
        ("web/api/handlers.go", Area::Backend),
        ("ui/server/main.rs", Area::Backend),
        ("web/src/app.js", Area::Frontend),
        ("web/static/logo.svg", Area::Frontend),
        ("assets/logo.png", Area::Other),
        ("data.bin", Area::Other),
    ];
    for (path, area) in cases {
        assert_eq!(rules.area_of(path), area, "{path}");
    }
}

#[test]
fn config_rules_come_first_and_set_a_minimum_risk() {
    let rules = AreaRules::with_overrides(&[
        AreaRule {
            area: "database".into(),
            paths: vec!["schema/**".into(), "*.graphql".into()],
            risk: Some("high".into()),
        },
        AreaRule {
            area: "nonsense".into(),
            paths: vec!["**".into()],
            risk: None,
        },
    ]);
    // The rule wins over the built-in `*.md` → docs... only where it matches.
    assert_eq!(rules.area_of("schema/tables.md"), Area::Database);
    assert_eq!(rules.area_of("api/schema.graphql"), Area::Database);
    assert_eq!(rules.area_of("README.md"), Area::Docs);
    // The invalid rule is left out (it would otherwise swallow everything).
    assert_eq!(rules.area_of("src/main.rs"), Area::Backend);

    let files = [file("schema/tables.md", 1, 0), file("README.md", 1, 0)];
    let areas = impact_areas(&files, &rules);
    let db = areas.iter().find(|a| a.area == Area::Database).unwrap();
    assert_eq!(db.risk, Risk::High);
    assert!(
        db.reasons
            .iter()
            .any(|r| r == "1 file matches config rule 1 `schema/**` (database)"),
        "{:?}",
        db.reasons
    );
    assert!(
        db.reasons
            .iter()
            .any(|r| r.contains("config rule 1 (`schema/**`) sets database's minimum risk to high")),
        "{:?}",
        db.reasons
    );
    let (overall, factors) = risk_factors(&files, &rules);
    assert_eq!(overall, Risk::High);
    assert_eq!(factors[0].factor, "area_rule");
    assert_eq!(factors[0].files, ["schema/tables.md"]);
}

#[test]
fn impact_areas_group_sum_and_explain() {
    let files = [
        file("src/auth/session.rs", 40, 10),
        file("src/main.rs", 5, 1),
        file("web/app.tsx", 300, 20),
        file("db/migrations/002_add.sql", 12, 0),
        file("README.md", 3, 3),
    ];
    let areas = impact_areas(&files, &AreaRules::builtin());
    let summary: Vec<(Area, usize, u64, u64, Risk)> = areas
        .iter()
        .map(|a| (a.area, a.files.len(), a.additions, a.deletions, a.risk))
        .collect();
    assert_eq!(
        summary,
        [
            (Area::Frontend, 1, 300, 20, Risk::Medium),
            (Area::Backend, 2, 45, 11, Risk::High),
            (Area::Database, 1, 12, 0, Risk::High),
            (Area::Docs, 1, 3, 3, Risk::Low),
        ]
    );
    let backend = &areas[1];
    assert_eq!(backend.files, ["src/auth/session.rs", "src/main.rs"]);
    assert!(
        backend
            .reasons
            .contains(&"2 files match built-in rule `*.rs` (backend)".to_owned()),
        "{:?}",
        backend.reasons
    );
    assert!(
        backend
            .reasons
            .iter()
            .any(|r| r.starts_with("high: src/auth/session.rs (security_sensitive")),
        "{:?}",
        backend.reasons
    );
    assert_eq!(
        backend.reasons.last().unwrap(),
        "risk high: the highest of size low, security_sensitive high"
    );
    let frontend = &areas[0];
    assert!(
        frontend.reasons.iter().any(|r| r.starts_with(
            "1 file and 320 lines changed (+300 -20): medium by size (medium from 300 lines"
        )),
        "{:?}",
        frontend.reasons
    );
    assert!(impact_areas(&[], &AreaRules::builtin()).is_empty());
}

#[test]
fn risk_factors_name_each_kind_with_its_files() {
    let mut renamed = file("src/store.rs", 1, 1);
    renamed.previous_path = Some("src/crypto/store.rs".into());
    renamed.status = FileStatus::Renamed;
    let files = [
        file(".github/workflows/ci.yml", 2, 1),
        file("Cargo.lock", 30, 30),
        file("crates/core/src/lib.rs", 3, 0),
        file("Dockerfile", 1, 1),
        renamed,
        file("docs/a.md", 1, 0),
    ];
    let (overall, factors) = risk_factors(&files, &AreaRules::builtin());
    assert_eq!(overall, Risk::High);
    let got: Vec<(&str, Risk, Vec<&str>)> = factors
        .iter()
        .map(|f| {
            (
                f.factor.as_str(),
                f.severity,
                f.files.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("security_sensitive", Risk::High, vec!["src/store.rs"]),
            (
                "ci_workflow",
                Risk::Medium,
                vec![".github/workflows/ci.yml"]
            ),
            ("dependencies", Risk::Medium, vec!["Cargo.lock"]),
            ("public_api", Risk::Medium, vec!["crates/core/src/lib.rs"]),
            ("infrastructure", Risk::Medium, vec!["Dockerfile"]),
        ]
    );
    assert!(factors[0].description.starts_with("1 of 6 changed files: "));

    // Size alone: 1,000 lines is high, 10 files medium.
    let big: Vec<ChangedFile> = (0..10)
        .map(|i| file(&format!("src/m{i}.rs"), 100, 0))
        .collect();
    let (overall, factors) = risk_factors(&big, &AreaRules::builtin());
    assert_eq!(overall, Risk::High);
    assert_eq!(
        factors
            .iter()
            .map(|f| (f.factor.as_str(), f.severity))
            .collect::<Vec<_>>(),
        [("change_size", Risk::High), ("file_count", Risk::Medium)]
    );
    assert_eq!(
        factors[0].description,
        "1000 lines changed (+1000 -0); medium from 300, high from 1000"
    );
    // Nothing notable: low, no factors.
    let (overall, factors) = risk_factors(&[file("src/a.rs", 3, 1)], &AreaRules::builtin());
    assert_eq!((overall, factors.len()), (Risk::Low, 0));
}

#[test]
fn tests_added_do_not_raise_the_risk() {
    // A one-line fix with 1,200 lines of new tests in 40 files is as risky as the fix.
    let mut files = vec![file("src/parser.rs", 1, 1)];
    files.extend((0..40).map(|i| file(&format!("tests/case_{i}.rs"), 30, 0)));
    let rules = AreaRules::builtin();
    let (overall, factors) = risk_factors(&files, &rules);
    assert_eq!((overall, factors), (Risk::Low, Vec::new()));
    let areas = impact_areas(&files, &rules);
    let tests = areas.iter().find(|a| a.area == Area::Tests).unwrap();
    assert_eq!(
        (tests.files.len(), tests.additions, tests.risk),
        (40, 1200, Risk::Low)
    );
    assert!(
        tests.reasons.iter().any(|r| r.contains(
            "lines added to tests (+1200) are not counted, nor test files without deletions"
        )),
        "{:?}",
        tests.reasons
    );

    // Tests removed still count: they were the change's safety net.
    let removed = [file("src/parser.rs", 1, 1), file("tests/old.rs", 0, 400)];
    let (overall, factors) = risk_factors(&removed, &rules);
    assert_eq!(overall, Risk::Medium);
    assert_eq!(
        factors[0].description,
        "402 lines changed (+1 -401); medium from 300, high from 1000"
    );
    // The same fix with much source around it is rated by its source lines alone.
    let mixed = [
        file("src/parser.rs", 350, 0),
        file("tests/parser.rs", 900, 0),
    ];
    let (overall, factors) = risk_factors(&mixed, &rules);
    assert_eq!(overall, Risk::Medium);
    assert_eq!(
        factors[0].description,
        "350 lines changed (+350 -0); medium from 300, high from 1000; lines added to tests \
         (+900) are not counted"
    );
}

proptest! {
    #[test]
    fn every_file_is_in_exactly_one_area(
        paths in proptest::collection::vec("[a-zA-Z0-9_./-]{1,40}", 0..40),
        lines in proptest::collection::vec(0u64..5000, 40),
    ) {
        let files: Vec<ChangedFile> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| file(p, lines[i], lines[39 - i]))
            .collect();
        let rules = AreaRules::builtin();
        let areas = impact_areas(&files, &rules);
        let placed: usize = areas.iter().map(|a| a.files.len()).sum();
        prop_assert_eq!(placed, files.len());
        for f in &files {
            let homes: Vec<Area> = areas
                .iter()
                .filter(|a| a.files.contains(&f.path))
                .map(|a| a.area)
                .collect();
            prop_assert_eq!(homes, vec![rules.area_of(&f.path)]);
        }
        // Areas are in order, none empty, and sums add up.
        prop_assert!(areas.windows(2).all(|w| w[0].area < w[1].area));
        prop_assert!(areas.iter().all(|a| !a.files.is_empty() && !a.reasons.is_empty()));
        let total: u64 = areas.iter().map(|a| a.additions + a.deletions).sum();
        prop_assert_eq!(total, files.iter().map(|f| f.additions + f.deletions).sum::<u64>());
        // An area is never riskier than the whole change.
        let (overall, _) = risk_factors(&files, &rules);
        prop_assert!(areas.iter().all(|a| a.risk <= overall));
    }
}

// ---- dependency updates ----

fn find<'a>(updates: &'a [DependencyUpdate], package: &str) -> &'a DependencyUpdate {
    updates
        .iter()
        .find(|u| u.package == package)
        .unwrap_or_else(|| panic!("no update of {package} in {updates:#?}"))
}

fn brief(u: &DependencyUpdate) -> (Option<&str>, Option<&str>, UpdateKind, bool) {
    (u.from.as_deref(), u.to.as_deref(), u.kind, u.major)
}

#[test]
fn dependency_files_lists_the_readable_ones_in_order() {
    let files = [
        file("src/main.rs", 1, 1),
        file("Cargo.toml", 1, 1),
        file("web/package.json", 1, 1),
        file("web/yarn.lock", 1, 1),
        file("web/pnpm-lock.yaml", 1, 1),
        file("requirements-dev.txt", 1, 1),
        file("go.mod", 1, 1),
        file("go.sum", 1, 1),
        file("Cargo.lock", 1, 1),
    ];
    assert_eq!(
        dependency_files(&files),
        [
            "Cargo.toml",
            "web/package.json",
            "web/yarn.lock",
            "web/pnpm-lock.yaml",
            "requirements-dev.txt",
            "go.mod",
            "Cargo.lock"
        ]
    );
}

const CARGO_TOML_BEFORE: &str = r#"
[package]
name = "app"
version = "0.1.0"

[dependencies]
serde = { version = "1.0.190", features = ["derive"] }
tokio = "1.35"
rand = "0.8"
old-thing = "2"
local = { path = "../local" }

[dev-dependencies]
proptest = "1"

[target.'cfg(unix)'.dependencies]
nix = "0.27"
"#;

const CARGO_TOML_AFTER: &str = r#"
[package]
name = "app"
version = "0.1.0"

[dependencies]
serde = { version = "1.0.200", features = ["derive"] }
tokio = "1.35"
rand = "0.9"
local = { path = "../local" }
clap = { version = "4.5", default-features = false }
mylog = { package = "log", version = "0.4" }

[dev-dependencies]
proptest = "1"

[target.'cfg(unix)'.dependencies]
nix = "0.26"
"#;

#[test]
fn cargo_manifest_requirements() {
    let u = dependency_updates(
        "Cargo.toml",
        Some(CARGO_TOML_BEFORE),
        Some(CARGO_TOML_AFTER),
    );
    assert_eq!(
        u.iter().map(|u| u.package.as_str()).collect::<Vec<_>>(),
        ["clap", "log", "nix", "old-thing", "rand", "serde"]
    );
    assert_eq!(
        brief(find(&u, "serde")),
        (
            Some("1.0.190"),
            Some("1.0.200"),
            UpdateKind::Upgraded,
            false
        )
    );
    // 0.8 → 0.9 is a breaking step under semver's 0.x rule.
    assert_eq!(
        brief(find(&u, "rand")),
        (Some("0.8"), Some("0.9"), UpdateKind::Upgraded, true)
    );
    assert_eq!(
        brief(find(&u, "nix")),
        (Some("0.27"), Some("0.26"), UpdateKind::Downgraded, true)
    );
    assert_eq!(
        brief(find(&u, "old-thing")),
        (Some("2"), None, UpdateKind::Removed, false)
    );
    assert_eq!(
        brief(find(&u, "clap")),
        (None, Some("4.5"), UpdateKind::Added, false)
    );
    assert!(
        u.iter()
            .all(|u| u.ecosystem == Ecosystem::Cargo && u.file == "Cargo.toml")
    );
}

const CARGO_LOCK_BEFORE: &str = r#"
version = 3

[[package]]
name = "app"
version = "0.1.0"

[[package]]
name = "serde"
version = "1.0.190"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "aa"

[[package]]
name = "syn"
version = "1.0.109"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "syn"
version = "2.0.39"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;

const CARGO_LOCK_AFTER: &str = r#"
version = 3

[[package]]
name = "app"
version = "0.2.0"

[[package]]
name = "serde"
version = "1.0.200"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "syn"
version = "2.0.48"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;

#[test]
fn cargo_lock_resolved_versions_and_prefer_lockfiles() {
    let lock = dependency_updates(
        "Cargo.lock",
        Some(CARGO_LOCK_BEFORE),
        Some(CARGO_LOCK_AFTER),
    );
    // The workspace's own crate (no source) is not a dependency.
    assert_eq!(
        lock.iter().map(|u| u.package.as_str()).collect::<Vec<_>>(),
        ["serde", "syn"]
    );
    assert_eq!(
        brief(find(&lock, "serde")),
        (
            Some("1.0.190"),
            Some("1.0.200"),
            UpdateKind::Upgraded,
            false
        )
    );
    // Two versions became one: listed as a change of the set.
    assert_eq!(
        brief(find(&lock, "syn")),
        (
            Some("1.0.109, 2.0.39"),
            Some("2.0.48"),
            UpdateKind::Changed,
            false
        )
    );
    let mut all = dependency_updates(
        "Cargo.toml",
        Some(CARGO_TOML_BEFORE),
        Some(CARGO_TOML_AFTER),
    );
    all.extend(lock);
    let merged = prefer_lockfiles(all);
    let serde: Vec<&str> = merged
        .iter()
        .filter(|u| u.package == "serde")
        .map(|u| u.file.as_str())
        .collect();
    assert_eq!(
        serde,
        ["Cargo.lock"],
        "serde is listed once, from the lockfile"
    );
    assert!(
        merged
            .iter()
            .any(|u| u.package == "rand" && u.file == "Cargo.toml")
    );
}

#[test]
fn npm_manifest_and_lockfiles() {
    let before = r#"{"name":"web","dependencies":{"react":"^17.0.2","lodash":"^4.17.20"},
        "devDependencies":{"typescript":"~5.2.0"}}"#;
    let after = r#"{"name":"web","dependencies":{"react":"^18.2.0","lodash":"^4.17.21","@scope/ui":"1.0.0"},
        "devDependencies":{"typescript":"~5.3.0"}}"#;
    let u = dependency_updates("web/package.json", Some(before), Some(after));
    assert_eq!(
        brief(find(&u, "react")),
        (Some("^17.0.2"), Some("^18.2.0"), UpdateKind::Upgraded, true)
    );
    assert_eq!(
        brief(find(&u, "lodash")),
        (
            Some("^4.17.20"),
            Some("^4.17.21"),
            UpdateKind::Upgraded,
            false
        )
    );
    assert_eq!(
        brief(find(&u, "@scope/ui")),
        (None, Some("1.0.0"), UpdateKind::Added, false)
    );
    assert_eq!(find(&u, "typescript").kind, UpdateKind::Upgraded);

    // package-lock v3 (`packages`), nested copies, workspace links.
    let v3_before = r#"{"name":"web","lockfileVersion":3,"packages":{
        "":{"name":"web","dependencies":{"react":"^17.0.2"}},
        "node_modules/react":{"version":"17.0.2"},
        "node_modules/@scope/ui":{"version":"0.9.0"},
        "node_modules/a/node_modules/react":{"version":"16.14.0"},
        "node_modules/member":{"resolved":"packages/member","link":true}}}"#;
    let v3_after = r#"{"name":"web","lockfileVersion":3,"packages":{
        "":{"name":"web"},
        "node_modules/react":{"version":"18.2.0"},
        "node_modules/@scope/ui":{"version":"1.0.0"},
        "node_modules/member":{"resolved":"packages/member","link":true}}}"#;
    let u = dependency_updates("web/package-lock.json", Some(v3_before), Some(v3_after));
    assert_eq!(
        brief(find(&u, "react")),
        (
            Some("16.14.0, 17.0.2"),
            Some("18.2.0"),
            UpdateKind::Changed,
            false
        )
    );
    assert_eq!(
        brief(find(&u, "@scope/ui")),
        (Some("0.9.0"), Some("1.0.0"), UpdateKind::Upgraded, true)
    );
    assert!(
        u.iter()
            .all(|u| u.package != "member" && !u.package.is_empty())
    );

    // v1: a tree of `dependencies`.
    let v1_before = r#"{"lockfileVersion":1,"dependencies":{"left-pad":{"version":"1.1.0"},
        "chalk":{"version":"2.4.2","dependencies":{"ansi-styles":{"version":"3.2.1"}}}}}"#;
    let v1_after = r#"{"lockfileVersion":1,"dependencies":{"left-pad":{"version":"1.3.0"},
        "chalk":{"version":"2.4.2","dependencies":{"ansi-styles":{"version":"3.2.2"}}}}}"#;
    let u = dependency_updates("package-lock.json", Some(v1_before), Some(v1_after));
    assert_eq!(
        u.iter().map(brief).collect::<Vec<_>>(),
        [
            (Some("3.2.1"), Some("3.2.2"), UpdateKind::Upgraded, false),
            (Some("1.1.0"), Some("1.3.0"), UpdateKind::Upgraded, false),
        ]
    );

    // The lockfile's entry is preferred over the manifest's range.
    let mut all = dependency_updates("web/package.json", Some(before), Some(after));
    all.extend(dependency_updates(
        "web/package-lock.json",
        Some(v3_before),
        Some(v3_after),
    ));
    let react: Vec<String> = prefer_lockfiles(all)
        .into_iter()
        .filter(|u| u.package == "react")
        .map(|u| u.file)
        .collect();
    assert_eq!(react, ["web/package-lock.json"]);
}

#[test]
fn yarn_lock_v1_and_berry() {
    let v1_before = "# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n\
\"@babel/core@^7.0.0\", \"@babel/core@^7.12.3\":\n  version \"7.22.5\"\n  resolved \"https://registry.yarnpkg.com/@babel/core/-/core-7.22.5.tgz\"\n  dependencies:\n    debug \"^4.1.0\"\n\n\
debug@^4.1.0:\n  version \"4.3.4\"\n";
    let v1_after = "# yarn lockfile v1\n\n\
\"@babel/core@^7.0.0\", \"@babel/core@^7.12.3\":\n  version \"7.23.0\"\n  dependencies:\n    debug \"^4.1.0\"\n\n\
debug@^4.1.0:\n  version \"4.3.4\"\n\nms@2.1.2:\n  version \"2.1.2\"\n";
    let u = dependency_updates("yarn.lock", Some(v1_before), Some(v1_after));
    assert_eq!(u.len(), 2, "{u:#?}");
    assert_eq!(
        brief(find(&u, "@babel/core")),
        (Some("7.22.5"), Some("7.23.0"), UpdateKind::Upgraded, false)
    );
    assert_eq!(find(&u, "ms").kind, UpdateKind::Added);

    let berry_before = "__metadata:\n  version: 6\n  cacheKey: 8\n\n\"react@npm:^17.0.0\":\n  version: 17.0.2\n  resolution: \"react@npm:17.0.2\"\n\n\"web@workspace:.\":\n  version: 0.0.0-use.local\n";
    let berry_after = "__metadata:\n  version: 8\n  cacheKey: 10\n\n\"react@npm:^18.0.0\":\n  version: 18.2.0\n  resolution: \"react@npm:18.2.0\"\n\n\"web@workspace:.\":\n  version: 0.0.0-use.local\n";
    let u = dependency_updates("yarn.lock", Some(berry_before), Some(berry_after));
    assert_eq!(u.len(), 1, "{u:#?}");
    assert_eq!(
        brief(&u[0]),
        (Some("17.0.2"), Some("18.2.0"), UpdateKind::Upgraded, true)
    );
}

#[test]
fn pnpm_lock_v5_v6_v9() {
    let v5_before = "lockfileVersion: 5.4\n\nspecifiers:\n  react: ^17.0.2\n\ndependencies:\n  react: 17.0.2\n\npackages:\n\n  /@babel/core/7.22.5:\n    resolution: {integrity: sha512-x}\n    dev: true\n\n  /react-dom/17.0.2_react@17.0.2:\n    resolution: {integrity: sha512-y}\n\n  /react/17.0.2:\n    resolution: {integrity: sha512-z}\n";
    let v6_after = "lockfileVersion: '6.0'\n\ndependencies:\n  react:\n    specifier: ^18.2.0\n    version: 18.2.0\n\npackages:\n\n  /@babel/core@7.23.0:\n    resolution: {integrity: sha512-x}\n\n  /react-dom@18.2.0(react@18.2.0):\n    resolution: {integrity: sha512-y}\n\n  /react@18.2.0:\n    resolution: {integrity: sha512-z}\n";
    let u = dependency_updates("pnpm-lock.yaml", Some(v5_before), Some(v6_after));
    assert_eq!(
        u.iter()
            .map(|u| (
                u.package.as_str(),
                u.from.as_deref(),
                u.to.as_deref(),
                u.major
            ))
            .collect::<Vec<_>>(),
        [
            ("@babel/core", Some("7.22.5"), Some("7.23.0"), false),
            ("react", Some("17.0.2"), Some("18.2.0"), true),
            ("react-dom", Some("17.0.2"), Some("18.2.0"), true),
        ]
    );
    let v9 = "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    dependencies:\n      react:\n        specifier: ^18.3.1\n        version: 18.3.1\n\npackages:\n\n  '@babel/core@7.24.0':\n    resolution: {integrity: sha512-x}\n\n  react@18.3.1:\n    resolution: {integrity: sha512-z}\n\nsnapshots:\n\n  react@18.3.1:\n    dependencies:\n      loose-envify: 1.4.0\n";
    let u = dependency_updates("pnpm-lock.yaml", Some(v6_after), Some(v9));
    assert_eq!(
        u.iter()
            .map(|u| (u.package.as_str(), u.kind))
            .collect::<Vec<_>>(),
        [
            ("@babel/core", UpdateKind::Upgraded),
            ("react", UpdateKind::Upgraded),
            ("react-dom", UpdateKind::Removed),
        ]
    );
    assert!(is_lockfile("web/pnpm-lock.yaml"));
}

#[test]
fn python_requirements_pyproject_and_locks() {
    let before = "# pinned\nDjango==4.2.7\nrequests>=2.28,<3  # http\n-r base.txt\n--index-url https://x\nnumpy==1.26.0 ; python_version >= \"3.9\"\nblack[d]==23.1.0\n";
    let after = "Django==5.0.1\nrequests>=2.31,<3\nnumpy==1.26.2 ; python_version >= \"3.9\"\nblack[d]==23.1.0\nattrs\n";
    let u = dependency_updates("requirements.txt", Some(before), Some(after));
    assert_eq!(
        u.iter().map(|u| u.package.as_str()).collect::<Vec<_>>(),
        ["attrs", "django", "numpy", "requests"]
    );
    assert_eq!(
        brief(find(&u, "django")),
        (Some("==4.2.7"), Some("==5.0.1"), UpdateKind::Upgraded, true)
    );
    assert_eq!(
        brief(find(&u, "numpy")),
        (
            Some("==1.26.0"),
            Some("==1.26.2"),
            UpdateKind::Upgraded,
            false
        )
    );
    assert_eq!(
        brief(find(&u, "requests")),
        (
            Some(">=2.28,<3"),
            Some(">=2.31,<3"),
            UpdateKind::Upgraded,
            false
        )
    );
    assert_eq!(
        brief(find(&u, "attrs")),
        (None, Some(""), UpdateKind::Added, false)
    );

    let pyproject_before = r#"
[project]
name = "svc"
dependencies = ["fastapi>=0.100", "Pydantic_Core==2.10.1"]
[project.optional-dependencies]
dev = ["pytest>=7"]
[dependency-groups]
lint = ["ruff==0.1.0"]
[tool.poetry.dependencies]
python = "^3.11"
httpx = "^0.24"
[tool.poetry.group.docs.dependencies]
mkdocs = { version = "^1.4" }
"#;
    let pyproject_after = r#"
[project]
name = "svc"
dependencies = ["fastapi>=0.110", "pydantic-core==2.14.0"]
[project.optional-dependencies]
dev = ["pytest>=8"]
[dependency-groups]
lint = ["ruff==0.1.0"]
[tool.poetry.dependencies]
python = "^3.12"
httpx = "^0.27"
[tool.poetry.group.docs.dependencies]
mkdocs = { version = "^1.5" }
"#;
    let u = dependency_updates(
        "pyproject.toml",
        Some(pyproject_before),
        Some(pyproject_after),
    );
    assert_eq!(
        u.iter().map(|u| u.package.as_str()).collect::<Vec<_>>(),
        ["fastapi", "httpx", "mkdocs", "pydantic-core", "pytest"]
    );
    assert!(find(&u, "pytest").major);
    assert!(
        !find(&u, "fastapi").major,
        "PEP 440: the first segment stays 0"
    );

    let lock_before = "[[package]]\nname = \"fastapi\"\nversion = \"0.100.1\"\n\n[[package]]\nname = \"starlette\"\nversion = \"0.27.0\"\n";
    let lock_after = "[[package]]\nname = \"fastapi\"\nversion = \"0.110.0\"\n\n[[package]]\nname = \"starlette\"\nversion = \"0.36.3\"\n";
    for lockfile in ["poetry.lock", "uv.lock"] {
        let u = dependency_updates(lockfile, Some(lock_before), Some(lock_after));
        assert_eq!(u.len(), 2);
        assert!(
            u.iter()
                .all(|u| u.ecosystem == Ecosystem::PyPI && u.kind == UpdateKind::Upgraded)
        );
    }
    let mut all = dependency_updates(
        "pyproject.toml",
        Some(pyproject_before),
        Some(pyproject_after),
    );
    all.extend(dependency_updates(
        "uv.lock",
        Some(lock_before),
        Some(lock_after),
    ));
    let fastapi: Vec<String> = prefer_lockfiles(all)
        .into_iter()
        .filter(|u| u.package == "fastapi")
        .map(|u| u.file)
        .collect();
    assert_eq!(fastapi, ["uv.lock"]);
}

#[test]
fn go_mod_requires_and_major_paths() {
    let before = "module example.com/app\n\ngo 1.21\n\nrequire (\n\tgithub.com/spf13/cobra v1.7.0\n\tgithub.com/go-chi/chi v1.5.4\n\tgolang.org/x/sys v0.12.0 // indirect\n\tgithub.com/pkg/errors v0.9.1\n)\n\nrequire gopkg.in/yaml.v3 v3.0.1\n";
    let after = "module example.com/app\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n\tgithub.com/go-chi/chi/v5 v5.0.11\n\tgolang.org/x/sys v0.15.0 // indirect\n\tgithub.com/pkg/errors v1.0.0\n)\n\nrequire gopkg.in/yaml.v3 v3.0.1\n";
    let u = dependency_updates("go.mod", Some(before), Some(after));
    assert_eq!(
        u.iter().map(|u| u.package.as_str()).collect::<Vec<_>>(),
        [
            "github.com/go-chi/chi/v5",
            "github.com/pkg/errors",
            "github.com/spf13/cobra",
            "golang.org/x/sys"
        ]
    );
    assert_eq!(
        brief(find(&u, "github.com/go-chi/chi/v5")),
        (
            Some("github.com/go-chi/chi@v1.5.4"),
            Some("github.com/go-chi/chi/v5@v5.0.11"),
            UpdateKind::Upgraded,
            true
        )
    );
    assert_eq!(
        brief(find(&u, "github.com/pkg/errors")),
        (Some("v0.9.1"), Some("v1.0.0"), UpdateKind::Upgraded, true)
    );
    assert_eq!(
        brief(find(&u, "golang.org/x/sys")),
        (
            Some("v0.12.0"),
            Some("v0.15.0"),
            UpdateKind::Upgraded,
            false
        )
    );
    assert!(!find(&u, "github.com/spf13/cobra").major);
}

#[test]
fn bad_or_missing_sides() {
    // A new file: everything added; a deleted one: everything removed.
    let u = dependency_updates("go.mod", None, Some("module m\nrequire a.b/c v1.0.0\n"));
    assert_eq!(
        brief(&u[0]),
        (None, Some("v1.0.0"), UpdateKind::Added, false)
    );
    let u = dependency_updates("go.mod", Some("module m\nrequire a.b/c v1.0.0\n"), None);
    assert_eq!(u[0].kind, UpdateKind::Removed);
    // Unparseable text is an error that names the file and side, never a panic.
    let e = try_dependency_updates("Cargo.toml", Some("[dependencies"), None).unwrap_err();
    assert!(e.starts_with("Cargo.toml at base: not valid TOML"), "{e}");
    let e = try_dependency_updates("package.json", None, Some("{")).unwrap_err();
    assert!(e.starts_with("package.json at head: not valid JSON"), "{e}");
    assert!(dependency_updates("package.json", None, Some("{")).is_empty());
    assert!(try_dependency_updates("src/main.rs", None, None).is_err());
    // Unorderable versions are a change, not a guess.
    let u = dependency_updates(
        "Cargo.toml",
        Some("[dependencies]\nx = { git = \"https://e.org/x\", rev = \"abc\" }\n"),
        Some("[dependencies]\nx = { git = \"https://e.org/x\", rev = \"def\" }\n"),
    );
    assert_eq!(u[0].kind, UpdateKind::Changed);
}

proptest! {
    #[test]
    fn dependency_parsers_never_panic(text in "\\PC{0,200}", which in 0usize..10) {
        let path = ["Cargo.toml", "Cargo.lock", "package.json", "package-lock.json", "yarn.lock",
            "requirements.txt", "pyproject.toml", "uv.lock", "go.mod", "pnpm-lock.yaml"][which];
        let _ = try_dependency_updates(path, Some(&text), Some("x"));
        let _ = dependency_updates(path, None, Some(&text));
    }
}
