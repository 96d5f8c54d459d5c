package mlxbind

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
)

// Device is where arrays are computed.
type Device int

// The devices MLX knows.
const (
	CPU Device = C.EMILY_CPU
	GPU Device = C.EMILY_GPU
)

// String returns "cpu" or "gpu".
func (d Device) String() string {
	if d == GPU {
		return "gpu"
	}
	return "cpu"
}

// ParseDevice accepts "cpu" and "gpu".
func ParseDevice(s string) (Device, error) {
	switch s {
	case "cpu":
		return CPU, nil
	case "gpu":
		return GPU, nil
	}
	return CPU, fmt.Errorf("unknown device %q: use \"cpu\" or \"gpu\"", s)
}

// Available reports whether the linked MLX can run on d.
func (d Device) Available() bool { return C.emily_device_available(C.int(d)) == 1 }

// DefaultDevice is the GPU when the installed MLX has one, else the CPU.
func DefaultDevice() Device {
	if GPU.Available() {
		return GPU
	}
	return CPU
}

// Stream is an MLX stream usable from any goroutine: the shim creates it
// with new_thread_unsafe_stream and serializes every call under one lock.
type Stream struct {
	index  C.int
	device Device
}

// Device returns the stream's device.
func (s Stream) Device() Device { return s.device }

var defaultStreams struct {
	sync.Mutex
	byDevice map[Device]Stream
}

// DefaultStream returns the process-wide stream for d, creating it on first
// use.
func DefaultStream(d Device) (Stream, error) {
	defaultStreams.Lock()
	defer defaultStreams.Unlock()
	if s, ok := defaultStreams.byDevice[d]; ok {
		return s, nil
	}
	s, err := NewStream(d)
	if err != nil {
		return s, err
	}
	if defaultStreams.byDevice == nil {
		defaultStreams.byDevice = map[Device]Stream{}
	}
	defaultStreams.byDevice[d] = s
	return s, nil
}

// NewStream makes a new MLX stream on d: a queue of its own (on the GPU,
// work on two streams may overlap). Streams live as long as the process.
// Every shim call still holds the one MLX lock (ARCHITECTURE.md,
// Threading), so streams order work; they do not run the host side of
// two calls at once.
func NewStream(d Device) (Stream, error) {
	var idx C.int
	var msg *C.char
	if err := takeError(C.emily_stream_new(&idx, C.int(d), &msg), msg, "stream"); err != nil {
		return Stream{}, fmt.Errorf("mlxbind: new stream on %s: %w", d, err)
	}
	return Stream{index: idx, device: d}, nil
}

// Index is the stream's number in the shim (for listings).
func (s Stream) Index() int { return int(s.index) }

// Synchronize waits until all work queued on s has finished.
func (s Stream) Synchronize() error {
	var msg *C.char
	return takeError(C.emily_synchronize(s.index, &msg), msg, "synchronize")
}

// MemoryStats are MLX allocator statistics in bytes.
type MemoryStats struct {
	Active, Peak, Cache uint64
}

// Memory returns the allocator's current statistics.
func Memory() (MemoryStats, error) {
	var a, p, c C.size_t
	var msg *C.char
	if err := takeError(C.emily_memory_stats(&a, &p, &c, &msg), msg, "memory"); err != nil {
		return MemoryStats{}, err
	}
	return MemoryStats{Active: uint64(a), Peak: uint64(p), Cache: uint64(c)}, nil
}

// ClearCache frees the buffers MLX's allocator keeps for reuse (its
// "cache" in Memory); the bench clears it between experiments whose
// buffers would otherwise be recycled by the next one.
func ClearCache() error {
	var msg *C.char
	return takeError(C.emily_clear_cache(&msg), msg, "clear cache")
}

// MemoryLimit returns MLX's memory limit in bytes.
func MemoryLimit() (uint64, error) {
	var l C.size_t
	var msg *C.char
	err := takeError(C.emily_memory_limit(&l, &msg), msg, "memory limit")
	return uint64(l), err
}

// ResetPeakMemory restarts MLX's peak memory counter (the bench reads the
// peak of one call).
func ResetPeakMemory() error {
	var msg *C.char
	return takeError(C.emily_reset_peak_memory(&msg), msg, "reset peak memory")
}

// SetMemoryLimit sets MLX's memory limit and returns the previous one.
func SetMemoryLimit(limit uint64) (uint64, error) {
	var prev C.size_t
	var msg *C.char
	err := takeError(C.emily_set_memory_limit(&prev, C.size_t(limit), &msg), msg, "memory limit")
	return uint64(prev), err
}

// String renders the statistics in binary units, e.g.
// "active 124.6 MiB, peak 227.4 MiB, cache 10.5 KiB".
func (m MemoryStats) String() string {
	return fmt.Sprintf("active %s, peak %s, cache %s", HumanBytes(m.Active), HumanBytes(m.Peak), HumanBytes(m.Cache))
}

// HumanBytes renders n bytes in B, KiB, MiB, GiB or TiB with one decimal.
func HumanBytes(n uint64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}
