//! Unused imports, variables, parameters, unreachable code and symbols, on snippets that
//! pin what ruff, tsc, rustc and the Go compiler report.

use resolve_pr_analysis::dead::{DeadOptions, unused_symbols};
use resolve_pr_analysis::unused::{UnusedKind, unused_in_file, unused_in_files};
use resolve_pr_analysis::{Dialect, SourceFile, Walk, load};

fn parse(path: &str, text: &str) -> SourceFile {
    let dialect = Dialect::of_path(std::path::Path::new(path)).unwrap();
    SourceFile::parse(path, dialect, text.to_string()).unwrap()
}

/// `(kind, name, one-based line)` of each finding of one file.
fn found(path: &str, text: &str) -> Vec<(UnusedKind, String, u32)> {
    unused_in_file(&parse(path, text))
        .into_iter()
        .map(|u| (u.kind, u.name, u.span.start.line + 1))
        .collect()
}

fn v(items: &[(UnusedKind, &str, u32)]) -> Vec<(UnusedKind, String, u32)> {
    items
        .iter()
        .map(|(k, n, l)| (*k, n.to_string(), *l))
        .collect()
}

use UnusedKind::{Import, Parameter, Symbol, Type, Unreachable, Variable};

// ---------------------------------------------------------------- Python (ruff)

#[test]
fn python_unused_imports_as_ruff_f401_reports_them() {
    let src = r#"from __future__ import annotations
import os
import a.b
import json as json
import xml.dom as planted
from typing import TYPE_CHECKING, Optional
from collections import OrderedDict, deque
import functools
import re
import sys
try:
    import yaml
except ImportError:
    yaml = None
if TYPE_CHECKING:
    from q import Foo

__all__ = ["deque"]

@functools.cache
def f(v: "Foo") -> Optional[int]:
    import shutil
    return f"{re.escape(v)}"
"#;
    assert_eq!(
        found("pkg/__init__.py", src),
        v(&[
            (Import, "os", 2),
            (Import, "a.b", 3),
            (Import, "planted", 5),
            (Import, "OrderedDict", 7),
            (Import, "sys", 10),
            (Import, "shutil", 22),
        ])
    );
    // The finding carries the whole statement: deleting it deletes `deque` too.
    let file = parse("m.py", src);
    let od = unused_in_file(&file)
        .into_iter()
        .find(|u| u.name == "OrderedDict")
        .unwrap();
    assert_eq!(od.statement.unwrap().start.line, 6);
    assert_eq!(od.statement.unwrap().end.line, 6);
    assert_eq!(od.span.start.character, 24);
}

#[test]
fn python_unused_locals_as_ruff_f841_reports_them() {
    let src = r#"def f(items):
    x = 1
    a, b = 1, 2
    c, d = items
    [e, g] = items
    (h := 3)
    k: int = 4
    k2: int
    n = 0
    n += 1
    with open("f") as fh:
        pass
    with open("g") as (p, q):
        pass
    for i in items:
        pass
    m = 1
    m = 2
    _z = 3
    def inner():
        return late
    late = 5
    s = 1
    del s
    t = items
    class K:
        u = t
    return inner, K

def g():
    try:
        pass
    except ValueError as err:
        pass
    except KeyError as used:
        print(used)
    w = 1
    global G
    G = 2
    def inner():
        nonlocal w
        w = 3
    return inner

def h():
    x = 1
    return locals()

try:
    pass
except Exception as top:
    pass
"#;
    assert_eq!(
        found("m.py", src),
        v(&[
            (Variable, "x", 2),
            (Variable, "a", 3),
            (Variable, "b", 3),
            (Variable, "h", 6),
            (Variable, "k", 7),
            (Variable, "fh", 11),
            (Variable, "m", 18),
            (Variable, "err", 33),
            (Variable, "top", 51),
        ])
    );
}

