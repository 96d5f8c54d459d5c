"""Protocol conformance with jupyter_kernel_test: every message the kernel
sends is validated against the Jupyter message schema. Every test of the
suite runs: the class gives samples for each (none is skipped)."""
import unittest

import jupyter_kernel_test as jkt

DISPLAY = 'import "github.com/emily-go/emily/display"\n'


class EmilyKernelTests(jkt.KernelTests):
    kernel_name = "emily"
    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'fmt.Println("hello, world")'
    code_stderr = 'import "os"\nfmt.Fprintln(os.Stderr, "oops")'
    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "emily.Arange(3)", "result": "Tensor int32[3]\n[0 1 2]"},
        {"code": '"42"', "result": '"42"'},
    ]
    code_display_data = [
        {"code": DISPLAY + 'display.Show(display.HTML("<b>bold</b>"))', "mime": "text/html"},
        {"code": DISPLAY + 'display.Show(display.Markdown("# title"))', "mime": "text/markdown"},
        {"code": DISPLAY + 'display.Show(display.SVG(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>`))',
         "mime": "image/svg+xml"},
    ]
    code_clear_output = DISPLAY + 'fmt.Println("going")\ndisplay.Clear(false)\nfmt.Println("gone")'
    # The pager: %help comes back as a "page" payload (Markdown).
    code_page_something = "%help"
    complete_code_samples = ["x := 1", "func f() int { return 1 }", "%timeit x := 1", "if true {\n}"]
    incomplete_code_samples = ["func f() int {", "x := emily.Add(a,", "s := `raw", "y := 1 +"]
    invalid_code_samples = ["func ( {", "x := )", "}", "for for {"]
    code_generate_error = "emily.Reshape(emily.Zeros(2, 3), 4, 4)"
    completion_samples = [
        {"text": "emily.Arang", "matches": {"emily.Arange", "emily.ArangeOf"}},
        {"text": "fmt.Sprin", "matches": {"fmt.Sprint", "fmt.Sprintf", "fmt.Sprintln"}},
    ]
    code_inspect_sample = "emily.Arange"
    supported_history_operations = ("tail", "range", "search")
    code_history_pattern = "emily.Arange(3)"


if __name__ == "__main__":
    unittest.main()
