//! `read_file` (seed 002's internal API): a text file of the checkout, or a range of its
//! lines, within a byte budget; the next call says where the rest starts.

use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::Context;
use crate::internal::READS_LOCAL;
use crate::refactor::Next;
use crate::registry::Tool;

const DEFAULT_BYTES: usize = 64 * 1024;
const MAX_BYTES: usize = 1024 * 1024;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    #[schemars(example = &"src/lib.rs")]
    pub file_path: String,
    /// First line, from 1. Default: 1.
    #[serde(default)]
    pub start_line: Option<usize>,
    /// Last line, inclusive. Default: the last.
    #[serde(default)]
    pub end_line: Option<usize>,
    /// At most this many bytes (default 65536, at most 1 MiB).
    #[serde(default)]
    pub max_bytes: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    pub file_path: String,
    pub content: String,
    pub total_lines: usize,
    pub total_bytes: usize,
    /// The lines read, from 1, inclusive (0, 0 for an empty file).
    pub start_line: usize,
    pub end_line: usize,
    /// The range asked for holds more than max_bytes (end_line's line may be cut): `next` reads on.
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub next: Option<Next>,
}

pub struct ReadFile;

impl Tool for ReadFile {
    const NAME: &'static str = "read_file";
    const TITLE: &'static str = "Read a file of the checkout";
    const DESCRIPTION: &'static str = "Reads a text file inside the checkout, or lines start_line..end_line (from 1, inclusive), up to max_bytes; truncated answers name the next call.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = READS_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, _raw: &Value) -> Result<Output> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let path = crate::code::file_in(&root, &input.file_path, "file_path")?;
        let max_bytes = input.max_bytes.unwrap_or(DEFAULT_BYTES);
        if max_bytes == 0 || max_bytes > MAX_BYTES {
            return Err(Error::user(format!(
                "max_bytes must be 1 to {MAX_BYTES}, not {max_bytes}"
            ))
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", "max_bytes"));
        }
        let bytes = std::fs::read(&path).map_err(|e| {
            Error::unknown(format!("{} cannot be read: {e}", input.file_path))
                .with_code(ErrorCode::IoError)
        })?;
        let text = match std::str::from_utf8(&bytes) {
            Ok(t) if !bytes.contains(&0) => t,
            _ => {
                return Err(Error::user(format!(
                    "{} is a binary file (not UTF-8 text); read_file reads text only",
                    input.file_path
                ))
                .with_code(ErrorCode::InvalidPath)
                .with_detail("field", "file_path"));
            }
        };
        let shown = crate::code::display_path(&root, &path);
        read(
            &root,
            &shown,
            text,
            input.start_line,
            input.end_line,
            max_bytes,
        )
    }

    fn render(out: &Output) -> String {
        let mut text = if out.total_lines == 0 {
            format!("{} is empty.\n", out.file_path)
        } else {
            format!(
                "{} lines {}-{} of {} ({} bytes):\n",
                out.file_path, out.start_line, out.end_line, out.total_lines, out.total_bytes
            )
        };
        text.push_str(&out.content);
        if let Some(next) = &out.next {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "Truncated; read on: {} with {}",
                next.tool,
                Value::Object(next.arguments.clone())
            ));
        }
        text
    }
}

/// The lines asked for, whole lines up to `max_bytes` (a first line longer than that is
/// cut at a character boundary, and the next call starts at the line after it).
fn read(
    root: &std::path::Path,
    shown: &str,
    text: &str,
    start: Option<usize>,
    end: Option<usize>,
    max_bytes: usize,
) -> Result<Output> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = lines.len();
    let start = start.unwrap_or(1);
    let end = end.unwrap_or(total).min(total);
    let bad = |field: &str, why: String| {
        Err(Error::user(why)
            .with_code(ErrorCode::InvalidArgument)
            .with_detail("field", field))
    };
    if start == 0 {
        return bad("start_line", "start_line counts from 1".into());
    }
    if total == 0 {
        return Ok(Output {
            file_path: shown.to_owned(),
            content: String::new(),
            total_lines: 0,
            total_bytes: 0,
            start_line: 0,
            end_line: 0,
            truncated: false,
            next: None,
        });
    }
    if start > total {
        return bad(
            "start_line",
            format!("start_line {start} is past the file's {total} lines"),
        );
    }
    if end < start {
        return bad(
            "end_line",
            format!("end_line {end} is before start_line {start}"),
        );
    }
    let mut content = String::new();
    let mut last = start - 1;
    let mut cut_line = false;
    for line in &lines[start - 1..end] {
        if content.len() + line.len() > max_bytes {
            if content.is_empty() {
                let mut cut = max_bytes;
                while !line.is_char_boundary(cut) {
                    cut -= 1;
                }
                content.push_str(&line[..cut]);
                cut_line = true;
                last += 1;
            }
            break;
        }
        content.push_str(line);
        last += 1;
    }
    let truncated = cut_line || last < end;
    let next = (last < end).then(|| Next {
        tool: "read_file".to_owned(),
        arguments: json!({
            "directory": root,
            "file_path": shown,
            "start_line": last + 1,
            "end_line": end,
            "max_bytes": max_bytes,
        })
        .as_object()
        .cloned()
        .unwrap_or_default(),
    });
    Ok(Output {
        file_path: shown.to_owned(),
        content,
        total_lines: total,
        total_bytes: text.len(),
        start_line: start,
        end_line: last,
        truncated,
        next,
    })
}
