package nn_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/nn"
)

func rnd(seed int, dims ...int) *emily.Tensor { return emily.Normal(emily.Key(seed), dims...) }

func TestLinearEmbeddingAgainstNumPy(t *testing.T) {
	l := nn.NewLinear(emily.Key(1), 4, 3)
	if got := emily.TreeNames(l); !slices.Equal(got, []string{"weight", "bias"}) {
		t.Errorf("names %v", got)
	}
	if !slices.Equal(l.Weight.Shape(), []int{3, 4}) || !slices.Equal(l.Bias.Shape(), []int{3}) {
		t.Fatalf("shapes %v %v", l.Weight.Shape(), l.Bias.Shape())
	}
	// mlx.nn.Linear's init: U[-1/√in, 1/√in).
	for _, v := range l.Weight.ToFloat64s() {
		if math.Abs(v) > 0.5 {
			t.Errorf("weight %v outside ±1/√4", v)
		}
	}
	x := rnd(2, 2, 5, 4)
	e := nn.NewEmbedding(emily.Key(3), 10, 4)
	ids := emily.FromSlice([]int32{3, 0, 9, 3}, 2, 2)
	ref := numpyRef(t, `
out["lin"] = x @ w.T + b
out["emb"] = e[ids]
out["tied"] = x @ e.T`, map[string]*emily.Tensor{"x": x, "w": l.Weight, "b": l.Bias, "e": e.Weight, "ids": ids})
	closeTo(t, "Linear", l.Forward(x), ref["lin"], 1e-5)
	closeTo(t, "Embedding", e.Forward(ids), ref["emb"], 0)
	closeTo(t, "Embedding.AsLinear", e.AsLinear(x), ref["tied"], 1e-5)
	if got := nn.NewLinear(emily.Key(1), 4, 3).Weight.ToFloat32s(); !slices.Equal(got, l.Weight.ToFloat32s()) {
		t.Error("the same key gave another weight")
	}
	if nn.NewLinearWith(emily.Key(1), 4, 3, false).Bias != nil {
		t.Error("NewLinearWith(bias false) has a bias")
	}
}

// convRef is a direct NumPy convolution, channels last, one spatial
// layout for both ranks: x (N, *S, C), w (O, *K, C/g).
const convRef = `
def conv(x, w, stride, pad, dil, groups):
    nd = x.ndim - 2
    x = np.pad(x, [(0, 0)] + [(p, p) for p in pad] + [(0, 0)])
    N, C, O = x.shape[0], x.shape[-1], w.shape[0]
    K = w.shape[1:-1]
    outs = [(x.shape[1+i] - dil[i]*(K[i]-1) - 1)//stride[i] + 1 for i in range(nd)]
    y = np.zeros([N] + outs + [O])
    cg, og = C // groups, O // groups
    for idx in np.ndindex(*outs):
        for kidx in np.ndindex(*K):
            pos = tuple(idx[i]*stride[i] + kidx[i]*dil[i] for i in range(nd))
            patch = x[(slice(None),) + pos]  # (N, C)
            for g in range(groups):
                wk = w[(slice(g*og, (g+1)*og),) + kidx]  # (og, cg)
                y[(slice(None),) + idx + (slice(g*og, (g+1)*og),)] += patch[:, g*cg:(g+1)*cg] @ wk.T
    return y
`

