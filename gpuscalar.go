package emily

import (
	"sync"

	"github.com/emily-go/emily/mlxbind"
)

// Eager scalars on the GPU. MLX's CUDA allocator keeps every array made
// from host data (a Go number in Mul(x, 0.5), emily.Scalar) in managed
// memory, and a kernel reads such a scalar across the bus: on an H200 the
// 100-op chain on 1M float32 ran 1.8-2.2× faster through MLX's C++ API
// with its scalar in device memory (bench/control/chain.cc; BENCHMARKS.md). MLX Python makes
// a fresh host scalar for every `x * 0.5`. Emily's replays read their
// constants from device copies (mlxbind/gpumem.cc), and eager code does the
// same for a Go number it sees again: the first use of a value (per dtype
// and stream) makes a host scalar as before and is remembered; from the
// second on, the value is read from a device copy made once. A value used
// once therefore costs nothing extra, and a loop's constants (a learning
// rate, 0.5, 1e-5) are made on the device once.
//
// The copy is made with one small evaluation on the stream (the second
// time a value is seen); tensors made from it are shares of one array, so
// Free on one leaves the others, and values never change.

// maxGPUScalars bounds the values remembered; past it the table starts
// over (code that makes that many distinct scalars gains nothing from it).
const maxGPUScalars = 4096

type gpuScalarKey struct {
	s    mlxbind.Stream
	dt   DType
	bits string // the value's bytes as MLX stores them
}

var gpuScalars struct {
	sync.Mutex
	seen map[gpuScalarKey]*mlxbind.Array // nil: seen once, no copy yet
}

// scalarArray returns the array for a 0-d scalar with bytes data and dtype
// dt on stream s: from host data, or on a GPU stream, for a value seen
// before, a share of its device copy (mlxbind.SetDeviceScalars turns that
// off). traced: the scalar joins a trace (a
// jitted function's constants are made resident by its replay instead).
func scalarArray(data []byte, dt DType, s mlxbind.Stream, traced bool) (*mlxbind.Array, error) {
	if traced || s.Device() != mlxbind.GPU || !mlxbind.DeviceScalars() || activeTrace() != nil {
		return mlxbind.FromBytes(data, nil, dt)
	}
	key := gpuScalarKey{s, dt, string(data)}
	gpuScalars.Lock()
	defer gpuScalars.Unlock()
	copyOnDevice, seen := gpuScalars.seen[key]
	if copyOnDevice != nil {
		return copyOnDevice.Share()
	}
	a, err := mlxbind.FromBytes(data, nil, dt)
	if err != nil {
		return nil, err
	}
	if !seen { // the first use: remember the value, read it from the host
		if len(gpuScalars.seen) >= maxGPUScalars || gpuScalars.seen == nil {
			gpuScalars.seen = map[gpuScalarKey]*mlxbind.Array{} // the old copies go to the GC
		}
		gpuScalars.seen[key] = nil
		return a, nil
	}
	d, err := a.DeviceResident(s)
	if err != nil || d == a {
		return a, err
	}
	a.Free()
	gpuScalars.seen[key] = d
	return d.Share()
}
