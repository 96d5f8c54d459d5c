package mlxbind

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import "runtime"

// Op applies opcode to inputs with integer attributes on stream s, lazily:
// MLX computes the result's shape and dtype (and checks them) now and its
// values when evaluated. Eager ops, the evaluator lane and shape inference
// while tracing all come through here, to the same C++ op core the program
// replay uses.
func Op(s Stream, opcode int, inputs []*Array, attrs []int64) (*Array, error) {
	hs, err := handles(OpcodeName(opcode), inputs)
	if err != nil {
		return nil, err
	}
	first := firstHandle(hs)
	var h C.emily_array
	var msg *C.char
	status := C.emily_op(&h, C.int(opcode), first, C.int(len(hs)), int64Ptr(attrs),
		C.int(len(attrs)), s.index, &msg)
	runtime.KeepAlive(inputs)
	if err := takeError(status, msg, OpcodeName(opcode)); err != nil {
		return nil, err
	}
	return newArray(h), nil
}

// OpcodeCount returns the number of opcodes the shim knows.
func OpcodeCount() int { return int(C.emily_opcode_count()) }

// OpcodeName returns the shim's name for opcode ("" if unknown).
func OpcodeName(opcode int) string {
	p := C.emily_opcode_name(C.int(opcode))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// OpcodeSignature returns the operand count and attribute count range the
// shim accepts for opcode; maxAttrs is -1 when unbounded.
func OpcodeSignature(opcode int) (arity, minAttrs, maxAttrs int) {
	var lo, hi C.int
	C.emily_opcode_attr_range(C.int(opcode), &lo, &hi)
	return int(C.emily_opcode_arity(C.int(opcode))), int(lo), int(hi)
}
