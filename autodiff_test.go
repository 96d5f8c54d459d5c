package emily_test

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// cubeSum is sum(x^3 * w) + sum(sin(x)): d/dx = 3x^2 w + cos(x), d/dw = x^3.
func cubeSum(x, w *emily.Tensor) *emily.Tensor {
	return emily.Add(emily.Sum(emily.Mul(emily.Mul(emily.Mul(x, x), x), w)), emily.Sum(emily.Sin(x)))
}

// f64 makes a float64 tensor: tests using it call onCPU first.
func f64(vals ...float64) *emily.Tensor { return emily.FromSlice(vals) }

// onCPU makes the CPU the default device for the rest of the test: the
// float64 tests check gradients to 1e-6, and MLX has float64 on the CPU
// only (on a GPU machine FromSlice([]float64) is an error). The float32
// tests (TestGradOfJitEqualsGrad, TestGradInEveryLane) run on the default
// device, the GPU where there is one.
func onCPU(t *testing.T) {
	t.Helper()
	prev := emily.DefaultDevice()
	if err := emily.SetDefaultDevice("cpu"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emily.SetDefaultDevice(prev) })
}

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
	onCPU(t)
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
	onCPU(t)
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
	onCPU(t)
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
	onCPU(t)
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
	onCPU(t)
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

func TestGradOfAHookSaysWhy(t *testing.T) {
	onCPU(t)
	f := func(x *emily.Tensor) *emily.Tensor {
		return emily.Sum(emily.Hook(emily.Mul(x, x), "peek", func(v *emily.Tensor) {}))
	}
	err := emily.Try(func() { emily.Grad(f).(fn1)(f64(1, 2)) })
	if err == nil || !strings.Contains(err.Error(), "runs Go code") || strings.Contains(err.Error(), "internal error") {
		t.Fatalf("Grad of a function with a Hook: %v", err)
	}
}

// TestGradBuiltOnOneThreadEvaluatesOnAnother: eager Grad builds its result
// lazily; Go may evaluate it on another OS thread. MLX's transforms once put
// ops on the building thread's default stream, which other threads lack.
func TestGradBuiltOnOneThreadEvaluatesOnAnother(t *testing.T) {
	onCPU(t)
	f := func(x *emily.Tensor) *emily.Tensor { return emily.Sum(emily.Mul(x, x)) }
	g := func(x *emily.Tensor) *emily.Tensor { return emily.Mul(x, x) }
	built := make(chan []*emily.Tensor)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		x := f64(1, 2, 3)
		_, v := emily.VJP(g, []*emily.Tensor{x}, []*emily.Tensor{f64(1, 1, 1)})
		_, j := emily.JVP(g, []*emily.Tensor{x}, []*emily.Tensor{f64(1, 1, 1)})
		built <- []*emily.Tensor{emily.Grad(f).(fn1)(x), v[0], j[0]}
	}()
	res := <-built
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i, r := range res {
		if err := emily.Try(func() { gradClose(t, "result", r, []float64{2, 4, 6}, 0) }); err != nil {
			t.Errorf("result %d: %v", i, err)
		}
	}
}

