//! JUnit XML reports, from any tool that writes them: `<testsuites>` / `<testsuite>` (nested
//! or not) holding `<testcase classname name file line time>` elements. A testcase is a
//! failure when it holds a `<failure>` or `<error>` element. Not failures: `<skipped/>`, and
//! `<flakyFailure>` / `<flakyError>` / `<rerunFailure>` / `<rerunError>` alone (Maven
//! surefire and cargo-nextest record the failed tries of a test that passed on retry that
//! way; when the test failed every try, the report has a `<failure>` too).
//!
//! Read with a streaming pull parser, event by event: memory holds one testcase's failure
//! text (capped), never a tree of the document. At most [`MAX_FAILURES`] failures, one per
//! test name (pytest writes a test that failed and then errored in teardown twice). A
//! document that is not XML, ends inside an element (cut off mid-write) or whose root is not
//! `<testsuites>`/`<testsuite>` is a [`JunitError`] with the byte position.
//!
//! ## Test names
//! As the tool that wrote the report names its tests, when the report says which tool that
//! was; otherwise `classname.name` (just `name` when the classname is empty or `name`
//! already starts with it):
//! - pytest (`<testsuites name="pytest tests">` or `<testsuite name="pytest">`): the node id
//!   `file::Class::test[param]`. The file is the `file` attribute (xunit1), or the classname's
//!   leading lower-case dotted parts as a path (`tests.test_x.TestC` → `tests/test_x.py`); the
//!   classes are the rest of the classname. An empty classname (a collection error) names
//!   the module, which becomes its file.
//! - cargo-nextest (`<testsuites name="nextest-run">`): `binary::test`, the classname being
//!   nextest's binary id (`ledger`, `ledger::report`): `ledger::tests::balance_sums`.
//! - jest-junit (`<testsuites name="jest tests">`): jest's full name, describe titles and the
//!   test title joined with spaces (jest-junit's default templates write exactly that as the
//!   `name`; with `{title}`-only templates the classname is put in front).
//! - Maven surefire (a root `<testsuite>` whose schema location names surefire):
//!   `Class.method` with the fully qualified class.
//! - PHPUnit (a testcase with `class` and `assertions` attributes): `Class::method`, data
//!   sets included (`CalcTest::testPairs with data set #1`).
//! - mocha-junit-reporter (`<testsuites name="Mocha Tests">`, or a testcase whose `name` is
//!   its `classname` after other words, or the other way round): mocha's full title, as
//!   mocha's own output names the test.
//! - unittest-xml-reporting (a testcase with a `timestamp` and a `.py` file): unittest's id
//!   as its log prints it: `pkg.mod.Class.test`, subtest parameters dropped (one failure per
//!   test), `pkg.mod.Class` for a failed `setUpClass`, `pkg.mod` for a module that failed
//!   to import.
//!
//! ## Locations
//! The file is the testcase's `file` attribute (made repository-relative); for pytest the
//! node id's file, for mocha the enclosing `<testsuite>`'s `file` (mocha-junit-reporter
//! writes the spec file there), for unittest-xml-reporting the test id's module among the
//! frames (its `file` attribute is another test's for a fixture error), for surefire
//! `src/test/java/<package>/<Class>.java` (Maven's layout) when the trace has a frame in
//! `<Class>.java`. The line is the failing line the failure text names in that file (the
//! last such frame for Python, whose tracebacks end at the failure; the first for the
//! others), else the `line` attribute (which is the test's definition;
//! pytest writes it 0-based). Without a file attribute: the failure text's first frame in a
//! file that looks like a test (`tests/`, `__tests__/`, `.test.`, `_test.`, `test_` …), else
//! its first frame outside dependencies and toolchains.
//!
//! ## Reproduce commands
//! For the recognised producers only: `python -m pytest <node id>`, `cargo nextest run -p
//! <crate> -E 'binary_id(<binary>) & test(=<test>)'`, `npx jest [<file>] -t '^<name>$'`,
//! `mvn test -Dtest=<Class>#<method>`, `vendor/bin/phpunit --filter '<Class::method>$' [<file>]`,
//! `npx mocha [<file>] --grep <title>`, `python -m unittest <id>`.
//!
//! Confidence is `high`: the report is the framework's own structured record.

use std::fmt;
use std::io::BufRead;
use std::sync::LazyLock;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use regex::Regex;

use crate::parsers::{MAX_FAILURES, bounded_str, relative_path};
use crate::{Confidence, Failure, FlakyTest, Framework};

/// Failure text kept per testcase while reading, in bytes.
const MAX_TEXT: usize = 32 * 1024;
const MAX_MESSAGE: usize = 2000;
const MAX_TRACE: usize = 4000;
/// Longest attribute value kept (names, classnames, files).
const MAX_ATTR: usize = 4096;

/// Why a document is not a JUnit report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JunitError {
    pub kind: JunitErrorKind,
    /// Byte offset in the document where the problem was found.
    pub position: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JunitErrorKind {
    /// Not well-formed XML (the parser's message).
    NotXml(String),
    /// Well-formed XML, but its root is not `<testsuites>` or `<testsuite>` (the root's name,
    /// empty when the document has no element).
    NotJunit(String),
    /// Reading the input failed.
    Read(String),
}

impl fmt::Display for JunitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            JunitErrorKind::NotXml(m) => write!(f, "not XML (at byte {}): {m}", self.position),
            JunitErrorKind::NotJunit(root) if root.is_empty() => write!(
                f,
                "not a JUnit report (at byte {}): the document has no root element",
                self.position
            ),
            JunitErrorKind::NotJunit(root) => write!(
                f,
                "not a JUnit report (at byte {}): the root element is <{root}>, not <testsuites> or <testsuite>",
                self.position
            ),
            JunitErrorKind::Read(m) => {
                write!(
                    f,
                    "could not read the report (at byte {}): {m}",
                    self.position
                )
            }
        }
    }
}

