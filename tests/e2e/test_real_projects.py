"""End to end on real projects nobody here wrote: tomlkit 0.13.2 (its sdist from PyPI),
semver 1.0.26 (its crate from crates.io) and remeda 1.0.0 (its npm tarball, TypeScript
sources and jest tests). Each refactoring is planned and then applied by plan_id through the
CLI, in turn (rename a function, extract a variable, a constant and a function, inline, move
a function into another module or a new file, find and replace, rename a module with its
importers, sort and prune imports), each plan verified by the language's checker
(basedpyright, cargo check, tsc); then the project's own test suite passes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

from test_code_tools import RESOLVE_PR_BIN, lsp_env, require_server
from test_mcp_stdio import home  # noqa: F401

SDIST = "tomlkit==0.13.2"


def fetch(tmp_path: Path) -> Path:
    """The sdist, downloaded and unpacked: a git checkout of it (the tools' own walk reads
    files as git does)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         "--disable-pip-version-check", "-d", str(tmp_path / "dl"), SDIST],
        check=True, timeout=300,
    )
    archive = next((tmp_path / "dl").glob("tomlkit-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / "tomlkit-0.13.2"
    git_checkout(root)
    return root


def git_checkout(root: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sources"]):
        subprocess.run(["git", *args], cwd=root, check=True)


def position(root: Path, file: str, text: str, after: int = 0) -> dict:
    for line, content in enumerate((root / file).read_text().split("\n")):
        col = content.find(text)
        if col >= 0:
            return {"line": line, "character": col + after}
    raise AssertionError(f"{text!r} is not in {file}")


def span(root: Path, file: str, text: str) -> dict:
    start = position(root, file, text)
    return {"start": start, "end": {"line": start["line"], "character": start["character"] + len(text)}}


def tool(env: dict, name: str, args: dict) -> dict:
    run = subprocess.run([str(RESOLVE_PR_BIN), "tool", name, json.dumps(args)], env=env,
                         capture_output=True, text=True, timeout=900)
    out = json.loads(run.stdout)
    assert run.returncode == 0, f"{name}: {out}"
    return out


def cli_env(home: Path, tmp_path: Path, root: Path) -> dict:
    env = lsp_env(home, {"XDG_STATE_HOME": str(tmp_path / "state"), "RESOLVE_PR_TRUST": str(root)})
    # One daemon keeps the servers warm across the calls, as for a user of the CLI; it
    # leaves soon after the last.
    del env["RESOLVE_PR_NO_DAEMON"]
    env["RESOLVE_PR_DAEMON_IDLE_SECS"] = "20"
    return env


def test_every_refactoring_on_tomlkit_then_its_own_tests_pass(home: Path, tmp_path: Path) -> None:
    root = fetch(tmp_path)
    env = cli_env(home, tmp_path, root)
    require_server(env, "python", root)
    u = "tomlkit/_utils.py"
    steps = [
        ("rename", lambda: {"file_path": u, "position": position(root, u, "def parse_rfc3339", 4),
                            "new_name": "parse_rfc_3339"}),
        ("extract", lambda: {"kind": "variable", "file_path": u, "range": span(root, u, "hour_offset * 3600")}),
        ("extract", lambda: {"kind": "function", "file_path": u,
                             "range": span(root, u, "{seq for seq in escape_sequences if seq in s}")}),
        ("inline", lambda: {"kind": "variable", "file_path": u, "position": position(root, u, "_basic_escapes = ")}),
        ("inline", lambda: {"kind": "function", "file_path": u, "position": position(root, u, "def _unicode_escape", 4)}),
        ("move", lambda: {"file_path": u, "range": span(root, u, "merge_dicts(d1: dict"),
                          "destination": "tomlkit/_compat.py"}),
        ("find_replace", lambda: {"pattern": "RFC_3339_LOOSE", "replacement": "RFC3339_LOOSE", "whole_word": True}),
        ("rename", lambda: {"kind": "file", "file_path": "tomlkit/_compat.py", "new_name": "compat.py"}),
    ]
    for name, args in steps:
        plan = tool(env, name, {"directory": str(root), **args()})["plan"]
        assert plan["verification"]["verified"] is True, f"{name}: {plan['verification']}"
        applied = tool(env, name, {"directory": str(root), "dry_run": False, "plan_id": plan["plan_id"]})
        assert applied["applied"]["success"] is True, f"{name}: {applied}"
    text = "\n".join(p.read_text() for p in (root / "tomlkit").rglob("*.py"))
    assert "parse_rfc3339" not in text and "parse_rfc_3339" in text
    assert "_unicode_escape" not in text and "RFC_3339_LOOSE" not in text
    assert not (root / "tomlkit/_compat.py").exists() and (root / "tomlkit/compat.py").exists()
    assert "def merge_dicts" in (root / "tomlkit/compat.py").read_text()
    # The project's own tests (test_toml_spec_tests.py needs PyYAML, not installed here).
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests",
         "--ignore", "tests/test_toml_spec_tests.py"],
        cwd=root, capture_output=True, text=True, timeout=600,
    )
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert " passed" in tests.stdout.splitlines()[-1]


def test_every_refactoring_on_semver_then_its_own_tests_pass(home: Path, tmp_path: Path) -> None:
    crate = tmp_path / "semver.crate"
    urllib.request.urlretrieve("https://static.crates.io/crates/semver/semver-1.0.26.crate", crate)
    with tarfile.open(crate) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / "semver-1.0.26"
    git_checkout(root)
    env = cli_env(home, tmp_path, root)
    require_server(env, "rust", root)
    e = "src/eval.rs"
    steps = [
        ("rename", lambda: {"file_path": e, "position": position(root, e, "fn matches_exact", 3),
                            "new_name": "matches_equal"}),
        ("extract", lambda: {"kind": "function", "file_path": e, "range": span(root, e, "cmp.major == ver.major")}),
        ("extract", lambda: {"kind": "variable", "file_path": e, "range": span(root, e, "ver.major > cmp.major")}),
        ("move", lambda: {"file_path": e, "range": span(root, e, "fn pre_is_compatible"),
                          "destination": "src/identifier.rs"}),
        ("find_replace", lambda: {"pattern": "matches_impl", "replacement": "matches_one", "whole_word": True}),
        ("rename", lambda: {"kind": "file", "file_path": e, "new_name": "evaluate.rs"}),
    ]
    for name, args in steps:
        plan = tool(env, name, {"directory": str(root), **args()})["plan"]
        assert plan["verification"]["verified"] is True, f"{name}: {plan['verification']}"
        applied = tool(env, name, {"directory": str(root), "dry_run": False, "plan_id": plan["plan_id"]})
        assert applied["applied"]["success"] is True, f"{name}: {applied}"
    # rust-analyzer's "Inline into all callers" of a function calling its module's private
    # helpers breaks the build (E0425 where it inlined): refused before anything is written.
    before = {p: p.read_bytes() for p in (root / "src").rglob("*.rs")}
    plan = tool(env, "inline", {"directory": str(root), "kind": "function", "file_path": "src/evaluate.rs",
                                "position": position(root, "src/evaluate.rs", "fn matches_comparator", 14)})["plan"]
    if plan["verification"]["verified"] is False:
        run = subprocess.run([str(RESOLVE_PR_BIN), "tool", "inline",
                              json.dumps({"directory": str(root), "dry_run": False, "plan_id": plan["plan_id"]})],
                             env=env, capture_output=True, text=True, timeout=900)
        assert json.loads(run.stdout)["code"] == "APPLY_FAILED", run.stdout
        assert {p: p.read_bytes() for p in (root / "src").rglob("*.rs")} == before
    text = (root / "src/identifier.rs").read_text()
    assert "fn pre_is_compatible" in text
    assert "mod evaluate;" in (root / "src/lib.rs").read_text()
    tests = subprocess.run(["cargo", "test", "--offline", "-q"], cwd=root, env=env,
                           capture_output=True, text=True, timeout=900)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]


