"""Protocol conformance with jupyter_kernel_test: every message the kernel
sends is validated against the Jupyter message schema."""
import unittest

import jupyter_kernel_test as jkt


class EmilyKernelTests(jkt.KernelTests):
    kernel_name = "emily"
    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'fmt.Println("hello, world")'
    code_stderr = 'import "os"\nfmt.Fprintln(os.Stderr, "oops")'
    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "emily.Arange(3)", "result": "Tensor int32[3]\n[0 1 2]"},
    ]
    complete_code_samples = ["x := 1", "func f() int { return 1 }"]
    incomplete_code_samples = ["func f() int {", "x := emily.Add(a,"]
    code_generate_error = "emily.Reshape(emily.Zeros(2, 3), 4, 4)"
    completion_samples = [{"text": "emily.Arang", "matches": {"emily.Arange", "emily.ArangeOf"}}]


if __name__ == "__main__":
    unittest.main()
