package opspec

// Distributed ops: MLX's collectives (mlx/distributed/ops.h) over a group
// of processes, DESIGN.md decision 14. Their Go API is in package
// distributed, whose *Group is the group attribute (nil: the world); the
// cores (mlxbind/distributed.cc) look the group up and check what its
// backend lacks first. In a one-process world every reduction is the
// identity, as MLX makes it, which is what the single-process op check
// sees; the distributed package's tests run them on two ranks. The
// family has no hint: the cores' errors carry their own fix (a backend's
// alternative, a peer in range), and what no rank can check alone (every
// rank calling the op, with one shape) is in the package doc.

var groupAttr = Attr{Name: "group", Kind: Group}

var distributedOps = []Op{
	{Name: "AllSum", Inputs: []string{"x"}, Attrs: []Attr{groupAttr}, Cpp: "dist_all_sum(x, group, s)",
		MLX: "mx.distributed.all_sum", NumPy: "x", DTypes: Numeric, Grad: true,
		Doc: "is the elementwise sum of x over every rank of the group, on every rank. Its gradient is the cotangent itself, " +
			"as MLX defines it (each rank's loss gets the gradient of its own term; average gradients with nn.AverageGradients)."},
	{Name: "AllGather", Inputs: []string{"x"}, Attrs: []Attr{groupAttr}, Cpp: "dist_all_gather(x, group, s)",
		MLX: "mx.distributed.all_gather", NumPy: "x", DTypes: Numeric, Grad: true,
		Samples: unarySamples[1:],
		Doc: "concatenates every rank's x along axis 0, in rank order: (size·n, …) from (n, …). Its gradient is this rank's slice " +
			"of the cotangent, as MLX defines it."},
	{Name: "AllMax", Inputs: []string{"x"}, Attrs: []Attr{groupAttr}, Cpp: "dist_all_max(x, group, s)",
		MLX: "mx.distributed.all_max", NumPy: "x", DTypes: Numeric, Grad: true,
		Doc: "is the elementwise maximum of x over every rank of the group. MLX passes the cotangent through unchanged " +
			"as its gradient (the same rule as AllSum's), not only to the rank that held the maximum."},
	{Name: "AllMin", Inputs: []string{"x"}, Attrs: []Attr{groupAttr}, Cpp: "dist_all_min(x, group, s)",
		MLX: "mx.distributed.all_min", NumPy: "x", DTypes: Numeric, Grad: true,
		Doc: "is the elementwise minimum of x over every rank of the group. MLX passes the cotangent through unchanged " +
			"as its gradient (the same rule as AllSum's)."},
	noGrad(Op{Name: "SumScatter", Inputs: []string{"x"}, Attrs: []Attr{groupAttr}, Cpp: "dist_sum_scatter(x, group, s)",
		MLX: "mx.distributed.sum_scatter", NumPy: "x", DTypes: Numeric, Samples: unarySamples[1:],
		Doc: "sums x over the group and gives each rank its part of axis 0: rank r gets rows r·n/size … (r+1)·n/size of the sum. " +
			"Axis 0 must split evenly. The ring backend has none (AllSum and a Slice do the same)."},
		"MLX has no vjp for sum_scatter"),
	noGrad(Op{Name: "Send", Inputs: []string{"x"}, Attrs: []Attr{{Name: "dst", Kind: Int}, groupAttr}, Cpp: "dist_send(x, dst, group, s)",
		MLX: "mx.distributed.send", NumPy: "x", DTypes: Numeric,
		MultiRank: "a one-process group has no other rank to send to",
		Doc: "sends x to rank dst of the group, which must Recv it; the result is a tensor to evaluate (evaluating it sends). " +
			"Ring sends only to its neighbours (rank±1 around the ring); NCCL has no send (use AllGather)."},
		"MLX has no vjp for send"),
	noGrad(Op{Name: "Recv", Attrs: []Attr{{Name: "shape", Kind: Shape}, {Name: "dtype", Kind: DType}, {Name: "src", Kind: Int}, groupAttr},
		Cpp: "dist_recv(shape, dtype, src, group, s)", MLX: "mx.distributed.recv", DTypes: Numeric,
		MultiRank: "a one-process group has no other rank to receive from",
		NoNumPy:   "it receives another rank's tensor",
		Doc: "receives a tensor of the given shape and dtype that rank src of the group Sends. " +
			"Ring receives only from its neighbours; NCCL has no recv (use AllGather)."},
		"MLX has no vjp for recv"),
}
