package mlxbind

/*
#cgo LDFLAGS: -lm
#include <math.h>
#include <stddef.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
static const char* emily_glibc_version(void) { return gnu_get_libc_version(); }
#else
static const char* emily_glibc_version(void) { return ""; }
#endif

// emily_host_logs runs the C library's logf (which 0), log2f (1) or log10f
// (2) over x: the functions MLX's CPU kernels call.
static void emily_host_logs(int which, const float* x, float* y, size_t n) {
  for (size_t i = 0; i < n; i++) {
    y[i] = which == 0 ? logf(x[i]) : which == 1 ? log2f(x[i]) : log10f(x[i]);
  }
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// HostLogs returns the C library's logf, log2f or log10f (fn "log",
// "log2", "log10") of each of xs: what MLX's native CPU kernels compute,
// for the fuse lane's check that its inline logs give the same bits
// (fusevecmath.go).
func HostLogs(fn string, xs []float32) ([]float32, error) {
	which := map[string]C.int{"log": 0, "log2": 1, "log10": 2}
	w, ok := which[fn]
	if !ok {
		return nil, fmt.Errorf("mlxbind.HostLogs: no C function for %q, want log, log2 or log10", fn)
	}
	ys := make([]float32, len(xs))
	if len(xs) > 0 {
		C.emily_host_logs(w, (*C.float)(unsafe.Pointer(&xs[0])), (*C.float)(unsafe.Pointer(&ys[0])), C.size_t(len(xs)))
	}
	return ys, nil
}

// GlibcVersion returns the running glibc's version ("2.36"), or "" where
// the C library is not glibc.
func GlibcVersion() string { return C.GoString(C.emily_glibc_version()) }
