//! Sample code under test for the JUnit corpus.

pub fn balance(entries: &[i64]) -> i64 {
    entries.iter().sum()
}

pub fn parse_amount(text: &str) -> i64 {
    text.trim().parse().expect("amount is a whole number")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balance_sums() {
        assert_eq!(balance(&[1, 2, 3]), 6);
    }

    #[test]
    fn balance_of_refund() {
        assert_eq!(balance(&[10, -3]), 6, "refunds are subtracted");
    }

    #[test]
    fn parses_decimal() {
        assert_eq!(parse_amount("1.5"), 1);
    }

    #[test]
    #[ignore]
    fn slow_reconcile() {}

    /// Fails on its first try and passes on the next (a state file counts the tries).
    #[test]
    fn flaky_clock() {
        let Ok(state) = std::env::var("LEDGER_FLAKY_STATE") else {
            return;
        };
        let tries: u32 = std::fs::read_to_string(&state)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        std::fs::write(&state, (tries + 1).to_string()).unwrap();
        assert!(tries > 0, "clock skew on first try");
    }
}
