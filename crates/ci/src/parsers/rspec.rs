//! RSpec (any console formatter: progress, documentation). Read are the sections RSpec prints
//! after the run:
//! - `Failures:`: one block per failed example, `  N) <full description>`, then the
//!   `Failure/Error:` line, the expectation's diff or the exception (`NoMethodError:` and its
//!   message), and backtrace lines `# ./spec/x_spec.rb:15:in ...`; up to `Finished in`.
//!   Aggregate failures (`Got 2 failures:`) number their parts `N.1)`, indented deeper.
//!   The `Pending:` section before it has the same shape and is not read. A pending example
//!   that passed is a failure `N) <full description> FIXED` (`Expected pending '…' to
//!   fail.`), named without ` FIXED`.
//!   A `Failures:` section an example printed is not read: it is not ended by `Finished in`
//!   (another `Failures:` or `Pending:` comes first) or the run says `N examples, 0 failures`.
//! - `Failed examples:`: `rspec ./spec/x_spec.rb:12 # <full description>` (or
//!   `rspec './spec/x_spec.rb[1:2:1]'` for examples defined in shared groups).
//! - `An error occurred while loading ./spec/x_spec.rb.` (an error outside of examples,
//!   which stops the run): reported as a failure named by the file.
//!
//! Location: for an example from a shared group (`Shared Example Group: ...`), the first
//! backtrace line of its block; otherwise the first backtrace line of the block (at the
//! block's own indentation, not an aggregate part's) in the example's file (from its `rspec`
//! line, else the first `_spec.rb` frame); else the example's own line from its `rspec` line.
//! Confidence: `high` when the `Failed examples:` list named it and a location was found,
//! `medium` otherwise.

use crate::reproduce::RspecTarget;

use super::{LineParser, MAX_FAILURES, bounded_str, relative_path};
use crate::{Confidence, Failure, Framework};

pub const TRIGGERS: &[&str] = &["Failures:", "Failed examples:", "An error occurred"];

const MAX_MESSAGE: usize = 2000;
const MAX_TRACE: usize = 4000;
const MAX_FRAMES: usize = 16;

pub fn new() -> Box<dyn LineParser> {
    Box::<Rspec>::default()
}

#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum Section {
    #[default]
    None,
    Failures,
    /// After `Finished in`: the `N examples, M failures` line.
    Summary,
    FailedExamples,
    Outside,
}

#[derive(Default)]
pub struct Rspec {
    section: Section,
    blocks: Vec<Block>,
    /// Index in `blocks` of the first block of the current `Failures:` section.
    section_start: usize,
    /// `rspec <location> # <description>` lines: (location, description, used).
    examples: Vec<(String, String, bool)>,
}

#[derive(Default)]
struct Block {
    offset: u64,
    name: String,
    /// Load errors outside of examples: named by a file.
    outside: bool,
    message: String,
    trace: String,
    error_type: Option<String>,
    shared: bool,
    /// Backtrace frames at the block's own indentation: (path, line).
    frames: Vec<(String, u64)>,
}