impl std::error::Error for JunitError {}

/// Whether the start of an input is a JUnit XML report rather than a log: after an optional
/// byte-order mark, whitespace, the XML declaration and comments, the first element is
/// `<testsuites` or `<testsuite`.
pub fn looks_like_junit(head: &[u8]) -> bool {
    let mut rest = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    loop {
        rest = rest.trim_ascii_start();
        if rest.starts_with(b"<?") {
            match memchr::memmem::find(rest, b"?>") {
                Some(end) => rest = &rest[end + 2..],
                None => return false,
            }
        } else if rest.starts_with(b"<!--") {
            match memchr::memmem::find(rest, b"-->") {
                Some(end) => rest = &rest[end + 3..],
                None => return false,
            }
        } else {
            return rest.starts_with(b"<testsuites") || rest.starts_with(b"<testsuite");
        }
    }
}

/// Suite names kept per report, for telling which job wrote it.
const MAX_SUITES: usize = 64;
const MAX_SUITE_NAME: usize = 200;

/// A report with what it says about where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JunitReport {
    /// The tool that wrote it, when the report says (`pytest`, `cargo-nextest`, `jest`,
    /// `maven-surefire`, `phpunit`, `mocha`, `unittest` for unittest-xml-reporting).
    pub tool: Option<&'static str>,
    /// The `name`s of its `<testsuites>` and `<testsuite>` elements, distinct, in document
    /// order (at most 64, each cut to 200 bytes): `Mocha Tests`, `alpha`,
    /// `tests.test_cart.CartTest-20240501100001`.
    pub suites: Vec<String>,
    /// The failing tests, in document order.
    pub failures: Vec<Failure>,
    /// Tests whose failed tries the report records (`<flakyFailure>`, `<rerunFailure>`, …)
    /// but that have no `<failure>` or `<error>`: they passed on a retry.
    pub flaky: Vec<FlakyTest>,
}

/// The failing tests a JUnit XML report lists, in document order.
pub fn parse_junit(xml: &[u8]) -> Result<Vec<Failure>, JunitError> {
    parse_junit_report(xml).map(|r| r.failures)
}

/// [`parse_junit`], with the report's tool and suite names.
pub fn parse_junit_report(xml: &[u8]) -> Result<JunitReport, JunitError> {
    // Events borrow from `xml`: nothing is copied but what is reported.
    let mut reader = Reader::from_reader(xml);
    let mut state = State::default();
    loop {
        let event = reader.read_event().map_err(|e| read_error(&reader, e))?;
        if state.event(event, reader.buffer_position())? {
            break;
        }
    }
    state.report(reader.buffer_position())
}

/// [`parse_junit`] over a reader, for a report too large to hold: it is read in pieces and
/// never held whole (one element or text node at a time is buffered).
pub fn read_junit<R: BufRead>(reader: R) -> Result<Vec<Failure>, JunitError> {
    let mut reader = Reader::from_reader(reader);
    let mut buf = Vec::new();
    let mut state = State::default();
    loop {
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| read_error(&reader, e))?;
        if state.event(event, reader.buffer_position())? {
            break;
        }
        buf.clear();
    }
    state.report(reader.buffer_position()).map(|r| r.failures)
}

fn read_error<R>(reader: &Reader<R>, e: quick_xml::Error) -> JunitError {
    match e {
        quick_xml::Error::Io(e) => JunitError {
            kind: JunitErrorKind::Read(e.to_string()),
            position: reader.buffer_position(),
        },
        e => JunitError {
            kind: JunitErrorKind::NotXml(e.to_string()),
            position: reader.error_position(),
        },
    }
}

fn not_xml_or(position: u64) -> impl Fn(StartError) -> JunitError {
    move |e| JunitError {
        kind: match e {
            StartError::Attr(m) => JunitErrorKind::NotXml(m),
            StartError::Root(r) => JunitErrorKind::NotJunit(r),
        },
        position,
    }
}

enum StartError {
    Attr(String),
    Root(String),
}

/// The tool that wrote the report, as far as the report says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Producer {
    Unknown,
    Pytest,
    Nextest,
    JestJunit,
    Surefire,
    Phpunit,
    /// mocha-junit-reporter: `<testsuites name="Mocha Tests">`, or told by a testcase.
    Mocha,
    /// unittest-xml-reporting (xmlrunner), told by its testcases.
    Xmlrunner,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elem {
    Suite,
    Case,
    /// `<failure>` or `<error>` of the current testcase.
    Problem,
    Other,
}

#[derive(Default)]
struct Case {
    classname: String,
    name: String,
    file: Option<String>,
    line: Option<u64>,
    class: Option<String>,
    phpunit: bool,
    /// The `file` of the innermost enclosing `<testsuite>` that has one.
    suite_file: Option<String>,
    /// Written by unittest-xml-reporting: a `timestamp` on the testcase and a Python file.
    xmlrunner: bool,
    /// The first `<failure>`/`<error>`: (element name, message, type).
    problem: Option<(String, Option<String>, Option<String>)>,
    /// Failed tries recorded as `<flakyFailure>`, `<flakyError>`, `<rerunFailure>` or
    /// `<rerunError>`.
    retries: u32,
    text: String,
}

#[derive(Default)]
struct State {
    seen_root: bool,
    producer: Option<Producer>,
    suites: Vec<String>,
    /// A testcase had PHPUnit's attributes.
    phpunit_cases: bool,
    /// A testcase had unittest-xml-reporting's.
    xmlrunner_cases: bool,
    stack: Vec<Elem>,
    /// The `file` attribute of each open `<testsuite>`.
    suite_files: Vec<Option<String>>,
    case: Option<Case>,
    failures: Vec<(String, Failure)>,
    flaky: Vec<FlakyTest>,
}