func TestConvAgainstNumPy(t *testing.T) {
	c1 := nn.NewConv1dWith(emily.Key(4), 4, 6, 3, 2, 1, 1, 2, true)
	x1 := rnd(5, 2, 9, 4)
	c2 := nn.NewConv2dWith(emily.Key(6), 3, 4, []int{3, 2}, []int{1, 2}, []int{1, 0}, []int{1, 1}, 1, true)
	x2 := rnd(7, 2, 6, 5, 3)
	c2d := nn.NewConv2d(emily.Key(8), 3, 2, 3)
	ref := numpyRef(t, convRef+`
out["c1"] = conv(x1, w1, [2], [1], [1], 2) + b1
out["c2"] = conv(x2, w2, [1, 2], [1, 0], [1, 1], 1) + b2
out["c2d"] = conv(x2, w3, [1, 1], [0, 0], [1, 1], 1) + b3`, map[string]*emily.Tensor{
		"x1": x1, "w1": c1.Weight, "b1": c1.Bias, "x2": x2, "w2": c2.Weight, "b2": c2.Bias, "w3": c2d.Weight, "b3": c2d.Bias})
	closeTo(t, "Conv1d (stride 2, padding 1, groups 2)", c1.Forward(x1), ref["c1"], 1e-5)
	closeTo(t, "Conv2d (3×2 kernel, strides 1,2, padding 1,0)", c2.Forward(x2), ref["c2"], 1e-5)
	closeTo(t, "Conv2d", c2d.Forward(x2), ref["c2d"], 1e-5)
	if !slices.Equal(c1.Weight.Shape(), []int{6, 3, 2}) {
		t.Errorf("Conv1d weight %v, want (out, kernel, in/groups)", c1.Weight.Shape())
	}
}

func TestNormsActivationsSequentialAgainstNumPy(t *testing.T) {
	x := rnd(9, 3, 8)
	ln := nn.NewLayerNorm(8)
	ln.Weight, ln.Bias = rnd(10, 8), rnd(11, 8)
	rms := nn.NewRMSNorm(8)
	rms.Weight = rnd(12, 8)
	seq := nn.NewSequential(nn.NewLinear(emily.Key(13), 8, 6), nn.ReLU{}, nn.NewLinear(emily.Key(14), 6, 5), nn.Softmax{})
	s0, s2 := seq.Layers[0].(*nn.Linear), seq.Layers[2].(*nn.Linear)
	ref := numpyRef(t, `
mu = x.mean(-1, keepdims=True); var = x.var(-1, keepdims=True)
out["ln"] = (x - mu) / np.sqrt(var + 1e-5) * g + b
out["rms"] = x / np.sqrt((x*x).mean(-1, keepdims=True) + 1e-5) * r
erf = np.vectorize(math.erf)
out["relu"] = np.maximum(x, 0)
out["gelu"] = 0.5 * x * (1 + erf(x / math.sqrt(2)))
out["gelu_tanh"] = 0.5 * x * (1 + np.tanh(math.sqrt(2/math.pi) * (x + 0.044715 * x**3)))
out["silu"] = x / (1 + np.exp(-x))
out["tanh"] = np.tanh(x)
out["sigmoid"] = 1 / (1 + np.exp(-x))
def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True)); return e / e.sum(-1, keepdims=True)
out["softmax"] = softmax(x)
h = np.maximum(x @ w0.T + b0, 0)
out["seq"] = softmax(h @ w2.T + b2)`, map[string]*emily.Tensor{"x": x, "g": ln.Weight, "b": ln.Bias, "r": rms.Weight,
		"w0": s0.Weight, "b0": s0.Bias, "w2": s2.Weight, "b2": s2.Bias})
	closeTo(t, "LayerNorm", ln.Forward(x), ref["ln"], 1e-5)
	closeTo(t, "RMSNorm", rms.Forward(x), ref["rms"], 1e-5)
	for name, m := range map[string]nn.Module{"relu": nn.ReLU{}, "gelu": nn.GELU{}, "gelu_tanh": nn.GELU{Approx: "tanh"},
		"silu": nn.SiLU{}, "tanh": nn.Tanh{}, "sigmoid": nn.Sigmoid{}, "softmax": nn.Softmax{}} {
		closeTo(t, name, m.Forward(x), ref[name], 1e-5)
	}
	closeTo(t, "Sequential", seq.Forward(x), ref["seq"], 1e-5)
	if got := strings.Join(emily.TreeNames(seq), " "); got != "layers.0.weight layers.0.bias layers.2.weight layers.2.bias" {
		t.Errorf("Sequential names: %s", got)
	}
	// A LayerNorm without affine parameters has no leaves.
	if n := len(emily.TreeFlatten(nn.NewLayerNormWith(8, 1e-6, false, false))); n != 0 {
		t.Errorf("non-affine LayerNorm has %d leaves", n)
	}
}

