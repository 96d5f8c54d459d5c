package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/emily-go/emily/internal/opspec"
)

// opsDoc writes OPS.md: every op with its Go forms, NumPy and MLX names,
// dtypes, gradient, and whether the IR lowers it.
func opsDoc(ops []opspec.Op) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!-- %s -->\n\n# Ops\n\n", header)
	nFns := 0
	for _, op := range ops {
		nFns += len(functions(op))
	}
	fmt.Fprintf(&b, "%d ops (%d Go functions), each one row of `internal/opspec`; every one is\n", len(ops), nFns)
	b.WriteString("checked against NumPy (or, for random ops, by its properties) in every jit lane by\n")
	b.WriteString("`tests/test_ops_numpy.py` (`make test`). \"IR\" is the opcode the jit lowers it to:\n")
	b.WriteString("every op here lowers, so it runs in the native and fuse lanes as well as eagerly.\n")
	b.WriteString("Go numbers are accepted where the Go form says `any` and are weakly typed (see\n")
	b.WriteString("Promotion below).\n\n")
	b.WriteString("\"grad\" says whether `Grad` differentiates the op: the derivative is MLX's own,\n")
	b.WriteString("checked against central finite differences in float64 on the CPU (\"yes, float32\":\n")
	b.WriteString("the op has no float64, so float32) by `TestGradients` in `internal/opcheck`. Where\n")
	b.WriteString("MLX gives no gradient that the math has, the notes say why, and the same test\n")
	b.WriteString("checks that MLX still refuses.\n")
	b.WriteString(edgeDoc)
	names, titles := opspec.Families()
	for fi, fam := range names {
		fmt.Fprintf(&b, "\n## %s\n\n| Go | IR | NumPy | MLX | dtypes | grad | notes |\n| --- | --- | --- | --- | --- | --- | --- |\n", titles[fi])
		for _, op := range ops {
			if op.Family != fam {
				continue
			}
			var forms []string
			for _, f := range functions(op) {
				name := f.name
				if !f.public {
					name = op.Name
				}
				forms = append(forms, "`"+name+"`")
			}
			var notes []string
			for _, a := range op.Attrs {
				if a.Min != nil {
					notes = append(notes, fmt.Sprintf("%s ≥ %d", a.Name, *a.Min))
				}
			}
			for _, ne := range op.NonEmpty {
				notes = append(notes, fmt.Sprintf("%s: %s non-empty", ne.Operand, ne.What))
			}
			if strings.HasPrefix(op.Cpp, "int_") {
				notes = append(notes, "integers: NumPy's results for 0 and INT_MIN / -1")
			}
			if op.CPUOnly {
				notes = append(notes, "CPU stream (no MLX GPU kernel)")
			}
			if op.Tol64 > 0 {
				notes = append(notes, fmt.Sprintf("float64 at float32 precision on MLX's CPU (checked to %g)", op.Tol64))
			}
			if op.TolHalf > 0 {
				notes = append(notes, fmt.Sprintf("float16 and bfloat16 summed in that precision on MLX's CPU (checked to %g× the usual tolerance)", op.TolHalf))
			}
			if op.Method {
				notes = append(notes, "method")
			}
			if op.NoNumPy != "" {
				notes = append(notes, op.NoNumPy)
			}
			grad := "no"
			if op.Grad {
				grad = "yes"
				if !slices.Contains(op.DTypes, "float64") {
					grad = "yes, float32"
				}
				if len(op.NoGradOperands) > 0 {
					grad += ", not " + strings.Join(op.NoGradOperands, ", ")
				}
			}
			if op.NoGrad != "" {
				notes = append(notes, "no gradient: "+op.NoGrad)
			}
			numpy := op.NumPy
			if numpy == "" {
				numpy = "–"
			}
			fmt.Fprintf(&b, "| %s | `%s` | `%s` | `%s` | %s | %s | %s |\n", strings.Join(forms, " "), op.IR,
				strings.ReplaceAll(numpy, "|", "\\|"), op.MLX, dtypeSummary(op.DTypes), grad, strings.Join(notes, "; "))
		}
	}
	b.WriteString(promotionDoc)
	return b.Bytes()
}

// edgeDoc is OPS.md's account of the inputs that used to end the process
// (issue 19), and what each gives now.
const edgeDoc = `
## Edge inputs

No op input ends the process: each case below was a native fault (SIGFPE or
a hang in MLX) and is now a NumPy result or an ` + "`*emily.Error`" + `, the same in
every lane, because the checks are generated into the one C++ core that the
eager call, the evaluator, the native replay and the fuse trace share.
` + "`internal/opcheck`'s `TestEdgeValuesNeverEndTheProcess`" + ` feeds every op zeros,
the minimum integer over -1, NaN and ±Inf, the largest value, empty operands,
and zero, negative and huge attributes, in child processes, so that a fault
is reported with its case (` + "`-edge.full`" + `: every dtype, sample and lane).

| input | result |
| --- | --- |
| integer ` + "`FloorDivide`, `Remainder`, `DivMod`" + ` by 0 | 0 (NumPy's result; NumPy also warns) |
| integer minimum ` + "`// -1`" + ` | the minimum itself (two's complement wrap, as NumPy); ` + "`% -1`" + ` is 0 |
| an empty matrix (a 0 in the last two axes) in a decomposition (` + "`Inv`, `Solve`, `TriInv`, `Cholesky`, `QR`, `SVD`, `Det`" + `, …) | an error: MLX's LAPACK path divides by the size; NumPy returns empty results, so skip the call for empty inputs |
| a convolution or attention with empty channels, kernel, heads or head dimension; ` + "`Trace`" + ` of an empty x | an error naming the operand and axis |
| ` + "`Scatter…`, `PutAlongAxis`" + ` into an empty x or with empty updates | x unchanged |
| ` + "`groups`, `stride`, `dilation`, `kernel`" + ` below 1, ` + "`padding`" + ` below 0 | an error naming the attribute (the notes below list each op's bounds) |
| an attribute asking for more than 65,536 results (` + "`Split(x, 2^31-1, 0)`" + `) | an error |
| a result larger than the memory limit (` + "`FFTWith(x, 2^31-1, 0)`" + `, a huge pad) | an error before anything is evaluated |
| an axis out of range | MLX's own error |
`

