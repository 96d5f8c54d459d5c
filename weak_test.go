package emily_test

import (
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// MLX's rules for Python scalars next to an array (python/src/utils.cpp,
// to_array and to_arrays), which Go numbers follow:
//   - an int takes the array's dtype; a bool array makes it int32; an int
//     the array's integer dtype (narrower than 64 bits) cannot hold is an
//     error, not a wrapped value;
//   - a float takes the array's dtype when that is a float, else float32;
//   - a bool stays bool, which then promotes to the array's dtype;
//   - with no array, an int is int32 (int64 when int32 cannot hold it) and
//     a float is float32.
func TestGoNumbersAreWeaklyTypedAsInMLX(t *testing.T) {
	i32 := emily.FromSlice([]int32{1, -2, 3})
	f16 := emily.FromSlice([]float32{1.5, -2, 3}).Astype(emily.Float16)
	bf16 := emily.FromSlice([]float32{1.5, -2, 3}).Astype(emily.BFloat16)
	u8 := emily.FromSlice([]uint8{250, 1, 7})
	i8 := emily.FromSlice([]int32{-100, 1, 7}).Astype(emily.Int8)
	i64 := emily.FromSlice([]int64{1 << 40, 1, -1})
	u64 := emily.FromSlice([]int32{1, 2, 3}).Astype(emily.Uint64)
	b := emily.FromSlice([]bool{true, false, true})
	c64 := emily.FromSlice([]float32{1, 2, 3}).Astype(emily.Complex64)

	tests := []struct {
		name string
		got  *emily.Tensor
		dt   emily.DType
		want []float64
	}{
		{"int32 * 2 stays int32", emily.Mul(i32, 2), emily.Int32, []float64{2, -4, 6}},
		{"2 * int32 stays int32 (either side)", emily.Mul(2, i32), emily.Int32, []float64{2, -4, 6}},
		{"int32 * 0.5 gives float32", emily.Mul(i32, 0.5), emily.Float32, []float64{0.5, -1, 1.5}},
		{"int64 * 0.5 gives float32, not float64", emily.Mul(i64, 0.5), emily.Float32, []float64{1 << 39, 0.5, -0.5}},
		{"float16 + 2 stays float16", emily.Add(f16, 2), emily.Float16, []float64{3.5, 0, 5}},
		{"float16 + 0.25 stays float16", emily.Add(f16, 0.25), emily.Float16, []float64{1.75, -1.75, 3.25}},
		{"bfloat16 * 3 stays bfloat16", emily.Mul(bf16, 3), emily.BFloat16, []float64{4.5, -6, 9}},
		{"bool + 1 gives int32", emily.Add(b, 1), emily.Int32, []float64{2, 1, 2}},
		{"bool + 0.5 gives float32", emily.Add(b, 0.5), emily.Float32, []float64{1.5, 0.5, 1.5}},
		{"bool && true stays bool", emily.LogicalAnd(b, true), emily.Bool, []float64{1, 0, 1}},
		{"int32 + true stays int32", emily.Add(i32, true), emily.Int32, []float64{2, -1, 4}},
		{"float16 * true stays float16", emily.Mul(f16, true), emily.Float16, []float64{1.5, -2, 3}},
		{"uint8 + 5 wraps in uint8 as the tensor's own arithmetic does", emily.Add(u8, 5), emily.Uint8, []float64{255, 6, 12}},
		{"uint8 + 255 is uint8 arithmetic (mod 256)", emily.Add(u8, 255), emily.Uint8, []float64{249, 0, 6}},
		{"int8 - 100 is int8 arithmetic (wraps)", emily.Sub(i8, 100), emily.Int8, []float64{56, -99, -93}},
		{"uint8 + uint(3) stays uint8", emily.Add(u8, uint(3)), emily.Uint8, []float64{253, 4, 10}},
		{"uint64 - 1 stays uint64", emily.Sub(u64, 1), emily.Uint64, []float64{0, 1, 2}},
		{"int64 + 2^40 stays int64 and exact", emily.Add(i64, int64(1)<<40), emily.Int64, []float64{1 << 41, 1<<40 + 1, 1<<40 - 1}},
		{"complex64 * 2 stays complex64", emily.Real(emily.Mul(c64, 2)), emily.Float32, []float64{2, 4, 6}},
		{"complex64 + 0.5 stays complex64", emily.Real(emily.Add(c64, 0.5)), emily.Float32, []float64{1.5, 2.5, 3.5}},
		{"two Go ints give int32", emily.Add(2, 3), emily.Int32, []float64{5}},
		{"two Go floats give float32", emily.Add(2.5, 1), emily.Float32, []float64{3.5}},
		{"a Go int past int32 gives int64", emily.Add(int64(1)<<40, 1), emily.Int64, []float64{1<<40 + 1}},
		{"Where(cond, float16, 0) stays float16 (cond does not type the 0)", emily.Where(b, f16, 0), emily.Float16, []float64{1.5, 0, 3}},
		{"Where(cond, 1, int8) stays int8", emily.Where(b, 1, i8), emily.Int8, []float64{1, 1, 1}},
		{"Where(true, 1.5, 2) gives float32", emily.Where(true, 1.5, 2), emily.Float32, []float64{1.5}},
		{"Clip(uint8, 2, 100) stays uint8", emily.Clip(u8, 2, 100), emily.Uint8, []float64{100, 2, 7}},
		{"Clip(float16, -1, 2.5) stays float16", emily.Clip(f16, -1, 2.5), emily.Float16, []float64{1.5, -1, 2.5}},
		{"Less(int8, 5) compares in int8", emily.Less(i8, 5), emily.Bool, []float64{1, 1, 0}},
		{"int32 FloorDivide 2 stays int32", emily.FloorDivide(i32, 2), emily.Int32, []float64{0, -1, 1}},
		{"int32 Div 2 gives float32", emily.Div(i32, 2), emily.Float32, []float64{0.5, -1, 1.5}},
		{"uint8 LeftShift 1 stays uint8", emily.LeftShift(u8, 1), emily.Uint8, []float64{244, 2, 14}},
	}
	if emily.DefaultDevice() == "cpu" { // MLX has float64 on the CPU only
		f64 := emily.FromSlice([]float32{1.5, -2, 3}).Astype(emily.Float64)
		tenth := 0.1 // float64 arithmetic at run time, as MLX does it
		tests = append(tests, struct {
			name string
			got  *emily.Tensor
			dt   emily.DType
			want []float64
		}{"float64 + 0.1 stays float64, the 0.1 exact", emily.Add(f64, 0.1), emily.Float64, []float64{1.5 + tenth, -2 + tenth, 3 + tenth}})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.got.DType(); got != tc.dt {
				t.Fatalf("dtype %s, want %s", got, tc.dt)
			}
			got := tc.got.ToFloat64s()
			if len(got) != len(tc.want) {
				t.Fatalf("values %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("values %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// A Go integer that the other operand's integer dtype cannot hold is an
// error, as in MLX ("Converting 300 to uint8 would result in overflow"),
// not a silently wrapped value.
func TestGoIntegerOverflowingTheTensorDTypeIsAnError(t *testing.T) {
	u8 := emily.FromSlice([]uint8{1, 2})
	i8 := emily.FromSlice([]int32{1, 2}).Astype(emily.Int8)
	i32 := emily.FromSlice([]int32{1, 2})
	u32 := emily.FromSlice([]int32{1, 2}).Astype(emily.Uint32)
	for _, tc := range []struct {
		name string
		fn   func()
		want string
	}{
		{"uint8 + 300", func() { emily.Add(u8, 300) }, "300 does not fit the other operand's uint8"},
		{"uint8 + -1", func() { emily.Add(u8, -1) }, "-1 does not fit the other operand's uint8"},
		{"int8 * 128", func() { emily.Mul(i8, 128) }, "128 does not fit the other operand's int8"},
		{"300 - uint8 (number first)", func() { emily.Sub(300, u8) }, "does not fit the other operand's uint8"},
		{"int32 + 2^31", func() { emily.Add(i32, int64(1)<<31) }, "2147483648 does not fit the other operand's int32"},
		{"uint32 + uint64 max", func() { emily.Add(u32, ^uint64(0)) }, "18446744073709551615 does not fit"},
		{"Clip(uint8, 0, 1000)", func() { emily.Clip(u8, 0, 1000) }, "1000 does not fit the other operand's uint8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := emily.Try(tc.fn)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range []string{tc.want, "fix: Astype"} {
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("error %q lacks %q", err, want)
				}
			}
		})
	}
	// The bounds themselves fit: no error, and uint8 arithmetic.
	if got := emily.Add(u8, 255).ToFloat64s(); got[0] != 0 || got[1] != 1 {
		t.Fatalf("uint8 [1 2] + 255 = %v, want [0 1]", got)
	}
	if got := emily.Add(i8, -128).ToFloat64s(); got[0] != -127 || got[1] != -126 {
		t.Fatalf("int8 [1 2] + -128 = %v, want [-127 -126]", got)
	}
}
