import unittest

import requests_mock  # noqa: F401


class ApiTest(unittest.TestCase):
    def test_get(self):
        pass
