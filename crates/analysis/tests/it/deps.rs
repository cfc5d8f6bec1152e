//! Imports, the dependency graph and Rust module dependencies, on real-looking checkouts.

use resolve_pr_analysis::graph::{Graph, go_module_path, graph};
use resolve_pr_analysis::imports::{Import, ImportKind, imports};
use resolve_pr_analysis::rust_modules::{ModuleError, module_dependencies};
use resolve_pr_analysis::{SourceFile, Span, Walk, load};

fn parse(path: &str, text: &str) -> SourceFile {
    let dialect = resolve_pr_analysis::Dialect::of_path(std::path::Path::new(path)).unwrap();
    SourceFile::parse(path, dialect, text.to_owned()).unwrap()
}

/// (specifier, kind, [(local, imported, type_only)]) of each import.
type Names = Vec<(String, String, bool)>;

fn summary(imports: &[Import]) -> Vec<(String, ImportKind, Names)> {
    imports
        .iter()
        .map(|i| {
            (
                i.specifier.clone(),
                i.kind,
                i.names
                    .iter()
                    .map(|n| (n.local.clone(), n.imported.clone(), n.type_only))
                    .collect(),
            )
        })
        .collect()
}

fn s(x: &str) -> String {
    x.to_owned()
}

fn names(list: &[(&str, &str)]) -> Names {
    list.iter().map(|(l, i)| (s(l), s(i), false)).collect()
}

fn files(list: &[(&str, &str)]) -> Vec<SourceFile> {
    list.iter().map(|(p, t)| parse(p, t)).collect()
}

fn edges(g: &Graph) -> Vec<(&str, &str)> {
    g.edges
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str()))
        .collect()
}

fn resolved<'g>(g: &'g Graph, file: &str, specifier: &str) -> Option<&'g str> {
    g.imports
        .iter()
        .find(|i| i.file == file && i.specifier == specifier)
        .and_then(|i| i.resolved.as_deref())
}

// ---- imports ----

#[test]
fn python_imports_bind_modules_names_aliases_and_stars_wherever_they_are_written() {
    let f = parse(
        "pkg/mod.py",
        "import os.path\nimport a.b as c, json\nfrom . import x, y as z\nfrom ..m import (a as b,\n    d)\nfrom m import *\nfrom __future__ import annotations\n\nif TYPE_CHECKING:\n    from typing import Protocol\n\ndef f():\n    import late\n",
    );
    assert_eq!(
        summary(&imports(&f)),
        [
            (
                s("os.path"),
                ImportKind::Static,
                names(&[("os", "os.path")])
            ),
            (s("a.b"), ImportKind::Static, names(&[("c", "a.b")])),
            (s("json"), ImportKind::Static, names(&[("json", "json")])),
            (s("."), ImportKind::Static, names(&[("x", "x"), ("z", "y")])),
            (
                s("..m"),
                ImportKind::Static,
                names(&[("b", "a"), ("d", "d")])
            ),
            (s("m"), ImportKind::Static, names(&[("*", "*")])),
            (
                s("__future__"),
                ImportKind::Static,
                names(&[("annotations", "annotations")])
            ),
            (
                s("typing"),
                ImportKind::Static,
                names(&[("Protocol", "Protocol")])
            ),
            (s("late"), ImportKind::Static, names(&[("late", "late")])),
        ]
    );
    let all = imports(&f);
    // The statement's span, and the bound name's.
    assert_eq!(all[4].span.start.line, 3);
    assert_eq!(all[4].span.end.line, 4);
    assert_eq!(
        all[4].names[0].span,
        Span {
            start: resolve_pr_analysis::Pos {
                line: 3,
                character: 22
            },
            end: resolve_pr_analysis::Pos {
                line: 3,
                character: 23
            },
        }
    );
    assert!(
        all.iter()
            .all(|i| i.file == "pkg/mod.py" && i.resolved.is_none())
    );
}

