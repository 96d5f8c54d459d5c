package emily_test

import (
	"math"
	"testing"

	"github.com/emily-go/emily"
)

// Edge values the NumPy differential test does not draw: NaN and the
// infinities through NanToNum, Sign and the predicates, real complex
// values through Conj/Real/Imag, and integer division by negative
// divisors. Expected values are NumPy's.

func sameFloats(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestElementwiseEdgeValues(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	x := emily.FromSlice([]float32{float32(nan), float32(inf), float32(-inf), 0, -1.5, 2.5})
	i32 := emily.FromSlice([]int32{7, -7, 7, -7, 0})
	d32 := emily.FromSlice([]int32{2, 2, -2, -2, 3})
	bits := func(b []bool) []float64 {
		out := make([]float64, len(b))
		for i, v := range b {
			if v {
				out[i] = 1
			}
		}
		return out
	}
	tests := []struct {
		name string
		got  *emily.Tensor
		dt   emily.DType
		want []float64
	}{
		{"NanToNum: dtype limits", emily.NanToNum(x), emily.Float32, []float64{0, math.MaxFloat32, -math.MaxFloat32, 0, -1.5, 2.5}},
		{"NanToNum float16: its own limits", emily.NanToNum(x.Astype(emily.Float16)), emily.Float16, []float64{0, 65504, -65504, 0, -1.5, 2.5}},
		{"NanToNumWith", emily.NanToNumWith(x, 9, 100, -100), emily.Float32, []float64{9, 100, -100, 0, -1.5, 2.5}},
		{"Sign keeps NaN", emily.Sign(x), emily.Float32, []float64{nan, 1, -1, 0, -1, 1}},
		{"Sign of ints", emily.Sign(i32), emily.Int32, []float64{1, -1, 1, -1, 0}},
		{"IsNaN", emily.IsNaN(x), emily.Bool, []float64{1, 0, 0, 0, 0, 0}},
		{"IsInf", emily.IsInf(x), emily.Bool, []float64{0, 1, 1, 0, 0, 0}},
		{"IsFinite", emily.IsFinite(x), emily.Bool, []float64{0, 0, 0, 1, 1, 1}},
		{"IsPosInf", emily.IsPosInf(x), emily.Bool, []float64{0, 1, 0, 0, 0, 0}},
		{"IsNegInf", emily.IsNegInf(x), emily.Bool, []float64{0, 0, 1, 0, 0, 0}},
		{"Maximum: NaN wins", emily.Maximum(x, 0), emily.Float32, []float64{nan, inf, 0, 0, 0, 2.5}},
		{"NotEqual: NaN != NaN", emily.NotEqual(x, x), emily.Bool, []float64{1, 0, 0, 0, 0, 0}},
		{"Where picks NaN through", emily.Where(emily.IsNaN(x), x, -1), emily.Float32, []float64{nan, -1, -1, -1, -1, -1}},
		{"Round halves to even", emily.Round(emily.FromSlice([]float32{0.5, 1.5, 2.5, -0.5, -2.5})), emily.Float32, []float64{0, 2, 2, 0, -2}},
		{"RoundTo -1", emily.RoundTo(emily.FromSlice([]float32{14, 15, 25, -251}), -1), emily.Float32, []float64{10, 20, 20, -250}},
		{"FloorDivide ints rounds down", emily.FloorDivide(i32, d32), emily.Int32, []float64{3, -4, -4, 3, 0}},
		{"Remainder ints takes the divisor's sign", emily.Remainder(i32, d32), emily.Int32, []float64{1, 1, -1, -1, 0}},
		{"Remainder floats takes the divisor's sign", emily.Remainder(emily.FromSlice([]float32{7, -7, 7, -7}), emily.FromSlice([]float32{2, 2, -2, -2})), emily.Float32, []float64{1, 1, -1, -1}},
		{"RightShift is arithmetic for signed ints", emily.RightShift(emily.FromSlice([]int32{-8, 8}), 1), emily.Int32, []float64{-4, 4}},
		{"BitwiseInvert uint8", emily.BitwiseInvert(emily.FromSlice([]uint8{0, 255, 15})), emily.Uint8, []float64{255, 0, 240}},
		{"BitwiseXor bools", emily.BitwiseXor(emily.FromSlice([]bool{true, true, false}), emily.FromSlice([]bool{true, false, false})), emily.Bool, []float64{0, 1, 0}},
		{"LogicalNot reads non-zero as true", emily.LogicalNot(emily.FromSlice([]float32{0, 2, float32(nan)})), emily.Bool, []float64{1, 0, 0}},
		{"Clip: hi wins where lo > hi", emily.Clip(emily.FromSlice([]float32{-5, 0, 5}), 2, 1), emily.Float32, []float64{1, 1, 1}},
		{"AllClose equal_nan", emily.AllCloseTol(x, x, 0, 0, true), emily.Bool, []float64{1}},
		{"AllClose without equal_nan", emily.AllClose(x, x), emily.Bool, []float64{0}},
		{"ArrayEqual shapes differ", emily.ArrayEqual(emily.Zeros(2, 3), emily.Zeros(3, 2)), emily.Bool, []float64{0}},
		{"ArrayEqual across dtypes", emily.ArrayEqual(emily.Arange(3), emily.Arange(3).Astype(emily.Float16)), emily.Bool, []float64{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got.DType() != tc.dt {
				t.Fatalf("dtype %s, want %s", tc.got.DType(), tc.dt)
			}
			var got []float64
			if tc.dt == emily.Bool {
				got = bits(tc.got.ToBools())
			} else {
				got = tc.got.ToFloat64s()
			}
			if !sameFloats(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestComplexParts(t *testing.T) {
	z := emily.FromSlice([]complex64{1 + 2i, -3 - 4i, 0.5})
	if got := emily.Conj(z).ToComplex64s(); got[0] != 1-2i || got[1] != -3+4i || got[2] != 0.5 {
		t.Fatalf("Conj = %v", got)
	}
	re, im := emily.Real(z), emily.Imag(z)
	if re.DType() != emily.Float32 || im.DType() != emily.Float32 {
		t.Fatalf("Real, Imag dtypes %s, %s, want float32", re.DType(), im.DType())
	}
	if !sameFloats(re.ToFloat64s(), []float64{1, -3, 0.5}) || !sameFloats(im.ToFloat64s(), []float64{2, -4, 0}) {
		t.Fatalf("Real = %v, Imag = %v", re.ToFloat64s(), im.ToFloat64s())
	}
}

// DivMod returns both results of one op, equal to FloorDivide and
// Remainder.
func TestDivModMatchesFloorDivideAndRemainder(t *testing.T) {
	a := emily.FromSlice([]int32{7, -7, 9, -9, 0})
	b := emily.FromSlice([]int32{2, 2, -4, -4, 5})
	q, r := emily.DivMod(a, b)
	if !sameFloats(q.ToFloat64s(), emily.FloorDivide(a, b).ToFloat64s()) || !sameFloats(r.ToFloat64s(), emily.Remainder(a, b).ToFloat64s()) {
		t.Fatalf("DivMod = %v, %v", q.ToFloat64s(), r.ToFloat64s())
	}
	// a == q*b + r for every element.
	back := emily.Add(emily.Mul(q, b), r).ToFloat64s()
	if !sameFloats(back, a.ToFloat64s()) {
		t.Fatalf("q*b + r = %v, want %v", back, a.ToFloat64s())
	}
}
