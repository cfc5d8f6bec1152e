//! `review::focus_points` and `review::file_category` on real `git diff` output.

use crate::review_support;

use resolve_pr_pr::review::{FileCategory, FocusKind, FocusPoint, file_category, focus_points};
use review_support::{git_patch, line_of};

fn summary(points: &[FocusPoint]) -> Vec<(FocusKind, u32, bool)> {
    points.iter().map(|p| (p.kind, p.line, p.removed)).collect()
}

#[test]
fn categories_by_documented_rule() {
    let cases = [
        ("src/lib.rs", FileCategory::Source),
        ("crates/pr/src/review/mod.rs", FileCategory::Source),
        ("tests/e2e.rs", FileCategory::Test),
        ("pkg/server/server_test.go", FileCategory::Test),
        ("app/test_models.py", FileCategory::Test),
        ("app/models_test.py", FileCategory::Test),
        ("conftest.py", FileCategory::Test),
        ("web/src/Button.spec.tsx", FileCategory::Test),
        ("web/src/api.test.ts", FileCategory::Test),
        ("web/src/__tests__/api.ts", FileCategory::Test),
        ("src/test/java/com/x/FooTest.java", FileCategory::Test),
        ("Cargo.lock", FileCategory::Lock),
        ("web/package-lock.json", FileCategory::Lock),
        ("yarn.lock", FileCategory::Lock),
        ("pnpm-lock.yaml", FileCategory::Lock),
        ("go.sum", FileCategory::Lock),
        ("poetry.lock", FileCategory::Lock),
        ("vendor/github.com/x/y/y.go", FileCategory::Vendored),
        ("web/node_modules/react/index.js", FileCategory::Vendored),
        ("third_party/zlib/inflate.c", FileCategory::Vendored),
        ("node_modules/pkg/package-lock.json", FileCategory::Vendored),
        ("static/app.min.js", FileCategory::Generated),
        ("api/v1/service.pb.go", FileCategory::Generated),
        ("api/service_pb2.py", FileCategory::Generated),
        ("pkg/apis/zz_generated.deepcopy.go", FileCategory::Generated),
        ("src/schema_generated.rs", FileCategory::Generated),
        ("README.md", FileCategory::Docs),
        ("docs/guide/install.rst", FileCategory::Docs),
        ("docs/conf.py", FileCategory::Docs),
        ("LICENSE", FileCategory::Docs),
        ("CHANGELOG", FileCategory::Docs),
        ("Cargo.toml", FileCategory::Build),
        ("crates/pr/Cargo.toml", FileCategory::Build),
        ("package.json", FileCategory::Build),
        ("Makefile", FileCategory::Build),
        ("CMakeLists.txt", FileCategory::Build),
        ("requirements-dev.txt", FileCategory::Build),
        ("Dockerfile.release", FileCategory::Build),
        (".github/workflows/ci.yml", FileCategory::Build),
        ("build.rs", FileCategory::Build),
        ("config/settings.yaml", FileCategory::Config),
        ("tsconfig.json", FileCategory::Config),
        (".gitignore", FileCategory::Config),
        (".env.example", FileCategory::Config),
        ("rustfmt.toml", FileCategory::Config),
        ("src/main.go", FileCategory::Source),
        ("scripts/deploy.sh", FileCategory::Source),
        ("", FileCategory::Source),
    ];
    for (path, expected) in cases {
        assert_eq!(file_category(path), expected, "{path}");
    }
}

const RUST_BEFORE: &str = r#"use std::fs;

/// Reads the config.
pub fn load(path: &str) -> Config {
    let text = fs::read_to_string(path).unwrap_or_default();
    parse(&text)
}

