"""Writes <case>.expected.json from the XML reports unittest-xml-reporting (`python -m
xmlrunner ... -o DIR`) wrote in the same run: every <testcase> with a <failure> or <error>.

    xmlrunner_expected.py DIR OUT.json

test_name: the unittest test id `classname.name`; a subtest (`name` is `test_x (n=1)`)
counts as its parent test (listed once); a class or module fixture error (empty classname,
`name` is `setUpClass (pkg.mod.Class)` / `setUpModule (pkg.mod)`) names the class/module; a
module that failed to import (classname `unittest.loader._FailedTest`) names the module. An
unexpected success is an <error type="UnexpectedSuccess"> there, so it is listed too.
file_path/line_number: the last `File "...", line N` frame of the report's traceback inside
the test's own module file; without one (an unexpected success has no traceback) the module
file and no line."""

import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)', re.M)


def test_name(case):
    classname, name = case.get("classname", ""), case.get("name", "")
    m = re.match(r"^(setUpClass|tearDownClass|setUpModule|tearDownModule) \((.+)\)$", name)
    if m:
        return m.group(2)
    if classname in ("unittest.loader._FailedTest", "unittest.loader.ModuleImportFailure"):
        return name
    name = re.sub(r" [(\[].*$", "", name)
    return f"{classname}.{name}"


def module_file(name):
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        path = os.path.join(*parts[:n]) + ".py"
        if os.path.exists(path):
            return path
    return None


def main():
    directory, out = sys.argv[1:3]
    failures, seen = [], set()
    for path in sorted(glob.glob(os.path.join(directory, "*.xml"))):
        for case in ET.parse(path).getroot().iter("testcase"):
            bad = case.find("failure")
            if bad is None:
                bad = case.find("error")
            if bad is None:
                continue
            name = test_name(case)
            if name in seen:
                continue
            seen.add(name)
            mod = module_file(name)
            loc = {"file_path": mod, "line_number": None}
            if mod:
                frames = [
                    int(n) for p, n in FRAME.findall(bad.text or "") if os.path.abspath(p) == os.path.abspath(mod)
                ]
                if frames:
                    loc["line_number"] = frames[-1]
            failures.append({"test_name": name, **loc})
    with open(out, "w") as f:
        json.dump({"framework": "unittest", "failures": failures}, f, indent=2, ensure_ascii=False)
        f.write("\n")


main()
