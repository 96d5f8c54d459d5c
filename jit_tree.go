package emily

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/emily-go/emily/compiler"
	"github.com/emily-go/emily/ir"
	"github.com/emily-go/emily/mlxbind"
)

// Jit of functions over parameter trees (tree.go). The arguments are
// flattened into their leaves, which become the program's inputs; what
// the leaves do not say (the tree's types, slice lengths, map keys, nil
// fields, and the values of non-tensor fields such as a layer's head
// count or a Dropout's training flag, which the trace bakes in) is the
// call's static signature: a call whose static signature differs traces
// again, as one with new shapes does. Results are trees too, rebuilt
// from the program's outputs on the shape the trace returned.

// treeTemplates are the argument and result trees of one static
// signature, their leaves replaced by empty tensors so that no array of
// the call that traced is kept alive.
type treeTemplates struct {
	mu  sync.Mutex
	in  []reflect.Value
	out []reflect.Value
	// firstOut is the first result's leaf count once traced, else -1
	// (CallLeavesInPlace pairs it with the first argument's).
	firstOut int
}

// isFlatSignature reports whether every parameter and result is *Tensor
// (the original Jit form, which needs no trees).
func isFlatSignature(t reflect.Type) bool {
	for i := 0; i < t.NumIn(); i++ {
		if t.In(i) != tensorType {
			return false
		}
	}
	for i := 0; i < t.NumOut(); i++ {
		if t.Out(i) != tensorType {
			return false
		}
	}
	return true
}

// checkTreeSignature accepts a function of trees: parameters and results
// of types that can hold tensors. (A parameter that holds none, an int,
// is refused as before: static arguments belong in a tree's fields or in
// a closure.)
func checkTreeSignature(v reflect.Value) error {
	return checkFuncTypes(v, mayHoldTensors, "which holds no *emily.Tensor")
}

// compileTree is CompileNamed for a function of trees.
func compileTree(name string, v reflect.Value, opts []Option) (*Jitted, error) {
	j := &Jitted{name: name, fn: v, tree: true}
	cf, err := compiler.NewStatic(name, j.traceTree, opts...)
	if err != nil {
		return nil, &Error{Op: "Jit", Err: err}
	}
	j.cf = cf
	j.out = reflect.MakeFunc(v.Type(), j.callTree)
	nameMade(j.out.Interface(), name)
	return j, nil
}

// strip copies a tree with fresh empty tensors for leaves.
func strip(v reflect.Value) reflect.Value {
	if !v.IsValid() || !mayHoldTensors(v.Type()) {
		return v
	}
	if v.Interface() == nil {
		return v
	}
	leaves := TreeFlatten(v.Interface())
	fresh := make([]*Tensor, len(leaves))
	for i, l := range leaves {
		fresh[i] = &Tensor{frozen: l.frozen} // Freeze's marks are part of the signature
	}
	return asType(reflect.ValueOf(TreeUnflatten(v.Interface(), fresh)), v.Type())
}

// asType makes v a value of type t (nil or an interface's dynamic value
// back into t).
func asType(v reflect.Value, t reflect.Type) reflect.Value {
	if !v.IsValid() {
		return reflect.Zero(t)
	}
	if v.Type() == t {
		return v
	}
	n := reflect.New(t).Elem()
	n.Set(v)
	return n
}

// treeLeavesOf flattens one argument (nothing for a static value).
func treeLeavesOf(v reflect.Value) []*Tensor {
	if !v.IsValid() || !mayHoldTensors(v.Type()) {
		return nil
	}
	return TreeFlatten(v.Interface())
}

// rebuildFrom rebuilds template v with leaves, as a value of v's type.
func rebuildFrom(v reflect.Value, leaves []*Tensor) reflect.Value {
	if !v.IsValid() || !mayHoldTensors(v.Type()) {
		return v
	}
	x := v.Interface()
	if x == nil {
		return v
	}
	return asType(reflect.ValueOf(TreeUnflatten(x, leaves)), v.Type())
}

