import unittest


def setUpModule():
    raise RuntimeError("module fixture: cannot open test database")


class TestNeedsModule(unittest.TestCase):
    def test_query(self):
        self.assertTrue(True)
