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
//!
//! Each side's line numbers come from that side's own file: the merged file outside the
//! regions holds what git merged cleanly, which is in none of the sides as such, so counting
//! its lines would shift every number below a clean change. A region's text is found in its
//! side's file by diffing the merged file (with every region replaced by that side's text)
//! against the side, then checked line by line.

use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp, capture_diff_slices_deadline};

/// The marker size git uses unless an attribute says otherwise.
pub(crate) const MARKER_SIZE: usize = 7;

/// How long the diff that places a side's regions may take before it settles for a coarser
/// answer (which the line check and the nearest-occurrence fallback then correct).
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

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
    /// Where the region's text starts in each side's own version of the file (for an empty
    /// text: the line it would stand before).
    pub ours_line: usize,
    pub base_line: usize,
    pub theirs_line: usize,
    pub ours: String,
    /// `None` when the markers have no `|||||||` section (not diff3/zdiff3 style).
    pub base: Option<String>,
    pub theirs: String,
    /// Lines of each side's text left out to stay within the limits (a line shown only in
    /// part counts as left out); 0 when the text is whole.
    pub ours_omitted: usize,
    pub base_omitted: usize,
    pub theirs_omitted: usize,
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

/// A side of a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Ours,
    Base,
    Theirs,
}

/// One region as read from the merged file: 0-based indexes of its marker lines, and each
/// side's lines (with their line endings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Region<'a> {
    pub start: usize,
    pub end: usize,
    pub ours: Vec<&'a [u8]>,
    pub base: Option<Vec<&'a [u8]>>,
    pub theirs: Vec<&'a [u8]>,
}

impl<'a> Region<'a> {
    fn text(&self, side: Side) -> &[&'a [u8]] {
        match side {
            Side::Ours => &self.ours,
            Side::Base => self.base.as_deref().unwrap_or(&[]),
            Side::Theirs => &self.theirs,
        }
    }
}

/// The lines of a file, each with its line ending.
pub(crate) fn lines(content: &[u8]) -> Vec<&[u8]> {
    content.split_inclusive(|&b| b == b'\n').collect()
}

/// A line without its line ending (`\n` or `\r\n`): git ends a side's last line with one
/// before a marker when the file has none, so endings are no part of a line's identity.
fn body(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The marker a line is, if any: exactly `size` marker characters, then a space or the end
/// (`=` markers carry no label).
fn marker(line: &[u8], size: usize) -> Option<u8> {
    let line = body(line);
    let first = *line.first()?;
    if !matches!(first, b'<' | b'|' | b'=' | b'>') || line.len() < size {
        return None;
    }
    if !line[..size].iter().all(|&b| b == first) {
        return None;
    }
    match line.get(size) {
        None => Some(first),
        Some(b' ') if first != b'=' => Some(first),
        _ => None,
    }
}

/// The longest run of one marker character at the start of a line of `content`, when it is
/// at least [`MARKER_SIZE`] long: a line that a marker scan could take for a marker.
pub(crate) fn marker_like_run(content: &[u8]) -> Option<usize> {
    content
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let first = *line.first()?;
            if !matches!(first, b'<' | b'|' | b'=' | b'>') {
                return None;
            }
            let run = line.iter().take_while(|&&b| b == first).count();
            (run >= MARKER_SIZE).then_some(run)
        })
        .max()
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Outside,
    Ours,
    Base,
    Theirs,
}

