//! Text from a forge or a log shown to a person: control characters that a terminal obeys
//! (BEL, backspace, carriage return, escape sequences, C1 controls such as CSI U+009B) and the
//! bidirectional overrides that reorder what is displayed (U+202E, "Trojan Source") are
//! written as visible escapes, so a log cannot overwrite or disguise the line it is on.
//!
//! Line feeds and tabs are layout and stay. Everything else is kept as it is: this is for
//! display, never for data (structured output keeps the original text).

use std::borrow::Cow;

/// Whether a terminal or a text renderer would act on `c` instead of showing it.
pub fn is_hostile(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        // C0 controls, DEL and C1 controls.
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidirectional formatting: ALM, LRM/RLM, embeddings and overrides, isolates.
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            true
        }
        _ => false,
    }
}

/// `text` with every hostile character written as a visible escape (`\r`, `\u{7}`,
/// `\u{202e}`). Borrows when there is nothing to escape, which is nearly always.
pub fn printable(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_hostile) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if !is_hostile(c) {
            out.push(c);
        } else if c == '\r' {
            out.push_str("\\r");
        } else {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        }
    }
    Cow::Owned(out)
}

/// A JSON text with every hostile character that is still raw in it (serde_json escapes C0
/// controls, not C1 controls or bidirectional overrides) written as a `\uXXXX` escape: the
/// same JSON value, safe to print on a terminal. Those characters can only occur inside
/// strings, where `\uXXXX` means the same character.
pub fn json_escaped(json: &str) -> Cow<'_, str> {
    if !json.contains(is_hostile) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_hostile(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn controls_become_visible_and_layout_stays() {
        let log = "ok\u{7}\u{8}\rFAKE reproduce: rm -rf ~\u{1b}[2K\u{9b}31m\u{9d}0;title\u{7}\u{202e}gnp.exe\n\tnext";
        assert_eq!(
            printable(log),
            "ok\\u{7}\\u{8}\\rFAKE reproduce: rm -rf ~\\u{1b}[2K\\u{9b}31m\\u{9d}0;title\\u{7}\\u{202e}gnp.exe\n\tnext"
        );
    }

    #[test]
    fn ordinary_text_is_borrowed() {
        let text = "tests/test_ünï.py::test_🚀 failed\n\tassert 1 == 2";
        assert!(matches!(printable(text), Cow::Borrowed(_)));
        assert!(matches!(json_escaped(text), Cow::Borrowed(_)));
    }

    #[test]
    fn escaped_json_is_the_same_value() {
        let value = serde_json::json!({"name": "a\u{9b}b\u{202e}c\u{7}d\re", "n": 1});
        let raw = serde_json::to_string_pretty(&value).unwrap();
        let safe = json_escaped(&raw);
        assert!(
            !safe.contains(|c: char| is_hostile(c) && c != '\n'),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    proptest! {
        #[test]
        fn nothing_hostile_survives(text in "\\PC*|[\\x00-\\x1f\\x7f-\\u{9f}\\u{202a}-\\u{202e}\\u{2066}-\\u{2069}a-z\n]{0,40}") {
            let shown = printable(&text);
            prop_assert!(!shown.contains(is_hostile));
            let json = serde_json::to_string(&text).unwrap();
            let safe = json_escaped(&json);
            prop_assert!(!safe.contains(is_hostile));
            prop_assert_eq!(serde_json::from_str::<String>(&safe).unwrap(), text);
        }
    }
}
