//! One module per framework. Each parser reads the cleaned log and returns the failures its
//! framework reports, leaving everything else alone, so several frameworks in one log all
//! come out. Paths are made repository-relative with [`relative_path`].

pub mod cargo_test;
pub mod generic;
pub mod go_test;
pub mod jest;
pub mod mocha;
pub mod nextest;
pub mod phpunit;
pub mod pytest;
pub mod rspec;
pub mod unittest;
pub mod vitest;

use crate::{Failure, FlakyTest, Framework};

/// A parser fed one cleaned line at a time by the [`crate::scan::Scanner`].
///
/// Contract:
/// - `line` gets lines in log order with the byte offset of the line in the raw log, without
///   the newline, cleaned (timestamps, colour, `\r` removed).
/// - While [`LineParser::busy`] is false for every parser, the scanner delivers only lines
///   that contain one of the triggers of some parser ([`ParserSpec::triggers`]); a parser's
///   results must not depend on the lines it does not see while idle. While any parser is
///   busy, every line reaches every parser.
/// - Memory: keep only what will be reported, bounded (at most [`MAX_FAILURES`] failures,
///   messages and traces cut with [`bounded_str`], block buffers capped), never the log.
pub trait LineParser: Send {
    fn line(&mut self, offset: u64, line: &str);
    /// Inside a block whose every line matters (a failure's trace, a summary section).
    fn busy(&self) -> bool;
    /// End of the log: every failure found, with the offset of the line it was reported on.
    fn finish(&mut self) -> Vec<(u64, Failure)>;
    /// After [`LineParser::finish`]: the tests that failed and then passed on a retry in
    /// the same job, with the offset of the line that said so. Not failures; frameworks
    /// without retries report none.
    fn flaky(&mut self) -> Vec<(u64, FlakyTest)> {
        Vec::new()
    }
}

/// A registered parser.
pub struct ParserSpec {
    pub framework: Framework,
    /// Substrings that may start something this parser reads. Matched against the raw bytes
    /// (before timestamps and colour are removed), so each must be a distinctive token that
    /// colour codes never split (`FAILED`, `--- FAIL`, `panicked at`), and the set must
    /// cover every line that can make an idle parser busy or report a failure.
    pub triggers: &'static [&'static str],
    pub new: fn() -> Box<dyn LineParser>,
    /// The generic fallback: its failures are used only when no other parser found any.
    pub fallback: bool,
}

/// Failures one parser reports at most.
pub const MAX_FAILURES: usize = 5000;

/// The registered parsers. Framework modules add themselves here.
pub const PARSERS: &[ParserSpec] = &[
    ParserSpec {
        framework: Framework::CargoTest,
        triggers: cargo_test::TRIGGERS,
        new: || Box::new(cargo_test::CargoTest::new()),
        fallback: false,
    },
    ParserSpec {
        framework: Framework::Nextest,
        triggers: nextest::TRIGGERS,
        new: || Box::new(nextest::Nextest::new()),
        fallback: false,
    },
    ParserSpec {
        framework: Framework::Pytest,
        triggers: pytest::TRIGGERS,
        new: pytest::new,
        fallback: false,
    },
    ParserSpec {
        framework: Framework::Unittest,
        triggers: unittest::TRIGGERS,
        new: unittest::new,
        fallback: false,
    },
    ParserSpec {
        framework: Framework::Jest,
        triggers: jest::TRIGGERS,
        new: || Box::new(jest::Jest::new()),
        fallback: false,
    },
    ParserSpec {
        framework: Framework::Vitest,
        triggers: vitest::TRIGGERS,
        new: || Box::new(vitest::Vitest::new()),
        fallback: false,
    },
    ParserSpec {
        framework: Framework::Mocha,
        triggers: mocha::TRIGGERS,
        new: || Box::new(mocha::Mocha::new()),
        fallback: false,
    },
    generic::SPEC,
    ParserSpec {
        framework: Framework::GoTest,
        triggers: go_test::TRIGGERS,
        new: go_test::new,
        fallback: false,
    },
    ParserSpec {
        framework: Framework::Rspec,
        triggers: rspec::TRIGGERS,
        new: rspec::new,
        fallback: false,
    },
    ParserSpec {
        framework: Framework::Phpunit,
        triggers: phpunit::TRIGGERS,
        new: phpunit::new,
        fallback: false,
    },
];

/// Each failure's name and location, for tests to compare in one assertion.
#[cfg(test)]
pub(crate) fn named_at(found: &[Failure]) -> Vec<(&str, Option<&str>, Option<u64>)> {
    found
        .iter()
        .map(|f| (f.test_name.as_str(), f.file_path.as_deref(), f.line_number))
        .collect()
}

/// `s` cut to at most `max` bytes on a character boundary, with `…` when cut.
pub fn bounded_str(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// A repository-relative path: removes GitHub-hosted runner checkouts
/// (`/home/runner/work/<repo>/<repo>/`), self-hosted `_work` checkouts, Windows runner
/// checkouts (`D:\a\<repo>\<repo>\`), and a leading `./`.
pub fn relative_path(path: &str) -> String {
    let p = if path.contains('\\') {
        std::borrow::Cow::Owned(path.replace('\\', "/"))
    } else {
        std::borrow::Cow::Borrowed(path)
    };
    // Every marker contains `work/` or `:/a/`: most paths have neither and skip the search.
    if p.contains("work/") || p.contains(":/a/") {
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
