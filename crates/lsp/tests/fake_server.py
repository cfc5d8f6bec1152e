#!/usr/bin/env python3
"""A stand-in language server for the pool's and client's own behaviour: cancellation
ignored or honoured, crashes, progress, server-to-client requests. Its mode is its first
argument:

  ignore-cancel  never answers textDocument/definition, and ignores $/cancelRequest
  honor-cancel   never answers textDocument/definition until cancelled, then says so
  normal         answers definition with a location built from its configuration
  content-modified  drops the first four definition requests with "content modified"
                 (ending its indexing at the first, as rust-analyzer does once its
                 workspace has loaded), then answers like normal
  always-modified   drops every definition request with "content modified"
  symbols        answers workspace/symbol from a fixed list of symbols named `cut` (a
                 function in src/budget.rs and in src/other.rs, a method and a field of
                 Budget in src/types.rs), by substring of the query
  late-symbols   like symbols, but answers workspace/symbol with nothing for its first
                 1.5 s and reports no indexing at all (pyright finding a project's files)
  late-files     reports no indexing; answers references with the declaration alone for
                 its first 1.5 s, then logs "Found 3 source files" (as pyright does once it
                 has enumerated the workspace) and answers with all three
  rename-new-uri answers workspace/willRenameFiles with an edit addressed to the file's new
                 name (as basedpyright was seen to)
  slow-start     like normal, but takes 3 s to answer initialize when its root's name is `slow`
  fail-then-slow counts its starts in the root's `starts` file; the first exits after a
                 second, the others answer initialize after a second and a half
  noisy-crash    prints a Node-like stack trace to stderr and exits when asked to initialize
  stuck-start    never answers initialize (a cold server on a machine too busy to start it)

textDocument/hover makes it exit at once (a crash). On start it opens a progress token
("Indexing"), and ends it when asked for references or sent `fake/endIndexing`. It exits when its input ends.
"""
import json
import os
import sys
import threading
import time

started = time.monotonic()

mode = sys.argv[1] if len(sys.argv) > 1 else "normal"
if mode == "--version":
    print("fake-lsp 1.0")
    sys.exit(0)

out = sys.stdout.buffer
inp = sys.stdin.buffer
next_id = [1000]
pending = {}  # our request id -> what it was for
config_value = [None]
waiting_definition = []
dropped = [0]
root_uri = [None]

# (name, LSP SymbolKind, container, file, line, character) for the symbols mode.
SYMBOLS = [
    ("cut", 8, "Budget", "src/types.rs", 1, 4),  # field
    ("cut", 6, "Budget", "src/types.rs", 4, 7),  # method
    ("cut", 12, None, "src/other.rs", 0, 7),  # function
    ("cut", 12, None, "src/budget.rs", 2, 7),  # function
]


sending = threading.Lock()


def send(msg):
    body = json.dumps(msg).encode()
    with sending:
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()


def request(method, params):
    next_id[0] += 1
    pending[next_id[0]] = method
    send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})


def read():
    length = None
    while True:
        line = inp.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            if length is not None:
                break
            continue
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(inp.read(length))


