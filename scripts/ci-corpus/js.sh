#!/usr/bin/env bash
# Regenerates crates/ci/corpus/{jest,vitest,mocha}/ by really running the frameworks on the
# sample project in js-project/ (tests that fail in varied ways, files that fail to load,
# test.each rows, tests that pass only on a retry, and passing tests that print error-looking
# noise). Needs node, npm and the npm registry. CI never runs this; the corpus it writes is
# committed.
#
# The project is copied to a scratch directory whose path looks like a GitHub-hosted runner
# checkout (…/home/runner/work/widgets/widgets), installed there from the pinned
# package-lock.json, and run there, so that node_modules never lands in the repository.
# Every run gets a fresh ATTEMPTS_DIR: helpers/attempts.js counts a test's attempts there, so
# "fails on the first attempt, passes on the next" is deterministic. A case's log is the raw
# console output (cases whose name ends in -raw, and the older default/verbose/colour/spec
# cases), or that output wrapped as a GitHub Actions job log with the run's real exit code.
#
# Each <case>.expected.json comes from the framework's own machine-readable report of the same
# run (jest --json --outputFile, vitest --reporter=json --outputFile next to the console
# reporter). Mocha has one reporter per run, so its JSON report comes from a second, identical
# run with --reporter json (--reporter-option output=<file>: the tests' own console output
# would otherwise mix with the JSON on stdout).
#   failures: every failed assertion result; and every test file that failed to run (jest:
#             testResults[].message with no failed assertion result; vitest: the same), named
#             by the file's path and located at the first <file>:L:C (or Babel's
#             "<file>: … (L:C)") of its message.
#   flaky   : jest: assertion results that passed with invocations > 1, by fullName (the
#             retry log names them only so). vitest: its JSON report does not say, so
#             js-project/vitest-flaky-reporter.mjs, a reporter in the same run, writes the
#             tests whose testCase.diagnostic().flaky is set.
#
# Naming conventions (the parsers follow the same):
#   jest   : describe titles and the test title joined with " › " (the `●` failure header)
#   vitest : the file relative to the project root, then describe titles and the test title,
#            joined with " > " (the `FAIL` failure header)
#   mocha  : the test's fullTitle(): describe titles and the test title joined with spaces
# line_number: the first stack frame of the failure inside the test file, if any.
#
# Configurations (case: command; colour; log form):
#   jest/default, verbose, colour          npx jest [--verbose]; FORCE_COLOR=1 for colour; raw
#   jest/ci-actions                        npx jest --ci; Actions
#   jest/silent-actions                    npx jest --silent; Actions
#   jest/colors-flag-actions               npx jest --colors (no colour env); Actions
#   jest/shard-1-actions, shard-2-actions  npx jest --shard 1/2 | 2/2; Actions
#   jest/npm-test-actions                  npm test (scripts.test = jest), npm's error lines; Actions
#   jest/actions, actions-verbose          npx jest [--verbose users.test.js]; Actions
#   jest/yarn-workspace-actions            yarn@1 workspaces run test over js-project/workspace
#                                          (jest per package, yarn's "error Command failed" lines;
#                                          reports merged); Actions
#   jest/pnpm-workspace-actions            pnpm@9 -r test: parallel, every line behind pnpm's
#                                          "packages/web test: " prefix,
#                                          ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL; Actions
#   jest/pnpm-sequential-actions           pnpm@9 -r --workspace-concurrency=1 test: no
#                                          prefixes, "> web@1.0.0 test <dir>" banners; Actions
#   jest/passing, passing-raw,             npx jest [--ci] [--verbose] jest/ok.test.js: green, noisy
#     passing-ci-actions                   (console.error stacks, "handles FAILED input", a test
#                                          retried then passed: flaky); Actions / raw / Actions
#   vitest/default, verbose, colour        npx vitest run --reporter=default|verbose; raw
#   vitest/silent-actions                  npx vitest run --silent; Actions
#   vitest/retry-actions                   npx vitest run --retry 2 (default reporter; the verbose
#                                          one does not mark retries, vitest 3.2); Actions
#   vitest/shard-1-actions                 npx vitest run --shard 1/2; Actions
#   vitest/npm-actions                     npm run test:vitest; Actions
#   vitest/actions, actions-verbose        Actions
#   vitest/yarn-workspace-actions,         js-project/workspace-vitest run by yarn@1 workspaces
#     pnpm-workspace-actions               run test / pnpm@9 -r test (prefixed lines); Actions
#   vitest/passing, passing-raw,           vitest/ok.test.mjs: green, stderr noise; Actions / raw
#     passing-colour-actions               (verbose) / Actions with FORCE_COLOR=1
#   mocha/spec, colour                     npx mocha --no-color|--color; raw
#   mocha/dot-actions, tap-actions         --reporter=dot | --reporter=tap; Actions
#   mocha/actions                          Actions
#   mocha/passing, passing-raw,            green runs (mocha/ok.spec.js prints a handled
#     passing-dot-actions,                 AssertionError); spec Actions / spec raw /
#     passing-tap-actions                  --reporter=dot Actions / --reporter=tap Actions
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CORPUS="$REPO/crates/ci/corpus"
SCRATCH=${SCRATCH:-/tmp/ci-corpus-js}
WORK="$SCRATCH/home/runner/work/widgets/widgets"
WRAP="$HERE/wrap_actions_log.py"

