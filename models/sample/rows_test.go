package sample_test

import (
	"math"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/sample"
)

// rowSettings are four requests batched together, and union is a Sampler
// with every stage they use turned on.
var (
	rowSettings = []sample.Settings{
		{}, // greedy
		{Temperature: 0.7, TopK: 5},
		{Temperature: 1.2, TopP: 0.8, MinP: 0.05, RepetitionPenalty: 1.3},
		{Temperature: 1, TopK: 8, TopP: 0.9, PresencePenalty: 0.5, FrequencyPenalty: 0.2},
	}
	union = sample.Settings{Temperature: 1, TopK: 1, TopP: 0.5, MinP: 0.01,
		RepetitionPenalty: 1.1, PresencePenalty: 0.1, FrequencyPenalty: 0.1}
)

func rowsOf(ss []sample.Settings) sample.Rows {
	var t, p, m, rep, pres, freq []float32
	var k []int32
	for _, s := range ss {
		topP, r := s.TopP, s.RepetitionPenalty
		if topP == 0 {
			topP = 1
		}
		if r == 0 {
			r = 1
		}
		t, p, m = append(t, float32(s.Temperature)), append(p, float32(topP)), append(m, float32(s.MinP))
		k = append(k, int32(s.TopK))
		rep, pres, freq = append(rep, float32(r)), append(pres, float32(s.PresencePenalty)), append(freq, float32(s.FrequencyPenalty))
	}
	n := len(ss)
	return sample.Rows{
		Temperature: emily.FromSlice(t, n), TopK: emily.FromSlice(k, n), TopP: emily.FromSlice(p, n), MinP: emily.FromSlice(m, n),
		RepetitionPenalty: emily.FromSlice(rep, n), PresencePenalty: emily.FromSlice(pres, n), FrequencyPenalty: emily.FromSlice(freq, n),
	}
}

// TestRowsMatchOneSamplerPerRow: a batch whose rows carry their own
// settings as tensors draws each row from the distribution that a Sampler
// made with that row's settings alone gives it.
func TestRowsMatchOneSamplerPerRow(t *testing.T) {
	const v = 40
	b := len(rowSettings)
	x, c := logitsOf(71, b, v), countsOf(72, b, v)
	logits, counts := emily.FromSlice(x, b, v), emily.FromSlice(c, b, v)
	sm, err := sample.New(union, v)
	if err != nil {
		t.Fatal(err)
	}
	got := sm.DistributionRows(logits, counts, rowsOf(rowSettings)).ToFloat32s()
	for r, s := range rowSettings {
		one, err := sample.New(s, v)
		if err != nil {
			t.Fatal(err)
		}
		want := one.Distribution(emily.FromSlice(x[r*v:(r+1)*v], 1, v), emily.FromSlice(c[r*v:(r+1)*v], 1, v)).ToFloat32s()
		kept := 0
		for i, w := range want {
			g := got[r*v+i]
			if math.IsInf(float64(w), -1) != math.IsInf(float64(g), -1) || !math.IsInf(float64(w), -1) && math.Abs(float64(g-w)) > 1e-6 {
				t.Errorf("row %d (%+v) token %d: %g, alone %g", r, s, i, g, w)
			}
			if !math.IsInf(float64(w), -1) {
				kept++
			}
		}
		if r > 0 && (kept == v || kept == 1) {
			t.Errorf("row %d keeps %d of %d tokens: the fixture does not test its filters", r, kept, v)
		}
	}
}

