#!/usr/bin/env bash
# Regenerates crates/ci/corpus/cargo_test/ and crates/ci/corpus/nextest/ by really running
# `cargo test` and `cargo nextest run` on the sample workspace in cargo-project/ (its own
# [workspace], not a member of resolve-pr's): alpha and beta have failing tests (a failing
# doctest, a #[should_panic] test that does not panic, a flaky test, and with BETA_HARD=1 a
# test that calls std::process::abort() and one that sleeps past the `ci` profile's
# slow-timeout); gamma's tests all pass but print `FAILED`, `error:`, `Error:` and caught
# panics (green jobs), and with GAMMA_LEAK=1 one leaves a child process behind (LEAK).
# CI never runs this; it only reads the output.
#
# Expected failures never come from reading the log:
# - nextest cases: the JUnit report (`.config/nextest.toml`, profiles `default` and `ci`) of
#   the SAME run. A testcase with <failure>/<error> is a failure; one with only
#   <flakyFailure> passed on retry: listed under "flaky", not a failure. File and line come
#   from the panic location in the <failure> text.
# - cargo_test cases that run ONE test binary (`-p x --lib`, `--doc`): libtest's own report
#   of the same run, `--logfile` (`failed <name>` lines, `failed: <message> <name>` for a
#   should_panic test that did not panic; the option is in the command, and libtest warns
#   that it is deprecated). File and line are taken from the JUnit report of nextest running
#   the same selection (doctests have none).
# - cargo_test cases that run several binaries: libtest's JSON (`-Z unstable-options
#   --format json`) is nightly-only (stable 1.95 says "the option `Z` is only accepted on the
#   nightly compiler") and every binary would overwrite one `--logfile`, so the same test
#   selection is run again under nextest with JUnit for names and panic locations, and
#   doctests (which nextest cannot run) under `cargo test --doc -- --logfile`.
#
# Configurations (case: command; truth):
#   cargo_test/workspace_no_fail_fast: cargo test --workspace --no-fail-fast; nextest rerun + doc logfile
#   cargo_test/workspace_fail_fast_actions: cargo test --workspace (stops after alpha's lib); nextest -p alpha --lib
#   cargo_test/workspace_backtrace_actions: RUST_BACKTRACE=1 cargo test --workspace --no-fail-fast; nextest rerun + doc logfile
#   cargo_test/beta_only: cargo test -p beta (stops after beta's lib); nextest -p beta --lib
#   cargo_test/show_output_actions: cargo test -p alpha --lib -- --show-output (a `successes:`
#     section of noisy passing tests before the failures); logfile
#   cargo_test/nocapture_actions: cargo test -p alpha --lib -- --nocapture; logfile
#   cargo_test/terse: cargo test -p alpha --lib -- --format terse; logfile
#   cargo_test/test_threads_1: cargo test --workspace --no-fail-fast -- --test-threads=1; nextest rerun + doc logfile
#   cargo_test/doctests: cargo test -p alpha --doc (a failing doctest, a compile_fail one
#     that compiles, one that does not compile); logfile
#   cargo_test/should_panic: cargo test -p alpha --lib should (a #[should_panic] test that does not panic); logfile
#   cargo_test/make_workspace_actions: `make test` running cargo test --workspace (make's own
#     `make: *** [Makefile:3: test] Error 101`); nextest -p alpha --lib. cargo-make is not used:
#     `cargo install cargo-make` builds hundreds of crates, too slow on the 2-core machine.
#   cargo_test/colour_actions: CARGO_TERM_COLOR=always cargo test -p alpha --lib -- --color always; logfile
#   cargo_test/single_crate_no_fail_fast: cargo test --no-fail-fast in cargo-single/ (a lone
#     crate: doctests named `src/lib.rs - …`); nextest rerun + doc logfile
#   cargo_test/green_show_output_actions (green): cargo test -p gamma -- --show-output, fresh
#     build with warnings, exit 0; nextest rerun + doc logfile
#   cargo_test/green_nocapture (green, raw log): cargo test -p gamma --lib -- --nocapture; logfile
#   cargo_test/green_nocapture_one_thread (green, raw): ... -- --nocapture --test-threads=1
#     (the tests' output continues libtest's `test name ... ` line); logfile
#   cargo_test/green_plain (green, raw): cargo test -p gamma; nextest rerun + doc logfile
#   nextest/default_no_fail_fast: cargo nextest run --workspace --no-fail-fast (flaky fails its only try)
#   nextest/retries_flaky_actions: --no-fail-fast --retries 2 (flaky passes on try 2)
#   nextest/fail_fast_actions: cargo nextest run --workspace -j 1 (cancels after the first failure)
#   nextest/beta_backtrace: RUST_BACKTRACE=1 cargo nextest run -p beta --no-fail-fast
#   nextest/retries_abort_timeout_actions: BETA_HARD=1 cargo nextest run --profile ci
#     --workspace --no-fail-fast --retries 2 (ABRT and TMT on every try, a flaky test)
#   junit/nextest_abort_timeout_retries.xml: that run's JUnit report (ABRT, TMT, flaky), for the
#     JUnit reader; truth: the run's closing summary (junit_expected.py, as junit.sh does)
#   nextest/abort_timeout: BETA_HARD=1 cargo nextest run --profile ci -p beta --no-fail-fast
#     (SIGABRT, TIMEOUT)
#   nextest/colour_retries_abort_actions: CARGO_TERM_COLOR=always BETA_HARD=1 cargo nextest run
#     --profile ci -p beta --no-fail-fast --retries 2
#   nextest/failure_output_final: cargo nextest run -p beta --no-fail-fast --retries 1
#     --failure-output final --status-level fail (the flaky test appears only as FLAKY 2/2)
#   nextest/no_capture_retries_actions: cargo nextest run -p beta --no-fail-fast --no-capture
#     --retries 1 (output before each status line; libtest's report in it is not cargo test's)
#   nextest/green_leaky (green, raw): GAMMA_LEAK=1 cargo nextest run -p gamma (`LEAK`: a pass
#     that left a process behind)
#   nextest/leak_fail_retries_actions: GAMMA_LEAK=1 cargo nextest run --profile leaky -p gamma
#     --retries 1 (leak-timeout result "fail": `TRY n LKFAIL`)
#   nextest/green_retries_flaky_actions (green): cargo nextest run -p gamma --retries 2, fresh
#     build with warnings, a test that passes on its second try, exit 0
#   nextest/green_no_capture (green, raw log): cargo nextest run -p gamma --no-capture
#   nextest/green_retries_flaky (green, raw log): cargo nextest run -p gamma --retries 2
#
# Needs cargo, cargo-nextest and make; builds into CARGO_TARGET_DIR=/tmp/ci-corpus-target.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
proj="$here/cargo-project"
corpus="$here/../../crates/ci/corpus"
wrap="$here/wrap_actions_log.py"
export CARGO_TARGET_DIR=/tmp/ci-corpus-target
export CARGO_TERM_COLOR=never
export RUST_BACKTRACE=0
unset BETA_FLAKY_STATE GAMMA_FLAKY_STATE BETA_HARD GAMMA_LEAK
mkdir -p "$corpus/cargo_test" "$corpus/nextest"
cd "$proj"
# Fresh build each time so compiler warnings are in the first log.
cargo clean -q -p alpha -p beta -p gamma 2>/dev/null || true

