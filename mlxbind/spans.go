package mlxbind

/*
#include <stdlib.h>
#include "io.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Span is where one array's bytes lie in a file or a buffer, as a header
// validator (internal/fileformat) found them: Offset, then the data of
// DType and Shape, big-endian when Swap, column-major when Fortran.
type Span struct {
	Offset  int64
	DType   DType
	Shape   []int
	Swap    bool
	Fortran bool
}

// LoadSpans reads spans of the file at path, or of data when path is ""
// (label names it in errors), into arrays, all evaluated now on the CPU
// stream. The caller has checked every span against the file's size and
// the memory limit: this only reads.
func LoadSpans(path string, data []byte, label string, spans []Span) ([]*Array, error) {
	if len(spans) == 0 {
		return nil, nil
	}
	s, err := hostStream()
	if err != nil {
		return nil, err
	}
	n := len(spans)
	offsets := make([]C.int64_t, n)
	ndims := make([]C.int, n)
	dtypes := make([]C.int, n)
	flags := make([]C.int, n)
	var dims []C.int
	for i, sp := range spans {
		if !sp.DType.Valid() {
			return nil, fmt.Errorf("[load] %s: span %d has no valid dtype", label, i)
		}
		offsets[i] = C.int64_t(sp.Offset)
		ndims[i] = C.int(len(sp.Shape))
		dtypes[i] = C.int(sp.DType)
		if sp.Swap {
			flags[i] |= C.EMILY_SPAN_SWAP
		}
		if sp.Fortran {
			flags[i] |= C.EMILY_SPAN_FORTRAN
		}
		for _, d := range sp.Shape {
			dims = append(dims, C.int(d))
		}
	}
	if len(dims) == 0 {
		dims = append(dims, 0) // a valid pointer when every span is 0-d
	}
	var cpath *C.char
	if path != "" {
		cpath = C.CString(path)
		defer C.free(unsafe.Pointer(cpath))
	}
	clabel := C.CString(label)
	defer C.free(unsafe.Pointer(clabel))
	var ptr unsafe.Pointer
	if len(data) > 0 {
		ptr = unsafe.Pointer(&data[0])
	}
	out := make([]C.emily_array, n)
	var msg *C.char
	status := C.emily_load_spans(&out[0], cpath, ptr, C.size_t(len(data)), clabel, C.int(n), &offsets[0], &ndims[0],
		&dims[0], &dtypes[0], &flags[0], s.index, &msg)
	runtime.KeepAlive(data)
	if err := takeError(status, msg, "load"); err != nil {
		return nil, err
	}
	checkMemoryPressure()
	arrays := make([]*Array, n)
	for i, h := range out {
		arrays[i] = newArray(h)
	}
	return arrays, nil
}
