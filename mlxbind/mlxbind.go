// Package mlxbind is the only package that includes C: cgo bindings to a
// small C++ shim over MLX's C++ API (see shim.h). It offers arrays, one
// generic op entry point driven by the opcode table, eval, streams and
// program replay. Every call returns an error instead of letting a C++
// exception reach Go.
//
// MLX comes from the PyPI backend wheel (mlx-cpu or mlx-cuda-13) that
// scripts/install-mlx.sh unpacks into .deps/mlx. Binaries find libmlx.so by
// rpath, with no LD_LIBRARY_PATH: first $ORIGIN/../.deps/mlx/mlx/lib, so a
// binary in bin/ next to a .deps/ folder runs wherever the pair is copied
// (the GPU script relies on it), then the absolute path of this checkout's
// .deps, for test binaries that `go test` runs from a temporary folder.
// libmlx.so finds the rest (its BLAS, the NVIDIA libraries) through its
// own RPATH.
package mlxbind

/*
#cgo CXXFLAGS: -std=c++20 -O2 -I${SRCDIR}/../.deps/mlx/mlx/include -Wno-deprecated-declarations
#cgo CFLAGS: -I${SRCDIR}
#cgo LDFLAGS: -L${SRCDIR}/../.deps/mlx/mlx/lib -lmlx -Wl,-rpath,$ORIGIN/../.deps/mlx/mlx/lib -Wl,-rpath,${SRCDIR}/../.deps/mlx/mlx/lib -lstdc++ -ldl
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// takeError turns a shim status and message into a Go error, freeing the
// message. op names the failing call for context.
func takeError(status C.int, msg *C.char, op string) error {
	if status == 0 {
		return nil
	}
	if msg == nil {
		return fmt.Errorf("%s: failed without a message", op)
	}
	defer C.free(unsafe.Pointer(msg))
	return interruptError(C.GoString(msg))
}

// Version returns the version of the linked MLX library.
func Version() string { return C.GoString(C.emily_mlx_version()) }

// cInt64s converts Go ints to a C-friendly []int64.
func cInt64s(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// int64Ptr returns a pointer to the first element, or nil for an empty slice.
func int64Ptr(xs []int64) *C.int64_t {
	if len(xs) == 0 {
		return nil
	}
	return (*C.int64_t)(unsafe.Pointer(&xs[0]))
}
