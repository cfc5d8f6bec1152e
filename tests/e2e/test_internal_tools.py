"""Seed 002's internal toolset through two real MCP clients: it is hidden (neither the
default session nor `--toolsets all` lists it), offered by `--toolsets internal`, its
results match their outputSchema in the Python SDK, its writes are plans (a dry run leaves
every byte; the plan applies exactly; rollback restores), and MCP Inspector's CLI lists it
strictly and calls it without a warning.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from jsonschema import Draft202012Validator

from test_code_tools import run
from test_inspector import assert_no_warning, inspector
from test_mcp_stdio import home, mcp_session, registry, server_env  # noqa: F401


def checkout(root: Path) -> Path:
    for path, text in {"src/a.txt": "one\ntwo\nthree\n", "src/b.txt": "b\n", ".gitignore": "build/\n",
                       "build/out.txt": "ignored\n"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_internal_toolset_is_hidden_until_named(home: Path) -> None:
    everything = {t["name"] for t in registry(home, "--toolsets", "all")}
    internal = {t["name"] for t in registry(home, "--toolsets", "internal")}
    assert {"read_file", "list_files", "write_file", "apply_workspace_edit", "get_completions",
            "notify_file_saved", "update_dependency"} <= internal, sorted(internal)
    assert not internal & everything, "`all` leaves the internal toolset out"


def test_the_python_sdk_reads_and_writes_files_as_plans(home: Path, tmp_path: Path) -> None:
    root = checkout(tmp_path / "co")
    env = server_env(home, {"XDG_STATE_HOME": str(tmp_path / "state")})
    run(_python_sdk(env, root))


async def _python_sdk(env: dict[str, str], root: Path) -> None:
    async with mcp_session(env, "--toolsets", "internal,refactor") as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        validate = {n: Draft202012Validator(t.output_schema) for n, t in tools.items()}

        async def call(name: str, args: dict) -> tuple[dict, str]:
            result = await session.call_tool(name, {"directory": str(root), **args})
            text = result.content[0].text
            assert not result.is_error, f"{name}: {text}"
            errors = sorted(validate[name].iter_errors(result.structured_content), key=str)
            assert not errors, f"{name}: {errors[0]}"
            return result.structured_content, text

        listed, text = await call("list_files", {"limit": 1})
        assert "build/out.txt" not in json.dumps(listed), ".gitignore is honoured"
        assert "next page" in text, text
        read, _ = await call("read_file", {"file_path": "src/a.txt", "start_line": 2, "end_line": 2})
        assert read["content"] == "two\n", read

        before = hashes(root)
        plan, text = await call("write_file", {"file_path": "src/a.txt", "content": "uno\n"})
        assert hashes(root) == before, "a dry run writes nothing"
        assert "-one" in text and "+uno" in text, text
        applied, _ = await call("write_file", {"dry_run": False, "plan_id": plan["plan"]["plan_id"]})
        assert (root / "src" / "a.txt").read_text() == "uno\n"
        await call("rollback", {"snapshot_id": applied["applied"]["snapshot_id"]})
        assert hashes(root) == before, "rollback (the refactoring toolset's) puts every byte back"

        # A WorkspaceEdit whose part is wrong is refused, naming the part; nothing is written.
        bad = await session.call_tool("apply_workspace_edit", {"directory": str(root), "edit": {
            "documentChanges": [{"textDocument": {"uri": (root / "src" / "b.txt").as_uri(), "version": None},
                                 "edits": [{"range": {"start": {"line": 9, "character": 0},
                                                      "end": {"line": 9, "character": 0}}, "newText": "x"}]}]}})
        assert bad.is_error
        assert "documentChanges[0]" in bad.content[0].text, bad.content[0].text


def test_inspector_lists_the_internal_toolset_strictly_and_calls_it(home: Path, tmp_path: Path) -> None:
    root = checkout(tmp_path / "co")
    env = server_env(home, {"XDG_STATE_HOME": str(tmp_path / "state")})
    listed = inspector(home, env, "--toolsets", "internal", "--strict", "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    assert_no_warning(listed)
    assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == [
        t["name"] for t in registry(home, "--toolsets", "internal")
    ]
    called = inspector(home, env, "--toolsets", "internal", "--method", "tools/call", "--tool-name", "read_file",
                       "--tool-args-json", json.dumps({"directory": str(root), "file_path": "src/b.txt"}))
    assert called.returncode == 0, called.stderr
    assert_no_warning(called)
    result = json.loads(called.stdout)
    assert result["isError"] is False and result["structuredContent"]["content"] == "b\n", result