impl State {
    /// Handles one event read at `position`; true at the end of the document.
    fn event(&mut self, event: Event<'_>, position: u64) -> Result<bool, JunitError> {
        let not_xml = |m: String| JunitError {
            kind: JunitErrorKind::NotXml(m),
            position,
        };
        match event {
            Event::Start(e) => self.start(&e).map_err(not_xml_or(position))?,
            Event::Empty(e) => {
                self.start(&e).map_err(not_xml_or(position))?;
                self.end();
            }
            Event::End(_) => self.end(),
            Event::Text(t) => {
                let text = t.xml_content(XmlVersion::Implicit1_0);
                if !self.seen_root && !text.trim().is_empty() {
                    return Err(not_xml("text before the root element".to_owned()));
                }
                self.text(&text);
            }
            Event::CData(t) => self.text(&t.xml_content(XmlVersion::Implicit1_0)),
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    Ok(None) => quick_xml::escape::resolve_predefined_entity(&r).map(str::to_owned),
                    Err(e) => return Err(not_xml(e.to_string())),
                };
                match resolved {
                    Some(s) => self.text(&s),
                    None => return Err(not_xml(format!("unknown entity &{};", &*r))),
                }
            }
            Event::Eof => return Ok(true),
            _ => {}
        }
        Ok(false)
    }

    fn report(self, position: u64) -> Result<JunitReport, JunitError> {
        if !self.stack.is_empty() {
            // Cut off mid-write (a job killed while writing its report).
            return Err(JunitError {
                kind: JunitErrorKind::NotXml(format!(
                    "the document ends inside {} unclosed element(s)",
                    self.stack.len()
                )),
                position,
            });
        }
        if !self.seen_root {
            return Err(JunitError {
                kind: JunitErrorKind::NotJunit(String::new()),
                position,
            });
        }
        let tool = match self.producer {
            Some(Producer::Pytest) => Some("pytest"),
            Some(Producer::Nextest) => Some("cargo-nextest"),
            Some(Producer::JestJunit) => Some("jest"),
            Some(Producer::Surefire) => Some("maven-surefire"),
            Some(Producer::Phpunit) => Some("phpunit"),
            Some(Producer::Mocha) => Some("mocha"),
            Some(Producer::Xmlrunner) => Some("unittest"),
            // PHPUnit and unittest-xml-reporting are told by their testcases, not the root.
            Some(Producer::Unknown) | None if self.phpunit_cases => Some("phpunit"),
            Some(Producer::Unknown) | None => self.xmlrunner_cases.then_some("unittest"),
        };
        Ok(JunitReport {
            tool,
            suites: self.suites,
            failures: self.failures.into_iter().map(|(_, f)| f).collect(),
            flaky: self.flaky,
        })
    }

    fn start(&mut self, e: &BytesStart<'_>) -> Result<(), StartError> {
        let name = e.local_name();
        let name: String = name.as_ref().to_owned();
        let attrs = attributes(e)?;
        let attr = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        if !self.seen_root {
            self.seen_root = true;
            if name != "testsuites" && name != "testsuite" {
                return Err(StartError::Root(name));
            }
            self.producer = Some(match (name.as_str(), attr("name")) {
                (_, Some("pytest tests")) | ("testsuite", Some("pytest")) => Producer::Pytest,
                (_, Some("nextest-run")) => Producer::Nextest,
                (_, Some("jest tests")) => Producer::JestJunit,
                ("testsuites", Some("Mocha Tests")) => Producer::Mocha,
                _ if attrs
                    .iter()
                    .any(|(n, v)| n.ends_with("SchemaLocation") && v.contains("surefire")) =>
                {
                    Producer::Surefire
                }
                _ => Producer::Unknown,
            });
        } else if name == "testsuite"
            && attr("name") == Some("pytest")
            && self.producer == Some(Producer::Unknown)
        {
            self.producer = Some(Producer::Pytest);
        }
        if (name == "testsuites" || name == "testsuite")
            && let Some(suite) = attr("name").map(str::trim).filter(|n| !n.is_empty())
            && self.suites.len() < MAX_SUITES
            && !self.suites.iter().any(|s| s == suite)
        {
            self.suites.push(bounded_str(suite, MAX_SUITE_NAME));
        }
        let in_case = self.stack.last() == Some(&Elem::Case);
        let file = attr("file").filter(|f| !f.is_empty()).map(str::to_owned);
        let elem = match name.as_str() {
            "testsuites" | "testsuite" => {
                self.suite_files.push(file);
                Elem::Suite
            }
            "testcase" => {
                let suite_file = self.suite_files.iter().rev().flatten().next().cloned();
                let python = |f: &Option<String>| f.as_deref().is_some_and(|f| f.ends_with(".py"));
                self.case = Some(Case {
                    classname: attr("classname").unwrap_or_default().to_owned(),
                    name: attr("name").unwrap_or_default().to_owned(),
                    xmlrunner: attr("timestamp").is_some()
                        && (python(&file) || python(&suite_file)),
                    file,
                    line: attr("line").and_then(|l| l.trim().parse().ok()),
                    class: attr("class").map(str::to_owned),
                    phpunit: attr("class").is_some() && attr("assertions").is_some(),
                    suite_file,
                    ..Case::default()
                });
                Elem::Case
            }
            "failure" | "error" if in_case => {
                let case = self.case.as_mut().expect("inside a testcase");
                if case.problem.is_none() {
                    case.problem = Some((
                        name.clone(),
                        attr("message").map(str::to_owned),
                        attr("type").map(str::to_owned),
                    ));
                    Elem::Problem
                } else {
                    Elem::Other
                }
            }
            "flakyFailure" | "flakyError" | "rerunFailure" | "rerunError" if in_case => {
                if let Some(case) = self.case.as_mut() {
                    case.retries += 1;
                }
                Elem::Other
            }
            _ => Elem::Other,
        };
        self.stack.push(elem);
        Ok(())
    }

    fn end(&mut self) {
        if self.stack.last() == Some(&Elem::Case) && self.case.as_ref().is_some_and(|c| c.phpunit) {
            self.phpunit_cases = true;
        }
        if self.stack.last() == Some(&Elem::Case) && self.case.as_ref().is_some_and(|c| c.xmlrunner)
        {
            self.xmlrunner_cases = true;
        }
        let popped = self.stack.pop();
        if popped == Some(Elem::Suite) {
            self.suite_files.pop();
        }
        if popped == Some(Elem::Case)
            && let Some(case) = self.case.take()
        {
            let producer = match self.producer {
                Some(Producer::Unknown) | None if case.phpunit => Producer::Phpunit,
                Some(Producer::Unknown) | None if case.xmlrunner => Producer::Xmlrunner,
                Some(Producer::Unknown) | None if mocha_names(&case).is_some() => Producer::Mocha,
                Some(p) => p,
                None => Producer::Unknown,
            };
            if case.problem.is_none() {
                if case.retries > 0 && self.flaky.len() < MAX_FAILURES {
                    let (test_name, file) = name_and_file(producer, &case);
                    if !self.flaky.iter().any(|f| f.test_name == test_name) {
                        self.flaky.push(FlakyTest {
                            test_name,
                            framework: Framework::Junit,
                            file_path: file.or(case.file.clone()).map(|f| relative_path(&f)),
                            line_number: case.line,
                            failed_attempts: Some(case.retries),
                            attempts: Some(case.retries + 1),
                            error_message: None,
                        });
                    }
                }
                return;
            }
            if self.failures.len() >= MAX_FAILURES {
                return;
            }
            let failure = failure(producer, case);
            if !self.failures.iter().any(|(n, _)| *n == failure.test_name) {
                self.failures.push((failure.test_name.clone(), failure));
            }
        }
    }

    fn text(&mut self, text: &str) {
        if self.stack.last() != Some(&Elem::Problem) {
            return;
        }
        let Some(case) = self.case.as_mut() else {
            return;
        };
        let room = MAX_TEXT.saturating_sub(case.text.len());
        if room > 0 {
            let mut end = text.len().min(room);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            case.text.push_str(&text[..end]);
        }
    }
}

