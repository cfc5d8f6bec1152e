"""End to end: `resolve-pr serve --http` driven by the official Python MCP SDK's
streamable-HTTP client, against `forge-sim` serving a simulated GitHub and a simulated Forgejo.

The server is started as users start it (`--http 127.0.0.1:0`, its URL read from the
`listening on URL` line) with no token of its own: each session sends its caller's token as
`Authorization: Bearer`, and the forge sees that token and no other. Like test_mcp_stdio.py it
builds nothing (see there for the binaries and the private HOME).
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import urllib.error
import urllib.request
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from test_mcp_stdio import (  # noqa: F401
    DEMO,
    REMOTE_TOOLSETS,
    RESOLVE_PR_BIN,
    Calls,
    Forge,
    ForgeSim,
    home,
    registry,
    run,
    server_env,
)

ALICE = "ghp_alice_token_0123456789"  # reads the private acme/secret (private_repo_two_users)
BOB = "ghp_bob_token_9876543210"  # may not: it is not found for him, as on GitHub
SECRET_COMMENT = "The new key id is in the vault."
PUBLIC_COMMENT = "Benchmarks attached."


class HttpServer:
    """`resolve-pr serve --http 127.0.0.1:0`; `close` sends SIGTERM and expects exit 0."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        if not RESOLVE_PR_BIN.exists():
            pytest.fail(f"{RESOLVE_PR_BIN} is missing: cargo build -p resolve-pr --bins")
        self.proc = subprocess.Popen(
            [str(RESOLVE_PR_BIN), "serve", "--http", "127.0.0.1:0", *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stderr: list[str] = []
        self._url: str | None = None
        self._announced = threading.Event()
        # Read stderr on a thread: the URL arrives there, and a server that never announces
        # one must fail the test in bounded time, not hang it; reading on also keeps the
        # server from blocking on a full pipe.
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        if not self._announced.wait(timeout=30) or self._url is None:
            self.proc.kill()
            self.proc.wait()
            self._reader.join(timeout=10)
            pytest.fail(f"resolve-pr serve --http did not announce its URL: {''.join(self.stderr)}")
        self.url: str = self._url

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)
            if self._url is None and line.startswith("listening on "):
                self._url = line.removeprefix("listening on ").strip()
                self._announced.set()
        self._announced.set()  # ended without the line: stop waiting

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail("resolve-pr serve --http did not stop on SIGTERM")
        self._reader.join(timeout=10)
        assert code == 0, "".join(self.stderr)


@asynccontextmanager
async def http_session(
    url: str, token: str | None, statuses: list[int] | None = None
) -> AsyncIterator[ClientSession]:
    """A session of the SDK's client sending `token`; the HTTP status of every response is
    appended to `statuses` when given."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    async with create_mcp_http_client(headers=headers) as client:
        if statuses is not None:

            async def record(response: Any) -> None:
                statuses.append(response.status_code)

            client.event_hooks["response"].append(record)
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                yield session


def raw_post(url: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, str], str]:
    """One MCP POST outside the SDK, to see the HTTP status itself."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "0"},
    },
}


def tokens_seen(sim: ForgeSim) -> set[str | None]:
    return {r.get("token") for r in sim.requests()}


def comments_of(result: Any) -> list[str]:
    assert not result.is_error, result.structured_content
    return [c["body"] for c in result.structured_content["comments"]]


def test_tools_over_http_on_github_and_forgejo(home: Path) -> None:
    github = ForgeSim("private_repo_two_users")
    forgejo_forge = next(f for f in DEMO if f.name == "forgejo")
    forgejo = ForgeSim(forgejo_forge.scenario)
    server = None
    try:
        # The server knows where the forges are, never whose token to use. With no GitHub
        # token of its own, a short `owner/repo` would mean the one Forgejo host configured;
        # RESOLVE_PR_DEFAULT_HOST keeps it GitHub's, as a shared server for both sets it.
        env = server_env(
            home,
            {
                "GITHUB_API_URL": github.base_url,
                "FORGEJO_HOST": forgejo.base_url,
                "RESOLVE_PR_DEFAULT_HOST": github.base_url.removeprefix("http://"),
            },
        )
        server = HttpServer(env)
        run(_tools_over_http(server.url, github, forgejo, forgejo_forge, home))
        assert github.violations() == [] and forgejo.violations() == []
    finally:
        if server is not None:
            server.close()
        github.close()
        forgejo.close()


