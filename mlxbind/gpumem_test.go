package mlxbind

import (
	"math"
	"testing"
)

// streamsUnderTest are the default streams of the devices this MLX build
// has: the CPU always, the GPU where there is one.
func streamsUnderTest(t *testing.T) []Stream {
	t.Helper()
	ss := []Stream{cpuStream(t)}
	if GPU.Available() {
		s, err := DefaultStream(GPU)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss
}

func ramp(n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i) - 0.25
	}
	return xs
}

// TestReadbackOfFreshResultsAndViews reads results computed on each device
// back, whole and as contiguous slices that start inside their buffer, with
// the direct GPU path on and off (mlxbind/gpumem.cc reads device buffers
// with the CUDA driver, adding the view's offset itself).
func TestReadbackOfFreshResultsAndViews(t *testing.T) {
	add, slice := opcode(t, "add"), opcode(t, "slice")
	for _, s := range streamsUnderTest(t) {
		for _, direct := range []int{1 << 30, 0} {
			prev := SetDirectReadMax(direct)
			for _, n := range []int{1, 3, 4, 1000, 300_000} {
				xs := ramp(n)
				x := mustArray(t, []int{n}, xs...)
				ys, err := Op(s, add, []*Array{x, x}, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]float32, n)
				for i, v := range xs {
					want[i] = 2 * v
				}
				expectValues(t, "x+x", s, ys[0], want...)
				// A fresh result read only through a view from element n/2 on.
				ys, _ = Op(s, add, []*Array{x, x}, nil)
				lo := n / 2
				v, err := Op(s, slice, []*Array{ys[0]}, []int64{1, int64(lo), 1, int64(n), 1, 1})
				if err != nil {
					t.Fatal(err)
				}
				expectValues(t, "(x+x)[n/2:]", s, v[0], want[lo:]...)
				ys[0].Free()
				v[0].Free()
				x.Free()
			}
			SetDirectReadMax(prev)
		}
	}
}

// TestProgramConstantsOnTheGPUGiveTheSameBits: a replay reads its scalar
// constants from device copies on a GPU stream (the default) or from the
// arrays it was given; both give the same bits, on every device.
func TestProgramConstantsOnTheGPUGiveTheSameBits(t *testing.T) {
	half := mustArray(t, nil, 0.5)
	three := mustArray(t, []int{1}, 3)
	// out = tanh((in0 * 0.5) + 3) * 0.5: one scalar used twice (the
	// program splits it per use), one of shape [1].
	code := []int64{
		int64(opcode(t, "multiply")), 1, 2, Ref(RefInput, 0, 0), Ref(RefConst, 0, 0), 0,
		int64(opcode(t, "add")), 1, 2, Ref(RefInstr, 0, 0), Ref(RefConst, 1, 0), 0,
		int64(opcode(t, "tanh")), 1, 1, Ref(RefInstr, 1, 0), 0,
		int64(opcode(t, "multiply")), 1, 2, Ref(RefInstr, 2, 0), Ref(RefConst, 0, 0), 0,
	}
	p, err := NewProgram(1, []*Array{half, three}, code, []int64{Ref(RefInstr, 3, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	x := mustArray(t, []int{5}, -4, -1, 0, 1.5, 8)
	for _, s := range streamsUnderTest(t) {
		var got [2][]byte
		for i, on := range []bool{true, false} {
			prev := SetDeviceScalars(on)
			outs, err := p.Run(s, []*Array{x}, false)
			SetDeviceScalars(prev)
			if err != nil {
				t.Fatalf("%v, device scalars %v: %v", s.Device(), on, err)
			}
			if got[i], err = outs[0].Bytes(s); err != nil {
				t.Fatal(err)
			}
		}
		if string(got[0]) != string(got[1]) {
			t.Fatalf("%v: device scalars %v, managed %v", s.Device(), f32s(t, got[0]), f32s(t, got[1]))
		}
		c, err := half.DeviceResident(s)
		if err != nil {
			t.Fatal(err)
		}
		expectValues(t, "DeviceResident(0.5)", s, c, 0.5)
		if (c != half) != (s.Device() == GPU) {
			t.Fatalf("%v: DeviceResident made a copy: %v, want one only on the GPU", s.Device(), c != half)
		}
	}
}

// TestDirectReadMaxRestores: the default (no limit) reads back as
// math.MaxInt and restores itself, so a save-and-restore does not turn
// the direct path off.
func TestDirectReadMaxRestores(t *testing.T) {
	prev := SetDirectReadMax(16)
	if prev != math.MaxInt {
		t.Fatalf("default direct-read limit = %d, want math.MaxInt", prev)
	}
	if got := SetDirectReadMax(prev); got != 16 {
		t.Fatalf("limit read back as %d, want 16", got)
	}
	if got := SetDirectReadMax(prev); got != math.MaxInt {
		t.Fatalf("restored limit = %d, want math.MaxInt", got)
	}
}
