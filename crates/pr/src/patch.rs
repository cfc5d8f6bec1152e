//! Unified diffs as forges give them per file (hunks from the first `@@`, no file headers),
//! read with the review's hunk parser.

use crate::review::patch::hunks;

/// The file before the change, rebuilt from the file after it and its diff: every hunk's
/// context and removed lines replace its context and added lines. `None` when the diff does
/// not fit the text (a hunk points past the end, or its context differs): the caller then
/// reads the old file instead. A forge's diff is taken against the merge base, so this is
/// the merge base's file, which the base branch's tip may no longer be.
pub fn reverse_apply(after: &str, patch: &str) -> Option<String> {
    let new_lines: Vec<&str> = split_lines(after);
    let mut out: Vec<String> = Vec::with_capacity(new_lines.len());
    let mut next = 0usize; // index into new_lines of the next line not yet copied
    // Whether the old file ends in a newline: a "\\ No newline at end of file" marker after
    // a removed or context line says it does not; one after an added line only says the new
    // file does not (the old one would have its own marker); without either, as the new one.
    let mut old_marker: Option<bool> = None;
    for hunk in hunks(patch) {
        let new_start = hunk.new_start as usize;
        // A hunk that adds nothing names the line after which it applies (`+0,0` for a
        // deleted file).
        let start = match hunk.new_count? {
            0 => new_start,
            _ => new_start.saturating_sub(1),
        };
        if start < next || start > new_lines.len() {
            return None;
        }
        out.extend(new_lines[next..start].iter().map(|s| (*s).to_owned()));
        next = start;
        let mut last_kind = ' ';
        for line in &hunk.body {
            if line.starts_with('\\') {
                if last_kind == '+' {
                    old_marker.get_or_insert(true);
                } else {
                    old_marker = Some(false);
                }
                continue;
            }
            let (kind, text) = match line.chars().next() {
                Some(c @ (' ' | '-' | '+')) => (c, &line[1..]),
                None => (' ', ""),
                Some(_) => return None,
            };
            last_kind = kind;
            if kind != '-' {
                if new_lines.get(next) != Some(&text) {
                    return None;
                }
                next += 1;
            }
            if kind != '+' {
                out.push(text.to_owned());
            }
        }
    }
    out.extend(new_lines[next..].iter().map(|s| (*s).to_owned()));
    let old_has_newline_at_end = old_marker.unwrap_or(after.ends_with('\n') || after.is_empty());
    let mut text = out.join("\n");
    if !out.is_empty() && old_has_newline_at_end {
        text.push('\n');
    }
    Some(text)
}

fn split_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') || text.is_empty() {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// The diff git itself makes between two texts, from the first `@@` on.
    fn git_diff(before: &str, after: &str, context: u32) -> String {
        let dir = tempdir();
        std::fs::write(dir.join("a"), before).unwrap();
        std::fs::write(dir.join("b"), after).unwrap();
        let out = Command::new("git")
            .args([
                "diff",
                "--no-index",
                &format!("-U{context}"),
                "--",
                "a",
                "b",
            ])
            .current_dir(&dir)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        match text.find("\n@@") {
            Some(i) => text[i + 1..].to_owned(),
            None => String::new(),
        }
    }

    fn tempdir() -> std::path::PathBuf {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let d = std::env::temp_dir().join(format!(
            "resolve-pr-patch-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn rebuilds_the_old_file_from_gits_own_diffs() {
        let before = "fn a() {}\n\npub fn b(x: u32) -> u32 {\n    x\n}\n\npub fn gone() {}\n\nfn tail() {}\n";
        let after =
            "fn a() {}\n\npub fn b(x: u64) -> u64 {\n    x + 1\n}\n\nfn tail() {}\nfn added() {}\n";
        for context in [0, 1, 3] {
            let patch = git_diff(before, after, context);
            assert_eq!(
                reverse_apply(after, &patch).as_deref(),
                Some(before),
                "-U{context}"
            );
        }
    }

    #[test]
    fn handles_added_deleted_and_missing_final_newlines() {
        let cases = [
            ("", "new\nfile\n"),
            ("old\nfile\n", ""),
            ("no newline", "no newline\nnow two"),
            ("a\nb\n", "a\nb"),
            ("a\nb", "a\nb\n"),
        ];
        for (before, after) in cases {
            let patch = git_diff(before, after, 3);
            assert_eq!(
                reverse_apply(after, &patch).as_deref(),
                Some(before),
                "{before:?} -> {after:?}\n{patch}"
            );
        }
    }

    /// Random edits of a random file (a fixed-seed generator, so failures reproduce): every
    /// diff git makes of them, at every context size, rebuilds the old file exactly.
    #[test]
    fn rebuilds_random_edits() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..40 {
            let len = next(30) as usize;
            let before: Vec<String> = (0..len).map(|_| format!("line {}", next(8))).collect();
            let mut after = before.clone();
            for _ in 0..next(6) {
                let at = next(after.len() as u64 + 1) as usize;
                match next(3) {
                    0 if at < after.len() => {
                        after.remove(at);
                    }
                    1 if at < after.len() => after[at] = format!("changed {}", next(8)),
                    _ => after.insert(at, format!("new {}", next(8))),
                }
            }
            let end = |lines: &[String], newline: bool| {
                let mut t = lines.join("\n");
                if newline && !lines.is_empty() {
                    t.push('\n');
                }
                t
            };
            let (b, a) = (end(&before, next(4) != 0), end(&after, next(4) != 0));
            for context in [0, 2] {
                let patch = git_diff(&b, &a, context);
                assert_eq!(
                    reverse_apply(&a, &patch).as_deref(),
                    Some(b.as_str()),
                    "{b:?} -> {a:?}\n{patch}"
                );
            }
        }
    }

    #[test]
    fn a_diff_that_does_not_fit_is_none() {
        let patch = git_diff("a\nb\nc\n", "a\nB\nc\n", 1);
        assert_eq!(reverse_apply("x\ny\nz\n", &patch), None);
        assert_eq!(reverse_apply("a\n", "@@ -9,1 +9,1 @@\n-q\n+r\n"), None);
    }
}
