#!/usr/bin/env python3
"""A bare Language Server Protocol client (stdlib only, Python 3.11).

It checks the sample projects' expected answers against the real language servers and is the
reference benchmark the product's own LSP client is compared with.

    python3 scripts/lsp_bare.py verify --server rust \
        --project tests/fixtures/code/rust --expected tests/fixtures/code/rust.expected.json
    python3 scripts/lsp_bare.py bench --server rust --project DIR \
        --file src/main.rs --line 7 --character 16 [--runs 20]

verify copies the project to a temporary directory (so a server's caches and build output
never land in the fixtures), writes `compile_commands.json` from `compile_commands.json.in`
(`@DIR@` = the copy), runs every query of the expectations file as plain LSP requests and
compares the answers with `expect`. Queries that name a `symbol` instead of a position are
resolved through `workspace/symbol` first. The `diagnostics` section runs in a second copy
with the broken file written in. Exit status 1 on any mismatch, 2 on bad input or a server
that could not be driven.

bench runs in the project directory itself (only a missing `compile_commands.json` is written
from its `.in` template) and prints one JSON object: seconds from spawn to the first non-empty
definition answer, warm definition and references latency (median), and the peak RSS of the
server's whole process tree.

Conventions of the expectations files (the product's tests read them the same way):
- a location's `line` is the zero-based start line of `Location.range`, or of
  `LocationLink.targetSelectionRange` (the name, not the whole item with its comments);
- `file_path` is relative to the project, POSIX separators; positions are zero-based, UTF-16;
- `incoming` / `outgoing` are the sets of `name`s of the call hierarchy items;
- `symbols` are {name, file_path, line} that must be among `workspace/symbol` results, line
  being the start line of the symbol's `location.range`.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

SERVERS: dict[str, dict[str, Any]] = {
    "rust": {
        "command": ["rust-analyzer"],
        "init_options": {"checkOnSave": False},
        "language_id": {".rs": "rust"},
    },
    "typescript": {
        "command": ["typescript-language-server", "--stdio"],
        "init_options": None,
        "language_id": {
            ".ts": "typescript",
            ".tsx": "typescriptreact",
            ".js": "javascript",
            ".jsx": "javascriptreact",
        },
    },
    "python": {
        "command": ["basedpyright-langserver", "--stdio"],
        "init_options": None,
        "language_id": {".py": "python", ".pyi": "python"},
    },
    "c": {
        "command": ["clangd", "--background-index"],
        "init_options": None,
        "language_id": {".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp"},
    },
    "go": {
        "command": ["gopls"],
        "init_options": None,
        "language_id": {".go": "go"},
    },
}

# Directories a server or a build writes into a project; never copied.
COPY_IGNORE = shutil.ignore_patterns(
    "target", ".cache", "node_modules", "dist", "__pycache__", "compile_commands.json"
)

SEVERITIES = {1: "error", 2: "warning", 3: "information", 4: "hint"}

# LSP_BARE_TRACE=1 prints every notification from the server to stderr, with its time.
TRACE = os.environ.get("LSP_BARE_TRACE") == "1"


class UsageError(Exception):
    """Bad input: a missing server, a malformed expectations file, a wrong path."""


class LspError(Exception):
    """The server answered a request with an error, or did not answer in time."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


# The server dropped the request because its state changed; asking again is the remedy.
RETRYABLE_CODES = (-32801, -32802)  # ContentModified, ServerCancelled


# ---------------------------------------------------------------------------------------------
# Paths, URIs and positions


def path_to_uri(path: Path) -> str:
    return path.resolve().as_uri()


def uri_to_path(uri: str) -> Path:
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme != "file":
        raise LspError(f"not a file URI: {uri}")
    return Path(urllib.parse.unquote(parsed.path))


def relative(root: Path, uri: str) -> str:
    path = uri_to_path(uri).resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def utf16_to_index(line: str, character: int) -> int:
    """The index into `line` of the UTF-16 column `character`."""
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def word_at(text: str, line: int, character: int) -> str:
    lines = text.splitlines()
    if line >= len(lines):
        return ""
    row = lines[line]
    index = utf16_to_index(row, character)
    for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", row):
        if match.start() <= index < match.end():
            return match.group(0)
    return ""


# ---------------------------------------------------------------------------------------------
# The client