def test_every_refactoring_on_remeda_then_its_own_tests_pass(home: Path, tmp_path: Path) -> None:
    # remeda 1.0.0's npm tarball ships its TypeScript sources with their jest tests (src/*.ts,
    # one function a file, 71 test files) and its tsconfig.json (strict, noUnusedLocals).
    subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(tmp_path), "remeda@1.0.0"],
                   check=True, timeout=300, capture_output=True)
    with tarfile.open(tmp_path / "remeda-1.0.0.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / "package"
    # dist/ is its build output (each function again, compiled): not a source to refactor.
    shutil.rmtree(root / "dist")
    # Its own devDependencies (jest 26, whose ts-jest takes TypeScript < 5; typedoc 0.11, which
    # brings TypeScript 2.7) give way to the same test runner and checker at pinned versions
    # that run with TypeScript 5.9.3, the tests' typescript-language-server's
    # (tests/lsp/package.json).
    manifest = json.loads((root / "package.json").read_text())
    manifest["devDependencies"] = {"typescript": "5.9.3", "jest": "29.7.0", "ts-jest": "29.4.6",
                                   "@types/jest": "29.5.14"}
    (root / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (root / ".gitignore").write_text("node_modules/\n")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-package-lock"], cwd=root,
                   check=True, timeout=600, capture_output=True)
    git_checkout(root)
    env = cli_env(home, tmp_path, root)
    require_server(env, "typescript", root)
    p, r, c, f = "src/purry.ts", "src/randomString.ts", "src/clamp.ts", "src/filter.ts"

    def with_an_unused_import() -> dict:
        # The project has none (its tsconfig sets noUnusedLocals): one is added, a baseline
        # error the plan removes.
        (root / f).write_text("import { clamp } from './clamp';\n" + (root / f).read_text())
        return {"kind": "unused_imports", "file_path": f}

    alphabet = "'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'"
    steps = [
        # purry: imported by 54 of its 150 files, a test among them.
        ("rename", lambda: {"file_path": p, "position": position(root, p, "export function purry", 16),
                            "new_name": "purryArgs"}),
        ("extract", lambda: {"kind": "constant", "name": "ALPHANUMERIC", "file_path": r,
                             "range": span(root, r, alphabet)}),
        ("inline", lambda: {"kind": "variable", "file_path": r,
                            "position": position(root, r, "const characterSet", 6)}),
        ("extract", lambda: {"kind": "function", "name": "randomCharOf", "file_path": r, "range": span(
            root, r, "ALPHANUMERIC[Math.floor(Math.random() * ALPHANUMERIC.length)]")}),
        # typescript-language-server moves to a new file it names (src/_clamp.ts); the plan
        # gives it the destination's path, and its importers the destination's specifier.
        ("move", lambda: {"file_path": c, "range": span(root, c, "function _clamp("),
                          "destination": "src/_clampValue.ts"}),
        # _toLazyIndexed.ts: imported by 9 files.
        ("rename", lambda: {"kind": "file", "file_path": "src/_toLazyIndexed.ts",
                            "new_name": "_lazyIndexed.ts"}),
        ("reorder", lambda: {"kind": "imports", "file_path": f}),
        ("delete", with_an_unused_import),
        # The tests' counter helper, in 14 files.
        ("find_replace", lambda: {"pattern": "createCounter", "replacement": "makeCounter",
                                  "whole_word": True, "include": ["src/**/*.ts"]}),
    ]
    for name, args in steps:
        out = tool(env, name, {"directory": str(root), **args()})
        plan = out["plan"]
        assert plan["verification"]["verified"] is True, f"{name}: {plan['verification']}"
        # The plan's own next call applies it, exactly as the answer gives it.
        assert out["next"]["tool"] == name, out["next"]
        applied = tool(env, name, out["next"]["arguments"])
        assert applied["applied"]["success"] is True, f"{name}: {applied}"
    src = root / "src"
    text = "\n".join(file.read_text() for file in src.glob("*.ts"))
    assert "import { purry }" not in text and text.count("import { purryArgs } from './purry';") == 54
    random_string = (src / "randomString.ts").read_text()
    assert f"const ALPHANUMERIC = {alphabet}" in random_string and "characterSet" not in random_string
    assert "function randomCharOf(" in random_string and "randomCharOf()" in random_string
    assert not (src / "_clamp.ts").exists() and "function _clamp(" in (src / "_clampValue.ts").read_text()
    assert "import { clamp }" not in (src / "filter.ts").read_text()
    assert "function _clamp(" not in (src / "clamp.ts").read_text()
    assert "import { _clamp } from './_clampValue';" in (src / "clamp.ts").read_text()
    assert not (src / "_toLazyIndexed.ts").exists() and (src / "_lazyIndexed.ts").exists()
    assert "'./_toLazyIndexed'" not in text and text.count("from './_lazyIndexed';") == 9
    assert (src / "filter.ts").read_text().split("\n")[:4] == [
        "import { _toLazyIndexed } from './_lazyIndexed';",
        "import { _reduceLazy, LazyResult } from './_reduceLazy';",
        "import { Pred, PredIndexed, PredIndexedOptional } from './_types';",
        "import { purryArgs } from './purry';",
    ]
    assert "createCounter" not in text and "export const makeCounter" in (src / "_counter.ts").read_text()
    check = subprocess.run(["node_modules/.bin/tsc", "--noEmit", "-p", "."], cwd=root,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout[-3000:]
    # Its own tests (jest with ts-jest, which type-checks each test file too).
    tests = subprocess.run(["node_modules/.bin/jest", "--ci"], cwd=root, capture_output=True,
                           text=True, timeout=600)
    assert tests.returncode == 0, tests.stderr[-3000:]
    assert re.search(r"^Tests:\s+\d+ passed, \d+ total$", tests.stderr, re.M), tests.stderr[-3000:]
