//! Complexity per function, held to what lizard 1.24.3 and radon 6.0.1 print for the same
//! sources (the figures in the comments were read from `lizard --csv` and `radon mi -s`
//! on the files under `data/`).

use resolve_pr_analysis::functions::{Function, functions};
use resolve_pr_analysis::maintainability::{maintainability, python_raw};
use resolve_pr_analysis::{Dialect, SourceFile};

fn parse(name: &str, dialect: Dialect) -> SourceFile {
    let text = std::fs::read_to_string(format!(
        "{}/tests/it/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    SourceFile::parse(name, dialect, text).unwrap()
}

/// (qualified name, first line from 1, cyclomatic, parameters)
fn table(fs: &[Function]) -> Vec<(String, u32, u32, u32)> {
    fs.iter()
        .map(|f| {
            (
                f.qualified.clone(),
                f.name_span.start.line + 1,
                f.cyclomatic,
                f.parameters,
            )
        })
        .collect()
}

fn row(name: &str, line: u32, ccn: u32, params: u32) -> (String, u32, u32, u32) {
    (name.to_owned(), line, ccn, params)
}

#[test]
fn rust_counts_match_arms_let_else_try_and_closures_without_parameters_as_lizard_does() {
    let fs = functions(&parse("complexity.rs.txt", Dialect::Rust));
    // lizard: parse 9 (let-else, two arms after the first, if, &&, ||, ?, `||` closure),
    // inner 2 (its own), helper 3.
    assert_eq!(
        table(&fs),
        [
            row("parse", 1, 9, 1),
            row("inner", 14, 2, 1),
            row("helper", 21, 3, 1)
        ]
    );
    let helper = &fs[2];
    // for (+1), while nested in it (+2).
    assert_eq!((helper.cognitive, helper.nesting), (3, 2));
    assert!(fs[0].public && !helper.public);
    assert_eq!(helper.lines, 8);
}

#[test]
fn python_counts_comprehensions_elif_boolean_operators_finally_and_cases() {
    let fs = functions(&parse("complexity.py.txt", Dialect::Python));
    // lizard: classify 13, size 1, size.inner 2 (lizard names it size.inner).
    assert_eq!(
        table(&fs),
        [
            row("classify", 1, 13, 2),
            row("Box.size", 22, 1, 3),
            row("inner", 23, 2, 0)
        ]
    );
    assert_eq!(fs[1].symbol_kind, "method");
}

#[test]
fn typescript_counts_ternaries_and_nullish_but_not_optional_members() {
    let fs = functions(&parse("complexity.ts.txt", Dialect::TypeScript));
    // lizard: pick 8 (two ternaries, two cases, ??, ||, &&), double 1.
    assert_eq!(table(&fs), [row("pick", 1, 8, 3), row("double", 13, 1, 1)]);
    assert!(fs.iter().all(|f| f.public));
}

#[test]
fn c_counts_preprocessor_conditions_and_names_a_function_by_its_declarator_line() {
    let fs = functions(&parse("complexity.c.txt", Dialect::C));
    // lizard: count 6 at line 2 (for, #if, if, ||, ?).
    assert_eq!(table(&fs), [row("count", 2, 6, 2)]);
    assert!(!fs[0].public, "static");
}

#[test]
fn python_maintainability_index_is_radons() {
    let m = maintainability(&parse("complexity.py.txt", Dialect::Python));
    // radon mi -s: 54.87 (radon raw: lloc 23; complexity 12).
    assert!((m.index - 54.87).abs() < 0.01, "{m:?}");
    assert_eq!((m.logical_lines, m.complexity), (23, 12));
}

#[test]
fn radon_raw_counts_a_colon_that_does_not_end_a_line_as_two_logical_lines() {
    let raw = python_raw("if x: y = 1\nd = {a: 1}\n\"\"\"doc\nstring\"\"\"\n# c\nz = 2  # c\n");
    assert_eq!(
        (
            raw.lloc,
            raw.sloc,
            raw.multi,
            raw.comments,
            raw.single_comments
        ),
        (6, 3, 2, 2, 1)
    );
}

#[test]
fn no_source_panics_the_metrics() {
    use proptest::prelude::*;
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(200));
    runner
        .run(&(any::<String>(), 0..6usize), |(text, d)| {
            let dialect = [
                Dialect::Rust,
                Dialect::Python,
                Dialect::TypeScript,
                Dialect::Go,
                Dialect::C,
                Dialect::JavaScript,
            ][d];
            let file = SourceFile::parse("x", dialect, text.clone()).unwrap();
            let _ = functions(&file);
            let _ = maintainability(&file);
            let _ = python_raw(&text);
            Ok(())
        })
        .unwrap();
}

#[test]
fn c_else_if_chains_split_by_conditional_directives_are_read_whole() {
    let file = parse("complexity-else-if.c.txt", Dialect::C);
    let fs = functions(&file);
    // lizard: 8 (if, #if, else if with &&, else if, else if with ||); the function ends at
    // its own closing brace, though `else` follows an `#endif`.
    assert_eq!(table(&fs), [row("stringify", 2, 8, 2)]);
    assert_eq!(fs[0].span.end.line + 1, 20);
    // The text is the file's own: the directives are only hidden from the parser.
    assert!(file.text.contains("#endif /* old */"));
}

#[test]
fn a_union_in_a_class_annotation_is_an_operation_as_in_pythons_ast() {
    let text = "class A:\n    x: list[\n        dict[str, int] | None\n    ] = []\n    y: int | None = None\n";
    let m = maintainability(&SourceFile::parse("u.py", Dialect::Python, text.to_owned()).unwrap());
    // radon 6.0.1: mi_visit(text, True) = 77.0617…; Halstead: 2 operators, 4 operands.
    assert!((m.index - 77.0617).abs() < 0.001, "{m:?}");
    assert!((m.halstead_volume - 12.0).abs() < 1e-9, "{m:?}");
}