rm -rf "$WORK"
mkdir -p "$WORK"
cp -r "$HERE/js-project/." "$WORK/"
rm -rf "$WORK/node_modules"
# npm ci rejects this lock file on some npm versions (optional rollup binaries); npm install
# resolves the same pinned versions from it.
(cd "$WORK" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
mkdir -p "$CORPUS/jest" "$CORPUS/vitest" "$CORPUS/mocha"

export CI=true

# expected <framework> <report.json> <out.expected.json> [<vitest flaky report.json>]
expected() {
  python3 - "$1" "$2" "$3" "$WORK" "${4:-}" <<'PY'
import json, os, re, sys
framework, report_path, out_path, work, flaky_path = sys.argv[1:6]
report = json.load(open(report_path))

def line_in(stack, abs_file):
    # The first frame inside the test file: "(<abs>:L:C)" or "at <abs>:L:C".
    for m in re.finditer(re.escape(abs_file) + r":(\d+):(\d+)", stack or ""):
        return int(m.group(1))
    return None

def rel(path):
    return path[len(work) + 1:] if path.startswith(work + "/") else path

def message_line(message, abs_file):
    # A file that failed to run: the first <file>:L:C (absolute or relative) in its message,
    # else Babel's "<file>: message (L:C)".
    for f in (abs_file, rel(abs_file)):
        m = re.search(r"(?<![\w/.])" + re.escape(f) + r":(\d+):\d+", message or "")
        if m:
            return int(m.group(1))
    m = re.search(re.escape(abs_file) + r": .*\((\d+):\d+\)", message or "")
    return int(m.group(1)) if m else None

failures, flaky = [], []
if framework in ("jest", "vitest"):
    for suite in report["testResults"]:
        abs_file = suite["name"]
        failed = [a for a in suite["assertionResults"] if a["status"] == "failed"]
        if suite["status"] == "failed" and not failed and suite.get("message"):
            failures.append({"test_name": rel(abs_file), "file_path": rel(abs_file),
                             "line_number": message_line(suite["message"], abs_file)})
        for a in suite["assertionResults"]:
            if framework == "jest" and a["status"] == "passed" and (a.get("invocations") or 1) > 1:
                flaky.append({"test_name": a["fullName"]})
            if a["status"] != "failed":
                continue
            titles = list(a["ancestorTitles"]) + [a["title"]]
            if framework == "jest":
                name = " › ".join(titles)
            else:
                root = suite.get("root", work)
                name = " > ".join([os.path.relpath(abs_file, root)] + titles)
            stack = "\n".join(a.get("failureMessages") or [])
            failures.append({"test_name": name, "file_path": rel(abs_file),
                             "line_number": line_in(stack, abs_file)})
    if framework == "vitest" and flaky_path and os.path.exists(flaky_path):
        for t in json.load(open(flaky_path)):
            flaky.append({"test_name": rel(t["file"]) + " > " + t["fullName"]})
elif framework == "mocha":
    for f in report["failures"]:
        abs_file = f.get("file") or ""
        failures.append({"test_name": f["fullTitle"], "file_path": rel(abs_file) or None,
                         "line_number": line_in((f.get("err") or {}).get("stack"), abs_file)})
out = {"framework": framework, "failures": failures}
if flaky:
    out["flaky"] = flaky
json.dump(out, open(out_path, "w"), indent=2, ensure_ascii=False)
open(out_path, "a").write("\n")
PY
}

# run <framework> <case> <colour 0|1|env> <wrap-command or ""> -- <command...>
# colour 0: NO_COLOR=1; 1: FORCE_COLOR=1; env: neither (the command's own flags decide).
run() {
  local fw=$1 case=$2 colour=$3 wrap=$4
  shift 5
  local raw="$SCRATCH/$fw-$case.raw" report="$SCRATCH/$fw-$case.json"
  local flaky="$SCRATCH/$fw-$case.flaky.json"
  rm -f "$report" "$flaky"
  local args=("$@")
  # `npm test`/`npm run x` pass arguments to the script after `--`.
  if [ "${args[0]}" = npm ] && ! printf '%s\n' "${args[@]}" | grep -qx -- --; then args+=(--); fi
  case $fw in
    jest) args+=(--json "--outputFile=$report") ;;
    vitest) args+=(--reporter=json "--outputFile.json=$report" --reporter=./vitest-flaky-reporter.mjs) ;;
  esac
  # Colour off: NO_COLOR=1 (vitest's tinyrainbow treats any FORCE_COLOR, even 0, as "on").
  local env=(env -u NO_COLOR -u FORCE_COLOR "VITEST_FLAKY_REPORT=$flaky")
  case $colour in
    1) env+=(FORCE_COLOR=1) ;;
    0) env+=(NO_COLOR=1) ;;
  esac
  local rc=0 attempts
  attempts=$(mktemp -d)
  (cd "$WORK" && "${env[@]}" "ATTEMPTS_DIR=$attempts" "${args[@]}" >"$raw" 2>&1) || rc=$?
  if [ "$fw" = mocha ]; then
    local jargs=()
    for a in "$@"; do
      case $a in --reporter=*|--color|--no-color) ;; *) jargs+=("$a") ;; esac
    done
    attempts=$(mktemp -d)
    (cd "$WORK" && env NO_COLOR=1 "ATTEMPTS_DIR=$attempts" "${jargs[@]}" --no-color --reporter json \
      --reporter-option "output=$report" >/dev/null 2>&1) || true
  fi
  if [ -n "$wrap" ]; then
    python3 "$WRAP" --command "$wrap" --exit-code "$rc" <"$raw" >"$CORPUS/$fw/$case.log"
  else
    cp "$raw" "$CORPUS/$fw/$case.log"
  fi
  expected "$fw" "$report" "$CORPUS/$fw/$case.expected.json" "$flaky"
  echo "$fw/$case (exit $rc): $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["failures"]), "failures,", len(d.get("flaky", [])), "flaky")' "$CORPUS/$fw/$case.expected.json")"
}

