//! Go's `go test`, plain (`-v` or not) and `-json` (test2json events, one object per line).
//!
//! Plain output of a failing package: `--- FAIL: TestX (0.00s)` headers, subtests indented
//! four spaces per level under their parent (`    --- FAIL: TestX/sub_case (0.00s)`), the
//! test's messages (`t.Error`, `t.Fatal`, `t.Log`) as `    x_test.go:12: message` four
//! spaces deeper than its header, with continuation lines deeper still; then `FAIL` and
//! `FAIL\t<import path>\t0.01s`. With `-v` the messages stream before the headers, after the
//! `=== RUN   TestX/sub` (`=== CONT`, `=== NAME`) line of the test that printed them. A panic
//! prints `--- FAIL: TestX` then `panic: ...` and the goroutine trace. A package whose tests
//! do not compile prints the compiler's `dir/x_test.go:6:2: msg` lines (after `# <pkg>`)
//! and, possibly much later, `FAIL\t<pkg> [build failed]` (`[setup failed]` for import
//! errors). With `-json` every printed line is the `Output` of an `"Action":"output"` event
//! that names its `Package` and `Test`; those lines are read like plain ones, per package.
//! Output a test printed without ending its line shares the line with what follows:
//! `asking...    x_test.go:12: msg` (-v), `asking...--- FAIL: TestX (0.00s)`; both are read
//! from where go's part starts. A package that ends `ok  \t<pkg>` failed nothing (a
//! `panic:` line its passing tests printed is not a panic).
//!
//! gotestsum: whatever its format, the `=== Failed` summary lists every failed test as
//! `=== FAIL: <package relative to the module> <test> [(re-run N) ](0.00s)` with the test's
//! own output, up to `DONE`; when it is there it is what is read (its echo of the tests'
//! output in `testname`/`standard-verbose` is not), the directory of a message's file is that
//! relative package. Build failures come as `WARN invalid TestEvent: FAIL\t<pkg> [build
//! failed]` (and again after `bad output from test2json: `), before the compiler errors that
//! locate them; with Go 1.24+ (build errors as JSON events) the `FAIL\t<pkg> [build failed]`
//! line streams, the summary lists the package as `=== FAIL: <pkg>  (0.00s)` (no test) with
//! that line again, and the compiler errors come only under `=== Errors`: one failure per
//! package, located by them. With `--hide-summary=output` the summary names tests without
//! their output: the streamed `-v` output of the same test locates it. With `--rerun-fails`, `DONE N runs` says how many runs there were: a test
//! whose last failing run is not the last run passed on its re-run and is flaky.
//!
//! Reported: each failing test as go names it (`TestX`, `TestX/sub_case`), except a test one
//! of whose subtests failed and that printed no message of its own (the subtest says more);
//! a package that failed to build or set up, or failed with no failing test (a panic in
//! `init`, `TestMain` exiting), named by its import path.
//!
//! Location: the test's first message line in a `_test.go` file, else the innermost
//! `_test.go` frame of its panic trace. Go prints only the file's base name in messages; the
//! directory is the package's import path minus the module path, learnt from the log (a
//! panic frame under a runner checkout beside its function's import path, a compiler error
//! beside its `[build failed]` package) or, for `github.com/`, `gitlab.com/` and
//! `bitbucket.org/` paths, the first three segments (the repository). When neither works
//! the base name is kept. Confidence: `high` with a located repository-relative path,
//! `medium` otherwise (base name only, no location, or a package-level failure).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;

use super::{LineParser, MAX_FAILURES, bounded_str, relative_path};
use crate::{Confidence, Failure, FlakyTest, Framework};

pub const TRIGGERS: &[&str] = &[
    // `=== RUN`, `=== CONT`, `=== NAME`, gotestsum's `=== FAIL: <pkg> <test>`.
    "===",
    "--- FAIL",
    ".go:",
    "panic:",
    "FAIL\t",
    "\"Output\":\"FAIL",
];

const MAX_MESSAGE: usize = 2000;
const MAX_TRACE: usize = 4000;
const MAX_NOTES: usize = 256;
const MAX_DIAGS: usize = 64;
const MAX_PACKAGES: usize = 1024;
const MAX_EVIDENCE: usize = 64;

pub fn new() -> Box<dyn LineParser> {
    Box::<GoTest>::default()
}

#[derive(Default)]
pub struct GoTest {
    /// Plain output: one package at a time, named by its closing `FAIL\t<pkg>` line.
    plain: Pkg,
    /// `-json` output: per `Package`.
    json: HashMap<String, Pkg>,
    /// Closed failures, with the package they belong to.
    done: Vec<Rec>,
    /// Compiler errors (`dir/x.go:L:C: msg`) not yet matched to a `[build failed]` package.
    diags: Vec<Diag>,
    /// Module paths learnt from the log (import path minus the repository directory).
    modules: Vec<String>,
    /// gotestsum's `=== Failed` summary: inside it (until `DONE`), the open block.
    summary: Option<Option<SumRec>>,
    /// Summary blocks, one per (package, test), merged over re-runs.
    sum_recs: Vec<SumRec>,
    /// `DONE 3 runs, ...`: how many runs gotestsum made (1 without re-runs).
    runs: u32,
    busy: bool,
}

/// A gotestsum summary block `=== FAIL: <pkg> <test> [(re-run N) ](0.00s)` and its output.
#[derive(Default)]
struct SumRec {
    offset: u64,
    /// The package as gotestsum shows it: relative to the module root.
    package: String,
    name: String,
    /// The last run it failed in (0: the first run).
    last_run: u32,
    own_message: bool,
    panicked: bool,
    file: Option<String>,
    file_is_path: bool,
    line: Option<u64>,
    message: String,
    trace: String,
    /// For a package-level block, the import path its `FAIL\t<pkg>` line names.
    import_path: Option<String>,
    /// For a package-level block, `build failed` or `setup failed` when its `FAIL\t<pkg>
    /// [build failed]` line says so (Go 1.24+ reports build errors as events).
    build: Option<&'static str>,
}

#[derive(Default)]
struct Pkg {
    /// The test named by the last `=== RUN`/`=== CONT`/`=== NAME` (or JSON `Test`).
    current: String,
    /// Messages printed while a test ran (`-v`), before its `--- FAIL` header.
    notes: Vec<Note>,
    /// Failures of this package seen since its last `FAIL\t<pkg>` line.
    open: Vec<Rec>,
    /// Indices into `open` of the headers of the current `--- FAIL` tree, by indent.
    stack: Vec<usize>,
    in_tree: bool,
    /// Where continuation lines of the last message go, and its indent.
    cont: Option<(Target, usize)>,
    panic: Option<Panic>,
}

#[derive(Clone, Copy)]
enum Target {
    Rec(usize),
    Note(usize),
}

struct Note {
    test: String,
    file: String,
    line: u64,
    text: String,
}

struct Panic {
    /// Index into `open` of the test that panicked; `None` outside a test.
    owner: Option<usize>,
    offset: u64,
    message: String,
    trace: String,
    /// Innermost `_test.go` frame (repository-relative when under a runner checkout).
    frame: Option<(String, u64)>,
    /// Import path of the function named on the line before the next frame.
    func_pkg: Option<String>,
    /// A `goroutine N [running]:` line followed: a real panic's trace.
    goroutine: bool,
}

#[derive(Default)]
struct Rec {
    offset: u64,
    name: String,
    indent: usize,
    package: Option<String>,
    child_failed: bool,
    own_message: bool,
    /// File as printed: a base name (`file_is_path` false) or a repository-relative path.
    file: Option<String>,
    file_is_path: bool,
    line: Option<u64>,
    message: String,
    trace: String,
    error_type: Option<String>,
    /// Named by a package, not a test.
    package_level: bool,
    /// From plain (not `-json`) output, read as gotestsum also echoes it.
    plain: bool,
}

