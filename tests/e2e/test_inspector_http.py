"""End to end: MCP Inspector's CLI against `resolve-pr serve --http`, as someone checks a
deployed server by hand: `--transport http` to the server's URL with the caller's
`Authorization` header. It lists the tools with `--strict` (every schema portability problem
reported) and calls one with the official TypeScript SDK's streamable-HTTP client.

The Inspector is pinned in tests/inspector (see test_inspector.py); this builds nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from test_inspector import INSPECTOR, assert_no_warning
from test_mcp_http import ALICE, BOB, SECRET_COMMENT, HttpServer
from test_mcp_stdio import REMOTE_TOOLSETS, ForgeSim, home, registry, server_env  # noqa: F401


def inspector_http(home: Path, url: str, token: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None:
        pytest.fail("node is not installed; the MCP Inspector check needs Node.js 20 or later")
    if not INSPECTOR.exists():
        pytest.fail(f"{INSPECTOR} is missing: npm ci --prefix tests/inspector")
    header = ["--header", f"Authorization: Bearer {token}"] if token is not None else []
    return subprocess.run(
        [str(INSPECTOR), "--cli", url, "--transport", "http", *header, *args],
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_inspector_over_http_lists_strictly_and_calls_with_its_header(home: Path) -> None:
    sim = ForgeSim("private_repo_two_users")
    server = None
    try:
        server = HttpServer(server_env(home, {"GITHUB_API_URL": sim.base_url}))

        listed = inspector_http(home, server.url, ALICE, "--strict", "--method", "tools/list")
        assert listed.returncode == 0, listed.stderr
        assert_no_warning(listed)
        tools = json.loads(listed.stdout)["tools"]
        assert [t["name"] for t in tools] == [t["name"] for t in registry(home, *REMOTE_TOOLSETS)]

        call = ("--method", "tools/call", "--tool-name", "pr_comment_list", "--tool-args-json",
                '{"repository": "acme/secret", "pull_request_number": 1}')
        sim.clear_requests()
        called = inspector_http(home, server.url, ALICE, *call)
        assert called.returncode == 0, called.stderr
        assert_no_warning(called)
        result = json.loads(called.stdout)
        assert result["isError"] is False, result
        assert [c["body"] for c in result["structuredContent"]["comments"]] == [SECRET_COMMENT]
        assert {r.get("token") for r in sim.requests()} == {ALICE}

        # Another caller's header reaches the forge as theirs: not found, and the CLI exits 5
        # for an error result.
        refused = inspector_http(home, server.url, BOB, *call)
        assert refused.returncode == 5, refused.stderr
        error = json.loads(refused.stdout)["structuredContent"]
        assert error["category"] == "user", error
        assert SECRET_COMMENT not in refused.stdout

        # Without the header the server answers 401, which the Inspector takes as a request
        # to authorize; non-interactive, it stops there and says so.
        anonymous = inspector_http(
            home, server.url, None, "--stored-auth-only", "--method", "tools/list"
        )
        assert anonymous.returncode != 0, anonymous.stdout
        assert json.loads(anonymous.stderr)["error"]["code"] == "auth_required", anonymous.stderr
        assert sim.violations() == []
    finally:
        if server is not None:
            server.close()
        sim.close()
