"""End to end: detect_merge_conflicts and manage_stacked_prs through the official Python MCP
client and MCP Inspector's CLI, with `resolve-pr serve` started inside the user's checkout (no
`directory`, no `pr`: the server finds the repository and the PR of the current branch), against
forge-sim serving the PRs and the repository itself over smart HTTP.

The repository is built here with git: main ← feature-a (#1, squash-merged) ← feature-b (#2), and
feature-x (#3), which conflicts with main. Like the other e2e tests it builds nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from test_inspector import assert_no_warning, inspector
from test_mcp_stdio import RESOLVE_PR_BIN, Calls, ForgeSim, home, registry, run, server_env, toolsets  # noqa: F401

GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Ada",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(cwd), **GIT_ENV},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, f"git {args}: {done.stderr}"
    return done.stdout.strip()


def commit(repo: Path, files: dict[str, str | None], message: str) -> str:
    for path, content in files.items():
        if content is None:
            (repo / path).unlink()
        else:
            (repo / path).write_text(content)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def build(tmp: Path, forge: str) -> Path:
    """The repository, the bare copy forge-sim serves, and the scenario file."""
    work = tmp / "build"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    lines = "".join(f"{i}\n" for i in range(1, 11))
    base = commit(work, {"f.txt": lines, "g.txt": "g\n"}, "base")
    git(work, "switch", "-q", "-c", "feature-a")
    commit(work, {"f.txt": lines.replace("1\n", "A1\n", 1)}, "A: first try")
    a = commit(work, {"f.txt": lines.replace("1\n", "A2\n", 1)}, "A: second try")
    git(work, "switch", "-q", "-c", "feature-b")
    b = commit(work, {"b.txt": "b\n"}, "B: b.txt")
    git(work, "switch", "-q", "-c", "feature-x", "main")
    x = commit(work, {"g.txt": "g from the PR\n"}, "X: g")
    git(work, "switch", "-q", "main")
    git(work, "merge", "-q", "--squash", "feature-a")
    squash = commit(work, {}, "A (#1)")
    main = commit(work, {"g.txt": "g from main\n"}, "main: g")
    bare = tmp / "git" / "acme" / "widgets.git"
    bare.mkdir(parents=True)
    git(bare, "init", "-q", "--bare", "-b", "main")
    git(work, "push", "-q", str(bare), "refs/heads/*:refs/heads/*")
    for n, sha in [(1, a), (2, b), (3, x)]:
        git(work, "push", "-q", str(bare), f"{sha}:refs/pull/{n}/head")
    header = "forge: github" if forge == "github" else 'forge: forgejo\nversion: "11.0.1+gitea-1.22.0"'
    pulls = [
        (1, "feature-a", a, "main", base, "merged", squash),
        (2, "feature-b", b, "feature-a", a, "open", None),
        (3, "feature-x", x, "main", main, "open", None),
    ]
    yaml = f'{header}\nnow: "2024-06-01T12:00:00Z"\ngit_root: {json.dumps(str(tmp / "git"))}\n'
    yaml += "tokens:\n  - {token: tok, login: alice, permission: write}\n"
    yaml += "repos:\n  - owner: acme\n    name: widgets\n    pulls:\n"
    for n, head, head_sha, base_ref, base_sha, state, merge in pulls:
        yaml += (
            f"      - number: {n}\n        title: PR {n}\n        author: alice\n        state: {state}\n"
            f"        head: {{ref: {head}, sha: {head_sha}}}\n        base: {{ref: {base_ref}, sha: {base_sha}}}\n"
            '        created_at: "2024-06-01T00:00:00Z"\n'
        )
        if merge:
            yaml += f'        merge_commit_sha: {merge}\n        merged_at: "2024-06-01T11:00:00Z"\n        merged_by: alice\n'
    scenario = tmp / "scenario.yaml"
    scenario.write_text(yaml)
    return scenario


def forge_env(forge: str, base_url: str) -> dict[str, str]:
    if forge == "github":
        return {"GITHUB_API_URL": base_url, "GITHUB_TOKEN": "tok"}
    return {"FORGEJO_HOST": base_url, "FORGEJO_TOKEN": "tok"}


@asynccontextmanager
async def session_in(cwd: Path, env: dict[str, str], *args: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=str(RESOLVE_PR_BIN), args=["serve", *toolsets(args, False)], env=env, cwd=str(cwd)
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            yield session


@pytest.mark.parametrize("forge", ["github", "forgejo"])
def test_git_tools_over_stdio(forge: str, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = build(tmp_path, forge)
    sim = ForgeSim(scenario)
    try:
        checkout = tmp_path / "checkout"
        git(tmp_path, "clone", "-q", f"{sim.base_url}/acme/widgets.git", str(checkout))
        env = {**server_env(home, forge_env(forge, sim.base_url)), "PATH": os.environ.get("PATH", "")}
        with capsys.disabled():
            run(_git_tools(forge, sim, checkout, env))
        assert sim.violations() == [], "forge-sim saw responses outside the published API"
    finally:
        sim.close()


async def _git_tools(forge: str, sim: ForgeSim, checkout: Path, env: dict[str, str]) -> None:
    # The user's local branches of the PRs (the tests switch between them below).
    for branch in ("feature-x", "feature-b", "main"):
        git(checkout, "switch", "-q", branch)
    refs_before = git(checkout, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/remotes")
    async with session_in(checkout, env) as session:
        await session.initialize()
        calls = Calls(session, sim, forge)
        tools = {t.name: t for t in await calls.list_tools()}
        assert tools["detect_merge_conflicts"].annotations.read_only_hint is True
        assert tools["manage_stacked_prs"].annotations.destructive_hint is True

        # No pr: the current branch's PR (#3), in the server's working directory.
        git(checkout, "switch", "-q", "feature-x")
        result = await calls.call("detect_merge_conflicts", {}, "current branch")
        out = result.structured_content
        assert not result.is_error, out
        assert "chose #3" in out["note"]
        assert out["has_conflicts"] is True and out["mergeable_state"] == "dirty"
        assert [c["file_path"] for c in out["conflicts"]] == ["g.txt"]
        assert out["conflicts"][0]["head_content_preview"] == "1| g from the PR\n"
        assert out["computed_in"].startswith("checkout ")

        # The stack: #2 on #1, which was squash-merged. The server's HOME has no git identity:
        # predicting the rebase needs none.
        git(checkout, "switch", "-q", "feature-b")
        result = await calls.call("manage_stacked_prs", {}, "current branch")
        out = result.structured_content
        assert not result.is_error, out
        assert out["squash_merge"] is True and out["rebase_strategy"]["recommended"] == "onto"
        assert out["last_upstream_commit"] == out["stack_info"]["base_pr_head"]
        assert [c["type"] for c in out["commands"]][:4] == ["git", "git", "verification", "git"]

        # A bad argument is a user error.
        result = await calls.call("detect_merge_conflicts", {"target_branch": "--upload-pack=x"}, "bad branch")
        assert result.is_error and result.structured_content["category"] == "user"
    # Read-only: the stack tool stays, annotated read-only, and only plans.
    async with session_in(checkout, env, "--read-only") as session:
        await session.initialize()
        calls = Calls(session, sim, forge)
        tools = {t.name: t for t in await calls.list_tools()}
        assert tools["manage_stacked_prs"].annotations.read_only_hint is True
        result = await calls.call("manage_stacked_prs", {"execute": True}, "read-only execute")
        assert result.is_error and result.structured_content["category"] == "logical"
        assert "--read-only" in result.structured_content["error"]
        result = await calls.call("manage_stacked_prs", {}, "read-only plan")
        assert not result.is_error, result.structured_content
    git(checkout, "switch", "-q", "main")
    refs_after = git(checkout, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/remotes")
    assert refs_after == refs_before, "the tools moved the user's branches"


def test_git_tools_with_the_inspector(home: Path, tmp_path: Path) -> None:
    scenario = build(tmp_path, "github")
    sim = ForgeSim(scenario)
    try:
        checkout = tmp_path / "checkout"
        git(tmp_path, "clone", "-q", f"{sim.base_url}/acme/widgets.git", str(checkout))
        env = {**server_env(home, forge_env("github", sim.base_url)), "PATH": os.environ.get("PATH", "")}
        called = inspector(
            home,
            env,
            "--method",
            "tools/call",
            "--tool-name",
            "manage_stacked_prs",
            "--tool-args-json",
            json.dumps({"dependent_pr": "acme/widgets#2", "directory": str(checkout)}),
        )
        assert called.returncode == 0, called.stderr
        assert_no_warning(called)
        result = json.loads(called.stdout)
        assert result["isError"] is False, result
        assert result["structuredContent"]["merge_method"] == "squash"
        called = inspector(
            home,
            env,
            "--method",
            "tools/call",
            "--tool-name",
            "detect_merge_conflicts",
            "--tool-args-json",
            json.dumps({"pr": "acme/widgets#3", "directory": str(checkout)}),
        )
        assert called.returncode == 0, called.stderr
        result = json.loads(called.stdout)
        assert result["structuredContent"]["conflict_count"] == 1
    finally:
        sim.close()
