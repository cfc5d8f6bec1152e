"""End to end: the code-intelligence tools (toolset `code`) through two real MCP clients, the
official Python SDK over stdio and MCP Inspector's CLI, against real language servers on
temporary copies of the sample projects in tests/fixtures/code; and the promise that no
language server outlives a `resolve-pr serve` killed with SIGKILL.

Answers are checked against the expectations files beside the sample projects, with the
semantics of crates/tools/tests/it/code_navigation.rs: the exact set of {file_path, line} the
server returns (matches a syntax scan adds, `source: "text"`, must be among the query's
`text_extra`), and the exact set of caller / callee names.

Language servers are found through RESOLVE_PR_LSP_PATH (scripts/test.sh installs them and sets
it) and PATH. A language whose server is missing is skipped, saying why, unless
RESOLVE_PR_REQUIRE_LSP lists it: then the test fails. Like test_mcp_stdio.py it builds nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from jsonschema import Draft202012Validator

from test_inspector import assert_no_warning, inspector
from test_mcp_stdio import RESOLVE_PR_BIN, REPO_ROOT, home, mcp_session, registry, server_env  # noqa: F401

FIXTURES = REPO_ROOT / "tests/fixtures/code"
# The contract's nine code tools (seed 002 plus health_check), in the registry's order.
CODE_TOOLS = [
    "find_definition",
    "find_references",
    "find_implementations",
    "find_type_definition",
    "search_symbols",
    "get_symbol_info",
    "get_diagnostics",
    "get_call_hierarchy",
    "health_check",
]
# The tools whose expectations the stdio test checks.
NAVIGATION = ("find_definition", "find_references", "get_call_hierarchy")
# A whole test; a cold rust-analyzer takes seconds to load even the tiny sample crate.
TIMEOUT = 300
# How long one query is asked again while its server is still indexing.
QUERY_DEADLINE = 90
# How long language servers may take to go after the MCP server is killed.
ORPHAN_DEADLINE = 15


def required(language: str) -> bool:
    listed = os.environ.get("RESOLVE_PR_REQUIRE_LSP", "")
    return language in {part.strip() for part in listed.split(",")}


def lsp_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The server environment of test_mcp_stdio.py plus what finds the language servers: PATH,
    RESOLVE_PR_LSP_PATH, and rustup's and cargo's homes and toolchain (HOME is a temporary
    directory, where the rustup proxy of rust-analyzer would find no toolchain)."""
    # `resolve-pr tool` calls here are one-offs: no daemon keeps their servers afterwards.
    # A cold rust-analyzer on a loaded machine can take longer than the 45 s a code call
    # answers within by default; these tests check answers, not that bound (the test of the
    # bound below removes this).
    env = {"PATH": os.environ.get("PATH", ""), "RESOLVE_PR_CODE_CALL_WAIT": "240",
           "RESOLVE_PR_NO_DAEMON": "1"}
    for var in ("RESOLVE_PR_LSP_PATH", "RUSTUP_TOOLCHAIN"):
        if var in os.environ:
            env[var] = os.environ[var]
    for var, default in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
        value = os.environ.get(var) or str(Path.home() / default)
        if Path(value).is_dir():
            env[var] = value
    return server_env(home, {**env, **(extra or {})})


def copy_project(language: str, tmp_path: Path) -> Path:
    """A copy of a sample project (servers write caches beside the sources), canonical, in
    tmp_path/work (tmp_path is also the server's HOME)."""
    dest = tmp_path / "work" / language
    shutil.copytree(
        FIXTURES / language,
        dest,
        ignore=shutil.ignore_patterns("target", ".cache", "node_modules", "dist"),
    )
    dest = dest.resolve()
    template = dest / "compile_commands.json.in"
    if template.exists():
        text = template.read_text().replace("@DIR@", str(dest))
        (dest / "compile_commands.json").write_text(text)
    return dest