#[test]
fn python_unused_parameters_as_ruff_arg_rules_report_them() {
    let src = r#"import abc
from typing import override

def f(a, b, _c, *args, **kwargs):
    return b

class C:
    def m(self, x):
        return 1

    def __exit__(self, exc_type, exc, tb):
        return None

    def __call__(  # a comment among the parameters
        self, event
    ):
        return 1

    @classmethod
    def k(cls, y):
        return y

    @staticmethod
    def s(z):
        pass

    def stub(self, w):
        ...

    @abc.abstractmethod
    def abstract(self, q):
        return 1

    @override
    def over(self, r):
        return 1

g = lambda p: 0
"#;
    assert_eq!(
        found("m.py", src),
        v(&[
            (Parameter, "a", 4),
            (Parameter, "args", 4),
            (Parameter, "kwargs", 4),
            (Parameter, "x", 8),
            (Parameter, "event", 15),
            (Parameter, "p", 38),
        ])
    );
}

/// Cases from pip's own sources, where ruff and a first version of this disagreed.
#[test]
fn python_noqa_cast_strings_class_scope_order_and_handlers_as_ruff_reads_them() {
    let src = r#"import socket  # noqa: F401
import pip.x  # noqa
import json  # noqa: E501
from typing import (  # noqa: F401
    Dict,
    Set,
)
from typing import IO, Any, List, cast

KEYRING_DISABLED = False

class ParseResults:
    _toklist: List[Any]

    class List(list):
        pass

def f(record_file, get):
    writer = cast("IO[str]", record_file)
    try:
        return get()
    except OSError as exc:
        print(exc)
        global KEYRING_DISABLED
        KEYRING_DISABLED = True
    except ValueError as e:
        e = RuntimeError(e)
        raise e
    return writer
"#;
    assert_eq!(found("m.py", src), v(&[(Import, "json", 3)]));
    // From CPython's standard library.
    let src = r#"import multiprocessing as mp
import multiprocessing.connection

def wait(readers):
    import multiprocessing.synchronize
    return mp.connection.wait(readers)

class Message:
    from email.iterators import walk
"#;
    assert_eq!(
        found("m.py", src),
        v(&[(Import, "multiprocessing.synchronize", 5)])
    );
    let quiet = "# ruff: noqa: F401\nimport os\n\ndef f(a, b):  # noqa: ARG001\n    x = 1\n";
    assert_eq!(found("m.py", quiet), v(&[(Variable, "x", 5)]));
}

// ---------------------------------------------------------------- TypeScript (tsc)

#[test]
fn typescript_imports_as_tsc_no_unused_locals_reports_them() {
    let src = r#"import { A, B } from "./b";
import { C, D } from "./b";
import E from "./b";
import * as NS from "./b";
import type { T1, T2 } from "./b";
import { _quiet } from "./b";
import { Re, De } from "./b";
import { Jsx } from "./b";
export { Re };
export default De;
export const x: T2 = C;
export const el = <Jsx />;
"#;
    let file = parse("a.tsx", src);
    let all = unused_in_file(&file);
    let got: Vec<(UnusedKind, &str, u32)> = all
        .iter()
        .map(|u| (u.kind, u.name.as_str(), u.span.start.line + 1))
        .collect();
    assert_eq!(
        got,
        [
            (Import, "A", 1),
            (Import, "B", 1),
            (Import, "D", 2),
            (Import, "E", 3),
            (Import, "NS", 4),
            (Import, "T1", 5),
        ]
    );
    // A and B share their statement, all of whose names are unused (tsc's 6192).
    assert_eq!(all[0].statement, all[1].statement);
    assert_ne!(all[1].statement, all[2].statement);
}

#[test]
fn typescript_locals_as_tsc_reports_them() {
    let src = r#"import { used } from "./u";
const top = 1;
export const exp = 2;
function helper() { return 1; }
class Local {}
interface I {}
type TA = number;
enum En { X }
export function f(q: number) {
  let x = 1;
  x = 2;
  let y = 0;
  y += 1;
  let z = 0;
  z++;
  const { m, n } = { m: 1, n: 2 };
  const { o, ...rest } = { o: 1, r: 2 };
  const [s1, s2, _s3] = [1, 2, 3];
  const { _obj } = { _obj: 1 };
  for (const it of [1]) {}
  for (const _it of [1]) {}
  try {} catch (e) {}
  function inner() {}
  const shadow = 1;
  {
    const shadow = 2;
  }
  const late = () => later;
  const later = 3;
  return q + s1 + rest.r + shadow + late() + used;
}
"#;
    assert_eq!(
        found("a.ts", src),
        v(&[
            (Variable, "top", 2),
            (Symbol, "helper", 4),
            (Type, "Local", 5),
            (Type, "I", 6),
            (Type, "TA", 7),
            (Type, "En", 8),
            (Variable, "x", 10),
            (Variable, "m", 16),
            (Variable, "n", 16),
            (Variable, "s2", 18),
            (Variable, "_obj", 19),
            (Variable, "it", 20),
            (Symbol, "inner", 23),
            (Variable, "shadow", 26),
        ])
    );
}

