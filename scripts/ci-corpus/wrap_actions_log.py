#!/usr/bin/env python3
"""Wraps a framework's raw output the way GitHub Actions serves a job log: every line gets a
timestamp prefix, the run step is a `##[group]Run ...` block, the command echo is marked
`[command]`, and a failing step ends in `##[error]Process completed with exit code N.`

    wrap_actions_log.py --command 'pytest -q' --exit-code 1 < raw.txt > job.log
"""

import argparse
import datetime
import sys


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--command", required=True)
    ap.add_argument("--exit-code", type=int, default=1)
    ap.add_argument("--start", default="2024-05-01T10:00:00")
    args = ap.parse_args()
    t = datetime.datetime.fromisoformat(args.start)
    step = datetime.timedelta(milliseconds=7)

    def emit(line: str) -> None:
        nonlocal t
        sys.stdout.write(t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "0Z " + line + "\n")
        t += step

    emit("##[group]Run actions/checkout@v4")
    emit("Syncing repository: acme/widgets")
    emit("##[endgroup]")
    emit(f"##[group]Run {args.command}")
    emit(args.command)
    emit("shell: /usr/bin/bash -e {0}")
    emit("##[endgroup]")
    emit(f"[command]/usr/bin/bash -e /home/runner/work/_temp/step.sh")
    for line in sys.stdin.read().splitlines():
        emit(line)
    if args.exit_code:
        emit(f"##[error]Process completed with exit code {args.exit_code}.")


if __name__ == "__main__":
    main()