// TestGradInEveryLane: in float32 on the default device (the GPU where
// there is one), each autodiff form inside a jitted function gives the
// eager result in every lane, fuse included: the gradient of a gradient,
// StopGradient, ValueAndGrad, VJP, JVP, and Grad around a jitted
// gradient. Native and evaluator equal eager bit for bit; fuse is within
// float32 rounding of the exact values.
func TestGradInEveryLane(t *testing.T) {
	xs := []float32{1, -2, 0.5}
	x := emily.FromSlice(xs)
	cube := func(x *tensor) *tensor { return emily.Sum(emily.Mul(emily.Mul(x, x), x)) }
	sumGrad := func(x *tensor) *tensor { return emily.Sum(emily.Grad(cube).(fn1)(x)) } // sum(3x^2)
	stopped := func(x *tensor) *tensor {
		return emily.Sum(emily.Mul(emily.StopGradient(emily.Mul(x, x)), x))
	}
	sin := func(x *tensor) *tensor { return emily.Sin(x) }
	want := func(f func(v float64) float64) []float64 {
		out := make([]float64, len(xs))
		for i, v := range xs {
			out[i] = f(float64(v))
		}
		return out
	}
	cubeSum := 0.0
	for _, v := range xs {
		cubeSum += float64(v * v * v)
	}
	cases := []struct {
		name string
		f    fn1
		want []float64
	}{
		{"grad of grad", emily.Grad(sumGrad).(fn1), want(func(v float64) float64 { return 6 * v })},
		{"grad of grad of grad", emily.Grad(func(x *tensor) *tensor {
			return emily.Sum(emily.Grad(sumGrad).(fn1)(x))
		}).(fn1), want(func(float64) float64 { return 6 })},
		{"stop gradient", emily.Grad(stopped).(fn1), want(func(v float64) float64 { return v * v })},
		{"value and grad", func(x *tensor) *tensor {
			v, g := emily.ValueAndGrad(cube).(fn1x2)(x)
			return emily.Add(g, v)
		}, want(func(v float64) float64 { return 3*v*v + cubeSum })},
		{"vjp", func(x *tensor) *tensor {
			_, v := emily.VJP(sin, tensors{x}, tensors{emily.OnesLike(x)})
			return v[0]
		}, want(math.Cos)},
		{"jvp", func(x *tensor) *tensor {
			_, j := emily.JVP(sin, tensors{x}, tensors{emily.OnesLike(x)})
			return j[0]
		}, want(math.Cos)},
	}
	for _, c := range cases {
		eager := c.f(x).ToFloat32s()
		gradClose(t, c.name+" eager", emily.FromSlice(eager), c.want, 1e-5)
		for _, l := range cfLanes {
			got := emily.Jit(c.f, l.opt).(fn1)(x)
			if l.name == "fuse" {
				gradClose(t, c.name+" fuse", got, c.want, 1e-5)
				continue
			}
			if g := got.ToFloat32s(); !equal(g, eager) {
				t.Errorf("%s %s: %v, eager %v: not bit-identical", c.name, l.name, g, eager)
			}
		}
	}
	// Grad around a jitted gradient: the outer trace inlines the jitted
	// function, whatever its lane.
	for _, l := range cfLanes {
		gradClose(t, "Grad(Jit(Grad)) "+l.name, emily.Grad(emily.Jit(sumGrad, l.opt)).(fn1)(x),
			want(func(v float64) float64 { return 6 * v }), 1e-5)
	}
}

func intSum(x *tensor) *tensor    { return emily.Sum(x) }
func invLoss(x *tensor) *tensor   { return emily.Sum(emily.Inv(emily.Exp(x))) }
func notScalar(x *tensor) *tensor { return emily.Mul(x, x) }

// TestGradErrorsInsideJit: the errors of TestGradErrors, raised while a
// jitted function traces its gradient, in every lane, name the user's
// function (not reflect's stub), the op, the shapes and the fix; so do
// VJP and JVP given integer primals, eagerly and jitted.
func TestGradErrorsInsideJit(t *testing.T) {
	ints := emily.FromSlice([]int32{1, 2})
	mat := emily.FromSlice([]float32{1, 0.5, 0.25, 2}, 2, 2)
	vec := emily.FromSlice([]float32{1, 2})
	if j, err := emily.Compile(emily.Grad(intSum)); err != nil || j.Name() != "Grad(emily_test.intSum)" {
		t.Errorf("Compile(Grad(intSum)): name %q, err %v", j.Name(), err)
	}
	if j, err := emily.Compile(emily.ValueAndGrad(emily.Jit(invLoss))); err != nil || j.Name() != "ValueAndGrad(emily_test.invLoss)" {
		t.Errorf("Compile(ValueAndGrad(Jit(invLoss))): name %q, err %v", j.Name(), err)
	}
	vjp := func(x *tensor) *tensor {
		_, v := emily.VJP(intSum, tensors{x}, tensors{emily.Scalar(1)})
		return v[0]
	}
	jvp := func(x *tensor) *tensor {
		_, j := emily.JVP(intSum, tensors{x}, tensors{x})
		return j[0]
	}
	cases := []struct {
		name string
		f    fn1
		x    *tensor
		want []string
	}{
		{"integer input", emily.Grad(intSum).(fn1), ints,
			[]string{"Grad(emily_test.intSum)", "argument 0 of emily_test.intSum is int32[2]", "floating-point", "Astype"}},
		{"not differentiable", emily.Grad(invLoss).(fn1), mat,
			[]string{"Grad(emily_test.invLoss)", "emily_test.invLoss:", "cannot differentiate", "inv", "StopGradient"}},
		{"non-scalar", emily.Grad(notScalar).(fn1), vec,
			[]string{"Grad(emily_test.notScalar)", "first result of emily_test.notScalar is float32[2]", "0-d", "Sum"}},
		{"VJP integer primal", vjp, ints, []string{"VJP", "int32[2]", "Astype"}},
		{"JVP integer primal", jvp, ints, []string{"JVP", "int32[2]", "Astype"}},
	}
	for _, c := range cases {
		runs := map[string]func(){"eager": func() { c.f(c.x) }}
		for _, l := range cfLanes {
			f := emily.Jit(c.f, l.opt).(fn1)
			runs[l.name] = func() { f(c.x) }
		}
		for lane, run := range runs {
			msg := cfErrOf(run)
			want := c.want
			if lane == "eager" && strings.HasPrefix(want[0], "Grad(") {
				want = want[1:] // eagerly there is no jitted function to name
			}
			cfWantErr(t, lane+" "+c.name, msg, want...)
			if strings.Contains(msg, "makeFuncStub") {
				t.Errorf("%s %s: the error names reflect's stub: %s", lane, c.name, msg)
			}
		}
	}
}