const attentionRef = `
def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True)); return e / e.sum(-1, keepdims=True)
def heads(z, h):
    B, L, D = z.shape; return z.reshape(B, L, h, D // h).transpose(0, 2, 1, 3)
def rope(z, dims, base):
    L = z.shape[-2]; half = dims // 2
    inv = base ** (-np.arange(half) * 2.0 / dims)
    ang = np.arange(L)[:, None] * inv[None, :]
    c, s = np.cos(ang), np.sin(ang)
    a, b = z[..., :half], z[..., half:dims]
    return np.concatenate([a*c - b*s, a*s + b*c, z[..., dims:]], -1)
def mha(q, k, v, wq, wk, wv, wo, h, mask, use_rope):
    Q, K, V = heads(q @ wq.T, h), heads(k @ wk.T, h), heads(v @ wv.T, h)
    if use_rope:
        Q, K = rope(Q, Q.shape[-1], 10000.0), rope(K, K.shape[-1], 10000.0)
    s = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    o = softmax(s) @ V
    B, H, L, d = o.shape
    return o.transpose(0, 2, 1, 3).reshape(B, L, H * d) @ wo.T
L = x.shape[1]
causal = np.tril(np.ones((L, L), dtype=bool))
out["plain"] = mha(x, y, y, wq, wk, wv, wo, 2, None, False)
out["causal"] = mha(x, x, x, wq, wk, wv, wo, 2, causal, False)
out["masked"] = mha(x, x, x, wq, wk, wv, wo, 2, m.astype(bool), False)
out["rope"] = mha(x, x, x, wq, wk, wv, wo, 2, causal, True)
`

func TestMultiHeadAttentionAgainstNumPy(t *testing.T) {
	a := nn.NewMultiHeadAttention(emily.Key(20), 8, 2)
	if got := strings.Join(emily.TreeNames(a), " "); got != "query_proj.weight key_proj.weight value_proj.weight out_proj.weight" {
		t.Errorf("names: %s", got)
	}
	x, y := rnd(21, 2, 5, 8), rnd(22, 2, 7, 8)
	m := emily.Astype(emily.Greater(emily.Uniform(emily.Key(23), 0, 1, 2, 1, 5, 5), emily.Scalar(0.3)), emily.Int32)
	// Every row keeps its diagonal, so no row is all masked.
	m = emily.Maximum(m, emily.Astype(emily.Eye(5), emily.Int32))
	ref := numpyRef(t, attentionRef, map[string]*emily.Tensor{"x": x, "y": y, "m": m,
		"wq": a.QueryProj.Weight, "wk": a.KeyProj.Weight, "wv": a.ValueProj.Weight, "wo": a.OutProj.Weight})
	closeTo(t, "attention", a.Forward(x, y, y, nil), ref["plain"], 1e-5)
	a.Causal = true
	closeTo(t, "causal attention", a.Forward(x, x, x, nil), ref["causal"], 1e-5)
	closeTo(t, "additive CausalMask", a.Forward(x, x, x, nn.CausalMask(5)), ref["causal"], 1e-5)
	closeTo(t, "bool mask", a.Forward(x, x, x, emily.Astype(m, emily.Bool)), ref["masked"], 1e-5)
	a.RoPE = nn.NewRoPE(4)
	closeTo(t, "causal attention with RoPE", a.Forward(x, x, x, nil), ref["rope"], 1e-4)
}

