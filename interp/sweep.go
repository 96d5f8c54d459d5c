package interp

import (
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/emily-go/emily"
)

// Eager code without a scope (issue 25). A cell's eager ops make tensors
// that Go frees only at a collection, and a handle that is still open
// blocks MLX from donating its buffer to the next op: the 1M-element
// 100-op chain typed into a cell needed 804 MB instead of 72, a fresh
// 4 MB buffer per op, and took 19–22× MLX Python's time in the CPU bar's
// run (1.3–1.5× on the development machine; BENCHMARKS.md). Inside
// emily.Scoped it runs at MLX Python's speed, but people do not write
// scopes.
//
// So the session opens a sweep scope (emily.NewSweepScope) at the start
// of every statement chunk (sweepStart, inserted by the rewrite), which
// collects the tensors the chunk's goroutine makes, and sweeps it at the
// top of each iteration of the chunk's own loops (sweepLoop, when the
// scope says enough was made to be worth it) and at the cell's end, once
// the session has dropped the global frame's dead slots (release.go),
// which until then hold the temporaries of the cell's statements. A
// sweep frees the collected tensors that the session can no longer reach
// (decision 15): it walks every slot of yaegi's global frame, and at the
// end the values the cell shows, through pointers, interfaces, structs,
// arrays, slices and maps, and keeps every tensor it finds. Where it meets
// what it cannot see into, it frees nothing and leaves the tensors to the
// collector, as before:
//   - a function value other than a plain declared function or a method
//     value of compiled code (whose receiver is walked): a closure of
//     compiled code, and an interpreted one once any was made or called
//     since the chunk began (yaegi's ClosureEvents), may capture a tensor
//     in a variable of its own;
//   - a channel whose elements may hold a tensor (its buffer cannot be
//     read without receiving), an unsafe.Pointer;
//   - a running goroutine of the session (its stack), a chunk with a go
//     statement (its goroutine may not have started yet);
//   - a loop body that runs inside a call (range over a function: the
//     iterator's variables are on its stack), found from the call stack;
//   - an interrupted chunk whose call may still be running.
// Tensors made on other goroutines are never collected, and neither are
// those a trace captures as constants (emily's escape): the library holds
// them. The cost: a walk of the session's variables when about 4 MB of
// tensors were made since the last one (its types are cached, and values
// of types that cannot hold a tensor are not entered).

// sweepStart, sweepLoop and sweepEnd are the statements the rewrite
// inserts at the start of a statement chunk, at the top of its loops'
// bodies and at its end. The end stops the collecting on the chunk's own
// goroutine: Go reuses a finished goroutine's descriptor, by which scopes
// know their goroutine, for the next one started, which must not be
// collected. (A chunk that panics does not get there; the session closes
// its scope when it has returned.)
const (
	sweepStart = rtName + ".Track(); "
	sweepLoop  = "if len(" + rtName + ".Due) != 0 { " + rtName + ".Sweep() }; "
	sweepEnd   = "\n;" + rtName + ".Untrack()"
)

// sweeper is the session's side of the sweep scope of the running chunk.
type sweeper struct {
	scope atomic.Pointer[emily.Scope]
	// closures reads the interpreter's ClosureEvents; closuresAt is its
	// value when the chunk began.
	closures   func() uint64
	closuresAt atomic.Uint64
	ended      []endedChunk  // the cell's chunks so far (the session's goroutine only)
	due        chan struct{} // non-empty once the scope says a sweep is due
	// for tests: sweeps run, refused, tensors freed.
	swept, refused, freed atomic.Int64
	why                   atomic.Pointer[string] // the last refusal's reason
	skip                  atomic.Int64           // due sweeps to skip after a long walk
}

func newSweeper() *sweeper { return &sweeper{due: make(chan struct{}, 1)} }

// track opens the chunk's sweep scope on the calling goroutine (the one
// yaegi runs the chunk on).
func (w *sweeper) track() {
	if old := w.scope.Swap(nil); old != nil {
		old.Close()
	}
	if w.closures != nil {
		w.closuresAt.Store(w.closures())
	}
	w.scope.Store(emily.NewSweepScope(func() {
		select {
		case w.due <- struct{}{}:
		default:
		}
	}))
}