func remLoss(x *tensor) *tensor {
	_, r := emily.DivMod(x, 0.75)
	return emily.Sum(r)
}

// TestGradRefusesWrongGradients: MLX's divmod VJP runs and returns zero,
// wrong for the remainder (whose derivative is 1): differentiating
// through DivMod's remainder is an error naming the function, the op and
// the fix, eagerly, jitted, and inside a loop body; the quotient, a
// remainder behind StopGradient or off the path to the result, and
// Remainder itself differentiate.
func TestGradRefusesWrongGradients(t *testing.T) {
	x := emily.FromSlice([]float32{1.25, -2, 0.5})
	inLoop := func(x *tensor) *tensor {
		return emily.Sum(emily.While(func(s tensors) *tensor { return emily.Less(s[0], 2) },
			func(s tensors) tensors {
				_, r := emily.DivMod(s[1], 0.75)
				return tensors{emily.Add(s[0], 1), r}
			}, emily.ScalarOf(0, emily.Int32), x)[1])
	}
	vjpRem := func(x *tensor) *tensor {
		_, v := emily.VJP(func(x *tensor) *tensor { _, r := emily.DivMod(x, 0.75); return r },
			tensors{x}, tensors{emily.OnesLike(x)})
		return v[0]
	}
	for name, f := range map[string]fn1{
		"Grad": emily.Grad(remLoss).(fn1), "Grad of a loop": emily.Grad(inLoop).(fn1), "VJP": vjpRem,
	} {
		want := []string{"DivMod's remainder", "no correct gradient", "emily.Remainder", "StopGradient"}
		if name == "Grad" {
			want = append(want, "emily_test.remLoss")
		}
		cfWantErr(t, name+" eager", cfErrOf(func() { f(x) }), want...)
		for _, l := range cfLanes {
			g := emily.Jit(f, l.opt).(fn1)
			cfWantErr(t, name+" "+l.name, cfErrOf(func() { g(x) }), want...)
		}
	}
	ok := map[string]struct {
		f    func(*tensor) *tensor
		want []float64
	}{
		"quotient": {func(x *tensor) *tensor { q, _ := emily.DivMod(x, 0.75); return emily.Sum(q) }, []float64{0, 0, 0}},
		"stopped remainder": {func(x *tensor) *tensor {
			_, r := emily.DivMod(x, 0.75)
			return emily.Sum(emily.Mul(emily.StopGradient(r), x))
		}, []float64{0.5, 0.25, 0.5}},
		"dead remainder": {func(x *tensor) *tensor {
			emily.DivMod(x, 0.75)
			return emily.Sum(emily.Mul(x, x))
		}, []float64{2.5, -4, 1}},
		"Remainder": {func(x *tensor) *tensor { return emily.Sum(emily.Remainder(x, 0.75)) }, []float64{1, 1, 1}},
	}
	for name, c := range ok {
		gradClose(t, name, emily.Grad(c.f).(fn1)(x), c.want, 1e-6)
		gradClose(t, name+" jitted", emily.Jit(emily.Grad(c.f)).(fn1)(x), c.want, 1e-6)
	}
}
