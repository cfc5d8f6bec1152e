"""pytest plugin (loaded with `-p pytest_expected_plugin`) recording, for every failing
report of the run, where the failure is: the last traceback entry inside the test's own file
(the `path:line: Error` / `path:line: in test` line agents need), else the innermost entry.
Written to $PYTEST_EXPECTED_LOCATIONS as JSON {nodeid: {"file_path", "line_number"}}.
Names come from --junitxml; this only supplies locations."""

import json
import os

import pytest

_locations = {}


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
    if not report.failed or report.nodeid in _locations:
        return
    root = str(item.config.rootpath)
    test_file = str(item.path)
    loc = {"file_path": _rel(test_file, root), "line_number": None}
    if call.excinfo is not None:
        entries = list(call.excinfo.traceback)
        in_file = [e for e in entries if str(e.path) == test_file]
        chosen = in_file[-1] if in_file else (entries[-1] if entries else None)
        if chosen is not None:
            loc = {"file_path": _rel(chosen.path, root), "line_number": chosen.lineno + 1}
    _locations[report.nodeid] = loc


def pytest_collectreport(report):
    if report.failed:
        # The module that failed to import; the line is not recorded (pytest prints the
        # import chain, not one failure line).
        _locations.setdefault(report.nodeid, {"file_path": report.nodeid.split("::")[0], "line_number": None})


def pytest_sessionfinish(session):
    out = os.environ.get("PYTEST_EXPECTED_LOCATIONS")
    if out:
        with open(out, "w") as f:
            json.dump(_locations, f, indent=1)
