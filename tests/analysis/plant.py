#!/usr/bin/env python3
"""Deterministic "planted" unused code for the dead-code agreement tests.

Real projects have almost no unused code, so after extraction a copy of each project is made
in DIR/<name>-<version>-planted/ and a few files get small, fixed additions that the
reference tools (ruff F401/F841, tsc --noUnusedLocals/--noUnusedParameters, rustc
unused_imports/dead_code/unused_variables, the Go compiler) report.  Everything planted is
named `planted...`/`_planted...`/`Planted...` with the file's index N, so it is easy to find.

Which files: the project's files matching its `include` globs (sorted by path, '/'
separators), restricted per language (Rust: src/ only, since tests/ and benches/ are other
crates; Go: non-test files of the pinned packages), then PLANT_FILES of them evenly spaced:
files[i * len(files) // k] for i in range(k), k = min(PLANT_FILES, len(files)).  N is i.

What, per language (appended at the end of the file unless said otherwise):
  python      `import colorsys as _planted_colorsys_N` (F401) and
              `def _planted_unused_N(value, extra):` with an unused local
              `planted_local_N` (F841); `extra` is an unused parameter (ruff has no rule).
  typescript  `import * as plantedNsN from "./<own basename>";` (unused import, 6133) and
  javascript  `function plantedUnusedN(value, extra)` (unused function, 6133; `extra`
              unused parameter, 6133) with an unused local `plantedLocalN` (6133).
              JavaScript: `const plantedRequireN = require("./<own basename>")` instead of the
              import (CommonJS).
  rust        `use std::collections::BTreeSet as PlantedSetN;` (unused_imports) and
              `fn planted_unused_N(value: u32, extra: u32) -> u32` (dead_code; `extra`
              unused_variables) with an unused local `planted_local_N` (unused_variables).
  go          after the package clause: `import plantedutf16N "unicode/utf16"` (compile
              error "imported and not used"); at the end `func plantedUnusedN(value int) int`
              with an unused local `plantedLocalN` (compile error "declared but not used";
              the unused function itself is reported by no reference tool).
  c           `static int planted_unused_N(int value, int extra)` with an unused local
              `planted_local_N` (gcc -Wunused-function / -Wunused-variable /
              -Wunused-parameter).

The list of edits (file, kind, name, 1-based line) is written to
DIR/<name>-<version>-planted/.planted.json.  Planted code parses and compiles apart from
these warnings (Go: apart from these errors, which are how Go reports unused code).
Python 3.11 standard library only.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import pathlib
import re
import shutil

PLANT_VERSION = "1"
PLANT_FILES = 10
MARKER = ".planted-verified"


def _glob_match(rel: str, pattern: str) -> bool:
    # '**/' matches zero or more directories
    rx = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            rx += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            rx += ".*"
            i += 2
        elif pattern[i] == "*":
            rx += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            rx += "[^/]"
            i += 1
        else:
            rx += re.escape(pattern[i])
            i += 1
    return re.fullmatch(rx, rel) is not None


def included_files(project: dict, root: pathlib.Path) -> list[str]:
    """The project's files under root matching its include globs, sorted, '/' separated."""
    out = []
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if any(_glob_match(rel, g) for g in project["include"]):
            out.append(rel)
    return sorted(out)


def candidates(project: dict, root: pathlib.Path) -> list[str]:
    files = included_files(project, root)
    lang = project["language"]
    if lang == "rust":
        files = [f for f in files if f.startswith("src/")]
    elif lang == "go":
        files = [f for f in files if not f.endswith("_test.go")]
    elif lang == "typescript":
        files = [f for f in files if not f.endswith(".d.ts")]
    return files


