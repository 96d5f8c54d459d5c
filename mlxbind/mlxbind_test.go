package mlxbind

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

func f32Bytes(xs ...float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func f32s(t *testing.T, b []byte) []float32 {
	t.Helper()
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func cpuStream(t *testing.T) Stream {
	t.Helper()
	s, err := DefaultStream(CPU)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustArray(t *testing.T, shape []int, xs ...float32) *Array {
	t.Helper()
	a, err := FromBytes(f32Bytes(xs...), shape, Float32)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// expectValues reads a's float32 values on s and requires exactly want.
func expectValues(t *testing.T, what string, s Stream, a *Array, want ...float32) {
	t.Helper()
	b, err := a.Bytes(s)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	got := f32s(t, b)
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
	}
}

func opcode(t *testing.T, name string) int {
	t.Helper()
	for i := 0; i < OpcodeCount(); i++ {
		if OpcodeName(i) == name {
			return i
		}
	}
	t.Fatalf("no opcode %q", name)
	return -1
}

func TestEagerAddAndReadback(t *testing.T) {
	s := cpuStream(t)
	a := mustArray(t, []int{2, 2}, 1, 2, 3, 4)
	b := mustArray(t, []int{2}, 10, 20)
	defer a.Free()
	defer b.Free()
	cs, err := Op(s, opcode(t, "add"), []*Array{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	defer c.Free()
	expectValues(t, "add", s, c, 11, 22, 13, 24)
}

func TestTransposedReadbackIsRowMajor(t *testing.T) {
	s := cpuStream(t)
	a := mustArray(t, []int{2, 3}, 0, 1, 2, 3, 4, 5)
	tr, err := Op(s, opcode(t, "transpose"), []*Array{a}, []int64{0})
	if err != nil {
		t.Fatal(err)
	}
	expectValues(t, "transpose", s, tr[0], 0, 3, 1, 4, 2, 5)
}

func TestOpErrorsAreErrorsNotCrashes(t *testing.T) {
	s := cpuStream(t)
	a := mustArray(t, []int{2, 3}, 0, 1, 2, 3, 4, 5)
	b := mustArray(t, []int{4, 5}, make([]float32, 20)...)
	_, err := Op(s, opcode(t, "matmul"), []*Array{a, b}, nil)
	if err == nil || !strings.Contains(err.Error(), "matmul") {
		t.Fatalf("matmul (2,3)x(4,5): err = %v, want a shape error", err)
	}
	_, err = Op(s, opcode(t, "add"), []*Array{a}, nil)
	if err == nil || !strings.Contains(err.Error(), "add: takes 2 operand(s), got 1") {
		t.Fatalf("add with one operand: err = %v", err)
	}
	_, err = Op(s, 9999, []*Array{a}, nil)
	if err == nil || !strings.Contains(err.Error(), "unknown opcode") {
		t.Fatalf("bad opcode: err = %v", err)
	}
	a.Free()
	if _, err := Op(s, opcode(t, "exp"), []*Array{a}, nil); err == nil {
		t.Fatal("op on a freed array succeeded")
	}
	a.Free() // a second Free is harmless
}

func TestProgramReplayAndValidation(t *testing.T) {
	s := cpuStream(t)
	c := mustArray(t, []int{1}, 1)
	// out = exp(in0) + c
	code := []int64{
		int64(opcode(t, "exp")), 1, 1, Ref(RefInput, 0, 0), 0,
		int64(opcode(t, "add")), 1, 2, Ref(RefInstr, 0, 0), Ref(RefConst, 0, 0), 0,
	}
	p, err := NewProgram(1, []*Array{c}, code, []int64{Ref(RefInstr, 1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	x := mustArray(t, []int{3}, 0, 1, 2)
	for _, fuse := range []bool{false, true} {
		outs, err := p.Run(s, []*Array{x}, fuse)
		if err != nil {
			t.Fatalf("fuse=%v: %v", fuse, err)
		}
		b, _ := outs[0].Bytes(s)
		got := f32s(t, b)
		for i, v := range []float64{0, 1, 2} {
			want := math.Exp(v) + 1
			if math.Abs(float64(got[i])-want) > 1e-5 {
				t.Fatalf("fuse=%v: got %v at %d, want %v", fuse, got[i], i, want)
			}
		}
	}
	bad := []struct {
		name, want string
		code       []int64
		outs       []int64
	}{
		{"forward ref", "bad operand ref", []int64{int64(opcode(t, "exp")), 1, 1, Ref(RefInstr, 0, 0), 0}, []int64{Ref(RefInstr, 0, 0)}},
		{"missing input", "bad operand ref", []int64{int64(opcode(t, "exp")), 1, 1, Ref(RefInput, 3, 0), 0}, []int64{Ref(RefInstr, 0, 0)}},
		{"arity", "takes 2 operand(s)", []int64{int64(opcode(t, "add")), 1, 1, Ref(RefInput, 0, 0), 0}, []int64{Ref(RefInstr, 0, 0)}},
		{"bad dtype", "unknown dtype", []int64{int64(opcode(t, "astype")), 1, 1, Ref(RefInput, 0, 0), 1, 99}, []int64{Ref(RefInstr, 0, 0)}},
		{"truncated", "ends mid-instruction", []int64{int64(opcode(t, "exp")), 1, 1}, []int64{Ref(RefInput, 0, 0)}},
		{"result count", "gives 1 results, the code says 2", []int64{int64(opcode(t, "exp")), 2, 1, Ref(RefInput, 0, 0), 0}, []int64{Ref(RefInstr, 0, 0)}},
		{"result ref", "bad operand ref", []int64{int64(opcode(t, "exp")), 1, 1, Ref(RefInput, 0, 0), 0}, []int64{Ref(RefInstr, 0, 1)}},
		{"int32 range", "does not fit in 32 bits", []int64{int64(opcode(t, "reshape")), 1, 1, Ref(RefInput, 0, 0), 2, 1, 1 << 32}, []int64{Ref(RefInstr, 0, 0)}},
		{"attr words", "cut short", []int64{int64(opcode(t, "reshape")), 1, 1, Ref(RefInput, 0, 0), 1, 3}, []int64{Ref(RefInstr, 0, 0)}},
		{"no outputs", "no outputs", nil, nil},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewProgram(1, nil, tc.code, tc.outs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// A replay reads its outputs' dtypes and shapes in one call (newArrays):
// ranks past its buffer (here 9) take the per-array path, and one
// output's shape cannot grow into the next one's.
func TestProgramOutputShapes(t *testing.T) {
	s := cpuStream(t)
	nine := []int64{9, 1, 1, 1, 1, 1, 1, 1, 1, 3}
	code := []int64{int64(opcode(t, "exp")), 1, 1, Ref(RefInput, 0, 0), 0}
	code = append(code, int64(opcode(t, "reshape")), 1, 1, Ref(RefInput, 0, 0), int64(len(nine)))
	code = append(code, nine...)
	code = append(code, int64(opcode(t, "astype")), 1, 1, Ref(RefInstr, 0, 0), 1, int64(Int32))
	p, err := NewProgram(1, nil, code, []int64{Ref(RefInstr, 0, 0), Ref(RefInstr, 1, 0), Ref(RefInstr, 2, 0), Ref(RefInput, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	x := mustArray(t, []int{3}, 0, 1, 2)
	for _, fuse := range []bool{false, true} {
		outs, err := p.Run(s, []*Array{x}, fuse)
		if err != nil {
			t.Fatalf("fuse=%v: %v", fuse, err)
		}
		want := []struct {
			shape []int
			dtype DType
		}{{[]int{3}, Float32}, {[]int{1, 1, 1, 1, 1, 1, 1, 1, 3}, Float32}, {[]int{3}, Int32}, {[]int{3}, Float32}}
		for i, w := range want {
			if got := outs[i].Shape(); !equalInts(got, w.shape) || outs[i].DType() != w.dtype {
				t.Errorf("fuse=%v: output %d is %v %v, want %v %v", fuse, i, outs[i].DType(), got, w.dtype, w.shape)
			}
		}
		_ = append(outs[0].Shape(), 7)
		if got := outs[2].Shape(); !equalInts(got, []int{3}) {
			t.Errorf("fuse=%v: appending to output 0's shape changed output 2's to %v", fuse, got)
		}
		b, _ := outs[2].Bytes(s)
		if got := []int32{int32(binary.LittleEndian.Uint32(b)), int32(binary.LittleEndian.Uint32(b[8:]))}; got[0] != 1 || got[1] != 7 {
			t.Errorf("fuse=%v: int32(exp(x)) = %v, want [1 _ 7]", fuse, got)
		}
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
