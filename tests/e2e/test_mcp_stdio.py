"""End to end: `resolve-pr serve` driven by the official Python MCP client over stdio, against
`forge-sim` serving a simulated GitHub and a simulated Forgejo.

Builds nothing: run `cargo build -p resolve-pr -p resolve-pr-forge-sim --bins` first, or point
RESOLVE_PR_BIN / FORGE_SIM_BIN at the binaries. Every server runs with HOME, XDG dirs and
RESOLVE_PR_CONFIG in a temporary directory, so the developer's config and tokens are never read.
The HTTP requests each tool call costs are printed (and collected in REQUEST_COUNTS).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import urllib.request
import uuid
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
from jsonschema import Draft202012Validator
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO_ROOT = Path(__file__).resolve().parents[2]
RESOLVE_PR_BIN = Path(os.environ.get("RESOLVE_PR_BIN", REPO_ROOT / "target/debug/resolve-pr"))
FORGE_SIM_BIN = Path(os.environ.get("FORGE_SIM_BIN", REPO_ROOT / "target/debug/forge-sim"))
TIMEOUT = 60  # seconds for one whole scenario; the simulator answers in milliseconds

# (forge, tool, what) -> HTTP requests the call cost, for the report.
REQUEST_COUNTS: dict[tuple[str, str, str], int] = {}


@dataclass(frozen=True)
class Forge:
    """A builtin forge-sim scenario and how resolve-pr is pointed at it (see
    crates/forge-sim/scenarios/*.yaml for the tokens, repositories and pull requests)."""

    name: str
    scenario: str
    token: str
    owner: str
    repo: str
    pr: int

    def env(self, base_url: str) -> dict[str, str]:
        if self.name == "github":
            return {"GITHUB_API_URL": base_url, "GITHUB_TOKEN": self.token}
        return {"FORGEJO_HOST": base_url, "FORGEJO_TOKEN": self.token}

    def repository(self, base_url: str) -> str:
        if self.name == "github":
            return f"{self.owner}/{self.repo}"  # the default forge is the simulated GitHub
        return f"{base_url.removeprefix('http://')}/{self.owner}/{self.repo}"


DEMO = [
    Forge("github", "demo-github", "ghp_demo_write", "acme", "widgets", 7),
    Forge("forgejo", "demo-forgejo", "fj_demo_write", "acme", "widgets", 7),
]
BUSY = [
    Forge("github", "comments_over_100", "ghp_write", "acme", "busy", 1),
    Forge("forgejo", "comments_over_100_forgejo", "fj_write", "acme", "busy", 1),
]


class ForgeSim:
    """A running `forge-sim`; it serves until its stdin closes."""

    def __init__(self, scenario: str | Path) -> None:
        """A built-in scenario by name, or a scenario file."""
        if not FORGE_SIM_BIN.exists():
            pytest.fail(f"{FORGE_SIM_BIN} is missing: cargo build -p resolve-pr-forge-sim --bins")
        spec = str(scenario) if isinstance(scenario, Path) else f"builtin:{scenario}"
        self.proc = subprocess.Popen(
            [str(FORGE_SIM_BIN), "--scenario", spec],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening "):
            self.close()
            pytest.fail(f"forge-sim did not start: {line!r}")
        self.base_url = line.removeprefix("listening ")

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base_url + path, timeout=10) as r:
            return json.load(r)

    def requests(self) -> list[dict[str, Any]]:
        return self._get("/_sim/requests")

    def clear_requests(self) -> None:
        req = urllib.request.Request(self.base_url + "/_sim/requests", method="DELETE")
        urllib.request.urlopen(req, timeout=10).close()

    def violations(self) -> list[Any]:
        return self._get("/_sim/violations")

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A private HOME with an empty config file: no developer config, no real cursor key."""
    (tmp_path / "config.toml").write_text("")
    return tmp_path


# What a remote caller (the HTTP transport) is offered: every toolset but `code`, whose tools
# read the server's own checkout.
REMOTE_TOOLSETS = ("--toolsets", "ci,comments,git,impact,merge,reviews")


def toolsets(args: tuple[str, ...], on_demand: bool) -> tuple[str, ...]:
    """Serve options with every toolset listed from the start (`--toolsets all`) unless they
    name toolsets or the test is about toolsets on demand (the default)."""
    if on_demand or "--toolsets" in args:
        return args
    return ("--toolsets", "all", *args)


def registry(home: Path, *args: str, on_demand: bool = False) -> list[dict[str, Any]]:
    """The tools the registry offers with these serve options, as `resolve-pr tools --json`
    prints them (the same JSON as tools/list): tests compare against this, never a list of
    names typed out here."""
    if not RESOLVE_PR_BIN.exists():
        pytest.fail(f"{RESOLVE_PR_BIN} is missing: cargo build -p resolve-pr --bins")
    listed = subprocess.run(
        [str(RESOLVE_PR_BIN), "tools", "--json", *toolsets(args, on_demand)],
        env=server_env(home, {}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    tools = json.loads(listed.stdout)
    assert tools, "the registry lists no tool"
    return tools


def server_env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "xdg-config"),
        "XDG_STATE_HOME": str(home / "xdg-state"),
        "RESOLVE_PR_CONFIG": str(home / "config.toml"),
        "RESOLVE_PR_LOG": "warn",
        **extra,
    }


@asynccontextmanager
async def mcp_session(
    env: dict[str, str], *args: str, on_demand: bool = False, message_handler: Any = None
) -> AsyncIterator[ClientSession]:
    if not RESOLVE_PR_BIN.exists():
        pytest.fail(f"{RESOLVE_PR_BIN} is missing: cargo build -p resolve-pr --bins")
    params = StdioServerParameters(
        command=str(RESOLVE_PR_BIN), args=["serve", *toolsets(args, on_demand)], env=env
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=message_handler) as session:
            yield session


class Calls:
    """Calls tools on one session, checks every structured result against the tool's
    outputSchema, and counts the HTTP requests each call cost on the simulator."""

    def __init__(self, session: ClientSession, sim: ForgeSim, forge: str) -> None:
        self.session, self.sim, self.forge = session, sim, forge
        self.validators: dict[str, Draft202012Validator] = {}

    async def list_tools(self) -> list[Any]:
        tools = (await self.session.list_tools()).tools
        for tool in tools:
            assert tool.input_schema["type"] == "object", tool.name
            assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
            Draft202012Validator.check_schema(tool.input_schema)
            Draft202012Validator.check_schema(tool.output_schema)
            self.validators[tool.name] = Draft202012Validator(tool.output_schema)
        return tools

    async def call(self, tool: str, args: dict[str, Any], what: str, progress: Any = None) -> Any:
        self.sim.clear_requests()
        result = await self.session.call_tool(tool, args, progress_callback=progress)
        requests = self.sim.requests()
        key = (self.forge, tool, what)
        REQUEST_COUNTS[key] = len(requests)
        print(f"[{self.forge}] {tool} ({what}): {len(requests)} HTTP request(s)")
        assert result.content and result.content[0].type == "text", "no text rendering"
        # Error results carry the error model as structuredContent; the outputSchema admits
        # it (some clients validate every result), so both kinds are checked.
        assert result.structured_content is not None, f"{tool}: no structuredContent"
        errors = sorted(self.validators[tool].iter_errors(result.structured_content), key=str)
        assert not errors, f"{tool} output does not match its outputSchema: {errors[0]}"
        if result.is_error:
            assert {"error", "category"} <= set(result.structured_content), result.structured_content
        return result

    async def all_comments(self, args: dict[str, Any], what: str) -> list[dict[str, Any]]:
        """Every comment, following nextCursor to the end."""
        comments: list[dict[str, Any]] = []
        page_args = dict(args)
        for page in range(1, 100):
            result = await self.call("pr_comment_list", page_args, f"{what}, page {page}")
            assert not result.is_error, result.structured_content
            comments += result.structured_content["comments"]
            cursor = result.structured_content.get("nextCursor")
            if cursor is None:
                return comments
            page_args = {**args, "cursor": cursor}
        pytest.fail("pagination did not end")


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, TIMEOUT))


@pytest.mark.parametrize("forge", DEMO, ids=lambda f: f.name)
def test_tools_over_stdio(forge: Forge, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sim = ForgeSim(forge.scenario)
    try:
        with capsys.disabled():
            run(_tools_over_stdio(forge, sim, home))
        assert sim.violations() == [], "forge-sim saw responses outside the published API"
    finally:
        sim.close()


async def _tools_over_stdio(forge: Forge, sim: ForgeSim, home: Path) -> None:
    async with mcp_session(server_env(home, forge.env(sim.base_url))) as session:
        init = await session.initialize()
        assert init.server_info.name == "resolve-pr"
        assert init.instructions
        calls = Calls(session, sim, forge.name)
        listed = await calls.list_tools()
        tools = {t.name: t for t in listed}
        assert [t.name for t in listed] == [t["name"] for t in registry(home)]
        assert tools["pr_comment_list"].annotations.read_only_hint is True
        assert tools["pr_comment_create"].annotations.read_only_hint is False
        assert tools["find_unresolved_comments"].annotations.read_only_hint is True
        assert tools["resolve_review_thread"].annotations.idempotent_hint is True
        assert tools["reply_to_review_thread"].annotations.idempotent_hint is False

        pr = {"repository": forge.repository(sim.base_url), "pull_request_number": forge.pr}
        before = await calls.all_comments(pr, "before")
        assert [c["id"] for c in before] == [2001, 2002, 2003]

        body = f"e2e comment {uuid.uuid4()}"
        created = await calls.call("pr_comment_create", {**pr, "comment": body}, "create")
        assert not created.is_error, created.structured_content
        comment = created.structured_content["comment"]
        assert comment["body"] == body and comment["user"] == "alice"
        assert any(r["method"] == "POST" for r in sim.requests())

        after = await calls.all_comments(pr, "after")
        assert [c["id"] for c in after] == [c["id"] for c in before] + [comment["id"]]
        assert after[-1] == comment

        # Bad calls are user errors and write nothing.
        for what, args in [
            ("empty comment", {**pr, "comment": "   "}),
            ("bad repository", {**pr, "repository": "not a repository", "comment": "hi"}),
            ("missing number", {"repository": pr["repository"], "comment": "hi"}),
        ]:
            result = await calls.call("pr_comment_create", args, what)
            assert result.is_error, what
            error = result.structured_content
            assert error["category"] == "user", error
            assert error["error"] and error["suggestion"], error
            assert not [r for r in sim.requests() if r["method"] == "POST"], f"{what} wrote something"

        # A PR number that does not exist reaches the forge and comes back categorized.
        missing = await calls.call("pr_comment_list", {**pr, "pull_request_number": 9999}, "missing PR")
        assert missing.is_error and missing.structured_content["category"] in {"user", "api"}


@pytest.mark.parametrize("forge", BUSY, ids=lambda f: f.name)
def test_pagination_and_cursors_across_restarts(
    forge: Forge, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = ForgeSim(forge.scenario)
    try:
        with capsys.disabled():
            run(_pagination(forge, sim, home))
        assert sim.violations() == []
    finally:
        sim.close()


async def _pagination(forge: Forge, sim: ForgeSim, home: Path) -> None:
    env = server_env(home, forge.env(sim.base_url))
    pr = {"repository": forge.repository(sim.base_url), "pull_request_number": forge.pr}
    async with mcp_session(env) as session:
        await session.initialize()
        calls = Calls(session, sim, forge.name)
        await calls.list_tools()
        comments = await calls.all_comments(pr, "130 comments")
        assert [c["body"] for c in comments] == [f"Comment {n} of 130" for n in range(1, 131)]
        first = await calls.call("pr_comment_list", pr, "first page again")
        cursor = first.structured_content["nextCursor"]
        assert len(first.structured_content["comments"]) == 20

    # A new server process (same HOME, so the same key file) accepts the old cursor.
    async with mcp_session(env) as session:
        await session.initialize()
        calls = Calls(session, sim, forge.name)
        await calls.list_tools()
        second = await calls.call("pr_comment_list", {**pr, "cursor": cursor}, "cursor after restart")
        assert not second.is_error, second.structured_content
        assert second.structured_content["comments"][0]["body"] == "Comment 21 of 130"
        # A cursor is bound to its arguments.
        other = await calls.call(
            "pr_comment_list", {**pr, "pull_request_number": 2, "cursor": cursor}, "foreign cursor"
        )
        assert other.is_error and other.structured_content["category"] == "user"


def test_read_only_server_has_no_writing_tool(home: Path) -> None:
    forge = DEMO[0]
    sim = ForgeSim(forge.scenario)
    try:
        run(_read_only(forge, sim, home))
        assert not [r for r in sim.requests() if r["method"] == "POST"]
    finally:
        sim.close()


async def _read_only(forge: Forge, sim: ForgeSim, home: Path) -> None:
    async with mcp_session(server_env(home, forge.env(sim.base_url)), "--read-only") as session:
        await session.initialize()
        listed = (await session.list_tools()).tools
        names = [t.name for t in listed]
        every = registry(home)
        readers = [t["name"] for t in every if t["annotations"]["readOnlyHint"]]
        assert 0 < len(readers) < len(every)
        # Every reader, and the tools that write only when asked (a restack's execute mode),
        # listed as read-only; nothing else.
        assert set(readers) <= set(names)
        assert all(t.annotations.read_only_hint for t in listed)
        assert names == [t["name"] for t in registry(home, "--read-only")]
        assert "pr_comment_create" not in names
        pr = {"repository": "acme/widgets", "pull_request_number": 7, "comment": "hi"}
        # An unknown tool is a protocol error (MCP spec, tools: error handling).
        with pytest.raises(MCPError) as refused:
            await session.call_tool("pr_comment_create", pr)
        assert refused.value.code == -32602
        assert "read-only" in str(refused.value.error.message)
        assert refused.value.error.data["category"] == "user"


THREADS = [
    Forge("github", "threads_mixed", "ghp_write", "acme", "widgets", 12),
    Forge("gitea", "threads_mixed_gitea", "fj_write", "acme", "widgets", 12),
]


@pytest.mark.parametrize("forge", THREADS, ids=lambda f: f.name)
def test_resolving_a_thread_removes_it_from_the_unresolved_list(
    forge: Forge, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = ForgeSim(forge.scenario)
    try:
        with capsys.disabled():
            run(_resolve_flow(forge, sim, home))
        assert sim.violations() == []
    finally:
        sim.close()


async def _all_unresolved(calls: Calls, args: dict[str, Any], what: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    page_args = dict(args)
    for page in range(1, 100):
        result = await calls.call("find_unresolved_comments", page_args, f"{what}, page {page}")
        assert not result.is_error, result.structured_content
        items += result.structured_content["comments"]
        cursor = result.structured_content.get("nextCursor")
        if cursor is None:
            return items
        page_args = {**args, "cursor": cursor}
    pytest.fail("pagination did not end")


async def _resolve_flow(forge: Forge, sim: ForgeSim, home: Path) -> None:
    env = server_env(home, forge.env(sim.base_url))
    pr = {"pr": f"{forge.repository(sim.base_url)}#{forge.pr}"}
    async with mcp_session(env) as session:
        await session.initialize()
        calls = Calls(session, sim, forge.name)
        await calls.list_tools()
        before = await _all_unresolved(calls, pr, "before")
        threads = [c for c in before if c["type"] == "review_comment"]
        assert threads, "the scenario has unresolved threads"
        thread_id = threads[0]["thread_id"]
        assert threads[0]["action_commands"]["resolve_command"], threads[0]

        resolved = await calls.call("resolve_review_thread", {**pr, "thread_id": thread_id}, "resolve")
        assert not resolved.is_error, resolved.structured_content
        out = resolved.structured_content
        assert (out["was_resolved"], out["is_resolved"], out["changed"]) == (False, True, True)

        again = await calls.call("resolve_review_thread", {**pr, "thread_id": thread_id}, "resolve again")
        assert not again.is_error and again.structured_content["changed"] is False

        after = await _all_unresolved(calls, pr, "after")
        assert [c for c in after if c.get("thread_id") == thread_id] == []
        gone = [c for c in before if c.get("thread_id") == thread_id]
        assert len(after) == len(before) - len(gone)


# get_failing_tests polls fast here; the default is 10-30 s.
CI_ENV = {"RESOLVE_PR_CI_POLL": "0.05-0.2"}


def test_failing_tests_immediate_and_paged(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forge = Forge("github", "ci_failing", "ghp_read", "acme", "widgets", 7)
    sim = ForgeSim(forge.scenario)
    try:
        with capsys.disabled():
            run(_failing_tests_paged(forge, sim, home))
        assert sim.violations() == []
    finally:
        sim.close()


async def _failing_tests_paged(forge: Forge, sim: ForgeSim, home: Path) -> None:
    async with mcp_session(server_env(home, {**forge.env(sim.base_url), **CI_ENV})) as session:
        await session.initialize()
        calls = Calls(session, sim, forge.name)
        await calls.list_tools()
        args = {"pr": "acme/widgets#7"}
        first = await calls.call("get_failing_tests", args, "failed PR, page 1")
        assert not first.is_error, first.structured_content
        out = first.structured_content
        assert out["status"] == "failed"
        assert len(out["failures"]) == 10 and out["nextCursor"]
        failures = list(out["failures"])
        cursor = out["nextCursor"]
        page = 2
        while cursor:
            result = await calls.call("get_failing_tests", {**args, "cursor": cursor}, f"failed PR, page {page}")
            assert not result.is_error, result.structured_content
            failures += result.structured_content["failures"]
            cursor = result.structured_content.get("nextCursor")
            page += 1
        assert len(failures) == out["total_failures"]
        located = [f for f in failures if f["test_name"] == "tests/test_basic.py::test_list_diff"]
        assert located and located[0]["file_path"] == "tests/test_basic.py" and located[0]["line_number"] == 23
        assert located[0]["reproduce_command"]
        assert out["instructions"]["priority"][0]["reason"]
        assert "failing test" in first.content[0].text


def test_failing_tests_wait_mode_reports_progress(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forge = Forge("github", "ci_running", "ghp_read", "acme", "widgets", 8)
    sim = ForgeSim(forge.scenario)
    try:
        with capsys.disabled():
            run(_failing_tests_wait(forge, sim, home))
        assert sim.violations() == []
    finally:
        sim.close()


async def _failing_tests_wait(forge: Forge, sim: ForgeSim, home: Path) -> None:
    async with mcp_session(server_env(home, {**forge.env(sim.base_url), **CI_ENV})) as session:
        await session.initialize()
        calls = Calls(session, sim, forge.name)
        await calls.list_tools()
        args = {"pr": "acme/widgets#8"}
        now = await calls.call("get_failing_tests", args, "running PR, immediate")
        assert not now.is_error, now.structured_content
        assert now.structured_content["poll_info"]["retry_after_seconds"] >= 1
        assert {p["name"] for p in now.structured_content["pending_checks"]} == {"test / integration", "test / e2e"}

        # Wait mode, bail_on_first (the default): a check has failed already, so it answers
        # at once, with the checks still running.
        bail = await calls.call("get_failing_tests", {**args, "wait": True}, "running PR, wait, bail")
        assert not bail.is_error, bail.structured_content
        assert bail.structured_content["status"] == "failed"
        assert bail.structured_content["wait"]["polls"] == 1
        assert bail.structured_content["pending_checks"]

        seen: list[tuple[float, float | None, str | None]] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            seen.append((value, total, message))

        waited = await calls.call(
            "get_failing_tests", {**args, "wait": True, "bail_on_first": False}, "running PR, wait", progress
        )
        assert not waited.is_error, waited.structured_content
        out = waited.structured_content
        assert out["status"] == "failed"
        assert "pending_checks" not in out and "poll_info" not in out
        assert out["wait"]["polls"] >= 2
        assert seen, "no progress notification reached the client"
        values = [v for v, _, _ in seen]
        assert values == sorted(values) and len(set(values)) == len(values), values
        assert all(m and "checks done" in m for _, _, m in seen), seen


def test_toolsets_on_demand_with_the_python_sdk(home: Path) -> None:
    """Without --toolsets the server lists the default toolsets and the two tools that turn the
    others on; turning one on adds its tools and tells the client the list changed, and calling
    a tool of a toolset still off turns that toolset on too."""
    run(_on_demand(home))


async def _on_demand(home: Path) -> None:
    from mcp import types

    heard: list[str] = []

    async def listen(message: Any) -> None:
        # A ServerNotification wraps it in `root` in some SDK versions, not in others.
        notification = getattr(message, "root", message)
        if isinstance(notification, types.ToolListChangedNotification):
            heard.append(notification.method)

    # Nothing listens on port 9: a forge call fails fast, after the tool ran.
    env = server_env(home, {"GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_TOKEN": "tok"})
    async with mcp_session(env, on_demand=True, message_handler=listen) as session:
        init = await session.initialize()
        assert init.capabilities.tools is not None and init.capabilities.tools.list_changed is True
        first = [t.name for t in (await session.list_tools()).tools]
        assert first == [t["name"] for t in registry(home, on_demand=True)]
        assert first[-2:] == ["list_toolsets", "enable_toolsets"], first
        everything = [t["name"] for t in registry(home)]
        code = [t["name"] for t in registry(home, "--toolsets", "code")]
        assert not set(code) & set(first)

        listed = await session.call_tool("list_toolsets", {})
        assert listed.is_error is False
        sets = {s["name"]: s for s in listed.structured_content["toolsets"]}
        assert sets["code"]["on"] is False and sets["code"]["tools"] == code
        assert sets["ci"]["on"] is True

        on = await session.call_tool("enable_toolsets", {"toolsets": ["code"]})
        assert on.is_error is False, on.content
        assert on.structured_content == {"turned_on": ["code"], "tools": code}
        for _ in range(100):
            if heard:
                break
            await asyncio.sleep(0.02)
        assert heard == ["notifications/tools/list_changed"]
        now = [t.name for t in (await session.list_tools()).tools]
        assert set(now) == set(first) | set(code)

        # A tool of a toolset that is still off: the call runs, and the toolset turns on.
        called = await session.call_tool("pr_list", {"repository": "acme/widgets"})
        assert called.is_error is True
        assert called.structured_content["category"] == "network", called.structured_content
        for _ in range(100):
            if len(heard) == 2:
                break
            await asyncio.sleep(0.02)
        assert len(heard) == 2
        now = [t.name for t in (await session.list_tools()).tools]
        comments = [t["name"] for t in registry(home, "--toolsets", "comments")]
        assert set(now) == set(first) | set(code) | set(comments)
        assert set(now) < set(everything) | {"list_toolsets", "enable_toolsets"}


def test_the_config_file_names_the_toolsets(home: Path) -> None:
    """For clients that never reread tools/list: `[server] toolsets` in the config file, used
    when the command line names none (a --toolsets given wins)."""
    (home / "config.toml").write_text('[server]\ntoolsets = ["default", "code"]\n')
    run(_config_toolsets(home))


async def _config_toolsets(home: Path) -> None:
    env = server_env(home, {"GITHUB_TOKEN": "tok"})
    async with mcp_session(env, on_demand=True) as session:
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        assert names == [t["name"] for t in registry(home, "--toolsets", "default,code")]
        assert "enable_toolsets" not in names
    async with mcp_session(env, "--toolsets", "ci") as session:
        await session.initialize()
        names = [t.name for t in (await session.list_tools()).tools]
        assert names == [t["name"] for t in registry(home, "--toolsets", "ci")]