junit_expected() { # <junit.xml> <framework> [doc-logfile [names-logfile]] > expected.json
  # names-logfile: the failures are the `failed <name>` lines of libtest's --logfile of the
  # run itself; the JUnit report then only gives their locations.
  python3 - "$@" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
junit, framework = sys.argv[1], sys.argv[2]
doc = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
names = sys.argv[4] if len(sys.argv) > 4 else None
loc = re.compile(r"(?:panicked at|did not panic as expected at) ([^\s:]+):(\d+)")
failures, flaky, where = [], [], {}
for case in ET.parse(junit).getroot().iter("testcase"):
    bad = case.find("failure")
    if bad is None:
        bad = case.find("error")
    if bad is None:
        if case.find("flakyFailure") is not None:
            flaky.append({"test_name": case.get("name")})
        continue
    m = loc.search((bad.get("message") or "") + "\n" + (bad.text or ""))
    where[case.get("name")] = (m.group(1), int(m.group(2))) if m else (None, None)
    failures.append({"test_name": case.get("name"),
                     "file_path": m.group(1) if m else None,
                     "line_number": int(m.group(2)) if m else None})
def logfile_failures(path):
    out = []
    for line in open(path):
        # libtest writes `failed <name>`, or `failed: <message> <name>` for a #[should_panic]
        # test that did not panic (a unit test's name has no spaces).
        if line.startswith("failed: "):
            name = line.split()[-1]
        elif line.startswith("failed "):
            name = line[len("failed "):].strip()
        else:
            continue
        f, l = where.get(name, (None, None))
        out.append({"test_name": name, "file_path": f, "line_number": l})
    return out
if names:
    failures, flaky = logfile_failures(names), []
if doc:
    failures += logfile_failures(doc)
# Sorted, so that a rerun whose tests finished in another order gives the same file.
failures.sort(key=lambda f: f["test_name"])
flaky.sort(key=lambda f: f["test_name"])
out = {"framework": framework, "failures": failures}
if flaky:
    out["flaky"] = flaky
json.dump(out, sys.stdout, indent=2)
print()
PY
}

