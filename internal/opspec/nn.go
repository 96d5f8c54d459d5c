package opspec

// Neural-network ops. Layout is MLX's, channels last: a 1-D input is
// (N, L, C), 2-D (N, H, W, C), 3-D (N, D, H, W, C); a convolution weight
// is (C_out, K…, C_in/groups), for transposed convolutions too.

var nnFloats = DTypeSet{"float32", "float16", "bfloat16"}

const convHint = "x is channels-last (N, spatial…, C_in) and w (C_out, kernel…, C_in/groups); C_in and C_out must divide by groups"

const poolHint = "x is channels-last (N, spatial…, C); kernel, stride and padding need one entry per spatial axis, padding at most half the kernel"

// activation declares an elementwise activation whose core is in nn.cc.
func nnActivation(name, cpp, numpy, doc string) Op {
	return Op{Name: name, Inputs: []string{"x"}, Cpp: cpp, MLX: "mlx.nn." + Snake(name), NumPy: numpy,
		DTypes: Floats, Grad: true, Doc: doc, Samples: []Sample{
			{Shapes: shapes([]int{})},
			{Shapes: shapes([]int{7})},
			{Shapes: shapes([]int{2, 3})},
			{Shapes: shapes([]int{0, 3})},
		}}
}

// Convolution attributes carry their minimums (Attr.Min): MLX divides by
// groups, strides and dilations without checking them (groups=0 was
// SIGFPE, issue 19).
var conv1dAttrs = []Attr{atLeast(Attr{Name: "stride", Kind: Int}, 1), atLeast(Attr{Name: "padding", Kind: Int}, 0),
	atLeast(Attr{Name: "dilation", Kind: Int}, 1), atLeast(Attr{Name: "groups", Kind: Int}, 1)}

var convNdAttrs = []Attr{atLeast(Attr{Name: "stride", Kind: Ints}, 1), atLeast(Attr{Name: "padding", Kind: Ints}, 0),
	atLeast(Attr{Name: "dilation", Kind: Ints}, 1), atLeast(Attr{Name: "groups", Kind: Int}, 1)}

var convTAttrs = []Attr{atLeast(Attr{Name: "stride", Kind: Ints}, 1), atLeast(Attr{Name: "padding", Kind: Ints}, 0),
	atLeast(Attr{Name: "dilation", Kind: Ints}, 1), atLeast(Attr{Name: "output_padding", Kind: Ints}, 0),
	atLeast(Attr{Name: "groups", Kind: Int}, 1)}

// convNonEmpty: MLX's convolutions divide by the channel counts and the
// kernel size (an empty x or w was SIGFPE, issue 19).
var convNonEmpty = []NonEmpty{{Operand: "x", Axes: []int{-1}, What: "the input channels"},
	{Operand: "w", Axes: []int{0, 1, -1}, What: "the weight (C_out, kernel…, C_in/groups)"}}

var convDefaults = map[string]any{"stride": []int{}, "padding": []int{}, "dilation": []int{}, "groups": 1}

var convTDefaults = map[string]any{"stride": []int{}, "padding": []int{}, "dilation": []int{}, "output_padding": []int{}, "groups": 1}

// sdpaNonEmpty: MLX's attention kernel divides by the head dimension and
// the head counts and the key length (empty operands were SIGFPE, issue
// 19).
var sdpaNonEmpty = []NonEmpty{{Operand: "q", Axes: []int{1, -1}, What: "the heads H_q and the head dimension D"},
	{Operand: "k", Axes: []int{1, -2, -1}, What: "the keys (H_kv, L_k, D)"}, {Operand: "v", Axes: []int{1, -2, -1}, What: "the values (H_kv, L_k, D_v)"}}

func nnConv(x, w []int, attrs map[string]any) Sample {
	return Sample{Shapes: shapes(x, w), Attrs: attrs}
}

// nnGrouped is a convolution sample with groups > 1: its weight's shape
// holds only for its groups, so the functions with groups fixed at 1 skip it.
func nnGrouped(x, w []int, attrs map[string]any) Sample {
	return Sample{Shapes: shapes(x, w), Attrs: attrs, Exact: true}
}