// callTree is the body of a jitted function of trees.
func (j *Jitted) callTree(args []reflect.Value) []reflect.Value {
	res, outT, inline, _ := j.callTreeLeaves(args, false)
	if inline != nil {
		return inline
	}
	results := make([]reflect.Value, len(outT))
	k := 0
	for i, o := range outT {
		n := len(treeLeavesOf(o))
		results[i] = rebuildFrom(o, res[k:k+n])
		k += n
	}
	return results
}

// CallLeaves calls a jitted function of trees on args, one value per
// parameter, and returns the leaves of its results in TreeFlatten order,
// result after result, without rebuilding the result trees: a caller that
// writes the leaves back into trees it owns (optim.TrainStep) saves the
// rebuild, which copies every struct, slice and map on the way to a leaf,
// and the walk that would flatten the copy again. It panics as the
// function that Func returns does.
func (j *Jitted) CallLeaves(args ...any) []*Tensor {
	res, _ := j.callLeaves("CallLeaves", false, args)
	return res
}

// CallLeavesInPlace is CallLeaves where the first result replaces the
// first argument in place, as MLX Python's mx.compile(..., inputs=state,
// outputs=state) updates its state: each leaf tensor of the first argument
// takes the value of the first result's leaf in the same place, and is
// itself returned as that leaf. Its old value is then held by nothing of
// Emily's while the call runs, so MLX can write the update into its
// buffer: a training step updates the model and the optimizer state
// without a second copy of them (optim.TrainStep). A graph built on an old
// value before the call still holds it and still sees it; the tensor
// itself shows the new value afterwards, as a PyTorch parameter does after
// optimizer.step(). The first result must have the first argument's tree
// shape, leaf for leaf in shape and dtype. inPlace reports whether it
// happened: the first call of a signature (which traces it), the evaluator
// lane, a call inside an outer trace, a first argument whose leaves
// repeat a tensor, and results whose leaves differ from the argument's in
// shape or dtype return new tensors as CallLeaves does, and the caller
// writes them back itself.
func (j *Jitted) CallLeavesInPlace(args ...any) (res []*Tensor, inPlace bool) {
	return j.callLeaves("CallLeavesInPlace", true, args)
}

func (j *Jitted) callLeaves(op string, inPlace bool, args []any) ([]*Tensor, bool) {
	t := j.fn.Type()
	if !j.tree || len(args) != t.NumIn() {
		panic(&Error{Op: "Jit", Err: fmt.Errorf("%s: %s takes the %d argument(s) of a function of trees, got %d", j.name, op, t.NumIn(), len(args)),
			Hint: "call the function that Func returns"})
	}
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		in[i] = asType(reflect.ValueOf(a), t.In(i))
	}
	res, _, inline, done := j.callTreeLeaves(in, inPlace)
	if inline != nil { // inside an outer trace: the body ran inline
		for _, r := range inline {
			res = append(res, treeLeavesOf(r)...)
		}
	}
	return res, done
}