def chosen(project: dict, root: pathlib.Path) -> list[str]:
    files = candidates(project, root)
    k = min(PLANT_FILES, len(files))
    return [files[i * len(files) // k] for i in range(k)] if k else []


def _ensure_nl(text: str) -> str:
    return text if text.endswith("\n") or text == "" else text + "\n"


def plant_text(lang: str, rel: str, text: str, n: int) -> tuple[str, list[dict]]:
    """Return the new text of a file and the list of planted items (1-based lines)."""
    text = _ensure_nl(text)
    base = text.count("\n")  # lines before the appended block
    edits: list[dict] = []

    def block(lines: list[tuple[str, str | None, str | None]]) -> str:
        # lines: (text, kind, name); line numbers counted after `base`
        out = []
        for i, (line, kind, name) in enumerate(lines):
            out.append(line)
            if kind:
                edits.append({"file": rel, "line": base + 1 + i, "kind": kind, "name": name})
        return "\n".join(out) + "\n"

    stem = pathlib.PurePosixPath(rel).name
    if lang == "python":
        add = block([
            ("", None, None),
            ("", None, None),
            (f"import colorsys as _planted_colorsys_{n}  # planted: unused import", "unused_import", f"_planted_colorsys_{n}"),
            ("", None, None),
            ("", None, None),
            (f"def _planted_unused_{n}(value, extra):", "unused_function", f"_planted_unused_{n}"),
            (f"    planted_local_{n} = value * 2  # planted: unused variable", "unused_variable", f"planted_local_{n}"),
            ("    return value", None, None),
        ])
        # 'extra' is an unused parameter, on the def line
        edits.append({"file": rel, "line": base + 6, "kind": "unused_parameter", "name": "extra"})
        return text + add, sorted(edits, key=lambda e: (e["line"], e["kind"]))
    if lang in ("typescript", "javascript"):
        mod = "./" + re.sub(r"\.(ts|js|mjs|cjs)$", "", stem)
        if lang == "typescript":
            first = (f'import * as plantedNs{n} from "{mod}"; // planted: unused import', "unused_import", f"plantedNs{n}")
            sig = f"function plantedUnused{n}(value: number, extra: string): number {{"
        else:
            first = (f'const plantedRequire{n} = require("{mod}"); // planted: unused variable', "unused_variable", f"plantedRequire{n}")
            sig = f"function plantedUnused{n}(value, extra) {{"
        add = block([
            ("", None, None),
            first,
            ("", None, None),
            (sig, "unused_function", f"plantedUnused{n}"),
            (f"  const plantedLocal{n} = value * 2; // planted: unused variable", "unused_variable", f"plantedLocal{n}"),
            ("  return value;", None, None),
            ("}", None, None),
        ])
        edits.append({"file": rel, "line": base + 4, "kind": "unused_parameter", "name": "extra"})
        return text + add, sorted(edits, key=lambda e: (e["line"], e["kind"]))
    if lang == "rust":
        add = block([
            ("", None, None),
            (f"use std::collections::BTreeSet as PlantedSet{n}; // planted: unused import", "unused_import", f"PlantedSet{n}"),
            ("", None, None),
            (f"fn planted_unused_{n}(value: u32, extra: u32) -> u32 {{", "unused_function", f"planted_unused_{n}"),
            (f"    let planted_local_{n} = value * 2; // planted: unused variable", "unused_variable", f"planted_local_{n}"),
            ("    value", None, None),
            ("}", None, None),
        ])
        edits.append({"file": rel, "line": base + 4, "kind": "unused_parameter", "name": "extra"})
        return text + add, sorted(edits, key=lambda e: (e["line"], e["kind"]))
    if lang == "go":
        lines = text.split("\n")
        idx = next(i for i, l in enumerate(lines) if re.match(r"^package\s+\w+", l))
        lines.insert(idx + 1, f'import plantedutf16{n} "unicode/utf16" // planted: unused import')
        edits.append({"file": rel, "line": idx + 2, "kind": "unused_import", "name": f"plantedutf16{n}"})
        text = "\n".join(lines)
        base = text.count("\n")
        add = block([
            ("", None, None),
            (f"func plantedUnused{n}(value int) int {{", "unused_function", f"plantedUnused{n}"),
            (f"\tplantedLocal{n} := value * 2 // planted: unused variable", "unused_variable", f"plantedLocal{n}"),
            ("\treturn value", None, None),
            ("}", None, None),
        ])
        return text + add, sorted(edits, key=lambda e: (e["line"], e["kind"]))
    if lang == "c":
        add = block([
            ("", None, None),
            (f"static int planted_unused_{n}(int value, int extra)", "unused_function", f"planted_unused_{n}"),
            ("{", None, None),
            (f"    int planted_local_{n} = value * 2; /* planted: unused variable */", "unused_variable", f"planted_local_{n}"),
            ("    return value;", None, None),
            ("}", None, None),
        ])
        edits.append({"file": rel, "line": base + 2, "kind": "unused_parameter", "name": "extra"})
        return text + add, sorted(edits, key=lambda e: (e["line"], e["kind"]))
    raise ValueError(f"no planting for language {lang}")


def plant_tree(project: dict, root: pathlib.Path) -> list[dict]:
    edits = []
    for n, rel in enumerate(chosen(project, root)):
        path = root / rel
        with open(path, encoding="utf-8", newline="") as f:  # keep line endings as they are
            text = f.read()
        new, e = plant_text(project["language"], rel, text, n)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(new)
        edits.extend(e)
    return edits


def planted_copy(project: dict, dest: pathlib.Path) -> pathlib.Path:
    """Copy DIR/<id>/ to DIR/<id>-planted/ and plant it (idempotent).  Returns its root."""
    pid = f"{project['name']}-{project['version']}"
    src = dest / pid
    target = dest / f"{pid}-planted"
    want = hashlib.sha256(
        (PLANT_VERSION + json.dumps(project, sort_keys=True) + pathlib.Path(__file__).read_text()).encode()
    ).hexdigest()
    marker = target / MARKER
    if marker.exists() and marker.read_text().strip() == want:
        return target / project["root"]
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(src, target)
    edits = plant_tree(project, target / project["root"])
    (target / ".planted.json").write_text(
        "[\n" + ",\n".join(json.dumps(e, sort_keys=True) for e in edits) + "\n]\n"
    )
    marker.write_text(want + "\n")
    return target / project["root"]
