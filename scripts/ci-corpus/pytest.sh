#!/usr/bin/env bash
# Regenerates crates/ci/corpus/{pytest,unittest}/ by really running pytest, unittest and
# unittest-xml-reporting on the sample project in scripts/ci-corpus/pytest-project/
# (deliberately failing, flaky and noisy passing tests). CI never runs this; the corpus test
# only reads the committed files.
#
# The project is copied to $WORK/_work/widgets/widgets/ so absolute paths in the output look
# like a self-hosted runner checkout (which `relative_path` strips). Expected failures come
# from the same run: pytest's --junitxml (names) + corpus_tools/pytest_expected_plugin.py
# (locations: the last traceback entry inside the test's file), and for unittest the result
# object of the run (corpus_tools/run_unittest.py).
#
# Configurations (one case each, every one a real run; `wrap` = GitHub Actions log, `raw` =
# the tool's output as is):
#   pytest/  default, quiet (-q), verbose (-v), report_all (-rA), tb_short, tb_line,
#            tb_short_verbose_rA, tb_long, tb_native, tb_native_verbose, tb_no, tb_no_verbose,
#            collection_error, continue_on_collection_errors, color (--color=yes),
#            color_verbose_rA, xdist (-n 2, pytest-xdist), xdist_verbose, exitfirst (-x),
#            exitfirst_verbose, reruns_verbose (-v --reruns 2, pytest-rerunfailures: a test
#            that fails once then passes = flaky, one that fails every time = failure),
#            reruns_xdist_verbose, unittest_classes (pytest running unittest.TestCase classes:
#            subTests as pytest 9 SUBFAILED, expected failures, unexpected success,
#            setUpClass/setUpModule errors), unittest_classes_verbose_rA, tox (through
#            tox.ini: tox's own lines around pytest's), nox (through noxfile.py, -q);
#            green jobs (exit code 0, noisy: warnings summary, a passing test_error_handling
#            that logs ERROR:, prints FAILED and a traceback, captured output shown):
#            green_warnings, green_report_all (-v -rA), green_report_all_s (raw, -rA -s),
#            green_reruns_verbose (a test that passes on its rerun: flaky, no failure).
#   unittest/ verbose, default, import_error(_verbose), failfast_verbose,
#            module_setup_verbose (setUpModule error), xmlrunner / xmlrunner_verbose
#            (`python -m xmlrunner discover`, unittest-xml-reporting: timed headers,
#            setUpClass error, UNEXPECTED SUCCESS block); green jobs: green_verbose, green
#            (a passing test printing Error: lines, a traceback and a FAIL: line),
#            xmlrunner_green, green_raw (green's tests, raw: nothing but unittest's
#            `Ran N tests` / `OK (...)` says the prints were a passing run's).
# Truth of each case:
#   pytest: --junitxml (xunit1) names the failures (a test failed in its call and errored in
#     teardown is one testcase name, listed once); corpus_tools/pytest_expected_plugin.py
#     (same run) gives locations and records pytest-rerunfailures' attempts (reports with
#     outcome "rerun"): a rerun test whose last attempt passed is "flaky" (junit lists only
#     passing testcases for it; checked). Under --tb=no the run prints no traceback, so the
#     expected line is left out (--no-lines) and only the file is scored. Under tox/nox the
#     report options travel in PYTEST_ADDOPTS.
#   unittest: the result object of the run (corpus_tools/run_unittest.py).
#   xmlrunner: the XML reports it writes in the run (corpus_tools/xmlrunner_expected.py;
#     an unexpected success is an <error> there, so it is a failure).
# Each case gets an empty $FLAKY_STATE_DIR, so "fails on its first attempt" is deterministic.
#
#   scripts/ci-corpus/pytest.sh   # needs python3; makes a venv in /tmp with pytest,
#                                 # pytest-xdist, pytest-rerunfailures,
#                                 # unittest-xml-reporting, tox, nox (tox/nox install pytest
#                                 # into their own environments from PyPI)
#   CASES="green_raw xmlrunner" scripts/ci-corpus/pytest.sh   # only these cases (any of
#                                 # pytest/unittest/xmlrunner), leaving the others' files alone
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VENV=${VENV:-/tmp/pytest-corpus-venv2}
WORK=${WORK:-/tmp/pytest-corpus}
OUT=$REPO/crates/ci/corpus
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV"; "$VENV/bin/pip" install -q pytest pytest-xdist \
  pytest-rerunfailures unittest-xml-reporting tox nox; }
