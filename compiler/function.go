package compiler

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// Tracer runs the user's function once on symbolic inputs (one per input
// node of g), recording ops into g, and returns the output nodes. The root
// package supplies it; the compiler knows nothing of Tensors.
type Tracer func(g *ir.Graph, inputs []*ir.Node, s mlxbind.Stream) ([]*ir.Node, error)

// Lane says how a cached entry runs.
type Lane int

// The lanes.
const (
	LaneEval   Lane = iota // walk the graph, one MLX op per cgo call
	LaneNative             // replay the program in one cgo call
	LaneFuse               // replay under mlx::core::compile
)

func (l Lane) String() string { return [...]string{"eval", "native", "fuse"}[l] }

// Stats counts what a Function did: traces happen once per input
// signature and lane, calls on every invocation.
type Stats struct {
	Traces, NativeCalls, FuseCalls, EvalCalls, Fallbacks int64
}

// Function is a jitted function: options, a tracer and the cache of
// traced entries by input signature and lane.
type Function struct {
	name   string
	opts   Options
	device mlxbind.Device
	trace  Tracer

	mu    sync.Mutex
	cache map[string]*entry
	order []*entry // cache entries in trace order, for Programs

	traces, nativeCalls, fuseCalls, evalCalls, fallbacks atomic.Int64
	fellBack                                             atomic.Bool
}

type entry struct {
	inputs  string // the input types, e.g. "int32[2 3], float32[]"
	lane    Lane
	graph   *ir.Graph
	program *ir.Program      // nil when lowering fell back
	native  *mlxbind.Program // the shim's copy of program
}

// New validates opts and returns a Function that traces with trace. name
// is used in errors and events.
func New(name string, trace Tracer, opts ...Option) (*Function, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dev := mlxbind.DefaultDevice()
	if o.Device != "" {
		dev, _ = mlxbind.ParseDevice(o.Device)
		if !dev.Available() {
			return nil, fmt.Errorf("%s: device %s is not available in this MLX build; use device cpu", name, o.Device)
		}
	}
	return &Function{name: name, opts: o, device: dev, trace: trace, cache: map[string]*entry{}}, nil
}

// Options returns the function's resolved options.
func (f *Function) Options() Options { return f.opts }

// Stats returns the function's counters.
func (f *Function) Stats() Stats {
	return Stats{Traces: f.traces.Load(), NativeCalls: f.nativeCalls.Load(), FuseCalls: f.fuseCalls.Load(),
		EvalCalls: f.evalCalls.Load(), Fallbacks: f.fallbacks.Load()}
}

// lane picks the lane for this call: the per-function option wins over the
// session default; fuse only applies to the native lane.
func (f *Function) lane() Lane {
	native := DefaultNative()
	if f.opts.Native != nil {
		native = *f.opts.Native
	}
	switch {
	case !native:
		return LaneEval
	case f.opts.Fuse:
		return LaneFuse
	}
	return LaneNative
}

// signature is the cache key: the lane and each input's dtype and shape.
func signature(lane Lane, inputs []*mlxbind.Array) string {
	var b strings.Builder
	b.WriteString(lane.String())
	for _, a := range inputs {
		b.WriteByte('|')
		b.WriteString(a.DType().String())
		for _, d := range a.Shape() {
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(d))
		}
	}
	return b.String()
}

// Call runs the function on concrete inputs, tracing on the first call per
// signature, and returns evaluated outputs.
func (f *Function) Call(inputs []*mlxbind.Array) ([]*mlxbind.Array, error) {
	s, err := mlxbind.DefaultStream(f.device)
	if err != nil {
		return nil, err
	}
	lane := f.lane()
	e, err := f.lookup(lane, inputs, s)
	if err != nil {
		return nil, err
	}
	switch e.lane {
	case LaneNative, LaneFuse:
		if e.lane == LaneFuse {
			f.fuseCalls.Add(1)
		} else {
			f.nativeCalls.Add(1)
		}
		outs, err := e.native.Run(s, inputs, e.lane == LaneFuse)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		return outs, nil
	default:
		f.evalCalls.Add(1)
		return evaluate(e.graph, s, inputs)
	}
}

// Program returns the lowered program for inputs' signature in the current
// lane, tracing if needed; for the evaluator lane it is lowered on demand,
// and after a fallback the lowering error is returned.
func (f *Function) Program(inputs []*mlxbind.Array) (*ir.Program, error) {
	s, err := mlxbind.DefaultStream(f.device)
	if err != nil {
		return nil, err
	}
	e, err := f.lookup(f.lane(), inputs, s)
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
	Listing string // the IR program; for a fallback, the lowering error
}

// Programs lists the entries traced so far, in trace order.
func (f *Function) Programs() []ProgramInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	infos := make([]ProgramInfo, 0, len(f.order))
	for _, e := range f.order {
		info := ProgramInfo{Inputs: e.inputs, Lane: e.lane.String()}
		if p, err := e.lowered(); err != nil {
			info.Listing = err.Error()
		} else {
			info.Listing = p.String()
		}
		infos = append(infos, info)
	}
	return infos
}

func (f *Function) lookup(lane Lane, inputs []*mlxbind.Array, s mlxbind.Stream) (*entry, error) {
	key := signature(lane, inputs)
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.cache[key]; ok {
		return e, nil
	}
	e, err := f.build(lane, inputs, s)
	if err != nil {
		return nil, err
	}
	f.cache[key] = e
	f.order = append(f.order, e)
	return e, nil
}

// build traces the function for inputs' signature and prepares the lane.
func (f *Function) build(lane Lane, inputs []*mlxbind.Array, s mlxbind.Stream) (*entry, error) {
	g := ir.NewGraph()
	nodes := make([]*ir.Node, len(inputs))
	for i, a := range inputs {
		nodes[i] = g.Input(a.Shape(), a.DType())
	}
	f.traces.Add(1)
	outs, err := f.trace(g, nodes, s)
	if err != nil {
		return nil, fmt.Errorf("%s: tracing: %w", f.name, err)
	}
	g.Outputs = outs
	types := make([]string, len(inputs))
	for i, a := range inputs {
		types[i] = fmt.Sprintf("%s%v", a.DType(), a.Shape())
	}
	e := &entry{inputs: strings.Join(types, ", "), lane: lane, graph: g}
	emit(Event{Kind: EventTrace, Function: f.name, Signature: signature(lane, inputs)})
	if lane == LaneEval {
		return e, nil
	}
	p, err := ir.Lower(g)
	if err != nil {
		if !errors.Is(err, ir.ErrNotLowerable) || f.opts.Fallback == FallbackRaise {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		// fallback=eval: run the whole function in the evaluator lane, and
		// say so once per function.
		f.fallbacks.Add(1)
		e.lane = LaneEval
		if !f.fellBack.Swap(true) {
			emit(Event{Kind: EventFallback, Function: f.name, Signature: signature(lane, inputs), Err: err})
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
			if f.opts.Fallback == FallbackRaise {
				return nil, fmt.Errorf("%s: %w", f.name, err)
			}
			f.fallbacks.Add(1)
			e.lane = LaneNative
			emit(Event{Kind: EventFallback, Function: f.name, Signature: signature(lane, inputs), Err: err})
		}
	}
	return e, nil
}
