package llama

import (
	"context"
	"testing"
	"time"
)

func TestSmokeScratch(t *testing.T) {
	t0 := time.Now()
	m, err := Load(DefaultPath())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("load %v %+v", time.Since(t0), m.Config())
	prompt := []int{1, 9690, 198, 2683, 359, 253, 5356, 5646, 11173, 3365, 3511, 308, 34519, 28, 7018, 411, 407, 19712, 8182, 2, 198, 1, 4093, 198}
	res, err := m.Generate(context.Background(), prompt, Options{MaxTokens: 24}, func(tok Token) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v %s prefill %v decode %v %.1f tok/s", res.Tokens, res.Reason, res.Prefill, res.Decode, res.DecodeTokensPerSecond())
	t.Logf("%+v", m.Step(Native).Stats())
}
