package compiler

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emily-go/emily/internal/goid"
	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// Tracer runs the user's function once on symbolic inputs (one per input
// node of g), recording ops into g, and returns the output nodes. The root
// package supplies it; the compiler knows nothing of Tensors.
type Tracer func(g *ir.Graph, inputs []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error)

// StaticTracer is a Tracer that also gets the static part of the call's
// signature (CallStatic): what the inputs' arrays do not say, such as the
// shape of the parameter tree they were flattened from.
type StaticTracer func(static string, g *ir.Graph, inputs []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error)

// Lane says how a cached entry runs.
type Lane int

// The lanes.
const (
	LaneEval   Lane = iota // walk the graph, one MLX op per cgo call
	LaneNative             // replay the program in one cgo call
	LaneFuse               // replay under mlx::core::compile
)

func (l Lane) String() string { return [...]string{"eval", "native", "fuse"}[l] }

// Stats counts what a Function did: traces happen once per cache key
// (input signature, lane, device), calls on every invocation.
type Stats struct {
	Traces, NativeCalls, FuseCalls, EvalCalls, Fallbacks int64
	Hits, Misses, Evictions                              int64
	Entries                                              int // traced entries cached now
}

// Function is a jitted function: options, a tracer and the cache of
// traced entries by lane, device and input signature.
type Function struct {
	name  string
	opts  Options // as given; effective values come from settings()
	trace StaticTracer

	mu    sync.Mutex
	cache map[string]*entry
	order []*entry // cached entries in trace order, for Programs
	tick  int64    // use counter for LRU eviction, under mu

	pools sync.Map // mlxbind.Device -> *streamPool (max_concurrency)

	traces, nativeCalls, fuseCalls, evalCalls, fallbacks atomic.Int64
	hits, misses, evictions                              atomic.Int64
	fellBack                                             atomic.Bool
}

type entry struct {
	key     string
	inputs  string // the input types, e.g. "int32[2 3], float32[]"
	lane    Lane
	device  mlxbind.Device
	graph   *ir.Graph
	program *ir.Program      // nil when lowering fell back
	native  *mlxbind.Program // the shim's copy of program
	// lowerErr is why a native entry runs in the evaluator lane: a later
	// call with fallback=raise in force returns it.
	lowerErr error
	lastUse  int64 // f.tick at the last lookup, under f.mu

	// While the entry is being traced: ready closes when it is done (err
	// then says whether it failed), and builder is the tracing goroutine.
	ready   chan struct{}
	err     error
	builder uint64
}

// New validates opts and returns a Function that traces with trace. name
// is used in errors and events.
func New(name string, trace Tracer, opts ...Option) (*Function, error) {
	return NewStatic(name, func(_ string, g *ir.Graph, inputs []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error) {
		return trace(g, inputs, s)
	}, opts...)
}

// NewStatic is New for a function whose calls carry a static part of their
// signature (CallStatic): calls with different static strings trace and
// cache apart, as calls with different input shapes do.
func NewStatic(name string, trace StaticTracer, opts ...Option) (*Function, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if o.Device != "" {
		if dev, _ := mlxbind.ParseDevice(o.Device); !dev.Available() {
			return nil, fmt.Errorf("%s: device %s is not available in this MLX build; use device cpu", name, o.Device)
		}
	}
	return &Function{name: name, opts: o, trace: trace, cache: map[string]*entry{}}, nil
}

// Options returns the function's own options, as given.
func (f *Function) Options() Options { return f.opts }

// Name returns the function's name.
func (f *Function) Name() string { return f.name }

// Stats returns the function's counters.
func (f *Function) Stats() Stats {
	f.mu.Lock()
	n := len(f.order)
	f.mu.Unlock()
	return Stats{Traces: f.traces.Load(), NativeCalls: f.nativeCalls.Load(), FuseCalls: f.fuseCalls.Load(),
		EvalCalls: f.evalCalls.Load(), Fallbacks: f.fallbacks.Load(),
		Hits: f.hits.Load(), Misses: f.misses.Load(), Evictions: f.evictions.Load(), Entries: n}
}