#[test]
fn typescript_parameters_as_tsc_no_unused_parameters_reports_them() {
    let src = r#"export function f(a: number, b: number, _c: number) { return b; }
export function over(x: number): void;
export function over(x: number) { return x; }
export interface Shape { area(scale: number): number }
export type Fn = (arg: number) => void;
export abstract class Base { abstract am(y: number): void; }
export class K {
  constructor(private readonly pp: number, public qq: number, private rr: number) { this.rr; }
  private unusedM() {}
  private usedM() {}
  m<TT>(v: number) { this.usedM(); }
}
export const arrow = (w: number) => 0;
"#;
    assert_eq!(
        found("a.ts", src),
        v(&[
            (Parameter, "a", 1),
            (Parameter, "pp", 8),
            (Symbol, "unusedM", 9),
            (Type, "TT", 11),
            (Parameter, "v", 11),
            (Parameter, "w", 13),
        ])
    );
}

/// Cases from rxjs 7.8.1's sources, where tsc and a first version of this disagreed.
#[test]
fn typescript_type_parameters_overloads_and_destructured_members_as_tsc_reads_them() {
    let src = r#"export interface Operator<T, R> {
  call(subscriber: R): void;
}
export class Subject<T> {
  private _buffer: T[] = [];
  constructor(private partial: Partial<T>, private gone?: () => void) {}
  pipe<A>(op1: (x: T) => A): A;
  pipe<A, B>(op1: (x: T) => A, op2: (x: A) => B): B;
  pipe(...ops: any[]): any {
    const { _buffer, partial } = this;
    return [ops, _buffer, partial];
  }
}
"#;
    assert_eq!(
        found("a.ts", src),
        v(&[(Type, "T", 1), (Parameter, "gone", 6)])
    );
}

#[test]
fn typescript_ts_ignore_and_ts_nocheck_silence_tsc() {
    let src = "// @ts-ignore\nimport { a } from './a';\nimport { b } from './b';\nexport {};\n";
    assert_eq!(found("a.ts", src), v(&[(Import, "b", 3)]));
    let src = "// @ts-nocheck\nimport { a } from './a';\nexport {};\n";
    assert_eq!(found("a.ts", src), v(&[]));
}

#[test]
fn javascript_scripts_keep_top_level_names_and_commonjs_modules_do_not() {
    // A script's top-level names are globals: tsc says nothing of them.
    let script = "const lonely = 1;\nfunction alone(a) { const inner = 1; }\n";
    assert_eq!(
        found("s.js", script),
        v(&[(Parameter, "a", 2), (Variable, "inner", 2)])
    );
    // `module.exports` makes a CommonJS module, whose top-level names are locals.
    let module = "const debug = require('./debug')\nconst lonely = 1\nconst used = () => 0\nmodule.exports = used\n";
    assert_eq!(
        found("m.js", module),
        v(&[(Variable, "debug", 1), (Variable, "lonely", 2)])
    );
}

// ---------------------------------------------------------------- Rust (rustc)

/// rustc (checked with `--force-warn unused_imports`) says the same but for four names it
/// reports and this leaves alone, because one file cannot tell: `Read` (a trait, whose
/// methods may be called), `pub(crate) use Arc` (other modules may use it), `RefCell as _`
/// (a trait import) and the glob `std::path::*`.
#[test]
fn rust_unused_imports_as_rustc_reports_them() {
    let src = r#"use std::fmt::Write;
use std::collections::{HashMap, HashSet};
use std::io::{self, Read};
/// See [`BTreeMap`].
use std::collections::BTreeMap;
pub use std::rc::Rc;
pub(crate) use std::sync::Arc;
use std::cell::Cell as C;
use std::cell::RefCell as _;
use std::path::*;
use core::isize;
use serde::Serialize;
use crate::mac;
mod inner {
    pub use std::cell::UnsafeCell;
}

#[derive(Serialize)]
pub struct S;

pub fn f(s: &mut String) -> isize {
    let h: HashMap<u32, u32> = HashMap::new();
    mac!(h);
    let _ = write!(s, "{}", 1);
    isize::MAX
}
"#;
    assert_eq!(
        found("src/lib.rs", src),
        v(&[
            (Import, "HashSet", 2),
            (Import, "self", 3),
            (Import, "std::collections::BTreeMap", 5),
            (Import, "std::cell::Cell as C", 8),
            (Import, "std::cell::UnsafeCell", 15),
        ])
    );
}

