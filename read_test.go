package emily_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/mlxbind"
)

// TestSameDTypeReadsAreExact reads each dtype back as its own Go type (the
// one-copy path) from a transposed, lazy tensor, so the shim must evaluate
// it and make it contiguous, and from an empty one.
func TestSameDTypeReadsAreExact(t *testing.T) {
	// [[0 1 2] [3 4 5]] transposed: row-major [0 3 1 4 2 5].
	perm := []int{0, 3, 1, 4, 2, 5}
	cases := []struct {
		dt   emily.DType
		read func(*emily.Tensor) any
		want any
	}{
		{emily.Float32, func(x *emily.Tensor) any { return x.ToFloat32s() }, []float32{0, 3, 1, 4, 2, 5}},
		{emily.Float64, func(x *emily.Tensor) any { return x.ToFloat64s() }, []float64{0, 3, 1, 4, 2, 5}},
		{emily.Complex64, func(x *emily.Tensor) any { return x.ToComplex64s() }, []complex64{0, 3, 1, 4, 2, 5}},
		{emily.Int64, func(x *emily.Tensor) any { return x.ToInt64s() }, []int64{0, 3, 1, 4, 2, 5}},
		{emily.Int64, func(x *emily.Tensor) any { return x.ToInts() }, []int{0, 3, 1, 4, 2, 5}},
		{emily.Int32, func(x *emily.Tensor) any { return x.ToInt32s() }, []int32{0, 3, 1, 4, 2, 5}},
		{emily.Int16, func(x *emily.Tensor) any { return x.ToInt16s() }, []int16{0, 3, 1, 4, 2, 5}},
		{emily.Int8, func(x *emily.Tensor) any { return x.ToInt8s() }, []int8{0, 3, 1, 4, 2, 5}},
		{emily.Uint64, func(x *emily.Tensor) any { return x.ToUint64s() }, []uint64{0, 3, 1, 4, 2, 5}},
		{emily.Uint32, func(x *emily.Tensor) any { return x.ToUint32s() }, []uint32{0, 3, 1, 4, 2, 5}},
		{emily.Uint16, func(x *emily.Tensor) any { return x.ToUint16s() }, []uint16{0, 3, 1, 4, 2, 5}},
		{emily.Uint8, func(x *emily.Tensor) any { return x.ToUint8s() }, []uint8{0, 3, 1, 4, 2, 5}},
		{emily.Bool, func(x *emily.Tensor) any { return x.ToBools() }, []bool{false, true, true, true, true, true}},
	}
	for _, c := range cases {
		t.Run(c.dt.String()+"/"+reflect.TypeOf(c.want).Elem().String(), func(t *testing.T) {
			if c.dt == emily.Float64 && emily.DefaultDevice() != "cpu" {
				t.Skip("float64 is CPU-only in MLX")
			}
			x := emily.Arange(6).Astype(c.dt).Reshape(2, 3).Transpose()
			if got := c.read(x); !reflect.DeepEqual(got, c.want) {
				t.Errorf("transposed: got %v, want %v (row-major of perm %v)", got, c.want, perm)
			}
			empty := emily.Arange(0).Astype(c.dt)
			if got := reflect.ValueOf(c.read(empty)); got.Len() != 0 {
				t.Errorf("empty: got %v", got)
			}
		})
	}
}

// TestPreviewReadsOnlyWhatItShows previews a 4096×4096 tensor: MLX slices
// out the 6×6 shown corners, and only those 36 values are copied back (the
// readback counter), where the whole tensor is 64 MB.
func TestPreviewReadsOnlyWhatItShows(t *testing.T) {
	const n = 4096
	x := emily.Arange(n*n).Reshape(n, n).Astype(emily.Float32).Eval()
	defer x.Free()
	before := mlxbind.ReadBackBytes()
	s := x.String()
	read := mlxbind.ReadBackBytes() - before
	if read > 36*4 {
		t.Errorf("the preview read back %d bytes, want at most the 36 shown float32s (144 bytes)", read)
	}
	lines := strings.Split(s, "\n")
	if lines[0] != "Tensor float32[4096 4096]" || len(lines) != 8 || strings.TrimSpace(lines[4]) != "…" {
		t.Fatalf("preview:\n%s", s)
	}
	if lines[1] != "[[         0.          1.          2. …       4093.       4094.       4095.]" ||
		!strings.HasSuffix(lines[7], "1.67772e+07 1.67772e+07 1.67772e+07]]") {
		t.Errorf("preview corners:\n%s", s)
	}
}

