#!/usr/bin/env python3
"""Make the normalised reference outputs in tests/analysis/reference/<name>-<version>/.

Run by generate.sh (which installs the pinned tools and says how); not run in CI.  Needs, in
the running interpreter: lizard, radon, interrogate, grimp; on PATH or given: ruff, cargo,
go, gcc; --npm-tools DIR with node_modules/.bin/{madge,tsc}.

    python generate_refs.py --corpus DIR --npm-tools DIR [--only ID ...] [--kinds K ...]

Every path in a reference is relative to the project root, '/' separated; lines and columns
are 1-based as the tools print them.  Lists are sorted and written one item a line.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import plant  # noqa: E402

REF = HERE / "reference"
KINDS = ["complexity", "mi", "unused", "cycles", "docs"]


# ---------------------------------------------------------------- output helpers
def dump_list(path: pathlib.Path, items: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not items:
        path.write_text("[]\n")
        return
    path.write_text("[\n" + ",\n".join(json.dumps(i, sort_keys=True, ensure_ascii=False) for i in items) + "\n]\n")


def dump_obj(path: pathlib.Path, obj: dict) -> None:
    """A dict, one top-level key a line (values compact)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not obj:
        path.write_text("{}\n")
        return
    lines = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}" for k, v in obj.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def rel(root: pathlib.Path, p: str | pathlib.Path) -> str:
    p = pathlib.Path(p)
    if not p.is_absolute():
        p = (root / p)
    return p.resolve().relative_to(root.resolve()).as_posix()


def run(cmd, cwd=None, env=None, check=False) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{cmd} -> {r.returncode}\n{r.stderr[-3000:]}")
    return r


# ---------------------------------------------------------------- complexity (lizard)
def complexity(p: dict, root: pathlib.Path) -> list[dict]:
    import lizard

    rows = []
    files = plant.included_files(p, root)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        for f in files:
            info = lizard.analyze_file(f)  # default extensions, as `lizard` without -E
            for fn in info.function_list:
                rows.append({
                    "file": f, "name": fn.name, "long_name": fn.long_name,
                    "start": fn.start_line, "end": fn.end_line,
                    "ccn": fn.cyclomatic_complexity, "params": fn.parameter_count, "nloc": fn.nloc,
                })
    finally:
        os.chdir(cwd)
    rows.sort(key=lambda r: (r["file"], r["start"], r["end"], r["name"], r["long_name"]))
    return rows


# ---------------------------------------------------------------- maintainability index (radon)
def mi(p: dict, root: pathlib.Path, bindir: pathlib.Path) -> dict:
    files = plant.included_files(p, root)
    r = run([str(bindir / "radon"), "mi", "-j", "-s", *files], cwd=root, check=True)
    data = json.loads(r.stdout)
    out = {}
    for f in sorted(data):
        v = data[f]
        if "error" in v:
            out[rel(root, f)] = {"error": v["error"]}
        else:
            out[rel(root, f)] = v["mi"]
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- unused
def unused_python(p, root, bindir) -> list[dict]:
    files = plant.included_files(p, root)
    r = run([str(bindir / "ruff"), "check", "--isolated", "--select", "F401,F841",
             "--output-format", "json", "--no-cache", *files], cwd=root)
    out = []
    for d in json.loads(r.stdout or "[]"):
        m = re.search(r"`([^`]+)`", d["message"])
        out.append({"file": rel(root, d["filename"]), "line": d["location"]["row"], "col": d["location"]["column"],
                    "code": d["code"], "name": m.group(1) if m else None, "message": d["message"]})
    return sorted(out, key=lambda x: (x["file"], x["line"], x["col"], x["code"]))


TS_UNUSED = {6133, 6192, 6196, 6198, 6138, 6199, 6205}
TSC_LINE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): (?P<sev>error|warning) TS(?P<code>\d+): (?P<msg>.*)$")


