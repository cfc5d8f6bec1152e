//! Text budgets: large texts (logs, diffs, bodies) are cut to a byte budget, on a character
//! boundary, with a marker that says what was cut and how to get the rest. Tokens are the
//! agent's scarcest resource.

/// A text cut to a budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub text: String,
    /// Bytes of the original text, when it was cut.
    pub original_bytes: Option<usize>,
}

/// Keeps at most `max_bytes` of `text` (plus the marker). `more` tells the reader where the
/// full text is, e.g. a URL or a command.
pub fn cut(text: &str, max_bytes: usize, more: &str) -> Cut {
    if text.len() <= max_bytes {
        return Cut {
            text: text.to_owned(),
            original_bytes: None,
        };
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let kept = &text[..end];
    let marker = if more.is_empty() {
        format!("\n…[cut: showing {end} of {} bytes]", text.len())
    } else {
        format!(
            "\n…[cut: showing {end} of {} bytes; full text: {more}]",
            text.len()
        )
    };
    Cut {
        text: format!("{kept}{marker}"),
        original_bytes: Some(text.len()),
    }
}

/// Like [`cut`], but keeps the END of `text`: for diff hunks, whose last line is the line a
/// review comment was written on. The marker comes first.
pub fn cut_tail(text: &str, max_bytes: usize, more: &str) -> Cut {
    if text.len() <= max_bytes {
        return Cut {
            text: text.to_owned(),
            original_bytes: None,
        };
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let kept = &text[start..];
    let shown = kept.len();
    let marker = if more.is_empty() {
        format!("…[cut: showing the last {shown} of {} bytes]\n", text.len())
    } else {
        format!(
            "…[cut: showing the last {shown} of {} bytes; full text: {more}]\n",
            text.len()
        )
    };
    Cut {
        text: format!("{marker}{kept}"),
        original_bytes: Some(text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(
            cut("abc", 10, "x"),
            Cut {
                text: "abc".into(),
                original_bytes: None
            }
        );
    }

    #[test]
    fn long_text_is_marked() {
        // "é" is two bytes: a budget of 2 must not split it.
        let c = cut("héllo world", 2, "https://example.com/c/1");
        assert_eq!(
            c.text,
            "h\n…[cut: showing 1 of 12 bytes; full text: https://example.com/c/1]"
        );
        assert_eq!(c.original_bytes, Some(12));
    }

    #[test]
    fn tail_keeps_the_end() {
        assert_eq!(cut_tail("abc", 3, "x").text, "abc");
        // "é" is two bytes: keeping the last 2 bytes of "aé!" must not split it.
        let c = cut_tail("aé!", 2, "https://example.com/c/1");
        assert_eq!(
            c.text,
            "…[cut: showing the last 1 of 4 bytes; full text: https://example.com/c/1]\n!"
        );
        assert_eq!(c.original_bytes, Some(4));
    }

    proptest! {
        #[test]
        fn tail_never_splits_a_character(s in "\\PC{0,100}", max in 0usize..120) {
            let c = cut_tail(&s, max, "");
            if s.len() <= max { prop_assert_eq!(c.text, s); } else {
                let kept = c.text.split_once("]\n").map(|(_, k)| k).unwrap();
                prop_assert!(kept.len() <= max);
                prop_assert!(s.ends_with(kept));
            }
        }

        #[test]
        fn never_splits_a_character(s in "\\PC{0,100}", max in 0usize..120) {
            let c = cut(&s, max, "");
            if s.len() <= max { prop_assert_eq!(c.text, s); } else {
                let kept = c.text.split("\n…[cut:").next().unwrap();
                prop_assert!(kept.len() <= max);
                prop_assert!(s.starts_with(kept));
            }
        }
    }
}
