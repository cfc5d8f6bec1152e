//! Test functions, assertions and smells per language, untested public functions, and
//! coverage reports read from real tool output.

use resolve_pr_analysis::SourceFile;
use resolve_pr_analysis::coverage::{CoverageError, CoverageFormat, parse_coverage};
use resolve_pr_analysis::testing::{is_test_file, test_functions, untested};

fn parse(path: &str, text: &str) -> SourceFile {
    let dialect = resolve_pr_syntax::dialect_of(path).unwrap();
    SourceFile::parse(path, dialect, text.to_owned()).unwrap()
}

/// `(name, assertions, smells)` per test.
fn tests_of(path: &str, text: &str) -> Vec<(String, u32, Vec<&'static str>)> {
    test_functions(&parse(path, text))
        .into_iter()
        .map(|t| (t.name, t.assertions, t.smells))
        .collect()
}

#[test]
fn rust_tests_count_assert_macros_and_should_panic_not_unwrap() {
    let src = r#"
pub fn add(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
        assert!(add(0, 0) == 0, "zero");
        debug_assert_ne!(add(1, 1), 3);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflows() {
        add(i32::MAX, 1);
    }

    #[tokio::test]
    async fn waits() {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        "1".parse::<i32>().unwrap();
    }

    #[test]
    #[ignore = "slow"]
    fn skipped() {}

    fn helper() {}
}
"#;
    assert_eq!(
        tests_of("src/lib.rs", src),
        [
            ("adds".into(), 3, vec![]),
            ("overflows".into(), 1, vec![]),
            ("waits".into(), 0, vec!["no_assertion", "sleep"]),
            ("skipped".into(), 0, vec!["skipped", "empty"]),
        ]
    );
    let adds = &test_functions(&parse("src/lib.rs", src))[0];
    assert_eq!(adds.calls, ["add"]);
    assert_eq!(adds.span.start.line, 8);
}

#[test]
fn python_pytest_and_unittest_tests_with_their_assertions_and_smells() {
    let src = r#"
import time
import unittest
import pytest
from shapes import area


def test_square():
    assert area("square", 2) == 4
    with pytest.raises(ValueError):
        area("hexagon", 1)


@pytest.mark.skip(reason="flaky")
def test_circle():
    time.sleep(0.5)
    print(area("circle", 1))


def helper_test():
    assert True


class TestArea:
    def test_zero(self):
        assert area("square", 0) == 0

    def setup_method(self):
        pass


class AreaCase(unittest.TestCase):
    def test_neg(self):
        self.assertEqual(area("square", -1), 1)
        self.assertRaises(ValueError, area, "x", 1)

    def test_todo(self):
        pass
"#;
    assert_eq!(
        tests_of("tests/test_area.py", src),
        [
            ("test_square".into(), 2, vec![]),
            (
                "test_circle".into(),
                0,
                vec!["no_assertion", "skipped", "sleep"]
            ),
            ("test_zero".into(), 1, vec![]),
            ("test_neg".into(), 2, vec![]),
            ("test_todo".into(), 0, vec!["empty"]),
        ]
    );
}

#[test]
fn javascript_it_and_test_cases_with_expect_chains_and_skips() {
    let src = r#"
import { sum } from "../src/sum";

describe("sum", () => {
  it("adds two numbers", () => {
    expect(sum(1, 2)).toBe(3);
    expect(sum(0, 0)).not.toBe(1);
  });

  it.skip("adds many", () => {
    expect(sum(1, 2, 3)).toBe(6);
  });

  xit("is old", () => {});

  test("waits", async () => {
    await new Promise((r) => setTimeout(r, 100));
    sum(1, 1);
  });

  test.only("asserts", () => {
    assert.strictEqual(sum(2, 2), 4);
  });
});
"#;
    assert_eq!(
        tests_of("test/sum.test.ts", src),
        [
            ("adds two numbers".into(), 2, vec![]),
            ("adds many".into(), 1, vec!["skipped"]),
            ("is old".into(), 0, vec!["skipped", "empty"]),
            ("waits".into(), 0, vec!["no_assertion", "sleep"]),
            ("asserts".into(), 1, vec![]),
        ]
    );
}

#[test]
fn go_tests_count_t_error_fatal_and_testify_calls() {
    let src = r#"package shapes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestArea(t *testing.T) {
	if got := Area(2); got != 4 {
		t.Errorf("Area(2) = %d", got)
	}
	assert.Equal(t, 9, Area(3))
}

func TestSlow(t *testing.T) {
	t.Skip("slow")
	time.Sleep(time.Second)
}

func BenchmarkArea(b *testing.B) {}

