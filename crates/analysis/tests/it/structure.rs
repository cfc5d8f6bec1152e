//! Outlines, type relations, hierarchies and modules of realistic sources in every
//! language with a grammar.

use resolve_pr_analysis::structure::{
    Module, RelationKind, SYMBOL_KINDS, Symbol, hierarchy, modules, relations, symbols,
};
use resolve_pr_analysis::{Dialect, Pos, SourceFile, Span, Walk, load};

fn parse(path: &str, text: &str) -> SourceFile {
    let dialect = Dialect::of_path(std::path::Path::new(path)).unwrap();
    SourceFile::parse(path, dialect, text.to_owned()).unwrap()
}

/// Each symbol as (qualified name, kind, public, parent's qualified name).
fn outline(path: &str, text: &str) -> Vec<(String, &'static str, bool, Option<String>)> {
    let syms = symbols(&parse(path, text));
    syms.iter()
        .map(|s| {
            (
                s.qualified.clone(),
                s.symbol_kind,
                s.public,
                s.parent.map(|p| syms[p].qualified.clone()),
            )
        })
        .collect()
}

fn row(
    q: &str,
    kind: &'static str,
    public: bool,
    parent: Option<&str>,
) -> (String, &'static str, bool, Option<String>) {
    (q.to_owned(), kind, public, parent.map(str::to_owned))
}

fn span(l0: u32, c0: u32, l1: u32, c1: u32) -> Span {
    Span {
        start: Pos {
            line: l0,
            character: c0,
        },
        end: Pos {
            line: l1,
            character: c1,
        },
    }
}

const RUST: &str = r#"use std::fmt;
use std::pin::Pin;

/// A parsed version.
#[derive(Debug, Clone)]
pub struct Version {
    pub major: u64,
    pre: String,
}

pub(crate) enum Op {
    Exact,
    Wildcard { star: char },
}

pub trait Visit: fmt::Debug + Send {
    type Output;
    const NAME: &'static str;
    fn visit(&mut self, v: &Version) -> Self::Output;
    fn name() -> &'static str { Self::NAME }
}

impl Version {
    pub const ZERO: Version = Version::new(0);
    pub const fn new(major: u64) -> Self {
        fn check() {}
        Version { major, pre: String::new() }
    }
    pub fn poll(self: Pin<&mut Self>) {}
    fn is_pre(&self) -> bool { !self.pre.is_empty() }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "{}", self.major) }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
}

pub mod parse {
    pub fn version(text: &str) -> Option<super::Version> { None }
    fn digits(text: &str) -> usize { 0 }
}

pub type Result<T> = std::result::Result<T, String>;
pub static DEFAULT: u64 = 1;
const _: () = assert!(std::mem::size_of::<Version>() > 8);

#[macro_export]
macro_rules! version { ($m:expr) => { $crate::Version::new($m) }; }

macro_rules! internal { () => {}; }

extern "C" {
    fn abs(x: i32) -> i32;
}
"#;

#[test]
fn rust_outline_lists_what_rust_analyzer_lists_with_impl_items_on_their_type() {
    assert_eq!(
        outline("src/lib.rs", RUST),
        [
            row("Version", "struct", true, None),
            row("Version::major", "field", true, Some("Version")),
            row("Version::pre", "field", false, Some("Version")),
            // `pub(crate)` is not visible outside the crate.
            row("Op", "enum", false, None),
            row("Op::Exact", "enummember", false, Some("Op")),
            row("Op::Wildcard", "enummember", false, Some("Op")),
            row("Op::Wildcard::star", "field", false, Some("Op::Wildcard")),
            row("Visit", "interface", true, None),
            row("Visit::Output", "typeparameter", true, Some("Visit")),
            row("Visit::NAME", "constant", true, Some("Visit")),
            row("Visit::visit", "method", true, Some("Visit")),
            row("Visit::name", "function", true, Some("Visit")),
            row("Version::ZERO", "constant", true, Some("Version")),
            // An associated function without `self` is a function, as rust-analyzer says.
            row("Version::new", "function", true, Some("Version")),
            row(
                "Version::new::check",
                "function",
                false,
                Some("Version::new")
            ),
            row("Version::poll", "method", true, Some("Version")),
            row("Version::is_pre", "method", false, Some("Version")),
            // A trait impl's items are as public as the type.
            row("Version::fmt", "method", true, Some("Version")),
            row("Op::fmt", "method", false, Some("Op")),
            row("parse", "module", true, None),
            row("parse::version", "function", true, Some("parse")),
            row("parse::digits", "function", false, Some("parse")),
            row("Result", "typeparameter", true, None),
            row("DEFAULT", "constant", true, None),
            row("version", "function", true, None),
            row("internal", "function", false, None),
            row("abs", "function", false, None),
        ]
    );
    let syms = symbols(&parse("src/lib.rs", RUST));
    let version = &syms[0];
    // Two fields, two associated items of each impl block and the Display impl's fmt.
    assert_eq!(version.children, 2 + 4 + 1);
    assert_eq!(version.name_span, span(5, 11, 5, 18));
    assert_eq!(version.span, span(5, 0, 8, 1));
}

