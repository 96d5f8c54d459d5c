package emily

import (
	"testing"

	"github.com/emily-go/emily/mlxbind"
)

// TestDoPicksTheStream: inside Stream.Do, new tensors, eager ops on
// tensors from elsewhere and jitted calls run on the chosen stream;
// outside it they are back on the default stream, and the results of a
// pool stream (max_concurrency) are handed to the default stream.
func TestDoPicksTheStream(t *testing.T) {
	s, err := NewStream(DefaultDevice())
	if err != nil {
		t.Fatal(err)
	}
	dev, _ := mlxbind.ParseDevice(DefaultDevice())
	def, _ := mlxbind.DefaultStream(dev)
	x := Ones(3)
	f := Jit(func(a *Tensor) *Tensor { return Exp(a) }).(func(*Tensor) *Tensor)
	var made, op, jitted *Tensor
	s.Do(func() {
		made, op, jitted = Arange(3), Add(x, 1), f(x)
	})
	for name, got := range map[string]*Tensor{"Arange": made, "Add": op, "jitted": jitted} {
		if got.stream != s.s {
			t.Errorf("%s inside Do ran on stream %d, want %d", name, got.stream.Index(), s.s.Index())
		}
	}
	if got := Add(x, 1).stream; got != def {
		t.Errorf("Add after Do ran on stream %d, want the default %d", got.Index(), def.Index())
	}
	if got := f(x).stream; got != def {
		t.Errorf("jitted call after Do ran on stream %d", got.Index())
	}
	bound := Jit(func(a *Tensor) *Tensor { return Exp(a) }, WithStream(s)).(func(*Tensor) *Tensor)
	if got := bound(x).stream; got != s.s {
		t.Errorf("WithStream: result on stream %d", got.Index())
	}
	pooled := Jit(func(a *Tensor) *Tensor { return Exp(a) }, WithMaxConcurrency(2)).(func(*Tensor) *Tensor)
	if got := pooled(x).stream; got != def {
		t.Errorf("max_concurrency: result on stream %d, want the default", got.Index())
	}
}
