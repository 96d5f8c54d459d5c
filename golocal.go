package emily

import (
	"sync"
	"sync/atomic"
)

// goLocal holds one value of type T per goroutine, set for the extent of
// a call: the trace a goroutine is running (trace.go) and the stream
// Stream.Do chose for it (stream.go). Go has no goroutine-local storage,
// so values are kept by goroutineKey in a map. The count of values set
// keeps the common path, where nothing is set anywhere, to one atomic
// load: eager ops ask on every call.
type goLocal[T any] struct {
	active atomic.Int32
	mu     sync.Mutex
	byG    map[uintptr]T
}

// get returns the calling goroutine's value, if one is set.
func (l *goLocal[T]) get() (T, bool) {
	var zero T
	if l.active.Load() == 0 {
		return zero, false
	}
	id := goroutineKey()
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.byG[id]
	return v, ok
}

// enter sets v as the calling goroutine's value and returns the function
// that restores the previous one (calls nest: a jitted function traced
// while another is, a Do inside a Do). The goroutine that entered must
// call it; a goroutine's key may be reused once it exits, which is
// harmless because every entry is removed before its goroutine ends.
func (l *goLocal[T]) enter(v T) func() {
	id := goroutineKey()
	l.mu.Lock()
	if l.byG == nil {
		l.byG = map[uintptr]T{}
	}
	prev, had := l.byG[id]
	l.byG[id] = v
	l.mu.Unlock()
	l.active.Add(1)
	return func() {
		l.active.Add(-1)
		l.mu.Lock()
		if had {
			l.byG[id] = prev
		} else {
			delete(l.byG, id)
		}
		l.mu.Unlock()
	}
}
