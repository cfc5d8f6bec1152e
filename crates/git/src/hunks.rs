//! The conflict regions of a file git merged with `merge.conflictStyle=zdiff3`:
//!
//! ```text
//! <<<<<<< ours-label
//! ours lines
//! ||||||| base-label
//! base lines
//! =======
//! theirs lines
//! >>>>>>> theirs-label
//! ```

/// How much of a file's conflicts to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Hunks returned at most; later ones are only counted.
    pub max_hunks: usize,
    /// Bytes of hunk text (base + ours + theirs, over all hunks) returned at most.
    pub max_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_hunks: 20,
            max_bytes: 16 * 1024,
        }
    }
}

/// One conflict region. Lines are 1-based; texts keep their line endings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// The `<<<<<<<` line and the `>>>>>>>` line in the merged file.
    pub start_line: usize,
    pub end_line: usize,
    /// Where the region's text starts in each side's version of the file.
    pub ours_line: usize,
    pub base_line: usize,
    pub theirs_line: usize,
    pub ours: String,
    /// `None` when the markers have no `|||||||` section (not diff3/zdiff3 style).
    pub base: Option<String>,
    pub theirs: String,
}

/// The hunks of one file, and whether they were cut to the limits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunks {
    pub hunks: Vec<Hunk>,
    /// Hunks in the file, returned or not.
    pub total: usize,
    /// Whether hunks were left out or a hunk's text was shortened.
    pub cut: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Outside,
    Ours,
    Base,
    Theirs,
}

/// The marker a line is, if any: exactly seven marker characters, then a space or the end.
fn marker(line: &[u8]) -> Option<u8> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let first = *line.first()?;
    if !matches!(first, b'<' | b'|' | b'=' | b'>') || line.len() < 7 {
        return None;
    }
    if !line[..7].iter().all(|&b| b == first) {
        return None;
    }
    match line.get(7) {
        None => Some(first),
        Some(b' ') if first != b'=' => Some(first),
        _ => None,
    }
}

pub(crate) fn parse_hunks(content: &[u8], limits: Limits) -> Hunks {
    let mut result = Hunks::default();
    let mut budget = limits.max_bytes;
    let mut section = Section::Outside;
    let mut current = Hunk::default();
    // Lines seen so far of each side's version of the file.
    let (mut ours_lines, mut base_lines, mut theirs_lines) = (0, 0, 0);
    let (mut ours_text, mut base_text, mut theirs_text) = (Vec::new(), Vec::new(), Vec::new());
    let mut has_base = false;
    for (index, line) in content.split_inclusive(|&b| b == b'\n').enumerate() {
        let number = index + 1;
        match (section, marker(line)) {
            (Section::Outside, Some(b'<')) => {
                section = Section::Ours;
                current = Hunk {
                    start_line: number,
                    ours_line: ours_lines + 1,
                    base_line: base_lines + 1,
                    theirs_line: theirs_lines + 1,
                    ..Hunk::default()
                };
                has_base = false;
                ours_text.clear();
                base_text.clear();
                theirs_text.clear();
            }
            (Section::Outside, _) => {
                ours_lines += 1;
                base_lines += 1;
                theirs_lines += 1;
            }
            (Section::Ours, Some(b'|')) => {
                section = Section::Base;
                has_base = true;
            }
            (Section::Ours | Section::Base, Some(b'=')) => section = Section::Theirs,
            (Section::Theirs, Some(b'>')) => {
                section = Section::Outside;
                current.end_line = number;
                result.total += 1;
                if result.hunks.len() >= limits.max_hunks || budget == 0 {
                    result.cut = true;
                    continue;
                }
                current.ours = take(&ours_text, &mut budget, &mut result.cut);
                current.base = has_base.then(|| take(&base_text, &mut budget, &mut result.cut));
                current.theirs = take(&theirs_text, &mut budget, &mut result.cut);
                result.hunks.push(std::mem::take(&mut current));
            }
            (Section::Ours, _) => {
                ours_lines += 1;
                ours_text.extend_from_slice(line);
            }
            (Section::Base, _) => {
                base_lines += 1;
                base_text.extend_from_slice(line);
            }
            (Section::Theirs, _) => {
                theirs_lines += 1;
                theirs_text.extend_from_slice(line);
            }
        }
    }
    result
}

/// The text, as much of it as the budget allows (cut at a character boundary).
fn take(text: &[u8], budget: &mut usize, cut: &mut bool) -> String {
    let text = String::from_utf8_lossy(text);
    if text.len() <= *budget {
        *budget -= text.len();
        return text.into_owned();
    }
    *cut = true;
    let mut end = *budget;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    *budget = 0;
    text[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "one\n\
        <<<<<<< ours\n\
        OURS\n\
        ||||||| base\n\
        base\n\
        =======\n\
        THEIRS\n\
        THEIRS 2\n\
        >>>>>>> theirs\n\
        middle\n\
        ======= not a marker\n\
        <<<<<<< ours\n\
        \n\
        =======\n\
        t\n\
        >>>>>>> theirs\n\
        end\n";

    #[test]
    fn regions_with_their_lines_in_each_version() {
        let hunks = parse_hunks(FILE.as_bytes(), Limits::default());
        assert_eq!(hunks.total, 2);
        assert!(!hunks.cut);
        let first = &hunks.hunks[0];
        assert_eq!((first.start_line, first.end_line), (2, 9));
        assert_eq!(
            (first.ours_line, first.base_line, first.theirs_line),
            (2, 2, 2)
        );
        assert_eq!(first.ours, "OURS\n");
        assert_eq!(first.base.as_deref(), Some("base\n"));
        assert_eq!(first.theirs, "THEIRS\nTHEIRS 2\n");
        let second = &hunks.hunks[1];
        assert_eq!((second.start_line, second.end_line), (12, 16));
        // ours: one, OURS, middle, "=== not", then here; theirs had two lines in hunk 1.
        assert_eq!(
            (second.ours_line, second.base_line, second.theirs_line),
            (5, 5, 6)
        );
        assert_eq!(second.ours, "\n");
        assert_eq!(second.base, None);
        assert_eq!(second.theirs, "t\n");
    }

    #[test]
    fn cut_to_the_limits_and_said_so() {
        let one = parse_hunks(
            FILE.as_bytes(),
            Limits {
                max_hunks: 1,
                max_bytes: 1000,
            },
        );
        assert_eq!((one.hunks.len(), one.total, one.cut), (1, 2, true));
        let short = parse_hunks(
            FILE.as_bytes(),
            Limits {
                max_hunks: 10,
                max_bytes: 8,
            },
        );
        assert!(short.cut);
        assert_eq!(short.total, 2);
        assert_eq!(short.hunks.len(), 1);
        assert_eq!(short.hunks[0].ours, "OURS\n");
        assert_eq!(short.hunks[0].base.as_deref(), Some("bas"));
        assert_eq!(short.hunks[0].theirs, "");
    }

    #[test]
    fn markers_are_exactly_seven_characters() {
        assert_eq!(marker(b"<<<<<<< HEAD\n"), Some(b'<'));
        assert_eq!(marker(b"=======\r\n"), Some(b'='));
        assert_eq!(marker(b">>>>>>>"), Some(b'>'));
        assert_eq!(marker(b"<<<<<<<< eight\n"), None);
        assert_eq!(marker(b"======= x\n"), None);
        assert_eq!(marker(b"<<<<<<"), None);
        assert_eq!(marker(b"text <<<<<<<"), None);
        let unclosed = parse_hunks(b"<<<<<<< a\nx\n=======\n", Limits::default());
        assert_eq!(unclosed.total, 0);
    }
}
