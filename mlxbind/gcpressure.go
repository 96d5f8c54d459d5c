package mlxbind

/*
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"sync/atomic"
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
// Bytes are not the only cost on CUDA. MLX's CUDA allocator gives a result
// it cannot take from its cache a fresh device buffer, and reading that
// buffer on the host (any readback) first moves it to managed memory:
// cudaMallocManaged, a copy and a free, ~150 µs for a 16-byte array on an
// H200, where a buffer recycled from the cache has moved already (MLX
// 0.32, backend/cuda/allocator.cpp, move_to_unified_memory). Python frees
// a result as soon as it is dropped, so MLX Python's loops always find one;
// a Go loop of small readbacks whose results wait for Go's collector (a few
// bytes each, far from the byte threshold, and Go collects only every few
// MB of its own allocations, thousands of calls) paid the move on every
// call: `emily.Add` + `ToFloat32s` was 184 µs left to the GC against 29 µs
// freed. On the CPU the same loop costs the same either way (no move). So
// arrays read back on a GPU stream are counted until freed, and when the
// count passes readLive's threshold (twice the count after a collection,
// at least minReadLive) a collection runs: the read-back buffers it finds
// go back to MLX's cache, already managed, for the next calls. Nothing
// changes for CPU streams, and arrays never read back do not count (a
// GPU-resident chain's intermediates have nothing to gain).
//
// A collection's cost grows with Go's heap (a REPL's interpreter state can
// make it tens of ms), so after each one the count threshold is also at
// least the collection's duration divided by readbackMove, about what a
// fresh readback costs: the collections then cost no more than the moves
// they save, whatever the heap.
const (
	minGCThreshold = 256 << 20
	minReadLive    = 64
	readbackMove   = 100 * time.Microsecond
)

// readLive counts arrays read back on a GPU stream and not yet freed or
// finalized.
var readLive atomic.Int64

// noteReadback counts a in readLive after its first readback on a GPU stream.
func noteReadback(a *Array, s Stream) {
	if s.device == GPU && a.readOnGPU.CompareAndSwap(false, true) {
		readLive.Add(1)
	}
}

// forgetReadback takes a freed (or finalized) array out of readLive.
func (a *Array) forgetReadback() {
	if a.readOnGPU.Load() {
		readLive.Add(-1)
	}
}

// SetReadbackCollect sets the smallest number of live read-back GPU arrays
// that runs a collection (0: never) and returns the previous setting; the
// bench turns it on and off to measure what it saves. It is off by default
// (minRead's zero value): on the H200 (BENCHMARKS.md, 2026-11-30) the loop
// left to the GC cost 157.6 µs with it at minReadLive and 114.5 µs without,
// and even freed results cost 135–210 µs in that part of the run against
// 21.5 µs in an earlier one, so the move is not the whole floor. It stays
// as an experiment.
func SetReadbackCollect(n int) (previous int) {
	pressure.Lock()
	defer pressure.Unlock()
	previous = int(pressure.minRead.Load())
	pressure.minRead.Store(int64(n))
	pressure.readThreshold = int64(n)
	return previous
}

var pressure struct {
	sync.Mutex
	threshold     uint64
	minRead       atomic.Int64  // the floor of readThreshold; 0 turns the count off
	readThreshold int64         // the readLive count that runs a collection
	lastCollect   time.Duration // how long the last collection took
	collected     bool          // a collection ran and no estimate of live memory was taken since
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
	for _, h := range hs {
		C.emily_array_free(h)
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
	minRead := pressure.minRead.Load()
	if pressure.readThreshold == 0 {
		pressure.readThreshold = minRead
	}
	live := readLive.Load()
	if pressure.collected {
		// The live estimate must not count what was just freed.
		if freed > 0 {
			if m, err := Memory(); err == nil {
				active = m.Active
			}
		}
		pressure.collected = false
		pressure.threshold = max(minGCThreshold, 2*active)
		pressure.readThreshold = max(minRead, 2*live, int64(pressure.lastCollect/readbackMove))
		return
	}
	if active >= pressure.threshold || (minRead > 0 && live >= pressure.readThreshold) {
		start := time.Now()
		collectAndFinalize()
		pressure.lastCollect = time.Since(start)
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
