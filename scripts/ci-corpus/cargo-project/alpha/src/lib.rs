//! Sample crate with failing tests for the CI log corpus.

/// Adds two numbers.
///
/// ```
/// assert_eq!(alpha::add(2, 2), 5);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    let unused = 3;
    a + b
}

/// Subtracts two numbers.
///
/// ```compile_fail
/// let n: i32 = alpha::sub(3, 1);
/// ```
///
/// ```
/// let n = alpha::sub(3, missing);
/// ```
pub fn sub(a: i32, b: i32) -> i32 {
    a - b
}

/// Multi-line Debug, so assert_eq! prints a multi-line left/right.
#[derive(PartialEq)]
pub struct Report(pub Vec<&'static str>);

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Report [")?;
        for l in &self.0 {
            writeln!(f, "    {l},")?;
        }
        write!(f, "]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_numbers() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn report_matches() {
        let got = Report(vec!["alpha", "beta", "gamma"]);
        let want = Report(vec!["alpha", "delta", "gamma"]);
        assert_eq!(got, want, "reports differ");
    }

    #[test]
    fn error_is_reported() {
        assert!(add(0, 0) == 0, "error is reported");
    }

    #[test]
    fn unwrap_none() {
        let v: Vec<i32> = Vec::new();
        let first = v.first().copied();
        assert_eq!(first.unwrap(), 1);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn should_overflow() {
        add(1, 1);
    }

    mod parser {
        mod nested {
            #[test]
            fn parses_deeply() {
                let n: Result<i32, std::num::ParseIntError> = "x1".parse();
                n.unwrap();
            }

            #[test]
            fn returns_err() -> Result<(), String> {
                Err("config file missing".to_string())
            }
        }
    }

    /// Passes, printing lines that look like failures (seen with `--show-output`).
    #[test]
    fn logs_progress() {
        println!("step 1/2: FAILED to reach cache, retrying");
        println!("error: cache unavailable (ignored)");
    }
}
