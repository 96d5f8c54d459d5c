package kernel

import "testing"

func TestCursorOffsetsCountCodePoints(t *testing.T) {
	tests := []struct {
		code         string
		runes, bytes int
	}{
		{"emily.Ar", 8, 8},
		{"π := emily.Ar", 13, 14}, // π is two bytes, one code point
		{"héllo", 2, 3},
		{"abc", 10, 3}, // past the end clamps
	}
	for _, tc := range tests {
		if got := byteOffset(tc.code, tc.runes); got != tc.bytes {
			t.Errorf("byteOffset(%q, %d) = %d, want %d", tc.code, tc.runes, got, tc.bytes)
		}
		if tc.runes <= len([]rune(tc.code)) {
			if got := runeOffset(tc.code, tc.bytes); got != tc.runes {
				t.Errorf("runeOffset(%q, %d) = %d, want %d", tc.code, tc.bytes, got, tc.runes)
			}
		}
	}
}
