package emily_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/emily-go/emily"
)

// Random ops have no NumPy oracle (another generator): these tests check
// what the explicit-key design promises instead. The same key gives
// bit-identical numbers eagerly, in each jit lane and in another process;
// different keys give different numbers; and each distribution's moments,
// ranges and frequencies are right.

// draws makes one sample of every random op from key, in a fixed order.
func draws(key *emily.Tensor) []*emily.Tensor {
	ks := emily.KeySplit(key, 12)
	logits := emily.FromSlice([]float32{0, 1, 2, -1}, 4)
	return []*emily.Tensor{
		ks[0], ks[1],
		emily.Uniform(ks[0], -1, 2, 64),
		emily.UniformOf(ks[1], 0, 1, emily.Float16, 4, 4),
		emily.Normal(ks[2], 64),
		emily.NormalOf(ks[3], 2, 0.5, emily.BFloat16, 8),
		emily.Randint(ks[4], -3, 7, 32),
		emily.Bernoulli(ks[5], 0.3, 32),
		emily.CategoricalN(ks[6], logits, -1, 16),
		emily.Permutation(ks[7], 20),
		emily.Shuffle(ks[8], emily.Arange(12), 0),
		emily.TruncatedNormal(ks[9], -1, 1, 32),
		emily.Gumbel(ks[10], 32),
		emily.Laplace(ks[11], 32),
	}
}

// fingerprint hashes the dtype, shape and bytes of each tensor.
func fingerprint(ts []*emily.Tensor) string {
	h := sha256.New()
	for _, t := range ts {
		fmt.Fprintf(h, "%s%v;", t.DType(), t.Shape())
		h.Write(t.Bytes())
	}
	return hex.EncodeToString(h.Sum(nil))
}

func keyFor(seed int) *emily.Tensor { return emily.Key(seed) }

// TestRandomChild is the second process of TestRandomAcrossProcesses: it
// prints the fingerprint of the draws for seed 1234 and nothing else.
func TestRandomChild(t *testing.T) {
	if os.Getenv("EMILY_RANDOM_CHILD") != "1" {
		t.Skip("run by TestRandomAcrossProcesses")
	}
	fmt.Println("FINGERPRINT", fingerprint(draws(keyFor(1234))))
}

func TestRandomAcrossProcesses(t *testing.T) {
	want := fingerprint(draws(keyFor(1234)))
	if again := fingerprint(draws(keyFor(1234))); again != want {
		t.Fatalf("the same key gave different numbers twice in one process")
	}
	if other := fingerprint(draws(keyFor(1235))); other == want {
		t.Fatalf("seeds 1234 and 1235 gave the same numbers")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRandomChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "EMILY_RANDOM_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	var got string
	for _, line := range strings.Split(string(out), "\n") {
		if f, ok := strings.CutPrefix(line, "FINGERPRINT "); ok {
			got = strings.TrimSpace(f)
		}
	}
	if got != want {
		t.Fatalf("another process drew different numbers from the same key: %q vs %q\n%s", got, want, out)
	}
}

// TestRandomJitLanes: draws traced and replayed in each jit lane equal the
// eager draws bit for bit, for a key passed in as an argument and for a key
// made inside the traced function (Key has no operand: it is traced as an
// op, not captured as a constant, so a new seed is a new key).
func TestRandomJitLanes(t *testing.T) {
	lanes := map[string][]emily.Option{
		"native": {emily.WithNative(true), emily.WithFallback("raise")},
		"eval":   {emily.WithNative(false)},
		"fuse":   {emily.WithNative(true), emily.WithFuse(true), emily.WithFallback("raise")},
	}
	key := keyFor(7)
	eager := draws(key)
	for name, opts := range lanes {
		f := func(k *emily.Tensor) (*emily.Tensor, *emily.Tensor, *emily.Tensor, *emily.Tensor, *emily.Tensor, *emily.Tensor, *emily.Tensor) {
			d := draws(k)
			return d[2], d[4], d[6], d[8], d[9], d[11], d[13]
		}
		j, err := emily.Compile(f, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, k := range []*emily.Tensor{key, keyFor(8)} {
			got, err := j.Call(k)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ref := draws(k)
			for i, idx := range []int{2, 4, 6, 8, 9, 11, 13} {
				if !sameDraw(name, got[i], ref[idx]) {
					t.Errorf("%s lane: draw %d differs from eager", name, idx)
				}
			}
		}
		seeded, err := emily.Compile(func(x *emily.Tensor) *emily.Tensor {
			return emily.Add(emily.Uniform(emily.Key(99), 0, 1, 8), x)
		}, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := seeded.Call(emily.Zeros(8))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := emily.Uniform(emily.Key(99), 0, 1, 8); !sameDraw(name, got[0], want) {
			t.Errorf("%s lane: Key made inside the traced function draws other numbers than eagerly", name)
		}
	}
	_ = eager
}

var floating = map[emily.DType]bool{emily.Float16: true, emily.BFloat16: true, emily.Float32: true}

// sameDraw: a lane's draw equals the eager one bit for bit, except that
// the fuse lane on the GPU may differ in the last bits of floating draws:
// MLX compiles fused CUDA kernels with NVRTC, which contracts a*b+c into
// one FMA (the eager ops round after the multiply), so Uniform's scale and
// shift may round differently. The random bits themselves, and every
// integer draw, stay identical.
func sameDraw(lane string, got, want *emily.Tensor) bool {
	if fingerprint([]*emily.Tensor{got}) == fingerprint([]*emily.Tensor{want}) {
		return true
	}
	// The fuse lane is held to its bound, not to bits, where its kernels
	// compute transcendental functions differently: MLX's CUDA kernels, and
	// the CPU kernels built with the host's vector math (libmvec's log and
	// erfinv behind Normal, Gumbel, Laplace; fusevec.go).
	if lane != "fuse" || (emily.DefaultDevice() != "gpu" && emily.FuseCXXFlags() == "") || !floating[got.DType()] {
		return false
	}
	g, w := got.Astype(emily.Float32).ToFloat32s(), want.Astype(emily.Float32).ToFloat32s()
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if d := math.Abs(float64(g[i] - w[i])); d > 1e-6*math.Max(1, math.Abs(float64(w[i]))) {
			return false
		}
	}
	return true
}

func moments(v []float64) (mean, variance float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(v))
}

// within fails when got is farther than tol from want.
func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
	}
}

