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

    /// With BETA_HARD set, aborts the test process (nextest reports SIGABRT).
    #[test]
    fn aborts_on_corruption() {
        if std::env::var_os("BETA_HARD").is_some() {
            eprintln!("heap corruption detected, aborting");
            std::process::abort();
        }
    }

    /// With BETA_HARD set, sleeps past the `ci` profile's slow-timeout (TIMEOUT).
    #[test]
    fn waits_for_server() {
        if std::env::var_os("BETA_HARD").is_some() {
            std::thread::sleep(std::time::Duration::from_secs(30));
        }
    }
}
