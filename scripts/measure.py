#!/usr/bin/env python3
"""Figures for the closing notes, measured on this machine in one run (stdlib only).

- startup: wall time of `resolve-pr tools --json` from process start to exit, as a ratio to
  `git --version` timed in the same run (a reference, since the machine is shared and noisy);
- idle memory: resident set size of `resolve-pr serve` after an MCP initialize + tools/list;
- round trips: HTTP requests each tool call makes, from the simulator's request log;
- find_unresolved_comments on a PR with 150 review threads (one of 131 comments): requests,
  GraphQL rate-limit points (the simulator prices each query by GitHub's published rule) and
  response bytes (compact JSON of the structured result) for the first page and for a walk
  of every page, once with a new process per page (CLI) and once through one MCP server.

Run after `cargo build --release -p resolve-pr -p resolve-pr-forge-sim --bins`:
    python3 scripts/measure.py
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("RESOLVE_PR_BIN", os.path.join(ROOT, "target/release/resolve-pr"))
SIM = os.environ.get("FORGE_SIM_BIN", os.path.join(ROOT, "target/release/forge-sim"))
RUNS = 40


def timed(argv, runs=RUNS):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def startup():
    # Interleave warm-up so both commands start from a warm page cache.
    timed([BIN, "tools", "--json"], 3)
    timed(["git", "--version"], 3)
    ours = timed([BIN, "tools", "--json"])
    ref = timed(["git", "--version"])
    print(f"startup: resolve-pr tools --json median {ours * 1000:.1f} ms over {RUNS} runs; "
          f"git --version {ref * 1000:.1f} ms; ratio {ours / ref:.2f}x")


def idle_memory():
    proc = subprocess.Popen([BIN, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=quiet_env({}))
    def send(msg):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "measure", "version": "0"}}})
    proc.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    proc.stdout.readline()
    time.sleep(1.0)
    status = open(f"/proc/{proc.pid}/status").read()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    rss, hwm = fields["VmRSS"].strip(), fields["VmHWM"].strip()
    proc.stdin.close()
    proc.wait(timeout=10)
    print(f"idle memory: resolve-pr serve after initialize + tools/list: RSS {rss} (peak {hwm})")


def quiet_env(extra):
    home = tempfile.mkdtemp()
    cfg = os.path.join(home, "config.toml")
    open(cfg, "w").close()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
           "RESOLVE_PR_CONFIG": cfg, "RESOLVE_PR_CURSOR_KEY": "measure"}
    env.update(extra)
    return env


def start_sim(scenario):
    proc = subprocess.Popen([SIM, "--scenario", f"builtin:{scenario}"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = proc.stdout.readline().decode().strip()
    assert line.startswith("listening "), line
    return proc, line.removeprefix("listening ")


def sim_requests(base):
    with urllib.request.urlopen(f"{base}/_sim/requests") as r:
        return json.load(r)


def clear(base):
    urllib.request.urlopen(urllib.request.Request(f"{base}/_sim/requests", method="DELETE")).close()


def round_trips():
    for forge, scenario, token in [("github", "demo-github", "ghp_demo_write"),
                                   ("forgejo", "demo-forgejo", "fj_demo_write")]:
        proc, base = start_sim(scenario)
        if forge == "github":
            env = quiet_env({"GITHUB_API_URL": base, "GITHUB_TOKEN": token})
            repo = "acme/widgets"
        else:
            env = quiet_env({"FORGEJO_HOST": base, "FORGEJO_TOKEN": token})
            repo = f"{base}/acme/widgets"
        calls = [
            ("pr_comment_list", {"repository": repo, "pull_request_number": 7}),
            ("pr_comment_create", {"repository": repo, "pull_request_number": 7, "comment": "measured"}),
            ("pr_comment_create", {"repository": repo, "pull_request_number": 0, "comment": ""}),
        ]
        for tool, args in calls:
            clear(base)
            subprocess.run([BIN, "tool", tool, json.dumps(args)], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            log = sim_requests(base)
            what = ", ".join(f"{r['method']} {r['path']}" for r in log) or "none"
            note = " (bad input)" if args.get("pull_request_number") == 0 else ""
            print(f"round trips: {forge} {tool}{note}: {len(log)} request(s) from a fresh process: {what}")
        proc.stdin.close()
        proc.wait(timeout=10)


class McpSession:
    """One `resolve-pr serve` process spoken to over stdio (newline-delimited JSON-RPC), so
    per-process caches show as they do for an MCP client."""

    def __init__(self, env):
        self.proc = subprocess.Popen([BIN, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "measure", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            msg = json.loads(self.proc.stdout.readline())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(msg["error"])
                return msg["result"]

    def call(self, tool, args):
        result = self.request("tools/call", {"name": tool, "arguments": args})
        if result.get("isError"):
            raise RuntimeError(result["structuredContent"])
        return result["structuredContent"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def walk(call, base, pr):
    """Every page of find_unresolved_comments through `call(args) -> structured result`:
    pages, items, total, first page (requests, points, bytes), whole walk (requests, points,
    bytes). Points are the GraphQL rate-limit points the simulator charged (GitHub's rule)."""
    args = {"pr": pr}
    pages = requests = points = size = items = 0
    first = None
    while True:
        clear(base)
        result = call(args)
        log = sim_requests(base)
        pages += 1
        page_requests = len(log)
        page_points = sum(r.get("graphql_points") or 0 for r in log)
        page_bytes = len(json.dumps(result, separators=(",", ":")).encode())
        requests += page_requests
        points += page_points
        size += page_bytes
        items += len(result["comments"])
        if first is None:
            first = (page_requests, page_points, page_bytes)
        cursor = result.get("nextCursor")
        if not cursor or pages > 100:
            break
        args = {"pr": pr, "cursor": cursor}
    return pages, items, result["total_unresolved"], first, (requests, points, size)


def unresolved_walk():
    for forge, scenario, token in [("github", "threads_over_100", "ghp_write"),
                                   ("forgejo", "threads_over_100_forgejo", "fj_write")]:
        proc, base = start_sim(scenario)
        if forge == "github":
            env = quiet_env({"GITHUB_API_URL": base, "GITHUB_TOKEN": token})
            pr = "acme/busy#1"
        else:
            env = quiet_env({"FORGEJO_HOST": base, "FORGEJO_TOKEN": token})
            pr = f"{base}/acme/busy/pulls/1"

        def cli(args):
            out = subprocess.run([BIN, "tool", "find_unresolved_comments", json.dumps(args)],
                                 env=env, capture_output=True, check=True).stdout
            return json.loads(out)

        session = McpSession(env)
        for how, call in [("a new process per page (CLI)", cli),
                          ("one `resolve-pr serve` process (MCP)",
                           lambda a: session.call("find_unresolved_comments", a))]:
            pages, items, total, first, whole = walk(call, base, pr)
            print(f"find_unresolved_comments: {forge} 150 threads, {how}: first page {first[0]} "
                  f"requests, {first[1]} GraphQL points, {first[2]} bytes; all {pages} pages "
                  f"({items} of {total} items) {whole[0]} requests, {whole[1]} GraphQL points, "
                  f"{whole[2]} bytes")
        session.close()
        proc.stdin.close()
        proc.wait(timeout=10)


def storage_requests(base):
    with urllib.request.urlopen(f"{base}/_sim/storage") as r:
        return json.load(r)


def failing_tests():
    """get_failing_tests on ci_failing (4 failed checks, 2 job logs, a JUnit artifact): the
    first page and the walk over every page, each page from a fresh process (a long-running
    MCP server caches finished jobs, so its later pages download nothing); then wait mode on
    ci_running, counting how many check listings were answered 304."""
    proc, base = start_sim("ci_failing")
    env = quiet_env({"GITHUB_API_URL": base, "GITHUB_TOKEN": "ghp_read"})
    args = {"pr": "acme/widgets#7"}
    pages = requests = size = failures = 0
    first = None
    while True:
        clear(base)
        before = len(storage_requests(base))
        out = subprocess.run([BIN, "tool", "get_failing_tests", json.dumps(args)], env=env,
                             capture_output=True, check=True).stdout
        result = json.loads(out)
        pages += 1
        page_requests = len(sim_requests(base)) + len(storage_requests(base)) - before
        page_bytes = len(json.dumps(result, separators=(",", ":")).encode())
        requests += page_requests
        size += page_bytes
        failures += len(result["failures"])
        if first is None:
            first = (page_requests, page_bytes, result["total_failures"])
        cursor = result.get("nextCursor")
        if not cursor or pages > 100:
            break
        args = {"pr": "acme/widgets#7", "cursor": cursor}
    print(f"get_failing_tests: ci_failing first page {first[0]} requests (API + log storage), "
          f"{first[1]} bytes; all {pages} pages ({failures} of {first[2]} failures) {requests} "
          f"requests, {size} bytes")
    proc.stdin.close()
    proc.wait(timeout=10)

    proc, base = start_sim("ci_running")
    env = quiet_env({"GITHUB_API_URL": base, "GITHUB_TOKEN": "ghp_read", "RESOLVE_PR_CI_POLL": "0.05-0.2"})
    clear(base)
    out = subprocess.run([BIN, "tool", "get_failing_tests",
                          json.dumps({"pr": "acme/widgets#8", "wait": True, "bail_on_first": False})],
                         env=env, capture_output=True, check=True).stdout
    result = json.loads(out)
    log = sim_requests(base)
    listings = [r for r in log if "/check-runs" in r["path"] and "annotations" not in r["path"]]
    unchanged = [r for r in listings if r["status"] == 304]
    print(f"get_failing_tests wait: ci_running {result['wait']['polls']} polls, {len(log)} requests, "
          f"{len(listings)} check listings of which {len(unchanged)} answered 304 (no rate limit)")
    proc.stdin.close()
    proc.wait(timeout=10)


if __name__ == "__main__":
    for path in (BIN, SIM):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} is missing: cargo build --release -p resolve-pr -p resolve-pr-forge-sim --bins")
    startup()
    idle_memory()
    round_trips()
    unresolved_walk()
    failing_tests()
