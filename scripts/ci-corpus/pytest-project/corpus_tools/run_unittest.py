"""Runs `python -m unittest <args>` in-process (same output, same run) and writes the failures
and errors of its result object to $UNITTEST_EXPECTED as <case>.expected.json.

test_name: the test id (`unit.test_x.TestC.test_y`); a subtest counts as its parent test
(listed once); a setUpClass/setUpModule error names the class/module; a module that failed to
import names the module. file_path/line_number: the last traceback frame in the test's own
module file; none when no frame is there (import errors)."""

import json
import os
import sys
import traceback
import unittest

ROOT = os.getcwd()
sys.path.insert(0, ROOT)  # as `python -m unittest` has
records = []


def describe(test):
    if isinstance(test, unittest.case._SubTest):
        return test.test_case.id()
    cls = type(test).__name__
    if cls == "_FailedTest":
        return test._testMethodName
    if cls == "_ErrorHolder":
        # "setUpClass (pkg.mod.Class)"
        return test.description.split("(", 1)[1].rstrip(")")
    return test.id()


def module_file(name):
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        path = os.path.join(ROOT, *parts[:n]) + ".py"
        if os.path.exists(path):
            return path
    return None


class Recording(unittest.TextTestResult):
    def _record(self, test, err):
        name = describe(test)
        mod = module_file(name)
        loc = {"file_path": os.path.relpath(mod, ROOT) if mod else None, "line_number": None}
        frames = [f for f in traceback.extract_tb(err[2]) if mod and os.path.abspath(f.filename) == mod]
        if frames:
            loc["line_number"] = frames[-1].lineno
        if all(r["test_name"] != name for r in records):
            records.append({"test_name": name, **loc})

    def addFailure(self, test, err):
        self._record(test, err)
        super().addFailure(test, err)

    def addError(self, test, err):
        self._record(test, err)
        super().addError(test, err)

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self._record(subtest, err)
        super().addSubTest(test, subtest, err)


class Runner(unittest.TextTestRunner):
    resultclass = Recording


prog = unittest.main(module=None, argv=["python -m unittest", *sys.argv[1:]], testRunner=Runner, exit=False)
with open(os.environ["UNITTEST_EXPECTED"], "w") as f:
    json.dump({"framework": "unittest", "failures": records}, f, indent=2, ensure_ascii=False)
    f.write("\n")
sys.exit(not prog.result.wasSuccessful())