PY=$VENV/bin/python
rm -rf "$WORK"; mkdir -p "$WORK/_work/widgets"
cp -r "$HERE/pytest-project" "$WORK/_work/widgets/widgets"
PROJ=$WORK/_work/widgets/widgets
mkdir -p "$OUT/pytest" "$OUT/unittest"
export PYTHONDONTWRITEBYTECODE=1 COLUMNS=100

# selected <case>: whether $CASES (space-separated; empty = all) names the case.
selected() { [ -z "${CASES:-}" ] || [[ " $CASES " == *" $1 "* ]]; }

# pytest_case <case> <wrap|raw> <pytest args...>
# Runs `python -m pytest <args>`; PYTEST_RUNNER=tox|nox runs it through tox/nox instead
# (tox.ini/noxfile.py of the project; the report options travel in PYTEST_ADDOPTS).
pytest_case() {
  local case=$1 mode=$2; shift 2
  selected "$case" || return 0
  local raw=$WORK/$case.raw state=$WORK/$case.state
  rm -rf "$state"; mkdir -p "$state"
  local addopts="-p pytest_expected_plugin -p no:cacheprovider -o junit_family=xunit1 --junitxml=$WORK/$case.xml"
  local cmd=("$PY" -m pytest $addopts "$@") shown="python -m pytest $*"
  case ${PYTEST_RUNNER:-} in
    tox) cmd=("$VENV/bin/tox" -e py -- "$@"); shown="tox -e py -- $*" ;;
    nox) cmd=("$VENV/bin/nox" -s tests -- "$@"); shown="nox -s tests -- $*" ;;
  esac
  (cd "$PROJ" && PYTHONPATH=$PROJ/corpus_tools PYTEST_EXPECTED_LOCATIONS=$WORK/$case.loc.json \
    FLAKY_STATE_DIR=$state PYTEST_ADDOPTS=${PYTEST_RUNNER:+$addopts} \
    "${cmd[@]}" >"$raw" 2>&1) && code=0 || code=$?
  # The junitxml path line is an artefact of how the corpus is made; drop it.
  grep -v 'generated xml file' "$raw" >"$raw.1"
  if [ "$mode" = wrap ]; then
    python3 "$HERE/wrap_actions_log.py" --command "$shown" --exit-code "$code" <"$raw.1" >"$OUT/pytest/$case.log"
  else
    cp "$raw.1" "$OUT/pytest/$case.log"
  fi
  local flags=()
  case " $* " in *" --tb=no "*) flags=(--no-lines) ;; esac
  (cd "$PROJ" && python3 corpus_tools/junit_expected.py "$WORK/$case.xml" "$WORK/$case.loc.json" \
    "$OUT/pytest/$case.expected.json" "${flags[@]}")
}

