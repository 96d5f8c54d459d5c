package mlxbind

import (
	"runtime"
	"sync"
)

// Go's garbage collector sees an *Array as a few dozen bytes, not the
// megabytes of MLX memory behind it, so eager code that drops tensors
// without Free would let MLX memory grow without bound before any
// finalizer runs: a 100-op eager chain on 1M floats peaked at 57 GB on an
// H200 and 1.2 GB on the CPU in `make bench` before this existed. After
// each evaluation we therefore look at MLX's active memory and, when it has
// grown past a threshold, run a collection so the finalizers of dropped
// arrays release their buffers.
//
// The threshold adapts to the live data: after a collection, the next
// evaluation's active memory estimates what is really live (finalizers have
// run by then, or the data is live), and the threshold becomes twice that.
const minGCThreshold = 256 << 20

var pressure struct {
	sync.Mutex
	threshold uint64
	collected bool // a collection ran and no estimate of live memory was taken since
}

// checkMemoryPressure is called after every evaluation.
func checkMemoryPressure() {
	m, err := Memory()
	if err != nil {
		return
	}
	pressure.Lock()
	defer pressure.Unlock()
	if pressure.threshold == 0 {
		pressure.threshold = minGCThreshold
	}
	if pressure.collected {
		pressure.collected = false
		pressure.threshold = max(minGCThreshold, 2*m.Active)
		return
	}
	if m.Active >= pressure.threshold {
		runtime.GC()
		pressure.collected = true
	}
}
