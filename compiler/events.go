package compiler

import (
	"sync"
	"sync/atomic"
	"time"
)

// EventKind names what happened.
type EventKind int

// Event kinds.
const (
	EventCompile  EventKind = iota // a function was traced (and lowered) for a new signature, lane and device
	EventFallback                  // lowering failed and fallback=eval took over (once per function), or a graph too deep to fuse runs unfused
	EventHit                       // a call found its traced entry in the cache
	EventMiss                      // a call did not: it traces (an EventCompile follows unless tracing fails)
	EventRun                       // a call ran: its lane and duration
	EventEvict                     // the cache was full: its least recently used entry was dropped

	// EventTrace is the old name of EventCompile.
	EventTrace = EventCompile
)

func (k EventKind) String() string {
	return [...]string{"compile", "fallback", "hit", "miss", "run", "evict"}[k]
}

// Event is something the compiler reports to subscribers (the REPL prints
// fallback warnings and keeps `%jit --stats`; tests count traces).
type Event struct {
	Kind      EventKind
	Function  string    // the function's name
	Source    *Function // the function itself, to tell same-named ones apart
	Signature string    // the cache key: lane, device, input dtypes and shapes
	Lane      Lane      // EventCompile, EventRun: the lane that runs (after any fallback)
	Device    string    // "cpu" or "gpu"
	// EventCompile: the time spent tracing (running the Go function on
	// symbolic tensors) and lowering (to the IR and into the shim), and
	// the op count (instructions; graph nodes when the evaluator runs it).
	Trace, Lower time.Duration
	Ops          int
	Duration     time.Duration // EventRun: the call, from cache lookup to evaluated outputs
	Err          error         // EventFallback: why lowering failed, or why fuse was refused
}

// subscribers is copied on write, so emit reads it without a lock or an
// allocation; count lets callers skip building events nobody reads.
var subscribers struct {
	mu    sync.Mutex // serializes writers
	next  int
	list  atomic.Pointer[[]subscriber]
	count atomic.Int32
}

type subscriber struct {
	id int
	fn func(Event)
}

// Subscribe calls fn for every event until the returned cancel is called.
// fn runs on the goroutine that caused the event, possibly on several at
// once, and must not block. With no subscriber, the compiler does not
// build events at all (one atomic load per would-be event).
func Subscribe(fn func(Event)) (cancel func()) {
	subscribers.mu.Lock()
	defer subscribers.mu.Unlock()
	id := subscribers.next
	subscribers.next++
	var list []subscriber
	if p := subscribers.list.Load(); p != nil {
		list = append(list, *p...)
	}
	list = append(list, subscriber{id, fn})
	subscribers.list.Store(&list)
	subscribers.count.Store(int32(len(list)))
	var once sync.Once
	return func() {
		once.Do(func() {
			subscribers.mu.Lock()
			defer subscribers.mu.Unlock()
			var rest []subscriber
			for _, s := range *subscribers.list.Load() {
				if s.id != id {
					rest = append(rest, s)
				}
			}
			subscribers.list.Store(&rest)
			subscribers.count.Store(int32(len(rest)))
		})
	}
}

// Listening reports whether anyone subscribes to events.
func Listening() bool { return subscribers.count.Load() > 0 }

func emit(e Event) {
	p := subscribers.list.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		s.fn(e)
	}
}