// The tolerances below are about 6 standard errors for n = 200000 draws:
// a correct generator fails them with probability far below 1e-6, and the
// keys are fixed, so the test is deterministic.
const nDraws = 200000

func TestRandomDistributions(t *testing.T) {
	ks := emily.KeySplit(keyFor(2024), 10)

	u := emily.Uniform(ks[0], -1, 3, nDraws).ToFloat64s()
	m, v := moments(u)
	within(t, "Uniform(-1, 3) mean", m, 1, 0.02)
	within(t, "Uniform(-1, 3) variance", v, 16.0/12, 0.02)
	for _, x := range u {
		if x < -1 || x >= 3 {
			t.Fatalf("Uniform(-1, 3) drew %v", x)
		}
	}

	m, v = moments(emily.NormalOf(ks[1], 2, 3, emily.Float32, nDraws).ToFloat64s())
	within(t, "Normal(2, 3) mean", m, 2, 0.05)
	within(t, "Normal(2, 3) variance", v, 9, 0.2)

	ri := emily.Randint(ks[2], -3, 7, nDraws)
	if ri.DType() != emily.Int32 {
		t.Errorf("Randint dtype %s, want int32", ri.DType())
	}
	counts := map[int64]int{}
	for _, x := range ri.ToInt64s() {
		if x < -3 || x >= 7 {
			t.Fatalf("Randint(-3, 7) drew %d", x)
		}
		counts[x]++
	}
	for x := int64(-3); x < 7; x++ {
		within(t, fmt.Sprintf("Randint frequency of %d", x), float64(counts[x])/nDraws, 0.1, 0.005)
	}

	b := emily.Bernoulli(ks[3], 0.3, nDraws)
	if b.DType() != emily.Bool {
		t.Errorf("Bernoulli dtype %s, want bool", b.DType())
	}
	trues := 0
	for _, x := range b.ToBools() {
		if x {
			trues++
		}
	}
	within(t, "Bernoulli(0.3) frequency", float64(trues)/nDraws, 0.3, 0.007)

	logits := []float32{0, 1, 2, -1}
	c := emily.CategoricalN(ks[4], emily.FromSlice(logits, 1, 4), -1, nDraws)
	if got := c.Shape(); len(got) != 2 || got[0] != 1 || got[1] != nDraws {
		t.Fatalf("CategoricalN shape %v, want [1 %d]", got, nDraws)
	}
	var z float64
	for _, l := range logits {
		z += math.Exp(float64(l))
	}
	cc := make([]int, 4)
	for _, x := range c.ToInt64s() {
		cc[x]++
	}
	for i, l := range logits {
		within(t, fmt.Sprintf("Categorical frequency of %d", i), float64(cc[i])/nDraws, math.Exp(float64(l))/z, 0.007)
	}
	if one := emily.Categorical(ks[4], emily.FromSlice(logits, 2, 2), 0); len(one.Shape()) != 1 || one.Shape()[0] != 2 {
		t.Errorf("Categorical over axis 0 of (2, 2): shape %v, want [2]", one.Shape())
	}

	p := emily.Permutation(ks[5], 1000).ToInts()
	sorted := append([]int(nil), p...)
	sort.Ints(sorted)
	for i, x := range sorted {
		if x != i {
			t.Fatalf("Permutation(1000) is not a permutation of 0..999: sorted[%d] = %d", i, x)
		}
	}
	fixed := 0
	for i, x := range p {
		if x == i {
			fixed++
		}
	}
	if fixed > 10 {
		t.Errorf("Permutation(1000) has %d fixed points (expected about 1)", fixed)
	}

	x := emily.Reshape(emily.Arange(12), 3, 4)
	sh := emily.Shuffle(ks[6], x, 1).ToInts()
	for r := 0; r < 3; r++ {
		row := append([]int(nil), sh[4*r:4*r+4]...)
		for i := range row {
			row[i] -= 4 * r
		}
		if sh[4*r]-4*r != sh[0] || sh[4*r+1]-4*r != sh[1] {
			t.Errorf("Shuffle along axis 1 moved rows differently: %v", sh)
		}
		sort.Ints(row)
		for i, v := range row {
			if v != i {
				t.Fatalf("Shuffle along axis 1 lost elements: %v", sh)
			}
		}
	}

	tn := emily.TruncatedNormal(ks[7], -1, 2, nDraws).ToFloat64s()
	for _, x := range tn {
		if x < -1 || x > 2 {
			t.Fatalf("TruncatedNormal(-1, 2) drew %v", x)
		}
	}
	// Mean of the standard normal truncated to [a, b]: (φ(a) - φ(b)) / (Φ(b) - Φ(a)).
	phi := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	cdf := func(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }
	m, _ = moments(tn)
	within(t, "TruncatedNormal(-1, 2) mean", m, (phi(-1)-phi(2))/(cdf(2)-cdf(-1)), 0.01)

	m, v = moments(emily.Gumbel(ks[8], nDraws).ToFloat64s())
	within(t, "Gumbel mean (Euler's γ)", m, 0.5772156649, 0.02)
	within(t, "Gumbel variance (π²/6)", v, math.Pi*math.Pi/6, 0.05)

	m, v = moments(emily.Laplace(ks[9], nDraws).ToFloat64s())
	within(t, "Laplace mean", m, 0, 0.02)
	within(t, "Laplace variance", v, 2, 0.06)
}

