#!/usr/bin/env bash
# Regenerates crates/ci/corpus/cargo_test/ and crates/ci/corpus/nextest/ by really running
# `cargo test` and `cargo nextest run` on the sample workspace in cargo-project/ (its own
# [workspace], not a member of resolve-pr's). CI never runs this; it only reads the output.
#
# Expected failures never come from reading the log:
# - nextest cases: the JUnit report (`.config/nextest.toml`) of the SAME run. A testcase with
#   <failure>/<error> is a failure; one with only <flakyFailure> passed on retry (flaky, not a
#   failure). File and line come from the panic location in the <failure> text.
# - cargo_test cases: libtest's JSON (`-Z unstable-options --format json`) is nightly-only
#   (stable 1.95 says "the option `Z` is only accepted on the nightly compiler"), so the same
#   test selection is run again under nextest with JUnit for names and panic locations, and
#   doctests (which nextest cannot run) under `cargo test --doc -- --logfile` (libtest's
#   plain-text `failed <name>` report; no location, so doctests have none in expected.json).
#
# Needs cargo and cargo-nextest; builds into CARGO_TARGET_DIR=/tmp/ci-corpus-target.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
proj="$here/cargo-project"
corpus="$here/../../crates/ci/corpus"
wrap="$here/wrap_actions_log.py"
export CARGO_TARGET_DIR=/tmp/ci-corpus-target
export CARGO_TERM_COLOR=never
export RUST_BACKTRACE=0
unset BETA_FLAKY_STATE
mkdir -p "$corpus/cargo_test" "$corpus/nextest"
cd "$proj"
# Fresh build each time so compiler warnings are in the first log.
cargo clean -q -p alpha -p beta 2>/dev/null || true

junit_expected() { # <junit.xml> <framework> [doc-logfile] > expected.json
  python3 - "$@" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
junit, framework = sys.argv[1], sys.argv[2]
doc = sys.argv[3] if len(sys.argv) > 3 else None
loc = re.compile(r"(?:panicked at|did not panic as expected at) ([^\s:]+):(\d+)")
failures = []
for case in ET.parse(junit).getroot().iter("testcase"):
    bad = case.find("failure")
    if bad is None:
        bad = case.find("error")
    if bad is None:
        continue
    m = loc.search((bad.get("message") or "") + "\n" + (bad.text or ""))
    failures.append({"test_name": case.get("name"),
                     "file_path": m.group(1) if m else None,
                     "line_number": int(m.group(2)) if m else None})
if doc:
    for line in open(doc):
        if line.startswith("failed "):
            failures.append({"test_name": line[len("failed "):].strip(),
                             "file_path": None, "line_number": None})
json.dump({"framework": framework, "failures": failures}, sys.stdout, indent=2)
print()
PY
}

junit="$proj/target/nextest/default/junit.xml"
emit() { # <framework> <case> <command-for-wrapper or ''> ; raw output in /tmp/ci-corpus-raw.txt
  if [ -n "$3" ]; then
    python3 "$wrap" --command "$3" --exit-code 101 < /tmp/ci-corpus-raw.txt > "$corpus/$1/$2.log"
  else
    cp /tmp/ci-corpus-raw.txt "$corpus/$1/$2.log"
  fi
}

# ---- cargo test ----------------------------------------------------------------------
# 1. Whole workspace, --no-fail-fast: every binary and the doctests run; compiler warnings.
cargo test --workspace --no-fail-fast > /tmp/ci-corpus-raw.txt 2>&1 || true
emit cargo_test workspace_no_fail_fast ''
cargo nextest run --workspace --no-fail-fast > /dev/null 2>&1 || true
rm -f /tmp/ci-corpus-doc.txt
cargo test -p alpha --doc -- --logfile /tmp/ci-corpus-doc.txt > /dev/null 2>&1 || true
junit_expected "$junit" cargo_test /tmp/ci-corpus-doc.txt > "$corpus/cargo_test/workspace_no_fail_fast.expected.json"

# 2. Whole workspace, fail-fast (the default): stops after the first failing binary (alpha's
#    unit tests), as a GitHub Actions job log.
cargo test --workspace > /tmp/ci-corpus-raw.txt 2>&1 || true
emit cargo_test workspace_fail_fast_actions 'cargo test --workspace'
cargo nextest run -p alpha --lib --no-fail-fast > /dev/null 2>&1 || true
junit_expected "$junit" cargo_test > "$corpus/cargo_test/workspace_fail_fast_actions.expected.json"

# 3. --no-fail-fast with RUST_BACKTRACE=1: stack backtraces in every failure, Actions log.
RUST_BACKTRACE=1 cargo test --workspace --no-fail-fast > /tmp/ci-corpus-raw.txt 2>&1 || true
emit cargo_test workspace_backtrace_actions 'cargo test'
RUST_BACKTRACE=1 cargo nextest run --workspace --no-fail-fast > /dev/null 2>&1 || true
rm -f /tmp/ci-corpus-doc.txt
RUST_BACKTRACE=1 cargo test -p alpha --doc -- --logfile /tmp/ci-corpus-doc.txt > /dev/null 2>&1 || true
junit_expected "$junit" cargo_test /tmp/ci-corpus-doc.txt > "$corpus/cargo_test/workspace_backtrace_actions.expected.json"

# 4. One crate (beta): a unit-test binary and an integration-test binary.
cargo test -p beta > /tmp/ci-corpus-raw.txt 2>&1 || true
emit cargo_test beta_only ''
cargo nextest run -p beta --lib > /dev/null 2>&1 || true   # cargo test stops after lib
junit_expected "$junit" cargo_test > "$corpus/cargo_test/beta_only.expected.json"

# ---- nextest ---------------------------------------------------------------------------
state=/tmp/ci-corpus-flaky-state
# 1. Default run, no retries: the flaky test fails its only attempt, so it is a failure.
rm -f "$state"
BETA_FLAKY_STATE="$state" cargo nextest run --workspace --no-fail-fast > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest default_no_fail_fast ''
junit_expected "$junit" nextest > "$corpus/nextest/default_no_fail_fast.expected.json"

# 2. --retries 2: the flaky test passes on its second try (FLAKY, not a failure); the rest
#    fail three times each. Actions log.
rm -f "$state"
BETA_FLAKY_STATE="$state" cargo nextest run --workspace --no-fail-fast --retries 2 > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest retries_flaky_actions 'cargo nextest run --workspace --retries 2'
junit_expected "$junit" nextest > "$corpus/nextest/retries_flaky_actions.expected.json"

# 3. Fail-fast (the default): nextest cancels after the first failure. Serial so the set of
#    tests that ran is deterministic.
rm -f "$state"
cargo nextest run --workspace -j 1 > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest fail_fast_actions 'cargo nextest run --workspace'
junit_expected "$junit" nextest > "$corpus/nextest/fail_fast_actions.expected.json"

# 4. With backtraces, one crate.
RUST_BACKTRACE=1 cargo nextest run -p beta --no-fail-fast > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest beta_backtrace ''
junit_expected "$junit" nextest > "$corpus/nextest/beta_backtrace.expected.json"

rm -rf "$proj/target" "$proj/Cargo.lock" /tmp/ci-corpus-raw.txt /tmp/ci-corpus-doc.txt "$state"
echo "corpus written to $corpus/{cargo_test,nextest}"
