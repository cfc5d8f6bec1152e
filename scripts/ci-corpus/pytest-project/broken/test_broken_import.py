import widgets.does_not_exist  # noqa: F401


def test_never_runs():
    assert True