impl LineParser for Rspec {
    fn line(&mut self, offset: u64, line: &str) {
        // Idle, only `Failures:`, `Failed examples:` and `An error occurred` matter.
        if self.section == Section::None && !matches!(line.as_bytes().first(), Some(b'F' | b'A')) {
            return;
        }
        let trimmed = line.trim_end();
        match trimmed {
            "Failures:" => {
                // A real section ends at `Finished in`: one still open was printed by an
                // example (its blocks were output, not failures).
                if self.section == Section::Failures {
                    self.blocks.truncate(self.section_start);
                }
                self.section_start = self.blocks.len();
                self.section = Section::Failures;
                return;
            }
            "Failed examples:" => {
                self.section = Section::FailedExamples;
                return;
            }
            _ => {}
        }
        if let Some(rest) = trimmed.strip_prefix("An error occurred ") {
            let name = rest
                .strip_prefix("while loading ")
                .map(|f| {
                    let f = f.split(" - Did you mean?").next().unwrap_or(f);
                    relative_path(f.trim_end_matches('.'))
                })
                .unwrap_or_else(|| rest.trim_end_matches('.').to_owned());
            self.section = Section::Outside;
            self.push(Block {
                offset,
                name,
                outside: true,
                ..Block::default()
            });
            return;
        }
        match self.section {
            Section::None => {}
            Section::Failures => {
                if trimmed.starts_with("Finished in ") {
                    self.section = Section::Summary;
                } else if trimmed.starts_with("Pending:") {
                    // RSpec lists pending examples before failures: this `Failures:` was
                    // printed by an example.
                    self.blocks.truncate(self.section_start);
                    self.section = Section::None;
                } else if let Some(name) = header(trimmed) {
                    self.push(Block {
                        offset,
                        name: name.to_owned(),
                        ..Block::default()
                    });
                } else if let Some(b) = self.blocks.last_mut().filter(|b| !b.outside) {
                    body_line(b, trimmed, 5);
                }
            }
            Section::Summary => {
                if trimmed.is_empty() {
                    return;
                }
                // `5 examples, 0 failures, 2 pending`: the section was an example's output.
                if let Some((_, rest)) = trimmed.split_once(" example")
                    && rest.trim_start_matches('s').starts_with(", 0 failures")
                {
                    self.blocks.truncate(self.section_start);
                }
                self.section = Section::None;
            }
            Section::Outside => {
                if trimmed.starts_with("Finished in ")
                    || trimmed.starts_with("No examples found")
                    || trimmed.starts_with("Run options:")
                {
                    self.section = Section::None;
                } else if let Some(b) = self.blocks.last_mut().filter(|b| b.outside) {
                    body_line(b, trimmed, 0);
                }
            }
            Section::FailedExamples => {
                if trimmed.is_empty() {
                    return;
                }
                let Some(rest) = trimmed.strip_prefix("rspec ") else {
                    self.section = Section::None;
                    return;
                };
                let Some((loc, desc)) = rest.split_once(" # ") else {
                    self.section = Section::None;
                    return;
                };
                if self.examples.len() < MAX_FAILURES {
                    let loc = loc.trim().trim_matches('\'').to_owned();
                    self.examples.push((loc, desc.to_owned(), false));
                }
            }
        }
    }

    fn busy(&self) -> bool {
        self.section != Section::None
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        let blocks = std::mem::take(&mut self.blocks);
        blocks
            .into_iter()
            .map(|b| (b.offset, self.failure(b)))
            .collect()
    }
}

impl Rspec {
    fn push(&mut self, block: Block) {
        if self.blocks.len() < MAX_FAILURES {
            self.blocks.push(block);
        }
    }

