package emily_test

import (
	"math"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// cubeSum is sum(x^3 * w) + sum(sin(x)): d/dx = 3x^2 w + cos(x), d/dw = x^3.
func cubeSum(x, w *emily.Tensor) *emily.Tensor {
	return emily.Add(emily.Sum(emily.Mul(emily.Mul(emily.Mul(x, x), x), w)), emily.Sum(emily.Sin(x)))
}

func f64(vals ...float64) *emily.Tensor { return emily.FromSlice(vals) }

func gradClose(t *testing.T, what string, got *emily.Tensor, want []float64, tol float64) {
	t.Helper()
	g := got.ToFloat64s()
	if len(g) != len(want) {
		t.Fatalf("%s: %d values %v, want %d %v", what, len(g), g, len(want), want)
	}
	for i := range g {
		if math.Abs(g[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			t.Errorf("%s[%d] = %v, want %v", what, i, g[i], want[i])
		}
	}
}

func TestGradEager(t *testing.T) {
	x, w := f64(0.5, -1, 2), f64(1, 2, 3)
	dx := emily.Grad(cubeSum).(fn2)(x, w)
	var want []float64
	for i, xv := range []float64{0.5, -1, 2} {
		want = append(want, 3*xv*xv*float64(i+1)+math.Cos(xv))
	}
	gradClose(t, "dx", dx, want, 1e-6)

	g2 := emily.Grad(cubeSum, 1, 0).(func(*emily.Tensor, *emily.Tensor) (*emily.Tensor, *emily.Tensor))
	dw, dx2 := g2(x, w)
	gradClose(t, "dw", dw, []float64{0.125, -1, 8}, 1e-6)
	gradClose(t, "dx (argnums 1, 0)", dx2, want, 1e-6)

	vg := emily.ValueAndGrad(cubeSum).(fn2v)
	v, dx3 := vg(x, w)
	gradClose(t, "value", v, []float64{0.125 - 2 + 24 + math.Sin(0.5) + math.Sin(-1) + math.Sin(2)}, 1e-6)
	gradClose(t, "dx (ValueAndGrad)", dx3, want, 1e-6)
}

type fn2v = func(*emily.Tensor, *emily.Tensor) (*emily.Tensor, *emily.Tensor)

// TestGradOfJitEqualsGrad: Grad around a jitted function, Grad inside one,
// in every lane, equal the eager gradient bit for bit (fuse within ULPs).
func TestGradOfJitEqualsGrad(t *testing.T) {
	x, w := inputs()
	loss := func(x, w *emily.Tensor) *emily.Tensor { return emily.Sum(twentyOps(x, w)) }
	want := emily.Grad(loss, 1).(fn2)(x, w).ToFloat32s()
	lanes := map[string][]emily.Option{
		"native": {emily.WithNative(true), emily.WithFallback("raise")},
		"eval":   {emily.WithNative(false)},
		"fuse":   {emily.WithFuse(true), emily.WithFallback("raise")},
	}
	for name, opts := range lanes {
		around := emily.Grad(emily.Jit(loss, opts...), 1).(fn2)(x, w).ToFloat32s()
		inside := emily.Jit(emily.Grad(loss, 1), opts...).(fn2)(x, w).ToFloat32s()
		for i := range want {
			for what, got := range map[string][]float32{"Grad(Jit(f))": around, "Jit(Grad(f))": inside} {
				if name == "fuse" && what == "Jit(Grad(f))" {
					if ulpDistance(want[i], got[i]) > 8 {
						t.Errorf("%s %s[%d] = %v, eager %v", name, what, i, got[i], want[i])
					}
				} else if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Errorf("%s %s[%d] = %v, eager %v: not bit-identical", name, what, i, got[i], want[i])
				}
			}
		}
	}
}

func TestGradOfGrad(t *testing.T) {
	f := func(x *emily.Tensor) *emily.Tensor { return emily.Sum(emily.Mul(emily.Mul(x, x), x)) }
	// d2/dx2 sum(x^3) summed = sum(6x).
	g := func(x *emily.Tensor) *emily.Tensor { return emily.Sum(emily.Grad(f).(fn1)(x)) }
	x := f64(1, -2, 0.5)
	gradClose(t, "eager", emily.Grad(g).(fn1)(x), []float64{6, -12, 3}, 1e-6)
	for _, native := range []bool{true, false} {
		gradClose(t, "jitted", emily.Jit(emily.Grad(g), emily.WithNative(native)).(fn1)(x), []float64{6, -12, 3}, 1e-6)
	}
	// A closure over an outer traced value: d/dx [d/dy (x*y^2)](y=x) = d/dx 2x^2 = 4x.
	h := func(x *emily.Tensor) *emily.Tensor {
		inner := func(y *emily.Tensor) *emily.Tensor { return emily.Sum(emily.Mul(x, emily.Mul(y, y))) }
		return emily.Sum(emily.Grad(inner).(fn1)(x))
	}
	gradClose(t, "closure", emily.Grad(h).(fn1)(x), []float64{4, -8, 2}, 1e-6)
	gradClose(t, "closure jitted", emily.Jit(emily.Grad(h)).(fn1)(x), []float64{4, -8, 2}, 1e-6)
	gradClose(t, "closure eval", emily.Jit(emily.Grad(h), emily.WithNative(false)).(fn1)(x), []float64{4, -8, 2}, 1e-6)
}

func TestGradCapturesAndStopGradient(t *testing.T) {
	w := f64(1, 2, 3)
	x := f64(0.5, 0.25, 2)
	// A captured concrete tensor is a constant of the traced function.
	f := func(x *emily.Tensor) *emily.Tensor { return emily.Sum(emily.Mul(w, emily.Mul(x, x))) }
	gradClose(t, "captured w", emily.Grad(f).(fn1)(x), []float64{1, 1, 12}, 1e-6)
	gradClose(t, "captured w, jitted", emily.Jit(emily.Grad(f)).(fn1)(x), []float64{1, 1, 12}, 1e-6)
	// StopGradient makes x*x a constant: d/dx sum(sg(x*x) * x) = x*x.
	sg := func(x *emily.Tensor) *emily.Tensor {
		return emily.Sum(emily.Mul(emily.StopGradient(emily.Mul(x, x)), x))
	}
	gradClose(t, "stop gradient", emily.Grad(sg).(fn1)(x), []float64{0.25, 0.0625, 4}, 1e-6)
	// Eager Grad traces on every call: a changed capture is seen.
	w = f64(2, 2, 2)
	gradClose(t, "captured w changed", emily.Grad(f).(fn1)(x), []float64{2, 1, 8}, 1e-6)
}

func TestVJPAndJVP(t *testing.T) {
	f := func(x, y *emily.Tensor) *emily.Tensor { return emily.Mul(emily.Sin(x), y) }
	x, y := f64(0.5, 1), f64(2, 3)
	outs, vjps := emily.VJP(f, []*emily.Tensor{x, y}, []*emily.Tensor{f64(1, 10)})
	gradClose(t, "vjp out", outs[0], []float64{2 * math.Sin(0.5), 3 * math.Sin(1)}, 1e-6)
	gradClose(t, "vjp x", vjps[0], []float64{2 * math.Cos(0.5), 30 * math.Cos(1)}, 1e-6)
	gradClose(t, "vjp y", vjps[1], []float64{math.Sin(0.5), 10 * math.Sin(1)}, 1e-6)
	outs, jvps := emily.JVP(f, []*emily.Tensor{x, y}, []*emily.Tensor{f64(1, 0), f64(0, 1)})
	gradClose(t, "jvp out", outs[0], []float64{2 * math.Sin(0.5), 3 * math.Sin(1)}, 1e-6)
	gradClose(t, "jvp", jvps[0], []float64{2 * math.Cos(0.5), math.Sin(1)}, 1e-6)
	// Inside a jitted function.
	jf := emily.Jit(func(x, y *emily.Tensor) *emily.Tensor {
		_, v := emily.VJP(f, []*emily.Tensor{x, y}, []*emily.Tensor{emily.OnesLike(x)})
		_, j := emily.JVP(f, []*emily.Tensor{x, y}, []*emily.Tensor{emily.OnesLike(x), emily.ZerosLike(y)})
		return emily.Add(v[0], j[0])
	}).(fn2)
	gradClose(t, "jitted vjp+jvp", jf(x, y), []float64{4 * math.Cos(0.5), 6 * math.Cos(1)}, 1e-6)
}

func TestGradErrors(t *testing.T) {
	cases := []struct {
		name string
		call func()
		want []string
	}{
		{"integer input", func() {
			emily.Grad(func(x *emily.Tensor) *emily.Tensor { return emily.Sum(x) }).(fn1)(emily.FromSlice([]int32{1, 2}))
		}, []string{"emily.Grad", "int32[2]", "floating-point", "Astype"}},
		{"non-scalar", func() {
			emily.Grad(func(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, x) }).(fn1)(f64(1, 2))
		}, []string{"emily.Grad", "float64[2]", "0-d", "Sum"}},
		{"bad argnums", func() { emily.Grad(cubeSum, 2) }, []string{"argnums", "out of range"}},
		{"not differentiable", func() {
			emily.Grad(func(x *emily.Tensor) *emily.Tensor {
				return emily.Sum(emily.Inv(emily.Exp(x)))
			}).(fn1)(emily.FromSlice([]float32{1, 0.5, 0.25, 2}, 2, 2))
		}, []string{"emily.Grad", "cannot differentiate", "inv", "StopGradient"}},
	}
	for _, c := range cases {
		err := emily.Try(c.call)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
}
