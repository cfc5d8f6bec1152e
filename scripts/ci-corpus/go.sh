#!/usr/bin/env bash
# Regenerates crates/ci/corpus/go_test/ by really running `go test` (Go 1.19 from Debian:
# apt-get install golang-go) on the sample module in go-project/ (module
# github.com/acme/widgets; deliberately failing tests, a panic, a data race, a package whose
# tests do not compile, one whose test imports a missing package, a cgo compiler warning).
# CI never runs this; the corpus it writes is committed.
#
# The module is copied to $SCRATCH/home/runner/work/widgets/widgets (a GitHub-hosted runner
# checkout path, which `relative_path` strips from panic traces).
#
# Expected failures come from `go test -json` (test2json) of the SAME run, never from the
# plain log: the plain `-v` log of a case is that run's output with every JSON event
# replaced by its Output field (stderr lines, which carry build errors, kept as they are).
# The non-verbose cases are a second run of the same command without -json/-v (the tests
# are deterministic), with the expected failures of a -json run of the same selection.
# Rules (go_expected below):
# - a failing test is an "Action":"fail" event with a Test; a test one of whose subtests
#   also failed is left out unless it printed a message of its own (`    x_test.go:N: ...`
#   output with its Test), so `TestDivide` is not reported next to `TestDivide/zero_by_zero`;
# - a package in `go list ./...` with no package-level pass/fail/skip event failed to build
#   ([build failed] / [setup failed]): one failure named by its import path, located where
#   `go list -e -test -json` puts the error (DepsErrors/Error Pos), if anywhere;
# - a package-level fail event with no failing test: one failure named by the package;
# - location of a test: its first own output line `    <file>_test.go:N: ` (directory: the
#   package path minus the module path from go.mod), else, for a panic, the innermost
#   `\t<abs>/<file>_test.go:N +0x..` frame of the trace in its output; else none.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/crates/ci/corpus/go_test
SCRATCH=${SCRATCH:-/tmp/ci-corpus-go}
WORK=$SCRATCH/home/runner/work/widgets/widgets
WRAP=$HERE/wrap_actions_log.py
rm -rf "$SCRATCH"; mkdir -p "$WORK" "$OUT"
cp -r "$HERE/go-project/." "$WORK/"
export GOFLAGS=-mod=mod GOPROXY=off GOCACHE=$SCRATCH/gocache GOPATH=$SCRATCH/gopath CGO_ENABLED=1
cd "$WORK"
MODULE=$(go list -m)
go list ./... > "$SCRATCH/packages.txt"

# go_expected <json-run output (mixed JSON and stderr text)> <packages file> > expected.json
go_expected() {
  (cd "$WORK" && go list -e -test -json $(cat "$2") 2>/dev/null) > "$SCRATCH/list.json" || true
  python3 - "$1" "$2" "$SCRATCH/list.json" "$MODULE" "$WORK" <<'PY'
import json, re, sys
run, pkgs_file, list_file, module, work = sys.argv[1:6]
events = []
for line in open(run, encoding="utf-8"):
    if line.startswith("{") and '"Action"' in line:
        events.append(json.loads(line))
msg = re.compile(r"^\s+(\S+\.go):(\d+): ")
frame = re.compile(r"^\t(/\S+/)?(\S+_test\.go):(\d+)(?: \+0x[0-9a-f]+)?$")

def pkg_dir(pkg):
    return pkg[len(module) + 1:] if pkg.startswith(module + "/") else ""

def join(d, f):
    return f"{d}/{f}" if d else f

out = {}   # (pkg, test) -> lines
failed, pkg_events, order = [], {}, []
for e in events:
    pkg, test = e.get("Package"), e.get("Test")
    if e["Action"] == "output" and test:
        out.setdefault((pkg, test), []).append(e["Output"].rstrip("\n"))
    if e["Action"] == "fail" and test:
        failed.append((pkg, test))
    if not test and e["Action"] in ("pass", "fail", "skip"):
        pkg_events[pkg] = e["Action"]
        order.append(pkg)

def own_location(pkg, test):
    lines = out.get((pkg, test), [])
    for l in lines:
        m = msg.match(l)
        if m and m.group(1).endswith("_test.go"):
            return join(pkg_dir(pkg), m.group(1)), int(m.group(2))
    if any(l.startswith("panic: ") for l in lines):
        for l in lines:
            m = frame.match(l)
            if m and not (m.group(1) or "").startswith("/usr/"):
                path = (m.group(1) or "") + m.group(2)
                return (path[len(work) + 1:] if path.startswith(work + "/") else path), int(m.group(3))
    return None, None

def has_own_message(pkg, test):
    return any(msg.match(l) for l in out.get((pkg, test), []))

failures = []
fset = set(failed)
for pkg, test in failed:
    child_failed = any(p == pkg and t.startswith(test + "/") for p, t in fset)
    if child_failed and not has_own_message(pkg, test):
        continue
    f, l = own_location(pkg, test)
    failures.append({"test_name": test, "file_path": f, "line_number": l})
for pkg in order:
    if pkg_events[pkg] == "fail" and not any(p == pkg for p, _ in failed):
        failures.append({"test_name": pkg, "file_path": None, "line_number": None})
# Packages that never ran: build or setup failures.
listed = {}
dec = json.JSONDecoder()
text, i = open(list_file).read(), 0
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    obj, i = dec.raw_decode(text, i)
    listed.setdefault(obj["ImportPath"].split(" ")[0], []).append(obj)
for pkg in open(pkgs_file).read().split():
    if pkg in pkg_events:
        continue
    pos = None
    for obj in listed.get(pkg, []):
        for err in ([obj["Error"]] if obj.get("Error") else []) + obj.get("DepsErrors", []):
            if err.get("Pos"):
                pos = err["Pos"]
                break
        if pos:
            break
    f = l = None
    if pos:
        parts = pos.split(":")
        f, l = parts[0], int(parts[1])
    failures.append({"test_name": pkg, "file_path": f, "line_number": l})
json.dump({"framework": "go_test", "failures": failures}, sys.stdout, indent=2)
print()
PY
}