def tsc(p, root, npm_tools, files) -> tuple[list[dict], list[dict]]:
    """Returns (unused diagnostics, other diagnostics) of one tsc run on the project's files."""
    args = [str(npm_tools / "node_modules/.bin/tsc"), "--noEmit", "--noUnusedLocals", "--noUnusedParameters",
            "--pretty", "false", "--skipLibCheck", "--target", "es2020", "--moduleResolution", "node10",
            "--module", "esnext", "--strict"]
    if p["language"] == "javascript":
        args += ["--allowJs", "--checkJs", "--module", "commonjs"]
    r = run(args + files, cwd=root)
    unused, other = [], []
    for line in r.stdout.splitlines():
        if line.startswith("error TS"):
            raise RuntimeError(f"tsc: {line}")
        m = TSC_LINE.match(line)
        if not m:
            continue
        code = int(m["code"])
        msg = m["msg"]
        names = re.findall(r"'([^']+)'", msg)
        item = {"file": rel(root, m["file"]), "line": int(m["line"]), "col": int(m["col"]),
                "code": code, "name": names[0] if names else None, "message": msg}
        (unused if code in TS_UNUSED else other).append(item)
    key = lambda x: (x["file"], x["line"], x["col"], x["code"])
    return sorted(unused, key=key), sorted(other, key=key)


RUSTFLAGS_UNUSED = "--force-warn unused_imports --force-warn dead_code --force-warn unused_variables"


def cargo_check(root: pathlib.Path, rustflags: str, lints: set[str]) -> list[dict]:
    target = pathlib.Path(tempfile.gettempdir()) / "resolve-pr-refs-target" / root.parent.name
    env = dict(os.environ, RUSTFLAGS=rustflags, CARGO_TARGET_DIR=str(target), CARGO_TERM_COLOR="never")
    # touch so cargo re-runs rustc on the crate (warnings are cached, but be explicit)
    r = run(["cargo", "check", "--message-format=json", "--lib", "--all-features", "--offline"], cwd=root, env=env)
    if r.returncode != 0 and "offline" in r.stderr:
        r = run(["cargo", "check", "--message-format=json", "--lib", "--all-features"], cwd=root, env=env)
    out = []
    for line in r.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") != "compiler-message":
            continue
        if pathlib.Path(m["manifest_path"]).resolve() != (root / "Cargo.toml").resolve():
            continue
        if not set(m["target"]["kind"]) & {"lib", "rlib", "proc-macro"}:
            continue  # the build script is a crate of its own
        d = m["message"]
        code = (d.get("code") or {}).get("code")
        if code not in lints:
            continue
        prim = [s for s in d["spans"] if s["is_primary"]]
        for s in prim[:1]:
            fp = pathlib.Path(s["file_name"])
            if fp.is_absolute():
                try:
                    f = rel(root, fp)
                except ValueError:
                    continue
            else:
                f = fp.as_posix()
            if f.startswith("..") or not (root / f).exists():
                continue
            names = re.findall(r"`([^`]+)`", d["message"])
            out.append({"file": f, "line": s["line_start"], "col": s["column_start"], "code": code,
                        "name": names[0] if names else None, "message": d["message"]})
    if r.returncode != 0 and not out:
        raise RuntimeError(f"cargo check failed in {root}:\n{r.stderr[-3000:]}")
    # one item per (file, line, col, code, name): rustc reports each once already
    uniq = {(o["file"], o["line"], o["col"], o["code"], o["name"]): o for o in out}
    return [uniq[k] for k in sorted(uniq)]


def unused_rust(p, root) -> list[dict]:
    return cargo_check(root, RUSTFLAGS_UNUSED, {"unused_imports", "dead_code", "unused_variables"})


GO_ERR = re.compile(r"^(?:vet: )?(?P<file>[^:\s]+\.go):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$")