// TestElidedPreviewShowsTheRightElements checks, for ranks 1 to 4 with
// long and short axes, that each number an elided preview shows is the
// element at the position it stands for: the first and last three indices
// of each long axis, every index of a short one.
func TestElidedPreviewShowsTheRightElements(t *testing.T) {
	for _, shape := range [][]int{{1500}, {40, 40}, {2, 700}, {11, 11, 11}, {3, 20, 4, 5}} {
		size := 1
		for _, d := range shape {
			size *= d
		}
		x := emily.Arange(size).Reshape(shape...)
		s := x.String()
		var got []int
		for _, f := range strings.Fields(strings.NewReplacer("[", " ", "]", " ", "…", " ").Replace(s[strings.IndexByte(s, '\n'):])) {
			if v, err := strconv.Atoi(f); err == nil {
				got = append(got, v)
			}
		}
		// Expected: the row-major flat index of each shown position.
		var want []int
		var rec func(axis, base int)
		rec = func(axis, base int) {
			if axis == len(shape) {
				want = append(want, base)
				return
			}
			stride := 1
			for _, d := range shape[axis+1:] {
				stride *= d
			}
			for i := 0; i < shape[axis]; i++ {
				if shape[axis] > 6 && i >= 3 && i < shape[axis]-3 {
					continue
				}
				rec(axis+1, base+i*stride)
			}
		}
		rec(0, 0)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: preview shows %v, want %v:\n%s", shape, got, want, s)
		}
	}
}

// readBoth reads x with ToXs (to) and with ReadInto, and fails unless
// they agree.
func readBoth[T any](t *testing.T, x *emily.Tensor, to func(*emily.Tensor) []T) {
	t.Helper()
	want := to(x)
	dst := make([]T, x.Size())
	x.ReadInto(dst)
	if !reflect.DeepEqual(dst, want) {
		t.Errorf("%s as %T: ReadInto %v, ToXs %v", x.DType(), dst, dst, want)
	}
}

// TestReadIntoMatchesToXs reads tensors of several dtypes into slices of
// every Go element type: same-dtype copies and conversions give
// what the ToXs methods give, and a slice of the wrong length is an error
// that says what to do.
func TestReadIntoMatchesToXs(t *testing.T) {
	src := emily.FromSlice([]float32{-2.5, -1, 0, 0.5, 3, 300})
	for _, dt := range []emily.DType{emily.Float32, emily.Float16, emily.Int64, emily.Int8, emily.Uint8, emily.Bool, emily.Complex64} {
		x := src.Astype(dt).Reshape(2, 3).Transpose()
		readBoth(t, x, (*emily.Tensor).ToFloat32s)
		readBoth(t, x, (*emily.Tensor).ToComplex64s)
		readBoth(t, x, (*emily.Tensor).ToInt64s)
		readBoth(t, x, (*emily.Tensor).ToInt32s)
		readBoth(t, x, (*emily.Tensor).ToInt16s)
		readBoth(t, x, (*emily.Tensor).ToInt8s)
		readBoth(t, x, (*emily.Tensor).ToInts)
		readBoth(t, x, (*emily.Tensor).ToUint64s)
		readBoth(t, x, (*emily.Tensor).ToUint32s)
		readBoth(t, x, (*emily.Tensor).ToUint16s)
		readBoth(t, x, (*emily.Tensor).ToUint8s)
		readBoth(t, x, (*emily.Tensor).ToBools)
		if emily.DefaultDevice() == "cpu" {
			readBoth(t, x, (*emily.Tensor).ToFloat64s)
		}
	}
	e := mustPanicError(t, "ReadInto", func() { src.ReadInto(make([]float32, 5)) })
	if !strings.Contains(e.Error(), "5 elements") || !strings.Contains(e.Hint, "t.Size()") {
		t.Errorf("wrong-length error: %v (hint %q)", e, e.Hint)
	}
	e = mustPanicError(t, "ReadInto", func() { src.ReadInto([]string{"a"}) })
	if !strings.Contains(e.Error(), "[]string") || !strings.Contains(e.Hint, "float32") {
		t.Errorf("wrong-type error: %v (hint %q)", e, e.Hint)
	}
}
