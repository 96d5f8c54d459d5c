package mlxbind

import (
	"strings"
	"testing"
)

// TestReadIntoChecksTheSize: a destination of the wrong size is an error
// naming both sizes, not a short or overlong copy.
func TestReadIntoChecksTheSize(t *testing.T) {
	s := cpuStream(t)
	a := mustArray(t, []int{2}, 1, 2)
	defer a.Free()
	if err := a.ReadInto(s, make([]byte, 4)); err == nil || !contains(err.Error(), "4 bytes", "8") {
		t.Fatalf("short destination: %v", err)
	}
	before := ReadBackBytes()
	dst := make([]byte, 8)
	if err := a.ReadInto(s, dst); err != nil {
		t.Fatal(err)
	}
	if got := f32s(t, dst); got[0] != 1 || got[1] != 2 {
		t.Fatalf("read %v", got)
	}
	if n := ReadBackBytes() - before; n != 8 {
		t.Fatalf("the counter moved by %d bytes, want 8", n)
	}
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