class Client:
    """One language server process spoken to over stdio."""

    def __init__(self, command: list[str], root: Path, log_path: Path) -> None:
        self.root = root.resolve()
        self.command = command
        self.log = open(log_path, "wb")  # noqa: SIM115 (closed in stop())
        self.spawned_at = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                command,
                cwd=self.root,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log,
                start_new_session=True,  # its own process group, killed as one
            )
        except OSError as error:
            self.log.close()
            raise UsageError(f"cannot start {command[0]!r}: {error}") from error
        self._next_id = 0
        self._write_lock = threading.Lock()
        self._pending: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._pending_lock = threading.Lock()
        self.state_lock = threading.Condition()
        self.open_progress: dict[Any, str] = {}
        self.last_progress_change = time.monotonic()
        self.quiescent: bool | None = None  # rust-analyzer's experimental/serverStatus
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        self.diagnostic_versions: dict[str, int] = {}
        self.captured_edits: list[Any] = []
        self.closed = False
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # -- framing --------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, separators=(",", ":")).encode("utf-8")
        header = f"Content-Length: {len(body)}\r\n\r\n".encode("ascii")
        with self._write_lock:
            if self.proc.stdin is None or self.proc.poll() is not None:
                raise LspError(f"server exited (status {self.proc.poll()})")
            try:
                self.proc.stdin.write(header + body)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError) as error:
                raise LspError(f"cannot write to server: {error}") from error

    def _read_message(self) -> dict[str, Any] | None:
        stream = self.proc.stdout
        assert stream is not None
        length = None
        while True:
            line = stream.readline()
            if not line:
                return None
            line = line.rstrip(b"\r\n")
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length is None:
            raise LspError("message without Content-Length")
        body = stream.read(length)
        if len(body) < length:
            return None
        return json.loads(body)

    def _read_loop(self) -> None:
        try:
            while True:
                message = self._read_message()
                if message is None:
                    break
                self._dispatch(message)
        except (LspError, ValueError, OSError) as error:
            self.log.write(f"\n[lsp_bare] reader stopped: {error}\n".encode())
        finally:
            self.closed = True
            with self._pending_lock:
                waiting = list(self._pending.values())
            for slot in waiting:
                slot.put({"error": {"code": -32099, "message": "server closed its output"}})
            with self.state_lock:
                self.state_lock.notify_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self._answer_server_request(message)
        elif "method" in message:
            self._notification(message["method"], message.get("params"))
        elif "id" in message:
            with self._pending_lock:
                slot = self._pending.pop(message["id"], None)
            if slot is not None:
                slot.put(message)

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        method = message["method"]
        params = message.get("params") or {}
        result: Any = None
        error = None
        if method == "workspace/configuration":
            result = [None for _ in params.get("items", [])]
        elif method in (
            "window/workDoneProgress/create",
            "client/registerCapability",
            "client/unregisterCapability",
            "window/showMessageRequest",
            "workspace/diagnostic/refresh",
            "workspace/semanticTokens/refresh",
            "workspace/inlayHint/refresh",
            "workspace/codeLens/refresh",
        ):
            result = None
        elif method == "workspace/applyEdit":
            self.captured_edits.append(params.get("edit"))
            result = {"applied": False, "failureReason": "lsp_bare applies no edits"}
        elif method == "workspace/workspaceFolders":
            result = [{"uri": path_to_uri(self.root), "name": self.root.name}]
        else:
            error = {"code": -32601, "message": f"lsp_bare does not handle {method}"}
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if error is None:
            reply["result"] = result
        else:
            reply["error"] = error
        try:
            self._send(reply)
        except LspError:
            pass

    def _notification(self, method: str, params: Any) -> None:
        if TRACE:
            elapsed = time.monotonic() - self.spawned_at
            print(f"[{elapsed:7.3f}] <- {method} {json.dumps(params)[:200]}", file=sys.stderr)
        with self.state_lock:
            if method == "$/progress" and isinstance(params, dict):
                value = params.get("value") or {}
                token = params.get("token")
                kind = value.get("kind")
                if kind == "begin":
                    self.open_progress[token] = value.get("title", "")
                    self.last_progress_change = time.monotonic()
                elif kind == "end":
                    self.open_progress.pop(token, None)
                    self.last_progress_change = time.monotonic()
            elif method == "experimental/serverStatus" and isinstance(params, dict):
                self.quiescent = bool(params.get("quiescent"))
                self.last_progress_change = time.monotonic()
            elif method == "textDocument/publishDiagnostics" and isinstance(params, dict):
                uri = params.get("uri", "")
                self.diagnostics[uri] = params.get("diagnostics") or []
                self.diagnostic_versions[uri] = self.diagnostic_versions.get(uri, 0) + 1
            self.state_lock.notify_all()

    # -- requests -------------------------------------------------------------------------------

    def request(self, method: str, params: Any, timeout: float = 60.0) -> Any:
        if self.closed:
            raise LspError(f"{method}: the server has closed its output (status {self.proc.poll()})")
        with self._pending_lock:
            self._next_id += 1
            request_id = self._next_id
            slot: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=1)
            self._pending[request_id] = slot
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        try:
            reply = slot.get(timeout=timeout)
        except queue.Empty:
            with self._pending_lock:
                self._pending.pop(request_id, None)
            try:
                self.notify("$/cancelRequest", {"id": request_id})
            except LspError:
                pass
            raise LspError(f"{method}: no answer within {timeout:.0f} s") from None
        if "error" in reply:
            err = reply["error"]
            code = err.get("code")
            raise LspError(f"{method}: error {code}: {err.get('message')}", code=code)
        return reply.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    # -- lifecycle ------------------------------------------------------------------------------

    def initialize(self, init_options: Any, link_support: bool) -> dict[str, Any]:
        capabilities = {
            "general": {"positionEncodings": ["utf-16"]},
            "window": {"workDoneProgress": True},
            "workspace": {
                "configuration": True,
                "workspaceFolders": True,
                "applyEdit": True,
                "symbol": {"dynamicRegistration": False},
                "workspaceEdit": {"documentChanges": True},
                "didChangeWatchedFiles": {"dynamicRegistration": True},
            },
            "textDocument": {
                "synchronization": {"didSave": True, "dynamicRegistration": False},
                "definition": {"linkSupport": link_support},
                "typeDefinition": {"linkSupport": link_support},
                "implementation": {"linkSupport": link_support},
                "declaration": {"linkSupport": link_support},
                "references": {},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                "callHierarchy": {"dynamicRegistration": False},
                "publishDiagnostics": {"relatedInformation": True, "versionSupport": True},
            },
            "experimental": {"serverStatusNotification": True},
        }
        params = {
            "processId": os.getpid(),
            "clientInfo": {"name": "lsp_bare", "version": "1"},
            "rootUri": path_to_uri(self.root),
            "rootPath": str(self.root),
            "workspaceFolders": [{"uri": path_to_uri(self.root), "name": self.root.name}],
            "capabilities": capabilities,
            "initializationOptions": init_options,
        }
        result = self.request("initialize", params, timeout=60)
        self.notify("initialized", {})
        with self.state_lock:
            # Quiet is measured from here: a server starts reporting progress only now.
            self.last_progress_change = time.monotonic()
        return result or {}

    def open(self, relpath: str, language_ids: dict[str, str]) -> str:
        path = self.root / relpath
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot read {path}: {error}") from error
        language = language_ids.get(path.suffix, "plaintext")
        uri = path_to_uri(path)
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}},
        )
        return uri

    def wait_idle(self, timeout: float, quiet: float = 0.5) -> bool:
        """Wait until no `$/progress` is open (and rust-analyzer, if it reports, is quiescent)
        and nothing changed for `quiet` seconds. False if that did not happen in time."""
        deadline = time.monotonic() + timeout
        with self.state_lock:
            while True:
                now = time.monotonic()
                busy = bool(self.open_progress) or self.quiescent is False
                if not busy and now - self.last_progress_change >= quiet:
                    return True
                if now >= deadline or self.closed:
                    return False
                self.state_lock.wait(timeout=min(0.1, deadline - now))

    def stop(self) -> None:
        """shutdown, exit, then SIGTERM and SIGKILL to the whole process group."""
        try:
            if self.proc.poll() is None and not self.closed:
                try:
                    self.request("shutdown", None, timeout=5)
                    self.notify("exit", None)
                except LspError:
                    pass
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
            for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
                if not group_alive(self.proc.pid):
                    break
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                end = time.monotonic() + grace
                while time.monotonic() < end and group_alive(self.proc.pid):
                    time.sleep(0.05)
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        finally:
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            self.log.close()