struct Diag {
    path: String,
    line: u64,
    message: String,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "Action", borrow)]
    action: Cow<'a, str>,
    #[serde(rename = "Package", borrow, default)]
    package: Option<Cow<'a, str>>,
    #[serde(rename = "Test", borrow, default)]
    test: Option<Cow<'a, str>>,
    #[serde(rename = "Output", borrow, default)]
    output: Option<Cow<'a, str>>,
}

impl LineParser for GoTest {
    fn line(&mut self, offset: u64, line: &str) {
        if !self.busy && !may_start(line) {
            return;
        }
        if line.starts_with("{\"") && line.contains("\"Action\"") {
            self.json_line(offset, line);
        } else {
            self.output(None, None, offset, line);
        }
        self.busy = self.summary.is_some()
            || self.plain.busy()
            || (!self.json.is_empty() && self.json.values().any(Pkg::busy));
    }

    fn busy(&self) -> bool {
        self.busy
    }

    fn finish(&mut self) -> Vec<(u64, Failure)> {
        let plain = std::mem::take(&mut self.plain);
        self.close(plain, None, true);
        let mut json: Vec<(String, Pkg)> = self.json.drain().collect();
        json.sort_by_key(|(_, p)| p.open.first().map_or(u64::MAX, |r| r.offset));
        for (name, pkg) in json {
            self.close(pkg, Some(name), false);
        }
        if let Some(Some(block)) = self.summary.take() {
            self.end_block(block);
        }
        let mut done = std::mem::take(&mut self.done);
        if !self.sum_recs.is_empty() {
            // gotestsum's summary names every failed test once per run; what it echoed of
            // the tests' output would name them again. A build failure it lists (Go 1.24+)
            // is one already seen when its `FAIL\t<pkg> [build failed]` line streamed.
            self.fill_summary_from(&done);
            done.retain(|r| !r.plain || is_build_failure(r));
            let sums = self.summary_failures();
            for rec in sums {
                if !(is_build_failure(&rec)
                    && done
                        .iter()
                        .any(|d| is_build_failure(d) && d.name == rec.name))
                {
                    done.push(rec);
                }
            }
        }
        // Build failures printed before their compiler errors (gotestsum prints its
        // `FAIL\t<pkg> [build failed]` warning first, Go 1.24+ its `=== Errors` last):
        // located now.
        for rec in &mut done {
            if is_build_failure(rec) && rec.file.is_none() {
                let package = rec.package.clone().unwrap_or_default();
                if let Some((path, line, message)) = self.diag_for(&package) {
                    rec.file = Some(path);
                    rec.file_is_path = true;
                    rec.line = Some(line);
                    rec.message = message;
                }
            }
        }
        // A compiler error without a directory (`./x_test.go`, go test run in the package's
        // directory) belongs to the one build failure still unlocated, if only one is.
        let mut unlocated = done
            .iter_mut()
            .filter(|r| is_build_failure(r) && r.file.is_none());
        if let (Some(rec), None) = (unlocated.next(), unlocated.next())
            && let Some(d) = self.diags.iter().find(|d| !d.path.contains('/'))
        {
            rec.file = Some(d.path.clone());
            rec.line = Some(d.line);
            rec.message = d.message.clone();
        }
        done.into_iter()
            .take(MAX_FAILURES)
            .map(|r| (r.offset, self.failure(r)))
            .collect()
    }

    fn flaky(&mut self) -> Vec<(u64, FlakyTest)> {
        let runs = self.runs.max(1);
        let recs = std::mem::take(&mut self.sum_recs);
        recs.iter()
            .filter(|r| !r.name.is_empty() && r.last_run + 1 < runs && reportable(&recs, r))
            .map(|r| {
                let (file_path, line_number) = sum_location(r);
                (
                    r.offset,
                    FlakyTest {
                        test_name: r.name.clone(),
                        framework: Framework::GoTest,
                        file_path,
                        line_number,
                        failed_attempts: Some(r.last_run + 1),
                        attempts: Some(r.last_run + 2),
                        error_message: (!r.message.is_empty()).then(|| r.message.clone()),
                    },
                )
            })
            .collect()
    }
}

impl Pkg {
    fn busy(&self) -> bool {
        self.in_tree || self.cont.is_some() || self.panic.is_some()
    }

    fn end_tree(&mut self) {
        self.in_tree = false;
        self.stack.clear();
    }
}