#[test]
fn rust_methods_of_a_type_declared_elsewhere_are_qualified_by_it_without_a_parent() {
    let text = "use crate::Version;\nimpl<'a> From<&'a str> for Version {\n    fn from(s: &'a str) -> Self { todo!() }\n}\nimpl<T> Wrapper<T> { pub fn get(&self) -> &T { &self.0 } }\n";
    assert_eq!(
        outline("src/impls.rs", text),
        [
            row("Version::from", "function", true, None),
            row("Wrapper::get", "method", true, None),
        ]
    );
}

const TS: &str = r#"import { Base } from "./base";

export abstract class Shape<T> extends Base<T> implements Drawable, Named {
  private cache = new Map<string, number>();
  #id = 0;
  protected static count?: number;
  constructor(public readonly name: string) { super(); }
  abstract area(): number;
  get label(): string { return this.name; }
  scale(by: number): this;
  scale(by: number, around: number): this;
  scale(by: number, around?: number): this {
    function clamp(x: number) { return x; }
    return this;
  }
  private log() {}
}

export interface Drawable extends Paintable<string> {
  draw(ctx: CanvasRenderingContext2D): void;
  readonly layer: number;
}

type Point = { x: number; y: number };

export enum Color { Red, Green = "green" }

export function area(s: Shape<unknown>): number;
export function area(s: Shape<unknown>, unit: string): number;
export function area(s: Shape<unknown>, unit?: string): number {
  const half = 0.5;
  const twice = (n: number) => n * 2;
  return twice(s.area() * half);
}

export const measure = (s: Shape<unknown>) => s.area(), VERSION = "1.0";
let counter = 0;
counter = 1;
const hidden = function () {};

export namespace Geometry {
  export function distance(a: Point, b: Point): number { return 0; }
  function square(x: number) { return x * x; }
}

describe("shapes", () => {
  const fixture = 1;
  it("works", () => {});
});

export { hidden };
"#;

#[test]
fn typescript_outline_merges_overloads_and_marks_exports_and_private_members() {
    assert_eq!(
        outline("src/shape.ts", TS),
        [
            row("Shape", "class", true, None),
            row("Shape.cache", "property", false, Some("Shape")),
            row("Shape.#id", "property", false, Some("Shape")),
            row("Shape.count", "property", true, Some("Shape")),
            row("Shape.constructor", "constructor", true, Some("Shape")),
            row("Shape.area", "method", true, Some("Shape")),
            row("Shape.label", "property", true, Some("Shape")),
            row("Shape.scale", "method", true, Some("Shape")),
            row("Shape.scale.clamp", "function", false, Some("Shape.scale")),
            row("Shape.log", "method", false, Some("Shape")),
            row("Drawable", "interface", true, None),
            row("Drawable.draw", "method", true, Some("Drawable")),
            row("Drawable.layer", "property", true, Some("Drawable")),
            row("Point", "typeparameter", false, None),
            row("Color", "enum", true, None),
            row("Color.Red", "enummember", true, Some("Color")),
            row("Color.Green", "enummember", true, Some("Color")),
            row("area", "function", true, None),
            // A function's local constants are not listed, its local functions are.
            row("area.twice", "function", false, Some("area")),
            row("measure", "function", true, None),
            row("VERSION", "variable", true, None),
            row("counter", "variable", false, None),
            // Exported by the `export { hidden }` at the end.
            row("hidden", "function", true, None),
            row("Geometry", "namespace", true, None),
            row("Geometry.distance", "function", true, Some("Geometry")),
            row("Geometry.square", "function", false, Some("Geometry")),
        ]
    );
    let syms = symbols(&parse("src/shape.ts", TS));
    let scale = syms.iter().find(|s| s.name == "scale").unwrap();
    // The overloads are one symbol spanning the implementation.
    assert_eq!(scale.span.start.line, 11);
    assert_eq!(scale.children, 1);
}