/// The regions of a merged file whose markers are `marker_size` characters long. An
/// unclosed region is no region.
pub(crate) fn scan<'a>(merged: &[&'a [u8]], marker_size: usize) -> Vec<Region<'a>> {
    let mut regions = Vec::new();
    let mut section = Section::Outside;
    let mut current = Region {
        start: 0,
        end: 0,
        ours: Vec::new(),
        base: None,
        theirs: Vec::new(),
    };
    for (index, &line) in merged.iter().enumerate() {
        match (section, marker(line, marker_size)) {
            (Section::Outside, Some(b'<')) => {
                section = Section::Ours;
                current = Region {
                    start: index,
                    end: index,
                    ours: Vec::new(),
                    base: None,
                    theirs: Vec::new(),
                };
            }
            (Section::Outside, _) => {}
            (Section::Ours, Some(b'|')) => {
                section = Section::Base;
                current.base = Some(Vec::new());
            }
            (Section::Ours | Section::Base, Some(b'=')) => section = Section::Theirs,
            (Section::Theirs, Some(b'>')) => {
                section = Section::Outside;
                current.end = index;
                regions.push(current.clone());
            }
            (Section::Ours, _) => current.ours.push(line),
            (Section::Base, _) => current.base.get_or_insert_with(Vec::new).push(line),
            (Section::Theirs, _) => current.theirs.push(line),
        }
    }
    regions
}

/// Where each region's `side` text starts (0-based line index) in `blob`, that side's own
/// file; without the file, where it would be if the merged file's other lines were all in
/// it (an estimate).
pub(crate) fn locate(
    merged: &[&[u8]],
    regions: &[Region<'_>],
    side: Side,
    blob: Option<&[u8]>,
) -> Vec<usize> {
    // The merged file as this side would have it: every region replaced by its text.
    let mut replaced: Vec<&[u8]> = Vec::with_capacity(merged.len());
    let mut starts = Vec::with_capacity(regions.len());
    let mut next = 0;
    for region in regions {
        replaced.extend(merged[next..region.start].iter().map(|l| body(l)));
        starts.push(replaced.len());
        replaced.extend(region.text(side).iter().map(|l| body(l)));
        next = region.end + 1;
    }
    replaced.extend(merged[next.min(merged.len())..].iter().map(|l| body(l)));
    let Some(blob) = blob else {
        return starts;
    };
    let file: Vec<&[u8]> = lines(blob).into_iter().map(body).collect();
    let ops = capture_diff_slices_deadline(
        Algorithm::Myers,
        &replaced,
        &file,
        Some(Instant::now() + DIFF_DEADLINE),
    );
    starts
        .iter()
        .zip(regions)
        .map(|(&start, region)| {
            let text: Vec<&[u8]> = region.text(side).iter().map(|l| body(l)).collect();
            let estimate = map_line(&ops, start, file.len());
            place(&file, &text, estimate)
        })
        .collect()
}

/// The line of the new sequence that line `index` of the old one became (for a deleted or
/// replaced line: where its replacement starts).
fn map_line(ops: &[DiffOp], index: usize, new_len: usize) -> usize {
    for op in ops {
        let old = op.old_range();
        if old.contains(&index) {
            return match *op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    ..
                } => new_index + (index - old_index),
                _ => op.new_range().start,
            };
        }
        if old.start > index {
            // An insertion just before `index`: the line follows what was inserted.
            return op.new_range().start;
        }
    }
    new_len
}

/// `estimate` when `text` stands there in `file`; else the occurrence of `text` nearest to
/// it; else (the text is not in the file as such) the estimate.
fn place(file: &[&[u8]], text: &[&[u8]], estimate: usize) -> usize {
    if text.is_empty() || file.get(estimate..estimate + text.len()) == Some(text) {
        return estimate;
    }
    (0..file.len().saturating_sub(text.len() - 1))
        .filter(|&at| file[at..at + text.len()] == *text)
        .min_by_key(|&at| at.abs_diff(estimate))
        .unwrap_or(estimate)
}

/// Each side's file, when known: the line numbers come from it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SideFiles<'a> {
    pub ours: Option<&'a [u8]>,
    pub base: Option<&'a [u8]>,
    pub theirs: Option<&'a [u8]>,
}

