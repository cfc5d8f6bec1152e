//! One module per framework. Each parser reads the cleaned log and returns the failures its
//! framework reports, leaving everything else alone, so several frameworks in one log all
//! come out. Paths are made repository-relative with [`relative_path`].

pub mod cargo_test;
pub mod jest;
pub mod mocha;
pub mod nextest;
pub mod pytest;
pub mod unittest;
pub mod vitest;

use crate::Failure;

/// Every parser's failures, in log order of the first line each was found on.
pub fn parse_all(text: &str) -> Vec<Failure> {
    let mut found: Vec<(usize, Failure)> = Vec::new();
    for parse in PARSERS {
        found.extend(parse(text));
    }
    found.sort_by_key(|(offset, _)| *offset);
    found.into_iter().map(|(_, f)| f).collect()
}

/// A parser returns each failure with the byte offset in the log where it was reported.
pub type Parser = fn(&str) -> Vec<(usize, Failure)>;

/// The registered parsers. Framework modules add themselves here.
const PARSERS: &[Parser] = &[
    cargo_test::parse,
    nextest::parse,
    pytest::parse,
    unittest::parse,
    jest::parse,
    vitest::parse,
    mocha::parse,
];

/// A repository-relative path: removes GitHub-hosted runner checkouts
/// (`/home/runner/work/<repo>/<repo>/`), self-hosted `_work` checkouts, Windows runner
/// checkouts (`D:\a\<repo>\<repo>\`), and a leading `./`.
pub fn relative_path(path: &str) -> String {
    let p = path.replace('\\', "/");
    for marker in [
        "/home/runner/work/",
        "/_work/",
        "D:/a/",
        "C:/a/",
        "/Users/runner/work/",
    ] {
        if let Some(i) = p.find(marker) {
            let rest = &p[i + marker.len()..];
            // <repo>/<repo>/path
            let mut parts = rest.splitn(3, '/');
            if let (Some(_), Some(_), Some(tail)) = (parts.next(), parts.next(), parts.next()) {
                return tail.to_owned();
            }
        }
    }
    p.strip_prefix("./").unwrap_or(&p).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_prefixes_are_removed() {
        for (given, want) in [
            (
                "/home/runner/work/repo/repo/tests/test_a.py",
                "tests/test_a.py",
            ),
            ("D:\\a\\repo\\repo\\src\\lib.rs", "src/lib.rs"),
            (
                "/opt/actions-runner/_work/repo/repo/pkg/x_test.go",
                "pkg/x_test.go",
            ),
            ("./spec/x_spec.rb", "spec/x_spec.rb"),
            ("src/lib.rs", "src/lib.rs"),
        ] {
            assert_eq!(relative_path(given), want, "{given}");
        }
    }
}
