"""Acceptance of the workspace tools (toolset `workspace`) with `move`, end to end on real
packages from the registries, through two real MCP clients: a module of a crate from
crates.io becomes a crate of its own in a Cargo workspace (Python SDK), and a file of an
npm package becomes a workspace package of its own (MCP Inspector's CLI, one process per
call: plans are kept on disk). Each step is a plan first (a dry run leaves every byte),
verified by the ecosystem's tool, applied exactly; then the real build and tests pass.

The order: analyze_module_dependencies (what the module uses) → create_package →
extract_dependencies (the module's dependencies copied while it still sits in its old
package, so the move's own plan builds) → move → update_members (the member is listed).
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import tarfile
import urllib.request
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from test_code_tools import lsp_env, run
from test_inspector import assert_no_warning, inspector
from test_mcp_stdio import home, mcp_session  # noqa: F401

CACHE = Path.home() / ".cache" / "resolve-pr" / "corpus"
FERN = ("https://static.crates.io/crates/fern/fern-0.7.1.crate", "fern-0.7.1")
DEBUG = ("https://registry.npmjs.org/debug/-/debug-4.3.7.tgz", "debug-4.3.7")


def fetched(url: str, name: str) -> bytes:
    """The archive at url, downloaded once into the corpus cache."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{name}.tgz"
    if not path.exists():
        with urllib.request.urlopen(url, timeout=60) as response:
            path.write_bytes(response.read())
    return path.read_bytes()


def unpack(data: bytes, into: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        archive.extractall(into, filter="data")


def hashes(root: Path) -> dict[str, str]:
    skip = {"target", "node_modules", ".git"}
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not skip & set(p.relative_to(root).parts)
    }


def ok(cmd: list[str], cwd: Path, timeout: int = 900) -> str:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def cargo_workspace(tmp_path: Path) -> Path:
    """fern 0.7.1 as crates.io has it, the one member of a Cargo workspace."""
    root = tmp_path / "ws"
    unpack(fetched(*FERN), tmp_path)
    root.mkdir()
    (tmp_path / FERN[1]).rename(root / "fern")
    (root / "Cargo.toml").write_text(
        '[workspace]\n# The crate as published, and what is split out of it.\nmembers = ["fern"]\nresolver = "2"\n'
    )
    return root


def test_a_module_of_a_real_crate_becomes_a_crate_of_its_own(home: Path, tmp_path: Path) -> None:
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    root = cargo_workspace(tmp_path)
    env = lsp_env(home, {"RESOLVE_PR_TRUST": str(root), "XDG_STATE_HOME": str(tmp_path / "state")})
    run(_cargo(root, env))
    # The real build and the crate's own tests, with the module now a crate of its own.
    ok(["cargo", "build", "--quiet"], root)
    tests = ok(["cargo", "test", "--quiet"], root)
    assert "FAILED" not in tests
    lib = (root / "fern" / "src" / "lib.rs").read_text()
    assert "use fern_errors as errors;" in lib and "mod errors;" not in lib


async def _cargo(root: Path, env: dict[str, str]) -> None:
    async with mcp_session(env) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert {"create_package", "extract_dependencies", "update_members", "move"} <= set(tools), sorted(tools)
        validate = {n: Draft202012Validator(t.output_schema) for n, t in tools.items()}

        async def call(name: str, args: dict) -> tuple[dict, str]:
            result = await session.call_tool(name, {"directory": str(root), **args})
            text = result.content[0].text
            assert not result.is_error, f"{name}: {text}"
            out = result.structured_content
            errors = sorted(validate[name].iter_errors(out), key=str)
            assert not errors, f"{name} output does not match its outputSchema: {errors[0]}"
            return out, text

        async def plan_then_apply(name: str, args: dict) -> dict:
            before = hashes(root)
            plan, text = await call(name, args)
            assert hashes(root) == before, f"{name}'s dry run wrote nothing"
            verification = plan["plan"].get("verification") or {}
            assert verification.get("verified") is True, (name, verification, text)
            applied, _ = await call(name, {"dry_run": False, "plan_id": plan["plan"]["plan_id"]})
            assert applied["applied"]["success"] is True
            return plan

        uses, text = await call("analyze_module_dependencies", {"module": "fern/src/errors.rs"})
        assert "log" in text, text

        await plan_then_apply("create_package", {"path": "crates/fern-errors", "name": "fern-errors"})
        members, text = await call("update_members", {"action": "list"})
        assert "crates/fern-errors" in json.dumps(members), text

        extracted = await plan_then_apply(
            "extract_dependencies", {"source": "fern/src/errors.rs", "target": "crates/fern-errors"}
        )
        manifest = (root / "crates" / "fern-errors" / "Cargo.toml").read_text()
        assert "log" in manifest and '"std"' in manifest, manifest
        assert "log" in extracted["plan"]["diff"]

        moved = await plan_then_apply(
            "move", {"kind": "file", "file_path": "fern/src/errors.rs", "destination": "crates/fern-errors"}
        )
        assert "cargo check" in moved["plan"]["verification"]["how"]
        # Its dependencies were extracted already: the move copies none again, and the new
        # crate takes the module's edition (fern's 2018, not the template's).
        manifest = (root / "crates" / "fern-errors" / "Cargo.toml").read_text()
        assert manifest.count("log") == 1, manifest
        assert 'edition = "2018"' in manifest, manifest
        assert not (root / "fern" / "src" / "errors.rs").exists()
        assert "pub enum InitError" in (root / "crates" / "fern-errors" / "src" / "lib.rs").read_text()


