#!/usr/bin/env bash
# Regenerates crates/ci/corpus/go_test/ by really running `go test` (Go 1.19 from Debian:
# apt-get install golang-go) on the sample module in go-project/ (module
# github.com/acme/widgets; deliberately failing tests, a panic, a data race, a package whose
# tests do not compile, one whose test imports a missing package, a cgo compiler warning,
# t.Fatal in parallel subtests and in a cleanup, a failure message sharing its line with
# output that did not end its line (stub), a test that fails once and then passes (noisy's
# TestFlakyOnce, run only with $WIDGETS_FLAKY_DIR), and passing packages that log or print
# failure-looking text (noisy, chatty)). Gotestsum is Debian's 1.8.2 (apt-get install
# gotestsum). CI never runs this; the corpus it writes is committed.
#
# Configurations (case: command; truth):
# - json_actions: go test -json ./...; that run's events.
# - verbose_actions: the -v text of a go test -json -p 1 ./... run (its Output fields).
# - quiet: go test ./... (raw); a -json run of the same packages.
# - race_verbose_actions / race_quiet_actions: go test -race [-v] on the packages that
#   build; the -race -json -p 1 run.
# - calc_run_json: go test -json -run ... ./calc, raw.
# - verbose_count1: a real go test -v -count=1 ./... (raw); a -json -count=1 run.
# - failfast_verbose_actions: the -v text of go test -json -failfast ./...; that run.
# - gotestsum_{testname,pkgname,pkgname_and_test_fails,dots,standard_quiet}_actions,
#   gotestsum_standard_verbose (raw): gotestsum --format F -- ./...; that run's --jsonfile.
# - gotestsum_pkgname_colour_actions: the same with --no-color=false (ANSI colours).
# - gotestsum_rerun_actions: gotestsum --rerun-fails (flaky TestFlakyOnce, tests failing on
#   every run); that run's --jsonfile, which holds every run's events.
# - green_verbose (raw), green_chatty_verbose_actions, green_gotestsum_rerun_actions: passing
#   runs (exit 0); their -json / --jsonfile reports list no failure (the last one a flaky).
#
# The module is copied to $SCRATCH/home/runner/work/widgets/widgets (a GitHub-hosted runner
# checkout path, which `relative_path` strips from panic traces).
#
# Expected failures come from `go test -json` (test2json) of the SAME run, never from the
# plain log: the plain `-v` log of a case is that run's output with every JSON event
# replaced by its Output field (stderr lines, which carry build errors, kept as they are).
# Such a run tests one package at a time (-p 1): `go test -v` prints one package's output
# after another, while -json streams the packages' events as they come, interleaved.
# The non-verbose cases are a second run of the same command without -json/-v (the tests
# are deterministic), with the expected failures of a -json run of the same selection.
# Rules (go_expected below):
# - a failing test is a Test whose last pass/fail event is "fail" (gotestsum re-runs add
#   events); one with a "fail" and then a "pass" is flaky (same subtest rule as below);
# - a failing test is an "Action":"fail" event with a Test; a test one of whose subtests
#   also failed is left out unless it printed a message of its own (`    x_test.go:N: ...`
#   output with its Test), so `TestDivide` is not reported next to `TestDivide/zero_by_zero`;
# - a package in `go list ./...` with no package-level pass/fail/skip event failed to build
#   ([build failed] / [setup failed]): one failure named by its import path, located where
#   `go list -e -test -json` puts the error (DepsErrors/Error Pos), if anywhere;
# - a package-level fail event with no failing test: one failure named by the package;
# - location of a test: its first own output line `    <file>_test.go:N: ` (also after
#   output that did not end its line: `asking...    <file>_test.go:N: `; directory: the
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
# A message line `    x_test.go:N: text`, also after output that did not end its line
# (`asking...    x_test.go:N: text`).
msg = re.compile(r"^(?:\s+|.*\S {4})(\S+\.go):(\d+): ")
frame = re.compile(r"^\t(/\S+/)?(\S+_test\.go):(\d+)(?: \+0x[0-9a-f]+)?$")

def pkg_dir(pkg):
    return pkg[len(module) + 1:] if pkg.startswith(module + "/") else ""

def join(d, f):
    return f"{d}/{f}" if d else f

out = {}   # (pkg, test) -> lines
pkg_events, order = {}, []
# gotestsum --rerun-fails runs failed tests again: the events of every run, in order. A test
# fails if its last run failed; one that failed and then passed is flaky.
status, failed_order = {}, []
for e in events:
    pkg, test = e.get("Package"), e.get("Test")
    if e["Action"] == "output" and test:
        out.setdefault((pkg, test), []).append(e["Output"].rstrip("\n"))
    if test and e["Action"] in ("pass", "fail", "skip"):
        status[(pkg, test)] = e["Action"]
        if e["Action"] == "fail" and (pkg, test) not in failed_order:
            failed_order.append((pkg, test))
    if not test and e["Action"] in ("pass", "fail", "skip"):
        if pkg not in pkg_events:
            order.append(pkg)
        pkg_events[pkg] = e["Action"]