// untrack stops the collecting (rt.Untrack, on the chunk's goroutine).
func (w *sweeper) untrack() {
	if s := w.scope.Load(); s != nil {
		s.Close()
	}
}

// end closes the chunk's scope, if the chunk did not, and hands it over
// for its last Sweep.
func (w *sweeper) end() *emily.Scope {
	s := w.scope.Swap(nil)
	if s != nil {
		s.Close()
	}
	select {
	case <-w.due:
	default:
	}
	return s
}

// sweepInLoop is rt.Sweep: called at the top of a loop body of the
// chunk's own code, on the chunk's goroutine, when a sweep is due.
func (s *Session) sweepInLoop() {
	select {
	case <-s.rt.sweep.due:
	default:
	}
	sc := s.rt.sweep.scope.Load()
	if sc == nil {
		return
	}
	if !calledFromTopLevel() {
		s.refuseSweep(sc, "a loop body inside a call")
		return
	}
	if n := s.rt.sweep.skip.Load(); n > 0 {
		s.rt.sweep.skip.Add(-1)
		sc.Sweep(func(*emily.Tensor) bool { return true }) // later, and less often
		return
	}
	s.sweepScope(sc, s.rt.sweep.closuresAt.Load(), nil)
}

// sweepChunkEnd closes the scope of the chunk that just ended and keeps
// it, with what the chunk shows, for the cell's end (sweepCell): until
// the session drops the dead slots of the global frame, the temporaries
// of the chunk's statements are still reachable through them.
func (s *Session) sweepChunkEnd(shown []any) {
	w := s.rt.sweep
	sc := w.end()
	if sc == nil {
		return
	}
	w.ended = append(w.ended, endedChunk{sc, w.closuresAt.Load(), shown})
}

// endedChunk is the scope of a chunk of the running cell, waiting for the
// cell's end.
type endedChunk struct {
	scope      *emily.Scope
	closuresAt uint64 // ClosureEvents when the chunk began
	shown      []any
}

// sweepCell is the last sweep of each chunk of the cell, after the
// session dropped the global frame's dead slots (release.go); sweep false
// (an interrupted call still running, a goroutine started by the cell)
// lets go of everything. What the cell shows is kept: the front end
// renders it after the cell.
func (s *Session) sweepCell(sweep bool) {
	w := s.rt.sweep
	ended := w.ended
	w.ended = nil
	var shown []any
	for _, e := range ended {
		shown = append(shown, e.shown...)
	}
	for _, e := range ended {
		if !sweep {
			e.scope.Sweep(func(*emily.Tensor) bool { return true })
			continue
		}
		s.sweepScope(e.scope, e.closuresAt, shown)
	}
}

// sweepScope frees what sc owns that no session value reaches, unless the
// session holds something the walk cannot see into.
func (s *Session) sweepScope(sc *emily.Scope, closuresAt uint64, extra []any) {
	if s.keepDead {
		s.refuseSweep(sc, "the session keeps dead values")
		return
	}
	if s.rt.goLive.Load() > 0 {
		s.refuseSweep(sc, "a goroutine of the session runs")
		return
	}
	w := newReachWalk()
	defer func() {
		// A session whose variables take long to walk (a huge slice of
		// structs) sweeps less often: a walk of more than ~50,000 values
		// (~1 ms) costs more than the page faults of the 4 MB it frees.
		// Counted, not timed: on a loaded machine a descheduled walk
		// looked slow and the loop skipped sweeps for nothing.
		if w.visits > walkBudget {
			s.rt.sweep.skip.Store(int64(w.visits / walkBudget))
		}
	}()
	// Interpreted function values cannot be seen into; they are harmless
	// while none was made or called since the chunk began (ClosureEvents).
	w.funcsStill = s.yi.ClosureEvents() == closuresAt
	s.yi.VisitGlobalFrame(w.value)
	for _, v := range extra {
		w.value(reflect.ValueOf(v))
	}
	if w.opaque != "" {
		s.refuseSweep(sc, w.opaque)
		return
	}
	s.rt.sweep.swept.Add(1)
	s.rt.sweep.freed.Add(int64(sc.Sweep(func(t *emily.Tensor) bool { return w.live[t] })))
}

// refuseSweep frees nothing of sc, and resets its account so that the
// next sweep is due only after as much again.
func (s *Session) refuseSweep(sc *emily.Scope, why string) {
	s.rt.sweep.refused.Add(1)
	s.rt.sweep.why.Store(&why)
	sc.Sweep(func(*emily.Tensor) bool { return true })
}

