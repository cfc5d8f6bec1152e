"""The analysis tools through two real MCP clients (the official Python SDK and MCP
Inspector's CLI with the TypeScript SDK) over stdio: the toolset is off by default and
turned on by calling one of its tools; each result matches the tool's outputSchema, its
text carries what an agent needs (the findings and the next page), and a scope that names
nothing is an error result with INVALID_SCOPE.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from jsonschema import Draft202012Validator

from test_inspector import assert_no_warning, inspector
from test_mcp_stdio import home, mcp_session, server_env  # noqa: F401

SOURCES = {
    "app/util.py": "import os\nimport sys\n\n\ndef tangled(a, b, c):\n    if a and b:\n        return 1\n    elif b or c:\n        return 2\n    for x in range(a):\n        if x > c:\n            return x\n    return 0\n\n\ndef plain():\n    return os.getcwd()\n",
    "app/a.py": "from app import b\n\n\ndef f():\n    return b.g()\n",
    "app/b.py": "from app import a\n\n\ndef g():\n    return a.f()\n",
    "app/__init__.py": "",
}


def checkout(root: Path) -> Path:
    for path, text in SOURCES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_the_python_sdk_turns_analysis_on_and_reads_findings_and_pages(home: Path, tmp_path: Path) -> None:
    root = checkout(tmp_path / "co")
    asyncio.run(asyncio.wait_for(_python_sdk(home, root), 120))


async def _python_sdk(home: Path, root: Path) -> None:
    env = server_env(home, {})
    async with mcp_session(env, on_demand=True) as session:
        await session.initialize()
        listed = [t.name for t in (await session.list_tools()).tools]
        assert "analyze_quality" not in listed, "the analysis toolset is off by default"
        turned = await session.call_tool("enable_toolsets", {"toolsets": ["analysis"]})
        assert not turned.is_error, turned
        tools = {t.name: t for t in (await session.list_tools()).tools}
        names = [n for n in tools if n.startswith("analyze_") and n not in ("analyze_pr_impact",)]
        assert names == ["analyze_quality", "analyze_dead_code", "analyze_dependencies", "analyze_cycles",
                         "analyze_structure", "analyze_documentation", "analyze_tests", "analyze_batch",
                         "analyze_module_dependencies"], names

        calls = [
            ("analyze_quality", {"options": {"thresholds": {"cyclomatic_complexity": 0}, "limit": 1}}),
            ("analyze_dead_code", {}),
            ("analyze_cycles", {}),
            ("analyze_structure", {"kind": "symbols"}),
            ("analyze_documentation", {"kind": "missing"}),
            ("analyze_tests", {"kind": "untested"}),
            ("analyze_dependencies", {"kind": "graph", "options": {"export_format": "mermaid"}}),
            ("analyze_batch", {"analyses": [{"category": "quality"}, {"category": "dead_code"}]}),
        ]
        results = {}
        for tool, args in calls:
            result = await session.call_tool(tool, {"directory": str(root), **args})
            assert not result.is_error, (tool, result.content[0].text)
            errors = list(Draft202012Validator(tools[tool].output_schema).iter_errors(result.structured_content))
            assert not errors, (tool, errors[0])
            out = result.structured_content
            assert set(out["summary"]["by_severity"]) == {"high", "medium", "low"}
            results[tool] = (out, result.content[0].text)

        quality, text = results["analyze_quality"]
        assert quality["summary"]["total_findings"] == 4 and quality["summary"]["returned_findings"] == 1
        assert "tangled has cyclomatic complexity 7" in text, text
        assert "Showing 1 of 4; next page: call analyze_quality with {" in text, text
        assert '"offset":1' in text, text
        dead, text = results["analyze_dead_code"]
        assert [f["symbol"]["symbol"] for f in dead["findings"]] == ["sys"], text
        assert '→ delete {"directory"' in text, text
        cycles, text = results["analyze_cycles"]
        assert cycles["findings"][0]["metrics"]["circular_path"] == ["app/a.py", "app/b.py", "app/a.py"], text
        graph, text = results["analyze_dependencies"]
        assert graph["metadata"]["graph"]["format"] == "mermaid" and "graph TD" in text, text

        bad = await session.call_tool("analyze_quality", {"directory": str(root), "scope": {"type": "directory"}})
        assert bad.is_error
        assert bad.structured_content["code"] == "INVALID_SCOPE", bad.structured_content
        assert bad.structured_content["details"]["field"] == "scope.path"


def test_the_inspector_calls_analysis_tools_without_a_warning(home: Path, tmp_path: Path) -> None:
    root = checkout(tmp_path / "co")
    env = server_env(home, {})
    for tool, args, check in [
        ("analyze_cycles", {}, lambda out: out["summary"]["total_findings"] == 1),
        ("analyze_quality", {"kind": "maintainability", "options": {"thresholds": {"maintainability_index": 101}}},
         lambda out: {f["location"]["file_path"] for f in out["findings"]} == {"app/util.py", "app/a.py", "app/b.py", "app/__init__.py"}),
        ("analyze_module_dependencies", {"module": "crate::x"}, None),
    ]:
        called = inspector(home, env, "--method", "tools/call", "--tool-name", tool,
                           "--tool-args-json", json.dumps({"directory": str(root), **args}))
        if check is None:
            # No Rust crate here: an error result, which the Inspector's CLI reports as such.
            assert called.returncode != 0 and "returned isError:true" in called.stderr, called
            continue
        assert called.returncode == 0, called.stderr
        assert_no_warning(called)
        result = json.loads(called.stdout)
        assert result["isError"] is False, result
        assert check(result["structuredContent"]), result["structuredContent"]
