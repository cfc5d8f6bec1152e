//! Single-crate sample with a failing doctest and failing unit tests.

/// Adds two numbers.
///
/// ```
/// assert_eq!(widgets::add(2, 2), 5);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

/// Splits a `key=value` pair.
///
/// ```
/// assert_eq!(widgets::split("a=b"), Some(("a", "b")));
/// ```
pub fn split(s: &str) -> Option<(&str, &str)> {
    s.split_once('=')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    #[should_panic(expected = "empty key")]
    fn rejects_empty_key() {
        split("=v");
    }

    #[test]
    fn splits_pairs() {
        assert_eq!(split("k=v=w"), Some(("k", "v")));
    }
}
