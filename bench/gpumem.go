package main

import (
	"fmt"
	"sort"

	"github.com/emily-go/emily/mlxbind"
)

// constantSteps is the controlled experiment behind device-resident
// constants (mlxbind/gpumem.cc): the 100-op chain's native and evaluator
// lanes with their one-element constants read from copies in device memory
// (the default) and from the managed memory MLX gives arrays made from
// host data, the two settings alternating over five rounds so that drift
// weighs on both alike. GPU only: on the CPU both read the same memory.
func constantSteps(dev string) {
	if dev != "gpu" {
		return
	}
	fmt.Println("constants in device memory or managed memory (100-op chain, median of 5 interleaved rounds):")
	for _, n := range []int{1024, 1 << 20} {
		x := normal(1, n)
		cases := lanes(chain(100), x)
		for _, lane := range []string{"native", "evaluator"} {
			var on, off []float64
			for r := 0; r < 5; r++ {
				mlxbind.SetDeviceScalars(true)
				on = append(on, timeit(cases[lane]))
				mlxbind.SetDeviceScalars(false)
				off = append(off, timeit(cases[lane]))
			}
			mlxbind.SetDeviceScalars(true)
			sort.Float64s(on)
			sort.Float64s(off)
			fmt.Printf("  %-9s %8d f32: device %s [%s–%s]  managed %s [%s–%s]  ratio %.2f\n", lane, n,
				human(on[2]), human(on[0]), human(on[4]), human(off[2]), human(off[0]), human(off[4]), on[2]/off[2])
		}
		x.Free()
	}
	fmt.Println()
}
