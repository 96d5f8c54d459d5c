package opspec

// Random numbers with explicit keys, as in MLX and JAX: Key(seed) makes a
// key (uint32[2]), KeySplit derives independent keys from one, and every
// sampler takes a key as its first operand. The same key gives the same
// numbers eagerly, in every jit lane and in every run (random_test.go).
// There is no hidden global generator state.

const randomNoNumPy = "random: NumPy has another generator; random_test.go checks the same key gives bit-identical numbers eagerly, in every jit lane and across processes, and the distributions' moments, ranges and frequencies"

const keyHint = "key must be a key from Key(seed) or KeySplit: uint32 with shape (2,)"

var keyOperand = map[string]string{"key": "uint32"}

var keyDomain = map[string]Domain{"key": Keys}

// sampler declares a row whose first operand is a key.
func sampler(op Op) Op {
	op.Inputs = append([]string{"key"}, op.Inputs...)
	op.OperandDTypes = keyOperand
	op.OperandDomains = keyDomain
	op.NoNumPy = randomNoNumPy
	if op.DTypes == nil {
		op.DTypes = DTypeSet{"float32"}
	}
	if op.Hint == "" {
		op.Hint = keyHint
	}
	return op
}

var randomOps = []Op{
	{Name: "Key", Attrs: []Attr{{Name: "seed", Kind: Int64}}, Cpp: "mx::random::key(static_cast<uint64_t>(seed))",
		MLX: "mx.random.key", NumPy: "key_ref(seed)", DTypes: DTypeSet{"uint32"},
		Doc: "makes the random key for seed: uint32[2], the seed's high and low 32 bits.",
		Samples: []Sample{
			{Attrs: map[string]any{"seed": 0}},
			{Attrs: map[string]any{"seed": 42}},
			{Attrs: map[string]any{"seed": 1<<40 + 7}},
		}},
	sampler(Op{Name: "KeySplit", IR: "key_split", Attrs: []Attr{{Name: "num", Kind: Int}}, OutputsFrom: "num",
		Cpp: "key_split(key, num, s)", MLX: "mx.random.split", DTypes: DTypeSet{"uint32"},
		Doc: "derives num new independent keys from key (use each once; do not reuse key itself afterwards).",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"num": 2}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"num": 5}},
		}}),
	sampler(Op{Name: "Uniform", Attrs: []Attr{{Name: "low", Kind: Float}, {Name: "high", Kind: Float}, {Name: "dtype", Kind: DType}, {Name: "dims", Kind: Shape, Variadic: true}},
		Fixed:    map[string]any{"dtype": "float32"},
		Variants: []Variant{{Name: "UniformOf", Doc: "is Uniform with a float dtype."}},
		Cpp:      "mx::random::uniform(mx::array(low, dtype), mx::array(high, dtype), dims, dtype, key, s)", MLX: "mx.random.uniform",
		Doc: "draws float32 values uniformly from [low, high) with shape dims.",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"low": 0.0, "high": 1.0, "dtype": "float32", "dims": []int{100}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"low": -2.0, "high": 3.0, "dtype": "float16", "dims": []int{3, 4}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"low": 0.0, "high": 1.0, "dtype": "bfloat16", "dims": []int{0}}},
		}}),
	sampler(Op{Name: "Normal", Attrs: []Attr{{Name: "loc", Kind: Float}, {Name: "scale", Kind: Float}, {Name: "dtype", Kind: DType}, {Name: "dims", Kind: Shape, Variadic: true}},
		Fixed:    map[string]any{"loc": 0.0, "scale": 1.0, "dtype": "float32"},
		Variants: []Variant{{Name: "NormalOf", Doc: "is Normal with mean loc, standard deviation scale and a float dtype."}},
		Cpp:      "mx::random::normal(dims, dtype, static_cast<float>(loc), static_cast<float>(scale), key, s)", MLX: "mx.random.normal",
		Doc: "draws standard normal float32 values with shape dims.",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"loc": 0.0, "scale": 1.0, "dtype": "float32", "dims": []int{100}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"loc": 2.0, "scale": 0.5, "dtype": "float16", "dims": []int{3, 4}}},
		}}),
	sampler(Op{Name: "Randint", Attrs: []Attr{{Name: "low", Kind: Int}, {Name: "high", Kind: Int}, {Name: "dtype", Kind: DType}, {Name: "dims", Kind: Shape, Variadic: true}},
		Fixed:    map[string]any{"dtype": "int32"},
		Variants: []Variant{{Name: "RandintOf", Doc: "is Randint with an integer dtype."}},
		Cpp:      "mx::random::randint(mx::array(low), mx::array(high), dims, dtype, key, s)", MLX: "mx.random.randint",
		Doc:  "draws int32 values uniformly from [low, high) with shape dims.",
		Hint: "key must be a key from Key(seed) or KeySplit; dtype an integer type",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"low": 0, "high": 10, "dtype": "int32", "dims": []int{100}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"low": -5, "high": 5, "dtype": "int64", "dims": []int{2, 3}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"low": 3, "high": 200, "dtype": "uint8", "dims": []int{7}}},
		}}),
	sampler(Op{Name: "Bernoulli", Attrs: []Attr{{Name: "p", Kind: Float}, {Name: "dims", Kind: Shape, Variadic: true}},
		Cpp: "mx::random::bernoulli(mx::array(static_cast<float>(p)), dims, key, s)", MLX: "mx.random.bernoulli",
		Doc: "draws bools that are true with probability p, with shape dims.",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"p": 0.3, "dims": []int{100}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"p": 1.0, "dims": []int{2, 2}}},
		}}),
	sampler(Op{Name: "Categorical", Inputs: []string{"logits"}, Attrs: []Attr{{Name: "axis", Kind: Int}, {Name: "num", Kind: Int}},
		Fixed: map[string]any{"num": 0},
		Variants: []Variant{{Name: "CategoricalN",
			Doc: "is num independent Categorical draws per distribution, in a new last axis."}},
		Cpp:  "num > 0 ? categorical_n(logits, axis, num, key, s) : mx::random::categorical(logits, axis, key, s)",
		MLX:  "mx.random.categorical",
		Doc:  "draws an index along axis with probabilities softmax(logits) (unnormalized log-probabilities), one per distribution: the result drops axis (uint32).",
		Hint: "key must be a key from Key(seed) or KeySplit; axis in range; logits float",
		Samples: []Sample{
			{Shapes: shapes([]int{2}, []int{4}), Attrs: map[string]any{"axis": -1, "num": 3}},
			{Shapes: shapes([]int{2}, []int{3, 5}), Attrs: map[string]any{"axis": 0, "num": 2}},
		}}),
	sampler(Op{Name: "Permutation", Attrs: []Attr{{Name: "n", Kind: Int}},
		Cpp: "mx::random::permutation(n, key, s)", MLX: "mx.random.permutation",
		Doc: "is a random permutation of 0..n-1 (int32).",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"n": 10}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"n": 1}},
		}}),
	sampler(Op{Name: "Shuffle", IR: "shuffle", Inputs: []string{"x"}, Attrs: []Attr{{Name: "axis", Kind: Int}},
		Cpp: "mx::random::permutation(x, axis, key, s)", MLX: "mx.random.permutation(x, axis)", DTypes: DTypeSet{"float32", "int32"}, Grad: true,
		Doc:  "is x with its slices along axis in a random order.",
		Hint: "key must be a key from Key(seed) or KeySplit; axis in range",
		Samples: []Sample{
			{Shapes: shapes([]int{2}, []int{6}), Attrs: map[string]any{"axis": 0}},
			{Shapes: shapes([]int{2}, []int{3, 4}), Attrs: map[string]any{"axis": 1}},
		}}),
	sampler(Op{Name: "TruncatedNormal", Attrs: []Attr{{Name: "lower", Kind: Float}, {Name: "upper", Kind: Float}, {Name: "dtype", Kind: DType}, {Name: "dims", Kind: Shape, Variadic: true}},
		Fixed:    map[string]any{"dtype": "float32"},
		Variants: []Variant{{Name: "TruncatedNormalOf", Doc: "is TruncatedNormal with a float dtype."}},
		Cpp:      "mx::random::truncated_normal(mx::array(lower, dtype), mx::array(upper, dtype), dims, dtype, key, s)", MLX: "mx.random.truncated_normal",
		Doc: "draws standard normal float32 values conditioned to lie in [lower, upper], with shape dims.",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"lower": -1.0, "upper": 2.0, "dtype": "float32", "dims": []int{100}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"lower": 0.0, "upper": 1.0, "dtype": "float16", "dims": []int{3}}},
		}}),
	sampler(Op{Name: "Gumbel", Attrs: []Attr{{Name: "dtype", Kind: DType}, {Name: "dims", Kind: Shape, Variadic: true}},
		Fixed:    map[string]any{"dtype": "float32"},
		Variants: []Variant{{Name: "GumbelOf", Doc: "is Gumbel with a float dtype."}},
		Cpp:      "mx::random::gumbel(dims, dtype, key, s)", MLX: "mx.random.gumbel",
		Doc: "draws standard Gumbel float32 values (-log(-log(U))) with shape dims.",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"dtype": "float32", "dims": []int{100}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"dtype": "bfloat16", "dims": []int{2, 2}}},
		}}),
	sampler(Op{Name: "Laplace", Attrs: []Attr{{Name: "loc", Kind: Float}, {Name: "scale", Kind: Float}, {Name: "dtype", Kind: DType}, {Name: "dims", Kind: Shape, Variadic: true}},
		Fixed:    map[string]any{"loc": 0.0, "scale": 1.0, "dtype": "float32"},
		Variants: []Variant{{Name: "LaplaceOf", Doc: "is Laplace with location loc, scale and a float dtype."}},
		Cpp:      "mx::random::laplace(dims, dtype, static_cast<float>(loc), static_cast<float>(scale), key, s)", MLX: "mx.random.laplace",
		Doc: "draws standard Laplace float32 values (density exp(-|x|)/2) with shape dims.",
		Samples: []Sample{
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"loc": 0.0, "scale": 1.0, "dtype": "float32", "dims": []int{100}}},
			{Shapes: shapes([]int{2}), Attrs: map[string]any{"loc": 1.0, "scale": 2.0, "dtype": "float16", "dims": []int{5}}},
		}}),
}