// settings are the effective options of one call.
type settings struct {
	lane     Lane
	device   mlxbind.Device
	stream   *mlxbind.Stream
	fallback string
	debug    bool
	debugOut io.Writer
	async    bool
	donate   []int
	maxConc  int
	cacheMax int
}

// settings resolves the options for a call, most specific first: the
// overrides in force, the function's options, the session defaults.
func (f *Function) settings() (st settings, err error) {
	o := f.opts.over(overrides.Load())
	native := DefaultNative()
	if o.Native != nil {
		native = *o.Native
	}
	switch {
	case !native:
		st.lane = LaneEval
	case o.Fuse != nil && *o.Fuse:
		st.lane = LaneFuse
	default:
		st.lane = LaneNative
	}
	st.device = DefaultDevice()
	if o.Device != "" {
		st.device, _ = mlxbind.ParseDevice(o.Device)
	}
	if o.Stream != nil {
		st.stream = o.Stream
		st.device = o.Stream.Device()
	}
	if !available(st.device) {
		return st, fmt.Errorf("%s: device %s is not available in this MLX build; use device cpu", f.name, st.device)
	}
	st.fallback = o.Fallback
	if st.fallback == "" {
		st.fallback = FallbackEval
	}
	st.debug = o.Debug != nil && *o.Debug
	st.debugOut = o.DebugOut
	st.async = o.Async != nil && *o.Async
	st.donate = o.Donate
	st.maxConc = max(o.MaxConcurrency, 1)
	st.cacheMax = o.CacheSize
	if st.cacheMax == 0 {
		st.cacheMax = DefaultCacheSize
	}
	return st, nil
}

// key is the cache key: the lane, the device, and each input's dtype and
// shape.
func key(lane Lane, dev mlxbind.Device, inputs []*mlxbind.Array) string {
	// Built on every call (a train step's state is a few hundred inputs):
	// into one buffer sized up front, numbers formatted in place.
	n := 16
	for _, a := range inputs {
		n += 10 + 6*len(a.Shape())
	}
	buf := make([]byte, 0, n)
	buf = append(buf, lane.String()...)
	buf = append(buf, '@')
	buf = append(buf, dev.String()...)
	for _, a := range inputs {
		buf = append(buf, '|')
		buf = append(buf, a.DType().String()...)
		for _, d := range a.Shape() {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(d), 10)
		}
	}
	return string(buf)
}

// Call runs the function on concrete inputs, tracing on the first call per
// cache key, and returns evaluated outputs.
func (f *Function) Call(inputs []*mlxbind.Array) ([]*mlxbind.Array, error) {
	outs, _, err := f.CallOn(nil, inputs)
	return outs, err
}

// CallOn is Call on stream s when s is not nil (emily's Stream.Do), and
// also returns the stream the call ran on. Without s, the function's
// stream option, else a stream of its pool (max_concurrency > 1), else
// the device's default stream.
func (f *Function) CallOn(s *mlxbind.Stream, inputs []*mlxbind.Array) ([]*mlxbind.Array, mlxbind.Stream, error) {
	return f.CallStatic(s, "", inputs)
}

// CallStatic is CallOn with the static part of the signature (NewStatic).
func (f *Function) CallStatic(s *mlxbind.Stream, static string, inputs []*mlxbind.Array) ([]*mlxbind.Array, mlxbind.Stream, error) {
	outs, stream, _, err := f.CallStaticInPlace(s, static, inputs, 0)
	return outs, stream, err
}