def expectations(language: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{language}.expected.json").read_text())


def require_server(env: dict[str, str], language: str, directory: Path) -> None:
    """Skips the test when no server for the language is installed, unless it is required:
    then fails. Asks health_check, through the CLI, in the environment the server gets."""
    if not RESOLVE_PR_BIN.exists():
        pytest.fail(f"{RESOLVE_PR_BIN} is missing: cargo build -p resolve-pr --bins")
    run = subprocess.run(
        [str(RESOLVE_PR_BIN), "tool", "health_check", json.dumps({"directory": str(directory)})],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    servers = [s for s in json.loads(run.stdout)["servers"] if s["language"] == language]
    assert servers, f"health_check lists no server for {language}"
    if any(s["installed"] for s in servers):
        return
    why = "; ".join(f"{s['server']}: {s.get('reason')} (install: {s['install']})" for s in servers)
    if required(language):
        pytest.fail(f"the {language} server is required here (RESOLVE_PR_REQUIRE_LSP) but: {why}")
    pytest.skip(f"no {language} language server installed: {why}")


def location_set(items: Any) -> set[tuple[str, int]]:
    """{file_path, line} of expectations, or of locations (their range's start line)."""
    out = set()
    for item in items or []:
        line = item["line"] if "line" in item else item["range"]["start"]["line"]
        out.add((item["file_path"], line))
    return out


def mismatch(out: dict[str, Any], expect: dict[str, Any], text_extra: Any) -> list[str]:
    """What differs between an answer and its expectation; empty when it matches."""
    wrong = []
    if "locations" in expect:
        located = out.get("locations", [])
        server = location_set(loc for loc in located if loc.get("source") != "text")
        text = location_set(loc for loc in located if loc.get("source") == "text")
        want = location_set(expect["locations"])
        if server != want:
            wrong.append(f"locations: got {sorted(server)}, want {sorted(want)}")
        allowed = location_set(text_extra)
        if not text <= allowed:
            wrong.append(f"text matches {sorted(text)} are not among the known misses {sorted(allowed)}")
    for key in ("incoming", "outgoing"):
        if key in expect:
            got = {call["symbol"]["name"] for call in out.get(key) or []}
            if got != set(expect[key]):
                wrong.append(f"{key}: got {sorted(got)}, want {sorted(expect[key])}")
    return wrong


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, TIMEOUT))


def toolsets_in(instructions: str) -> dict[str, list[str]]:
    """The "- toolset: name (Title); ..." lines of the server's instructions."""
    found = {}
    for line in instructions.splitlines():
        m = re.fullmatch(r"- (\w+): (.*)", line)
        if m:
            found[m.group(1)] = [entry.split(" (", 1)[0] for entry in m.group(2).split("; ")]
    return found


def test_code_tools_are_listed_with_their_toolset(home: Path) -> None:
    run(_listed(home))


async def _listed(home: Path) -> None:
    env = lsp_env(home)
    async with mcp_session(env) as session:
        init = await session.initialize()
        listed = (await session.list_tools()).tools
        names = [t.name for t in listed]
        assert names == [t["name"] for t in registry(home)]
        assert set(CODE_TOOLS) <= set(names), sorted(set(CODE_TOOLS) - set(names))
        tools = {t.name: t for t in listed}
        for name in CODE_TOOLS:
            tool = tools[name]
            assert tool.annotations.read_only_hint is True, name
            assert tool.annotations.open_world_hint is False, name
            assert tool.output_schema is not None, name
            Draft202012Validator.check_schema(tool.input_schema)
            Draft202012Validator.check_schema(tool.output_schema)
        # The instructions list every tool under its toolset, the code tools under "code".
        toolsets = toolsets_in(init.instructions or "")
        assert toolsets.get("code") == CODE_TOOLS, toolsets
        assert sorted(n for tools_of in toolsets.values() for n in tools_of) == sorted(names)
        # They say the conventions the code tools share, once.
        for phrase in ("structured output count from 0", "file:line:column from 1", "UTF-16", "file_path is relative", "SERVER_NOT_INSTALLED"):
            assert phrase in init.instructions, phrase
    # `--toolsets code` offers exactly these, and its instructions still say the conventions.
    assert [t["name"] for t in registry(home, "--toolsets", "code")] == CODE_TOOLS
    async with mcp_session(env, "--toolsets", "code") as session:
        init = await session.initialize()
        assert [t.name for t in (await session.list_tools()).tools] == CODE_TOOLS
        assert list(toolsets_in(init.instructions or "")) == ["code"]
        assert "structured output count from 0" in init.instructions


