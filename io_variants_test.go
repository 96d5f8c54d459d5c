package emily_test

import (
	"archive/zip"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// catchErr runs f and returns the *emily.Error it panicked with (nil if none).
func catchErr(t *testing.T, f func()) (e *emily.Error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			err, ok := r.(error)
			if !ok || !errors.As(err, &e) {
				t.Fatalf("panic is not an *emily.Error: %v", r)
			}
		}
	}()
	f()
	return nil
}

// TestLoadersMatchNumPyAndSafetensors is the differential test of issue
// 19: testdata/loader_variants.py writes unusual .npy and .safetensors
// headers (spacing, key order, quotes, Fortran order, byte order, format
// versions, 0-d and empty tensors, padding, metadata anywhere) and lying
// ones, and records what NumPy and safetensors make of each. Emily must
// accept exactly the files they accept, and load the same values.
func TestLoadersMatchNumPyAndSafetensors(t *testing.T) {
	py := filepath.Join(".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Skipf("no %s (make test creates it with scripts/setup-venv.sh): %v", py, err)
	}
	dir := t.TempDir()
	if out, err := exec.Command(py, "testdata/loader_variants.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("loader_variants.py: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		DType  string    `json:"dtype"`
		Shape  []int     `json:"shape"`
		Values []float64 `json:"values"`
	}
	var manifest []struct {
		File     string          `json:"file"`
		Kind     string          `json:"kind"`
		Accepted bool            `json:"accepted"`
		Why      string          `json:"why"`
		Tensors  map[string]want `json:"tensors"`
		want
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	if len(manifest) < 30 {
		t.Fatalf("only %d variants", len(manifest))
	}
	prev := emily.DefaultDevice()
	emily.SetDefaultDevice("cpu") // the float64 variants
	defer emily.SetDefaultDevice(prev)
	same := func(name string, got *emily.Tensor, w want) {
		t.Helper()
		if got.DType().String() != w.DType || !reflect.DeepEqual(append([]int{}, got.Shape()...), append([]int{}, w.Shape...)) {
			t.Errorf("%s: got %s%v, NumPy/safetensors %s%v", name, got.DType(), got.Shape(), w.DType, w.Shape)
			return
		}
		if vals := emily.Astype(got, emily.Float64).ToFloat64s(); !reflect.DeepEqual(append([]float64{}, vals...), append([]float64{}, w.Values...)) {
			t.Errorf("%s: got %v, NumPy/safetensors %v", name, vals, w.Values)
		}
	}
	for _, m := range manifest {
		name := filepath.Base(m.File)
		switch m.Kind {
		case "npy":
			var x *emily.Tensor
			e := catchErr(t, func() { x = emily.Load(m.File) })
			switch {
			case m.Accepted && e != nil:
				t.Errorf("%s: NumPy loads it, Emily: %v", name, e)
			case !m.Accepted && e == nil:
				t.Errorf("%s: NumPy refuses it (%s), Emily loaded %v", name, m.Why, x)
			case m.Accepted:
				same(name, x, m.want)
			}
		case "safetensors":
			var ts map[string]*emily.Tensor
			e := catchErr(t, func() { ts, _ = emily.LoadSafetensors(m.File) })
			switch {
			case m.Accepted && e != nil:
				t.Errorf("%s: safetensors loads it, Emily: %v", name, e)
			case !m.Accepted && e == nil:
				t.Errorf("%s: safetensors refuses it (%s), Emily loaded it", name, m.Why)
			case m.Accepted:
				if len(ts) != len(m.Tensors) {
					t.Errorf("%s: %d tensors, safetensors %d", name, len(ts), len(m.Tensors))
				}
				for k, w := range m.Tensors {
					if ts[k] == nil {
						t.Errorf("%s: no tensor %q", name, k)
						continue
					}
					same(name+":"+k, ts[k], w)
				}
			}
		}
	}
}

// TestLyingSafetensorsHeadersAreErrors: the three headers of issue 19
// loaded without error before (a negative shape, a dimension of 2^32+2
// that became 2, data_offsets near 2^64 that wrapped); each is now an
// error naming the file, the tensor and the field.
func TestLyingSafetensorsHeadersAreErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ header, field string }{
		"negative":  {`{"x":{"dtype":"F32","shape":[-2,-2],"data_offsets":[0,16]}}`, "shape"},
		"truncated": {`{"x":{"dtype":"F32","shape":[4294967298],"data_offsets":[0,16]}}`, "shape"},
		"wrapping":  {`{"x":{"dtype":"F32","shape":[4],"data_offsets":[18446744073709551600,16]}}`, "data_offsets"},
		"dtype":     {`{"x":{"dtype":"F8_E4M3","shape":[16],"data_offsets":[0,16]}}`, "dtype"},
	} {
		path := filepath.Join(dir, name+".safetensors")
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(tc.header)))
		if err := os.WriteFile(path, append(append(b, tc.header...), make([]byte, 16)...), 0o644); err != nil {
			t.Fatal(err)
		}
		e := catchErr(t, func() { emily.LoadSafetensors(path) })
		if e == nil {
			t.Errorf("%s: loaded", name)
			continue
		}
		if msg := e.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, `"x"`) || !strings.Contains(msg, tc.field) {
			t.Errorf("%s: the error does not name the file, the tensor and %s: %v", name, tc.field, msg)
		}
	}
}

