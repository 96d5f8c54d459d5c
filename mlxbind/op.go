package mlxbind

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import "runtime"

// Op applies opcode to inputs with attribute words on stream s, lazily:
// MLX computes the results' shapes and dtypes (and checks them) now and
// their values when evaluated. Eager ops, the evaluator lane and shape
// inference while tracing all come through here, to the same C++ op core
// the program replay uses.
func Op(s Stream, opcode int, inputs []*Array, attrs []int64) ([]*Array, error) {
	hs, err := handles(OpcodeName(opcode), inputs)
	if err != nil {
		return nil, err
	}
	first := firstHandle(hs)
	var few [4]C.emily_array
	outs := few[:]
	var n C.int
	var msg *C.char
	status := C.emily_op(&outs[0], C.int(len(outs)), &n, C.int(opcode), first, C.int(len(hs)),
		int64Ptr(attrs), C.int(len(attrs)), s.index, &msg)
	if status == 2 { // more results than room: the shim said how many
		outs = make([]C.emily_array, int(n))
		status = C.emily_op(&outs[0], C.int(len(outs)), &n, C.int(opcode), first, C.int(len(hs)),
			int64Ptr(attrs), C.int(len(attrs)), s.index, &msg)
	}
	runtime.KeepAlive(inputs)
	if err := takeError(status, msg, OpcodeName(opcode)); err != nil {
		return nil, err
	}
	result := make([]*Array, int(n))
	for i := range result {
		result[i] = newArray(outs[i])
	}
	return result, nil
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

// OpcodeInfo returns the shim's row for opcode: operand count (-1: a
// list), result count (0: given by attribute outputsFrom) and attribute
// count; arity is -2 for an unknown opcode.
func OpcodeInfo(opcode int) (arity, nOut, outputsFrom, nAttrs int) {
	var a, n, f, k C.int
	if C.emily_opcode_info(C.int(opcode), &a, &n, &f, &k) != 0 {
		return -2, 0, 0, 0
	}
	return int(a), int(n), int(f), int(k)
}

// OpcodeAttr returns the kind code of an op's i-th attribute and, for an
// enum, how many values it has.
func OpcodeAttr(opcode, i int) (kind, nEnum int) {
	var k, e C.int
	if C.emily_opcode_attr(C.int(opcode), C.int(i), &k, &e) != 0 {
		return -1, 0
	}
	return int(k), int(e)
}