pytest_case default wrap tests
pytest_case quiet raw -q tests
pytest_case verbose wrap -v tests
pytest_case report_all wrap -rA tests
pytest_case tb_short wrap --tb=short tests
pytest_case tb_line raw -q --tb=line tests
pytest_case tb_short_verbose_rA raw -v -rA --tb=short tests
pytest_case collection_error wrap tests broken
pytest_case continue_on_collection_errors wrap -q --continue-on-collection-errors tests broken
pytest_case tb_long wrap --tb=long tests
pytest_case tb_native wrap --tb=native tests
pytest_case tb_native_verbose raw -v --tb=native tests
pytest_case tb_no wrap --tb=no tests
pytest_case tb_no_verbose raw -v --tb=no tests
pytest_case color wrap --color=yes tests
pytest_case color_verbose_rA raw --color=yes -v -rA tests
pytest_case xdist wrap -n 2 tests
pytest_case xdist_verbose wrap -n 2 -v tests
pytest_case reruns_verbose wrap -v --reruns 2 tests flaky
pytest_case reruns_xdist_verbose raw -n 2 -v --reruns 2 flaky tests
pytest_case exitfirst wrap -x tests
pytest_case exitfirst_verbose raw -x -v tests
pytest_case unittest_classes wrap unit
pytest_case unittest_classes_verbose_rA raw -v -rA unit
PYTEST_RUNNER=tox pytest_case tox wrap tests
PYTEST_RUNNER=nox pytest_case nox wrap -q tests
# Green jobs: everything passes (exit code 0), noisily.
pytest_case green_warnings wrap green
pytest_case green_report_all_s raw -rA -s green
pytest_case green_report_all wrap -v -rA green
pytest_case green_reruns_verbose wrap -v --reruns 2 green flaky/test_flaky.py

# unittest_case <case> <wrap|raw> <unittest args...>
unittest_case() {
  local case=$1 mode=$2; shift 2
  selected "$case" || return 0
  local raw=$WORK/u-$case.raw
  (cd "$PROJ" && UNITTEST_EXPECTED=$OUT/unittest/$case.expected.json \
    "$PY" corpus_tools/run_unittest.py "$@" >"$raw" 2>&1) && code=0 || code=$?
  if [ "$mode" = wrap ]; then
    python3 "$HERE/wrap_actions_log.py" --command "python -m unittest $*" --exit-code "$code" <"$raw" >"$OUT/unittest/$case.log"
  else
    cp "$raw" "$OUT/unittest/$case.log"
  fi
}

unittest_case verbose wrap -v unit.test_cart unit.test_multiline
unittest_case default raw discover -s unit -t .
unittest_case import_error_verbose wrap discover -v -s unit_broken -t .
unittest_case import_error raw discover -s unit_broken -t .
unittest_case failfast_verbose raw -v -f unit.test_multiline
unittest_case module_setup_verbose wrap -v unit.test_module_setup unit.test_multiline
unittest_case green_verbose wrap -v unit_green.test_green
unittest_case green wrap discover -s unit_green -t .
unittest_case green_raw raw discover -s unit_green -t .

# xmlrunner_case <case> <wrap|raw> <xmlrunner args...>: unittest-xml-reporting; the truth
# is the XML report it writes in the same run (corpus_tools/xmlrunner_expected.py).
xmlrunner_case() {
  local case=$1 mode=$2; shift 2
  selected "$case" || return 0
  local raw=$WORK/x-$case.raw xml=$WORK/x-$case.xml
  rm -rf "$xml"
  (cd "$PROJ" && "$PY" -m xmlrunner "$@" -o "$xml" >"$raw" 2>&1) && code=0 || code=$?
  # The report paths are an artefact of how the corpus is made; drop them.
  grep -v 'Generated XML report' "$raw" >"$raw.1"
  if [ "$mode" = wrap ]; then
    python3 "$HERE/wrap_actions_log.py" --command "python -m xmlrunner $*" --exit-code "$code" <"$raw.1" >"$OUT/unittest/$case.log"
  else
    cp "$raw.1" "$OUT/unittest/$case.log"
  fi
  (cd "$PROJ" && python3 corpus_tools/xmlrunner_expected.py "$xml" "$OUT/unittest/$case.expected.json")
}

xmlrunner_case xmlrunner_verbose wrap discover -v -s unit -t .
xmlrunner_case xmlrunner raw discover -s unit -t .
xmlrunner_case xmlrunner_green wrap discover -v -s unit_green -t .
echo "corpus written to $OUT"
