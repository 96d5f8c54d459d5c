package interp

import (
	"strings"
	"testing"
)

func TestMisspelledNamesSuggestTheClosest(t *testing.T) {
	s, _ := newSession(t)
	for _, tc := range []struct{ code, want string }{
		{"emily.Matmull(emily.Ones(2, 2), emily.Ones(2, 2))", "emily.Matmull is not defined; did you mean emily.Matmul?"},
		{"emily.Ones(2).Summ()", "did you mean Sum, a method of *emily.Tensor?"},
		{"x := emily.Argmx", "emily.Argmx is not defined"},
	} {
		err := run(t, s, tc.code).err
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.code, err, tc.want)
		}
	}
}
