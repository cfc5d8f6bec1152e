from shapes import Box, area


def test_square():
    assert area("square", 2) == 4


def test_box():
    assert Box(1, 2).w == 1
