#!/usr/bin/env bash
# Regenerates crates/ci/corpus/junit/ by really running test tools that write JUnit XML on the
# small failing projects in scripts/ci-corpus/junit-*/. CI never runs this; the corpus test
# only reads the committed files (<case>.xml scored with `parse_junit`).
#
# Each project is copied to $SCRATCH/home/runner/work/<repo>/<repo> so absolute paths in the
# reports look like a GitHub-hosted runner checkout. Each <case>.expected.json comes from the
# tool's OWN other machine-readable report of the same run (junit_expected.py says which):
#   pytest   --junitxml          vs  pytest-reportlog's --report-log
#   jest     jest-junit          vs  jest --json --outputFile
#   nextest  --profile ci junit  vs  the run's closing summary listing (libtest JSON is unstable)
#   phpunit  --log-junit         vs  --log-teamcity
# junit/mocha_junit_reporter.xml and junit/xmlrunner.xml were made by hand from junit-mocha/
# (npx mocha --reporter mocha-multi-reporters --reporter-options configFile=reporters.json
# 'test/**/*.spec.js') and junit-xmlrunner/ (python -m xmlrunner discover -s tests -t .
# --output-file …), run in /home/runner/work/shop/shop, their expected.json from the logs of
# the same runs; the tools scenario ci_mocha_xmlrunner_junit.yaml holds both logs and reports.
# Maven surefire is not in the corpus: it needs Maven Central, which was unreachable where the
# corpus was made (DNS for repo.maven.apache.org failed).
#
# Needs python3 (makes a venv with pytest and pytest-reportlog), node/npm (npm registry),
# cargo with cargo-nextest, and phpunit (Debian: apt-get install phpunit).
#
#   scripts/ci-corpus/junit.sh [pytest|jest|nextest|phpunit ...]   # default: all
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/crates/ci/corpus/junit
SCRATCH=${SCRATCH:-/tmp/ci-corpus-junit}
VENV=${VENV:-/tmp/ci-corpus-junit-venv}
EXPECTED="python3 $HERE/junit_expected.py"
mkdir -p "$OUT"
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(pytest jest nextest phpunit)

# checkout <project dir> <repo name>: prints the scratch checkout path
checkout() {
  local work=$SCRATCH/home/runner/work/$2/$2
  rm -rf "$work"
  mkdir -p "$(dirname "$work")"
  cp -r "$HERE/$1" "$work"
  echo "$work"
}

count() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["failures"]))' "$1"; }

run_pytest() {
  [ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV"; "$VENV/bin/pip" install -q pytest pytest-reportlog; }
  local work
  work=$(checkout junit-pytest shop)
  export PYTHONDONTWRITEBYTECODE=1
  # xunit1 writes `file` and (0-based) `line`; xunit2, pytest's default, writes neither.
  for family in xunit1 xunit2; do
    (cd "$work" && "$VENV/bin/python" -m pytest -p no:cacheprovider -o junit_family=$family \
      --junitxml="$OUT/pytest_$family.xml" --report-log="$SCRATCH/pytest_$family.jsonl" tests \
      >/dev/null 2>&1) || true
    $EXPECTED pytest "$SCRATCH/pytest_$family.jsonl" "$OUT/pytest_$family.expected.json"
    echo "pytest_$family: $(count "$OUT/pytest_$family.expected.json") failures"
  done
}

run_jest() {
  local work
  work=$(checkout junit-jest shop)
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  # default: jest-junit's default templates (no file attribute).
  # file_attr: addFileAttribute, and {classname}/{title} templates (name = the test title).
  local case
  for case in default file_attr; do
    local env=(env CI=true "JEST_JUNIT_OUTPUT_FILE=$OUT/jest_$case.xml")
    if [ "$case" = file_attr ]; then
      env+=(JEST_JUNIT_ADD_FILE_ATTRIBUTE=true "JEST_JUNIT_CLASSNAME={classname}" "JEST_JUNIT_TITLE={title}")
    fi
    (cd "$work" && "${env[@]}" npx jest --ci --reporters=default --reporters=jest-junit \
      --json "--outputFile=$SCRATCH/jest_$case.json" >/dev/null 2>&1) || true
    $EXPECTED jest "$SCRATCH/jest_$case.json" "$work" "$OUT/jest_$case.expected.json"
    echo "jest_$case: $(count "$OUT/jest_$case.expected.json") failures"
  done
}

run_nextest() {
  local work
  work=$(checkout junit-nextest ledger)
  export CARGO_TERM_COLOR=never
  # retries: the ci profile retries twice; tests::flaky_clock fails once then passes (FLAKY,
  #   <flakyFailure> only), the others fail every try (<failure> + <rerunFailure>s).
  # backtrace: RUST_BACKTRACE=1, so every failure text carries a stack backtrace.
  local case
  for case in retries backtrace; do
    rm -f "$SCRATCH/flaky-state"
    local env
    if [ "$case" = retries ]; then
      env=(env -u CARGO_TARGET_DIR RUST_BACKTRACE=0 "LEDGER_FLAKY_STATE=$SCRATCH/flaky-state")
    else
      env=(env -u CARGO_TARGET_DIR -u LEDGER_FLAKY_STATE RUST_BACKTRACE=1)
    fi
    (cd "$work" && "${env[@]}" cargo nextest run --profile ci >"$SCRATCH/nextest_$case.txt" 2>&1) || true
    cp "$work/target/nextest/ci/junit.xml" "$OUT/nextest_$case.xml"
    $EXPECTED nextest "$SCRATCH/nextest_$case.txt" "$OUT/nextest_$case.expected.json"
    echo "nextest_$case: $(count "$OUT/nextest_$case.expected.json") failures"
  done
}

run_phpunit() {
  local work
  work=$(checkout junit-phpunit calc)
  (cd "$work" && phpunit --log-junit "$OUT/phpunit.xml" --log-teamcity "$SCRATCH/phpunit.tc" tests \
    >/dev/null 2>&1) || true
  $EXPECTED phpunit "$SCRATCH/phpunit.tc" "$work" "$OUT/phpunit.expected.json"
  echo "phpunit: $(count "$OUT/phpunit.expected.json") failures"
}

for tool in "${tools[@]}"; do
  "run_$tool"
done
echo "corpus written to $OUT"
