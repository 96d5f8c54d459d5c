package compiler

import "sync"

// EventKind names what happened.
type EventKind int

// Event kinds.
const (
	EventTrace    EventKind = iota // a function was traced for a new signature
	EventFallback                  // lowering failed and fallback=eval took over (once per function), or a graph too deep to fuse runs unfused
)

func (k EventKind) String() string { return [...]string{"trace", "fallback"}[k] }

// Event is something the compiler reports to subscribers (the REPL prints
// fallback warnings; tests count traces).
type Event struct {
	Kind      EventKind
	Function  string
	Signature string
	Err       error // EventFallback: why lowering failed, or why fuse was refused
}

var subscribers struct {
	sync.Mutex
	next int
	fns  map[int]func(Event)
}

// Subscribe calls fn for every event until the returned cancel is called.
// fn runs on the goroutine that caused the event and must not block.
func Subscribe(fn func(Event)) (cancel func()) {
	subscribers.Lock()
	defer subscribers.Unlock()
	if subscribers.fns == nil {
		subscribers.fns = map[int]func(Event){}
	}
	id := subscribers.next
	subscribers.next++
	subscribers.fns[id] = fn
	return func() {
		subscribers.Lock()
		defer subscribers.Unlock()
		delete(subscribers.fns, id)
	}
}

func emit(e Event) {
	subscribers.Lock()
	fns := make([]func(Event), 0, len(subscribers.fns))
	for _, fn := range subscribers.fns {
		fns = append(fns, fn)
	}
	subscribers.Unlock()
	for _, fn := range fns {
		fn(e)
	}
}