def unused_go(p, root, gopath_tmp: pathlib.Path) -> tuple[list[dict], dict]:
    """`go build -gcflags=-e` and `go vet` on the pinned packages, run against a copy of GOROOT
    (src copied, bin and pkg linked) into which the project's files are written, one package at
    a time: a package that fails to compile would otherwise stop every package importing it
    from being checked.  (`-overlay` is not enough: go1.19's vet reads the files from disk.)"""
    real_goroot = pathlib.Path(run(["go", "env", "GOROOT"], check=True).stdout.strip()).resolve()
    goroot = gopath_tmp / "goroot"
    if not goroot.exists():
        goroot.mkdir()
        for entry in real_goroot.iterdir():
            if entry.name != "src":
                (goroot / entry.name).symlink_to(entry.resolve())
        shutil.copytree((real_goroot / "src").resolve(), goroot / "src", symlinks=True)
    env = dict(os.environ, GOROOT=str(goroot), GOFLAGS="", GOCACHE=str(gopath_tmp / "gocache"),
               CGO_ENABLED="0", GO111MODULE="")
    raw = {}
    out = []
    files = plant.included_files(p, root)
    for pkg in p["packages"]:
        for f in files:  # every pinned file back to the project's pristine copy ...
            shutil.copyfile((real_goroot / "src" / f), goroot / "src" / f)
        for f in files:  # ... then this package's files from the tree under test
            if f.rsplit("/", 1)[0] == pkg:
                shutil.copyfile(root / f, goroot / "src" / f)
        for tool, cmd in (("build", ["go", "build", "-gcflags=-e", pkg]),
                          ("vet", ["go", "vet", pkg])):
            r = run(cmd, cwd=gopath_tmp, env=env)
            raw[f"{tool} {pkg}"] = {"exit": r.returncode}
            for line in (r.stderr + r.stdout).splitlines():
                m = GO_ERR.match(line.strip())
                if not m:
                    continue
                fp = pathlib.Path(m["file"])
                if not fp.is_absolute():
                    fp = (goroot / "src" / pkg / fp) if not (gopath_tmp / fp).exists() else (gopath_tmp / fp)
                try:
                    f = fp.resolve().relative_to((goroot / "src").resolve()).as_posix()
                except ValueError:
                    continue
                msg = m["msg"]
                code = ("unused_import" if "imported and not used" in msg else
                        "unused_variable" if "declared but not used" in msg or "declared and not used" in msg else
                        "other")
                nm = re.search(r" as (\w+)$", msg) or re.search(r"^(\w+) declared", msg) \
                    or re.search(r'"([^"]+)"', msg)
                out.append({"file": f, "line": int(m["line"]), "col": int(m["col"]), "code": code,
                            "name": nm.group(1) if nm else None, "message": msg, "tool": tool})
    for f in files:
        shutil.copyfile((real_goroot / "src" / f), goroot / "src" / f)
    uniq = {(o["file"], o["line"], o["col"], o["code"], o["tool"]): o for o in out}
    return [uniq[k] for k in sorted(uniq)], raw


C_WARN = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): warning: (?P<msg>.*) \[(?P<flag>-W[^\]]+)\]$")


def unused_c(p, root) -> list[dict]:
    import sysconfig
    inc = sysconfig.get_paths()["include"]
    out = []
    for f in plant.included_files(p, root):
        r = run(["gcc", "-c", "-o", os.devnull, f"-I{inc}", "-Wunused", "-Wunused-parameter", f], cwd=root)
        for line in r.stderr.splitlines():
            m = C_WARN.match(line)
            if not m or "unused" not in m["flag"]:
                continue
            nm = re.search(r"[‘'`]([^’'`]+)[’'`]", m["msg"])
            out.append({"file": rel(root, m["file"]), "line": int(m["line"]), "col": int(m["col"]),
                        "code": m["flag"].lstrip("-W"), "name": nm.group(1) if nm else None, "message": m["msg"]})
    return sorted(out, key=lambda x: (x["file"], x["line"], x["col"], x["code"]))


# ---------------------------------------------------------------- cycles
def tarjan(graph: dict[str, list[str]]) -> list[list[str]]:
    index, low, on, stack, sccs = {}, {}, set(), [], []
    counter = [0]
    nodes = sorted(set(graph) | {w for ws in graph.values() for w in ws})
    sys.setrecursionlimit(100000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, [])):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) >= 2:
                sccs.append(sorted(comp))

    for v in nodes:
        if v not in index:
            strong(v)
    return sorted(sccs)


