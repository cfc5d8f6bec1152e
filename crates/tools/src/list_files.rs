//! `list_files` (seed 002's internal API): the files of the checkout, or of a directory in
//! it, as git keeps them (`.gitignore` honoured), with sizes, paged by cursor.

use resolve_pr_core::{Error, ErrorCode, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Context;
use crate::internal::READS_LOCAL;
use crate::registry::Tool;

const DEFAULT_LIMIT: usize = 500;
const MAX_LIMIT: usize = 5000;
/// Past this many files the total is not counted.
const COUNT_CAP: usize = 200_000;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// The checkout. Default: the server's working directory.
    #[serde(default)]
    pub directory: Option<String>,
    /// A directory inside the checkout. Default: all of it.
    #[serde(default)]
    pub path: Option<String>,
    /// A gitignore-style glob from the checkout ("*.rs", "src/**/*.ts").
    #[serde(default)]
    pub pattern: Option<String>,
    /// Default: true.
    #[serde(default = "crate::refactor::yes")]
    pub recursive: bool,
    /// Files per page (default 500, at most 5000).
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    pub path: String,
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Output {
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub files: Vec<Entry>,
    /// Every file the listing holds, over all pages (at least, when total_capped).
    pub total: usize,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub total_capped: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Offset {
    offset: usize,
}

pub struct ListFiles;

impl Tool for ListFiles {
    const NAME: &'static str = "list_files";
    const TITLE: &'static str = "List the checkout's files";
    const DESCRIPTION: &'static str = "Lists files of the checkout (or path) as git keeps them, .gitignore honoured, with sizes; pattern filters by glob. Paged by cursor.";
    const TOOLSET: crate::Toolset = crate::Toolset::Internal;
    const ANNOTATIONS: crate::registry::Annotations = READS_LOCAL;
    type Input = Input;
    type Output = Output;

    async fn run(ctx: &Context, input: Input, raw: &Value) -> Result<Output> {
        let root = crate::checkout::workspace(ctx, input.directory.as_deref())?;
        let limit = input.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 || limit > MAX_LIMIT {
            return Err(
                Error::user(format!("limit must be 1 to {MAX_LIMIT}, not {limit}"))
                    .with_code(ErrorCode::InvalidArgument)
                    .with_detail("field", "limit"),
            );
        }
        let start = match input.cursor.as_deref() {
            Some(c) => ctx.cursors.decode::<Offset>(Self::NAME, raw, c)?.offset,
            None => 0,
        };
        let mut walk = resolve_pr_source::Walk::checkout(&root);
        if let Some(path) = input
            .path
            .as_deref()
            .filter(|p| !p.trim().is_empty() && p.trim() != ".")
        {
            let dir = crate::code::path_in(&root, path, "path")?;
            if !dir.is_dir() {
                return Err(Error::user(format!("{path} is not a directory"))
                    .with_code(ErrorCode::InvalidPath)
                    .with_detail("field", "path"));
            }
            walk = walk.under(&dir);
        }
        if !input.recursive {
            walk = walk.max_depth(1);
        }
        if let Some(pattern) = &input.pattern {
            walk = walk.globs(std::slice::from_ref(pattern), &[]);
        }
        let root2 = root.clone();
        let (files, total, capped) = tokio::task::spawn_blocking(move || -> Result<_> {
            let paths = walk.paths().map_err(|e| {
                Error::user(e.to_string())
                    .with_code(ErrorCode::InvalidArgument)
                    .with_detail("field", "pattern")
            })?;
            let mut files = Vec::new();
            let mut total = 0;
            for path in paths {
                if total >= COUNT_CAP {
                    return Ok((files, total, true));
                }
                if total >= start && files.len() < limit {
                    let size = std::fs::symlink_metadata(&path)
                        .map(|m| m.len())
                        .unwrap_or(0);
                    files.push(Entry {
                        path: crate::code::display_path(&root2, &path),
                        size,
                    });
                }
                total += 1;
            }
            Ok((files, total, false))
        })
        .await
        .map_err(|e| {
            Error::unknown(format!("the walk stopped: {e}")).with_code(ErrorCode::InternalError)
        })??;
        let next_cursor = (start + files.len() < total).then(|| {
            ctx.cursors.encode(
                Self::NAME,
                raw,
                &Offset {
                    offset: start + files.len(),
                },
            )
        });
        Ok(Output {
            files,
            total,
            total_capped: capped,
            next_cursor,
        })
    }

    fn render(out: &Output) -> String {
        let mut text = String::new();
        for f in &out.files {
            text.push_str(&format!("{} ({} bytes)\n", f.path, f.size));
        }
        if out.files.is_empty() {
            text.push_str("No files.\n");
        }
        text
    }

    fn shown(out: &Output) -> Option<(usize, Option<usize>)> {
        Some((out.files.len(), (!out.total_capped).then_some(out.total)))
    }
}
