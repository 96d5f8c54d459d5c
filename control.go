package emily

import (
	"fmt"
	"slices"

	"github.com/emily-go/emily/mlxbind"
)

// While and Cond are control flow on tensors: eagerly they are a Go loop
// and a Go if that read the predicate's value; inside a jitted function
// they are traced into one op each that carries its cond/body (or
// then/else) as sub-programs, so the compiled function keeps the loop and
// the branch (control_trace.go).

// While runs body on the loop state while cond(state) is true and returns
// the final state. cond must return one bool (a scalar, or any size-1
// bool tensor); body must return
// as many tensors as init, each of the same shape and dtype as its slot.
// cond and body may use tensors from outside (captured); inside a jitted
// function the loop is traced once and its trip count is decided at run
// time, from the data.
//
//	// Collatz: how many steps from 27 down to 1?
//	out := emily.While(
//		func(s []*emily.Tensor) *emily.Tensor { return emily.Greater(s[0], 1) },
//		func(s []*emily.Tensor) []*emily.Tensor {
//			odd := emily.Equal(emily.Remainder(s[0], 2), 1)
//			n := emily.Where(odd, emily.Add(emily.Mul(s[0], 3), 1), emily.FloorDivide(s[0], 2))
//			return []*emily.Tensor{n, emily.Add(s[1], 1)}
//		},
//		emily.ScalarOf(27, emily.Int32), emily.ScalarOf(0, emily.Int32))
//	// out[1] holds 111
//
// Eagerly, each iteration's temporaries and the previous state are
// released as soon as the next state is computed, so memory follows the
// state, not the trip count: a tensor made inside cond or body is only
// valid after the loop if it is part of the final state.
func While(cond func(state []*Tensor) *Tensor, body func(state []*Tensor) []*Tensor, init ...*Tensor) []*Tensor {
	if cond == nil || body == nil {
		panic(&Error{Op: "While", Err: fmt.Errorf("cond and body must be functions, got nil"),
			Hint: "pass func(state []*emily.Tensor) *emily.Tensor and func(state []*emily.Tensor) []*emily.Tensor"})
	}
	if len(init) == 0 {
		panic(&Error{Op: "While", Err: fmt.Errorf("the loop has no state"),
			Hint: "pass the initial state tensors after body: emily.While(cond, body, x, i)"})
	}
	for i, t := range init {
		if t == nil {
			panic(&Error{Op: "While", Err: fmt.Errorf("initial state slot %d is a nil tensor", i)})
		}
	}
	if tr := traceOf(init...); tr != nil {
		return traceWhile(tr, cond, body, init)
	}
	return eagerWhile(cond, body, init)
}

// Cond returns then(args) when pred is true and els(args) otherwise. pred
// must be one bool (a scalar, or any size-1 bool tensor); both branches
// must return the same number
// of tensors with the same shapes and dtypes (checked when traced: both
// are traced, but only the chosen one runs). Branches may use tensors from
// outside (captured) as well as args.
//
//	y := emily.Cond(emily.Greater(emily.Sum(x), 0),
//		func(a []*emily.Tensor) []*emily.Tensor { return []*emily.Tensor{emily.Sqrt(a[0])} },
//		func(a []*emily.Tensor) []*emily.Tensor { return []*emily.Tensor{emily.Neg(a[0])} },
//		x)[0]
func Cond(pred *Tensor, then, els func(args []*Tensor) []*Tensor, args ...*Tensor) []*Tensor {
	if then == nil || els == nil {
		panic(&Error{Op: "Cond", Err: fmt.Errorf("both branches must be functions, got nil"),
			Hint: "pass func(args []*emily.Tensor) []*emily.Tensor for then and for els"})
	}
	if pred == nil {
		panic(&Error{Op: "Cond", Err: fmt.Errorf("the predicate is a nil tensor")})
	}
	for i, t := range args {
		if t == nil {
			panic(&Error{Op: "Cond", Err: fmt.Errorf("argument %d is a nil tensor", i)})
		}
	}
	pred = checkPredicate("Cond", "the predicate", pred)
	if pred.node != nil {
		return traceCond(pred.tr, pred, then, els, args)
	}
	// A concrete predicate picks its branch now, also inside a trace: the
	// branch's ops (on symbolic args) are recorded inline, and the other
	// branch never runs.
	branch, name := els, "els"
	if readBool(pred) {
		branch, name = then, "then"
	}
	outs := branch(slices.Clone(args))
	checkBranch(name, outs)
	return outs
}