run jest default 0 "" -- npx jest
run jest verbose 0 "" -- npx jest --verbose
run jest colour 1 "" -- npx jest
run jest ci-actions 0 "npx jest --ci" -- npx jest --ci
run jest silent-actions 0 "npx jest --silent" -- npx jest --silent
run jest colors-flag-actions env "npx jest --colors" -- npx jest --colors
run jest shard-1-actions 0 "npx jest --shard 1/2" -- npx jest --shard 1/2
run jest shard-2-actions 0 "npx jest --shard 2/2" -- npx jest --shard 2/2
run jest npm-test-actions 0 "npm test" -- npm test
run jest actions 0 "npx jest" -- npx jest
run jest actions-verbose 1 "npx jest --verbose jest/users.test.js" -- npx jest --verbose jest/users.test.js
# A workspace of two packages run by yarn (classic) or pnpm: js-project/workspace (jest) or
# js-project/workspace-vitest (vitest, a vitest.config.mjs per package). The package manager
# runs each package's scripts.test, which has the framework write its JSON report next to it;
# the reports of the packages that ran are the truth. The frameworks print paths relative to
# the package; the truth's file_path is relative to the repository (so these sample
# workspaces, which sit in a subdirectory, score file/line 0: jest and vitest name only the
# package-relative path, and pnpm's prefix only the workspace-relative package directory),
# and vitest's test names start with the file relative to vitest's root (the package), as
# vitest prints them.
# workspace <jest|vitest> <case> <wrap command> <command...>
workspace() {
  local fw=$1 case=$2 wrap=$3
  shift 3
  local ws="$WORK/workspace" raw="$SCRATCH/$fw-$case.raw" report="$SCRATCH/$fw-$case.json"
  if [ "$fw" = vitest ]; then ws="$WORK/workspace-vitest"; fi
  ln -sfn ../node_modules "$ws/node_modules"
  rm -f "$ws"/packages/*/"$fw"-report.json
  local rc=0
  (cd "$ws" && env -u FORCE_COLOR NO_COLOR=1 "$@" >"$raw" 2>&1) || rc=$?
  # Merged, each test file keeping the root its framework ran in (the package).
  python3 - "$report" "$ws"/packages/*/"$fw"-report.json <<'PY'
import json, os, sys
results = []
for p in sys.argv[2:]:
    for suite in json.load(open(p))["testResults"]:
        suite["root"] = os.path.dirname(p)
        results.append(suite)
json.dump({"testResults": results}, open(sys.argv[1], "w"))
PY
  python3 "$WRAP" --command "$wrap" --exit-code "$rc" <"$raw" >"$CORPUS/$fw/$case.log"
  expected "$fw" "$report" "$CORPUS/$fw/$case.expected.json"
  echo "$fw/$case (exit $rc): $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["failures"]))' "$CORPUS/$fw/$case.expected.json") failures"
}
workspace jest yarn-workspace-actions "yarn workspaces run test" npx --yes yarn@1.22.22 workspaces run test
workspace jest pnpm-workspace-actions "pnpm -r test" npx --yes pnpm@9.15.0 -r test
workspace jest pnpm-sequential-actions "pnpm -r --workspace-concurrency=1 test" \
  npx --yes pnpm@9.15.0 -r --workspace-concurrency=1 test

