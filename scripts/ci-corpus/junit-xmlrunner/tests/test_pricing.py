import unittest

from shop.pricing import parse_price, total


class PricingTest(unittest.TestCase):
    def test_total(self):
        for qty in (1, 2, 3):
            with self.subTest(qty=qty):
                self.assertEqual(total([(10, qty)]), 10 * qty + (qty > 1))

    def test_discount(self):
        self.assertEqual(total([(100, 1)]) * 0.9, 91)

    def test_parse(self):
        self.assertEqual(parse_price("9.99"), 999)

    def test_ok(self):
        self.assertEqual(total([]), 0)


class WarehouseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise ConnectionError("warehouse service unreachable")

    def test_stock(self):
        pass