func dtypeSummary(ds opspec.DTypeSet) string {
	set := map[string]bool{}
	for _, d := range ds {
		set[d] = true
	}
	has := func(group opspec.DTypeSet) bool {
		for _, d := range group {
			if !set[d] {
				return false
			}
		}
		return true
	}
	var parts []string
	left := map[string]bool{}
	for k := range set {
		left[k] = true
	}
	take := func(name string, group opspec.DTypeSet) {
		if has(group) {
			parts = append(parts, name)
			for _, d := range group {
				delete(left, d)
			}
		}
	}
	take("bool", opspec.Bools)
	take("ints", opspec.Integers)
	take("floats", opspec.Floats)
	for _, d := range ds {
		if left[d] {
			parts = append(parts, d)
		}
	}
	return strings.Join(parts, ", ")
}

const promotionDoc = `
## Promotion

One table, MLX's, applies everywhere (eager, traced, every lane): the
result of an op on two tensors has the smallest dtype that holds both
operands' values in this lattice (MLX's ` + "`promote_types`" + `):

- bool < every other type;
- unsigned and signed integers of the same width promote to the next
  wider signed type (uint8+int8 → int16, uint32+int32 → int64,
  uint64+int64 → float32, as MLX does);
- any integer with any float gives that float (int64 + float16 →
  float16: MLX keeps the float's width, NumPy would give float64);
- float16 + bfloat16 → float32; any float with float64 → float64;
- anything with complex64 → complex64.

Go numbers are weakly typed, as Python scalars are in MLX: a Go integer
takes the other operand's dtype (int32 tensor + 2 → int32; float16
tensor + 2 → float16); a Go float takes the other operand's dtype when
that is a float or complex type, and float32 otherwise (int32 tensor *
0.5 → float32); a Go bool is bool. A Go integer that the other operand's
integer dtype cannot hold (uint8 tensor + 300) is an error, as in MLX, not
a wrapped value; int64 and uint64 operands wrap. With no tensor operand at
all, an integer is int32 (int64 when int32 cannot hold it) and a float
float32.

Division (` + "`Div`" + `) of integers gives float32, as ` + "`mx.divide`" + `
does; ` + "`FloorDivide`" + ` keeps integers.
`

// checkTable writes the per-op test table: for every Go function, a
// closure that calls it the way a user would, from sample operands and
// attribute values.
func checkTable(ops []opspec.Op) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage opcheck\n\nimport (\n\t\"github.com/emily-go/emily\"\n\t\"github.com/emily-go/emily/distributed\"\n)\n\n", header)
	b.WriteString("var _ = distributed.World // the distributed family's ops are called through it\n\n")
	b.WriteString("// generated maps each public Go function of the spec to a call of it.\n")
	b.WriteString("var generated = map[string]caller{\n")
	for _, op := range ops {
		for _, f := range functions(op) {
			if !f.public {
				continue
			}
			var args []string
			switch {
			case op.Variadic:
				args = append(args, "in")
			default:
				for i := range op.Inputs {
					args = append(args, fmt.Sprintf("in[%d]", i))
				}
			}
			for _, a := range op.Attrs {
				if _, ok := f.fixed[a.Name]; ok {
					continue
				}
				conv := map[opspec.AttrKind]string{
					opspec.Int: "intAttr", opspec.Int64: "intAttr", opspec.Ints: "intsAttr", opspec.Shape: "intsAttr",
					opspec.Bool: "boolAttr", opspec.Float: "floatAttr", opspec.DType: "dtypeAttr",
					opspec.Enum: "stringAttr", opspec.String: "stringAttr", opspec.Group: "groupAttr",
				}[a.Kind]
				arg := fmt.Sprintf("%s(at, %q)", conv, a.Name)
				if a.Variadic {
					arg += "..."
				}
				args = append(args, arg)
			}
			pkg := "emily"
			if op.Package != "" {
				pkg = op.Package
			}
			call := fmt.Sprintf("%s.%s(%s)", pkg, f.name, strings.Join(args, ", "))
			switch {
			case op.OutputsFrom != "":
				// already a slice
			case op.Outputs > 1:
				vars := make([]string, op.Outputs)
				for i := range vars {
					vars[i] = fmt.Sprintf("r%d", i)
				}
				call = fmt.Sprintf("func() []*emily.Tensor { %s := %s; return []*emily.Tensor{%s} }()",
					strings.Join(vars, ", "), call, strings.Join(vars, ", "))
			default:
				call = "[]*emily.Tensor{" + call + "}"
			}
			fmt.Fprintf(&b, "\t%q: func(in []*emily.Tensor, at map[string]any) []*emily.Tensor { return %s },\n", f.name, call)
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}