@pytest.mark.parametrize("language", ["python", "rust"])
def test_navigation_over_stdio(
    language: str, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_project(language, tmp_path)
    env = lsp_env(home)
    require_server(env, language, project)
    with capsys.disabled():
        run(_navigate(language, project, env))


async def _navigate(language: str, project: Path, env: dict[str, str]) -> None:
    spec = expectations(language)
    queries = [q for q in spec["queries"] if q["tool"] in NAVIGATION]
    assert {q["tool"] for q in queries} == set(NAVIGATION), "the expectations lack a tool"
    failures = []
    started = time.monotonic()
    async with mcp_session(env) as session:
        await session.initialize()
        validators = {
            t.name: Draft202012Validator(t.output_schema) for t in (await session.list_tools()).tools
        }
        for i, query in enumerate(queries):
            tool = query["tool"]
            args = {**query["args"], "directory": str(project)}
            deadline = time.monotonic() + QUERY_DEADLINE
            attempts = 0
            while True:
                attempts += 1
                asked = time.monotonic()
                result = await session.call_tool(tool, args)
                took = time.monotonic() - asked
                out = result.structured_content
                text = result.content[0].text if result.content and result.content[0].type == "text" else ""
                assert not result.is_error, f"{tool} {query['name']}: {out}"
                assert out is not None, f"{tool}: no structuredContent"
                errors = sorted(validators[tool].iter_errors(out), key=str)
                assert not errors, f"{tool} output does not match its outputSchema: {errors[0]}"
                assert text.strip(), f"{tool}: empty text rendering"
                assert "line:column from 1; a position argument counts from 0" in text, f"{tool}: how positions count unsaid: {text}"
                assert out["server"] == spec["server"].split()[0].removesuffix("-langserver"), out["server"]
                # Where the tool corrects the server (fixtures README: product_answer).
                if "product_answer" in query:
                    wrong = mismatch(out, query["product_answer"], None)
                else:
                    wrong = mismatch(out, query["expect"], query.get("text_extra"))
                if not wrong:
                    again = f" (asked {attempts} times)" if attempts > 1 else ""
                    print(f"[{language}] {tool} {query['name']}: ok in {took * 1000:.0f} ms{again}")
                    break
                # A server still indexing may answer short; once done, its answer is final.
                # The first question of a fresh server is asked again either way.
                if (out.get("partial") is not True and i > 0) or time.monotonic() > deadline:
                    failures.append(f"{tool} {query['name']}: {'; '.join(wrong)}\n  text: {text}")
                    break
                await asyncio.sleep(0.3)
    print(f"[{language}] {len(queries)} queries in {time.monotonic() - started:.1f} s")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures)


def test_code_errors_over_stdio(home: Path, tmp_path: Path) -> None:
    project = copy_project("python", tmp_path)
    outside = project.parent / "outside.py"
    outside.write_text("def add_numbers(a, b):\n    return a + b\n")
    # No server can be found: RESOLVE_PR_LSP_PATH is an empty directory and PATH holds only
    # git and Python (neither basedpyright nor its fallback pyright beside them).
    empty = tmp_path / "no-servers"
    empty.mkdir()
    bare = tmp_path / "bare-bin"
    bare.mkdir()
    for program, target in (("git", shutil.which("git")), ("python3", os.path.realpath(sys.executable))):
        assert target, f"{program} is not installed"
        (bare / program).symlink_to(target)
    bare_env = lsp_env(home, {"PATH": str(bare), "RESOLVE_PR_LSP_PATH": str(empty)})
    run(_errors(project, outside, lsp_env(home), bare_env))