// callTreeLeaves runs the program for args and returns the results'
// leaves and the result templates; inside an outer trace it runs the body
// inline and returns its results as inline instead.
// With inPlace the first result's leaves replace the first argument's
// where they can (CallLeavesInPlace); done says whether they did.
func (j *Jitted) callTreeLeaves(args []reflect.Value, inPlace bool) (res []*Tensor, outT []reflect.Value, inline []reflect.Value, done bool) {
	var flat []*Tensor
	nFirst := 0 // the first argument's leaves
	var sig strings.Builder
	// The last signature's length: the builder grows once, not a few
	// times a call.
	sig.Grow(int(j.sigLen.Load()))
	seen := signatureSeen.Get().(map[ptrKey]bool)
	defer func() {
		clear(seen)
		signatureSeen.Put(seen)
	}()
	for i, a := range args {
		ls := treeLeavesOf(a)
		for _, t := range ls {
			if t.node != nil {
				// Called while tracing an outer function: inline.
				return nil, nil, j.fn.Call(args), false
			}
		}
		flat = append(flat, ls...)
		if i == 0 {
			nFirst = len(ls)
		}
		writeInt(&sig, int64(i), 10)
		sig.WriteByte(':')
		clear(seen)
		writeSignature(&sig, a, seen)
		sig.WriteByte(';')
	}
	j.sigLen.Store(int64(sig.Len()))
	sum := sha256.Sum256([]byte(sig.String()))
	static := hex.EncodeToString(sum[:12])
	tmv, loaded := j.templates.Load(static)
	if !loaded {
		in := make([]reflect.Value, len(args))
		for i, a := range args {
			in[i] = strip(a)
		}
		tmv, _ = j.templates.LoadOrStore(static, &treeTemplates{in: in, firstOut: -1})
	}
	tm := tmv.(*treeTemplates)
	arrays, err := j.arrays(flat)
	if err != nil {
		panic(err)
	}
	var chosen *mlxbind.Stream
	if cs, ok := currentStream(); ok {
		chosen = &cs
	}
	n := 0
	if inPlace {
		// Only once a trace has shown the first result's tree: its leaves
		// must pair with the first argument's (the replay goes in place
		// only if the arrays are distinct and each pair's shape and dtype
		// match).
		tm.mu.Lock()
		traced := tm.firstOut
		tm.mu.Unlock()
		if traced == nFirst {
			n = nFirst
		}
	}
	outs, used, done, err := j.cf.CallStaticInPlace(chosen, static, arrays, n)
	if err != nil {
		var shapes []string
		for _, t := range flat {
			shapes = append(shapes, describe(t))
		}
		panic(&Error{Op: "Jit", Shapes: shapes, Err: err})
	}
	s := used
	if chosen == nil && j.cf.Options().Stream == nil {
		s, _ = mlxbind.DefaultStream(used.Device())
	}
	res = make([]*Tensor, len(outs))
	for i, o := range outs {
		if done && i < n { // the argument's own tensor, now the result
			res[i] = flat[i]
			res[i].stream = s
			continue
		}
		res[i] = &Tensor{arr: o, stream: s}
		if !slices.Contains(arrays, o) { // an input passed through is not new
			track(res[i])
		}
	}
	tm.mu.Lock()
	outT = tm.out
	tm.mu.Unlock()
	return res, outT, nil, done
}

// traceTree traces the function for one static signature: the symbolic
// inputs are put into the argument templates' leaves.
func (j *Jitted) traceTree(static string, g *ir.Graph, inputs []*ir.Node, s mlxbind.Stream) (outs []*ir.Node, err error) {
	tmv, ok := j.templates.Load(static)
	if !ok {
		return nil, fmt.Errorf("internal error: no argument template for signature %s", static)
	}
	tm := tmv.(*treeTemplates)
	tr := &tracer{g: g, stream: s}
	defer tr.done.Store(true)
	defer enterTrace(tr)()
	sym := make([]*Tensor, len(inputs))
	for i, n := range inputs {
		ph, perr := placeholder(s, n.Shape, n.DType)
		if perr != nil {
			return nil, perr
		}
		sym[i] = &Tensor{arr: ph, stream: s, node: n, tr: tr}
	}
	args := make([]reflect.Value, len(tm.in))
	k := 0
	for i, a := range tm.in {
		tl := treeLeavesOf(a)
		for m, l := range tl {
			sym[k+m].frozen = l.frozen
		}
		args[i] = rebuildFrom(a, sym[k:k+len(tl)])
		k += len(tl)
	}
	defer recoverError(&err)
	results := j.fn.Call(args)
	outT := make([]reflect.Value, len(results))
	for i, r := range results {
		for _, t := range treeLeavesOf(r) {
			if t.tr != nil && !t.tr.encloses(tr) {
				return nil, fmt.Errorf("result %d comes from another trace", i)
			}
			outs = append(outs, tr.nodeOf(t))
		}
		outT[i] = strip(r)
	}
	tm.mu.Lock()
	tm.out = outT
	if len(outT) > 0 {
		tm.firstOut = len(treeLeavesOf(outT[0]))
	}
	tm.mu.Unlock()
	return outs, nil
}

