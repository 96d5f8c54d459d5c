package fileformat

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// MaxSafetensorsHeader is the largest JSON header accepted: the
// safetensors library's own limit (100 MB).
const MaxSafetensorsHeader = 100_000_000

// safetensorsDTypes maps the format's dtype names to MLX's. The others of
// the format (F8_*, F6_*, F4) have no MLX dtype.
var safetensorsDTypes = map[string]string{
	"BOOL": "bool", "U8": "uint8", "I8": "int8", "U16": "uint16", "I16": "int16", "U32": "uint32",
	"I32": "int32", "U64": "uint64", "I64": "int64", "F16": "float16", "BF16": "bfloat16",
	"F32": "float32", "F64": "float64", "C64": "complex64",
}

// Safetensors is a parsed safetensors header: the tensors' spans, in file
// order, and the __metadata__ strings.
type Safetensors struct {
	Tensors []Span
	Meta    map[string]string
}

// HeaderLen reads the 8-byte header length at the start of a safetensors
// file of size bytes and checks it against the file and the format limit.
func HeaderLen(head []byte, size int64) (int64, error) {
	if len(head) < 8 || size < 8 {
		return 0, fmt.Errorf("header length: the file has %d bytes; a safetensors file starts with an 8-byte header length", size)
	}
	n := binary.LittleEndian.Uint64(head[:8])
	if n > MaxSafetensorsHeader {
		return 0, fmt.Errorf("header length: %d bytes, more than the format's limit of %d: not a safetensors file, or a damaged one", n, MaxSafetensorsHeader)
	}
	if int64(n) > size-8 {
		return 0, fmt.Errorf("header length: %d bytes, but the file has %d after the length: the file is truncated", n, size-8)
	}
	return int64(n), nil
}

// ParseSafetensors parses a safetensors file's start (at least 8 bytes
// plus the header) for a file of size bytes, to the format's spec and as
// strictly as the safetensors library: a JSON object; each tensor has a
// known dtype, a shape of non-negative integers (each within MLX's
// 2^31-1) and data_offsets [begin, end] relative to the data, whose length
// is the shape's size; the tensors cover the data exactly, without gaps
// or overlaps; __metadata__, if present, maps strings to strings.
func ParseSafetensors(head []byte, size int64) (*Safetensors, error) {
	n, err := HeaderLen(head, size)
	if err != nil {
		return nil, err
	}
	if int64(len(head)) < 8+n {
		return nil, fmt.Errorf("header: %d bytes announced, %d read", n, len(head)-8)
	}
	hdr := head[8 : 8+n]
	if len(hdr) == 0 || hdr[0] != '{' {
		return nil, fmt.Errorf("header: it does not start with '{': not a safetensors file")
	}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("header: not a JSON object: %v", err)
	}
	out := &Safetensors{Meta: map[string]string{}}
	seen := map[string]bool{}
	dataSize := size - 8 - n
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("header: %w", err)
		}
		name := tok.(string) // object keys are strings once Token succeeded
		if seen[name] {
			return nil, fmt.Errorf("header: %q appears twice", name)
		}
		seen[name] = true
		if name == "__metadata__" {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				return nil, fmt.Errorf("__metadata__: %w", err)
			}
			for k, v := range m {
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("__metadata__: %q is %v, not a string (safetensors metadata maps strings to strings)", k, v)
				}
				out.Meta[k] = s
			}
			continue
		}
		var info struct {
			DType       *string       `json:"dtype"`
			Shape       []json.Number `json:"shape"`
			DataOffsets []json.Number `json:"data_offsets"`
		}
		if err := dec.Decode(&info); err != nil {
			return nil, fmt.Errorf("tensor %q: %w", name, err)
		}
		sp, err := tensorSpan(name, info.DType, info.Shape, info.DataOffsets, dataSize)
		if err != nil {
			return nil, err
		}
		sp.Offset += 8 + n
		out.Tensors = append(out.Tensors, sp)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	// Only spaces may follow the object (the writer pads to 8 bytes).
	rest := hdr[dec.InputOffset():]
	if len(bytes.TrimRight(rest, " \t\r\n")) != 0 {
		return nil, fmt.Errorf("header: %d unexpected bytes after the JSON object", len(rest))
	}
	// The data must be covered exactly, in offset order, as the
	// safetensors library requires (it refuses gaps, overlaps and a data
	// section longer than the tensors).
	order := append([]Span{}, out.Tensors...)
	// By (start, end), as the library sorts: an empty tensor shares its
	// start with the next one, and the header may list it after that one
	// (MLX writes tensors in hash order).
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].Offset != order[j].Offset {
			return order[i].Offset < order[j].Offset
		}
		return order[i].Bytes < order[j].Bytes
	})
	at := 8 + n
	for _, sp := range order {
		if sp.Offset != at {
			return nil, fmt.Errorf("tensor %q: data_offsets start at %d, where the previous tensor ends at %d: the tensors must cover the data without gaps or overlaps", sp.Name, sp.Offset-8-n, at-8-n)
		}
		at += sp.Bytes
	}
	if at != size {
		return nil, fmt.Errorf("data: the tensors cover %d bytes, the file holds %d after the header", at-8-n, dataSize)
	}
	return out, nil
}

func tensorSpan(name string, dtype *string, shape, offsets []json.Number, dataSize int64) (Span, error) {
	sp := Span{Name: name}
	if dtype == nil {
		return sp, fmt.Errorf("tensor %q: no dtype", name)
	}
	dt, ok := safetensorsDTypes[*dtype]
	if !ok {
		return sp, fmt.Errorf("tensor %q: dtype %q is not one MLX has (BOOL, U8…U64, I8…I64, F16, BF16, F32, F64, C64): convert it before saving, e.g. to F32", name, *dtype)
	}
	sp.DType = dt
	if shape == nil {
		return sp, fmt.Errorf("tensor %q: no shape", name)
	}
	dims := make([]int64, len(shape))
	for i, s := range shape {
		v, err := strconv.ParseInt(s.String(), 10, 64)
		if err != nil || v < 0 {
			return sp, fmt.Errorf("tensor %q: shape %v: dimension %d is %s; dimensions are non-negative integers", name, shape, i, s)
		}
		dims[i] = v
	}
	var err error
	sp.Shape, sp.Bytes, err = shapeBytes(dims, int64(dtypeSize[dt]))
	if err != nil {
		return sp, fmt.Errorf("tensor %q: shape: %w", name, err)
	}
	if len(offsets) != 2 {
		return sp, fmt.Errorf("tensor %q: data_offsets %v, want [begin, end]", name, offsets)
	}
	var be [2]int64
	for i, o := range offsets {
		v, err := strconv.ParseUint(o.String(), 10, 64)
		if err != nil || v > math.MaxInt64 {
			return sp, fmt.Errorf("tensor %q: data_offsets %v: %s is not an offset (a non-negative integer below 2^63)", name, offsets, o)
		}
		be[i] = int64(v)
	}
	if be[0] > be[1] || be[1] > dataSize {
		return sp, fmt.Errorf("tensor %q: data_offsets [%d, %d] do not lie within the %d bytes of data: the file is truncated or its header is wrong", name, be[0], be[1], dataSize)
	}
	if be[1]-be[0] != sp.Bytes {
		return sp, fmt.Errorf("tensor %q: data_offsets [%d, %d] hold %d bytes, its shape %v of %s needs %d", name, be[0], be[1], be[1]-be[0], sp.Shape, *dtype, sp.Bytes)
	}
	sp.Offset = be[0]
	return sp, nil
}
