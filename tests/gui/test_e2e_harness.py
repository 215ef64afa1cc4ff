"""The e2e harness's own rules (tests/gui/e2e_test.py): which app logs are sanitizer reports, which are only
LeakSanitizer's tracer crashing at exit, and that only tests failing for the second reason are run again."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test  # noqa: E402

TRACER_CRASH = ("Tracer caught signal 11: addr=0x0 pc=0x7f3a sp=0x7f2b\n"
                "==4242==LeakSanitizer has encountered a fatal error.\n"
                "==4242==HINT: For debugging, try setting environment variable LSAN_OPTIONS=verbosity=1:log_threads=1\n")
LEAK_REPORT = ("==4242==ERROR: LeakSanitizer: detected memory leaks\n"
               "Direct leak of 64 byte(s) in 1 object(s) allocated from:\n")


def sample_cases():
    """Two throwaway cases, made here so the runner of this file does not collect them."""
    class Crashes(unittest.TestCase):
        def test_crash(self):
            raise e2e_test.LeakCheckCrashed("LeakSanitizer's tracer crashed at exit")

    class Fails(unittest.TestCase):
        def test_fail(self):
            self.assertEqual(1, 2)

    return Crashes, Fails


def run(*cases):
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromTestCase(c) for c in cases)
    return unittest.TextTestRunner(stream=open(os.devnull, "w")).run(suite)


class Harness(unittest.TestCase):
    def test_tracer_crash_is_not_a_report_and_a_report_is_not_a_crash(self):
        self.assertTrue(e2e_test.leak_check_crashed("frames 12\n" + TRACER_CRASH))
        self.assertFalse(e2e_test.SANITIZER_REPORT.search(TRACER_CRASH))
        self.assertFalse(e2e_test.leak_check_crashed(LEAK_REPORT))
        self.assertTrue(e2e_test.SANITIZER_REPORT.search(LEAK_REPORT))
        # A leak report and a tracer crash in one log: the report wins, nothing is retried.
        self.assertFalse(e2e_test.leak_check_crashed(LEAK_REPORT + TRACER_CRASH))
        self.assertFalse(e2e_test.leak_check_crashed("Tracer caught signal 11\n"))

    def test_only_tracer_crashes_are_run_again(self):
        Crashes, Fails = sample_cases()
        self.assertEqual(e2e_test.tests_to_retry(run(Crashes)), [Crashes("test_crash").id()])
        self.assertEqual(e2e_test.tests_to_retry(run(Fails)), [])
        self.assertEqual(e2e_test.tests_to_retry(run(Crashes, Fails)), [])


if __name__ == "__main__":
    unittest.main()
