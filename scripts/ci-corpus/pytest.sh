#!/usr/bin/env bash
# Regenerates crates/ci/corpus/{pytest,unittest}/ by really running pytest and unittest on the
# sample project in scripts/ci-corpus/pytest-project/ (deliberately failing tests). CI never
# runs this; the corpus test only reads the committed files.
#
# The project is copied to $WORK/_work/widgets/widgets/ so absolute paths in the output look
# like a self-hosted runner checkout (which `relative_path` strips). Expected failures come
# from the same run: pytest's --junitxml (names) + corpus_tools/pytest_expected_plugin.py
# (locations: the last traceback entry inside the test's file), and for unittest the result
# object of the run (corpus_tools/run_unittest.py).
#
#   scripts/ci-corpus/pytest.sh            # needs python3; makes a venv with pytest in /tmp
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VENV=${VENV:-/tmp/pytest-corpus-venv}
WORK=${WORK:-/tmp/pytest-corpus}
OUT=$REPO/crates/ci/corpus
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV"; "$VENV/bin/pip" install -q pytest; }
PY=$VENV/bin/python
rm -rf "$WORK"; mkdir -p "$WORK/_work/widgets"
cp -r "$HERE/pytest-project" "$WORK/_work/widgets/widgets"
PROJ=$WORK/_work/widgets/widgets
mkdir -p "$OUT/pytest" "$OUT/unittest"
export PYTHONDONTWRITEBYTECODE=1 COLUMNS=100

# pytest_case <case> <wrap|raw> <pytest args...>
pytest_case() {
  local case=$1 mode=$2; shift 2
  local raw=$WORK/$case.raw
  (cd "$PROJ" && PYTHONPATH=corpus_tools PYTEST_EXPECTED_LOCATIONS=$WORK/$case.loc.json \
    "$PY" -m pytest -p pytest_expected_plugin -p no:cacheprovider -o junit_family=xunit1 \
    --junitxml="$WORK/$case.xml" "$@" >"$raw" 2>&1) && code=0 || code=$?
  # The junitxml path line is an artefact of how the corpus is made; drop it.
  grep -v 'generated xml file' "$raw" >"$raw.1"
  if [ "$mode" = wrap ]; then
    python3 "$HERE/wrap_actions_log.py" --command "python -m pytest $*" --exit-code "$code" <"$raw.1" >"$OUT/pytest/$case.log"
  else
    cp "$raw.1" "$OUT/pytest/$case.log"
  fi
  (cd "$PROJ" && python3 corpus_tools/junit_expected.py "$WORK/$case.xml" "$WORK/$case.loc.json" "$OUT/pytest/$case.expected.json")
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

# unittest_case <case> <wrap|raw> <unittest args...>
unittest_case() {
  local case=$1 mode=$2; shift 2
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
echo "corpus written to $OUT"
