package nn_test

import (
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/numpyref"
)

func numpyRef(t *testing.T, code string, inputs map[string]*emily.Tensor) map[string][]float64 {
	t.Helper()
	return numpyref.Run(t, code, inputs)
}

func closeTo(t *testing.T, what string, got *emily.Tensor, want []float64, tol float64) {
	t.Helper()
	numpyref.Close(t, what, got, want, tol)
}