/// Cases from regex-automata, aho-corasick, serde_json and hyper, where rustc and a first
/// version of this disagreed.
#[test]
fn rust_paths_macro_bodies_crate_traits_and_cfg_attr_as_rustc_reads_them() {
    let lib = r#"use regex_syntax::hir::{self, Hir};
use core::iter::FusedIterator;
use crate::error::ErrorCode;
use crate::util::int::Usize;
use crate::unused::Gone;

// A parameter named like a module does not shadow the module in a path.
pub fn top(hir: &Hir) -> bool {
    matches!(hir.kind(), hir::HirKind::Empty)
}

macro_rules! iter {
    ($name:ident) => {
        impl FusedIterator for $name {}
        fn code() -> ErrorCode { ErrorCode::Eof }
    };
}

pub fn len(x: &[u8]) -> usize {
    x.len().as_usize()
}

pub fn poll(
    #[cfg_attr(not(feature = "x"), allow(unused_variables))]
    cx: u32,
) {}
"#;
    let traits = "pub trait Usize { fn as_usize(&self) -> usize; }\n";
    // One file alone cannot know `Usize` is a trait whose method is called.
    assert_eq!(
        found("src/lib.rs", lib),
        v(&[
            (Import, "crate::util::int::Usize", 4),
            (Import, "crate::unused::Gone", 5),
            (Parameter, "cx", 25),
        ])
    );
    let files = [parse("src/lib.rs", lib), parse("src/util/int.rs", traits)];
    let got: Vec<String> = unused_in_files(&files)
        .into_iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(got, ["crate::unused::Gone", "cx"]);
}

/// Cases from this repository, which builds without a warning.
#[test]
fn rust_match_guards_use_prefixes_format_specs_attribute_paths_and_child_modules() {
    let lib = r#"use crate::common;
use common::Fixture;
use super::threads::big_int;
use std::time::{Duration, Instant};
use std::io::IsTerminal;

#[derive(serde::Deserialize)]
pub struct Page {
    #[serde(default, deserialize_with = "big_int")]
    pub total: u64,
}

pub fn pick(others: &[u32], token: bool, x: u32) -> Option<Fixture> {
    let fits = others.len() > 1;
    let width = 8;
    let unused_hex = 1;
    println!("{x:>width$} {:x}", 255);
    match others {
        _ if token => None,
        [_] if fits => None,
        _ => None,
    }
}
"#;
    assert_eq!(
        found("tests/it/main.rs", lib),
        v(&[
            (Import, "Duration", 4),
            (Import, "Instant", 4),
            (Variable, "unused_hex", 16),
        ])
    );
    // A child module's `use super::*;` takes every import of its parent.
    let child = "use super::*;\n\npub fn t() -> Duration { Duration::ZERO }\n";
    let files = [
        parse("tests/it/main.rs", lib),
        parse("tests/it/child.rs", child),
    ];
    let got: Vec<String> = unused_in_files(&files)
        .into_iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(got, ["unused_hex"]);
    // An inline `mod tests { use super::*; }` takes from its own file, not the parent.
    let inline = "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn t() { f() }\n}\n";
    let files = [
        parse("tests/it/main.rs", lib),
        parse("tests/it/other.rs", inline),
    ];
    let got: Vec<String> = unused_in_files(&files)
        .into_iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(got, ["Duration", "Instant", "unused_hex"]);
    let named = "use super::{Instant};\n";
    let files = [
        parse("tests/it/main.rs", lib),
        parse("tests/it/child/mod.rs", named),
    ];
    let got: Vec<String> = unused_in_files(&files)
        .into_iter()
        .map(|u| u.name)
        .collect();
    // (The child's own import of `Instant` is unused in the child.)
    assert_eq!(got, ["Duration", "unused_hex", "Instant"]);
}

