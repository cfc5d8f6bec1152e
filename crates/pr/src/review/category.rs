//! What kind of file a changed path is, by its path alone.

/// The kind of a changed file. Reviewers read `Source` and `Test` first; `Generated`,
/// `Lock` and `Vendored` are output of tools or other projects. (The variants' order is
/// not a priority: [`super::plan_excerpts`] states its own.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileCategory {
    Source,
    Test,
    Config,
    Docs,
    Build,
    Generated,
    Lock,
    Vendored,
}

impl FileCategory {
    pub fn as_str(self) -> &'static str {
        match self {
            FileCategory::Source => "source",
            FileCategory::Test => "test",
            FileCategory::Config => "config",
            FileCategory::Docs => "docs",
            FileCategory::Build => "build",
            FileCategory::Generated => "generated",
            FileCategory::Lock => "lock",
            FileCategory::Vendored => "vendored",
        }
    }
}

const VENDOR_DIRS: &[&str] = &[
    "vendor",
    "vendored",
    "node_modules",
    "third_party",
    "third-party",
    "bower_components",
];

const LOCKFILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "bun.lockb",
    "deno.lock",
    "poetry.lock",
    "Pipfile.lock",
    "pdm.lock",
    "uv.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
    "go.work.sum",
    "flake.lock",
    "Package.resolved",
    "packages.lock.json",
    "mix.lock",
    "pubspec.lock",
    "Podfile.lock",
    "gradle.lockfile",
    "MODULE.bazel.lock",
];

const GENERATED_SUFFIXES: &[&str] = &[
    ".min.js",
    ".min.css",
    ".min.mjs",
    ".js.map",
    ".css.map",
    ".pb.go",
    ".pb.gw.go",
    "_pb2.py",
    "_pb2.pyi",
    "_pb2_grpc.py",
    ".pb.cc",
    ".pb.h",
    "_pb.js",
    "_pb.d.ts",
    ".g.dart",
    ".freezed.dart",
    ".designer.cs",
];

const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "testdata",
    "test_data",
    "__snapshots__",
    "e2e",
];

const DOC_DIRS: &[&str] = &["doc", "docs", "documentation"];
const DOC_EXTENSIONS: &[&str] = &["md", "markdown", "mdx", "rst", "adoc", "asciidoc", "txt"];
const DOC_STEMS: &[&str] = &[
    "README",
    "CHANGELOG",
    "CHANGES",
    "HISTORY",
    "LICENSE",
    "LICENCE",
    "COPYING",
    "NOTICE",
    "AUTHORS",
    "CONTRIBUTORS",
    "CONTRIBUTING",
    "CODE_OF_CONDUCT",
    "SECURITY",
];

const BUILD_FILES: &[&str] = &[
    "Makefile",
    "GNUmakefile",
    "makefile",
    "CMakeLists.txt",
    "build.rs",
    "Cargo.toml",
    "package.json",
    "go.mod",
    "go.work",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "Pipfile",
    "Gemfile",
    "Rakefile",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "pom.xml",
    "BUILD",
    "BUILD.bazel",
    "WORKSPACE",
    "MODULE.bazel",
    "meson.build",
    "justfile",
    "Justfile",
    "Jenkinsfile",
    "Containerfile",
    "Dockerfile",
    "docker-compose.yml",
    "docker-compose.yaml",
    "flake.nix",
    ".gitlab-ci.yml",
    "Taskfile.yml",
    "Earthfile",
];
const BUILD_EXTENSIONS: &[&str] = &["cmake", "bzl", "gemspec", "mk", "nix", "dockerfile"];
const BUILD_DIRS: &[&str] = &[".github/workflows", ".circleci", ".buildkite", ".ci"];

const CONFIG_EXTENSIONS: &[&str] = &[
    "toml",
    "yaml",
    "yml",
    "json",
    "jsonc",
    "json5",
    "ini",
    "cfg",
    "conf",
    "properties",
    "env",
    "editorconfig",
];