#[test]
fn script_imports_cover_declarations_type_imports_re_exports_require_and_dynamic_import() {
    let f = parse(
        "src/app.ts",
        r#"import type { Props } from "./types";
import React, { useState as useS, type FC } from 'react';
import * as path from "node:path";
import "./polyfill";
export { a as b, c } from './lib';
export * from "./all";
export * as ns from "./ns";
export type { T } from "./t";
import fs = require("fs");
const { readFile, writeFile: wf } = require('fs/promises');
const lazy = () => import("./lazy");
const notLiteral = import(`./${name}`);
export const local = 1;
"#,
    );
    let t = |l: &str, i: &str, ty: bool| (s(l), s(i), ty);
    assert_eq!(
        summary(&imports(&f)),
        [
            (
                s("./types"),
                ImportKind::Static,
                vec![t("Props", "Props", true)]
            ),
            (
                s("react"),
                ImportKind::Static,
                vec![
                    t("React", "default", false),
                    t("useS", "useState", false),
                    t("FC", "FC", true)
                ]
            ),
            (
                s("node:path"),
                ImportKind::Static,
                vec![t("path", "*", false)]
            ),
            (s("./polyfill"), ImportKind::SideEffect, vec![]),
            (
                s("./lib"),
                ImportKind::ReExport,
                vec![t("b", "a", false), t("c", "c", false)]
            ),
            (s("./all"), ImportKind::ReExport, vec![t("*", "*", false)]),
            (s("./ns"), ImportKind::ReExport, vec![t("ns", "*", false)]),
            (s("./t"), ImportKind::ReExport, vec![t("T", "T", true)]),
            (s("fs"), ImportKind::Require, vec![t("fs", "*", false)]),
            (
                s("fs/promises"),
                ImportKind::Require,
                vec![
                    t("readFile", "readFile", false),
                    t("wf", "writeFile", false)
                ]
            ),
            (s("./lazy"), ImportKind::Dynamic, vec![]),
        ]
    );
    // The same in a .js file read by the JavaScript grammar.
    let js = parse(
        "lib/x.js",
        "const m = require('./m');\nimport d from './d.js';\n",
    );
    assert_eq!(
        summary(&imports(&js)),
        [
            (s("./m"), ImportKind::Require, names(&[("m", "*")])),
            (s("./d.js"), ImportKind::Static, names(&[("d", "default")])),
        ]
    );
}

#[test]
fn rust_use_trees_flatten_to_one_import_per_leaf_and_mod_declarations_are_modules() {
    let f = parse(
        "src/lib.rs",
        "use std::{self, collections::{HashMap as Map, btree_map::*}, fmt};\npub use crate::a::b::{self as bee, C};\nuse super::x;\nextern crate alloc as al;\nmod a;\npub(crate) mod inline { use self::z::Y; mod nested; }\nfn f() { use crate::q::R; }\n",
    );
    assert_eq!(
        summary(&imports(&f)),
        [
            (s("std"), ImportKind::Static, names(&[("std", "std")])),
            (
                s("std::collections::HashMap"),
                ImportKind::Static,
                names(&[("Map", "HashMap")])
            ),
            (
                s("std::collections::btree_map"),
                ImportKind::Static,
                names(&[("*", "*")])
            ),
            (s("std::fmt"), ImportKind::Static, names(&[("fmt", "fmt")])),
            (
                s("crate::a::b"),
                ImportKind::ReExport,
                names(&[("bee", "b")])
            ),
            (
                s("crate::a::b::C"),
                ImportKind::ReExport,
                names(&[("C", "C")])
            ),
            (s("super::x"), ImportKind::Static, names(&[("x", "x")])),
            (
                s("alloc"),
                ImportKind::ExternCrate,
                names(&[("al", "alloc")])
            ),
            (s("a"), ImportKind::Module, names(&[("a", "a")])),
            (s("self::z::Y"), ImportKind::Static, names(&[("Y", "Y")])),
            (
                s("nested"),
                ImportKind::Module,
                names(&[("nested", "nested")])
            ),
            (s("crate::q::R"), ImportKind::Static, names(&[("R", "R")])),
        ]
    );
    // A leaf's span is the leaf, its name's span the bound name.
    let all = imports(&f);
    let map = &all[1];
    assert_eq!(
        map.span.start.character,
        f.text.find("HashMap").unwrap() as u32
    );
    assert_eq!(
        map.span.end.character,
        f.text.find(", btree").unwrap() as u32
    );
    assert_eq!(
        map.names[0].span.start.character,
        f.text.find("Map,").unwrap() as u32
    );
}

#[test]
fn go_imports_with_aliases_dot_blank_and_the_package_name_a_path_binds() {
    let f = parse(
        "cmd/main.go",
        "package main\n\nimport \"fmt\"\n\nimport (\n\tstr \"strings\"\n\t. \"math\"\n\t_ \"net/http/pprof\"\n\t\"gopkg.in/yaml.v3\"\n\t\"github.com/jackc/pgx/v5\"\n\t\"example.com/app/internal/store\"\n)\n",
    );
    assert_eq!(
        summary(&imports(&f)),
        [
            (s("fmt"), ImportKind::Static, names(&[("fmt", "fmt")])),
            (
                s("strings"),
                ImportKind::Static,
                names(&[("str", "strings")])
            ),
            (s("math"), ImportKind::Static, names(&[(".", "math")])),
            (
                s("net/http/pprof"),
                ImportKind::SideEffect,
                names(&[("_", "pprof")])
            ),
            (
                s("gopkg.in/yaml.v3"),
                ImportKind::Static,
                names(&[("yaml", "yaml")])
            ),
            (
                s("github.com/jackc/pgx/v5"),
                ImportKind::Static,
                names(&[("pgx", "pgx")])
            ),
            (
                s("example.com/app/internal/store"),
                ImportKind::Static,
                names(&[("store", "store")])
            ),
        ]
    );
}