#[test]
fn rust_unused_variables_as_rustc_reports_them() {
    let src = r#"pub trait T { fn t(&self, x: u32); }
pub struct S;
impl T for S { fn t(&self, x: u32) {} }
pub fn f(a: u32, _b: u32, c: u32, opt: Option<u32>) -> u32 {
    let mut n = 0;
    n += 1;
    let mut m = 0;
    m = 2;
    let v = c;
    let v = v + 1;
    let w = 5;
    let clo = |q: u32| 0;
    match opt { Some(k) => {}, None => {} }
    let (p1, p2) = (1, 2);
    if let Some(opt) = opt { let _ = opt; }
    for i in 0..1 {}
    #[cfg(target_endian = "big")]
    let endian = 1;
    let label = "x";
    println!("{label} {}", p2 + clo(0));
    match opt { Some(a1) | Some(a1) if a1 > 0 => {}, _ => {} }
    v
}
"#;
    assert_eq!(
        found("src/lib.rs", src),
        v(&[
            (Parameter, "x", 3),
            (Parameter, "a", 4),
            (Variable, "n", 5),
            (Variable, "m", 7),
            (Variable, "w", 11),
            (Parameter, "q", 12),
            (Variable, "k", 13),
            (Variable, "p1", 14),
            (Variable, "i", 16),
        ])
    );
}

// ---------------------------------------------------------------- Go (compiler)

#[test]
fn go_unused_imports_and_variables_as_the_compiler_reports_them() {
    let src = r#"package p

import (
	"fmt"
	"os"
	str "strings"
	_ "embed"
	"math/rand"
	"gopkg.in/yaml.v3"
	"github.com/x/y/v2"
	"net/http"
)

var pkgLevel = 1

func F(x interface{}, unusedParam int) (int, error) {
	a := 1
	b := 2
	b = 3
	c := 0
	c++
	d := 0
	d += 1
	var e int
	f, g := 1, 2
	_ = g
	f2, err := 1, error(nil)
	f3, err := 2, error(nil)
	switch t := x.(type) {
	case int:
	}
	for i, v := range []int{1} {
		_ = v
	}
	h := func(p int) { _ = f3 }
	h(1)
	var client http.Client
	_ = client
	_ = y.Z
	return rand.Int() + f2, err
	fmt.Println("unreachable")
}
"#;
    assert_eq!(
        found("p.go", src),
        v(&[
            (Import, "\"os\"", 5),
            (Import, "str \"strings\"", 6),
            (Import, "\"gopkg.in/yaml.v3\"", 9),
            (Variable, "a", 17),
            (Variable, "b", 18),
            (Variable, "e", 24),
            (Variable, "f", 25),
            (Variable, "t", 29),
            (Variable, "i", 32),
            (Unreachable, "fmt.Println(\"unreachable\")", 41),
        ])
    );
}

// ---------------------------------------------------------------- C (gcc -Wunused)

#[test]
fn c_unused_locals_as_gcc_wunused_reports_them() {
    let src = r#"#include <stdio.h>
static int file_counter;
static int file_used;
extern int elsewhere;
int global_api;

int f(int unused_param, int n) {
    int unused = 0;
    int set_only;
    set_only = 1;
    int bumped = 0;
    bumped++;
    int *p = &n, arr[4];
    extern int ext;
    for (unsigned start = 0, end = start + 2, j = start; j < end; j++) {}
    const int seen = 3;
    #define READ_SEEN() (seen + 1)
    return READ_SEEN() + file_used + p[0];
}
"#;
    assert_eq!(
        found("a.c", src),
        v(&[
            (Variable, "file_counter", 2),
            (Variable, "unused", 8),
            (Variable, "set_only", 9),
            (Variable, "arr", 13),
            (Variable, "ext", 14),
        ])
    );
}

// ---------------------------------------------------------------- Unreachable code