def group_alive(pgid: int) -> bool:
    """Whether any process of the group `pgid` is still alive (zombies do not count)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Memory of a process tree


def tree_rss_kib(root_pid: int) -> int:
    """Sum of VmRSS over `root_pid` and all its descendants."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        ppid = 0
        value = 0
        for line in status.splitlines():
            if line.startswith("PPid:"):
                ppid = int(line.split()[1])
            elif line.startswith("VmRSS:"):
                value = int(line.split()[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = value
    total = 0
    stack = [root_pid]
    seen = set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


class RssSampler(threading.Thread):
    def __init__(self, pid: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.peak_kib = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.peak_kib = max(self.peak_kib, tree_rss_kib(self.pid))
            self._stop_event.wait(self.interval)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


# ---------------------------------------------------------------------------------------------
# Project set-up


def server_command(server: str, override: str | None) -> list[str]:
    if server not in SERVERS:
        raise UsageError(f"unknown server {server!r}; one of {', '.join(SERVERS)}")
    if override:
        import shlex

        command = shlex.split(override)
        if not command:
            raise UsageError("--command is empty")
        return command
    command = list(SERVERS[server]["command"])
    found = shutil.which(command[0])
    if found is None:
        raise UsageError(f"{command[0]} is not on PATH; install it or pass --command")
    return [found, *command[1:]]


def write_compile_db(project: Path) -> None:
    template = project / "compile_commands.json.in"
    target = project / "compile_commands.json"
    if template.is_file() and not target.exists():
        text = template.read_text(encoding="utf-8")
        target.write_text(text.replace("@DIR@", str(project.resolve())), encoding="utf-8")


def copy_project(project: Path, into: Path) -> Path:
    if not project.is_dir():
        raise UsageError(f"project directory {project} does not exist")
    destination = into / project.resolve().name
    shutil.copytree(project, destination, ignore=COPY_IGNORE)
    write_compile_db(destination)
    return destination.resolve()


def start(server: str, command: list[str], root: Path, log: Path, link: bool) -> Client:
    client = Client(command, root, log)
    try:
        client.initialize(SERVERS[server]["init_options"], link_support=link)
    except LspError:
        client.stop()
        raise
    return client


# ---------------------------------------------------------------------------------------------
# Answers normalised to what the expectations talk about


def locations_of(root: Path, result: Any) -> list[tuple[str, int]]:
    if result is None:
        return []
    if isinstance(result, dict):
        result = [result]
    found = []
    for item in result:
        if "targetUri" in item:
            span = item.get("targetSelectionRange") or item["targetRange"]
            found.append((relative(root, item["targetUri"]), span["start"]["line"]))
        else:
            found.append((relative(root, item["uri"]), item["range"]["start"]["line"]))
    return found


def hover_text(result: Any) -> str:
    if not result:
        return ""
    contents = result.get("contents")

    def flatten(value: Any) -> str:
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return "\n".join(flatten(v) for v in value)
        if isinstance(value, dict):
            return str(value.get("value", ""))
        return ""

    return flatten(contents)


def symbol_rows(root: Path, result: Any) -> list[dict[str, Any]]:
    rows = []
    for item in result or []:
        location = item.get("location") or {}
        uri = location.get("uri")
        if not uri:
            continue
        line = location.get("range", {}).get("start", {}).get("line")
        rows.append(
            {
                "name": item.get("name"),
                "file_path": relative(root, uri),
                "line": line,
                "container": item.get("containerName"),
                "kind": item.get("kind"),
            }
        )
    return rows


# ---------------------------------------------------------------------------------------------
# verify


class Verifier:
    def __init__(self, server: str, client: Client, expected_lang: str) -> None:
        self.server = server
        self.client = client
        self.root = client.root
        self.language_ids = SERVERS[server]["language_id"]
        self.opened: set[str] = set()
        self.expected_lang = expected_lang

    def ensure_open(self, relpath: str) -> str:
        uri = path_to_uri(self.root / relpath)
        if relpath not in self.opened:
            self.client.open(relpath, self.language_ids)
            self.opened.add(relpath)
        return uri

    def resolve_symbol(self, symbol: str) -> tuple[str, dict[str, int]]:
        """A (file_path, position) for a name such as `add_numbers`, `Circle::area` or
        `Circle.area`, through workspace/symbol; the position is the name's first character."""
        parts = [p for p in re.split(r"::|\.", symbol) if p]
        if not parts:
            raise UsageError(f"empty symbol {symbol!r}")
        name, container = parts[-1], parts[-2] if len(parts) > 1 else None
        rows = symbol_rows(self.root, self.client.request("workspace/symbol", {"query": name}))
        # Some servers qualify names (gopls: `Circle.Area`, `util.AddNumbers`).
        rows = [
            r
            for r in rows
            if (r["name"] == name or (r["name"] or "").endswith(f".{name}"))
            and not os.path.isabs(r["file_path"])
        ]
        if container is not None:
            narrowed = [
                r
                for r in rows
                if container in re.findall(r"\w+", r["container"] or "")
                or r["name"] == f"{container}.{name}"
            ]
            if not narrowed:
                narrowed = [r for r in rows if self._inside(r, container)]
            rows = narrowed
        if not rows:
            raise LspError(f"workspace/symbol found no {symbol!r}")
        if len(rows) > 1:
            rows.sort(key=lambda r: (r["file_path"], r["line"]))
        row = rows[0]
        text = (self.root / row["file_path"]).read_text(encoding="utf-8").splitlines()
        for line_no in range(row["line"], len(text)):
            match = re.search(rf"\b{re.escape(name)}\b", text[line_no])
            if match:
                column = utf16_len(text[line_no][: match.start()])
                return row["file_path"], {"line": line_no, "character": column}
        raise LspError(f"{symbol!r}: the name is not in {row['file_path']} after its line")

    def _inside(self, row: dict[str, Any], container: str) -> bool:
        """Whether the symbol at `row` is a child of a document symbol named `container`."""
        uri = self.ensure_open(row["file_path"])
        symbols = self.client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})

        def walk(items: list[dict[str, Any]], parent: str | None) -> bool:
            for item in items or []:
                start = (item.get("selectionRange") or item.get("range") or {}).get("start", {})
                if item.get("name") == row["name"] and parent is not None:
                    if container in re.findall(r"\w+", parent) and (
                        item.get("range", {}).get("start", {}).get("line") == row["line"]
                        or start.get("line") == row["line"]
                    ):
                        return True
                if walk(item.get("children") or [], item.get("name")):
                    return True
            return False

        return walk(symbols or [], None)

    def position_of(self, args: dict[str, Any]) -> tuple[str, dict[str, int], str]:
        if "symbol" in args:
            file_path, position = self.resolve_symbol(args["symbol"])
        elif "file_path" in args and "position" in args:
            file_path, position = args["file_path"], args["position"]
            if not (self.root / file_path).is_file():
                raise UsageError(f"no file {file_path} in the project")
        else:
            raise UsageError("a position query needs `symbol` or `file_path` + `position`")
        uri = self.ensure_open(file_path)
        return file_path, position, uri

    def run(self, query: dict[str, Any]) -> dict[str, Any]:
        """The answer to one query, in the shape of `expect`."""
        tool = query.get("tool")
        args = query.get("args") or {}
        request = self.client.request
        if tool == "search_symbols":
            if "query" not in args:
                raise UsageError("search_symbols needs `query`")
            rows = symbol_rows(self.root, request("workspace/symbol", {"query": args["query"]}))
            return {"symbols": rows}
        if tool == "get_diagnostics":
            raise UsageError("get_diagnostics belongs in the `diagnostics` section")
        file_path, position, uri = self.position_of(args)
        doc = {"textDocument": {"uri": uri}, "position": position}
        answer: dict[str, Any] = {"_at": (file_path, position)}
        if tool == "find_definition":
            answer["locations"] = locations_of(self.root, request("textDocument/definition", doc))
        elif tool == "find_references":
            params = dict(doc, context={"includeDeclaration": args.get("include_declaration", True)})
            answer["locations"] = locations_of(self.root, request("textDocument/references", params))
        elif tool == "find_implementations":
            result = request("textDocument/implementation", doc)
            answer["locations"] = locations_of(self.root, result)
        elif tool == "find_type_definition":
            result = request("textDocument/typeDefinition", doc)
            answer["locations"] = locations_of(self.root, result)
        elif tool == "get_symbol_info":
            answer["hover"] = hover_text(request("textDocument/hover", doc))
        elif tool == "get_call_hierarchy":
            direction = args.get("direction", "both")
            if direction not in ("incoming", "outgoing", "both"):
                raise UsageError(f"direction {direction!r} is not incoming, outgoing or both")
            items = request("textDocument/prepareCallHierarchy", doc) or []
            answer["items"] = [i.get("name") for i in items]
            if direction in ("incoming", "both"):
                names = set()
                for item in items:
                    for call in request("callHierarchy/incomingCalls", {"item": item}) or []:
                        names.add(call["from"]["name"])
                answer["incoming"] = names
            if direction in ("outgoing", "both"):
                names = set()
                for item in items:
                    for call in request("callHierarchy/outgoingCalls", {"item": item}) or []:
                        names.add(call["to"]["name"])
                answer["outgoing"] = names
        else:
            raise UsageError(f"unknown tool {tool!r}")
        return answer

    def compare(self, expect: dict[str, Any], answer: dict[str, Any]) -> list[str]:
        problems = []
        for key, wanted in expect.items():
            if key == "locations":
                want = {(loc["file_path"], loc["line"]) for loc in wanted}
                got = set(answer.get("locations", []))
                if want != got:
                    problems.append(
                        f"locations: missing {sorted(want - got)}, unexpected {sorted(got - want)}"
                    )
            elif key in ("incoming", "outgoing"):
                want_names = set(wanted)
                got_names = answer.get(key)
                if got_names is None:
                    problems.append(f"{key}: not asked (direction)")
                elif want_names != got_names:
                    problems.append(f"{key}: expected {sorted(want_names)}, got {sorted(got_names)}")
            elif key == "hover_contains":
                if wanted not in answer.get("hover", ""):
                    problems.append(f"hover has no {wanted!r}: {answer.get('hover', '')!r}")
            elif key == "symbols":
                rows = answer.get("symbols", [])
                for sym in wanted:
                    if not any(
                        r["name"] == sym["name"]
                        and r["file_path"] == sym["file_path"]
                        and r["line"] == sym["line"]
                        for r in rows
                    ):
                        short = [(r["name"], r["file_path"], r["line"]) for r in rows]
                        problems.append(f"symbol {sym} not among {short}")
            else:
                problems.append(f"unknown expect key {key!r}")
        return problems

    def check_text_extra(self, query: dict[str, Any], answer: dict[str, Any]) -> list[str]:
        """Each `text_extra` entry is a true reference the server missed: its line must
        contain the queried name, and the server must indeed not have returned it. Each
        `server_extra` entry (returned but not a true answer) must indeed be returned."""
        problems: list[str] = []
        extra = query.get("text_extra") or []
        if not extra and not query.get("server_extra"):
            return problems
        args = query.get("args") or {}
        if "symbol" in args:
            name = re.split(r"::|\.", args["symbol"])[-1]
        else:
            file_path, position = answer["_at"]
            text = (self.root / file_path).read_text(encoding="utf-8")
            name = word_at(text, position["line"], position["character"])
        got = set(answer.get("locations", []))
        for entry in query.get("server_extra") or []:
            if (entry["file_path"], entry["line"]) not in got:
                problems.append(f"server_extra {entry} was not returned by the server")
        for entry in extra:
            path = self.root / entry["file_path"]
            lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
            line = entry["line"]
            if line >= len(lines) or not re.search(rf"\b{re.escape(name)}\b", lines[line]):
                problems.append(f"text_extra {entry} does not contain {name!r}")
            if (entry["file_path"], line) in got:
                problems.append(f"text_extra {entry} was returned by the server after all")
        return problems


def load_expected(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read expectations {path}: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("queries"), list):
        raise UsageError(f"{path}: expected an object with a `queries` list")
    for index, query in enumerate(data["queries"]):
        for key in ("name", "tool", "args", "expect"):
            if key not in query:
                raise UsageError(f"{path}: query {index} has no {key!r}")
    return data


def wait_ready(client: Client, verifier: Verifier, probe: dict[str, Any], timeout: float) -> float:
    """Poll the first definition query until it answers non-empty, then wait for idle."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if verifier.run(probe).get("locations"):
                break
        except LspError:
            if client.closed:
                raise
        if time.monotonic() >= deadline:
            raise LspError(f"no definition answer within {timeout:.0f} s")
        time.sleep(0.1)
    ready = time.monotonic() - client.spawned_at
    client.wait_idle(timeout=max(1.0, deadline - time.monotonic()))
    return ready


def verify(args: argparse.Namespace) -> int:
    expected = load_expected(Path(args.expected))
    if expected.get("language") not in (None, args.server):
        raise UsageError(f"expectations are for {expected.get('language')}, not {args.server}")
    command = server_command(args.server, args.command)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="lsp_bare-") as scratch:
        scratch_dir = Path(scratch)
        root = copy_project(Path(args.project), scratch_dir / "queries")
        log = scratch_dir / "server-queries.log"
        client = start(args.server, command, root, log, link=not args.no_link_support)
        try:
            verifier = Verifier(args.server, client, expected.get("language", args.server))
            queries = expected["queries"]
            probe = next(
                (
                    q
                    for q in queries
                    if q["tool"] == "find_definition" and "position" in (q.get("args") or {})
                ),
                None,
            )
            # Files are opened once the server is idle after initialize (rust-analyzer: once
            # quiescent). rust-analyzer has been seen to answer ContentModified for minutes
            # about a file opened while it was still loading the workspace.
            client.wait_idle(timeout=args.timeout)
            for query in queries:
                file_path = (query.get("args") or {}).get("file_path")
                if file_path and (root / file_path).is_file():
                    verifier.ensure_open(file_path)
            if probe is not None:
                ready = wait_ready(client, verifier, probe, args.timeout)
                print(f"ready after {ready:.2f} s (first definition answer, then idle)")
            else:
                client.wait_idle(timeout=args.timeout)
            for query in queries:
                failures += run_one(verifier, query, args.retry)
            failures += check_clean(client, verifier)
        except LspError as error:
            print(f"FAIL server: {error}")
            print_log_tail(log)
            return 2
        finally:
            client.stop()
        if "diagnostics" in expected:
            failures += verify_diagnostics(args, command, expected["diagnostics"], scratch_dir)
    total = len(expected["queries"]) + ("diagnostics" in expected) + 1
    print(f"{total - failures}/{total} checks passed" + ("" if failures else " - all good"))
    return 1 if failures else 0


def run_one(verifier: Verifier, query: dict[str, Any], retry: float) -> int:
    """Run one query, retrying a mismatch for up to `retry` seconds (late indexing), and a
    request the server dropped because its state changed (ContentModified) for up to 60 s."""
    started = time.monotonic()
    while True:
        retryable = False
        try:
            answer = verifier.run(query)
            problems = verifier.compare(query["expect"], answer)
        except LspError as error:
            answer, problems = {}, [str(error)]
            retryable = error.code in RETRYABLE_CODES
        elapsed = time.monotonic() - started
        if not problems or elapsed >= (60.0 if retryable else retry):
            break
        time.sleep(0.25)
    if not problems and (query.get("text_extra") or query.get("server_extra")):
        problems = verifier.check_text_extra(query, answer)
    if problems:
        print(f"FAIL {query['name']} ({query['tool']})")
        for problem in problems:
            print(f"     {problem}")
        return 1
    print(f"ok   {query['name']}")
    return 0


def check_clean(client: Client, verifier: Verifier) -> int:
    """The pristine project has no error diagnostics in the files that were opened."""
    client.wait_idle(timeout=10)
    with client.state_lock:
        errors = [
            (relative(verifier.root, uri), d["range"]["start"]["line"], d.get("message"))
            for uri, diags in client.diagnostics.items()
            for d in diags
            if d.get("severity", 1) == 1
        ]
    if errors:
        print(f"FAIL pristine project has error diagnostics: {errors}")
        return 1
    print("ok   pristine project: no error diagnostics in the opened files")
    return 0


def verify_diagnostics(
    args: argparse.Namespace, command: list[str], section: dict[str, Any], scratch: Path
) -> int:
    broken = section.get("broken_file") or {}
    if "file_path" not in broken or "content" not in broken:
        raise UsageError("diagnostics.broken_file needs file_path and content")
    expect = section.get("expect") or []
    root = copy_project(Path(args.project), scratch / "diagnostics")
    target = root / broken["file_path"]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(broken["content"], encoding="utf-8")
    log = scratch / "server-diagnostics.log"
    client = start(args.server, command, root, log, link=not args.no_link_support)
    want = {(e["file_path"], e["line"], e["severity"]) for e in expect}
    got: set[tuple[str, int, str]] = set()
    try:
        # Open only once the server is idle: rust-analyzer publishes empty diagnostics for a
        # file opened before its crate graph is built, and does not always publish again.
        client.wait_idle(timeout=args.timeout)
        language_ids = SERVERS[args.server]["language_id"]
        for relpath in sorted({broken["file_path"], *(e["file_path"] for e in expect)}):
            client.open(relpath, language_ids)
        deadline = time.monotonic() + args.timeout
        with client.state_lock:
            while True:
                got = {
                    (relative(root, uri), d["range"]["start"]["line"], SEVERITIES[d.get("severity", 1)])
                    for uri, diags in client.diagnostics.items()
                    for d in diags
                }
                errors_got = {g for g in got if g[2] == "error"}
                errors_want = {w for w in want if w[2] == "error"}
                if want <= got and errors_got == errors_want:
                    break
                if time.monotonic() >= deadline or client.closed:
                    break
                client.state_lock.wait(timeout=0.2)
            messages = [
                (relative(root, uri), d["range"]["start"]["line"], d.get("message"))
                for uri, diags in client.diagnostics.items()
                for d in diags
            ]
    finally:
        client.stop()
    errors_got = {g for g in got if g[2] == "error"}
    errors_want = {w for w in want if w[2] == "error"}
    if want <= got and errors_got == errors_want:
        print(f"ok   diagnostics of {broken['file_path']}: {sorted(want)}")
        return 0
    print(f"FAIL diagnostics of {broken['file_path']}")
    print(f"     expected {sorted(want)} (and no other errors), got {sorted(got)}")
    print(f"     messages: {messages}")
    print_log_tail(log)
    return 1


def print_log_tail(log: Path) -> None:
    try:
        tail = log.read_text(errors="replace").splitlines()[-15:]
    except OSError:
        return
    if tail:
        print("     server stderr (last lines):")
        for line in tail:
            print(f"       {line}")


# ---------------------------------------------------------------------------------------------
# bench


def bench(args: argparse.Namespace) -> int:
    command = server_command(args.server, args.command)
    project = Path(args.project).resolve()
    if not project.is_dir():
        raise UsageError(f"project directory {project} does not exist")
    if not (project / args.file).is_file():
        raise UsageError(f"no file {args.file} in {project}")
    if args.runs < 1:
        raise UsageError("--runs must be at least 1")
    write_compile_db(project)
    with tempfile.TemporaryDirectory(prefix="lsp_bare-bench-") as scratch:
        log = Path(scratch) / "server.log"
        client = Client(command, project, log)
        sampler = RssSampler(client.proc.pid)
        sampler.start()
        try:
            client.initialize(SERVERS[args.server]["init_options"], link_support=True)
            uri = client.open(args.file, SERVERS[args.server]["language_id"])
            doc = {
                "textDocument": {"uri": uri},
                "position": {"line": args.line, "character": args.character},
            }
            deadline = time.monotonic() + args.timeout
            while True:
                try:
                    if client.request("textDocument/definition", doc, timeout=args.timeout):
                        break
                except LspError:
                    if client.closed:
                        raise
                if time.monotonic() >= deadline:
                    raise LspError(f"no definition answer within {args.timeout:.0f} s")
                time.sleep(0.1)
            cold = time.monotonic() - client.spawned_at
            client.wait_idle(timeout=max(1.0, deadline - time.monotonic()))
            idle = time.monotonic() - client.spawned_at
            definition_ms = timed(client, "textDocument/definition", doc, args.runs)
            refs = dict(doc, context={"includeDeclaration": True})
            references_ms = timed(client, "textDocument/references", refs, args.runs)
        except LspError as error:
            print(f"bench failed: {error}", file=sys.stderr)
            print_log_tail(log)
            return 2
        finally:
            client.stop()
            sampler.stop()
    report = {
        "server": args.server,
        "command": command,
        "cold_first_correct_s": round(cold, 3),
        "idle_s": round(idle, 3),
        "warm_definition_ms_p50": round(statistics.median(definition_ms), 2),
        "warm_references_ms_p50": round(statistics.median(references_ms), 2),
        "runs": args.runs,
        "peak_rss_mib": round(sampler.peak_kib / 1024, 1),
    }
    print(json.dumps(report))
    return 0


def timed(client: Client, method: str, params: Any, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        client.request(method, params)
        times.append((time.perf_counter() - started) * 1000)
    return times


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--server", required=True, choices=sorted(SERVERS))
        p.add_argument("--project", required=True)
        p.add_argument("--command", help="server command line, instead of the one on PATH")
        p.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for readiness")

    v = sub.add_parser("verify", help="check an expectations file against the real server")
    common(v)
    v.add_argument("--expected", required=True)
    v.add_argument("--retry", type=float, default=5.0, help="seconds to retry a mismatch")
    v.add_argument(
        "--no-link-support",
        action="store_true",
        help="do not advertise LocationLink support (servers then answer with Location)",
    )
    b = sub.add_parser("bench", help="cold start, warm latency and peak RSS of one server")
    common(b)
    b.add_argument("--file", required=True)
    b.add_argument("--line", type=int, required=True)
    b.add_argument("--character", type=int, required=True)
    b.add_argument("--runs", type=int, default=20)
    args = parser.parse_args(argv)
    try:
        return verify(args) if args.mode == "verify" else bench(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except LspError as error:
        print(f"error: the server could not be driven: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
