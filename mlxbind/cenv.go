package mlxbind

/*
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// SetCEnv sets an environment variable in the C environment only, which
// MLX reads (getenv, popen) but Go's os.Getenv, os/exec children and
// os.TempDir do not: Go keeps its own copy of the environment from start-up.
// Call it before MLX reads the variable, at init, while no other thread is
// in getenv (C's setenv is not safe against concurrent readers).
func SetCEnv(key, value string) error {
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	if C.setenv(k, v, 1) != 0 {
		return fmt.Errorf("mlxbind.SetCEnv(%q): setenv failed", key)
	}
	return nil
}
