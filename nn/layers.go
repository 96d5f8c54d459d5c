package nn

import (
	"fmt"
	"math"

	"github.com/emily-go/emily"
)

// Module is what Sequential chains: anything with a Forward of one tensor.
type Module interface {
	Forward(x *emily.Tensor) *emily.Tensor
}

// Linear is y = x·Wᵀ + b, with Weight (out, in) and Bias (out) or nil,
// as mlx.nn.Linear.
type Linear struct {
	Weight *emily.Tensor `emily:"weight"`
	Bias   *emily.Tensor `emily:"bias"`
}

// NewLinear makes a Linear from in to out features with a bias, drawn as
// mlx.nn.Linear draws them: U[-1/√in, 1/√in).
func NewLinear(key *emily.Tensor, in, out int) *Linear { return NewLinearWith(key, in, out, true) }

// NewLinearWith is NewLinear with or without the bias.
func NewLinearWith(key *emily.Tensor, in, out int, bias bool) *Linear {
	checkDims("NewLinear", in, out)
	ks := emily.KeySplit(key, 2)
	s := 1 / math.Sqrt(float64(in))
	l := &Linear{Weight: Uniform(ks[0], -s, s, out, in)}
	if bias {
		l.Bias = Uniform(ks[1], -s, s, out)
	}
	return l
}

// Forward maps x (…, in) to (…, out).
func (l *Linear) Forward(x *emily.Tensor) *emily.Tensor {
	y := emily.Matmul(x, emily.Transpose(l.Weight))
	if l.Bias != nil {
		y = emily.Add(y, l.Bias)
	}
	return y
}

func checkDims(op string, dims ...int) {
	for _, d := range dims {
		if d <= 0 {
			panic(&emily.Error{Op: op, Err: fmt.Errorf("sizes %v: each must be positive", dims)})
		}
	}
}

// Embedding maps integer ids to rows of Weight (num, dims), as
// mlx.nn.Embedding.
type Embedding struct {
	Weight *emily.Tensor `emily:"weight"`
}

// NewEmbedding makes num embeddings of dims features, drawn from
// N(0, 1/dims) as mlx.nn.Embedding draws them.
func NewEmbedding(key *emily.Tensor, num, dims int) *Embedding {
	checkDims("NewEmbedding", num, dims)
	return &Embedding{Weight: Normal(key, 0, math.Sqrt(1/float64(dims)), num, dims)}
}

// Forward returns the rows for ids (any shape): (ids…, dims).
func (e *Embedding) Forward(ids *emily.Tensor) *emily.Tensor {
	return emily.Take(e.Weight, ids, 0)
}

// AsLinear uses the embedding as an output projection, x·Weightᵀ (tied
// input and output embeddings).
func (e *Embedding) AsLinear(x *emily.Tensor) *emily.Tensor {
	return emily.Matmul(x, emily.Transpose(e.Weight))
}

// Conv1d convolves x (N, L, in) with Weight (out, kernel, in/groups), plus
// Bias (out), as mlx.nn.Conv1d (channels last).
type Conv1d struct {
	Weight                            *emily.Tensor `emily:"weight"`
	Bias                              *emily.Tensor `emily:"bias"`
	Stride, Padding, Dilation, Groups int
}

// NewConv1d makes a Conv1d with stride 1, no padding and a bias, drawn from
// U[-s, s) with s = 1/√(in·kernel) as mlx.nn.Conv1d draws them.
func NewConv1d(key *emily.Tensor, in, out, kernel int) *Conv1d {
	return NewConv1dWith(key, in, out, kernel, 1, 0, 1, 1, true)
}

// NewConv1dWith is NewConv1d with every setting.
func NewConv1dWith(key *emily.Tensor, in, out, kernel, stride, padding, dilation, groups int, bias bool) *Conv1d {
	checkDims("NewConv1d", in, out, kernel, stride, dilation, groups)
	if in%groups != 0 || out%groups != 0 {
		panic(&emily.Error{Op: "NewConv1d", Err: fmt.Errorf("groups %d must divide in %d and out %d", groups, in, out)})
	}
	ks := emily.KeySplit(key, 2)
	s := 1 / math.Sqrt(float64(in/groups*kernel))
	c := &Conv1d{Weight: Uniform(ks[0], -s, s, out, kernel, in/groups), Stride: stride, Padding: padding, Dilation: dilation, Groups: groups}
	if bias {
		c.Bias = Uniform(ks[1], -s, s, out)
	}
	return c
}

// Forward maps x (N, L, in) to (N, L_out, out).
func (c *Conv1d) Forward(x *emily.Tensor) *emily.Tensor {
	y := emily.Conv1dWith(x, c.Weight, max(c.Stride, 1), c.Padding, max(c.Dilation, 1), max(c.Groups, 1))
	if c.Bias != nil {
		y = emily.Add(y, c.Bias)
	}
	return y
}

