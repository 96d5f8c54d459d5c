package mlxbind

import (
	"encoding/binary"
	"testing"
)

// FuzzNewProgram hands arbitrary instruction words to the shim's program
// validator, the C++ that checks a program once so replay can skip
// checks: every malformed program must be an error, never a crash, and a
// program it accepts must run or fail with an error.
func FuzzNewProgram(f *testing.F) {
	words := func(ws ...int64) []byte {
		b := make([]byte, 8*len(ws))
		for i, w := range ws {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(w))
		}
		return b
	}
	add := int64(opcodeByName(f, "add"))
	// An instruction: opcode, n_out, n_in, refs…, n_attrs, attrs…
	in0, out0 := Ref(RefInput, 0, 0), Ref(RefInstr, 0, 0)
	f.Add(words(add, 1, 2, in0, in0, 0), words(out0), uint8(1))
	f.Add(words(add, 1, 2, in0, Ref(RefInstr, 5, 0), 0), words(out0), uint8(1))
	f.Add(words(add, 1, 2, in0, in0, 1, 1<<40), words(out0), uint8(1))
	f.Add(words(-1), words(), uint8(0))
	f.Add(words(add, 1, -5), words(Ref(RefInput, 3, 0)), uint8(1))
	f.Add(words(add, 1, 2, in0, in0, 0, add, 1, 2, out0, out0, 0), words(Ref(RefInstr, 1, 0), out0), uint8(1))
	// A region instruction (opcode -1): value_and_grad (kind 1) of a body
	// adding its argument to itself, whose result is not a scalar (a run
	// error); then an unknown region kind, and a capture out of range.
	body := []int64{add, 1, 2, in0, in0, 0}
	region := func(kind, capture int64) []byte {
		w := []int64{kind, 1, 0, 1, 1, 1, capture, int64(len(body))}
		w = append(append(w, body...), 1, out0)
		return words(append([]int64{-1, 2, 1, in0, int64(len(w))}, w...)...)
	}
	f.Add(region(1, 0), words(Ref(RefInstr, 0, 1)), uint8(1))
	f.Add(region(99, 0), words(Ref(RefInstr, 0, 1)), uint8(1))
	f.Add(region(1, 7), words(Ref(RefInstr, 0, 1)), uint8(1))
	f.Fuzz(func(t *testing.T, rawCode, rawOut []byte, nInputs uint8) {
		decode := func(b []byte) []int64 {
			var out []int64
			for i := 0; i+8 <= len(b) && len(out) < 256; i += 8 {
				out = append(out, int64(binary.LittleEndian.Uint64(b[i:])))
			}
			return out
		}
		n := int(nInputs % 4)
		p, err := NewProgram(n, nil, decode(rawCode), decode(rawOut))
		if err != nil {
			return
		}
		defer p.Free()
		x, err := FromBytes(make([]byte, 16), []int{4}, Float32)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Free()
		inputs := make([]*Array, n)
		for i := range inputs {
			inputs[i] = x
		}
		s, err := DefaultStream(CPU)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := p.Run(s, inputs, false)
		for _, o := range outs {
			o.Free()
		}
		_ = err
	})
}

func opcodeByName(f *testing.F, name string) int {
	for i := range OpcodeCount() {
		if OpcodeName(i) == name {
			return i
		}
	}
	f.Fatalf("no opcode %q", name)
	return -1
}
