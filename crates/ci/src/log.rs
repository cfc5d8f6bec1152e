//! Cleaning a job log for parsing: invalid UTF-8 replaced, ANSI colour codes and GitHub
//! Actions timestamp prefixes (`2024-05-01T10:00:00.1234567Z `) removed.

/// The log as text, one line per line, without colour codes or timestamp prefixes.
pub fn clean(log: &[u8]) -> String {
    let mut out = String::with_capacity(log.len());
    let log = log.strip_suffix(b"\n").unwrap_or(log);
    if log.is_empty() {
        return out;
    }
    for line in log.split(|&b| b == b'\n') {
        out.push_str(&clean_line(line));
        out.push('\n');
    }
    out
}

/// One raw line (without its `\n`) cleaned: a trailing `\r`, the timestamp prefix and colour
/// codes removed, invalid UTF-8 replaced. Borrows when there is nothing to replace.
pub fn clean_line(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let has_escape = memchr::memchr(0x1b, raw).is_some();
    // Valid UTF-8 (nearly every line) borrows; `from_utf8` checks it faster than the lossy
    // decoder walks it.
    match std::str::from_utf8(raw) {
        Ok(t) => {
            let t = strip_timestamp(t);
            if has_escape {
                let mut out = String::with_capacity(t.len());
                strip_ansi_into(t, &mut out);
                Cow::Owned(out)
            } else {
                Cow::Borrowed(t)
            }
        }
        Err(_) => {
            let t = String::from_utf8_lossy(raw);
            let mut out = String::with_capacity(t.len());
            strip_ansi_into(strip_timestamp(&t), &mut out);
            Cow::Owned(out)
        }
    }
}

/// Removes a leading GitHub Actions timestamp (`YYYY-MM-DDTHH:MM:SS[.frac]Z `).
pub fn strip_timestamp(line: &str) -> &str {
    let b = line.as_bytes();
    if b.len() >= 21
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[..4].iter().all(u8::is_ascii_digit)
        // The `Z` comes after the seconds and at most 15 fraction digits.
        && let Some(z) = memchr::memchr(b'Z', &b[19..b.len().min(36)]).map(|i| i + 19)
        && b.get(z + 1) == Some(&b' ')
    {
        return &line[z + 2..];
    }
    line
}

/// Appends `line` without ANSI escape sequences (CSI `ESC [ ... letter`).
fn strip_ansi_into(line: &str, out: &mut String) {
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_timestamps_and_colour() {
        let log = b"2024-05-01T10:00:00.1234567Z \x1b[31mFAILED\x1b[0m tests/a.py::t\nplain\n";
        assert_eq!(clean(log), "FAILED tests/a.py::t\nplain\n");
    }

    #[test]
    fn only_a_whole_timestamp_prefix_is_removed() {
        for (line, want) in [
            ("2024-05-01T10:00:00Z plain", "plain"),
            ("2024-05-01T10:00:00.1234567Z x", "x"),
            ("2024-05-01T10:00:00.123456789012345Z x", "x"),
            (
                "2024-05-01T10:00:00.1234567890123456Z x",
                "2024-05-01T10:00:00.1234567890123456Z x",
            ),
            ("2024-05-01T10:00:00Zx y", "2024-05-01T10:00:00Zx y"),
            ("2024-05-01 10:00:00Z x", "2024-05-01 10:00:00Z x"),
            ("2024-05-01T10:00:00.1", "2024-05-01T10:00:00.1"),
            ("2024-05-01T10:00:00Z ", ""),
        ] {
            assert_eq!(strip_timestamp(line), want, "{line}");
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        assert_eq!(clean(b"ok \xff\xfe end"), "ok \u{fffd}\u{fffd} end\n");
    }
}
