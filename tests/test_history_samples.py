"""jupyter_kernel_test's history checks (tail, range, search with unique
and n) with samples other than test_conformance.py's: the kernel's history
must not depend on the suite's particular choice. Each sample set runs the
suite's own test_history against a fresh kernel."""
import io
import unittest

import jupyter_kernel_test as jkt
import pytest

SAMPLES = {
    # IPython's own samples in jupyter_kernel_test's tests, in Go.
    "ipython": ([{"code": "1+2+3", "result": "6"}, {"code": "x := 5\nx * 2", "result": "10"}], "1?2*"),
    # A class with ] as its first member, and glob characters in the code.
    "brackets": ([{"code": "[]int{1, 2}", "result": "[1 2]"}, {"code": '"a*b"', "result": '"a*b"'},
                  {"code": "3", "result": "3"}], "[[]]int*"),
    "ranges": ([{"code": "len(\"héllo\")", "result": "6"}], "len[(]\"h[à-ü]*"),
    "one multiline": ([{"code": "func sq(v int) int {\n\treturn v * v\n}\nsq(4)", "result": "16"}], "func sq*"),
}


@pytest.mark.parametrize("name", SAMPLES)
def test_history_with_other_samples(name):
    samples, pattern = SAMPLES[name]
    cls = type(f"History_{name.replace(' ', '_')}", (jkt.KernelTests,), {
        "kernel_name": "emily",
        "language_name": "go",
        "code_execute_result": samples,
        "supported_history_operations": ("tail", "range", "search"),
        "code_history_pattern": pattern,
    })
    out = io.StringIO()
    result = unittest.TextTestRunner(stream=out, verbosity=2).run(unittest.TestSuite([cls("test_history")]))
    assert result.testsRun == 1 and not result.skipped, out.getvalue()
    assert result.wasSuccessful(), out.getvalue()
