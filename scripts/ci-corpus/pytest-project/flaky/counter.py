import os
import tempfile


def attempt(name):
    """How many times `name` ran before in this run (a counter file in $FLAKY_STATE_DIR,
    which the corpus script makes empty for every case), counting this attempt."""
    directory = os.environ.get("FLAKY_STATE_DIR") or tempfile.gettempdir()
    path = os.path.join(directory, f"flaky-{name}")
    n = int(open(path).read()) if os.path.exists(path) else 0
    with open(path, "w") as f:
        f.write(str(n + 1))
    return n
