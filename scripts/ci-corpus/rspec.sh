#!/usr/bin/env bash
# Regenerates crates/ci/corpus/rspec/ by really running RSpec 3.12 (Debian: apt-get install
# ruby-rspec) on the sample project in rspec-project/ (nested describes and contexts, `eq`
# diffs, an exception raised in library code, aggregate failures, a shared example group,
# pending/skipped examples, pending examples that pass (a failure: `FIXED`), ruby -w
# warnings, a passing example printing `error:`; passing examples in spec/noisy that print
# `Failure/Error:`, `Error:`, `error:`, a `Failures:` section of their own and a
# backtrace-like line; and a spec file that fails
# to load, which is an error outside of examples). CI never runs this.
#
# Configurations: progress_actions (--format progress, job log), documentation (raw),
# colour_actions (--force-color), one_file (one spec file, raw), pending_fixed (the pending
# examples only, -e, documentation, raw), fail_fast_actions (--fail-fast: the run stops at
# the first failure), green_progress_actions and
# green_documentation_actions (spec/noisy: passing, exit 0, job logs), green_raw (the same
# run, --format progress, raw: only rspec's `N examples, 0 failures` says the `Error:` lines
# printed before it were a passing run's), load_error_actions and
# load_error_documentation (with spec/broken_spec.rb, which does not load).
#
# The project is copied to $SCRATCH/home/runner/work/widgets/widgets (a runner checkout).
# Each case runs rspec once with its console formatter AND `--format json --out report.json`;
# the expected failures come only from that JSON report:
# - every example with "status": "failed": test_name = full_description, file_path = its
#   file_path without `./`, line_number = the first frame of exception.backtrace in that file
#   (for a shared example that is the shared group's file), else the example's line_number;
# - every "An error occurred while loading <file>." in "messages" (errors outside of
#   examples): test_name = <file> without `./`, located at the first `# <file>:N` frame of
#   that message.
#
#   CASES="green_raw" scripts/ci-corpus/rspec.sh   # only these cases; the others' files are
#                                                  # left alone
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/crates/ci/corpus/rspec
SCRATCH=${SCRATCH:-/tmp/ci-corpus-rspec}
WORK=$SCRATCH/home/runner/work/widgets/widgets
WRAP=$HERE/wrap_actions_log.py
rm -rf "$SCRATCH"; mkdir -p "$WORK" "$OUT"
cp -r "$HERE/rspec-project/." "$WORK/"
export RUBYOPT=-w

rspec_expected() { # <report.json> > expected.json
  python3 - "$1" "$WORK" <<'PY'
import json, re, sys
report, work = json.load(open(sys.argv[1])), sys.argv[2]

def rel(p):
    p = p[len(work) + 1:] if p.startswith(work + "/") else p
    return p[2:] if p.startswith("./") else p

failures = []
for e in report["examples"]:
    if e["status"] != "failed":
        continue
    f = rel(e["file_path"])
    line = None
    for fr in (e.get("exception") or {}).get("backtrace") or []:
        m = re.match(r"(.+?):(\d+)(?::in|$)", fr)
        if m and rel(m.group(1)) == f:
            line = int(m.group(2))
            break
    failures.append({"test_name": e["full_description"], "file_path": f,
                     "line_number": line or e["line_number"]})
for msg in report.get("messages") or []:
    m = re.search(r"An error occurred while loading (\S+?)\.?(?: - Did you mean\?)?$", msg, re.M)
    if not m:
        continue
    f = rel(m.group(1))
    fr = re.search(r"^# " + re.escape(m.group(1)) + r":(\d+)", msg, re.M)
    failures.append({"test_name": f, "file_path": f,
                     "line_number": int(fr.group(1)) if fr else None})
json.dump({"framework": "rspec", "failures": failures}, sys.stdout, indent=2)
print()
PY
}

# run_case <case> <wrap|raw> <rspec args...>
run_case() {
  local case=$1 mode=$2; shift 2
  [ -z "${CASES:-}" ] || [[ " $CASES " == *" $case "* ]] || return 0
  (cd "$WORK" && rspec "$@" --format json --out "$SCRATCH/$case.json" >"$SCRATCH/$case.txt" 2>&1) && code=0 || code=$?
  if [ "$mode" = wrap ]; then
    python3 "$WRAP" --command "bundle exec rspec $*" --exit-code "$code" <"$SCRATCH/$case.txt" >"$OUT/$case.log"
  else
    cp "$SCRATCH/$case.txt" "$OUT/$case.log"
  fi
  rspec_expected "$SCRATCH/$case.json" >"$OUT/$case.expected.json"
}

run_case progress_actions wrap --format progress
run_case documentation raw --format documentation
run_case colour_actions wrap --force-color --format progress
run_case one_file raw --format progress spec/receipt_spec.rb
run_case pending_fixed raw --format documentation spec/cart_spec.rb -e "pending work"
run_case fail_fast_actions wrap --format progress --fail-fast
run_case green_progress_actions wrap --format progress spec/noisy
run_case green_documentation_actions wrap --format documentation spec/noisy
run_case green_raw raw --format progress spec/noisy
cp "$WORK/spec/broken_spec.rb.off" "$WORK/spec/broken_spec.rb"
run_case load_error_actions wrap --format progress
run_case load_error_documentation raw --format documentation spec/broken_spec.rb spec/receipt_spec.rb
echo "corpus written to $OUT"
