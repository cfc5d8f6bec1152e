#!/usr/bin/env python3
"""Figures for `serve --http` under a connection-exhaustion attack (stdlib only).

Starts `resolve-pr serve --http 127.0.0.1:0 --allow-server-token` under a lowered descriptor
limit (`ulimit -n`, soft and hard), measures a normal MCP call (initialize + tools/list on a
new connection) and the server's open descriptors, then opens CONNECTIONS connections as a
hostile client would: half send nothing, half send a partial request head and stop. Then, at
once and again after the server's header timeout should have freed them, it prints:

- held: attacker connections still open with no answer (neither a 503 nor closed);
- refused: connections answered with 503 (the connection limit);
- closed: connections the server closed without an answer (the header timeout);
- call: the latency of a normal call meanwhile (or why it failed: "timed out" after 10 s, or
  the 503 of the connection limit);
- retried: how long a client that tries again after a 503 or a failure (every 0.2 s) takes
  to get its call through, at most 30 s;
- fds: the server's open descriptors (/proc/PID/fd).

Run after `cargo build -p resolve-pr`:
    python3 scripts/http_attack.py                      # 1,024 descriptors, 1,100 connections
    RESOLVE_PR_BIN=/path/to/other/resolve-pr python3 scripts/http_attack.py --limit 256 --connections 300
Extra arguments after `--` go to `resolve-pr serve` (e.g. `-- --header-timeout 2`).
"""

import argparse
import json
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("RESOLVE_PR_BIN", os.path.join(ROOT, "target/debug/resolve-pr"))
CALL_TIMEOUT = 10.0


def start_server(limit, extra):
    home = tempfile.mkdtemp(prefix="http-attack-")
    config = os.path.join(home, "config.toml")
    open(config, "w").close()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "XDG_STATE_HOME": os.path.join(home, "state"),
        "XDG_CACHE_HOME": os.path.join(home, "cache"),
        "RESOLVE_PR_CONFIG": config,
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_TOKEN": "ghp_server_token_for_the_attack_run",
        "RESOLVE_PR_LOG": "warn",
    }
    argv = [BIN, "serve", "--http", "127.0.0.1:0", "--allow-server-token", *extra]
    quoted = " ".join("'" + a.replace("'", "'\\''") + "'" for a in argv)
    child = subprocess.Popen(
        ["sh", "-c", f"ulimit -n {limit} && exec {quoted}"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in child.stderr:
        match = re.match(r"listening on http://([0-9.]+):(\d+)/mcp", line)
        if match:
            # Keep reading stderr so the server never blocks on a full pipe.
            threading.Thread(target=lambda: [None for _ in child.stderr], daemon=True).start()
            return child, (match.group(1), int(match.group(2)))
    raise SystemExit("the server did not start")


def descriptors(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def post(address, body, deadline):
    """One MCP POST on a new connection; the status and JSON body, or raises on timeout."""
    payload = json.dumps(body).encode()
    request = (
        f"POST /mcp HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode() + payload
    with socket.create_connection(address, timeout=max(deadline - time.monotonic(), 0.01)) as s:
        s.sendall(request)
        answer = b""
        while True:
            s.settimeout(max(deadline - time.monotonic(), 0.01))
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, rest = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head else 0
    return status, rest


def normal_call(address):
    """initialize + tools/list, each on its own connection: seconds, or a reason it failed."""
    deadline = time.monotonic() + CALL_TIMEOUT
    started = time.monotonic()
    try:
        status, _ = post(
            address,
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "attack-probe", "version": "0"}}},
            deadline,
        )
        if status != 200:
            return f"initialize: HTTP {status}"
        status, body = post(address, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, deadline)
        if status != 200 or b'"tools"' not in body:
            return f"tools/list: HTTP {status}"
    except (socket.timeout, TimeoutError):
        return f"timed out after {CALL_TIMEOUT:.0f} s"
    except OSError as e:
        return f"failed: {e}"
    return time.monotonic() - started


def retried_call(address):
    started = time.monotonic()
    while time.monotonic() - started < 30:
        call = normal_call(address)
        if isinstance(call, float):
            return f"{time.monotonic() - started:.3f} s"
        time.sleep(0.2)
    return "never (30 s)"


def open_attack(address, count):
    sockets = []
    partial = f"POST /mcp HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\nContent-Type: app".encode()
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(address)
            if i % 2:
                s.sendall(partial)
        except OSError:
            s.close()
            continue
        s.setblocking(False)
        sockets.append(s)
    return sockets


def census(sockets, state):
    """Reads what the server sent each attacker connection so far; counts by outcome."""
    for s in sockets:
        if state.get(s) in ("refused", "closed"):
            continue
        # poll, not select: attacker descriptors pass FD_SETSIZE (1,024).
        poller = select.poll()
        poller.register(s, select.POLLIN)
        if not poller.poll(0):
            continue
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if data.startswith(b"HTTP/1.1 503"):
            state[s] = "refused"
        elif not data:
            state[s] = "closed"
        else:
            state[s] = "answered"
    counts = {"held": 0, "refused": 0, "closed": 0, "answered": 0}
    for s in sockets:
        counts[state.get(s, "held")] += 1
    return counts


def report(label, sockets, state, child, address, retry=False):
    fds = descriptors(child.pid)
    counts = census(sockets, state)
    call = normal_call(address)
    call_text = f"{call:.3f} s" if isinstance(call, float) else call
    line = (
        f"{label:<24} held {counts['held']:>5}  refused(503) {counts['refused']:>5}  "
        f"closed {counts['closed']:>5}  fds {fds!s:>5}  call {call_text}"
    )
    if retry:
        line += f"  retried {retried_call(address)}"
    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=1024, help="ulimit -n of the server")
    parser.add_argument("--connections", type=int, default=1100, help="attacker connections")
    parser.add_argument("--wait", type=float, default=15.0, help="seconds before the 2nd look")
    parser.add_argument("extra", nargs="*", help="more `serve` arguments, after --")
    args = parser.parse_args()
    child, address = start_server(args.limit, args.extra)
    try:
        print(f"{BIN}: ulimit -n {args.limit}, {args.connections} attacker connections")
        report("before the attack", [], {}, child, address)
        attack = time.monotonic()
        sockets = open_attack(address, args.connections)
        print(f"opened {len(sockets)} connections in {time.monotonic() - attack:.1f} s")
        state = {}
        time.sleep(1)
        report(f"attack + {time.monotonic() - attack:.0f} s", sockets, state, child, address,
               retry=True)
        time.sleep(max(args.wait - (time.monotonic() - attack), 0))
        report(f"attack + {time.monotonic() - attack:.0f} s", sockets, state, child, address)
        for s in sockets:
            s.close()
        time.sleep(1)
        report("attacker gone + 1 s", [], {}, child, address)
        print(f"server still running: {child.poll() is None}")
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()


if __name__ == "__main__":
    sys.exit(main())
