"""End to end: pr_list and pr_get through the official MCP Python SDK against `resolve-pr serve`
and forge-sim (pulls_github.yaml, pulls_forgejo.yaml: 30 pull requests, issue #31), and once
each through the CLI (`resolve-pr tool NAME 'JSON'`). Every structured result is validated
against the tool's outputSchema (see Calls) and what each call costs in requests is asserted.
Like test_mcp_stdio.py it builds nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from test_mcp_stdio import (  # noqa: F401
    REPO_ROOT,
    RESOLVE_PR_BIN,
    Calls,
    ForgeSim,
    home,
    mcp_session,
    run,
    server_env,
)

SCENARIOS = REPO_ROOT / "crates/forge-sim/scenarios"
CLOSED = {3, 8}
MERGED = {5, 12, 19}
DRAFTS = [22, 17, 11, 4]
OPEN = [n for n in range(30, 0, -1) if n not in CLOSED | MERGED]


def forge_env(forge: str, base_url: str) -> dict[str, str]:
    if forge == "github":
        return {"GITHUB_API_URL": base_url, "GITHUB_TOKEN": "ghp_write"}
    return {"FORGEJO_HOST": base_url, "FORGEJO_TOKEN": "fj_write"}


def repository(forge: str, base_url: str) -> str:
    if forge == "github":
        return "octo/app"
    return f"{base_url.removeprefix('http://')}/octo/app"


@pytest.mark.parametrize("forge", ["github", "forgejo"])
def test_pr_list_and_pr_get(forge: str, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sim = ForgeSim(SCENARIOS / f"pulls_{forge}.yaml")
    try:
        with capsys.disabled():
            run(_over_mcp(sim, home, forge))
        _over_cli(sim, home, forge)
        assert sim.violations() == [], "forge-sim saw responses outside the published API"
    finally:
        sim.close()


async def _walk(calls: Calls, args: dict[str, Any], what: str) -> tuple[list[int], list[int]]:
    """Every page's numbers, and the requests each page cost."""
    numbers: list[int] = []
    costs: list[int] = []
    page_args = dict(args)
    for page in range(1, 20):
        result = await calls.call("pr_list", page_args, f"{what}, page {page}")
        assert not result.is_error, result.structured_content
        costs.append(len(calls.sim.requests()))
        numbers += [p["number"] for p in result.structured_content["pull_requests"]]
        cursor = result.structured_content.get("nextCursor")
        if cursor is None:
            return numbers, costs
        page_args = {**args, "cursor": cursor}
    pytest.fail("pagination did not end")


async def _over_mcp(sim: ForgeSim, home: Path, forge: str) -> None:
    async with mcp_session(server_env(home, forge_env(forge, sim.base_url))) as session:
        await session.initialize()
        calls = Calls(session, sim, forge)
        tools = {t.name: t for t in await calls.list_tools()}
        for name in ["pr_list", "pr_get"]:
            assert tools[name].annotations.read_only_hint is True, name
            assert tools[name].annotations.idempotent_hint is True, name
        repo = repository(forge, sim.base_url)

        numbers, costs = await _walk(calls, {"repository": repo}, "open")
        assert numbers == OPEN
        assert costs == [1, 1], "one forge page per call"

        numbers, costs = await _walk(calls, {"repository": repo, "draft": True}, "drafts")
        assert numbers == DRAFTS and costs == [1]
        numbers, _ = await _walk(calls, {"repository": repo, "state": "merged"}, "merged")
        assert numbers == sorted(MERGED, reverse=True)
        numbers, _ = await _walk(
            calls, {"repository": repo, "author": "erin", "base": "release/1.x"}, "erin into release"
        )
        assert numbers == [30, 20, 10]
        numbers, _ = await _walk(calls, {"repository": repo, "head": "shared"}, "head, not the fork's")
        assert numbers == [24]

        got = await calls.call("pr_get", {"repository": repo, "pull_request_number": 30}, "pr 30")
        assert not got.is_error, got.structured_content
        assert len(sim.requests()) == 2, "the pull request and its reviews"
        out = got.structured_content
        assert out["requested_reviewers"] == ["dave"]
        assert out["requested_teams"] == ["octo/reviewers"]
        assert [(r["reviewer"], r["state"]) for r in out["reviews"]] == [
            ("carol", "COMMENTED"),
            ("bob", "APPROVED"),
        ]
        assert out["head"]["fork"] is False and out["base"]["branch"] == "release/1.x"
        assert "body_cut" in out and len(out["body"]) < 4200

        fork = await calls.call("pr_get", {"repository": repo, "pull_request_number": 21}, "fork")
        assert fork.structured_content["head"] == {
            "branch": "shared",
            "sha": "c0" * 19 + "21",
            "repository": "erin/app",
            "fork": True,
        }

        issue = await calls.call("pr_get", {"repository": repo, "pull_request_number": 31}, "an issue")
        assert issue.is_error and issue.structured_content["category"] == "user"
        assert "not found" in issue.structured_content["error"]

        # Arguments that miss the input schema are named together, as are values that fit it
        # but cannot be sent; either way nothing is sent.
        for args, fields in [
            ({"repository": repo, "state": "opened", "draft": "yes"}, ["state", "draft"]),
            ({"repository": "not a repo", "base": "a b", "author": ""}, ["repository", "base", "author"]),
        ]:
            bad = await calls.call("pr_list", args, "bad arguments")
            assert bad.is_error and bad.structured_content["category"] == "user"
            for field in fields:
                assert field in bad.structured_content["error"], (field, bad.structured_content)
            assert sim.requests() == [], "nothing sent for bad arguments"


def _cli(home: Path, sim: ForgeSim, forge: str, tool: str, args: dict[str, Any]) -> Any:
    done = subprocess.run(
        [str(RESOLVE_PR_BIN), "tool", tool, json.dumps(args)],
        env=server_env(home, forge_env(forge, sim.base_url)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _over_cli(sim: ForgeSim, home: Path, forge: str) -> None:
    repo = repository(forge, sim.base_url)
    listed = _cli(home, sim, forge, "pr_list", {"repository": repo, "state": "closed"})
    assert [p["number"] for p in listed["pull_requests"]] == [8, 3]
    assert all(p["state"] == "closed" for p in listed["pull_requests"])
    got = _cli(home, sim, forge, "pr_get", {"repository": repo, "pull_request_number": 12})
    assert got["state"] == "merged" and got["mergeability"].startswith("merged")
