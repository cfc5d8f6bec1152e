//! Which exported symbols a pull request removes or changes, read from both sides of each
//! source file with tree-sitter (`resolve_pr_syntax`).

use super::*;

/// Exported symbols removed or changed, per file, in the order of `files`.
pub(super) async fn api_changes(
    forge: &dyn Forge,
    pr: &PrRef,
    pull: &PullRequest,
    files: &[ChangedFile],
    notes: &mut Vec<String>,
) -> Vec<Vec<ApiChange>> {
    let mut out: Vec<Vec<ApiChange>> = vec![Vec::new(); files.len()];
    let candidates: Vec<usize> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.status != FileStatus::Added
                && dialect_of(&f.path).is_some_and(reads_exports)
                && matches!(review::file_category(&f.path), FileCategory::Source)
        })
        .map(|(i, _)| i)
        .take(API_FILES)
        .collect();
    let skipped = files
        .iter()
        .filter(|f| {
            f.status != FileStatus::Added
                && dialect_of(&f.path).is_some_and(reads_exports)
                && matches!(review::file_category(&f.path), FileCategory::Source)
        })
        .count()
        .saturating_sub(candidates.len());
    if skipped > 0 {
        notes.push(format!(
            "exported symbols were compared in the first {API_FILES} source files only; {skipped} more were not"
        ));
    }
    if candidates.is_empty() {
        return out;
    }
    let repo = forge.repository();
    // The new side of every candidate but deleted files; the old side is rebuilt from it and
    // the diff (the merge base's file), and read only where that does not work.
    let head_paths: Vec<String> = candidates
        .iter()
        .filter(|&&i| files[i].status != FileStatus::Deleted)
        .map(|&i| files[i].path.clone())
        .collect();
    let heads = if head_paths.is_empty() {
        Ok(Vec::new())
    } else {
        repo.file_texts(&pr.repo, &pull.head_sha, &head_paths, API_FILE_BYTES)
            .await
    };
    let heads = match heads {
        Ok(h) => h,
        Err(e) => {
            notes.push(format!(
                "exported symbols were not compared: the files could not be read ({})",
                Error::from(e).error
            ));
            return out;
        }
    };
    let mut after: Vec<Option<String>> = Vec::new();
    let mut head_iter = heads.into_iter();
    for &i in &candidates {
        if files[i].status == FileStatus::Deleted {
            after.push(Some(String::new()));
        } else {
            after.push(head_iter.next().flatten());
        }
    }
    let mut before: Vec<Option<String>> = candidates
        .iter()
        .zip(&after)
        .map(|(&i, a)| {
            let f = &files[i];
            match (a, &f.patch) {
                (Some(a), Some(p)) => reverse_apply(a, p),
                _ => None,
            }
        })
        .collect();
    let missing: Vec<(usize, String)> = candidates
        .iter()
        .enumerate()
        .filter(|(k, _)| before[*k].is_none() && after[*k].is_some())
        .map(|(k, &i)| {
            (
                k,
                files[i]
                    .previous_path
                    .clone()
                    .unwrap_or_else(|| files[i].path.clone()),
            )
        })
        .collect();
    if !missing.is_empty() {
        let paths: Vec<String> = missing.iter().map(|(_, p)| p.clone()).collect();
        match repo
            .file_texts(&pr.repo, &pull.base_sha, &paths, API_FILE_BYTES)
            .await
        {
            Ok(texts) => {
                for ((k, _), t) in missing.iter().zip(texts) {
                    before[*k] = t;
                }
            }
            Err(e) => notes.push(format!(
                "some files' earlier versions could not be read, so their exported symbols were \
                 not compared ({})",
                Error::from(e).error
            )),
        }
    }
    for (k, &i) in candidates.iter().enumerate() {
        if let (Some(b), Some(a)) = (&before[k], &after[k])
            && let Some(changes) = review::breaking_changes(&files[i].path, b, a)
        {
            out[i] = changes;
        }
    }
    out
}

pub(super) fn api_change(c: &ApiChange) -> Option<ApiChangeOut> {
    match c {
        ApiChange::Removed { before } => Some(ApiChangeOut {
            change: "removed".into(),
            name: before.name.clone(),
            kind: format!("{:?}", before.kind).to_ascii_lowercase(),
            before: before.signature.clone(),
            after: None,
            line: before.line,
        }),
        ApiChange::Changed { before, after } => Some(ApiChangeOut {
            change: "changed".into(),
            name: before.name.clone(),
            kind: format!("{:?}", before.kind).to_ascii_lowercase(),
            before: before.signature.clone(),
            after: Some(after.signature.clone()),
            line: before.line,
        }),
        ApiChange::Added { .. } => None,
    }
}