func TestDropout(t *testing.T) {
	x := emily.Ones(1000)
	d := nn.NewDropout(emily.Key(30), 0.25)
	y := d.Forward(x).ToFloat64s()
	zeros := 0
	for _, v := range y {
		switch {
		case v == 0:
			zeros++
		case math.Abs(v-1/0.75) > 1e-6:
			t.Fatalf("a kept value is %v, want 1/(1-p)", v)
		}
	}
	if zeros < 200 || zeros > 300 {
		t.Errorf("%d of 1000 dropped, want about 250", zeros)
	}
	if !slices.Equal(d.Forward(x).ToFloat64s(), y) {
		t.Error("the same key drew another mask")
	}
	model := struct{ Layers []nn.Module }{[]nn.Module{nn.NewLinear(emily.Key(1), 2, 2), d}}
	nn.AdvanceKeys(&model)
	if slices.Equal(d.Forward(x).ToFloat64s(), y) {
		t.Error("AdvanceKeys kept the mask")
	}
	nn.SetTraining(&model, false)
	if d.Training || !slices.Equal(d.Forward(x).ToFloat64s(), x.ToFloat64s()) {
		t.Error("in evaluation Dropout is not the identity")
	}
	// The key is a leaf (saved with the model) but gets no gradient.
	if got := emily.TreeNames(&model); !slices.Contains(got, "layers.1.key") {
		t.Errorf("names %v lack the dropout key", got)
	}
}

func TestInitializers(t *testing.T) {
	stats := func(x *emily.Tensor) (mean, std, maxAbs float64) {
		v := x.ToFloat64s()
		for _, e := range v {
			mean += e
			maxAbs = math.Max(maxAbs, math.Abs(e))
		}
		mean /= float64(len(v))
		for _, e := range v {
			std += (e - mean) * (e - mean)
		}
		return mean, math.Sqrt(std / float64(len(v))), maxAbs
	}
	k := emily.Key(40)
	// (out 200, k 3, in 100): fan_in 300, fan_out 600.
	cases := []struct {
		name       string
		x          *emily.Tensor
		std, bound float64 // want std (±5%), and |x| <= bound when > 0
	}{
		{"GlorotUniform", nn.GlorotUniform(k, 1, 200, 3, 100), math.Sqrt(6.0/900) / math.Sqrt(3), math.Sqrt(6.0 / 900)},
		{"GlorotNormal", nn.GlorotNormal(k, 1, 200, 3, 100), math.Sqrt(2.0 / 900), 0},
		{"HeUniform", nn.HeUniform(k, math.Sqrt2, 200, 3, 100), math.Sqrt2 * math.Sqrt(3.0/300) / math.Sqrt(3), math.Sqrt2 * math.Sqrt(3.0/300)},
		{"HeNormal", nn.HeNormal(k, math.Sqrt2, 200, 3, 100), math.Sqrt2 / math.Sqrt(300), 0},
		{"Normal", nn.Normal(k, 1, 2, 300, 200), 2, 0},
		{"Uniform", nn.Uniform(k, -3, 1, 300, 200), 4 / math.Sqrt(12), 0},
	}
	for _, c := range cases {
		mean, std, maxAbs := stats(c.x)
		if math.Abs(std-c.std) > 0.05*c.std {
			t.Errorf("%s: std %v, want %v", c.name, std, c.std)
		}
		if c.bound > 0 && maxAbs > c.bound {
			t.Errorf("%s: |x| up to %v beyond %v", c.name, maxAbs, c.bound)
		}
		if c.name == "Normal" && math.Abs(mean-1) > 0.05 || c.name == "Uniform" && math.Abs(mean+1) > 0.05 {
			t.Errorf("%s: mean %v", c.name, mean)
		}
	}
	if err := emily.Try(func() { nn.GlorotUniform(k, 1, 5) }); err == nil || !strings.Contains(err.Error(), "at least 2 axes") {
		t.Errorf("1-d fans: %v", err)
	}
}
