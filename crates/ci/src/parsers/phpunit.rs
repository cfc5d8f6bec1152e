//! PHPUnit (9.x; the same shapes since 6), default and `--testdox` output.
//!
//! Default: after the run, `There was 1 error:` / `There were N failures:` sections (also
//! `warning`, `risky test`, `incomplete test`, `skipped test`, which are not failures), each
//! with blocks `N) Ns\FooTest::testBar with data set #1 (args)`, the message (assertion text,
//! diff, or `Exception: message` for errors), a blank line and the filtered trace
//! (`/path/tests/FooTest.php:20`, one frame per line); sections end with `--`, the run with
//! `FAILURES!` / `ERRORS!`. The test is named `Class::method` with the data set's name or
//! number, without its arguments. Confidence `high` with a location, else `medium`.
//!
//! `--testdox`: a header per class `Foo (Ns\Foo)` (the class name without its `Test`
//! suffix), then ` ✔ Sums prices` per test; a failure or error is ` ✘ Applies discount
//! once` followed by `   │ ...` lines (with colours: `┐ ├ ┊ ╵ ┴`) holding the message and
//! the trace. The name is rebuilt by undoing PHPUnit's prettifier: the class gets
//! its `Test` suffix back (or prefix, when a trace file says `TestFoo.php`) and the method
//! is `test` + the words capitalised (`testAppliesDiscountOnce`); exact for camel-case test
//! methods, so confidence is `medium`.
//!
//! Location: the first trace frame in the test class's file (`<ShortClass>.php`), else the
//! first frame.

use super::{LineParser, MAX_FAILURES, bounded_str, relative_path};
use crate::{Confidence, Failure, Framework};

pub const TRIGGERS: &[&str] = &[
    "There was 1 error:",
    "There was 1 failure:",
    " errors:",
    " failures:",
    "by Sebastian Bergmann",
    "\u{2718}",
];

const MAX_MESSAGE: usize = 2000;
const MAX_TRACE: usize = 4000;
const MAX_FRAMES: usize = 16;

pub fn new() -> Box<dyn LineParser> {
    Box::<Phpunit>::default()
}

#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum State {
    #[default]
    Idle,
    /// After the banner, until the first line says which printer runs.
    Banner,
    /// Inside a `There were N failures:` / `errors:` section.
    Defects,
    /// Between the banner and `Time:` of a testdox run.
    Testdox,
}

#[derive(Default)]
pub struct Phpunit {
    state: State,
    /// Inside a ` ✘` testdox block.
    in_block: bool,
    /// Testdox: the class of the last `Foo (Ns\Foo)` header.
    class: String,
    blocks: Vec<Block>,
}

#[derive(Default)]
struct Block {
    offset: u64,
    /// Default printer: `Class::method ...`; testdox: (class, pretty name).
    name: String,
    testdox: Option<(String, String)>,
    message: String,
    frames: Vec<(String, u64)>,
    trace: String,
}

