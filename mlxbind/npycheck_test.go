package mlxbind

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npy builds a version 1 .npy file with the given header dict and data.
func npy(header string, data []byte) []byte {
	h := []byte(header)
	for (10+len(h)+1)%64 != 0 {
		h = append(h, ' ')
	}
	h = append(h, '\n')
	out := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(out[8:], uint16(len(h)))
	return append(append(out, h...), data...)
}

// TestCheckNPYRefusesBadHeaders: MLX's reader allocates whatever a header
// announces before reading; shape (2000000000, 2000000000) grew the process
// past 8 GB. Each header here must be refused before MLX sees it, in a file
// and as an .npz member in memory, and a good one must load.
func TestCheckNPYRefusesBadHeaders(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 24)
	tests := []struct{ name, header, want string }{
		{"huge shape", "{'descr': '<f4', 'fortran_order': False, 'shape': (2000000000, 2000000000), }", "too large"},
		{"more data than the file", "{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }", "announces 28 bytes of data, the file holds 24"},
		{"negative", "{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", "bad dimension \"-2\""},
		{"beyond int32", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,), }", "bad dimension"},
		{"object", "{'descr': '|O', 'fortran_order': False, 'shape': (3,), }", "not a plain number type"},
		{"no shape", "{'descr': '<f4', 'fortran_order': False}", "has no shape"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := npy(tc.header, data)
			p := filepath.Join(dir, "x.npy")
			os.WriteFile(p, b, 0o644)
			if _, err := LoadNPY(p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadNPY: %v, want an error with %q", err, tc.want)
			}
			if _, err := DecodeNPY(b, "member"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("DecodeNPY: %v, want an error with %q", err, tc.want)
			}
		})
	}
	// complex128 passes the size check and is refused by MLX, not crashed on.
	p := filepath.Join(dir, "c16.npy")
	os.WriteFile(p, npy("{'descr': '<c16', 'fortran_order': False, 'shape': (3,), }", make([]byte, 48)), 0o644)
	if _, err := LoadNPY(p); err == nil {
		t.Fatal("complex128 .npy loaded")
	}
	os.WriteFile(p, npy("{'descr': '<i2', 'fortran_order': False, 'shape': (3, 4), }", data), 0o644)
	a, err := LoadNPY(p)
	if err != nil || a.DType() != Int16 || a.Size() != 12 {
		t.Fatalf("good file: %v, %v", a, err)
	}
}
