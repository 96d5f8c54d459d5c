package mlxbind

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gguf builds a gguf file by hand: header, then raw metadata and tensor
// table bytes, then data.
type gguf struct{ b bytes.Buffer }

func (g *gguf) u32(v uint32) *gguf { binary.Write(&g.b, binary.LittleEndian, v); return g }
func (g *gguf) u64(v uint64) *gguf { binary.Write(&g.b, binary.LittleEndian, v); return g }
func (g *gguf) str(s string) *gguf { g.u64(uint64(len(s))); g.b.WriteString(s); return g }
func (g *gguf) pad(n int) *gguf    { g.b.Write(make([]byte, n)); return g }

func header(tensors, kvs uint64) *gguf {
	g := &gguf{}
	g.b.WriteString("GGUF")
	return g.u32(3).u64(tensors).u64(kvs)
}

// f32Tensor appends one tensor entry: name, 1 dim of n, type, offset 0.
func (g *gguf) tensor(name string, n uint64, typ uint32) *gguf {
	return g.str(name).u32(1).u64(n).u32(typ).u64(0)
}

// TestCheckGGUFRefusesWhatWouldCrashTheReader: without checkGGUF, MLX's
// gguf reader killed the process on four of these files (SIGSEGV for a huge
// tensor count and for a key running past the end, SIGFPE for a deprecated
// tensor type, an assertion abort for 9 dimensions) and read two others
// without complaint (a zero alignment, version 1). Each must be refused
// with a reason, while a well-formed file passes and loads.
func TestCheckGGUFRefusesWhatWouldCrashTheReader(t *testing.T) {
	dir := t.TempDir()
	good := header(1, 1).str("general.name").u32(ggufString).str("x").tensor("w", 4, 0)
	good.pad(32 - good.b.Len()%32).pad(16)
	tests := []struct {
		name string
		file *gguf
		want string
	}{
		{"huge tensor count", header(1<<56, 0), "more than a"},
		{"zero alignment", header(0, 1).str("general.alignment").u32(4).u32(0), "general.alignment is 0"},
		{"key past the end", header(0, 1).u64(1 << 40), "runs past the end"},
		{"nested list", header(0, 1).str("k").u32(ggufArray).u32(ggufArray).u64(1), "list of type 9"},
		{"unknown value type", header(0, 1).str("k").u32(77), "unknown type 77"},
		{"list past the end", header(0, 1).str("k").u32(ggufArray).u32(4).u64(1 << 20), "runs past the end"},
		{"too many dims", header(1, 0).str("w").u32(9), "9 dimensions"},
		{"deprecated type", header(1, 0).tensor("w", 4, 4).pad(64), "gguf type 4"},
		{"data past the end", header(1, 0).tensor("w", 1<<20, 0).pad(64), "runs past the end"},
		{"quantized scalar", header(1, 0).str("w").u32(0).u32(2).u64(0).pad(64), "no dimensions"},
		{"version 1", func() *gguf { g := &gguf{}; g.b.WriteString("GGUF"); return g.u32(1).u64(0).u64(0) }(), "version 1"},
		{"truncated header", func() *gguf { g := &gguf{}; g.b.WriteString("GGUF"); return g.u32(3) }(), "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "f.gguf")
			os.WriteFile(p, tc.file.b.Bytes(), 0o644)
			_, err := LoadGGUF(p, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadGGUF: %v, want an error with %q", err, tc.want)
			}
		})
	}
	p := filepath.Join(dir, "good.gguf")
	os.WriteFile(p, good.b.Bytes(), 0o644)
	b, err := LoadGGUF(p, nil)
	if err != nil {
		t.Fatalf("well-formed file: %v", err)
	}
	if w := b.Arrays["w"]; w == nil || w.DType() != Float32 || w.Size() != 4 || b.Meta["general.name"].Strings[0] != "x" {
		t.Fatalf("well-formed file read as %+v", b)
	}
}

// FuzzCheckGGUF: checkGGUF refuses or passes any bytes without panicking,
// and what it passes never claims a negative size. (Plain go test runs the
// seeds; make fuzz explores.)
func FuzzCheckGGUF(f *testing.F) {
	f.Add(header(1, 1).str("general.name").u32(ggufString).str("x").tensor("w", 4, 0).pad(32 + 16).b.Bytes())
	f.Add(header(1<<40, 0).b.Bytes())
	f.Add(header(1, 0).tensor("w", 1<<40, 2).b.Bytes())
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "f.gguf")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if n, err := checkGGUFSize(p); err == nil && n < 0 {
			t.Fatalf("passed with a size of %d", n)
		}
	})
}
