//! Third sample crate: every test passes, but the output is noisy on purpose (a green job
//! that prints `FAILED`, `error:`, `Error:` and caught panics).

/// Parses a port number.
///
/// ```
/// assert_eq!(gamma::parse_port("8080"), Ok(8080));
/// ```
pub fn parse_port(s: &str) -> Result<u16, String> {
    let retries = 3;
    s.parse().map_err(|e| format!("invalid port {s:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_error_handling() {
        let err = parse_port("http").unwrap_err();
        println!("error: {err}");
        eprintln!("Error: handled, falling back to 80");
        assert!(err.contains("invalid port"));
    }

    #[test]
    fn handles_failed_input() {
        for input in ["", "-1", "70000"] {
            println!("parse {input:?}: FAILED (as expected)");
            assert!(parse_port(input).is_err());
        }
        println!("3 inputs FAILED, 0 accepted");
    }

    #[test]
    fn recovers_from_panic() {
        let caught = std::panic::catch_unwind(|| {
            panic!("worker crashed: connection reset");
        });
        println!("recovered from panicked worker: {}", caught.is_err());
        assert!(caught.is_err());
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn panics_on_overflow() {
        println!("error: about to overflow");
        panic!("attempt to add with overflow");
    }

    /// Fails on its first attempt, passes on the next (state in a file named by
    /// GAMMA_FLAKY_STATE); without the variable it passes.
    #[test]
    fn flaky_cache() {
        let Ok(path) = std::env::var("GAMMA_FLAKY_STATE") else { return };
        if std::fs::metadata(&path).is_err() {
            std::fs::write(&path, "1").unwrap();
            panic!("cache not warm (first attempt)");
        }
        println!("cache warm on retry");
    }

    #[test]
    fn parses_ports() {
        assert_eq!(parse_port("443"), Ok(443));
    }

    /// With GAMMA_LEAK set, leaves a child process holding the test's stdout open after it
    /// returns: nextest reports the pass as `LEAK` (a pass by default).
    #[test]
    fn spawns_background_worker() {
        if std::env::var_os("GAMMA_LEAK").is_some() {
            std::process::Command::new("sleep")
                .arg("1")
                .spawn()
                .expect("spawn sleep");
        }
    }
}