func TestKeyAndSplit(t *testing.T) {
	k := emily.Key(1<<40 + 7)
	if k.DType() != emily.Uint32 || len(k.Shape()) != 1 || k.Shape()[0] != 2 {
		t.Fatalf("Key: %s%v, want uint32[2]", k.DType(), k.Shape())
	}
	if got := k.ToInt64s(); got[0] != 1<<8 || got[1] != 7 {
		t.Errorf("Key(2^40 + 7) = %v, want [256 7] (high and low 32 bits)", got)
	}
	ks := emily.KeySplit(emily.Key(5), 4)
	seen := map[string]bool{}
	for _, kk := range ks {
		if kk.DType() != emily.Uint32 || len(kk.Shape()) != 1 || kk.Shape()[0] != 2 {
			t.Fatalf("KeySplit key: %s%v, want uint32[2]", kk.DType(), kk.Shape())
		}
		seen[string(kk.Bytes())] = true
	}
	if len(seen) != 4 {
		t.Errorf("KeySplit(key, 4) gave %d distinct keys", len(seen))
	}
	again := emily.KeySplit(emily.Key(5), 4)
	for i := range ks {
		if string(ks[i].Bytes()) != string(again[i].Bytes()) {
			t.Errorf("KeySplit is not deterministic at key %d", i)
		}
	}
}

func TestRandomErrors(t *testing.T) {
	for name, f := range map[string]func(){
		"bad key dtype": func() { emily.Uniform(emily.Zeros(2), 0, 1, 3).Eval() },
		"bad key shape": func() { emily.Normal(emily.ZerosOf(emily.Uint32, 3), 3).Eval() },
		"split zero":    func() { emily.KeySplit(emily.Key(1), 0) },
	} {
		err := catch(f)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if e, ok := err.(*emily.Error); !ok {
			t.Errorf("%s: %T %v, want *emily.Error", name, err, err)
		} else if !strings.Contains(e.Error(), "Key") && !strings.Contains(e.Error(), "key") {
			t.Errorf("%s: %v does not mention the key", name, e)
		}
	}
}

func catch(f func()) (err any) {
	defer func() { err = recover() }()
	f()
	return nil
}
