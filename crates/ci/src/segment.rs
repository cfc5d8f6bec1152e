//! The structure of a GitHub Actions job log (also Forgejo/Gitea Actions, which print the
//! same markers): a step starts at its `##[group]Run <command>` header, `##[error]` lines
//! are what the runner or a workflow command reported as errors, and
//! `Process completed with exit code N` ends a failed step. Groups whose title does not
//! start with `Run ` (`Operating System`, a workflow's own `::group::`) are inside a step.
//!
//! What a step ran comes from the log too: a `run:` step's header group holds its script
//! (then `shell:` and `env:`) up to `##[endgroup]`; an action's step prints each command it
//! runs as `[command]…`, and the last one is the one that was running when the step failed.

/// Longest `##[error]` message kept, and how many are kept per step.
const MAX_ERROR: usize = 1000;
const MAX_ERRORS: usize = 20;
/// Steps kept (a job has at most a few hundred).
const MAX_STEPS: usize = 1000;
/// Longest command kept, and the most header lines read for a script.
const MAX_COMMAND: usize = 2000;
const MAX_HEADER_LINES: usize = 60;

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
    /// What the step ran as its log tells: a `run:` step's script (its lines joined by
    /// `\n`), else the last `[command]` an action printed. Bounded. Anything the job runs
    /// can print such lines, so this is text to show, never a command to emit.
    pub command: Option<String>,
}

/// The exit code a line reports for its step: `##[error]Process completed with exit code 1.`
/// (a `run:` step; the marker may be missing), `##[error]The process '/usr/bin/cargo' failed
/// with exit code 101` (the command an action ran).
pub fn exit_code(line: &str) -> Option<i32> {
    let error = line.strip_prefix("##[error]");
    let code = |rest: &str| rest.trim_end().trim_end_matches('.').parse::<i32>().ok();
    error
        .unwrap_or(line)
        .strip_prefix("Process completed with exit code ")
        .and_then(code)
        .or_else(|| {
            let rest = error?.strip_prefix("The process '")?;
            code(rest.rsplit_once("' failed with exit code ")?.1)
        })
}

#[derive(Debug, Default)]
pub struct Segmenter {
    steps: Vec<StepSegment>,
    /// Inside the last step's header group: lines read so far, and whether the script is
    /// over (`shell:`, `env:` or `with:` came).
    header: Option<(usize, bool)>,
    /// The last step's script came from its header.
    scripted: bool,
}

impl Segmenter {
    /// Lines the segmenter must see; matched on raw bytes by the scanner.
    pub const TRIGGERS: &'static [&'static str] =
        &["##[", "Process completed with exit code", "[command]"];

    /// Inside a step's header, where every line is part of its script: the scanner must
    /// deliver all of them.
    pub fn busy(&self) -> bool {
        self.header.is_some()
    }

    pub fn line(&mut self, offset: u64, line: &str) {
        if let Some(title) = line.strip_prefix("##[group]") {
            self.header = None;
            if title.starts_with("Run ") && self.steps.len() < MAX_STEPS {
                self.steps.push(StepSegment {
                    title: title.trim_end().to_owned(),
                    start: offset,
                    errors: Vec::new(),
                    exit_code: None,
                    command: None,
                });
                self.header = Some((0, false));
                self.scripted = false;
            }
            return;
        }
        if let Some((lines, done)) = &mut self.header {
            *lines += 1;
            if line.starts_with("##[endgroup]") || *lines > MAX_HEADER_LINES {
                self.header = None;
                return;
            }
            if ["shell: ", "env:", "with:"]
                .iter()
                .any(|p| line.starts_with(p))
            {
                *done = true;
            }
            if !*done && let Some(step) = self.steps.last_mut() {
                let command = step.command.get_or_insert_with(String::new);
                if !command.is_empty() {
                    command.push('\n');
                }
                command.push_str(line.trim_end());
                if command.len() > MAX_COMMAND {
                    *command = crate::parsers::bounded_str(command, MAX_COMMAND);
                }
                self.scripted = true;
            }
            return;
        }
        if let Some(command) = line.strip_prefix("[command]") {
            if !self.scripted
                && let Some(step) = self.steps.last_mut()
            {
                step.command = Some(crate::parsers::bounded_str(command.trim(), MAX_COMMAND));
            }
            return;
        }
        let error = line.strip_prefix("##[error]");
        let exit = exit_code(line);
        if error.is_none() && exit.is_none() {
            return;
        }
        if self.steps.is_empty() {
            self.steps.push(StepSegment {
                title: "Set up job".to_owned(),
                start: 0,
                errors: Vec::new(),
                exit_code: None,
                command: None,
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
    fn a_run_step_ran_its_script_and_an_action_its_last_command() {
        let mut s = Segmenter::default();
        for line in [
            "##[group]Run actions/setup-python@v5",
            "with:",
            "  python-version: 3.11",
            "##[endgroup]",
            "[command]/usr/bin/tar -xzf python.tgz",
            "[command]/opt/python/bin/python -m pip install -r requirements.txt",
            "##[error]The process '/opt/python/bin/python' failed with exit code 1",
            "##[group]Run cd web",
            "cd web",
            "npm run lint -- --max-warnings 0",
            "shell: /usr/bin/bash -e {0}",
            "env:",
            "  CI: true",
            "##[endgroup]",
            "[command]/usr/bin/bash -e /home/runner/work/_temp/step.sh",
            "##[error]Process completed with exit code 1.",
            "##[group]Run ruff check .",
            "ruff check .",
            "##[endgroup]",
        ] {
            s.line(0, line);
            match line {
                "##[group]Run cd web" | "npm run lint -- --max-warnings 0" | "  CI: true" => {
                    assert!(s.busy(), "{line}")
                }
                "##[endgroup]" | "[command]/usr/bin/tar -xzf python.tgz" => {
                    assert!(!s.busy(), "{line}")
                }
                _ => {}
            }
        }
        let steps = s.finish();
        let codes: Vec<Option<i32>> = steps.iter().map(|s| s.exit_code).collect();
        assert_eq!(codes, [Some(1), Some(1), None]);
        let commands: Vec<Option<&str>> = steps.iter().map(|s| s.command.as_deref()).collect();
        assert_eq!(
            commands,
            [
                Some("/opt/python/bin/python -m pip install -r requirements.txt"),
                Some("cd web\nnpm run lint -- --max-warnings 0"),
                Some("ruff check ."),
            ]
        );
    }

    #[test]
    fn a_header_without_its_end_stops_being_read() {
        let mut s = Segmenter::default();
        s.line(0, "##[group]Run make");
        for _ in 0..MAX_HEADER_LINES + 5 {
            s.line(0, "make all");
        }
        assert!(!s.busy());
        let steps = s.finish();
        let command = steps[0].command.as_deref().unwrap();
        assert_eq!(command.lines().count(), MAX_HEADER_LINES);
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
