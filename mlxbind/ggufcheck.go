package mlxbind

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// checkGGUF walks a .gguf file's header, metadata and tensor table with
// bounds checks before MLX's reader parses it. That reader (gguflib) trusts
// every length and count in the file: flipping single bytes of a valid
// file crashed the process (SIGSEGV, from a tensor count of 2^56) instead
// of raising an error. Only the tables are read, never the tensor data.
func checkGGUF(path string) error {
	_, err := checkGGUFSize(path)
	return err
}

// checkGGUFSize is checkGGUF that also returns how many bytes the loaded
// tensors will take (quantized types counted as the float16 MLX may
// expand them to), for the memory check before MLX reads anything.
func checkGGUFSize(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	g := &ggufWalk{r: bufio.NewReaderSize(f, 1<<16), size: uint64(fi.Size())}
	if err := g.walk(); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = fmt.Errorf("the file ends at byte %d inside its header (truncated?)", g.size)
		}
		return 0, fmt.Errorf("[load_gguf] %s: %w", path, err)
	}
	if g.out > math.MaxInt64 {
		return 0, fmt.Errorf("[load_gguf] %s: the tensors need more than 2^63 bytes", path)
	}
	return int64(g.out), nil
}

// GGUF value types (the gguf spec's numbering).
const (
	ggufString = 8
	ggufArray  = 9
)

