package ir

import (
	"fmt"
	"math"
	"strings"

	"github.com/emily-go/emily/mlxbind"
)

// Attrs is an op's attributes in the IR's wire form: int64 words, in the
// order of the op's attribute schema (see internal/opspec for the
// encodings). The generated Go API appends to it; the shim decodes it.
type Attrs []int64

// Int appends an int attribute.
func (a *Attrs) Int(v int) { *a = append(*a, int64(v)) }

// Ints appends a list of ints (also a Shape).
func (a *Attrs) Ints(vs []int) {
	*a = append(*a, int64(len(vs)))
	for _, v := range vs {
		*a = append(*a, int64(v))
	}
}

// Bool appends a bool attribute.
func (a *Attrs) Bool(v bool) {
	w := int64(0)
	if v {
		w = 1
	}
	*a = append(*a, w)
}

// Float appends a float attribute as its float64 bits.
func (a *Attrs) Float(v float64) { *a = append(*a, int64(math.Float64bits(v))) }

// DType appends a dtype attribute.
func (a *Attrs) DType(d mlxbind.DType) { *a = append(*a, int64(d)) }

// String appends a string attribute: its length, then its bytes packed 8
// to a word, little-endian.
func (a *Attrs) String(s string) {
	*a = append(*a, int64(len(s)))
	for i := 0; i < len(s); i += 8 {
		var w uint64
		for k := 0; k < 8 && i+k < len(s); k++ {
			w |= uint64(s[i+k]) << (8 * k)
		}
		*a = append(*a, int64(w))
	}
}

// Format renders attrs by the op's schema for listings:
// "axes=[1] keepdims=true". Malformed words render raw.
func (o Op) Format(words []int64) string {
	info := o.Info()
	var parts []string
	pc := 0
	next := func() (int64, bool) {
		if pc >= len(words) {
			return 0, false
		}
		pc++
		return words[pc-1], true
	}
	for _, at := range info.Attrs {
		w, ok := next()
		if !ok {
			return fmt.Sprint(words)
		}
		var v string
		switch at.Kind {
		case AttrInts, AttrShape:
			n := int(w)
			if n < 0 || pc+n > len(words) {
				return fmt.Sprint(words)
			}
			v = fmt.Sprint(words[pc : pc+n])
			pc += n
		case AttrBool:
			v = fmt.Sprint(w != 0)
		case AttrFloat:
			v = fmt.Sprint(math.Float64frombits(uint64(w)))
		case AttrDType:
			v = mlxbind.DType(w).String()
		case AttrEnum:
			if w >= 0 && int(w) < len(at.Enum) {
				v = at.Enum[w]
			} else {
				v = fmt.Sprint(w)
			}
		case AttrString:
			n := int(w)
			nw := (n + 7) / 8
			if n < 0 || pc+nw > len(words) {
				return fmt.Sprint(words)
			}
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(uint64(words[pc+i/8]) >> (8 * (i % 8)))
			}
			pc += nw
			v = fmt.Sprintf("%q", b)
		default:
			v = fmt.Sprint(w)
		}
		parts = append(parts, at.Name+"="+v)
	}
	return strings.Join(parts, " ")
}

// NumOutputs returns how many results the op gives with these attributes.
func (o Op) NumOutputs(words []int64) int {
	info := o.Info()
	if info.Outputs > 0 {
		return info.Outputs
	}
	pc := 0
	for i, at := range info.Attrs {
		if pc >= len(words) {
			return -1
		}
		if i == info.OutputsFrom {
			if at.Kind == AttrInts {
				return int(words[pc]) + 1
			}
			return int(words[pc])
		}
		switch at.Kind {
		case AttrInts, AttrShape:
			pc += 1 + int(words[pc])
		case AttrString:
			pc += 1 + (int(words[pc])+7)/8
		default:
			pc++
		}
	}
	return -1
}
