#!/usr/bin/env python3
"""Writes <case>.expected.json for a JUnit corpus case from the producing tool's OTHER
machine-readable report of the same run (never from the JUnit XML itself):

    junit_expected.py pytest  <report-log.jsonl>           <out.json>
    junit_expected.py jest    <jest --json output> <workdir> <out.json>
    junit_expected.py nextest <console output>   <out.json>
    junit_expected.py phpunit <teamcity log>     <workdir> <out.json>

Naming follows the rules in crates/ci/src/junit.rs:
- pytest : the node id (`file::Class::test[param]`), from pytest-reportlog. A test that failed
  and also errored in teardown is listed once. Line: the last traceback entry in the test's
  file (where the test failed).
- jest   : ancestor titles and the title joined with spaces (jest-junit's default name), from
  `jest --json`. Line: the first stack frame in the test file.
- nextest: `binary::test` for every test whose final status in the run's closing summary
  listing is a failure; the FLAKY ones (passed on a retry) are listed under "flaky". libtest's JSON is unstable
  (NEXTEST_EXPERIMENTAL_LIBTEST_JSON), so this is nextest's human summary of the same run,
  with the location from the test's `panicked at file:line:col` line in that output.
- phpunit: `Class::method` (data sets included) from `--log-teamcity` (testStarted's
  locationHint names the class). Line: the first frame of testFailed's details in the test file.
"""

import json
import re
import sys


def write(out, failures, flaky=None):
    doc = {"framework": "junit", "failures": failures}
    if flaky:
        doc["flaky"] = flaky
    with open(out, "w") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")


def rel(path, work):
    return path[len(work) + 1:] if path.startswith(work + "/") else path


def pytest(report_log, out):
    failures, seen = [], set()
    for line in open(report_log):
        r = json.loads(line)
        if r.get("$report_type") != "TestReport" or r["outcome"] != "failed":
            continue
        nodeid = r["nodeid"]
        if nodeid in seen:
            continue
        seen.add(nodeid)
        file = r["location"][0]
        lineno = None
        longrepr = r.get("longrepr")
        if isinstance(longrepr, dict):
            for entry in longrepr["reprtraceback"]["reprentries"]:
                loc = (entry.get("data") or {}).get("reprfileloc")
                if loc and loc["path"] == file:
                    lineno = loc["lineno"]
        failures.append({"test_name": nodeid, "file_path": file, "line_number": lineno})
    write(out, failures)


def jest(report, work, out):
    report = json.load(open(report))
    failures = []
    for suite in report["testResults"]:
        abs_file = suite["name"]
        for a in suite["assertionResults"]:
            if a["status"] != "failed":
                continue
            stack = "\n".join(a.get("failureMessages") or [])
            m = re.search(re.escape(abs_file) + r":(\d+):\d+", stack)
            failures.append({
                "test_name": " ".join(list(a["ancestorTitles"]) + [a["title"]]).strip(),
                "file_path": rel(abs_file, work),
                "line_number": int(m.group(1)) if m else None,
            })
    write(out, failures)


STATUS = re.compile(
    # After `TRY n ` nextest shortens SIGABRT to ABRT and TIMEOUT to TMT.
    r"^\s*(?:TRY \d+ )?(PASS|FAIL|FLAKY(?: \d+/\d+)?|TIMEOUT|TMT|SIG[A-Z]+|ABRT|ABORT|LEAK-FAIL|LEAK|SKIP)"
    r" \[\s*[\d.]+s\] (?:\(\s*[^)]*\) )?(\S+) (\S+)\s*$")


def nextest(console, out):
    text = open(console).read()
    summary = text[text.rindex("Summary ["):]
    failures, flaky = [], []
    for line in summary.splitlines()[1:]:
        m = STATUS.match(line)
        if m and m.group(1).startswith("FLAKY"):
            # Passed on a retry: the summary's `FLAKY n/m` lines.
            flaky.append({"test_name": f"{m.group(2)}::{m.group(3)}"})
            continue
        if not m or m.group(1).startswith(("PASS", "SKIP")):
            continue
        binary, name = m.group(2), m.group(3)
        loc = re.search(r"thread '" + re.escape(name) + r"' (?:\(\d+\) )?panicked at ([^\s:]+):(\d+):", text)
        failures.append({
            "test_name": f"{binary}::{name}",
            "file_path": loc.group(1) if loc else None,
            "line_number": int(loc.group(2)) if loc else None,
        })
    write(out, failures, flaky)


def teamcity_attrs(line):
    return {k: v.replace("|n", "\n").replace("|'", "'").replace("|]", "]").replace("||", "|")
            for k, v in re.findall(r"(\w+)='((?:[^'|]|\|.)*)'", line)}


def phpunit(log, work, out):
    failures, current = [], {}
    for line in open(log):
        if line.startswith("##teamcity[testStarted "):
            a = teamcity_attrs(line)
            hint = a["locationHint"][len("php_qn://"):]
            file, _, test = hint.partition("::\\")
            current[a["name"]] = (test, file)
        elif line.startswith("##teamcity[testFailed "):
            a = teamcity_attrs(line)
            test, file = current[a["name"]]
            m = re.search(re.escape(file) + r":(\d+)", a.get("details", ""))
            failures.append({"test_name": test, "file_path": rel(file, work),
                             "line_number": int(m.group(1)) if m else None})
    write(out, failures)


def main():
    kind, args = sys.argv[1], sys.argv[2:]
    {"pytest": pytest, "jest": jest, "nextest": nextest, "phpunit": phpunit}[kind](*args)


main()
