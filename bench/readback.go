package main

import (
	"fmt"
	"runtime"
	"sort"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// readbackSteps is the controlled experiment behind the small-readback
// floor (BENCHMARKS.md, mlxbind/gpumem.cc): the same add on 4 floats with
// its result freed at once, held (a fresh MLX buffer every call, as when
// results wait for Go's collector), and left to the GC. Where holding with
// a readback is slow and holding without one is not, the cost is the
// readback of a fresh buffer (on CUDA through MLX: moving it to managed
// memory), not the allocation, the binding or Go's GC. Then the readback
// of fresh results by size, and the large readbacks: one copy for a
// same-dtype read against Bytes, a reused slice, and a preview that reads
// only what it shows against reading the whole tensor.
func readbackSteps(dev string) {
	d, _ := mlxbind.ParseDevice(dev)
	s, err := mlxbind.DefaultStream(d)
	if err != nil {
		panic(err)
	}
	raw, _ := mlxbind.FromBytes(make([]byte, 16), []int{4}, mlxbind.Float32)
	mlxbind.Eval(raw)
	add := int(ir.Add)
	a := emily.Ones(4).Eval()
	// On MLX's CUDA backend the block runs twice: with GPU buffers read
	// straight out (the default, mlxbind/gpumem.cc) and through MLX's move
	// to managed memory (what every readback did before).
	if mlxbind.DirectReadAvailable() {
		fmt.Println("small readback, result freed or not (4 floats), direct device read:")
		smallReadbacks(s, add, raw, a)
		prev := mlxbind.SetDirectReadMax(0)
		fmt.Println("small readback, result freed or not (4 floats), MLX's move to managed memory:")
		smallReadbacks(s, add, raw, a)
		mlxbind.SetDirectReadMax(prev)
		// The moved buffers would be recycled by the rows that follow.
		mlxbind.ClearCache()
	} else {
		fmt.Println("small readback, result freed or not (4 floats):")
		smallReadbacks(s, add, raw, a)
	}
	freshReadbacks()
	largeReadbacks()
}

// smallReadbacks is the block of small-readback steps described above.
func smallReadbacks(s mlxbind.Stream, add int, raw *mlxbind.Array, a *emily.Tensor) {
	var held []*mlxbind.Array
	freeHeld := func() {
		for _, h := range held {
			h.Free()
		}
		held = held[:0]
	}
	step := func(name string, fn func()) {
		fmt.Printf("  %-60s %s\n", name, human(timeit(fn)))
	}
	step("mlxbind.Op(add) + Eval, result freed", func() {
		ys, _ := mlxbind.Op(s, add, []*mlxbind.Array{raw, raw}, nil)
		mlxbind.Eval(ys[0])
		ys[0].Free()
	})
	step("mlxbind.Op(add) + Eval, results held (a fresh buffer each)", func() {
		ys, _ := mlxbind.Op(s, add, []*mlxbind.Array{raw, raw}, nil)
		mlxbind.Eval(ys[0])
		held = append(held, ys[0])
	})
	freeHeld()
	step("mlxbind.Op(add) + Bytes, result freed", func() {
		ys, _ := mlxbind.Op(s, add, []*mlxbind.Array{raw, raw}, nil)
		ys[0].Bytes(s)
		ys[0].Free()
	})
	step("mlxbind.Op(add) + Bytes, results held (a fresh buffer each)", func() {
		ys, _ := mlxbind.Op(s, add, []*mlxbind.Array{raw, raw}, nil)
		ys[0].Bytes(s)
		held = append(held, ys[0])
	})
	freeHeld()
	step("mlxbind.Op(add) + Bytes, held, all freed every 16 calls", func() {
		ys, _ := mlxbind.Op(s, add, []*mlxbind.Array{raw, raw}, nil)
		ys[0].Bytes(s)
		held = append(held, ys[0])
		if len(held) == 16 {
			freeHeld()
		}
	})
	freeHeld()
	step("emily.Add + ToFloat32s + Free", func() {
		y := emily.Add(a, a)
		y.ToFloat32s()
		y.Free()
	})
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t := timeit(func() { emily.Add(a, a).ToFloat32s() })
	runtime.ReadMemStats(&m1)
	fmt.Printf("  %-60s %s  (%d Go collections)\n", "emily.Add + ToFloat32s, left to the GC", human(t), m1.NumGC-m0.NumGC)
	// Long enough for Go's own collector to run: does the cost fall once
	// collections return buffers to MLX's cache?
	runtime.ReadMemStats(&m0)
	const long = 5000
	ts := make([]float64, long)
	for i := range ts {
		t0 := time.Now()
		emily.Add(a, a).ToFloat32s()
		ts[i] = time.Since(t0).Seconds()
	}
	runtime.ReadMemStats(&m1)
	first, last := append([]float64(nil), ts[:500]...), append([]float64(nil), ts[long-500:]...)
	sort.Float64s(first)
	sort.Float64s(last)
	fmt.Printf("  %-60s %s first 500, %s last 500  (%d Go collections; Go allocates %d B a call)\n",
		fmt.Sprintf("  same, %d calls in a row", long), human(first[250]), human(last[250]), m1.NumGC-m0.NumGC,
		(m1.TotalAlloc-m0.TotalAlloc)/long)
	fmt.Println()
}

// freshReadbacks times reading back a fresh result of each size (an add,
// then ToFloat32s, then Free) against the add evaluated and freed without
// a readback, and, on MLX's CUDA backend, the direct device read against
// MLX's move: the difference is what the readback costs, and where the
// two paths cross is where mlxbind's direct-read limit belongs.
func freshReadbacks() {
	fmt.Println("readback of a fresh result by size (add, read, free; minus add, eval, free):")
	for _, n := range []int{4, 1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22} {
		x := emily.Ones(n).Eval()
		evalOnly := timeit(func() {
			y := emily.Add(x, x).Eval()
			y.Free()
		})
		read := func() float64 {
			return timeit(func() {
				y := emily.Add(x, x)
				y.ToFloat32s()
				y.Free()
			})
		}
		line := fmt.Sprintf("  %8d f32: add+eval %s", n, human(evalOnly))
		if mlxbind.DirectReadAvailable() {
			prev := mlxbind.SetDirectReadMax(1 << 30)
			direct := read()
			mlxbind.SetDirectReadMax(0)
			moved := read()
			mlxbind.SetDirectReadMax(prev)
			mlxbind.ClearCache()
			line += fmt.Sprintf("  +read direct %s  +read via MLX's move %s", human(direct-evalOnly), human(moved-evalOnly))
		} else {
			line += fmt.Sprintf("  +read %s", human(read()-evalOnly))
		}
		fmt.Println(line)
		x.Free()
	}
	fmt.Println()
}

// largeReadbacks: one copy for a same-dtype read against Bytes, and a
// preview that reads only what it shows against reading the whole tensor.
func largeReadbacks() {
	step := func(name string, fn func()) {
		fmt.Printf("  %-60s %s\n", name, human(timeit(fn)))
	}
	fmt.Println("large readback (one copy) and preview (only what it shows):")
	r := normal(1, 1<<20)
	step("Bytes of 1M f32", func() { r.Bytes() })
	step("ToFloat32s of 1M f32", func() { r.ToFloat32s() })
	dst := make([]float32, r.Size())
	step("ReadInto of 1M f32 (a reused []float32)", func() { r.ReadInto(dst) })
	step("ToFloat64s of 1M f32 (a conversion)", func() { r.ToFloat64s() })
	big := normal(1, 4096, 4096)
	whole := timeit(func() { big.ToFloat32s() })
	preview := timeit(func() { _ = big.String() })
	fmt.Printf("  %-60s %s\n", "ToFloat32s of 4096×4096 f32", human(whole))
	fmt.Printf("  %-60s %s  (whole read ÷ preview: %.0f×)\n", "String (preview) of 4096×4096 f32", human(preview), whole/preview)
	big.Free()
	r.Free()
	fmt.Println()
}
