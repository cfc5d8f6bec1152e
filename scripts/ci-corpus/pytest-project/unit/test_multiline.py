import unittest


class TestText(unittest.TestCase):
    maxDiff = None

    def test_multiline_diff(self):
        self.assertEqual("alpha\nbeta\ngamma\n", "alpha\nbeta!\ngamma\n")

    def test_fail_message(self):
        self.fail("explicit failure: error state reached")

    def test_true(self):
        self.assertTrue(0, "zero is falsy")


def load_tests(loader, tests, pattern):
    return tests