// CallStaticInPlace is CallStatic where, in the native and fuse lanes, the
// first inPlace outputs replace the first inPlace inputs in place
// (mlxbind.Program.RunInPlace: the input arrays take the outputs' values
// and are the first results, so MLX can reuse their buffers). inPlaceDone
// says whether it did: not in the evaluator lane, nor where a pair's
// shapes or dtypes differ; then every output is new, as from CallStatic.
func (f *Function) CallStaticInPlace(s *mlxbind.Stream, static string, inputs []*mlxbind.Array, inPlace int) (outs []*mlxbind.Array, stream mlxbind.Stream, inPlaceDone bool, err error) {
	var start time.Time
	listening := Listening()
	if listening {
		start = time.Now()
	}
	st, err := f.settings()
	if err != nil {
		return nil, mlxbind.Stream{}, false, err
	}
	if s != nil && st.stream == nil {
		st.stream, st.device = s, s.Device()
	}
	switch {
	case st.stream != nil:
		stream = *st.stream
	case st.maxConc > 1:
		pool := f.pool(st.device)
		stream, err = pool.acquire(st.maxConc)
		if err != nil {
			return nil, stream, false, fmt.Errorf("%s: %w", f.name, err)
		}
		defer pool.release(stream)
	default:
		if stream, err = mlxbind.DefaultStream(st.device); err != nil {
			return nil, stream, false, err
		}
	}
	e, err := f.lookup(st, static, inputs, stream)
	if err != nil {
		return nil, stream, false, err
	}
	switch e.lane {
	case LaneNative, LaneFuse:
		if e.lane == LaneFuse {
			f.fuseCalls.Add(1)
		} else {
			f.nativeCalls.Add(1)
		}
		var donate []bool
		if len(st.donate) > 0 {
			donate = make([]bool, len(inputs))
			for _, i := range st.donate {
				if i >= 0 && i < len(inputs) {
					donate[i] = true
				}
			}
		}
		outs, inPlaceDone, err = e.native.RunInPlace(stream, inputs, donate, e.lane == LaneFuse, st.async, inPlace)
		if err != nil {
			err = fmt.Errorf("%s: %w", f.name, err)
		}
	default:
		if e.lowerErr != nil && st.fallback == FallbackRaise {
			return nil, stream, false, fmt.Errorf("%s: %w", f.name, e.lowerErr)
		}
		f.evalCalls.Add(1)
		var dbg *debugger
		if st.debug {
			dbg = newDebugger(f.name, st.debugOut)
		}
		outs, err = evaluate(e.graph, stream, inputs, dbg, st.async && dbg == nil)
		// The evaluator's graph holds what it needs: a donated input is
		// freed here as the native lanes free it (they also reuse its
		// buffer; this lane may not).
		for _, i := range st.donate {
			if i >= 0 && i < len(inputs) && !slices.Contains(outs, inputs[i]) {
				inputs[i].Free()
			}
		}
	}
	if err == nil && listening {
		emit(Event{Kind: EventRun, Function: f.name, Source: f, Signature: e.key, Lane: e.lane,
			Device: e.device.String(), Duration: time.Since(start)})
	}
	return outs, stream, inPlaceDone, err
}

// Program returns the lowered program for inputs' signature in the current
// lane, tracing if needed; for the evaluator lane it is lowered on demand,
// and after a fallback the lowering error is returned.
func (f *Function) Program(inputs []*mlxbind.Array) (*ir.Program, error) {
	return f.ProgramStatic("", inputs)
}

// ProgramStatic is Program with the static part of the signature.
func (f *Function) ProgramStatic(static string, inputs []*mlxbind.Array) (*ir.Program, error) {
	st, err := f.settings()
	if err != nil {
		return nil, err
	}
	s, err := mlxbind.DefaultStream(st.device)
	if st.stream != nil {
		s, err = *st.stream, nil
	}
	if err != nil {
		return nil, err
	}
	e, err := f.lookup(st, static, inputs, s)
	if err != nil {
		return nil, err
	}
	return e.lowered()
}