def npm_workspace(tmp_path: Path) -> Path:
    """debug 4.3.7 as npm has it, the one package of an npm workspace."""
    root = tmp_path / "npm"
    (root / "packages").mkdir(parents=True)
    unpack(fetched(*DEBUG), tmp_path)
    (tmp_path / "package").rename(root / "packages" / "debug")
    (root / "package.json").write_text(
        json.dumps({"name": "debug-workspace", "private": True, "workspaces": ["packages/debug"]}, indent=2) + "\n"
    )
    return root


def test_a_file_of_a_real_npm_package_becomes_a_workspace_package(home: Path, tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    root = npm_workspace(tmp_path)
    env = lsp_env(home, {"RESOLVE_PR_TRUST": str(root), "XDG_STATE_HOME": str(tmp_path / "state")})

    def call(name: str, args: dict) -> dict:
        done = inspector(
            home, env, "--toolsets", "all", "--method", "tools/call", "--tool-name", name,
            "--tool-args-json", json.dumps({"directory": str(root), **args}),
        )
        assert done.returncode == 0, done.stderr
        assert_no_warning(done)
        result = json.loads(done.stdout)
        assert result["isError"] is False, (name, result["content"][0]["text"])
        return result["structuredContent"]

    def plan_then_apply(name: str, args: dict) -> dict:
        before = hashes(root)
        plan = call(name, args)
        assert hashes(root) == before, f"{name}'s dry run wrote nothing"
        call(name, {"dry_run": False, "plan_id": plan["plan"]["plan_id"]})
        return plan

    ok(["npm", "install", "--omit=dev", "--no-audit", "--no-fund"], root)
    plan_then_apply("create_package", {"path": "packages/debug-common", "name": "debug-common"})
    workspaces = json.loads((root / "package.json").read_text())["workspaces"]
    assert "packages/debug-common" in workspaces, workspaces
    # The workspace links the new package, as an agent would after creating it.
    ok(["npm", "install", "--omit=dev", "--no-audit", "--no-fund"], root)
    plan_then_apply(
        "extract_dependencies", {"source": "packages/debug/src/common.js", "target": "packages/debug-common"}
    )
    common = json.loads((root / "packages" / "debug-common" / "package.json").read_text())
    debug = json.loads((root / "packages" / "debug" / "package.json").read_text())
    assert common["dependencies"] == {"ms": debug["dependencies"]["ms"]}, common
    moved = plan_then_apply(
        "move",
        {"kind": "file", "file_path": "packages/debug/src/common.js", "destination": "packages/debug-common/index.js"},
    )
    assert moved["plan"]["verification"]["verified"] is True, moved["plan"]["verification"]
    assert "require('debug-common')" in (root / "packages" / "debug" / "src" / "node.js").read_text()
    listed = call("update_members", {"action": "list"})
    assert "packages/debug-common" in json.dumps(listed)
    # npm sees both packages, and the moved code runs through the old package.
    ok(["npm", "install", "--omit=dev", "--no-audit", "--no-fund"], root)
    names = [w["name"] for w in json.loads(ok(["npm", "query", ".workspace"], root))]
    assert sorted(names) == ["debug", "debug-common"], names
    script = (
        "const assert = require('assert'); const debug = require('debug');"
        "assert.strictEqual(debug.humanize(1500), '2s');"
        "const log = debug('x'); let seen = ''; log.log = (...a) => { seen = a.join(' '); };"
        "debug.enable('x'); log('hello %o', 42); assert.ok(seen.includes('hello 42'), seen); console.log('ok');"
    )
    assert ok(["node", "-e", script], root).strip() == "ok"
