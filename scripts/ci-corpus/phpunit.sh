#!/usr/bin/env bash
# Regenerates crates/ci/corpus/phpunit/ by really running PHPUnit 9.6 (Debian: apt-get install
# phpunit) on the sample project in phpunit-project/ (assertion failures with diffs, exceptions
# and PHP warnings that PHPUnit reports as errors, a failure inside a helper, data providers
# with numbered and named data sets; and, not failures: a risky test, a PHPUnit warning,
# incomplete and skipped tests, a passing test printing `error:` to stderr). CI never runs it.
# phpunit-green.xml runs tests/Green only: passing tests that echo `FAILURES!` and `Error:`,
# print `error:` and a PHP warning to stderr, raise a real PHP deprecation, with named data
# sets and a skipped test, under a configuration with a deprecated schema (PHPUnit warns).
#
# Configurations: default_actions (job log), verbose (--verbose, raw), colors_actions
# (--colors=always), testdox_actions, testdox_colors (raw), one_file (raw),
# data_provider_filter (--filter testTotals: the data-set failures `#1` and "bulk order"
# alone, raw), data_provider_testdox (the same with --testdox, raw), stop_on_failure_actions
# (--stop-on-failure), green_actions and
# green_testdox_actions (-c phpunit-green.xml, exit 0, job logs), green_raw and
# green_testdox_raw (the same runs, raw: only PHPUnit's `OK, but incomplete, skipped, or
# risky tests!` summary says the `Error:` lines and the echoed `FAILURES!` before it were a
# passing run's; under --testdox the skipped tests are listed between `Time:` and it).
#
# The project is copied to $SCRATCH/home/runner/work/widgets/widgets (a runner checkout).
# Each case runs phpunit once with `--log-junit report.xml`; the expected failures come only
# from that report: every <testcase> with a <failure> or an <error>, except errors of type
# PHPUnit\Framework\RiskyTestError (risky tests are not failures); test_name =
# `<class attribute>::<name attribute>` (`Ns\CartTest::testTotals with data set #1`);
# file_path = the first `<path>:<line>` line of the failure text whose path is the testcase's
# file attribute (relative to the checkout), else the file attribute; line_number = that
# line, else the testcase's line attribute.
#
#   CASES="green_raw" scripts/ci-corpus/phpunit.sh   # only these cases; the others' files
#                                                    # are left alone
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/crates/ci/corpus/phpunit
SCRATCH=${SCRATCH:-/tmp/ci-corpus-phpunit}
WORK=$SCRATCH/home/runner/work/widgets/widgets
WRAP=$HERE/wrap_actions_log.py
rm -rf "$SCRATCH"; mkdir -p "$WORK" "$OUT"
cp -r "$HERE/phpunit-project/." "$WORK/"

phpunit_expected() { # <junit.xml> > expected.json
  python3 - "$1" "$WORK" <<'PY'
import json, re, sys
import xml.etree.ElementTree as ET
junit, work = sys.argv[1], sys.argv[2]

def rel(p):
    return p[len(work) + 1:] if p.startswith(work + "/") else p

failures = []
for case in ET.parse(junit).getroot().iter("testcase"):
    bad = case.find("failure")
    if bad is None:
        bad = case.find("error")
    if bad is None or bad.get("type") == "PHPUnit\\Framework\\RiskyTestError":
        continue
    file = case.get("file")
    line = None
    for m in re.finditer(r"^(.+\.php):(\d+)$", bad.text or "", re.M):
        if m.group(1) == file:
            line = int(m.group(2))
            break
    failures.append({"test_name": f"{case.get('class')}::{case.get('name')}",
                     "file_path": rel(file),
                     "line_number": line or int(case.get("line"))})
json.dump({"framework": "phpunit", "failures": failures}, sys.stdout, indent=2)
print()
PY
}

# run_case <case> <wrap|raw> <phpunit args...>
run_case() {
  local case=$1 mode=$2; shift 2
  [ -z "${CASES:-}" ] || [[ " $CASES " == *" $case "* ]] || return 0
  (cd "$WORK" && phpunit --log-junit "$SCRATCH/$case.xml" "$@" >"$SCRATCH/$case.txt" 2>&1) && code=0 || code=$?
  if [ "$mode" = wrap ]; then
    python3 "$WRAP" --command "vendor/bin/phpunit $*" --exit-code "$code" <"$SCRATCH/$case.txt" >"$OUT/$case.log"
  else
    cp "$SCRATCH/$case.txt" "$OUT/$case.log"
  fi
  phpunit_expected "$SCRATCH/$case.xml" >"$OUT/$case.expected.json"
}

run_case default_actions wrap
run_case verbose raw --verbose
run_case colors_actions wrap --colors=always
run_case testdox_actions wrap --testdox
run_case testdox_colors raw --testdox --colors=always
run_case one_file raw tests/Unit/ReceiptTest.php
run_case data_provider_filter raw --filter testTotals
run_case data_provider_testdox raw --testdox --filter testTotals
run_case stop_on_failure_actions wrap --stop-on-failure
run_case green_actions wrap -c phpunit-green.xml
run_case green_testdox_actions wrap -c phpunit-green.xml --testdox
run_case green_raw raw -c phpunit-green.xml
run_case green_testdox_raw raw -c phpunit-green.xml --testdox
echo "corpus written to $OUT"
