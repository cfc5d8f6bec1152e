use thiserror::Error;

/// A position as a line and a column, both zero-based. What the column counts is said
/// by the method that takes or returns it (UTF-16 code units, or bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// A position that does not exist in the text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    #[error("line {line} is past the end: the text has {lines} lines (0-based: 0..{lines})")]
    LineOutOfRange { line: u32, lines: u32 },
    #[error("column {col} of line {line} is past its end ({len} long)")]
    ColumnOutOfRange { line: u32, col: u32, len: u32 },
    #[error("column {col} of line {line} falls inside a character")]
    InsideCharacter { line: u32, col: u32 },
    #[error("byte offset {offset} is past the end of the text ({len} bytes)")]
    OffsetOutOfRange { offset: usize, len: usize },
}

/// The length of a text in UTF-16 code units (LSP's default column unit).
pub fn utf16_len(text: &str) -> u32 {
    u32::try_from(text.chars().map(char::len_utf16).sum::<usize>()).unwrap_or(u32::MAX)
}

/// Where each line of a text starts. Lines end at `\n`, `\r\n` or a lone `\r`, as LSP
/// says; the terminator belongs to the line it ends but is not part of its columns.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the start of each line; the first is 0. A text ending in a
    /// terminator has a last, empty line starting at its length.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    starts.push(i + 2);
                    i += 1;
                }
                b'\r' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex { text, starts }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    /// How many lines the text has (an empty text has one, empty).
    pub fn lines(&self) -> u32 {
        u32::try_from(self.starts.len()).unwrap_or(u32::MAX)
    }

    /// The length of a line without its terminator in UTF-16 code units, if the line is
    /// there.
    pub fn line_len_utf16(&self, line: u32) -> Option<u32> {
        self.line(line).map(utf16_len)
    }

    /// The text of a line without its terminator.
    pub fn line(&self, line: u32) -> Option<&'a str> {
        let start = *self.starts.get(line as usize)?;
        let end = self
            .starts
            .get(line as usize + 1)
            .copied()
            .unwrap_or(self.text.len());
        let body = &self.text[start..end];
        Some(body.trim_end_matches(['\n', '\r']))
    }

    fn line_start(&self, line: u32) -> Result<(usize, &'a str), PositionError> {
        let body = self.line(line).ok_or(PositionError::LineOutOfRange {
            line,
            lines: self.lines(),
        })?;
        Ok((self.starts[line as usize], body))
    }

    /// The byte offset of a line and UTF-16 column (LSP's default encoding). A column
    /// past the line's end is an error; see [`LineIndex::offset_utf16_clamped`].
    pub fn offset_utf16(&self, at: LineCol) -> Result<usize, PositionError> {
        let (start, body) = self.line_start(at.line)?;
        let mut units = 0u32;
        for (i, c) in body.char_indices() {
            if units == at.col {
                return Ok(start + i);
            }
            units += u32::try_from(c.len_utf16()).unwrap_or(2);
            if units > at.col {
                return Err(PositionError::InsideCharacter {
                    line: at.line,
                    col: at.col,
                });
            }
        }
        if units == at.col {
            return Ok(start + body.len());
        }
        Err(PositionError::ColumnOutOfRange {
            line: at.line,
            col: at.col,
            len: units,
        })
    }

    /// As [`LineIndex::offset_utf16`], but a column past the line's end means its end,
    /// as the LSP specification says a server must read it.
    pub fn offset_utf16_clamped(&self, at: LineCol) -> Result<usize, PositionError> {
        match self.offset_utf16(at) {
            Err(PositionError::ColumnOutOfRange { line, .. }) => {
                let (start, body) = self.line_start(line)?;
                Ok(start + body.len())
            }
            other => other,
        }
    }

    /// A line's text (without its terminator) split at a UTF-16 column: what is before the
    /// column and what is from it on. Lenient, as a reader of an identifier near a server's
    /// position wants it: a column inside a character (between the halves of a surrogate
    /// pair) splits after that character, a column past the line's end at its end. `None`
    /// only for a line past the end of the text.
    pub fn split_line_utf16(&self, at: LineCol) -> Option<(&'a str, &'a str)> {
        let body = self.line(at.line)?;
        let mut units = 0u32;
        for (i, c) in body.char_indices() {
            if units >= at.col {
                return Some(body.split_at(i));
            }
            units += u32::try_from(c.len_utf16()).unwrap_or(2);
        }
        Some((body, ""))
    }

    /// The byte offset of a line and a byte column.
    pub fn offset_utf8(&self, at: LineCol) -> Result<usize, PositionError> {
        let (start, body) = self.line_start(at.line)?;
        let col = at.col as usize;
        if col > body.len() {
            return Err(PositionError::ColumnOutOfRange {
                line: at.line,
                col: at.col,
                len: u32::try_from(body.len()).unwrap_or(u32::MAX),
            });
        }
        if !body.is_char_boundary(col) {
            return Err(PositionError::InsideCharacter {
                line: at.line,
                col: at.col,
            });
        }
        Ok(start + col)
    }

    fn locate(&self, offset: usize) -> Result<(u32, &'a str, usize), PositionError> {
        if offset > self.text.len() {
            return Err(PositionError::OffsetOutOfRange {
                offset,
                len: self.text.len(),
            });
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        let body = self.line(line).unwrap_or("");
        // An offset inside a terminator counts as the line's end.
        let within = (offset - start).min(body.len());
        if !body.is_char_boundary(within) {
            return Err(PositionError::InsideCharacter {
                line,
                col: u32::try_from(within).unwrap_or(u32::MAX),
            });
        }
        Ok((line, body, within))
    }

    /// The line and UTF-16 column of a byte offset.
    pub fn position_utf16(&self, offset: usize) -> Result<LineCol, PositionError> {
        let (line, body, within) = self.locate(offset)?;
        let col = body[..within].chars().map(char::len_utf16).sum::<usize>();
        Ok(LineCol {
            line,
            col: u32::try_from(col).unwrap_or(u32::MAX),
        })
    }

    /// The line and byte column of a byte offset.
    pub fn position_utf8(&self, offset: usize) -> Result<LineCol, PositionError> {
        let (line, _, within) = self.locate(offset)?;
        Ok(LineCol {
            line,
            col: u32::try_from(within).unwrap_or(u32::MAX),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lc(line: u32, col: u32) -> LineCol {
        LineCol { line, col }
    }

    #[test]
    fn lengths_count_utf16_code_units() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("a😀é"), 4);
        let index = LineIndex::new("x😀\r\nab");
        assert_eq!(index.line_len_utf16(0), Some(3));
        assert_eq!(index.line_len_utf16(1), Some(2));
        assert_eq!(index.line_len_utf16(2), None);
    }

    #[test]
    fn lines_end_at_lf_crlf_and_a_lone_cr() {
        let index = LineIndex::new("a\r\nb\rc\nd");
        assert_eq!(index.lines(), 4);
        assert_eq!(
            (0..4).map(|l| index.line(l).unwrap()).collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
        assert_eq!(index.offset_utf16(lc(3, 0)), Ok(7));
        assert_eq!(LineIndex::new("x\n").lines(), 2);
        assert_eq!(LineIndex::new("x\n").offset_utf16(lc(1, 0)), Ok(2));
    }

    #[test]
    fn utf16_columns_count_astral_characters_as_two_units() {
        let index = LineIndex::new("a😀b\nü");
        assert_eq!(index.offset_utf16(lc(0, 3)), Ok(5));
        assert_eq!(
            index.offset_utf16(lc(0, 2)),
            Err(PositionError::InsideCharacter { line: 0, col: 2 })
        );
        assert_eq!(index.position_utf16(5), Ok(lc(0, 3)));
        assert_eq!(index.position_utf16(9), Ok(lc(1, 1)));
        assert_eq!(index.offset_utf8(lc(1, 2)), Ok(9));
        assert!(matches!(
            index.offset_utf8(lc(1, 1)),
            Err(PositionError::InsideCharacter { .. })
        ));
    }

    #[test]
    fn a_line_splits_at_a_column_rounded_up_and_clamped() {
        let index = LineIndex::new("a😀b\r\nxy\rz");
        assert_eq!(index.split_line_utf16(lc(0, 0)), Some(("", "a😀b")));
        assert_eq!(index.split_line_utf16(lc(0, 1)), Some(("a", "😀b")));
        // Inside the surrogate pair: after the character.
        assert_eq!(index.split_line_utf16(lc(0, 2)), Some(("a😀", "b")));
        assert_eq!(index.split_line_utf16(lc(0, 3)), Some(("a😀", "b")));
        // At and past the end: the end, without the terminator.
        assert_eq!(index.split_line_utf16(lc(0, 4)), Some(("a😀b", "")));
        assert_eq!(index.split_line_utf16(lc(0, 40)), Some(("a😀b", "")));
        assert_eq!(index.split_line_utf16(lc(1, 1)), Some(("x", "y")));
        assert_eq!(index.split_line_utf16(lc(2, 0)), Some(("", "z")));
        assert_eq!(index.split_line_utf16(lc(3, 0)), None);
    }

    #[test]
    fn positions_past_the_end_are_errors_unless_clamped() {
        let index = LineIndex::new("ab\r\ncd");
        assert_eq!(
            index.offset_utf16(lc(0, 3)),
            Err(PositionError::ColumnOutOfRange {
                line: 0,
                col: 3,
                len: 2
            })
        );
        assert_eq!(index.offset_utf16_clamped(lc(0, 9)), Ok(2));
        assert_eq!(
            index.offset_utf16(lc(5, 0)),
            Err(PositionError::LineOutOfRange { line: 5, lines: 2 })
        );
        assert!(index.position_utf16(99).is_err());
        // An offset inside "\r\n" is the end of its line.
        assert_eq!(index.position_utf16(3), Ok(lc(0, 2)));
    }

    proptest! {
        #[test]
        fn every_char_boundary_round_trips(text in "(a|😀|é|\r\n|\n|\r|x){0,40}") {
            let index = LineIndex::new(&text);
            for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
                // Offsets inside a terminator are not positions of their own.
                if offset > 0 && text.as_bytes()[offset - 1] == b'\r' && text[offset..].starts_with('\n') {
                    continue;
                }
                let pos = index.position_utf16(offset).unwrap();
                prop_assert_eq!(index.offset_utf16(pos), Ok(offset));
                let pos8 = index.position_utf8(offset).unwrap();
                prop_assert_eq!(index.offset_utf8(pos8), Ok(offset));
            }
        }
    }
}
