import logging
import sys
import traceback
import unittest

log = logging.getLogger("widgets.unit_green")


class TestErrorHandling(unittest.TestCase):
    def test_error_handling(self):
        # Passes; prints Error: lines, a traceback and logs an ERROR on purpose.
        print("Error: connection refused (retrying)")
        try:
            {}["missing"]
        except KeyError:
            traceback.print_exc(file=sys.stdout)
        with self.assertLogs("widgets.unit_green", level="ERROR"):
            log.error("ERROR: handled")
        print("FAIL: test_fake (unit_green.test_green.TestFake.test_fake)", file=sys.stderr)
        self.assertTrue(True)

    def test_handles_FAILED_input(self):
        print("Error: FAILED input rejected", file=sys.stderr)
        self.assertEqual("FAILED".lower(), "failed")

    @unittest.expectedFailure
    def test_known_bug(self):
        self.assertEqual(1, 2)

    @unittest.skip("Error: not supported here")
    def test_skipped(self):
        pass
