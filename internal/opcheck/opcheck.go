package opcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"sync/atomic"
	"time"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/opspec"
)

// Case is one checked call, as the manifest records it for the NumPy
// comparison.
type Case struct {
	ID        string         `json:"id"`
	Op        string         `json:"op"` // the spec row
	Fn        string         `json:"fn"` // the Go function called
	DType     string         `json:"dtype"`
	Operands  []string       `json:"operands"` // operand names, as the NumPy expression uses them
	List      bool           `json:"list"`     // the one operand is a list
	Inputs    []string       `json:"inputs"`   // .npy files, one per operand (list: one per element)
	InDTypes  []string       `json:"in_dtypes"`
	Outputs   []string       `json:"outputs"` // .npy files of the eager results
	OutDTypes []string       `json:"out_dtypes"`
	Attrs     map[string]any `json:"attrs"`
	NumPy     string         `json:"numpy"`
	NoNumPy   string         `json:"no_numpy,omitempty"`
	Tol       float64        `json:"tol"`
	Tol64     float64        `json:"tol64"`
	TolHalf   float64        `json:"tol_half,omitempty"`
	Special   bool           `json:"special"` // inputs hold NaN/Inf
}

// Summary counts what a run checked.
type Summary struct {
	Cases, Ops, Functions, OpDTypes int
	LaneFailures                    []string
	Stopped                         bool // Stop ended the run early
}

// lanes are the jit options every case runs under besides eager.
var lanes = []struct {
	name string
	opts []emily.Option
}{
	{"native", []emily.Option{emily.WithNative(true), emily.WithFallback("raise")}},
	{"eval", []emily.Option{emily.WithNative(false)}},
	{"fuse", []emily.Option{emily.WithNative(true), emily.WithFuse(true), emily.WithFallback("raise")}},
}

// Lanes names the lanes Run checks besides eager (all by default). The
// fuse lane can be left out where compiling is slow: MLX's CUDA backend
// compiles every fused kernel with NVRTC on first use, and the op check on
// an H200 managed ~30 cases a minute with it.
var Lanes = map[string]bool{"native": true, "eval": true, "fuse": true}

// Stop, once set (the run command sets it on SIGTERM), ends Run after the
// op in progress: the manifest then holds the cases checked so far, and
// Summary.Stopped says the run is partial.
var Stop atomic.Bool

// Skip, when set, leaves out the ops whose name it matches.
var Skip *regexp.Regexp

// Progress, when set, gets a line as each op starts, with the time since
// the run began.
var Progress io.Writer

// FuseULP is how far the fuse lane may drift from the native lane, in
// units in the last place of the result dtype (DESIGN.md decision 4).
const FuseULP = 8

// Run checks every op whose name matches only (all when nil) and writes
// the operands, the eager results and manifest.json into dir.
func Run(dir string, only *regexp.Regexp) (Summary, error) {
	var sum Summary
	var cases []Case
	gpu := emily.DefaultDevice() == "gpu"
	began := time.Now()
	opDTypes := map[string]bool{}
	for _, op := range opspec.All() {
		if only != nil && !only.MatchString(op.Name) || Skip != nil && Skip.MatchString(op.Name) {
			continue
		}
		if Stop.Load() {
			sum.Stopped = true
			break
		}
		if Progress != nil {
			fmt.Fprintf(Progress, "%8v %s\n", time.Since(began).Round(time.Millisecond), op.Name)
		}
		if op.MultiRank != "" {
			continue // Send, Recv: distributed's two-rank tests check them
		}
		fns := functionsOf(op)
		if len(fns) == 0 {
			return sum, fmt.Errorf("%s: no call in the check table (a Manual op needs an entry in opcheck's manual map)", op.Name)
		}
		sum.Ops++
		sum.Functions += len(fns)
		dtypes := op.DTypes
		if len(op.Inputs) == 0 {
			dtypes = []string{""} // constructors: the samples fix the dtype
		}
		for _, dt := range dtypes {
			if dt == "float64" && gpu {
				continue
			}
			for _, fn := range fns {
				for si, sample := range samplesOf(op, dt) {
					if conflicts(sample, fn.fixed) {
						continue
					}
					c, err := runCase(dir, op, fn, dt, si, sample)
					if err != nil {
						sum.LaneFailures = append(sum.LaneFailures, err.Error())
						if Progress != nil {
							fmt.Fprintln(Progress, "FAIL", err)
						}
						continue
					}
					cases = append(cases, c)
					opDTypes[op.Name+"/"+dt] = true
				}
			}
		}
	}
	sum.Cases = len(cases)
	sum.OpDTypes = len(opDTypes)
	data, err := json.MarshalIndent(cases, "", " ")
	if err != nil {
		return sum, err
	}
	return sum, os.WriteFile(filepath.Join(dir, "manifest.json"), data, 0o644)
}

