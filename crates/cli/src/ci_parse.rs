//! `resolve-pr ci parse FILE|-`: the failing tests a job log reports, for people (a list) and
//! scripts (`--json`: every failure, no pagination).

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;

use crate::style::Style;

/// The failures in a job log, streamed (memory does not grow with the log), or in a JUnit
/// XML report when the input is one.
fn failures_in(mut input: impl Read) -> anyhow::Result<Vec<resolve_pr_ci::Failure>> {
    let mut head = Vec::with_capacity(4096);
    (&mut input).take(4096).read_to_end(&mut head)?;
    if resolve_pr_ci::junit::looks_like_junit(&head) {
        let mut xml = head;
        input.read_to_end(&mut xml)?;
        return resolve_pr_ci::junit::parse_junit(&xml)
            .map_err(|e| anyhow::anyhow!("the input looks like JUnit XML but is not valid: {e}"));
    }
    let mut scanner = resolve_pr_ci::Scanner::new();
    scanner.feed(&head);
    Ok(scanner.read_from(input)?.failures())
}

pub fn run(source: &str, style: Style) -> anyhow::Result<ExitCode> {
    let failures = if source == "-" {
        failures_in(std::io::stdin().lock()).context("cannot read the log from stdin")?
    } else {
        let file = std::fs::File::open(source)
            .with_context(|| format!("cannot read the log file {source}"))?;
        failures_in(file).with_context(|| format!("cannot read the log file {source}"))?
    };
    if style.json {
        let items: Vec<_> = failures
            .iter()
            .map(|f| {
                json!({
                    "test_name": f.test_name,
                    "file_path": f.file_path,
                    "line_number": f.line_number,
                    "error_type": f.error_type,
                    "error_message": f.error_message,
                    "confidence": f.confidence,
                    "framework": f.framework,
                    "reproduce_command": f.reproduce_command,
                })
            })
            .collect();
        println!("{}", json!({ "failures": items }));
        return Ok(ExitCode::SUCCESS);
    }
    if failures.is_empty() {
        println!("No failing tests found in the log.");
        return Ok(ExitCode::SUCCESS);
    }
    println!("{} failing test(s):", failures.len());
    for f in &failures {
        let at = match (&f.file_path, f.line_number) {
            (Some(p), Some(l)) => format!(" at {p}:{l}"),
            (Some(p), None) => format!(" in {p}"),
            _ => String::new(),
        };
        println!("{} {}{}", style.red("✗"), style.bold(&f.test_name), at);
        if let Some(first) = f.error_message.lines().find(|l| !l.trim().is_empty()) {
            println!("    {}", first.trim());
        }
        if let Some(cmd) = &f.reproduce_command {
            println!("    {}", style.dim(&format!("$ {cmd}")));
        }
    }
    Ok(ExitCode::SUCCESS)
}
