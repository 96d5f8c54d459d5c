// Package fileformat parses and validates the headers of the tensor file
// formats before anything is allocated for their data (issue 19): NumPy's
// .npy (and so the members of .npz) and safetensors. It is pure Go, so
// its fuzz targets run without MLX. A parsed header says where each
// tensor's bytes are, their dtype, shape and byte order; the shim then
// reads exactly those spans (mlxbind.LoadSpans). MLX's own parsers are not
// used: its .npy reader takes the dtype and the Fortran flag from fixed
// character offsets of the header, and its safetensors reader accepted
// negative shapes, truncated dimensions and wrapping offsets.
package fileformat

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// Span is one tensor's data in a file: Bytes bytes at Offset, of DType
// (an emily dtype name) and Shape, little-endian unless Swap, in C order
// unless Fortran.
type Span struct {
	Name    string
	DType   string
	Shape   []int
	Offset  int64
	Bytes   int64
	Swap    bool // the data is big-endian
	Fortran bool // the data is in Fortran (column-major) order
}

// MaxDim is the largest dimension MLX takes (its dimensions are int32).
const MaxDim = math.MaxInt32

// npyKinds maps a .npy descr (without its byte-order character) to the
// dtype MLX reads it as. MLX writes bfloat16 as 'V2', and reads it back so.
var npyKinds = map[string]string{
	"b1": "bool", "u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
	"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
	"f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64", "V2": "bfloat16",
}

// ParseNPY reads a .npy header from head (the first bytes of the file, at
// least the whole header) for a file of size bytes, and returns the span
// of its data. The header is a Python dict literal, parsed as one (any
// spacing, key order and quote style that Python's literal_eval takes, as
// np.load does), with exactly the keys descr, fortran_order and shape.
func ParseNPY(head []byte, size int64) (Span, error) {
	var sp Span
	if len(head) < 10 || string(head[:6]) != "\x93NUMPY" {
		return sp, fmt.Errorf("not a .npy file: it does not start with \\x93NUMPY")
	}
	var hlen, off int64
	switch head[6] {
	case 1:
		hlen, off = int64(binary.LittleEndian.Uint16(head[8:10])), 10
	case 2, 3:
		if len(head) < 12 {
			return sp, fmt.Errorf("the .npy preamble is cut short (%d bytes)", len(head))
		}
		hlen, off = int64(binary.LittleEndian.Uint32(head[8:12])), 12
	default:
		return sp, fmt.Errorf("version: .npy format version %d.%d is unknown (NumPy writes 1.0, 2.0 and 3.0)", head[6], head[7])
	}
	if off+hlen > size {
		return sp, fmt.Errorf("header length: the header (%d bytes) runs past the end of the file (%d bytes): the file is truncated", hlen, size)
	}
	if off+hlen > int64(len(head)) {
		return sp, fmt.Errorf("header length: the header (%d bytes) is longer than the %d bytes read", hlen, len(head))
	}
	d, err := parseLiteral(string(head[off : off+hlen]))
	if err != nil {
		return sp, fmt.Errorf("header: %w", err)
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if _, ok := d[k]; !ok {
			return sp, fmt.Errorf("header: no %q key (a .npy header holds descr, fortran_order and shape)", k)
		}
	}
	if len(d) != 3 {
		return sp, fmt.Errorf("header: keys %v, want exactly descr, fortran_order and shape", keysOf(d))
	}
	descr, ok := d["descr"].(string)
	if !ok {
		return sp, fmt.Errorf("descr: %v is not a plain dtype string (structured and object arrays are not supported): convert it in NumPy with x.astype(np.float32) or similar", d["descr"])
	}
	if sp.Fortran, ok = d["fortran_order"].(bool); !ok {
		return sp, fmt.Errorf("fortran_order: %v, want True or False", d["fortran_order"])
	}
	dims, ok := d["shape"].([]int64)
	if !ok {
		return sp, fmt.Errorf("shape: %v, want a tuple of integers", d["shape"])
	}
	var order byte = '='
	kind := descr
	if len(descr) > 0 && strings.IndexByte("<>|=", descr[0]) >= 0 {
		order, kind = descr[0], descr[1:]
	}
	dt, ok := npyKinds[kind]
	if !ok {
		return sp, fmt.Errorf("descr: dtype %q is not one MLX has (bool, int8…int64, uint8…uint64, float16, float32, float64, complex64, bfloat16 as 'V2'): convert it in NumPy first, e.g. x.astype(np.float32)", descr)
	}
	item := int64(dtypeSize[dt])
	sp.Swap = order == '>' && item > 1
	if sp.Swap && dt == "complex64" {
		// A byte swap of the whole 8-byte element would exchange the real
		// and imaginary parts.
		return sp, fmt.Errorf("descr: big-endian complex64 (%q) is not supported: save it little-endian, x.astype('<c8')", descr)
	}
	sp.DType = dt
	sp.Shape, sp.Bytes, err = shapeBytes(dims, item)
	if err != nil {
		return sp, fmt.Errorf("shape: %w", err)
	}
	sp.Offset = off + hlen
	if have := size - sp.Offset; sp.Bytes > have {
		return sp, fmt.Errorf("data: the header announces %d bytes of data (%s%v), the file holds %d: the file is truncated", sp.Bytes, dt, sp.Shape, have)
	}
	return sp, nil
}

var dtypeSize = map[string]int{"bool": 1, "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "int8": 1, "int16": 2,
	"int32": 4, "int64": 8, "float16": 2, "float32": 4, "float64": 8, "bfloat16": 2, "complex64": 8}

