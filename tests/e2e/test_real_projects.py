"""End to end on real projects nobody here wrote: tomlkit 0.13.2 (its sdist from PyPI) and
semver 1.0.26 (its crate from crates.io). Each refactoring is planned and then applied by
plan_id through the CLI, in turn (rename a function, extract a variable and a function,
inline, move a function into another module, find and replace, rename a module with its
importers), each plan verified by the language's checker (basedpyright, cargo check); then
the project's own test suite passes.
"""

from __future__ import annotations

import json
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