fn attributes(e: &BytesStart<'_>) -> Result<Vec<(String, String)>, StartError> {
    let mut out = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|e| StartError::Attr(e.to_string()))?;
        let key: String = a.key.local_name().as_ref().to_owned();
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| StartError::Attr(e.to_string()))?;
        out.push((key, bounded_str(&value, MAX_ATTR)));
    }
    Ok(out)
}

fn failure(producer: Producer, case: Case) -> Failure {
    let (_, message, kind) = case.problem.clone().unwrap_or_default();
    let text = case.text.trim_matches('\n');
    let (test_name, known_file) = name_and_file(producer, &case);
    let frames = frames(&format!(
        "{}\n{text}",
        message.as_deref().unwrap_or_default()
    ));
    let (file_path, line_number) = location(producer, &case, known_file, &frames);
    let panic = (producer == Producer::Nextest)
        .then(|| panic_message(text))
        .flatten();
    let error_message = match (panic, message.as_deref().map(str::trim)) {
        (Some(p), _) => p,
        (None, Some(m)) if !m.is_empty() => m.to_owned(),
        _ => message_from_text(producer, text),
    };
    let error_type = kind
        .filter(|k| !k.is_empty() && !k.contains(' '))
        .map(|k| short_type(&k))
        .or_else(|| {
            // pytest ends its traceback with `path:line: ExceptionType`.
            let last = text.lines().next_back()?;
            let t = last.rsplit_once(": ")?.1.trim();
            (producer == Producer::Pytest && !t.is_empty() && !t.contains(' '))
                .then(|| short_type(t))
        })
        .or_else(|| {
            text.contains(" panicked at ")
                .then(|| "panicked".to_owned())
        })
        .or_else(|| type_in(&error_message))
        .or_else(|| type_in(text));
    let reproduce_command = reproduce(producer, &case, &test_name, file_path.as_deref());
    Failure {
        test_name,
        file_path,
        line_number,
        error_type,
        error_message: bounded_str(&error_message, MAX_MESSAGE),
        stack_trace: (!text.trim().is_empty()).then(|| bounded_str(text, MAX_TRACE)),
        confidence: Confidence::High,
        framework: Framework::Junit,
        reproduce_command,
    }
}

/// The test's name as its producer writes it, and the file that name implies.
fn name_and_file(producer: Producer, case: &Case) -> (String, Option<String>) {
    let classname = case.classname.trim();
    let name = case.name.trim();
    match producer {
        Producer::Pytest => {
            let (file, classes) = pytest_file_and_classes(classname, case.file.as_deref());
            let file = match file {
                Some(f) => f,
                // A collection error: the name is the module.
                None if name.ends_with(".py") => return (name.to_owned(), Some(name.to_owned())),
                None => {
                    let f = format!("{}.py", name.replace('.', "/"));
                    return (f.clone(), Some(f));
                }
            };
            let mut parts = vec![file.clone()];
            parts.extend(classes);
            parts.push(name.to_owned());
            (parts.join("::"), Some(file))
        }
        Producer::Nextest if !classname.is_empty() => (format!("{classname}::{name}"), None),
        Producer::JestJunit => {
            if classname.is_empty() || name.starts_with(classname) {
                (name.to_owned(), None)
            } else {
                (format!("{classname} {name}"), None)
            }
        }
        Producer::Phpunit => {
            let class = case.class.as_deref().unwrap_or(classname).trim();
            let class = class.trim_start_matches('\\');
            (format!("{class}::{name}"), None)
        }
        Producer::Mocha => {
            let full = mocha_names(case)
                .or_else(|| (name == classname).then(|| name.to_owned()))
                .unwrap_or_else(|| dotted(classname, name));
            let file = case.file.as_deref().or(case.suite_file.as_deref());
            (full, file.map(relative_path))
        }
        Producer::Xmlrunner => (xmlrunner_id(classname, name), None),
        _ => (dotted(classname, name), None),
    }
}

