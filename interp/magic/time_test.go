package magic

import "testing"

func TestFormatTime(t *testing.T) {
	for sec, want := range map[float64]string{
		1.5: "1.5 s", 0.00123: "1.23 ms", 0.000123: "123 µs", 4.56e-5: "45.6 µs",
		1e-10: "0.1 ns", 0: "0 ns", 123: "123 s", 0.5: "500 ms",
	} {
		if got := FormatTime(sec); got != want {
			t.Errorf("FormatTime(%g) = %q, want %q", sec, got, want)
		}
	}
}