#[test]
fn javascript_outline_reads_fields_default_exports_and_commonjs_functions() {
    let text = "export default class extends EventEmitter {\n  #queue = [];\n  size = 0;\n  static of(x) { return x; }\n}\nfunction helper() {}\nexport const run = async () => {};\n";
    assert_eq!(
        outline("lib/queue.js", text),
        [
            row("default", "class", true, None),
            row("default.#queue", "property", false, Some("default")),
            row("default.size", "property", true, Some("default")),
            row("default.of", "method", true, Some("default")),
            row("helper", "function", false, None),
            row("run", "function", true, None),
        ]
    );
    let tsx = "export function App({ title }: Props) {\n  const Header = () => <h1>{title}</h1>;\n  return <Header />;\n}\n";
    assert_eq!(
        outline("src/App.tsx", tsx),
        [
            row("App", "function", true, None),
            row("App.Header", "function", false, Some("App")),
        ]
    );
}

const PY: &str = r#""""Items of a TOML document."""
from __future__ import annotations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .container import Container

DEFAULT_INDENT = 4
_cache = {}
version, build = "1.0", 3
version = "1.1"

class Item(abc.ABC):
    kind: str = "item"
    MAX_WIDTH = 80

    def __init__(self, trivia):
        self._trivia = trivia

    @property
    def trivia(self):
        return self._trivia

    @trivia.setter
    def trivia(self, value):
        self._trivia = value

    @abc.abstractmethod
    def as_string(self) -> str: ...

    def _validate(self):
        def check(x):
            return x
        return check

    def __repr__(self):
        return f"<{self.kind}>"

    class Meta:
        ordering = "name"

def item(value, _parent=None):
    local = 1
    return Item(value)

class _Private:
    def visible_name(self): pass
"#;

#[test]
fn python_outline_reads_classes_methods_properties_and_module_constants() {
    assert_eq!(
        outline("tomlkit/items.py", PY),
        [
            row("DEFAULT_INDENT", "constant", true, None),
            row("_cache", "variable", false, None),
            row("version", "variable", true, None),
            row("build", "variable", true, None),
            row("Item", "class", true, None),
            row("Item.kind", "variable", true, Some("Item")),
            row("Item.MAX_WIDTH", "constant", true, Some("Item")),
            row("Item.__init__", "constructor", true, Some("Item")),
            // A property's setter is the same property.
            row("Item.trivia", "property", true, Some("Item")),
            row("Item.as_string", "method", true, Some("Item")),
            row("Item._validate", "method", false, Some("Item")),
            row(
                "Item._validate.check",
                "function",
                false,
                Some("Item._validate")
            ),
            row("Item.__repr__", "method", true, Some("Item")),
            row("Item.Meta", "class", true, Some("Item")),
            row("Item.Meta.ordering", "variable", true, Some("Item.Meta")),
            row("item", "function", true, None),
            row("_Private", "class", false, None),
            row("_Private.visible_name", "method", false, Some("_Private")),
        ]
    );
    let syms = symbols(&parse("tomlkit/items.py", PY));
    let trivia = syms.iter().find(|s| s.name == "trivia").unwrap();
    // The decorator is part of the declaration.
    assert_eq!(
        trivia.span.start,
        Pos {
            line: 19,
            character: 4
        }
    );
    assert_eq!(trivia.name_span, span(20, 8, 20, 14));
}

const GO: &str = r#"package toml

import (
	"fmt"
	"io"
)

// Decoder reads TOML.
type Decoder struct {
	io.Reader
	*state
	Strict, Verbose bool
	depth           int
}