// ErrInterrupted is wrapped by the error of a While loop that Interrupt
// stopped.
var ErrInterrupted = mlxbind.ErrInterrupted

// Interrupt stops every While loop running now, eager or jitted, in any
// lane, at its next iteration, with an error wrapping ErrInterrupted;
// loops started later are not affected. The REPL and the Jupyter kernel
// call it when the user interrupts a cell: a jitted loop runs inside one
// call into the shim, which nothing else could stop. It also cancels the
// contexts of InterruptContext (Go-driven loops). Safe from any
// goroutine.
func Interrupt() {
	mlxbind.Interrupt()
	cancelInterruptContexts()
}

// traceOf returns the trace that ts belong to, or the trace running on
// this goroutine, or nil when the call is eager.
func traceOf(ts ...*Tensor) *tracer {
	for _, t := range ts {
		if t != nil && t.tr != nil {
			return t.tr
		}
	}
	return activeTrace()
}

// checkPredicate panics unless p is one bool, and returns it as a
// scalar: what decides a loop or a branch is one true/false value. A
// size-1 tensor of any rank (bool[1], bool[1 1]) is a truth value, as in
// NumPy and MLX Python; it is reshaped to a scalar, which also holds
// inside a trace (the reshape is traced).
func checkPredicate(op, what string, p *Tensor) *Tensor {
	if p == nil {
		panic(&Error{Op: op, Err: fmt.Errorf("%s is a nil tensor", what)})
	}
	if p.Size() != 1 {
		panic(&Error{Op: op, Shapes: []string{describe(p)},
			Err:  fmt.Errorf("%s is a %s tensor, not one value", what, describe(p)),
			Hint: "reduce it to one value: emily.All(x) or emily.Any(x) for a bool tensor, a comparison of emily.Sum/Max for a number"})
	}
	if p.DType() != Bool {
		panic(&Error{Op: op, Shapes: []string{describe(p)},
			Err:  fmt.Errorf("%s is %s, not bool", what, describe(p)),
			Hint: "compare it, e.g. emily.Greater(x, 0), or use emily.NotEqual(x, 0) for \"non-zero\""})
	}
	if p.Rank() != 0 {
		p = Reshape(p)
	}
	return p
}

// readBool evaluates a concrete scalar bool and returns its value.
func readBool(p *Tensor) bool { return p.ToBools()[0] }

// checkBranch panics when a branch returned nothing or a nil tensor.
func checkBranch(name string, outs []*Tensor) {
	if len(outs) == 0 {
		panic(&Error{Op: "Cond", Err: fmt.Errorf("the %s branch returned no tensors", name),
			Hint: "return at least one tensor from each branch"})
	}
	for i, t := range outs {
		if t == nil {
			panic(&Error{Op: "Cond", Err: fmt.Errorf("the %s branch returned a nil tensor as result %d", name, i)})
		}
	}
}

