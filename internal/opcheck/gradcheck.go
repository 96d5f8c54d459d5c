package opcheck

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/opspec"
	"github.com/emily-go/emily/internal/testhooks"
)

// The gradient check: every op the spec marks Grad is differentiated by
// emily.Grad (MLX's own vjp, DESIGN.md decision 8) and compared with
// central finite differences, in float64 on the CPU where the op takes
// float64. For each sample, the loss is L = Σ_k sum(out_k · W_k) with fixed
// random weights W_k over the op's floating-point results, and for each
// floating-point operand x the check compares the directional derivative
// ⟨∂L/∂x, V⟩ with (L(x+hV) − L(x−hV)) / 2h along two random directions V.
// The first sample also checks the gradient jitted in every lane, both
// Jit(Grad(loss)) and Grad(Jit(loss)), against the eager Grad
// (checkGradLanes).

// errNothingToCheck: the sample has no floating-point result.
var errNothingToCheck = errors.New("no floating-point result to differentiate")

// GradFailure is one op whose gradient disagrees or fails.
type GradFailure struct {
	Op, Case string
	Err      string
}

// GradSummary counts what CheckGradients checked.
type GradSummary struct {
	Ops, Cases, Directions int
	StillNoGrad            int      // ops without a gradient (NoGrad) that MLX still refuses
	Float32                []string // ops checked in float32: they do not take float64
	Failures               []GradFailure
}

// gradTolerance gives the step and relative tolerance for an op: float64
// to 1e-6; ops MLX's CPU computes at float32 precision in float64 (Tol64),
// ops without float64 and results of lower precision (Astype) with larger
// steps and looser tolerances. dt is the lowest precision among the
// operands and results.
func gradTolerance(op opspec.Op, dt string) (h, rtol float64) {
	switch {
	case dt == "float16" || dt == "bfloat16":
		return 1e-1, 5e-2
	case dt == "float32" || dt == "complex64":
		return 1e-2, 2e-2
	case op.Tol64 > 0:
		return 1e-3, 1e-3
	}
	return 1e-5, 1e-6
}

// lowerPrecision returns the less precise of two float dtypes.
func lowerPrecision(a, b string) string {
	rank := map[string]int{"float64": 4, "float32": 3, "complex64": 3, "float16": 1, "bfloat16": 0}
	if rank[b] < rank[a] {
		return b
	}
	return a
}

// GradDType is the dtype an op's gradient is checked in.
func GradDType(op opspec.Op) string {
	if slices.Contains(op.DTypes, "float64") {
		return "float64"
	}
	return "float32"
}

// CheckGradients checks every Grad op whose name matches only (all when
// nil). Run it on the CPU device (float64).
func CheckGradients(only *regexp.Regexp) GradSummary {
	var sum GradSummary
	for _, op := range opspec.All() {
		if only != nil && !only.MatchString(op.Name) {
			continue
		}
		if !op.Grad {
			if op.NoGrad != "" {
				checkStillNoGrad(op, &sum)
			}
			continue
		}
		fns := functionsOf(op)
		if len(fns) == 0 {
			sum.Failures = append(sum.Failures, GradFailure{Op: op.Name, Err: "no call in the check table"})
			continue
		}
		sum.Ops++
		dt := GradDType(op)
		if dt != "float64" {
			sum.Float32 = append(sum.Float32, op.Name)
		}
		for si, sample := range op.Samples {
			id := fmt.Sprintf("%s-grad-%s-%d", op.Name, dt, si)
			fn, ok := callFor(fns, sample)
			if !ok {
				continue
			}
			n, err := checkGradCase(op, fn, dt, id, sample, si == 0)
			sum.Directions += n
			if err == errNothingToCheck {
				continue
			}
			if err != nil {
				sum.Failures = append(sum.Failures, GradFailure{Op: op.Name, Case: id, Err: err.Error()})
				continue
			}
			sum.Cases++
		}
	}
	return sum
}

