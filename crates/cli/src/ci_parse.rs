//! `resolve-pr ci parse FILE|-`: the failing tests a job log reports, for people (a list) and
//! scripts (`--json`: every failure, no pagination).

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context as _;
use serde_json::json;

use crate::style::Style;

pub fn run(source: &str, style: Style) -> anyhow::Result<ExitCode> {
    let log = if source == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("cannot read the log from stdin")?;
        buf
    } else {
        std::fs::read(source).with_context(|| format!("cannot read the log file {source}"))?
    };
    let failures = resolve_pr_ci::parse_log(&log);
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
