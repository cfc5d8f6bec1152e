import unittest

from unit.helpers import require_even
from widgets import cart


class TestCart(unittest.TestCase):
    def test_total(self):
        self.assertEqual(cart.total([1, 2]), 3)

    def test_total_wrong(self):
        self.assertEqual(cart.total([1, 2, 3]), 7)

    def test_list_diff(self):
        self.assertListEqual([1, 2, 3], [1, 2, 4])

    def test_membership(self):
        self.assertIn("widget", ["gadget", "gizmo"], msg="catalogue is missing widget")

    def test_error_handling_passes(self):
        with self.assertRaises(ValueError):
            cart.parse_quantity("x")

    def test_prints_FAIL_but_passes(self):
        print("FAIL: test_fake (unit.test_cart.TestCart.test_fake)")

    def test_exception_in_test(self):
        items = []
        self.assertEqual(items[3], 1)

    def test_exception_in_helper(self):
        require_even(3)

    def test_exception_in_library(self):
        cart.lookup({}, "sku-9")

    def test_subtests(self):
        for n in [1, 2, 3]:
            with self.subTest(n=n):
                self.assertEqual(n % 2, 0)

    @unittest.skip("not today")
    def test_skipped(self):
        self.fail("never")

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.assertEqual(1, 2)

    @unittest.expectedFailure
    def test_unexpected_success(self):
        self.assertEqual(1, 1)


class TestWithBrokenSetUp(unittest.TestCase):
    def setUp(self):
        raise RuntimeError("fixture database unavailable")

    def test_a(self):
        pass


class TestWithBrokenSetUpClass(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise ConnectionError("cannot reach service")

    def test_b(self):
        pass
