import unittest


class TestFine(unittest.TestCase):
    def test_ok(self):
        self.assertTrue(True)

    def test_bad(self):
        self.assertEqual("left", "right")
