package sample_test

import (
	"testing"

	"github.com/emily-go/emily"
	"github.com/emily-go/emily/models/sample"
)

// BenchmarkStep times one jitted Step (native lane) on SmolLM2's
// vocabulary, one row, for each kind of setting: what sampling adds to a
// decode step. go test -run ^$ -bench Step ./models/sample/
func BenchmarkStep(b *testing.B) {
	const v = 49152
	logits := emily.FromSlice(logitsOf(91, 1, v), 1, v)
	counts := emily.FromSlice(countsOf(92, 1, v), 1, v)
	for _, tc := range []struct {
		name string
		s    sample.Settings
	}{
		{"greedy", sample.Settings{}},
		{"temperature", sample.Settings{Temperature: 0.8}},
		{"top-k", sample.Settings{Temperature: 0.8, TopK: 40}},
		{"top-p", sample.Settings{Temperature: 0.8, TopP: 0.95}},
		{"min-p", sample.Settings{Temperature: 0.8, MinP: 0.05}},
		{"all", settingsGrid["all"]},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sm, err := sample.New(tc.s, v)
			if err != nil {
				b.Fatal(err)
			}
			j, err := emily.Compile(func(x, key, c *emily.Tensor) (*emily.Tensor, *emily.Tensor) {
				return sm.Step(x, key, c)
			})
			if err != nil {
				b.Fatal(err)
			}
			key := emily.Key(1)
			for i := 0; i < b.N; i++ {
				out, err := j.Call(logits, key, counts)
				if err != nil {
					b.Fatal(err)
				}
				out[0].Eval()
			}
		})
	}
}