#[test]
fn statements_after_return_throw_raise_break_and_panic_are_unreachable() {
    let py = "def f(x):\n    if x:\n        return 1\n        print(x)\n        x += 1\n    raise ValueError\n    y = 2\n";
    let got: Vec<_> = unused_in_file(&parse("a.py", py))
        .into_iter()
        .filter(|u| u.kind == Unreachable)
        .map(|u| (u.span.start.line + 1, u.span.end.line + 1, u.name))
        .collect();
    assert_eq!(
        got,
        [(4, 5, "print(x)".to_string()), (7, 7, "y = 2".to_string())]
    );
    // A function declaration after `return` is hoisted: not unreachable.
    let ts = "export function f(x: number) {\n  switch (x) {\n    case 1:\n      break;\n      x++;\n  }\n  return g();\n  function g() { return 1; }\n  throw new Error();\n}\n";
    let got: Vec<_> = unused_in_file(&parse("a.ts", ts))
        .into_iter()
        .filter(|u| u.kind == Unreachable)
        .map(|u| (u.span.start.line + 1, u.span.end.line + 1))
        .collect();
    assert_eq!(got, [(5, 5), (9, 9)]);
    let rs = "pub fn f(x: u32) -> u32 {\n    if x > 1 { panic!(\"no\"); }\n    return x;\n    fn item() {}\n    let y = 1;\n    y\n}\n";
    let got: Vec<_> = unused_in_file(&parse("a.rs", rs))
        .into_iter()
        .filter(|u| u.kind == Unreachable)
        .map(|u| (u.span.start.line + 1, u.span.end.line + 1))
        .collect();
    assert_eq!(got, [(5, 6)]);
    // A `return` under `#[cfg(…)]` may not be compiled: what follows is not dead.
    let rs = "pub fn f() -> u32 {\n    #[cfg(not(old))]\n    return 1;\n    #[cfg(old)]\n    return 2;\n}\n";
    assert!(unused_in_file(&parse("a.rs", rs)).is_empty());
    let go = "package p\n\nimport \"os\"\n\nfunc f() {\n\tos.Exit(1)\n\tprintln()\nlabel:\n\tprintln()\n\tgoto label\n}\n";
    let got: Vec<_> = unused_in_file(&parse("a.go", go))
        .into_iter()
        .filter(|u| u.kind == Unreachable)
        .map(|u| (u.span.start.line + 1, u.span.end.line + 1))
        .collect();
    assert_eq!(got, [(7, 7)]);
    let c = "int f(int x) {\n  return x;\n  x++;\n}\n";
    let got: Vec<_> = unused_in_file(&parse("a.c", c))
        .into_iter()
        .map(|u| (u.kind, u.span.start.line + 1))
        .collect();
    assert_eq!(got, [(Unreachable, 3)]);
}

#[test]
fn broken_code_gives_findings_without_panicking() {
    for (path, text) in [
        ("a.py", "def f(:\n  import os\n  x = = 1\n"),
        ("a.ts", "import { a from 'b';\nfunction (x: { return\n"),
        ("a.rs", "use std::{io;\nfn f(x: ) { let = 1; }\n"),
        ("a.go", "package p\nimport (\n\"fmt\"\nfunc f( { x := }\n"),
        ("a.c", "int f( { return; x"),
    ] {
        let _ = unused_in_file(&parse(path, text));
        let _ = unused_symbols(&[parse(path, text)], &DeadOptions::default());
    }
}

#[test]
fn deeply_nested_code_is_walked_without_overflowing_the_stack() {
    // 20 000 terms: a left-leaning tree 20 000 levels deep.
    let chain = vec!["x"; 20_000].join(" + ");
    let py = format!(
        "import os\nimport sys\n\ndef f(x):\n    unused = 1\n    return {chain} + len(sys.argv)\n"
    );
    assert_eq!(
        found("a.py", &py),
        v(&[(Import, "os", 1), (Variable, "unused", 5)])
    );
    let ts =
        format!("import {{ a, b }} from './m';\nexport const y = (x: number) => {chain} + b;\n");
    assert_eq!(found("a.ts", &ts), v(&[(Import, "a", 1)]));
    let rs = format!("use std::fmt;\npub fn f(x: u32) -> u32 {{ {chain} }}\n");
    assert_eq!(found("a.rs", &rs), v(&[(Import, "std::fmt", 1)]));
    let go = format!("package p\n\nimport \"os\"\n\nfunc f(x int) int {{ return {chain} }}\n");
    assert_eq!(found("a.go", &go), v(&[(Import, "\"os\"", 3)]));
}

