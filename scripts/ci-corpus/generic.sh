#!/usr/bin/env bash
# Regenerates crates/ci/corpus/generic/ by really running tools that fail without any test
# framework, on the small project in scripts/ci-corpus/generic-project/: a Rust crate that
# does not compile, an `npm ci` whose lock file is out of date, a node script that throws, a
# Python script that dies with a traceback. The scanner finds no framework failure in these
# logs, so the generic fallback's blocks are what it reports. CI never runs this.
#
# The project is copied to $SCRATCH/home/runner/work/app/app (a GitHub-hosted runner
# checkout). Expected failures come from each tool's own machine-readable view of the failure:
#   cargo   `cargo build --message-format=json` (a second, identical build): every
#           compiler-message of level error that has a primary span: `error[CODE]: message`
#           (`error: message` without a code) at the span's file and first line.
#   npm     `npm ci --json` (a second, identical run): `npm error code <error.code>`, no location.
#   node    the uncaught exception itself, recorded by generic-hooks/node_expect.js (preloaded
#           with -r in the SAME run): `<name>: <message>` at its first frame outside node's
#           internals and node_modules.
#   python  the uncaught exception itself, recorded by generic-hooks/sitecustomize.py in the
#           SAME run: its last traceback line at the last frame.
# `npm warn Unknown user config` lines (this machine's npmrc, not the failure) are dropped.
#
# Needs cargo, node/npm (no registry access: npm ci fails before fetching), python3.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/crates/ci/corpus/generic
SCRATCH=${SCRATCH:-/tmp/ci-corpus-generic}
WORK=$SCRATCH/home/runner/work/app/app
WRAP="python3 $HERE/wrap_actions_log.py"
HOOKS=$HERE/generic-hooks
rm -rf "$WORK"
mkdir -p "$(dirname "$WORK")" "$OUT"
cp -r "$HERE/generic-project" "$WORK"
export GENERIC_WORK=$WORK
unset CARGO_TARGET_DIR

count() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["failures"]))' "$1"; }

# ---- cargo build: two compile errors --------------------------------------------------
cargo_expected() { # <cargo json output> <out.json>
  python3 - "$1" "$2" <<'PY'
import json, sys
failures = []
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") != "compiler-message":
        continue
    m = msg["message"]
    spans = [s for s in m["spans"] if s["is_primary"]]
    if m["level"] != "error" or not spans:
        continue
    code = (m.get("code") or {}).get("code")
    name = f"error[{code}]: {m['message']}" if code else f"error: {m['message']}"
    failures.append({"test_name": name, "file_path": spans[0]["file_name"],
                     "line_number": spans[0]["line_start"]})
json.dump({"framework": "generic", "failures": failures}, open(sys.argv[2], "w"), indent=2)
open(sys.argv[2], "a").write("\n")
PY
}
cd "$WORK/rust"
code=0; CARGO_TERM_COLOR=never cargo build >"$SCRATCH/cargo.txt" 2>&1 || code=$?
$WRAP --command "cargo build --locked" --exit-code "$code" <"$SCRATCH/cargo.txt" >"$OUT/cargo_build_actions.log"
cargo clean -q
CARGO_TERM_COLOR=always cargo build >"$OUT/cargo_build_colour.log" 2>&1 || true
cargo clean -q
cargo build --message-format=json >"$SCRATCH/cargo.json" 2>/dev/null || true
cargo_expected "$SCRATCH/cargo.json" "$OUT/cargo_build_actions.expected.json"
cp "$OUT/cargo_build_actions.expected.json" "$OUT/cargo_build_colour.expected.json"
rm -rf target Cargo.lock
echo "cargo_build: $(count "$OUT/cargo_build_actions.expected.json") errors"

# ---- npm ci: lock file out of date -----------------------------------------------------
cd "$WORK/npm-ci"
code=0; npm ci --no-audit --no-fund >"$SCRATCH/npm.txt" 2>&1 || code=$?
grep -v '^npm warn Unknown user config' "$SCRATCH/npm.txt" |
  $WRAP --command "npm ci" --exit-code "$code" >"$OUT/npm_ci_actions.log"
npm ci --no-audit --no-fund --json 2>/dev/null >"$SCRATCH/npm.json" || true
python3 - "$SCRATCH/npm.json" "$OUT/npm_ci_actions.expected.json" <<'PY'
import json, sys
error = json.load(open(sys.argv[1]))["error"]
failure = {"test_name": f"npm error code {error['code']}", "file_path": None, "line_number": None}
json.dump({"framework": "generic", "failures": [failure]}, open(sys.argv[2], "w"), indent=2)
open(sys.argv[2], "a").write("\n")
PY
echo "npm_ci: $(count "$OUT/npm_ci_actions.expected.json") errors"

# ---- node: an uncaught throw (raw output, not an Actions log) --------------------------
cd "$WORK/node"
GENERIC_EXPECTED=$OUT/node_throw.expected.json node -r "$HOOKS/node_expect.js" app.js \
  >"$OUT/node_throw.log" 2>&1 || true
echo "node_throw: $(count "$OUT/node_throw.expected.json") errors"

# ---- python: a traceback ---------------------------------------------------------------
cd "$WORK/python"
code=0
GENERIC_EXPECTED=$OUT/python_traceback_actions.expected.json PYTHONPATH=$HOOKS \
  PYTHONDONTWRITEBYTECODE=1 python3 migrate.py >"$SCRATCH/python.txt" 2>&1 || code=$?
$WRAP --command "python migrate.py" --exit-code "$code" <"$SCRATCH/python.txt" \
  >"$OUT/python_traceback_actions.log"
echo "python_traceback: $(count "$OUT/python_traceback_actions.expected.json") errors"

echo "corpus written to $OUT"