#[test]
fn c_includes_quoted_and_system_with_the_directive_as_span() {
    let f = parse(
        "src/main.c",
        "#include <stdio.h>\n#include \"util/str.h\"\n#if X\n#  include \"win.h\"\n#endif\nint main(void) { return 0; }\n",
    );
    assert_eq!(
        summary(&imports(&f)),
        [
            (s("stdio.h"), ImportKind::SystemInclude, vec![]),
            (s("util/str.h"), ImportKind::Include, vec![]),
            (s("win.h"), ImportKind::Include, vec![]),
        ]
    );
    let all = imports(&f);
    assert_eq!(all[1].span.start.line, 1);
    assert_eq!(
        all[1].span.end,
        resolve_pr_analysis::Pos {
            line: 1,
            character: 21
        }
    );
}

#[test]
fn broken_sources_give_the_imports_that_parse_and_never_panic() {
    for (path, text) in [
        (
            "a.py",
            "from . import\nimport\nfrom x import (a,\nimport ok\n",
        ),
        (
            "a.ts",
            "import { from './x';\nimport y from\nrequire(\nimport('./z')\n",
        ),
        ("a.rs", "use a::{b, ;\nuse ::;\nmod ;\nuse c::d;\n"),
        ("a.go", "package a\nimport (\n\t\"x\n"),
        ("a.c", "#include\n#include \"\n#include <>\n"),
    ] {
        let f = parse(path, text);
        let _ = imports(&f);
        let _ = graph(std::slice::from_ref(&f), None);
    }
    let py = parse("a.py", "def f(:\n    pass\n\nimport ok\n");
    assert!(imports(&py).iter().any(|i| i.specifier == "ok"));
}

// ---- graph: resolution ----

#[test]
fn typescript_specifiers_resolve_as_typescript_and_node_do() {
    let g = graph(
        &files(&[
            (
                "src/a.ts",
                "import { b } from './b';\nimport { c } from './c.js';\nimport './dir';\nimport x from '../lib/x';\nimport React from 'react';\nimport { v } from './view';\nexport * from './types';\nimport m from './m.mjs';\n",
            ),
            ("src/b.ts", "export const b = 1;\n"),
            ("src/c.ts", "export const c = 1;\n"),
            ("src/dir/index.ts", "export {};\n"),
            (
                "lib/x.js",
                "const y = require('./y');\nmodule.exports = 1;\n",
            ),
            ("lib/y.js", "module.exports = 2;\n"),
            ("lib/y.ts", "export = 3;\n"),
            ("src/view.tsx", "export const v = <div/>;\n"),
            ("src/types.d.ts", "export type T = 1;\n"),
            ("src/m.mts", "export default 1;\n"),
        ]),
        None,
    );
    assert_eq!(resolved(&g, "src/a.ts", "./b"), Some("src/b.ts"));
    // A `.js` written for the `.ts` it compiles from.
    assert_eq!(resolved(&g, "src/a.ts", "./c.js"), Some("src/c.ts"));
    assert_eq!(resolved(&g, "src/a.ts", "./dir"), Some("src/dir/index.ts"));
    assert_eq!(resolved(&g, "src/a.ts", "../lib/x"), Some("lib/x.js"));
    assert_eq!(resolved(&g, "src/a.ts", "./view"), Some("src/view.tsx"));
    assert_eq!(resolved(&g, "src/a.ts", "./types"), Some("src/types.d.ts"));
    assert_eq!(resolved(&g, "src/a.ts", "./m.mjs"), Some("src/m.mts"));
    // node, from a JavaScript file, takes the .js.
    assert_eq!(resolved(&g, "lib/x.js", "./y"), Some("lib/y.js"));
    assert_eq!(resolved(&g, "src/a.ts", "react"), None);
    let external: Vec<(&str, &str)> = g
        .external()
        .iter()
        .map(|i| (i.file.as_str(), i.specifier.as_str()))
        .collect();
    assert_eq!(external, [("src/a.ts", "react")]);
    assert_eq!(
        edges(&g),
        [
            ("lib/x.js", "lib/y.js"),
            ("src/a.ts", "lib/x.js"),
            ("src/a.ts", "src/b.ts"),
            ("src/a.ts", "src/c.ts"),
            ("src/a.ts", "src/dir/index.ts"),
            ("src/a.ts", "src/m.mts"),
            ("src/a.ts", "src/types.d.ts"),
            ("src/a.ts", "src/view.tsx"),
        ]
    );
    assert_eq!(g.nodes.len(), 10);
    assert!(g.components().is_empty());
}

