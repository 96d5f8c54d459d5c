package emily

import (
	"sync"
	"sync/atomic"
)

// Scope releases the tensors made inside it, deterministically, when it
// closes: what MLX Python gets from reference counting (`x = x * a` frees
// the old x at once) and Go only gets at the next garbage collection.
// Releasing a handle before its graph is evaluated matters beyond memory:
// an intermediate held by nothing but its consumer lets MLX donate its
// buffer to that consumer instead of allocating a fresh one
// (ARCHITECTURE.md, "Memory").
//
//	y := emily.Scoped(func() *emily.Tensor {
//		h := emily.Tanh(emily.Matmul(x, w)) // released when the scope closes
//		return emily.Add(h, b)              // kept: the result escapes
//	})
//
// A scope belongs to the goroutine that opened it: it collects the tensors
// that goroutine makes (eager op results, new tensors, Jit results) until
// Close, and tensors made by other goroutines meanwhile are not its
// business. Scopes nest; a kept tensor moves to the enclosing scope, if
// any. A tensor that a trace captures as a constant is never released by a
// scope (the compiled function still needs it). Using a released tensor is
// an error (a panic with *Error), never a crash.
type Scope struct {
	parent *Scope
	gid    uintptr
	made   []*Tensor
	closed bool
	sweep  *sweepState // non-nil for a sweep scope (NewSweepScope)
}

var scopes struct {
	sync.Mutex
	open  map[uintptr]*Scope // innermost open scope by goroutine
	count atomic.Int32       // open scopes: tensors are tracked only when > 0
}

// NewScope opens a scope on the calling goroutine; Close it (defer
// s.Close()) on the same goroutine.
func NewScope() *Scope {
	gid := goroutineKey()
	scopes.Lock()
	defer scopes.Unlock()
	if scopes.open == nil {
		scopes.open = map[uintptr]*Scope{}
	}
	s := &Scope{parent: scopes.open[gid], gid: gid}
	scopes.open[gid] = s
	scopes.count.Add(1)
	return s
}

// Keep exempts ts from this scope's release; they move to the enclosing
// scope, if any. It returns its first argument for chaining (nil if none).
func (s *Scope) Keep(ts ...*Tensor) *Tensor {
	scopes.Lock()
	defer scopes.Unlock()
	for _, t := range ts {
		if t != nil && t.scope == s {
			t.scope = s.parent
			if s.parent != nil {
				s.parent.made = append(s.parent.made, t)
			}
		}
	}
	if len(ts) == 0 {
		return nil
	}
	return ts[0]
}

// Close releases every tensor made inside the scope and not kept. Closing
// twice is a no-op. Inner scopes still open are closed first.
func (s *Scope) Close() {
	scopes.Lock()
	if s.closed {
		scopes.Unlock()
		return
	}
	for inner := scopes.open[s.gid]; inner != nil && inner != s; inner = scopes.open[s.gid] {
		scopes.Unlock()
		inner.Close()
		scopes.Lock()
	}
	s.closed = true
	if scopes.open[s.gid] == s {
		if s.parent != nil {
			scopes.open[s.gid] = s.parent
		} else {
			delete(scopes.open, s.gid)
		}
	}
	scopes.count.Add(-1)
	if s.sweep != nil { // it stops collecting; its last Sweep decides (sweep.go)
		scopes.Unlock()
		return
	}
	made := s.made
	s.made = nil
	var release []*Tensor
	for _, t := range made {
		if t.scope == s {
			t.scope = nil
			release = append(release, t)
		}
	}
	scopes.Unlock()
	for _, t := range release {
		t.arr.Free()
	}
}

// Scoped runs fn in a new scope and keeps its result: everything else fn
// made is released when it returns (also when it panics).
func Scoped(fn func() *Tensor) *Tensor {
	s := NewScope()
	defer s.Close()
	return s.Keep(fn())
}

// track registers a concrete tensor the calling goroutine just made with
// its innermost open scope. Free when no scope is open anywhere.
func track(t *Tensor) *Tensor {
	if scopes.count.Load() == 0 {
		return t
	}
	gid := goroutineKey()
	scopes.Lock()
	var due func()
	if s := scopes.open[gid]; s != nil {
		t.scope = s
		s.made = append(s.made, t)
		if s.sweep != nil {
			due = s.sweep.add(t)
		}
	}
	scopes.Unlock()
	if due != nil {
		due()
	}
	return t
}

// escape takes t out of scope tracking for good: a trace captured it as a
// constant, so the compiled function may use it after any scope closes.
func escape(t *Tensor) {
	if scopes.count.Load() == 0 {
		return
	}
	scopes.Lock()
	t.scope = nil
	scopes.Unlock()
}
