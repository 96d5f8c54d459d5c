package mlxbind

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Array is a handle to an MLX array (possibly not yet evaluated). Free
// releases it deterministically; a finalizer releases arrays that are
// dropped without Free, as a safety net for interactive sessions.
type Array struct {
	h     C.emily_array
	freed atomic.Bool // set once by Free; guards the double free
	shape []int
	dtype DType
}

func newArray(h C.emily_array) *Array {
	a := &Array{h: h}
	// One call reads dtype and shape for ranks up to 8; rarer, higher
	// ranks take a second call with a buffer of the right size.
	var dt C.int
	dims := make([]int64, 8)
	n := int(C.emily_array_meta(h, &dt, (*C.int64_t)(unsafe.Pointer(&dims[0])), C.int(len(dims))))
	if n > len(dims) {
		dims = make([]int64, n)
		C.emily_array_meta(h, &dt, (*C.int64_t)(unsafe.Pointer(&dims[0])), C.int(n))
	}
	a.shape = make([]int, n)
	for i := range a.shape {
		a.shape[i] = int(dims[i])
	}
	a.dtype = DType(dt)
	runtime.SetFinalizer(a, (*Array).release)
	return a
}

// metaStride is the words per array of newArrays' one emily_arrays_meta
// call: dtype, rank, and up to 8 dims.
const metaStride = 10

// newArrays is newArray for the results of one call (a replay's outputs):
// one cgo call reads every dtype and shape, and one allocation holds the
// shapes, instead of a call and two allocations per array.
func newArrays(hs []C.emily_array) []*Array {
	if len(hs) == 0 {
		return nil
	}
	meta := make([]int64, len(hs)*metaStride)
	C.emily_arrays_meta(&hs[0], C.int(len(hs)), (*C.int64_t)(unsafe.Pointer(&meta[0])), metaStride)
	total := 0
	for i := range hs {
		total += int(meta[i*metaStride+1])
	}
	dims := make([]int, total)
	out := make([]*Array, len(hs))
	for i, h := range hs {
		m := meta[i*metaStride : (i+1)*metaStride]
		n := int(m[1])
		if n > metaStride-2 {
			out[i] = newArray(h)
			continue
		}
		// Capped: an append to one array's shape must not write into the
		// next one's.
		shape := dims[:n:n]
		dims = dims[n:]
		for k := range shape {
			shape[k] = int(m[2+k])
		}
		a := &Array{h: h, shape: shape, dtype: DType(m[0])}
		runtime.SetFinalizer(a, (*Array).release)
		out[i] = a
	}
	return out
}

// handle returns the live C handle, or an error naming op for a freed array.
func (a *Array) handle(op string) (C.emily_array, error) {
	if a == nil {
		return nil, fmt.Errorf("%s: nil array", op)
	}
	if a.freed.Load() {
		return nil, fmt.Errorf("%s: array was already freed", op)
	}
	return a.h, nil
}

// Free releases the array. It is safe to call more than once.
func (a *Array) Free() {
	if a == nil {
		return
	}
	if a.freed.CompareAndSwap(false, true) {
		C.emily_array_free(a.h)
		runtime.SetFinalizer(a, nil)
	}
}

// Share returns a second handle to a's array (the same buffer and graph
// node) with a life of its own: freeing one leaves the other valid.
func (a *Array) Share() (*Array, error) {
	h, err := a.handle("mlxbind.Share")
	if err != nil {
		return nil, err
	}
	var out C.emily_array
	var msg *C.char
	status := C.emily_array_share(&out, h, &msg)
	runtime.KeepAlive(a)
	if err := takeError(status, msg, "share"); err != nil {
		return nil, err
	}
	return newArray(out), nil
}

// release is the finalizer: it only queues the handle (see gcpressure.go),
// so the finalizer goroutine never waits for the MLX lock and keeps up with
// a busy evaluation loop.
func (a *Array) release() {
	if a.freed.CompareAndSwap(false, true) {
		queueRelease(a.h)
	}
}

// Shape returns the array's dimensions (do not modify the slice).
func (a *Array) Shape() []int { return a.shape }

// DType returns the element type.
func (a *Array) DType() DType { return a.dtype }

// Size returns the number of elements.
func (a *Array) Size() int {
	n := 1
	for _, d := range a.shape {
		n *= d
	}
	return n
}