#[test]
fn python_modules_resolve_against_package_roots_src_layouts_and_the_importing_package() {
    let g = graph(
        &files(&[
            (
                "src/app/__init__.py",
                "from .core import run\nfrom . import util\n",
            ),
            (
                "src/app/core.py",
                "import app.util\nfrom app import models, VERSION\nfrom .sub.deep import thing\nimport requests\n",
            ),
            ("src/app/util.py", "from ..app import core\n"),
            ("src/app/models.py", "from app.sub import *\n"),
            ("src/app/sub/__init__.py", "VERSION = 1\n"),
            (
                "src/app/sub/deep.py",
                "from .. import core\nfrom ..models import Model\n",
            ),
            (
                "tests/test_core.py",
                "from app.core import run\nimport conftest\n",
            ),
            ("tests/conftest.py", "import pytest\n"),
        ]),
        None,
    );
    assert_eq!(
        resolved(&g, "src/app/__init__.py", ".core"),
        Some("src/app/core.py")
    );
    // `from . import util` names the submodule.
    assert_eq!(
        resolved(&g, "src/app/__init__.py", "."),
        Some("src/app/util.py")
    );
    assert_eq!(
        resolved(&g, "src/app/core.py", "app.util"),
        Some("src/app/util.py")
    );
    assert_eq!(
        resolved(&g, "src/app/core.py", ".sub.deep"),
        Some("src/app/sub/deep.py")
    );
    assert_eq!(resolved(&g, "src/app/core.py", "requests"), None);
    assert_eq!(
        resolved(&g, "src/app/models.py", "app.sub"),
        Some("src/app/sub/__init__.py")
    );
    assert_eq!(
        resolved(&g, "tests/test_core.py", "app.core"),
        Some("src/app/core.py")
    );
    assert_eq!(
        resolved(&g, "tests/test_core.py", "conftest"),
        Some("tests/conftest.py")
    );
    // `from app import models, VERSION`: the submodule for one, the package for the other.
    let split: Vec<(Option<&str>, Vec<&str>)> = g
        .imports
        .iter()
        .filter(|i| i.file == "src/app/core.py" && i.specifier == "app")
        .map(|i| {
            (
                i.resolved.as_deref(),
                i.names.iter().map(|n| n.local.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        split,
        [
            (Some("src/app/models.py"), vec!["models"]),
            (Some("src/app/__init__.py"), vec!["VERSION"]),
        ]
    );
    // `..` in app/sub/deep.py is app.
    assert_eq!(
        resolved(&g, "src/app/sub/deep.py", ".."),
        Some("src/app/core.py")
    );
    assert_eq!(
        resolved(&g, "src/app/sub/deep.py", "..models"),
        Some("src/app/models.py")
    );
    assert_eq!(
        g.components(),
        [vec![
            s("src/app/__init__.py"),
            s("src/app/core.py"),
            s("src/app/sub/deep.py"),
            s("src/app/util.py"),
        ]]
    );
}

#[test]
fn rust_mod_declarations_and_use_paths_resolve_to_the_module_files() {
    let g = graph(
        &files(&[
            (
                "src/lib.rs",
                "mod a;\nmod b;\n#[path = \"platform/unix.rs\"]\nmod sys;\nmod inline { mod deep; }\npub use a::Thing;\nuse crate::b::c::helper;\nuse serde::Serialize;\nfn own() {}\nuse crate::own as again;\n",
            ),
            (
                "src/a.rs",
                "use super::b::B;\nuse crate::sys::fd;\npub struct Thing;\n",
            ),
            (
                "src/b/mod.rs",
                "pub mod c;\npub struct B;\nuse self::c::helper;\n",
            ),
            ("src/b/c.rs", "pub fn helper() {}\nuse crate::a::Thing;\n"),
            ("src/platform/unix.rs", "pub fn fd() {}\n"),
            (
                "src/inline/deep.rs",
                "use super::super::a::Thing;\nfn f() {\n    super::super::b::c::helper();\n    let _ = Thing;\n}\n",
            ),
            ("tests/it.rs", "mod common;\nuse common::setup;\n"),
            ("tests/common/mod.rs", "pub fn setup() {}\n"),
        ]),
        None,
    );
    assert_eq!(resolved(&g, "src/lib.rs", "a"), Some("src/a.rs"));
    assert_eq!(resolved(&g, "src/lib.rs", "b"), Some("src/b/mod.rs"));
    assert_eq!(
        resolved(&g, "src/lib.rs", "sys"),
        Some("src/platform/unix.rs")
    );
    assert_eq!(
        resolved(&g, "src/lib.rs", "deep"),
        Some("src/inline/deep.rs")
    );
    assert_eq!(
        resolved(&g, "src/lib.rs", "crate::b::c::helper"),
        Some("src/b/c.rs")
    );
    assert_eq!(resolved(&g, "src/lib.rs", "serde::Serialize"), None);
    assert_eq!(
        resolved(&g, "src/a.rs", "super::b::B"),
        Some("src/b/mod.rs")
    );
    assert_eq!(
        resolved(&g, "src/inline/deep.rs", "super::super::a::Thing"),
        Some("src/a.rs")
    );
    assert_eq!(
        resolved(&g, "tests/it.rs", "common"),
        Some("tests/common/mod.rs")
    );
    assert_eq!(
        resolved(&g, "tests/it.rs", "common::setup"),
        Some("tests/common/mod.rs")
    );
    // `mod` declarations make no edge; a use of the file's own item no self-edge.
    assert_eq!(
        edges(&g),
        [
            ("src/a.rs", "src/b/mod.rs"),
            ("src/a.rs", "src/platform/unix.rs"),
            ("src/b/c.rs", "src/a.rs"),
            ("src/b/mod.rs", "src/b/c.rs"),
            ("src/inline/deep.rs", "src/a.rs"),
            // A qualified path in code, no `use`.
            ("src/inline/deep.rs", "src/b/c.rs"),
            ("src/lib.rs", "src/a.rs"),
            ("src/lib.rs", "src/b/c.rs"),
            ("tests/it.rs", "tests/common/mod.rs"),
        ]
    );
    assert_eq!(
        g.components(),
        [vec![s("src/a.rs"), s("src/b/c.rs"), s("src/b/mod.rs")]]
    );
    let external: Vec<&str> = g.external().iter().map(|i| i.specifier.as_str()).collect();
    assert_eq!(external, ["serde::Serialize"]);
}

#[test]
fn go_imports_name_every_file_of_the_package_folder_by_the_module_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("go.mod"),
        "// app\nmodule example.com/app // the app\n\ngo 1.19\n",
    )
    .unwrap();
    assert_eq!(
        go_module_path(dir.path()).as_deref(),
        Some("example.com/app")
    );
    assert_eq!(go_module_path(&dir.path().join("nowhere")), None);
    let parsed = files(&[
        (
            "main.go",
            "package main\nimport (\n\t\"fmt\"\n\t\"example.com/app/internal/store\"\n)\n",
        ),
        (
            "internal/store/store.go",
            "package store\nimport \"example.com/app/internal/model\"\n",
        ),
        ("internal/store/cache.go", "package store\n"),
        (
            "internal/store/store_test.go",
            "package store_test\nimport \"testing\"\nimport \"example.com/app/internal/store\"\n",
        ),
        ("internal/model/model.go", "package model\n"),
    ]);
    let g = graph(&parsed, Some("example.com/app"));
    // The external test package imports the package it tests.
    let expected = [
        ("internal/store/store.go", "internal/model/model.go"),
        ("internal/store/store_test.go", "internal/store/cache.go"),
        ("internal/store/store_test.go", "internal/store/store.go"),
        ("main.go", "internal/store/cache.go"),
        ("main.go", "internal/store/store.go"),
    ];
    assert_eq!(edges(&g), expected);
    assert_eq!(
        resolved(&g, "main.go", "example.com/app/internal/store"),
        Some("internal/store/")
    );
    assert_eq!(resolved(&g, "main.go", "fmt"), None);
    // Without go.mod's path, the longest tail of the import path that is a package folder.
    assert_eq!(edges(&graph(&parsed, None)), expected);
}

#[test]
fn c_quoted_includes_resolve_beside_the_file_then_from_the_root() {
    let g = graph(
        &files(&[
            (
                "src/main.c",
                "#include <stdio.h>\n#include \"util.h\"\n#include \"include/api.h\"\n#include \"../include/api.h\"\n#include \"missing.h\"\n",
            ),
            ("src/util.h", "int util(void);\n"),
            ("include/api.h", "#include \"api.h\"\n"),
        ]),
        None,
    );
    assert_eq!(
        edges(&g),
        [
            ("include/api.h", "include/api.h"),
            ("src/main.c", "include/api.h"),
            ("src/main.c", "src/util.h"),
        ]
    );
    let external: Vec<&str> = g.external().iter().map(|i| i.specifier.as_str()).collect();
    assert_eq!(external, ["stdio.h", "missing.h"]);
    // A file including itself is a cycle of one.
    assert_eq!(g.components(), [vec![s("include/api.h")]]);
    assert_eq!(
        g.shortest_cycle(&[s("include/api.h")]),
        [s("include/api.h"), s("include/api.h")]
    );
}

// ---- graph: cycles and measures ----

/// a → b → c → a, c → d → c, a → e; e → f; x alone; s → s.
fn sample() -> Graph {
    graph(
        &files(&[
            ("src/a.ts", "import './b';\nimport './e';\n"),
            ("src/b.ts", "import './c';\n"),
            ("src/c.ts", "import './a';\nimport './d';\n"),
            (
                "src/d.ts",
                "import { c } from './c';\nimport type { C } from './c';\n",
            ),
            ("src/e.ts", "import '../lib/f';\n"),
            ("lib/f.ts", "export {};\n"),
            ("lib/x.ts", "export {};\n"),
            ("lib/s.ts", "import './s';\n"),
        ]),
        None,
    )
}

#[test]
fn components_are_the_strongly_connected_ones_and_self_imports_sorted() {
    let g = sample();
    assert_eq!(
        g.components(),
        [
            vec![s("lib/s.ts")],
            vec![s("src/a.ts"), s("src/b.ts"), s("src/c.ts"), s("src/d.ts")],
        ]
    );
    // Both imports of d.ts from c.ts make one edge with two spans.
    let dc = g.edges.iter().find(|e| e.from == "src/d.ts").unwrap();
    assert_eq!(dc.spans.len(), 2);
}

#[test]
fn shortest_cycle_starts_at_the_smallest_file_and_shortest_cycle_through_an_edge() {
    let g = sample();
    let component = vec![s("src/a.ts"), s("src/b.ts"), s("src/c.ts"), s("src/d.ts")];
    assert_eq!(
        g.shortest_cycle(&component),
        [s("src/a.ts"), s("src/b.ts"), s("src/c.ts"), s("src/a.ts")]
    );
    assert_eq!(
        g.shortest_cycle_through("src/c.ts", "src/d.ts"),
        [s("src/c.ts"), s("src/d.ts"), s("src/c.ts")]
    );
    assert_eq!(
        g.shortest_cycle_through("src/c.ts", "src/a.ts"),
        [s("src/c.ts"), s("src/a.ts"), s("src/b.ts"), s("src/c.ts")]
    );
    assert!(g.shortest_cycle_through("src/a.ts", "src/e.ts").is_empty());
    assert!(g.shortest_cycle(&[]).is_empty());
}

#[test]
fn degrees_instability_and_depth_over_the_condensation() {
    let g = sample();
    assert_eq!((g.in_degree("src/c.ts"), g.out_degree("src/c.ts")), (2, 2));
    assert_eq!((g.in_degree("lib/s.ts"), g.out_degree("lib/s.ts")), (0, 0));
    assert_eq!(g.instability("src/e.ts"), 0.5);
    assert_eq!(g.instability("lib/f.ts"), 0.0);
    assert_eq!(g.instability("lib/x.ts"), 0.0);
    assert_eq!(g.instability("src/b.ts"), 0.5);
    // The cycle a-b-c-d sits on e → f: depth 2 for each of its files.
    let depths: Vec<(String, u32)> = g.depths().into_iter().collect();
    assert_eq!(
        depths,
        [
            (s("lib/f.ts"), 0),
            (s("lib/s.ts"), 0),
            (s("lib/x.ts"), 0),
            (s("src/a.ts"), 2),
            (s("src/b.ts"), 2),
            (s("src/c.ts"), 2),
            (s("src/d.ts"), 2),
            (s("src/e.ts"), 1),
        ]
    );
    assert_eq!(g.depth("src/e.ts"), 1);
    assert_eq!(g.depth("nowhere.ts"), 0);
}

#[test]
fn cohesion_is_the_share_of_a_directorys_edges_that_stay_in_it() {
    let g = sample();
    let cohesion = g.cohesion();
    let c: Vec<(&str, usize, usize, usize, f64)> = cohesion
        .iter()
        .map(|c| {
            (
                c.directory.as_str(),
                c.files,
                c.internal,
                c.outgoing,
                c.score,
            )
        })
        .collect();
    // src: a→b a→e b→c c→a c→d d→c stay, e→lib/f leaves. lib: s→s is not counted.
    assert_eq!(c, [("lib", 3, 0, 0, 1.0), ("src", 5, 6, 7, 6.0 / 7.0)]);
}

#[test]
fn mermaid_and_dot_exports_name_every_file_and_edge() {
    let g = graph(
        &files(&[
            ("a.ts", "import './b \"q\"';\n"),
            ("b \"q\".ts", "import './a';\n"),
        ]),
        None,
    );
    assert_eq!(
        g.to_mermaid(),
        "graph TD\n  n0[\"a.ts\"]\n  n1[\"b #quot;q#quot;.ts\"]\n  n0 --> n1\n  n1 --> n0\n"
    );
    assert_eq!(
        g.to_dot(),
        "digraph dependencies {\n  \"a.ts\";\n  \"b \\\"q\\\".ts\";\n  \"a.ts\" -> \"b \\\"q\\\".ts\";\n  \"b \\\"q\\\".ts\" -> \"a.ts\";\n}\n"
    );
}

#[test]
fn a_cycle_through_thirty_thousand_files_needs_no_recursion() {
    let n = 30_000;
    let list: Vec<SourceFile> = (0..n)
        .map(|i| {
            parse(
                &format!("m/f{i:05}.js"),
                &format!("require('./f{:05}');\n", (i + 1) % n),
            )
        })
        .collect();
    let g = graph(&list, None);
    let components = g.components();
    assert_eq!(components.len(), 1);
    assert_eq!(components[0].len(), n);
    let cycle = g.shortest_cycle(&components[0]);
    assert_eq!(cycle.len(), n + 1);
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(g.depth("m/f00000.js"), 0);
}

#[test]
fn a_checkout_loaded_from_disk_gives_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(root.join("pkg/a.py"), "from pkg import b\n").unwrap();
    std::fs::write(root.join("pkg/b.py"), "from . import a\n").unwrap();
    let loaded = load(root, &Walk::sources(root), 100).unwrap();
    let g = graph(&loaded.files, None);
    assert_eq!(g.components(), [vec![s("pkg/a.py"), s("pkg/b.py")]]);
    assert_eq!(
        g.shortest_cycle(&g.components()[0]),
        [s("pkg/a.py"), s("pkg/b.py"), s("pkg/a.py")]
    );
}