// checkState panics unless next has one tensor per slot of want, each of
// the slot's shape and dtype. iter names the iteration for eager errors
// (-1 when tracing, where the body runs once).
func checkState(want, next []*Tensor, iter int) {
	when := ""
	if iter >= 0 {
		when = fmt.Sprintf(" in iteration %d", iter)
	}
	if len(next) != len(want) {
		panic(&Error{Op: "While", Err: fmt.Errorf("the body returned %d tensors for %d state slots%s", len(next), len(want), when),
			Hint: "return every state tensor, in the order of init, even the ones the body does not change"})
	}
	for i, t := range next {
		if t == nil {
			panic(&Error{Op: "While", Err: fmt.Errorf("the body returned a nil tensor for state slot %d%s", i, when)})
		}
		if t.DType() != want[i].DType() || !slices.Equal(t.Shape(), want[i].Shape()) {
			hint := "keep each slot's shape fixed: start from the largest shape and update it in place (Where, a mask, a scatter), or carry a length in another slot"
			if t.DType() != want[i].DType() {
				hint = fmt.Sprintf("convert the new value back with Astype(emily.%s), or give init that dtype (a Go number or a mixed-dtype op promoted it)", dtypeName(want[i].DType()))
			}
			panic(&Error{Op: "While", Shapes: []string{describe(want[i]), describe(t)},
				Err: fmt.Errorf("the body changed state slot %d from %s to %s%s; the loop state keeps its shape and dtype across iterations",
					i, describe(want[i]), describe(t), when),
				Hint: hint})
		}
	}
}

// dtypeName is the Go constant for d ("Float32").
func dtypeName(d DType) string {
	s := d.String()
	switch s {
	case "bfloat16":
		return "BFloat16"
	case "complex64":
		return "Complex64"
	}
	if len(s) > 0 && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// eagerWhile is the Go loop. Each iteration runs in a Scope: the
// predicate, the body's temporaries and (once the next state exists) the
// previous state are released, and the next state is evaluated together
// with the predicate that reads it, so neither memory nor the lazy graph
// grows with the trip count.
func eagerWhile(cond func([]*Tensor) *Tensor, body func([]*Tensor) []*Tensor, init []*Tensor) []*Tensor {
	state := init
	// owned holds the state tensors the loop made (and so may release):
	// never init, nor a tensor from outside that the body returned.
	owned := map[*Tensor]bool{}
	seen := mlxbind.Interrupts()
	for iter := 0; ; iter++ {
		if mlxbind.Interrupts() != seen {
			panic(&Error{Op: "While", Err: fmt.Errorf("%w: the loop stopped after %d iterations", ErrInterrupted, iter)})
		}
		next, made, done := eagerStep(cond, body, state, init, iter)
		if done {
			return state
		}
		for _, t := range made {
			owned[t] = true
		}
		for _, t := range state {
			if owned[t] && !slices.Contains(next, t) {
				delete(owned, t)
				t.Free()
			}
		}
		state = next
	}
}

// eagerStep runs one iteration in its own scope: it returns done when the
// predicate is false, else the next state (kept out of the scope) and
// which of its tensors the iteration made.
func eagerStep(cond func([]*Tensor) *Tensor, body func([]*Tensor) []*Tensor, state, init []*Tensor, iter int) (next, made []*Tensor, done bool) {
	sc := NewScope()
	defer sc.Close()
	p := checkPredicate("While", fmt.Sprintf("the condition's result (iteration %d)", iter), cond(slices.Clone(state)))
	if err := evalTensors("While", append([]*Tensor{p}, state...)); err != nil {
		panic(err)
	}
	if !readBool(p) {
		return nil, nil, true
	}
	next = body(slices.Clone(state))
	checkState(init, next, iter)
	made = sc.madeHere(next)
	sc.Keep(next...)
	return next, made, false
}

// evalTensors evaluates concrete tensors together.
func evalTensors(op string, ts []*Tensor) error {
	arrays := make([]*mlxbind.Array, len(ts))
	for i, t := range ts {
		t.mustConcrete(op)
		arrays[i] = t.arr
	}
	if err := mlxbind.Eval(arrays...); err != nil {
		return newError(op, nil, err, nil)
	}
	return nil
}

// madeHere returns those of ts that were made inside s and not yet kept:
// While tells the state it made from tensors the body passed through.
func (s *Scope) madeHere(ts []*Tensor) []*Tensor {
	scopes.Lock()
	defer scopes.Unlock()
	var out []*Tensor
	for _, t := range ts {
		if t.scope == s && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