// conflicts reports whether an Exact sample sets an attribute that fixed
// gives another value.
func conflicts(s opspec.Sample, fixed map[string]any) bool {
	if !s.Exact {
		return false
	}
	for k, v := range fixed {
		if sv, ok := s.Attrs[k]; ok && fmt.Sprint(sv) != fmt.Sprint(v) {
			return true
		}
	}
	return false
}

type namedCall struct {
	name  string
	call  caller
	fixed map[string]any
}

// functionsOf returns the Go functions of op to call: its main function
// (hand-written for Manual ops) and its variants, each with the attribute
// values it fixes.
func functionsOf(op opspec.Op) []namedCall {
	if op.MultiRank != "" {
		return nil // it needs two ranks: the distributed package's tests run it
	}
	var out []namedCall
	if c, ok := manual[op.Name]; ok {
		out = append(out, namedCall{op.Name, c, nil})
	} else if c, ok := generated[op.Name]; ok {
		out = append(out, namedCall{op.Name, c, op.Fixed})
	}
	for _, v := range op.Variants {
		if c, ok := generated[v.Name]; ok {
			out = append(out, namedCall{v.Name, c, v.Fixed})
		}
	}
	return out
}

// samplesOf returns op's samples, plus one with NaN/Inf operands for float
// elementwise ops.
func samplesOf(op opspec.Op, dt string) []opspec.Sample {
	s := op.Samples
	if (op.Family == "unary" || op.Family == "binary" || op.Family == "compare") && (dt == "float32" || dt == "float64") {
		shapes := make([][]int, len(op.Inputs))
		for i := range shapes {
			shapes[i] = []int{len(specials)}
		}
		// The special sample keeps the first sample's attributes (an op
		// with attributes needs them: Round's decimals, NanToNum's values).
		attrs := map[string]any{"special": true}
		if len(s) > 0 {
			for k, v := range s[0].Attrs {
				attrs[k] = v
			}
		}
		s = append(append([]opspec.Sample{}, s...), opspec.Sample{Shapes: shapes, Attrs: attrs})
	}
	return s
}

func runCase(dir string, op opspec.Op, fn namedCall, dt string, si int, sample opspec.Sample) (c Case, err error) {
	id := fmt.Sprintf("%s-%s-%d", fn.name, dt, si)
	if dt == "" {
		id = fmt.Sprintf("%s-%d", fn.name, si)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", id, r)
		}
	}()
	r := newRNG(id)
	special := sample.Attrs["special"] == true
	attrs := map[string]any{}
	for k, v := range sample.Attrs {
		if k != "special" {
			attrs[k] = v
		}
	}
	for k, v := range fn.fixed {
		attrs[k] = v
	}
	c = Case{ID: id, Op: op.Name, Fn: fn.name, DType: dt, Operands: op.Inputs, List: op.Variadic,
		Attrs: attrs, NumPy: op.NumPy, NoNumPy: op.NoNumPy, Tol: op.Tol, Tol64: op.Tol64, TolHalf: op.TolHalf, Special: special}
	var ins []*emily.Tensor
	for i := range sample.Shapes {
		t, _ := operand(r, op, dt, sample, i, attrs, special)
		file := fmt.Sprintf("%s.in%d.npy", id, i)
		if err := writeNPY(filepath.Join(dir, file), t); err != nil {
			return c, err
		}
		c.Inputs = append(c.Inputs, file)
		c.InDTypes = append(c.InDTypes, t.DType().String())
		ins = append(ins, t)
	}
	eager := fn.call(ins, attrs)
	for i, t := range eager {
		file := fmt.Sprintf("%s.out%d.npy", id, i)
		if err := writeNPY(filepath.Join(dir, file), t); err != nil {
			return c, err
		}
		c.Outputs = append(c.Outputs, file)
		c.OutDTypes = append(c.OutDTypes, t.DType().String())
	}
	if op.NoTrace {
		return c, nil
	}
	var native []*emily.Tensor
	for _, lane := range lanes {
		if !Lanes[lane.name] {
			continue
		}
		got, err := jitted(fn.call, attrs, ins, len(eager), lane.opts)
		if err != nil {
			return c, fmt.Errorf("%s [%s]: %w", id, lane.name, err)
		}
		for i := range eager {
			if lane.name == "fuse" {
				if why := withinULP(native[i], got[i], FuseULP); why != "" {
					return c, fmt.Errorf("%s: fuse result %d drifts from native: %s", id, i, why)
				}
				continue
			}
			if !sameBits(eager[i], got[i]) {
				return c, fmt.Errorf("%s: %s result %d differs from eager: %v vs %v", id, lane.name, i,
					preview(got[i]), preview(eager[i]))
			}
		}
		if lane.name == "native" {
			native = got
		}
	}
	return c, nil
}