// FromBytes copies data (row-major, dtype's native little-endian layout)
// into a new MLX array of the given shape.
func FromBytes(data []byte, shape []int, dtype DType) (*Array, error) {
	if !dtype.Valid() {
		return nil, fmt.Errorf("mlxbind.FromBytes: unknown dtype %d", int(dtype))
	}
	if _, size, err := CheckShape(shape, dtype.Size()); err != nil {
		return nil, fmt.Errorf("mlxbind.FromBytes: %w", err)
	} else if size != int64(len(data)) {
		return nil, fmt.Errorf("mlxbind.FromBytes: %d bytes do not fill %s%v (%d bytes)", len(data), dtype, shape, size)
	}
	dims := cInt64s(shape)
	var ptr unsafe.Pointer
	if len(data) > 0 {
		ptr = unsafe.Pointer(&data[0])
	}
	var h C.emily_array
	var msg *C.char
	status := C.emily_array_from_bytes(&h, ptr, C.size_t(len(data)), int64Ptr(dims),
		C.int(len(dims)), C.int(dtype), &msg)
	if err := takeError(status, msg, "from_bytes"); err != nil {
		return nil, fmt.Errorf("mlxbind.FromBytes %v %s: %w", shape, dtype, err)
	}
	return newArray(h), nil
}

// Bytes evaluates the array and returns a copy of its row-major bytes.
// Strided results are made contiguous on stream s first.
func (a *Array) Bytes(s Stream) ([]byte, error) {
	out := make([]byte, a.Size()*a.dtype.Size())
	if err := a.ReadInto(s, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadInto evaluates the array and copies its row-major bytes straight
// into dst, which must be exactly its size: one copy from MLX's buffer, so
// a caller that wants typed values passes a view of its typed slice's
// memory rather than copying out of a byte slice a second time. dst is Go
// memory without pointers, passed to C only for the call (cgo's rules).
// Strided results are made contiguous on stream s first.
func (a *Array) ReadInto(s Stream, dst []byte) error {
	h, err := a.handle("mlxbind.ReadInto")
	if err != nil {
		return err
	}
	n := a.Size() * a.dtype.Size()
	if len(dst) != n {
		return fmt.Errorf("mlxbind.ReadInto: destination has %d bytes, %v %s has %d", len(dst), a.shape, a.dtype, n)
	}
	var ptr unsafe.Pointer
	if n > 0 {
		ptr = unsafe.Pointer(&dst[0])
	}
	var msg *C.char
	status := C.emily_array_to_bytes(h, ptr, C.size_t(n), s.index, &msg)
	runtime.KeepAlive(a)
	if err := takeError(status, msg, "to_bytes"); err != nil {
		return fmt.Errorf("mlxbind: evaluating %v %s: %w", a.shape, a.dtype, err)
	}
	readBack.Add(uint64(n))
	checkMemoryPressure()
	return nil
}

// readBack counts the bytes copied out of MLX since the process started.
var readBack atomic.Uint64

// ReadBackBytes returns how many bytes readbacks (Bytes, ReadInto) have
// copied out of MLX so far: tests use it to check that a preview of a large
// tensor reads only the elements it shows.
func ReadBackBytes() uint64 { return readBack.Load() }

// Eval evaluates the arrays together.
func Eval(arrays ...*Array) error {
	hs, err := handles("mlxbind.Eval", arrays)
	if err != nil {
		return err
	}
	var msg *C.char
	first := firstHandle(hs)
	status := C.emily_eval(first, C.int(len(hs)), &msg)
	runtime.KeepAlive(arrays)
	if err := takeError(status, msg, "eval"); err != nil {
		return err
	}
	checkMemoryPressure()
	return nil
}

// AsyncEval queues the evaluation of the arrays and returns without
// waiting (MLX's async_eval); reading one of them, or Eval, waits for it.
func AsyncEval(arrays ...*Array) error {
	hs, err := handles("mlxbind.AsyncEval", arrays)
	if err != nil {
		return err
	}
	var msg *C.char
	status := C.emily_async_eval(firstHandle(hs), C.int(len(hs)), &msg)
	runtime.KeepAlive(arrays)
	return takeError(status, msg, "async_eval")
}

// firstHandle returns a pointer to hs[0] for a C array argument, or nil
// when hs is empty.
func firstHandle(hs []C.emily_array) *C.emily_array {
	if len(hs) == 0 {
		return nil
	}
	return &hs[0]
}

// handles collects the C handles of arrays into a Go slice; cgo allows
// passing a Go pointer to Go memory that holds C pointers.
func handles(op string, arrays []*Array) ([]C.emily_array, error) {
	hs := make([]C.emily_array, len(arrays))
	for i, a := range arrays {
		h, err := a.handle(op)
		if err != nil {
			return nil, fmt.Errorf("%s: operand %d: %w", op, i, err)
		}
		hs[i] = h
	}
	return hs, nil
}
