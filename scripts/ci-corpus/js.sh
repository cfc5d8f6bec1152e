#!/usr/bin/env bash
# Regenerates crates/ci/corpus/{jest,vitest,mocha}/ by really running the frameworks on the
# sample project in js-project/ (tests that fail in varied ways). Needs node, npm and the npm
# registry. CI never runs this; the corpus it writes is committed.
#
# The project is copied to a scratch directory whose path looks like a GitHub-hosted runner
# checkout (…/home/runner/work/widgets/widgets), installed there from the pinned
# package-lock.json, and run there, so that
# node_modules never lands in the repository.
#
# Each <case>.expected.json comes from the framework's own machine-readable report of the same
# run (jest --json --outputFile, vitest --reporter=json --outputFile next to the console
# reporter). Mocha has one reporter per run, so its JSON report comes from a second, identical
# run with --reporter json.
#
# Naming conventions (the parsers follow the same):
#   jest   : describe titles and the test title joined with " › " (the `●` failure header)
#   vitest : the file relative to the project root, then describe titles and the test title,
#            joined with " > " (the `FAIL` failure header)
#   mocha  : the test's fullTitle(): describe titles and the test title joined with spaces
# line_number: the first stack frame of the failure inside the test file, if any.
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
(cd "$WORK" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
mkdir -p "$CORPUS/jest" "$CORPUS/vitest" "$CORPUS/mocha"

export CI=true

# expected <framework> <report.json> <out.expected.json>
expected() {
  python3 - "$1" "$2" "$3" "$WORK" <<'PY'
import json, re, sys
framework, report_path, out_path, work = sys.argv[1:5]
report = json.load(open(report_path))

def line_in(stack, abs_file):
    # The first frame inside the test file: "(<abs>:L:C)" or "at <abs>:L:C".
    for m in re.finditer(re.escape(abs_file) + r":(\d+):(\d+)", stack or ""):
        return int(m.group(1))
    return None

def rel(path):
    return path[len(work) + 1:] if path.startswith(work + "/") else path

failures = []
if framework in ("jest", "vitest"):
    for suite in report["testResults"]:
        abs_file = suite["name"]
        for a in suite["assertionResults"]:
            if a["status"] != "failed":
                continue
            titles = list(a["ancestorTitles"]) + [a["title"]]
            if framework == "jest":
                name = " › ".join(titles)
            else:
                name = " > ".join([rel(abs_file)] + titles)
            stack = "\n".join(a.get("failureMessages") or [])
            failures.append({"test_name": name, "file_path": rel(abs_file),
                             "line_number": line_in(stack, abs_file)})
elif framework == "mocha":
    for f in report["failures"]:
        abs_file = f.get("file") or ""
        failures.append({"test_name": f["fullTitle"], "file_path": rel(abs_file) or None,
                         "line_number": line_in((f.get("err") or {}).get("stack"), abs_file)})
json.dump({"framework": framework, "failures": failures}, open(out_path, "w"),
          indent=2, ensure_ascii=False)
open(out_path, "a").write("\n")
PY
}

# run <framework> <case> <colour 0|1> <wrap-command or ""> -- <command...>
run() {
  local fw=$1 case=$2 colour=$3 wrap=$4
  shift 5
  local raw="$SCRATCH/$fw-$case.raw" report="$SCRATCH/$fw-$case.json"
  rm -f "$report"
  local args=("$@")
  case $fw in
    jest) args+=(--json "--outputFile=$report") ;;
    vitest) args+=(--reporter=json "--outputFile.json=$report") ;;
  esac
  # Colour off: NO_COLOR=1 (vitest's tinyrainbow treats any FORCE_COLOR, even 0, as "on").
  local env=(env -u NO_COLOR -u FORCE_COLOR)
  if [ "$colour" = 1 ]; then env+=(FORCE_COLOR=1); else env+=(NO_COLOR=1); fi
  (cd "$WORK" && "${env[@]}" "${args[@]}" >"$raw" 2>&1) || true
  if [ "$fw" = mocha ]; then
    local jargs=()
    for a in "$@"; do
      case $a in --reporter=*|--color|--no-color) ;; *) jargs+=("$a") ;; esac
    done
    (cd "$WORK" && NO_COLOR=1 "${jargs[@]}" --no-color --reporter json >"$report" 2>/dev/null) || true
  fi
  if [ -n "$wrap" ]; then
    python3 "$WRAP" --command "$wrap" <"$raw" >"$CORPUS/$fw/$case.log"
  else
    cp "$raw" "$CORPUS/$fw/$case.log"
  fi
  expected "$fw" "$report" "$CORPUS/$fw/$case.expected.json"
  echo "$fw/$case: $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["failures"]))' "$CORPUS/$fw/$case.expected.json") failures"
}

run jest default 0 "" -- npx jest
run jest verbose 0 "" -- npx jest --verbose
run jest colour 1 "" -- npx jest
run jest actions 0 "npx jest" -- npx jest
run jest actions-verbose 1 "npx jest --verbose jest/users.test.js" -- npx jest --verbose jest/users.test.js
run jest passing 0 "npx jest jest/ok.test.js" -- npx jest jest/ok.test.js

run vitest default 0 "" -- npx vitest run --reporter=default
run vitest verbose 0 "" -- npx vitest run --reporter=verbose
run vitest colour 1 "" -- npx vitest run --reporter=default
run vitest actions 0 "npx vitest run" -- npx vitest run --reporter=default
run vitest actions-verbose 1 "npx vitest run --reporter=verbose vitest/users.test.mjs" -- npx vitest run --reporter=verbose vitest/users.test.mjs
run vitest passing 0 "npx vitest run vitest/ok.test.mjs" -- npx vitest run --reporter=default vitest/ok.test.mjs

run mocha spec 0 "" -- npx mocha --no-color 'mocha/**/*.spec.js'
run mocha colour 1 "" -- npx mocha --color 'mocha/**/*.spec.js'
run mocha actions 0 "npx mocha" -- npx mocha --no-color 'mocha/**/*.spec.js'
run mocha passing 0 "npx mocha mocha/users.spec.js --grep existing" -- npx mocha --no-color mocha/users.spec.js --grep existing
