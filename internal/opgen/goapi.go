package main

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/emily-go/emily/internal/opspec"
)

var goTypes = map[opspec.AttrKind]string{
	opspec.Int: "int", opspec.Int64: "int", opspec.Ints: "[]int", opspec.Shape: "[]int", opspec.Bool: "bool",
	opspec.Float: "float64", opspec.DType: "DType", opspec.Enum: "string", opspec.String: "string",
	opspec.Group: "*Group",
}

// qualify writes a root-package type as another package sees it.
func qualify(op opspec.Op, t string) string {
	if op.Package == "" {
		return t
	}
	if q, ok := map[string]string{"*Tensor": "*emily.Tensor", "[]*Tensor": "[]*emily.Tensor", "DType": "emily.DType"}[t]; ok {
		return q
	}
	return t
}

// fn is one Go function to write: an op's main function or a variant.
type fn struct {
	op     opspec.Op
	name   string
	fixed  map[string]any
	doc    string
	public bool
}

func functions(op opspec.Op) []fn {
	main := fn{op: op, name: op.Name, fixed: op.Fixed, doc: op.Name + " " + op.Doc, public: !op.Manual}
	if op.Manual {
		main.name = "op" + op.Name
		main.doc = main.name + " is the generated core of " + op.Name + ": " + op.Doc
	}
	out := []fn{main}
	for _, v := range op.Variants {
		out = append(out, fn{op: op, name: v.Name, fixed: v.Fixed, doc: v.Name + " " + v.Doc, public: true})
	}
	return out
}

// params returns the Go parameter list and the operand expressions.
func (f fn) params() (params []string, operands string) {
	op := f.op
	switch {
	case op.Variadic:
		params = append(params, op.Inputs[0]+" "+qualify(op, "[]*Tensor"))
		operands = op.Inputs[0] + "..."
	case op.Weak:
		params = append(params, strings.Join(op.Inputs, ", ")+" any")
		operands = fmt.Sprintf("weak(%q, %s)...", f.name, strings.Join(op.Inputs, ", "))
	case len(op.Inputs) > 0:
		params = append(params, strings.Join(op.Inputs, ", ")+" "+qualify(op, "*Tensor"))
		operands = strings.Join(op.Inputs, ", ")
	}
	for _, a := range op.Attrs {
		if _, ok := f.fixed[a.Name]; ok {
			continue
		}
		t := qualify(op, goTypes[a.Kind])
		if a.Variadic {
			t = "..." + strings.TrimPrefix(t, "[]")
		}
		params = append(params, a.Name+" "+t)
	}
	return params, operands
}

func (f fn) results() string {
	t := qualify(f.op, "*Tensor")
	switch {
	case f.op.OutputsFrom != "":
		return "[]" + t
	case f.op.Outputs > 1:
		return "(" + strings.TrimSuffix(strings.Repeat(t+", ", f.op.Outputs), ", ") + ")"
	}
	return t
}

// goLiteral renders a fixed attribute value as Go.
func goLiteral(a opspec.Attr, v any) string {
	switch a.Kind {
	case opspec.DType:
		return "mustDType(" + fmt.Sprintf("%q", v) + ")"
	case opspec.Ints, opspec.Shape:
		return fmt.Sprintf("%#v", v)
	}
	return fmt.Sprintf("%#v", v)
}

func (f fn) body(b *bytes.Buffer) {
	op := f.op
	_, operands := f.params()
	b.WriteString("\tvar at ir.Attrs\n")
	for _, a := range op.Attrs {
		val := a.Name
		if v, ok := f.fixed[a.Name]; ok {
			val = goLiteral(a, v)
		}
		switch a.Kind {
		case opspec.Int, opspec.Int64:
			fmt.Fprintf(b, "\tat.Int(%s)\n", val)
		case opspec.Ints, opspec.Shape:
			fmt.Fprintf(b, "\tat.Ints(%s)\n", val)
		case opspec.Bool:
			fmt.Fprintf(b, "\tat.Bool(%s)\n", val)
		case opspec.Float:
			fmt.Fprintf(b, "\tat.Float(%s)\n", val)
		case opspec.DType:
			fmt.Fprintf(b, "\tat.DType(%s)\n", val)
		case opspec.Enum:
			fmt.Fprintf(b, "\tat.Int(enumIndex(%q, %q, %s, %#v))\n", f.name, a.Name, val, a.Enum)
		case opspec.String:
			fmt.Fprintf(b, "\tat.String(%s)\n", val)
		case opspec.Group:
			fmt.Fprintf(b, "\tat.Int(handle(%q, %s))\n", f.name, val)
		}
	}
	name := f.name
	if !f.public {
		name = op.Name // errors name the public op, not its generated core
	}
	args := fmt.Sprintf("%q, ir.%s, at", name, camel(op.IR))
	if operands != "" {
		args += ", " + operands
	}
	switch {
	case op.OutputsFrom != "":
		fmt.Fprintf(b, "\treturn applyMulti(%s)\n", args)
	case op.Outputs > 1:
		fmt.Fprintf(b, "\tr := applyMulti(%s)\n\treturn ", args)
		for i := 0; i < op.Outputs; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "r[%d]", i)
		}
		b.WriteString("\n")
	default:
		fmt.Fprintf(b, "\treturn apply(%s)\n", args)
	}
}