/// mocha-junit-reporter's full title (describe titles and the test title joined with
/// spaces): by default the `name`, with the test's own title as `classname`; switched
/// (`testCaseSwitchClassnameAndName`) the other way round.
fn mocha_names(case: &Case) -> Option<String> {
    let (classname, name) = (case.classname.trim(), case.name.trim());
    if classname.is_empty() || name.is_empty() {
        return None;
    }
    let ends = |full: &str, title: &str| {
        full.strip_suffix(title)
            .is_some_and(|head| head.ends_with(' '))
    };
    if ends(name, classname) {
        Some(name.to_owned())
    } else if ends(classname, name) {
        Some(classname.to_owned())
    } else {
        None
    }
}

/// The test id unittest prints, from unittest-xml-reporting's split of it: subtest
/// parameters dropped (`pkg.C.test_x (n=1)` is `pkg.C.test_x`), a class or module fixture
/// named by its class or module (`setUpClass (pkg.C)` is `pkg.C`), an import error by its
/// module (`unittest.loader._FailedTest.pkg.test_x` is `pkg.test_x`).
fn xmlrunner_id(classname: &str, name: &str) -> String {
    let full = dotted(classname, name);
    if let Some(module) = full.strip_prefix("unittest.loader._FailedTest.") {
        return module.to_owned();
    }
    let Some((first, rest)) = full.split_once(' ') else {
        return full;
    };
    let fixture = matches!(
        first,
        "setUpClass" | "tearDownClass" | "setUpModule" | "tearDownModule"
    );
    match rest
        .trim_start()
        .strip_prefix('(')
        .and_then(|r| r.split_once(')'))
    {
        Some((inner, _)) if fixture && !inner.is_empty() => inner.to_owned(),
        _ => first.to_owned(),
    }
}

/// unittest's location: the last frame in the test id's module (the longest dotted prefix
/// that names a file among the frames), as unittest's log reader takes it.
fn xmlrunner_location(id: &str, frames: &[(String, u64)]) -> Option<(String, u64)> {
    let parts: Vec<&str> = id.split('.').collect();
    (1..=parts.len()).rev().find_map(|n| {
        let module = format!("{}.py", parts[..n].join("/"));
        let (_, line) = frames.iter().rev().find(|(p, _)| same_file(p, &module))?;
        Some((module, *line))
    })
}

fn dotted(classname: &str, name: &str) -> String {
    if classname.is_empty() || name.starts_with(&format!("{classname}.")) {
        name.to_owned()
    } else {
        format!("{classname}.{name}")
    }
}

/// pytest's file and classes for a testcase: from the `file` attribute when present, else
/// from the classname's lower-case (module) parts.
fn pytest_file_and_classes(classname: &str, file: Option<&str>) -> (Option<String>, Vec<String>) {
    if classname.is_empty() {
        return (None, Vec::new());
    }
    if let Some(file) = file {
        let file = relative_path(file);
        let module = file.trim_end_matches(".py").replace('/', ".");
        if let Some(rest) = classname.strip_prefix(&module)
            && (rest.is_empty() || rest.starts_with('.'))
        {
            let classes = rest
                .split('.')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            return (Some(file), classes);
        }
    }
    let parts: Vec<&str> = classname.split('.').collect();
    let split = parts
        .iter()
        .position(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
        .unwrap_or(parts.len());
    let module = parts[..split].join("/");
    let file = file
        .map(relative_path)
        .unwrap_or_else(|| format!("{module}.py"));
    (
        Some(file),
        parts[split..].iter().map(|s| (*s).to_owned()).collect(),
    )
}

static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?:File "([^"\n]+)", line (\d+))|((?:[A-Za-z]:)?[^\s():'"<>,]*[^\s():'"<>,./]\.[A-Za-z][A-Za-z0-9]{0,5}):(\d+)"#,
    )
    .expect("regex")
});

/// `(path, line)` of every frame the text names: `path.ext:N` (most tools) and Python's
/// `File "path", line N`.
fn frames(text: &str) -> Vec<(String, u64)> {
    FRAME
        .captures_iter(text)
        .filter_map(|c| {
            let (path, line) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
                (Some(p), Some(l), _, _) | (_, _, Some(p), Some(l)) => (p.as_str(), l.as_str()),
                _ => return None,
            };
            if path.starts_with("//") || path.contains("://") {
                return None;
            }
            Some((path.to_owned(), line.parse().ok()?))
        })
        .collect()
}

fn same_file(frame: &str, file: &str) -> bool {
    let f = relative_path(frame);
    f == file || f.ends_with(&format!("/{file}"))
}