def cycles_js(p, root, npm_tools) -> dict:
    madge = str(npm_tools / "node_modules/.bin/madge")
    base = "src" if p["language"] == "typescript" else "."
    ext = "ts" if p["language"] == "typescript" else "js"
    common = ["--extensions", ext, "--no-spinner", "--no-color"]
    g = json.loads(run([madge, "--json", *common, base], cwd=root, check=True).stdout)
    c = json.loads(run([madge, "--circular", "--json", *common, base], cwd=root).stdout or "[]")
    prefix = "" if base == "." else base + "/"
    graph = {prefix + k: sorted(prefix + w for w in v) for k, v in g.items()}
    return {
        "tool": "madge 8.0.0",
        "command": f"madge --json {' '.join(common)} {base}",
        "graph": dict(sorted(graph.items())),
        "sccs": tarjan(graph),
        "madge_circular": [[prefix + x for x in cyc] for cyc in c],
    }


GRIMP_SCRIPT = r"""
import importlib.util, json, sys
sys.path.insert(0, sys.argv[1])
spec = importlib.util.find_spec(sys.argv[2])
assert spec.origin.startswith(sys.argv[1]), ("found elsewhere", spec.origin)
import grimp
g = grimp.build_graph(sys.argv[2], include_external_packages=False, cache_dir=None)
g2 = grimp.build_graph(sys.argv[2], include_external_packages=False, cache_dir=None,
                       exclude_type_checking_imports=True)
print(json.dumps({"version": getattr(grimp, "__version__", ""),
                  "graph": {m: sorted(g.find_modules_directly_imported_by(m)) for m in sorted(g.modules)},
                  "graph_no_tc": {m: sorted(g2.find_modules_directly_imported_by(m)) for m in sorted(g2.modules)}}))
"""


def cycles_python(p, root) -> dict:
    """grimp's import graph of the package, in a fresh interpreter (so that no installed copy of
    the same package, e.g. click pulled in by interrogate, can be picked up instead)."""
    pkg_dir = (root / p["package_dir"]).resolve()
    r = run([sys.executable, "-c", GRIMP_SCRIPT, str(pkg_dir.parent), p["package"]], cwd=pkg_dir.parent, check=True)
    data = json.loads(r.stdout)

    def mod_file(mod: str) -> str:
        base = pkg_dir.parent.joinpath(*mod.split("."))
        if (base / "__init__.py").exists():
            return rel(root, base / "__init__.py")
        return rel(root, base.with_suffix(".py"))

    graph = {mod_file(m): sorted(mod_file(x) for x in deps) for m, deps in data["graph"].items()}
    graph = dict(sorted(graph.items()))
    graph_no_tc = {mod_file(m): sorted(mod_file(x) for x in deps) for m, deps in data["graph_no_tc"].items()}
    graph_no_tc = dict(sorted(graph_no_tc.items()))
    return {
        "tool": f"grimp {data['version']}".strip(),
        "command": f"grimp.build_graph({p['package']!r}, include_external_packages=False, cache_dir=None)",
        "modules": {mod_file(m): m for m in sorted(data["graph"])},
        "graph": graph,
        "sccs": tarjan(graph),
        "without_type_checking_imports": {"graph": graph_no_tc, "sccs": tarjan(graph_no_tc)},
    }