func checkGradCase(op opspec.Op, fn namedCall, dt, id string, sample opspec.Sample, withLanes bool) (checked int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	r := newRNG(id)
	attrs := map[string]any{}
	for k, v := range sample.Attrs {
		attrs[k] = v
	}
	for k, v := range fn.fixed {
		attrs[k] = v
	}
	var ins []*emily.Tensor
	var diff []int // the floating-point operands
	for i := range sample.Shapes {
		t, name := operand(r, op, dt, sample, i, attrs, false)
		ins = append(ins, t)
		if idt := t.DType().String(); isFloat(idt) && idt != "complex64" && !slices.Contains(op.NoGradOperands, name) {
			diff = append(diff, i)
		}
	}
	if len(diff) == 0 {
		return 0, fmt.Errorf("no floating-point operand to differentiate")
	}
	// Fixed random weights, one per floating-point result.
	eager := fn.call(ins, attrs)
	weights := make([]*emily.Tensor, len(eager))
	anyFloat := false
	prec := dt
	for k, o := range eager {
		odt := o.DType().String()
		if odt == "complex64" {
			odt = "float32"
		} else if !isFloat(odt) {
			continue
		}
		anyFloat = true
		prec = lowerPrecision(prec, odt)
		w := make([]float64, o.Size())
		for i := range w {
			w[i] = r.uniform(-1, 1)
		}
		weights[k] = tensorOf(w, odt, o.Shape())
	}
	if !anyFloat {
		return 0, errNothingToCheck // Astype to an integer: no gradient flows
	}
	loss := func(xs []*emily.Tensor) *emily.Tensor {
		var total *emily.Tensor
		for k, o := range fn.call(xs, attrs) {
			w := weights[k]
			if w == nil {
				continue
			}
			var term *emily.Tensor
			if o.DType() == emily.Complex64 {
				term = emily.Add(emily.Sum(emily.Mul(emily.Real(o), w)), emily.Sum(emily.Mul(emily.Imag(o), w)))
			} else {
				term = emily.Sum(emily.Mul(o, w))
			}
			if total == nil {
				total = term
			} else {
				total = emily.Add(total, term)
			}
		}
		return total
	}
	lossFn := tensorFunc(len(ins), 1, func(xs []*emily.Tensor) []*emily.Tensor { return []*emily.Tensor{loss(xs)} })
	grad := emily.Grad(lossFn.Interface(), diff...)
	grads := callFunc(reflect.ValueOf(grad), ins)
	h, rtol := gradTolerance(op, prec)
	for gi, k := range diff {
		x := ins[k].ToFloat64s()
		g := grads[gi].ToFloat64s()
		if !slices.Equal(grads[gi].Shape(), ins[k].Shape()) {
			return checked, fmt.Errorf("gradient of operand %d is %v, the operand %v", k, grads[gi].Shape(), ins[k].Shape())
		}
		for dir := 0; dir < 2; dir++ {
			v := make([]float64, len(x))
			var analytic, scale float64
			for i := range v {
				v[i] = r.uniform(-1, 1)
				analytic += g[i] * v[i]
				scale += math.Abs(g[i] * v[i])
			}
			at := func(sign float64) float64 {
				p := make([]float64, len(x))
				for i := range p {
					p[i] = x[i] + sign*h*v[i]
				}
				xs := append([]*emily.Tensor(nil), ins...)
				xs[k] = exactTensor(p, dt, ins[k].Shape())
				return loss(xs).Item()
			}
			fd := (at(1) - at(-1)) / (2 * h)
			checked++
			if math.IsNaN(analytic) || math.Abs(fd-analytic) > rtol*math.Max(1, scale+math.Abs(fd)) {
				return checked, fmt.Errorf("operand %d (%s), direction %d: MLX's gradient gives %.10g, finite differences %.10g (h %g)",
					k, describe(ins[k]), dir, analytic, fd, h)
			}
		}
	}
	if withLanes {
		if err := checkGradLanes(lossFn.Interface(), diff, ins, grads); err != nil {
			return checked, err
		}
	}
	return checked, nil
}

// GradFuse says whether the lane check covers the fuse lane (Jit(Grad(f))
// under mlx::core::compile). On by default; set from EMILY_GRAD_FUSE.
var GradFuse = true

