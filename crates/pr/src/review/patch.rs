//! Unified diff hunks, as forges give a file's patch (from its first `@@`).

/// One hunk: its `@@` header and body lines, and where it starts in each file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk<'a> {
    pub header: &'a str,
    /// 1-based first line in the old file (0 when the header does not say).
    pub old_start: u32,
    /// 1-based first line in the new file (0 when the header does not say).
    pub new_start: u32,
    /// Lines of the new file the hunk covers; `None` when the header does not parse.
    pub new_count: Option<u32>,
    pub body: Vec<&'a str>,
}

/// A body line, numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// Added: its line in the new file and its text without the `+`.
    Added(u32, &'a str),
    /// Removed: its line in the old file and its text without the `-`.
    Removed(u32, &'a str),
    Context(&'a str),
}

/// The hunks of `patch`. Lines before the first `@@` (a `diff --git` header, when there is
/// one) are skipped; a header whose ranges do not parse still starts a hunk, numbered from 0.
pub(crate) fn hunks(patch: &str) -> Vec<Hunk<'_>> {
    let mut out: Vec<Hunk<'_>> = Vec::new();
    for line in patch.lines() {
        if line.starts_with("@@") {
            let (old_start, new_start, new_count) = match ranges(line) {
                Some((old, new, count)) => (old, new, Some(count)),
                None => (0, 0, None),
            };
            out.push(Hunk {
                header: line,
                old_start,
                new_start,
                new_count,
                body: Vec::new(),
            });
        } else if let Some(hunk) = out.last_mut() {
            hunk.body.push(line);
        }
    }
    out
}

/// `@@ -a,b +c,d @@ …` → (a, c, d); a missing count is 1.
fn ranges(header: &str) -> Option<(u32, u32, u32)> {
    let mut parts = header.split_whitespace().skip(1);
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let start = |r: &str| r.split(',').next()?.parse::<u32>().ok();
    let count = match new.split_once(',') {
        Some((_, c)) => c.parse::<u32>().ok()?,
        None => 1,
    };
    Some((start(old)?, start(new)?, count))
}

impl<'a> Hunk<'a> {
    /// The body lines, numbered from the header.
    pub fn lines(&self) -> Vec<Line<'a>> {
        let (mut old, mut new) = (self.old_start, self.new_start);
        let mut out = Vec::with_capacity(self.body.len());
        for line in &self.body {
            if let Some(text) = line.strip_prefix('+') {
                out.push(Line::Added(new, text));
                new = new.saturating_add(1);
            } else if let Some(text) = line.strip_prefix('-') {
                out.push(Line::Removed(old, text));
                old = old.saturating_add(1);
            } else if line.starts_with('\\') {
                // "\ No newline at end of file".
            } else {
                out.push(Line::Context(line.strip_prefix(' ').unwrap_or(line)));
                old = old.saturating_add(1);
                new = new.saturating_add(1);
            }
        }
        out
    }

    /// The text after the second `@@`: the enclosing function or section, as git names it.
    pub fn section(&self) -> &'a str {
        self.header
            .get(2..)
            .and_then(|rest| rest.find("@@").map(|i| &rest[i + 2..]))
            .unwrap_or("")
            .trim()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_follows_headers_and_skips_no_newline_markers() {
        let patch = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -10,3 +10,4 @@ fn main() {\n a\n-b\n+c\n+d\n e\n\\ No newline at end of file\n@@ -40 +41,2 @@\n x\n+y\n@@ bogus @@\n+z\n";
        let hunks = hunks(patch);
        assert_eq!(hunks.len(), 3);
        assert_eq!(hunks[0].section(), "fn main() {");
        assert_eq!(
            hunks[0].lines(),
            [
                Line::Context("a"),
                Line::Removed(11, "b"),
                Line::Added(11, "c"),
                Line::Added(12, "d"),
                Line::Context("e"),
            ]
        );
        assert_eq!(hunks[1].lines(), [Line::Context("x"), Line::Added(42, "y")]);
        assert_eq!(hunks[2].lines(), [Line::Added(0, "z")]);
    }
}