type Parser interface {
	fmt.Stringer
	Parse(data []byte) (any, error)
	reset()
}

type Kind int
type Alias = Decoder

const (
	KindTable Kind = iota
	kindArray
)

var ErrEOF, errDepth = io.EOF, fmt.Errorf("depth")

func NewDecoder(r io.Reader) *Decoder { return &Decoder{Reader: r} }

func (d *Decoder) Decode(v any) error { return nil }

func (d Decoder) peek() byte { return 0 }

func (s *Set[T]) Add(v T) {}
"#;

#[test]
fn go_outline_attaches_methods_to_their_receiver_and_reads_exported_names() {
    assert_eq!(
        outline("toml/decode.go", GO),
        [
            row("Decoder", "struct", true, None),
            row("Decoder.Reader", "field", true, Some("Decoder")),
            row("Decoder.state", "field", false, Some("Decoder")),
            row("Decoder.Strict", "field", true, Some("Decoder")),
            row("Decoder.Verbose", "field", true, Some("Decoder")),
            row("Decoder.depth", "field", false, Some("Decoder")),
            row("Parser", "interface", true, None),
            row("Parser.Parse", "method", true, Some("Parser")),
            row("Parser.reset", "method", false, Some("Parser")),
            row("Kind", "class", true, None),
            row("Alias", "typeparameter", true, None),
            row("KindTable", "constant", true, None),
            row("kindArray", "constant", false, None),
            row("ErrEOF", "variable", true, None),
            row("errDepth", "variable", false, None),
            row("NewDecoder", "function", true, None),
            row("Decoder.Decode", "method", true, Some("Decoder")),
            row("Decoder.peek", "method", false, Some("Decoder")),
            // A generic receiver's type is named without its parameters; declared elsewhere.
            row("Set.Add", "method", true, None),
        ]
    );
}

const C_SOURCE: &str = r#"#include <stdlib.h>
#include "list.h"

static int live_nodes = 0;
const char *list_version = "1.0";

typedef struct {
    int x, y;
} point;

typedef struct node {
    struct node *next;
    void *value;
} node_t;

struct arena { char buf[4096]; size_t used; };

enum color { RED, GREEN = 2 };

typedef int (*compare_fn)(const void *, const void *);

node_t *list_push(node_t *head, void *value);
void list_free(node_t *head);

static node_t *alloc_node(void) { live_nodes++; return malloc(sizeof(node_t)); }

node_t *list_push(node_t *head, void *value) {
    node_t *n = alloc_node();
    n->next = head;
    return n;
}

#ifdef DEBUG
void list_dump(const node_t *head) {}
#endif
"#;

#[test]
fn c_outline_lists_functions_once_types_with_fields_and_globals() {
    assert_eq!(
        outline("src/list.c", C_SOURCE),
        [
            row("live_nodes", "variable", false, None),
            row("list_version", "variable", true, None),
            // An anonymous struct is named by its typedef.
            row("point", "struct", true, None),
            row("point.x", "field", true, Some("point")),
            row("point.y", "field", true, Some("point")),
            row("node", "struct", true, None),
            row("node.next", "field", true, Some("node")),
            row("node.value", "field", true, Some("node")),
            row("node_t", "typeparameter", true, None),
            row("arena", "struct", true, None),
            row("arena.buf", "field", true, Some("arena")),
            row("arena.used", "field", true, Some("arena")),
            row("color", "enum", true, None),
            row("color.RED", "enummember", true, Some("color")),
            row("color.GREEN", "enummember", true, Some("color")),
            row("compare_fn", "typeparameter", true, None),
            // A prototype of a function defined here is the definition's; one without
            // a body here (in a header's sense) is listed.
            row("list_free", "function", true, None),
            row("alloc_node", "function", false, None),
            row("list_push", "function", true, None),
            row("list_dump", "function", true, None),
        ]
    );
}

#[test]
fn every_kind_is_an_lsp_symbol_kind() {
    let files = [
        parse("src/lib.rs", RUST),
        parse("src/shape.ts", TS),
        parse("tomlkit/items.py", PY),
        parse("toml/decode.go", GO),
        parse("src/list.c", C_SOURCE),
    ];
    for f in &files {
        for s in symbols(f) {
            assert!(SYMBOL_KINDS.contains(&s.symbol_kind), "{s:?}");
        }
    }
}

