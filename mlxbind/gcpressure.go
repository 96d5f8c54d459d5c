package mlxbind

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"time"
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
// evaluation's active memory estimates what is really live, and the
// threshold becomes twice that. For that estimate to be right the
// finalizers must have run: they only queue handles (queueRelease), which
// is quick, and the queue is drained here, before measuring. An earlier
// version freed handles in the finalizer itself; those finalizers waited
// for the MLX lock behind a busy eval loop, the estimate was stale, the
// threshold doubled on every collection, and a benchmark on an H200 still
// peaked at 53 GB.
//
// (Results left to the collector once also cost ~150 µs per small GPU
// readback, through MLX's move of the buffer to managed memory; reading
// device buffers directly removed that cost, gpumem.cc.)
const minGCThreshold = 256 << 20

var pressure struct {
	sync.Mutex
	threshold uint64
	collected bool // a collection ran and no estimate of live memory was taken since
}

var released struct {
	sync.Mutex
	handles []C.emily_array
}

// queueRelease hands a dropped array's handle to the next drain.
func queueRelease(h C.emily_array) {
	released.Lock()
	released.handles = append(released.handles, h)
	released.Unlock()
}

// drainReleased frees the handles finalizers queued and returns how many.
func drainReleased() int {
	released.Lock()
	hs := released.handles
	released.handles = nil
	released.Unlock()
	if len(hs) > 0 {
		C.emily_array_free_n(&hs[0], C.int(len(hs)))
	}
	return len(hs)
}

// checkMemoryPressure is called after every evaluation that did not
// already read MLX's active memory.
func checkMemoryPressure() {
	drainReleased()
	m, err := Memory()
	if err != nil {
		return
	}
	relieveMemoryPressure(m.Active)
}

// relieveMemoryPressure frees the handles finalizers queued and collects
// garbage when active (MLX's active memory, just read) passes the
// threshold. Program.Run passes the reading its replay call returned.
func relieveMemoryPressure(active uint64) {
	freed := drainReleased()
	pressure.Lock()
	defer pressure.Unlock()
	if pressure.threshold == 0 {
		pressure.threshold = minGCThreshold
	}
	if pressure.collected {
		// The live estimate must not count what was just freed.
		if freed > 0 {
			if m, err := Memory(); err == nil {
				active = m.Active
			}
		}
		pressure.collected = false
		pressure.threshold = max(minGCThreshold, 2*active)
		return
	}
	if active >= pressure.threshold {
		collectAndFinalize()
		pressure.collected = true
	}
}

// collectAndFinalize runs a collection and waits (up to 50 ms) until the
// finalizer goroutine has reached a sentinel that became garbage with it,
// so that the queue drained next holds the arrays this collection found,
// even on a machine too busy to schedule the finalizer goroutine promptly.
func collectAndFinalize() {
	done := make(chan struct{})
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) { close(done) })
	// sentinel is unreachable from here on, so this collection finds it.
	runtime.GC()
	select {
	case <-done:
	case <-time.After(50 * time.Millisecond):
	}
}

// ReleaseDropped collects garbage and frees the MLX arrays of every
// tensor that is no longer reachable, now rather than at the next
// pressure check. It returns MLX's active memory afterwards. The session
// calls it after each cell, so a re-run cell's old tensors do not stay
// alive until some later evaluation crosses the threshold; the
// constructors call it before refusing an allocation over the limit.
func ReleaseDropped() (active uint64) {
	collectAndFinalize()
	drainReleased()
	m, err := Memory()
	if err != nil {
		return 0
	}
	return m.Active
}