impl GoTest {
    fn json_line(&mut self, offset: u64, line: &str) {
        let Ok(event) = serde_json::from_str::<Event<'_>>(line) else {
            return;
        };
        if event.action != "output" {
            return;
        }
        let (Some(package), Some(output)) = (event.package, event.output) else {
            return;
        };
        let text = output.trim_end_matches(['\n', '\r']);
        let test = event.test.as_deref();
        self.output(Some(&package), test, offset, text);
    }

    /// One printed line, of the plain log or of a JSON event's `Output`.
    fn output(&mut self, package: Option<&str>, test: Option<&str>, offset: u64, text: &str) {
        if package.is_none() && self.summary_line(offset, text) {
            return;
        }
        // `progress...    x_test.go:12: msg`: a message after output that did not end its
        // line (`fmt.Print`), read as the message it is.
        // The same without -v: `progress...--- FAIL: TestX (0.00s)`.
        let text = match embedded_message(text).or_else(|| glued_header(text)) {
            Some(i) => &text[i..],
            None => text,
        };
        let pkg = match package {
            None => &mut self.plain,
            Some(p) => {
                if !self.json.contains_key(p) {
                    if self.json.len() >= MAX_PACKAGES {
                        return;
                    }
                    self.json.insert(p.to_owned(), Pkg::default());
                }
                self.json.get_mut(p).expect("inserted")
            }
        };
        if let Some(t) = test
            && pkg.current != t
        {
            pkg.current.clear();
            pkg.current.push_str(t);
        }
        let body = text.trim_start_matches(' ');
        let indent = text.len() - body.len();

        if let Some(panic) = pkg.panic.as_mut() {
            // Go ends a panicked package with `exit status 2` and `FAIL\t<pkg>`; a `panic:`
            // line a passing test printed goes on to `ok  \t<pkg>`.
            // A test's `=== RUN` or `--- PASS` never comes inside a trace: the `panic:` was
            // printed by a test (or another package's output is interleaved, as in -json).
            let ends = indent == 0
                && (body == "FAIL"
                    || body.starts_with("=== ")
                    || body.starts_with("--- ")
                    || body.starts_with("FAIL\t")
                    || body.starts_with("ok  ")
                    || body.starts_with("exit status"));
            if !ends {
                panic_line(panic, body, &mut self.modules);
                return;
            }
            let panic = pkg.panic.take().expect("some");
            end_panic(pkg, panic);
        }

        // Continuation of the last message: deeper than it.
        if let Some((target, at)) = pkg.cont {
            if indent > at && !body.is_empty() {
                let s = match target {
                    Target::Rec(i) => &mut pkg.open[i].message,
                    Target::Note(i) => &mut pkg.notes[i].text,
                };
                if s.len() < MAX_MESSAGE {
                    s.push('\n');
                    s.push_str(body);
                }
                return;
            }
            pkg.cont = None;
        }

        if let Some(rest) = body.strip_prefix("--- ") {
            if let Some(name) = rest.strip_prefix("FAIL: ") {
                header(pkg, offset, indent, test_name(name));
            } else if rest.starts_with("PASS: ") || rest.starts_with("SKIP: ") {
                pkg.stack.retain(|&i| pkg.open[i].indent < indent);
                if indent == 0 {
                    pkg.end_tree();
                }
            } else if indent == 0 {
                pkg.end_tree();
            }
            return;
        }
        if indent >= 4 {
            if go_location(body)
                && let Some((file, line, msg)) = message(body)
            {
                message_line(pkg, indent, file, line, msg);
            }
            return;
        }
        if indent > 0 {
            return;
        }
        let was_in_tree = pkg.in_tree;
        pkg.end_tree();
        if body.starts_with("ok  ") {
            // `ok  \t<pkg>\t0.01s`: the package passed, so nothing read of it was a failure
            // (a `panic:` its tests printed, messages of tests that passed). Without a
            // trigger, the line is seen only while busy: read only then.
            if !self.busy {
                return;
            }
            match package {
                None => self.plain = Pkg::default(),
                Some(p) => {
                    self.json.remove(p);
                }
            }
            return;
        }
        if let Some(rest) = body.strip_prefix("=== ") {
            if let Some(name) = rest
                .strip_prefix("RUN ")
                .or_else(|| rest.strip_prefix("CONT "))
                .or_else(|| rest.strip_prefix("NAME "))
            {
                let name = name.trim();
                if rest.starts_with("RUN ") && !pkg.notes.is_empty() {
                    // A new run of the test: what an earlier one (a passing test of the same
                    // name in another package) printed is not its message.
                    pkg.notes.retain(|n| n.test != name);
                }
                if test.is_none() {
                    pkg.current.clear();
                    pkg.current.push_str(name);
                }
            }
            return;
        }
        if let Some(msg) = body.strip_prefix("panic: ") {
            // Right after the `--- FAIL` header of the test that panicked, else outside tests.
            let owner = was_in_tree
                .then(|| pkg.open.len().checked_sub(1))
                .flatten()
                .filter(|&i| pkg.open[i].error_type.is_none());
            pkg.panic = Some(Panic {
                owner,
                offset,
                message: bounded_str(msg.trim_end_matches(" [recovered]"), MAX_MESSAGE),
                trace: String::new(),
                frame: None,
                func_pkg: None,
                goroutine: false,
            });
            return;
        }
        // gotestsum (test2json cannot read it) prints a build failure as
        // `WARN invalid TestEvent: FAIL\t<pkg> [build failed]`, then again as
        // `bad output from test2json: FAIL\t<pkg> [build failed]`.
        let (body, warned) = match GOTESTSUM_WARNINGS.iter().find_map(|w| body.strip_prefix(w)) {
            Some(rest) => (rest, true),
            None => (body, false),
        };
        if let Some(rest) = body.strip_prefix("FAIL\t") {
            let rest = rest.trim_end();
            for (suffix, kind) in BUILD_SUFFIXES {
                if let Some(p) = rest.strip_suffix(suffix) {
                    let p = p.trim();
                    let seen = self.done.iter().any(|r| is_build_failure(r) && r.name == p);
                    if !seen {
                        let mut rec = self.build_failure(offset, p, kind);
                        rec.plain = package.is_none();
                        self.push_done(rec);
                    }
                    return;
                }
            }
            if warned {
                return;
            }
            let name = rest.split('\t').next().unwrap_or(rest).trim().to_owned();
            let pkg = match package {
                None => std::mem::take(&mut self.plain),
                Some(p) => self.json.remove(p).unwrap_or_default(),
            };
            self.close_failed(pkg, name, offset, package.is_none());
            return;
        }
        if go_location(body)
            && let Some(d) = diagnostic(body)
            && self.diags.len() < MAX_DIAGS
        {
            self.diags.push(d);
        }
    }

    fn push_done(&mut self, rec: Rec) {
        if self.done.len() < MAX_FAILURES {
            self.done.push(rec);
        }
    }

    /// `FAIL\t<pkg>\t<time>`: the package's failures are complete.
    fn close_failed(&mut self, pkg: Pkg, name: String, offset: u64, plain: bool) {
        let had = !pkg.open.is_empty() || pkg.panic.is_some();
        self.close(pkg, Some(name.clone()), plain);
        if !had {
            self.push_done(Rec {
                offset,
                name: name.clone(),
                package: Some(name),
                package_level: true,
                message: "package failed with no failing test".into(),
                plain,
                ..Rec::default()
            });
        }
    }

    /// Moves a package's reportable failures to `done`.
    fn close(&mut self, mut pkg: Pkg, name: Option<String>, plain: bool) {
        if let Some(panic) = pkg.panic.take() {
            end_panic(&mut pkg, panic);
        }
        for rec in pkg.open {
            if rec.child_failed && !rec.own_message {
                continue;
            }
            let mut rec = rec;
            rec.plain = plain;
            if rec.package.is_none() {
                rec.package = name.clone();
            }
            if rec.package_level {
                rec.name = rec.package.clone().unwrap_or_else(|| "go test".into());
            }
            if self.done.len() < MAX_FAILURES {
                self.done.push(rec);
            }
        }
    }

    /// gotestsum's summary (`=== FAIL: <pkg> <test> (0.00s)` blocks up to `DONE`): whether
    /// `text` was one of its lines.
    fn summary_line(&mut self, offset: u64, text: &str) -> bool {
        if let Some(rest) = text.strip_prefix("=== FAIL: ") {
            if let Some(block) = self.summary.take().flatten() {
                self.end_block(block);
            }
            self.summary = Some(sum_header(offset, rest));
            return true;
        }
        if self.summary.is_none() {
            return false;
        }
        if let Some(rest) = text.strip_prefix("DONE ") {
            if let Some(block) = self.summary.take().flatten() {
                self.end_block(block);
            }
            // `DONE 3 runs, 53 tests, 46 failures in 25.017s`
            if let Some((n, tail)) = rest.split_once(' ')
                && tail.starts_with("runs,")
                && let Ok(n) = n.parse()
            {
                self.runs = n;
            }
            return true;
        }
        if text.starts_with("=== ") {
            // `=== Errors`, `=== Skipped`: the compiler errors after it are read as usual.
            if let Some(block) = self.summary.as_mut().and_then(Option::take) {
                self.end_block(block);
            }
            return true;
        }
        match self.summary.as_mut().and_then(Option::as_mut) {
            Some(block) => {
                sum_line(block, text);
                true
            }
            None => false,
        }
    }

    /// A summary block is complete: merged with the same test's blocks of other runs.
    fn end_block(&mut self, b: SumRec) {
        if let Some(r) = self
            .sum_recs
            .iter_mut()
            .find(|r| r.package == b.package && r.name == b.name)
        {
            r.last_run = r.last_run.max(b.last_run);
            r.own_message |= b.own_message;
            if r.file.is_none() && b.file.is_some() {
                r.file = b.file;
                r.file_is_path = b.file_is_path;
                r.line = b.line;
            }
            if r.message.is_empty() {
                r.message = b.message;
            }
            return;
        }
        if self.sum_recs.len() < MAX_FAILURES {
            self.sum_recs.push(b);
        }
    }

    /// `--hide-summary=output` shows the summary's tests without their output: what the
    /// streamed output said of the same test (its message, location, panic) fills them.
    fn fill_summary_from(&mut self, done: &[Rec]) {
        for r in &mut self.sum_recs {
            if r.name.is_empty() || (r.file.is_some() && !r.message.is_empty()) {
                continue;
            }
            // `.` is the module's root package: of the packages with a test of that name, the
            // one with the shortest import path (the root is a prefix of every other).
            let Some(p) = done
                .iter()
                .filter(|d| {
                    d.plain
                        && !d.package_level
                        && d.name == r.name
                        && d.package.as_deref().is_some_and(|p| {
                            r.package == "."
                                || p == r.package
                                || p.ends_with(&format!("/{}", r.package))
                        })
                })
                .min_by_key(|d| d.package.as_deref().map_or(usize::MAX, str::len))
            else {
                continue;
            };
            if r.file.is_none() && p.file.is_some() {
                r.file.clone_from(&p.file);
                r.file_is_path = p.file_is_path;
                r.line = p.line;
            }
            if r.message.is_empty() {
                r.message.clone_from(&p.message);
                r.own_message |= p.own_message;
            }
            if r.trace.is_empty() && p.error_type.as_deref() == Some("panic") {
                r.trace.clone_from(&p.trace);
                r.panicked = true;
            }
        }
    }

    /// The summary's tests that failed on their last run, as failures.
    fn summary_failures(&self) -> Vec<Rec> {
        let runs = self.runs.max(1);
        self.sum_recs
            .iter()
            .filter(|r| {
                (r.name.is_empty() || r.last_run + 1 >= runs) && reportable(&self.sum_recs, r)
            })
            .map(|r| {
                // gotestsum shows a package outside the module by its import path.
                let import_path = r.package.split('/').next().is_some_and(|h| h.contains('.'));
                let (file, line) = if import_path && !r.file_is_path {
                    (r.file.clone(), r.line)
                } else {
                    sum_location(r)
                };
                let package = if import_path {
                    r.package.clone()
                } else if r.package == "." || r.package.is_empty() {
                    ".".to_owned()
                } else {
                    format!("./{}", r.package)
                };
                let package_level = r.name.is_empty();
                if let (true, Some(kind), Some(path)) = (package_level, r.build, &r.import_path) {
                    return Rec {
                        offset: r.offset,
                        name: path.clone(),
                        package: Some(path.clone()),
                        package_level: true,
                        error_type: Some(kind.to_owned()),
                        message: kind.to_owned(),
                        ..Rec::default()
                    };
                }
                Rec {
                    offset: r.offset,
                    name: if package_level {
                        r.import_path.clone().unwrap_or_else(|| r.package.clone())
                    } else {
                        r.name.clone()
                    },
                    package: Some(package),
                    file_is_path: !import_path || r.file_is_path,
                    file,
                    line,
                    message: r.message.clone(),
                    trace: r.trace.clone(),
                    error_type: r.panicked.then(|| "panic".to_owned()),
                    package_level,
                    ..Rec::default()
                }
            })
            .collect()
    }

    /// The first compiler error in a package's directory (a suffix of its import path).
    fn diag_for(&self, package: &str) -> Option<(String, u64, String)> {
        self.diags
            .iter()
            .find(|d| {
                let dir = d.path.rsplit_once('/').map_or("", |(dir, _)| dir);
                !dir.is_empty()
                    && !dir.starts_with('/')
                    && (package == dir || package.ends_with(&format!("/{dir}")))
            })
            .map(|d| (d.path.clone(), d.line, d.message.clone()))
    }

    fn build_failure(&mut self, offset: u64, package: &str, kind: &str) -> Rec {
        // The first compiler error in the package's directory (a suffix of its import path).
        let found = self.diags.iter().position(|d| {
            let dir = d.path.rsplit_once('/').map_or("", |(dir, _)| dir);
            !dir.is_empty()
                && !dir.starts_with('/')
                && (package == dir || package.ends_with(&format!("/{dir}")))
        });
        let mut rec = Rec {
            offset,
            name: package.to_owned(),
            package: Some(package.to_owned()),
            package_level: true,
            error_type: Some(kind.to_owned()),
            message: kind.to_owned(),
            ..Rec::default()
        };
        if let Some(i) = found {
            let d = &self.diags[i];
            let dir = d.path.rsplit_once('/').map_or("", |(dir, _)| dir);
            let module = package[..package.len() - dir.len()].trim_end_matches('/');
            if !module.is_empty() {
                add_module(&mut self.modules, module);
            }
            rec.file = Some(d.path.clone());
            rec.file_is_path = true;
            rec.line = Some(d.line);
            rec.message = bounded_str(&d.message, MAX_MESSAGE);
            let dir = dir.to_owned();
            self.diags
                .retain(|d| !d.path.starts_with(&format!("{dir}/")));
        }
        rec
    }

    fn failure(&self, rec: Rec) -> Failure {
        let (file_path, resolved) = match (&rec.file, rec.file_is_path) {
            (None, _) => (None, false),
            (Some(p), true) => (Some(p.clone()), true),
            (Some(base), false) => match rec.package.as_deref().and_then(|p| self.package_dir(p)) {
                Some(dir) if dir.is_empty() => (Some(base.clone()), true),
                Some(dir) => (Some(format!("{dir}/{base}")), true),
                None => (Some(base.clone()), false),
            },
        };
        let confidence = if resolved && rec.line.is_some() && !rec.package_level {
            Confidence::High
        } else {
            Confidence::Medium
        };
        let run = (!rec.package_level).then(|| {
            let pattern: Vec<String> = rec
                .name
                .split('/')
                .map(|part| format!("^{}$", regex_escape(part)))
                .collect();
            pattern.join("/")
        });
        let reproduce_command =
            crate::reproduce::go_test(rec.package.as_deref().unwrap_or("./..."), run.as_deref());
        Failure {
            test_name: rec.name,
            file_path,
            line_number: rec.line,
            error_type: rec.error_type,
            error_message: rec.message,
            stack_trace: (!rec.trace.is_empty()).then_some(rec.trace),
            confidence,
            framework: Framework::GoTest,
            reproduce_command,
        }
    }

    /// The repository directory of an import path, when the module path is known.
    fn package_dir(&self, package: &str) -> Option<String> {
        let mut best: Option<&str> = None;
        for m in &self.modules {
            if (package == m || package.starts_with(&format!("{m}/")))
                && best.is_none_or(|b| m.len() > b.len())
            {
                best = Some(m);
            }
        }
        if let Some(m) = best {
            return Some(package[m.len()..].trim_start_matches('/').to_owned());
        }
        for host in ["github.com/", "gitlab.com/", "bitbucket.org/"] {
            if let Some(rest) = package.strip_prefix(host) {
                let mut parts = rest.splitn(3, '/');
                let (Some(_), Some(_)) = (parts.next(), parts.next()) else {
                    return None;
                };
                let mut dir = parts.next().unwrap_or("");
                // A major version suffix is a module path element, not a directory.
                if let Some((first, tail)) = dir.split_once('/').or(Some((dir, "")))
                    && first.len() > 1
                    && first.starts_with('v')
                    && first[1..].bytes().all(|b| b.is_ascii_digit())
                {
                    dir = tail;
                }
                return Some(dir.to_owned());
            }
        }
        None
    }
}