/// (child, parent, kind) of each relation.
fn rels(path: &str, text: &str) -> Vec<(String, String, RelationKind)> {
    relations(&parse(path, text))
        .into_iter()
        .map(|r| (r.child, r.parent, r.kind))
        .collect()
}

fn rel(child: &str, parent: &str, kind: RelationKind) -> (String, String, RelationKind) {
    (child.to_owned(), parent.to_owned(), kind)
}

use RelationKind::{Extends, Implements};

#[test]
fn relations_are_read_as_written_without_type_arguments() {
    assert_eq!(
        rels("src/lib.rs", RUST),
        [
            rel("Visit", "fmt::Debug", Extends),
            rel("Visit", "Send", Extends),
            rel("Version", "fmt::Display", Implements),
            rel("Op", "fmt::Display", Implements),
        ]
    );
    assert_eq!(
        rels(
            "src/lib.rs",
            "impl !Send for Guard {}\nimpl<'a, T: Clone> From<&'a [T]> for Vec<T> {}\ntrait Sized2: ?Sized + 'static + for<'a> Fn(&'a str) {}\n"
        ),
        [rel("Vec", "From", Implements), rel("Sized2", "Fn", Extends)]
    );
    assert_eq!(
        rels("src/shape.ts", TS),
        [
            rel("Shape", "Base", Extends),
            rel("Shape", "Drawable", Implements),
            rel("Shape", "Named", Implements),
            rel("Drawable", "Paintable", Extends),
        ]
    );
    assert_eq!(
        rels(
            "lib/errors.js",
            "class HttpError extends errors.Base {}\nclass Retry extends mixin(HttpError) {}\n"
        ),
        [rel("HttpError", "errors.Base", Extends)]
    );
    assert_eq!(
        rels(
            "pkg/types.py",
            "class Table(Container, Generic[K, V], metaclass=Meta):\n    pass\nclass Plain(object):\n    pass\nclass Item(abc.ABC): pass\n"
        ),
        [
            rel("Table", "Container", Extends),
            rel("Table", "Generic", Extends),
            rel("Item", "abc.ABC", Extends),
        ]
    );
    assert_eq!(
        rels("toml/decode.go", GO),
        [
            rel("Decoder", "io.Reader", Extends),
            rel("Decoder", "state", Extends),
            rel("Parser", "fmt.Stringer", Extends),
        ]
    );
    assert!(relations(&parse("src/list.c", C_SOURCE)).is_empty());
    let ts = relations(&parse("src/shape.ts", TS));
    // The span is where the parent is named.
    assert_eq!(ts[1].span, span(2, 58, 2, 66));
    assert_eq!(ts[1].file, "src/shape.ts");
}

#[test]
fn hierarchy_resolves_bases_across_files_and_counts_implementations() {
    let files = [
        parse(
            "src/base.ts",
            "export abstract class Node extends EventTarget {}\nexport interface Visitor { visit(n: Node): void }\nexport interface Walker extends Visitor {}\n",
        ),
        parse(
            "src/expr.ts",
            "export class Expr extends Node {}\nexport class Binary extends Expr implements Visitor {}\nexport class Unary extends Expr {}\n",
        ),
        parse(
            "src/walk.ts",
            "class Printer implements Walker, Visitor {}\nclass Loop extends Loop {}\n",
        ),
    ];
    let h = hierarchy(&files);
    // Binary → Expr → Node → EventTarget (not in the checkout: one level).
    assert_eq!(h.inheritance_depth("Binary"), 3);
    assert_eq!(h.inheritance_depth("Node"), 1);
    assert_eq!(h.inheritance_depth("Visitor"), 0);
    assert_eq!(h.inheritance_depth("Walker"), 1);
    // A cycle in broken code ends.
    assert_eq!(h.inheritance_depth("Loop"), 1);
    let children: Vec<&str> = h
        .children("Expr")
        .iter()
        .map(|r| r.child.as_str())
        .collect();
    assert_eq!(children, ["Binary", "Unary"]);
    // An interface extending another is not an implementation of it.
    let visitors: Vec<&str> = h
        .implementations("Visitor")
        .iter()
        .map(|r| r.child.as_str())
        .collect();
    assert_eq!(visitors, ["Binary", "Printer"]);
    let interfaces: Vec<&str> = h.interfaces().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(interfaces, ["Visitor", "Walker"]);
    assert_eq!(h.types.len(), 8);
}

