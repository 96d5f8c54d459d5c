// Package opspec is the one place an op is declared (DESIGN.md decision
// 7). Every op is one row of typed data: its Go name, its MLX expression,
// its operands and typed attributes, its output count, dtypes, gradient,
// NumPy equivalent, doc and sample shapes. `make generate` (internal/opgen)
// writes from these rows the Go API (ops_gen.go), the IR opcode and
// attribute schema (ir/opcodes_gen.go), the C++ dispatch with typed
// attribute decoding (mlxbind/ops_gen.cc, opcodes_gen.h), OPS.md and the
// per-op test table (internal/opcheck/table_gen.go).
//
// Adding an ordinary op is one row in the family file it belongs to. Only
// when MLX has no single function for it does it also need a C++ core in
// the shim's family file, which the row's Cpp expression then calls.
package opspec

// AttrKind is the type of an attribute: how the Go API takes it, how it is
// encoded into the IR's int64 words, and how the C++ side decodes it.
type AttrKind int

// Attribute kinds. Encodings (ir.Attrs writes them, the shim reads them):
// Int, Bool, DType, Enum: one word; Int64: one word, no int32 range check;
// Float: one word holding float64 bits; Ints, Shape: a length word, then
// one word each; String: a length word, then the bytes packed 8 per word.
const (
	Int    AttrKind = iota // Go int, C++ int (checked to fit int32)
	Int64                  // Go int, C++ int64_t (seeds, large counts)
	Ints                   // Go []int (or ...int), C++ std::vector<int>
	Shape                  // Go []int (or ...int), C++ mx::Shape; every entry >= 0 except one -1 where Reshape allows it
	Bool                   // Go bool, C++ bool
	Float                  // Go float64, C++ double
	DType                  // Go emily.DType, C++ mx::Dtype
	Enum                   // Go string from Attr.Enum, C++ int (its index)
	String                 // Go string, C++ std::string
	// Group is a distributed group: Go *distributed.Group (nil: the
	// world), encoded as one word, the shim's group handle, and decoded
	// as that handle (the distributed family's cores look it up).
	Group
)

var kindNames = [...]string{"int", "int64", "ints", "shape", "bool", "float", "dtype", "enum", "string", "group"}

func (k AttrKind) String() string { return kindNames[k] }

// Attr is one typed attribute of an op.
type Attr struct {
	Name     string
	Kind     AttrKind
	Enum     []string // Enum: the allowed values, in code order
	Variadic bool     // the Go parameter is ...int (it must be the last)
	// Min, when set, is the smallest value the attribute (Int, Int64) or
	// each of its entries (Ints) may take. The generated core checks it
	// before MLX sees it, in every lane: groups=0 and stride=0 were
	// SIGFPE in MLX's convolution (issue 19).
	Min *int
}

// atLeast returns a copy of a with a minimum value.
func atLeast(a Attr, min int) Attr {
	a.Min = &min
	return a
}

// NonEmpty names an operand's axes that must not have size 0: MLX's
// LAPACK calls and convolutions divide by them (SIGFPE, issue 19).
type NonEmpty struct {
	Operand string
	Axes    []int  // negative counts from the end; none: every axis
	What    string // what the axes are, for the error: "the matrix"
}

// Domain says which input values an op is tested on.
type Domain int

// Input domains for the differential tests.
const (
	AnyValue    Domain = iota // any finite value in [-4, 4]
	Positive                  // (0.1, 4]
	Unit                      // (-0.95, 0.95): arcsin, arctanh, erfinv
	NonZero                   // [-4, 4] without values near 0
	Small                     // [-2, 2]: exp and friends stay finite in float16
	AtLeastOne                // [1, 4]: arccosh
	Indices                   // valid indices for the op's axis (Take, gather)
	SPD                       // symmetric positive definite matrices
	Probability               // [0, 1]
	Keys                      // a random key: Key(seed)
	// Bits: uniformly random 32-bit words (packed quantized codes: every
	// bit pattern is a valid code word).
	Bits
	// BatchOfFirst, BatchOfSecond: valid indices (0 ≤ i < B) into the
	// batch of matrices of the first or second operand, its axes but the
	// last two flattened (GatherQMM's lhsIndices and rhsIndices).
	BatchOfFirst
	BatchOfSecond
	// Position: small integers from -3 to 8 (a RoPE position offset, a
	// dynamic slice's start), in range and out of it: the dynamic slices
	// clamp their starts, and the NumPy references say how.
	Position
)

// DTypeSet lists the dtypes an op supports, by name ("float32", ...).
type DTypeSet []string