# plain_of <json-run output>: the -v log the same run printed (Output fields, stderr as is).
plain_of() {
  python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("{") and '"Action"' in line:
        sys.stdout.write(json.loads(line).get("Output", ""))
    else:
        sys.stdout.write(line)
PY
}

# save <case> <wrap|raw> <command shown> <file>
save() {
  if [ "$2" = wrap ]; then
    python3 "$WRAP" --command "$3" --exit-code 1 <"$4" >"$OUT/$1.log"
  else
    cp "$4" "$OUT/$1.log"
  fi
}

# 1. go test -json ./... (fresh cache: the cgo warning is printed), as a job log; and the
#    same run's -v text, wrapped and raw.
go test -json ./... >"$SCRATCH/all.json" 2>&1 || true
save json_actions wrap "go test -json ./..." "$SCRATCH/all.json"
go_expected "$SCRATCH/all.json" "$SCRATCH/packages.txt" >"$OUT/json_actions.expected.json"
plain_of "$SCRATCH/all.json" >"$SCRATCH/all.txt"
save verbose_actions wrap "go test -v ./..." "$SCRATCH/all.txt"
cp "$OUT/json_actions.expected.json" "$OUT/verbose_actions.expected.json"

# 2. Non-verbose ./... (failures print only `--- FAIL` blocks), raw.
go test ./... >"$SCRATCH/quiet.txt" 2>&1 || true
save quiet raw "" "$SCRATCH/quiet.txt"
cp "$OUT/json_actions.expected.json" "$OUT/quiet.expected.json"

# 3. -race on the packages that build: the data race fails TestCounterConcurrent.
grep -v -e /broken -e /setupfail "$SCRATCH/packages.txt" >"$SCRATCH/race-packages.txt"
go test -race -json $(cat "$SCRATCH/race-packages.txt") >"$SCRATCH/race.json" 2>&1 || true
plain_of "$SCRATCH/race.json" >"$SCRATCH/race.txt"
save race_verbose_actions wrap "go test -race -v ./..." "$SCRATCH/race.txt"
go_expected "$SCRATCH/race.json" "$SCRATCH/race-packages.txt" >"$OUT/race_verbose_actions.expected.json"
go test -race $(cat "$SCRATCH/race-packages.txt") >"$SCRATCH/race-quiet.txt" 2>&1 || true
save race_quiet_actions wrap "go test -race ./..." "$SCRATCH/race-quiet.txt"
cp "$OUT/race_verbose_actions.expected.json" "$OUT/race_quiet_actions.expected.json"

# 4. One package, a -run selection, -json piped raw (no Actions wrapping).
echo "$MODULE/calc" >"$SCRATCH/calc.txt"
go test -json -run 'TestDivide|TestClamp|TestError' ./calc >"$SCRATCH/calc.json" 2>&1 || true
save calc_run_json raw "" "$SCRATCH/calc.json"
go_expected "$SCRATCH/calc.json" "$SCRATCH/calc.txt" >"$OUT/calc_run_json.expected.json"
echo "corpus written to $OUT"