func TestHelper(x int) {}
"#;
    assert_eq!(
        tests_of("shapes_test.go", src),
        [
            ("TestArea".into(), 2, vec![]),
            (
                "TestSlow".into(),
                0,
                vec!["no_assertion", "skipped", "sleep"]
            ),
        ]
    );
}

#[test]
fn long_tests_are_too_long() {
    let body = "    assert x == 1\n".repeat(60);
    let src = format!("def test_long():\n    x = 1\n{body}");
    assert_eq!(
        tests_of("test_long.py", &src),
        [("test_long".into(), 60, vec!["too_long"])]
    );
}

#[test]
fn test_files_by_convention() {
    for yes in [
        "tests/it/main.rs",
        "pkg/shapes_test.go",
        "test_shapes.py",
        "pkg/shapes_test.py",
        "src/sum.test.ts",
        "src/sum.spec.js",
        "src/__tests__/sum.tsx",
        "conftest.py",
    ] {
        assert!(is_test_file(yes), "{yes}");
    }
    for no in [
        "src/lib.rs",
        "shapes.go",
        "testing_utils_x.py",
        "src/contest.ts",
        "src/test.ts",
    ] {
        assert!(!is_test_file(no), "{no}");
    }
}

#[test]
fn untested_public_functions_are_those_no_test_calls_or_names() {
    let files = [
        parse(
            "shapes.py",
            "def area(k, s):\n    return s\n\ndef perimeter(k, s):\n    return s\n\ndef _private():\n    pass\n\nclass Box:\n    def volume(self):\n        return 1\n",
        ),
        parse(
            "test_shapes.py",
            "from shapes import area\n\ndef test_area():\n    assert area('square', 1) == 1\n",
        ),
        parse(
            "src/lib.rs",
            "pub fn add() {}\npub fn sub() {}\nfn private() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { super::sub(); }\n}\n",
        ),
    ];
    let names: Vec<(String, String, &str)> = untested(&files)
        .into_iter()
        .map(|u| (u.file, u.name, u.symbol_kind))
        .collect();
    assert_eq!(
        names,
        [
            ("shapes.py".into(), "perimeter".into(), "function"),
            ("shapes.py".into(), "volume".into(), "method"),
            ("src/lib.rs".into(), "add".into(), "function"),
        ]
    );
}

#[test]
fn lcov_from_coverage_py_gives_lines_and_functions() {
    let cov = parse_coverage(CoverageFormat::Lcov, include_str!("data/coveragepy.lcov")).unwrap();
    let shapes = &cov.files[0];
    assert_eq!(shapes.path, "shapes.py");
    assert_eq!((shapes.lines_found, shapes.lines_hit), (16, 9));
    assert_eq!(shapes.uncovered_lines, [7, 8, 9, 13, 14, 15, 24]);
    assert_eq!(
        shapes.functions,
        [
            ("area".into(), 4, 1),
            ("perimeter".into(), 12, 0),
            ("Box.__init__".into(), 19, 1),
            ("Box.volume".into(), 23, 0),
        ]
    );
    assert_eq!(cov.files[1].path, "test_shapes.py");
    assert_eq!((cov.files[1].lines_found, cov.files[1].lines_hit), (5, 5));
    assert!((cov.ratio() - 14.0 / 21.0).abs() < 1e-9);
}

#[test]
fn cobertura_from_coverage_py_agrees_with_its_lcov() {
    let xml = parse_coverage(
        CoverageFormat::Cobertura,
        include_str!("data/coveragepy-cobertura.xml"),
    )
    .unwrap();
    let lcov = parse_coverage(CoverageFormat::Lcov, include_str!("data/coveragepy.lcov")).unwrap();
    assert_eq!(xml.files.len(), 2);
    for (x, l) in xml.files.iter().zip(&lcov.files) {
        assert_eq!(
            (&x.path, x.lines_found, x.lines_hit, &x.uncovered_lines),
            (&l.path, l.lines_found, l.lines_hit, &l.uncovered_lines)
        );
    }
}

#[test]
fn cobertura_methods_as_cargo_llvm_cov_writes_them_count_once() {
    let xml = r#"<?xml version="1.0"?>
<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">
<coverage lines-valid="3" lines-covered="2" line-rate="0.66" version="1.9" timestamp="0">
  <sources><source>/work/x</source></sources>
  <packages><package name="x" line-rate="0.66"><classes>
    <class name="lib" filename="src/lib.rs" line-rate="0.66">
      <methods>
        <method name="x::add" signature="" line-rate="1"><lines><line number="1" hits="4"/></lines></method>
        <method name="x::sub" signature="" line-rate="0"><lines><line number="5" hits="0"/></lines></method>
      </methods>
      <lines><line number="1" hits="4"/><line number="2" hits="4"/><line number="5" hits="0" branch="false"/></lines>
    </class>
  </classes></package></packages>
</coverage>"#;
    let cov = parse_coverage(CoverageFormat::Cobertura, xml).unwrap();
    assert_eq!(cov.files.len(), 1);
    let f = &cov.files[0];
    assert_eq!(
        (f.lines_found, f.lines_hit, f.uncovered_lines.clone()),
        (3, 2, vec![5])
    );
    assert_eq!(
        f.functions,
        [("x::add".into(), 1, 4), ("x::sub".into(), 5, 0)]
    );
}

