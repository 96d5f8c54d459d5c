package emily_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// samples holds one small tensor of every dtype, with values that the
// dtype holds exactly (extremes for the integers).
func samples() map[string]*emily.Tensor {
	f := emily.FromSlice([]float32{1.5, -2.25, 0, 65504, 0.1, -7}, 2, 3)
	s := map[string]*emily.Tensor{
		"bool":      emily.FromSlice([]bool{true, false, true}),
		"uint8":     emily.FromSlice([]uint8{0, 255}),
		"uint16":    emily.FromSlice([]uint16{0, 65535}),
		"uint32":    emily.FromSlice([]uint32{0, 4294967295}),
		"uint64":    emily.FromSlice([]uint64{0, 18446744073709551615}),
		"int8":      emily.FromSlice([]int8{-128, 127}),
		"int16":     emily.FromSlice([]int16{-32768, 32767}),
		"int32":     emily.FromSlice([]int32{-2147483648, 2147483647}, 1, 2),
		"int64":     emily.FromSlice([]int64{-9223372036854775808, 9007199254740993}),
		"float16":   f.Astype(emily.Float16),
		"bfloat16":  f.Astype(emily.BFloat16),
		"float32":   f,
		"complex64": emily.FromSlice([]complex64{1 + 2i, -3.5}),
		"scalar":    emily.FromSlice([]float32{42}).Reshape(),
		"empty":     emily.FromSlice([]float32{}, 0, 3),
	}
	// MLX's GPU has no float64: the loaders refuse it there (with the fix
	// in the error), so the round trip is checked on a CPU default only.
	if emily.DefaultDevice() == "cpu" {
		s["float64"] = emily.FromSlice([]float64{0.1, 1e300})
	}
	return s
}

// f64OnCPU makes a float64 tensor on the CPU whatever the default device
// (FromSlice refuses float64 on the GPU), for the errors a save of one gives.
func f64OnCPU(v ...float64) *emily.Tensor {
	was := emily.DefaultDevice()
	emily.SetDefaultDevice("cpu")
	defer emily.SetDefaultDevice(was)
	return emily.FromSlice(v)
}

func sameTensor(t *testing.T, what string, got, want *emily.Tensor) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: missing", what)
	}
	if got.DType() != want.DType() || !equalInts(got.Shape(), want.Shape()) || !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("%s: got %s, want %s", what, got, want)
	}
}

func TestNPYRoundTripsEveryDType(t *testing.T) {
	dir := t.TempDir()
	for name, x := range samples() {
		p := filepath.Join(dir, name+".npy")
		emily.Save(p, x)
		sameTensor(t, name, emily.Load(p), x)
	}
	// A strided view is written in row-major order.
	x := emily.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3).Transpose()
	p := filepath.Join(dir, "t.npy")
	emily.Save(p, x)
	if got := emily.Load(p).ToInt32s(); !reflect.DeepEqual(got, []int32{1, 4, 2, 5, 3, 6}) {
		t.Fatalf("transposed save read back as %v", got)
	}
	// The path is used as given: no extension is added.
	p = filepath.Join(dir, "plain")
	emily.Save(p, x)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("Save to a path without .npy: %v", err)
	}
}

func TestNPZRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "all.npz")
	want := samples()
	emily.SaveNPZ(p, want)
	got := emily.LoadNPZ(p)
	if len(got) != len(want) {
		t.Fatalf("%d tensors back, want %d", len(got), len(want))
	}
	for name, x := range want {
		sameTensor(t, name, got[name], x)
	}
}

func TestSafetensorsRoundTripWithMetadata(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.safetensors")
	want := samples()
	delete(want, "float64") // MLX's safetensors has no F64
	meta := map[string]string{"format": "np", "note": "ünïcode, \"quotes\""}
	emily.SaveSafetensors(p, want, meta)
	got, gotMeta := emily.LoadSafetensors(p)
	if !reflect.DeepEqual(gotMeta, meta) {
		t.Fatalf("metadata %v, want %v", gotMeta, meta)
	}
	for name, x := range want {
		sameTensor(t, name, got[name], x)
	}
	emily.SaveSafetensors(p, map[string]*emily.Tensor{"a": want["int8"]}, nil)
	if _, m := emily.LoadSafetensors(p); len(m) != 0 {
		t.Fatalf("nil metadata read back as %v", m)
	}
}