/// The hunks of a merged file with `marker_size` markers, numbered in each side's file,
/// within `limits`.
pub(crate) fn hunks(
    content: &[u8],
    marker_size: usize,
    files: SideFiles<'_>,
    limits: Limits,
) -> Hunks {
    let merged = lines(content);
    let regions = scan(&merged, marker_size);
    let kept = &regions[..regions.len().min(limits.max_hunks)];
    let ours_at = locate(&merged, kept, Side::Ours, files.ours);
    let base_at = locate(&merged, kept, Side::Base, files.base);
    let theirs_at = locate(&merged, kept, Side::Theirs, files.theirs);
    let mut result = Hunks {
        hunks: Vec::new(),
        total: regions.len(),
        cut: regions.len() > kept.len(),
    };
    let mut budget = limits.max_bytes;
    for (index, region) in kept.iter().enumerate() {
        if budget == 0 {
            result.cut = true;
            break;
        }
        let [ours, base, theirs] = share(
            [
                Some(region.ours.as_slice()),
                region.base.as_deref(),
                Some(region.theirs.as_slice()),
            ],
            &mut budget,
        );
        let (ours, ours_omitted) = ours.unwrap_or_default();
        let (theirs, theirs_omitted) = theirs.unwrap_or_default();
        let base_omitted = base.as_ref().map_or(0, |(_, omitted)| *omitted);
        if ours_omitted + base_omitted + theirs_omitted > 0 {
            result.cut = true;
        }
        result.hunks.push(Hunk {
            start_line: region.start + 1,
            end_line: region.end + 1,
            ours_line: ours_at[index] + 1,
            base_line: base_at[index] + 1,
            theirs_line: theirs_at[index] + 1,
            ours,
            base: base.map(|(text, _)| text),
            theirs,
            ours_omitted,
            base_omitted,
            theirs_omitted,
        });
    }
    result
}

/// The hunks of a merged file with git's usual markers, numbered as if every line outside
/// the regions were in each side (no side's file at hand).
#[cfg(test)]
pub(crate) fn parse_hunks(content: &[u8], limits: Limits) -> Hunks {
    hunks(content, MARKER_SIZE, SideFiles::default(), limits)
}

/// The three sides' texts cut to what `budget` allows, shared so that every side gets a
/// fair part: the smaller texts whole when they fit in their share, the rest to the larger.
/// Each comes with the number of its lines left out.
fn share(texts: [Option<&[&[u8]]>; 3], budget: &mut usize) -> [Option<(String, usize)>; 3] {
    let sizes = texts.map(|t| t.map_or(0, |lines| lines.iter().map(|l| l.len()).sum::<usize>()));
    let mut order = [0, 1, 2];
    order.sort_by_key(|&i| sizes[i]);
    let mut out: [Option<(String, usize)>; 3] = [None, None, None];
    let present = texts.iter().filter(|t| t.is_some()).count();
    let mut left = present;
    for i in order {
        let Some(text) = texts[i] else { continue };
        let allowance = *budget / left.max(1);
        let (cut, used, omitted) = cut_lines(text, allowance);
        *budget -= used;
        left -= 1;
        out[i] = Some((cut, omitted));
    }
    out
}

