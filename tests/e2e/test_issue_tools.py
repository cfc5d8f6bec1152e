"""End to end: the issue tools and the comment edits through the official MCP Python SDK
against `resolve-pr serve` and forge-sim, on GitHub and Forgejo: every structured result is
checked against the tool's outputSchema (Calls) and each call's requests are counted; each new
tool also runs once through `resolve-pr tool NAME 'JSON'`, and `--read-only` hides the tools
that write. Like test_mcp_stdio.py it builds nothing."""

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
FORGES = ["github", "forgejo"]
WRITERS = {"issue_comment_create", "issue_comment_edit", "pr_comment_edit"}


def forge_env(forge: str, base_url: str) -> dict[str, str]:
    if forge == "github":
        return {"GITHUB_API_URL": base_url, "GITHUB_TOKEN": "ghp_alice"}
    return {"FORGEJO_HOST": base_url, "FORGEJO_TOKEN": "fj_alice"}


def repository(forge: str, base_url: str) -> str:
    return "acme/tracker" if forge == "github" else f"{base_url}/acme/tracker"


@pytest.mark.parametrize("forge", FORGES)
def test_issue_tools_over_stdio(forge: str, home: Path) -> None:
    sim = ForgeSim(SCENARIOS / f"issues_{forge}.yaml")
    try:
        run(_over_stdio(forge, sim, home))
        assert sim.violations() == [], "forge-sim saw responses outside the published API"
    finally:
        sim.close()


async def _over_stdio(forge: str, sim: ForgeSim, home: Path) -> None:
    repo = {"repository": repository(forge, sim.base_url)}
    async with mcp_session(server_env(home, forge_env(forge, sim.base_url))) as session:
        await session.initialize()
        calls = Calls(session, sim, forge)
        tools = {t.name: t for t in await calls.list_tools()}
        for name in ["issue_list", "issue_comment_list"]:
            assert tools[name].annotations.read_only_hint is True, name
        for name in ["issue_comment_edit", "pr_comment_edit"]:
            a = tools[name].annotations
            assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint) == (False, False, True)

        numbers: list[int] = []
        args: dict[str, Any] = dict(repo)
        for page in range(1, 10):
            listed = await calls.call("issue_list", args, f"page {page}")
            assert not listed.is_error, listed.structured_content
            assert len(sim.requests()) == 1, sim.requests()
            numbers += [i["number"] for i in listed.structured_content["issues"]]
            cursor = listed.structured_content.get("nextCursor")
            if cursor is None:
                break
            args = {**repo, "cursor": cursor}
        assert numbers == [n for n in range(30, 0, -1) if n % 5 and n not in (2, 9, 14)]

        bugs = await calls.call("issue_list", {**repo, "state": "all", "labels": ["bug"]}, "labels")
        assert [i["number"] for i in bugs.structured_content["issues"]] == [27, 24, 21, 18, 12, 9, 6, 3]

        created = await calls.call(
            "issue_comment_create", {**repo, "issue_number": 3, "comment": "From e2e."}, "create"
        )
        assert not created.is_error, created.structured_content
        new_id = created.structured_content["comment"]["id"]
        comments = await calls.call("issue_comment_list", {**repo, "issue_number": 3}, "list")
        assert [c["id"] for c in comments.structured_content["comments"]] == [301, 302, new_id]

        edit = {**repo, "issue_number": 3, "comment_id": new_id, "body": "From e2e, edited."}
        edited = await calls.call("issue_comment_edit", edit, "edit")
        assert not edited.is_error, edited.structured_content
        assert edited.structured_content["unchanged"] is False
        again = await calls.call("issue_comment_edit", edit, "edit again")
        assert again.structured_content["unchanged"] is True
        assert not [r for r in sim.requests() if r["method"] != "GET"], "an unchanged edit wrote"

        theirs = await calls.call(
            "pr_comment_edit",
            {**repo, "pull_request_number": 5, "comment_id": 502, "body": "x"},
            "another author's comment",
        )
        assert theirs.is_error and theirs.structured_content["category"] == "user"
        assert "bob" in theirs.structured_content["error"]
        pr_as_issue = await calls.call(
            "issue_comment_create", {**repo, "issue_number": 5, "comment": "x"}, "PR number"
        )
        assert pr_as_issue.is_error and pr_as_issue.structured_content["category"] == "user"
        assert not [r for r in sim.requests() if r["method"] != "GET"]

    # --read-only hides every tool that writes.
    async with mcp_session(server_env(home, forge_env(forge, sim.base_url)), "--read-only") as session:
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"issue_list", "issue_comment_list"} <= names
        assert not names & WRITERS, names & WRITERS


def cli(home: Path, forge: str, base_url: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [str(RESOLVE_PR_BIN), "tool", tool, json.dumps(args)],
        env=server_env(home, forge_env(forge, base_url)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, (tool, done.stdout, done.stderr)
    return json.loads(done.stdout)


@pytest.mark.parametrize("forge", FORGES)
def test_issue_tools_through_the_cli(forge: str, home: Path) -> None:
    sim = ForgeSim(SCENARIOS / f"issues_{forge}.yaml")
    try:
        repo = {"repository": repository(forge, sim.base_url)}
        listed = cli(home, forge, sim.base_url, "issue_list", {**repo, "author": "bob"})
        assert listed["issues"][0]["number"] == 29
        comments = cli(home, forge, sim.base_url, "issue_comment_list", {**repo, "issue_number": 4})
        assert [c["id"] for c in comments["comments"]] == [401]
        created = cli(
            home, forge, sim.base_url, "issue_comment_create", {**repo, "issue_number": 4, "comment": "cli"}
        )
        assert created["comment"]["body"] == "cli"
        edited = cli(
            home,
            forge,
            sim.base_url,
            "issue_comment_edit",
            {**repo, "issue_number": 4, "comment_id": 401, "body": "Duplicate of #3."},
        )
        assert edited["unchanged"] is False and edited["comment"]["body"] == "Duplicate of #3."
        pr_edit = cli(
            home,
            forge,
            sim.base_url,
            "pr_comment_edit",
            {**repo, "pull_request_number": 5, "comment_id": 501, "body": "Rebased on main."},
        )
        assert pr_edit["unchanged"] is True
        assert sim.violations() == []
    finally:
        sim.close()
