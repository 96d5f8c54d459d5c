package main

import (
	"testing"

	"github.com/emily-go/emily/kernel"
)

// TestKernelAnswersIsComplete: the kernel's Executor is a
// CompletenessChecker, answered by the cell grammar without the worker
// (nil session: it must not be asked).
func TestKernelAnswersIsComplete(t *testing.T) {
	var exec kernel.Executor = kernelExecutor{}
	c, ok := exec.(kernel.CompletenessChecker)
	if !ok {
		t.Fatal("kernelExecutor is no kernel.CompletenessChecker: is_complete_request would get \"unknown\"")
	}
	for code, want := range map[string][2]string{
		"func f() {":            {"incomplete", "\t"},
		"x := 1\n%whos":         {"complete", ""},
		"// note\n%jit f\nf(x)": {"complete", ""},
		"x := )":                {"invalid", ""},
	} {
		if status, indent := c.CheckComplete(code); status != want[0] || indent != want[1] {
			t.Errorf("%q: %q %q, want %q %q", code, status, indent, want[0], want[1])
		}
	}
}
