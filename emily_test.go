package emily_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

func TestEagerOpsMatchHandComputedValues(t *testing.T) {
	x := emily.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	w := emily.FromSlice([]float32{1, 0, 0, 1, 1, 1}, 3, 2)
	tests := []struct {
		name  string
		got   *emily.Tensor
		shape []int
		want  []float64
	}{
		{"add broadcast", emily.Add(x, emily.FromSlice([]float32{10, 20, 30})), []int{2, 3}, []float64{11, 22, 33, 14, 25, 36}},
		{"sub", emily.Sub(x, x), []int{2, 3}, []float64{0, 0, 0, 0, 0, 0}},
		{"mul scalar", emily.Mul(x, emily.Scalar(2)), []int{2, 3}, []float64{2, 4, 6, 8, 10, 12}},
		{"div", emily.Div(x, emily.Scalar(2)), []int{2, 3}, []float64{0.5, 1, 1.5, 2, 2.5, 3}},
		{"sum all", emily.Sum(x), []int{}, []float64{21}},
		{"sum axis 0", emily.Sum(x, 0), []int{3}, []float64{5, 7, 9}},
		{"sum keepdims", emily.SumKeepDims(x, 1), []int{2, 1}, []float64{6, 15}},
		{"max axis -1", emily.Max(x, -1), []int{2}, []float64{3, 6}},
		{"matmul", emily.Matmul(x, w), []int{2, 2}, []float64{4, 5, 10, 11}},
		{"reshape", x.Reshape(3, -1), []int{3, 2}, []float64{1, 2, 3, 4, 5, 6}},
		{"transpose", x.Transpose(), []int{3, 2}, []float64{1, 4, 2, 5, 3, 6}},
		{"broadcast", emily.BroadcastTo(emily.FromSlice([]float32{1, 2}), 2, 2), []int{2, 2}, []float64{1, 2, 1, 2}},
		{"astype", emily.FromSlice([]float32{1.7, -1.7}).Astype(emily.Int32), []int{2}, []float64{1, -1}},
		{"neg", emily.Neg(emily.FromSlice([]float32{1, -2})), []int{2}, []float64{-1, 2}},
		{"arange int32", emily.Arange(4), []int{4}, []float64{0, 1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.got.Shape(); !equalInts(got, tc.shape) {
				t.Fatalf("shape %v, want %v", got, tc.shape)
			}
			for i, v := range tc.got.ToFloat64s() {
				if math.Abs(v-tc.want[i]) > 1e-6 {
					t.Fatalf("values %v, want %v", tc.got.ToFloat64s(), tc.want)
				}
			}
		})
	}
	exp := emily.Exp(emily.FromSlice([]float32{0, 1})).ToFloat32s()
	if exp[0] != 1 || math.Abs(float64(exp[1])-math.E) > 1e-6 {
		t.Fatalf("exp = %v", exp)
	}
	if dt := emily.Arange(3).DType(); dt != emily.Int32 {
		t.Fatalf("Arange dtype %s, want int32", dt)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestErrorsNameOpShapesAndFix(t *testing.T) {
	a := emily.Zeros(2, 3)
	b := emily.Zeros(4, 5)
	err := emily.Try(func() { emily.Matmul(a, b) })
	var e *emily.Error
	if !errors.As(err, &e) {
		t.Fatalf("Matmul error = %v (%T), want *emily.Error", err, err)
	}
	msg := err.Error()
	for _, want := range []string{"emily.Matmul", "float32[2 3]", "float32[4 5]", "fix:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	err = emily.Try(func() { a.Reshape(4, 4) })
	if err == nil || !strings.Contains(err.Error(), "emily.Reshape(float32[2 3])") {
		t.Fatalf("Reshape error = %v", err)
	}
	err = emily.Try(func() { emily.FromSlice([]float32{1, 2, 3}, 2, 2) })
	if err == nil || !strings.Contains(err.Error(), "3 values do not fill shape [2 2]") {
		t.Fatalf("FromSlice error = %v", err)
	}
	freed := emily.Ones(2)
	freed.Free()
	if err := emily.Try(func() { emily.Exp(freed) }); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Fatalf("op on a freed tensor: %v", err)
	}
}

func TestPreview(t *testing.T) {
	tests := []struct {
		name string
		t    *emily.Tensor
		want string
	}{
		{"int matrix", emily.Arange(6).Reshape(2, 3), "Tensor int32[2 3]\n[[0 1 2]\n [3 4 5]]"},
		{"float vector", emily.FromSlice([]float32{1, 2.5, -3}), "Tensor float32[3]\n[ 1. 2.5 -3.]"},
		{"scalar", emily.Scalar(1.5), "Tensor float32[]\n1.5"},
		{"bool", emily.FromSlice([]bool{true, false}), "Tensor bool[2]\n[ true false]"},
		{"3d", emily.Arange(8).Reshape(2, 2, 2), "Tensor int32[2 2 2]\n[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"},
		{"elided", emily.Arange(2000), "Tensor int32[2000]\n[   0    1    2 … 1997 1998 1999]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.t.String(); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSetMemoryLimitParsesSizes(t *testing.T) {
	for _, ok := range []string{"8G", "512M", "64KiB", "1048576", "2GB"} {
		if err := emily.SetMemoryLimit(ok); err != nil {
			t.Errorf("SetMemoryLimit(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "lots", "-1G", "0"} {
		if err := emily.SetMemoryLimit(bad); err == nil {
			t.Errorf("SetMemoryLimit(%q) accepted", bad)
		}
	}
	emily.SetMemoryLimit("64G") // leave a roomy limit for the other tests
}

// TestDroppedTensorsDoNotPileUp drops 4 GB of eager intermediates without
// Free: MLX's active memory must stay bounded, since Go's GC cannot see it.
func TestDroppedTensorsDoNotPileUp(t *testing.T) {
	x := emily.Ones(1 << 20) // 4 MB
	var worst uint64
	for i := 0; i < 100; i++ {
		y := x
		for k := 0; k < 10; k++ {
			y = emily.Add(y, x) // 10 live 4 MB intermediates per iteration
		}
		y.Eval()
		if a := emily.Memory().Active; a > worst {
			worst = a
		}
	}
	if worst > 1<<30 {
		t.Fatalf("active MLX memory reached %d MB for 40 MB live per iteration", worst>>20)
	}
}

// TestDroppedJitOutputsDoNotPileUp is the benchmark loop that once reached
// 53 GB on an H200: a jitted function's 4 MB results dropped at full speed.
func TestDroppedJitOutputsDoNotPileUp(t *testing.T) {
	f := emily.Jit(func(a *emily.Tensor) *emily.Tensor { return emily.Add(a, a) }).(func(*emily.Tensor) *emily.Tensor)
	x := emily.Ones(1 << 20)
	var worst uint64
	for i := 0; i < 1000; i++ {
		f(x)
		if a := emily.Memory().Active; a > worst {
			worst = a
		}
	}
	if worst > 1<<30 {
		t.Fatalf("active MLX memory reached %d MB for one live 4 MB result", worst>>20)
	}
}

func TestDTypeRoundTrips(t *testing.T) {
	vals := []float32{1.5, -2.25, 0, 65504}
	x := emily.FromSlice(vals)
	for _, dt := range []emily.DType{emily.Float16, emily.BFloat16, emily.Float32, emily.Int32, emily.Int64, emily.Bool} {
		t.Run(dt.String(), func(t *testing.T) {
			y := x.Astype(dt)
			if y.DType() != dt {
				t.Fatalf("dtype %s, want %s", y.DType(), dt)
			}
			// Raw bytes out and back in give the same tensor.
			z := emily.FromBytes(y.Bytes(), dt, y.Shape()...)
			got, want := z.ToFloat64s(), y.ToFloat64s()
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("round trip %v, want %v", got, want)
				}
			}
			switch dt {
			case emily.Float16, emily.Float32: // exact for these values
				for i, v := range vals {
					if float32(want[i]) != v {
						t.Fatalf("%s values %v, want %v", dt, want, vals)
					}
				}
			case emily.BFloat16: // 8 mantissa bits: 65504 rounds to 65536
				if want[0] != 1.5 || want[1] != -2.25 || want[3] != 65536 {
					t.Fatalf("bfloat16 values %v", want)
				}
			case emily.Bool:
				if want[0] != 1 || want[2] != 0 {
					t.Fatalf("bool values %v", want)
				}
			}
		})
	}
	if err := emily.Try(func() { emily.FromBytes(make([]byte, 6), emily.Float32, 2) }); err == nil {
		t.Fatal("FromBytes accepted 6 bytes for float32[2]")
	}
}

// TestHintsAnswerTheError: each "fix:" answers the error it follows: a
// dtype error gets a dtype fix, not the op's shape hint (Matmul of int32
// said "the inner dimensions must agree").
func TestHintsAnswerTheError(t *testing.T) {
	i := emily.Arange(6).Reshape(2, 3)
	f := emily.Ones(2, 3)
	for name, c := range map[string]struct {
		fn        func()
		want, not string
	}{
		"matmul int32":  {func() { emily.Matmul(i, emily.Arange(6).Reshape(3, 2)).Eval() }, "Astype(emily.Float32)", "inner dimensions"},
		"matmul shapes": {func() { emily.Matmul(f, f).Eval() }, "inner dimensions must agree", "Astype"},
		"add shapes":    {func() { emily.Add(f, emily.Ones(4)).Eval() }, "shapes must broadcast", "Astype"},
		"sum axis":      {func() { emily.Sum(f, 5).Eval() }, "axes must be distinct", "Astype"},
	} {
		err := emily.Try(c.fn)
		if err == nil || !strings.Contains(err.Error(), "fix: ") || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("%s: %v, want a fix with %q and without %q", name, err, c.want, c.not)
		}
	}
}