// signatureSeen pools writeSignature's sets of pointers seen, emptied
// between uses: one per argument on every call of a jitted function of
// trees.
var signatureSeen = sync.Pool{New: func() any { return map[ptrKey]bool{} }}

// writeSignature writes what of v the leaves do not say: types, lengths,
// keys, nil-ness, sharing, and non-tensor values.
func writeSignature(b *strings.Builder, v reflect.Value, seen map[ptrKey]bool) {
	if !v.IsValid() {
		b.WriteString("!")
		return
	}
	t := v.Type()
	writeInt(b, int64(typeID(t)), 10)
	switch v.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		writeInt(b, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		writeUint(b, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		writeUint(b, math.Float64bits(v.Float()), 16)
	case reflect.Complex64, reflect.Complex128:
		b.WriteString(fmt.Sprint(v.Complex()))
	case reflect.String:
		// Length, then the bytes: unambiguous, and no quoted copy.
		writeInt(b, int64(v.Len()), 10)
		b.WriteByte('"')
		b.WriteString(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if t == tensorType {
			// A leaf: its shape and dtype are the input's; whether it is
			// frozen changes what a gradient inside computes.
			if v.Interface().(*Tensor).frozen {
				b.WriteString("F")
			}
			return
		}
		pk := ptrKey{t, v.Pointer()}
		if seen[pk] {
			// Shared: which earlier pointer does not matter for the walk
			// (the first path names it), but that it is shared does.
			b.WriteString("&")
			return
		}
		seen[pk] = true
		writeSignature(b, v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		writeSignature(b, v.Elem(), seen)
	case reflect.Struct:
		b.WriteByte('{')
		// The walk's fields (exported, not tagged "-"), from its cache,
		// not each field's tag parsed again on every call.
		for _, f := range treeFields(t) {
			writeSignature(b, v.Field(f.index), seen)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteByte('[')
		writeInt(b, int64(v.Len()), 10)
		for i := 0; i < v.Len(); i++ {
			b.WriteByte(',')
			writeSignature(b, v.Index(i), seen)
		}
		b.WriteByte(']')
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteByte('{')
		for _, k := range sortedKeys(v) {
			writeSignature(b, k, seen)
			b.WriteByte(':')
			writeSignature(b, v.MapIndex(k), seen)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		// Which function or channel: a different one is other code.
		writeUint(b, uint64(v.Pointer()), 16)
	}
}

// writeInt and writeUint format into a stack buffer: the signature is
// written on every call, and strconv's Format functions allocate.
func writeInt(b *strings.Builder, x int64, base int) {
	var buf [24]byte
	b.Write(strconv.AppendInt(buf[:0], x, base))
}

func writeUint(b *strings.Builder, x uint64, base int) {
	var buf [24]byte
	b.Write(strconv.AppendUint(buf[:0], x, base))
}

var typeIDs struct {
	sync.Mutex
	ids  sync.Map // reflect.Type -> int: read without the lock, once per value of every call's signature
	next int
}

// typeID numbers types, so that two session types of one name (a type
// redeclared in a later cell) differ.
func typeID(t reflect.Type) int {
	if id, ok := typeIDs.ids.Load(t); ok {
		return id.(int)
	}
	typeIDs.Lock()
	defer typeIDs.Unlock()
	if id, ok := typeIDs.ids.Load(t); ok {
		return id.(int)
	}
	typeIDs.next++
	typeIDs.ids.Store(t, typeIDs.next)
	return typeIDs.next
}

// TreeVJP is VJP for a function of trees: primals holds one value per
// parameter of f (a tree or a *Tensor), cotangents one per result of f,
// each a tree of that result's shape. outputs are f's results and vjps
// one tree per primal, of its type, with nil for frozen or integer
// leaves (those are not differentiated).
func TreeVJP(f any, primals, cotangents []any) (outputs, vjps []any) {
	fv := reflect.ValueOf(f)
	if err := checkTreeSignature(fv); err != nil {
		panic(&Error{Op: "TreeVJP", Err: fmt.Errorf("%s: %w", funcName(fv), err),
			Hint: "pass a func whose parameters and results are *emily.Tensor or trees of them"})
	}
	ft := fv.Type()
	if len(primals) != ft.NumIn() || len(cotangents) != ft.NumOut() {
		panic(&Error{Op: "TreeVJP", Err: fmt.Errorf("f takes %d and returns %d value(s); got %d primal(s) and %d cotangent(s)",
			ft.NumIn(), ft.NumOut(), len(primals), len(cotangents))})
	}
	// The differentiated leaves are the primals' trainable float ones;
	// the rest go in as constants of the flat function.
	var diffT []*Tensor
	type slot struct {
		diff  bool
		fixed *Tensor
	}
	slots := make([][]slot, len(primals))
	for i, p := range primals {
		for _, l := range treeLeavesList(asType(reflect.ValueOf(p), ft.In(i))) {
			d := !l.Frozen && isInexact(l.Tensor.DType())
			slots[i] = append(slots[i], slot{d, l.Tensor})
			if d {
				diffT = append(diffT, l.Tensor)
			}
		}
	}
	var outT []reflect.Value
	in := make([]reflect.Type, len(diffT))
	for i := range in {
		in[i] = tensorType
	}
	var cts []*Tensor
	for i, c := range cotangents {
		cts = append(cts, treeLeavesOf(asType(reflect.ValueOf(c), ft.Out(i)))...)
	}
	out := make([]reflect.Type, len(cts))
	for i := range out {
		out[i] = tensorType
	}
	flat := reflect.MakeFunc(reflect.FuncOf(in, out, false), func(xs []reflect.Value) []reflect.Value {
		args := make([]reflect.Value, len(primals))
		k := 0
		for i, p := range primals {
			leaves := make([]*Tensor, len(slots[i]))
			for m, s := range slots[i] {
				if s.diff {
					leaves[m] = xs[k].Interface().(*Tensor)
					k++
				} else {
					leaves[m] = s.fixed
				}
			}
			args[i] = rebuildFrom(asType(reflect.ValueOf(p), ft.In(i)), leaves)
		}
		res := fv.Call(args)
		var flatOut []reflect.Value
		outT = make([]reflect.Value, len(res))
		for i, r := range res {
			for _, t := range treeLeavesOf(r) {
				flatOut = append(flatOut, reflect.ValueOf(t))
			}
			outT[i] = strip(r)
		}
		if len(flatOut) != len(out) {
			panic(&Error{Op: "TreeVJP", Err: fmt.Errorf("f's results have %d tensor(s) but the cotangents %d", len(flatOut), len(out)),
				Hint: "pass one cotangent tree per result, of the result's shape"})
		}
		return flatOut
	}).Interface()
	outs, vs := VJP(nameMade(flat, funcName(fv)), diffT, cts)
	k := 0
	for _, o := range outT {
		n := len(treeLeavesOf(o))
		outputs = append(outputs, rebuildFrom(o, outs[k:k+n]).Interface())
		k += n
	}
	k = 0
	for i, p := range primals {
		leaves := make([]*Tensor, len(slots[i]))
		for m, s := range slots[i] {
			if s.diff {
				leaves[m] = vs[k]
				k++
			}
		}
		vjps = append(vjps, rebuildFrom(asType(reflect.ValueOf(p), ft.In(i)), leaves).Interface())
	}
	return outputs, vjps
}