/// The category of `path` (forward slashes, relative to the repository root), by the
/// first rule that matches, in this order:
///
/// 1. **Vendored**: a directory named `vendor`, `vendored`, `node_modules`, `third_party`,
///    `third-party` or `bower_components`.
/// 2. **Lock**: a package manager's lockfile by name (`Cargo.lock`, `package-lock.json`,
///    `yarn.lock`, `pnpm-lock.yaml`, `poetry.lock`, `uv.lock`, `go.sum`, `Gemfile.lock`,
///    `composer.lock`, `flake.lock`, …) or any `*.lock`.
/// 3. **Generated**: minified or source-map files (`*.min.js`, `*.js.map`, …), protobuf and
///    gRPC output (`*.pb.go`, `*_pb2.py`, `*.pb.h`, …), Dart/C# generator output, and any
///    name with a `_generated.`, `.generated.` or `zz_generated` part. A file whose *content*
///    says `@generated` is not detected: only the path is read.
/// 4. **Test**: a directory named `test`, `tests`, `__tests__`, `spec`, `specs`, `testdata`,
///    `__snapshots__` or `e2e`; or a test file by name: `*_test.go`, `test_*.py`,
///    `*_test.py`, `conftest.py`, `*.test.*` and `*.spec.*` (JS/TS), `*Test.java`,
///    `*Tests.java`, `*Test.kt`, `*Tests.cs`, `*_spec.rb`, `*_test.rb`, `*.snap`.
/// 5. **Docs**: a directory named `doc`, `docs` or `documentation`; Markdown, reST,
///    AsciiDoc or `.txt` files (`requirements*.txt` and `CMakeLists.txt` excepted); and
///    `README`, `CHANGELOG`, `LICENSE`, `CONTRIBUTING`, … with any extension.
/// 6. **Build**: build and CI definitions (`Makefile`, `Cargo.toml`, `package.json`,
///    `go.mod`, `pyproject.toml`, `setup.py`, `Dockerfile*`, `BUILD.bazel`, `*.bzl`,
///    `*.cmake`, `requirements*.txt`, `.github/workflows/`, `.gitlab-ci.yml`, …).
/// 7. **Config**: `*.toml`, `*.yaml`, `*.yml`, `*.json`, `*.ini`, `*.cfg`, `*.conf`,
///    `*.properties`, `.env*`, and other dotfiles at any level (`.gitignore`,
///    `.eslintrc`, …).
/// 8. **Source**: everything else.
pub fn file_category(path: &str) -> FileCategory {
    let path = path.trim_start_matches("./");
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let Some((&name, dirs)) = parts.split_last() else {
        return FileCategory::Source;
    };
    let lower = name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
    let has_dir = |set: &[&str]| dirs.iter().any(|d| set.contains(d));

    if has_dir(VENDOR_DIRS) {
        return FileCategory::Vendored;
    }
    if LOCKFILES.contains(&name) || (ext == "lock" && lower != ".lock") {
        return FileCategory::Lock;
    }
    if GENERATED_SUFFIXES.iter().any(|s| lower.ends_with(s))
        || lower.contains("_generated.")
        || lower.contains(".generated.")
        || lower.starts_with("zz_generated")
    {
        return FileCategory::Generated;
    }
    if has_dir(TEST_DIRS) || is_test_name(name, &lower) {
        return FileCategory::Test;
    }
    let stem = name.split('.').next().unwrap_or(name);
    let is_requirements = lower.starts_with("requirements") && ext == "txt";
    if has_dir(DOC_DIRS)
        || (DOC_EXTENSIONS.contains(&ext) && !is_requirements && name != "CMakeLists.txt")
        || DOC_STEMS.contains(&stem.to_ascii_uppercase().as_str())
    {
        return FileCategory::Docs;
    }
    if BUILD_FILES.contains(&name)
        || BUILD_EXTENSIONS.contains(&ext)
        || is_requirements
        || name.starts_with("Dockerfile")
        || BUILD_DIRS
            .iter()
            .any(|d| path.starts_with(&format!("{d}/")) || path.contains(&format!("/{d}/")))
    {
        return FileCategory::Build;
    }
    if CONFIG_EXTENSIONS.contains(&ext) || name.starts_with('.') {
        return FileCategory::Config;
    }
    FileCategory::Source
}

fn is_test_name(name: &str, lower: &str) -> bool {
    let js_like = [
        "js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts", "vue", "svelte",
    ];
    let middle_test = {
        // `x.test.ts`, `x.spec.js`: a `test`/`spec` part before a JS-like extension.
        let pieces: Vec<&str> = lower.split('.').collect();
        pieces.len() >= 3
            && js_like.contains(pieces.last().unwrap_or(&""))
            && pieces[1..pieces.len() - 1]
                .iter()
                .any(|p| *p == "test" || *p == "spec")
    };
    middle_test
        || lower.ends_with("_test.go")
        || (lower.starts_with("test_") && lower.ends_with(".py"))
        || lower.ends_with("_test.py")
        || lower == "conftest.py"
        || name.ends_with("Test.java")
        || name.ends_with("Tests.java")
        || name.ends_with("Test.kt")
        || name.ends_with("Tests.cs")
        || lower.ends_with("_spec.rb")
        || lower.ends_with("_test.rb")
        || lower.ends_with(".snap")
}