/// Whether `line` can matter to an idle parser (every such line has a trigger): a JSON
/// event, `=== RUN`, `--- FAIL`, `panic:`, `FAIL\t`, or a `.go:` location. Byte checks only.
fn may_start(line: &str) -> bool {
    let body = line.trim_start_matches(' ');
    body.starts_with("{\"")
        || body.starts_with("=== ")
        || body.starts_with("WARN invalid TestEvent: ")
        || body.starts_with("bad output from test2json: ")
        || body.contains(".go:")
        || body.contains("--- FAIL: ")
        || body.starts_with("--- ")
        || body.starts_with("panic: ")
        || body.starts_with("FAIL\t")
        || go_location(body)
}

fn is_build_failure(r: &Rec) -> bool {
    r.package_level
        && matches!(
            r.error_type.as_deref(),
            Some("build failed" | "setup failed")
        )
}

/// How `FAIL\t<pkg>` says a package's tests did not build or set up.
const BUILD_SUFFIXES: [(&str, &str); 2] = [
    (" [build failed]", "build failed"),
    (" [setup failed]", "setup failed"),
];

/// Prefixes gotestsum puts before output lines test2json could not read.
const GOTESTSUM_WARNINGS: [&str; 2] = ["WARN invalid TestEvent: ", "bad output from test2json: "];

/// `other output    x_test.go:12: msg` (a test message printed after output that did not
/// end its line): the index of the four spaces before the message.
fn embedded_message(text: &str) -> Option<usize> {
    if text.starts_with([' ', '\t']) || !text.contains(".go:") {
        return None;
    }
    let mut from = 0;
    while let Some(i) = text[from..].find(".go:").map(|i| i + from) {
        let start = text[..i].rfind([' ', '\t']).map_or(0, |j| j + 1);
        if start > 4
            && &text[start - 4..start] == "    "
            && !text[..start - 4].ends_with([' ', '\t'])
            && message(&text[start..]).is_some()
        {
            return Some(start - 4);
        }
        from = i + 4;
    }
    None
}

