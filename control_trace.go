package emily

import "fmt"

// traceWhile records a While in tr's graph.
func traceWhile(tr *tracer, cond func([]*Tensor) *Tensor, body func([]*Tensor) []*Tensor, init []*Tensor) []*Tensor {
	panic(&Error{Op: "While", Err: fmt.Errorf("not yet traceable")})
}

// traceCond records a Cond in tr's graph.
func traceCond(tr *tracer, pred *Tensor, then, els func([]*Tensor) []*Tensor, args []*Tensor) []*Tensor {
	panic(&Error{Op: "Cond", Err: fmt.Errorf("not yet traceable")})
}
