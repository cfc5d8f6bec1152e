import logging
import traceback
import warnings

import pytest

log = logging.getLogger("widgets.green")


def parse(text):
    if not text.isdigit():
        raise ValueError(f"Error: not a number: {text!r}")
    return int(text)


def test_error_handling():
    # Passes; logs ERROR: text, prints FAILED and a traceback on purpose.
    log.error("ERROR: could not parse %r, falling back", "x")
    print("FAILED tests/test_fake.py::test_fake - this is only printed")
    try:
        parse("x")
    except ValueError:
        traceback.print_exc()
    assert parse("3") == 3


def test_deprecated_api_warns():
    warnings.warn("parse_legacy() is deprecated; use parse()", DeprecationWarning)
    assert parse("4") == 4


def test_user_warning():
    warnings.warn("Error: this is a UserWarning, not an error", UserWarning)
    assert True


@pytest.mark.parametrize("text", ["1", "22", "FAILED"])
def test_handles_FAILED_input(text):
    print(f"Error: input {text!r}")
    assert (parse(text) > 0) if text.isdigit() else pytest.raises(ValueError, parse, text)


@pytest.mark.xfail(reason="known bug in error reporting")
def test_known_bug():
    raise AssertionError("FAILED as expected")
