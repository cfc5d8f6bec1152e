"""End to end: the refactoring tools (toolset `refactor`) through two real MCP clients, the
official Python SDK over stdio and MCP Inspector's CLI, on a temporary copy of the Python
sample project with the real basedpyright (and ruff): a dry run leaves every byte, the plan
it names is applied exactly (by another process, for the Inspector: plans are kept on disk),
the language server answers from the new text, and rollback restores every byte.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from jsonschema import Draft202012Validator

from test_code_tools import copy_project, lsp_env, require_server, run
from test_inspector import assert_no_warning, inspector
from test_mcp_stdio import home, mcp_session  # noqa: F401

REFACTOR_TOOLS = [
    "rename",
    "extract",
    "inline",
    "transform",
    "move",
    "delete",
    "reorder",
    "find_replace",
    "rollback",
]


def hashes(root: Path) -> dict[str, str]:
    """Every source file under root with its sha256 (servers' and tools' caches left out)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and ".ruff_cache" not in p.parts
    }


def refactor_env(home: Path, tmp_path: Path) -> dict[str, str]:
    env = lsp_env(home)
    # Plans and undo snapshots: outside the checkout, kept across processes.
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    return env


def test_rename_plan_apply_and_rollback_over_stdio(home: Path, tmp_path: Path) -> None:
    project = copy_project("python", tmp_path)
    env = refactor_env(home, tmp_path)
    require_server(env, "python", project)
    run(_rename(project, env))


async def _rename(project: Path, env: dict[str, str]) -> None:
    before = hashes(project)
    async with mcp_session(env) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert [n for n in tools if n in REFACTOR_TOOLS] == REFACTOR_TOOLS
        validate = {n: Draft202012Validator(t.output_schema) for n, t in tools.items()}

        async def call(name: str, args: dict) -> dict:
            result = await session.call_tool(name, {"directory": str(project), **args})
            out = result.structured_content
            assert not result.is_error, f"{name}: {result.content}"
            errors = sorted(validate[name].iter_errors(out), key=str)
            assert not errors, f"{name} output does not match its outputSchema: {errors[0]}"
            return out

        plan = await call("rename", {"symbol": "add_numbers", "new_name": "sum_numbers"})
        assert hashes(project) == before, "a dry run writes nothing"
        files = [f["path"] for f in plan["plan"]["files"]]
        assert sorted(files) == ["main.py", "util.py"], files
        assert plan["plan"]["verification"]["verified"] is True, plan["plan"]["verification"]
        applied = await call("rename", {"dry_run": False, "plan_id": plan["plan"]["plan_id"]})
        assert "sum_numbers" in (project / "main.py").read_text()
        refs = await call("find_references", {"symbol": "sum_numbers", "language": "python"})
        assert refs["total"] >= 4, refs
        await call("rollback", {"snapshot_id": applied["applied"]["snapshot_id"]})
        assert hashes(project) == before, "rollback restores every byte"


def test_find_replace_planned_and_applied_by_two_inspector_processes(home: Path, tmp_path: Path) -> None:
    project = copy_project("python", tmp_path)
    env = refactor_env(home, tmp_path)
    require_server(env, "python", project)
    before = hashes(project)

    def call(args: dict) -> dict:
        called = inspector(
            home, env, "--method", "tools/call", "--tool-name", "find_replace",
            "--tool-args-json", json.dumps({"directory": str(project), **args}),
        )
        assert called.returncode == 0, called.stdout + called.stderr
        assert_no_warning(called)
        result = json.loads(called.stdout)
        assert result["isError"] is False, result
        return result

    planned = call({"pattern": "add_numbers", "replacement": "plus", "whole_word": True})
    assert hashes(project) == before
    plan_id = planned["structuredContent"]["plan"]["plan_id"]
    assert f'plan_id: "{plan_id}"' in planned["content"][0]["text"]
    applied = call({"dry_run": False, "plan_id": plan_id})
    assert sorted(applied["structuredContent"]["applied"]["applied_files"]) == ["main.py", "util.py"]
    assert "add_numbers" not in (project / "util.py").read_text()