// TestLoadersCountTheMemoryLimitBeforeReading: under
// EMILY_MEMORY_LIMIT=256M a 572 MiB .npy and a 0.5 MB .npz holding a
// 512 MiB deflated member both loaded (a 2.3 GB peak) while Zeros of that
// size was an error. Now each is refused from its header, before the data
// is read or decompressed.
func TestLoadersCountTheMemoryLimitBeforeReading(t *testing.T) {
	if err := emily.SetMemoryLimit("256M"); err != nil {
		t.Fatal(err)
	}
	defer emily.SetMemoryLimit("1024G")
	dir := t.TempDir()
	const n = 572 << 20 / 4
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }", n)
	header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n"
	pre := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	npy := filepath.Join(dir, "big.npy")
	f, err := os.Create(npy)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(pre, header...))
	f.Truncate(int64(len(pre)+len(header)) + 4*n) // sparse: no disk used
	f.Close()
	if e := catchErr(t, func() { emily.Load(npy) }); e == nil || !strings.Contains(e.Error(), "memory limit") || !strings.Contains(e.Error(), npy) {
		t.Errorf("Load of a 572 MiB .npy under a 256 MiB limit: %v", e)
	}

	npz := filepath.Join(dir, "bomb.npz")
	zf, err := os.Create(npz)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(zf)
	z.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	w, err := z.CreateHeader(&zip.FileHeader{Name: "x.npy", Method: zip.Deflate})
	if err != nil {
		t.Fatal(err)
	}
	h2 := "{'descr': '<f4', 'fortran_order': False, 'shape': (134217728,), }"
	h2 += strings.Repeat(" ", 63-(10+len(h2))%64) + "\n"
	w.Write(append(append([]byte("\x93NUMPY\x01\x00"), byte(len(h2)), byte(len(h2)>>8)), h2...))
	zeros := make([]byte, 1<<20)
	for i := 0; i < 512; i++ {
		w.Write(zeros)
	}
	z.Close()
	zf.Close()
	if fi, _ := os.Stat(npz); fi.Size() > 1<<20 {
		t.Fatalf("the archive is %d bytes; the test wants a small one", fi.Size())
	}
	if e := catchErr(t, func() { emily.LoadNPZ(npz) }); e == nil || !strings.Contains(e.Error(), "memory limit") {
		t.Errorf("LoadNPZ of a 512 MiB member under a 256 MiB limit: %v", e)
	}
}

// TestNPYWithTwoSpacesLoadsUntransposed is the issue 19 file itself, made
// without Python: MLX's reader took the Fortran flag from byte 34 of the
// header and loaded [[0 1 2] [3 4 5]] as [0 3 1 4 2 5].
func TestNPYWithTwoSpacesLoadsUntransposed(t *testing.T) {
	header := "{'descr': '<i4', 'fortran_order':  False, 'shape': (2, 3), }"
	header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), 0)
	b = append(b, header...)
	for i := int32(0); i < 6; i++ {
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
	}
	path := filepath.Join(t.TempDir(), "x.npy")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	x := emily.Load(path)
	if got := x.ToInt32s(); !reflect.DeepEqual(x.Shape(), []int{2, 3}) || !reflect.DeepEqual(got, []int32{0, 1, 2, 3, 4, 5}) {
		t.Errorf("got %v %v, want [2 3] [0 1 2 3 4 5]", x.Shape(), got)
	}
}
