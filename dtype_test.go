package emily_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// TestFromSliceKeepsEverySliceType makes a tensor from each Go slice type
// and reads it back with the matching ToXs: the dtype is the slice's own
// (or the documented one for []int, []uint, []complex128) and the values
// come back unchanged, extremes included.
func TestFromSliceKeepsEverySliceType(t *testing.T) {
	tests := []struct {
		in   any
		dt   emily.DType
		back func(*emily.Tensor) any
		want any
	}{
		{[]float32{1.5, -0, float32(math.Inf(1)), math.MaxFloat32}, emily.Float32, func(x *emily.Tensor) any { return x.ToFloat32s() }, nil},
		{[]float64{0.1, 1e300, -math.SmallestNonzeroFloat64}, emily.Float64, func(x *emily.Tensor) any { return x.ToFloat64s() }, nil},
		{[]int8{math.MinInt8, math.MaxInt8}, emily.Int8, func(x *emily.Tensor) any { return x.ToInt8s() }, nil},
		{[]int16{math.MinInt16, math.MaxInt16}, emily.Int16, func(x *emily.Tensor) any { return x.ToInt16s() }, nil},
		{[]int32{math.MinInt32, math.MaxInt32}, emily.Int32, func(x *emily.Tensor) any { return x.ToInt32s() }, nil},
		{[]int64{math.MinInt64, 9007199254740993, math.MaxInt64}, emily.Int64, func(x *emily.Tensor) any { return x.ToInt64s() }, nil},
		{[]uint8{0, math.MaxUint8}, emily.Uint8, func(x *emily.Tensor) any { return x.ToUint8s() }, nil},
		{[]uint16{0, math.MaxUint16}, emily.Uint16, func(x *emily.Tensor) any { return x.ToUint16s() }, nil},
		{[]uint32{0, math.MaxUint32}, emily.Uint32, func(x *emily.Tensor) any { return x.ToUint32s() }, nil},
		{[]uint64{0, math.MaxUint64, 1<<63 + 1}, emily.Uint64, func(x *emily.Tensor) any { return x.ToUint64s() }, nil},
		{[]bool{true, false, true}, emily.Bool, func(x *emily.Tensor) any { return x.ToBools() }, nil},
		{[]complex64{1 + 2i, complex(float32(math.Inf(-1)), 0.5)}, emily.Complex64, func(x *emily.Tensor) any { return x.ToComplex64s() }, nil},
		{[]int{math.MinInt32, 7, math.MaxInt32}, emily.Int32, func(x *emily.Tensor) any { return x.ToInts() }, nil},
		{[]uint{0, math.MaxUint32}, emily.Uint32, func(x *emily.Tensor) any { return x.ToUint32s() }, []uint32{0, math.MaxUint32}},
		{[]complex128{0.1 + 1e-30i, 3}, emily.Complex64, func(x *emily.Tensor) any { return x.ToComplex64s() },
			[]complex64{complex(float32(0.1), float32(1e-30)), 3}},
	}
	for _, tc := range tests {
		name := reflect.TypeOf(tc.in).String()
		t.Run(name, func(t *testing.T) {
			if tc.dt == emily.Float64 && emily.DefaultDevice() == "gpu" {
				// MLX has no float64 on the GPU: FromSlice says so and how to convert.
				err := emily.Try(func() { emily.FromSlice(tc.in) })
				if err == nil || !strings.Contains(err.Error(), "float64 is not supported on the GPU") {
					t.Fatalf("FromSlice([]float64) on the GPU: got %v, want the float64 error", err)
				}
				return
			}
			x := emily.FromSlice(tc.in)
			if x.DType() != tc.dt {
				t.Fatalf("dtype %s, want %s", x.DType(), tc.dt)
			}
			want := tc.want
			if want == nil {
				want = tc.in
			}
			if got := tc.back(x); !reflect.DeepEqual(got, want) {
				t.Fatalf("read back %v, want %v", got, want)
			}
		})
	}
	// Empty slices and shapes with a zero dimension are tensors too.
	if x := emily.FromSlice([]int16{}, 0, 3); !equalInts(x.Shape(), []int{0, 3}) || len(x.ToInt16s()) != 0 {
		t.Fatalf("empty int16 tensor: %v", x.Shape())
	}
}

