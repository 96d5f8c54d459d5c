package mlxbind

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
)

// SetDirectReadMax sets the largest readback, in bytes, of a GPU buffer
// that is copied straight out with the CUDA driver rather than through
// MLX's move of the buffer to managed memory (gpumem.cc has why), and
// returns the previous setting; 0 turns the direct path off. By default
// every readback is direct (math.MaxInt). The bench switches it to measure both paths;
// programs need not touch it.
func SetDirectReadMax(n int) (previous int) {
	if n < 0 {
		n = 0
	}
	var prev C.size_t
	var msg *C.char
	if err := takeError(C.emily_set_direct_read_max(&prev, C.size_t(n), &msg), msg, "set_direct_read_max"); err != nil {
		panic(err) // it only stores a number; an error here is a broken shim
	}
	// The shim's "no limit" is SIZE_MAX, past int: it reads back as
	// math.MaxInt, which restores it (a conversion would give -1, then 0).
	return int(min(uint64(prev), math.MaxInt))
}

// DirectReadAvailable reports whether GPU readbacks can take the direct
// path: MLX's CUDA backend is loaded and the CUDA driver's copy function
// was found.
func DirectReadAvailable() bool { return C.emily_direct_read_available() == 1 }

// SetDeviceScalars sets whether replays on a GPU stream read their
// one-element constants from copies in device memory (made once per
// program and stream) rather than from the managed memory MLX gives arrays
// made from host data, and returns the previous setting. On by default;
// the bench turns it off to measure what it saves. It applies from the
// next replay; a program's copies are made on its first replay on a GPU
// stream with the setting on.
func SetDeviceScalars(on bool) (previous bool) {
	var prev C.int
	var msg *C.char
	var c C.int
	if on {
		c = 1
	}
	if err := takeError(C.emily_set_device_scalars(&prev, c, &msg), msg, "set_device_scalars"); err != nil {
		panic(err) // it only stores a flag; an error here is a broken shim
	}
	return prev == 1
}

// DeviceScalars reports SetDeviceScalars's setting.
func DeviceScalars() bool { return C.emily_device_scalars() == 1 }

// DeviceResident returns the array a replay on stream s should read for
// the constant a: on a GPU stream with device scalars on, a one-element
// constant's copy in device memory (evaluated; the caller owns it);
// otherwise a itself. The evaluator lane reads its constants through it,
// as the replay reads its own (gpumem.cc).
func (a *Array) DeviceResident(s Stream) (*Array, error) {
	if s.device != GPU || a.Size() != 1 {
		return a, nil
	}
	h, err := a.handle("mlxbind.DeviceResident")
	if err != nil {
		return nil, err
	}
	var out C.emily_array
	var msg *C.char
	status := C.emily_array_device_resident(&out, h, s.index, &msg)
	runtime.KeepAlive(a)
	if err := takeError(status, msg, "device_resident"); err != nil {
		return nil, fmt.Errorf("mlxbind.DeviceResident %v %s: %w", a.shape, a.dtype, err)
	}
	if out == nil {
		return a, nil
	}
	return newArray(out), nil
}