impl LineParser for Phpunit {
    fn line(&mut self, offset: u64, line: &str) {
        // Idle, only the banner (`PHPUnit 9.6.7 by ...`) and `There were ...` matter.
        if self.state == State::Idle && !matches!(line.as_bytes().first(), Some(b'P' | b'T')) {
            return;
        }
        let t = line.trim_end();
        if t.starts_with("PHPUnit ") && t.contains(" by Sebastian Bergmann") {
            self.state = State::Banner;
            self.in_block = false;
            return;
        }
        if let Some(kind) = section(t) {
            self.in_block = false;
            self.state = if kind { State::Defects } else { State::Idle };
            return;
        }
        match self.state {
            State::Idle => {}
            State::Banner => {
                if t.is_empty() || t.starts_with("Runtime:") || t.starts_with("Configuration:") {
                    return;
                }
                if let Some(class) = testdox_class(t) {
                    self.state = State::Testdox;
                    self.class = class.to_owned();
                } else {
                    self.state = State::Idle;
                }
            }
            State::Defects => {
                if t == "--" || t == "FAILURES!" || t == "ERRORS!" || t.starts_with("Tests: ") {
                    self.state = State::Idle;
                } else if let Some(name) = defect_header(t) {
                    self.push(Block {
                        offset,
                        name: test_name(name).to_owned(),
                        ..Block::default()
                    });
                } else if let Some(b) = self.blocks.last_mut() {
                    block_line(b, t);
                }
            }
            State::Testdox => {
                if t.starts_with("Time: ") {
                    self.state = State::Idle;
                    self.in_block = false;
                    return;
                }
                if let Some(rest) = t.strip_prefix(" \u{2718} ") {
                    self.in_block = true;
                    let pretty = rest.trim().to_owned();
                    self.push(Block {
                        offset,
                        testdox: Some((self.class.clone(), pretty)),
                        ..Block::default()
                    });
                    return;
                }
                if self.in_block {
                    if let Some(body) = box_line(t) {
                        if let Some(b) = self.blocks.last_mut() {
                            block_line(b, body);
                        }
                        return;
                    }
                    self.in_block = false;
                }
                if let Some(class) = testdox_class(t) {
                    self.class.clear();
                    self.class.push_str(class);
                }
            }
        }
    }

    fn busy(&self) -> bool {
        self.state != State::Idle
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        std::mem::take(&mut self.blocks)
            .into_iter()
            .map(|b| (b.offset, failure(b)))
            .collect()
    }
}

impl Phpunit {
    fn push(&mut self, b: Block) {
        if self.blocks.len() < MAX_FAILURES {
            self.blocks.push(b);
        }
    }
}

/// `There was 1 error:` / `There were 3 failures:` → Some(true); other sections
/// (`warning`, `risky test`, `skipped test`, ...) → Some(false).
fn section(t: &str) -> Option<bool> {
    let rest = t
        .strip_prefix("There was 1 ")
        .or_else(|| t.strip_prefix("There were "))?;
    let rest = rest
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let kind = rest.strip_suffix(':')?;
    Some(matches!(kind, "error" | "errors" | "failure" | "failures"))
}

/// `12) Ns\FooTest::testBar ...`.
fn defect_header(t: &str) -> Option<&str> {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let name = t[digits..].strip_prefix(") ")?;
    name.contains("::").then_some(name)
}

/// `Foo::testBar with data set #1 (1, 2)` → `Foo::testBar with data set #1`; a named set
/// `with data set "bulk order" (...)` keeps its quoted name.
fn test_name(name: &str) -> &str {
    const SET: &str = " with data set ";
    let Some(i) = name.find(SET) else {
        return name;
    };
    let set = &name[i + SET.len()..];
    let len = if let Some(q) = set.strip_prefix('"') {
        match q
            .find("\" (")
            .or_else(|| q.ends_with('"').then(|| q.len() - 1))
        {
            Some(j) => j + 2,
            None => set.len(),
        }
    } else {
        set.find(' ').unwrap_or(set.len())
    };
    &name[..i + SET.len() + len]
}

/// `Foo (Ns\Foo)`: a testdox class header.
fn testdox_class(t: &str) -> Option<&str> {
    if t.starts_with(' ') || !t.ends_with(')') {
        return None;
    }
    let open = t.rfind(" (")?;
    let class = &t[open + 2..t.len() - 1];
    (!class.is_empty() && !class.contains(' ')).then_some(class)
}

/// `   │ text` (or `┐ ├ ┊ ╵ ┴` with colours) → `text`.
fn box_line(t: &str) -> Option<&str> {
    let rest = t.strip_prefix("   ")?;
    let mut chars = rest.chars();
    let c = chars.next()?;
    if !matches!(c, '│' | '├' | '┊' | '╵' | '┐' | '┴' | '┘' | '└') {
        return None;
    }
    let body = chars.as_str();
    Some(body.strip_prefix(' ').unwrap_or(body))
}