# ---------------------------------------------------------------- docs
def docs_python(p, root) -> dict:
    from interrogate import config, coverage

    files = [f for f in plant.included_files(p, root)]
    conf = config.InterrogateConfig()  # the defaults of the `interrogate` command
    cov = coverage.InterrogateCoverage(paths=[str(root / f) for f in files], conf=conf)
    results = cov.get_coverage()
    out = {}
    for fr in sorted(results.file_results, key=lambda x: x.filename):
        f = rel(root, fr.filename)
        out[f] = {"total": fr.total, "covered": fr.covered, "missing": fr.missing,
                  "missing_items": sorted([{"line": n.lineno, "kind": n.node_type, "name": n.name,
                                            "path": n.path.split(":", 1)[1] if ":" in n.path else n.path}
                                           for n in fr.nodes if not n.covered],
                                          key=lambda x: (x["line"] or 0, x["name"]))}
    summary = {"total": results.total, "covered": results.covered, "missing": results.missing,
               "perc_covered": round(results.perc_covered, 4)}
    return {"summary": summary, "files": dict(sorted(out.items()))}


def docs_rust(p, root) -> list[dict]:
    items = cargo_check(root, "--force-warn missing_docs", {"missing_docs"})
    return [{"file": i["file"], "line": i["line"], "col": i["col"], "message": i["message"]} for i in items]


# ---------------------------------------------------------------- driver
def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--npm-tools", required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--kinds", nargs="*", default=KINDS)
    args = ap.parse_args()
    corpus = pathlib.Path(args.corpus).resolve()
    npm_tools = pathlib.Path(args.npm_tools).resolve()
    bindir = pathlib.Path(sys.executable).parent
    projects = json.loads((HERE / "corpus.json").read_text())["projects"]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="resolve-pr-refs-"))
    for p in projects:
        pid = f"{p['name']}-{p['version']}"
        if args.only and pid not in args.only:
            continue
        root = corpus / pid / p["root"]
        proot = corpus / f"{pid}-planted" / p["root"]
        out = REF / pid
        lang = p["language"]
        print(f"== {pid}", flush=True)
        if "complexity" in args.kinds:
            dump_list(out / "complexity.json", complexity(p, root))
        if "mi" in args.kinds and lang == "python":
            dump_obj(out / "mi.json", mi(p, root, bindir))
        if "unused" in args.kinds:
            shutil.copyfile(corpus / f"{pid}-planted" / ".planted.json", out / "planted.json")
            for tree, name in ((proot, "unused.json"), (root, "unused.pristine.json")):
                if lang == "python":
                    dump_list(out / name, unused_python(p, tree, bindir))
                elif lang in ("typescript", "javascript"):
                    files = [f for f in plant.included_files(p, tree)]
                    u, other = tsc(p, tree, npm_tools, files)
                    dump_list(out / name, u)
                    (out / name.replace("unused", "tsc-other").replace(".json", ".count.json")).write_text(
                        json.dumps({"other_diagnostics": len(other),
                                    "by_code": {str(c): sum(1 for o in other if o["code"] == c)
                                                for c in sorted({o["code"] for o in other})}}, sort_keys=True) + "\n")
                elif lang == "rust":
                    dump_list(out / name, unused_rust(p, tree))
                elif lang == "go":
                    # the compiler's list is complete; go vet stops at the first type error of
                    # a package (its type checker), so it is kept apart, for information only
                    items, _raw = unused_go(p, tree, tmp)
                    dump_list(out / name, [i for i in items if i["tool"] == "build"])
                    dump_list(out / name.replace("unused", "unused.vet"), [i for i in items if i["tool"] == "vet"])
                elif lang == "c":
                    dump_list(out / name, unused_c(p, tree))
        if "cycles" in args.kinds:
            if lang in ("typescript", "javascript"):
                c = cycles_js(p, root, npm_tools)
            elif lang == "python":
                c = cycles_python(p, root)
            else:
                c = None
            if c is not None:
                (out / "cycles.json").write_text(json.dumps(c, indent=1, sort_keys=False) + "\n")
        if "docs" in args.kinds:
            if lang == "python":
                d = docs_python(p, root)
                (out / "docs.json").write_text(
                    "{\n\"summary\": " + json.dumps(d["summary"], sort_keys=True) + ",\n\"files\": {\n" +
                    ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in d["files"].items()) +
                    "\n}\n}\n")
            elif lang == "rust":
                dump_list(out / "docs.json", docs_rust(p, root))
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