/// `other output--- FAIL: TestX (0.00s)`: where the header starts.
fn glued_header(text: &str) -> Option<usize> {
    if text.starts_with([' ', '\t']) || text.starts_with("--- ") || text.starts_with("=== ") {
        return None;
    }
    text.find("--- FAIL: ").filter(|&i| i > 0)
}

/// `calc TestX (re-run 1) (0.00s)` (after `=== FAIL: `).
fn sum_header(offset: u64, rest: &str) -> Option<SumRec> {
    let (package, rest) = rest.split_once(' ')?;
    let mut name = rest.trim_end();
    if name.ends_with(')')
        && let Some(i) = name.rfind(" (")
    {
        name = &name[..i];
    }
    let mut last_run = 0;
    if name.ends_with(')')
        && let Some(i) = name.rfind(" (re-run ")
        && let Ok(n) = name[i + 9..name.len() - 1].parse()
    {
        last_run = n;
        name = &name[..i];
    }
    Some(SumRec {
        offset,
        package: package.to_owned(),
        name: name.trim().to_owned(),
        last_run,
        ..SumRec::default()
    })
}

/// A line of a summary block: the test's own output.
fn sum_line(b: &mut SumRec, text: &str) {
    let body = text.trim_start_matches(' ');
    let indent = text.len() - body.len();
    if body.starts_with("--- ") || body.is_empty() {
        return;
    }
    if indent == 0 {
        if let Some(msg) = body.strip_prefix("panic: ")
            && !b.panicked
        {
            b.panicked = true;
            if !b.own_message {
                b.message = bounded_str(msg.trim_end_matches(" [recovered]"), MAX_MESSAGE);
            }
        }
        if b.panicked {
            if b.trace.len() < MAX_TRACE {
                if !b.trace.is_empty() {
                    b.trace.push('\n');
                }
                b.trace.push_str(body);
            }
            if let Some(frame) = body.strip_prefix('\t')
                && b.file.is_none()
            {
                let loc = frame.split(" +0x").next().unwrap_or(frame);
                if let Some((path, line)) = loc.rsplit_once(':')
                    && let Ok(line) = line.parse::<u64>()
                    && path.ends_with("_test.go")
                    && !is_goroot(path)
                {
                    let rel = relative_path(path);
                    b.file_is_path = rel.contains('/') && !rel.starts_with('/');
                    b.file = Some(if b.file_is_path {
                        rel
                    } else {
                        rel.rsplit('/').next().unwrap_or(&rel).to_owned()
                    });
                    b.line = Some(line);
                }
            }
            return;
        }
        if b.name.is_empty()
            && let Some(rest) = body.strip_prefix("FAIL\t")
        {
            let mut path = rest.split('\t').next().unwrap_or(rest).trim();
            let mut build = None;
            for (suffix, kind) in BUILD_SUFFIXES {
                if let Some(p) = path.strip_suffix(suffix) {
                    path = p.trim();
                    build = Some(kind);
                }
            }
            // `.` is the module's root package, whatever its import path.
            if path == b.package || b.package == "." || path.ends_with(&format!("/{}", b.package)) {
                b.import_path = Some(path.to_owned());
                b.build = build;
            }
            return;
        }
    }
    let msg = if indent > 0 {
        Some(body)
    } else {
        embedded_message(text).map(|i| &text[i + 4..])
    };
    if let Some(m) = msg
        && go_location(m)
        && let Some((file, line, text)) = message(m)
    {
        if !b.own_message {
            b.own_message = true;
            b.message = bounded_str(text, MAX_MESSAGE);
        }
        if b.file.is_none() && file.ends_with("_test.go") {
            b.file = Some(file.to_owned());
            b.line = Some(line);
        }
    } else if b.own_message && indent > 4 && b.message.len() < MAX_MESSAGE {
        b.message.push('\n');
        b.message.push_str(body);
    }
}

/// Where a summary test is: its message's file in its package directory, or a trace path.
fn sum_location(r: &SumRec) -> (Option<String>, Option<u64>) {
    match &r.file {
        None => (None, None),
        Some(f) if r.file_is_path => (Some(f.clone()), r.line),
        Some(f) if r.package.is_empty() || r.package == "." => (Some(f.clone()), r.line),
        Some(f) => (Some(format!("{}/{f}", r.package)), r.line),
    }
}

/// A summary test is reported unless one of its subtests failed and it printed nothing of
/// its own (the subtest says more).
fn reportable(recs: &[SumRec], r: &SumRec) -> bool {
    r.own_message
        || !recs.iter().any(|o| {
            o.package == r.package
                && o.name.len() > r.name.len() + 1
                && o.name.starts_with(&r.name)
                && o.name.as_bytes()[r.name.len()] == b'/'
        })
}

/// Whether the first word of `body` (after an optional `vet: `) is `<file>.go:<...>`.
fn go_location(body: &str) -> bool {
    let b = body.strip_prefix("vet: ").unwrap_or(body).as_bytes();
    match memchr::memchr2(b':', b' ', b) {
        Some(i) => b[i] == b':' && i >= 3 && &b[i - 3..i] == b".go",
        None => false,
    }
}

/// `--- FAIL: <name>` at `indent`.
fn header(pkg: &mut Pkg, offset: u64, indent: usize, name: &str) {
    pkg.in_tree = true;
    pkg.cont = None;
    pkg.stack.retain(|&i| pkg.open[i].indent < indent);
    if let Some(&parent) = pkg.stack.last()
        && name.starts_with(&format!("{}/", pkg.open[parent].name))
    {
        pkg.open[parent].child_failed = true;
    }
    if pkg.open.len() >= MAX_FAILURES {
        return;
    }
    let mut rec = Rec {
        offset,
        name: name.to_owned(),
        indent,
        ..Rec::default()
    };
    if let Some(i) = pkg.notes.iter().position(|n| n.test == name) {
        let note = pkg.notes.remove(i);
        rec.own_message = true;
        rec.file = note.file.ends_with("_test.go").then_some(note.file);
        rec.line = rec.file.is_some().then_some(note.line);
        rec.message = note.text;
    }
    pkg.open.push(rec);
    pkg.stack.push(pkg.open.len() - 1);
}

/// `<indent><file>.go:<line>: <msg>`.
fn message_line(pkg: &mut Pkg, indent: usize, file: &str, line: u64, msg: &str) {
    // Under a `--- FAIL` header four spaces shallower (output printed after the header).
    if pkg.in_tree {
        pkg.stack.retain(|&i| pkg.open[i].indent < indent);
        if let Some(&i) = pkg.stack.last()
            && pkg.open[i].indent + 4 == indent
        {
            let rec = &mut pkg.open[i];
            if !rec.own_message {
                rec.own_message = true;
                rec.message = bounded_str(msg, MAX_MESSAGE);
            }
            if rec.file.is_none() && file.ends_with("_test.go") {
                rec.file = Some(file.to_owned());
                rec.line = Some(line);
            }
            pkg.cont = Some((Target::Rec(i), indent));
            return;
        }
    }
    // Streamed while the current test ran (`-v`): kept until its header.
    if pkg.current.is_empty() {
        return;
    }
    if let Some(i) = pkg.notes.iter().position(|n| n.test == pkg.current) {
        let note = &mut pkg.notes[i];
        if !note.file.ends_with("_test.go") && file.ends_with("_test.go") {
            note.file = file.to_owned();
            note.line = line;
        }
        pkg.cont = Some((Target::Note(i), indent));
        return;
    }
    if pkg.notes.len() >= MAX_NOTES {
        pkg.notes.remove(0);
    }
    pkg.notes.push(Note {
        test: pkg.current.clone(),
        file: file.to_owned(),
        line,
        text: bounded_str(msg, MAX_MESSAGE),
    });
    pkg.cont = Some((Target::Note(pkg.notes.len() - 1), indent));
}

