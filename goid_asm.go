//go:build amd64 || arm64

package emily

// getg returns the address of the calling goroutine's runtime descriptor
// (goid_amd64.s, goid_arm64.s): unique among live goroutines, read in a
// nanosecond. A Scope uses it to know which goroutine made a tensor; an
// exited goroutine's descriptor may be reused by a new one, which is
// harmless here since a scope is closed by the goroutine that opened it.
func getg() uintptr

func goroutineKey() uintptr { return getg() }
