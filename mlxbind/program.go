package mlxbind

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// Operand reference kinds, packed into bits 48 and up of a ref; the result
// of a multi-result instruction goes in bits 32..47.
const (
	RefInput = 0
	RefConst = 1
	RefInstr = 2
	refShift = 48
	outShift = 32
)

// Ref packs an operand reference for program code: the index-th input,
// constant or instruction, and which of an instruction's results.
func Ref(kind, index, out int) int64 {
	return int64(kind)<<refShift | int64(out)<<outShift | int64(index)
}

// Program is a validated instruction list held by the shim. Constants are
// shared with it once at construction; each Run is a single cgo call.
type Program struct {
	h        C.emily_program
	freed    atomic.Bool
	nInputs  int
	nOutputs int
}

// NewProgram validates and stores a program. code holds, per instruction:
// opcode, result count, operand count, refs..., attribute word count,
// attribute words...
func NewProgram(nInputs int, consts []*Array, code []int64, outputs []int64) (*Program, error) {
	hs, err := handles("mlxbind.NewProgram const", consts)
	if err != nil {
		return nil, err
	}
	first := firstHandle(hs)
	var h C.emily_program
	var msg *C.char
	status := C.emily_program_new(&h, C.int(nInputs), first, C.int(len(hs)),
		int64Ptr(code), C.size_t(len(code)), int64Ptr(outputs), C.int(len(outputs)), &msg)
	runtime.KeepAlive(consts)
	if err := takeError(status, msg, "program"); err != nil {
		return nil, fmt.Errorf("mlxbind: invalid program: %w", err)
	}
	p := &Program{h: h, nInputs: nInputs, nOutputs: len(outputs)}
	runtime.SetFinalizer(p, (*Program).Free)
	return p, nil
}

// Free releases the program (and its fused forms in every thread's MLX
// compile cache). Safe to call more than once.
func (p *Program) Free() {
	if p.freed.CompareAndSwap(false, true) {
		C.emily_program_free(p.h)
		runtime.SetFinalizer(p, nil)
	}
}

// Run replays the program on inputs on stream s and evaluates its outputs,
// in one cgo call. With fuse, the replay runs under mlx::core::compile.
func (p *Program) Run(s Stream, inputs []*Array, fuse bool) ([]*Array, error) {
	return p.RunWith(s, inputs, fuse, false)
}

// RunWith is Run, and with async it queues the evaluation (MLX's
// async_eval) and returns at once: reading a result, or evaluating it,
// waits for it.
func (p *Program) RunWith(s Stream, inputs []*Array, fuse, async bool) ([]*Array, error) {
	return p.RunDonating(s, inputs, nil, fuse, async)
}

// RunDonating is RunWith, and the inputs marked in donate (nil: none) are
// consumed: the call frees them (on success or failure), once the graph
// that reads them is built, so MLX may reuse their buffers for the
// outputs (an updated KV cache takes the old cache's buffer instead of
// copying it). The caller must not use them afterwards.
func (p *Program) RunDonating(s Stream, inputs []*Array, donate []bool, fuse, async bool) ([]*Array, error) {
	outs, _, err := p.run(s, inputs, donate, fuse, async, 0)
	return outs, err
}

// RunInPlace is RunWith where the first inPlace outputs replace the first
// inPlace inputs: those input Arrays take the outputs' values and are the
// first inPlace results. The old values are then held only by the graph
// (and by any graph the caller built on them), so MLX can write the
// update into their buffers, as it does for MLX Python's
// mx.compile(..., inputs=state, outputs=state): no second copy of the
// state during the step. It happens only if the first inPlace inputs are
// distinct arrays that no later input repeats and every pair matches in
// shape and dtype; done reports whether it did (else every result is
// new, as from RunWith). donate is RunDonating's, for the inputs after the
// first inPlace.
func (p *Program) RunInPlace(s Stream, inputs []*Array, donate []bool, fuse, async bool, inPlace int) (result []*Array, done bool, err error) {
	return p.run(s, inputs, donate, fuse, async, inPlace)
}