fn panic_line(panic: &mut Panic, body: &str, modules: &mut Vec<String>) {
    if body.starts_with("goroutine ") {
        panic.goroutine = true;
    }
    if panic.trace.len() < MAX_TRACE {
        if !panic.trace.is_empty() {
            panic.trace.push('\n');
        }
        panic.trace.push_str(body);
    }
    if let Some(frame) = body.strip_prefix('\t') {
        // `\t/path/to/x_test.go:6 +0x1a5`
        let loc = frame.split(" +0x").next().unwrap_or(frame);
        if let Some((path, line)) = loc.rsplit_once(':')
            && let Ok(line) = line.parse::<u64>()
            && path.ends_with(".go")
        {
            let rel = relative_path(path);
            let under_checkout = rel != path.strip_prefix("./").unwrap_or(path);
            if under_checkout && let Some(func_pkg) = panic.func_pkg.take() {
                let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
                if dir.is_empty() {
                    add_module(modules, &func_pkg);
                } else if let Some(m) = func_pkg.strip_suffix(&format!("/{dir}")) {
                    add_module(modules, m);
                }
            }
            if panic.frame.is_none() && path.ends_with("_test.go") && !is_goroot(path) {
                panic.frame = Some((rel, line));
            }
        }
    } else if let Some(call) = body.split('(').next()
        && body.contains('(')
        && let Some(slash) = call.rfind('/')
        && let Some(dot) = call[slash..].find('.')
    {
        panic.func_pkg = Some(call[..slash + dot].to_owned());
    }
}

fn end_panic(pkg: &mut Pkg, panic: Panic) {
    let idx = match panic.owner {
        Some(i) => i,
        // Outside a test, only a real panic (with its goroutine trace) is a failure.
        None if !panic.goroutine => return,
        None => {
            if pkg.open.len() >= MAX_FAILURES {
                return;
            }
            pkg.open.push(Rec {
                offset: panic.offset,
                package_level: true,
                ..Rec::default()
            });
            pkg.open.len() - 1
        }
    };
    let rec = &mut pkg.open[idx];
    rec.own_message = true;
    rec.error_type = Some("panic".into());
    rec.message = panic.message;
    rec.trace = panic.trace;
    if rec.file.is_none()
        && let Some((path, line)) = panic.frame
    {
        rec.file_is_path = path.contains('/') && !path.starts_with('/');
        rec.file = Some(if rec.file_is_path {
            path
        } else {
            path.rsplit('/').next().unwrap_or(&path).to_owned()
        });
        rec.line = Some(line);
    }
}

fn is_goroot(path: &str) -> bool {
    path.contains("/src/testing/")
        || path.contains("/src/runtime/")
        || path.starts_with("/usr/lib/go")
}

fn add_module(modules: &mut Vec<String>, m: &str) {
    if modules.len() < MAX_EVIDENCE && !modules.iter().any(|x| x == m) {
        modules.push(m.to_owned());
    }
}

/// `TestX/sub (0.00s)` → `TestX/sub`.
fn test_name(s: &str) -> &str {
    let s = s.trim_end();
    match s.rfind(" (") {
        Some(i) if s.ends_with(')') => &s[..i],
        _ => s,
    }
}

