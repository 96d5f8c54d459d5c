package kernel

import "testing"

func TestCompleteUTF8(t *testing.T) {
	euro := []byte("€") // three bytes
	tests := []struct {
		name string
		in   []byte
		want int
	}{
		{"empty", nil, 0},
		{"ascii", []byte("abc"), 3},
		{"whole rune", append([]byte("a"), euro...), 4},
		{"one byte of three", append([]byte("a"), euro[0]), 1},
		{"two bytes of three", append([]byte("a"), euro[:2]...), 1},
		{"invalid byte passes", []byte{'a', 0xff}, 2},
		{"stray continuation passes", []byte{'a', 0x80}, 2},
	}
	for _, tt := range tests {
		if got := completeUTF8(tt.in); got != tt.want {
			t.Errorf("%s: completeUTF8(%q) = %d, want %d", tt.name, tt.in, got, tt.want)
		}
	}
}