// ---------------------------------------------------------------- Symbols across files

fn symbols(files: &[(&str, &str)], options: &DeadOptions) -> Vec<(UnusedKind, String, String)> {
    let parsed: Vec<SourceFile> = files.iter().map(|(p, t)| parse(p, t)).collect();
    unused_symbols(&parsed, options)
        .into_iter()
        .map(|u| (u.kind, u.file, u.name))
        .collect()
}

fn sym(items: &[(UnusedKind, &str, &str)]) -> Vec<(UnusedKind, String, String)> {
    items
        .iter()
        .map(|(k, f, n)| (*k, f.to_string(), n.to_string()))
        .collect()
}

#[test]
fn rust_symbols_no_file_references_are_unused_unless_public_or_entry_points() {
    let files = [
        (
            "src/lib.rs",
            "mod util;\npub mod api;\nfn lonely() {}\nfn _assert_send() {}\nstruct Unbuilt;\nconst LIMIT: u32 = 1;\npub fn public() { util::helper(); }\n#[no_mangle]\nfn exported_c() {}\n#[cfg(test)]\nmod tests {\n    fn fixture() {}\n    #[test]\n    fn t() {}\n}\n",
        ),
        (
            "src/util.rs",
            "pub fn helper() {}\npub fn unreachable_pub() {}\npub struct Thing;\nimpl Thing { pub fn method(&self) {} }\nimpl Default for Thing { fn default() -> Self { Thing } }\n",
        ),
        ("src/api.rs", "pub fn exposed() {}\nfn private_here() {}\n"),
        ("src/main.rs", "fn main() {}\n"),
    ];
    assert_eq!(
        symbols(&files, &DeadOptions::default()),
        sym(&[
            (Symbol, "src/api.rs", "private_here"),
            (Symbol, "src/lib.rs", "lonely"),
            (Type, "src/lib.rs", "Unbuilt"),
            (Symbol, "src/lib.rs", "LIMIT"),
            // `mod util;` is private: its `pub` items are not API.
            (Symbol, "src/util.rs", "unreachable_pub"),
        ])
    );
    let everything = DeadOptions {
        aggressive: true,
        include_tests: true,
        include_private: true,
    };
    let got = symbols(&files, &everything);
    for extra in ["exposed", "method", "fixture"] {
        assert!(got.iter().any(|(_, _, n)| n == extra), "{extra}: {got:?}");
    }
    for entry in [
        "main",
        "t",
        "exported_c",
        "default",
        "helper",
        "_assert_send",
    ] {
        assert!(!got.iter().any(|(_, _, n)| n == entry), "{entry}: {got:?}");
    }
    let public_only = DeadOptions {
        aggressive: true,
        include_tests: false,
        include_private: false,
    };
    assert_eq!(
        symbols(&files, &public_only),
        sym(&[
            (Symbol, "src/api.rs", "exposed"),
            (Symbol, "src/lib.rs", "public"),
        ])
    );
}