// ---- rust_modules ----

fn write_crate(root: &std::path::Path) {
    let w = |p: &str, t: &str| {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, t).unwrap();
    };
    w("crates/core/Cargo.toml", "[package]\nname = \"core\"\n");
    w(
        "crates/core/src/lib.rs",
        "pub mod model;\nmod store;\nmod util;\npub use store::Store;\n\npub fn open() -> store::Store {\n    store::Store::new()\n}\n",
    );
    w(
        "crates/core/src/store/mod.rs",
        "mod cache;\nuse crate::model::{Item, Kind};\nuse crate::util::{checksum, Buffer};\nuse super::util;\nuse serde::Serialize;\nuse std::collections::HashMap;\n\npub struct Store {\n    items: HashMap<u32, Item>,\n}\n\nimpl Store {\n    pub fn new() -> Store {\n        let _ = util::LIMIT;\n        crate::model::helpers::fmt();\n        Store { items: HashMap::new() }\n    }\n\n    pub(crate) fn put(&mut self) {\n        let _ = checksum(&[]);\n        let _k = Kind::A;\n    }\n}\n\npub(crate) fn flush() {}\n\nfn private() {}\n",
    );
    w(
        "crates/core/src/store/cache.rs",
        "use super::flush;\nuse crate::util::Buffer;\n\npub(crate) struct Cache(pub(crate) u8, pub String);\n\npub fn warm() {\n    flush();\n    let _ = regex::Regex::new(\"x\");\n}\n",
    );
    w(
        "crates/core/src/model.rs",
        "pub struct Item;\npub enum Kind {\n    A,\n}\npub(crate) mod helpers {\n    pub fn fmt() {}\n}\n",
    );
    w(
        "crates/core/src/util.rs",
        "pub const LIMIT: usize = 1;\npub(crate) fn checksum(_: &[u8]) -> u32 {\n    crate::store::flush();\n    0\n}\npub struct Buffer;\nfn cache() -> crate::store::cache::Cache {\n    todo!()\n}\n",
    );
    w("other/src/lib.rs", "use core::store::Store;\n");
}