while True:
    msg = read()
    if msg is None:
        sys.exit(0)
    method = msg.get("method")
    if method is None:
        # An answer to one of our requests.
        if pending.pop(msg.get("id"), None) == "workspace/configuration":
            config_value[0] = (msg.get("result") or [None])[0]
        continue
    mid = msg.get("id")
    if method == "initialize":
        root_uri[0] = msg["params"].get("rootUri")
        if mode == "noisy-crash":
            sys.stderr.write("Error: Cannot find module 'typescript'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1145:15)\n")
            sys.stderr.flush()
            os._exit(1)
        if mode == "stuck-start":
            while True:
                time.sleep(3600)
        if mode == "fail-then-slow":
            # Each start is counted in the root; the first fails after a second, the others
            # answer after a second and a half.
            root = (root_uri[0] or "").removeprefix("file://")
            with open(os.path.join(root, "starts"), "a") as f:
                f.write("start\n")
            with open(os.path.join(root, "starts")) as f:
                first = len(f.readlines()) == 1
            time.sleep(1.0 if first else 1.5)
            if first:
                os._exit(1)
        if mode == "slow-start" and (root_uri[0] or "").rstrip("/").endswith("/slow"):
            time.sleep(3)
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "capabilities": {"definitionProvider": True, "referencesProvider": True, "hoverProvider": True,
                             "workspaceSymbolProvider": mode in ("symbols", "late-symbols"),
                             "workspace": {"fileOperations": {"willRename": {"filters": [{"pattern": {"glob": "**/*"}}]}}} if mode == "rename-new-uri" else {}},
            "serverInfo": {"name": "fake", "version": "1.0"}}})
    elif method == "initialized":
        if mode == "late-files":
            def found():
                time.sleep(max(0.0, 1.5 - (time.monotonic() - started)))
                send({"jsonrpc": "2.0", "method": "window/logMessage",
                      "params": {"type": 3, "message": "Found 3 source files"}})
            threading.Thread(target=found, daemon=True).start()
        elif mode != "late-symbols":
            request("window/workDoneProgress/create", {"token": "idx"})
            send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "begin", "title": "Indexing"}}})
        request("workspace/configuration", {"items": [{"section": "fake.answer"}]})
    elif method == "textDocument/definition":
        if mode in ("content-modified", "always-modified") and (mode == "always-modified" or dropped[0] < 4):
            dropped[0] += 1
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32801, "message": "content modified"}})
            if dropped[0] == 1:
                send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "end"}}})
        elif mode in ("normal", "content-modified", "slow-start"):
            send({"jsonrpc": "2.0", "id": mid, "result": {
                "uri": "file:///configured/" + str(config_value[0]),
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}})
        else:
            waiting_definition.append(mid)
    elif method == "workspace/symbol" and mode == "late-symbols" and time.monotonic() - started < 1.5:
        send({"jsonrpc": "2.0", "id": mid, "result": []})
    elif method == "workspace/symbol" and mode in ("symbols", "late-symbols"):
        query = msg["params"]["query"]
        send({"jsonrpc": "2.0", "id": mid, "result": [
            {"name": name, "kind": kind, "containerName": container,
             "location": {"uri": root_uri[0] + "/" + path,
                          "range": {"start": {"line": line, "character": ch},
                                    "end": {"line": line, "character": ch + len(name)}}}}
            for (name, kind, container, path, line, ch) in SYMBOLS if query and query in name]})
    elif method == "$/cancelRequest":
        cancelled = msg["params"]["id"]
        if mode == "honor-cancel" and cancelled in waiting_definition:
            waiting_definition.remove(cancelled)
            send({"jsonrpc": "2.0", "id": cancelled, "error": {"code": -32800, "message": "cancelled"}})
    elif method == "fake/endIndexing":
        send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "end"}}})
    elif method == "textDocument/references" and mode == "late-files":
        uri = msg["params"]["textDocument"]["uri"]
        files = [uri] if time.monotonic() - started < 1.5 else [uri, root_uri[0] + "/a.go", root_uri[0] + "/b.go"]
        send({"jsonrpc": "2.0", "id": mid, "result": [
            {"uri": f, "range": {"start": {"line": 2, "character": 5}, "end": {"line": 2, "character": 9}}}
            for f in files]})
    elif method == "textDocument/references":
        send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "end"}}})
        send({"jsonrpc": "2.0", "id": mid, "result": []})
    elif method == "workspace/willRenameFiles" and mode == "rename-new-uri":
        new_uri = msg["params"]["files"][0]["newUri"]
        send({"jsonrpc": "2.0", "id": mid, "result": {"changes": {new_uri: [
            {"range": {"start": {"line": 0, "character": 8}, "end": {"line": 0, "character": 12}}, "newText": "app"}]}}})
    elif method == "textDocument/hover":
        os._exit(3)
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": mid, "result": None})
    elif method == "exit":
        sys.exit(0)
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + method}})
