from flaky.counter import attempt


def test_passes_on_retry():
    # Fails on its first attempt only: with --reruns it is flaky, not a failure.
    n = attempt("test_passes_on_retry")
    assert n >= 1, "backend not warmed up yet"


def test_stable():
    assert sum([1, 2]) == 3
