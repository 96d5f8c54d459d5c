//go:build !amd64 && !arm64

package emily

import (
	"bytes"
	"runtime"
	"strconv"
)

// goroutineKey parses the goroutine id from the stack header ("goroutine 42
// [running]:"): portable, but microseconds per call.
func goroutineKey() uintptr {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return uintptr(id)
}