func goAPI(ops []opspec.Op) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage emily\n\nimport \"github.com/emily-go/emily/ir\"\n", header)
	names, titles := opspec.Families()
	for fi, fam := range names {
		fmt.Fprintf(&b, "\n// %s.\n", titles[fi])
		for _, op := range ops {
			if op.Family != fam || op.Package != "" {
				continue
			}
			for _, f := range functions(op) {
				params, _ := f.params()
				b.WriteString("\n")
				writeDoc(&b, f)
				fmt.Fprintf(&b, "func %s(%s) %s {\n", f.name, strings.Join(params, ", "), f.results())
				f.body(&b)
				b.WriteString("}\n")
				if op.Method && f.public && len(op.Inputs) > 0 && !op.Variadic {
					writeMethod(&b, f, params)
				}
			}
		}
	}
	b.WriteString("\n// hints say how to fix a bad call of each op.\nvar hints = map[string]string{\n")
	var keys []string
	hint := map[string]string{}
	for _, op := range ops {
		if op.Hint == "" {
			continue
		}
		for _, f := range functions(op) {
			name := f.name
			if !f.public {
				name = op.Name
			}
			keys = append(keys, name)
			hint[name] = op.Hint
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "\t%q: %q,\n", k, hint[k])
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func writeDoc(b *bytes.Buffer, f fn) {
	op := f.op
	doc := f.doc
	b.WriteString(wrapComment(doc))
	var notes []string
	if op.NumPy != "" {
		notes = append(notes, "NumPy: "+op.NumPy+".")
	}
	notes = append(notes, "MLX: "+op.MLX+".")
	if op.CPUOnly {
		notes = append(notes, "Runs on the CPU (MLX has no GPU kernel).")
	}
	if op.Weak {
		notes = append(notes, "Operands may be tensors or Go numbers (weakly typed, as in MLX).")
	}
	b.WriteString("//\n" + wrapComment(strings.Join(notes, " ")))
}

func wrapComment(s string) string {
	var b strings.Builder
	line := "//"
	for _, w := range strings.Fields(s) {
		if len(line)+1+len(w) > 76 && line != "//" {
			b.WriteString(line + "\n")
			line = "//"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
	return b.String()
}

func writeMethod(b *bytes.Buffer, f fn, params []string) {
	op := f.op
	rest := params[1:]
	if op.Weak {
		// a, b any → the receiver is a, the rest stay any.
		others := op.Inputs[1:]
		rest = nil
		if len(others) > 0 {
			rest = append(rest, strings.Join(others, ", ")+" any")
		}
		rest = append(rest, params[1:]...)
	} else if len(op.Inputs) > 1 {
		rest = append([]string{strings.Join(op.Inputs[1:], ", ") + " *Tensor"}, params[1:]...)
	}
	var args []string
	args = append(args, "t")
	for _, p := range rest {
		fields := strings.Fields(p)
		typ := fields[len(fields)-1]
		for _, name := range fields[:len(fields)-1] {
			name = strings.TrimSuffix(name, ",")
			if strings.HasPrefix(typ, "...") {
				name += "..."
			}
			args = append(args, name)
		}
	}
	fmt.Fprintf(b, "\n// %s is the method form of %s.\nfunc (t *Tensor) %s(%s) %s {\n\treturn %s(%s)\n}\n",
		f.name, f.name, f.name, strings.Join(rest, ", "), f.results(), f.name, strings.Join(args, ", "))
}

// pkgAPI writes the Go API of the ops declared for package pkg (the
// distributed family): the same functions as the root package's, calling
// the package's apply and applyMulti, which reach the root package's op
// application. Their hints stay in the root package's table, where errors
// are made.
func pkgAPI(ops []opspec.Op, pkg string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage %s\n\nimport (\n\t\"github.com/emily-go/emily\"\n\t\"github.com/emily-go/emily/ir\"\n)\n", header, pkg)
	b.WriteString("\nvar _ emily.DType // every op takes or returns emily types\n")
	for _, op := range ops {
		if op.Package != pkg {
			continue
		}
		for _, f := range functions(op) {
			params, _ := f.params()
			b.WriteString("\n")
			writeDoc(&b, f)
			fmt.Fprintf(&b, "func %s(%s) %s {\n", f.name, strings.Join(params, ", "), f.results())
			f.body(&b)
			b.WriteString("}\n")
		}
	}
	return b.Bytes()
}