func TestStepRowsInEveryLane(t *testing.T) {
	const v = 64
	b := len(rowSettings)
	x := logitsOf(81, b, v)
	logits, counts := emily.FromSlice(x, b, v), emily.FromSlice(countsOf(82, b, v), b, v)
	sm, _ := sample.New(union, v)
	rs := rowsOf(rowSettings)
	f := func(l, key, c, temp, k, p, m, rep, pres, freq *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
		return sm.StepRows(l, key, c, sample.Rows{Temperature: temp, TopK: k, TopP: p, MinP: m,
			RepetitionPenalty: rep, PresencePenalty: pres, FrequencyPenalty: freq})
	}
	args := []*emily.Tensor{logits, nil, counts, rs.Temperature, rs.TopK, rs.TopP, rs.MinP, rs.RepetitionPenalty, rs.PresencePenalty, rs.FrequencyPenalty}
	for lane, opts := range lanes {
		j, err := emily.Compile(f, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for seed := 0; seed < 3; seed++ {
			args[1] = emily.Key(seed)
			want, _ := sm.StepRows(logits, args[1], counts, rs)
			got, err := j.Call(args...)
			if err != nil {
				t.Fatalf("%s: %v", lane, err)
			}
			if g, w := got[0].ToInt64s(), want.ToInt64s(); !equalInts(g, w) {
				t.Errorf("%s seed %d: ids %v, eager %v", lane, seed, g, w)
			}
			// Row 0 is greedy and has no penalties: the argmax.
			best := 0
			for i := 0; i < v; i++ {
				if x[i] > x[best] {
					best = i
				}
			}
			if id := got[0].ToInt64s()[0]; id != int64(best) {
				t.Errorf("%s: the greedy row picked %d, argmax %d", lane, id, best)
			}
		}
		if st := j.Stats(); st.Traces != 1 {
			t.Errorf("%s: traced %d times for three keys", lane, st.Traces)
		}
	}
}

func TestRowsErrors(t *testing.T) {
	sm, _ := sample.New(sample.Settings{Temperature: 1}, 10)
	err := emilyError(func() {
		sm.StepRows(emily.Zeros(2, 10), emily.Key(1), nil, sample.Rows{TopP: emily.Ones(2)})
	})
	if err == nil || !contains(err.Error(), "TopP", "off") {
		t.Errorf("a Rows field for a stage that is off: %v", err)
	}
	err = emilyError(func() {
		sm.StepRows(emily.Zeros(2, 10), emily.Key(1), nil, sample.Rows{Temperature: emily.Ones(3)})
	})
	if err == nil || !contains(err.Error(), "Temperature", "[2]") {
		t.Errorf("a Rows field of the wrong length: %v", err)
	}
}

// TestTiesAtTheKth: tokens tied with the k-th largest logit are all kept
// by top-k, and top-p after top-k counts their mass, exactly as the NumPy
// reference defines it, in both ways the Sampler computes it (TopK's
// values for a fixed k, a full sort for per-row k).
func TestTiesAtTheKth(t *testing.T) {
	const v = 8
	x := []float32{1, 4, 1, -2, 2, 1, -3, 1} // 4, 2, then four tied at 1
	var cases []refCase
	for _, p := range []float64{0.8, 0.9, 0.99} {
		cases = append(cases, refCase{[][]float32{x}, [][]float32{make([]float32, v)},
			sample.Settings{Temperature: 1, TopK: 3, TopP: p}})
	}
	ref := reference(t, cases)
	logits := emily.FromSlice(x, 1, v)
	kept := map[int]bool{}
	for i, c := range cases {
		sm, err := sample.New(c.Settings, v)
		if err != nil {
			t.Fatal(err)
		}
		fixed := sm.Distribution(logits, nil).ToFloat32s()
		perRow := sm.DistributionRows(logits, nil, sample.Rows{TopK: emily.FromSlice([]int32{3}, 1)}).ToFloat32s()
		n := 0
		for tok := 0; tok < v; tok++ {
			w := ref[i].Logprobs[0][tok]
			for name, got := range map[string]float32{"TopK": fixed[tok], "per-row": perRow[tok]} {
				g := float64(got)
				if (w == nil) != math.IsInf(g, -1) || w != nil && math.Abs(g-*w) > 1e-5 {
					t.Errorf("top-p %v, %s path: token %d: %g, NumPy %v", c.Settings.TopP, name, tok, g, w)
				}
			}
			if w != nil {
				n++
			}
		}
		kept[n] = true
	}
	if !kept[2] || !kept[6] {
		t.Errorf("the fixture should keep 2 tokens (top-p cuts inside the top k) and 6 (all the ties): kept %v", kept)
	}
}