#[test]
fn rust_trait_impls_and_supertraits_make_the_hierarchy() {
    let files = [
        parse(
            "src/lib.rs",
            "pub trait Shape: Debug { fn area(&self) -> f64; }\npub trait Solid: Shape {}\npub struct Cube;\n",
        ),
        parse(
            "src/impls.rs",
            "impl Shape for Cube { fn area(&self) -> f64 { 6.0 } }\nimpl crate::Shape for Sphere { fn area(&self) -> f64 { 1.0 } }\nimpl Solid for Cube {}\n",
        ),
    ];
    let h = hierarchy(&files);
    let shapes: Vec<&str> = h
        .implementations("Shape")
        .iter()
        .map(|r| r.child.as_str())
        .collect();
    assert_eq!(shapes, ["Cube", "Sphere"]);
    assert_eq!(h.inheritance_depth("Solid"), 2);
    assert_eq!(h.children("Shape").len(), 1);
    assert_eq!(h.implementations("crate::Solid").len(), 1);
}

#[test]
fn python_protocols_and_abcs_are_interfaces_their_subclasses_implementations() {
    let files = [parse(
        "pkg/api.py",
        "class Readable(Protocol):\n    def read(self) -> bytes: ...\nclass Store(abc.ABC):\n    pass\nclass FileStore(Store):\n    pass\nclass CachedStore(FileStore):\n    pass\nclass SubProto(Readable, Protocol):\n    pass\nclass Plain:\n    pass\n",
    )];
    let h = hierarchy(&files);
    let interfaces: Vec<&str> = h.interfaces().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(interfaces, ["Readable", "Store", "SubProto"]);
    let stores: Vec<&str> = h
        .implementations("Store")
        .iter()
        .map(|r| r.child.as_str())
        .collect();
    assert_eq!(stores, ["FileStore"]);
    // A protocol extending a protocol is not an implementation.
    assert!(h.implementations("Readable").is_empty());
    assert_eq!(h.inheritance_depth("CachedStore"), 3);
    assert_eq!(h.inheritance_depth("Plain"), 0);
}

#[test]
fn go_types_satisfy_interfaces_by_their_methods_across_a_package_s_files() {
    let files = [
        parse(
            "store/store.go",
            "package store\ntype Reader interface { Get(k string) []byte }\ntype ReadWriter interface { Reader; Put(k string, v []byte) }\ntype Logger interface { fmt.Stringer; Log() }\ntype Mem struct{ data map[string][]byte }\ntype Disk struct{ Mem }\n",
        ),
        parse(
            "store/mem.go",
            "package store\nfunc (m *Mem) Get(k string) []byte { return m.data[k] }\nfunc (m *Mem) Put(k string, v []byte) {}\nfunc (d Disk) Get(k string) []byte { return nil }\n",
        ),
        parse(
            "other/x.go",
            "package other\nfunc (m *Mem) Put(k string, v []byte) {}\n",
        ),
    ];
    let h = hierarchy(&files);
    let readers: Vec<(&str, &str)> = h
        .implementations("Reader")
        .iter()
        .map(|r| (r.child.as_str(), r.file.as_str()))
        .collect();
    assert_eq!(
        readers,
        [("Disk", "store/store.go"), ("Mem", "store/store.go")]
    );
    let rw: Vec<&str> = h
        .implementations("ReadWriter")
        .iter()
        .map(|r| r.child.as_str())
        .collect();
    assert_eq!(rw, ["Mem"]);
    // Logger embeds an interface from outside the checkout: its methods are unknown.
    assert!(h.implementations("Logger").is_empty());
    // Embedding is an extends.
    assert_eq!(h.inheritance_depth("Disk"), 1);
    assert_eq!(h.inheritance_depth("ReadWriter"), 1);
}

