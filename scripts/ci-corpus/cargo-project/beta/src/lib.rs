//! Second sample crate.

pub fn halve(n: u32) -> u32 {
    n / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves() {
        assert_eq!(halve(4), 2);
    }

    #[test]
    fn halves_odd() {
        if halve(3) != 2 {
            panic!("halve(3) was {}, expected rounding up", halve(3));
        }
    }

    /// Fails on its first attempt, passes on the next (state in a file named by
    /// BETA_FLAKY_STATE); without the variable it passes.
    #[test]
    fn flaky_network() {
        let Ok(path) = std::env::var("BETA_FLAKY_STATE") else { return };
        if std::fs::metadata(&path).is_err() {
            std::fs::write(&path, "1").unwrap();
            panic!("connection reset (first attempt)");
        }
    }
}
