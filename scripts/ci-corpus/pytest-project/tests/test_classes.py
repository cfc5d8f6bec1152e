import pytest

from widgets import cart


@pytest.fixture
def broken_db():
    raise RuntimeError("database is not reachable")


@pytest.fixture
def leaky_resource():
    yield "resource"
    raise OSError("could not release resource")


class TestCart:
    def test_total_ok(self):
        assert cart.total([]) == 0

    def test_total_wrong(self):
        expected = 10
        assert cart.total([1, 2, 3]) == expected, "total should include shipping"

    def test_uses_db(self, broken_db):
        assert broken_db

    def test_error_in_name_passes(self):
        assert "error" in "an error message"


def test_teardown_fails(leaky_resource):
    assert leaky_resource == "resource"


class TestNested:
    class TestInner:
        def test_deep(self):
            assert 1 + 1 == 3


def test_fails_then_teardown_errors(flaky_connection):
    assert flaky_connection == "other connection"
