package sample_test

import (
	"math"
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/sample"
)

// TestRowsBiasMasks: a per-row mask (Rows.Bias) decides which tokens a
// row can get, greedy and drawn, in one traced program, while the
// logprobs stay the model's.
func TestRowsBiasMasks(t *testing.T) {
	const v, b = 32, 2
	x := logitsOf(81, b, v)
	ninf := float32(math.Inf(-1))
	mask := make([]float32, b*v)
	for i := range mask {
		mask[i] = ninf
	}
	allowed := [][]int{{3, 17, 30}, {5}}
	for r, ids := range allowed {
		for _, id := range ids {
			mask[r*v+id] = 0
		}
	}
	for _, s := range []sample.Settings{{}, {Temperature: 1.5, TopK: 20, PresencePenalty: 0.5}} {
		sm, err := sample.New(s, v)
		if err != nil {
			t.Fatal(err)
		}
		step := func(logits, key, counts, bias *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
			return sm.StepRows(logits, key, counts, sample.Rows{Bias: bias})
		}
		jt, err := emily.Compile(step)
		if err != nil {
			t.Fatal(err)
		}
		j := jt.Func().(func(logits, key, counts, bias *emily.Tensor) (*emily.Tensor, *emily.Tensor))
		counts := emily.Zeros(b, v)
		key := s.Key()
		for i := 0; i < 20; i++ {
			var use *emily.Tensor
			use, key = sample.Split(key)
			idsT, lpsT := j(emily.FromSlice(x, b, v), use, counts, emily.FromSlice(mask, b, v))
			ids, lps := idsT.ToInt32s(), lpsT.ToFloat32s()
			for r := range ids {
				ok := false
				for _, a := range allowed[r] {
					ok = ok || int(ids[r]) == a
				}
				if !ok {
					t.Fatalf("%+v: row %d got token %d, outside its mask %v", s, r, ids[r], allowed[r])
				}
				want := emily.LogSoftmax(emily.FromSlice(x[r*v:(r+1)*v], v), -1).ToFloat32s()[ids[r]]
				if math.Abs(float64(lps[r]-want)) > 1e-5 {
					t.Errorf("row %d logprob %v, want the model's %v", r, lps[r], want)
				}
			}
			if s.Greedy() {
				best := allowed[0][0]
				for _, a := range allowed[0] {
					if x[a] > x[best] {
						best = a
					}
				}
				if int(ids[0]) != best {
					t.Errorf("greedy row 0 got %d, want the argmax of its allowed tokens %d", ids[0], best)
				}
			}
		}
		if st := jt.Stats(); st.Traces != 1 {
			t.Errorf("%+v: %d traces for 20 masks, want 1", s, st.Traces)
		}
	}
}