failed = [k for k in failed_order if status[k] == "fail"]
flaky_tests = [k for k in failed_order if status[k] == "pass"]

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
flaky = []
flaky_set = set(flaky_tests)
for pkg, test in flaky_tests:
    child = any(p == pkg and t.startswith(test + "/") for p, t in flaky_set)
    if child and not has_own_message(pkg, test):
        continue
    flaky.append({"test_name": test})
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
report = {"framework": "go_test", "failures": failures}
if flaky:
    report["flaky"] = flaky
json.dump(report, sys.stdout, indent=2)
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

# save <case> <wrap|raw> <command shown> <file> [exit code]
save() {
  if [ "$2" = wrap ]; then
    python3 "$WRAP" --command "$3" --exit-code "${5:-1}" <"$4" >"$OUT/$1.log"
  else
    cp "$4" "$OUT/$1.log"
  fi
}

# 1. go test -json ./... (fresh cache: the cgo warning is printed), as a job log; and the
#    same run's -v text, wrapped and raw.
go test -json ./... >"$SCRATCH/all.json" 2>&1 || true
save json_actions wrap "go test -json ./..." "$SCRATCH/all.json"
go_expected "$SCRATCH/all.json" "$SCRATCH/packages.txt" >"$OUT/json_actions.expected.json"
go test -json -p 1 ./... >"$SCRATCH/all-p1.json" 2>&1 || true
plain_of "$SCRATCH/all-p1.json" >"$SCRATCH/all.txt"
save verbose_actions wrap "go test -v ./..." "$SCRATCH/all.txt"
go_expected "$SCRATCH/all-p1.json" "$SCRATCH/packages.txt" >"$OUT/verbose_actions.expected.json"

# 2. Non-verbose ./... (failures print only `--- FAIL` blocks), raw.
go test ./... >"$SCRATCH/quiet.txt" 2>&1 || true
save quiet raw "" "$SCRATCH/quiet.txt"
cp "$OUT/json_actions.expected.json" "$OUT/quiet.expected.json"

# 3. -race on the packages that build: the data race fails TestCounterConcurrent.
grep -v -e /broken -e /setupfail "$SCRATCH/packages.txt" >"$SCRATCH/race-packages.txt"
go test -race -json -p 1 $(cat "$SCRATCH/race-packages.txt") >"$SCRATCH/race.json" 2>&1 || true
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
# 5. A real `go test -v -count=1 ./...` (not rebuilt from -json), raw; the expected failures
#    of a `go test -json -count=1 ./...` run (the tests are deterministic).
go test -v -count=1 ./... >"$SCRATCH/count1.txt" 2>&1 || true
save verbose_count1 raw "" "$SCRATCH/count1.txt"
go test -json -count=1 ./... >"$SCRATCH/count1.json" 2>&1 || true
go_expected "$SCRATCH/count1.json" "$SCRATCH/packages.txt" >"$OUT/verbose_count1.expected.json"

# 5b. -failfast (each package stops at its first failing test): the -v text of a -json run.
go test -json -p 1 -failfast ./... >"$SCRATCH/failfast.json" 2>&1 || true
plain_of "$SCRATCH/failfast.json" >"$SCRATCH/failfast.txt"
save failfast_verbose_actions wrap "go test -v -failfast ./..." "$SCRATCH/failfast.txt"
go_expected "$SCRATCH/failfast.json" "$SCRATCH/packages.txt" >"$OUT/failfast_verbose_actions.expected.json"