junit="$proj/target/nextest/default/junit.xml"
emit() { # <framework> <case> <command-for-wrapper or ''> [exit code]; raw output in /tmp/ci-corpus-raw.txt
  if [ -n "$3" ]; then
    python3 "$wrap" --command "$3" --exit-code "${4:-101}" < /tmp/ci-corpus-raw.txt > "$corpus/$1/$2.log"
  else
    cp /tmp/ci-corpus-raw.txt "$corpus/$1/$2.log"
  fi
}
logfile=/tmp/ci-corpus-libtest.log
# libtest_case <case> <wrap|raw> <cargo test args...>: one test binary, truth from its own
# --logfile, locations from nextest running the same selection (the args before `--`).
libtest_case() {
  local case=$1 mode=$2; shift 2
  local sel=() a
  for a in "$@"; do [ "$a" = -- ] && break; sel+=("$a"); done
  local args=("$@")
  [ "${#sel[@]}" = "$#" ] && args+=(--)
  args+=(--logfile "$logfile")
  rm -f "$logfile"
  cargo test "${args[@]}" > /tmp/ci-corpus-raw.txt 2>&1 && code=0 || code=$?
  emit cargo_test "$case" "$([ "$mode" = wrap ] && echo "cargo test ${args[*]}")" "$code"
  local junit_sel=("${sel[@]}")
  if [[ " ${sel[*]} " == *" --doc "* ]]; then
    junit_sel=(-p alpha --lib)   # nextest cannot run doctests: no locations for them
  fi
  cargo nextest run "${junit_sel[@]}" --no-fail-fast > /dev/null 2>&1 || true
  junit_expected "$junit" cargo_test '' "$logfile" > "$corpus/cargo_test/$case.expected.json"
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

# 5. --show-output: a `successes:` section with the passing tests' noisy output comes before
#    the failures.
libtest_case show_output_actions wrap -p alpha --lib -- --show-output

# 6. --nocapture: no stdout blocks, panics inline.
libtest_case nocapture_actions wrap -p alpha --lib -- --nocapture

# 7. --format terse: no `test x ... FAILED` lines.
libtest_case terse raw -p alpha --lib -- --format terse

# 8. Doctests only: a failing doctest.
libtest_case doctests raw -p alpha --doc

# 9. A filter selecting the #[should_panic] test that does not panic.
libtest_case should_panic raw -p alpha --lib should

# 10. One test thread, whole workspace.
cargo test --workspace --no-fail-fast -- --test-threads=1 > /tmp/ci-corpus-raw.txt 2>&1 || true
emit cargo_test test_threads_1 ''
cargo nextest run --workspace --no-fail-fast > /dev/null 2>&1 || true
rm -f /tmp/ci-corpus-doc.txt
cargo test -p alpha --doc -- --logfile /tmp/ci-corpus-doc.txt > /dev/null 2>&1 || true
junit_expected "$junit" cargo_test /tmp/ci-corpus-doc.txt > "$corpus/cargo_test/test_threads_1.expected.json"

# 11. Under make: `make test` runs `cargo test --workspace` (fail-fast) and adds its own
#     `make: *** [Makefile:3: test] Error 101`.
make test > /tmp/ci-corpus-raw.txt 2>&1 && code=0 || code=$?
emit cargo_test make_workspace_actions 'make test' "$code"
cargo nextest run -p alpha --lib --no-fail-fast > /dev/null 2>&1 || true
junit_expected "$junit" cargo_test > "$corpus/cargo_test/make_workspace_actions.expected.json"

# 12. Green: gamma's passing tests print FAILED, error:, Error: and caught panics, shown with
#     --show-output; a fresh build of gamma so its compiler warning is in the log.
cargo clean -q -p gamma 2>/dev/null || true
cargo test -p gamma -- --show-output > /tmp/ci-corpus-raw.txt 2>&1 && code=0 || code=$?
emit cargo_test green_show_output_actions 'cargo test -p gamma -- --show-output' "$code"
cargo nextest run -p gamma --no-fail-fast > /dev/null 2>&1 || true
rm -f /tmp/ci-corpus-doc.txt
cargo test -p gamma --doc -- --logfile /tmp/ci-corpus-doc.txt > /dev/null 2>&1 || true
junit_expected "$junit" cargo_test /tmp/ci-corpus-doc.txt > "$corpus/cargo_test/green_show_output_actions.expected.json"

# 13. Green, raw log (the generic fallback reads it whole): --nocapture.
libtest_case green_nocapture raw -p gamma --lib -- --nocapture

# 14. Green, raw: --nocapture on one thread: libtest prints `test name ... ` before the test
#     runs, so the test's own output continues that line.
libtest_case green_nocapture_one_thread raw -p gamma --lib -- --nocapture --test-threads=1

# 15. Green, raw, plain `cargo test -p gamma` (unit tests and doctests, captured output).
cargo test -p gamma > /tmp/ci-corpus-raw.txt 2>&1 || true
emit cargo_test green_plain ''
cargo nextest run -p gamma --no-fail-fast > /dev/null 2>&1 || true
rm -f /tmp/ci-corpus-doc.txt
cargo test -p gamma --doc -- --logfile /tmp/ci-corpus-doc.txt > /dev/null 2>&1 || true
junit_expected "$junit" cargo_test /tmp/ci-corpus-doc.txt > "$corpus/cargo_test/green_plain.expected.json"

# 16. Colour: CARGO_TERM_COLOR=always and libtest's --color always (escape codes around
#     `FAILED`, `ok` and cargo's own words).
CARGO_TERM_COLOR=always libtest_case colour_actions wrap -p alpha --lib -- --color always

# 17. A single-crate project (cargo-single/, no workspace members): doctests are named
#     `src/lib.rs - add (line 5)`; --no-fail-fast so the doctests run after the unit tests fail.
(
  cd "$here/cargo-single"
  cargo test --no-fail-fast > /tmp/ci-corpus-raw.txt 2>&1 || true
  emit cargo_test single_crate_no_fail_fast ''
  cargo nextest run --no-fail-fast > /dev/null 2>&1 || true
  rm -f /tmp/ci-corpus-doc.txt
  cargo test --doc -- --logfile /tmp/ci-corpus-doc.txt > /dev/null 2>&1 || true
  junit_expected target/nextest/default/junit.xml cargo_test /tmp/ci-corpus-doc.txt > "$corpus/cargo_test/single_crate_no_fail_fast.expected.json"
  rm -rf target Cargo.lock
)

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

# 5. The `ci` profile (slow-timeout 1s, terminate after 2) with BETA_HARD=1: an aborting
#    test (ABRT on each try) and a hanging one (TMT on each try), --retries 2, whole
#    workspace; the flaky test passes on its second try. Actions log.
cijunit="$proj/target/nextest/ci/junit.xml"
rm -f "$state"
BETA_HARD=1 BETA_FLAKY_STATE="$state" cargo nextest run --profile ci --workspace --no-fail-fast --retries 2 > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest retries_abort_timeout_actions 'cargo nextest run --profile ci --workspace --no-fail-fast --retries 2'
junit_expected "$cijunit" nextest > "$corpus/nextest/retries_abort_timeout_actions.expected.json"
# The same run's JUnit report is a case of the JUnit reader too (corpus/junit/); as in
# junit.sh, its truth is nextest's closing summary of the run (junit_expected.py).
cp "$cijunit" "$corpus/junit/nextest_abort_timeout_retries.xml"
python3 "$here/junit_expected.py" nextest /tmp/ci-corpus-raw.txt "$corpus/junit/nextest_abort_timeout_retries.expected.json"

# 6. The same without retries, one crate: SIGABRT and TIMEOUT.
BETA_HARD=1 cargo nextest run --profile ci -p beta --no-fail-fast > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest abort_timeout ''
junit_expected "$cijunit" nextest > "$corpus/nextest/abort_timeout.expected.json"

# 7. Green: --retries 2 where gamma's flaky test passes on its second try (FLAKY, exit 0),
#    fresh build with a compiler warning, noisy passing tests. Actions log.
gstate=/tmp/ci-corpus-gamma-state
rm -f "$gstate"
cargo clean -q -p gamma 2>/dev/null || true
GAMMA_FLAKY_STATE="$gstate" cargo nextest run -p gamma --retries 2 > /tmp/ci-corpus-raw.txt 2>&1 && code=0 || code=$?
emit nextest green_retries_flaky_actions 'cargo nextest run -p gamma --retries 2' "$code"
junit_expected "$junit" nextest > "$corpus/nextest/green_retries_flaky_actions.expected.json"

# 8. Green, raw log: --no-capture prints the tests' noisy output (and caught panics) as is.
cargo nextest run -p gamma --no-capture > /tmp/ci-corpus-raw.txt 2>&1 && code=0 || code=$?
emit nextest green_no_capture ''
junit_expected "$junit" nextest > "$corpus/nextest/green_no_capture.expected.json"

# 9. Green, raw log: --retries 2 with the flaky test passing on its second try.
rm -f "$gstate"
GAMMA_FLAKY_STATE="$gstate" cargo nextest run -p gamma --retries 2 > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest green_retries_flaky ''
junit_expected "$junit" nextest > "$corpus/nextest/green_retries_flaky.expected.json"

# 10. Colour (CARGO_TERM_COLOR=always, as many Rust workflows set it), the `ci` profile with
#     BETA_HARD=1 and --retries 2, one crate. Actions log.
rm -f "$state"
BETA_HARD=1 BETA_FLAKY_STATE="$state" CARGO_TERM_COLOR=always cargo nextest run --profile ci -p beta --no-fail-fast --retries 2 > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest colour_retries_abort_actions 'cargo nextest run --profile ci -p beta --no-fail-fast --retries 2'
junit_expected "$cijunit" nextest > "$corpus/nextest/colour_retries_abort_actions.expected.json"

# 11. --failure-output final --status-level fail: only the last attempts' lines, the outputs
#     after the run; the flaky test shows only as `FLAKY 2/2`.
rm -f "$state"
BETA_FLAKY_STATE="$state" cargo nextest run -p beta --no-fail-fast --retries 1 --failure-output final --status-level fail > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest failure_output_final ''
junit_expected "$junit" nextest > "$corpus/nextest/failure_output_final.expected.json"

# 12. --no-capture with --retries 1: each test's libtest output, unindented, before its
#     status line; the flaky test fails its first try and passes the second. Actions log.
rm -f "$state"
BETA_FLAKY_STATE="$state" cargo nextest run -p beta --no-fail-fast --no-capture --retries 1 > /tmp/ci-corpus-raw.txt 2>&1 || true
emit nextest no_capture_retries_actions 'cargo nextest run -p beta --no-fail-fast --no-capture --retries 1'
junit_expected "$junit" nextest > "$corpus/nextest/no_capture_retries_actions.expected.json"

# 13. Green, raw: with GAMMA_LEAK=1 a test leaves a child process holding its output; nextest
#     shows `LEAK`, a pass by default (`7 passed (1 leaky)`).
GAMMA_LEAK=1 cargo nextest run -p gamma > /tmp/ci-corpus-raw.txt 2>&1 && code=0 || code=$?
emit nextest green_leaky ''
junit_expected "$junit" nextest > "$corpus/nextest/green_leaky.expected.json"

# 14. The `leaky` profile makes a leak a failure: `TRY n LKFAIL` with --retries 1. Actions log.
GAMMA_LEAK=1 cargo nextest run --profile leaky -p gamma --retries 1 > /tmp/ci-corpus-raw.txt 2>&1 && code=0 || code=$?
emit nextest leak_fail_retries_actions 'cargo nextest run --profile leaky -p gamma --retries 1' "$code"
junit_expected "$proj/target/nextest/leaky/junit.xml" nextest > "$corpus/nextest/leak_fail_retries_actions.expected.json"

rm -rf "$proj/target" "$proj/Cargo.lock" /tmp/ci-corpus-raw.txt /tmp/ci-corpus-doc.txt "$state" "$gstate" "$logfile"
echo "corpus written to $corpus/{cargo_test,nextest}"