    fn failure(&mut self, b: Block) -> Failure {
        // The `rspec <location>` line with this description.
        let example = self
            .examples
            .iter_mut()
            .find(|(_, d, used)| !*used && *d == b.name)
            .map(|e| {
                e.2 = true;
                e.0.clone()
            });
        // `./spec/x_spec.rb:12` or `./spec/x_spec.rb[1:2:1]`.
        let (example_file, example_line) = match &example {
            Some(loc) => match loc.split_once('[') {
                Some((f, _)) => (Some(relative_path(f)), None),
                None => match loc.rsplit_once(':') {
                    Some((f, l)) if l.bytes().all(|c| c.is_ascii_digit()) => {
                        (Some(relative_path(f)), l.parse::<u64>().ok())
                    }
                    _ => (Some(relative_path(loc)), None),
                },
            },
            None => (None, None),
        };
        let location = if b.outside {
            b.frames
                .iter()
                .find(|(p, _)| *p == b.name)
                .or(b.frames.first())
                .cloned()
        } else if b.shared {
            b.frames.first().cloned()
        } else {
            let in_file = match &example_file {
                Some(f) => b.frames.iter().find(|(p, _)| p == f),
                None => b.frames.iter().find(|(p, _)| p.ends_with("_spec.rb")),
            };
            in_file
                .cloned()
                .or_else(|| example_file.clone().zip(example_line))
        };
        let confidence = if location.is_some() && (example.is_some() || b.outside) {
            Confidence::High
        } else {
            Confidence::Medium
        };
        let target = if b.outside {
            Some(format!("./{}", b.name))
        } else {
            example.clone()
        };
        let reproduce_command = match &target {
            Some(t) => crate::reproduce::rspec(RspecTarget::Location(t)),
            None => crate::reproduce::rspec(RspecTarget::Example(&b.name)),
        };
        Failure {
            test_name: b.name,
            file_path: location.as_ref().map(|(p, _)| p.clone()),
            line_number: location.map(|(_, l)| l),
            error_type: b.error_type,
            error_message: b.message.trim().to_owned(),
            stack_trace: (!b.trace.is_empty()).then_some(b.trace),
            confidence,
            framework: Framework::Rspec,
            reproduce_command,
        }
    }
}

/// `  12) <description>`: exactly two spaces, a number, `) `.
fn header(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("  ")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let name = rest[digits..].strip_prefix(") ")?;
    (!name.trim().is_empty()).then_some(name.trim())
}

/// A line of a failure block whose own lines are indented `base` spaces.
fn body_line(b: &mut Block, line: &str, base: usize) {
    let body = line.trim_start();
    let indent = line.len() - body.len();
    // A pending example that passed: `N) <description> FIXED`, then `Expected pending '…'
    // to fail. No error was raised.`; the example is named without the marker.
    if b.message.is_empty()
        && b.frames.is_empty()
        && body.starts_with("Expected pending ")
        && let Some(name) = b.name.strip_suffix(" FIXED")
    {
        b.name = name.to_owned();
        b.error_type = Some("PendingExampleFixedError".to_owned());
    }
    if let Some(frame) = body.strip_prefix("# ") {
        if indent == base
            && b.frames.len() < MAX_FRAMES
            && let Some(loc) = frame_location(frame)
        {
            b.frames.push(loc);
        }
        if b.trace.len() < MAX_TRACE {
            if !b.trace.is_empty() {
                b.trace.push('\n');
            }
            b.trace.push_str(frame);
        }
        return;
    }
    if indent == base && body.starts_with("Shared Example Group:") {
        b.shared = true;
        return;
    }
    // Until the first frame: the message.
    if b.frames.is_empty() && b.message.len() < MAX_MESSAGE {
        if b.error_type.is_none()
            && indent == base
            && let Some(t) = body.strip_suffix(':')
            && !t.is_empty()
            && !t.contains(' ')
            && t.starts_with(|c: char| c.is_ascii_uppercase())
        {
            b.error_type = Some(t.rsplit("::").next().unwrap_or(t).to_owned());
        }
        let text = line.get(base.min(indent)..).unwrap_or(body);
        if !b.message.is_empty() || !text.trim().is_empty() {
            b.message.push_str(text);
            b.message.push('\n');
            if b.message.len() > MAX_MESSAGE {
                b.message = bounded_str(&b.message, MAX_MESSAGE);
            }
        }
    }
}

