package emily_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/emily-go/emily"
)

// FuzzFromBytes builds tensors from arbitrary bytes, dtypes and shapes
// (dims decoded as signed 64-bit values, so negatives and values past 32
// bits come up): the result is a tensor or an *emily.Error, never a
// runtime panic or a crash, and a tensor's bytes read back unchanged.
func FuzzFromBytes(f *testing.F) {
	dims := func(ds ...int64) []byte {
		b := make([]byte, 8*len(ds))
		for i, d := range ds {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(d))
		}
		return b
	}
	f.Add([]byte{1, 2, 3, 4}, uint8(emily.Float32), dims(1))
	f.Add([]byte{1, 2, 3, 4}, uint8(emily.Uint8), dims(2, 2))
	f.Add([]byte{}, uint8(emily.Float32), dims(0, 1<<31-1))
	f.Add([]byte{}, uint8(emily.Int64), dims(-1))
	f.Add([]byte{}, uint8(emily.Float32), dims(1<<32, 1<<32))
	f.Add([]byte{0}, uint8(200), dims(1))
	f.Fuzz(func(t *testing.T, data []byte, dtype uint8, rawDims []byte) {
		var shape []int
		for i := 0; i+8 <= len(rawDims) && len(shape) < 8; i += 8 {
			shape = append(shape, int(int64(binary.LittleEndian.Uint64(rawDims[i:]))))
		}
		var x *emily.Tensor
		err := emily.Try(func() { x = emily.FromBytes(data, emily.DType(dtype), shape...) })
		var e *emily.Error
		if err != nil {
			if !errors.As(err, &e) {
				t.Fatalf("FromBytes(%d bytes, %d, %v): %v is not an *emily.Error", len(data), dtype, shape, err)
			}
			return
		}
		defer x.Free()
		var back []byte
		if err := emily.Try(func() { back = x.Bytes() }); err != nil {
			return // e.g. float64 on a GPU: an error, which is fine
		}
		if string(back) != string(data) {
			t.Fatalf("FromBytes(%v, %s) read back %v, want %v", shape, emily.DType(dtype), back, data)
		}
	})
}