// ggufValueSize is the size of each fixed-size metadata value type.
var ggufValueSize = map[uint32]uint64{0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

// ggufTensorBlock gives, for each tensor type MLX's reader handles, the
// weights per block and bytes per block (gguflib's table): plain types,
// the quantizations it converts, and the integer types MLX writes. Other
// types are refused: gguflib has no row for them, or divides by a zero
// block size.
var ggufTensorBlock = map[uint32][2]uint64{
	0: {1, 4}, 1: {1, 2}, 2: {32, 18}, 3: {32, 20}, 6: {32, 22}, 7: {32, 24},
	8: {32, 34}, 9: {32, 40}, 10: {256, 82}, 11: {256, 110}, 12: {256, 144},
	13: {256, 176}, 14: {256, 210}, 15: {256, 292}, 24: {1, 1}, 25: {1, 2}, 26: {1, 4},
}

type ggufWalk struct {
	r    *bufio.Reader
	size uint64 // file size
	pos  uint64 // bytes consumed
	out  uint64 // bytes the loaded tensors take (saturating)
}

func (g *ggufWalk) left() uint64 { return g.size - g.pos }

func (g *ggufWalk) skip(n uint64) error {
	if n > g.left() {
		return io.ErrUnexpectedEOF
	}
	if _, err := g.r.Discard(int(n)); err != nil {
		return err
	}
	g.pos += n
	return nil
}

func (g *ggufWalk) u32() (uint32, error) {
	var b [4]byte
	if _, err := io.ReadFull(g.r, b[:]); err != nil {
		return 0, err
	}
	g.pos += 4
	return binary.LittleEndian.Uint32(b[:]), nil
}

func (g *ggufWalk) u64() (uint64, error) {
	var b [8]byte
	if _, err := io.ReadFull(g.r, b[:]); err != nil {
		return 0, err
	}
	g.pos += 8
	return binary.LittleEndian.Uint64(b[:]), nil
}

// str reads a length-prefixed string, keeping at most keep bytes of it.
func (g *ggufWalk) str(what string, keep int) (string, error) {
	n, err := g.u64()
	if err != nil {
		return "", err
	}
	if n > g.left() {
		return "", fmt.Errorf("%s of %d bytes runs past the end of the file", what, n)
	}
	if n > uint64(keep) {
		return "", g.skip(n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(g.r, b); err != nil {
		return "", err
	}
	g.pos += n
	return string(b), nil
}

func (g *ggufWalk) walk() error {
	magic, err := g.u32()
	if err != nil {
		return err
	}
	if magic != binary.LittleEndian.Uint32([]byte("GGUF")) {
		return fmt.Errorf("not a gguf file (it does not start with GGUF)")
	}
	version, err := g.u32()
	if err != nil {
		return err
	}
	if version != 2 && version != 3 {
		return fmt.Errorf("gguf version %d; MLX reads versions 2 and 3", version)
	}
	nTensors, err := g.u64()
	if err != nil {
		return err
	}
	nKV, err := g.u64()
	if err != nil {
		return err
	}
	// A key-value pair takes at least 13 bytes, a tensor entry 24.
	if nKV > g.size/13 || nTensors > g.size/24 {
		return fmt.Errorf("it claims %d metadata entries and %d tensors, more than a %d-byte file holds", nKV, nTensors, g.size)
	}
	alignments := []uint64{32}
	for i := uint64(0); i < nKV; i++ {
		key, err := g.str("a metadata key", 64)
		if err != nil {
			return err
		}
		typ, err := g.u32()
		if err != nil {
			return err
		}
		// gguflib reads the alignment from this key (spelled both ways in
		// its versions) and divides by it.
		if typ == 4 && (key == "general.alignment" || key == "general.alignmnet") {
			a, err := g.u32()
			if err != nil {
				return err
			}
			if a == 0 {
				return fmt.Errorf("metadata %s is 0", key)
			}
			alignments = append(alignments, uint64(a))
			continue
		}
		if err := g.value(key, typ); err != nil {
			return err
		}
	}
	type span struct{ off, n uint64 }
	spans := make([]span, 0, nTensors)
	for i := uint64(0); i < nTensors; i++ {
		name, err := g.str("a tensor name", 256)
		if err != nil {
			return err
		}
		ndim, err := g.u32()
		if err != nil {
			return err
		}
		if ndim > 8 {
			return fmt.Errorf("tensor %q has %d dimensions; gguf allows 8", name, ndim)
		}
		weights := uint64(1)
		for d := uint32(0); d < ndim; d++ {
			dim, err := g.u64()
			if err != nil {
				return err
			}
			if dim > math.MaxInt32 || (dim != 0 && weights > math.MaxInt64/dim) {
				return fmt.Errorf("tensor %q has a dimension of %d", name, dim)
			}
			weights *= dim
		}
		typ, err := g.u32()
		if err != nil {
			return err
		}
		block, ok := ggufTensorBlock[typ]
		if !ok {
			return fmt.Errorf("tensor %q has gguf type %d, which MLX's reader does not handle", name, typ)
		}
		if block[0] > 1 && ndim == 0 {
			return fmt.Errorf("tensor %q is quantized but has no dimensions", name)
		}
		off, err := g.u64()
		if err != nil {
			return err
		}
		blocks := (weights + block[0] - 1) / block[0]
		spans = append(spans, span{off, blocks * block[1]})
		loaded := blocks * block[1]
		if block[0] > 1 {
			loaded = max(loaded, weights*2) // float16, for the types MLX converts
		}
		if g.out += loaded; g.out < loaded {
			g.out = math.MaxUint64
		}
	}
	for _, a := range alignments {
		data := g.pos + (a-g.pos%a)%a
		for _, s := range spans {
			if data > g.size || s.off > g.size-data || s.n > g.size-data-s.off {
				return fmt.Errorf("a tensor's data (%d bytes at offset %d) runs past the end of the %d-byte file (truncated?)", s.n, s.off, g.size)
			}
		}
	}
	return nil
}

// value skips one metadata value of type typ, checking its lengths.
func (g *ggufWalk) value(key string, typ uint32) error {
	if n, ok := ggufValueSize[typ]; ok {
		return g.skip(n)
	}
	switch typ {
	case ggufString:
		_, err := g.str("metadata "+key, 0)
		return err
	case ggufArray:
		etype, err := g.u32()
		if err != nil {
			return err
		}
		n, err := g.u64()
		if err != nil {
			return err
		}
		if n > math.MaxInt32 {
			return fmt.Errorf("metadata %s is a list of %d values", key, n)
		}
		if size, ok := ggufValueSize[etype]; ok {
			if n > g.left()/size {
				return fmt.Errorf("metadata %s (%d values) runs past the end of the file", key, n)
			}
			return g.skip(n * size)
		}
		if etype != ggufString {
			return fmt.Errorf("metadata %s is a list of type %d; MLX reads lists of numbers and strings", key, etype)
		}
		if n > g.left()/8 {
			return fmt.Errorf("metadata %s (%d strings) runs past the end of the file", key, n)
		}
		for j := uint64(0); j < n; j++ {
			if _, err := g.str("metadata "+key, 0); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("metadata %s has unknown type %d", key, typ)
}