// lowered returns the entry's program, lowering the graph of an evaluator
// lane entry on demand (for listings).
func (e *entry) lowered() (*ir.Program, error) {
	if e.program != nil {
		return e.program, nil
	}
	return ir.Lower(e.graph)
}

// ProgramInfo describes one traced entry of a Function.
type ProgramInfo struct {
	Inputs  string // the input types, e.g. "int32[2 3], float32[]"
	Lane    string // "native", "fuse", or "eval" (also after a fallback)
	Device  string // "cpu" or "gpu"
	Listing string // the IR program; for a fallback, the lowering error
}

// Programs lists the entries cached now, in trace order.
func (f *Function) Programs() []ProgramInfo {
	f.mu.Lock()
	order := append([]*entry(nil), f.order...)
	f.mu.Unlock()
	infos := make([]ProgramInfo, 0, len(order))
	for _, e := range order {
		info := ProgramInfo{Inputs: e.inputs, Lane: e.lane.String(), Device: e.device.String()}
		if p, err := e.lowered(); err != nil {
			info.Listing = err.Error()
		} else {
			info.Listing = p.String()
		}
		infos = append(infos, info)
	}
	return infos
}

// lookup returns the entry for the call's key, tracing it on a miss.
// Tracing runs without f.mu held, so the traced function may call other
// jitted functions, or this one, on concrete tensors: a call with the key
// being traced by another goroutine waits for it; one from the tracing
// goroutine itself (a recursive call) traces its own, uncached entry.
func (f *Function) lookup(st settings, static string, inputs []*mlxbind.Array, s mlxbind.Stream) (*entry, error) {
	k := key(st.lane, st.device, inputs)
	if static != "" {
		k += "#" + static
	}
	f.mu.Lock()
	if e, ok := f.cache[k]; ok {
		f.tick++
		e.lastUse = f.tick
		ready := e.ready
		builder := e.builder
		f.mu.Unlock()
		if ready != nil {
			if builder == goid.ID() {
				f.misses.Add(1)
				return f.build(k, static, st, inputs, s)
			}
			<-ready
			if e.err != nil {
				return nil, e.err
			}
		}
		f.hits.Add(1)
		if Listening() {
			emit(Event{Kind: EventHit, Function: f.name, Source: f, Signature: k, Lane: e.lane, Device: e.device.String()})
		}
		return e, nil
	}
	pending := &entry{key: k, ready: make(chan struct{}), builder: goid.ID()}
	f.cache[k] = pending
	f.mu.Unlock()
	f.misses.Add(1)
	if Listening() {
		emit(Event{Kind: EventMiss, Function: f.name, Source: f, Signature: k, Lane: st.lane, Device: st.device.String()})
	}

	e, err := f.build(k, static, st, inputs, s)

	f.mu.Lock()
	ready := pending.ready
	var evicted []*entry
	if err != nil {
		delete(f.cache, k)
		pending.err = err
	} else {
		// Waiters hold pending: fill it in before closing ready.
		*pending = *e
		f.tick++
		pending.lastUse = f.tick
		f.order = append(f.order, pending)
		evicted = f.evict(st.cacheMax)
	}
	close(ready)
	f.mu.Unlock()
	for _, v := range evicted {
		f.evictions.Add(1)
		if Listening() {
			emit(Event{Kind: EventEvict, Function: f.name, Source: f, Signature: v.key, Lane: v.lane, Device: v.device.String()})
		}
	}
	if err != nil {
		return nil, err
	}
	return pending, nil
}

// evict drops the least recently used entries beyond limit; not those
// still being traced. Called with f.mu held. An evicted program is freed
// by its finalizer once no call that is still running uses it.
func (f *Function) evict(limit int) []*entry {
	var evicted []*entry
	for len(f.order) > limit {
		oldest := -1
		for i, e := range f.order {
			if oldest < 0 || e.lastUse < f.order[oldest].lastUse {
				oldest = i
			}
		}
		e := f.order[oldest]
		f.order = append(f.order[:oldest], f.order[oldest+1:]...)
		delete(f.cache, e.key)
		evicted = append(evicted, e)
	}
	return evicted
}

