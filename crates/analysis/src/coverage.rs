//! Line and function coverage from the reports test runners write: lcov tracefiles,
//! Cobertura XML (coverage.py's `coverage xml`, cargo-llvm-cov's `--cobertura`) and JaCoCo
//! XML. Reading only: a report's DOCTYPE is never fetched, bad input is an error saying
//! where, never a panic.

use std::collections::BTreeMap;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoverageFormat {
    Lcov,
    Cobertura,
    Jacoco,
}

impl CoverageFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            CoverageFormat::Lcov => "lcov",
            CoverageFormat::Cobertura => "cobertura",
            CoverageFormat::Jacoco => "jacoco",
        }
    }
}

/// A report's files, in the order the report names them first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Coverage {
    pub files: Vec<FileCoverage>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileCoverage {
    /// As the report writes it (Cobertura: the class's `filename`; JaCoCo: the package
    /// name, `/`, the source file's name).
    pub path: String,
    /// Instrumented lines.
    pub lines_found: u32,
    /// Instrumented lines run at least once.
    pub lines_hit: u32,
    /// One-based numbers of the instrumented lines never run, ascending.
    pub uncovered_lines: Vec<u32>,
    /// `(name, one-based line, hits)` of each function the report names.
    pub functions: Vec<(String, u32, u32)>,
}

