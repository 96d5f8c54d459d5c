package emily

import "fmt"

// Arange makes start, start+step, … up to (not including) stop, as
// Python's range and np.arange: Arange(n), Arange(start, stop) or
// Arange(start, stop, step). The result is int32 when every bound is a Go
// integer and float32 otherwise; ArangeOf picks the dtype.
//
//	emily.Arange(5)          // int32 [0 1 2 3 4]
//	emily.Arange(0, 1, 0.25) // float32 [0 0.25 0.5 0.75]
func Arange(bounds ...any) *Tensor {
	start, stop, step, integral := rangeBounds("Arange", bounds)
	dt := Float32
	if integral {
		dt = Int32
	}
	return opArange(start, stop, step, dt)
}

// ArangeOf is Arange with a dtype: ArangeOf(dtype, n), ArangeOf(dtype,
// start, stop) or ArangeOf(dtype, start, stop, step).
func ArangeOf(dtype DType, bounds ...any) *Tensor {
	start, stop, step, _ := rangeBounds("ArangeOf", bounds)
	return opArange(start, stop, step, dtype)
}

func rangeBounds(op string, bounds []any) (start, stop, step float64, integral bool) {
	vals := make([]float64, len(bounds))
	integral = true
	for i, b := range bounds {
		n, err := goNumber(b)
		if err != nil || n.kind == 'c' || n.kind == 'b' {
			panic(&Error{Op: op, Err: fmt.Errorf("bound %d: %v is not a real number", i+1, b),
				Hint: "pass Go numbers: Arange(n), Arange(start, stop) or Arange(start, stop, step)"})
		}
		switch n.kind {
		case 'i':
			vals[i] = float64(n.i)
		case 'u':
			vals[i] = float64(n.u)
		default:
			vals[i] = n.f
			integral = false
		}
	}
	switch len(vals) {
	case 1:
		return 0, vals[0], 1, integral
	case 2:
		return vals[0], vals[1], 1, integral
	case 3:
		if vals[2] == 0 {
			panic(&Error{Op: op, Err: fmt.Errorf("step is 0"), Hint: "pass a non-zero step"})
		}
		return vals[0], vals[1], vals[2], integral
	}
	panic(&Error{Op: op, Err: fmt.Errorf("takes 1 to 3 bounds, got %d", len(vals)),
		Hint: "Arange(n), Arange(start, stop) or Arange(start, stop, step)"})
}