fn location(
    producer: Producer,
    case: &Case,
    known_file: Option<String>,
    frames: &[(String, u64)],
) -> (Option<String>, Option<u64>) {
    if producer == Producer::Xmlrunner {
        // The file attribute of a fixture or import error is another test's, or unittest's.
        let id = xmlrunner_id(case.classname.trim(), case.name.trim());
        if let Some((file, line)) = xmlrunner_location(&id, frames) {
            return (Some(file), Some(line));
        }
    }
    let file = known_file.or_else(|| case.file.as_deref().map(relative_path));
    if let Some(file) = file {
        let mut in_file = frames.iter().filter(|(p, _)| same_file(p, &file));
        let line = if producer == Producer::Pytest {
            in_file.next_back()
        } else {
            in_file.next()
        }
        .map(|(_, l)| *l)
        .or(match (producer, case.line) {
            (Producer::Pytest, Some(l)) => Some(l + 1),
            (_, l) => l,
        });
        return (Some(file), line);
    }
    if producer == Producer::Surefire {
        // `at com.acme.CartTest.total(CartTest.java:12)`: Maven's test source layout.
        let class = case.classname.trim();
        let simple = class.rsplit('.').next().unwrap_or(class);
        let simple = simple.split('$').next().unwrap_or(simple);
        let java = format!("{simple}.java");
        if let Some((_, line)) = frames.iter().find(|(p, _)| *p == java) {
            let outer = class.split('$').next().unwrap_or(class);
            return (
                Some(format!("src/test/java/{}.java", outer.replace('.', "/"))),
                Some(*line),
            );
        }
        return (None, None);
    }
    let usable: Vec<(String, u64)> = frames
        .iter()
        .map(|(p, l)| (relative_path(p), *l))
        .filter(|(p, _)| !dependency(p))
        .collect();
    usable
        .iter()
        .find(|(p, _)| looks_like_test(p))
        .or_else(|| usable.first())
        .map_or((None, None), |(p, l)| (Some(p.clone()), Some(*l)))
}

/// Paths of dependencies and toolchains, not the project's code.
fn dependency(path: &str) -> bool {
    path.starts_with('/')
        || path.starts_with("node:")
        || path.starts_with('<')
        || path.contains("node_modules/")
        || path.contains("site-packages/")
        || path.contains("/rustc/")
        || path.contains(".cargo/registry/")
        || path.starts_with("library/")
}

/// Whether a path is where tests live by the usual conventions (`tests/`, `__tests__/`,
/// `*.spec.*`, `test_*.py`, `*_test.go`, …).
pub fn looks_like_test(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.starts_with("tests/")
        || path.starts_with("test/")
        || path.contains("/tests/")
        || path.contains("/test/")
        || path.contains("__tests__/")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name.contains("_test.")
        || name.contains("_spec.")
        || name.starts_with("test_")
        || name.contains("Test.")
}

/// A Rust panic's message: the lines after `panicked at file:line:col:`, up to the backtrace.
fn panic_message(text: &str) -> Option<String> {
    let mut lines = text.lines();
    lines.find(|l| l.contains(" panicked at "))?;
    let message: Vec<&str> = lines
        .take_while(|l| !l.starts_with("stack backtrace:") && !l.starts_with("note: "))
        .take(40)
        .collect();
    let message = message.join("\n").trim().to_owned();
    (!message.is_empty()).then_some(message)
}

/// The failure text up to its first stack frame (a JUnit `<failure>` without a message).
fn message_from_text(producer: Producer, text: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for (i, l) in text.lines().enumerate() {
        // PHPUnit starts the text with the test's id.
        if i == 0 && producer == Producer::Phpunit && l.contains("::") {
            continue;
        }
        let t = l.trim();
        if t.starts_with("at ") || (!t.is_empty() && !t.contains(' ') && !frames(t).is_empty()) {
            break;
        }
        lines.push(l);
        if lines.len() >= 40 {
            break;
        }
    }
    lines.join("\n").trim().to_owned()
}

static TYPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*((?:[A-Za-z_][\w.\\]*)?(?:Error|Exception|Failure|Interrupt|Exit))(?::|\s|$)")
        .expect("regex")
});

fn type_in(text: &str) -> Option<String> {
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    TYPE.captures(first).map(|c| short_type(&c[1]))
}

fn short_type(t: &str) -> String {
    t.rsplit(['.', '\\']).next().unwrap_or(t).to_owned()
}