#[test]
fn module_dependencies_of_a_module_with_a_submodule_in_a_workspace_crate() {
    let dir = tempfile::tempdir().unwrap();
    write_crate(dir.path());
    let loaded = load(dir.path(), &Walk::sources(dir.path()), 100).unwrap();
    let deps =
        module_dependencies(&loaded.files, "crates/core", "crates/core/src/store/mod.rs").unwrap();
    assert_eq!(deps.module, "crate::store");
    assert_eq!(
        deps.files,
        [
            "crates/core/src/store/cache.rs",
            "crates/core/src/store/mod.rs"
        ]
    );
    type Row<'a> = (&'a str, Option<&'a str>, u32, Option<&'a str>, Vec<u32>);
    let uses: Vec<Row<'_>> = deps
        .crate_uses
        .iter()
        .map(|u| {
            (
                u.path.as_str(),
                u.file.as_deref(),
                u.line,
                u.public_path.as_deref(),
                u.used_at.iter().map(|(_, l)| *l).collect(),
            )
        })
        .collect();
    assert!(
        deps.crate_uses
            .iter()
            .all(|u| u.public == u.public_path.is_some())
    );
    let model = Some("crates/core/src/model.rs");
    let util = Some("crates/core/src/util.rs");
    assert_eq!(
        uses,
        [
            (
                "crate::model::Item",
                model,
                0,
                Some("crate::model::Item"),
                vec![1]
            ),
            (
                "crate::model::Kind",
                model,
                1,
                Some("crate::model::Kind"),
                vec![1, 20]
            ),
            ("crate::model::helpers::fmt", model, 5, None, vec![14]),
            (
                "crate::util",
                Some("crates/core/src/lib.rs"),
                2,
                None,
                vec![3]
            ),
            ("crate::util::Buffer", util, 5, None, vec![2, 1]),
            ("crate::util::LIMIT", util, 0, None, vec![13]),
            ("crate::util::checksum", util, 1, None, vec![2]),
        ]
    );
    assert_eq!(deps.external_crates, ["regex", "serde"]);
    assert_eq!(deps.std_uses, ["std::collections::HashMap"]);
    let items =
        |list: &[resolve_pr_analysis::rust_modules::Item]| -> Vec<(String, String, String)> {
            list.iter()
                .map(|i| (i.path.clone(), i.kind.clone(), i.visibility.clone()))
                .collect()
        };
    let t = |p: &str, k: &str, v: &str| (s(p), s(k), s(v));
    assert_eq!(
        items(&deps.must_become_public),
        [
            t("crate::model::helpers", "mod", "pub(crate)"),
            t("crate::util", "mod", ""),
            t("crate::util::checksum", "fn", "pub(crate)"),
        ]
    );
    assert_eq!(
        items(&deps.used_by_rest),
        [
            t("crate::store::Store", "struct", "pub"),
            t("crate::store::cache::Cache", "struct", "pub(crate)"),
            t("crate::store::flush", "fn", "pub(crate)"),
        ]
    );
    let cache = &deps.used_by_rest[1];
    assert_eq!(
        (cache.file.as_str(), cache.line),
        ("crates/core/src/store/cache.rs", 3)
    );
    assert_eq!(cache.private_fields, ["0"]);
    assert!(deps.used_by_rest[0].private_fields == ["items"]);
    // lib.rs calls `store::Store::new()`: the associated function must be `pub` too.
    assert_eq!(deps.used_by_rest[0].members, ["new"]);
    assert!(deps.used_by_rest[1].members.is_empty());
}

