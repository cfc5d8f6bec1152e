use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A range of bytes, `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TextRange {
    pub start: usize,
    pub end: usize,
}

impl TextRange {
    pub fn new(start: usize, end: usize) -> Self {
        TextRange { start, end }
    }

    pub fn empty(at: usize) -> Self {
        TextRange { start: at, end: at }
    }

    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Replace `range` with `new_text`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

impl TextEdit {
    pub fn replace(range: TextRange, new_text: impl Into<String>) -> Self {
        TextEdit {
            range,
            new_text: new_text.into(),
        }
    }

    pub fn insert(at: usize, new_text: impl Into<String>) -> Self {
        TextEdit::replace(TextRange::empty(at), new_text)
    }

    pub fn delete(range: TextRange) -> Self {
        TextEdit::replace(range, "")
    }
}

/// Edits that cannot all apply to a text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EditError {
    #[error("edit {start}..{end} is past the end of the text ({len} bytes)")]
    OutOfBounds {
        start: usize,
        end: usize,
        len: usize,
    },
    #[error("edit {start}..{end} is reversed (its start is after its end)")]
    Reversed { start: usize, end: usize },
    #[error("edit {start}..{end} starts or ends inside a character")]
    InsideCharacter { start: usize, end: usize },
    #[error("edits {a_start}..{a_end} and {b_start}..{b_end} overlap")]
    Overlap {
        a_start: usize,
        a_end: usize,
        b_start: usize,
        b_end: usize,
    },
}

/// Applies `edits` (in any order) to `text`, all or none. Insertions at one offset keep
/// their given order; ranges may touch but not overlap, as LSP requires of one
/// document's edits.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> Result<String, EditError> {
    let mut order: Vec<&TextEdit> = edits.iter().collect();
    for e in &order {
        let TextRange { start, end } = e.range;
        if start > end {
            return Err(EditError::Reversed { start, end });
        }
        if end > text.len() {
            return Err(EditError::OutOfBounds {
                start,
                end,
                len: text.len(),
            });
        }
        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return Err(EditError::InsideCharacter { start, end });
        }
    }
    // Stable: equal starts keep the order they were given in.
    order.sort_by_key(|e| (e.range.start, e.range.end));
    for pair in order.windows(2) {
        let (a, b) = (pair[0].range, pair[1].range);
        // Two insertions at one point, or an insertion at a replacement's start, are
        // fine; anything that starts before the previous edit ends is not.
        if b.start < a.end {
            return Err(EditError::Overlap {
                a_start: a.start,
                a_end: a.end,
                b_start: b.start,
                b_end: b.end,
            });
        }
    }
    let grown: usize = order.iter().map(|e| e.new_text.len()).sum();
    let mut out = String::with_capacity(text.len() + grown);
    let mut at = 0;
    for e in order {
        out.push_str(&text[at..e.range.start]);
        out.push_str(&e.new_text);
        at = e.range.end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_any_given_order() {
        let edits = [
            TextEdit::replace(TextRange::new(6, 11), "there"),
            TextEdit::insert(0, ">> "),
            TextEdit::delete(TextRange::new(5, 6)),
        ];
        assert_eq!(apply_edits("hello world", &edits).unwrap(), ">> hellothere");
    }

    #[test]
    fn insertions_at_one_point_keep_their_order() {
        let edits = [TextEdit::insert(1, "x"), TextEdit::insert(1, "y")];
        assert_eq!(apply_edits("ab", &edits).unwrap(), "axyb");
    }

    #[test]
    fn bad_edits_are_refused_before_any_change() {
        let overlap = [
            TextEdit::delete(TextRange::new(0, 3)),
            TextEdit::delete(TextRange::new(2, 4)),
        ];
        assert!(matches!(
            apply_edits("abcdef", &overlap),
            Err(EditError::Overlap { .. })
        ));
        assert!(matches!(
            apply_edits("ab", &[TextEdit::insert(3, "x")]),
            Err(EditError::OutOfBounds { .. })
        ));
        assert!(matches!(
            apply_edits("é", &[TextEdit::insert(1, "x")]),
            Err(EditError::InsideCharacter { .. })
        ));
        assert!(matches!(
            apply_edits("ab", &[TextEdit::delete(TextRange::new(2, 1))]),
            Err(EditError::Reversed { .. })
        ));
    }
}