/// A message or trace line of a block.
fn block_line(b: &mut Block, t: &str) {
    if let Some(frame) = frame(t) {
        if b.frames.len() < MAX_FRAMES {
            b.frames.push(frame);
        }
        if b.trace.len() < MAX_TRACE {
            if !b.trace.is_empty() {
                b.trace.push('\n');
            }
            b.trace.push_str(t);
        }
        return;
    }
    if b.frames.is_empty() && b.message.len() < MAX_MESSAGE {
        b.message.push_str(t);
        b.message.push('\n');
    }
}

/// `/path/tests/FooTest.php:20` → (relative path, 20).
fn frame(t: &str) -> Option<(String, u64)> {
    let (path, line) = t.rsplit_once(':')?;
    if !path.ends_with(".php") || path.contains(' ') || line.is_empty() {
        return None;
    }
    let line = line.parse().ok()?;
    Some((relative_path(path), line))
}

fn failure(b: Block) -> Failure {
    let (name, confidence_cap) = match &b.testdox {
        None => (b.name.clone(), Confidence::High),
        Some((class, pretty)) => (testdox_name(class, pretty, &b.frames), Confidence::Medium),
    };
    let (class, method) = name.split_once("::").unwrap_or(("", name.as_str()));
    let short = class.rsplit('\\').next().unwrap_or(class);
    let location = b
        .frames
        .iter()
        .find(|(p, _)| {
            let base = p.rsplit('/').next().unwrap_or(p);
            base.strip_suffix(".php") == Some(short)
        })
        .or(b.frames.first())
        .cloned();
    let message = b.message.trim();
    let first = message.lines().next().unwrap_or("");
    let error_type = first.split_once(": ").and_then(|(t, _)| {
        (!t.is_empty() && !t.contains(' ') && t.starts_with(|c: char| c.is_ascii_uppercase()))
            .then(|| t.rsplit('\\').next().unwrap_or(t).to_owned())
    });
    // `--filter 'FooTest::testBar#1'` (or `@name`) selects one data set.
    let filter = match method.split_once(" with data set ") {
        Some((m, set)) => match set.strip_prefix('"') {
            Some(n) => format!("{short}::{m}@{}", n.trim_end_matches('"')),
            None => format!("{short}::{m}{set}"),
        },
        None => format!("{short}::{method}"),
    };
    let reproduce_command =
        crate::reproduce::phpunit(&filter, location.as_ref().map(|(p, _)| p.as_str()));
    Failure {
        test_name: name.clone(),
        confidence: if location.is_some() {
            confidence_cap
        } else {
            Confidence::Medium
        },
        file_path: location.as_ref().map(|(p, _)| p.clone()),
        line_number: location.map(|(_, l)| l),
        error_type,
        error_message: bounded_str(message, MAX_MESSAGE),
        stack_trace: (!b.trace.is_empty()).then_some(b.trace),
        framework: Framework::Phpunit,
        reproduce_command,
    }
}