// calledFromTopLevel reports whether the caller's caller is the chunk's
// own code: nothing but yaegi's machinery (one run of a compiled tree)
// and reflect's between it and the goroutine yaegi started. A loop body
// inside a call (the yield of a range-over-function loop, compiled or
// interpreted) has other frames, or a second run, below it.
func calledFromTopLevel() bool {
	pcs := make([]uintptr, 256)
	n := runtime.Callers(3, pcs)
	if n == len(pcs) {
		return false // deeper than top-level code ever is
	}
	frames := runtime.CallersFrames(pcs[:n])
	runs := 0
	for {
		f, more := frames.Next()
		name := f.Function
		switch {
		case name == "github.com/traefik/yaegi/interp.runCfg":
			runs++
		case strings.HasPrefix(name, "github.com/traefik/yaegi/interp."),
			strings.HasPrefix(name, "reflect."),
			strings.HasPrefix(name, "runtime."),
			strings.HasPrefix(name, "github.com/emily-go/emily/interp.(*runtimeSyms)"),
			strings.HasPrefix(name, "github.com/emily-go/emily/interp.(*Session).sweepInLoop"):
		default:
			return false
		}
		if !more {
			break
		}
	}
	return runs == 1
}

// reachWalk finds the tensors reachable from the values it is given.
// walkBudget is the number of values a walk may visit before the
// session sweeps its loops less often (~1 ms of walking).
const walkBudget = 50_000

type reachWalk struct {
	visits     int // values visited
	live       map[*emily.Tensor]bool
	seen       map[visitKey]bool
	opaque     string // what the walk could not see into, if anything
	funcsStill bool   // no interpreted function value was made or called
}

type visitKey struct {
	p   uintptr
	t   reflect.Type
	len int
}

func newReachWalk() *reachWalk {
	return &reachWalk{live: map[*emily.Tensor]bool{}, seen: map[visitKey]bool{}}
}

const yaegiPath = "github.com/traefik/yaegi/interp"

var (
	tensorType = reflect.TypeFor[*emily.Tensor]()
	valueType  = reflect.TypeFor[reflect.Value]()
)

