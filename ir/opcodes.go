package ir

import "fmt"

// Op is an IR opcode. The numbering is generated from internal/opspec
// into opcodes_gen.go here and mlxbind/opcodes.h in the shim:
// TestOpcodeParity proves the two tables agree row by row. Nothing
// persists opcode numbers, so rows may be added anywhere in the spec.
type Op int

// Variadic marks an op whose operands are one list of any length >= 1.
const Variadic = -1

// AttrKind is the type of an op attribute; see internal/opspec for the
// encodings. The values are the spec's.
type AttrKind int

// Attribute kinds, as in internal/opspec.
const (
	AttrInt AttrKind = iota
	AttrInt64
	AttrInts
	AttrShape
	AttrBool
	AttrFloat
	AttrDType
	AttrEnum
	AttrString
)

// AttrInfo names and types one attribute.
type AttrInfo struct {
	Name string
	Kind AttrKind
	Enum []string // AttrEnum: the values, in code order
}

// OpInfo describes an op: its operands, results and attributes.
type OpInfo struct {
	Name    string
	Arity   int // operands; Variadic: a list of any length >= 1
	Outputs int // results; 0: given by the attribute OutputsFrom
	// OutputsFrom is the index of the attribute that gives the result
	// count when Outputs is 0: an Int's value, or an Ints' length + 1.
	OutputsFrom int
	Attrs       []AttrInfo
}

// OpCount is the number of opcodes.
const OpCount = int(opCount)

// Info returns the op's row of the table.
func (o Op) Info() OpInfo {
	if o < 0 || o >= opCount {
		return OpInfo{Name: fmt.Sprintf("op(%d)", int(o)), Arity: -2}
	}
	return opTable[o]
}

// String returns the op's name, e.g. "matmul".
func (o Op) String() string { return o.Info().Name }