func (p *Program) run(s Stream, inputs []*Array, donate []bool, fuse, async bool, inPlace int) (result []*Array, done bool, err error) {
	if p.freed.Load() {
		return nil, false, fmt.Errorf("mlxbind: program was freed")
	}
	h := p.h
	hs, err := handles("program input", inputs)
	if err != nil {
		return nil, false, err
	}
	var mask *C.uchar
	if len(donate) > 0 {
		if len(donate) != len(inputs) {
			return nil, false, fmt.Errorf("mlxbind: replay: %d donate flags for %d inputs", len(donate), len(inputs))
		}
		m := make([]C.uchar, len(donate))
		for i, d := range donate {
			if d {
				m[i] = 1
			}
		}
		mask = &m[0]
		defer func() {
			for i, d := range donate {
				// An input updated in place holds its result: not freed.
				if d && !(done && i < inPlace) {
					inputs[i].Free()
				}
			}
		}()
	}
	first := firstHandle(hs)
	outs := make([]C.emily_array, p.nOutputs)
	var msg *C.char
	f := C.int(0)
	if fuse {
		f |= C.EMILY_RUN_FUSE
	}
	if async {
		f |= C.EMILY_RUN_ASYNC
	}
	var active C.size_t
	if inPlace > 0 && !distinctHandles(hs, inPlace) {
		inPlace = 0 // an input updated in place must be no other input: a plain run
	}
	n := C.int(inPlace)
	status := C.emily_program_run(h, first, C.int(len(hs)), mask, &outs[0], s.index, f, &n, &active, &msg)
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(p)
	if err := takeError(status, msg, "program run"); err != nil {
		return nil, false, fmt.Errorf("mlxbind: replay: %w", err)
	}
	done = n > 0
	k := int(n)
	result = make([]*Array, len(outs))
	copy(result, inputs[:k])
	copy(result[k:], newArrays(outs[k:]))
	relieveMemoryPressure(uint64(active))
	return result, done, nil
}

// Apply builds the program's outputs on inputs on stream s lazily, without
// evaluating them (as eager ops do): the evaluator lane runs region
// instructions this way, eager autodiff runs its one-instruction program,
// and tracing applies it to placeholders to learn the results' types.
func (p *Program) Apply(s Stream, inputs []*Array) ([]*Array, error) {
	if p.freed.Load() {
		return nil, fmt.Errorf("mlxbind: program was freed")
	}
	hs, err := handles("program input", inputs)
	if err != nil {
		return nil, err
	}
	outs := make([]C.emily_array, p.nOutputs)
	var msg *C.char
	status := C.emily_program_apply(p.h, firstHandle(hs), C.int(len(hs)), &outs[0], s.index, &msg)
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(p)
	if err := takeError(status, msg, "program apply"); err != nil {
		return nil, err
	}
	return newArrays(outs), nil
}

// FusedTraces returns how many times mlx::core::compile has traced a fused
// replay in this process: once per program, stream, input signature and OS
// thread, never per call once compiled (tests count it).
func FusedTraces() int64 { return int64(C.emily_fused_traces()) }

// ProgramTimes is the time program runs have spent so far, summed over
// all calls: building their MLX graphs, and in MLX's eval (for an async
// run on a GPU, the host's part: ordering the graph and encoding its
// kernels, not the kernels themselves).
func ProgramTimes() (build, eval time.Duration) {
	var b, e C.int64_t
	C.emily_program_times(&b, &e)
	return time.Duration(b), time.Duration(e)
}

// ProgramCallTimes is, summed over all program runs so far, the time of
// the whole call into the shim (the MLX lock's wait included) and, of
// that, the part after MLX's eval (wrapping the results, reading the
// active memory, releasing the lock). With ProgramTimes it splits a
// replay's host time (bench/block.go's blockSteps).
func ProgramCallTimes() (call, afterEval time.Duration) {
	var c, a C.int64_t
	C.emily_program_call_times(&c, &a)
	return time.Duration(c), time.Duration(a)
}

// distinctHandles reports whether the first n handles are distinct and no
// later one repeats them.
func distinctHandles(hs []C.emily_array, n int) bool {
	seen := make(map[C.emily_array]bool, n)
	for i, h := range hs {
		if seen[h] {
			return false
		}
		if i < n {
			seen[h] = true
		}
	}
	return true
}