/// Undoes testdox's prettifying: `Ns\Foo` + `Applies discount once` →
/// `Ns\FooTest::testAppliesDiscountOnce` (data set suffixes kept).
fn testdox_name(class: &str, pretty: &str, frames: &[(String, u64)]) -> String {
    let short = class.rsplit('\\').next().unwrap_or(class);
    let ns = &class[..class.len() - short.len()];
    let prefixed = format!("Test{short}");
    let class = if frames.iter().any(|(p, _)| {
        p.rsplit('/').next().and_then(|b| b.strip_suffix(".php")) == Some(prefixed.as_str())
    }) {
        format!("{ns}{prefixed}")
    } else {
        format!("{ns}{short}Test")
    };
    // ` with data set #1` / ` with data set "name"`; with colours ` with data set 1` and
    // ` with bulk·order` (a named set, `·` for its spaces; a one-word name cannot be told
    // from the method's words).
    const SET: &str = " with data set ";
    let (words, set) = if let Some(i) = pretty.find(SET) {
        let s = &pretty[i + SET.len()..];
        let s = if s.starts_with(|c: char| c.is_ascii_digit()) {
            format!("{SET}#{s}")
        } else {
            format!("{SET}{s}")
        };
        (&pretty[..i], s)
    } else if let Some(i) = pretty.rfind(" with ")
        && pretty[i..].contains('\u{b7}')
    {
        let n = pretty[i + 6..].replace('\u{b7}', " ");
        (&pretty[..i], format!("{SET}\"{n}\""))
    } else {
        (pretty, String::new())
    };
    let mut method = String::from("test");
    for w in words.split(' ').filter(|w| !w.is_empty()) {
        let mut cs = w.chars();
        if let Some(c) = cs.next() {
            method.extend(c.to_uppercase());
            method.push_str(cs.as_str());
        }
    }
    format!("{class}::{method}{set}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Vec<Failure> {
        let mut p = Phpunit::default();
        for (i, l) in log.lines().enumerate() {
            p.line(i as u64, l);
        }
        p.finish().into_iter().map(|(_, f)| f).collect()
    }

    #[test]
    fn default_printer() {
        let log = "PHPUnit 9.6.7 by Sebastian Bergmann and contributors.\n\n.FE\n\nTime: 00:00.009, Memory: 6.00 MB\n\nThere was 1 error:\n\n1) Ns\\CartTest::testX\nInvalidArgumentException: boom\n\n/home/runner/work/w/w/src/Cart.php:14\n/home/runner/work/w/w/tests/CartTest.php:43\n\n--\n\nThere were 2 failures:\n\n1) Ns\\CartTest::testT with data set \"bulk order\" (5, 10, 55)\nFailed asserting that 50 is identical to 55.\n\n/home/runner/work/w/w/tests/CartTest.php:73\n\n2) Ns\\CartTest::testT with data set #1 (2, 3)\nFailed.\n\n/home/runner/work/w/w/tests/CartTest.php:73\n\n--\n\nThere was 1 risky test:\n\n1) Ns\\CartTest::testR\nThis test did not perform any assertions\n\n/home/runner/work/w/w/tests/CartTest.php:46\n\nERRORS!\n";
        let got = parse(log);
        assert_eq!(got.len(), 3, "{got:#?}");
        assert_eq!(got[0].test_name, "Ns\\CartTest::testX");
        assert_eq!(got[0].file_path.as_deref(), Some("tests/CartTest.php"));
        assert_eq!(got[0].line_number, Some(43));
        assert_eq!(
            got[0].error_type.as_deref(),
            Some("InvalidArgumentException")
        );
        assert_eq!(
            got[1].test_name,
            "Ns\\CartTest::testT with data set \"bulk order\""
        );
        assert_eq!(
            got[1].reproduce_command.as_deref(),
            Some("vendor/bin/phpunit --filter 'CartTest::testT@bulk order' tests/CartTest.php")
        );
        assert_eq!(got[2].test_name, "Ns\\CartTest::testT with data set #1");
    }

    #[test]
    fn testdox_printer() {
        let log = "PHPUnit 9.6.7 by Sebastian Bergmann and contributors.\n\nCart (Ns\\Cart)\n \u{2714} Sums prices\n \u{2718} Applies discount once\n   \u{2502}\n   \u{2502} Failed asserting that 6 is identical to 8.\n   \u{2502}\n   \u{2502} /w/tests/CartTest.php:20\n   \u{2502}\n\n \u{2622} Risky\n\nTime: 00:00.015, Memory: 6.00 MB\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].test_name, "Ns\\CartTest::testAppliesDiscountOnce");
        assert_eq!(got[0].line_number, Some(20));
        assert_eq!(got[0].confidence, Confidence::Medium);
    }
}