// Conv2d convolves x (N, H, W, in) with Weight (out, KH, KW, in/groups),
// plus Bias (out), as mlx.nn.Conv2d (channels last).
type Conv2d struct {
	Weight                    *emily.Tensor `emily:"weight"`
	Bias                      *emily.Tensor `emily:"bias"`
	Stride, Padding, Dilation []int
	Groups                    int
}

// NewConv2d makes a Conv2d with a square kernel, stride 1, no padding and
// a bias, drawn from U[-s, s) with s = 1/√(in·KH·KW).
func NewConv2d(key *emily.Tensor, in, out, kernel int) *Conv2d {
	return NewConv2dWith(key, in, out, []int{kernel, kernel}, []int{1, 1}, []int{0, 0}, []int{1, 1}, 1, true)
}

// NewConv2dWith is NewConv2d with every setting (two entries each).
func NewConv2dWith(key *emily.Tensor, in, out int, kernel, stride, padding, dilation []int, groups int, bias bool) *Conv2d {
	checkDims("NewConv2d", in, out, groups)
	if len(kernel) != 2 {
		panic(&emily.Error{Op: "NewConv2d", Err: fmt.Errorf("kernel %v: want 2 sizes (KH, KW)", kernel)})
	}
	checkDims("NewConv2d", kernel...)
	if in%groups != 0 || out%groups != 0 {
		panic(&emily.Error{Op: "NewConv2d", Err: fmt.Errorf("groups %d must divide in %d and out %d", groups, in, out)})
	}
	ks := emily.KeySplit(key, 2)
	s := 1 / math.Sqrt(float64(in/groups*kernel[0]*kernel[1]))
	c := &Conv2d{Weight: Uniform(ks[0], -s, s, out, kernel[0], kernel[1], in/groups),
		Stride: stride, Padding: padding, Dilation: dilation, Groups: groups}
	if bias {
		c.Bias = Uniform(ks[1], -s, s, out)
	}
	return c
}

// Forward maps x (N, H, W, in) to (N, H_out, W_out, out).
func (c *Conv2d) Forward(x *emily.Tensor) *emily.Tensor {
	y := emily.Conv2dWith(x, c.Weight, c.Stride, c.Padding, c.Dilation, max(c.Groups, 1))
	if c.Bias != nil {
		y = emily.Add(y, c.Bias)
	}
	return y
}

// LayerNorm normalizes the last axis, then scales by Weight and shifts by
// Bias (nil when not affine), as mlx.nn.LayerNorm.
type LayerNorm struct {
	Weight *emily.Tensor `emily:"weight"`
	Bias   *emily.Tensor `emily:"bias"`
	Eps    float64
}

// NewLayerNorm makes an affine LayerNorm over dims features, eps 1e-5,
// Weight ones and Bias zeros.
func NewLayerNorm(dims int) *LayerNorm { return NewLayerNormWith(dims, 1e-5, true, true) }

// NewLayerNormWith is NewLayerNorm with eps, and with or without the
// weight (affine) and the bias.
func NewLayerNormWith(dims int, eps float64, affine, bias bool) *LayerNorm {
	checkDims("NewLayerNorm", dims)
	n := &LayerNorm{Eps: eps}
	if affine {
		n.Weight = emily.Ones(dims)
		if bias {
			n.Bias = emily.Zeros(dims)
		}
	}
	return n
}

// Forward normalizes x (…, dims).
func (n *LayerNorm) Forward(x *emily.Tensor) *emily.Tensor {
	return emily.LayerNorm(x, n.Weight, n.Bias, n.Eps)
}

// RMSNorm divides the last axis by its root mean square, then scales by
// Weight, as mlx.nn.RMSNorm.
type RMSNorm struct {
	Weight *emily.Tensor `emily:"weight"`
	Eps    float64
}

// NewRMSNorm makes an RMSNorm over dims features, eps 1e-5, Weight ones.
func NewRMSNorm(dims int) *RMSNorm {
	checkDims("NewRMSNorm", dims)
	return &RMSNorm{Weight: emily.Ones(dims), Eps: 1e-5}
}

// Forward normalizes x (…, dims).
func (n *RMSNorm) Forward(x *emily.Tensor) *emily.Tensor {
	return emily.RMSNorm(x, n.Weight, n.Eps)
}

// Dropout zeroes each element with probability P while Training and
// scales the rest by 1/(1-P); in evaluation it is the identity. Key is
// its random state, a leaf of the tree (an integer one: it gets no
// gradient), so a checkpoint saves it and a jitted step carries it.
// Forward draws from Key without changing it, because under a gradient
// the model Forward sees is a copy: AdvanceKeys moves every Dropout of a
// model to a fresh key, once per step (optim's TrainStep does it).
// Training starts true, as in mlx.nn; SetTraining switches a whole model.
type Dropout struct {
	P        float64
	Training bool
	Key      *emily.Tensor `emily:"key"`
}

