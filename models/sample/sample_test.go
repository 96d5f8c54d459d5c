package sample_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/sample"
)

// logitsOf returns B×V float32 logits drawn from a fixed generator: no
// ties, spread like a model's (a few large, a long tail).
func logitsOf(seed uint64, b, v int) []float32 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float32, b*v)
	for i := range out {
		out[i] = float32(r.NormFloat64() * 2.5)
	}
	return out
}

func countsOf(seed uint64, b, v int) []float32 {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]float32, b*v)
	for i := range out {
		if r.IntN(3) == 0 {
			out[i] = float32(1 + r.IntN(3))
		}
	}
	return out
}

func rows(x []float32, b, v int) [][]float32 {
	out := make([][]float32, b)
	for i := range out {
		out[i] = x[i*v : (i+1)*v]
	}
	return out
}

type refCase struct {
	Logits   [][]float32     `json:"logits"`
	Counts   [][]float32     `json:"counts"`
	Settings sample.Settings `json:"settings"`
}

type refResult struct {
	Logprobs [][]*float64 `json:"logprobs"` // nil: filtered out
	Margin   *float64     `json:"margin"`
}

// reference runs testdata/reference.py (NumPy) on cases.
func reference(t *testing.T, cases []refCase) []refResult {
	t.Helper()
	py := filepath.Join("..", "..", ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Skipf("no %s (make test creates it with scripts/setup-venv.sh): %v", py, err)
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, filepath.Join("testdata", "reference.py"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference.py: %v\n%s", err, stderr.String())
	}
	var res []refResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != len(cases) {
		t.Fatalf("reference.py answered %d cases of %d", len(res), len(cases))
	}
	return res
}

// settingsGrid covers each stage alone and together.
var settingsGrid = map[string]sample.Settings{
	"greedy":      {},
	"greedy+pen":  {RepetitionPenalty: 1.5, PresencePenalty: 0.7, LogitBias: map[int]float64{3: 4}},
	"temperature": {Temperature: 0.7},
	"hot":         {Temperature: 1.6},
	"top-k":       {Temperature: 1, TopK: 5},
	"top-p":       {Temperature: 1, TopP: 0.8},
	"top-k+top-p": {Temperature: 0.9, TopK: 6, TopP: 0.7},
	"min-p":       {Temperature: 1, MinP: 0.1},
	"repetition":  {Temperature: 1, RepetitionPenalty: 1.3},
	"presence":    {Temperature: 1, PresencePenalty: 0.5, FrequencyPenalty: 0.3},
	"bias":        {Temperature: 1, LogitBias: map[int]float64{3: 5, 7: -100, 0: -1.5}},
	"all": {Temperature: 0.8, TopK: 10, TopP: 0.9, MinP: 0.02, RepetitionPenalty: 1.2,
		PresencePenalty: 0.2, FrequencyPenalty: 0.1, LogitBias: map[int]float64{1: 2}},
}

// TestDistributionMatchesNumPy: the distribution each sampler draws from
// (Distribution) is the NumPy reference's, with the same tokens kept
// exactly, on logits whose every keep-or-drop decision is far from its
// threshold.
func TestDistributionMatchesNumPy(t *testing.T) {
	const b, v = 4, 40
	var names []string
	var cases []refCase
	for name, s := range settingsGrid {
		names = append(names, name)
		cases = append(cases, refCase{rows(logitsOf(11, b, v), b, v), rows(countsOf(12, b, v), b, v), s})
	}
	ref := reference(t, cases)
	logits := emily.FromSlice(logitsOf(11, b, v), b, v)
	counts := emily.FromSlice(countsOf(12, b, v), b, v)
	for i, name := range names {
		sm, err := sample.New(cases[i].Settings, v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m := ref[i].Margin; m != nil && *m < 1e-4 {
			t.Fatalf("%s: the fixture has a decision %g from its threshold; pick other logits", name, *m)
		}
		got := sm.Distribution(logits, counts).ToFloat32s()
		kept := 0
		for r := 0; r < b; r++ {
			for c := 0; c < v; c++ {
				g, w := float64(got[r*v+c]), ref[i].Logprobs[r][c]
				switch {
				case w == nil && !math.IsInf(g, -1):
					t.Errorf("%s: row %d token %d: kept (logprob %g), NumPy drops it", name, r, c, g)
				case w != nil && math.IsInf(g, -1):
					t.Errorf("%s: row %d token %d: dropped, NumPy keeps it (logprob %g)", name, r, c, *w)
				case w != nil && math.Abs(g-*w) > 1e-4*math.Max(1, math.Abs(*w)):
					t.Errorf("%s: row %d token %d: logprob %g, NumPy %g", name, r, c, g, *w)
				}
				if w != nil {
					kept++
				}
			}
		}
		// The fixture must exercise the filters: each one drops some.
		s := cases[i].Settings
		filters := s.Temperature > 0 && (s.TopK > 0 || s.TopP > 0 || s.MinP > 0)
		if filters && (kept == b*v || kept <= b) {
			t.Errorf("%s: %d of %d tokens kept: the fixture does not test the filter", name, kept, b*v)
		}
	}
}

// TestFrequencies: tokens drawn with a fixed key come up as often as the
// NumPy reference's probabilities say, within 6 standard errors (a correct
// sampler fails with probability below 1e-8; the key is fixed, so the
// test is deterministic), and filtered tokens never.
func TestFrequencies(t *testing.T) {
	const n, v = 40000, 12
	base := logitsOf(21, 1, v)
	cnt := countsOf(22, 1, v)
	grid := []string{"temperature", "hot", "top-p", "top-k+top-p", "min-p", "all"}
	var cases []refCase
	for _, name := range grid {
		cases = append(cases, refCase{rows(base, 1, v), rows(cnt, 1, v), settingsGrid[name]})
	}
	ref := reference(t, cases)
	tile := func(x []float32) *emily.Tensor {
		return emily.Tile(emily.FromSlice(x, 1, v), n, 1)
	}
	logits, counts := tile(base), tile(cnt)
	for i, name := range grid {
		sm, err := sample.New(settingsGrid[name], v)
		if err != nil {
			t.Fatal(err)
		}
		if m := ref[i].Margin; m != nil && *m < 1e-4 {
			t.Fatalf("%s: the fixture has a decision %g from its threshold; pick other logits", name, *m)
		}
		ids, _ := sm.Step(logits, emily.Key(1000+i), counts)
		freq := make([]float64, v)
		for _, id := range ids.ToInt64s() {
			freq[id]++
		}
		for c := 0; c < v; c++ {
			f := freq[c] / n
			w := ref[i].Logprobs[0][c]
			if w == nil {
				if f != 0 {
					t.Errorf("%s: token %d is filtered out but was drawn %v times", name, c, freq[c])
				}
				continue
			}
			p := math.Exp(*w)
			if tol := 6*math.Sqrt(p*(1-p)/n) + 1e-12; math.Abs(f-p) > tol {
				t.Errorf("%s: token %d drawn with frequency %.4f, probability %.4f (± %.4f)", name, c, f, p, tol)
			}
		}
	}
}

func TestGreedyIsArgmax(t *testing.T) {
	const b, v = 5, 1000
	x := logitsOf(31, b, v)
	sm, err := sample.New(sample.Settings{}, v)
	if err != nil {
		t.Fatal(err)
	}
	ids, lps := sm.Step(emily.FromSlice(x, b, v), nil, nil)
	got, lp := ids.ToInt64s(), lps.ToFloat32s()
	if ids.DType() != emily.Int32 || lps.DType() != emily.Float32 {
		t.Fatalf("Step gave %s ids and %s logprobs, want int32 and float32", ids.DType(), lps.DType())
	}
	for r := 0; r < b; r++ {
		row := x[r*v : (r+1)*v]
		best, lse := 0, 0.0
		for c := range row {
			if row[c] > row[best] {
				best = c
			}
		}
		for c := range row {
			lse += math.Exp(float64(row[c] - row[best]))
		}
		if int(got[r]) != best {
			t.Errorf("row %d: greedy picked %d, argmax is %d", r, got[r], best)
		}
		if want := -math.Log(lse); math.Abs(float64(lp[r])-want) > 1e-5 {
			t.Errorf("row %d: logprob %g, log_softmax gives %g", r, lp[r], want)
		}
	}
}

// The logprob is the model's: temperature and filters do not change it.
func TestLogprobIsTheModels(t *testing.T) {
	const b, v = 3, 50
	x := emily.FromSlice(logitsOf(41, b, v), b, v)
	sm, _ := sample.New(sample.Settings{Temperature: 0.5, TopK: 3}, v)
	ids, lps := sm.Step(x, emily.Key(5), nil)
	want := emily.TakeAlongAxis(emily.LogSoftmax(x, -1), emily.ExpandDims(ids, -1), -1).Reshape(-1).ToFloat32s()
	for i, g := range lps.ToFloat32s() {
		if g != want[i] {
			t.Errorf("row %d: logprob %g, log_softmax(logits) %g", i, g, want[i])
		}
	}
}

func TestSeedReproduces(t *testing.T) {
	const b, v, steps = 16, 200, 12
	s := settingsGrid["all"]
	run := func(seed uint64) string {
		s.Seed = seed
		sm, err := sample.New(s, v)
		if err != nil {
			t.Fatal(err)
		}
		key := s.Key()
		counts := emily.Zeros(b, v)
		var sb strings.Builder
		for i := 0; i < steps; i++ {
			var use *emily.Tensor
			use, key = sample.Split(key)
			ids, _ := sm.Step(emily.FromSlice(logitsOf(uint64(i), b, v), b, v), use, counts)
			counts = sample.Count(counts, ids)
			for _, id := range ids.ToInt64s() {
				sb.WriteString(string(rune('A' + id%50)))
			}
		}
		return sb.String()
	}
	a := run(7)
	if again := run(7); again != a {
		t.Errorf("seed 7 twice gave different tokens:\n%s\n%s", a, again)
	}
	if other := run(8); other == a {
		t.Errorf("seeds 7 and 8 gave the same %d tokens", len(a))
	}
	if big := run(1<<63 + 5); big == a || big == run(5) {
		t.Errorf("a seed above 2^63 collides with another")
	}
}

var lanes = map[string][]emily.Option{
	"native": {emily.WithNative(true), emily.WithFallback("raise")},
	"fuse":   {emily.WithNative(true), emily.WithFuse(true), emily.WithFallback("raise")},
	"eval":   {emily.WithNative(false)},
}

// TestStepInEveryLane: Step traced under emily.Jit gives the eager ids for
// the same key in every lane, and the same logprobs (bit for bit in the
// native and evaluator lanes; fuse may differ in the last bits).
func TestStepInEveryLane(t *testing.T) {
	const b, v = 8, 300
	logits := emily.FromSlice(logitsOf(51, b, v), b, v)
	counts := emily.FromSlice(countsOf(52, b, v), b, v)
	for _, name := range []string{"greedy+pen", "top-k", "top-p", "min-p", "all"} {
		sm, err := sample.New(settingsGrid[name], v)
		if err != nil {
			t.Fatal(err)
		}
		for lane, opts := range lanes {
			j, err := emily.Compile(func(x, key, c *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
				return sm.Step(x, key, c)
			}, opts...)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, lane, err)
			}
			for _, seed := range []int{3, 4} {
				key := emily.Key(seed)
				wantIDs, wantLP := sm.Step(logits, key, counts)
				got, err := j.Call(logits, key, counts)
				if err != nil {
					t.Fatalf("%s/%s: %v", name, lane, err)
				}
				if g, w := got[0].ToInt64s(), wantIDs.ToInt64s(); !equalInts(g, w) {
					t.Errorf("%s/%s seed %d: ids %v, eager %v", name, lane, seed, g, w)
				}
				tol := 0.0
				if lane == "fuse" {
					tol = 1e-5
				}
				for i, g := range got[1].ToFloat32s() {
					if w := wantLP.ToFloat32s()[i]; math.Abs(float64(g-w)) > tol {
						t.Errorf("%s/%s: logprob %d = %g, eager %g", name, lane, i, g, w)
					}
				}
			}
			st := j.Stats()
			if st.Traces != 1 {
				t.Errorf("%s/%s: traced %d times for one signature", name, lane, st.Traces)
			}
			if ran := map[string]int64{"native": st.NativeCalls, "fuse": st.FuseCalls, "eval": st.EvalCalls}[lane]; ran != 2 {
				t.Errorf("%s/%s: %d calls ran in the %s lane, want 2 (%+v)", name, lane, ran, lane, st)
			}
		}
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTopLogprobs(t *testing.T) {
	const b, v, n = 3, 64, 5
	x := logitsOf(61, b, v)
	ids, lps := sample.TopLogprobs(emily.FromSlice(x, b, v), n)
	if sh := ids.Shape(); ids.DType() != emily.Int32 || len(sh) != 2 || sh[0] != b || sh[1] != n {
		t.Fatalf("ids %s%v, want int32[%d %d]", ids.DType(), sh, b, n)
	}
	gi, gl := ids.ToInt64s(), lps.ToFloat32s()
	for r := 0; r < b; r++ {
		row := x[r*v : (r+1)*v]
		order := make([]int, v)
		for i := range order {
			order[i] = i
		}
		// descending by logit (no ties in the fixture)
		for i := 1; i < v; i++ {
			for j := i; j > 0 && row[order[j]] > row[order[j-1]]; j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
		lse := 0.0
		for _, y := range row {
			lse += math.Exp(float64(y))
		}
		for k := 0; k < n; k++ {
			if int(gi[r*n+k]) != order[k] {
				t.Errorf("row %d rank %d: token %d, want %d", r, k, gi[r*n+k], order[k])
			}
			if want := float64(row[order[k]]) - math.Log(lse); math.Abs(float64(gl[r*n+k])-want) > 1e-5 {
				t.Errorf("row %d rank %d: logprob %g, want %g", r, k, gl[r*n+k], want)
			}
		}
	}
}

func TestCount(t *testing.T) {
	c := sample.Count(emily.Zeros(2, 4), emily.FromSlice([]int32{3, 1}, 2))
	c = sample.Count(c, emily.FromSlice([]int32{3, 0}, 2))
	got := c.ToFloat32s()
	want := []float32{0, 0, 0, 2, 1, 1, 0, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Count: %v, want %v", got, want)
		}
	}
	p, err := sample.Counts([][]int{{1, 1, 2}}, 3)
	if err != nil || p.ToFloat32s()[1] != 2 || p.ToFloat32s()[2] != 1 {
		t.Errorf("Counts: %v %v", p, err)
	}
	if _, err := sample.Counts([][]int{{5}}, 3); err == nil {
		t.Errorf("Counts took token 5 of a vocabulary of 3")
	}
}

func TestValidate(t *testing.T) {
	for name, s := range map[string]sample.Settings{
		"Temperature": {Temperature: -1},
		"TopK":        {TopK: -2},
		"TopP":        {TopP: 1.5},
		"MinP":        {MinP: 1},
		"Repetition":  {RepetitionPenalty: -0.5},
		"Presence":    {PresencePenalty: math.NaN()},
		"LogitBias":   {LogitBias: map[int]float64{100: 1}},
		"LogitBias[":  {LogitBias: map[int]float64{1: math.Inf(1)}},
	} {
		_, err := sample.New(s, 100)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming %s", name, err, name)
		}
	}
	if _, err := sample.New(sample.Settings{Temperature: 1, TopK: 1000, LogitBias: map[int]float64{2: math.Inf(-1)}}, 100); err != nil {
		t.Errorf("TopK ≥ vocab and a -Inf bias are valid: %v", err)
	}
	sm, _ := sample.New(sample.Settings{Temperature: 1, PresencePenalty: 1}, 10)
	err := emilyError(func() { sm.Step(emily.Zeros(2, 10), emily.Key(1), nil) })
	if err == nil || !strings.Contains(err.Error(), "counts") {
		t.Errorf("penalties without counts: %v, want an error naming counts", err)
	}
	err = emilyError(func() { sm.Step(emily.Zeros(2, 11), emily.Key(1), emily.Zeros(2, 11)) })
	if err == nil || !strings.Contains(err.Error(), "[2 11]") {
		t.Errorf("logits of the wrong vocabulary: %v, want an error naming the shape", err)
	}
}

func emilyError(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}

func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