async def _tools_over_http(
    url: str, github: ForgeSim, forgejo: ForgeSim, forgejo_forge: Forge, home: Path
) -> None:
    async with http_session(url, ALICE) as session:
        init = await session.initialize()
        assert init.server_info.name == "resolve-pr"
        calls = Calls(session, github, "github over http")
        listed = await calls.list_tools()
        assert [t.name for t in listed] == [t["name"] for t in registry(home, *REMOTE_TOOLSETS)]

        result = await calls.call(
            "pr_comment_list", {"repository": "acme/widgets", "pull_request_number": 1}, "public"
        )
        assert comments_of(result) == [PUBLIC_COMMENT]
        assert tokens_seen(github) == {ALICE}

    async with http_session(url, forgejo_forge.token) as session:
        await session.initialize()
        calls = Calls(session, forgejo, "forgejo over http")
        await calls.list_tools()
        pr = {"repository": forgejo_forge.repository(forgejo.base_url), "pull_request_number": 7}
        result = await calls.call("pr_comment_list", pr, "forgejo")
        assert not result.is_error, result.structured_content
        assert [c["id"] for c in result.structured_content["comments"]] == [2001, 2002, 2003]
        assert tokens_seen(forgejo) == {forgejo_forge.token}


def test_without_a_bearer_header_the_answer_is_401(home: Path) -> None:
    sim = ForgeSim("private_repo_two_users")
    server = None
    try:
        server = HttpServer(server_env(home, {"GITHUB_API_URL": sim.base_url}))
        status, headers, body = raw_post(server.url, {}, INITIALIZE)
        assert status == 401, body
        assert headers.get("WWW-Authenticate", headers.get("www-authenticate", "")).startswith("Bearer")
        assert json.loads(body)["category"] == "authentication"

        # The SDK's client is refused the same way (it raises at initialize), and nothing
        # reached the forge.
        statuses: list[int] = []

        async def refused() -> None:
            async with http_session(server.url, None, statuses) as session:
                await session.initialize()

        with pytest.raises(Exception, match="unhandled errors|error response"):
            run(refused())
        assert statuses and set(statuses) == {401}, statuses
        assert sim.requests() == []
    finally:
        if server is not None:
            server.close()
        sim.close()


def test_two_tokens_on_one_server_see_only_their_own(home: Path) -> None:
    sim = ForgeSim("private_repo_two_users")
    server = None
    try:
        server = HttpServer(server_env(home, {"GITHUB_API_URL": sim.base_url}))
        run(_two_tokens(server.url, sim))
        assert sim.violations() == []
    finally:
        if server is not None:
            server.close()
        sim.close()


async def _two_tokens(url: str, sim: ForgeSim) -> None:
    secret = {"repository": "acme/secret", "pull_request_number": 1}
    async with http_session(url, ALICE) as alice, http_session(url, BOB) as bob:
        await alice.initialize()
        await bob.initialize()
        # Alice first, so whatever her read left in a cache is there when Bob asks; twice.
        for _ in range(2):
            sim.clear_requests()
            mine = await alice.call_tool("pr_comment_list", secret)
            assert comments_of(mine) == [SECRET_COMMENT]
            assert tokens_seen(sim) == {ALICE}

            sim.clear_requests()
            theirs = await bob.call_tool("pr_comment_list", secret)
            assert theirs.is_error, theirs.structured_content
            assert theirs.structured_content["category"] == "user", theirs.structured_content
            assert "vault" not in json.dumps(theirs.model_dump(mode="json"))
            assert tokens_seen(sim) == {BOB}

            shared = await bob.call_tool(
                "pr_comment_list", {"repository": "acme/widgets", "pull_request_number": 1}
            )
            assert comments_of(shared) == [PUBLIC_COMMENT]