func TestGGUFRoundTripWithMetadata(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.gguf")
	s := samples()
	want := map[string]*emily.Tensor{}
	for _, name := range []string{"float32", "float16", "int8", "int16", "int32"} {
		want[name] = s[name]
	}
	meta := map[string]any{
		"general.name": "demo",
		"tokens":       []string{"<s>", "</s>", ""},
		"ctx":          uint32(4096),
		"eps":          float32(1e-5),
		"flag":         true,
		"ids":          []int64{-1, 9007199254740993},
		"big":          emily.FromSlice([]uint64{18446744073709551615}),
	}
	emily.SaveGGUF(p, want, meta)
	got, gotMeta := emily.LoadGGUF(p)
	for name, x := range want {
		sameTensor(t, name, got[name], x)
	}
	if gotMeta["general.name"] != "demo" || !reflect.DeepEqual(gotMeta["tokens"], []string{"<s>", "</s>", ""}) {
		t.Fatalf("string metadata %v", gotMeta)
	}
	checks := map[string]*emily.Tensor{
		"ctx":  emily.FromSlice([]uint32{4096}).Reshape(),
		"eps":  emily.FromSlice([]float32{1e-5}).Reshape(),
		"flag": emily.FromSlice([]bool{true}).Reshape(),
		"ids":  emily.FromSlice([]int64{-1, 9007199254740993}),
		"big":  emily.FromSlice([]uint64{18446744073709551615}),
	}
	for k, w := range checks {
		g, ok := gotMeta[k].(*emily.Tensor)
		if !ok {
			t.Fatalf("metadata %s is %T", k, gotMeta[k])
		}
		sameTensor(t, k, g, w)
	}
	// The path must not need ".gguf": it is written exactly there.
	q := filepath.Join(t.TempDir(), "model.bin")
	emily.SaveGGUF(q, want, nil)
	if got, _ := emily.LoadGGUF(q); len(got) != len(want) {
		t.Fatalf("gguf at %s: %d tensors", q, len(got))
	}
}