#[test]
fn modules_are_rust_module_paths_python_packages_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = [
        (
            "src/lib.rs",
            "pub mod parse;\npub fn version() {}\nfn private() {}\n",
        ),
        ("src/parse/mod.rs", "pub struct Parser { pub depth: u32 }\n"),
        ("src/parse/lexer.rs", "pub(crate) fn lex() {}\n"),
        ("crates/core/src/ids.rs", "pub struct Id(u64);\n"),
        ("tests/it/main.rs", "mod parse;\n"),
        (
            "src/tomlkit/items.py",
            "class Item:\n    def _raw(self): pass\n",
        ),
        ("src/tomlkit/api.py", "def dumps(): pass\n"),
        ("setup.py", "NAME = 'x'\n"),
        (
            "web/src/index.ts",
            "export function main() {}\nfunction boot() {}\n",
        ),
        ("web/src/util.ts", "export const id = <T>(x: T) => x;\n"),
    ];
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let loaded = load(root, &Walk::sources(root), 100).unwrap();
    let m = |path: &str, files: u32, symbols: u32, public_symbols: u32| Module {
        path: path.to_owned(),
        files,
        symbols,
        public_symbols,
    };
    assert_eq!(
        modules(&loaded.files),
        [
            m(".", 1, 1, 1),
            m("crate", 1, 3, 2),
            m("crate::parse", 1, 2, 2),
            m("crate::parse::lexer", 1, 1, 0),
            m("crates/core::ids", 1, 1, 1),
            m("tests/it", 1, 1, 0),
            m("tomlkit", 2, 3, 2),
            m("web/src", 2, 3, 2),
        ]
    );
}

#[test]
fn broken_sources_give_what_parses_and_no_panic() {
    let broken = [
        (
            "a.rs",
            "pub struct S { x: } impl S { fn f(&self) { let = ; } }\nimpl for {}\ntrait : {}\n",
        ),
        (
            "a.ts",
            "export class { extends implements } interface { x: }\nexport { \nnamespace . {}\n",
        ),
        ("a.py", "class (:\n  def (self:\n    x =\nclass A(B, C[:\n"),
        (
            "a.go",
            "package\ntype S struct { *; }\nfunc (*) M() {}\nfunc (s S[) N() {}\n",
        ),
        (
            "a.c",
            "typedef struct { int; } ;\nstatic (*)(void);\nint f(int a {\n#ifdef X\nstruct {\n",
        ),
    ];
    let files: Vec<SourceFile> = broken.iter().map(|(p, t)| parse(p, t)).collect();
    for f in &files {
        for s in symbols(f) {
            assert!(!s.name.is_empty(), "{s:?}");
        }
        relations(f);
    }
    hierarchy(&files);
    modules(&files);
    let s: Vec<Symbol> = symbols(&files[0]);
    assert_eq!(s[0].qualified, "S");
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 5000;
    let rust = format!(
        "fn f() {{ {} fn g() {{}} {} }}",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    let syms = symbols(&parse("deep.rs", &rust));
    assert_eq!(syms.len(), 2);
    let ts = format!(
        "export const x = {}1{};\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    assert_eq!(symbols(&parse("deep.ts", &ts)).len(), 1);
    let py = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(symbols(&parse("deep.py", &py)).len(), 1);
}

/// Prints the outline of every file under `$STRUCTURE_DUMP` as tab-separated lines
/// (file, parent name, name, kind, public, qualified name), to compare with a language
/// server's `documentSymbol`: `STRUCTURE_DUMP=dir cargo test -p resolve-pr-analysis
/// outline_dump -- --ignored --nocapture`.
#[test]
#[ignore = "a tool for comparing with language servers, not a test"]
fn outline_dump() {
    let Ok(dir) = std::env::var("STRUCTURE_DUMP") else {
        return;
    };
    let root = std::path::Path::new(&dir);
    let loaded = load(root, &Walk::sources(root), 100_000).unwrap();
    for f in &loaded.files {
        let syms = symbols(f);
        for s in &syms {
            let parent = s.parent.map_or("", |p| syms[p].name.as_str());
            println!(
                "SYM\t{}\t{}\t{}\t{}\t{}\t{}",
                f.path, parent, s.name, s.symbol_kind, s.public, s.qualified
            );
        }
    }
}
