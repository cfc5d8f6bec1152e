import pytest


@pytest.mark.parametrize(
    "text,expected",
    [
        ("a b", 2),
        ("[x]", 3),
        ("ünïcödé", 7),
        ("ok", 2),
    ],
    ids=["with space", "with [brackets]", "ünï", "fine"],
)
def test_length(text, expected):
    assert len(text) == expected + 1 or text == "ok"


@pytest.mark.parametrize("n", [1, 2, 3])
def test_even(n):
    assert n % 2 == 0