/// `./spec/x_spec.rb:15:in `block ...'` or `./spec/x_spec.rb:63` → (path, line).
fn frame_location(frame: &str) -> Option<(String, u64)> {
    let (path, rest) = frame.split_once(':')?;
    if !path.ends_with(".rb") {
        return None;
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let line = rest[..digits].parse().ok()?;
    Some((relative_path(path), line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Vec<Failure> {
        let mut p = Rspec::default();
        for (i, l) in log.lines().enumerate() {
            p.line(i as u64, l);
        }
        p.finish().into_iter().map(|(_, f)| f).collect()
    }

    #[test]
    fn failures_and_failed_examples() {
        let log = "Pending: (Failures listed here are expected)\n\n  1) C p\n     # ./spec/c_spec.rb:3\n\nFailures:\n\n  1) C#x works\n     Failure/Error: x\n\n     NoMethodError:\n       undefined method\n     # ./lib/c.rb:16:in `x'\n     # ./spec/c_spec.rb:48:in `block'\n\n  2) C shared reports\n     Failure/Error: y\n     Shared Example Group: \"s\" called from ./spec/c_spec.rb:75\n     # ./spec/support/s.rb:7:in `block'\n\nFinished in 0.1 seconds\n2 examples, 2 failures\n\nFailed examples:\n\nrspec ./spec/c_spec.rb:46 # C#x works\nrspec ./spec/c_spec.rb[1:6:1:2] # C shared reports\n";
        let got = parse(log);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].test_name, "C#x works");
        assert_eq!(got[0].file_path.as_deref(), Some("spec/c_spec.rb"));
        assert_eq!(got[0].line_number, Some(48));
        assert_eq!(got[0].error_type.as_deref(), Some("NoMethodError"));
        assert_eq!(got[0].confidence, Confidence::High);
        assert_eq!(
            got[0].reproduce_command.as_deref(),
            Some("bundle exec rspec ./spec/c_spec.rb:46")
        );
        assert_eq!(got[1].file_path.as_deref(), Some("spec/support/s.rb"));
        assert_eq!(got[1].line_number, Some(7));
    }

    #[test]
    fn a_pending_example_that_passed_is_named_without_fixed() {
        let log = "Failures:\n\n  1) Cart pending work rounds totals FIXED\n     Expected pending 'not implemented' to fail. No error was raised.\n     # ./spec/cart_spec.rb:71\n\nFinished in 0.1 seconds\n1 example, 1 failure\n\nFailed examples:\n\nrspec ./spec/cart_spec.rb:71 # Cart pending work rounds totals\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].test_name, "Cart pending work rounds totals");
        assert_eq!(got[0].file_path.as_deref(), Some("spec/cart_spec.rb"));
        assert_eq!(got[0].line_number, Some(71));
        assert_eq!(
            got[0].error_type.as_deref(),
            Some("PendingExampleFixedError")
        );
        assert_eq!(got[0].confidence, Confidence::High);
    }

    #[test]
    fn a_failures_section_printed_by_a_passing_example_is_not_read() {
        let log = "Failures:\n  1) Imaginary example\n..\n\nPending: (Failures listed here are expected)\n\n  1) L pending\n     # later\n\nFinished in 0.1 seconds\n3 examples, 0 failures, 1 pending\n";
        assert!(parse(log).is_empty());
        let log = "Failures:\n  1) Imaginary example\n..\n\nFinished in 0.1 seconds (files took 0.2 seconds to load)\n3 examples, 0 failures\n";
        assert!(parse(log).is_empty());
        // A real section after an example's: only the real one counts.
        let log = "Failures:\n  1) Imaginary\n.F\n\nFailures:\n\n  1) C works\n     Failure/Error: x\n     # ./spec/c_spec.rb:4\n\nFinished in 0.1 seconds\n2 examples, 1 failure\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].test_name, "C works");
    }

    #[test]
    fn load_errors_are_named_by_file() {
        let log = "An error occurred while loading ./spec/b_spec.rb. - Did you mean?\n                    rspec ./spec/c_spec.rb\n\nFailure/Error: require \"x\"\n\nLoadError:\n  cannot load such file -- x\n# ./spec/b_spec.rb:2:in `<top (required)>'\n\nFinished in 0.0 seconds\n";
        let got = parse(log);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].test_name, "spec/b_spec.rb");
        assert_eq!(got[0].line_number, Some(2));
        assert_eq!(got[0].error_type.as_deref(), Some("LoadError"));
    }
}