# 6. gotestsum (Debian's 1.8.2) in its formats over ./...; the truth is its --jsonfile of the
#    same run (every test2json event it read), and `go list` for the packages that did not
#    build (gotestsum prints their `FAIL` line only as a warning).
for fmt in testname pkgname pkgname-and-test-fails dots standard-quiet standard-verbose; do
  case_name=gotestsum_${fmt//-/_}
  gotestsum --format "$fmt" --jsonfile "$SCRATCH/$case_name.json" -- ./... >"$SCRATCH/$case_name.txt" 2>&1 || true
  if [ "$fmt" = standard-verbose ]; then
    save "$case_name" raw "" "$SCRATCH/$case_name.txt"
  else
    save "${case_name}_actions" wrap "gotestsum --format $fmt -- ./..." "$SCRATCH/$case_name.txt"
    case_name=${case_name}_actions
    mv "$SCRATCH/gotestsum_${fmt//-/_}.json" "$SCRATCH/$case_name.json"
  fi
  go_expected "$SCRATCH/$case_name.json" "$SCRATCH/packages.txt" >"$OUT/$case_name.expected.json"
done

# Colour forced (as a terminal gets it): `=== \e[31mFAIL\e[0m: calc TestX`.
gotestsum --no-color=false --format pkgname --jsonfile "$SCRATCH/colour.json" -- ./... >"$SCRATCH/colour.txt" 2>&1 || true
save gotestsum_pkgname_colour_actions wrap "gotestsum --no-color=false --format pkgname -- ./..." "$SCRATCH/colour.txt"
go_expected "$SCRATCH/colour.json" "$SCRATCH/packages.txt" >"$OUT/gotestsum_pkgname_colour_actions.expected.json"

# 7. gotestsum --rerun-fails over the packages that build: failed tests run again (up to 2
#    more times); noisy's TestFlakyOnce fails once (a marker file in $WIDGETS_FLAKY_DIR) and
#    passes on the re-run: flaky, by the --jsonfile (a fail event, then a pass).
#    util, inventory and chatty are left out: gotestsum does not re-run after a run that
#    printed to stderr (util's cgo warning) or a line starting `panic:` (inventory, chatty).
mkdir -p "$SCRATCH/flaky-rerun"
grep -v -e /util -e /inventory -e /chatty "$SCRATCH/race-packages.txt" >"$SCRATCH/rerun-packages.txt"
WIDGETS_FLAKY_DIR=$SCRATCH/flaky-rerun gotestsum --format standard-verbose --rerun-fails \
  --rerun-fails-max-failures 30 --packages "$(tr '\n' ' ' <"$SCRATCH/rerun-packages.txt")" \
  --jsonfile "$SCRATCH/rerun.json" >"$SCRATCH/rerun.txt" 2>&1 || true
save gotestsum_rerun_actions wrap "gotestsum --format standard-verbose --rerun-fails --packages ./..." "$SCRATCH/rerun.txt"
go_expected "$SCRATCH/rerun.json" "$SCRATCH/rerun-packages.txt" >"$OUT/gotestsum_rerun_actions.expected.json"

# 8. Green jobs (exit 0) over packages that pass. Raw `go test -v`: noisy's tests log
#    `--- FAIL:`, `FAIL\t<pkg>`, `panic:` and `error:` text (indented, as t.Log does), util's
#    cgo build prints a compiler warning (fresh cache). As a job log, chatty's test also
#    prints `error:`, `Error:`, `panic:` and `FAIL` lines to stdout (a passing step's output,
#    which the generic fallback leaves alone). With gotestsum, noisy's TestFlakyOnce fails
#    once and passes on the re-run.
printf '%s\n' "$MODULE/noisy" "$MODULE/util" "$MODULE/racy" >"$SCRATCH/green.txt"
GOCACHE=$SCRATCH/gocache-green go test -v ./noisy ./util ./racy >"$SCRATCH/green.txt.log" 2>&1
save green_verbose raw "" "$SCRATCH/green.txt.log"
go test -json ./noisy ./util ./racy >"$SCRATCH/green.json" 2>&1
go_expected "$SCRATCH/green.json" "$SCRATCH/green.txt" >"$OUT/green_verbose.expected.json"
printf '%s\n' "$MODULE/chatty" "$MODULE/noisy" >"$SCRATCH/chatty.txt"
go test -json -p 1 ./chatty ./noisy >"$SCRATCH/chatty.json" 2>&1
plain_of "$SCRATCH/chatty.json" >"$SCRATCH/chatty.log"
save green_chatty_verbose_actions wrap "go test -v ./chatty ./noisy" "$SCRATCH/chatty.log" 0
go_expected "$SCRATCH/chatty.json" "$SCRATCH/chatty.txt" >"$OUT/green_chatty_verbose_actions.expected.json"
mkdir -p "$SCRATCH/flaky-green"
printf '%s\n' "$MODULE/noisy" "$MODULE/racy" >"$SCRATCH/green-rerun-packages.txt"
WIDGETS_FLAKY_DIR=$SCRATCH/flaky-green gotestsum --format testname --rerun-fails \
  --packages "./noisy ./racy" --jsonfile "$SCRATCH/green-rerun.json" >"$SCRATCH/green-rerun.txt" 2>&1
save green_gotestsum_rerun_actions wrap "gotestsum --format testname --rerun-fails --packages './noisy ./racy'" "$SCRATCH/green-rerun.txt" 0
go_expected "$SCRATCH/green-rerun.json" "$SCRATCH/green-rerun-packages.txt" >"$OUT/green_gotestsum_rerun_actions.expected.json"
echo "corpus written to $OUT"
