package mlxbind

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestShareOutlivesTheOriginal(t *testing.T) {
	s, err := DefaultStream(CPU)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 8)
	binary.LittleEndian.PutUint32(data, math.Float32bits(1.5))
	binary.LittleEndian.PutUint32(data[4:], math.Float32bits(-2))
	a, err := FromBytes(data, []int{2}, Float32)
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.Share()
	if err != nil {
		t.Fatal(err)
	}
	if b == a || b.DType() != Float32 || len(b.Shape()) != 1 || b.Shape()[0] != 2 {
		t.Fatalf("share: %v %v, want a new float32[2] handle", b.DType(), b.Shape())
	}
	a.Free()
	got, err := b.Bytes(s)
	if err != nil {
		t.Fatalf("the shared handle died with the original: %v", err)
	}
	if string(got) != string(data) {
		t.Errorf("shared handle reads %v, want %v", got, data)
	}
	b.Free()
}