// value walks v; it stops at the first thing it cannot see into.
func (w *reachWalk) value(v reflect.Value) {
	if w.opaque != "" || !v.IsValid() {
		return
	}
	w.visits++
	t := v.Type()
	if t == tensorType {
		if !v.IsNil() {
			w.live[(*emily.Tensor)(v.UnsafePointer())] = true
		}
		return
	}
	if t == valueType {
		// yaegi keeps interpreted values inside reflect.Values (an
		// interface of an interpreted type is a struct holding one).
		if inner, ok := asValue(v); ok {
			w.value(inner)
		} else {
			w.opaque = "a reflect.Value held in an unexported field"
		}
		return
	}
	if !mayHold(t) {
		return
	}
	if t.PkgPath() == yaegiPath || (t.Kind() == reflect.Pointer && t.Elem().PkgPath() == yaegiPath) {
		// The interpreter's own values: an interface value of an
		// interpreted interface type holds its concrete value beside the
		// type's node; anything else (a node, a frame) is opaque.
		if t.Name() == "valueInterface" && t.Kind() == reflect.Struct {
			if f := v.FieldByName("value"); f.IsValid() {
				w.value(f)
				return
			}
		}
		w.opaque = "an interpreter value (" + t.String() + ")"
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() || w.once(v.Pointer(), t, 0) {
			return
		}
		w.value(v.Elem())
	case reflect.Interface:
		if !v.IsNil() {
			w.value(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			w.value(v.Field(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			w.value(v.Index(i))
		}
	case reflect.Slice:
		if v.IsNil() || w.once(v.Pointer(), t, v.Len()) {
			return
		}
		for i := range v.Len() {
			w.value(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || w.once(v.Pointer(), t, 0) {
			return
		}
		it := v.MapRange()
		for it.Next() {
			w.value(it.Key())
			w.value(it.Value())
		}
	case reflect.Func:
		if v.IsNil() {
			return
		}
		if recv, ok := methodReceiver(v); ok {
			w.value(recv) // a method value of compiled code holds its receiver
			return
		}
		switch pc := v.Pointer(); {
		case isPlainFunc(pc):
		case w.funcsStill && funcName(pc) == "reflect.makeFuncStub":
			// An interpreted function (yaegi hands them out made by
			// reflect.MakeFunc), or one of emily's Jit and Grad, which
			// hold what they trace through the function they wrap. (A
			// method value, reflect.methodValueCall, holds its receiver.)
		default:
			w.opaque = "a function value (" + funcName(pc) + ")"
		}
	case reflect.Chan:
		if !v.IsNil() {
			w.opaque = "a channel of " + t.Elem().String()
		}
	case reflect.UnsafePointer:
		if !v.IsNil() {
			w.opaque = "an unsafe.Pointer"
		}
	}
}

// once reports whether (p, t, n) was walked already, and marks it.
func (w *reachWalk) once(p uintptr, t reflect.Type, n int) bool {
	k := visitKey{p, t, n}
	if w.seen[k] {
		return true
	}
	w.seen[k] = true
	return false
}

// asValue returns the reflect.Value that v (of type reflect.Value) holds,
// also when v was read through an unexported field (yaegi's
// valueInterface), which reflect does not hand out: then v must be
// addressable, and its memory is read as what it is.
func asValue(v reflect.Value) (reflect.Value, bool) {
	if v.CanInterface() {
		return v.Interface().(reflect.Value), true
	}
	if v.CanAddr() {
		return *(*reflect.Value)(unsafe.Pointer(v.UnsafeAddr())), true
	}
	return reflect.Value{}, false
}

// mayHoldCache caches mayHold by type: the walk asks for every value.
var mayHoldCache sync.Map // reflect.Type → bool

// mayHold reports whether a value of type t may reach a tensor or
// something the walk must see (a func, a chan, an unsafe.Pointer).
// []float32, strings, numbers: no, and the walk skips them whole.
func mayHold(t reflect.Type) bool {
	if r, ok := mayHoldCache.Load(t); ok {
		return r.(bool)
	}
	r := mayHoldType(t, map[reflect.Type]bool{})
	mayHoldCache.Store(t, r)
	return r
}

func mayHoldType(t reflect.Type, inProgress map[reflect.Type]bool) bool {
	if t == tensorType || t == valueType {
		return true
	}
	if inProgress[t] {
		return false // a cycle: decided by the other branches
	}
	inProgress[t] = true
	defer delete(inProgress, t)
	switch t.Kind() {
	case reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayHoldType(t.Elem(), inProgress)
	case reflect.Map:
		return mayHoldType(t.Key(), inProgress) || mayHoldType(t.Elem(), inProgress)
	case reflect.Struct:
		for i := range t.NumField() {
			if mayHoldType(t.Field(i).Type, inProgress) {
				return true
			}
		}
	}
	return false
}

// isPlainFunc reports whether the code at pc is a declared function,
// which captures nothing: not a closure ("pkg.F.func1"), a method value
// ("pkg.T.M-fm") or a function made by reflect.MakeFunc (every
// interpreted function handed out as a Go value).
func isPlainFunc(pc uintptr) bool {
	f := runtime.FuncForPC(pc)
	if f == nil {
		return false
	}
	name := f.Name()
	if strings.HasPrefix(name, "reflect.") || strings.HasSuffix(name, "-fm") {
		return false
	}
	// The last path element holds "pkg.Func", "pkg.Func.func1" for a
	// closure, "pkg.(*T).M" for a method expression (no captures).
	last := name[strings.LastIndexByte(name, '/')+1:]
	return !strings.Contains(last, ".func") && !strings.Contains(last, ".gowrap")
}

func funcName(pc uintptr) string {
	if f := runtime.FuncForPC(pc); f != nil {
		return f.Name()
	}
	return "unknown"
}

// methodReceiver returns the receiver that a method value of compiled
// code holds (what yaegi makes of `t.Eval`, or `emily.Sum(y).Item()`'s
// callee, kept in a slot). reflect has no accessor for it, so it is read
// from reflect's layout: a Value made by Value.Method carries the
// receiver's type and pointer and flagMethod; stored in a variable, it
// becomes a function (code reflect.methodValueCall) whose context is a
// reflect.methodValue, which holds the receiver as a Value.
// methodLayoutOK checks both once against a known receiver; ok is false
// for anything else, and the walk then treats the function as opaque.
func methodReceiver(v reflect.Value) (reflect.Value, bool) {
	if !methodLayoutOK || v.Kind() != reflect.Func {
		return reflect.Value{}, false
	}
	r := *(*rvalue)(unsafe.Pointer(&v))
	if r.flag&flagMethod != 0 {
		return methodFlagReceiver(r)
	}
	return methodCtxtReceiver(r)
}

// rvalue mirrors reflect.Value: type, pointer, flags.
type rvalue struct {
	typ  unsafe.Pointer
	ptr  unsafe.Pointer
	flag uintptr
}

// reflect's flag bits (reflect/value.go, unchanged since Go 1.13).
const (
	flagKindMask uintptr = 1<<5 - 1
	flagRO       uintptr = 1<<5 | 1<<6
	flagIndir    uintptr = 1 << 7
	flagAddr     uintptr = 1 << 8
	flagMethod   uintptr = 1 << 9
)

// methodValueCtxt mirrors reflect.methodValue (reflect/makefunc.go):
// makeFuncCtxt (fn, stack, argLen, regPtrs), method, rcvr.
type methodValueCtxt struct {
	fn      uintptr
	stack   unsafe.Pointer
	argLen  uintptr
	regPtrs [2]uint8 // abi.IntArgRegBitmap on amd64 and arm64
	method  int
	rcvr    rvalue
}

// methodFlagReceiver rebuilds the receiver of a Value with flagMethod, as
// reflect's makeMethodValue does.
func methodFlagReceiver(r rvalue) (reflect.Value, bool) {
	if r.typ == nil {
		return reflect.Value{}, false
	}
	var e any
	(*[2]unsafe.Pointer)(unsafe.Pointer(&e))[0] = r.typ
	t := reflect.TypeOf(e)
	if t == nil {
		return reflect.Value{}, false
	}
	rv := rvalue{typ: r.typ, ptr: r.ptr, flag: r.flag&(flagRO|flagAddr|flagIndir) | uintptr(t.Kind())}
	return *(*reflect.Value)(unsafe.Pointer(&rv)), true
}

// methodCtxtReceiver reads the receiver from the context of a function
// whose code is reflect.methodValueCall.
func methodCtxtReceiver(r rvalue) (reflect.Value, bool) {
	p := r.ptr
	if r.flag&flagIndir != 0 && p != nil {
		p = *(*unsafe.Pointer)(p)
	}
	if p == nil || funcName(**(**uintptr)(unsafe.Pointer(&p))) != "reflect.methodValueCall" {
		return reflect.Value{}, false
	}
	c := (*methodValueCtxt)(p)
	if c.rcvr.typ == nil || c.rcvr.flag&flagMethod != 0 {
		return reflect.Value{}, false
	}
	rcvr := c.rcvr
	return *(*reflect.Value)(unsafe.Pointer(&rcvr)), true
}

// methodLayoutOK is whether methodReceiver finds the receiver of method
// values of a known pointer, as made by Method and as kept in a variable,
// compared word by word before any is used as a Value.
var methodLayoutOK = func() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	recv := &methodProbe{}
	var want any = recv
	words := *(*[2]unsafe.Pointer)(unsafe.Pointer(&want))
	m := reflect.ValueOf(recv).Method(0)
	r := *(*rvalue)(unsafe.Pointer(&m))
	if r.flag&flagMethod == 0 || r.typ != words[0] || r.ptr != words[1] || r.flag&flagKindMask != uintptr(reflect.Func) {
		return false
	}
	slot := reflect.New(m.Type()).Elem()
	slot.Set(m)
	s := *(*rvalue)(unsafe.Pointer(&slot))
	if s.flag&flagMethod != 0 || s.flag&flagIndir == 0 || s.ptr == nil {
		return false
	}
	p := *(*unsafe.Pointer)(s.ptr)
	if p == nil || funcName(**(**uintptr)(unsafe.Pointer(&p))) != "reflect.methodValueCall" {
		return false
	}
	c := (*methodValueCtxt)(p)
	if c.rcvr.typ != words[0] || c.rcvr.ptr != words[1] || c.rcvr.flag&flagKindMask != uintptr(reflect.Pointer) {
		return false
	}
	return true
}()

type methodProbe struct{ _ int }

func (*methodProbe) M() {}