fn parse(text: &str) -> Config {
    Config { size: text.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_empty() {
        assert_eq!(parse("").size, 0);
    }

    #[test]
    fn parses_text() {
        assert_eq!(parse("abc").size, 3);
    }
}
"#;

const RUST_AFTER: &str = r#"use std::fs;

/// Reads the config.
pub fn load(path: &str) -> Config {
    // TODO: report errors instead of panicking
    let text = fs::read_to_string(path).expect("config readable");
    parse(&text)
}

pub fn load_raw(ptr: *const u8, len: usize) -> Config {
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    // .unwrap() in a comment is no panic
    parse(std::str::from_utf8(bytes).unwrap())
}

fn parse(text: &str) -> Config {
    Config { size: text.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_empty() {
        assert_eq!(parse("").size, 0);
        let c = Some(parse("")).unwrap();
        assert_eq!(c.size, 0);
    }
}
"#;

#[test]
fn rust_diff_unsafe_panics_todo_public_and_removed_tests() {
    let patch = git_patch("src/config.rs", RUST_BEFORE, RUST_AFTER);
    let points = focus_points("src/config.rs", &patch);
    let expected = vec![
        (
            FocusKind::TodoAdded,
            line_of(RUST_AFTER, "TODO: report"),
            false,
        ),
        (
            FocusKind::Panic,
            line_of(RUST_AFTER, "expect(\"config"),
            false,
        ),
        (
            FocusKind::PublicSignature,
            line_of(RUST_AFTER, "pub fn load_raw"),
            false,
        ),
        (FocusKind::Unsafe, line_of(RUST_AFTER, "unsafe {"), false),
        (
            FocusKind::Panic,
            line_of(RUST_AFTER, "from_utf8(bytes).unwrap()"),
            false,
        ),
        (FocusKind::RemovedTest, 0, true),
    ];
    // `line_of` finds single lines; the removed #[test] is the second one in the old file.
    let second_test = RUST_BEFORE
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == "#[test]")
        .nth(1)
        .map(|(i, _)| u32::try_from(i + 1).unwrap())
        .unwrap();
    let mut expected = expected;
    expected[5].1 = second_test;
    assert_eq!(summary(&points), expected, "{points:#?}\n{patch}");
    let todo = &points[0];
    assert_eq!(todo.excerpt, "// TODO: report errors instead of panicking");
    assert_eq!(todo.reason, "adds a TODO marker");
    assert_eq!(points[1].reason, "can panic outside tests (`.expect`)");
}

#[test]
fn python_dynamic_code_sql_and_secrets() {
    let before = "import subprocess\n\n\ndef run(cmd):\n    return subprocess.run(cmd)\n\n\ndef test_run():\n    assert run(['true'])\n";
    let after = concat!(
        "import pickle\nimport subprocess\n\n\n",
        "def run(cmd):\n    return subprocess.run(cmd, shell=True)\n\n\n",
        "def load(blob):\n    # eval(blob) would be worse\n    return pickle.loads(blob)\n\n\n",
        "def find(db, name):\n    return db.execute(f\"SELECT * FROM users WHERE name = '{name}'\")\n\n\n",
        "def safe(db, name):\n    return db.execute(\"SELECT * FROM users WHERE name = ?\", (name,))\n\n\n",
        "API_KEY = \"sk_live_4eC39HqLyjWDarjtT1zdp7dc\"\n",
        "DB_PASSWORD = \"correct-horse-battery\"\n",
        "EXAMPLE_PASSWORD = \"changeme\"\n",
    );
    let patch = git_patch("app/jobs.py", before, after);
    let points = focus_points("app/jobs.py", &patch);
    let kinds: Vec<(FocusKind, u32, bool)> = summary(&points);
    let expected = vec![
        (FocusKind::DynamicCode, line_of(after, "shell=True"), false),
        (
            FocusKind::RemovedTest,
            line_of(before, "def test_run"),
            true,
        ),
        (
            FocusKind::PublicSignature,
            line_of(before, "def test_run"),
            true,
        ),
        (
            FocusKind::PublicSignature,
            line_of(after, "def load"),
            false,
        ),
        (
            FocusKind::DynamicCode,
            line_of(after, "pickle.loads"),
            false,
        ),
        (
            FocusKind::PublicSignature,
            line_of(after, "def find"),
            false,
        ),
        (
            FocusKind::SqlConcatenation,
            line_of(after, "f\"SELECT"),
            false,
        ),
        (
            FocusKind::PublicSignature,
            line_of(after, "def safe"),
            false,
        ),
        (FocusKind::SecretLike, line_of(after, "API_KEY"), false),
        (FocusKind::SecretLike, line_of(after, "DB_PASSWORD"), false),
    ];
    assert_eq!(kinds, expected, "{points:#?}\n{patch}");
    let secrets: Vec<&str> = points
        .iter()
        .filter(|p| p.kind == FocusKind::SecretLike)
        .map(|p| p.excerpt.as_str())
        .collect();
    assert_eq!(secrets, ["API_KEY = \"****\"", "DB_PASSWORD = \"****\""]);
    assert!(points.iter().all(|p| !p.excerpt.contains("correct-horse")));
}

#[test]
fn javascript_and_go_rules() {
    let js_before = "export function render(el, html) {\n  el.textContent = html;\n}\n\nit('renders', () => {\n  render(document.body, 'x');\n});\n";
    let js_after = "export function render(el, html) {\n  el.innerHTML = html;\n  const f = new Function('return ' + html);\n  // eval(html)\n  return db.query(`DELETE FROM items WHERE id = ${html}`);\n}\n";
    let patch = git_patch("web/render.js", js_before, js_after);
    let points = focus_points("web/render.js", &patch);
    assert_eq!(
        summary(&points),
        [
            (FocusKind::Unsafe, 2, false),
            (FocusKind::DynamicCode, 3, false),
            (FocusKind::SqlConcatenation, 5, false),
            (FocusKind::RemovedTest, 5, true),
        ],
        "{points:#?}"
    );

    let go_before = "package store\n\nfunc Get(k string) string { return k }\n";
    let go_after = "package store\n\nimport \"unsafe\"\n\nfunc Get(k string) string { return k }\n\nfunc Ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }\n\nfunc helper() {}\n";
    let patch = git_patch("store/store.go", go_before, go_after);
    let points = focus_points("store/store.go", &patch);
    assert_eq!(
        summary(&points),
        [
            (FocusKind::Unsafe, 3, false),
            (FocusKind::Unsafe, 7, false),
            (FocusKind::PublicSignature, 7, false),
        ],
        "{points:#?}"
    );
    let test_before = "package store\n\nfunc TestGet(t *testing.T) {\n\tif Get(\"a\") != \"a\" {\n\t\tt.Fatal()\n\t}\n}\n";
    let patch = git_patch("store/store_test.go", test_before, "package store\n");
    let points = focus_points("store/store_test.go", &patch);
    assert_eq!(
        summary(&points),
        [
            (FocusKind::RemovedTest, 3, true),
            (FocusKind::PublicSignature, 3, true)
        ]
    );
}

#[test]
fn panics_in_rust_test_files_are_not_points_and_long_lines_are_cut() {
    let after = "#[test]\nfn works() {\n    thing().unwrap();\n}\n";
    let patch = git_patch("tests/it.rs", "", after);
    assert!(focus_points("tests/it.rs", &patch).is_empty());
    let long = format!(
        "pub fn f() {{ let _ = x.unwrap(); /* {} */ }}\n",
        "y".repeat(300)
    );
    let patch = git_patch("src/f.rs", "", &long);
    let points = focus_points("src/f.rs", &patch);
    assert_eq!(points.len(), 2);
    for p in &points {
        assert_eq!(p.excerpt.chars().count(), 160);
        assert!(p.excerpt.ends_with('…'));
    }
    // No patch, garbage and a header-less body give nothing and do not panic.
    assert!(focus_points("src/f.rs", "").is_empty());
    assert!(focus_points("src/f.rs", "+unsafe {}\n").is_empty());
    assert_eq!(
        focus_points("src/f.rs", "@@ nonsense @@\n+unsafe {}\n")[0].line,
        0
    );
}