/// A test message `x_test.go:12: text`: (file, line, text).
fn message(body: &str) -> Option<(&str, u64, &str)> {
    let colon = body.find(".go:")? + 3;
    let file = &body[..colon];
    if file.is_empty() || file.contains(['/', ' ', '\t']) {
        return None;
    }
    let rest = &body[colon + 1..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let line = rest[..digits].parse().ok()?;
    let text = rest[digits..].strip_prefix(':')?;
    Some((file, line, text.strip_prefix(' ').unwrap_or(text)))
}

/// A compiler or vet error at column 0: `dir/x.go:6:2: msg` (not `warning:`).
fn diagnostic(body: &str) -> Option<Diag> {
    let body = body.strip_prefix("vet: ").unwrap_or(body);
    let end = body.find(".go:")? + 3;
    let path = &body[..end];
    if path.contains(' ') {
        return None;
    }
    let mut parts = body[end + 1..].splitn(3, ':');
    let line: u64 = parts.next()?.parse().ok()?;
    let _col: u64 = parts.next()?.parse().ok()?;
    let message = parts.next()?.trim();
    if message.starts_with("warning:") || message.starts_with("note:") {
        return None;
    }
    Some(Diag {
        path: relative_path(path),
        line,
        message: bounded_str(message, MAX_MESSAGE),
    })
}

fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Vec<Failure> {
        let mut p = GoTest::default();
        for (i, l) in log.lines().enumerate() {
            p.line(i as u64, l);
        }
        p.finish().into_iter().map(|(_, f)| f).collect()
    }

    #[test]
    fn quiet_subtests_and_messages() {
        let log = "--- FAIL: TestDivide (0.00s)\n    --- FAIL: TestDivide/by_zero (0.00s)\n        calc_test.go:48: got 1\n            want 0\n--- FAIL: TestP (0.00s)\n    --- FAIL: TestP/a (0.00s)\n        p_test.go:3: a\n    p_test.go:9: own\nFAIL\nFAIL\tgithub.com/acme/w/calc\t0.01s\n";
        let got = parse(log);
        assert_eq!(got.len(), 3, "{got:#?}");
        assert_eq!(got[0].test_name, "TestDivide/by_zero");
        assert_eq!(got[0].file_path.as_deref(), Some("calc/calc_test.go"));
        assert_eq!(got[0].line_number, Some(48));
        assert_eq!(got[0].error_message, "got 1\nwant 0");
        assert_eq!(got[0].confidence, Confidence::High);
        assert_eq!(
            got[0].reproduce_command.as_deref(),
            Some("go test github.com/acme/w/calc -run '^TestDivide$/''^by_zero$'")
        );
        assert_eq!(got[1].test_name, "TestP");
        assert_eq!(got[1].line_number, Some(9));
        assert_eq!(got[2].test_name, "TestP/a");
    }

    #[test]
    fn verbose_messages_belong_to_the_running_test() {
        let log = "=== RUN   TestA\n=== RUN   TestA/x\n    a_test.go:5: boom\n=== RUN   TestA/y\n    a_test.go:7: just a log\n--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/x (0.00s)\n    --- PASS: TestA/y (0.00s)\nFAIL\nFAIL\texample.com/m\t0.1s\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].test_name, "TestA/x");
        assert_eq!(got[0].line_number, Some(5));
        // Unknown module layout: base name only.
        assert_eq!(got[0].file_path.as_deref(), Some("a_test.go"));
        assert_eq!(got[0].confidence, Confidence::Medium);
    }

    #[test]
    fn json_events_and_build_failures() {
        let log = concat!(
            "# example.com/m/broken [example.com/m/broken.test]\n",
            "broken/b_test.go:6:6: undefined: x\n",
            "FAIL\texample.com/m/broken [build failed]\n",
            "{\"Action\":\"output\",\"Package\":\"example.com/m/p\",\"Test\":\"TestZ\",\"Output\":\"=== RUN   TestZ\\n\"}\n",
            "{\"Action\":\"output\",\"Package\":\"example.com/m/p\",\"Test\":\"TestZ\",\"Output\":\"    z_test.go:3: \\u003cnil\\u003e\\n\"}\n",
            "{\"Action\":\"output\",\"Package\":\"example.com/m/p\",\"Test\":\"TestZ\",\"Output\":\"--- FAIL: TestZ (0.00s)\\n\"}\n",
            "{\"Action\":\"fail\",\"Package\":\"example.com/m/p\",\"Test\":\"TestZ\"}\n",
            "{\"Action\":\"output\",\"Package\":\"example.com/m/p\",\"Output\":\"FAIL\\texample.com/m/p\\t0.1s\\n\"}\n",
        );
        let got = parse(log);
        assert_eq!(got.len(), 2, "{got:#?}");
        assert_eq!(got[0].test_name, "example.com/m/broken");
        assert_eq!(got[0].file_path.as_deref(), Some("broken/b_test.go"));
        assert_eq!(got[0].line_number, Some(6));
        assert_eq!(got[1].test_name, "TestZ");
        assert_eq!(got[1].error_message, "<nil>");
        // The module path was learnt from the build failure.
        assert_eq!(got[1].file_path.as_deref(), Some("p/z_test.go"));
    }

    #[test]
    fn panics_locate_the_test_frame() {
        let log = "--- FAIL: TestP (0.00s)\npanic: boom [recovered]\n\tpanic: boom\n\ngoroutine 6 [running]:\nexample.com/m/inv.Skus(...)\n\t/home/runner/work/r/r/inv/stock.go:22\nexample.com/m/inv.TestP(0xc0)\n\t/home/runner/work/r/r/inv/p_test.go:6 +0x1a5\ntesting.tRunner(0xc0, 0x5)\n\t/usr/lib/go-1.19/src/testing/testing.go:1446 +0x10b\nFAIL\texample.com/m/inv\t0.005s\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].error_type.as_deref(), Some("panic"));
        assert_eq!(got[0].error_message, "boom");
        assert_eq!(got[0].file_path.as_deref(), Some("inv/p_test.go"));
        assert_eq!(got[0].line_number, Some(6));
    }

    #[test]
    fn a_message_after_unterminated_output_is_located() {
        // `fmt.Print("progress...")` then `t.Errorf`: go -v prints both on one line.
        let log = "=== RUN   TestStub\nprogress...    stub_test.go:34: stub answered 41\n--- FAIL: TestStub (0.00s)\nFAIL\nFAIL\tgithub.com/acme/w/stub\t0.01s\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].file_path.as_deref(), Some("stub/stub_test.go"));
        assert_eq!(got[0].line_number, Some(34));
        assert_eq!(got[0].error_message, "stub answered 41");
    }

    #[test]
    fn a_header_after_unterminated_output_is_read() {
        // Without -v, the header follows the output on its line.
        let log = "asking...--- FAIL: TestStub (0.00s)\n    stub_test.go:9: stub answered 41\nFAIL\nFAIL\tgithub.com/acme/w/stub\t0.01s\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].test_name, "TestStub");
        assert_eq!(got[0].file_path.as_deref(), Some("stub/stub_test.go"));
        assert_eq!(got[0].line_number, Some(9));
    }

    #[test]
    fn gotestsum_build_failures_and_summary() {
        // `gotestsum --format testname`: build failures only as gotestsum's warnings (before
        // the compiler errors), failing tests in the `=== Failed` summary.
        let log = concat!(
            "WARN invalid TestEvent: FAIL\tgithub.com/acme/w/broken [build failed]\n",
            "bad output from test2json: FAIL\tgithub.com/acme/w/broken [build failed]\n",
            "# github.com/acme/w/broken [github.com/acme/w/broken.test]\n",
            "broken/broken_test.go:7:15: undefined: missingHelper\n",
            "PASS calc.TestOk (0.00s)\n",
            "=== RUN   TestDivide/zero\n",
            "    calc_test.go:48: Divide(0, 0)\n",
            "    --- FAIL: TestDivide/zero (0.00s)\n",
            "FAIL calc.TestDivide/zero (0.00s)\n",
            "=== RUN   TestDivide\n",
            "--- FAIL: TestDivide (0.00s)\n",
            "FAIL calc.TestDivide (0.00s)\n",
            "FAIL calc\n",
            "\n=== Failed\n",
            "=== FAIL: calc TestDivide/zero (0.00s)\n",
            "    calc_test.go:48: Divide(0, 0)\n",
            "    --- FAIL: TestDivide/zero (0.00s)\n",
            "\n=== FAIL: calc TestDivide (0.00s)\n",
            "\n=== FAIL: inventory TestSkus (0.00s)\n",
            "panic: boom [recovered]\n",
            "\tpanic: boom\n\n",
            "goroutine 7 [running]:\n",
            "github.com/acme/w/inventory.TestSkus(0xc0)\n",
            "\t/home/runner/work/w/w/inventory/sku_test.go:6 +0x1a5\n",
            "\n=== Errors\n",
            "broken/broken_test.go:7:15: undefined: missingHelper\n",
            "\nDONE 3 tests, 3 failures, 1 error in 0.9s\n",
        );
        let got = parse(log);
        let names: Vec<_> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(
            names,
            ["github.com/acme/w/broken", "TestDivide/zero", "TestSkus"],
            "{got:#?}"
        );
        assert_eq!(got[0].file_path.as_deref(), Some("broken/broken_test.go"));
        assert_eq!(got[0].line_number, Some(7));
        assert_eq!(got[1].file_path.as_deref(), Some("calc/calc_test.go"));
        assert_eq!(got[1].line_number, Some(48));
        assert_eq!(
            got[1].reproduce_command.as_deref(),
            Some("go test ./calc -run '^TestDivide$/''^zero$'")
        );
        assert_eq!(got[2].file_path.as_deref(), Some("inventory/sku_test.go"));
        assert_eq!(got[2].error_type.as_deref(), Some("panic"));
    }

    /// Go 1.24+ reports build errors as JSON events: gotestsum prints no `WARN invalid
    /// TestEvent`, lists the package in `=== Failed` as `=== FAIL: <pkg>  (0.00s)` (no test
    /// name) with its `FAIL\t<import path> [build failed]` line, and the compiler errors
    /// only under `=== Errors` (without their `# <pkg>` header). One failure per package,
    /// located by its compiler error.
    #[test]
    fn gotestsum_build_failures_of_go_1_24() {
        let run = |log: &str| {
            crate::parse_log(log.as_bytes())
                .into_iter()
                .map(|f| {
                    (
                        f.test_name,
                        f.file_path,
                        f.line_number,
                        f.error_type,
                        f.error_message,
                    )
                })
                .collect::<Vec<_>>()
        };
        let s = |v: &str| Some(v.to_owned());
        // standard-verbose: the package's FAIL line streams, then the summary names it again.
        let log = concat!(
            "=== RUN   TestOk\n--- PASS: TestOk (0.00s)\nPASS\nok  \texample.com/m/good\t0.01s\n",
            "FAIL\texample.com/m/internal/cacher [build failed]\n",
            "=== RUN   TestA\n    a_test.go:42: want 1, got 2\n--- FAIL: TestA (0.00s)\n",
            "FAIL\nFAIL\texample.com/m/a\t0.01s\n",
            "\n=== Failed\n=== FAIL: a TestA (0.00s)\n    a_test.go:42: want 1, got 2\n",
            "\n=== FAIL: internal/cacher  (0.00s)\n",
            "FAIL\texample.com/m/internal/cacher [build failed]\n",
            "\n=== Errors\n",
            "internal/cacher/directory_test.go:321:10: undefined: assert.foo\n\n",
            "\nDONE 2 tests, 2 failures, 1 error in 1.2s\n",
        );
        assert_eq!(
            run(log),
            [
                (
                    "example.com/m/internal/cacher".to_owned(),
                    s("internal/cacher/directory_test.go"),
                    Some(321),
                    s("build failed"),
                    "undefined: assert.foo".to_owned()
                ),
                (
                    "TestA".to_owned(),
                    s("a/a_test.go"),
                    Some(42),
                    None,
                    "want 1, got 2".to_owned()
                ),
            ]
        );
        // pkgname: the package only in the summary (gotestsum issue 500's output).
        let log = concat!(
            "\u{2716}  tmp2\n\n=== Failed\n=== FAIL: tmp2  (0.00s)\n",
            "FAIL\tgotest.tools/gotestsum/tmp2 [build failed]\n\n=== Errors\n",
            "tmp2/main_test.go:8:3: go:embed only allowed in Go files that import \"embed\"\n\n",
            "\nDONE 0 tests, 1 failure, 1 error in 0.5s\n",
        );
        assert_eq!(
            run(log),
            [(
                "gotest.tools/gotestsum/tmp2".to_owned(),
                s("tmp2/main_test.go"),
                Some(8),
                s("build failed"),
                "go:embed only allowed in Go files that import \"embed\"".to_owned()
            )]
        );
        // The module's root package (`.`), no compiler error shown: still one failure.
        let log = "FAIL\ttestgo [build failed]\n\n=== Failed\n=== FAIL: .  (0.00s)\nFAIL\ttestgo [build failed]\n\nDONE 0 tests, 1 failure in 0.348s\n";
        assert_eq!(
            run(log),
            [(
                "testgo".to_owned(),
                None,
                None,
                s("build failed"),
                "build failed".to_owned()
            )]
        );
        // go test run in the package's directory: `./x_test.go`, the one unlocated package's.
        let log = "\n=== Failed\n=== FAIL: example.com/internal/cacher  (0.00s)\nFAIL\texample.com/internal/cacher [build failed]\n\n=== Errors\n./directory_test.go:321:10: undefined: assert.foo\n\n\nDONE 0 tests, 1 failure, 1 error\n";
        assert_eq!(
            run(log),
            [(
                "example.com/internal/cacher".to_owned(),
                s("directory_test.go"),
                Some(321),
                s("build failed"),
                "undefined: assert.foo".to_owned()
            )]
        );
    }

    /// `gotestsum --format standard-verbose --hide-summary=output`: the summary names the
    /// failed tests without their output; the streamed `-v` output locates them, messages
    /// before the `--- FAIL` header or under it.
    #[test]
    fn gotestsum_summary_without_output_keeps_the_streamed_location() {
        let log = concat!(
            "=== RUN   TestX\n    foo_test.go:42: message\n--- FAIL: TestX (0.00s)\n",
            "=== RUN   TestY\n--- FAIL: TestY (0.00s)\n    foo_test.go:50: under header\n",
            "FAIL\nFAIL\texample.com/m/foo\t0.01s\n",
            "\n=== Failed\n=== FAIL: foo TestX (0.00s)\n\n=== FAIL: foo TestY (0.00s)\n",
            "\nDONE 2 tests, 2 failures in 0.2s\n",
        );
        let got = crate::parse_log(log.as_bytes());
        assert_eq!(
            crate::parsers::named_at(&got),
            [
                ("TestX", Some("foo/foo_test.go"), Some(42)),
                ("TestY", Some("foo/foo_test.go"), Some(50)),
            ],
        );
        assert_eq!(got[0].error_message, "message");
        assert_eq!(got[1].error_message, "under header");
        assert_eq!(got[0].confidence, Confidence::High);
    }

    /// `.` in the summary is the module's root package, not a subpackage that streamed a
    /// test of the same name first.
    #[test]
    fn gotestsum_root_package_summary_takes_the_roots_streamed_location() {
        let log = concat!(
            "=== RUN   TestX\n    sub_test.go:7: in sub\n--- FAIL: TestX (0.00s)\n",
            "FAIL\nFAIL\texample.com/m/sub\t0.01s\n",
            "=== RUN   TestX\n    root_test.go:3: in root\n--- FAIL: TestX (0.00s)\n",
            "FAIL\nFAIL\texample.com/m\t0.01s\n",
            "\n=== Failed\n=== FAIL: . TestX (0.00s)\n",
            "\nDONE 2 tests, 2 failures in 0.2s\n",
        );
        let got = crate::parse_log(log.as_bytes());
        let root = got
            .iter()
            .find(|f| f.error_message == "in root")
            .unwrap_or_else(|| panic!("{got:#?}"));
        assert_eq!(root.file_path.as_deref(), Some("root_test.go"), "{got:#?}");
        assert!(
            !got.iter()
                .any(|f| f.file_path.as_deref() == Some("root_test.go")
                    && f.error_message == "in sub"),
            "{got:#?}"
        );
    }

    #[test]
    fn gotestsum_packages_outside_the_module_keep_their_import_path() {
        let log = "=== FAIL: github.com/acme/tools/lint TestL (0.00s)\n    l_test.go:4: bad\n\nDONE 1 tests, 1 failure in 0.1s\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        // The repository directory of a github.com import path: after owner/repo.
        assert_eq!(got[0].file_path.as_deref(), Some("lint/l_test.go"));
        assert_eq!(
            got[0].reproduce_command.as_deref(),
            Some("go test github.com/acme/tools/lint -run '^TestL$'")
        );
    }

    #[test]
    fn gotestsum_reruns_tell_flaky_from_failing() {
        let log = concat!(
            "=== Failed\n",
            "=== FAIL: stub TestFlaky (0.00s)\n",
            "    flaky_test.go:9: connection reset\n",
            "=== FAIL: stub TestBad (0.00s)\n",
            "    bad_test.go:3: wrong\n",
            "=== FAIL: stub TestBad (re-run 1) (0.00s)\n",
            "    bad_test.go:3: wrong\n",
            "\nDONE 2 runs, 4 tests, 3 failures in 0.5s\n",
        );
        let mut p = GoTest::default();
        for (i, l) in log.lines().enumerate() {
            p.line(i as u64, l);
        }
        let failures: Vec<_> = p.finish().into_iter().map(|(_, f)| f.test_name).collect();
        let flaky: Vec<_> = p.flaky().into_iter().map(|(_, f)| f).collect();
        assert_eq!(failures, ["TestBad"]);
        assert_eq!(flaky.len(), 1);
        assert_eq!(flaky[0].test_name, "TestFlaky");
        assert_eq!(flaky[0].file_path.as_deref(), Some("stub/flaky_test.go"));
        assert_eq!(flaky[0].failed_attempts, Some(1));
    }

    #[test]
    fn a_passing_package_printing_panic_is_not_a_failure() {
        let log = "=== RUN   TestLog\npanic: not really, a log line\nFAIL this line is output\n--- PASS: TestLog (0.00s)\nPASS\nok  \texample.com/m/noisy\t0.1s\n=== RUN   TestB\n    b_test.go:3: bad\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/m/b\t0.1s\n";
        let got = parse(log);
        let names: Vec<_> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(names, ["TestB"], "{got:#?}");
    }

    #[test]
    fn a_printed_panic_line_does_not_swallow_what_follows() {
        // -json text of two packages, interleaved: a passing test's `panic:` line, then the
        // other package's failures, before the first package's `ok`.
        let log = "=== RUN   TestLog\npanic: not really, a log line\nFAIL this line is output\n--- PASS: TestLog (0.00s)\nPASS\n=== RUN   TestB\n    b_test.go:3: bad\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/m/b\t0.1s\nok  \texample.com/m/noisy\t0.1s\n";
        let got = parse(log);
        let names: Vec<_> = got.iter().map(|f| f.test_name.as_str()).collect();
        assert_eq!(names, ["TestB"], "{got:#?}");
        let log = "=== RUN   TestLog\npanic: not really\n=== RUN   TestB\n    b_test.go:3: bad\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/m/b\t0.1s\n";
        let names: Vec<_> = parse(log).into_iter().map(|f| f.test_name).collect();
        assert_eq!(names, ["TestB"]);
    }

    #[test]
    fn a_message_of_a_passing_namesake_is_not_taken() {
        // Package a's TestNew passes after logging; package b's TestNew fails silently.
        let log = "=== RUN   TestNew\n    a_test.go:5: created\n--- PASS: TestNew (0.00s)\nPASS\nok  \texample.com/m/a\t0.1s\n=== RUN   TestNew\n--- FAIL: TestNew (0.00s)\nFAIL\nFAIL\texample.com/m/b\t0.1s\n";
        let got = parse(log);
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(got[0].test_name, "TestNew");
        assert_eq!(got[0].file_path, None);
        assert_eq!(got[0].line_number, None);
    }

    #[test]
    fn passing_noise_is_not_a_failure() {
        let log = "=== RUN   TestErrorFAIL\n    x_test.go:3: --- FAIL: nothing, FAIL\tx\n--- PASS: TestErrorFAIL (0.00s)\nutil/legacy.go:4:2: warning: #warning\nok  \texample.com/m\t0.1s\n";
        assert!(parse(log).is_empty());
    }
}