#[test]
fn jacoco_by_its_dtd_reads_lines_by_covered_instructions_without_fetching_the_dtd() {
    let cov = parse_coverage(CoverageFormat::Jacoco, include_str!("data/jacoco.xml")).unwrap();
    let paths: Vec<&str> = cov.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["org/example/shapes/Shapes.java", "Main.java"]);
    let shapes = &cov.files[0];
    assert_eq!((shapes.lines_found, shapes.lines_hit), (6, 4));
    assert_eq!(shapes.uncovered_lines, [9, 10]);
    assert_eq!(
        shapes.functions,
        [
            ("<init>".into(), 3, 1),
            ("area".into(), 5, 1),
            ("perimeter".into(), 9, 0)
        ]
    );
}

#[test]
fn bad_reports_are_errors_that_say_where() {
    assert_eq!(
        parse_coverage(CoverageFormat::Lcov, "SF:a.py\nDA:x,1\nend_of_record\n"),
        Err(CoverageError::Lcov {
            line: 2,
            why: "line `x` is not a number".into()
        })
    );
    assert_eq!(
        parse_coverage(CoverageFormat::Lcov, "DA:1,1\n"),
        Err(CoverageError::Lcov {
            line: 1,
            why: "DA before any SF".into()
        })
    );
    assert!(matches!(
        parse_coverage(CoverageFormat::Lcov, "SF:a.py\nDA:1,1\n"),
        Err(CoverageError::Lcov { line: 2, .. })
    ));
    assert!(matches!(
        parse_coverage(CoverageFormat::Cobertura, "<coverage><packages></coverage>"),
        Err(CoverageError::Xml {
            format: "cobertura",
            ..
        })
    ));
    assert_eq!(
        parse_coverage(
            CoverageFormat::Jacoco,
            include_str!("data/coveragepy-cobertura.xml")
        ),
        Err(CoverageError::NotThisFormat {
            format: "jacoco",
            why: "the root element is <coverage>, not <report>".into()
        })
    );
    assert!(matches!(
        parse_coverage(
            CoverageFormat::Cobertura,
            "<coverage><class filename=\"a\"><line number=\"1\" hits=\"many\"/></class></coverage>"
        ),
        Err(CoverageError::NotThisFormat { .. })
    ));
    assert!(parse_coverage(CoverageFormat::Cobertura, "").is_err());
}

#[test]
fn broken_and_truncated_sources_never_panic() {
    let sources = [
        (
            "src/lib.rs",
            "/// Doc\npub struct S { pub a: u32, }\nimpl S { pub fn f(&self, x: u32) { assert!(x > 0); } }\n#[test]\nfn t() { assert_eq!(1, 1); } // TODO: x\n",
        ),
        (
            "test_m.py",
            "\"\"\"M.\"\"\"\nclass TestA:\n    def test_a(self):\n        '''Doc\n        :param x: y'''\n        assert 1  # FIXME\n",
        ),
        (
            "a.test.ts",
            "/** @param {number} a */\nexport function f(a: number) {}\nit('x', () => { expect(f(1)).toBe(1); });\n",
        ),
        (
            "a_test.go",
            "package a\n// F does.\nfunc F(x int) {}\nfunc TestF(t *testing.T) { t.Errorf(\"x\") }\n",
        ),
        ("a.h", "#ifndef A\n/* F. */\nint f(int x);\n#endif\n"),
    ];
    for (path, text) in sources {
        for end in (0..=text.len()).filter(|e| text.is_char_boundary(*e)) {
            let f = parse(path, &text[..end]);
            for item in resolve_pr_analysis::docs::doc_items(&f) {
                resolve_pr_analysis::docs::outdated(&item);
                resolve_pr_analysis::docs::doc_quality(&item, true);
            }
            resolve_pr_analysis::docs::todos(&f);
            test_functions(&f);
        }
    }
    for text in [
        "SF:a\nDA:1",
        "SF:a\nFN:1\nend_of_record",
        "<report><package name='p'><sourcefile name='A'><line nr='x'/>",
    ] {
        for end in (0..=text.len()).filter(|e| text.is_char_boundary(*e)) {
            for format in [
                CoverageFormat::Lcov,
                CoverageFormat::Cobertura,
                CoverageFormat::Jacoco,
            ] {
                let _ = parse_coverage(format, &text[..end]);
            }
        }
    }
}