async def _errors(project: Path, outside: Path, env: dict[str, str], bare_env: dict[str, str]) -> None:
    position = {"line": 0, "character": 4}
    async with mcp_session(env) as session:
        await session.initialize()
        for file_path in ("../outside.py", str(outside)):
            result = await session.call_tool(
                "find_definition", {"directory": str(project), "file_path": file_path, "position": position}
            )
            assert result.is_error, result.structured_content
            error = result.structured_content
            assert error["code"] == "INVALID_PATH", error
            assert error["category"] == "user", error
            assert error["details"]["field"] == "file_path", error
            assert "outside the workspace" in error["error"], error
            assert result.content[0].text.strip(), "an error result without text"
    async with mcp_session(bare_env) as session:
        await session.initialize()
        result = await session.call_tool(
            "find_definition",
            {"directory": str(project), "file_path": "main.py", "position": {"line": 5, "character": 12}},
        )
        assert result.is_error, result.structured_content
        error = result.structured_content
        assert error["code"] == "SERVER_NOT_INSTALLED", error
        assert error["details"]["install"] == "pipx install basedpyright", error
        assert "pipx install basedpyright" in error["suggestion"], error
        assert "basedpyright" in error["error"] and "pyright-langserver" in error["error"], error
        assert "SERVER_NOT_INSTALLED" in result.content[0].text, result.content[0].text
        # health_check says the same: python is in the workspace, and no server for it.
        health = await session.call_tool("health_check", {"directory": str(project)})
        assert not health.is_error, health.structured_content
        out = health.structured_content
        python = [s for s in out["servers"] if s["language"] == "python"]
        assert {s["server"] for s in python} == {"basedpyright", "pyright"}, python
        assert not any(s["installed"] for s in python), python
        assert out["missing"] == ["python"] and out["status"] == "degraded", out


def test_find_definition_through_the_inspector(home: Path, tmp_path: Path) -> None:
    project = copy_project("python", tmp_path)
    env = lsp_env(home)
    require_server(env, "python", project)
    query = next(
        q
        for q in expectations("python")["queries"]
        if q["tool"] == "find_definition" and "position" in q["args"]
    )
    called = inspector(
        home,
        env,
        "--method",
        "tools/call",
        "--tool-name",
        "find_definition",
        "--tool-args-json",
        json.dumps({**query["args"], "directory": str(project)}),
    )
    assert called.returncode == 0, called.stdout + called.stderr
    assert_no_warning(called)
    result = json.loads(called.stdout)
    assert result["isError"] is False, result
    out = result["structuredContent"]
    assert mismatch(out, query["expect"], query.get("text_extra")) == [], out
    assert out["server"] == "basedpyright"
    assert "line:column from 1; a position argument counts from 0" in result["content"][0]["text"]


# --- No language server outlives the MCP server -------------------------------------------


class RawMcp:
    """`resolve-pr serve` spoken to line by line (MCP's stdio framing), so the test holds the
    process itself and can kill it."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        if not RESOLVE_PR_BIN.exists():
            pytest.fail(f"{RESOLVE_PR_BIN} is missing: cargo build -p resolve-pr --bins")
        self.log = log.open("w")
        self.proc = subprocess.Popen(
            [str(RESOLVE_PR_BIN), "serve", "--toolsets", "all"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any], timeout: float = 120) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no answer to {method} in {timeout} s")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message["result"]

    def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        result = self.request("tools/call", {"name": tool, "arguments": args})
        assert result.get("isError") is not True, result
        return result["structuredContent"]


def proc_stat(pid: int) -> tuple[str, int, int] | None:
    """State, ppid and process group of a process; None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), int(fields[2])


def alive(pid: int) -> bool:
    """Running or stopped; a zombie (dead, not yet reaped) or a vanished process is dead."""
    stat = proc_stat(pid)
    return stat is not None and stat[0] not in ("Z", "X", "x")


def all_pids() -> Iterator[int]:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            yield int(entry.name)


def group_members(groups: set[int]) -> set[int]:
    """Every live process in these process groups."""
    found = set()
    for pid in all_pids():
        stat = proc_stat(pid)
        if stat is not None and stat[2] in groups and alive(pid):
            found.add(pid)
    return found


def describe(pid: int) -> str:
    stat = proc_stat(pid)
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        cmdline = raw.replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        cmdline = "?"
    if stat is None:
        return f"pid {pid} (gone)"
    state, ppid, pgrp = stat
    return f"pid {pid} state {state} ppid {ppid} pgrp {pgrp}: {cmdline[:200]}"


ORPHAN_LANGUAGES = ["python", "typescript", "rust"]
# A build script that is still running when the MCP server is killed: rust-analyzer builds
# build scripts and proc-macros with its own `cargo check` while it loads a workspace (about
# 25 s on this repository), and those processes must not outlive it either.
SLOW_BUILD_SCRIPT = "fn main() {\n    std::thread::sleep(std::time::Duration::from_secs(300));\n}\n"
# What its daemon's command line says, to be found in /proc.
ESCAPEE = "resolve-pr-escapee"


