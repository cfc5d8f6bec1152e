import pytest


@pytest.fixture
def flaky_connection():
    # Teardown fails after the test itself failed: pytest reports the test twice
    # (FAILED for the call, ERROR at teardown), the junit report lists it once.
    yield "connection"
    raise ConnectionResetError("connection dropped during teardown")