run jest passing 0 "npx jest jest/ok.test.js" -- npx jest jest/ok.test.js
run jest passing-raw 0 "" -- npx jest --verbose jest/ok.test.js
run jest passing-ci-actions 0 "npx jest --ci --verbose jest/ok.test.js" -- npx jest --ci --verbose jest/ok.test.js

workspace vitest yarn-workspace-actions "yarn workspaces run test" npx --yes yarn@1.22.22 workspaces run test
workspace vitest pnpm-workspace-actions "pnpm -r test" npx --yes pnpm@9.15.0 -r test

run vitest default 0 "" -- npx vitest run --reporter=default
run vitest verbose 0 "" -- npx vitest run --reporter=verbose
run vitest colour 1 "" -- npx vitest run --reporter=default
run vitest silent-actions 0 "npx vitest run --silent" -- npx vitest run --silent --reporter=default
run vitest retry-actions 0 "npx vitest run --retry 2" -- npx vitest run --retry 2 --reporter=default
run vitest shard-1-actions 0 "npx vitest run --shard 1/2" -- npx vitest run --shard 1/2 --reporter=default
run vitest npm-actions 0 "npm run test:vitest" -- npm run test:vitest -- --reporter=default
run vitest actions 0 "npx vitest run" -- npx vitest run --reporter=default
run vitest actions-verbose 1 "npx vitest run --reporter=verbose vitest/users.test.mjs" -- npx vitest run --reporter=verbose vitest/users.test.mjs
run vitest passing 0 "npx vitest run vitest/ok.test.mjs" -- npx vitest run --reporter=default vitest/ok.test.mjs
run vitest passing-raw 0 "" -- npx vitest run --reporter=verbose vitest/ok.test.mjs
run vitest passing-colour-actions 1 "npx vitest run vitest/ok.test.mjs" -- npx vitest run --reporter=default vitest/ok.test.mjs

run mocha spec 0 "" -- npx mocha --no-color 'mocha/**/*.spec.js'
run mocha colour 1 "" -- npx mocha --color 'mocha/**/*.spec.js'
run mocha dot-actions 0 "npx mocha --reporter=dot" -- npx mocha --no-color --reporter=dot 'mocha/**/*.spec.js'
run mocha tap-actions 0 "npx mocha --reporter=tap" -- npx mocha --no-color --reporter=tap 'mocha/**/*.spec.js'
run mocha actions 0 "npx mocha" -- npx mocha --no-color 'mocha/**/*.spec.js'
run mocha passing 0 "npx mocha mocha/users.spec.js --grep existing" -- npx mocha --no-color mocha/users.spec.js --grep existing
run mocha passing-raw 0 "" -- npx mocha --no-color mocha/ok.spec.js
run mocha passing-dot-actions 0 "npx mocha --reporter=dot mocha/ok.spec.js" -- npx mocha --no-color --reporter=dot mocha/ok.spec.js
run mocha passing-tap-actions 0 "npx mocha --reporter=tap mocha/ok.spec.js" -- npx mocha --no-color --reporter=tap mocha/ok.spec.js