#[test]
fn python_typescript_go_and_c_symbols_across_files() {
    let files = [
        (
            "pkg/core.py",
            "import click\n\nMAX = 3\n_LIMIT = 4\n\ndef _helper():\n    pass\n\ndef _registered():\n    pass\n\n@click.command()\ndef _cli():\n    pass\n\n@_call_aside\ndef _initialize():\n    pass\n\n@contextlib.contextmanager\ndef _ctx():\n    yield\n\nclass _Hidden:\n    def __repr__(self):\n        return ''\n\n    def _unused_method(self):\n        pass\n",
        ),
        (
            "pkg/other.py",
            "from .core import MAX\nREGISTRY = {'x': '_registered'}\n",
        ),
        (
            "tests/test_core.py",
            "def _fixture():\n    pass\n\ndef test_it():\n    pass\n",
        ),
        (
            "src/a.ts",
            "import { used } from './b';\nexport function api() { return used; }\nfunction local() {}\nexport interface Shape {}\n",
        ),
        (
            "src/b.ts",
            "export const used = 1;\nexport const spare = 2;\n",
        ),
        (
            "p/p.go",
            "package p\n\nfunc helper() {}\nfunc Exported() {}\nfunc init() {}\ntype shape struct{}\nfunc (s shape) area() int { return 0 }\n",
        ),
        (
            "p/p_test.go",
            "package p\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\nfunc benchHelper() {}\n",
        ),
        (
            "c/x.c",
            "static int unused_static(void) { return 0; }\nint visible(void) { return 1; }\nint main(void) { return 0; }\n",
        ),
    ];
    assert_eq!(
        symbols(&files, &DeadOptions::default()),
        sym(&[
            (Symbol, "c/x.c", "unused_static"),
            (Symbol, "p/p.go", "helper"),
            (Symbol, "pkg/core.py", "_LIMIT"),
            (Symbol, "pkg/core.py", "_helper"),
            (Symbol, "pkg/core.py", "_ctx"),
            (Type, "pkg/core.py", "_Hidden"),
            (Symbol, "src/a.ts", "local"),
        ])
    );
    let aggressive = DeadOptions {
        aggressive: true,
        include_tests: true,
        include_private: true,
    };
    let got = symbols(&files, &aggressive);
    for extra in [
        "spare",
        "Shape",
        "Exported",
        "area",
        "_unused_method",
        "_fixture",
        "benchHelper",
        "visible",
    ] {
        assert!(got.iter().any(|(_, _, n)| n == extra), "{extra}: {got:?}");
    }
    for entry in [
        "init",
        "TestX",
        "test_it",
        "__repr__",
        "_cli",
        "_initialize",
        "_registered",
        "MAX",
        "main",
        "used",
    ] {
        assert!(!got.iter().any(|(_, _, n)| n == entry), "{entry}: {got:?}");
    }
}

#[test]
fn findings_of_a_loaded_checkout_name_files_by_relative_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.py"), "import os\n").unwrap();
    let loaded = load(dir.path(), &Walk::sources(dir.path()), 10).unwrap();
    let u = unused_in_file(&loaded.files[0]);
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].file, "src/a.py");
    assert_eq!(u[0].symbol_kind, "module");
    assert_eq!(u[0].reason, "imported but never used");
    assert!(!u[0].exported);
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Not a test: writes every finding of the checkout `DEAD_DIR` as JSON lines to
/// `DEAD_OUT`, for comparing against ruff, tsc, rustc and the Go compiler.
#[test]
#[ignore]
fn dump_findings_of_a_checkout() {
    let (Ok(dir), Ok(out)) = (std::env::var("DEAD_DIR"), std::env::var("DEAD_OUT")) else {
        return;
    };
    let root = std::path::Path::new(&dir);
    let t0 = std::time::Instant::now();
    let loaded = load(root, &Walk::sources(root), 100_000).unwrap();
    let t1 = std::time::Instant::now();
    let mut lines = String::new();
    let mut all = unused_in_files(&loaded.files);
    let t2 = std::time::Instant::now();
    let options = DeadOptions {
        aggressive: false,
        include_tests: true,
        include_private: true,
    };
    all.extend(unused_symbols(&loaded.files, &options));
    let t3 = std::time::Instant::now();
    std::fs::write(
        format!("{out}.time"),
        format!(
            "load {:?} unused {:?} symbols {:?}\n",
            t1 - t0,
            t2 - t1,
            t3 - t2
        ),
    )
    .unwrap();
    for u in all {
        let stmt = u
            .statement
            .map(|s| {
                format!(
                    "[{},{},{},{}]",
                    s.start.line, s.start.character, s.end.line, s.end.character
                )
            })
            .unwrap_or_else(|| "null".into());
        lines.push_str(&format!(
            "{{\"kind\":\"{:?}\",\"file\":{},\"name\":{},\"line\":{},\"col\":{},\"end_line\":{},\"symbol_kind\":\"{}\",\"statement\":{},\"exported\":{}}}\n",
            u.kind,
            json_str(&u.file),
            json_str(&u.name),
            u.span.start.line,
            u.span.start.character,
            u.span.end.line,
            u.symbol_kind,
            stmt,
            u.exported
        ));
    }
    std::fs::write(out, lines).unwrap();
}
