//! The structure of a GitHub Actions job log (also Forgejo/Gitea Actions, which print the
//! same markers): a step starts at its `##[group]Run <command>` header, `##[error]` lines
//! are what the runner or a workflow command reported as errors, and
//! `Process completed with exit code N` ends a failed step. Groups whose title does not
//! start with `Run ` (`Operating System`, a workflow's own `::group::`) are inside a step.

/// Longest `##[error]` message kept, and how many are kept per step.
const MAX_ERROR: usize = 1000;
const MAX_ERRORS: usize = 20;
/// Steps kept (a job has at most a few hundred).
const MAX_STEPS: usize = 1000;

/// One step of the job as the log shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepSegment {
    /// `Run pytest -q`, `Run actions/checkout@v4`; `Set up job` for what comes before the
    /// first step header.
    pub title: String,
    /// Byte offset of the header line.
    pub start: u64,
    /// `##[error]` messages printed in the step, without the marker.
    pub errors: Vec<String>,
    /// From `Process completed with exit code N`.
    pub exit_code: Option<i32>,
}

#[derive(Debug, Default)]
pub struct Segmenter {
    steps: Vec<StepSegment>,
}

impl Segmenter {
    /// Lines the segmenter must see; matched on raw bytes by the scanner.
    pub const TRIGGERS: &'static [&'static str] = &["##[", "Process completed with exit code"];

    pub fn line(&mut self, offset: u64, line: &str) {
        if let Some(title) = line.strip_prefix("##[group]") {
            if title.starts_with("Run ") && self.steps.len() < MAX_STEPS {
                self.steps.push(StepSegment {
                    title: title.trim_end().to_owned(),
                    start: offset,
                    errors: Vec::new(),
                    exit_code: None,
                });
            }
            return;
        }
        let error = line.strip_prefix("##[error]");
        let text = error.unwrap_or(line);
        let exit = text
            .strip_prefix("Process completed with exit code ")
            .and_then(|rest| rest.trim_end().trim_end_matches('.').parse::<i32>().ok());
        if error.is_none() && exit.is_none() {
            return;
        }
        if self.steps.is_empty() {
            self.steps.push(StepSegment {
                title: "Set up job".to_owned(),
                start: 0,
                errors: Vec::new(),
                exit_code: None,
            });
        }
        let step = self.steps.last_mut().expect("a step exists");
        if let Some(code) = exit {
            step.exit_code = Some(code);
        }
        if let Some(message) = error
            && step.errors.len() < MAX_ERRORS
        {
            step.errors
                .push(crate::parsers::bounded_str(message.trim(), MAX_ERROR));
        }
    }

    pub fn finish(self) -> Vec<StepSegment> {
        self.steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_errors_and_exit_codes() {
        let mut s = Segmenter::default();
        s.line(0, "##[group]Operating System");
        s.line(10, "##[group]Run actions/checkout@v4");
        s.line(20, "##[group]Run pytest -q");
        s.line(30, "##[group]inner group");
        s.line(40, "##[error]Process completed with exit code 1.");
        let steps = s.finish();
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[1].title, "Run pytest -q");
        assert_eq!(steps[1].start, 20);
        assert_eq!(steps[1].exit_code, Some(1));
        assert_eq!(steps[1].errors, ["Process completed with exit code 1."]);
    }

    #[test]
    fn errors_before_any_step_belong_to_set_up() {
        let mut s = Segmenter::default();
        s.line(5, "##[error]Unable to resolve action `foo/bar@v9`");
        let steps = s.finish();
        assert_eq!(steps[0].title, "Set up job");
        assert_eq!(steps[0].errors.len(), 1);
    }
}
