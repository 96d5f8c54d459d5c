package interp

import (
	"strings"
	"testing"

	"github.com/emily-go/emily/compiler"
)

// FuzzCellParsing feeds arbitrary cells to what runs before any code:
// the magic-line and cell splitter behind IsComplete, and completion.
// Neither may panic, whatever a person (or a pasted file) types.
func FuzzCellParsing(f *testing.F) {
	for _, seed := range []string{
		"x := 1", "%jit f\nf(x)", "%%jit native=false\nfunc g() {}", "func f() {", "%config native=", "\"unterminated",
		"`raw\n", "for {\n", "%time x", "%ir f ", "import (\n\"fmt\"", "/* comment", "x.", "%jit fuse=true device=gpu f",
	} {
		f.Add(seed, len(seed))
	}
	s, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code string, cursor int) {
		s.IsComplete(code)
		s.Complete(code, cursor)
	})
}

// FuzzJitOptions feeds arbitrary key=value pairs to the %jit option
// parser: an error or options, never a panic.
func FuzzJitOptions(f *testing.F) {
	for _, seed := range []string{"native=false", "fuse=true device=gpu", "fallback=raise max_concurrency=2", "native=maybe", "=", "device="} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		kv := map[string]string{}
		for _, field := range strings.Fields(line) {
			k, v, _ := strings.Cut(field, "=")
			kv[k] = v
		}
		compiler.ParseOptions(kv)
	})
}