def escaping_build_script(clear_environment: bool) -> str:
    """A slow build script that first starts a daemon leaving its process group and session
    (setsid), and, if asked, clearing its environment too (env -i)."""
    argv = ["setsid", *(["env", "-i"] if clear_environment else []), "/bin/sh", "-c", f"sleep 300; : {ESCAPEE}"]
    args = ", ".join(json.dumps(a) for a in argv[1:])
    return (
        "fn main() {\n"
        f"    let _ = std::process::Command::new({json.dumps(argv[0])}).args([{args}])\n"
        "        .stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null())\n"
        "        .stderr(std::process::Stdio::null()).spawn();\n"
        "    std::thread::sleep(std::time::Duration::from_secs(300));\n"
        "}\n"
    )


def escapees() -> set[int]:
    """The escaped daemon's shell, and every process of its session (its sleep)."""
    found = set()
    sessions = set()
    for pid in all_pids():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if ESCAPEE.encode() in cmdline and alive(pid):
            found.add(pid)
            sessions.add(int(stat.rsplit(")", 1)[1].split()[3]))
    for pid in all_pids():
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[3]) in sessions and alive(pid):
            found.add(pid)
    return found


def members_matching(groups: set[int], needle: str) -> list[int]:
    found = []
    for pid in group_members(groups):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if needle.encode() in cmdline:
            found.append(pid)
    return found