// Common dtype sets. MLX's GPU has no float64: ops with float64 in their
// set are tested with it on the CPU only.
var (
	Floats   = DTypeSet{"float32", "float16", "bfloat16", "float64"}
	Integers = DTypeSet{"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
	Numeric  = append(append(DTypeSet{}, Integers...), Floats...)
	AllTypes = append(DTypeSet{"bool"}, Numeric...)
	Bools    = DTypeSet{"bool"}
	Integral = append(DTypeSet{"bool"}, Integers...)
)

// Sample is one test case: a shape per tensor operand and attribute values
// by name (int, []int, bool, float64, string for Enum and String, and a
// dtype name for DType).
type Sample struct {
	Shapes [][]int
	Attrs  map[string]any
	// Exact: the shapes hold only with these attribute values (a grouped
	// convolution's weight), so functions that fix one of them to another
	// value (Conv2d's groups=1) skip the sample; their With variant runs it.
	Exact bool
}

// Variant is a second Go function for the same op with some attributes
// fixed, e.g. SumKeepDims (keepdims=true).
type Variant struct {
	Name  string
	Fixed map[string]any
	Doc   string
}

// Op is one row of the spec.
type Op struct {
	Name   string // Go name: "Add". Also the test and OPS.md name.
	IR     string // IR/shim name, MLX's spelling: "add" (default: snake case of Name)
	Family string // the shim file and OPS.md section: "binary", "reduce", ...
	// Package is the Go package the op's API is written into, "" for the
	// root package; "distributed" for the collectives (their group type
	// lives there). It comes from the family.
	Package string
	Inputs  []string // tensor operand names, in order
	// Weak operands are typed any in Go: a *Tensor or a Go number, which
	// is weakly typed as in MLX (an int stays with an int tensor's dtype, a
	// float promotes an integer tensor to float32).
	Weak        bool
	Variadic    bool // one operand that is a list ([]*Tensor): Concatenate, Stack
	Attrs       []Attr
	Fixed       map[string]any // attributes the main Go function fixes (not parameters)
	Variants    []Variant
	Outputs     int    // results; 0 means 1. More than 1: Go returns that many *Tensor
	OutputsFrom string // an attribute that gives the result count (Int: its value; Ints: its length + 1); Go returns []*Tensor
	// Cpp is the C++ expression that makes the result(s), over the operand
	// and attribute names and s (the stream). It may return an mx::array, a
	// std::vector, a std::pair or a std::tuple of arrays.
	Cpp    string
	MLX    string // MLX's name, for OPS.md: "mx.add"
	NumPy  string // the NumPy expression the tests compare against, over the same names ("" if none)
	DTypes DTypeSet
	Grad   bool // MLX has a gradient for it (checked against finite differences: internal/opcheck/gradcheck.go)
	// NoGrad says why MLX gives no gradient where the math has one
	// (OPS.md prints it): for an op without Grad, or for the operands of a
	// Grad op listed in NoGradOperands. The gradient check confirms that
	// MLX still refuses, so a new MLX that learns it is noticed.
	NoGrad         string
	NoGradOperands []string
	CPUOnly        bool   // MLX runs it on the CPU stream only (no GPU kernel)
	Method         bool   // also a method on *Tensor (the first operand is the receiver)
	Manual         bool   // the public Go API is hand-written: the generator writes an unexported opName instead
	NoTrace        bool   // value-dependent result shape: works eagerly, cannot be jitted (said in OPS.md)
	Doc            string // completes "// Name ..." in the Go doc comment
	Hint           string // how to fix a bad call (the family's hint when empty)
	Domain         Domain
	// OperandDTypes fixes the dtype of some operands whatever dtype the
	// test runs (Where's cond is bool, Take's indices int32, a random
	// key uint32); OperandDomains gives them their own input values.
	OperandDTypes  map[string]string
	OperandDomains map[string]Domain
	Tol            float64 // relative tolerance against NumPy for float32 (0: the default)
	// Tol64 is the float64 relative tolerance of an op that MLX's CPU
	// backend computes at float32 precision (Exp: its SIMD exp); OPS.md
	// says so. 0: float64 is checked to 1e-12.
	Tol64 float64
	// TolHalf multiplies the float16 and bfloat16 tolerances of an op that
	// MLX's CPU kernels accumulate in the input's own half precision
	// (QuantizedMatmul sums K products in float16); OPS.md says so.
	TolHalf float64
	Samples []Sample // test cases (the family's defaults when empty)
	NoNumPy string   // why there is no NumPy comparison (random ops check properties instead)
	// NonEmpty lists the operand axes whose size must not be 0; the
	// generated core checks them before MLX sees the operands, and OPS.md
	// lists them.
	NonEmpty []NonEmpty
	// MultiRank says why the op cannot run in a one-process world (Send
	// and Recv need a peer): the single-process op check leaves it out,
	// and the distributed package's tests check it on two ranks.
	MultiRank string
}

// noGrad marks op as having no gradient in MLX, saying why.
func noGrad(op Op, why string) Op {
	op.Grad = false
	op.NoGrad = why
	return op
}