func TestIOErrorsNameTheFileAndTheFix(t *testing.T) {
	dir := t.TempDir()
	x := emily.FromSlice([]float32{1, 2})
	npy := filepath.Join(dir, "x.npy")
	emily.Save(npy, x)
	gguf := filepath.Join(dir, "x.gguf")
	emily.SaveGGUF(gguf, map[string]*emily.Tensor{"x": x}, nil)
	junk := filepath.Join(dir, "junk.bin")
	os.WriteFile(junk, []byte("not a tensor file at all"), 0o644)
	tests := []struct {
		name  string
		fn    func()
		wants []string
	}{
		{"missing", func() { emily.Load(filepath.Join(dir, "nope.npy")) }, []string{"emily.Load", "nope.npy", "no such file", "fix: check the path"}},
		{"missing relative", func() { emily.LoadSafetensors("nope.safetensors") }, []string{"relative paths start at the working directory"}},
		{"directory", func() { emily.LoadNPZ(dir) }, []string{"is a directory"}},
		{"gguf given to Load", func() { emily.Load(gguf) }, []string{"emily.Load", "x.gguf", "looks like a .gguf file: use emily.LoadGGUF"}},
		{"npy given to LoadGGUF", func() { emily.LoadGGUF(npy) }, []string{"not a gguf file", "use emily.Load"}},
		{"npy given to LoadNPZ", func() { emily.LoadNPZ(npy) }, []string{"emily.LoadNPZ", "use emily.Load"}},
		{"junk safetensors", func() { emily.LoadSafetensors(junk) }, []string{"emily.LoadSafetensors", "junk.bin", "fix:"}},
		{"float64 safetensors", func() {
			emily.SaveSafetensors(filepath.Join(dir, "f.safetensors"), map[string]*emily.Tensor{"d": f64OnCPU(1)}, nil)
		}, []string{"tensor \"d\" is float64", "Astype(emily.Float32)"}},
		{"bfloat16 gguf", func() {
			emily.SaveGGUF(filepath.Join(dir, "b.gguf"), map[string]*emily.Tensor{"b": x.Astype(emily.BFloat16)}, nil)
		}, []string{"tensor \"b\" is bfloat16", "Astype"}},
		{"float64 gguf metadata", func() { emily.SaveGGUF(filepath.Join(dir, "m.gguf"), nil, map[string]any{"lr": 0.1}) }, []string{"metadata \"lr\"", "float32"}},
		{"2-d gguf metadata", func() {
			emily.SaveGGUF(filepath.Join(dir, "m.gguf"), nil, map[string]any{"m": emily.Zeros(2, 2)})
		}, []string{"metadata \"m\"", "float32[2 2]"}},
		{"nil tensor", func() { emily.SaveNPZ(filepath.Join(dir, "n.npz"), map[string]*emily.Tensor{"a": nil}) }, []string{"tensor \"a\" is nil"}},
		{"no directory", func() { emily.Save(filepath.Join(dir, "no", "x.npy"), x) }, []string{"emily.Save", filepath.Join(dir, "no", "x.npy"), "directory exists"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := emily.Try(tc.fn)
			var e *emily.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *emily.Error", err, err)
			}
			for _, w := range tc.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// A failed save leaves the file it would have replaced as it was, and
	// no temporary file beside it.
	before, _ := os.ReadFile(npy)
	if err := emily.Try(func() {
		emily.SaveSafetensors(npy, map[string]*emily.Tensor{"u": f64OnCPU(1)}, nil)
	}); err == nil {
		t.Fatal("SaveSafetensors of float64 succeeded")
	}
	if after, _ := os.ReadFile(npy); !bytes.Equal(before, after) {
		t.Fatal("a failed save changed the existing file")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("temporary file %s left behind", e.Name())
		}
	}
}

// TestDamagedFilesGiveErrors cuts and overwrites the bytes of valid files
// of every format: each load must fail with an error or load, never crash
// the process (gguflib, MLX's gguf parser, trusts every length in a file).
func TestDamagedFilesGiveErrors(t *testing.T) {
	dir := t.TempDir()
	x := emily.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	files := []struct {
		name string
		save func(string)
		load func(string)
	}{
		{"x.npy", func(p string) { emily.Save(p, x) }, func(p string) { emily.Load(p) }},
		{"x.npz", func(p string) { emily.SaveNPZ(p, map[string]*emily.Tensor{"a": x, "b": x.Astype(emily.Int8)}) },
			func(p string) { emily.LoadNPZ(p) }},
		{"x.safetensors", func(p string) {
			emily.SaveSafetensors(p, map[string]*emily.Tensor{"a": x}, map[string]string{"k": "v"})
		},
			func(p string) { emily.LoadSafetensors(p) }},
		{"x.gguf", func(p string) {
			emily.SaveGGUF(p, map[string]*emily.Tensor{"a": x, "b": x.Astype(emily.Int16)},
				map[string]any{"s": "v", "l": []string{"a", "b"}, "n": []int32{1, 2}, "u": uint32(3)})
		}, func(p string) { emily.LoadGGUF(p) }},
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			p := filepath.Join(dir, f.name)
			f.save(p)
			good, _ := os.ReadFile(p)
			bad := filepath.Join(dir, "bad-"+f.name)
			failed := 0
			for n := 0; n < len(good); n++ {
				os.WriteFile(bad, good[:n], 0o644)
				if emily.Try(func() { f.load(bad) }) != nil {
					failed++
				}
				for _, v := range []byte{0x00, 0xff} {
					b := append([]byte(nil), good...)
					b[n] = v
					os.WriteFile(bad, b, 0o644)
					emily.Try(func() { f.load(bad) })
				}
			}
			if failed != len(good) {
				t.Fatalf("%d of %d truncations loaded without an error", len(good)-failed, len(good))
			}
		})
	}
}