fn escape_regex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn reproduce(
    producer: Producer,
    case: &Case,
    test_name: &str,
    file: Option<&str>,
) -> Option<String> {
    use crate::reproduce;
    match producer {
        Producer::Pytest => reproduce::pytest(test_name),
        Producer::Nextest => {
            let binary = case.classname.trim();
            let krate = binary.split("::").next().unwrap_or(binary);
            reproduce::nextest(
                krate,
                &format!("binary_id({binary}) & test(={})", case.name.trim()),
            )
        }
        Producer::JestJunit => reproduce::jest(file, &format!("^{}$", escape_regex(test_name))),
        Producer::Surefire => {
            let class = case.classname.trim();
            let simple = class.rsplit('.').next().unwrap_or(class);
            let method = case.name.trim();
            let method = method.split(['(', '[']).next().unwrap_or(method);
            reproduce::surefire(simple, method)
        }
        Producer::Phpunit => {
            let filter = match test_name.split_once(" with data set ") {
                Some((test, set)) => format!("{} with data set {set}", escape_regex(test)),
                None => format!("{}$", escape_regex(test_name)),
            };
            reproduce::phpunit(&filter, file)
        }
        Producer::Mocha => reproduce::mocha(file, &escape_regex(test_name)),
        Producer::Xmlrunner => reproduce::unittest(test_name),
        Producer::Unknown => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_is_told_from_logs() {
        assert!(looks_like_junit(b"<?xml version=\"1.0\"?>\n<testsuites>"));
        assert!(looks_like_junit(b"\xEF\xBB\xBF  <testsuite name=\"x\">"));
        assert!(looks_like_junit(
            b"<?xml version=\"1.0\"?><!-- by jest --><testsuites>"
        ));
        assert!(!looks_like_junit(b"<?xml version=\"1.0\"?><html>"));
        assert!(!looks_like_junit(
            b"2024-05-01T10:00:00.0000000Z <testsuite> printed"
        ));
        assert!(!looks_like_junit(
            b"============================= test session starts"
        ));
    }

    fn one(xml: &str) -> Failure {
        let got = parse_junit(xml.as_bytes()).expect("parses");
        assert_eq!(got.len(), 1, "{got:#?}");
        got.into_iter().next().unwrap()
    }

    #[test]
    fn skipped_and_flaky_are_not_failures() {
        let xml = r#"<?xml version="1.0"?>
<testsuites name="nextest-run"><testsuite name="ledger">
  <testcase name="tests::skipped" classname="ledger"><skipped/></testcase>
  <testcase name="tests::flaky" classname="ledger">
    <flakyFailure message="panicked at src/lib.rs:4:9" type="test failure">first try
      <system-out>noise</system-out></flakyFailure>
  </testcase>
  <testcase name="tests::rerun" classname="ledger">
    <rerunFailure message="x">try 2</rerunFailure>
  </testcase>
  <testcase name="tests::passes" classname="ledger"/>
  <testcase name="tests::fails" classname="ledger">
    <failure message="thread 'tests::fails' panicked at src/lib.rs:22:9" type="test failure with exit code 101">thread 'tests::fails' panicked at src/lib.rs:22:9:
assertion failed</failure>
    <rerunFailure message="again">panicked at src/lib.rs:99:1</rerunFailure>
  </testcase>
</testsuite></testsuites>"#;
        let f = one(xml);
        assert_eq!(f.test_name, "ledger::tests::fails");
        assert_eq!(f.file_path.as_deref(), Some("src/lib.rs"));
        assert_eq!(f.line_number, Some(22));
        assert_eq!(f.error_message, "assertion failed");
        assert_eq!(f.error_type.as_deref(), Some("panicked"));
        assert_eq!(f.framework, Framework::Junit);
        assert_eq!(f.confidence, Confidence::High);
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("cargo nextest run -p ledger -E 'binary_id(ledger) & test(=tests::fails)'")
        );
        // Those whose failed tries are recorded without a failure passed on a retry; one
        // that failed every try is a failure, not flaky.
        let report = parse_junit_report(xml.as_bytes()).expect("report");
        let flaky: Vec<(&str, Option<u32>, Option<u32>)> = report
            .flaky
            .iter()
            .map(|f| (f.test_name.as_str(), f.failed_attempts, f.attempts))
            .collect();
        assert_eq!(
            flaky,
            [
                ("ledger::tests::flaky", Some(1), Some(2)),
                ("ledger::tests::rerun", Some(1), Some(2)),
            ]
        );
    }

    #[test]
    fn malformed_and_foreign_documents_are_errors_with_positions() {
        let e = parse_junit(b"<testsuites><testcase name='a'></testsuite>").unwrap_err();
        assert!(matches!(e.kind, JunitErrorKind::NotXml(_)), "{e}");
        assert!(e.position > 0, "{e}");
        let e = parse_junit(b"<?xml version='1.0'?>\n<html><body/></html>").unwrap_err();
        assert_eq!(e.kind, JunitErrorKind::NotJunit("html".to_owned()));
        assert!(e.to_string().contains("<html>"), "{e}");
        let e = parse_junit(b"plain text, not xml").unwrap_err();
        assert!(matches!(e.kind, JunitErrorKind::NotXml(_)), "{e}");
        // A report cut off mid-write (a job killed while writing it).
        let e =
            parse_junit(b"<testsuites><testsuite><testcase name='a'><failure>boom").unwrap_err();
        assert!(matches!(e.kind, JunitErrorKind::NotXml(_)), "{e}");
        let e = parse_junit(b"   ").unwrap_err();
        assert_eq!(e.kind, JunitErrorKind::NotJunit(String::new()));
        assert!(parse_junit(b"<testsuites/>").unwrap().is_empty());
    }

    #[test]
    fn pytest_names_from_classname_and_lines_from_the_traceback() {
        // xunit2: no file attribute; `line` would be 0-based.
        let xml = r#"<testsuites name="pytest tests"><testsuite name="pytest">
<testcase classname="tests.test_cart.TestCart" name="test_total[a-1]" time="0.1"><failure message="assert 3 == 4">self = &lt;x&gt;
&gt;       assert total([1, 2]) == 4
tests/test_cart.py:8:
_ _ _
cart.py:3: in total
tests/test_cart.py:9: AssertionError</failure></testcase>
<testcase classname="tests.test_cart" name="test_setup" time="0.1"><error message="failed on setup">E RuntimeError
tests/conftest.py:4: RuntimeError</error></testcase>
<testcase classname="tests.test_cart" name="test_setup" time="0.1"><error message="failed on teardown">again</error></testcase>
<testcase classname="" name="tests.test_broken" time="0"><error message="collection failure">ImportError</error></testcase>
</testsuite></testsuites>"#;
        let got = parse_junit(xml.as_bytes()).unwrap();
        let names: Vec<&str> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "tests/test_cart.py::TestCart::test_total[a-1]",
                "tests/test_cart.py::test_setup",
                "tests/test_broken.py"
            ]
        );
        assert_eq!(got[0].file_path.as_deref(), Some("tests/test_cart.py"));
        assert_eq!(got[0].line_number, Some(9));
        assert_eq!(got[0].error_message, "assert 3 == 4");
        assert_eq!(got[0].error_type.as_deref(), Some("AssertionError"));
        assert_eq!(
            got[0].reproduce_command.as_deref(),
            Some("python -m pytest 'tests/test_cart.py::TestCart::test_total[a-1]'")
        );
        assert_eq!(got[1].file_path.as_deref(), Some("tests/test_cart.py"));
        assert_eq!(got[1].line_number, None);
    }

    #[test]
    fn pytest_xunit1_line_attribute_is_zero_based() {
        let f = one(
            r#"<testsuites name="pytest tests"><testsuite name="pytest"><testcase classname="tests.test_a" name="test_x" file="tests/test_a.py" line="6"><failure message="boom">no frames here</failure></testcase></testsuite></testsuites>"#,
        );
        assert_eq!(f.test_name, "tests/test_a.py::test_x");
        assert_eq!(f.line_number, Some(7));
    }

    #[test]
    fn entities_cdata_and_unicode_in_messages() {
        let f = one(
            r#"<testsuite name="s"><testcase classname="pkg.T" name="t"><failure message="a &amp; b&#10;&lt;c&gt; é" type="java.lang.AssertionError"><![CDATA[raw <text> & more]]> &#x41;</failure></testcase></testsuite>"#,
        );
        assert_eq!(f.test_name, "pkg.T.t");
        assert_eq!(f.error_message, "a & b\n<c> é");
        assert_eq!(f.error_type.as_deref(), Some("AssertionError"));
        assert_eq!(f.stack_trace.as_deref(), Some("raw <text> & more A"));
        assert_eq!(f.reproduce_command, None);
    }

    #[test]
    fn surefire_phpunit_and_jest_junit_names() {
        let f = one(
            r#"<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report.xsd" name="com.acme.CartTest"><testcase name="total" classname="com.acme.CartTest"><failure message="expected: &lt;4&gt; but was: &lt;3&gt;" type="org.opentest4j.AssertionFailedError">org.opentest4j.AssertionFailedError: expected
	at com.acme.CartTest.total(CartTest.java:12)</failure></testcase></testsuite>"#,
        );
        assert_eq!(f.test_name, "com.acme.CartTest.total");
        assert_eq!(
            f.file_path.as_deref(),
            Some("src/test/java/com/acme/CartTest.java")
        );
        assert_eq!(f.line_number, Some(12));
        assert_eq!(
            f.reproduce_command.as_deref(),
            Some("mvn test '-Dtest=CartTest#total'")
        );

        let f = one(
            r#"<testsuites><testsuite name="CalcTest" file="/home/runner/work/c/c/tests/CalcTest.php"><testcase name="testPairs with data set #1" class="App\CalcTest" classname="App.CalcTest" file="/home/runner/work/c/c/tests/CalcTest.php" line="27" assertions="1"><failure type="PHPUnit\Framework\ExpectationFailedException">App\CalcTest::testPairs with data set #1 (2, 2, 5)
Failed asserting that 4 is identical to 5.

/home/runner/work/c/c/tests/CalcTest.php:29</failure></testcase></testsuite></testsuites>"#,
        );
        assert_eq!(f.test_name, "App\\CalcTest::testPairs with data set #1");
        assert_eq!(f.file_path.as_deref(), Some("tests/CalcTest.php"));
        assert_eq!(f.line_number, Some(29));
        assert_eq!(
            f.error_message,
            "Failed asserting that 4 is identical to 5."
        );
        assert_eq!(f.error_type.as_deref(), Some("ExpectationFailedException"));

        let f = one(
            r#"<testsuites name="jest tests"><testsuite name="parsePrice"><testcase classname="parsePrice bad input throws" name="parsePrice bad input throws" time="0"><failure>TypeError: not a price: abc
    at parsePrice (/home/runner/work/s/s/src/price.js:4:11)
    at Object.parsePrice (/home/runner/work/s/s/__tests__/price.test.js:15:14)
    at Promise.then.completed (/home/runner/work/s/s/node_modules/jest-circus/build/utils.js:298:28)</failure></testcase></testsuite></testsuites>"#,
        );
        assert_eq!(f.test_name, "parsePrice bad input throws");
        assert_eq!(f.file_path.as_deref(), Some("__tests__/price.test.js"));
        assert_eq!(f.line_number, Some(15));
        assert_eq!(f.error_type.as_deref(), Some("TypeError"));
        assert_eq!(f.error_message, "TypeError: not a price: abc");
    }

    #[test]
    fn memory_is_bounded() {
        let mut xml = String::from("<testsuite>");
        let long = "x".repeat(100_000);
        for i in 0..(MAX_FAILURES + 10) {
            xml.push_str(&format!(
                "<testcase classname='c' name='t{i}'><failure message='m'>{}</failure></testcase>",
                if i == 0 { long.as_str() } else { "" }
            ));
        }
        xml.push_str("</testsuite>");
        let got = parse_junit(xml.as_bytes()).unwrap();
        assert_eq!(got.len(), MAX_FAILURES);
        let read = read_junit(std::io::BufReader::with_capacity(7, xml.as_bytes())).unwrap();
        assert_eq!(read, got);
        assert!(got[0].stack_trace.as_ref().unwrap().len() <= MAX_TRACE + 3);
    }
}

