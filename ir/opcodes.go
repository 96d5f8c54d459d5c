package ir

import "fmt"

// Op is an IR opcode. The numbering is the shim's (mlxbind/opcodes.h):
// TestOpcodeParity proves the two tables agree row by row.
type Op int

// The ops the IR can express, in opcodes.h order. Append, never reorder.
const (
	Add Op = iota
	Subtract
	Multiply
	Divide
	Maximum
	Minimum
	Power
	Negate
	Exp
	Log
	Tanh
	Sqrt
	Abs
	Sigmoid
	Sum
	Max
	Min
	Mean
	Matmul
	Reshape
	Transpose
	BroadcastTo
	Astype
	opCount
)

// Unbounded marks an op that takes any number of attributes.
const Unbounded = -1

// OpInfo describes an op's operands and integer attributes.
type OpInfo struct {
	Name     string
	Arity    int
	MinAttrs int
	MaxAttrs int // Unbounded: any number
}

var opTable = [opCount]OpInfo{
	Add:         {"add", 2, 0, 0},
	Subtract:    {"subtract", 2, 0, 0},
	Multiply:    {"multiply", 2, 0, 0},
	Divide:      {"divide", 2, 0, 0},
	Maximum:     {"maximum", 2, 0, 0},
	Minimum:     {"minimum", 2, 0, 0},
	Power:       {"power", 2, 0, 0},
	Negate:      {"negate", 1, 0, 0},
	Exp:         {"exp", 1, 0, 0},
	Log:         {"log", 1, 0, 0},
	Tanh:        {"tanh", 1, 0, 0},
	Sqrt:        {"sqrt", 1, 0, 0},
	Abs:         {"abs", 1, 0, 0},
	Sigmoid:     {"sigmoid", 1, 0, 0},
	Sum:         {"sum", 1, 1, Unbounded}, // [keepdims, axes...]
	Max:         {"max", 1, 1, Unbounded},
	Min:         {"min", 1, 1, Unbounded},
	Mean:        {"mean", 1, 1, Unbounded},
	Matmul:      {"matmul", 2, 0, 0},
	Reshape:     {"reshape", 1, 0, Unbounded},      // dims
	Transpose:   {"transpose", 1, 0, Unbounded},    // permutation
	BroadcastTo: {"broadcast_to", 1, 0, Unbounded}, // dims
	Astype:      {"astype", 1, 1, 1},               // [dtype code]
}

// OpCount is the number of opcodes.
const OpCount = int(opCount)

// Info returns the op's row of the table.
func (o Op) Info() OpInfo {
	if o < 0 || o >= opCount {
		return OpInfo{Name: fmt.Sprintf("op(%d)", int(o)), Arity: -1}
	}
	return opTable[o]
}

// String returns the op's name, e.g. "matmul".
func (o Op) String() string { return o.Info().Name }
