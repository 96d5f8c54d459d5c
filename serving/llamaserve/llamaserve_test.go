package llamaserve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/emily-go/emily/models/llama"
	"github.com/emily-go/emily/serving"
	"github.com/emily-go/emily/serving/llamaserve"
)

// TestServedEqualsGenerate: a greedy completion over HTTP is the text and
// the tokens of llama.Model.Generate on the same prompt, and its logprobs
// are the model's (the greedy pick is the most likely alternative).
func TestServedEqualsGenerate(t *testing.T) {
	path := llama.DefaultPath()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s missing (make llm): %v", path, err)
	}
	m, err := llama.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := llamaserve.New(m)
	if err != nil {
		t.Fatal(err)
	}
	s, err := serving.NewServer(serving.Options{Generator: g, Model: "smol"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()

	const prompt = "The capital of France is"
	want, err := m.Generate(context.Background(), g.Encode(prompt), llama.Options{MaxTokens: 6}, func(llama.Token) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(hs.URL+"/v1/completions", "application/json", strings.NewReader(
		`{"model": "smol", "prompt": "`+prompt+`", "max_tokens": 6, "temperature": 0, "logprobs": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		Choices []struct {
			Text     string
			Logprobs struct {
				Tokens        []string
				TokenLogprobs []float64            `json:"token_logprobs"`
				TopLogprobs   []map[string]float64 `json:"top_logprobs"`
			}
		}
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	c := v.Choices[0]
	if c.Text != want.Text || v.Usage.CompletionTokens != len(want.Tokens) || v.Usage.PromptTokens != want.PromptTokens {
		t.Errorf("served %q (%d tokens, prompt %d), Generate %q (%d, %d)", c.Text, v.Usage.CompletionTokens, v.Usage.PromptTokens,
			want.Text, len(want.Tokens), want.PromptTokens)
	}
	for i, lp := range c.Logprobs.TokenLogprobs {
		best := -1e9
		for _, a := range c.Logprobs.TopLogprobs[i] {
			best = max(best, a)
		}
		if len(c.Logprobs.TopLogprobs[i]) == 0 || lp != best || lp > 0 {
			t.Errorf("token %d %q: logprob %v, top %v", i, c.Logprobs.Tokens[i], lp, c.Logprobs.TopLogprobs[i])
		}
		// The alternatives are keyed by their texts: the greedy token's
		// own is among them, with its logprob, and none is empty.
		_, empty := c.Logprobs.TopLogprobs[i][""]
		if got, ok := c.Logprobs.TopLogprobs[i][c.Logprobs.Tokens[i]]; !ok || got != lp || empty {
			t.Errorf("token %d %q: top_logprobs %v do not name it by its text", i, c.Logprobs.Tokens[i], c.Logprobs.TopLogprobs[i])
		}
	}
	// A sampling setting the sampler refuses (the HTTP layer lets
	// top_k through unbounded) is still a 400 naming the field.
	if _, err := g.Generate(context.Background(), []int{1}, serving.GenerateOptions{Temperature: -1}, nil); err == nil ||
		err.(*serving.APIError).Param != "temperature" {
		t.Errorf("temperature -1: %v", err)
	}
}