#[cfg(test)]
mod report_tests {
    use super::*;

    /// What a report says about its origin: the tool and the suites.
    #[test]
    fn reports_name_their_tool_and_suites() {
        let nextest = parse_junit_report(
            br#"<testsuites name="nextest-run"><testsuite name="alpha"><testcase name="t" classname="alpha"><failure message="x"/></testcase></testsuite><testsuite name="alpha"/></testsuites>"#,
        )
        .unwrap();
        assert_eq!(nextest.tool, Some("cargo-nextest"));
        assert_eq!(nextest.suites, ["nextest-run", "alpha"]);
        assert_eq!(nextest.failures.len(), 1);
        let mocha = parse_junit_report(
            br#"<testsuites name="Mocha Tests"><testsuite name="cart" file="test/cart.spec.js"/></testsuites>"#,
        )
        .unwrap();
        assert_eq!(mocha.tool, Some("mocha"));
        assert_eq!(mocha.suites, ["Mocha Tests", "cart"]);
        let php = parse_junit_report(
            br#"<testsuites><testsuite name=""><testcase name="testA" class="CalcTest" classname="CalcTest" assertions="1"/></testsuite></testsuites>"#,
        )
        .unwrap();
        assert_eq!(php.tool, Some("phpunit"));
        assert!(php.suites.is_empty());
    }
}
