"""End to end: MCP Inspector's CLI against `resolve-pr serve`, the way people check an MCP
server by hand. It lists the tools and reports every schema construct that does not carry
over to other clients (`--strict`), and it calls a tool with the official TypeScript SDK.

The Inspector is pinned in tests/inspector (package.json + package-lock.json); scripts/test.sh
installs it with `npm ci --prefix tests/inspector`. Like test_mcp_stdio.py it builds nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_mcp_stdio import REPO_ROOT, RESOLVE_PR_BIN, ForgeSim, home, registry, server_env, toolsets  # noqa: F401

INSPECTOR = REPO_ROOT / "tests/inspector/node_modules/.bin/mcp-inspector"


def inspector(
    home: Path, env: dict[str, str], *args: str, on_demand: bool = False
) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None:
        pytest.fail("node is not installed; the MCP Inspector check needs Node.js 20 or later")
    if not INSPECTOR.exists():
        pytest.fail(f"{INSPECTOR} is missing: npm ci --prefix tests/inspector")
    if not RESOLVE_PR_BIN.exists():
        pytest.fail(f"{RESOLVE_PR_BIN} is missing: cargo build -p resolve-pr --bins")
    # The Inspector starts the server with only the variables given here (and its own HOME,
    # where it may keep state), so neither reads the developer's settings.
    server_vars = [a for k, v in env.items() for a in ("-e", f"{k}={v}")]
    return subprocess.run(
        [str(INSPECTOR), "--cli", *server_vars, str(RESOLVE_PR_BIN), "serve", *toolsets(args, on_demand)],
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_no_warning(run: subprocess.CompletedProcess[str]) -> None:
    for stream in (run.stdout, run.stderr):
        assert "Warning" not in stream and "portability" not in stream, run.stderr


def test_inspector_lists_and_calls_without_a_warning(home: Path) -> None:
    sim = ForgeSim("threads_mixed")
    try:
        env = server_env(home, {"GITHUB_API_URL": sim.base_url, "GITHUB_TOKEN": "ghp_write"})

        listed = inspector(home, env, "--strict", "--method", "tools/list")
        assert listed.returncode == 0, listed.stderr
        assert_no_warning(listed)
        tools = json.loads(listed.stdout)["tools"]
        assert [t["name"] for t in tools] == [t["name"] for t in registry(home)]

        called = inspector(
            home,
            env,
            "--method",
            "tools/call",
            "--tool-name",
            "find_unresolved_comments",
            "--tool-args-json",
            '{"pr": "acme/widgets#12"}',
        )
        assert called.returncode == 0, called.stderr
        assert_no_warning(called)
        result = json.loads(called.stdout)
        assert result["isError"] is False
        assert result["structuredContent"]["total_unresolved"] > 0

        # An error result is answered too; the CLI exits 5 for isError.
        refused = inspector(
            home,
            env,
            "--method",
            "tools/call",
            "--tool-name",
            "find_unresolved_comments",
            "--tool-args-json",
            '{"pr": 42}',
        )
        assert refused.returncode == 5, refused.stderr
        assert_no_warning(refused)
        error = json.loads(refused.stdout)["structuredContent"]
        assert error["category"] == "user"
        assert error["details"]["problems"] == [
            'pr: expected a string like "owner/repo#123", got number 42'
        ]
        assert sim.violations() == []
    finally:
        sim.close()


def running_forever(home: Path) -> Path:
    """The `ci_running` scenario with its running checks never finishing."""
    text = (REPO_ROOT / "crates/forge-sim/scenarios/ci_running.yaml").read_text()
    for n in ("2", "4"):
        text = text.replace(f"complete_after: {n}", "complete_after: 100000")
    path = home / "running_forever.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_wait_ends_before_the_inspector_gives_up(home: Path, era: str) -> None:
    """The Inspector (TypeScript SDK) ends a request after 60 s whatever progress says. On a
    legacy session it sends no progress token, so one wait call returns at
    RESOLVE_PR_CI_CALL_WAIT (50 s by default; 2 here) with poll_info. On a 2026-07-28 session
    it declares the tasks extension per request, so the wait runs as a task it polls, up to
    the wait cap (3 s here), with no request held open."""
    sim = ForgeSim(running_forever(home))
    try:
        env = server_env(
            home,
            {
                "GITHUB_API_URL": sim.base_url,
                "GITHUB_TOKEN": "ghp_read",
                "RESOLVE_PR_CI_POLL": "0.05-0.1",
                "RESOLVE_PR_CI_CALL_WAIT": "2",
                "RESOLVE_PR_CI_WAIT_TIMEOUT": "3" if era == "modern" else "30",
                "RESOLVE_PR_LOG": "info",
            },
        )
        called = inspector(
            home,
            env,
            "--protocol-era",
            era,
            "--method",
            "tools/call",
            "--tool-name",
            "get_failing_tests",
            "--tool-args-json",
            '{"pr": "acme/widgets#8", "wait": true, "bail_on_first": false}',
        )
        assert called.returncode == 0, called.stderr
        assert_no_warning(called)
        result = json.loads(called.stdout)
        assert result["isError"] is False, result
        out = result["structuredContent"]
        assert out["wait"]["timed_out"] is True, out["wait"]
        assert out["wait"]["limit_seconds"] == (3 if era == "modern" else 2)
        assert "wait: true" in out["poll_info"]["message"]
        ran_as_task = "call runs as a task" in called.stderr
        assert ran_as_task == (era == "modern"), called.stderr
    finally:
        sim.close()


def test_inspector_calls_the_merge_and_analysis_tools(home: Path) -> None:
    scenarios = REPO_ROOT / "crates/forge-sim/scenarios"
    for scenario, tool, args in [
        ("readiness_many_checks", "check_merge_readiness", {"pr": "octo/app#1"}),
        ("impact_github", "analyze_pr_impact", {"pr": "octo/app#7", "depth": "detailed"}),
        ("impact_github", "get_review_suggestions", {"pr": "octo/app#7", "max_diff_lines": 60}),
    ]:
        sim = ForgeSim(scenarios / f"{scenario}.yaml")
        try:
            env = server_env(home, {"GITHUB_API_URL": sim.base_url, "GITHUB_TOKEN": "ghp_write"})
            called = inspector(
                home,
                env,
                "--method",
                "tools/call",
                "--tool-name",
                tool,
                "--tool-args-json",
                json.dumps(args),
            )
            assert called.returncode == 0, called.stderr
            assert_no_warning(called)
            result = json.loads(called.stdout)
            assert result["isError"] is False, result
            out = result["structuredContent"]
            if tool == "check_merge_readiness":
                assert out["ready_to_merge"] is False
                assert out["branch_protection"]["failing_checks"] == ["check-105"]
            elif tool == "analyze_pr_impact":
                assert len(out["files"]) == out["changes"]["files_changed"]
            else:
                assert out["diff_lines_shown"] <= 60
            assert sim.violations() == []
        finally:
            sim.close()


def test_inspector_sees_the_default_toolsets_and_turns_one_on(home: Path) -> None:
    """The Inspector's CLI opens a session per command: it lists the default toolsets and turns
    one on in a session of its own. It refuses to call a tool its list lacks (a client that
    checks names against tools/list), so in the next session the operator's `--toolsets` is
    what offers the tool."""
    sim = ForgeSim("threads_mixed")
    try:
        env = server_env(home, {"GITHUB_API_URL": sim.base_url, "GITHUB_TOKEN": "ghp_write"})
        listed = inspector(home, env, "--strict", "--method", "tools/list", on_demand=True)
        assert listed.returncode == 0, listed.stderr
        assert_no_warning(listed)
        names = [t["name"] for t in json.loads(listed.stdout)["tools"]]
        assert names == [t["name"] for t in registry(home, on_demand=True)]
        assert "pr_comment_list" not in names and "enable_toolsets" in names

        enabled = inspector(
            home,
            env,
            "--method",
            "tools/call",
            "--tool-name",
            "enable_toolsets",
            "--tool-args-json",
            '{"toolsets": ["comments"]}',
            on_demand=True,
        )
        assert enabled.returncode == 0, enabled.stderr
        assert_no_warning(enabled)
        result = json.loads(enabled.stdout)
        assert result["isError"] is False, result
        comments = [t["name"] for t in registry(home, "--toolsets", "comments")]
        assert result["structuredContent"] == {"turned_on": ["comments"], "tools": comments}

        call = ("--method", "tools/call", "--tool-name", "pr_comment_list", "--tool-args-json", '{"pr": "acme/widgets#12"}')
        refused = inspector(home, env, *call, on_demand=True)
        assert refused.returncode != 0 and "not found" in refused.stdout + refused.stderr, refused
        called = inspector(home, env, "--toolsets", "default,comments", *call)
        assert called.returncode == 0, called.stderr
        result = json.loads(called.stdout)
        assert result["isError"] is False, result
        assert result["structuredContent"]["comments"], result
    finally:
        sim.close()
