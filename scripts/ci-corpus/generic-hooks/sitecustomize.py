"""Loaded by generic.sh (PYTHONPATH) into the script it runs: records the uncaught exception
that ends the script as GENERIC_EXPECTED (JSON), then lets Python print it as usual."""

import json
import os
import sys
import traceback

_original = sys.excepthook


def _record(kind, value, tb):
    out = os.environ.get("GENERIC_EXPECTED")
    work = os.environ.get("GENERIC_WORK", "")
    if out:
        frames = traceback.extract_tb(tb)
        last = frames[-1] if frames else None
        path = last.filename if last else None
        if path and work and path.startswith(work + "/"):
            path = path[len(work) + 1:]
        failure = {
            "test_name": traceback.format_exception_only(kind, value)[-1].strip(),
            "file_path": path,
            "line_number": last.lineno if last else None,
        }
        with open(out, "w") as f:
            json.dump({"framework": "generic", "failures": [failure]}, f, indent=2)
            f.write("\n")
    _original(kind, value, tb)


sys.excepthook = _record
