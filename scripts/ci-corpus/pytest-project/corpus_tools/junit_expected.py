"""Writes <case>.expected.json from pytest's own --junitxml (xunit1: it has `file`) of the run,
plus the locations pytest_expected_plugin recorded in the same run.

test_name is pytest's nodeid: `<file>::<classes...>::<name>` where the classes are the junit
classname minus the module's dotted path; a collection error (empty classname) is the module
file. A test with both a failure and an error (failed, then teardown error) is listed once."""

import json
import sys
import xml.etree.ElementTree as ET


def nodeid(case):
    classname = case.get("classname", "")
    name = case.get("name")
    file = case.get("file")
    if not classname:
        return name.replace(".", "/") + ".py" if not name.endswith(".py") else name
    module = file[:-3].replace("/", ".") if file else None
    if module and classname.startswith(module):
        rest = classname[len(module):].lstrip(".")
    else:
        parts = classname.split(".")
        rest = ".".join(p for p in parts if p[:1].isupper())
        file = file or "/".join(p for p in parts if not p[:1].isupper()) + ".py"
    parts = [file] + ([*rest.split(".")] if rest else []) + [name]
    return "::".join(parts)


def main():
    junit, locations, out = sys.argv[1:4]
    no_lines = "--no-lines" in sys.argv[4:]
    recorded = json.load(open(locations))
    locs = recorded["locations"]
    failures, seen = [], set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("failure") is None and case.find("error") is None:
            continue
        nid = nodeid(case)
        if nid in seen:
            continue
        seen.add(nid)
        loc = locs.get(nid)
        if loc is None:
            sys.exit(f"no location recorded for {nid!r}; names: {sorted(locs)}")
        if no_lines:
            loc = {**loc, "line_number": None}
        failures.append({"test_name": nid, **loc})
    if set(locs) != seen:
        sys.exit(f"junit and plugin disagree: {sorted(set(locs) ^ seen)}")
    flaky = [
        {"test_name": nid, "failed_attempts": n}
        for nid, n in recorded["reruns"].items()
        if recorded["final"].get(nid) == "passed"
    ]
    for f in flaky:
        if f["test_name"] in seen:
            sys.exit(f"flaky by the plugin, failed by junit: {f['test_name']}")
    doc = {"framework": "pytest", "failures": failures}
    if flaky:
        doc["flaky"] = flaky
    with open(out, "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")


main()