// checkGradLanes checks that the gradient grads of loss (the eager Grad
// with respect to the operands diff) is what Grad gives jitted, in every
// lane: Jit(Grad(loss)) traces the gradient into a program, and
// Grad(Jit(loss)) differentiates the jitted function (which Grad's trace
// inlines). Native and evaluator must equal eager bit for bit, fuse stay
// within FuseULP of native (fused kernels may reassociate).
func checkGradLanes(loss any, diff []int, ins, grads []*emily.Tensor) error {
	var native []*emily.Tensor
	for _, lane := range lanes {
		if lane.name == "fuse" && !GradFuse {
			continue
		}
		forms := []struct {
			name string
			f    any
		}{
			{"Jit(Grad(f))", emily.Jit(emily.Grad(loss, diff...), lane.opts...)},
			{"Grad(Jit(f))", emily.Grad(emily.Jit(loss, lane.opts...), diff...)},
		}
		for _, form := range forms {
			got := callFunc(reflect.ValueOf(form.f), ins)
			for i := range grads {
				if lane.name == "fuse" {
					if why := withinULP(native[i], got[i], FuseULP); why != "" {
						return fmt.Errorf("%s in the fuse lane, gradient %d drifts from native: %s", form.name, i, why)
					}
				} else if !sameBits(grads[i], got[i]) {
					return fmt.Errorf("%s in the %s lane, gradient %d differs from eager Grad: %v vs %v",
						form.name, lane.name, i, preview(got[i]), preview(grads[i]))
				}
			}
			if lane.name == "native" && native == nil {
				native = got
			}
		}
	}
	return nil
}

// checkStillNoGrad confirms that MLX still cannot differentiate an op the
// spec says it cannot (NoGrad): a new MLX that can should flip its Grad.
func checkStillNoGrad(op opspec.Op, sum *GradSummary) {
	// Past emily's guard against known-wrong gradients (DivMod's
	// remainder), to see what MLX itself computes.
	testhooks.NoGradientGuard.Store(true)
	defer testhooks.NoGradientGuard.Store(false)
	fns := functionsOf(op)
	if len(fns) == 0 || len(op.Samples) == 0 {
		return
	}
	if op.Package == "distributed" {
		// In one process MLX makes a collective the identity, which
		// differentiates; its missing vjp shows only on two ranks.
		return
	}
	dt := GradDType(op)
	for si, sample := range op.Samples {
		id := fmt.Sprintf("%s-nograd-%s-%d", op.Name, dt, si)
		fn, ok := callFor(fns, sample)
		if !ok {
			continue
		}
		if _, err := checkGradCase(op, fn, dt, id, sample, false); err != nil {
			sum.StillNoGrad++
			return
		}
	}
	sum.Failures = append(sum.Failures, GradFailure{Op: op.Name, Case: op.Name + "-nograd",
		Err: "MLX now differentiates it correctly: set Grad in the spec and drop NoGrad (" + op.NoGrad + ")"})
}

// callFor picks the first of an op's functions that can run sample (an
// Exact sample, a grouped convolution, needs the variant taking groups).
func callFor(fns []namedCall, sample opspec.Sample) (namedCall, bool) {
	for _, fn := range fns {
		if !conflicts(sample, fn.fixed) {
			return fn, true
		}
	}
	return namedCall{}, false
}

// exactTensor makes a tensor of dtype dt from values without the float32
// rounding tensorOf applies (the perturbation h is below float32's ULP).
func exactTensor(vals []float64, dt string, shape []int) *emily.Tensor {
	if dt != "float64" {
		return tensorOf(vals, dt, shape)
	}
	if len(shape) == 0 {
		return emily.FromSlice(vals).Reshape() // FromSlice with no dims is 1-D
	}
	return emily.FromSlice(vals, shape...)
}

func describe(t *emily.Tensor) string { return fmt.Sprintf("%s%v", t.DType(), t.Shape()) }

// tensorFunc makes a func of nIn *Tensor parameters and nOut results.
func tensorFunc(nIn, nOut int, body func([]*emily.Tensor) []*emily.Tensor) reflect.Value {
	tt := reflect.TypeOf((*emily.Tensor)(nil))
	in := make([]reflect.Type, nIn)
	for i := range in {
		in[i] = tt
	}
	out := make([]reflect.Type, nOut)
	for i := range out {
		out[i] = tt
	}
	return reflect.MakeFunc(reflect.FuncOf(in, out, false), func(args []reflect.Value) []reflect.Value {
		ts := make([]*emily.Tensor, len(args))
		for i, a := range args {
			ts[i] = a.Interface().(*emily.Tensor)
		}
		res := body(ts)
		vs := make([]reflect.Value, len(res))
		for i, r := range res {
			vs[i] = reflect.ValueOf(r)
		}
		return vs
	})
}

// callFunc calls a func of *Tensor parameters and results.
func callFunc(f reflect.Value, args []*emily.Tensor) []*emily.Tensor {
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		in[i] = reflect.ValueOf(a)
	}
	var out []*emily.Tensor
	for _, r := range f.Call(in) {
		out = append(out, r.Interface().(*emily.Tensor))
	}
	return out
}