/// Whole lines of `text` within `allowance` bytes (or, when not even the first fits, as
/// much of it as fits, at a character boundary): the text, the bytes used and the lines
/// left out.
fn cut_lines(text: &[&[u8]], allowance: usize) -> (String, usize, usize) {
    let mut out = String::new();
    for (shown, line) in text.iter().enumerate() {
        let line = String::from_utf8_lossy(line);
        if out.len() + line.len() <= allowance {
            out.push_str(&line);
            continue;
        }
        if shown == 0 {
            let mut end = allowance.min(line.len());
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            out.push_str(&line[..end]);
        }
        let used = out.len();
        return (out, used, text.len() - shown);
    }
    let used = out.len();
    (out, used, 0)
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
    fn line_numbers_come_from_each_sides_own_file() {
        // Above the region, ours added two lines and theirs removed one (merged cleanly):
        // the merged file's count fits neither side.
        let merged = "a\nours 1\nours 2\nc\n<<<<<<< o\nX\n||||||| b\nx\n=======\nY\n>>>>>>> t\nz\n";
        let ours = "a\nours 1\nours 2\nb\nc\nX\nz\n";
        let base = "a\nb\nc\nx\nz\n";
        let theirs = "a\nc\nY\nz\n";
        let files = SideFiles {
            ours: Some(ours.as_bytes()),
            base: Some(base.as_bytes()),
            theirs: Some(theirs.as_bytes()),
        };
        let hunks = hunks(merged.as_bytes(), MARKER_SIZE, files, Limits::default());
        let h = &hunks.hunks[0];
        assert_eq!((h.ours_line, h.base_line, h.theirs_line), (6, 4, 3));
        // Without the files, the merged file's count is all there is.
        let guessed = parse_hunks(merged.as_bytes(), Limits::default());
        let g = &guessed.hunks[0];
        assert_eq!((g.ours_line, g.base_line, g.theirs_line), (5, 5, 5));
    }

    #[test]
    fn a_text_that_moved_is_found_nearest_to_the_estimate() {
        let file: Vec<&[u8]> = vec![b"q", b"x", b"q", b"q", b"x"];
        assert_eq!(place(&file, &[b"x"], 3), 4);
        assert_eq!(place(&file, &[b"x"], 1), 1);
        assert_eq!(place(&file, &[b"nowhere"], 2), 2);
        assert_eq!(place(&file, &[], 9), 9);
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
                max_bytes: 17,
            },
        );
        assert!(short.cut);
        assert_eq!(short.total, 2);
        assert_eq!(short.hunks.len(), 1);
        let h = &short.hunks[0];
        // 17 bytes over three sides: ours (5) and base (5) whole, theirs a line of two.
        assert_eq!((h.ours.as_str(), h.ours_omitted), ("OURS\n", 0));
        assert_eq!((h.base.as_deref(), h.base_omitted), (Some("base\n"), 0));
        assert_eq!((h.theirs.as_str(), h.theirs_omitted), ("THEIRS\n", 1));
        let tiny = parse_hunks(
            FILE.as_bytes(),
            Limits {
                max_hunks: 10,
                max_bytes: 6,
            },
        );
        let h = &tiny.hunks[0];
        // Not even a line fits: each side shows part of its first.
        assert_eq!((h.ours.as_str(), h.ours_omitted), ("OU", 1));
        assert_eq!((h.base.as_deref(), h.base_omitted), (Some("ba"), 1));
        assert_eq!((h.theirs.as_str(), h.theirs_omitted), ("TH", 2));
    }

    #[test]
    fn one_large_side_leaves_the_others_their_share() {
        let big = "long line of the target\n".repeat(2000);
        let merged = format!("<<<<<<< o\n{big}||||||| b\nbase\n=======\npr\n>>>>>>> t\n");
        let hunks = parse_hunks(merged.as_bytes(), Limits::default());
        let h = &hunks.hunks[0];
        assert!(hunks.cut);
        assert_eq!(h.base.as_deref(), Some("base\n"));
        assert_eq!((h.theirs.as_str(), h.theirs_omitted), ("pr\n", 0));
        assert!(!h.ours.is_empty() && h.ours.len() <= 16 * 1024);
        assert_eq!(h.ours_omitted, 2000 - h.ours.lines().count());
    }

    #[test]
    fn markers_are_exactly_their_size() {
        assert_eq!(marker(b"<<<<<<< HEAD\n", 7), Some(b'<'));
        assert_eq!(marker(b"=======\r\n", 7), Some(b'='));
        assert_eq!(marker(b">>>>>>>", 7), Some(b'>'));
        assert_eq!(marker(b"<<<<<<<< eight\n", 7), None);
        assert_eq!(marker(b"<<<<<<<< eight\n", 8), Some(b'<'));
        assert_eq!(marker(b"=======\n", 8), None);
        assert_eq!(marker(b"======= x\n", 7), None);
        assert_eq!(marker(b"<<<<<<", 7), None);
        assert_eq!(marker(b"text <<<<<<<", 7), None);
        let unclosed = parse_hunks(b"<<<<<<< a\nx\n=======\n", Limits::default());
        assert_eq!(unclosed.total, 0);
        assert_eq!(marker_like_run(b"Title\n=======\n"), Some(7));
        assert_eq!(marker_like_run(b"a\n<<<<<<<<< x\n=== y\n"), Some(9));
        assert_eq!(marker_like_run(b"a ======= b\n"), None);
    }
}