#[test]
fn module_dependencies_by_crate_path_inline_modules_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    write_crate(dir.path());
    let loaded = load(dir.path(), &Walk::sources(dir.path()), 100).unwrap();
    let by_path = module_dependencies(&loaded.files, "crates/core/", "crate::store").unwrap();
    let by_file = module_dependencies(&loaded.files, "crates/core", "src/store/mod.rs").unwrap();
    assert_eq!(by_path, by_file);
    // An inline module: its file is its parent's.
    let helpers =
        module_dependencies(&loaded.files, "crates/core", "crate::model::helpers").unwrap();
    assert_eq!(helpers.files, ["crates/core/src/model.rs"]);
    assert!(helpers.crate_uses.is_empty());
    let used: Vec<&str> = helpers
        .used_by_rest
        .iter()
        .map(|i| i.path.as_str())
        .collect();
    assert_eq!(used, ["crate::model::helpers::fmt"]);
    assert_eq!(
        module_dependencies(&loaded.files, "crates/core", "crate::nope"),
        Err(ModuleError::NoModule {
            module: s("crate::nope"),
            crate_dir: s("crates/core")
        })
    );
    assert_eq!(
        module_dependencies(&loaded.files, "crates/none", "crate"),
        Err(ModuleError::NoCrateRoot {
            crate_dir: s("crates/none")
        })
    );
    // The other crate's `use core::store::Store` is not this crate's.
    let store = module_dependencies(&loaded.files, "crates/core", "crate::store").unwrap();
    assert!(
        store
            .used_by_rest
            .iter()
            .all(|i| i.file.starts_with("crates/core/"))
    );
}