impl Coverage {
    /// Lines hit over lines found across all files (1.0 when nothing is instrumented).
    pub fn ratio(&self) -> f64 {
        let found: u64 = self.files.iter().map(|f| u64::from(f.lines_found)).sum();
        let hit: u64 = self.files.iter().map(|f| u64::from(f.lines_hit)).sum();
        if found == 0 {
            1.0
        } else {
            hit as f64 / found as f64
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoverageError {
    /// An lcov record that does not read; `line` is one-based.
    #[error("lcov line {line}: {why}")]
    Lcov { line: u32, why: String },
    /// XML that does not parse, at a byte offset.
    #[error("{format} XML at byte {position}: {why}")]
    Xml {
        format: &'static str,
        position: u64,
        why: String,
    },
    /// Well-formed, but not a report of the format asked for.
    #[error("not a {format} report: {why}")]
    NotThisFormat { format: &'static str, why: String },
}

/// Reads a coverage report of `format`.
pub fn parse_coverage(format: CoverageFormat, text: &str) -> Result<Coverage, CoverageError> {
    match format {
        CoverageFormat::Lcov => lcov(text),
        CoverageFormat::Cobertura | CoverageFormat::Jacoco => xml(format, text),
    }
}

/// Line hits and functions of one file as they are read; lines may repeat (several
/// Cobertura classes of one file), their hits add up.
#[derive(Default)]
struct Tally {
    lines: BTreeMap<u32, u64>,
    functions: Vec<(String, u32, u32)>,
    /// `LF`/`LH` of an lcov record without `DA` lines.
    summary: Option<(u32, u32)>,
}

struct Files {
    order: Vec<String>,
    tallies: BTreeMap<String, Tally>,
}

impl Files {
    fn new() -> Files {
        Files {
            order: Vec::new(),
            tallies: BTreeMap::new(),
        }
    }

    fn get(&mut self, path: &str) -> &mut Tally {
        if !self.tallies.contains_key(path) {
            self.order.push(path.to_owned());
        }
        self.tallies.entry(path.to_owned()).or_default()
    }

    fn finish(mut self) -> Coverage {
        let files = self
            .order
            .iter()
            .filter_map(|path| {
                let t = self.tallies.remove(path)?;
                let uncovered: Vec<u32> = t
                    .lines
                    .iter()
                    .filter(|(_, h)| **h == 0)
                    .map(|(l, _)| *l)
                    .collect();
                let found = u32::try_from(t.lines.len()).unwrap_or(u32::MAX);
                let (found, hit) = match t.summary {
                    Some(s) if t.lines.is_empty() => s,
                    _ => (
                        found,
                        found - u32::try_from(uncovered.len()).unwrap_or(found),
                    ),
                };
                Some(FileCoverage {
                    path: path.clone(),
                    lines_found: found,
                    lines_hit: hit,
                    uncovered_lines: uncovered,
                    functions: t.functions,
                })
            })
            .collect();
        Coverage { files }
    }
}

fn lcov(text: &str) -> Result<Coverage, CoverageError> {
    let mut files = Files::new();
    let mut current: Option<String> = None;
    // FN names to their line, FNDA hits by name, for the current record.
    let mut fn_lines: Vec<(String, u32)> = Vec::new();
    let mut fn_hits: BTreeMap<String, u32> = BTreeMap::new();
    let mut summary: (Option<u32>, Option<u32>) = (None, None);
    for (i, raw) in text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let err = |why: String| CoverageError::Lcov { line: line_no, why };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "end_of_record" {
            let Some(path) = current.take() else {
                return Err(err("end_of_record outside a record".into()));
            };
            let t = files.get(&path);
            for (name, l) in fn_lines.drain(..) {
                let hits = fn_hits.get(&name).copied().unwrap_or(0);
                t.functions.push((name, l, hits));
            }
            fn_hits.clear();
            if let (Some(lf), Some(lh)) = summary {
                t.summary = Some((lf, lh.min(lf)));
            }
            summary = (None, None);
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(err(format!("`{}` is not an lcov record", clip(line))));
        };
        let number = |s: &str, what: &str| -> Result<u32, CoverageError> {
            let s = s.trim();
            // gcov can write negative counts for broken data: read them as not run.
            if let Ok(n) = s.parse::<i64>() {
                return Ok(u32::try_from(n.max(0)).unwrap_or(u32::MAX));
            }
            // Large counts may be written as floats (`1.2e+10`) by some tools.
            match s.parse::<f64>() {
                Ok(f) if f.is_finite() => Ok(f.max(0.0).min(f64::from(u32::MAX)) as u32),
                _ => Err(err(format!("{what} `{}` is not a number", clip(s)))),
            }
        };
        let in_record = |current: &Option<String>| -> Result<(), CoverageError> {
            match current {
                Some(_) => Ok(()),
                None => Err(err(format!("{key} before any SF"))),
            }
        };
        match key {
            "SF" => {
                if current.is_some() {
                    return Err(err("SF inside a record (missing end_of_record)".into()));
                }
                if value.trim().is_empty() {
                    return Err(err("SF without a path".into()));
                }
                current = Some(value.trim().to_owned());
                files.get(value.trim());
            }
            "DA" => {
                in_record(&current)?;
                let mut parts = value.split(',');
                let l = number(parts.next().unwrap_or(""), "line")?;
                let hits = number(
                    parts
                        .next()
                        .ok_or_else(|| err("DA without a hit count".into()))?,
                    "hit count",
                )?;
                if let Some(path) = &current {
                    *files.get(path).lines.entry(l).or_insert(0) += u64::from(hits);
                }
            }
            "FN" => {
                in_record(&current)?;
                // `FN:line,name`, or lcov 2's `FN:start,end,name` (a name may hold commas).
                let Some((l, rest)) = value.split_once(',') else {
                    return Err(err("FN without a name".into()));
                };
                let l = number(l, "line")?;
                let name = match rest.split_once(',') {
                    Some((end, name)) if end.trim().parse::<u32>().is_ok() => name,
                    _ => rest,
                };
                fn_lines.push((name.trim().to_owned(), l));
            }
            "FNDA" => {
                in_record(&current)?;
                let Some((hits, name)) = value.split_once(',') else {
                    return Err(err("FNDA without a name".into()));
                };
                let hits = number(hits, "hit count")?;
                let e = fn_hits.entry(name.trim().to_owned()).or_insert(0);
                *e = e.saturating_add(hits);
            }
            "LF" => {
                in_record(&current)?;
                summary.0 = Some(number(value, "LF")?);
            }
            "LH" => {
                in_record(&current)?;
                summary.1 = Some(number(value, "LH")?);
            }
            // TN, VER, FNF, FNH, FNL, FNA, BRDA, BRF, BRH, MCDC...: not needed here.
            _ => {}
        }
    }
    if current.is_some() {
        return Err(CoverageError::Lcov {
            line: u32::try_from(text.lines().count()).unwrap_or(u32::MAX),
            why: "the last record has no end_of_record".into(),
        });
    }
    Ok(files.finish())
}

fn clip(s: &str) -> &str {
    let mut end = s.len().min(60);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Where an XML reader is, what element stack it is in.
struct XmlState {
    format: CoverageFormat,
    files: Files,
    stack: Vec<String>,
    seen_root: bool,
    /// Cobertura: the current class's file; JaCoCo: the current package.
    scope: String,
    /// JaCoCo: the current class's source file and the method being read.
    class_file: String,
    method: Option<(String, u32, u32)>,
}

fn xml(format: CoverageFormat, text: &str) -> Result<Coverage, CoverageError> {
    let mut reader = Reader::from_str(text);
    let mut state = XmlState {
        format,
        files: Files::new(),
        stack: Vec::new(),
        seen_root: false,
        scope: String::new(),
        class_file: String::new(),
        method: None,
    };
    loop {
        let event = reader.read_event().map_err(|e| CoverageError::Xml {
            format: format.as_str(),
            position: reader.error_position(),
            why: e.to_string(),
        })?;
        let position = reader.buffer_position();
        let attr_err = |why: String| CoverageError::Xml {
            format: format.as_str(),
            position,
            why,
        };
        match event {
            Event::Start(e) => {
                let attrs = attributes(&e).map_err(attr_err)?;
                state.start(&e, &attrs)?;
                state.stack.push(local_name(&e));
            }
            Event::Empty(e) => {
                let attrs = attributes(&e).map_err(attr_err)?;
                state.start(&e, &attrs)?;
                state.stack.push(local_name(&e));
                state.end();
            }
            Event::End(_) => state.end(),
            Event::Eof => break,
            // DOCTYPE (JaCoCo's report.dtd is never fetched), text, comments: nothing.
            _ => {}
        }
    }
    if !state.seen_root {
        return Err(CoverageError::NotThisFormat {
            format: format.as_str(),
            why: "no root element".into(),
        });
    }
    Ok(state.files.finish())
}

fn local_name(e: &BytesStart<'_>) -> String {
    let n = e.local_name();
    let n: &str = n.as_ref();
    n.to_owned()
}

fn attributes(e: &BytesStart<'_>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(|e| e.to_string())?;
        let key = a.key.local_name();
        let key: &str = key.as_ref();
        let key = key.to_owned();
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| e.to_string())?;
        out.push((key, value.into_owned()));
    }
    Ok(out)
}

fn attr<'a>(attrs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

impl XmlState {
    fn number(
        &self,
        attrs: &[(String, String)],
        key: &str,
        element: &str,
    ) -> Result<u32, CoverageError> {
        let v =
            attr(attrs, key).ok_or_else(|| self.not_this(format!("<{element}> without {key}")))?;
        let v = v.trim();
        if let Ok(n) = v.parse::<i64>() {
            return Ok(u32::try_from(n.max(0)).unwrap_or(u32::MAX));
        }
        match v.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(f.max(0.0).min(f64::from(u32::MAX)) as u32),
            _ => Err(self.not_this(format!("<{element} {key}=\"{}\"> is not a number", clip(v)))),
        }
    }

    fn not_this(&self, why: String) -> CoverageError {
        CoverageError::NotThisFormat {
            format: self.format.as_str(),
            why,
        }
    }

    fn parent(&self) -> Option<&str> {
        self.stack.last().map(String::as_str)
    }

    fn start(
        &mut self,
        e: &BytesStart<'_>,
        attrs: &[(String, String)],
    ) -> Result<(), CoverageError> {
        let name = local_name(e);
        if !self.seen_root {
            self.seen_root = true;
            let want = match self.format {
                CoverageFormat::Cobertura => "coverage",
                _ => "report",
            };
            if name != want {
                return Err(self.not_this(format!("the root element is <{name}>, not <{want}>")));
            }
            return Ok(());
        }
        match self.format {
            CoverageFormat::Cobertura => self.cobertura(&name, attrs),
            _ => self.jacoco(&name, attrs),
        }
    }

    fn cobertura(&mut self, name: &str, attrs: &[(String, String)]) -> Result<(), CoverageError> {
        match name {
            "class" => {
                let file = attr(attrs, "filename")
                    .ok_or_else(|| self.not_this("<class> without filename".into()))?;
                self.scope = file.to_owned();
                self.files.get(file);
            }
            "method" if self.parent() == Some("methods") => {
                let method = attr(attrs, "name").unwrap_or("").to_owned();
                self.method = Some((method, 0, 0));
            }
            "line" => {
                let number = self.number(attrs, "number", "line")?;
                let hits = self.number(attrs, "hits", "line")?;
                let in_method = self.stack.iter().any(|s| s == "method");
                if in_method {
                    // A method's first line gives its line and hits; its lines are also
                    // listed under the class, so they are not counted twice.
                    if let Some(m) = self.method.as_mut()
                        && m.1 == 0
                    {
                        m.1 = number;
                        m.2 = hits;
                    }
                } else if !self.scope.is_empty() {
                    let t = self.files.get(&self.scope.clone());
                    *t.lines.entry(number).or_insert(0) += u64::from(hits);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn jacoco(&mut self, name: &str, attrs: &[(String, String)]) -> Result<(), CoverageError> {
        match name {
            "package" => self.scope = attr(attrs, "name").unwrap_or("").to_owned(),
            "class" => {
                let file = attr(attrs, "sourcefilename").unwrap_or("");
                self.class_file = self.path(file);
            }
            "method" => {
                let method = attr(attrs, "name").unwrap_or("").to_owned();
                let line = match attr(attrs, "line") {
                    Some(_) => self.number(attrs, "line", "method")?,
                    None => 0,
                };
                self.method = Some((method, line, 0));
            }
            "counter"
                if self.parent() == Some("method") && attr(attrs, "type") == Some("METHOD") =>
            {
                let covered = self.number(attrs, "covered", "counter")?;
                if let Some(m) = self.method.as_mut() {
                    m.2 = covered;
                }
            }
            "sourcefile" => {
                let file = attr(attrs, "name")
                    .ok_or_else(|| self.not_this("<sourcefile> without name".into()))?;
                self.class_file = self.path(file);
                self.files.get(&self.class_file.clone());
            }
            "line" if self.parent() == Some("sourcefile") => {
                let nr = self.number(attrs, "nr", "line")?;
                let ci = self.number(attrs, "ci", "line")?;
                let t = self.files.get(&self.class_file.clone());
                *t.lines.entry(nr).or_insert(0) += u64::from(ci);
            }
            _ => {}
        }
        Ok(())
    }

    fn path(&self, file: &str) -> String {
        if self.scope.is_empty() {
            file.to_owned()
        } else {
            format!("{}/{file}", self.scope)
        }
    }

    fn end(&mut self) {
        let Some(name) = self.stack.pop() else {
            return;
        };
        if name == "method"
            && let Some((m, line, hits)) = self.method.take()
        {
            let path = match self.format {
                CoverageFormat::Cobertura => self.scope.clone(),
                _ => self.class_file.clone(),
            };
            if !path.is_empty() {
                self.files.get(&path).functions.push((m, line, hits));
            }
        }
    }
}