func nnCS(stride, padding, dilation []int, groups int) map[string]any {
	return map[string]any{"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
}

func nnCTS(stride, padding, dilation, outPad []int, groups int) map[string]any {
	return map[string]any{"stride": stride, "padding": padding, "dilation": dilation, "output_padding": outPad, "groups": groups}
}

func nnPool(name, ir, dims string, isMax bool, numpyFn, doc string, samples []Sample) []Op {
	maxFlag := "false"
	if isMax {
		maxFlag = "true"
	}
	if dims == "1" {
		attrs := []Attr{atLeast(Attr{Name: "kernel", Kind: Int}, 1), atLeast(Attr{Name: "stride", Kind: Int}, 0), atLeast(Attr{Name: "padding", Kind: Int}, 0)}
		return []Op{{Name: name, IR: ir, Inputs: []string{"x"}, Attrs: attrs, Fixed: map[string]any{"stride": 0, "padding": 0},
			Variants: []Variant{{Name: name + "With", Doc: "is " + name + " with a stride (0: the kernel size) and padding on both sides."}},
			Cpp:      "pool(x, {kernel}, {stride}, {padding}, " + maxFlag + ", \"" + name + "\", s)", MLX: "mlx.nn." + name[:len(name)-2] + "1d",
			NumPy: numpyFn + "(x, [kernel], [stride], [padding])", DTypes: Floats, Grad: true, Hint: poolHint,
			Doc: doc, Samples: samples}}
	}
	attrs := []Attr{atLeast(Attr{Name: "kernel", Kind: Ints}, 1), atLeast(Attr{Name: "stride", Kind: Ints}, 0), atLeast(Attr{Name: "padding", Kind: Ints}, 0)}
	return []Op{{Name: name, IR: ir, Inputs: []string{"x"}, Attrs: attrs, Fixed: map[string]any{"stride": []int{}, "padding": []int{}},
		Variants: []Variant{{Name: name + "With", Doc: "is " + name + " with strides (none: the kernel size) and padding on both sides of each spatial axis."}},
		Cpp:      "pool(x, kernel, stride, padding, " + maxFlag + ", \"" + name + "\", s)", MLX: "mlx.nn." + name[:len(name)-2] + "2d",
		NumPy: numpyFn + "(x, kernel, stride, padding)", DTypes: Floats, Grad: true, Hint: poolHint,
		Doc: doc, Samples: samples}}
}

var pool1dSamples = []Sample{
	{Shapes: shapes([]int{2, 8, 3}), Attrs: map[string]any{"kernel": 2, "stride": 0, "padding": 0}},
	{Shapes: shapes([]int{1, 7, 2}), Attrs: map[string]any{"kernel": 3, "stride": 2, "padding": 1}},
	{Shapes: shapes([]int{1, 5, 1}), Attrs: map[string]any{"kernel": 5, "stride": 1, "padding": 0}},
}

var pool2dSamples = []Sample{
	{Shapes: shapes([]int{2, 4, 6, 3}), Attrs: map[string]any{"kernel": []int{2, 2}, "stride": []int{}, "padding": []int{}}},
	{Shapes: shapes([]int{1, 5, 5, 2}), Attrs: map[string]any{"kernel": []int{3, 2}, "stride": []int{2, 1}, "padding": []int{1, 1}}},
	{Shapes: shapes([]int{1, 3, 3, 1}), Attrs: map[string]any{"kernel": []int{3, 3}, "stride": []int{1, 1}, "padding": []int{0, 0}}},
}

var axesSamples = []Sample{
	{Shapes: shapes([]int{2, 5}), Attrs: map[string]any{"axes": []int{-1}}},
	{Shapes: shapes([]int{2, 3, 4}), Attrs: map[string]any{"axes": []int{0, 2}}},
	{Shapes: shapes([]int{6}), Attrs: map[string]any{"axes": []int{}}},
	{Shapes: shapes([]int{0, 3}), Attrs: map[string]any{"axes": []int{1}}},
}

var nnOps = nnRows(
	[]Op{
		{Name: "Softmax", Inputs: []string{"x"}, Method: true, Attrs: []Attr{{Name: "axes", Kind: Ints, Variadic: true}},
			Cpp: "mx::softmax(x, axes_or_all(x, axes), false, s)", MLX: "mx.softmax", NumPy: "softmax_ref(x, axes)",
			DTypes: Floats, Grad: true, Hint: axesHint, Samples: axesSamples, Tol64: 1e-6,
			Doc: "is exp(x) / sum(exp(x)) over axes (all when none), computed stably; MLX's fused kernel on the GPU."},
		{Name: "LogSoftmax", Inputs: []string{"x"}, Method: true, Attrs: []Attr{{Name: "axes", Kind: Ints, Variadic: true}},
			Cpp: "x.size() == 0 ? x : mx::subtract(x, mx::logsumexp(x, axes_or_all(x, axes), true, s), s)", MLX: "mlx.nn.log_softmax",
			NumPy: "log_softmax_ref(x, axes)", DTypes: Floats, Grad: true, Hint: axesHint, Samples: axesSamples, Tol64: 1e-6,
			Doc: "is x - logsumexp(x) over axes (all when none): the log of Softmax without its underflow."},
		{Name: "LayerNorm", Inputs: []string{"xwb"}, Variadic: true, Manual: true,
			Attrs: []Attr{{Name: "has_weight", Kind: Bool}, {Name: "has_bias", Kind: Bool}, {Name: "eps", Kind: Float}},
			Cpp:   "layer_norm(xwb, has_weight, has_bias, eps, s)", MLX: "mx.fast.layer_norm",
			NumPy: "layer_norm_ref(xwb, has_weight, has_bias, eps)", DTypes: nnFloats, Grad: true, Tol: 20,
			Doc:  "normalizes x over its last axis to zero mean and unit variance, then scales by weight and shifts by bias (each (D,), nil to skip): LayerNorm(x, weight, bias, 1e-5). MLX's fused kernel.",
			Hint: "weight and bias must have x's last dimension, shape (D,)",
			Samples: []Sample{
				{Shapes: shapes([]int{2, 3, 8}, []int{8}, []int{8}), Attrs: map[string]any{"has_weight": true, "has_bias": true, "eps": 1e-5}},
				{Shapes: shapes([]int{4, 6}), Attrs: map[string]any{"has_weight": false, "has_bias": false, "eps": 1e-5}},
				{Shapes: shapes([]int{3, 5}, []int{5}), Attrs: map[string]any{"has_weight": true, "has_bias": false, "eps": 1e-3}},
				{Shapes: shapes([]int{3, 5}, []int{5}), Attrs: map[string]any{"has_weight": false, "has_bias": true, "eps": 1e-5}},
			}},
		{Name: "RMSNorm", IR: "rms_norm", Inputs: []string{"xw"}, Variadic: true, Manual: true,
			Attrs: []Attr{{Name: "has_weight", Kind: Bool}, {Name: "eps", Kind: Float}},
			Cpp:   "rms_norm(xw, has_weight, eps, s)", MLX: "mx.fast.rms_norm",
			NumPy: "rms_norm_ref(xw, has_weight, eps)", DTypes: nnFloats, Grad: true, Tol: 20,
			Doc:  "divides x by the root mean square of its last axis, then scales by weight ((D,), nil to skip): RMSNorm(x, weight, 1e-5). MLX's fused kernel.",
			Hint: "weight must have x's last dimension, shape (D,)",
			Samples: []Sample{
				{Shapes: shapes([]int{2, 3, 8}, []int{8}), Attrs: map[string]any{"has_weight": true, "eps": 1e-5}},
				{Shapes: shapes([]int{4, 6}), Attrs: map[string]any{"has_weight": false, "eps": 1e-5}},
			}},
		{Name: "RoPE", IR: "rope", Inputs: []string{"x"},
			Attrs: []Attr{{Name: "dims", Kind: Int}, {Name: "traditional", Kind: Bool}, {Name: "base", Kind: Float}, {Name: "scale", Kind: Float}, {Name: "offset", Kind: Int}},
			Cpp:   "mx::fast::rope(x, dims, traditional, static_cast<float>(base), static_cast<float>(scale), offset, std::nullopt, s)",
			MLX:   "mx.fast.rope", NumPy: "rope_ref(x, dims, traditional, base, scale, offset)", DTypes: nnFloats, Grad: true, Tol: 20,
			Doc:  "applies rotary position embeddings to the first dims features of x (…, L, D): position offset+i along the L axis rotates feature pairs by (offset+i)·scale·base^(-2j/dims); traditional pairs adjacent features, otherwise the two halves. MLX's fused kernel.",
			Hint: "x needs at least 3 dimensions (…, L, D) and dims must be even and at most D",
			Samples: []Sample{
				{Shapes: shapes([]int{1, 4, 8}), Attrs: map[string]any{"dims": 8, "traditional": false, "base": 10000.0, "scale": 1.0, "offset": 0}},
				{Shapes: shapes([]int{2, 2, 3, 8}), Attrs: map[string]any{"dims": 4, "traditional": true, "base": 10000.0, "scale": 0.5, "offset": 3}},
				{Shapes: shapes([]int{1, 5, 6}), Attrs: map[string]any{"dims": 6, "traditional": true, "base": 100.0, "scale": 1.0, "offset": 1}},
			}},
		{Name: "ScaledDotProductAttention", Inputs: []string{"q", "k", "v"}, NonEmpty: sdpaNonEmpty,
			Attrs: []Attr{{Name: "scale", Kind: Float}, {Name: "causal", Kind: Bool}},
			Fixed: map[string]any{"causal": false},
			Variants: []Variant{{Name: "ScaledDotProductAttentionCausal", Fixed: map[string]any{"causal": true},
				Doc: "is ScaledDotProductAttention where query i attends only to keys j <= i + (L_k - L_q) (the last query sees every key)."}},
			Cpp: "mx::fast::scaled_dot_product_attention(q, k, v, static_cast<float>(scale), causal ? \"causal\" : \"\", std::nullopt, std::nullopt, false, s)",
			MLX: "mx.fast.scaled_dot_product_attention", NumPy: "sdpa_ref(q, k, v, scale, causal, None)", DTypes: nnFloats, Grad: true, Tol: 20,
			Domain: Small, // bfloat16 rounds a score of 40 by 0.25: keep scores small enough to compare
			Doc:    "is softmax(scale · q kᵀ) v for q (B, H_q, L_q, D) and k, v (B, H_kv, L_k, D); H_q must be a multiple of H_kv (grouped-query attention). MLX's fused kernel.",
			Hint:   "q is (B, H_q, L_q, D), k and v (B, H_kv, L_k, D) with H_q a multiple of H_kv",
			Samples: []Sample{
				{Shapes: shapes([]int{1, 2, 4, 8}, []int{1, 2, 4, 8}, []int{1, 2, 4, 8}), Attrs: map[string]any{"scale": 0.2, "causal": false}},
				{Shapes: shapes([]int{2, 4, 3, 8}, []int{2, 2, 5, 8}, []int{2, 2, 5, 8}), Attrs: map[string]any{"scale": 0.25, "causal": false}},
				{Shapes: shapes([]int{1, 2, 3, 4}, []int{1, 2, 6, 4}, []int{1, 2, 6, 4}), Attrs: map[string]any{"scale": 0.3, "causal": true}},
			}},
		{Name: "ScaledDotProductAttentionMasked", IR: "scaled_dot_product_attention_masked", Inputs: []string{"q", "k", "v", "mask"}, NonEmpty: sdpaNonEmpty,
			Attrs: []Attr{{Name: "scale", Kind: Float}},
			Cpp:   "mx::fast::scaled_dot_product_attention(q, k, v, static_cast<float>(scale), \"array\", mask, std::nullopt, false, s)",
			MLX:   "mx.fast.scaled_dot_product_attention", NumPy: "sdpa_ref(q, k, v, scale, False, mask)", DTypes: nnFloats, Grad: true, Tol: 20,
			Domain: Small,
			Doc:    "is ScaledDotProductAttention with a mask broadcast to (B, H_q, L_q, L_k): a bool mask keeps the true positions, a float mask is added to the scores.",
			Hint:   "q is (B, H_q, L_q, D), k and v (B, H_kv, L_k, D); the mask must broadcast to (B, H_q, L_q, L_k)",
			Samples: []Sample{
				{Shapes: shapes([]int{1, 2, 4, 8}, []int{1, 2, 4, 8}, []int{1, 2, 4, 8}, []int{4, 4}), Attrs: map[string]any{"scale": 0.2}},
				{Shapes: shapes([]int{2, 2, 3, 4}, []int{2, 2, 5, 4}, []int{2, 2, 5, 4}, []int{2, 1, 3, 5}), Attrs: map[string]any{"scale": 0.3}},
			}},
		{Name: "Conv1d", Inputs: []string{"x", "w"}, Attrs: conv1dAttrs, NonEmpty: convNonEmpty,
			Fixed:    map[string]any{"stride": 1, "padding": 0, "dilation": 1, "groups": 1},
			Variants: []Variant{{Name: "Conv1dWith", Doc: "is Conv1d with a stride, zero padding on both sides, a kernel dilation and groups."}},
			Cpp:      "mx::conv1d(x, w, stride, padding, dilation, groups, s)", MLX: "mx.conv1d",
			NumPy: "conv_ref(x, w, [stride], [padding], [dilation], groups)", DTypes: nnFloats, Grad: true, Hint: convHint, Tol: 20,
			Doc: "convolves x (N, L, C_in) with w (C_out, K, C_in): the cross-correlation of deep learning, result (N, L_out, C_out).",
			Samples: []Sample{
				nnConv([]int{2, 9, 3}, []int{4, 3, 3}, map[string]any{"stride": 1, "padding": 0, "dilation": 1, "groups": 1}),
				nnConv([]int{1, 10, 2}, []int{6, 3, 2}, map[string]any{"stride": 2, "padding": 1, "dilation": 2, "groups": 1}),
				// Grouped: 2 groups of 2 input and 3 output channels.
				nnGrouped([]int{2, 8, 4}, []int{6, 3, 2}, map[string]any{"stride": 1, "padding": 1, "dilation": 1, "groups": 2}),
				// Depthwise: one group per input channel.
				nnGrouped([]int{1, 7, 3}, []int{3, 3, 1}, map[string]any{"stride": 2, "padding": 0, "dilation": 1, "groups": 3}),
			}},
		{Name: "Conv2d", Inputs: []string{"x", "w"}, Attrs: convNdAttrs, NonEmpty: convNonEmpty, Fixed: convDefaults,
			Variants: []Variant{{Name: "Conv2dWith", Doc: "is Conv2d with strides, zero padding on both sides, kernel dilations (one entry per spatial axis, or one for all; empty: 1, 0, 1) and groups."}},
			Cpp:      "conv_nd(x, w, 2, stride, padding, dilation, groups, s)", MLX: "mx.conv2d",
			NumPy: "conv_ref(x, w, stride, padding, dilation, groups)", DTypes: nnFloats, Grad: true, Hint: convHint, Tol: 20,
			Doc: "convolves x (N, H, W, C_in) with w (C_out, KH, KW, C_in): result (N, H_out, W_out, C_out).",
			Samples: []Sample{
				nnConv([]int{2, 5, 6, 3}, []int{4, 3, 3, 3}, nnCS([]int{}, []int{}, []int{}, 1)),
				nnConv([]int{1, 7, 6, 2}, []int{4, 3, 2, 2}, nnCS([]int{2, 1}, []int{1, 2}, []int{1, 2}, 1)),
				nnGrouped([]int{1, 5, 5, 4}, []int{4, 3, 3, 2}, nnCS([]int{1}, []int{1}, []int{1}, 2)),
				// Depthwise with a channel multiplier of 2.
				nnGrouped([]int{2, 4, 4, 3}, []int{6, 2, 2, 1}, nnCS([]int{2}, []int{0}, []int{1}, 3)),
			}},
		{Name: "Conv3d", Inputs: []string{"x", "w"}, Attrs: convNdAttrs, NonEmpty: convNonEmpty, Fixed: convDefaults,
			Variants: []Variant{{Name: "Conv3dWith", Doc: "is Conv3d with strides, zero padding on both sides, kernel dilations (one entry per spatial axis, or one for all; empty: 1, 0, 1) and groups (MLX takes groups > 1 in 1-D and 2-D convolutions only)."}},
			Cpp:      "conv_nd(x, w, 3, stride, padding, dilation, groups, s)", MLX: "mx.conv3d",
			NumPy: "conv_ref(x, w, stride, padding, dilation, groups)", DTypes: nnFloats, Grad: true, Hint: convHint, Tol: 20,
			Doc: "convolves x (N, D, H, W, C_in) with w (C_out, KD, KH, KW, C_in): result (N, D_out, H_out, W_out, C_out).",
			Samples: []Sample{
				nnConv([]int{1, 4, 5, 4, 2}, []int{3, 2, 3, 2, 2}, nnCS([]int{}, []int{}, []int{}, 1)),
				nnConv([]int{1, 5, 4, 4, 2}, []int{2, 2, 2, 2, 2}, nnCS([]int{2}, []int{1}, []int{1}, 1)),
			}},
		{Name: "ConvTranspose1d", Inputs: []string{"x", "w"}, Attrs: convTAttrs, NonEmpty: convNonEmpty, Fixed: convTDefaults,
			Variants: []Variant{{Name: "ConvTranspose1dWith", Doc: "is ConvTranspose1d with a stride, padding, dilation, output padding (one entry each; empty: 1, 0, 1, 0) and groups."}},
			Cpp:      "conv_transpose_nd(x, w, 1, stride, padding, dilation, output_padding, groups, s)", MLX: "mx.conv_transpose1d",
			NumPy: "conv_transpose_ref(x, w, stride, padding, dilation, output_padding, groups)", DTypes: nnFloats, Grad: true, Hint: convHint, Tol: 20,
			Doc: "is the transposed convolution (the gradient of Conv1d with respect to its input) of x (N, L, C_in) with w (C_out, K, C_in): result (N, (L-1)·stride - 2·padding + dilation·(K-1) + output_padding + 1, C_out).",
			Samples: []Sample{
				nnConv([]int{2, 5, 3}, []int{4, 3, 3}, nnCTS([]int{}, []int{}, []int{}, []int{}, 1)),
				nnConv([]int{1, 4, 2}, []int{3, 3, 2}, nnCTS([]int{2}, []int{1}, []int{2}, []int{1}, 1)),
				{Shapes: shapes([]int{2, 5, 4}, []int{6, 3, 2}), Attrs: nnCTS([]int{2}, []int{1}, []int{1}, []int{0}, 2), Exact: true},
			}},
		{Name: "ConvTranspose2d", Inputs: []string{"x", "w"}, Attrs: convTAttrs, NonEmpty: convNonEmpty, Fixed: convTDefaults,
			Variants: []Variant{{Name: "ConvTranspose2dWith", Doc: "is ConvTranspose2d with strides, padding, dilations, output padding (one entry per spatial axis, or one for all; empty: 1, 0, 1, 0) and groups."}},
			Cpp:      "conv_transpose_nd(x, w, 2, stride, padding, dilation, output_padding, groups, s)", MLX: "mx.conv_transpose2d",
			NumPy: "conv_transpose_ref(x, w, stride, padding, dilation, output_padding, groups)", DTypes: nnFloats, Grad: true, Hint: convHint, Tol: 20,
			Doc: "is the transposed convolution (the gradient of Conv2d with respect to its input) of x (N, H, W, C_in) with w (C_out, KH, KW, C_in).",
			Samples: []Sample{
				nnConv([]int{1, 3, 4, 2}, []int{3, 2, 3, 2}, nnCTS([]int{}, []int{}, []int{}, []int{}, 1)),
				nnConv([]int{2, 3, 3, 2}, []int{2, 3, 3, 2}, nnCTS([]int{2, 2}, []int{1, 0}, []int{1, 1}, []int{1, 0}, 1)),
				{Shapes: shapes([]int{1, 3, 4, 4}, []int{4, 2, 3, 2}), Attrs: nnCTS([]int{1}, []int{0}, []int{1}, []int{0}, 2), Exact: true},
			}},
		{Name: "ConvTranspose3d", Inputs: []string{"x", "w"}, Attrs: convTAttrs, NonEmpty: convNonEmpty, Fixed: convTDefaults,
			Variants: []Variant{{Name: "ConvTranspose3dWith", Doc: "is ConvTranspose3d with strides, padding, dilations, output padding (one entry per spatial axis, or one for all; empty: 1, 0, 1, 0) and groups."}},
			Cpp:      "conv_transpose_nd(x, w, 3, stride, padding, dilation, output_padding, groups, s)", MLX: "mx.conv_transpose3d",
			NumPy: "conv_transpose_ref(x, w, stride, padding, dilation, output_padding, groups)", DTypes: nnFloats, Grad: true, Hint: convHint, Tol: 20,
			Doc: "is the transposed convolution (the gradient of Conv3d with respect to its input) of x (N, D, H, W, C_in) with w (C_out, KD, KH, KW, C_in).",
			Samples: []Sample{
				nnConv([]int{1, 2, 3, 2, 2}, []int{2, 2, 2, 2, 2}, nnCTS([]int{}, []int{}, []int{}, []int{}, 1)),
				nnConv([]int{1, 2, 2, 2, 1}, []int{2, 3, 3, 3, 1}, nnCTS([]int{2}, []int{1}, []int{1}, []int{1}, 1)),
			}},
	},
	nnPool("MaxPool1d", "max_pool1d", "1", true, "max_pool_ref",
		"is the maximum over windows of kernel steps along L of x (N, L, C), the stride equal to the kernel.", pool1dSamples),
	nnPool("AvgPool1d", "avg_pool1d", "1", false, "avg_pool_ref",
		"is the mean over windows of kernel steps along L of x (N, L, C), the stride equal to the kernel (padding counts as zeros).", pool1dSamples),
	nnPool("MaxPool2d", "max_pool2d", "2", true, "max_pool_ref",
		"is the maximum over kernel windows (KH, KW) of x (N, H, W, C), the strides equal to the kernel.", pool2dSamples),
	nnPool("AvgPool2d", "avg_pool2d", "2", false, "avg_pool_ref",
		"is the mean over kernel windows (KH, KW) of x (N, H, W, C), the strides equal to the kernel (padding counts as zeros).", pool2dSamples),
	[]Op{
		nnActivation("Relu", "relu(x, s)", "np.maximum(x, x.dtype.type(0))", "is max(x, 0)."),
		{Name: "LeakyRelu", Inputs: []string{"x"}, Attrs: []Attr{{Name: "slope", Kind: Float}}, Cpp: "leaky_relu(x, slope, s)",
			MLX: "mlx.nn.leaky_relu", NumPy: "np.maximum(x * x.dtype.type(slope), x)", DTypes: Floats, Grad: true,
			Doc: "is x where x > 0 and slope·x elsewhere (for slope < 1).",
			Samples: []Sample{
				{Shapes: shapes([]int{7}), Attrs: map[string]any{"slope": 0.01}},
				{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"slope": 0.2}},
			}},
		{Name: "Elu", Inputs: []string{"x"}, Attrs: []Attr{{Name: "alpha", Kind: Float}}, Cpp: "elu(x, alpha, s)",
			MLX: "mlx.nn.elu", NumPy: "np.where(x > 0, x, x.dtype.type(alpha) * np.expm1(x))", DTypes: Floats, Grad: true,
			Doc: "is x where x > 0 and alpha·(exp(x) - 1) elsewhere.", Domain: Small, Tol: 5,
			Samples: []Sample{
				{Shapes: shapes([]int{7}), Attrs: map[string]any{"alpha": 1.0}},
				{Shapes: shapes([]int{2, 3}), Attrs: map[string]any{"alpha": 0.5}},
			}},
		nnTol64(nnTol(nnActivation("Gelu", "gelu(x, s)", "gelu_ref(x)", "is x·Φ(x), Φ the standard normal CDF (the exact GELU, through erf)."), 5), 1e-6),
		nnTol(nnActivation("GeluTanh", "gelu_tanh(x, s)", "gelu_tanh_ref(x)", "is the tanh approximation of GELU: x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))."), 5),
		nnTol64(nnTol(nnActivation("Silu", "silu(x, s)", "x / (x.dtype.type(1) + np.exp(-x))", "is x·sigmoid(x) (swish)."), 5), 1e-6),
		nnTol64(nnTol(nnActivation("Softplus", "mx::logaddexp(x, mx::array(0, x.dtype()), s)", "np.logaddexp(x, x.dtype.type(0))", "is log(1 + exp(x)), computed without overflow."), 5), 1e-6),
		nnTol64(nnTol(nnActivation("LogSigmoid", "mx::negative(mx::logaddexp(mx::negative(x, s), mx::array(0, x.dtype()), s), s)", "-np.logaddexp(-x, x.dtype.type(0))", "is log(sigmoid(x)) = -softplus(-x), computed without overflow."), 5), 1e-6),
	},
	[]Op{
		{Name: "RoPEAt", IR: "rope_at", Inputs: []string{"x", "offset"}, Manual: true,
			Attrs: []Attr{{Name: "dims", Kind: Int}, {Name: "traditional", Kind: Bool}, {Name: "base", Kind: Float}, {Name: "scale", Kind: Float}},
			Cpp:   "rope_at(x, dims, traditional, base, scale, offset, s)",
			MLX:   "mx.fast.rope", NumPy: "rope_at_ref(x, dims, traditional, base, scale, offset)", DTypes: nnFloats, Grad: true, Tol: 20,
			OperandDTypes:  map[string]string{"offset": "int32"},
			OperandDomains: map[string]Domain{"offset": Position},
			Doc: "is RoPE with the position offset an integer tensor: a scalar, or one offset per x.shape[0] (a batch of sequences at different positions). " +
				"Inside Jit one traced program then serves every position, where RoPE's int offset is part of the program (a new one per token).",
			Hint: "x needs at least 3 dimensions (…, L, D), dims must be even and at most D, and offset is an integer scalar or has x.shape[0] entries",
			Samples: []Sample{
				{Shapes: shapes([]int{1, 4, 8}, []int{}), Attrs: map[string]any{"dims": 8, "traditional": false, "base": 10000.0, "scale": 1.0}},
				{Shapes: shapes([]int{2, 2, 3, 8}, []int{}), Attrs: map[string]any{"dims": 4, "traditional": true, "base": 10000.0, "scale": 0.5}},
				{Shapes: shapes([]int{3, 1, 6}, []int{3}), Attrs: map[string]any{"dims": 6, "traditional": false, "base": 100.0, "scale": 1.0}},
				{Shapes: shapes([]int{2, 2, 1, 8}, []int{2}), Attrs: map[string]any{"dims": 8, "traditional": true, "base": 500000.0, "scale": 1.0}},
			}},
	},
)

func nnRows(lists ...[]Op) []Op {
	var out []Op
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func nnTol(op Op, tol float64) Op { op.Tol = tol; return op }

// nnTol64 is for ops MLX's CPU computes at float32 precision in float64
// (its exp, erf and log are float32 routines).
func nnTol64(op Op, tol float64) Op { op.Tol64 = tol; return op }
