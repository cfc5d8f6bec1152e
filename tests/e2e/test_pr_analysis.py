"""End to end: check_merge_readiness, analyze_pr_impact and get_review_suggestions through the
official MCP Python SDK against `resolve-pr serve` and forge-sim, on GitHub and Forgejo; every
structured result is validated against the tool's outputSchema (see Calls), and what each call
costs in requests is asserted. Like test_mcp_stdio.py it builds nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_mcp_stdio import (  # noqa: F401
    REPO_ROOT,
    Calls,
    ForgeSim,
    home,
    mcp_session,
    run,
    server_env,
)

SCENARIOS = REPO_ROOT / "crates/forge-sim/scenarios"


def forge_env(forge: str, base_url: str) -> dict[str, str]:
    if forge == "github":
        return {"GITHUB_API_URL": base_url, "GITHUB_TOKEN": "ghp_write"}
    return {"FORGEJO_HOST": base_url, "FORGEJO_TOKEN": "fj_write"}


def pr_ref(forge: str, base_url: str, number: int) -> str:
    if forge == "github":
        return f"octo/app#{number}"
    return f"{base_url}/octo/app/pulls/{number}"


# (scenario, forge, ready, blocker categories, requests at most)
READINESS = [
    ("readiness_clean", "github", True, [], 3),
    ("readiness_many_checks", "github", False, ["ci"], 4),
    ("readiness_code_owners", "github", False, ["approvals"], 3),
    ("readiness_threads", "github", False, ["threads"], 3),
    ("readiness_clean_forgejo", "forgejo", True, [], 6),
    ("readiness_behind_forgejo", "forgejo", False, ["up_to_date"], 6),
]


@pytest.mark.parametrize("case", READINESS, ids=lambda c: c[0])
def test_merge_readiness_verdicts(case: tuple[str, str, bool, list[str], int], home: Path) -> None:
    scenario, forge, ready, blockers, max_requests = case
    sim = ForgeSim(SCENARIOS / f"{scenario}.yaml")
    try:
        run(_readiness(sim, home, forge, ready, blockers, max_requests))
        assert sim.violations() == []
    finally:
        sim.close()


async def _readiness(
    sim: ForgeSim, home: Path, forge: str, ready: bool, blockers: list[str], max_requests: int
) -> None:
    # The server runs in `home`, which is no checkout: the verdict is the forge's alone.
    async with mcp_session(server_env(home, forge_env(forge, sim.base_url))) as session:
        await session.initialize()
        calls = Calls(session, sim, forge)
        await calls.list_tools()
        result = await calls.call(
            "check_merge_readiness", {"pr": pr_ref(forge, sim.base_url, 1)}, "readiness"
        )
        assert not result.is_error, result.structured_content
        out = result.structured_content
        assert out["ready_to_merge"] is ready, out
        assert [b["category"] for b in out["blocking_issues"]] == blockers, out
        requests = sim.requests()
        assert len(requests) <= max_requests, [r["path"] for r in requests]


@pytest.mark.parametrize("forge", ["github", "forgejo"])
def test_impact_and_review_suggestions(forge: str, home: Path) -> None:
    sim = ForgeSim(SCENARIOS / f"impact_{forge}.yaml")
    try:
        run(_impact_and_review(sim, home, forge))
        assert sim.violations() == []
    finally:
        sim.close()


async def _impact_and_review(sim: ForgeSim, home: Path, forge: str) -> None:
    async with mcp_session(server_env(home, forge_env(forge, sim.base_url))) as session:
        await session.initialize()
        calls = Calls(session, sim, forge)
        await calls.list_tools()
        pr = pr_ref(forge, sim.base_url, 7)

        impact = await calls.call("analyze_pr_impact", {"pr": pr}, "impact")
        assert not impact.is_error, impact.structured_content
        out: dict[str, Any] = impact.structured_content
        areas = {a["category"]: a for a in out["impact_areas"]}
        assert "database" in areas and areas["database"]["risk_level"] == "high", areas
        assert areas["database"]["reasons"], areas["database"]
        majors = {d["package"] for d in out["dependency_updates"] if d["is_breaking"]}
        assert {"tokio", "react"} <= majors, out["dependency_updates"]
        reviewers = [r["username"] for r in out["suggested_reviewers"]]
        assert "alice" not in reviewers, "the author never reviews their own PR"
        assert any(r["is_code_owner"] for r in out["suggested_reviewers"]), out["suggested_reviewers"]
        assert {s["number"] for s in out["similar_prs"]} >= {3, 4}, out["similar_prs"]
        impact_requests = len(sim.requests())

        review = await calls.call(
            "get_review_suggestions",
            {"pr": pr, "focus_areas": ["security"], "max_diff_lines": 80},
            "review",
        )
        assert not review.is_error, review.structured_content
        out = review.structured_content
        assert out["context"]["breaking_changes_detected"] is True
        assert 12 in out["context"]["related_issues"], out["context"]
        assert out["diff_lines_shown"] <= 80, out["diff_lines_shown"]
        files = {f["path"]: f for f in out["files"]}
        removed = [c["name"] for c in files["src/auth/session.rs"]["api_changes"]]
        assert "revoke" in removed, files["src/auth/session.rs"]
        kinds = {p["type"] for p in files["src/auth/session.rs"]["focus_points"]}
        assert "unsafe" in kinds, files["src/auth/session.rs"]["focus_points"]
        assert any(s["category"] == "Security" for s in out["review_checklist"])
        assert out["token_estimate"] > 0
        print(f"[{forge}] analyze_pr_impact {impact_requests} requests, get_review_suggestions {len(sim.requests())}")