// shapeBytes checks dims (each in 0..2^31-1) and returns them as ints with
// the data size, or an error when the size does not fit in an int64.
func shapeBytes(dims []int64, item int64) ([]int, int64, error) {
	shape := make([]int, len(dims))
	n := uint64(item)
	for i, v := range dims {
		if v < 0 {
			return nil, 0, fmt.Errorf("dimension %d is %d: dimensions must not be negative", i, v)
		}
		if v > MaxDim {
			return nil, 0, fmt.Errorf("dimension %d is %d, past MLX's limit of 2^31-1", i, v)
		}
		hi, lo := bits.Mul64(n, uint64(v))
		if hi != 0 || lo > math.MaxInt64 {
			return nil, 0, fmt.Errorf("%v has more than 2^63 bytes", dims)
		}
		n = lo
		shape[i] = int(v)
	}
	return shape, int64(n), nil
}

func keysOf(d map[string]any) []string {
	var out []string
	for k := range d {
		out = append(out, k)
	}
	return out
}

// parseLiteral parses the Python literal of a .npy header: a dict of
// string keys whose values are strings, True/False, integers or tuples of
// integers (as []int64). It takes what ast.literal_eval takes for those:
// any whitespace, ' or " quotes, a trailing comma, Python 2's 3L.
func parseLiteral(s string) (map[string]any, error) {
	p := &litParser{s: s}
	p.space()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q after the dict at byte %d", p.rest(), p.i)
	}
	d, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the header is not a dict: %q", strings.TrimSpace(s))
	}
	return d, nil
}

type litParser struct {
	s string
	i int
}

func (p *litParser) rest() string {
	r := p.s[p.i:]
	if len(r) > 20 {
		r = r[:20] + "…"
	}
	return r
}

func (p *litParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r\f\v", p.s[p.i]) >= 0 {
		p.i++
	}
	// A backslash-newline continues a line in Python.
	if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == '\n' {
		p.i += 2
		p.space()
	}
}

func (p *litParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// depth bounds nesting, so a header of 60,000 '(' cannot exhaust the stack.
const maxDepth = 16

func (p *litParser) value() (any, error) { return p.valueAt(0) }

func (p *litParser) valueAt(depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("the header nests deeper than %d levels", maxDepth)
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("the header ends early")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		d := map[string]any{}
		for {
			if p.eat('}') {
				return d, nil
			}
			k, err := p.valueAt(depth + 1)
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("a dict key is %v, not a string", k)
			}
			if !p.eat(':') {
				return nil, fmt.Errorf("no ':' after key %q at byte %d", ks, p.i)
			}
			v, err := p.valueAt(depth + 1)
			if err != nil {
				return nil, err
			}
			d[ks] = v // a repeated key keeps its last value, as in Python
			if !p.eat(',') {
				if p.eat('}') {
					return d, nil
				}
				return nil, fmt.Errorf("expected ',' or '}' at byte %d, found %q", p.i, p.rest())
			}
		}
	case c == '(':
		// A shape is a tuple; NumPy refuses a list, and (3) is the
		// integer 3 in Python, not a tuple: NumPy writes (3,).
		p.i++
		out := []int64{}
		for {
			if p.eat(')') {
				return out, nil
			}
			v, err := p.valueAt(depth + 1)
			if err != nil {
				return nil, err
			}
			n, ok := v.(int64)
			if !ok {
				return nil, fmt.Errorf("a shape entry is %v, not an integer", v)
			}
			out = append(out, n)
			if p.eat(',') {
				continue
			}
			if !p.eat(')') {
				return nil, fmt.Errorf("expected ',' or ')' at byte %d, found %q", p.i, p.rest())
			}
			if len(out) == 1 {
				return nil, fmt.Errorf("(%d) is an integer, not a tuple: a one-dimensional shape is written (%d,)", out[0], out[0])
			}
			return out, nil
		}
	case c == '[':
		return nil, fmt.Errorf("a list at byte %d: structured dtypes (a list of fields) are not supported: save each field as its own array, or convert with x.astype(np.float32)", p.i)
	case c == '\'' || c == '"':
		return p.str()
	case c == 'T' && strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case c == 'F' && strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	case c == '-' || c == '+' || c >= '0' && c <= '9':
		return p.integer()
	}
	return nil, fmt.Errorf("unexpected %q at byte %d", p.rest(), p.i)
}

func (p *litParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\n':
			return nil, fmt.Errorf("a string runs past the end of its line")
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			switch e := p.s[p.i]; e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			p.i++
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return nil, fmt.Errorf("a string is not closed")
}

func (p *litParser) integer() (any, error) {
	start := p.i
	neg := false
	if p.s[p.i] == '-' || p.s[p.i] == '+' {
		neg = p.s[p.i] == '-'
		p.i++
		p.space()
	}
	digits := p.i
	var v uint64
	for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '_') {
		if p.s[p.i] != '_' {
			hi, lo := bits.Mul64(v, 10)
			lo, carry := bits.Add64(lo, uint64(p.s[p.i]-'0'), 0)
			if hi != 0 || carry != 0 || lo > math.MaxInt64 {
				return nil, fmt.Errorf("the integer at byte %d is too large", start)
			}
			v = lo
		}
		p.i++
	}
	if p.i == digits {
		return nil, fmt.Errorf("no digits at byte %d", start)
	}
	if p.i < len(p.s) && (p.s[p.i] == 'L' || p.s[p.i] == 'l') {
		p.i++ // Python 2's long suffix, in headers NumPy wrote under Python 2
	}
	if p.i < len(p.s) && (p.s[p.i] == '.' || p.s[p.i] == 'e' || p.s[p.i] == 'E' || p.s[p.i] == 'x' || p.s[p.i] == 'j') {
		return nil, fmt.Errorf("the number at byte %d is not a decimal integer", start)
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}
