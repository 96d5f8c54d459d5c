package nn

import (
	"fmt"
	"math"

	"github.com/emily-go/emily"
)

// Initializers, as mlx.nn.init's: each returns a float32 tensor of the
// given dims, drawn with key. Fans are computed as mlx.nn.init computes
// them: for dims (out, in) fan_in is in and fan_out is out; for more axes
// (out, k..., in), both are multiplied by the product of the middle axes
// (the receptive field).

// fans returns fan_in and fan_out for dims.
func fans(op string, dims []int) (fanIn, fanOut float64) {
	if len(dims) < 2 {
		panic(&emily.Error{Op: op, Err: fmt.Errorf("dims %v: fans need at least 2 axes", dims),
			Hint: "pass (out, in) or (out, k..., in) dims"})
	}
	rf := 1
	for _, d := range dims[1 : len(dims)-1] {
		rf *= d
	}
	return float64(dims[len(dims)-1] * rf), float64(dims[0] * rf)
}

// Normal draws from N(mean, std²).
func Normal(key *emily.Tensor, mean, std float64, dims ...int) *emily.Tensor {
	return emily.NormalOf(key, mean, std, emily.Float32, dims...)
}

// Uniform draws from U[low, high).
func Uniform(key *emily.Tensor, low, high float64, dims ...int) *emily.Tensor {
	return emily.UniformOf(key, low, high, emily.Float32, dims...)
}

// GlorotUniform draws from U[-l, l) with l = gain·√(6 / (fan_in + fan_out))
// (Xavier; mlx.nn.init.glorot_uniform).
func GlorotUniform(key *emily.Tensor, gain float64, dims ...int) *emily.Tensor {
	in, out := fans("GlorotUniform", dims)
	l := gain * math.Sqrt(6/(in+out))
	return Uniform(key, -l, l, dims...)
}

// GlorotNormal draws from N(0, σ²) with σ = gain·√(2 / (fan_in + fan_out))
// (mlx.nn.init.glorot_normal).
func GlorotNormal(key *emily.Tensor, gain float64, dims ...int) *emily.Tensor {
	in, out := fans("GlorotNormal", dims)
	return Normal(key, 0, gain*math.Sqrt(2/(in+out)), dims...)
}

// HeUniform draws from U[-l, l) with l = gain·√(3 / fan_in) (Kaiming;
// mlx.nn.init.he_uniform with mode fan_in; gain √2 suits ReLU).
func HeUniform(key *emily.Tensor, gain float64, dims ...int) *emily.Tensor {
	in, _ := fans("HeUniform", dims)
	l := gain * math.Sqrt(3/in)
	return Uniform(key, -l, l, dims...)
}

// HeNormal draws from N(0, σ²) with σ = gain / √fan_in
// (mlx.nn.init.he_normal with mode fan_in).
func HeNormal(key *emily.Tensor, gain float64, dims ...int) *emily.Tensor {
	in, _ := fans("HeNormal", dims)
	return Normal(key, 0, gain/math.Sqrt(in), dims...)
}