@pytest.mark.parametrize("containment", ["cgroup", "group-and-mark"])
def test_no_language_server_survives_a_killed_mcp_server(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], containment: str
) -> None:
    """The issue's check: `kill -9` the MCP server, and no language server (nor any process it
    started: tsserver under typescript-language-server, rust-analyzer's proc-macro server, the
    cargo build of a build script still running, and a daemon that build script started with
    setsid, out of every process group) is left running. With cgroups (where this machine
    lets resolve-pr make them) the daemon also clears its environment; without
    (RESOLVE_PR_NO_CGROUP), it keeps the mark it inherited, which is what finds it."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux's /proc to see process groups")
    # The checkouts are trusted: rust-analyzer builds their build scripts only then.
    extra = {"RESOLVE_PR_TRUST": str(tmp_path / "work")}
    if containment == "group-and-mark":
        extra["RESOLVE_PR_NO_CGROUP"] = "1"
    env = lsp_env(home, extra)
    projects = {language: copy_project(language, tmp_path) for language in ORPHAN_LANGUAGES}
    if containment == "cgroup":
        health = subprocess.run(
            [str(RESOLVE_PR_BIN), "tool", "health_check", json.dumps({"directory": str(tmp_path / "work")})],
            env=env, capture_output=True, text=True, timeout=120,
        )
        assert health.returncode == 0, health.stdout + health.stderr
        if not json.loads(health.stdout)["escapes"].startswith("nothing"):
            pytest.skip("this machine gives resolve-pr no cgroup v2 to contain servers in")
    (projects["rust"] / "build.rs").write_text(escaping_build_script(clear_environment=containment == "cgroup"))
    languages = []
    skipped = []
    for language, project in projects.items():
        try:
            require_server(env, language, project)
            languages.append(language)
        except pytest.skip.Exception as e:
            skipped.append(str(e))
    if not languages:
        pytest.skip("; ".join(skipped))
    server = RawMcp(env, tmp_path / "serve.log")
    groups: set[int] = set()
    try:
        server.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "orphan-test", "version": "0"},
            },
        )
        server.send({"method": "notifications/initialized"})
        steps = []
        for language in languages:
            asked = time.monotonic()
            query = next(q for q in expectations(language)["queries"] if q["tool"] == "find_definition")
            args = {**query["args"], "directory": str(projects[language])}
            if language == "rust":
                # rust-analyzer answers once its build is done: the MCP server is killed with
                # this call in flight.
                server.send({"id": "rust-definition", "method": "tools/call",
                             "params": {"name": "find_definition", "arguments": args}})
                continue
            out = server.call("find_definition", args)
            assert out["locations"], f"{language}: {out}"
            steps.append(f"{language} server started and answered in {time.monotonic() - asked:.1f} s")
        waited = time.monotonic()
        while True:
            health = server.call("health_check", {"directory": str(tmp_path / "work")})
            running = {r["language"]: r for r in health["running"]}
            if set(languages) <= set(running):
                break
            assert time.monotonic() < waited + 60, f"not every server started: {health['running']}"
            time.sleep(0.2)
        servers = {r["pid"]: f"{r['server']} ({r['language']})" for r in running.values()}
        assert all(isinstance(pid, int) for pid in servers), health["running"]
        groups = set(servers)
        for pid in servers:
            stat = proc_stat(pid)
            assert stat is not None and stat[2] == pid, f"{servers[pid]} leads no group: {describe(pid)}"
        if "rust" in running:
            waited = time.monotonic()
            while not members_matching({running["rust"]["pid"]}, "build-script-build"):
                assert time.monotonic() < waited + 120, "rust-analyzer never ran the sample's build script"
                time.sleep(0.2)
            steps.append(f"rust-analyzer's build script running {time.monotonic() - waited:.1f} s later")
            while not escapees():
                assert time.monotonic() < waited + 30, "the build script's daemon never started"
                time.sleep(0.1)
            escaped = escapees()
            assert not escaped & group_members(groups), "the daemon did not leave the process group"
            steps.append(f"its setsid daemon running outside every group: {sorted(escaped)}")
        tracked = set(servers) | group_members(groups) | escapees()

        def owner(pid: int) -> str:
            stat = proc_stat(pid)
            return servers.get(stat[2], "?") if stat else "?"

        with capsys.disabled():
            print(f"\nlanguage servers of resolve-pr (pid {server.proc.pid}), with their process groups:")
            for pid in sorted(tracked):
                print(f"  [{owner(pid)}] {describe(pid)}")
            for step in steps + skipped:
                print(f"  ({step})")

        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=10)
        killed = time.monotonic()
        deadline = killed + ORPHAN_DEADLINE
        while True:
            # What was seen before, and anything the groups started since.
            survivors = {p for p in tracked if alive(p)} | group_members(groups) | escapees()
            if not survivors or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if not survivors:
            with capsys.disabled():
                print(f"  all gone {time.monotonic() - killed:.2f} s after the kill")
        assert not survivors, (
            f"{len(survivors)} process(es) outlived the killed MCP server by {ORPHAN_DEADLINE} s:\n"
            + "\n".join(f"[group of {owner(p)}] {describe(p)}" for p in sorted(survivors))
        )
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
        # Leave nothing behind on the machine, whatever the test found.
        for pid in group_members(groups) | escapees():
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        server.log.close()


def test_an_untrusted_checkout_cannot_choose_the_rust_toolchain(home: Path, tmp_path: Path) -> None:
    """A `rust-toolchain.toml` whose toolchain `path` lies in the checkout names the programs
    rustup runs there, rust-analyzer itself included. Untrusted (not the server's directory,
    not in RESOLVE_PR_TRUST), the toolchain is pinned: none of them runs and the answer is
    right. Trusted, they run (and, being canaries, fail). RUSTUP_TOOLCHAIN is not passed on,
    as in a shell where rustup's own cargo did not set it."""
    env = lsp_env(home)
    env.pop("RUSTUP_TOOLCHAIN", None)
    project = copy_project("rust", tmp_path)
    require_server(env, "rust", project)
    if shutil.which("rustup", path=env["PATH"]) is None:
        pytest.skip("rust-analyzer is not run through rustup here")
    for program in ("rust-analyzer", "cargo", "rustc"):
        fake = project / "toolchain" / "bin" / program
        fake.parent.mkdir(parents=True, exist_ok=True)
        fake.write_text(f"#!/bin/sh\ntouch '{project}/CANARY-{program}'\nexit 1\n")
        fake.chmod(0o755)
    (project / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{project / "toolchain"}"\n')
    query = next(q for q in expectations("rust")["queries"] if q["tool"] == "find_definition")
    args = json.dumps({**query["args"], "directory": str(project)})

    def sung() -> list[str]:
        return sorted(p.name for p in project.glob("CANARY-*"))

    untrusted = subprocess.run(
        [str(RESOLVE_PR_BIN), "tool", "find_definition", args],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180,
    )
    assert untrusted.returncode == 0, untrusted.stdout + untrusted.stderr
    assert mismatch(json.loads(untrusted.stdout), query["expect"], query.get("text_extra")) == []
    assert sung() == [], "an untrusted checkout chose the toolchain"
    trusted = subprocess.run(
        [str(RESOLVE_PR_BIN), "tool", "find_definition", args],
        env={**env, "RESOLVE_PR_TRUST": str(project)}, cwd=tmp_path, capture_output=True, text=True, timeout=180,
    )
    assert "CANARY-rust-analyzer" in sung(), trusted.stdout + trusted.stderr


# --- A first code question answers before the client gives up ------------------------------


def stuck_gopls(tmp_path: Path) -> tuple[Path, Path]:
    """A Go checkout, and a directory holding a `gopls` that never finishes starting (the
    stand-in server of crates/lsp/tests in its `stuck-start` mode): a cold server on a
    machine too busy to start it in a minute."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = REPO_ROOT / "crates/lsp/tests/fake_server.py"
    gopls = bindir / "gopls"
    gopls.write_text(f"#!/bin/sh\nexec {sys.executable} {fake} stuck-start\n")
    gopls.chmod(0o755)
    project = tmp_path / "checkout"
    project.mkdir()
    (project / "go.mod").write_text("module example.com/stuck\n\ngo 1.21\n")
    (project / "main.go").write_text("package main\n\nfunc helper() {}\n\nfunc main() { helper() }\n")
    return project, bindir


def test_a_first_code_question_answers_before_the_clients_timeout(home: Path, tmp_path: Path) -> None:
    """Both clients with their default timeouts (the Inspector's TypeScript SDK ends a request
    after 60 s whatever progress says; the Python SDK waits as long as it takes): the call
    answers within RESOLVE_PR_CODE_CALL_WAIT's default 45 s, saying the server is still
    starting and when to ask again, with progress every few seconds meanwhile."""
    project, bindir = stuck_gopls(tmp_path)
    env = lsp_env(home, {"RESOLVE_PR_LSP_PATH": str(bindir)})
    del env["RESOLVE_PR_CODE_CALL_WAIT"]
    args = {"directory": str(project), "symbol": "helper"}
    through_inspector: dict[str, Any] = {}

    def ask_inspector() -> None:
        started = time.monotonic()
        called = inspector(
            home, env, "--method", "tools/call", "--tool-name", "find_definition",
            "--tool-args-json", json.dumps(args),
        )
        through_inspector.update(run=called, seconds=time.monotonic() - started)

    thread = threading.Thread(target=ask_inspector)
    thread.start()

    async def ask_python() -> tuple[Any, float, list[tuple[float, str]]]:
        progress: list[tuple[float, str]] = []
        started = time.monotonic()

        async def heard(done: float, total: float | None, message: str | None) -> None:
            progress.append((time.monotonic() - started, message or ""))

        async with mcp_session(env) as session:
            await session.initialize()
            result = await session.call_tool("find_definition", args, progress_callback=heard)
        return result, time.monotonic() - started, progress

    result, seconds, progress = run(ask_python())
    thread.join(timeout=150)
    assert seconds < 55, f"answered after {seconds:.0f} s"
    assert result.is_error, result.structured_content
    error = result.structured_content
    assert error["code"] == "SERVER_INDEXING", error
    assert "gopls for " in error["error"] and "is starting" in error["error"], error
    assert error["retry_after"] > 0, error
    assert "Ask again in about" in result.content[0].text, result.content[0].text
    # Progress all along, naming what is waited on.
    times = [t for t, _ in progress]
    assert len(progress) >= 6, progress
    assert times[0] < 15 and all(b - a < 8 for a, b in zip(times, times[1:])), progress
    assert any("gopls" in m and "starting" in m for _, m in progress), progress

    called = through_inspector["run"]
    assert through_inspector["seconds"] < 58, through_inspector["seconds"]
    assert called.returncode == 5, called.stdout + called.stderr
    assert_no_warning(called)
    answered = json.loads(called.stdout)
    assert answered["isError"] is True, answered
    assert answered["structuredContent"]["code"] == "SERVER_INDEXING", answered
