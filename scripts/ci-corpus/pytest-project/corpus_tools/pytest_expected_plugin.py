"""pytest plugin (loaded with `-p pytest_expected_plugin`) recording, for every failing
report of the run, where the failure is: the last traceback entry inside the test's own file
(the `path:line: Error` / `path:line: in test` line agents need), else the innermost entry
inside the rootdir, else the test's file without a line (an entry in pytest's or the
standard library's code is no place to fix the test).
It also records the attempts pytest-rerunfailures made: every report with outcome "rerun",
and whether the test's last attempt passed (flaky) or not.
Written to $PYTEST_EXPECTED_LOCATIONS as JSON {"locations": {nodeid: {"file_path",
"line_number"}}, "reruns": {nodeid: n}, "final": {nodeid: "passed"|"failed"|...}}.
Names of failures come from --junitxml; this supplies locations and attempts.

The location is computed where the test runs (pytest_runtest_makereport, in the xdist
worker under -n) and travels with the report as a user property, so it is recorded where
reports are logged (pytest_runtest_logreport, in the controller under -n)."""

import json
import os

import pytest

_locations = {}
_reruns = {}
_final = {}
KEY = "corpus_expected_location"


def _rel(path, root):
    path = str(path)
    try:
        return os.path.relpath(path, root).replace(os.sep, "/")
    except ValueError:
        return path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    root = str(item.config.rootpath)
    test_file = str(item.path)
    loc = {"file_path": _rel(test_file, root), "line_number": None}
    if call.excinfo is not None:
        entries = list(call.excinfo.traceback)
        in_file = [e for e in entries if str(e.path) == test_file]
        in_root = [e for e in entries if str(e.path).startswith(root + os.sep)]
        chosen = in_file[-1] if in_file else (in_root[-1] if in_root else None)
        if chosen is not None:
            loc = {"file_path": _rel(chosen.path, root), "line_number": chosen.lineno + 1}
    report.user_properties.append((KEY, json.dumps(loc)))


def pytest_runtest_logreport(report):
    nodeid = report.nodeid
    if report.outcome == "rerun":
        _reruns[nodeid] = _reruns.get(nodeid, 0) + 1
        _final.pop(nodeid, None)
        return
    if report.failed:
        _final[nodeid] = "failed"
        if nodeid not in _locations:
            for k, v in report.user_properties:
                if k == KEY:
                    _locations[nodeid] = json.loads(v)
    elif report.when == "call" and nodeid not in _final:
        _final[nodeid] = report.outcome


def pytest_collectreport(report):
    if report.failed:
        # The module that failed to import; the line is not recorded (pytest prints the
        # import chain, not one failure line).
        _locations.setdefault(report.nodeid, {"file_path": report.nodeid.split("::")[0], "line_number": None})


def pytest_sessionfinish(session):
    out = os.environ.get("PYTEST_EXPECTED_LOCATIONS")
    if out and not hasattr(session.config, "workerinput"):
        with open(out, "w") as f:
            json.dump({"locations": _locations, "reruns": _reruns, "final": _final}, f, indent=1)