// build traces the function for inputs' signature and prepares the lane.
func (f *Function) build(k, static string, st settings, inputs []*mlxbind.Array, s mlxbind.Stream) (*entry, error) {
	lane := st.lane
	t0 := time.Now()
	g := ir.NewGraph()
	nodes := make([]*ir.Node, len(inputs))
	for i, a := range inputs {
		nodes[i] = g.Input(a.Shape(), a.DType())
	}
	f.traces.Add(1)
	outs, err := f.trace(static, g, nodes, s)
	if err != nil {
		return nil, fmt.Errorf("%s: tracing: %w", f.name, err)
	}
	g.Outputs = outs
	traced := time.Now()
	types := make([]string, len(inputs))
	for i, a := range inputs {
		types[i] = fmt.Sprintf("%s%v", a.DType(), a.Shape())
	}
	e := &entry{key: k, inputs: strings.Join(types, ", "), lane: lane, device: st.device, graph: g}
	compiled := func() {
		if Listening() {
			ops := 0
			for _, n := range g.Schedule() {
				if n.Kind == ir.ApplyNode || n.Kind == ir.HostNode {
					ops++
				}
			}
			if e.program != nil {
				ops = len(e.program.Instrs)
			}
			emit(Event{Kind: EventCompile, Function: f.name, Source: f, Signature: k, Lane: e.lane,
				Device: e.device.String(), Trace: traced.Sub(t0), Lower: time.Since(traced), Ops: ops})
		}
	}
	if lane == LaneEval {
		compiled()
		return e, nil
	}
	p, err := ir.Lower(g)
	if err != nil {
		if !errors.Is(err, ir.ErrNotLowerable) || st.fallback == FallbackRaise {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		// fallback=eval: run the whole function in the evaluator lane, and
		// say so once per function.
		f.fallbacks.Add(1)
		e.lane, e.lowerErr = LaneEval, err
		compiled()
		if !f.fellBack.Swap(true) && Listening() {
			emit(Event{Kind: EventFallback, Function: f.name, Source: f, Signature: k, Lane: LaneEval, Device: e.device.String(), Err: err})
		}
		return e, nil
	}
	code, outputs := p.Encode()
	native, err := mlxbind.NewProgram(p.NInputs, p.Consts, code, outputs)
	if err != nil {
		// The lowerer produced something the shim rejects: a compiler bug,
		// always surfaced whatever the fallback option says.
		return nil, fmt.Errorf("%s: internal error, please report: %w\n%s", f.name, err, p)
	}
	e.program, e.native = p, native
	if lane == LaneFuse && hasEmpty(inputs, p) {
		// Nothing to fuse, and MLX's CUDA compile divides by a zero size
		// (SIGFPE) on empty arrays: the same replay, unfused.
		e.lane = LaneNative
	}
	if e.lane == LaneFuse {
		if err := checkFuseDepth(p); err != nil {
			if st.fallback == FallbackRaise {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			f.fallbacks.Add(1)
			e.lane = LaneNative
			if Listening() {
				emit(Event{Kind: EventFallback, Function: f.name, Source: f, Signature: k, Lane: LaneNative, Device: e.device.String(), Err: err})
			}
		}
	}
	compiled()
	return e, nil
}

// available caches mlxbind's Device.Available, a cgo call, per device.
func available(d mlxbind.Device) bool {
	i := 0
	if d == mlxbind.GPU {
		i = 1
	}
	if v := availability[i].Load(); v != 0 {
		return v == 1
	}
	ok := d.Available()
	v := int32(2)
	if ok {
		v = 1
	}
	availability[i].Store(v)
	return ok
}

var availability [2]atomic.Int32 // 0 unknown, 1 available, 2 not