// operand draws operand i of a sample of op in dtype dt (or the operand's
// own dtype), from its domain (special values when special is set), and
// returns it with its name in the spec.
func operand(r *rng, op opspec.Op, dt string, sample opspec.Sample, i int, attrs map[string]any, special bool) (*emily.Tensor, string) {
	shape := sample.Shapes[i]
	name := op.Inputs[0]
	if !op.Variadic {
		name = op.Inputs[i]
	}
	idt, dom := dt, op.Domain
	if d, ok := op.OperandDTypes[name]; ok {
		idt = d
	}
	if d, ok := op.OperandDomains[name]; ok {
		dom = d
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	var vals []float64
	switch {
	case dom == opspec.Bits && idt == "uint32":
		// Every 32-bit pattern: float64 values would lose the low bits.
		return bitsTensor(r, shape), name
	case dom == opspec.BatchOfFirst || dom == opspec.BatchOfSecond:
		of := 0
		if dom == opspec.BatchOfSecond {
			of = 1
		}
		vals = batchIndexValues(r, n, sample.Shapes[of])
	case dom == opspec.Position:
		vals = make([]float64, n)
		for i := range vals {
			vals[i] = float64(int(r.next()%12) - 3)
		}
	case dom == opspec.Indices:
		vals = indexValues(r, n, sample.Shapes[0], attrs)
	case special && isFloat(idt):
		vals = specials[:n]
	default:
		vals = values(r, n, idt, dom)
	}
	if dom == opspec.SPD {
		vals = spd(vals, shape)
	}
	return tensorOf(vals, idt, shape), name
}

// jitted runs call as a jitted function of its operands with opts.
func jitted(call caller, attrs map[string]any, ins []*emily.Tensor, nOut int, opts []emily.Option) ([]*emily.Tensor, error) {
	tt := reflect.TypeOf((*emily.Tensor)(nil))
	in := make([]reflect.Type, len(ins))
	for i := range in {
		in[i] = tt
	}
	out := make([]reflect.Type, nOut)
	for i := range out {
		out[i] = tt
	}
	ft := reflect.FuncOf(in, out, false)
	f := reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		ts := make([]*emily.Tensor, len(args))
		for i, a := range args {
			ts[i] = a.Interface().(*emily.Tensor)
		}
		res := call(ts, attrs)
		vs := make([]reflect.Value, len(res))
		for i, r := range res {
			vs[i] = reflect.ValueOf(r)
		}
		return vs
	})
	j, err := emily.Compile(f.Interface(), opts...)
	if err != nil {
		return nil, err
	}
	return j.Call(ins...)
}

func sameBits(a, b *emily.Tensor) bool {
	return a.DType() == b.DType() && reflect.DeepEqual(a.Shape(), b.Shape()) && string(a.Bytes()) == string(b.Bytes())
}

// withinULP compares two results of a float dtype within n units in the
// last place of that dtype (NaNs equal); other dtypes must be identical.
func withinULP(a, b *emily.Tensor, n float64) string {
	if a.DType() != b.DType() || !reflect.DeepEqual(a.Shape(), b.Shape()) {
		return fmt.Sprintf("type %s%v vs %s%v", a.DType(), a.Shape(), b.DType(), b.Shape())
	}
	eps := map[emily.DType]float64{emily.Float32: 0x1p-23, emily.Complex64: 0x1p-23, emily.Float16: 0x1p-10,
		emily.BFloat16: 0x1p-7, emily.Float64: 0x1p-52}[a.DType()]
	if eps == 0 {
		if string(a.Bytes()) != string(b.Bytes()) {
			return "values differ"
		}
		return ""
	}
	x, y := a.ToFloat64s(), b.ToFloat64s()
	for i := range x {
		if math.IsNaN(x[i]) && math.IsNaN(y[i]) || x[i] == y[i] {
			continue
		}
		scale := math.Max(math.Abs(x[i]), math.Abs(y[i]))
		if math.Abs(x[i]-y[i]) > n*eps*math.Max(scale, 1e-30) {
			return fmt.Sprintf("element %d: %v vs %v (more than %v ULP)", i, x[i], y[i], n)
		}
	}
	return ""
}

func preview(t *emily.Tensor) string {
	s := fmt.Sprint(t.ToFloat64s())
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return t.DType().String() + fmt.Sprint(t.Shape()) + " " + s
}

// Names lists the spec's op names, sorted (for -only usage messages).
func Names() []string {
	var out []string
	for _, op := range opspec.All() {
		out = append(out, op.Name)
	}
	sort.Strings(out)
	return out
}
