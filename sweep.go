package emily

// A sweep scope is the scope an interactive session opens around a cell
// (issue 25): people do not write scopes, and without one the eager 1M
// chain's intermediates wait for Go's collector, so none of them can
// donate its buffer and the CPU pays a fresh, page-faulted 4 MB buffer per
// op (ARCHITECTURE.md, "Memory"). It collects the tensors its goroutine
// makes, as any scope does, but frees only what its host proves dead:
// Sweep frees the collected tensors that the host's reachability walk did
// not find, and Close leaves the rest to the collector. Which tensors are
// dead is the host's business (the session walks its variables); the
// scope only keeps the list, and says when it has grown enough to be
// worth a walk.

const (
	// sweepDueBytes and sweepDueCount: a sweep is due once the tensors
	// collected since the last one hold this many bytes (one 1M-element
	// float32 tensor: each op of the bench's chain) or number this many.
	// A walk of a session's variables costs tens of µs; an op on 1M
	// floats costs about a millisecond on the CPU.
	sweepDueBytes = 4 << 20
	sweepDueCount = 4096
)

// sweepState is a sweep scope's account of what it collected since its
// last Sweep.
type sweepState struct {
	due      func()
	bytes    int64
	count    int
	dueBytes int64 // grows while sweeps find everything live
	dueCount int
	fired    bool
}

// add counts t and returns the due callback when a sweep became due
// (once until the next Sweep). Called with scopes locked.
func (st *sweepState) add(t *Tensor) func() {
	st.bytes += int64(t.arr.Size() * t.arr.DType().Size())
	st.count++
	if st.fired || st.due == nil || (st.bytes < st.dueBytes && st.count < st.dueCount) {
		return nil
	}
	st.fired = true
	return st.due
}

// NewSweepScope opens a sweep scope on the calling goroutine: the tensors
// the goroutine makes while it is open are collected, and due is called
// (on that goroutine, with no lock held) when enough of them have been
// made since the last Sweep to make a sweep worth its walk. Close stops
// the collecting and frees nothing; the Sweep after Close is the last,
// and lets go of what it does not free (left to the garbage collector).
// For hosts that can tell which tensors are still reachable, such as the
// interactive session; a program wants Scope.
func NewSweepScope(due func()) *Scope {
	s := NewScope()
	scopes.Lock()
	s.sweep = &sweepState{due: due, dueBytes: sweepDueBytes, dueCount: sweepDueCount}
	scopes.Unlock()
	return s
}

// Pending returns the tensors s collected that it still owns (neither
// freed, kept, escaped to a trace, nor moved to another scope).
func (s *Scope) Pending() []*Tensor {
	scopes.Lock()
	defer scopes.Unlock()
	var out []*Tensor
	for _, t := range s.made {
		if t.scope == s {
			out = append(out, t)
		}
	}
	return out
}

// Sweep frees the tensors that s owns and live does not report live, and
// returns how many it freed. The rest stay in s for a later Sweep, or,
// once s is closed, are let go. live is
// called without the scope's lock held, for each owned tensor once.
// A sweep that frees little makes the next one due later (a loop that
// keeps everything it makes should not pay a walk per tensor).
func (s *Scope) Sweep(live func(*Tensor) bool) int {
	pending := s.Pending()
	var dead []*Tensor
	for _, t := range pending {
		if !live(t) {
			dead = append(dead, t)
		}
	}
	scopes.Lock()
	var freed []*Tensor
	for _, t := range dead {
		if t.scope == s { // not escaped or kept meanwhile
			t.scope = nil
			freed = append(freed, t)
		}
	}
	// Drop what the scope no longer owns from its list; a closed scope
	// lets go of all of it (a tensor left pointing at the scope would keep
	// the whole list reachable).
	made := s.made[:0]
	for _, t := range s.made {
		if t.scope == s {
			if s.closed {
				t.scope = nil
				continue
			}
			made = append(made, t)
		}
	}
	clear(s.made[len(made):])
	s.made = made
	if st := s.sweep; st != nil {
		// Most of what was made since the last sweep still live: a loop
		// that keeps what it makes; sweep it less often.
		if 2*len(freed) < st.count {
			st.dueBytes = min(2*st.dueBytes, 1<<40)
			st.dueCount = min(2*st.dueCount, 1<<30)
		} else {
			st.dueBytes, st.dueCount = sweepDueBytes, sweepDueCount
		}
		st.bytes, st.count, st.fired = 0, 0, false
	}
	scopes.Unlock()
	for _, t := range freed {
		t.arr.Free()
	}
	return len(freed)
}
