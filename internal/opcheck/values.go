package opcheck

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/internal/opspec"
)

// rng is a small deterministic generator (splitmix64), seeded per case,
// so every run checks the same values.
type rng struct{ s uint64 }

func newRNG(id string) *rng {
	h := fnv.New64a()
	h.Write([]byte(id))
	return &rng{s: h.Sum64()}
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// uniform returns a float in [lo, hi).
func (r *rng) uniform(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.next()>>11)/float64(1<<53)
}

func isFloat(dt string) bool {
	return dt == "float32" || dt == "float16" || dt == "bfloat16" || dt == "float64" || dt == "complex64"
}

func isUnsigned(dt string) bool {
	return dt == "uint8" || dt == "uint16" || dt == "uint32" || dt == "uint64"
}

// values draws n values of dtype dt from domain d.
func values(r *rng, n int, dt string, d opspec.Domain) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = value(r, dt, d)
	}
	return out
}

func value(r *rng, dt string, d opspec.Domain) float64 {
	if dt == "bool" {
		return float64(r.next() & 1)
	}
	lo, hi := -4.0, 4.0
	switch d {
	case opspec.Positive:
		lo, hi = 0.1, 4
	case opspec.Unit:
		lo, hi = -0.95, 0.95
	case opspec.Small:
		lo, hi = -2, 2
	case opspec.AtLeastOne:
		lo, hi = 1, 4
	case opspec.Probability:
		lo, hi = 0, 1
	}
	if isUnsigned(dt) {
		if lo < 0 {
			lo = 0
		}
		hi += 4
	}
	v := r.uniform(lo, hi)
	if !isFloat(dt) {
		v = math.Floor(v)
		if d == opspec.Positive || d == opspec.AtLeastOne {
			v = math.Max(v, 1)
		}
	}
	if d == opspec.NonZero {
		if isFloat(dt) && math.Abs(v) < 0.5 {
			v += math.Copysign(0.5, v)
		}
		if !isFloat(dt) && v == 0 {
			v = 1
		}
	}
	return v
}

// specials are the float values where edge behaviour matters.
var specials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1}

// tensorOf makes a tensor of dtype from float64 values: through float64
// (exact for every value drawn here) on the CPU, float32 elsewhere, then
// MLX's own conversion.
func tensorOf(vals []float64, dt string, shape []int) *emily.Tensor {
	d, err := emily.ParseDType(dt)
	if err != nil {
		panic(err)
	}
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	}
	t := emily.FromBytes(b, emily.Float32, shape...)
	if d == emily.Float32 {
		return t
	}
	return emily.Astype(t, d)
}

// spd turns each trailing n×n matrix A of vals into A Aᵀ/n + I: symmetric
// positive definite with eigenvalues of order 1 to 17 (Cholesky's domain).
func spd(vals []float64, shape []int) []float64 {
	if len(shape) < 2 || shape[len(shape)-1] != shape[len(shape)-2] {
		panic(fmt.Sprintf("opcheck: the SPD domain needs square matrices, got shape %v", shape))
	}
	n := shape[len(shape)-1]
	out := make([]float64, len(vals))
	for base := 0; base+n*n <= len(vals); base += n * n {
		a := vals[base : base+n*n]
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := 0; k < n; k++ {
					s += a[i*n+k] * a[j*n+k]
				}
				s /= float64(n)
				if i == j {
					s++
				}
				// Round to float32 so the matrix is exactly symmetric in
				// every dtype the case converts it to.
				out[base+i*n+j] = float64(float32(s))
			}
		}
	}
	return out
}