func TestFromSliceErrorsSayWhatToPass(t *testing.T) {
	tests := []struct {
		name  string
		in    any
		wants []string
	}{
		{"int overflow", []int{1, math.MaxInt32 + 1}, []string{"emily.FromSlice", "2147483648 at index 1 overflows int32", "[]int64"}},
		{"uint overflow", []uint{math.MaxUint32 + 1}, []string{"overflows uint32", "[]uint64"}},
		{"not a slice", 3.5, []string{"unsupported values of type float64", "fix: pass a slice"}},
		{"strings", []string{"1"}, []string{"[]string", "[]complex64"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := emily.Try(func() { emily.FromSlice(tc.in) })
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
}

// TestFloat64StaysFloat64OnTheCPU: no silent float64→float32; values that
// float32 cannot hold survive a round trip and an op.
func TestFloat64StaysFloat64OnTheCPU(t *testing.T) {
	if emily.DefaultDevice() != "cpu" {
		t.Skip("float64 is CPU-only in MLX; the GPU error is checked by TestFloat64IsRejectedOnTheGPU")
	}
	x := emily.FromSlice([]float64{1 + 1e-12, 1e300})
	y := emily.Add(x, x)
	if y.DType() != emily.Float64 {
		t.Fatalf("float64 + float64 is %s", y.DType())
	}
	if got := y.ToFloat64s(); got[0] != 2+2e-12 || got[1] != 2e300 {
		t.Fatalf("got %v", got)
	}
}

// TestReadbackConverts reads tensors as other Go types: integers wrap and
// never pass through float64, floats truncate, complex keeps its real part.
func TestReadbackConverts(t *testing.T) {
	big := emily.FromSlice([]int64{9007199254740993, -1})
	if got := big.ToUint64s(); got[0] != 9007199254740993 || got[1] != math.MaxUint64 {
		t.Errorf("int64 → uint64: %v", got)
	}
	if got := emily.FromSlice([]uint64{math.MaxUint64}).ToInt64s(); got[0] != -1 {
		t.Errorf("uint64 max → int64: %v", got)
	}
	if got := emily.FromSlice([]int32{300, -1}).ToUint8s(); got[0] != 44 || got[1] != 255 {
		t.Errorf("int32 → uint8: %v", got)
	}
	if got := emily.FromSlice([]float32{-2.7, 2.7}).ToInt8s(); got[0] != -2 || got[1] != 2 {
		t.Errorf("float32 → int8: %v", got)
	}
	if got := emily.FromSlice([]complex64{3 - 4i}).ToFloat32s(); got[0] != 3 {
		t.Errorf("complex64 → float32: %v", got)
	}
	if got := emily.FromSlice([]complex64{0 + 1i, 0}).ToBools(); !got[0] || got[1] {
		t.Errorf("complex64 → bool: %v", got)
	}
	if got := emily.FromSlice([]float32{1.25}).ToComplex64s(); got[0] != 1.25 {
		t.Errorf("float32 → complex64: %v", got)
	}
	h := emily.FromSlice([]float32{0.1, 65504, -6e-8}).Astype(emily.Float16).ToFloat64s()
	if want := []float64{0.0999755859375, 65504, -5.960464477539063e-08}; !reflect.DeepEqual(h, want) {
		t.Errorf("float16 → float64: %v, want %v", h, want)
	}
}

func TestPreviewsOfEveryDType(t *testing.T) {
	tests := []struct {
		name string
		t    *emily.Tensor
		want string
	}{
		{"int64 beyond 2^53", emily.FromSlice([]int64{9007199254740993, math.MinInt64}),
			"Tensor int64[2]\n[    9007199254740993 -9223372036854775808]"},
		{"uint64 max", emily.FromSlice([]uint64{math.MaxUint64}), "Tensor uint64[1]\n[18446744073709551615]"},
		{"complex64", emily.FromSlice([]complex64{1 + 2i, -0.5 - 1.25i, 3}, 3, 1),
			"Tensor complex64[3 1]\n[[      1+2i]\n [-0.5-1.25i]\n [      3+0i]]"},
		{"complex64 inf nan", emily.FromSlice([]complex64{complex(float32(math.Inf(1)), float32(math.NaN()))}),
			"Tensor complex64[1]\n[+Inf+NaNi]"},
		{"float16 shortest", emily.FromSlice([]float32{0.1, 1.0 / 3, 65504, -2, 6e-8}).Astype(emily.Float16),
			"Tensor float16[5]\n[   0.1 0.3333 65500.    -2.  6e-08]"},
		{"bfloat16 shortest", emily.FromSlice([]float32{0.1, 1.0 / 3, 3e38, float32(math.Inf(-1))}).Astype(emily.BFloat16),
			"Tensor bfloat16[4]\n[  0.1 0.334 3e+38  -Inf]"},
		{"int8", emily.FromSlice([]int8{-128, 5}), "Tensor int8[2]\n[-128    5]"},
		{"bool scalar", emily.FromSlice([]bool{true}).Reshape(), "Tensor bool[]\ntrue"},
		{"float64", f64OnCPU(1, 0.5), "Tensor float64[2]\n[ 1. 0.5]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.t.String(); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
