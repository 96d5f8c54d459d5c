package emily_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// TestIntegerDivisionFollowsNumPy: integer DivMod by zero and INT_MIN / -1
// were SIGFPE (issue 19). They now give NumPy's results (OPS.md): x // 0
// and x % 0 are 0, INT_MIN // -1 wraps to INT_MIN and INT_MIN % -1 is 0,
// eagerly and in every jit lane; ordinary values keep floor semantics.
func TestIntegerDivisionFollowsNumPy(t *testing.T) {
	a := emily.FromSlice([]int32{7, -7, math.MinInt32, math.MinInt32, -7, 7, 0}, 7)
	b := emily.FromSlice([]int32{0, 0, -1, 0, 2, -2, -1}, 7)
	wantQ := []int32{0, 0, math.MinInt32, 0, -4, -4, 0}
	wantR := []int32{0, 0, 0, 0, 1, -1, 0}
	f := func(a, b *emily.Tensor) (*emily.Tensor, *emily.Tensor, *emily.Tensor, *emily.Tensor) {
		q, r := emily.DivMod(a, b)
		return emily.FloorDivide(a, b), emily.Remainder(a, b), q, r
	}
	check := func(lane string, outs ...*emily.Tensor) {
		t.Helper()
		for i, o := range outs {
			want := wantQ
			if i%2 == 1 {
				want = wantR
			}
			if got := o.ToInt32s(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: result %d = %v, want %v", lane, i, got, want)
			}
		}
	}
	q, r, dq, dr := f(a, b)
	check("eager", q, r, dq, dr)
	for _, lane := range []struct {
		name string
		opts []emily.Option
	}{
		{"native", []emily.Option{emily.WithNative(true)}},
		{"eval", []emily.Option{emily.WithNative(false)}},
		{"fuse", []emily.Option{emily.WithNative(true), emily.WithFuse(true)}},
	} {
		j, err := emily.Compile(f, lane.opts...)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := j.Call(a, b)
		if err != nil {
			t.Fatalf("%s: %v", lane.name, err)
		}
		check(lane.name, outs...)
	}
	// Unsigned and 64-bit operands, and a weak Go number as divisor.
	u := emily.FromSlice([]uint8{5, 255}, 2)
	if got := emily.FloorDivide(u, emily.FromSlice([]uint8{0, 0}, 2)).ToUint8s(); !reflect.DeepEqual(got, []uint8{0, 0}) {
		t.Errorf("uint8 // 0 = %v", got)
	}
	l := emily.FromSlice([]int64{math.MinInt64, 9}, 2)
	if got := emily.FloorDivide(l, -1).ToInt64s(); !reflect.DeepEqual(got, []int64{math.MinInt64, -9}) {
		t.Errorf("int64 // -1 = %v", got)
	}
	if got := emily.Remainder(l, 0).ToInt64s(); !reflect.DeepEqual(got, []int64{0, 0}) {
		t.Errorf("int64 %% 0 = %v", got)
	}
}

// TestBadOpInputsAreErrorsNotSignals: each of these was SIGFPE in MLX
// (issue 19) and is now an *emily.Error naming the op and the field.
func TestBadOpInputsAreErrorsNotSignals(t *testing.T) {
	empty := emily.Zeros(0, 0)
	x := emily.Ones(1, 5, 4)
	w := emily.Ones(2, 3, 4)
	for _, tc := range []struct {
		name, want string
		f          func()
	}{
		{"Inv of 0×0", "Inv: x has shape [0 0]: the matrix must not be empty", func() { emily.Inv(empty).Eval() }},
		{"Solve of 0×0", "Solve: a has shape [0 0]", func() { emily.Solve(empty, emily.Zeros(0)).Eval() }},
		{"TriInv of 0×0", "TriInv: x has shape [0 0]", func() { emily.TriInv(empty, false).Eval() }},
		{"Conv1d groups=0", "Conv1d: groups is 0, it must be at least 1", func() { emily.Conv1dWith(x, w, 1, 0, 1, 0).Eval() }},
		{"Conv1d stride=0", "stride is 0", func() { emily.Conv1dWith(x, w, 0, 0, 1, 1).Eval() }},
		{"Conv1d empty weight", "the weight", func() { emily.Conv1d(x, emily.Ones(0, 3, 4)).Eval() }},
		{"Split into 2^31-1", "at most 65536", func() { emily.Split(emily.Ones(6), math.MaxInt32, 0) }},
	} {
		e := catchErr(t, tc.f)
		if e == nil || !strings.Contains(e.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, e, tc.want)
		}
	}
}