// NewDropout makes a Dropout of probability p in [0, 1).
func NewDropout(key *emily.Tensor, p float64) *Dropout {
	if p < 0 || p >= 1 {
		panic(&emily.Error{Op: "NewDropout", Err: fmt.Errorf("p = %v: want 0 <= p < 1", p)})
	}
	return &Dropout{P: p, Training: true, Key: key}
}

// Forward applies the dropout to x.
func (d *Dropout) Forward(x *emily.Tensor) *emily.Tensor {
	if !d.Training || d.P == 0 {
		return x
	}
	keep := emily.Bernoulli(emily.KeySplit(d.Key, 2)[1], 1-d.P, x.Shape()...)
	return emily.Where(keep, emily.Mul(x, emily.ScalarOf(1/(1-d.P), x.DType())), emily.ScalarOf(0, x.DType()))
}

// SetTraining sets the Training flag of every layer of model that has
// one (Dropout, or a user's layer with a SetTraining(bool) method),
// through the same walk as the parameter trees.
func SetTraining(model any, training bool) {
	visitLayers(model, func(v any) {
		if t, ok := v.(interface{ SetTraining(bool) }); ok {
			t.SetTraining(training)
		}
	})
}

// AdvanceKey replaces d.Key by a key split from it.
func (d *Dropout) AdvanceKey() {
	if d.Key != nil {
		d.Key = emily.KeySplit(d.Key, 2)[0]
	}
}

// AdvanceKeys calls AdvanceKey on every layer of model that has one
// (Dropout), so that the next step draws new masks.
func AdvanceKeys(model any) {
	visitLayers(model, func(v any) {
		if a, ok := v.(interface{ AdvanceKey() }); ok {
			a.AdvanceKey()
		}
	})
}

// SetTraining sets d.Training.
func (d *Dropout) SetTraining(training bool) { d.Training = training }

// Sequential chains layers: Forward runs each on the previous one's
// result, as mlx.nn.Sequential. Its parameters are named
// "layers.0.weight" and so on.
type Sequential struct {
	Layers []Module
}

// NewSequential chains layers.
func NewSequential(layers ...Module) *Sequential { return &Sequential{Layers: layers} }

// Forward runs the layers in order.
func (s *Sequential) Forward(x *emily.Tensor) *emily.Tensor {
	for _, l := range s.Layers {
		x = l.Forward(x)
	}
	return x
}

// The activations as layers, for Sequential; each Forward calls the emily
// function of its name.
type (
	// ReLU is max(x, 0).
	ReLU struct{}
	// GELU is x·Φ(x) (erf form; Approx "tanh" uses the tanh form).
	GELU struct{ Approx string }
	// SiLU is x·sigmoid(x).
	SiLU struct{}
	// Tanh is tanh(x).
	Tanh struct{}
	// Softmax is the softmax over the last axis.
	Softmax struct{}
	// Sigmoid is 1/(1+exp(-x)).
	Sigmoid struct{}
)

func (ReLU) Forward(x *emily.Tensor) *emily.Tensor { return emily.Relu(x) }
func (g GELU) Forward(x *emily.Tensor) *emily.Tensor {
	if g.Approx == "tanh" {
		return emily.GeluTanh(x)
	}
	return emily.Gelu(x)
}
func (SiLU) Forward(x *emily.Tensor) *emily.Tensor    { return emily.Silu(x) }
func (Tanh) Forward(x *emily.Tensor) *emily.Tensor    { return emily.Tanh(x) }
func (Softmax) Forward(x *emily.Tensor) *emily.Tensor { return emily.Softmax(x, -1) }
func (Sigmoid) Forward(x *emily.Tensor) *emily.Tensor { return emily.Sigmoid(x) }

// OneHot returns labels (integer class indices, any shape) as float32
// one-hot vectors: (labels…, classes).
func OneHot(labels *emily.Tensor, classes int) *emily.Tensor {
	checkDims("OneHot", classes)
	return emily.Astype(emily.Equal(emily.ExpandDims(labels, -1), emily.Arange(classes)), emily.Float32)
}

// ValueAndGrad returns a function with lossFn's parameters that returns
// lossFn's results and the gradient with respect to its first parameter,
// the model: a tree of the model's type, with nil for frozen leaves (as
// mlx.nn.value_and_grad). For a loss of type func(*MLP, x, y *Tensor)
// *Tensor it is a func(*MLP, *Tensor, *Tensor) (*Tensor, *MLP).
func ValueAndGrad(lossFn any) any { return emily.ValueAndGrad(lossFn, 0) }