// ---- comparisons with the reference tools (run by hand) ----

/// The graph of the checkout at `$DEPS_ROOT`, as lines `N file`, `E from to`, `C a b …`,
/// for the comparison with madge and grimp (tests/analysis/compare_deps.py).
#[test]
#[ignore = "reads $DEPS_ROOT"]
fn print_graph_of_deps_root() {
    let Ok(root) = std::env::var("DEPS_ROOT") else {
        return;
    };
    let root = std::path::Path::new(&root);
    let loaded = load(root, &Walk::sources(root), 100_000).unwrap();
    let go = resolve_pr_analysis::graph::go_module_path(root);
    let g = graph(&loaded.files, go.as_deref());
    for n in &g.nodes {
        println!("N {n}");
    }
    for e in &g.edges {
        println!("E {} {}", e.from, e.to);
    }
    for c in g.components() {
        println!("C {}", c.join(" "));
        println!("Y {}", g.shortest_cycle(&c).join(" "));
    }
    for i in g.external() {
        println!("X {} {}", i.file, i.specifier);
    }
}

/// `module_dependencies` of `$DEPS_MODULE` in the crate at `$DEPS_ROOT`.
#[test]
#[ignore = "reads $DEPS_ROOT"]
fn print_module_dependencies_of_deps_root() {
    let (Ok(root), Ok(module)) = (std::env::var("DEPS_ROOT"), std::env::var("DEPS_MODULE")) else {
        return;
    };
    let root = std::path::Path::new(&root);
    let loaded = load(root, &Walk::sources(root), 100_000).unwrap();
    let deps = resolve_pr_analysis::rust_modules::module_dependencies(&loaded.files, "", &module);
    let deps = deps.unwrap();
    println!("module {} files {:?}", deps.module, deps.files);
    for u in &deps.crate_uses {
        let at: Vec<u32> = u.used_at.iter().map(|(_, l)| l + 1).collect();
        println!(
            "use {} {:?}:{} pub={:?} at {at:?}",
            u.path,
            u.file,
            u.line + 1,
            u.public_path
        );
    }
    println!("external {:?}", deps.external_crates);
    println!("std {:?}", deps.std_uses);
    for i in &deps.must_become_public {
        println!(
            "must {} {} {}:{} {:?}",
            i.kind,
            i.path,
            i.file,
            i.line + 1,
            i.visibility
        );
    }
    for i in &deps.used_by_rest {
        println!(
            "rest {} {} {}:{} {:?} fields {:?} members {:?}",
            i.kind,
            i.path,
            i.file,
            i.line + 1,
            i.visibility,
            i.private_fields,
            i.members
        );
    }
}
